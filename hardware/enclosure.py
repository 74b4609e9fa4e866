"""The printed enclosure in enclosure/: its dimensions read from ``params.scad``, the rules they
must keep (cards fit their pockets, pads follow the sensing rule, tiles fit the print bed, the
hood hides the screen, the boards fit the box), and the render of every part to STL and PNG.

``python -m pi_table.hardware.enclosure check`` prints the rules broken (exit 1 if any);
``python -m pi_table.hardware.enclosure build OUTDIR`` renders every part with OpenSCAD,
failing on any warning. enclosure/ sits beside this folder in the source tree, so both work
from a checkout (the installed package carries no .scad files).
"""

from __future__ import annotations

import argparse
import ast
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

ENCLOSURE = Path(__file__).resolve().parent.parent / "enclosure"
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
    """The frame's (``part="frame"``) or the carrier plate's tiles, as common.scad cuts them."""
    columns, rows = p["tile_columns"], p["tile_rows"]
    found = []
    for index in range(len(columns) * len(rows)):
        column, row = index % len(columns), index // len(columns)
        cells_x = (sum(columns[:column]), sum(columns[:column + 1]))
        cells_y = (sum(rows[:row]), sum(rows[:row + 1]))
        if part == "frame":
            outer_x, outer_y = (-p["rim"], p["grid_x"] + p["rim"]), (-p["rim"], p["grid_y"] + p["rim"])
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


# ---- the rules


