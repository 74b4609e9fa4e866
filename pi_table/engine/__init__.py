"""The rules engine: pure Python, no I/O, no clock, no hardware (tests/test_layers.py checks).

``make_game(rules)`` gives the game object for a set of rules; its ``start``, ``apply`` and
``legal_actions`` play it, ``table_view``/``spymaster_view`` observe it. Games are
registered by name like python-chess variants.

Codex is no grid game: ``Codex(CodexRules())`` plays it, with one observer per agent
(``agent_view``) and a public one (``public_view``); it stays out of ``GAMES``.
"""

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
from .codex import AgentView, Codex, CodexRules, CodexState, PublicView
from .codex_actions import CodexAction, parse_codex_action
from .codex_setup import Fact, Faction, Identikit, InvalidSetup, Role, Setup
from .errors import GameOver, InvalidAction, InvalidKey, InvalidRules, RuleError
from .game import CLUE, COVER, GUESS, OVER, PLACE, Game, State
from .keys import CELLS, GRID, Key, Team
from .record import GameRecord
from .rules import GAMES, Rules
from .views import SpymasterView, TableView

GAME_CLASSES: dict[str, type[Game]] = {cls.name: cls for cls in (Codenames, CodenamesCoop, Alias24)}
assert tuple(GAME_CLASSES) == GAMES


def make_game(rules: Rules) -> Game:
    return GAME_CLASSES[rules.game](rules)


__all__ = [
    "UNLIMITED", "Action", "Clue", "ClueNumber", "Cover", "EndTurn", "Guess", "Penalty", "Place", "TimeUp", "Undo", "parse_action",
    "Alias24", "Codenames", "CodenamesCoop", "GameOver", "InvalidAction", "InvalidKey", "InvalidRules",
    "RuleError", "CLUE", "COVER", "GUESS", "OVER", "PLACE", "Game", "State", "CELLS", "GRID", "Key", "Team",
    "GameRecord", "GAMES", "Rules", "SpymasterView", "TableView", "GAME_CLASSES", "make_game",
    "AgentView", "Codex", "CodexRules", "CodexState", "PublicView", "CodexAction", "parse_codex_action",
    "Fact", "Faction", "Identikit", "InvalidSetup", "Role", "Setup",
]
