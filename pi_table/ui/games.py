"""What the renderers add to each kind of game (``pi_table.engine.games``): its screen, its
lights and its sound cues.

The screen's painter draws a kind's model (``hal.GameModel``: its loop shows a ``ScreenModel``, a
``CodexModel``) and turns a tap into a command; ``ScreenPainter`` hands each model to the painter
of its ``kind``.
The lights' painter is a pair of functions of the kind's public view, ``frame(view, cues, now,
settings)`` (the LED frame) and ``next_change(...)`` (when it next changes by itself): each loop
lights the grid through its kind's. The cues are a function of two public views of a game,
before and after, naming the cues that change plays (``sound.choose_cues`` adds the timer's).

Each is named by its module (and class) in this package and imported when a game of its kind is
first shown, so a table dealing the grid games draws without loading Codex. A kind of game the
engine registers is one line here (tests/test_games.py checks every kind is).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any


@dataclass(frozen=True, slots=True)
class Looks:
    """Each a ``module:name`` in this package: the kind's screen painter (a class, made with the
    screen's settings), which draws the models its loop shows (whose ``kind`` is this one's), its
    lights' ``frame`` and ``next_change``, its sound ``cues``, and its own ``sounds`` beside the
    table's (a ``sound.Sounds``; the grid games' are the table's) with their ``synths`` (in
    ``sounds``, its synthesisers by cue, as ``python -m pi_table.ui.sounds build`` makes them)."""

    screen: str
    frame: str
    next_change: str
    cues: str
    sounds: str | None = None
    synths: str | None = None


KINDS: dict[str, Looks] = {
    "grid": Looks("screen:GridPainter", "leds:render_frame", "leds:next_change", "sound:grid_cues"),
    "codex": Looks("codex_screen:CodexPainter", "codex_leds:codex_frame", "codex_leds:codex_next_change",
                   "codex_sound:codex_cues", "codex_sound:SOUNDS", "sounds.codex:SYNTHS"),
}

CHECKS = "tune:TunePainter"
"""What draws a check the staff run on a running table instead of its game (the self-test's
checklist, the pads' numbers: ``SelfTestModel`` and its ``TuneModel``)."""


def _named(where: str) -> Any:
    module, name = where.split(":")
    return getattr(importlib.import_module(f".{module}", __package__), name)


@cache
def screen_painter(kind: str) -> Any:
    """The class of the painter that draws ``kind``'s screen, imported now."""
    return _named(KINDS[kind].screen)


@cache
def check_painter() -> Any:
    """The class of the painter of the checks, imported now."""
    return _named(CHECKS)


@cache
def lights(kind: str) -> tuple[Any, Any]:
    """``kind``'s lights: its ``frame`` and ``next_change`` functions, imported now."""
    looks = KINDS[kind]
    return _named(looks.frame), _named(looks.next_change)


def kind_sounds(kind: str) -> Any:
    """``kind``'s own sounds (a ``sound.Sounds``), imported now; None for a kind with none of its own."""
    where = KINDS[kind].sounds
    return None if where is None else _named(where)


def kind_synthesisers(kind: str) -> dict[str, Any]:
    """The synthesisers of ``kind``'s own cues, imported now (none for a kind without cues of its own)."""
    where = KINDS[kind].synths
    return {} if where is None else dict(_named(where))


@cache
def sound_cues(kind: str) -> Any:
    """``kind``'s cues: the function of two of its public views naming the cues between them."""
    return _named(KINDS[kind].cues)