def problems(p: dict, cells: int = 25) -> list[str]:
    """Every rule of the enclosure the parameters ``p`` break, in words; empty when all fit."""
    found: list[str] = []

    def need(ok: bool, words: str) -> None:
        if not ok:
            found.append(words)

    tolerance, cover = p["print_tolerance"], p["cover_thickness"]
    # the cards and the cover
    for side in ("length", "width"):
        card, pocket = p[f"card_{side}"], p[f"pocket_{side}"]
        need(pocket >= card + 2 * tolerance,
             f"the card pocket's {side} {_f(pocket)} mm leaves less than {_f(tolerance)} mm each side of "
             f"the {_f(card)} mm card")
        need(0 < p[f"diffuser_{side}"] <= pocket - 2 * 0.1,
             f"the acrylic piece's {side} {_f(p[f'diffuser_{side}'])} mm does not drop into its {_f(pocket)} mm pocket")
    need(p["pocket_depth"] > p["card_thickness"],
         f"the pocket's rim, {_f(p['pocket_depth'])} mm, does not stand above a {_f(p['card_thickness'])} mm card")
    kerf, sheet = p["saw_kerf"], p["acrylic_sheet"]
    pieces = int((sheet + kerf) // (p["diffuser_length"] + kerf)) * int((sheet + kerf) // (p["diffuser_width"] + kerf))
    need(pieces >= cells, f"a {_f(sheet)} mm sheet gives {pieces} acrylic pieces, the grid needs {cells}")
    need(p["grid_columns"] * p["grid_rows"] == cells,
         f"the grid is {p['grid_columns']} x {p['grid_rows']} cells, the game has {cells}")
    # the pads (hardware/README.md: a side of at least 8 mm plus twice the cover, a gap of twice the cover)
    least_side = p["pad_rule_side"] + 2 * cover
    need(min(p["pad_length"], p["pad_width"]) >= least_side,
         f"a pad of {_f(p['pad_length'])} x {_f(p['pad_width'])} mm is under the {_f(least_side)} mm side "
         f"the rule asks through a {_f(cover)} mm cover")
    need(p["pad_gap"] >= 2 * cover,
         f"the pad comes within {_f(p['pad_gap'])} mm of its cell's edge; the rule asks {_f(2 * cover)} mm")
    for side in ("side", "end"):
        need(p[f"window_{side}"] >= p["min_window"],
             f"the light window at the pad's {side} is {_f(p[f'window_{side}'])} mm wide, "
             f"under {_f(p['min_window'])} mm: the pad, its margin and the guard fill the gap")
    need(p["guard_passage_width"] > p["guard_width"],
         f"the guard's tunnels, {_f(p['guard_passage_width'])} mm wide, are no wider than its "
         f"{_f(p['guard_width'])} mm foil")
    # the LEDs
    segment = p["led_segment"] + 2 * p["solder_room"]
    need(segment <= p["pocket_length"],
         f"{p['leds_per_cell']} LEDs at {_f(p['led_pitch'])} mm take {_f(p['led_segment'])} mm of strip and "
         f"{_f(segment)} mm with the solder room; the cell's floor is {_f(p['pocket_length'])} mm long")
    need(p["strip_width"] + 2 * tolerance <= p["pocket_width"],
         f"the {_f(p['strip_width'])} mm strip does not fit across the {_f(p['pocket_width'])} mm cell")
    top = p["light_depth"] - p["wire_notch_height"]
    need(p["led_notch_height"] < p["cable_exit_height"] < top,
         f"the wall's LED notch ({_f(p['led_notch_height'])} mm), the rim's cable exit "
         f"({_f(p['cable_exit_height'])} mm) and the pad wires' notch from {_f(top)} mm up overlap in height")
    edge = p["edge_leds"] * p["led_pitch"]
    need(edge <= 2 * (p["frame_x"] + p["frame_y"]) and p["strip_width"] <= p["frame_height"],
         f"the edge strip ({_f(edge)} mm, {_f(p['strip_width'])} mm wide) does not fit round the frame's outside")
    # printing
    need(p["recess_depth"] >= p["layer_height"] and p["groove_depth"] >= p["layer_height"]
         and p["guard_passage_height"] >= p["layer_height"],
         f"a recess, groove or tunnel is shallower than one {_f(p['layer_height'])} mm layer")
    need(abs(p["wall"] / p["nozzle"] - round(p["wall"] / p["nozzle"])) < 1e-6,
         f"the {_f(p['wall'])} mm cell wall is not a whole number of {_f(p['nozzle'])} mm lines")
    # the tiles
    need(sum(p["tile_columns"]) == p["grid_columns"] and min(p["tile_columns"]) >= 1,
         f"the tiles' columns {p['tile_columns']} do not add up to the grid's {p['grid_columns']}")
    need(sum(p["tile_rows"]) == p["grid_rows"] and min(p["tile_rows"]) >= 1,
         f"the tiles' rows {p['tile_rows']} do not add up to the grid's {p['grid_rows']}")
    for part in ("frame", "carrier"):
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
    tilt, visor, clear = p["screen_tilt"], p["visor"], p["display_clearance"]
    above = p["spymaster_elevation"] - tilt
    need(above <= 0 or visor * math.tan(math.radians(above)) <= bottom_bezel + clear,
         f"the roof, {_f(visor)} mm deep, hides the top of the screen from a spymaster looking down at "
         f"{_f(p['spymaster_elevation'])} degrees")
    need(visor * math.tan(math.radians(p["spymaster_side_angle"])) <= side_bezel + clear,
         f"the sides, {_f(visor)} mm deep, hide the screen's edge from a spymaster "
         f"{_f(p['spymaster_side_angle'])} degrees to the side")
    grazing = p["operative_elevation"] + tilt - 90  # how far behind the screen's plane the operatives see it
    lowest = clear + bottom_bezel + p["viewing_width"]
    need(grazing <= 0 or visor >= lowest * math.tan(math.radians(grazing)),
         f"an operative looking down at {_f(p['operative_elevation'])} degrees sees over the roof onto the screen "
         f"leaning back {_f(tilt)} degrees: the visor needs {_f(lowest * math.tan(math.radians(max(grazing, 0))))} mm")
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
    # on the stripboard: the Pico, the breakouts and the level shifter, clear of the corner screws
    need(len(p["mpr121_y"]) == p["mpr121_count"],
         f"the stripboard places {len(p['mpr121_y'])} MPR121 breakouts, the touch board has {p['mpr121_count']}")
    length, width, keep = p["stripboard_length"], p["stripboard_width"], p["screw_keepout"]
    parts = {"the Pico": (p["pico_x"], p["pico_y"], p["pico_x"] + p["pico_width"], p["pico_y"] + p["pico_length"]),
             "the level shifter": (p["shifter_x"], p["shifter_y"], p["shifter_x"] + p["shifter_length"],
                                   p["shifter_y"] + p["shifter_width"])}
    for number, y in enumerate(p["mpr121_y"]):
        parts[f"MPR121 breakout {number}"] = (p["mpr121_x"], y, p["mpr121_x"] + p["mpr121_length"],
                                              y + p["mpr121_width"])
    screws = [(x, y, x + keep, y + keep) for x in (0, length - keep) for y in (0, width - keep)]
    names = list(parts)
    for i, name in enumerate(names):
        need(_inside(parts[name], 0, 0, length, width),
             f"{name} hangs off the {_f(length)} x {_f(width)} mm stripboard")
        need(not any(_overlap(parts[name], screw) for screw in screws),
             f"{name} sits on a corner screw of the stripboard")
        for other in names[i + 1:]:
            need(not _overlap(parts[name], parts[other]), f"{name} and {other} overlap on the stripboard")
    # heights under the lid
    need(p["pi_standoff"] + max(p["pi_height"], p["header_cable_height"]) <= p["box_inner_z"],
         f"the Pi with its header's cables stands {_f(p['pi_standoff'] + p['header_cable_height'])} mm, "
         f"the box is {_f(p['box_inner_z'])} mm deep inside")
    need(p["stripboard_standoff"] + p["part_height"] <= p["box_inner_z"], "the touch board stands taller than the box")
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


# ---- the build guide's figures (hardware/guide.py puts them in hardware/README.md)


def pads_table(p: dict) -> str:
    """The pads' figures: size, the rule's least, the gap, the guard, the light's way past."""
    cover = p["cover_thickness"]
    return "\n".join([
        "| figure | value |", "| --- | --- |",
        f"| cell: the card's pocket | {_f(p['pocket_length'])} x {_f(p['pocket_width'])} mm, for a "
        f"{_f(p['card_length'])} x {_f(p['card_width'])} mm card |",
        f"| cover over the pad | {_f(cover)} mm: the card {_f(p['card_thickness'])} mm, the acrylic "
        f"{_f(p['acrylic_thickness'])} mm |",
        f"| pad | {_f(p['pad_length'])} x {_f(p['pad_width'])} mm of copper foil, centred; the rule asks a side of "
        f"at least {_f(p['pad_rule_side'] + 2 * cover)} mm ({_f(p['pad_rule_side'])} + 2 x {_f(cover)}) |",
        f"| gap, pad to the cell's edge | {_f(p['pad_gap'])} mm at the least; the rule asks {_f(2 * cover)} mm |",
        f"| guard | a {_f(p['guard_width'])} mm band of foil along each cell's edge, joined from cell to cell "
        f"under the ribs through {_f(p['guard_passage_width'])} x {_f(p['guard_passage_height'])} mm tunnels |",
        f"| light windows round the pad | {_f(p['window_side'])} mm wide beside it, "
        f"{_f(p['window_end'])} mm at its ends |",
        f"| LED strip per cell | {p['leds_per_cell']} LEDs, {_f(p['led_segment'])} mm of strip, on a "
        f"{_f(p['pocket_length'])} mm floor |",
    ])


def printing_table(p: dict) -> str:
    """What to print, how many, in what, and how big; the settings the parts are drawn for."""
    frames, carriers = tiles(p, "frame"), tiles(p, "carrier")

    def largest(found: list[Tile]) -> str:
        tile = max(found, key=lambda tile: tile.size[0] * tile.size[1])
        return f"{_f(tile.size[0])} x {_f(tile.size[1])}"

    sizes = {
        "frame_tile": f"{largest(frames)} x {_f(p['frame_height'])} (the largest)",
        "carrier_tile": f"{largest(carriers)} x {_f(p['plate_thickness'] + p['rib_height'])} (the largest)",
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
        f"Also cut: {p['grid_columns'] * p['grid_rows']} pieces of the {_f(p['acrylic_thickness'])} mm opal acrylic, "
        f"{_f(p['diffuser_length'])} x {_f(p['diffuser_width'])} mm each, one per cell.",
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
    Part("carrier_tile", "pad carrier plate", True, "black PLA: its ribs part the acrylic pieces",
         "plate down", "#9a9ca3"),
    Part("screen_hood", "screen hood", False, "black PLA, matt: no glare on the screen",
         "back plate down; the lips overhang, print them with the fan on", "#45474d"),
    Part("electronics_box", "electronics box", False, "any colour", "floor down", "#5b7fa6"),
    Part("box_lid", "box lid", False, "any colour", "top down, as drawn", "#5b7fa6"),
)
SCENES = ("assembly",)
"""Drawn for a picture only: assembly.scad places every part, the layers lifted apart."""
LIBRARIES = ("params", "common")
"""Included by the parts: checked on their own for warnings."""
PICTURES = {"frame_tile_3": "frame_tile", "carrier_tile_0": "carrier_tile", "screen_hood": "screen_hood",
            "electronics_box": "electronics_box", "box_lid": "box_lid", "assembly": "assembly"}
"""The rendered pictures kept in enclosure/pictures/ for the build guide: render name -> picture name."""
PICTURE_SIZE = (800, 600)
CAMERA = "--camera=0,0,0,55,0,25,0"  # OpenSCAD's gimbal camera: tilted 55 degrees, turned 25
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
    view = [f"--imgsize={PICTURE_SIZE[0]},{PICTURE_SIZE[1]}", "--viewall", "--autocenter", CAMERA,
            "--colorscheme=Tomorrow"]
    for part, stem, _, stl in meshes:  # one X server at a time: xvfb-run -a races when started in parallel
        scene = outdir / f"{stem}.view.scad"
        scene.write_text(f'color("{part.colour}") import("{stl.name}");\n', encoding="utf-8")
        picture = outdir / f"{stem}.png"
        renders.append(_openscad([*view, "-o", str(picture), str(scene)], picture, under_x))
    for name in SCENES:
        renders.append(_openscad([*view, "-o", str(outdir / f"{name}.png"), str(ENCLOSURE / f"{name}.scad")],
                                 outdir / f"{name}.png", under_x))
    return renders


def keep_pictures(outdir: Path) -> list[Path]:
    """Copy the build guide's pictures from a build in ``outdir`` to enclosure/pictures/."""
    kept = []
    (ENCLOSURE / "pictures").mkdir(exist_ok=True)
    for render, picture in PICTURES.items():
        target = ENCLOSURE / "pictures" / f"{picture}.png"
        shutil.copyfile(Path(outdir) / f"{render}.png", target)
        kept.append(target)
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.hardware.enclosure", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="print the rules the parameters break")
    render = commands.add_parser("build", help="render every part to STL and PNG in OUTDIR")
    render.add_argument("outdir", type=Path)
    render.add_argument("--no-pictures", action="store_true", help="STL only: no xvfb-run needed")
    render.add_argument("--jobs", type=int, default=2, help="OpenSCAD runs at once (default 2)")
    commands.add_parser("pictures", help="render, then keep the build guide's pictures in enclosure/pictures/")
    args = parser.parse_args(argv)
    if not PARAMS.is_file():
        print(f"needs a checkout of pi-table: the installed package carries no enclosure ({PARAMS} not found)",
              file=sys.stderr)
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
