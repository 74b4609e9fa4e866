"""The output stage: from an LED frame to the values the strip's LEDs get.

A frame gives one colour per cell and per edge pixel; the strip is one data line of WS2812B
LEDs laid under the grid and round the edge. ``LedMap`` says which LEDs light each cell and
which make up the edge; ``PixelOutput`` applies brightness and gamma from one precomputed
table, dims any cell that would draw more than a cell may (the build guide's steady cap: what
keeps a sealed PLA cell's air under 50 °C), then scales the whole frame down, every LED alike,
whenever the estimated current would exceed the LED supply's budget: a bright frame dims a little
instead of overloading the supply.

The result is one ``0xRRGGBB`` int per LED, the strip libraries' colour convention; the
drivers put the channels in the order the chips want (GRB for WS2812B).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import CELLS, GRID
from ..engine.errors import Refusal
from ..engine.phrase import Phrase
from ..hal import LedFrame


@dataclass(frozen=True, slots=True)
class LedMap:
    """Which LEDs on the strip light each cell (row-major from the operatives' left, row 0, as the key) and
    which, in order, make up the edge strip. LEDs in neither stay dark."""

    cells: tuple[tuple[int, ...], ...]
    edge: tuple[int, ...]
    length: int  # LEDs on the data line, unused ones included

    def __post_init__(self) -> None:
        if len(self.cells) != CELLS:
            raise Refusal("the LED map has {count} cells, the grid has {cells}", count=len(self.cells), cells=CELLS)
        if self.length < 1:
            raise Refusal("the strip has at least one LED, not {length}", length=self.length)
        owner: dict[int, Phrase] = {}
        edge = Phrase.of("the edge")
        places = [(Phrase.of("cell {cell}", cell=cell), leds) for cell, leds in enumerate(self.cells)] + [(edge, self.edge)]
        for place, leds in places:
            if not leds and place != edge:
                raise Refusal("{place} has no LED in the map", place=place)
            for led in leds:
                if not 0 <= led < self.length:
                    raise Refusal("LED {led} of {place} is off the strip: its LEDs are 0 to {last}", led=led, place=place,
                                  last=self.length - 1)
                if led in owner:
                    raise Refusal("LED {led} is used twice: by {first} and by {place}", led=led, first=owner[led],
                                  place=place)
                owner[led] = place

    @classmethod
    def grid(
        cls,
        leds_per_cell: int = 4,
        serpentine: bool = True,
        offset: int = 0,
        edge_leds: int = 24,
        edge_first: int | None = None,
        edge_reversed: bool = False,
        length: int | None = None,
    ) -> LedMap:
        """One strip running along the rows from cell 0 (the operatives' left), ``leds_per_cell`` LEDs in
        a row under each cell, starting at LED ``offset``. ``serpentine``: every other row runs
        back right to left, as a strip laid in one zigzag does. The edge strip's ``edge_leds``
        follow the grid on the same line unless ``edge_first`` puts them elsewhere;
        ``edge_reversed`` when it was laid the other way round."""
        if leds_per_cell < 1 or offset < 0 or edge_leds < 0:
            raise Refusal("leds_per_cell is 1 or more, offset and edge_leds 0 or more, not {per_cell}, {offset} and "
                          "{edge}", per_cell=leds_per_cell, offset=offset, edge=edge_leds)
        cells = []
        for cell in range(CELLS):
            row, col = divmod(cell, GRID)
            if serpentine and row % 2:
                col = GRID - 1 - col
            first = offset + (row * GRID + col) * leds_per_cell
            cells.append(tuple(range(first, first + leds_per_cell)))
        start = offset + CELLS * leds_per_cell if edge_first is None else edge_first
        edge = tuple(range(start, start + edge_leds))
        if edge_reversed:
            edge = edge[::-1]
        end = max(offset + CELLS * leds_per_cell, start + edge_leds)
        return cls(tuple(cells), edge, end if length is None else length)


@dataclass(frozen=True, slots=True)
class PowerLimit:
    """The current the LEDs may draw. A WS2812B draws about 20 mA per colour channel at
    full and about 1 mA doing nothing; ``budget_ma`` is what the LEDs' supply may give, and
    ``cell_ma`` what the LEDs under one cell may draw: the build guide's steady cap
    (``hardware/tools/heat.py``), held for every colour and every brightness and gamma an owner
    sets, so no cell can warm its walls towards PLA's softening, however long it stays lit."""

    budget_ma: float = 3000.0
    ma_per_channel: float = 20.0
    idle_ma_per_led: float = 1.0
    cell_ma: float = 120.0

    def __post_init__(self) -> None:
        if self.budget_ma <= 0 or self.ma_per_channel <= 0 or self.idle_ma_per_led < 0 or self.cell_ma <= 0:
            raise Refusal("budget_ma, ma_per_channel and cell_ma are more than 0 and idle_ma_per_led 0 or more, not "
                          "{budget}, {per_channel}, {cell} and {idle}", budget=self.budget_ma,
                          per_channel=self.ma_per_channel, cell=self.cell_ma, idle=self.idle_ma_per_led)

    def cell_channels(self, leds: int) -> float:
        """The most one LED of a cell lit by ``leds`` LEDs may sum over its three channels (0-255 each)."""
        return max(0.0, self.cell_ma - leds * self.idle_ma_per_led) * 255 / self.ma_per_channel / leds

    def draw_ma(self, pixels: Sequence[int]) -> float:
        """The estimated current of a strip showing these ``0xRRGGBB`` values."""
        channels = sum((value >> 16 & 255) + (value >> 8 & 255) + (value & 255) for value in pixels)
        return len(pixels) * self.idle_ma_per_led + channels * self.ma_per_channel / 255


GAMMA = (1, 3)
"""The gamma correction a strip takes, from none to the strongest: the schema's range too."""


class PixelOutput:
    """Turns frames into the strip's values: map, brightness, gamma, current limit."""

    def __init__(
        self,
        led_map: LedMap | None = None,
        brightness: float = 0.5,
        gamma: float = 2.2,
        power: PowerLimit | None = None,
    ) -> None:
        if not GAMMA[0] <= gamma <= GAMMA[1]:
            raise Refusal("gamma is {least} (no correction) to {most}, not {gamma}", least=GAMMA[0], most=GAMMA[1],
                          gamma=gamma)
        self.gamma = gamma
        self.brightness = brightness
        self.map = led_map or LedMap.grid()
        self.power = power or PowerLimit()
        at_rest = self.map.length * self.power.idle_ma_per_led
        if self.power.budget_ma <= at_rest:
            raise Refusal("the power budget of {budget:g} mA does not cover the {leds} LEDs' own {at_rest:g} mA at rest",
                          budget=self.power.budget_ma, leds=self.map.length, at_rest=at_rest)
        # the channel sum (in 0-255 units over the whole strip) that the budget allows
        self._channel_budget = (self.power.budget_ma - at_rest) * 255 / self.power.ma_per_channel
        self._cell_channels = {len(leds): self.power.cell_channels(len(leds)) for leds in self.map.cells if leds}
        self._targets: dict[int, list[tuple[int, ...]]] = {}

    @property
    def brightness(self) -> float:
        return self._brightness

    @brightness.setter
    def brightness(self, brightness: float) -> None:
        """Set while the table runs (the staff page, the fleet): the next frame shows it."""
        if not 0 <= brightness <= 1:
            raise Refusal("brightness is 0 to 1, not {brightness}", brightness=brightness)
        self._brightness = brightness
        self._table = [round(255 * brightness * (value / 255) ** self.gamma) for value in range(256)]

    @property
    def length(self) -> int:
        return self.map.length

    def pixels(self, frame: LedFrame) -> list[int]:
        """One ``0xRRGGBB`` per LED on the strip, within the power budget."""
        if len(frame.cells) != CELLS:
            # a programming error: every frame is drawn of CELLS
            raise ValueError(f"a frame has {CELLS} cells, this one {len(frame.cells)}")
        targets = self._targets.get(len(frame.edge)) or self._spread(len(frame.edge))
        table = self._table
        duties = []
        total = 0
        for cell, ((r, g, b), leds) in enumerate(zip(frame.cells + frame.edge, targets)):
            duty = (table[r], table[g], table[b])
            channels = duty[0] + duty[1] + duty[2]
            if cell < CELLS and leds and channels > (most := self._cell_channels[len(leds)]):
                dim = most / channels * (1 - 1e-9)
                duty = (int(duty[0] * dim), int(duty[1] * dim), int(duty[2] * dim))
                channels = duty[0] + duty[1] + duty[2]
            duties.append(duty)
            total += channels * len(leds)
        out = [0] * self.map.length
        # a hair under the exact ratio, so that rounding down keeps the frame within the budget
        scale = self._channel_budget / total * (1 - 1e-9) if total > self._channel_budget else None
        for (r, g, b), leds in zip(duties, targets):
            if scale is not None:
                r, g, b = int(r * scale), int(g * scale), int(b * scale)
            value = r << 16 | g << 8 | b
            for led in leds:
                out[led] = value
        return out

    def _spread(self, pixels: int) -> list[tuple[int, ...]]:
        """The LEDs behind each cell, then each of the frame's ``pixels`` edge pixels: the
        edge LEDs are shared out evenly, so the frame's edge need not match the strip's."""
        edge = self.map.edge
        shares: list[list[int]] = [[] for _ in range(pixels)]
        if pixels:
            for position, led in enumerate(edge):
                shares[position * pixels // len(edge)].append(led)
        targets = list(self.map.cells) + [tuple(share) for share in shares]
        self._targets[pixels] = targets
        return targets
