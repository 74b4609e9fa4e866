"""The spymaster screen on a real display, through pygame: KMSDRM on the Pi, any SDL driver elsewhere.

pygame wants the thread that opened the window to draw on it and to read its events, so the
screen runs one thread of its own. ``show`` hands it the newest model (the latest wins, so the
table loop never waits for a redraw) and wakes it. Between redraws the thread naps, reading
taps every ``INPUT_POLL_S``, until something happens: a new model, a tap, or, while a turn
timer runs, the next second. A tap becomes the command the painter maps it to, sent to the
table loop as a ``UiEvent``.

What the screen looks like is the painter's business (``pi_table.ui.screens.ScreenPainter``,
with the key's rotation in its settings). It is handed in because drivers sit below the ui
layer and may not import it. pygame itself is imported only when the screen starts, so the
rest of the table runs where pygame is missing.

On the Pi: ``SDL_VIDEODRIVER=kmsdrm`` (or ``video_driver="kmsdrm"``) with a pygame built
against the system SDL2 (Debian's python3-pygame); no desktop is needed.

The picture is landscape; the panel may not be. ``panel_rotation`` is how far the panel is
turned clockwise in its hood (the Touch Display 2 scans out 720x1280 portrait and is held at 90
or 270). KMSDRM shows the panel's native mode as it is (SDL2 does not apply the panel's
orientation, and the Pi's display planes cannot turn by 90), so the painter draws on a
landscape surface, which is turned the other way onto the display at each redraw, and every
tap is taken back from the panel's coordinates to the picture's.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from ..engine.phrase import N_, Phrase, Text
from ..errors import PiTableError
from ..hal import AnyModel, Command, Emit, NotStarted, Screen, SelfTestModel, SetupModel, UiEvent

if TYPE_CHECKING:  # pygame loads when a screen opens
    from pygame import Surface
    from pygame.event import Event

log = logging.getLogger(__name__)

PANEL_ROTATIONS = (0, 90, 180, 270)

INPUT_POLL_S = 0.03
"""How often taps are read while nothing else happens. SDL's own event wait polls every
millisecond on video drivers that cannot block (the dummy driver; KMSDRM likely too), which
cost about 3 % of a core here; a 30 ms nap between reads keeps taps prompt and an idle screen
near 0 %."""
NOT_OPEN = N_("the display did not open within {seconds:g} s")
FAULTS = (NOT_OPEN,)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""


class ScreenNotAnswering(PiTableError, RuntimeError):
    """The screen's thread did not do what it was asked in time (a screenshot)."""


class ScreenNotOpen(PiTableError, RuntimeError):
    """The display did not open. ``detail`` says why: the display system's own words (SDL's,
    shown as they are) or a Phrase; ``str()`` is that alone, for whoever says which device it
    was in the reader's language ("the spymaster screen is not working (...)")."""

    def __init__(self, detail: Text) -> None:
        self.detail = detail
        super().__init__(str(detail))


@dataclass
class _Shot:
    """A screenshot asked of the screen's thread: where to save it, and what came of it."""

    path: str
    done: threading.Event = field(default_factory=threading.Event)
    error: str | None = None


class Painter(Protocol):
    """Draws a model on a surface and says what a tap at a pixel asks for."""

    def draw(self, surface: Any, model: Any, now: float, since: float | None = None) -> object: ...  # the models it knows

    def tap(self, pos: tuple[int, int]) -> Command | None: ...


