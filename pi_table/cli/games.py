"""What the command line does for each kind of game (``pi_table.engine.games``), one line a kind;
each kind's commands are in its own module here (``grid``, ``codex``), which imports what they
run when they run, and its terminal in the simulators' package. Each is named by its module and
imported when a game of its kind is played. tests/test_games.py checks every kind is here."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engine.games import AnyRules

if TYPE_CHECKING:
    from ..sim.terminal import Terminal


@dataclass(frozen=True, slots=True)
class Commands:
    """What the command line does for a kind of game, each a ``module:name``: ``sim`` (in this
    package) runs its simulator (``pi-table sim``, and ``render`` where it draws); ``status`` gives
    its game's lines of ``pi-table status``; ``terminal`` (in ``pi_table.sim``) is the class that
    plays it at the terminal's prompt (``sim.terminal.interactive``); ``options``, in this
    package, the options of ``pi-table sim`` that are its alone (``(flag, argparse's keywords)``,
    each with no value by default); ``setup``, in this package, what ``--setup TEXT`` deals for
    it, as its help says it (a kind whose games are dealt from text); ``keys``: its games deal
    keys (``pi-table key`` and ``render``)."""

    sim: str
    status: str
    terminal: str
    options: str | None = None
    setup: str | None = None
    keys: bool = False


KINDS: dict[str, Commands] = {
    "grid": Commands("grid:sim", "grid:status", "terminal:GridTerminal", keys=True),
    "codex": Commands("codex:sim", "codex:status", "codex_terminal:CodexTerminal", "codex:OPTIONS", "codex:SETUP_HELP"),
}
"""Each kind of game's commands."""


def _named(where: str, package: str) -> Any:
    module, name = where.split(":")
    return getattr(importlib.import_module(f".{module}", package), name)


def sim(kind: str) -> Callable[[argparse.ArgumentParser, argparse.Namespace, AnyRules], int]:
    """``kind``'s simulator, imported now."""
    found: Callable[[argparse.ArgumentParser, argparse.Namespace, AnyRules], int] = _named(KINDS[kind].sim, __package__)
    return found


def status(kind: str) -> Callable[[dict[str, Any], str], list[str]]:
    """``kind``'s lines of ``pi-table status``, imported now."""
    found: Callable[[dict[str, Any], str], list[str]] = _named(KINDS[kind].status, __package__)
    return found


def terminal(kind: str) -> type[Terminal]:
    """The class of ``kind``'s terminal (a ``sim.terminal.Terminal``), imported now."""
    from ..sim.terminal import Terminal

    found = _named(KINDS[kind].terminal, "pi_table.sim")
    if not (isinstance(found, type) and issubclass(found, Terminal)):
        raise TypeError(f"cli.games names {KINDS[kind].terminal} as {kind}'s terminal: a sim.terminal.Terminal is expected")
    return found


def setup_help(kind: str) -> str | None:
    """What ``--setup TEXT`` deals for ``kind``, as the help says it; None for a kind not dealt from text."""
    where = KINDS[kind].setup
    return None if where is None else str(_named(where, __package__))


def options(kind: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The options of ``pi-table sim`` that are ``kind``'s alone."""
    where = KINDS[kind].options
    return () if where is None else tuple(_named(where, __package__))
