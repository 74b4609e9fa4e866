"""Each kind of game's terminal (``pi_table.engine.games``), the class that plays it at the
terminal's prompt (``terminal.interactive``, which asks this for the kind of each game dealt).
Each kind is a typed loader function, called when a game of its kind is first played, so a
terminal of the grid games runs without Codex's; tests/test_games.py checks every kind is here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .terminal import Terminal


def _grid() -> type[Terminal[Any]]:
    from .terminal import GridTerminal

    return GridTerminal


def _codex() -> type[Terminal[Any]]:
    from .codex_terminal import CodexTerminal  # Codex's engine loads when Codex is played

    return CodexTerminal


KINDS: dict[str, Callable[[], type[Terminal[Any]]]] = {"grid": _grid, "codex": _codex}


def terminal(kind: str) -> type[Terminal[Any]]:
    """The class of ``kind``'s terminal, imported now."""
    return KINDS[kind]()
