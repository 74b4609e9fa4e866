"""What the table adds to each kind of game (``pi_table.engine.games``): its loop and its record.

The loop is the thread that plays a game of the kind (the grid games': touches, the buttons, the
turn timer; Codex's: the agents' phones, the discussion's timer); the record deals a game of the
kind and keeps the deal in its journal's header (``records``). The daemon makes the loop of the
session's kind, and deals a game of another kind by ending one loop and making the other.

A loop and a record are named by their module and class in this package and imported when a
table of its kind is made (or its journal read), so a table dealing the grid games starts
without Codex's loop (or its engine). A kind of game the engine registers is one line here
(tests/test_games.py checks every kind is).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

from .records import Record


@dataclass(frozen=True, slots=True)
class TableKind:
    """``loop``: ``module:Class`` of the kind's loop in this package, a subclass of
    ``loop.EventLoop`` with a ``made`` constructor; ``record``: ``module:Class`` of its deal and
    header fields (a ``records.Record``)."""

    loop: str
    record: str


KINDS: dict[str, TableKind] = {
    "grid": TableKind("loop:TableLoop", "records:KeyRecord"),
    "codex": TableKind("codex_loop:CodexLoop", "codex_record:SetupRecord"),
}


def named(where: str) -> object:
    """What ``module:name`` in this package names, imported now (``loop.loop_class`` checks a loop is one)."""
    module, name = where.split(":")
    found: object = getattr(importlib.import_module(f".{module}", __package__), name)
    return found


@cache
def record(kind: str) -> Record:
    """``kind``'s deal and header fields, imported the first time."""
    made = named(KINDS[kind].record)
    if not callable(made):
        raise TypeError(f"table.games names {KINDS[kind].record} as {kind}'s record: a class is expected")
    found: Record = made()
    return found
