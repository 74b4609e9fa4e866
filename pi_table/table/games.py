"""What the table adds to each kind of game (``pi_table.engine.games``): its loop and its record.

The loop is the thread that plays a game of the kind (the grid games': touches, the buttons, the
turn timer; Codex's: the agents' phones, the discussion's timer); the record deals a game of the
kind and keeps the deal in its journal's header (``records``). The daemon makes the loop of the
session's kind, and deals a game of another kind by ending one loop and making the other.

A loop is named by its module and class in this package and imported when a table of its kind
is made, so a table dealing the grid games starts without Codex's loop (or its engine). A kind
of game the engine registers is one line here (tests/test_games.py checks every kind is).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from .records import KeyRecord, Record, SetupRecord


@dataclass(frozen=True, slots=True)
class TableKind:
    """``loop``: ``module:Class`` of the kind's loop in this package, a subclass of
    ``loop.EventLoop`` with a ``made`` constructor; ``record``: its deal and header fields."""

    loop: str
    record: Record


KINDS: dict[str, TableKind] = {
    "grid": TableKind("loop:TableLoop", KeyRecord()),
    "codex": TableKind("codex_loop:CodexLoop", SetupRecord()),
}


def loop_class(kind: str) -> Any:
    """The loop that plays a game of ``kind`` (an ``EventLoop`` subclass), imported now."""
    module, name = KINDS[kind].loop.split(":")
    return getattr(importlib.import_module(f".{module}", __package__), name)


def record(kind: str) -> Record:
    return KINDS[kind].record
