"""The printed enclosure in enclosure/: its dimensions read from ``params.scad``, the rules they
must keep (cards fit their pockets, pads follow the sensing rule, tiles fit the print bed, the
hood hides the screen, the boards fit the box), and the render of every part to STL and PNG.

``python -m pi_table.hardware.tools.enclosure check`` prints the rules broken (exit 1 if any);
``python -m pi_table.hardware.tools.enclosure build OUTDIR`` renders every part with OpenSCAD,
failing on any warning. Both work from a checkout, where enclosure/ sits beside hardware/.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import itertools
import math
import operator
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import HARDWARE

ENCLOSURE = HARDWARE.parent / "enclosure"
PARAMS = ENCLOSURE / "params.scad"

# ---- reading params.scad


class ParamsError(ValueError):
    """A line of params.scad that is not ``name = value;`` with a value this reader can work out."""


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.Mod: math.fmod}
_FUNCTIONS = {  # OpenSCAD's built-ins that params.scad may use; its trigonometry is in degrees
    "min": min, "max": max, "abs": abs, "sqrt": math.sqrt, "floor": math.floor, "ceil": math.ceil,
    "round": lambda x: math.copysign(math.floor(abs(x) + 0.5), x), "len": len,  # half away from zero
    "sin": lambda a: math.sin(math.radians(a)), "cos": lambda a: math.cos(math.radians(a)),
    "tan": lambda a: math.tan(math.radians(a)), "atan": lambda x: math.degrees(math.atan(x)),
}


def _value(node: ast.AST, names: dict[str, object], where: str):
    """Work out one expression with OpenSCAD's meaning of the few forms params.scad uses."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in ("true", "false"):
            return node.id == "true"
        if node.id not in names:
            raise ParamsError(f"{where}: {node.id} is not defined above it")
        return names[node.id]
    if isinstance(node, ast.List):
        return [_value(item, names, where) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _value(node.operand, names, where)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_value(node.left, names, where), _value(node.right, names, where))
    if isinstance(node, ast.Subscript):
        return _value(node.value, names, where)[int(_value(node.slice, names, where))]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
            and not node.keywords):
        name, args = node.func.id, [_value(arg, names, where) for arg in node.args]
        if name in ("min", "max"):  # OpenSCAD's min([a, b]) as well as min(a, b)
            return _FUNCTIONS[name](args[0] if len(args) == 1 else args)
        return _FUNCTIONS[name](*args)
    raise ParamsError(f"{where}: {ast.unparse(node)!r} is not a form params.scad may use")


_LINE = re.compile(r"^([A-Za-z_]\w*)\s*=\s*(.+?)\s*;\s*(?://.*)?$")


def read(text: str | None = None, overrides: dict[str, object] | None = None) -> dict[str, object]:
    """The parameters in ``text`` (by default enclosure/params.scad), each worked out in order.

    ``overrides`` replaces a name's value where it is defined, so the names worked out from it
    follow, as OpenSCAD's ``-D name=value`` does.
    """
    if text is None:
        text = PARAMS.read_text(encoding="utf-8")
    overrides = dict(overrides or {})
    names: dict[str, object] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        match = _LINE.match(line)
        if not match:
            raise ParamsError(f"params.scad line {number}: not `name = value;`: {line}")
        name, expression = match.groups()
        if name in names:
            raise ParamsError(f"params.scad line {number}: {name} is set twice")
        if name in overrides:
            names[name] = overrides.pop(name)
            continue
        try:
            tree = ast.parse(expression, mode="eval")
        except SyntaxError as error:
            raise ParamsError(f"params.scad line {number}: {expression!r} does not parse: {error.msg}") from None
        names[name] = _value(tree.body, names, f"params.scad line {number} ({name})")
    if overrides:
        raise ParamsError(f"no such parameters to override: {', '.join(overrides)}")
    return names


# ---- the tiles, as common.scad lays them out


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile's outline in the grid's coordinates (mm), and how far its dovetails reach past it."""

    index: int
    x: tuple[float, float]
    y: tuple[float, float]
    tabs_x: float = 0.0  # past its right edge
    tabs_y: float = 0.0  # past its back edge

    @property
    def size(self) -> tuple[float, float]:
        """The footprint on the bed, dovetails included."""
        return self.x[1] - self.x[0] + self.tabs_x, self.y[1] - self.y[0] + self.tabs_y


def tiles(p: dict, part: str = "frame") -> list[Tile]:
    """The frame's (``part="frame"``), the carrier plate's or the card grille's tiles, as common.scad cuts them."""
    columns, rows = p["tile_columns"], p["tile_rows"]
    found = []
    for index in range(len(columns) * len(rows)):
        column, row = index % len(columns), index // len(columns)
        cells_x = (sum(columns[:column]), sum(columns[:column + 1]))
        cells_y = (sum(rows[:row]), sum(rows[:row + 1]))
        if part == "frame":
            outer_x = (-p["rim"], p["grid_x"] + p["rim"])
            outer_y = (-p["rim"] - p["end_band"], p["grid_y"] + p["rim"])
        elif part == "grille":  # inside the rim over the top sheet
            reach = p["sheet_ledge"] - p["print_tolerance"]
            outer_x = (-reach, p["grid_x"] + reach)
            outer_y = (-p["end_band"] - reach, p["grid_y"] + reach)
        else:
            clear = p["carrier_clearance"]
            outer_x, outer_y = (clear, p["grid_x"] - clear), (clear, p["grid_y"] - clear)

        def span(cells, count, pitch, outer):
            low = outer[0] if cells[0] == 0 else cells[0] * pitch - p["wall"] / 2 + p["seam_gap"] / 2
            high = outer[1] if cells[1] == count else cells[1] * pitch - p["wall"] / 2 - p["seam_gap"] / 2
            return low, high

        tabs = p["dovetail_length"] + p["seam_gap"] / 2 if part == "frame" else 0.0
        found.append(Tile(index, span(cells_x, p["grid_columns"], p["pitch_x"], outer_x),
                          span(cells_y, p["grid_rows"], p["pitch_y"], outer_y),
                          tabs if cells_x[1] < p["grid_columns"] else 0.0,
                          tabs if cells_y[1] < p["grid_rows"] else 0.0))
    return found


def fits_bed(p: dict, footprint: tuple[float, float]) -> bool:
    """A footprint fits the bed either way round."""
    return all(a <= b for a, b in zip(sorted(footprint), sorted((p["bed_x"], p["bed_y"])), strict=True))


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Two rectangles (x0, y0, x1, y1) share some area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(a: tuple[float, float, float, float], x0: float, y0: float, x1: float, y1: float) -> bool:
    return x0 <= a[0] and y0 <= a[1] and a[2] <= x1 and a[3] <= y1


