"""Which way up every picture of the grid is drawn: the spymaster screen, the simulator's window,
the phones' key and spectator pages, the staff page's board.

The table fixes the numbering (hardware/pinout.toml, enclosure/params.scad): cell 0 is at the
operatives' left in row 0, the row nearest them, and the cells run row-major from there, as the
key string does. A picture shows the grid as someone at one edge of the table sees it, that edge
at the bottom. The spymasters sit opposite the operatives and the screen faces them, so every
picture is drawn from the spymasters' side (``SPYMASTERS_SIDE``): the operatives' edge at the
top, cell 0 at the top right, cell 24 at the bottom left. A screen whose spymasters sit at
another side is turned further (``ScreenSettings.rotation``, clockwise from the operatives' own
view), and the window beside it with it. Every picture marks the operatives' edge and numbers
its cells, so whoever reads it from elsewhere can turn it in their head.
"""

from __future__ import annotations

from functools import cache
from typing import TypeAlias

from ..engine import CELLS, GRID
from ..engine.phrase import N_

SPYMASTERS_SIDE = 180
"""The rotation of a picture drawn from the spymasters' side: the operatives' own view turned half round."""
EDGES = {0: "bottom", 90: "left", 180: "top", 270: "right"}
"""Where the operatives' edge is in a picture at each rotation."""
OPERATIVES_SIDE = N_("operatives' side")
"""The words on the operatives' edge of every picture."""


def slot_of(cell: int, rotation: int = SPYMASTERS_SIDE) -> tuple[int, int]:
    """Where ``cell`` is drawn: (row, column) from the picture's top left. At 0, the operatives'
    view: row 0 at the bottom, cell 0 at its left; each further quarter turns it clockwise."""
    r, c = divmod(cell, GRID)
    last = GRID - 1
    return {0: (last - r, c), 90: (c, r), 180: (r, last - c), 270: (last - c, last - r)}[rotation]


def cell_at(row: int, col: int, rotation: int = SPYMASTERS_SIDE) -> int:
    """The cell drawn at (row, column): the inverse of ``slot_of``."""
    return next(cell for cell in range(CELLS) if slot_of(cell, rotation) == (row, col))


@cache
def reading_order(rotation: int = SPYMASTERS_SIDE) -> tuple[int, ...]:
    """The cells as the picture lays them out, row by row from its top left; worked out once a
    rotation, as every view the table publishes to the phones carries it."""
    return tuple(cell_at(row, col, rotation) for row in range(GRID) for col in range(GRID))


def operatives_edge(rotation: int = SPYMASTERS_SIDE) -> str:
    """The picture's edge the operatives sit at: top, right, bottom or left."""
    return EDGES[rotation]


Area: TypeAlias = tuple[float, float, float, float]
"""A rectangle of a picture: left, top, width, height, in the picture's units."""


def grid_and_bar(x: float, y: float, side: float, edge: str, bar: float) -> tuple[Area, Area]:
    """A square ``side`` wide at (x, y) shared by the grid and the bar ``bar`` thick that marks
    its operatives' ``edge``, a third of the bar apart, both centred along the bar: (the grid's
    square, the bar), each as (x, y, width, height), in the units given."""
    gap = bar / 3
    inner = side - bar - gap
    mid = (bar + gap) / 2
    grid = {"top": (x + mid, y + bar + gap), "bottom": (x + mid, y), "left": (x + bar + gap, y + mid),
            "right": (x, y + mid)}[edge]
    strip = {"top": (x + mid, y, inner, bar), "bottom": (x + mid, y + inner + gap, inner, bar),
             "left": (x, y + mid, bar, inner), "right": (x + inner + gap, y + mid, bar, inner)}[edge]
    return (*grid, inner, inner), strip


def page_layout() -> dict[str, object]:
    """What a page needs to draw the grid by the rule: the cells in reading order (a 5-column
    grid fills in that order) and the edge to mark. The pages are read anywhere, from a phone
    or a TV: they show the table from the spymasters' side, as the screen does by default."""
    return {"order": list(reading_order()), "operatives": operatives_edge()}
