"""What every picture the table's screen draws is made of: the 800x480 design, the colours,
type and symbols, the canvas that scales design units to the surface and remembers the tap
regions, and the pieces every kind's screen uses (the warning banner, the timer, a QR code).
Each kind's screen imports this module; none imports another's drawing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache, lru_cache

import pygame
import segno

from ..engine import Team
from ..engine.keys import ASSASSIN, BLUE_AGENT, BYSTANDER, RED_AGENT
from ..engine.phrase import N_
from ..hal import RGB, Command, GameModel, TimerState
from .i18n import say, translation
from .orientation import Area


def mix(colour: tuple[int, int, int], other: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    """``colour`` moved ``amount`` of the way towards ``other``."""
    red, green, blue = (round(a + (b - a) * amount) for a, b in zip(colour, other, strict=True))
    return red, green, blue


DESIGN = (800, 480)
HEADER = 90

BACKGROUND = (12, 14, 18)
PANEL = (30, 35, 44)
TEXT = (240, 242, 245)
MUTED = (148, 156, 170)
DARK_TEXT = (16, 16, 18)
AMBER = (255, 184, 28)
ALARM = (226, 40, 40)
BUTTON = (54, 62, 76)
BUTTON_OFF = (28, 32, 39)
TEXT_OFF = (84, 90, 100)
CARD = {RED_AGENT: (214, 50, 42), BLUE_AGENT: (36, 108, 226), BYSTANDER: (224, 208, 164), ASSASSIN: (6, 6, 8)}
DECOY = (142, 148, 158)  # Alias 24's grey decoys
TEAM_COLOUR = {Team.RED: CARD[RED_AGENT], Team.BLUE: CARD[BLUE_AGENT]}
TEAM_INK = {team: mix(colour, TEXT, 0.3) for team, colour in TEAM_COLOUR.items()}  # team words on dark
EDGE_FILL = mix(BACKGROUND, AMBER, 0.3)  # the bar on the operatives' edge of a picture of the grid
EDGE_INK = mix(TEXT, AMBER, 0.4)

@dataclass(frozen=True, slots=True)
class Tap:
    """A region of the screen and what a tap there does: send ``command``, or switch to ``mode``."""

    rect: tuple[int, int, int, int]
    command: Command | None = None
    mode: object = None  # what the tap switches the screen to: the grid's Mode, another kind's own (a turn of pass-and-play)


@dataclass(frozen=True, slots=True)
class Frame:
    """What one ``draw`` produced: the tap regions, where each key cell is (by cell number,
    the operatives' numbering) and every text shown."""

    taps: tuple[Tap, ...]
    cells: tuple[tuple[int, int, int, int], ...]
    texts: tuple[str, ...]
    cut: tuple[str, ...] = ()  # the texts that did not fit their place whole and were cut with an ellipsis

    def at(self, pos: tuple[int, int]) -> Tap | None:
        return next((tap for tap in self.taps if pygame.Rect(tap.rect).collidepoint(pos)), None)


# --- text and symbols, cached --------------------------------------------------------------


@cache
def typeface(size: int) -> pygame.font.Font:
    return pygame.font.Font(None, size)


@lru_cache(maxsize=2048)
def _rendered(text: str, size: int, colour: tuple[int, int, int]) -> pygame.Surface:
    return typeface(size).render(text, True, colour)


@lru_cache(maxsize=2048)
def _fit(text: str, size: int, smallest: int, width: int, max_lines: int) -> tuple[int, tuple[str, ...], bool]:
    """The largest size from ``size`` down to ``smallest`` at which ``text`` fits ``width`` in
    at most ``max_lines`` lines, those lines, and True; if even the smallest does not fit, what
    overflows is cut off with an ellipsis, and False."""
    for trial in range(size, smallest - 1, -2):
        font = typeface(trial)
        lines = _wrap(text, font, width)
        if len(lines) <= max_lines and all(font.size(line)[0] <= width for line in lines):
            return trial, tuple(lines), True
    font = typeface(smallest)
    lines = _wrap(text, font, width)
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [lines[max_lines - 1] + "…"]
    return smallest, tuple(_cut(line, font, width) for line in lines), False


def _cut(line: str, font: pygame.font.Font, width: int) -> str:
    """``line`` shortened with an ellipsis until it fits ``width``."""
    if font.size(line)[0] <= width:
        return line
    while line and font.size(line.rstrip("…").rstrip() + "…")[0] > width:
        line = line.rstrip("…")[:-1]
    return line.rstrip("…").rstrip() + "…"


def _wrap(text: str, font: pygame.font.Font, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and font.size(lines[-1] + " " + word)[0] <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


@lru_cache(maxsize=256)
def _symbol(kind: str, size: int, colour: tuple[int, int, int]) -> pygame.Surface:
    """Shapes the default font has no glyph for, drawn once per size and colour."""
    surface = pygame.Surface((size, size), pygame.SRCALPHA)
    half = size / 2
    thick = max(2, round(size / 9))
    if kind == "check":
        points = [(0.18, 0.52), (0.4, 0.74), (0.82, 0.28)]
        _stroke(surface, [(x * size, y * size) for x, y in points], thick, colour)
    elif kind == "infinity":  # a lemniscate
        steps = 96
        points = []
        for i in range(steps + 1):
            t = 2 * math.pi * i / steps
            d = 1 + math.sin(t) ** 2
            points.append((half + 0.44 * size * math.cos(t) / d, half + 0.62 * size * math.sin(t) * math.cos(t) / d))
        _stroke(surface, points, thick, colour)
    elif kind == "dot":  # a fingertip on a card
        pygame.draw.circle(surface, colour, (half, half), half)
        pygame.draw.circle(surface, mix(colour, (0, 0, 0), 0.6), (half, half), half, thick)
    elif kind == "crosshair":  # the assassin
        pygame.draw.circle(surface, colour, (half, half), size * 0.3, thick)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            start = (half + dx * size * 0.14, half + dy * size * 0.14)
            end = (half + dx * size * 0.44, half + dy * size * 0.44)
            pygame.draw.line(surface, colour, start, end, thick)
    elif kind == "nuke":  # Alias 24's nuke: the radiation trefoil
        for k in range(3):
            middle = math.radians(90 + 120 * k)
            arc = [middle + math.radians(a) for a in range(-30, 31, 5)]
            outer = [(half + size * 0.45 * math.cos(a), half - size * 0.45 * math.sin(a)) for a in arc]
            inner = [(half + size * 0.16 * math.cos(a), half - size * 0.16 * math.sin(a)) for a in reversed(arc)]
            pygame.draw.polygon(surface, colour, outer + inner)
        pygame.draw.circle(surface, colour, (half, half), size * 0.1)
    elif kind == "alert":  # a warning triangle with "!"
        corners = [(half, size * 0.06), (size * 0.97, size * 0.92), (size * 0.03, size * 0.92)]
        pygame.draw.polygon(surface, colour, corners)
        mark = BACKGROUND if sum(colour) > 384 else AMBER
        pygame.draw.line(surface, mark, (half, size * 0.36), (half, size * 0.64), thick)
        pygame.draw.circle(surface, mark, (half, size * 0.78), thick * 0.6)
    else:
        raise ValueError(f"no symbol {kind!r}")  # a programming error: the painters draw only SYMBOLS
    return surface


def _stroke(surface: pygame.Surface, points: list[tuple[float, float]], thick: int, colour: RGB) -> None:
    """A thick polyline with round joints (pygame's wide lines leave gaps at the corners)."""
    pygame.draw.lines(surface, colour, False, points, thick)
    for point in points:
        pygame.draw.circle(surface, colour, point, thick / 2)


# --- the canvas: design units to pixels --------------------------------------------------


@dataclass
class Canvas:
    """One drawing: the surface, the language, and what was laid out on it so far."""

    surface: pygame.Surface
    lang: str
    scale: float = field(init=False)
    origin: tuple[float, float] = field(init=False)
    taps: list[Tap] = field(default_factory=list)
    cells: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        width, height = self.surface.get_size()
        self.scale = min(width / DESIGN[0], height / DESIGN[1])
        self.origin = ((width - DESIGN[0] * self.scale) / 2, (height - DESIGN[1] * self.scale) / 2)
        self.gettext = translation(self.lang).gettext

    def rect(self, x: float, y: float, w: float, h: float) -> pygame.Rect:
        left, top = self.origin[0] + x * self.scale, self.origin[1] + y * self.scale
        right, bottom = self.origin[0] + (x + w) * self.scale, self.origin[1] + (y + h) * self.scale
        return pygame.Rect(round(left), round(top), round(right) - round(left), round(bottom) - round(top))

    def px(self, size: float) -> int:
        return max(1, round(size * self.scale))

    def box(self, area: Area, colour: RGB, radius: float = 10, width: float = 0) -> pygame.Rect:
        rect = self.rect(*area)
        pygame.draw.rect(self.surface, colour, rect, self.px(width) if width else 0, border_radius=self.px(radius))
        return rect

    def text(self, text: str, area: Area, size: float, colour: RGB, align: str = "center", smallest: float | None = None,
             lines: int = 1) -> None:
        """``text`` fitted into ``area`` (design units), centred on it vertically: at the largest
        size down to ``smallest`` that fits in ``lines`` lines."""
        self.texts.append(text)
        rect = self.rect(*area)
        fitted, rows, whole = _fit(text, self.px(size), self.px(smallest or size), rect.width, lines)
        if not whole:
            self.cut.append(text)
        step = typeface(fitted).get_linesize()
        top = rect.centery - step * len(rows) / 2
        for i, row in enumerate(rows):
            image = _rendered(row, fitted, colour)
            place = image.get_rect(top=round(top + i * step))
            if align == "left":
                place.left = rect.left
            elif align == "right":
                place.right = rect.right
            else:
                place.centerx = rect.centerx
            self.surface.blit(image, place)

    def fits(self, text: str, width: float, size: float, smallest: float, lines: int) -> tuple[float, int] | None:
        """The largest size from ``size`` down to ``smallest`` at which ``text`` fits ``width``
        (design units) whole in at most ``lines`` lines, and how many it takes; None if it does not."""
        fitted, rows, whole = _fit(text, self.px(size), self.px(smallest), self.rect(0, 0, width, 1).width, lines)
        return (fitted / self.scale, len(rows)) if whole else None

    def width(self, text: str, size: float) -> float:
        """How wide ``text`` is at ``size``, in design units."""
        return typeface(self.px(size)).size(text)[0] / self.scale

    def symbol(self, kind: str, centre: tuple[float, float], size: float, colour: RGB) -> None:
        image = _symbol(kind, self.px(size), colour)
        x, y = self.origin[0] + centre[0] * self.scale, self.origin[1] + centre[1] * self.scale
        self.surface.blit(image, image.get_rect(center=(round(x), round(y))))

    def edge(self, area: Area, edge: str, label: str, size: float) -> None:
        """The bar that marks a picture's operatives' ``edge`` over ``area`` (design units)."""
        self.texts.append(label)
        edge_bar(self.surface, self.rect(*area), edge, label, self.px(size))

    def tap(self, rect: pygame.Rect, command: Command | None = None, mode: object = None) -> None:
        self.taps.append(Tap((rect.x, rect.y, rect.w, rect.h), command, mode))

    def button(self, area: Area, label: str, command: Command | None = None, mode: object = None,
               enabled: bool = True, style: str = "plain", size: float = 30) -> None:
        """A labelled button; ``style`` "lit" is a mode in force, "primary" the likely next tap."""
        fill, ink = {"lit": (AMBER, DARK_TEXT), "primary": (TEXT, DARK_TEXT)}.get(style, (BUTTON, TEXT))
        if not enabled:
            fill, ink = BUTTON_OFF, TEXT_OFF
        rect = self.box(area, fill, radius=10)
        x, y, w, h = area
        self.text(label, (x + 3, y + 4, w - 6, h - 8), size, ink, smallest=18, lines=2)
        if enabled:
            self.tap(rect, command, mode)



def edge_bar(surface: pygame.Surface, rect: pygame.Rect, edge: str, label: str, size: int) -> None:
    """The operatives' edge of a picture of the grid (``orientation``): a bar over ``rect`` with
    ``label`` along it, turned a quarter on a side edge so that it reads along the bar."""
    pygame.draw.rect(surface, EDGE_FILL, rect, border_radius=max(1, min(rect.size) // 3))
    image = _rendered(label, size, EDGE_INK)
    if edge in ("left", "right"):
        image = pygame.transform.rotate(image, 90 if edge == "left" else -90)
    room = (rect.width - 2 * size, rect.height) if edge in ("top", "bottom") else (rect.width, rect.height - 2 * size)
    shrink = min(1.0, room[0] / image.get_width(), room[1] / image.get_height())
    if shrink < 1:
        image = pygame.transform.smoothscale(image, (max(1, round(image.get_width() * shrink)),
                                                     max(1, round(image.get_height() * shrink))))
    surface.blit(image, image.get_rect(center=rect.center))


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


BANNER = 44  # the banner's height, over the header
MORE_WARNINGS = N_("(+{count} more)")


def banner(canvas: Canvas, model: GameModel) -> None:
    """The faults across the top, the most serious first, each whole with what to do about it: on
    one line if they fit, else on two in smaller type (the longest, a silent chip's 11 cards and
    what to check, takes two in either language); the faults after those that fit are counted
    (the staff page lists them all)."""
    said = [capital(say(warning, model.lang)) for warning in model.warnings]
    width = DESIGN[0] - 62
    words, size, rows = " · ".join(said), 34.0, 1
    for shown in range(len(said), 0, -1):
        more = len(said) - shown
        words = " · ".join(said[:shown]) + (" " + canvas.gettext(MORE_WARNINGS).format(count=more) if more else "")
        fitted = canvas.fits(words, width, 34, 22, 1) or canvas.fits(words, width, 22, 18, 2)
        if fitted:
            size, rows = fitted
            break
    canvas.box((0, 0, DESIGN[0], BANNER), AMBER, radius=0)
    canvas.symbol("alert", (26, 22), 30, DARK_TEXT)
    canvas.text(words, (50, 2, width, BANNER - 4), size, DARK_TEXT, align="left", smallest=min(size, 18), lines=rows)



def draw_timer(canvas: Canvas, timer: TimerState, top: float, now: float, since: float | None) -> None:
    """The running timer at the header's right end, and its bar along the header's foot."""
    remaining = timer.remaining_s if since is None else max(0.0, timer.remaining_s - max(0.0, now - since))
    warning, expired = 0 < remaining <= timer.warn_s, remaining <= 0
    fill, ink = (ALARM, TEXT) if expired else (AMBER, DARK_TEXT) if warning else (PANEL, TEXT)
    canvas.box((DESIGN[0] - 140, top + 10, 128, 68), fill, radius=12)
    seconds = math.ceil(remaining)
    canvas.text(f"{seconds // 60}:{seconds % 60:02d}", (DESIGN[0] - 140, top + 10, 128, 68), 64, ink)
    fraction = min(1.0, remaining / timer.length_s)
    canvas.box((12, top + HEADER - 5, (DESIGN[0] - 12) * fraction, 5), fill if warning else TEXT, radius=0)



@lru_cache(maxsize=4)
def qr_image(link: str, side: int) -> pygame.Surface:
    """The QR code of ``link`` with its quiet zone, at most ``side`` pixels: every module the
    same whole number of pixels, so a phone's camera reads clean edges."""
    matrix = segno.make(link, error="m").matrix
    border, count = 4, len(matrix)
    modules = pygame.Surface((count + 2 * border, count + 2 * border))
    modules.fill((255, 255, 255))
    for row, bits in enumerate(matrix):
        for col, dark in enumerate(bits):
            if dark:
                modules.set_at((col + border, row + border), (0, 0, 0))
    scale = max(1, side // modules.get_width())
    return pygame.transform.scale(modules, (modules.get_width() * scale, modules.get_height() * scale))