class PygameScreen(Screen):
    """The spymaster screen in its own thread.

    ``size`` None fills the display at its own resolution (the Pi's panel, cursor hidden);
    a size opens a window that big (a desktop). ``video_driver`` sets ``SDL_VIDEODRIVER``
    before the display opens ("kmsdrm" on the Pi, "dummy" in tests); None leaves it as is.
    ``panel_rotation`` (0, 90, 180, 270): how far the panel is turned clockwise from its own
    upright, undone by turning the picture (``PanelMounting`` in the ui layer checks it).
    """

    def __init__(
        self,
        painter: Painter,
        size: tuple[int, int] | None = None,
        video_driver: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        open_timeout_s: float = 10.0,
        panel_rotation: int = 0,
    ) -> None:
        if panel_rotation not in PANEL_ROTATIONS:
            # a programming error: the configuration takes only these
            raise ValueError(f"the panel's rotation is one of {PANEL_ROTATIONS} degrees, not {panel_rotation!r}")
        self.painter = painter
        self.panel_rotation = panel_rotation
        self._turn = 0  # how far the picture is turned onto the display: panel_rotation, if it fits
        self.size = size
        self.video_driver = video_driver
        self.clock = clock
        self.open_timeout_s = open_timeout_s
        self._lock = threading.Lock()
        self._model: AnyModel | None = None
        self._since = 0.0
        self._emit: Emit | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: str | None = None
        self._running = False
        self._woken = False
        self._nudge = threading.Event()  # set whenever something is posted for the thread
        self._wake = self._stop = self._shot = 0  # pygame event types, set in start()

    # --- from any thread ---------------------------------------------------------------------

    def show(self, model: AnyModel) -> None:
        """Hand over the newest model and wake the screen's thread; returns at once."""
        with self._lock:
            self._model, self._since = model, self.clock()
            wake = self._running and not self._woken  # one wake-up covers any number of models
            self._woken = self._woken or wake
        if wake:
            self._post(self._wake)

    def start(self, emit: Emit) -> None:
        """Open the display in the screen's thread; raise if it cannot be opened."""
        self._wake, self._stop, self._shot = _event_types()
        self._emit = emit
        self._thread = threading.Thread(target=self._run, name="spymaster-screen", daemon=True)
        self._thread.start()
        if not self._ready.wait(self.open_timeout_s):
            raise ScreenNotOpen(Phrase.of(NOT_OPEN, seconds=self.open_timeout_s))
        if self._failure is not None:
            raise ScreenNotOpen(self._failure)

    def stop(self) -> None:
        """Close the display; the thread ends once it has handled what was already queued."""
        thread = self._thread
        if thread is None:
            return
        self._post(self._stop)
        thread.join(timeout=5.0)
        if thread.is_alive():
            log.error("the spymaster screen's thread did not end")
        self._thread = None
        self._emit = None

    def screenshot(self, path: Path | str, timeout_s: float = 5.0) -> None:
        """Save what the screen shows now as a PNG (the screen's thread writes it)."""
        import pygame

        request = _Shot(str(path))
        if not self._running:
            raise NotStarted("the spymaster screen is not running")
        self._post(self._shot, request=request)
        if not request.done.wait(timeout_s):
            raise ScreenNotAnswering(f"the spymaster screen did not save {path} within {timeout_s} s")
        if request.error is not None:
            raise pygame.error(request.error)

    def _post(self, kind: int, **fields: object) -> None:
        import pygame

        try:
            pygame.event.post(pygame.event.Event(kind, fields))
        except pygame.error:  # the display closed meanwhile: nothing left to wake
            pass
        self._nudge.set()

    # --- the screen's own thread ----------------------------------------------------------

    def _run(self) -> None:
        import pygame

        try:
            with _video_driver(self.video_driver):
                pygame.display.init()
            pygame.font.init()
            if self.size is None:
                surface = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
                pygame.mouse.set_visible(False)
            else:
                surface = pygame.display.set_mode(self.size)
            pygame.display.set_caption("pi-table: spymasters")
            pygame.event.set_blocked([pygame.MOUSEMOTION, pygame.FINGERMOTION])  # no wake-ups for moves
            picture = self._picture(pygame, surface)
        except pygame.error as e:
            self._failure = str(e)
            self._ready.set()
            return
        with self._lock:
            self._running = True
        self._ready.set()
        try:
            self._serve(pygame, surface, picture)
        finally:
            with self._lock:
                self._running = False
            pygame.display.quit()

    def _picture(self, pygame: ModuleType, display: Surface) -> Surface:
        """The landscape surface the painter draws on: the display itself when the panel is
        upright, else one the display's size turned by the panel's rotation. A quarter turn
        that would stand the picture on end (a landscape display: the configuration names
        another panel than the one fitted, as an older table's does) is not made, and said."""
        width, height = display.get_size()
        quarter = self.panel_rotation in (90, 270)
        if quarter and width > height:
            log.warning("panel_rotation %d would stand the picture on end on this %dx%d display, so it is drawn "
                        "unturned: set [screen] panel and panel_rotation for the display fitted (a landscape "
                        "panel sits at 0 or 180)", self.panel_rotation, width, height)
            self._turn = 0
        else:
            self._turn = self.panel_rotation
        if self._turn == 0:
            return display
        size = (height, width) if quarter else (width, height)
        turned: Surface = pygame.Surface(size, 0, display)  # the display's pixel format: the turn is a plain copy
        return turned

    def _serve(self, pygame: ModuleType, surface: Surface, picture: Surface) -> None:
        drawn: AnyModel | None = None
        due: float | None = None  # when a running timer next shows another second
        dirty = True
        shots: list[_Shot] = []
        while True:
            with self._lock:
                model, since = self._model, self._since
                self._woken = False
            now = self.clock()
            if model is not None and (dirty or model is not drawn or (due is not None and now >= due)):
                try:
                    self.painter.draw(picture, model, now, since)
                except Exception:  # a drawing bug must not take the key off the screen for good
                    what = ("the self-test" if isinstance(model, SelfTestModel) else "the set-up"
                            if isinstance(model, SetupModel) else f"the game {model.game_id}")
                    log.exception("the spymaster screen could not draw %s", what)
                if picture is not surface:  # turned the other way from the panel: upright in the hood
                    surface.blit(pygame.transform.rotate(picture, self._turn), (0, 0))
                pygame.display.flip()
                drawn = model
                due = _next_second(model, since, now)  # kept until then, however early a wake-up
            for request in shots:
                try:
                    pygame.image.save(surface, request.path)
                except (pygame.error, OSError) as e:
                    request.error = str(e)
                request.done.set()
            self._nudge.wait(INPUT_POLL_S if due is None else min(INPUT_POLL_S, max(0.0, due - self.clock())))
            self._nudge.clear()
            dirty, shots = False, []
            for event in pygame.event.get():
                if event.type == self._stop:
                    return
                if event.type == self._shot:
                    shots.append(event.request)
                elif event.type in (pygame.WINDOWEXPOSED, pygame.VIDEOEXPOSE):
                    dirty = True
                else:
                    dirty |= self._tap(pygame, event, surface.get_size())

    def _tap(self, pygame: ModuleType, event: Event, size: tuple[int, int]) -> bool:
        """Send the command a tap asks for; True when the picture must be redrawn."""
        if event.type == pygame.FINGERDOWN:  # touch panels: x and y run from 0 to 1 across the panel
            at = (event.x * size[0], event.y * size[1])
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and not getattr(event, "touch", False):
            at = (event.pos[0] + 0.5, event.pos[1] + 0.5)  # a mouse; SDL's copies of touches as clicks are left out
        else:
            return False
        command = self.painter.tap(on_picture(at, self._turn, size))
        if command is not None and self._emit is not None:
            self._emit(UiEvent(command))
        return True


