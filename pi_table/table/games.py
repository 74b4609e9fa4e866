"""What the table keeps of each kind of game (``pi_table.engine.games``): its record, which deals
a game of the kind and keeps the deal in its journal's header (``records``); the session and
the journal ask it, never which game it is. The kind's loop is in ``loops``.

Each kind is a typed loader function that imports its record when a table of its kind is made
(or its journal read), so a table dealing the grid games starts without Codex's, and mypy
follows every name. A kind of game the engine registers is one line here (tests/test_games.py
checks every kind is).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from .records import KeyRecord, Record


def _codex() -> Record:
    from .codex_record import SetupRecord

    return SetupRecord()


KINDS: dict[str, Callable[[], Record]] = {"grid": KeyRecord, "codex": _codex}


@cache
def record(kind: str) -> Record:
    """``kind``'s deal and header fields, imported the first time."""
    return KINDS[kind]()
