"""The rules engine: pure Python, no I/O, no clock, no hardware (tests/test_layers.py checks).

``make_game(rules)`` gives the game object for a set of rules; its ``start``, ``apply`` and
``legal_actions`` play it, ``table_view``/``spymaster_view`` observe it. Games are
registered by name like python-chess variants (``pi_table.engine.games``), and a finished
game says how it ended as a ``Termination`` (``game.ending(state)``).

Codex is no grid game: ``Codex(CodexRules())`` plays it, with one observer per agent
(``agent_view``) and a public one (``public_view``). Its names are loaded from here when first
used, so a table dealing the grid games starts without them.
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
from .endings import Ending, Termination
from .errors import GameOver, InvalidAction, InvalidKey, InvalidRules, RuleError
from .game import CLUE, COVER, GUESS, OVER, PLACE, Game, Phase, State
from .games import AnyRules, make_game
from .keys import CELLS, GRID, Key, Team
from .record import AnyRecord, GameRecord, GridRecord
from .rules import Rules
from .views import SpymasterView, TableView

if TYPE_CHECKING:
    from .codex import AgentView, Codex, CodexRecord, CodexState, PublicView, Step
    from .codex_actions import CodexAction, parse_codex_action
    from .codex_rules import CodexRules
    from .codex_setup import Fact, Faction, Identikit, InvalidSetup, Role, Setup

_CODEX_NAMES = {
    **dict.fromkeys(("AgentView", "Codex", "CodexRecord", "CodexState", "PublicView", "Step"), "codex"),
    **dict.fromkeys(("CodexAction", "parse_codex_action"), "codex_actions"),
    "CodexRules": "codex_rules",
    **dict.fromkeys(("Fact", "Faction", "Identikit", "InvalidSetup", "Role", "Setup"), "codex_setup"),
}


def __getattr__(name: str) -> object:
    """Codex's names, imported on first use (PEP 562): a fifth of the engine's import time."""
    module = _CODEX_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import codex, codex_actions, codex_rules, codex_setup  # they load together: codex needs the others

    modules = {"codex": codex, "codex_actions": codex_actions, "codex_rules": codex_rules, "codex_setup": codex_setup}
    value = getattr(modules[module], name)
    globals()[name] = value
    return value


__all__ = [
    "UNLIMITED", "Action", "Clue", "ClueNumber", "Cover", "EndTurn", "Guess", "Penalty", "Place", "TimeUp", "Undo", "parse_action",
    "Alias24", "Codenames", "CodenamesCoop", "Ending", "Termination", "GameOver", "InvalidAction", "InvalidKey", "InvalidRules",
    "RuleError", "CLUE", "COVER", "GUESS", "OVER", "PLACE", "Game", "Phase", "State", "AnyRules", "make_game", "CELLS", "GRID",
    "Key", "Team", "GameRecord", "GridRecord", "AnyRecord", "Rules", "SpymasterView", "TableView",
    "AgentView", "Codex", "CodexRecord", "CodexRules", "CodexState", "PublicView", "Step", "CodexAction", "parse_codex_action",
    "Fact", "Faction", "Identikit", "InvalidSetup", "Role", "Setup",
]
