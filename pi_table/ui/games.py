"""What the renderers add to each kind of game (``pi_table.engine.games``): its screen, its
lights and its sound cues.

The screen's painter draws a kind's model (its loop shows a ``ScreenModel``, a ``CodexModel``)
and turns a tap into a command; ``ScreenPainter`` hands each model to the painter of its kind.
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

from ..hal import CodexModel, ScreenModel


@dataclass(frozen=True, slots=True)
class Looks:
    """``model``: the class of the models its loop shows the screen; then each a ``module:name``
    in this package: the kind's screen painter (a class, made with the screen's settings), its
    lights' ``frame`` and ``next_change``, and its sound ``cues``."""

    model: type
    screen: str
    frame: str
    next_change: str
    cues: str


KINDS: dict[str, Looks] = {
    "grid": Looks(ScreenModel, "screen:GridPainter", "leds:render_frame", "leds:next_change", "sound:grid_cues"),
    "codex": Looks(CodexModel, "codex_screen:CodexPainter", "codex_leds:codex_frame", "codex_leds:codex_next_change",
                   "sound:codex_cues"),
}
SHOWN = {looks.model: kind for kind, looks in KINDS.items()}
"""The kind each class of model shows."""

SETUP = "setup_screen:SetupPainter"
"""What draws a table's set-up instead of a game until it is set up (``SetupModel``)."""
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
def setup_painter() -> Any:
    """The class of the painter of a table's set-up, imported now."""
    return _named(SETUP)


@cache
def lights(kind: str) -> tuple[Any, Any]:
    """``kind``'s lights: its ``frame`` and ``next_change`` functions, imported now."""
    looks = KINDS[kind]
    return _named(looks.frame), _named(looks.next_change)


@cache
def sound_cues(kind: str) -> Any:
    """``kind``'s cues: the function of two of its public views naming the cues between them."""
    return _named(KINDS[kind].cues)
