"""Every game the table plays, registered by name, as python-chess registers its variants.

``GAMES`` holds one entry a game: its name, its kind, its description (``described``: its title,
nouns, options, whether menus offer it, its key's legend), and where its engine and its rules'
class are. The kind is the table a game is played on: the games of one kind share their loop,
screen and lights, script words, journal record and options, and a new game of another kind
needs the table of that kind. Each layer above the engine keeps a registry of its own, keyed by
the kind, for what it adds to a game (``pi_table.table.games``: the loop and the journal record;
``pi_table.ui.games``: the screen's and the lights' painters and the sound cues; ``pi_table.cli``:
the simulator, with its script words, and the status's lines), so no layer asks which game it
plays; tests/test_games.py checks every kind is registered on every layer. What the layers show
of a game (its title in a menu, its options on a form or in the configuration, its words) they
read from its description (``described``), never from its name.

An engine is loaded when a game of it is first made or its rules first read: a table dealing
the grid games starts without Codex's engine. A fifth grid game is its room (an engine module
here, a ``Game`` subclass with its ``name`` and ``description``) and one line in ``GAMES``; a game
of a new kind is also a room and a line on each layer above.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeAlias, overload

from . import codex_rules
from .alias24 import Alias24
from .codenames import Codenames, CodenamesCoop
from .codex_rules import CodexRules
from .contract import GameRules, Rulebook
from .described import Choice, Description
from .endings import SHARED, Termination, UnknownTermination
from .errors import InvalidRules
from .game import Game
from .rules import Rules
from .table_spymaster import TableSpymaster

if TYPE_CHECKING:
    from .codex import Codex

AnyRules: TypeAlias = GameRules
"""The options of any game (``contract.GameRules``): each kind's class of rules reads its own."""


def _codex() -> type[Codex]:
    from .codex import Codex  # Codex's engine loads when Codex is played

    return Codex


@dataclass(frozen=True, slots=True)
class GameEntry:
    """A game as registered: its name, its kind and its ``description``, read without its engine;
    ``engine`` and ``rules`` give its class and its rules' class, imported when first asked for."""

    name: str
    kind: str
    description: Description
    engine: Callable[[], type[Rulebook]]
    rules: Callable[[], type[Rules | CodexRules]]

    @classmethod
    def grid(cls, game: type[Game], rules: type[Rules] = Rules) -> GameEntry:
        """A grid game's line: its class names and describes it, and its rules are ``Rules`` (or
        a subclass of its own, for an option of its own: docs/dev/adding-a-game.md)."""
        return cls(game.name, "grid", game.description, lambda: game, lambda: rules)

    @property
    def options(self) -> frozenset[str]:
        """The names of the options its rules take (besides the game's name)."""
        return frozenset(field.name for field in fields(self.rules())) - {"game"}

    def rules_from(self, options: Mapping[str, object]) -> AnyRules:
        """This game's rules from a table's options (its configuration's, a command line's);
        those its rules do not take are another game's and left out."""
        taken = self.options
        return self.rules().from_json({**{k: v for k, v in options.items() if k in taken}, "game": self.name})


GAMES: dict[str, GameEntry] = {
    entry.name: entry
    for entry in (
        GameEntry.grid(Codenames),
        GameEntry.grid(CodenamesCoop),
        GameEntry.grid(Alias24),
        GameEntry.grid(TableSpymaster),
        GameEntry(codex_rules.NAME, "codex", codex_rules.DESCRIPTION, _codex, lambda: CodexRules),
    )
}
"""Every game, by its name in the table's JSON, its journal and ``--game``."""

NAMES = tuple(GAMES)
"""The games registered as the table starts, for what is fixed then (a command's choices, the
configuration's keys, a schema's bounds); what runs asks ``names()``, which a game registered
later is in (tests/test_games.py registers one)."""
KINDS = tuple(dict.fromkeys(entry.kind for entry in GAMES.values()))
"""The kinds of table the games are played on, each registered on every layer."""
DEFAULT = Rules().game
"""The game of rules that name none (a version 1 journal's header, a command without --game):
``Rules``' own default, its one source."""


def names() -> tuple[str, ...]:
    """Every game registered now, in the registry's order."""
    return tuple(GAMES)


def entry(name: object) -> GameEntry:
    """The game called ``name``; InvalidRules saying which games there are for another."""
    found = GAMES.get(name) if isinstance(name, str) else None
    if found is None:
        raise InvalidRules("{name} is one of {allowed}, not {value!r}", name="game", allowed=", ".join(GAMES), value=name)
    return found


def kind_of(name: object) -> str:
    """The kind of table the game ``name`` is played on."""
    return entry(name).kind


def names_of(kind: str) -> tuple[str, ...]:
    """The games played on a table of ``kind``."""
    return tuple(name for name, game in GAMES.items() if game.kind == kind)


def described(name: object) -> Description:
    """The description of the game ``name``: its title, nouns, options and legend."""
    return entry(name).description


def title_of(name: object) -> str:
    """A game's title (a msgid) by its name; a name no game has (another table's, a journal of
    a game since removed) as it is."""
    found = GAMES.get(name) if isinstance(name, str) else None
    return str(name) if found is None else found.description.title


def grid_game(name: object) -> type[Game]:
    """The class of the grid game ``name``, for what the grid's renderers draw of its rules (a
    penalty, a required cover, whose cards a team seeks, a cooperative score)."""
    engine = entry(name).engine()
    if not issubclass(engine, Game):
        raise InvalidRules("{game} is not played on the grid", game=name)
    return engine


def choices() -> tuple[Choice, ...]:
    """Every option any game takes, once each (games share ``Rules``' options), in the order the
    registry first names them: the configuration's ``[game]`` keys."""
    found: dict[str, Choice] = {}
    for game in GAMES.values():
        for choice in game.description.options:
            found.setdefault(choice.name, choice)
    return tuple(found.values())


def terminations() -> tuple[Termination, ...]:
    """Every way a game ends: the shared ones, then each registered game's own (its description's
    ``endings``), once each: what the history, the fleet and the night may name. Games may share
    one, never a code: a history could not tell which was meant."""
    found = {ending.value: ending for ending in SHARED}
    for game in GAMES.values():
        for ending in game.description.endings:
            if found.setdefault(ending.value, ending) is not ending:  # a programming error: a code taken twice
                raise ValueError(f"{game.name}'s way to end {ending.value!r} has the code of another")
    return tuple(found.values())


def termination(code: object) -> Termination:
    """The way to end whose code is ``code`` (a history's, another table's message);
    UnknownTermination, a ValueError, for a code no registered game ends with."""
    found = next((each for each in terminations() if each == code), None) if isinstance(code, str) else None
    if found is None:
        raise UnknownTermination(f"a game's termination is one of {', '.join(terminations())}")
    return found


def rules_from_json(data: Mapping[str, Any]) -> AnyRules:
    """Any game's rules as a journal header (``to_json``) keeps them."""
    return entry(data.get("game", DEFAULT)).rules().from_json(dict(data))


@overload
def make_game(rules: Rules) -> Game: ...


@overload
def make_game(rules: CodexRules) -> Codex: ...


@overload
def make_game(rules: GameRules) -> Rulebook: ...


def make_game(rules: Any) -> Any:
    """The game these rules are for, ready to start, apply and observe."""
    game = entry(rules.game)
    if not isinstance(rules, game.rules()):
        raise InvalidRules("rules for {game!r} given to the {name!r} game", game=type(rules).__name__, name=game.name)
    engine: Any = game.engine()  # the rules checked above are its own
    return engine(rules)