def _f(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


# ---- the light, the pad wires and the sightlines, worked out from the parameters


def border_ray(p: dict, led: float, depth_below_plate: float) -> float:
    """Where the straight line from an LED ``led`` mm in from a cell's wall to the innermost point
    of the lit border that a slid card can uncover (``lit_border + card_clearance`` from the
    wall, on the top sheet's underside) passes ``depth_below_plate`` mm under the carrier plate's
    underside: mm in from the wall. What lies under the plate there must start further in."""
    target = p["lit_border"] + p["card_clearance"]
    rise = p["light_depth"] + p["plate_thickness"] - p["led_height"]  # LED to the sheet's underside
    climbed = p["light_depth"] - depth_below_plate - p["led_height"]
    return led - (led - target) * climbed / rise


def _cell_hole(p: dict, cell: int) -> tuple[float, float, float]:
    """A cell's pad-wire hole (x, y) and the line, along a wall's top, its wire first reaches (y)."""
    column, row = cell % p["grid_columns"], cell // p["grid_columns"]
    hole_y = row * p["pitch_y"] + (p["pocket_width"] + p["pad_width"] + p["platform_margin"]) / 2
    return column * p["pitch_x"] + p["pocket_length"] / 2, hole_y, (row + 1) * p["pitch_y"] - p["wall"] / 2


def _end_pad_hole(p: dict, number: int) -> tuple[float, float, float]:
    """An END TURN pad's wire hole, at its edge towards the grid; its wire reaches the band's inner wall."""
    return (p["end_pad_x"][number], -(p["end_band"] - p["end_pad_width"]) / 2 - p["wire_hole"],
            -p["wall"] / 2)


def pad_wires(p: dict) -> dict[str, float]:
    """Every pad's wire to its breakout, mm: from the pad's hole to the wall's top, along the walls
    (a wire changes direction only where walls cross, half a pitch from a cell's middle) to the
    host cell's wall, in to the breakout under the host's platform, plus ``wire_slack``."""
    holes = {f"cell {cell}": (_cell_hole(p, cell), p["cell_breakout"][cell])
             for cell in range(p["grid_columns"] * p["grid_rows"])}
    for number in range(len(p["end_pad_x"])):
        holes[f"END TURN pad {number}"] = (_end_pad_hole(p, number), p["end_turn_breakout"])
    lengths = {}
    for name, ((x, y, line), breakout) in holes.items():
        host = p["breakout_host"][breakout]
        hx, hy, hline = _cell_hole(p, host)
        if name == f"cell {host}":
            lengths[name] = p["wire_slack"]
            continue
        across = abs(x - hx) + abs(line - hline) + (p["pitch_x"] if abs(x - hx) < 1e-6 and line != hline else 0)
        lengths[name] = abs(line - y) + across + abs(hline - hy) + p["wire_slack"]
    return lengths


@dataclass(frozen=True, slots=True)
class Sightlines:
    """What the players see past the screen station, worked out from the seated eye heights."""

    card_seen_from: float  # the nearest point (y, mm) of the table a spymaster sees past the hood
    spymaster_elevation: float  # the steepest a spymaster looks down at the screen, degrees
    operative_elevation: float  # the steepest an operative looks at the station, degrees
    eye_over_hood: float  # the lowest spymaster's eye over the hood's top, mm


def sightlines(p: dict) -> Sightlines:
    """The table seen from the side, in y (from the operatives' side) and z (over the table's top)."""
    low_eye, high_eye = (eye - p["table_height"] for eye in p["seated_eye"])
    near, far = p["eye_from_edge"]
    box_front = p["grid_y"] + p["rim"] + p["station_gap"] + p["box_y"]
    edge = box_front + p["station_from_edge"]
    lid_top = p["box_z"] + p["lid_thickness"]
    hood_top = lid_top + p["hood_y"]
    hood_back = box_front - p["hood_back_y"]  # the hood's back plate, towards the grid
    card = p["plate_top"] + p["acrylic_thickness"] + p["card_thickness"]
    # The lowest, farthest spymaster's line over the hood's back top edge lands this far short of it
    shadow = (hood_top - card) * (edge + far - hood_back) / max(low_eye - hood_top, 1e-9)
    glass = box_front - (p["hood_back_y"] - p["glass"])
    screen_bottom = lid_top + p["hood_wall"] + p["display_clearance"] + (p["display_width"] - p["viewing_width"]) / 2
    screen_top = screen_bottom + p["viewing_width"]
    spymaster = math.degrees(math.atan2(high_eye - screen_top, edge + near - glass))
    operatives = -p["end_band"] - p["rim"] - p["operatives_from_edge"] - near
    operative = math.degrees(math.atan2(high_eye - screen_bottom, glass - operatives))
    return Sightlines(hood_back - shadow, spymaster, operative, low_eye - hood_top)


def _cell_middle(p: dict, cell: int) -> tuple[float, float]:
    column, row = cell % p["grid_columns"], cell // p["grid_columns"]
    return column * p["pitch_x"] + p["pocket_length"] / 2, row * p["pitch_y"] + p["pocket_width"] / 2


def exit_x(p: dict, wall: int) -> float:
    """Where a cable leaves the frame's back rim, at the end of wall ``wall`` (x, grid coordinates)."""
    return wall * p["pitch_x"] - p["wall"] / 2


def box_x_on_grid(p: dict, x: float) -> float:
    """A point ``x`` mm along the box's inside (box coordinates) in the grid's x: the station stands
    centred behind the grid, turned to face the spymasters (assembly.scad), so its x runs backwards."""
    return p["grid_x"] / 2 + p["box_x"] / 2 - p["box_wall"] - x


def glands(p: dict) -> list[str]:
    """Every cable gland the enclosure draws: one in the frame's back rim for each cable leaving it,
    one in the box's back wall for each cable coming in."""
    return ([f"the frame's back rim, behind wall {p[name]}" for name in ("led_exit_wall", "touch_exit_wall")]
            + [f"the box's back wall, {_f(x)} mm along it" for x in p["box_gland_x"]])


@dataclass(frozen=True, slots=True)
class I2CRoute:
    """The touch board's I2C bus, from the Pico in the box to the breakouts on the frame."""

    chain: tuple[int, ...]  # the breakouts in the order the bus reaches them, from the frame's gland
    cable: float  # the cable, mm: first breakout, along the walls to the gland, across to the box, to the Pico
    hops: tuple[float, ...]  # the bus from each breakout to the next along the walls, mm, in the chain's order

    @property
    def on_frame(self) -> float:
        """The bus from breakout to breakout along the walls, mm."""
        return sum(self.hops)


def i2c_route(p: dict) -> I2CRoute:
    """The I2C cable and bus measured as the pad wires are, along the walls (right angles only):
    the cable from the breakout nearest the touch gland out through the back rim, across
    ``station_gap`` to the box's gland (and sideways and up to it), down to the Pico's USB end,
    where its SDA and SCL pins are (pins 6 and 7), plus ``wire_slack``; then breakout to the
    nearest breakout not yet reached."""
    gland = exit_x(p, p["touch_exit_wall"])
    hosts = {number: _cell_middle(p, host) for number, host in enumerate(p["breakout_host"])}
    to_gland = {n: abs(x - gland) + p["grid_y"] - y + p["rim"] for n, (x, y) in hosts.items()}
    chain = [min(to_gland, key=to_gland.__getitem__)]
    hops: list[float] = []
    while len(chain) < len(hosts):
        last = hosts[chain[-1]]
        steps = {n: abs(x - last[0]) + abs(y - last[1]) for n, (x, y) in hosts.items() if n not in chain}
        chain.append(min(steps, key=steps.__getitem__))
        hops.append(steps[chain[-1]])
    across = (p["station_gap"] + abs(gland - box_x_on_grid(p, p["box_touch_gland_x"]))
              + abs(p["box_gland_z"] - p["gland_z"]))
    pico_end = p["stripboard_y"] + p["pico_y"]
    pico_middle = p["stripboard_x"] + p["pico_x"] + p["pico_width"] / 2
    in_box = (p["box_inner_y"] - pico_end + abs(p["box_touch_gland_x"] - pico_middle)
              + p["box_gland_z"] - p["box_floor"] - p["stripboard_standoff"])
    return I2CRoute(tuple(chain), to_gland[chain[0]] + across + in_box + p["wire_slack"], tuple(hops))


@dataclass(frozen=True, slots=True)
class LedRoute:
    """The LED cable and the power pairs from the bus, measured along the walls like the pad wires."""

    cable: float  # the LED cable, mm: its data core from R2 at row 0's DIN to the gland, across, to the jack
    pairs: dict[str, float]  # each red/black pair, bus to the start of its row or of the edge, mm
    along_bus_row: tuple[int, int]  # (0.75 mm2 wires, 26 AWG wires) through the bus row's busiest notch
    down_bus_column: tuple[int, int]  # the same through the bus column's busiest notch


def _row_start(p: dict, row: int) -> int:
    """The column a row's strip starts at: serpentine from cell 0, even rows at the operatives' left."""
    return 0 if row % 2 == 0 else p["grid_columns"] - 1


def led_route(p: dict) -> LedRoute:
    """The LED cable from row 0's DIN (LED 0, under cell 0) along the floor of the bus's column to the
    back rim's gland, across ``station_gap`` to the box's gland (sideways and up), in the box to the
    DC jack in the left wall (the farthest its cores go), plus ``wire_slack``; and each power pair from
    the bus in ``bus_cell`` to its row's first LED (along the bus's row, beside the strips, then
    down the row's end column) or, for the edge, to ``edge_hole`` in the front rim at the last
    row's end column."""
    columns, rows = p["grid_columns"], p["grid_rows"]
    bus_x, bus_y = _cell_middle(p, p["bus_cell"])
    bus_column, bus_row = p["bus_cell"] % columns, p["bus_cell"] // columns
    din_x, din_y = (p["pocket_length"] - p["led_segment"]) / 2, p["pocket_width"] / 2
    gland = exit_x(p, p["led_exit_wall"])
    frame = abs(gland - din_x) + p["grid_y"] + p["rim"] - din_y
    across = (p["station_gap"] + abs(gland - box_x_on_grid(p, p["box_led_gland_x"]))
              + abs(p["box_gland_z"] - p["gland_z"]))
    in_box = p["box_led_gland_x"] + p["box_inner_y"] - p["jack_y"] + abs(p["box_gland_z"] - p["jack_z"])
    starts = {f"row {row}": (_row_start(p, row), row) for row in range(rows)}
    starts["the edge"] = (columns - 1 - _row_start(p, rows - 1), -1)  # where the last row ends
    pairs = {}
    for name, (column, row) in starts.items():
        x = column * p["pitch_x"] + (p["solder_room"] if column == 0 else p["pocket_length"] - p["solder_room"])
        y = -p["end_band"] - p["rim"] if row < 0 else row * p["pitch_y"] + p["pocket_width"] / 2
        # along a row, each cell it passes is a detour from the notch (on the strip's line) to beside the strip
        detour = abs(column - bus_column) * 2 * (p["strip_width"] / 2 + p["pair_wire_od"])
        pairs[name] = abs(x - bus_x) + abs(y - bus_y) + detour + p["wire_slack"]
    sideways = [name for name, (column, _) in starts.items() if column != bus_column]
    down = [name for name, (column, row) in starts.items() if column == bus_column and row != bus_row]
    # along the bus's row: the far pairs and the row's own three joins; down its column: the near
    # pairs, the LED cable's data core (0.75 mm2) and the data wire from the row before
    return LedRoute(frame + across + in_box + p["wire_slack"], pairs, (2 * len(sideways), 3),
                    (2 * len(down) + 1, 1))


def notch_fits(p: dict, thick: int, thin: int) -> bool:
    """Whether ``thick`` 0.75 mm2 wires, laid in layers across an LED notch, and ``thin`` 26 AWG
    wires in one layer over them pass the notch at the foot of a wall."""
    across = int(p["led_notch_width"] // p["pair_wire_od"])
    layers = -(-thick // across) if across else math.inf
    return (thin <= p["led_notch_width"] // p["thin_wire_od"]
            and layers * p["pair_wire_od"] + (p["thin_wire_od"] if thin else 0) <= p["led_notch_height"])


# ---- the rules


GLAND_THREAD_SPARE = 1.5
"""Thread a gland needs past its locknut: one turn of M12 x 1.5, so the nut is on whole."""
GLAND_WALLS = {"the frame's rim": "rim", "the box's wall": "box_wall"}
"""What each gland's thread goes through, by its params.scad name: the frame's back rim, the box's back wall."""
GLAND_CABLES = {"the LED cable": "led_cable_od", "the I2C cable": "i2c_cable_od"}
"""The cables the glands clamp, by the params.scad name of their diameter across the sheath."""


def problems(p: dict, cells: int = 25) -> list[str]:
    """Every rule of the enclosure the parameters ``p`` break, in words; empty when all fit."""
    found: list[str] = []

    def need(ok: bool, words: str) -> None:
        if not ok:
            found.append(words)

    tolerance, cover = p["print_tolerance"], p["cover_thickness"]
    # the cards on their lit cells: a border of light on every side, the corner stops holding the card
    need(p["card_clearance"] >= tolerance,
         f"the card's {_f(p['card_clearance'])} mm to its corner stops is under the {_f(tolerance)} mm a printed fit needs")
    least = p["lit_border"] - p["card_clearance"]
    need(least >= p["min_lit_border"],
         f"the lit border is {_f(least)} mm on the side a card has slid to ({_f(p['lit_border'])} mm less "
         f"{_f(p['card_clearance'])} mm of slide); the least is {_f(p['min_lit_border'])} mm")
    for side in ("length", "width"):
        edge = p[f"card_{side}"]
        lit = (edge - 2 * p["card_stop_arm"]) / edge
        need(p["card_stop_arm"] > 0 and lit >= p["min_lit_edge"],
             f"the corner stops leave {lit:.0%} of the card's {_f(edge)} mm edge with light beside it, "
             f"under {p['min_lit_edge']:.0%}")
    need(p["pocket_depth"] > p["card_thickness"],
         f"the corner stops, {_f(p['pocket_depth'])} mm, do not stand above a {_f(p['card_thickness'])} mm card")
    # the light reaches the border past the pad's platform and the breakouts, from the nearest LED
    first_led = (p["pocket_length"] - p["led_segment"]) / 2 + p["led_pitch"] / 2
    breakout_side = (p["pocket_width"] - p["mpr121_width"]) / 2
    breakout_end = (p["pocket_length"] - p["mpr121_length"]) / 2
    for what, led, start, depth in (
            ("the pad's platform beside the pad", p["pocket_width"] / 2, p["platform_side"], 0),
            ("the pad's platform at the pad's end", first_led, p["platform_end"], 0),
            ("a breakout, beside its host's pad,", p["pocket_width"] / 2, breakout_side, p["breakout_drop"]),
            ("a breakout, at its host's pad's end,", first_led, breakout_end, p["breakout_drop"])):
        reach = border_ray(p, led, depth)
        need(reach <= start,
             f"{what} shades the lit border: the light from the nearest LED to the border's inner edge passes "
             f"{_f(reach)} mm from the wall, where it stands from {_f(start)} mm")
    need(p["guard_width"] <= p["wall"],
         f"the guard foil, {_f(p['guard_width'])} mm, is wider than the {_f(p['wall'])} mm wall it lies over: "
         f"it would shade the lit border")
    # the top sheet: one piece from the sheet bought, sealed to the rim
    need(max(p["sheet_x"], p["sheet_y"]) <= p["acrylic_sheet"],
         f"the top sheet, {_f(p['sheet_x'])} x {_f(p['sheet_y'])} mm, is larger than the {_f(p['acrylic_sheet'])} mm "
         f"sheet bought: it must be one piece, or a spill finds the joint")
    need(p["sheet_ledge"] > p["sheet_gap"] >= 1,
         f"the sheet's edge does not lie on the rim's ledge with a gap of at least 1 mm for the silicone "
         f"(ledge {_f(p['sheet_ledge'])} mm, gap {_f(p['sheet_gap'])} mm)")
    need(p["spill_lip"] > p["pocket_depth"] and p["rim"] - p["sheet_ledge"] >= 3 * p["nozzle"],
         f"the rim does not stand above the card grille round the sheet ({_f(p['spill_lip'])} mm over the sheet, "
         f"{_f(p['rim'] - p['sheet_ledge'])} mm thick)")
    need(p["grid_columns"] * p["grid_rows"] == cells,
         f"the grid is {p['grid_columns']} x {p['grid_rows']} cells, the game has {cells}")
    # the pads (hardware/README.md: a side of at least 8 mm plus twice the cover, a gap of twice the cover)
    least_side = p["pad_rule_side"] + 2 * cover
    for what, length, width in (("a pad", p["pad_length"], p["pad_width"]),
                                ("an END TURN pad", p["end_pad_length"], p["end_pad_width"])):
        need(min(length, width) >= least_side,
             f"{what} of {_f(length)} x {_f(width)} mm is under the {_f(least_side)} mm side "
             f"the rule asks through a {_f(cover)} mm cover")
    need(p["pad_gap"] >= 2 * cover,
         f"the pad comes within {_f(p['pad_gap'])} mm of its cell's edge; the rule asks {_f(2 * cover)} mm")
    ring = p["end_pad_width"] / 2 + p["end_guard_gap"] + p["guard_width"]
    need(ring <= p["end_band"] / 2 and (p["end_band"] - p["end_pad_width"]) / 2 >= 2 * cover,
         f"an END TURN pad ({_f(p['end_pad_width'])} mm) with its guard ring does not fit the "
         f"{_f(p['end_band'])} mm band, {_f(2 * cover)} mm from row 0")
    xs = sorted(p["end_pad_x"])
    half = p["end_pad_length"] / 2 + p["end_guard_gap"] + p["guard_width"]
    need(len(xs) == 2 and xs[0] - half >= 0 and xs[1] + half <= p["grid_x"] and xs[1] - xs[0] >= 2 * half,
         "the END TURN pads' rings overlap or leave the band")
    # the breakouts on the frame, and the pad wires to them
    need(len(p["breakout_host"]) == p["mpr121_count"],
         f"the frame mounts {len(p['breakout_host'])} MPR121 breakouts, the touch board has {p['mpr121_count']}")
    need(len(p["cell_breakout"]) == cells, f"cell_breakout names a breakout for {len(p['cell_breakout'])} cells, not {cells}")
    for number, host in enumerate(p["breakout_host"]):
        pads = list(p["cell_breakout"]).count(number) + (len(p["end_pad_x"]) if p["end_turn_breakout"] == number else 0)
        need(pads <= 12, f"breakout {number} is given {pads} pads; an MPR121 reads 12")
        need(0 <= host < cells and p["cell_breakout"][host] == number,
             f"breakout {number} hangs under cell {host}, which is not one of its pads")
    need(p["mpr121_length"] <= p["pad_length"] + 2 * p["platform_margin"]
         and p["mpr121_width"] <= p["pad_width"] + 2 * p["platform_margin"],
         "a breakout is larger than the pad's platform it hangs under")
    need(p["breakout_standoff"] + p["stripboard_thickness"] <= p["breakout_drop"]
         and p["breakout_drop"] + p["led_height"] < p["light_depth"],
         "a breakout does not fit between its posts and the LEDs under it")
    hosts_valid = (len(p["cell_breakout"]) == cells and all(0 <= host < cells for host in p["breakout_host"])
                   and all(0 <= b < len(p["breakout_host"]) for b in [*p["cell_breakout"], p["end_turn_breakout"]]))
    need(hosts_valid, f"cell_breakout, end_turn_breakout or breakout_host name a cell or a breakout the grid "
                      f"does not have ({cells} cells, {len(p['breakout_host'])} breakouts)")
    if hosts_valid:  # else the wires have no breakout to run to
        wires = pad_wires(p)
        longest = max(wires, key=wires.__getitem__)
        need(wires[longest] <= p["pad_wire_limit"],
             f"the longest pad wire, {longest}'s, is {_f(wires[longest])} mm to its breakout; the limit is "
             f"{_f(p['pad_wire_limit'])} mm")
    # the LEDs
    segment = p["led_segment"] + 2 * p["solder_room"]
    need(segment <= p["pocket_length"],
         f"{p['leds_per_cell']} LEDs at {_f(p['led_pitch'])} mm take {_f(p['led_segment'])} mm of strip and "
         f"{_f(segment)} mm with the solder room; the cell's floor is {_f(p['pocket_length'])} mm long")
    need(p["strip_width"] + 2 * tolerance <= p["pocket_width"],
         f"the {_f(p['strip_width'])} mm strip does not fit across the {_f(p['pocket_width'])} mm cell")
    need(p["led_notch_height"] < p["light_depth"] - p["wire_notch_height"] - p["breakout_drop"],
         "the wall's LED notch and the pad wires' notch overlap in height, or the pad wires hang down to the LED wires")
    edge = p["edge_leds"] * p["led_pitch"]  # on the front rim's outer face alone, not round the frame
    need(edge <= p["frame_x"],
         f"the edge strip's {p['edge_leds']} LEDs take {_f(edge)} mm; the front rim's outer face it lies on is "
         f"{_f(p['frame_x'])} mm: set edge_leds to {math.floor(p['frame_x'] / p['led_pitch'])} or fewer (params.scad "
         f"and pinout.toml)")
    need(p["strip_width"] <= p["frame_height"],
         f"the edge strip, {_f(p['strip_width'])} mm wide, is wider than the {_f(p['frame_height'])} mm front rim")
    # the edge strip's wires into the frame, the power bus and C2 in their lit cell, the LED notches
    need(p["edge_hole"] >= 2 * p["pair_wire_od"] + p["thin_wire_od"]
         and p["floor_thickness"] + p["edge_hole"] <= p["plate_top"] - p["plate_thickness"],
         f"the {_f(p['edge_hole'])} mm hole for the edge strip's pair and data wire does not take them, "
         f"or does not fit between the floor and the carrier plate")
    route = led_route(p)
    for where, (thick, thin) in (("along the bus's row", route.along_bus_row),
                                 ("down the bus's column", route.down_bus_column)):
        need(notch_fits(p, thick, thin),
             f"the LED notch ({_f(p['led_notch_width'])} x {_f(p['led_notch_height'])} mm) {where} does not pass "
             f"{thick} wires of 0.75 mm2 ({_f(p['pair_wire_od'])} mm) and {thin} of 26 AWG ({_f(p['thin_wire_od'])} mm)")
    beside = (p["pocket_width"] - p["strip_width"]) / 2
    nut = p["gland_nut"] / 2 - p["wall"] / 2
    for what, length in (("the +5 V lever connectors and the gland's nut", 2 * p["wago_width"] + nut),
                         ("the ground lever connectors and C2", 2 * p["wago_width"] + p["c2_length"])):
        need(length <= p["pocket_length"],
             f"{what} take {_f(length)} mm along a wall of cell {p['bus_cell']}, {_f(p['pocket_length'])} mm long")
    for what, reach, height in (("the lever connectors", p["wago_depth"], p["wago_height"]),
                                ("C2 on its side", p["c2_diameter"], p["c2_diameter"])):
        clear = border_ray(p, p["pocket_width"] / 2, p["light_depth"] - height)
        need(reach <= min(clear, beside),
             f"{what}, {_f(height)} mm tall, reach {_f(reach)} mm from the wall of cell {p['bus_cell']}: the strip "
             f"starts {_f(beside)} mm from it, and the light to the lit border passes {_f(clear)} mm from it at "
             f"their height")
    # the copper tape bought covers a pad in one strip
    need(p["foil_width"] >= min(p["pad_length"], p["pad_width"])
         and p["foil_width"] >= min(p["end_pad_length"], p["end_pad_width"]),
         f"the {_f(p['foil_width'])} mm copper tape does not cover a {_f(p['pad_length'])} x {_f(p['pad_width'])} mm "
         f"pad in one strip")
    # the cables out of the frame: a gland each, between the floor and the plate, at a wall's end, apart
    low, high = p["gland_z"] - p["gland_nut"] / 2, p["gland_z"] + p["gland_nut"] / 2
    need(low >= p["floor_thickness"] and high <= p["floor_thickness"] + p["light_depth"],
         f"a gland's nut ({_f(low)} to {_f(high)} mm over the table) does not fit between the floor and the "
         f"carrier plate ({_f(p['floor_thickness'])} to {_f(p['floor_thickness'] + p['light_depth'])} mm)")
    need(p["gland_nut"] / 2 - p["wall"] / 2 <= p["lit_border"] + p["card_stop_arm"]
         and p["gland_nut_depth"] <= p["lit_border"],
         "a gland's nut reaches past the corner stops into the lit border")
    for where, thick in ((where, p[name]) for where, name in GLAND_WALLS.items()):
        need(thick + p["gland_nut_depth"] + GLAND_THREAD_SPARE <= p["gland_thread"],
             f"a gland's {_f(p['gland_thread'])} mm thread does not take {where} ({_f(thick)} mm), its locknut "
             f"({_f(p['gland_nut_depth'])} mm) and a turn to spare ({_f(GLAND_THREAD_SPARE)} mm): choose glands with a "
             f"thread of {_f(thick + p['gland_nut_depth'] + GLAND_THREAD_SPARE)} mm or more")
    low, high = p["gland_clamp"]
    for what, across in ((what, p[name]) for what, name in GLAND_CABLES.items()):
        need(low + p["gland_spare"] <= across <= high - p["gland_spare"],
             f"{what}, {_f(across)} mm across, is not {_f(p['gland_spare'])} mm inside the glands' "
             f"{_f(low)}-{_f(high)} mm: choose a gland whose range it sits well within")
    seams = {sum(p["tile_columns"][:k]) for k in range(1, len(p["tile_columns"]))}
    for what in ("led_exit_wall", "touch_exit_wall"):
        need(0 < p[what] < p["grid_columns"] and p[what] not in seams,
             f"{what} {p[what]} is not a wall inside a tile (seams at walls {sorted(seams)})")
    need(p["led_exit_wall"] != p["touch_exit_wall"],
         "the LED line and the touch board's I2C leave the frame by one exit: they need their own")
    frame_side = exit_x(p, p["led_exit_wall"]) - exit_x(p, p["touch_exit_wall"])
    box_side = box_x_on_grid(p, p["box_led_gland_x"]) - box_x_on_grid(p, p["box_touch_gland_x"])
    need(frame_side * box_side > 0,
         "the LED cable and the I2C cable cross between the frame and the box: swap box_led_gland_x and "
         "box_touch_gland_x")
    # printing
    need(p["recess_depth"] >= p["layer_height"] and p["groove_depth"] >= p["layer_height"],
         f"a recess or groove is shallower than one {_f(p['layer_height'])} mm layer")
    need(abs(p["wall"] / p["nozzle"] - round(p["wall"] / p["nozzle"])) < 1e-6,
         f"the {_f(p['wall'])} mm cell wall is not a whole number of {_f(p['nozzle'])} mm lines")
    # the tiles
    need(sum(p["tile_columns"]) == p["grid_columns"] and min(p["tile_columns"]) >= 1,
         f"the tiles' columns {p['tile_columns']} do not add up to the grid's {p['grid_columns']}")
    need(sum(p["tile_rows"]) == p["grid_rows"] and min(p["tile_rows"]) >= 1,
         f"the tiles' rows {p['tile_rows']} do not add up to the grid's {p['grid_rows']}")
    for part in ("frame", "carrier", "grille"):
        for tile in tiles(p, part):
            need(fits_bed(p, tile.size), f"{part} tile {tile.index} is {_f(tile.size[0])} x {_f(tile.size[1])} mm, "
                                         f"larger than the {_f(p['bed_x'])} x {_f(p['bed_y'])} mm bed")
    need(p["frame_height"] <= p["bed_z"],
         f"the frame is {_f(p['frame_height'])} mm tall, over the bed's {_f(p['bed_z'])} mm")
    need(p["dovetail_neck"] < p["dovetail_head"], "the dovetail's head is no wider than its neck: it would not lock")
    narrowest = min(p["pocket_width"], p["pocket_length"])  # a dovetail sits under a cell, across or along it
    need(p["dovetail_head"] + 2 * p["seam_gap"] < narrowest and p["dovetail_length"] < narrowest + p["wall"] / 2,
         f"a dovetail ({_f(p['dovetail_head'])} mm wide, {_f(p['dovetail_length'])} mm long) reaches past its "
         f"{_f(narrowest)} mm cell, under a wall")
    # the hood
    for side in ("length", "width"):
        inner = p["hood_inner_x" if side == "length" else "hood_inner_y"]
        need(inner >= p[f"display_{side}"] + 2 * tolerance,
             f"the hood's opening, {_f(inner)} mm, does not take the display's {_f(p[f'display_{side}'])} mm "
             f"{side} with {_f(tolerance)} mm each side")
    side_bezel = (p["display_length"] - p["viewing_length"]) / 2
    bottom_bezel = (p["display_width"] - p["viewing_width"]) / 2
    need(p["lip"] < side_bezel and p["lip"] < bottom_bezel and p["hood_boss"] < bottom_bezel + p["lip"],
         f"the lips ({_f(p['lip'])} mm) or the foot's bosses cover the viewing area: the bezel is "
         f"{_f(side_bezel)} mm at the sides, {_f(bottom_bezel)} mm at the foot")
    need(fits_bed(p, (p["hood_x"], p["hood_y"])) and p["hood_depth"] <= p["bed_z"],
         f"the hood, {_f(p['hood_x'])} x {_f(p['hood_y'])} mm, is larger than the bed")
    # who sees what, from the seats (sightlines): the spymasters see the screen and the cards past
    # it, the operatives see neither the screen's face nor, over the roof, its picture
    seen = sightlines(p)
    need(seen.eye_over_hood > 0,
         f"the hood's top is {_f(-seen.eye_over_hood)} mm over a spymaster's eye {_f(min(p['seated_eye']))} mm "
         f"over the floor: it hides the table")
    need(seen.eye_over_hood <= 0 or seen.card_seen_from >= p["grid_y"],
         f"the hood hides cards from a spymaster whose eye is {_f(min(p['seated_eye']))} mm over the floor, "
         f"{_f(max(p['eye_from_edge']))} mm from the table: the line over its top reaches the cards at "
         f"y = {_f(seen.card_seen_from)} mm, short of the grid's edge at {_f(p['grid_y'])} mm "
         f"(move the station back: station_gap)")
    tilt, visor, clear = p["screen_tilt"], p["visor"], p["display_clearance"]
    above = seen.spymaster_elevation - tilt
    need(above <= 0 or visor * math.tan(math.radians(above)) <= bottom_bezel + clear,
         f"the roof, {_f(visor)} mm deep, hides the top of the screen from a spymaster looking down at "
         f"{_f(seen.spymaster_elevation)} degrees")
    need(visor * math.tan(math.radians(p["spymaster_side_angle"])) <= side_bezel + clear,
         f"the sides, {_f(visor)} mm deep, hide the screen's edge from a spymaster "
         f"{_f(p['spymaster_side_angle'])} degrees to the side")
    grazing = seen.operative_elevation + tilt - 90  # how far behind the screen's plane the operatives see it
    lowest = clear + bottom_bezel + p["viewing_width"]
    need(grazing <= 0 or visor >= lowest * math.tan(math.radians(grazing)),
         f"an operative looking at the station from {_f(seen.operative_elevation)} degrees sees over the roof onto "
         f"the screen leaning back {_f(tilt)} degrees: the visor needs "
         f"{_f(lowest * math.tan(math.radians(max(grazing, 0))))} mm")
    need(p["hood_depth"] - p["hood_boss"] - p["insert_hole_depth"] - 1 >= p["glass"] + p["lip_thickness"],
         "the bosses in the hood's foot reach back into the display's lip")
    # the box: boards on the floor, clear of the posts and each other
    inner_x, inner_y, post = p["box_inner_x"], p["box_inner_y"], p["post"]
    posts = [(x, y, x + post, y + post) for x in (0, inner_x - post) for y in (0, inner_y - post)]
    pi = (p["pi_x"], p["pi_y"], p["pi_x"] + p["pi_length"] + p["pi_port_overhang"], p["pi_y"] + p["pi_width"])
    plug = (pi[2], p["pi_y"], pi[2] + p["usb_plug_room"], pi[3])
    board = (p["stripboard_x"], p["stripboard_y"], p["stripboard_x"] + p["stripboard_length"],
             p["stripboard_y"] + p["stripboard_width"])
    placed = {"the Pi": pi, "the USB plug's room": plug, "the stripboard": board}
    for name, rect in placed.items():
        need(_inside(rect, 0, 0, inner_x, inner_y), f"{name} does not fit inside the box")
        for number, corner in enumerate(posts):
            need(not _overlap(rect, corner), f"{name} runs into the box's corner post {number}")
    names = list(placed)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            need(not _overlap(placed[first], placed[second]), f"{first} and {second} overlap in the box")
    # on the stripboard: the Pico and the level shifter, clear of the corner screws
    length, width, keep = p["stripboard_length"], p["stripboard_width"], p["screw_keepout"]
    pico = (p["pico_x"], p["pico_y"], p["pico_x"] + p["pico_width"], p["pico_y"] + p["pico_length"])
    parts = {"the Pico": pico,
             "the level shifter": (p["shifter_x"], p["shifter_y"], p["shifter_x"] + p["shifter_length"],
                                   p["shifter_y"] + p["shifter_width"])}
    # the Pico's USB plug and the cable's bend, out of its front end: in the box, over nothing taller
    room = p["pico_plug_length"] + p["usb_bend_radius"]
    plug_path = (p["stripboard_x"] + pico[0], p["stripboard_y"] + pico[1] - room,
                 p["stripboard_x"] + pico[2], p["stripboard_y"] + pico[1])
    need(plug_path[1] >= 0,
         f"the Pico's USB plug and its cable's bend need {_f(room)} mm ({_f(p['pico_plug_length'])} mm of plug, "
         f"a {_f(p['usb_bend_radius'])} mm bend) out of its end; the box's wall is "
         f"{_f(p['stripboard_y'] + pico[1])} mm away")
    need(not any(_overlap(plug_path, corner) for corner in posts), "the Pico's USB plug runs into a corner post")
    need(not any(_overlap((pico[0], pico[1] - room, pico[2], pico[1]), rect)
                 for name, rect in parts.items() if name != "the Pico"),
         "a part on the stripboard stands in the Pico's USB plug's way")
    screws = [(x, y, x + keep, y + keep) for x in (0, length - keep) for y in (0, width - keep)]
    names = list(parts)
    for i, name in enumerate(names):
        need(_inside(parts[name], 0, 0, length, width),
             f"{name} hangs off the {_f(length)} x {_f(width)} mm stripboard")
        need(not any(_overlap(parts[name], screw) for screw in screws),
             f"{name} sits on a corner screw of the stripboard")
        for other in names[i + 1:]:
            need(not _overlap(parts[name], parts[other]), f"{name} and {other} overlap on the stripboard")
    # in the walls: the LED supply's jack (left wall, behind the Pi), the glands (back wall), the links' bosses
    jack = (0, p["jack_y"] - p["jack_nut"] / 2, p["jack_depth"], p["jack_y"] + p["jack_nut"] / 2)
    glands = [(x - p["gland_nut"] / 2, inner_y - p["gland_nut_depth"], x + p["gland_nut"] / 2, inner_y)
              for x in p["box_gland_x"]]
    bosses = [(x - p["link_boss"] / 2, inner_y - p["link_boss"], x + p["link_boss"] / 2, inner_y)
              for x in (p["box_inner_x"] / 2 + side * p["link_apart"] / 2 for side in (-1, 1))]
    in_walls = {"the DC jack": jack, **{f"gland {n}": g for n, g in enumerate(glands)},
                **{f"link boss {n}": b for n, b in enumerate(bosses)}}
    for name, rect in in_walls.items():
        need(_inside(rect, 0, 0, inner_x, inner_y) and not any(_overlap(rect, corner) for corner in posts)
             and not any(_overlap(rect, placed[board]) for board in placed),
             f"{name} runs into a corner post, the Pi, the USB plug's room or the stripboard")
    names = list(in_walls)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            need(not _overlap(in_walls[first], in_walls[second]), f"{first} and {second} overlap in the box's walls")
    # the speaker, along the back wall behind the Pi: on the floor, under the lid's lip, clear of
    # the posts, the boards and what is in the walls; its grille in front of it, through the wall
    speaker = (p["speaker_x"], inner_y - p["speaker_depth"] - p["speaker_rib"], p["speaker_x"] + p["speaker_length"],
               inner_y)
    need(_inside(speaker, 0, 0, inner_x, inner_y)
         and not any(_overlap(speaker, rect) for rect in (*posts, *placed.values(), *in_walls.values())),
         "the speaker and its rib run into a corner post, a board, the DC jack, a gland or a link boss")
    need(p["box_floor"] + p["speaker_height"] <= p["box_z"] - p["lid_lip"],
         f"the {_f(p['speaker_height'])} mm speaker does not fit between the box's floor and the lid's lip")
    grille_height = (2 * p["grille_slots"] - 1) * p["grille_slot_width"]
    need(p["grille_slot_length"] <= p["speaker_length"] and grille_height <= p["speaker_height"],
         "the speaker's grille is larger than the speaker's face")
    grille = speaker[0] + (p["speaker_length"] - p["grille_slot_length"]) / 2
    need(all(grille + p["grille_slot_length"] <= x - p["gland_nut"] / 2 or x + p["gland_nut"] / 2 <= grille
             for x in p["box_gland_x"]),
         "the speaker's grille runs into a gland's nut in the back wall")
    for name, z, size in (("the DC jack", p["jack_z"], p["jack_nut"]), ("a gland", p["box_gland_z"], p["gland_nut"])):
        need(p["box_floor"] <= z - size / 2 and z + size / 2 <= p["box_z"] - p["lid_lip"],
             f"{name}'s nut does not fit between the box's floor and the lid's lip")
    # the links' inserts in the frame's back rim: clear of the glands and the tiles' seams
    hole = p["insert_hole"]
    for x in (p["grid_x"] / 2 + side * p["link_apart"] / 2 for side in (-1, 1)):
        near = [abs(x - (wall * p["pitch_x"] - p["wall"] / 2)) for wall in (p["led_exit_wall"], p["touch_exit_wall"])]
        seams = [abs(x - tile.x[1]) for tile in tiles(p, "frame")[:len(p["tile_columns"]) - 1]]
        need(min(near) >= (p["gland_nut"] + hole) / 2 and min(seams) >= hole,
             f"a link's insert in the back rim at x = {_f(x)} mm runs into a gland or a tiles' seam")
    need(p["insert_hole_depth"] < p["rim"] and hole / 2 < p["link_z"] < p["plate_top"] - hole / 2,
         "the links' inserts do not fit in the frame's back rim")
    need(p["foot_bar"] >= p["station_gap"] + 2 * p["foot_leg"]
         and p["link_z"] + p["screw_clearance"] / 2 + 3 <= p["foot_leg"],
         f"a {_f(p['foot_bar'])} mm bar does not make a foot {_f(p['station_gap'])} mm long with {_f(p['foot_leg'])} mm "
         f"legs holed {_f(p['link_z'])} mm up")
    # heights under the lid
    need(p["pi_standoff"] + max(p["pi_height"], p["header_cable_height"]) <= p["box_inner_z"],
         f"the Pi with its header's cables stands {_f(p['pi_standoff'] + p['header_cable_height'])} mm, "
         f"the box is {_f(p['box_inner_z'])} mm deep inside")
    need(p["stripboard_standoff"] + p["part_height"] <= p["box_inner_z"], "the touch board stands taller than the box")
    cooled = p["pi_standoff"] + p["pi_board"] + p["pi_heatsink_height"] + p["heatsink_air"]
    need(cooled <= p["box_inner_z"] - p["lid_lip"],
         f"the Pi's heatsink with {_f(p['heatsink_air'])} mm of air over it reaches {_f(cooled)} mm; under the lid "
         f"there are {_f(p['box_inner_z'] - p['lid_lip'])} mm")
    # the buttons in the lid: inside the walls, in front of the hood, apart, clear of what lies under them
    radius = p["button_hole"] / 2
    hood_front = p["hood_back_y"] - p["hood_depth"] - p["box_wall"]  # in the box's inner coordinates
    for number, x in enumerate(p["button_x"]):
        reach = (x - radius, p["button_y"] - radius, x + radius, p["button_y"] + radius)
        need(_inside(reach, post, 0, inner_x - post, hood_front),
             f"button {number} is not in the lid between the posts and in front of the hood")
        under = [p["pi_standoff"] + p["pi_height"]] if _overlap(reach, pi) else []
        under += [p["stripboard_standoff"] + p["part_height"]] if _overlap(reach, board) else []
        need(p["button_depth"] + max(under, default=0) <= p["box_inner_z"],
             f"button {number} reaches {_f(p['button_depth'])} mm under the lid onto the board beneath it")
    xs = sorted(p["button_x"])
    need(all(b - a >= p["button_hole"] + 2 for a, b in itertools.pairwise(xs)),
         "the buttons' holes run into each other")
    # screws and inserts
    for through, what in ((p["lid_thickness"], "the lid (and the hood's foot)"),
                          (p["stripboard_thickness"], "the stripboard")):
        reach = p["screw_length"] - through
        need(p["insert_length"] / 2 <= reach <= p["insert_hole_depth"],
             f"an M3 x {_f(p['screw_length'])} screw through {what} reaches {_f(reach)} mm: it should hold at least "
             f"half the {_f(p['insert_length'])} mm insert and not bottom out in its "
             f"{_f(p['insert_hole_depth'])} mm hole")
    need(p["box_floor"] + p["stripboard_standoff"] >= p["insert_hole_depth"] + 0.5,
         "the stripboard's standoffs are too short for their inserts")
    # the hood on the lid, and what must fit the bed
    need(p["hood_x"] <= p["box_x"] and p["hood_back_y"] - p["hood_depth"] >= p["box_wall"]
         and p["hood_back_y"] + 2 + p["ribbon_slot_width"] <= p["box_y"] - p["box_wall"],
         "the hood's foot and the ribbon's slot behind it do not fit on the box's lid")
    need(fits_bed(p, (p["box_x"], p["box_y"])) and p["box_z"] <= p["bed_z"],
         f"the box, {_f(p['box_x'])} x {_f(p['box_y'])} mm, is larger than the bed")
    return found


# ---- the build guide's figures (hardware/tools/guide.py puts them in hardware/README.md)


def pads_table(p: dict) -> str:
    """The cells' and pads' figures: the lit border, the pad and the rule's least, the guard, the wires."""
    cover = p["cover_thickness"]
    wires = pad_wires(p)
    longest = max(wires, key=wires.__getitem__)
    return "\n".join([
        "| figure | value |", "| --- | --- |",
        f"| cell: its lit opening, wall to wall | {_f(p['pocket_length'])} x {_f(p['pocket_width'])} mm, for a "
        f"{_f(p['card_length'])} x {_f(p['card_width'])} mm card |",
        f"| lit border round the card | {_f(p['lit_border'])} mm each side with the card in the middle; at least "
        f"{_f(p['lit_border'] - p['card_clearance'])} mm when it slides {_f(p['card_clearance'])} mm to a corner stop "
        f"(the rule: {_f(p['min_lit_border'])} mm) |",
        f"| corner stops | along {_f(p['card_stop_arm'])} mm of each edge from the card's corner: "
        f"{(p['card_length'] - 2 * p['card_stop_arm']) / p['card_length']:.0%} of a long edge and "
        f"{(p['card_width'] - 2 * p['card_stop_arm']) / p['card_width']:.0%} of a short edge have light beside them |",
        f"| cover over the pad | {_f(cover)} mm: the card {_f(p['card_thickness'])} mm, the top sheet "
        f"{_f(p['acrylic_thickness'])} mm |",
        f"| pad | {_f(p['pad_length'])} x {_f(p['pad_width'])} mm of copper foil, under the card's middle; the rule "
        f"asks a side of at least {_f(p['pad_rule_side'] + 2 * cover)} mm ({_f(p['pad_rule_side'])} + 2 x {_f(cover)}) |",
        f"| gap, pad to the cell's edge | {_f(p['pad_gap'])} mm at the least; the rule asks {_f(2 * cover)} mm |",
        f"| light's way past the pad's platform | {_f(p['platform_side'])} mm beside it, {_f(p['platform_end'])} mm "
        f"at its ends, from the wall |",
        f"| guard | a {_f(p['guard_width'])} mm line of foil along the top of every wall between two cells; a ring "
        f"{_f(p['end_guard_gap'])} mm round each END TURN pad |",
        f"| END TURN pads | {_f(p['end_pad_length'])} x {_f(p['end_pad_width'])} mm, in the band before row 0, in "
        f"front of columns 1 and 3 |",
        f"| longest pad wire | {_f(wires[longest])} mm ({longest}); the limit is {_f(p['pad_wire_limit'])} mm |",
        f"| LED strip per cell | {p['leds_per_cell']} LEDs, {_f(p['led_segment'])} mm of strip, on a "
        f"{_f(p['pocket_length'])} mm floor |",
    ])


def led_table(p: dict) -> str:
    """The LED cable and the power pairs from the bus: their lengths along their routes."""
    route = led_route(p)
    pairs = "; ".join(f"{name} {route.pairs[name] / 1000:.2f} m" for name in route.pairs)
    (thick, thin), (down, data) = route.along_bus_row, route.down_bus_column
    return "\n".join([
        "| figure | value |", "| --- | --- |",
        f"| LED cable, row 0's DIN to the DC jack | {route.cable / 1000:.2f} m along its way, with "
        f"{_f(p['wire_slack'])} mm slack |",
        f"| each red/black pair, bus to its start | {pairs}: {sum(route.pairs.values()) / 1000:.2f} m of each colour |",
        f"| LED notch, {_f(p['led_notch_width'])} x {_f(p['led_notch_height'])} mm | the busiest takes {thick} wires "
        f"of 0.75 mm2 and {thin} of 26 AWG along the bus's row, {down} and {data} down its column |",
        f"| the bus in cell {p['bus_cell']} | lever connectors {_f(p['wago_width'])} x {_f(p['wago_depth'])} x "
        f"{_f(p['wago_height'])} mm, two along each long wall; C2 ({_f(p['c2_diameter'])} x {_f(p['c2_length'])} mm) "
        f"on its side beside the ground pair; the light to the lit border passes "
        f"{_f(border_ray(p, p['pocket_width'] / 2, p['light_depth'] - p['wago_height']))} mm from the wall at the "
        f"connectors' height, {_f(border_ray(p, p['pocket_width'] / 2, p['light_depth'] - p['c2_diameter']))} mm at "
        f"C2's |",
    ])


def table_needed(p: dict) -> tuple[float, float]:
    """How deep and wide a café table must be, mm: the frame, the gap, the station, and the room the
    players' seats leave at each edge."""
    depth = p["frame_y"] + p["station_gap"] + p["box_y"] + p["station_from_edge"] + p["operatives_from_edge"]
    return depth, p["frame_x"]


def station_table(p: dict) -> str:
    """Where the screen station stands and what each player sees past it, worked out from the seats."""
    seen = sightlines(p)
    low, high = (eye - p["table_height"] for eye in p["seated_eye"])
    depth, width = table_needed(p)
    return "\n".join([
        "| figure | value |", "| --- | --- |",
        f"| seated eye | {_f(p['seated_eye'][0])}-{_f(p['seated_eye'][1])} mm over the floor, "
        f"{_f(low)}-{_f(high)} mm over a {_f(p['table_height'])} mm table, "
        f"{_f(p['eye_from_edge'][0])}-{_f(p['eye_from_edge'][1])} mm back from its edge |",
        f"| station | {_f(p['station_gap'])} mm behind the frame's back rim, its front {_f(p['station_from_edge'])} mm "
        f"from the spymasters' edge; the hood's top {_f(p['box_z'] + p['lid_thickness'] + p['hood_y'])} mm over the "
        f"table |",
        f"| table needed | at least {_f(depth)} mm deep, {_f(width)} mm wide |",
        f"| spymasters see the cards | the lowest, farthest eye's line over the hood meets the cards' level "
        f"{_f(seen.card_seen_from - p['grid_y'])} mm before the grid's near edge: every card and its border in view |",
        f"| spymasters see the screen | looking down at up to {_f(seen.spymaster_elevation)} degrees: the "
        f"{_f(p['visor'])} mm visor leaves the top of the picture in view |",
        f"| operatives do not see it | they look at the station from {_f(seen.operative_elevation)} degrees at "
        f"most, at its back plate (the screen stands upright, facing away) |",
        f"| the two feet | {_f(p['link_apart'])} mm apart, each a {_f(p['foot_bar'])} mm flat bar lying on the table, "
        f"bent up {_f(p['foot_leg'])} mm from each end so the outsides of the bends are {_f(p['station_gap'])} mm "
        f"apart, a {_f(p['screw_clearance'])} mm hole in each leg {_f(p['link_z'])} mm over the table, on its "
        f"middle |",
    ])


def printing_table(p: dict) -> str:
    """What to print, how many, in what, and how big; the settings the parts are drawn for."""
    frames, carriers = tiles(p, "frame"), tiles(p, "carrier")

    def largest(found: list[Tile]) -> str:
        tile = max(found, key=lambda tile: tile.size[0] * tile.size[1])
        return f"{_f(tile.size[0])} x {_f(tile.size[1])}"

    sizes = {
        "frame_tile": f"{largest(frames)} x {_f(p['frame_height'])} (the largest)",
        "carrier_tile": f"{largest(carriers)} x {_f(p['plate_thickness'] + p['breakout_standoff'])} (the largest)",
        "card_grille": f"{largest(tiles(p, 'grille'))} x {_f(p['pocket_depth'])} (the largest)",
        "screen_hood": f"{_f(p['hood_x'])} x {_f(p['hood_y'])} x {_f(p['hood_depth'])}",
        "electronics_box": f"{_f(p['box_x'])} x {_f(p['box_y'])} x {_f(p['box_z'])}",
        "box_lid": f"{_f(p['box_x'])} x {_f(p['box_y'])} x {_f(p['lid_thickness'] + p['lid_lip'])}",
    }
    lines = ["| part | print | file | filament | size, mm | lies on the bed |", "| --- | --- | --- | --- | --- | --- |"]
    for part in PARTS:
        count = p["tile_count"] if part.tiled else 1
        files = f"`{part.name}_0.stl` ... `_{count - 1}`" if part.tiled else f"`{part.name}.stl`"
        how = part.how.replace("the lips overhang", f"the lips overhang {_f(p['lip'])} mm")
        lines.append(f"| {part.title} | {count} | {files} | {part.filament} | {sizes[part.name]} | {how} |")
    columns, rows = len(p["tile_columns"]), len(p["tile_rows"])
    lines += [
        "",
        f"Drawn for a {_f(p['bed_x'])} x {_f(p['bed_y'])} mm bed, a {_f(p['nozzle'])} mm nozzle and "
        f"{_f(p['layer_height'])} mm layers; {p['perimeters']} perimeters and {p['infill_percent']} % infill serve "
        f"every part, with no supports. The {p['grid_columns']} x {p['grid_rows']} grid, {_f(p['frame_x'])} x "
        f"{_f(p['frame_y'])} mm over the rim, is cut into {p['tile_count']} tiles ({columns} across, {rows} along) "
        f"along the walls between cells; the frame's tiles lock with a dovetail under each cell along a seam "
        f"({_f(p['seam_gap'])} mm clearance). Fits are drawn with {_f(p['print_tolerance'])} mm each side.",
        "",
        f"Also cut: the top sheet, one piece of the {_f(p['acrylic_thickness'])} mm opal acrylic, "
        f"{_f(p['sheet_x'])} x {_f(p['sheet_y'])} mm, from the {_f(p['acrylic_sheet'])} mm sheet.",
    ]
    return "\n".join(lines)


# ---- the parts, and their render with OpenSCAD


@dataclass(frozen=True, slots=True)
class Part:
    """A printed part: its .scad in enclosure/, drawn once or once per tile (``-D tile=N``)."""

    name: str
    title: str
    tiled: bool
    filament: str
    how: str
    colour: str  # in the pictures only

    def outputs(self, p: dict) -> list[tuple[str, dict[str, int]]]:
        """(file stem, -D settings) for each copy to print."""
        if not self.tiled:
            return [(self.name, {})]
        return [(f"{self.name}_{tile}", {"tile": tile}) for tile in range(p["tile_count"])]


PARTS = (
    Part("frame_tile", "grid frame", True, "black PLA: opaque, so no cell's light shows in its neighbour",
         "floor down", "#45474d"),
    Part("carrier_tile", "pad carrier plate", True, "black PLA: opaque, round the light's way",
         "top down, the breakouts' posts up", "#9a9ca3"),
    Part("card_grille", "card grille", True, "black PLA: its bars lie over the walls", "flat", "#2f3034"),
    Part("screen_hood", "screen hood", False, "black PLA, matt: no glare on the screen",
         "back plate down; the lips overhang, print them with the fan on", "#45474d"),
    Part("electronics_box", "electronics box", False, "any colour", "floor down", "#5b7fa6"),
    Part("box_lid", "box lid", False, "any colour", "top down, as drawn", "#5b7fa6"),
)
SCENES = ("assembly", "build_steps")
"""Drawn for a picture only: assembly.scad places every part, the layers lifted apart;
build_steps.scad draws one step of the build guide (``-D step=N``: hardware/tools/steps.py)."""
LIBRARIES = ("params", "common", "build_wires")
"""Included by the parts and scenes: checked on their own for warnings (build_wires: the steps'
wiring, which steps.py writes)."""
PICTURES = {"frame_tile_0": "frame_tile", "carrier_tile_3": "carrier_tile", "card_grille_0": "card_grille",
            "screen_hood": "screen_hood",
            "electronics_box": "electronics_box", "box_lid": "box_lid", "assembly": "assembly"}
"""The rendered pictures kept in enclosure/pictures/ for the build guide: render name -> picture name."""
PICTURE_SIZE = (800, 600)
CAMERA = "--camera=0,0,0,55,0,25,0"  # OpenSCAD's gimbal camera: tilted 55 degrees, turned 25
VIEW = (f"--imgsize={PICTURE_SIZE[0]},{PICTURE_SIZE[1]}", "--viewall", "--autocenter", CAMERA, "--colorscheme=Tomorrow")
"""How every picture of the model is taken: its size, the whole scene in view, the camera, the colours."""
MESSAGES = re.compile(r"^(WARNING|ERROR|DEPRECATED)\b.*$", re.MULTILINE)


@dataclass
class Render:
    """What one run of OpenSCAD made, how long it took, and every warning it printed."""

    output: Path
    seconds: float
    warnings: list[str]


def _openscad(args: list[str], output: Path, under_x: bool = False) -> Render:
    """Run OpenSCAD; a failed run counts as a warning too, so nothing broken passes unnoticed."""
    command = (["xvfb-run", "-a"] if under_x else []) + ["openscad", *args]
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    warnings = [found.group(0) for found in MESSAGES.finditer(done.stderr)]
    if done.returncode != 0 or (output.suffix != ".echo" and not output.exists()):
        warnings.append(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return Render(output, time.monotonic() - start, warnings)


def missing_tools(pictures: bool = True) -> list[str]:
    """The commands the build needs and cannot find: openscad, and xvfb-run for the pictures."""
    needed = ["openscad"] + (["xvfb-run"] if pictures and not os.environ.get("DISPLAY") else [])
    return [name for name in needed if shutil.which(name) is None]


def build(outdir: Path, pictures: bool = True, jobs: int = 2) -> list[Render]:
    """Render every part to STL (and, with ``pictures``, a PNG of each and of the assembly) in
    ``outdir``; check params.scad and common.scad alone too. Returns every run's record: the
    caller fails on any warning."""
    outdir = Path(outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    p = read()
    meshes = []
    for part in PARTS:
        for stem, settings in part.outputs(p):
            defines = [arg for name, value in settings.items() for arg in ("-D", f"{name}={value}")]
            stl = outdir / f"{stem}.stl"
            meshes.append((part, stem, [*defines, "-o", str(stl), str(ENCLOSURE / f"{part.name}.scad")], stl))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        renders = list(pool.map(lambda job: _openscad(job[2], job[3]), meshes))
        for name in LIBRARIES:  # alone, for warnings only: they draw nothing
            echo = outdir / f"{name}.echo"
            renders.append(_openscad(["-o", str(echo), str(ENCLOSURE / f"{name}.scad")], echo))
    if not pictures:
        return renders
    under_x = not os.environ.get("DISPLAY")
    view = VIEW
    for part, stem, _, stl in meshes:  # one X server at a time: xvfb-run -a races when started in parallel
        scene = outdir / f"{stem}.view.scad"
        scene.write_text(f'color("{part.colour}") import("{stl.name}");\n', encoding="utf-8")
        picture = outdir / f"{stem}.png"
        renders.append(_openscad([*view, "-o", str(picture), str(scene)], picture, under_x))
    for name in SCENES:
        renders.append(_openscad([*view, "-o", str(outdir / f"{name}.png"), str(ENCLOSURE / f"{name}.scad")],
                                 outdir / f"{name}.png", under_x))
    return renders


PICTURE_SOURCES = ENCLOSURE / "pictures" / "SOURCES.sha256"
"""The fingerprint of the model the part pictures in enclosure/pictures/ were drawn from."""
STEP_SCENES = ("build_steps.scad", "build_wires.scad")
"""The build steps' scene and wiring: drawn in the steps' pictures only (hardware/tools/steps.py)."""


def fingerprint(model: Path = ENCLOSURE, skip: tuple[str, ...] = (), drawn: object = ()) -> str:
    """What pictures of the model depend on: its .scad files in ``model`` (but ``skip``), how the
    pictures are taken (``VIEW``) and what is drawn (``drawn``), as a SHA-256."""
    digest = hashlib.sha256()
    for path in sorted(model.glob("*.scad")):
        if path.name not in skip:
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(repr((VIEW, drawn)).encode())
    return digest.hexdigest()


def pictures_fingerprint(model: Path = ENCLOSURE) -> str:
    """The part pictures' fingerprint: every .scad file but the steps' scenes, and the pictures kept."""
    return fingerprint(model, STEP_SCENES, sorted(PICTURES.items()))


def pictures_stale() -> bool:
    """Whether a part picture is missing or older than the model (a jack hole changed, say)."""
    current = PICTURE_SOURCES.is_file() and PICTURE_SOURCES.read_text(encoding="utf-8").strip() == pictures_fingerprint()
    return not current or not all((ENCLOSURE / "pictures" / f"{picture}.png").is_file() for picture in PICTURES.values())


def keep_pictures(outdir: Path) -> list[Path]:
    """Copy the build guide's pictures from a build in ``outdir`` to enclosure/pictures/, and note
    beside them the fingerprint of the model they were drawn from."""
    kept = []
    (ENCLOSURE / "pictures").mkdir(exist_ok=True)
    for render, picture in PICTURES.items():
        target = ENCLOSURE / "pictures" / f"{picture}.png"
        shutil.copyfile(Path(outdir) / f"{render}.png", target)
        kept.append(target)
    PICTURE_SOURCES.write_text(pictures_fingerprint() + "\n", encoding="utf-8")
    return kept


def draw_pictures() -> list[str]:
    """Draw the part pictures again from the model and keep them; the warnings OpenSCAD printed
    (none: they are kept, with their fingerprint)."""
    with tempfile.TemporaryDirectory() as scratch:
        renders = build(Path(scratch), pictures=True, jobs=1)
        warnings = [f"{render.output.name}: {warning}" for render in renders for warning in render.warnings]
        if not warnings:
            keep_pictures(Path(scratch))
    return warnings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.hardware.tools.enclosure",
                                     description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="print the rules the parameters break")
    render = commands.add_parser("build", help="render every part to STL and PNG in OUTDIR")
    render.add_argument("outdir", type=Path)
    render.add_argument("--no-pictures", action="store_true", help="STL only: no xvfb-run needed")
    render.add_argument("--jobs", type=int, default=2, help="OpenSCAD runs at once (default 2)")
    commands.add_parser("pictures", help="render, then keep the build guide's pictures in enclosure/pictures/")
    args = parser.parse_args(argv)
    if not PARAMS.is_file():
        print(f"needs a checkout of pi-table: {PARAMS} not found", file=sys.stderr)
        return 2
    if args.command == "check":
        found = problems(read())
        print("\n".join(found) if found else "every fit rule holds")
        return 1 if found else 0
    missing = missing_tools(pictures=not getattr(args, "no_pictures", False))
    if missing:
        print(f"needs {', '.join(missing)} (Debian: apt install openscad xvfb)", file=sys.stderr)
        return 2
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        outdir = args.outdir if args.command == "build" else Path(scratch)
        renders = build(outdir, pictures=args.command == "pictures" or not args.no_pictures,
                        jobs=getattr(args, "jobs", 2))
        warnings = [f"{render.output.name}: {warning}" for render in renders for warning in render.warnings]
        for line in warnings:
            print(line, file=sys.stderr)
        made = [r.output.name for r in renders if r.output.suffix in (".stl", ".png")]
        print(f"rendered {len(made)} files in {time.monotonic() - start:.1f} s to {outdir}")
        if warnings:
            return 1
        if args.command == "pictures":
            for path in keep_pictures(outdir):
                print(f"kept {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