def on_picture(at: tuple[float, float], panel_rotation: int, panel: tuple[int, int]) -> tuple[int, int]:
    """The picture's pixel under a point of the panel (in panel pixels; a click is taken at its
    pixel's centre). The picture is turned ``panel_rotation`` degrees anticlockwise onto the
    panel, so the point is turned back; the panel's far edge (a finger at 1.0) stays on it."""
    x, y = at
    width, height = panel
    turned = {0: (x, y), 90: (height - y, x), 180: (width - x, height - y), 270: (y, width - x)}[panel_rotation]
    across, down = (height, width) if panel_rotation in (90, 270) else (width, height)
    return min(max(int(turned[0]), 0), across - 1), min(max(int(turned[1]), 0), down - 1)


@contextmanager
def _video_driver(name: str | None) -> Iterator[None]:
    """``SDL_VIDEODRIVER`` set to ``name`` while SDL picks its driver, then put back: it is the
    whole process's environment, and other displays (a desktop simulator) may want another."""
    if name is None:
        yield
        return
    before = os.environ.get("SDL_VIDEODRIVER")
    os.environ["SDL_VIDEODRIVER"] = name
    try:
        yield
    finally:
        if before is None:
            del os.environ["SDL_VIDEODRIVER"]
        else:
            os.environ["SDL_VIDEODRIVER"] = before


@lru_cache(maxsize=1)
def _event_types() -> tuple[int, int, int]:
    """The screen's own pygame event kinds: wake up, stop, take a screenshot."""
    import pygame

    return pygame.event.custom_type(), pygame.event.custom_type(), pygame.event.custom_type()


def _next_second(model: AnyModel | None, since: float, now: float) -> float | None:
    """When a running timer will show its next second, counting down from ``since`` (the
    self-test's checklist and the set-up have none)."""
    timer = None if model is None or isinstance(model, SelfTestModel | SetupModel) else model.cues.timer
    if timer is None or not timer.running:
        return None
    remaining = timer.remaining_s - (now - since)
    if remaining <= 0:
        return None
    return now + (remaining - math.floor(remaining) or 1.0) + 0.001
