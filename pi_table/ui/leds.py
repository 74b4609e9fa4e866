"""The LED frame: a pure function of the table view, the cues and the time.

It is given the table view and nothing else of the game, so no hidden card can reach the
grid. Colours are perceptual 0-255 values; brightness, gamma, the current limit and the
cell-to-LED map are the output stage's business (``pi_table.ui.pixels``).

What the table shows:

- a hidden card glows faintly (``HIDDEN_CARD``); a touched one turns white at once
  (``PENDING``) until the hold makes it a guess;
- a revealed card shows its identity (``REVEALED``) from the first frame, and a ring in its
  colour runs out over the neighbouring cells for ``reveal_s``;
- the edge strip is the colour of the team whose turn it is; with the turn timer on it is a
  bar that shrinks as the turn runs down and flashes in the last ``warn_s`` seconds;
- amber on the whole edge while staff must act (wipe the table, touch board disconnected);
- a hidden card whose pad the touch board cannot hear (its chip does not answer) blinks amber,
  so players stop touching it;
- at the end, rings and running lights in the winner's colour, or a white flash and red
  and blue flickering when both teams lose (Alias 24's armed nuke);
- when the table has been idle for a while, a slow wave that depends on nothing but the time;
- in colour-blind mode every identity also has its own rhythm: red steady, blue pulsing,
  bystander winking, assassin blinking.

``next_change`` says when the frame will next differ, so the loop sleeps in between: a still
frame costs no wake-ups, animations step at ``fps`` and the attract wave at ``attract_fps``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..engine import CELLS, GRID, OVER, PLACE, TableView, Team
from ..engine.errors import Refusal
from ..engine.keys import ASSASSIN, BLUE_AGENT, BYSTANDER, NO_CARD, RED_AGENT
from ..engine.views import HIDDEN
from ..hal import RGB, Cues, LedFrame

OFF: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)
HIDDEN_CARD: RGB = (48, 40, 28)  # a faint warm glow that survives gamma: the grid reads as "in play"
PENDING: RGB = WHITE
WARNING: RGB = (255, 110, 0)
DEAF: RGB = WARNING  # a card the board cannot hear, blinking (WARNING_PATTERN): no touch counts there
REVEALED: dict[str, RGB] = {
    RED_AGENT: (255, 0, 0),
    BLUE_AGENT: (0, 80, 255),
    # a warm grey: Codenames' beige bystander, Alias 24's grey decoy; light enough that a
    # deuteranope, who sees the red as a dark olive, tells the two apart
    BYSTANDER: (190, 170, 140),
    # black cannot glow: the assassin and the nuke are plum, a violet leaning to red and darker
    # than the blue, which a protanope would otherwise see as the same blue (colour_vision.py)
    ASSASSIN: (170, 0, 136),
}
TEAM_COLOUR: dict[Team, RGB] = {Team.RED: REVEALED[RED_AGENT], Team.BLUE: REVEALED[BLUE_AGENT]}

TAU = 2 * math.pi
DIM = 0.12  # a pattern's dark phase and the timer bar's empty part: dim, never off
RIPPLE_REACH = 2.5  # cells the reveal ring travels
RIPPLE_STRENGTH = 0.55
CELEBRATION_RING_S = 1.2
NUKE_FLASH_S = 1.5
EXPIRED_BLINK_S = 1.0  # an unenforced timer that ran out: the whole edge blinks at this period
WARN_FLASH_S = 0.5  # the timer bar flashes at this period in the last warn_s seconds
BAR_STEPS = 4  # the bar's last pixel dims in quarters, so it shrinks smoothly yet changes rarely
PAST_EDGE_S = 1e-6  # wake this long after a switch, so rounding cannot leave the frame unchanged

_ROW_COL = [divmod(cell, GRID) for cell in range(CELLS)]
_DISTANCE = [[math.dist(a, b) for b in _ROW_COL] for a in _ROW_COL]
_CENTRE = (GRID - 1) / 2
_FROM_CENTRE = [math.dist(rc, (_CENTRE, _CENTRE)) for rc in _ROW_COL]


@dataclass(frozen=True, slots=True)
class LightSettings:
    """How the lights behave; the LED map and power figures belong to the output stage."""

    edge_pixels: int = 24
    colour_blind: bool = False  # identities also differ by rhythm, not only by hue
    fps: float = 30.0  # animation frames per second while something moves
    attract_fps: float = 10.0  # the idle wave is slow: fewer frames keep the idle daemon cheap
    reveal_s: float = 0.5
    celebrate_s: float = 6.0

    def __post_init__(self) -> None:
        if not isinstance(self.edge_pixels, int) or self.edge_pixels < 1:
            raise Refusal("edge_pixels is a whole number of pixels, 1 or more, not {pixels!r}", pixels=self.edge_pixels)
        if not 1 <= self.fps <= 60:
            raise Refusal("fps is 1 to 60 frames per second, not {fps}", fps=self.fps)
        if not 0.5 <= self.attract_fps <= self.fps:
            raise Refusal("attract_fps is 0.5 up to fps ({fps}), not {attract}", fps=self.fps, attract=self.attract_fps)
        if not 0 < self.reveal_s <= 2:
            raise Refusal("reveal_s is more than 0 and at most 2 seconds, not {seconds}", seconds=self.reveal_s)
        if not 0 <= self.celebrate_s <= 60:
            raise Refusal("celebrate_s is 0 to 60 seconds, not {seconds}", seconds=self.celebrate_s)


@dataclass(frozen=True, slots=True)
class Pattern:
    """A rhythm of brightness over time, so identities differ for players who cannot tell
    the hues apart: steady; a smooth pulse; or dark for ``dark_s`` in every ``period_s``."""

    period_s: float = 0.0  # 0: steady
    dark_s: float = 0.0
    smooth: bool = False

    def level(self, wake: _Wake) -> float:
        if self.period_s == 0:
            return 1.0
        if self.smooth:
            wake.frame()
            return DIM + (1 - DIM) * (0.5 + 0.5 * math.cos(TAU * wake.tq / self.period_s))
        return _on_off(wake, self.period_s, self.dark_s)


STEADY = Pattern()
PULSE = Pattern(period_s=2.0, smooth=True)
WINK = Pattern(period_s=2.0, dark_s=0.3)
BLINK = Pattern(period_s=0.5, dark_s=0.25)
COLOUR_BLIND_PATTERN: dict[str, Pattern] = {RED_AGENT: STEADY, BLUE_AGENT: PULSE, BYSTANDER: WINK, ASSASSIN: BLINK}
WARNING_PATTERN = Pattern(period_s=1.0, dark_s=0.5)  # amber and red look alike to many


class _Wake:
    """Collects when the frame next changes: the earliest time any part of it asks for.

    Moving parts are drawn at ``tq``, the time rounded down to the frame rate, so the frame
    holds still between frame ticks and the next tick is a true "next change"."""

    __slots__ = ("at", "next_tick", "now", "tq")

    def __init__(self, now: float, fps: float) -> None:
        tick = math.floor(now * fps)
        self.now = now
        self.tq = tick / fps
        following = (tick + 1) / fps
        self.next_tick = following if following > now else (tick + 2) / fps
        self.at: float | None = None

    def frame(self) -> None:
        """Something moves smoothly: the next frame tick."""
        self.when(self.next_tick)

    def when(self, t: float) -> None:
        if t <= self.now:  # rounding put an edge at or before now: never ask to wake in the past
            t = self.next_tick
        if self.at is None or t < self.at:
            self.at = t


def render_frame(view: TableView, cues: Cues, now: float, settings: LightSettings = LightSettings()) -> LedFrame:
    """The grid and edge lights for this table view and these cues at time ``now``."""
    return compose(view, cues, now, settings)[0]


def next_change(view: TableView, cues: Cues, now: float, settings: LightSettings = LightSettings()) -> float | None:
    """When the frame will next differ with nothing else happening (None: it is still)."""
    return compose(view, cues, now, settings)[1]


def compose(view: TableView, cues: Cues, now: float, settings: LightSettings = LightSettings()) -> tuple[LedFrame, float | None]:
    """The frame and its next change, from one pass, so the two can never disagree; the table's
    loop shows the frame and keeps the time, composing each frame once."""
    if cues.idle:
        wake = _Wake(now, settings.attract_fps)
        cells, edge = _attract(wake, settings.edge_pixels)
    else:
        wake = _Wake(now, settings.fps)
        cells = _cards(view, cues, wake, settings)
        edge = _edge(view, cues, wake, settings)
    if cues.warnings:
        level = WARNING_PATTERN.level(wake) if settings.colour_blind else 1.0
        edge = [_scale(WARNING, level)] * settings.edge_pixels
    return LedFrame(cells=tuple(cells), edge=tuple(edge)), wake.at


# --- the grid -------------------------------------------------------------------------------


def _cards(view: TableView, cues: Cues, wake: _Wake, settings: LightSettings) -> list[RGB]:
    board = view.board
    patterns = COLOUR_BLIND_PATTERN if settings.colour_blind else None
    levels: dict[str, float] = {}
    placing = view.placing if view.phase == PLACE else None
    cells: list[RGB] = []
    for cell, shown in enumerate(board):
        if shown == HIDDEN:
            if cell in cues.pending:
                cells.append(PENDING)
            elif cell in cues.deaf:
                cells.append(_scale(DEAF, WARNING_PATTERN.level(wake)))
            elif placing is None or cell < placing:
                cells.append(HIDDEN_CARD)  # in play, or already placed during the setup
            elif cell == placing:
                cells.append(_team_colour(view.turn, wake, settings))
            else:
                cells.append(OFF)  # Deep Undercover: no codename here yet
        elif shown == NO_CARD:
            cells.append(OFF)
        elif patterns is None:
            cells.append(REVEALED[shown])
        else:
            if shown not in levels:
                levels[shown] = patterns[shown].level(wake)
            cells.append(_scale(REVEALED[shown], levels[shown]))
    # the rings and the end of the game paint only hidden, untouched, heard cards and empty cells:
    # a shown card keeps its identity's colour, a touched one its white and a deaf one its amber,
    # whatever runs past
    marked = cues.pending | cues.deaf
    quiet = [cell for cell, shown in enumerate(board) if shown == NO_CARD or (shown == HIDDEN and cell not in marked)]
    _reveal_rings(cells, quiet, board, cues.revealed_at, wake, settings.reveal_s)
    if view.phase == OVER:
        _end_of_game_grid(cells, quiet, view, cues, wake, settings)
    return cells


def _reveal_rings(cells: list[RGB], quiet: list[int], board: str, revealed_at: tuple[float | None, ...], wake: _Wake,
                  reveal_s: float) -> None:
    """A ring in the revealed card's colour runs out over the hidden cards around it; the
    card itself shows its colour from the first frame."""
    for origin, at in enumerate(revealed_at):
        if at is None or board[origin] in (HIDDEN, NO_CARD):
            continue
        age = wake.tq - at
        if age >= reveal_s:
            continue
        wake.frame()
        if age <= 0:
            continue
        progress = age / reveal_s
        radius = progress * RIPPLE_REACH
        fade = RIPPLE_STRENGTH * (1 - progress)
        colour = REVEALED[board[origin]]
        distances = _DISTANCE[origin]
        for cell in quiet:
            weight = 1 - abs(distances[cell] - radius)
            if weight > 0:
                cells[cell] = _mix(cells[cell], colour, weight * fade)


def _end_of_game_grid(
    cells: list[RGB], quiet: list[int], view: TableView, cues: Cues, wake: _Wake, settings: LightSettings
) -> None:
    """Rings from the centre in the winner's colour; a fading white flash when both lose."""
    age = _celebrating(cues, wake, settings)
    if age is None:
        return
    if view.winner is None:
        flash = max(0.0, 1 - age / NUKE_FLASH_S)
        for cell in quiet:
            cells[cell] = _mix(cells[cell], WHITE, flash)
        return
    colour = TEAM_COLOUR[view.winner]
    radius = (age % CELEBRATION_RING_S) / CELEBRATION_RING_S * (_FROM_CENTRE[0] + 1)
    for cell in quiet:
        weight = 1 - abs(_FROM_CENTRE[cell] - radius)
        if weight > 0:
            cells[cell] = _mix(cells[cell], colour, 0.7 * weight)


