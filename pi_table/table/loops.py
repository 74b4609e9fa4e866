"""Each kind of game's loop (``pi_table.engine.games``): the thread that plays a game of the kind
(the grid games': touches, the buttons, the turn timer; Codex's: the agents' phones, the
discussion's timer). The daemon makes the loop of the session's kind, and deals a game of
another kind by ending one loop and making the other.

Each kind is a typed loader function that imports its loop when a table of its kind is made, so
a table dealing the grid games starts without Codex's loop (or its engine). Nothing in the
table's package asks this (a loop's module would then import its own registry): the daemon and
the simulators do. A kind of game the engine registers is one line here (tests/test_games.py
checks every kind is).
"""

from __future__ import annotations

from collections.abc import Callable

from .loop import EventLoop, TableLoop


def _codex() -> type[EventLoop]:
    from .codex_loop import CodexLoop  # Codex's engine loads when Codex is played

    return CodexLoop


KINDS: dict[str, Callable[[], type[EventLoop]]] = {"grid": lambda: TableLoop, "codex": _codex}


def loop_class(kind: str) -> type[EventLoop]:
    """The loop that plays a game of ``kind`` (its ``EventLoop`` subclass, with a ``made``
    constructor), imported now."""
    return KINDS[kind]()
