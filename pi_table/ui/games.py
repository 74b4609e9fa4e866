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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pygame

    from ..hal import Command, Cues, LedFrame
    from .canvas import Frame
    from .leds import LightSettings
    from .mounting import ScreenSettings


class Painter(Protocol):
    """What draws a kind's screen (or the checks), made with the screen's settings: ``draw`` the
    model its loop shows (its kind's own class: hence ``Any``) at ``now``, giving the frame's tap
    regions and words (the checks' painter, none); ``tap``, the command a tap at ``pos`` asks for."""

    def draw(self, surface: pygame.Surface, model: Any, now: float, since: float | None = None) -> Frame | None: ...

    def tap(self, pos: tuple[int, int]) -> Command | None: ...


Lights = Callable[[Any, "Cues", float, "LightSettings"], "LedFrame"]
"""A kind's LED frame of its own public view (hence ``Any``), the cues, the time and the settings."""
NextChange = Callable[[Any, "Cues", float, "LightSettings"], "float | None"]
"""When that frame next changes by itself, or None."""
CuesOf = Callable[[Any, Any], list[str]]
"""The cues between two of a kind's own public views, before and after."""


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

SETUP = "setup_screen:SetupPainter"
"""What draws a table's set-up instead of a game until it is set up (``SetupModel``)."""
CHECKS = "tune:TunePainter"
"""What draws a check the staff run on a running table instead of its game (the self-test's
checklist, the pads' numbers: ``SelfTestModel`` and its ``TuneModel``)."""


def _named(where: str) -> Any:
    module, name = where.split(":")
    return getattr(importlib.import_module(f".{module}", __package__), name)


@cache
def screen_painter(kind: str) -> Callable[[ScreenSettings], Painter]:
    """The class of the painter that draws ``kind``'s screen, imported now."""
    found: Callable[[ScreenSettings], Painter] = _named(KINDS[kind].screen)
    return found


@cache
def check_painter() -> Callable[[ScreenSettings, str], Painter]:
    """The class of the painter of the checks (made with the table's language too), imported now."""
    found: Callable[[ScreenSettings, str], Painter] = _named(CHECKS)
    return found


@cache
def setup_painter() -> Any:
    """The class of the painter of a table's set-up, imported now."""
    return _named(SETUP)


@cache
def lights(kind: str) -> tuple[Lights, NextChange]:
    """``kind``'s lights: its ``frame`` and ``next_change`` functions, imported now."""
    looks = KINDS[kind]
    frame: Lights = _named(looks.frame)
    next_change: NextChange = _named(looks.next_change)
    return frame, next_change


def kind_sounds(kind: str) -> object:
    """``kind``'s own sounds (a ``sound.Sounds``, which ``sound`` checks), imported now; None for a
    kind with none of its own."""
    where = KINDS[kind].sounds
    return None if where is None else _named(where)


def kind_synthesisers(kind: str) -> Mapping[str, Callable[[], list[float]]]:
    """The synthesisers of ``kind``'s own cues, imported now (none for a kind without cues of its own)."""
    where = KINDS[kind].synths
    found: Mapping[str, Callable[[], list[float]]] = {} if where is None else _named(where)
    return found


@cache
def sound_cues(kind: str) -> CuesOf:
    """``kind``'s cues: the function of two of its public views naming the cues between them."""
    found: CuesOf = _named(KINDS[kind].cues)
    return found
