"""The rules engine: pure Python, no I/O, no clock, no hardware (tests/test_layers.py checks).

``make_game(rules)`` gives the game object for a set of rules; its ``start``, ``apply`` and
``legal_actions`` play it, ``table_view``/``spymaster_view`` observe it. Games are
registered by name like python-chess variants (``pi_table.engine.games``), and a finished
game says how it ended as a ``Termination`` (``game.ending(state)``).

A game of another kind is in its own modules here, named by the registry and imported from
them when it is first played (Codex: ``codex``, ``codex_rules``, ``codex_actions``,
``codex_setup``), so a table dealing the grid games starts without it.
"""

from __future__ import annotations

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
    Words,
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

__all__ = [
    "UNLIMITED", "Action", "Clue", "ClueNumber", "Cover", "EndTurn", "Guess", "Penalty", "Place", "TimeUp", "Undo", "Words", "parse_action",
    "Alias24", "Codenames", "CodenamesCoop", "Ending", "Termination", "GameOver", "InvalidAction", "InvalidKey", "InvalidRules",
    "RuleError", "CLUE", "COVER", "GUESS", "OVER", "PLACE", "Game", "Phase", "State", "AnyRules", "make_game", "CELLS", "GRID",
    "Key", "Team", "GameRecord", "GridRecord", "AnyRecord", "Rules", "SpymasterView", "TableView",
]