def _celebrating(cues: Cues, wake: _Wake, settings: LightSettings) -> float | None:
    """Seconds since the game ended (its last card shown) while the celebration lasts."""
    shown = [at for at in cues.revealed_at if at is not None]
    if not shown:
        return None
    age = wake.tq - max(shown)
    if age >= settings.celebrate_s:
        return None
    wake.frame()
    return max(age, 0.0)


# --- the edge -------------------------------------------------------------------------------


def _edge(view: TableView, cues: Cues, wake: _Wake, settings: LightSettings) -> list[RGB]:
    n = settings.edge_pixels
    if view.phase == OVER:
        return _end_of_game_edge(view, cues, wake, settings)
    colour = _team_colour(view.turn, wake, settings)
    timer = cues.timer
    if timer is None or not timer.running:
        return [colour] * n
    if timer.remaining_s <= 0:  # ran out, not enforced: the turn goes on and the edge blinks
        return [_scale(colour, _on_off(wake, EXPIRED_BLINK_S, EXPIRED_BLINK_S / 2))] * n
    return _timer_bar(colour, timer.remaining_s, timer.length_s, timer.warn_s, wake, n)


def _timer_bar(colour: RGB, remaining: float, length: float, warn_s: float, wake: _Wake, n: int) -> list[RGB]:
    """The turn's time left as a bar in the team colour that shrinks towards pixel 0; the
    empty part stays dim in the team colour so the turn still shows when the bar is short."""
    steps = n * BAR_STEPS
    lit_steps = math.ceil(min(remaining / length, 1.0) * steps)
    wake.when(wake.now + remaining - (lit_steps - 1) * length / steps + PAST_EDGE_S)
    track = _scale(colour, DIM)
    bright = colour
    if remaining > warn_s:
        wake.when(wake.now + remaining - warn_s + PAST_EDGE_S)
    else:
        into = remaining % WARN_FLASH_S or WARN_FLASH_S  # at a switch, show what follows it
        half = WARN_FLASH_S / 2
        wake.when(wake.now + (into - half if into > half else into) + PAST_EDGE_S)
        if into <= half:
            bright = track
    bar = []
    for pixel in range(n):
        fill = min(max(lit_steps - pixel * BAR_STEPS, 0), BAR_STEPS) / BAR_STEPS
        bar.append(_mix(track, bright, fill))
    return bar


