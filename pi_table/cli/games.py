"""What the command line does for each kind of game (``pi_table.engine.games``), one line a kind;
each kind's commands are in its own module here (``grid``, ``codex``), which imports what they
run when they run (its terminal is the simulators': ``sim.terminals``). Each kind is a typed loader
function, called when a game of its kind is played or its options are listed, so mypy follows
every name. tests/test_games.py checks every kind is here."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any


@dataclass(frozen=True, slots=True)
class Commands:
    """What the command line does for a kind of game: ``sim`` runs its simulator (``pi-table
    sim``, and ``render`` where it draws) with the kind's own rules; ``status`` gives its game's
    lines of ``pi-table status``; ``options``, the options
    of ``pi-table sim`` that are its alone (``(flag, argparse's keywords)``, each with no value by
    default); ``setup``, what ``--setup TEXT`` deals for it, as its help says it (a kind whose
    games are dealt from text); ``keys``: its games deal keys (``pi-table key`` and ``render``)."""

    sim: Callable[[argparse.ArgumentParser, argparse.Namespace, Any], int]
    status: Callable[[dict[str, Any], str], list[str]]
    options: tuple[tuple[str, dict[str, Any]], ...] = ()
    setup: str | None = None
    keys: bool = False


def _grid() -> Commands:
    from . import grid

    return Commands(grid.sim, grid.status, keys=True)


def _codex() -> Commands:
    from . import codex

    return Commands(codex.sim, codex.status, codex.OPTIONS, codex.SETUP_HELP)


KINDS: dict[str, Callable[[], Commands]] = {"grid": _grid, "codex": _codex}
"""Each kind of game's commands."""


@cache
def commands(kind: str) -> Commands:
    """``kind``'s commands, imported the first time."""
    return KINDS[kind]()


def sim(kind: str) -> Callable[[argparse.ArgumentParser, argparse.Namespace, Any], int]:
    """``kind``'s simulator."""
    return commands(kind).sim


def status(kind: str) -> Callable[[dict[str, Any], str], list[str]]:
    """``kind``'s lines of ``pi-table status``."""
    return commands(kind).status


def setup_help(kind: str) -> str | None:
    """What ``--setup TEXT`` deals for ``kind``, as the help says it; None for a kind not dealt from text."""
    return commands(kind).setup


def options(kind: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The options of ``pi-table sim`` that are ``kind``'s alone."""
    return commands(kind).options


def deals_keys(kind: str) -> bool:
    """Whether ``kind``'s games deal keys (``pi-table key`` and ``render``)."""
    return commands(kind).keys
