"""The rules engine: pure Python, no I/O, no clock, no hardware (tests/test_layers.py checks).

``make_game(rules)`` gives the game object for a set of rules; its ``start``, ``apply`` and
``legal_actions`` play it, ``table_view``/``spymaster_view`` observe it. Games are
registered by name like python-chess variants.

Codex is no grid game: ``Codex(CodexRules())`` plays it, with one observer per agent
(``agent_view``) and a public one (``public_view``); it stays out of ``GAMES``. Its names are
loaded from here when first used, so a table dealing the grid games starts without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import (
    UNLIMITED,
    Action,
    Clue,
    ClueNumber,
    Cover,
    EndTurn,
    Guess,
    Penalty,
    Place,
    TimeUp,
    Undo,
    parse_action,
)
from .alias24 import Alias24
from .codenames import Codenames, CodenamesCoop
from .errors import GameOver, InvalidAction, InvalidKey, InvalidRules, RuleError
from .game import CLUE, COVER, GUESS, OVER, PLACE, Game, State
from .keys import CELLS, GRID, Key, Team
from .record import CodexRecord, GameRecord, GridRecord, as_codex_record, as_grid_record
from .rules import CODEX, GAMES, Rules
from .views import SpymasterView, TableView

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # in typing from Python 3.13; a checker's name only here

    from .codex import AgentView, Codex, CodexRules, CodexState, PublicView
    from .codex_actions import CodexAction, parse_codex_action
    from .codex_setup import Fact, Faction, Identikit, InvalidSetup, Role, Setup

_CODEX_NAMES = {
    **dict.fromkeys(("AgentView", "Codex", "CodexRules", "CodexState", "PublicView"), "codex"),
    **dict.fromkeys(("CodexAction", "parse_codex_action"), "codex_actions"),
    **dict.fromkeys(("Fact", "Faction", "Identikit", "InvalidSetup", "Role", "Setup"), "codex_setup"),
}

GAME_CLASSES: dict[str, type[Game]] = {cls.name: cls for cls in (Codenames, CodenamesCoop, Alias24)}
assert tuple(GAME_CLASSES) == GAMES


def make_game(rules: Rules) -> Game:
    return GAME_CLASSES[rules.game](rules)


def is_codex(rules: Rules | CodexRules) -> TypeIs[CodexRules]:
    """Whether these are Codex's rules, asked without loading Codex's engine."""
    return rules.game == CODEX


def __getattr__(name: str) -> object:
    """Codex's names, imported on first use (PEP 562): a fifth of the engine's import time."""
    module = _CODEX_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import codex, codex_actions, codex_setup  # they load together: codex needs the other two

    value = getattr({"codex": codex, "codex_actions": codex_actions, "codex_setup": codex_setup}[module], name)
    globals()[name] = value
    return value


__all__ = [
    "UNLIMITED", "Action", "Clue", "ClueNumber", "Cover", "EndTurn", "Guess", "Penalty", "Place", "TimeUp", "Undo", "parse_action",
    "Alias24", "Codenames", "CodenamesCoop", "GameOver", "InvalidAction", "InvalidKey", "InvalidRules",
    "RuleError", "CLUE", "COVER", "GUESS", "OVER", "PLACE", "Game", "State", "CELLS", "GRID", "Key", "Team",
    "GameRecord", "GridRecord", "CodexRecord", "as_grid_record", "as_codex_record", "CODEX", "GAMES", "Rules", "is_codex", "SpymasterView", "TableView", "GAME_CLASSES", "make_game",
    "AgentView", "Codex", "CodexRules", "CodexState", "PublicView", "CodexAction", "parse_codex_action",
    "Fact", "Faction", "Identikit", "InvalidSetup", "Role", "Setup",
]
