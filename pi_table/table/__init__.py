"""The table: the loop that owns the game, the session and its journal."""

from .commands import COMMAND_WORDS, parse_command
from .journal import Journal, JournalError, load_game
from .loop import Outcome, TableLoop
from .session import Retention, Session, history, random_source

__all__ = [
    "COMMAND_WORDS", "parse_command", "Journal", "JournalError", "load_game", "Outcome", "TableLoop", "Session",
    "Retention", "history", "random_source",
]