def _end_of_game_edge(view: TableView, cues: Cues, wake: _Wake, settings: LightSettings) -> list[RGB]:
    """Lights running round the edge in the winner's colour, settling to it; when both teams
    lose, red and blue flicker against each other and settle to alternate dimly."""
    n = settings.edge_pixels
    age = _celebrating(cues, wake, settings)
    if view.winner is None:
        red, blue = TEAM_COLOUR[Team.RED], TEAM_COLOUR[Team.BLUE]
        if age is None:
            return [_scale(red if pixel % 2 == 0 else blue, 0.4) for pixel in range(n)]
        edge = []
        for pixel in range(n):
            phase = 0.5 * (pixel % 2)
            level = 0.2 + 0.8 * (0.5 + 0.5 * math.cos(TAU * (2 * wake.tq + phase)))
            edge.append(_scale(red if pixel % 2 == 0 else blue, level))
        return edge
    colour = _team_colour(view.winner, wake, settings)
    if age is None:
        return [colour] * n
    edge = []
    for pixel in range(n):
        tail = (3 * pixel / n - 0.8 * wake.tq) % 1.0  # three comets chasing round
        edge.append(_scale(colour, 0.15 + 0.85 * tail**3))
    return edge


def _team_colour(team: Team | None, wake: _Wake, settings: LightSettings) -> RGB:
    if team is None:
        return OFF
    colour = TEAM_COLOUR[team]
    if not settings.colour_blind:
        return colour
    return _scale(colour, COLOUR_BLIND_PATTERN[team.letter].level(wake))


