"""The windowed simulator: the whole table on a desktop.

Left, the grid as it would glow (the LED frame, drawn from the same renderer the strip gets);
a mouse press on a cell is a finger on its pad, so the hold rule applies. Right, the
spymaster screen exactly as the real one draws it, taps included. Keys stand for the buttons.
The table loop runs in its own thread as in the daemon; pygame stays in the main thread.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Generic, TypeVar

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

from ..drivers.pygame_sound import PygameSound
from ..engine import CELLS, GRID
from ..engine.keys import NO_CARD
from ..engine.phrase import N_
from ..errors import PiTableError
from ..hal import AnyModel, DialEvent, LedFrame, LedStrip, ScreenModel, SimButtons, SimTouch
from ..hal.sound import NoSound, SoundDevice
from ..table import Session
from ..table.input import InputSettings
from ..table.loop import EventLoop, LoopSettings
from ..table.loops import loop_class
from ..table.timer import TimerSettings
from ..ui import orientation
from ..ui.canvas import edge_bar
from ..ui.i18n import translation
from ..ui.leds import LightSettings
from ..ui.mounting import ScreenSettings
from ..ui.orientation import OPERATIVES_SIDE, SPYMASTERS_SIDE, operatives_edge, slot_of
from ..ui.screens import ScreenPainter
from ..ui.sound import Announcer, SoundSettings
from ..ui.words import Cards
from .harness import WordScreen

GRID_PX = 480
SCREEN_SIZE = (800, 480)
HELP_PX = 28
CELL_GAP = 8
EDGE_BAR = 18
"""How thick the bar marking the grid's operatives' edge is, in pixels."""
GRID_KEYS = N_("mouse: touch a card   E: END TURN   N: NEW GAME   up/down: dial   Enter: enter the dial   Q: quit")
"""The help bar of the grid games' window; a kind played on its screen alone gives its own."""
WINDOW_SIZE = (GRID_PX + SCREEN_SIZE[0], GRID_PX + HELP_PX)
HELP_INK, ASKING_INK = (190, 190, 190), (255, 200, 60)
"""The help bar's line, and its question while N waits for a second N."""
ASK_AGAIN = N_("N again: a new game over the one in progress (undo brings it back)")
ASK_S = 5.0
T = TypeVar("T")
"""How long N waits for a second N before a new game over one in progress is no longer asked for."""


class NoDisplay(PiTableError, RuntimeError):
    """There is no display to open a window on."""


class Latest(Generic[T]):
    """The newest value one thread hands another; older ones are dropped (never blocks)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value: T | None = None  # None: none handed over yet
        self.changed = threading.Event()

    def put(self, value: T) -> None:
        with self._lock:
            self._value = value
        self.changed.set()

    def get(self) -> T | None:
        with self._lock:
            self.changed.clear()
            return self._value


class WindowLeds(LedStrip):
    def __init__(self) -> None:
        self.latest = Latest[LedFrame]()

    def show(self, frame: LedFrame) -> None:
        self.latest.put(frame)


class WindowScreen(WordScreen):
    def __init__(self, cards: Cards | None = None) -> None:
        super().__init__(cards, keep=1)
        self.latest = Latest[AnyModel]()

    def show(self, model: AnyModel) -> None:
        super().show(model)
        self.latest.put(model)


def open_display() -> None:
    """Initialise pygame's display, or raise NoDisplay saying why."""
    no_display = not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if os.name == "posix" and no_display and os.environ.get("SDL_VIDEODRIVER") != "dummy":
        raise NoDisplay(N_("no DISPLAY or WAYLAND_DISPLAY is set"))
    try:
        pygame.display.init()
        pygame.font.init()
    except pygame.error as e:
        raise NoDisplay(str(e)) from None


def panel_layout(rotation: int = SPYMASTERS_SIDE) -> tuple[tuple[float, ...], pygame.Rect]:
    """The grid panel's square for the cells and the bar on their operatives' edge, turned as
    the key beside them is (``orientation``), so a cell is where the screen has it."""
    grid, bar = orientation.grid_and_bar(24, 24, GRID_PX - 48, operatives_edge(rotation), EDGE_BAR)
    return grid, pygame.Rect(*(round(v) for v in bar))


