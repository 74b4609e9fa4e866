"""How warm a lit cell gets: an estimate, for the build guide, of the air in one sealed cell over the
room's, from the enclosure's figures (enclosure/params.scad), the LEDs' current as the output stage
reckons it, and heat transfer's textbook figures; and the steady light a cell may show for it.

A cell is a box of black PLA sealed by the top sheet. Its strip lies on the floor, and every watt
the LEDs draw becomes heat in it (the light that leaves is a small part: counted as heat, which
errs warm). The heat leaves two ways at once, each a chain of resistances per unit of the cell's
area: up, through the cell's air (conduction across the 20 mm of it and radiation between the
floor and the sheet), the acrylic, the card, and the room's air above; and down, through the
floor and the air or table under it. The walls to the neighbours are left out, which errs warm
too when they are dark. The room's air takes heat from a flat surface by natural convection and
radiation together at some 5 to 10 W/m2K: the two ends of each estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...engine import CELLS
from ...hal import LedFrame
from ...ui.leds import HIDDEN_CARD, OFF, REVEALED
from ...ui.pixels import LedMap, PixelOutput, PowerLimit
from ..pinout import Pinout

SUPPLY_V = 5.0
ROOM_H = (5.0, 10.0)
"""W/m2K from a flat surface to still room air, natural convection and radiation together: the
warm end of the estimate takes the first, the cool end the second (textbook free-convection figures)."""
AIR_K = 0.026
"""W/mK, air near room temperature."""
CELL_RADIATION_H = 5.0
"""W/m2K between the floor and the sheet across the cell (black PLA and acrylic, emissivity about
0.9 each, near room temperature: 4 e s T^3)."""
CELL_CONVECTION = (1.0, 2.0)
"""The cell's air carries heat from the floor up to the sheet from one to two times what conduction
across it alone would (a Nusselt number of 1 to 2 for a thin layer heated from below)."""
ACRYLIC_K = 0.19
"""W/mK, the top sheet's acrylic (PMMA makers' data sheets give 0.19)."""
CARD_K = 0.05
"""W/mK, a card's paperboard (an estimate: paper is quoted at 0.04-0.09)."""
PLA_K = 0.13
"""W/mK, the frame's PLA (an estimate: PLA is quoted at 0.12-0.15)."""
ROOM_C = 30.0
"""The warmest café the table is built for, degrees C."""
PLA_LIMIT_C = 50.0
"""The warmest a cell's air may get: PLA softens near 55 degrees C (its makers' data sheets give a
heat deflection temperature of about 52-58 degrees C at 0.45 MPa), less a margin."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """A cell's rise over the room, per watt, at the cool and the warm end of the assumptions."""

    cool_k_per_w: float
    warm_k_per_w: float

    def rise(self, watts: float) -> tuple[float, float]:
        return watts * self.cool_k_per_w, watts * self.warm_k_per_w


def estimate(p: dict) -> Estimate:
    """The rise of a cell's air over the room per watt, from params.scad's cell, sheet, card and floor."""
    area = p["pocket_length"] * p["pocket_width"] / 1e6
    ends = []
    for room, convection in zip(ROOM_H, CELL_CONVECTION, strict=True):
        inside = convection * AIR_K / (p["light_depth"] / 1000) + CELL_RADIATION_H
        up = 1 / inside + p["acrylic_thickness"] / 1000 / ACRYLIC_K + p["card_thickness"] / 1000 / CARD_K + 1 / room
        down = p["floor_thickness"] / 1000 / PLA_K + 1 / room
        ends.append(1 / (area / up + area / down))
    cool, warm = sorted(ends)
    return Estimate(cool, warm)


def cap_watts(p: dict) -> float:
    """The most a cell may draw for minutes on end: the warm end of the estimate at PLA_LIMIT_C."""
    return (PLA_LIMIT_C - ROOM_C) / estimate(p).warm_k_per_w


HELD = PowerLimit()
"""The output stage as the table runs it, each cell held to its cap."""
UNCAPPED = PowerLimit(cell_ma=float("inf"))
"""The output stage without its cap on a cell: what the colours alone would draw."""


