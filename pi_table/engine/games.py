"""Every game the table plays, registered by name, as python-chess registers its variants.

``GAMES`` holds one entry a game: its name, its kind, and where its engine and its rules'
class are. The kind is the table a game is played on: the games of one kind share their loop,
screen and lights, script words, journal record and options, and a new game of another kind
needs the table of that kind. Each layer above the engine keeps a registry of its own, keyed by
the kind, for what it adds to a game (``pi_table.table.games``: the loop and the journal record;
``pi_table.ui.games``: the screen's and the lights' painters and the sound cues; ``pi_table.cli``:
the simulator, with its script words, and the status's lines), so no layer asks which game it
plays; tests/test_games.py checks every kind is registered on every layer.

An engine is loaded when a game of it is first made or its rules first read: a table dealing
the grid games starts without Codex's engine. A fifth game is its room (an engine module here)
and one line in ``GAMES``; a game of a new kind is also a room and a line on each layer above.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeAlias, overload

from .alias24 import Alias24
from .codenames import Codenames, CodenamesCoop
from .errors import InvalidRules
from .rules import Rules

if TYPE_CHECKING:
    from .codex import Codex
    from .codex_rules import CodexRules
    from .game import Game

AnyRules: TypeAlias = "Rules | CodexRules"
"""The options of any game: a grid game's ``Rules``, or Codex's."""


def _codex() -> type[Codex]:
    from .codex import Codex  # Codex's engine loads when Codex is played

    return Codex


def _codex_rules() -> type[CodexRules]:
    from .codex_rules import CodexRules  # its rules alone, without the engine

    return CodexRules


@dataclass(frozen=True, slots=True)
class GameEntry:
    """A game as registered: ``engine`` and ``rules`` give its class and its rules' class,
    imported when first asked for."""

    name: str
    kind: str
    engine: Callable[[], type[Game | Codex]]
    rules: Callable[[], type[Rules | CodexRules]]

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
        GameEntry(Codenames.name, "grid", lambda: Codenames, lambda: Rules),
        GameEntry(CodenamesCoop.name, "grid", lambda: CodenamesCoop, lambda: Rules),
        GameEntry(Alias24.name, "grid", lambda: Alias24, lambda: Rules),
        GameEntry("codex", "codex", _codex, _codex_rules),
    )
}
"""Every game, by its name in the table's JSON, its journal and ``--game``."""

NAMES = tuple(GAMES)
KINDS = tuple(dict.fromkeys(entry.kind for entry in GAMES.values()))
"""The kinds of table the games are played on, each registered on every layer."""
DEFAULT = Codenames.name
"""The game of rules that name none (a version 1 journal's header)."""


def entry(name: object) -> GameEntry:
    """The game called ``name``; InvalidRules saying which games there are for another."""
    found = GAMES.get(name) if isinstance(name, str) else None
    if found is None:
        raise InvalidRules("{name} is one of {allowed}, not {value!r}", name="game", allowed=", ".join(NAMES), value=name)
    return found


def kind_of(name: object) -> str:
    """The kind of table the game ``name`` is played on."""
    return entry(name).kind


def names_of(kind: str) -> tuple[str, ...]:
    """The games played on a table of ``kind``."""
    return tuple(name for name, game in GAMES.items() if game.kind == kind)


def rules_from_json(data: Mapping[str, Any]) -> AnyRules:
    """Any game's rules as a journal header (``to_json``) keeps them."""
    return entry(data.get("game", DEFAULT)).rules().from_json(dict(data))


@overload
def make_game(rules: Rules) -> Game: ...


@overload
def make_game(rules: CodexRules) -> Codex: ...


def make_game(rules: Any) -> Any:
    """The game these rules are for, ready to start, apply and observe."""
    game = entry(rules.game)
    if not isinstance(rules, game.rules()):
        raise InvalidRules("rules for {game!r} given to the {name!r} game", game=type(rules).__name__, name=game.name)
    engine: Any = game.engine()  # the rules checked above are its own
    return engine(rules)