def cell_rects(rotation: int = SPYMASTERS_SIDE) -> list[pygame.Rect]:
    """The grid panel's cell rectangles, by cell number."""
    x, y, side, _ = panel_layout(rotation)[0]
    size = int(side - (GRID - 1) * CELL_GAP) // GRID
    return [pygame.Rect(round(x) + col * (size + CELL_GAP), round(y) + row * (size + CELL_GAP), size, size)
            for row, col in (slot_of(cell, rotation) for cell in range(CELLS))]


def draw_grid(
    surface: pygame.Surface, frame: LedFrame | None, font: pygame.font.Font, words: tuple[str, ...] | None = None,
    rotation: int = SPYMASTERS_SIDE, lang: str = "en",
) -> None:
    """The LED frame as light: each cell glows in its colour on a dark table, the edge strip
    runs round the grid; with ``words``, each card's word across its cell. Turned by ``rotation``
    as the key is, the operatives' edge marked in ``lang``."""
    surface.fill((18, 18, 22))
    if frame is None:
        return
    edge_bar(surface, panel_layout(rotation)[1], operatives_edge(rotation), translation(lang).gettext(OPERATIVES_SIDE),
             16)
    pixels = len(frame.edge)
    for index, colour in enumerate(frame.edge):  # the edge strip along the four sides, clockwise
        side, at = divmod(index * 4, pixels)
        offset = int(at / pixels * GRID_PX)
        length = max(4, GRID_PX // max(1, pixels // 4) - 4)
        rect = (
            pygame.Rect(offset, 2, length, 8), pygame.Rect(GRID_PX - 10, offset, 8, length),
            pygame.Rect(GRID_PX - offset - length, GRID_PX - 10, length, 8), pygame.Rect(2, GRID_PX - offset - length, 8, length),
        )[side % 4]
        pygame.draw.rect(surface, colour, rect, border_radius=3)
    for cell, rect in enumerate(cell_rects(rotation)):
        colour = frame.cells[cell]
        glow = tuple(min(255, 40 + channel) for channel in colour) if any(colour) else (32, 32, 36)
        pygame.draw.rect(surface, glow, rect, border_radius=10)
        pygame.draw.rect(surface, (70, 70, 78), rect, width=2, border_radius=10)
        label = font.render(str(cell), True, (0, 0, 0) if sum(glow) > 380 else (200, 200, 200))
        surface.blit(label, label.get_rect(topleft=(rect.x + 6, rect.y + 4)))
        if words is not None and words[cell]:
            draw_word(surface, rect, words[cell], font)


def on_cards(model: ScreenModel | None, words: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The words to draw: none on a cell without a card (Alias 24's dark cell)."""
    if model is None or words is None:
        return words
    return tuple("" if shown == NO_CARD else word for shown, word in zip(model.view.table.board, words, strict=True))


def dealt(model: AnyModel, words: tuple[str, ...] | None) -> AnyModel:
    """The model the screen panel draws: a grid game's key carries the words its cards were
    dealt, so the key and the grid beside it read alike."""
    return replace(model, words=words) if isinstance(model, ScreenModel) and words is not None else model


def draw_window(surface: pygame.Surface, frame: LedFrame | None, model: AnyModel | None, words: tuple[str, ...] | None,
                painter: ScreenPainter, now: float, lang: str, help_line: tuple[str, tuple[int, int, int]],
                font: pygame.font.Font) -> None:
    """The window as it is seen (``WINDOW_SIZE``): the grid as it glows on the left, the screen
    as the table draws it on the right, the help bar's line (its words and ink) under both. The
    window draws itself so, and the documentation's pictures of it are drawn so (tools/screenshots.py)."""
    shown = model if isinstance(model, ScreenModel) else None  # another kind: no cards on the grid
    draw_grid(surface.subsurface(pygame.Rect(0, 0, GRID_PX, GRID_PX)), frame, font, on_cards(shown, words),
              painter.settings.rotation, lang)
    if model is not None:
        painter.draw(surface.subsurface(pygame.Rect(GRID_PX, 0, *SCREEN_SIZE)), dealt(model, words), now)
    help_bar = surface.subsurface(pygame.Rect(0, GRID_PX, GRID_PX + SCREEN_SIZE[0], HELP_PX))
    help_bar.fill((10, 10, 12))
    help_bar.blit(font.render(help_line[0], True, help_line[1]), (10, 6))


def draw_word(surface: pygame.Surface, rect: pygame.Rect, word: str, font: pygame.font.Font) -> None:
    """A card's word, white on a dark plate across the cell's middle, so it reads over every
    reveal colour; a word wider than the cell is scaled down to fit."""
    text = font.render(word, True, (255, 255, 255))
    room = rect.width - 8
    if text.get_width() > room:
        text = pygame.transform.smoothscale(text, (room, max(1, text.get_height() * room // text.get_width())))
    plate = pygame.Rect(0, 0, min(rect.width - 4, text.get_width() + 8), text.get_height() + 4)
    plate.center = rect.center
    pygame.draw.rect(surface, (15, 15, 18), plate, border_radius=4)
    surface.blit(text, text.get_rect(center=rect.center))


class Window:
    """The simulator's window: the grid panel, the spymaster screen panel and a help bar,
    over a table loop that runs in its own thread."""

    def __init__(
        self,
        session: Session,
        settings: InputSettings,
        timer: TimerSettings | None = None,
        lang: str = "en",
        lights: LightSettings | None = None,
        screen_settings: ScreenSettings | None = None,
        cards: Cards | None = None,
        sound: SoundDevice | None = None,
        options: Mapping[str, object] | None = None,
        keys_help: str = GRID_KEYS,
    ) -> None:
        open_display()
        self.surface = pygame.display.set_mode(WINDOW_SIZE)
        self._ = translation(lang).gettext  # the help bar speaks the table's language, as its screen does
        self.lang = lang
        pygame.display.set_caption(self._("pi-table simulator"))
        self.small = pygame.font.Font(None, 22)
        self.painter = ScreenPainter(screen_settings or ScreenSettings())
        self.touch, self.buttons, self.leds, self.screen = SimTouch(), SimButtons(), WindowLeds(), WindowScreen(cards)
        played = LoopSettings(settings, timer or TimerSettings(), lights or LightSettings(), lang, options or {})
        self.loop: EventLoop = loop_class(session.kind).made(session, self.touch, self.leds, self.screen, self.buttons,
                                                             played)  # the loop of the game's kind, as the daemon's
        self.keys_help = keys_help
        self.rects = cell_rects(self.painter.settings.rotation)
        self.held: int | None = None
        self.frame: LedFrame | None = None
        self.model: AnyModel | None = None
        self.asking: str | None = None  # the help bar's question, while N waits for a second N
        self._asked_at = 0.0
        self.sound = sound or NoSound()
        self.loop.sound = Announcer(self.sound, SoundSettings(), lang)  # the table's cues, as a café hears them
        self.sound.start(self.loop.post)  # a missing audio device is a warning on the screen, as on the table
        self.loop.open()
        self.runner = threading.Thread(target=self.loop.run, name="table-loop", daemon=True)
        self.runner.start()

    def handle(self, event: pygame.event.Event) -> bool:
        """One pygame event; False when the window is to close."""
        if event.type == pygame.QUIT or (event.type == pygame.KEYDOWN and event.key in (pygame.K_q, pygame.K_ESCAPE)):
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            x, y = event.pos
            if x < GRID_PX:
                self.held = next((cell for cell, rect in enumerate(self.rects) if rect.collidepoint(x, y)), None)
                if self.held is not None:
                    self.touch.press(self.held)
            else:
                command = self.painter.tap((x - GRID_PX, y))
                if command is not None:
                    self.screen.tap(command)
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self.held is not None:
            self.touch.release(self.held)
            self.held = None
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_n:
            self._new_game_key()
        elif event.type == pygame.KEYDOWN:
            _key(event.key, self.loop, self.buttons)
        return True

    def _new_game_key(self) -> None:
        """NEW GAME is one key here: over a game in progress it asks, and a second N deals."""
        now = time.monotonic()
        confirmed = self.asking is not None and now - self._asked_at < ASK_S
        if confirmed or self.loop.call(lambda: self.loop.session.state.is_over):
            self.asking = None
            self.buttons.push("new_game")
        else:
            self.asking, self._asked_at = self._(ASK_AGAIN), now

    def draw(self) -> None:
        if self.leds.latest.changed.is_set():
            self.frame = self.leds.latest.get()
        if self.screen.latest.changed.is_set():
            self.model = self.screen.latest.get()
        if self.asking is not None and time.monotonic() - self._asked_at >= ASK_S:
            self.asking = None
        help_line = (self._(self.keys_help), HELP_INK) if self.asking is None else (self.asking, ASKING_INK)
        draw_window(self.surface, self.frame, self.model, self.screen.words, self.painter, self.loop.clock(), self.lang,
                    help_line, self.small)
        pygame.display.flip()

    def screenshot(self, path: str) -> None:
        pygame.image.save(self.surface, path)

    def close(self) -> None:
        self.loop.stop_soon()
        self.runner.join(timeout=5)
        self.loop.close()
        self.sound.close()
        pygame.display.quit()


def run_window(session: Session, settings: InputSettings, timer: TimerSettings | None = None, lang: str = "en",
               screen_settings: ScreenSettings | None = None, cards: Cards | None = None, sound: bool = True,
               options: Mapping[str, object] | None = None, keys_help: str = GRID_KEYS) -> None:
    """Open the window and play until it is closed, with the table's sound cues unless not
    ``sound``; the games' ``options`` as a table's (``LoopSettings.options``), the help bar's
    ``keys_help`` (a msgid). Raises NoDisplay before anything starts."""
    window = Window(session, settings, timer, lang, screen_settings=screen_settings, cards=cards,
                    sound=PygameSound() if sound else None, options=options, keys_help=keys_help)
    try:
        while all(window.handle(event) for event in [pygame.event.wait(33)] + pygame.event.get()):
            window.draw()
    finally:
        window.close()


def _key(key: int, loop: EventLoop, buttons: SimButtons) -> None:
    if key == pygame.K_e:
        buttons.push("end_turn")
    elif key in (pygame.K_UP, pygame.K_DOWN):
        loop.post(DialEvent(1 if key == pygame.K_UP else -1))
    elif key in (pygame.K_RETURN, pygame.K_KP_ENTER):
        buttons.push("enter_clue")


def render_pngs(model: ScreenModel, frame: LedFrame, out: str, now: float, screen_settings: ScreenSettings,
                words: tuple[str, ...] | None = None) -> list[str]:
    """What the table shows, as files (``render_surfaces``). Offscreen: no display needed."""
    folder = os.fspath(out)
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, surface in render_surfaces(model, frame, now, screen_settings, words).items():
        path = os.path.join(folder, name)
        pygame.image.save(surface, path)
        paths.append(path)
    return paths


def render_surfaces(model: ScreenModel, frame: LedFrame, now: float, screen_settings: ScreenSettings,
                    words: tuple[str, ...] | None = None) -> dict[str, pygame.Surface]:
    """What the table shows, by the file name ``pi-table render`` gives it: the spymaster screen,
    the grid's lights (with the cards' ``words``), and both side by side as the windowed
    simulator draws them."""
    pygame.font.init()
    small = pygame.font.Font(None, 22)
    grid = pygame.Surface((GRID_PX, GRID_PX))
    draw_grid(grid, frame, small, on_cards(model, words), screen_settings.rotation, model.lang)
    screen = pygame.Surface(SCREEN_SIZE)
    ScreenPainter(screen_settings).draw(screen, dealt(model, words), now)
    both = pygame.Surface((GRID_PX + SCREEN_SIZE[0], GRID_PX))
    both.blit(grid, (0, 0))
    both.blit(screen, (GRID_PX, 0))
    return {"screen.png": screen, "grid.png": grid, "table.png": both}
