"""What the renderers add to each kind of game (``pi_table.engine.games``): its screen, its
lights and its sound cues.

The screen's painter draws a kind's model (``hal.GameModel``: its loop shows a ``ScreenModel``, a
``CodexModel``) and turns a tap into a command; ``ScreenPainter`` hands each model to the painter
of its ``kind``.
The lights' painter is a function of the kind's public view, ``lights(view, cues, now,
settings)``: the LED frame and when it next changes by itself, from one pass, so each loop lights
the grid through its kind's and composes each frame once. The cues are a function of two public
views of a game, before and after, naming the cues that change plays (``sound.choose_cues`` adds
the timer's).

Each kind is a typed loader function that imports what draws it when a game of its kind is first
shown, so a table dealing the grid games draws without loading Codex, and mypy follows every
name; the modules it loads never ask it back (``screens`` and ``sound``, which hand each game to
its kind's, are above it). A kind of game the engine registers is one line here
(tests/test_games.py checks every kind is).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from ..hal import Cues, LedFrame
from .cues import Sounds
from .leds import LightSettings
from .mounting import ScreenSettings

if TYPE_CHECKING:
    import pygame

    from ..hal import Command
    from .canvas import Frame


class Painter(Protocol):
    """What draws a kind's screen (or the checks), made with the screen's settings: ``draw`` the
    model its loop shows (its kind's own class: hence ``Any``) at ``now``, giving the frame's tap
    regions and words (the checks' painter, none); ``tap``, the command a tap at ``pos`` asks for."""

    def draw(self, surface: pygame.Surface, model: Any, now: float, since: float | None = None) -> Frame | None: ...

    def tap(self, pos: tuple[int, int]) -> Command | None: ...


Lights = Callable[[Any, "Cues", float, "LightSettings"], "tuple[LedFrame, float | None]"]
"""A kind's LED frame of its own public view (hence ``Any``), the cues, the time and the settings;
and when that frame next changes by itself, or None."""
CuesOf = Callable[[Any, Any], list[str]]
"""The cues between two of a kind's own public views, before and after."""


@dataclass(frozen=True, slots=True)
class Looks:
    """A kind's ``screen``, which gives its painter's class (made with the screen's settings, it
    draws the models its loop shows, whose ``kind`` is this one's) imported only when a screen
    draws (pygame with it), its ``lights`` (the LED frame and its next change), its
    sound ``cues``, and its own ``sounds`` beside the table's (the grid games' are the table's)
    with their ``synths`` (its synthesisers by cue, as ``python -m pi_table.ui.sounds build``
    makes them)."""

    screen: Callable[[], Callable[[ScreenSettings], Painter]]
    lights: Lights
    cues: CuesOf
    sounds: Sounds | None = None
    synths: Mapping[str, Callable[[], list[float]]] = field(default_factory=dict)


def _grid_painter() -> Callable[[ScreenSettings], Painter]:
    from .screen import GridPainter

    return GridPainter


def _grid() -> Looks:
    from .grid_sound import grid_cues
    from .leds import compose

    return Looks(_grid_painter, compose, grid_cues)


def _codex_painter() -> Callable[[ScreenSettings], Painter]:
    from .codex_screen import CodexPainter

    return CodexPainter


def _codex() -> Looks:
    from .codex_leds import codex_lights
    from .codex_sound import SOUNDS, codex_cues
    from .sounds.codex import SYNTHS

    return Looks(_codex_painter, codex_lights, codex_cues, SOUNDS, SYNTHS)


KINDS: dict[str, Callable[[], Looks]] = {"grid": _grid, "codex": _codex}


@cache
def looks(kind: str) -> Looks:
    """What draws and sounds ``kind``, imported the first time."""
    return KINDS[kind]()


def screen_painter(kind: str) -> Callable[[ScreenSettings], Painter]:
    """The class of the painter that draws ``kind``'s screen, imported now."""
    return looks(kind).screen()


def check_painter() -> Callable[[ScreenSettings, str], Painter]:
    """The class of the painter of a check the staff run on a running table instead of its game
    (the self-test's checklist, the pads' numbers: ``SelfTestModel`` and its ``TuneModel``), made
    with the table's language too; imported now."""
    from .tune import TunePainter

    return TunePainter


def setup_painter() -> Callable[[ScreenSettings], Painter]:
    """The class of the painter of a table's set-up, drawn instead of a game until it is set up
    (``SetupModel``); imported now."""
    from .setup_screen import SetupPainter

    return SetupPainter


def lights(kind: str) -> Lights:
    """``kind``'s lights: the function of its LED frame and that frame's next change."""
    return looks(kind).lights


def kind_sounds(kind: str) -> Sounds | None:
    """``kind``'s own sounds; None for a kind with none of its own."""
    return looks(kind).sounds


def kind_synthesisers(kind: str) -> Mapping[str, Callable[[], list[float]]]:
    """The synthesisers of ``kind``'s own cues (none for a kind without cues of its own)."""
    return looks(kind).synths


def sound_cues(kind: str) -> CuesOf:
    """``kind``'s cues: the function of two of its public views naming the cues between them."""
    return looks(kind).cues