# --- idle -----------------------------------------------------------------------------------


def _attract(wake: _Wake, n: int) -> tuple[list[RGB], list[RGB]]:
    """A slow wave of brightness across the grid, its hue drifting between the team colours.
    A function of the time alone: an idle table shows nothing of any game."""
    wake.frame()
    t = wake.tq
    red, blue = TEAM_COLOUR[Team.RED], TEAM_COLOUR[Team.BLUE]
    cells = []
    for row, col in _ROW_COL:
        wave = 0.5 + 0.5 * math.sin(TAU * ((row + col) / 8 - t / 5))
        hue = 0.5 + 0.5 * math.sin(TAU * (t / 23 + (row - col) / 10))
        cells.append(_scale(_mix(red, blue, hue), 0.1 + 0.5 * wave))
    edge = []
    for pixel in range(n):
        wave = 0.5 + 0.5 * math.sin(TAU * (pixel / n - t / 7))
        hue = 0.5 + 0.5 * math.sin(TAU * (t / 23 + pixel / n))
        edge.append(_scale(_mix(red, blue, hue), 0.1 + 0.4 * wave))
    return cells, edge


# --- colour arithmetic ----------------------------------------------------------------------


def _on_off(wake: _Wake, period: float, dark: float) -> float:
    """DIM for the first ``dark`` seconds of every ``period``, else full; asks to wake at the
    next switch."""
    into = wake.now % period
    start = wake.now - into
    if into < dark:
        wake.when(start + dark + PAST_EDGE_S)
        return DIM
    wake.when(start + period + PAST_EDGE_S)
    return 1.0


def _scale(colour: RGB, level: float) -> RGB:
    """``colour`` at ``level`` (0 to 1) of its brightness."""
    r, g, b = colour
    return (round(r * level), round(g * level), round(b * level))


def _mix(a: RGB, b: RGB, weight: float) -> RGB:
    """``a`` moved ``weight`` (0 to 1) of the way towards ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * weight), round(a[1] + (b[1] - a[1]) * weight), round(a[2] + (b[2] - a[2]) * weight)
    )
