"""Actions: small frozen dataclasses with a one-line text form.

The text form ("clue 3", "touch 7", "end-turn") is what the journal stores and what the
scripted simulator reads, so a game on disk is readable by a person.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .errors import InvalidAction, InvalidKey
from .keys import CELLS, Key, Team
from .phrase import Phrase

UNLIMITED = "unlimited"
"""The clue number that lifts the guess limit ("tiny: infinity")."""
UNLIMITED_WORDS = (UNLIMITED, "infinity", "∞", "senza-limiti")
"""How a text form may write it: the English words, the symbol, and the Italian book's "senza limiti"
(which the Italian terminal's help and refusals teach)."""

MAX_CLUE = 9
"""No team holds more than 9 cards, so no honest clue number is larger."""

ClueNumber = int | str | None
"""A whole number 0..9, ``UNLIMITED``, or ``None`` when the spymaster said a clue aloud but
entered no number (the table then lets the operatives guess until a miss or END TURN)."""


def check_cell(cell: int) -> int:
    if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < CELLS:
        raise InvalidAction("the grid's cells are 0 to {last}", last=CELLS - 1, given=cell)
    return cell


@dataclass(frozen=True, slots=True)
class Clue:
    """The spymaster (Alias 24: mastermind) enters the number of the clue just said aloud."""

    number: int | str

    def __post_init__(self) -> None:
        n = self.number
        if n != UNLIMITED and not (isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_CLUE):
            raise InvalidAction("a clue number is 0 to {most} or unlimited", most=MAX_CLUE, given=n)

    def __str__(self) -> str:
        return f"clue {self.number}"


@dataclass(frozen=True, slots=True)
class Guess:
    """An operative touches a card (Alias 24: targets an alias)."""

    cell: int

    def __post_init__(self) -> None:
        check_cell(self.cell)

    def __str__(self) -> str:
        return f"touch {self.cell}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """The operatives stop guessing (the END TURN button)."""

    def __str__(self) -> str:
        return "end-turn"


@dataclass(frozen=True, slots=True)
class Penalty:
    """The current clue was ruled invalid: the turn ends at once, with no guesses."""

    def __str__(self) -> str:
        return "penalty"


@dataclass(frozen=True, slots=True)
class Cover:
    """A spymaster covers a card without a guess: after a penalty, or the simulated opponent."""

    cell: int

    def __post_init__(self) -> None:
        check_cell(self.cell)

    def __str__(self) -> str:
        return f"cover {self.cell}"


@dataclass(frozen=True, slots=True)
class Place:
    """Deep Undercover's setup: a team has laid its next codename on the lit cell.

    The last one carries the key, drawn as it goes down (the book chooses the key after the
    cards are placed), so that a replay of the journal or a script is exact: its text form is
    ``place CELL key CELLS TEAM``."""

    cell: int
    key: Key | None = None

    def __post_init__(self) -> None:
        check_cell(self.cell)

    def __str__(self) -> str:
        if self.key is None:
            return f"place {self.cell}"
        return f"place {self.cell} key {self.key.cells} {self.key.start}"


@dataclass(frozen=True, slots=True)
class TimeUp:
    """The turn timer ran out and is enforced: the turn ends, even before a guess."""

    def __str__(self) -> str:
        return "time-up"


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last accepted action (a mis-touch both spymasters agree to undo)."""

    def __str__(self) -> str:
        return "undo"


Action = Clue | Guess | EndTurn | Penalty | Cover | Place | TimeUp | Undo

_CELL_ACTIONS: dict[str, Callable[[int], Action]] = {"touch": Guess, "cover": Cover, "place": Place}
_PLAIN_ACTIONS: dict[str, Callable[[], Action]] = {"end-turn": EndTurn, "penalty": Penalty, "time-up": TimeUp, "undo": Undo}
THE_CELL = Phrase.of("the cell")
ACTION_WORDS = ("clue", "touch", "end-turn", "penalty", "cover", "place", "time-up", "undo")


def whole_number(word: str, what: Phrase) -> int:
    if not word.isdigit() or not word.isascii():
        raise InvalidAction("{what} must be a whole number", what=what, given=word)
    return int(word)


def parse_action(text: str) -> Action:
    """Read an action's text form; raise ``InvalidAction`` saying what was expected."""
    words = text.split()
    if not words:
        raise InvalidAction("an empty line is not an action")
    verb, args = words[0].lower(), words[1:]
    if verb in _PLAIN_ACTIONS:
        if args:
            raise InvalidAction("'{verb}' takes no argument", verb=verb, given=" ".join(args))
        return _PLAIN_ACTIONS[verb]()
    if verb not in _CELL_ACTIONS and verb != "clue":
        raise InvalidAction("the commands are {words}", words=", ".join(ACTION_WORDS), given=verb)
    if verb == "place" and len(args) == 4 and args[1].lower() == "key":
        return _place_with_key(args)
    if len(args) != 1:
        expected = Phrase.of("a number, 'unlimited' or 'infinity'" if verb == "clue" else
                             "a cell number 0-24 (the last one also 'key CELLS TEAM')" if verb == "place" else
                             "a cell number 0-24")
        raise InvalidAction("'{verb}' takes one argument, {expected}; got {count}", verb=verb, expected=expected, count=len(args))
    arg = args[0].lower()
    if verb == "clue":
        if arg in UNLIMITED_WORDS:
            return Clue(UNLIMITED)
        if not arg.isdigit() or not arg.isascii():
            raise InvalidAction("the clue number is a whole number or 'unlimited'", given=arg)
        return Clue(int(arg))
    return _CELL_ACTIONS[verb](whole_number(arg, THE_CELL))


def _place_with_key(args: list[str]) -> Place:
    """``place CELL key CELLS TEAM``: the last codename down and the key drawn with it."""
    cell = whole_number(args[0], THE_CELL)
    try:
        key = Key(args[2].upper(), Team.parse(args[3]))
    except InvalidKey as error:  # the key's own words, or the team's
        raise InvalidAction("'place CELL key CELLS TEAM' needs a key and the starting team: {error}",
                            error=error.expected, given=error.given) from None
    return Place(cell, key)
