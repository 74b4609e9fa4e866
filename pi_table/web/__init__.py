"""The companion: a small local web app for phones, served by the daemon.

Each private page is reached through an unguessable per-game token (``tokens``); what a page
may show is fixed by the table in a ``Snapshot`` (``snapshot``) before it reaches the server
(``server``), so the server can only hand out what the table put there for that token.
"""

from .server import Companion, CompanionScreen
from .snapshot import Snapshot, codenames_snapshot
from .tokens import Tokens

__all__ = ["Companion", "CompanionScreen", "Snapshot", "codenames_snapshot", "Tokens"]
