"""What the command line does for each kind of game (``pi_table.engine.games``), one line a kind;
each kind's commands are in its own module here (``grid``, ``codex``), which imports what they
run when they run. tests/test_games.py checks every kind is here."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from ..engine.games import AnyRules
from . import codex, grid


@dataclass(frozen=True, slots=True)
class Commands:
    """What the command line does for a kind of game: ``sim`` runs its simulator (``pi-table
    sim``, and ``render`` where it draws); ``status`` gives its game's lines of ``pi-table
    status``; ``keys``: its games deal keys (``pi-table key`` and ``render``)."""

    sim: Callable[[argparse.ArgumentParser, argparse.Namespace, AnyRules], int]
    status: Callable[[dict, str], list[str]]
    keys: bool


KINDS: dict[str, Commands] = {
    "grid": Commands(grid.sim, grid.status, keys=True),  # type: ignore[arg-type]  # each is given its kind's rules
    "codex": Commands(codex.sim, codex.status, keys=False),  # type: ignore[arg-type]
}
"""Each kind of game's commands."""
