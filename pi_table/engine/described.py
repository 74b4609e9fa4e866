"""A game as everything above the engine reads it: its title, its nouns, the options it is dealt
with, whether menus offer it, its key's legend, and, as OpenSpiel's ``GameType`` declares its
players and utility, who plays it, how it is won, scored and rated and its cards (``Description``).

python-chess's variant classes carry theirs (``uci_variant``, ``aliases``, ``starting_fen``); here
a grid game's class carries its ``description`` and a game of another kind has its in its rules'
room, so naming a game loads no engine. The screen's menu, the staff page's new-game form, the configuration's
keys and their help, the reference pages, the terminal, the game night and the tests read these,
never a game's name: a new game is described once, where it is made. Every word is a msgid, said in each surface's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .endings import Termination
from .keys import ASSASSIN, BLUE_AGENT, BYSTANDER, CELLS, RED_AGENT
from .phrase import N_

KINDS_OF_VALUE = ("bool", "str", "int", "number")
"""What an option's value is: true or false, one of its words, a whole number, any number (as
the configuration's kinds of the same names)."""


@dataclass(frozen=True, slots=True)
class Nouns:
    """A game's words for who gives the clues, who guesses and what lies on a cell (msgids). A
    sentence that names one is written once for each word a game has (the catalogue translates
    whole sentences): a game chooses its nouns among those, as Alias 24 has its masterminds,
    teams and aliases where Codenames has spymasters, operatives and cards."""

    clue_giver: str
    guessers: str
    card: str


SPYMASTERS = Nouns(N_("spymaster"), N_("operatives"), N_("card"))
MASTERMINDS = Nouns(N_("mastermind"), N_("team"), N_("alias"))
NOUNS = (SPYMASTERS, MASTERMINDS)
"""Every game's nouns: the sentences of the screen, the terminal and the refusals have a version
for each of these."""


@dataclass(frozen=True, slots=True)
class Choice:
    """An option a game is dealt with, a field of its rules (or, ``rule`` False, a setting its
    table plays with, such as a discussion's length): its kind of value (``KINDS_OF_VALUE``) and
    default; its label and help (msgids); the words it is one of (``values``, each said in
    ``words``) or the numbers it takes (``span``, in ``unit``). The staff page's new-game form
    offers the rules' options; a table's setting is the configuration's alone."""

    name: str
    kind: str
    default: object
    label: str
    help: str
    values: tuple[str, ...] = ()
    words: Mapping[str, str] = field(default_factory=dict)
    span: tuple[float, float] | None = None
    unit: str | None = None
    rule: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS_OF_VALUE:
            # a programming error: a description written wrong, met at its import
            raise ValueError(f"option {self.name}: a kind is one of {', '.join(KINDS_OF_VALUE)}, not {self.kind!r}")


GRID_LEGEND = {RED_AGENT: N_("red agent"), BLUE_AGENT: N_("blue agent"), BYSTANDER: N_("bystander"),
               ASSASSIN: N_("assassin")}
"""The key's letters as Codenames names its cards."""
GRID_PHASES = {"place": N_("place"), "clue": N_("clue"), "guess": N_("guess"), "cover": N_("cover")}
"""The grid games' phases by their names in the table's JSON, in words."""


@dataclass(frozen=True, slots=True)
class Cards:
    """How many cards of each kind a grid game's key holds: ``first`` and ``second`` agents (or
    assets) for the two teams (which team has ``first`` is the game's rule: Codenames', the
    starting team), ``bystanders``, ``assassins``, and ``dark`` cells without a card (where
    is a rule: Alias 24's ``dark_cell``)."""

    first: int
    second: int
    bystanders: int
    assassins: int
    dark: int = 0

    def __post_init__(self) -> None:
        if self.first + self.second + self.bystanders + self.assassins + self.dark != CELLS or self.dark not in (0, 1):
            # a programming error: a description written wrong, met at its import
            raise ValueError(f"a key's cards and at most one dark cell fill its {CELLS} cells, not {self}")


@dataclass(frozen=True, slots=True)
class Score:
    """What a won game scores: what it counts (``counts``, a msgid), from ``low`` to ``high``
    (the best), on the table view's ``score``."""

    counts: str
    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Description:
    """A game for the layers above the engine: its ``title`` (a msgid), its ``nouns`` (None for
    a game whose kind's rooms have words of their own for its people and its cards), the
    ``options`` it is dealt with, whether menus offer it (``offered``: the screen's and the staff
    page's), its key's ``legend`` (each letter's name, a msgid; none for a game without a key
    of letters), and its ``phases`` (or steps) by their names in the table's JSON, in words (the
    status and the staff page say them).

    Who plays it and how it ends, as OpenSpiel's ``GameType``: ``teams`` is how many play, two
    (red and blue, the public view's colours, red first) or one (``cooperative``: the players,
    who take the key's starting colour, the view's ``start``, against a simulated opponent, and
    win or lose together); ``score`` what a win scores, None for a game won without one;
    ``rated`` whether a game night counts it in its standings (a game between two of its
    teams); ``cards`` a grid game's key's cards (None for a game without a key of letters);
    ``endings`` the ways to end it has of its own, beside ``endings.SHARED`` (the history, the
    fleet and the night read them as they read its options); ``table_clues`` whether the table
    gives its clues (the clue-giver of ``pi_table.clues``), which offers it only in a language
    whose measured figures pass the clues' gate (``clues.gate.offered``)."""

    title: str
    nouns: Nouns | None = None
    options: tuple[Choice, ...] = ()
    offered: bool = True
    legend: Mapping[str, str] = field(default_factory=dict)
    phases: Mapping[str, str] = field(default_factory=dict)
    teams: int = 2
    cooperative: bool = False
    score: Score | None = None
    rated: bool = True
    cards: Cards | None = None
    endings: tuple[Termination, ...] = ()
    table_clues: bool = False

    def __post_init__(self) -> None:
        if self.teams not in (1, 2) or self.cooperative != (self.teams == 1) or (self.rated and self.teams != 2):
            # a programming error: a description written wrong, met at its import
            raise ValueError(f"{self.title}: two teams play against each other, or one cooperatively, and only two are "
                             f"rated; not {self.teams} team(s), cooperative {self.cooperative}, rated {self.rated}")
        if self.nouns is not None and self.nouns not in NOUNS:
            raise ValueError(f"{self.title}: a game's nouns are among NOUNS (the sentences have a version for each), "
                             f"not {self.nouns}")  # a programming error: a description written wrong, met at its import