def cell_ma(colour: tuple[int, int, int], wiring: Pinout, brightness: float, gamma: float,
            limit: PowerLimit = HELD) -> float:
    """What one cell showing ``colour`` draws, through the output stage at ``brightness`` and ``gamma``."""
    output = PixelOutput(LedMap.grid(wiring.leds_per_cell, edge_leds=wiring.edge_leds), brightness, gamma, limit)
    pixels = output.pixels(LedFrame((colour, *[OFF] * (CELLS - 1)), ()))
    return PowerLimit().draw_ma([pixels[led] for led in output.map.cells[0]])


STEADY = {**{f"a revealed card ({letter})": colour for letter, colour in REVEALED.items()},
          "a hidden card's glow": HIDDEN_CARD}
"""The colours a cell shows for minutes on end (a held pad's white lasts until the stuck-pad rule,
seconds; the idle wave stays under the team colours)."""


def brightest(wiring: Pinout, gamma: float, cap_ma: float) -> float:
    """The highest ``leds.brightness`` (in hundredths) at which no steady colour would draw over ``cap_ma``
    a cell without the output stage's cap."""
    fits = [step / 100 for step in range(101)
            if all(cell_ma(colour, wiring, step / 100, gamma, UNCAPPED) <= cap_ma for colour in STEADY.values())]
    return max(fits, default=0.0)


def table(p: dict, wiring: Pinout) -> str:
    """The estimate, the cap and what the table's steady colours draw against it."""
    per_cell_w = wiring.leds_per_cell * 3 * PowerLimit().ma_per_channel / 1000 * SUPPLY_V
    cool, warm = estimate(p).rise(per_cell_w)
    cap = cap_watts(p)
    cap_ma = cap / SUPPLY_V * 1000
    default = PixelOutput()
    steady = {name: cell_ma(colour, wiring, default.brightness, default.gamma) for name, colour in STEADY.items()}
    worst = max(steady, key=steady.__getitem__)
    return "\n".join([
        "| figure | value |", "| --- | --- |",
        f"| a cell lit full white | {per_cell_w:.2f} W: {wiring.leds_per_cell} LEDs at "
        f"{3 * PowerLimit().ma_per_channel:g} mA, 5 V; its air {cool:.0f} to {warm:.0f} K over the room |",
        f"| the whole grid at the current limit | {wiring.current_limit_ma / 1000 * SUPPLY_V:.0f} W shared out: no "
        f"cell can take more than its own {per_cell_w:.2f} W |",
        f"| a cell's rise per watt | {estimate(p).cool_k_per_w:.0f} to {estimate(p).warm_k_per_w:.0f} K/W: up through "
        f"{p['light_depth']:g} mm of air, {p['acrylic_thickness']:g} mm of acrylic and the card, down through the "
        f"{p['floor_thickness']:g} mm floor, both to the room ({ROOM_H[0]:g}-{ROOM_H[1]:g} W/m2K) |",
        f"| the steady cap, a cell | {cap:.2f} W, {cap_ma:.0f} mA: its air at most {PLA_LIMIT_C:g} C in a "
        f"{ROOM_C:g} C room, at the warm end of the estimate |",
        f"| the table's steady colours (brightness {default.brightness:g}, gamma {default.gamma:g}) | at most "
        f"{steady[worst]:.0f} mA a cell ({worst}): " + ("under the cap" if steady[worst] <= cap_ma else "OVER the cap")
        + f"; its air {estimate(p).rise(steady[worst] * SUPPLY_V / 1000)[1]:.0f} K over the room at the warm end |",
        f"| the highest `leds.brightness` whose colours keep under the cap by themselves | "
        f"{brightest(wiring, default.gamma, cap_ma):g} at gamma {default.gamma:g}; {brightest(wiring, 1.0, cap_ma):g} "
        f"at gamma 1 (none) |",
        f"| what the output stage lets a cell draw, whatever the colour, brightness and gamma | "
        f"{PowerLimit().cell_ma:g} mA (`PowerLimit.cell_ma`): " + ("within" if PowerLimit().cell_ma <= cap_ma
                                                                     else "OVER") + " the cap |",
    ])
