"""The build, step by step with pictures: what each step puts in, drawn from the OpenSCAD model
(enclosure/build_steps.scad, ``-D step=N``), what to do, and the meter's checks before going on.

``STEPS`` says each step's work and checks in short lines a maker ticks off; the build guide
(hardware/README.md) says why. ``page()`` is docs/make/steps.md, one printable page a step;
``render()`` draws the pictures into enclosure/pictures/steps/ and notes beside them (``SOURCES``)
the fingerprint of the model they were drawn from; ``stale()`` is true when the model has
changed since (or a picture is missing). tools/docs.py (``./dev docs``) writes the page and draws
the pictures again when they are stale and OpenSCAD and xvfb-run are installed; its ``--check``,
which the tests run, fails on stale pictures, so a change to the model cannot leave them behind.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .. import pinout
from ..pinout import pico_pin
from . import HARDWARE, enclosure

SCENE = enclosure.ENCLOSURE / "build_steps.scad"
PICTURES = enclosure.ENCLOSURE / "pictures" / "steps"
SHEETS = HARDWARE / "steps"
"""Each wiring step's sheet, step-N.svg (N the guide's step): drawn by hardware/tools/sheets.py."""
SOURCES = PICTURES / "SOURCES.sha256"
"""The fingerprint of the model the pictures were drawn from (``fingerprint``)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the build guide (its numbered section, one to one): its scene in
    build_steps.scad (None where the step puts nothing new on the model), its title, the guide's
    section, the bill's rows it uses (each the start of a row's part, ``parts``), the work in short
    lines and the meter's checks before the next step (none where nothing is wired yet)."""

    scene: int | None
    title: str
    guide: str  # the anchor of its section in hardware/README.md
    uses: tuple[str, ...]
    work: tuple[str, ...]
    checks: tuple[str, ...]
    cables: tuple[str, ...] = ()
    """The netlist's cables the step wires, each by the start of its name: its wiring sheet
    (hardware/tools/sheets.py) draws every wire of them."""

    @property
    def picture(self) -> Path | None:
        return None if self.scene is None else PICTURES / f"step-{self.scene}.png"


_WIRING = pinout.load()
BENCH = "python -m pi_table.hardware.tools.bench"
"""The bench step's command: the touch board's own report of its chips and pads (tools/bench.py)."""

STEPS = (
    Step(None, "Gather the parts and test the touch board on the bench", "1-parts-and-tools", (
        "Raspberry Pi Pico", "MPR121 capacitive", "2.54 mm pin header", "Female-female jumper", "USB data cable",
        "Solder wire",
    ), (
        "Solder a header to the Pico and to each MPR121 breakout.",
        "Check each breakout's ADDR, then solder its strap: 0x5A as it is, 0x5B to 3V3, 0x5C to SDA.",
        "Flash CircuitPython on the Pico and deploy the firmware (firmware/README.md).",
        "On the bench, four jumper wires from the Pico to each breakout in turn, or to all three chained: 3V3(OUT) "
        f"(pin 36) to VIN, GND (pin 38) to GND, {_WIRING.sda} (pin {pico_pin(_WIRING.sda)}) to SDA, {_WIRING.scl} "
        f"(pin {pico_pin(_WIRING.scl)}) to SCL.",
        f"Plug the Pico into the Pi (or any computer with a checkout) and run {BENCH}; touch each breakout's "
        "electrode pads E0-E11 in turn with a finger.",
    ), (
        "Before the USB cable, on the continuity range: each breakout's VIN to GND and SDA to SCL, no beep.",
        f"{BENCH} names chips 0x5a, 0x5b and 0x5c, each answering: one missing is its four wires or its "
        "strap (one at another address: its strap).",
        "Every electrode of every chip reported touched once your finger is on it: a breakout that misses one "
        "is changed now, before it is on the frame.",
    ), cables=("W_i2c", "W_MPR121_", "W_usb")),
    Step(1, "Print the enclosure and join the frame", "2-the-printed-enclosure", (
        "PLA filament", "M3 heat-set inserts",
    ), (
        "Print one tile of each kind first; try a card, the top sheet and a pad on it.",
        "Print the rest: 6 frame tiles, 6 carrier tiles, 6 grille tiles, the box, its lid, the hood.",
        "Press the heat-set inserts into the box's posts and standoffs with the iron.",
        "Slide the frame's tiles together at their dovetails (orange, drawn apart here).",
    ), ()),
    Step(2, "Lay the LED strip and the power bus", "3-the-leds", (
        "WS2812B LED strip", "WAGO 221-415", "1000 uF", "330 ohm", "Silicone wire 0.75 mm2", "Three-core cable",
        "Isopropyl alcohol", "Clear neutral-cure silicone", "Heat-shrink tubing", "Silicone hook-up wire",
    ), (
        "Wipe each cell's floor and the front rim with isopropyl alcohol.",
        "Cut the strip into pieces of the LEDs a cell at the marks; stick one in each cell's groove, serpentine "
        "from cell 0, every arrow following the data line.",
        "Join each row's pieces through the notches (+5 V, data, GND); from row to row the data only.",
        "Lay the bus in cell 20 (red here): +5 V connectors along the back wall, GND along the front, C2 on its side, "
        "stripe to ground.",
        "Run a red/black pair from the bus to the start of each row and of the edge; solder it; seal every joint "
        "on the strip's coat with neutral-cure silicone.",
    ), (
        "On the continuity range, at the bus, +5 V to GND: no steady beep (a chirp while C2 charges is right).",
        "The start of each row and of the edge: its +5 V pad to the bus's +5 V, and its GND pad to the bus's GND, "
        "under 1 Ω.",
    ), cables=("W_row", "W_edge_", "W_C2", "W_R2", "W_led")),
    Step(3, "Fit the pads and the breakouts", "4-the-pads", (
        "Copper foil tape", "Double-sided foam", "I2C cable", "Silicone hook-up wire", "Cable ties",
    ), (
        "Lay the copper pads on the carrier's tiles (orange, lifted and see-through here) and a short wire from "
        "each to its breakout's electrode (copper, under the tiles).",
        "Hang each breakout (green), tested on the bench, under its cell on the carrier's posts; chain the bus "
        "from breakout to breakout.",
    ), (
        "After the straps: 0x5B ADDR to 3V3 under 1 Ω, 0x5C ADDR to SDA under 1 Ω, and neither ADDR beeps to GND.",
        "On the continuity range, at the first breakout, SDA to SCL and 3V3 to GND: no beep.",
    ), cables=("W_PADS_", "W_MPR121_", "W_guard", "W_i2c")),
    Step(4, "Wire the electronics box", "5-the-wiring-harness", (
        "Stripboard", "74AHCT125", "DIP-14 socket", "10 kohm", "100 nF", "10 uF", "Panel DC jack",
        "Inline blade fuse holder", "Blade fuse ATO", "PTC resettable fuse", "M12 x 1.5 cable gland",
        "Raspberry Pi 4", "Heatsink", "M2.5 x 6", "MAX98357A", "Speaker", "16 mm momentary push button",
        "7 inch touch display", "Aluminium flat bar", "2.54 mm jumper cap", "Silicone hook-up wire",
        "Female-female jumper", "USB data cable", "Cable ties",
    ), (
        "Cut and drill the stripboard; cut its tracks and solder its links and parts as "
        "[the stripboard drawing](../../hardware/stripboard.svg) shows (print it at 100 %).",
        "Screw the Pi and the stripboard (green) to their standoffs; the cables from the frame in through the glands.",
        "Fit the DC jack and the fuse holder; measure the supply's polarity before the LED cable goes on.",
        "Solder the LED cable, F2 and the shifter's feed; plug the USB cable (a data cable: many short ones only "
        "charge, and the table then finds no touch board); wire the Pi's header by jumpers.",
        "Put the display in the hood, the hood on the lid, the lid on the box (orange, going on).",
    ), (
        "Before the shifter goes in: T33 to each of the board's ground-tied tracks under 1 Ω, T27 (1A) 10 kΩ, "
        "the outputs open (the table under the stripboard drawing).",
        "The LED supply in J1, DC volts: the fuse holder's out lead to the jack's ground lug reads +5 V "
        "(4.75-5.25 V), not -5 V.",
    ), cables=("W_pi_data", "W_F2", "W_shifter_power", "W_jack", "W_led", "W_usb", "W_i2c", "W_end_turn",
               "W_new_game", "W_encoder_", "W_amp", "W_speaker", "W_display_power", "W_dsi")),
    Step(5, "Power on and test", "6-first-power-on", (
        "5 V 4 A power supply", "Raspberry Pi 15 W", "microSD card", "Acrylic sheet",
    ), (
        "Lay the top sheet dry on the frame (white here), the grille's tiles on it (orange), a card in each cell.",
        "Install the software on the Pi; run pi-table selftest.",
    ), (
        "Nothing plugged in: the jack's two lugs, no steady beep; the Pi's pin 20 to the bus's GND under 1 Ω.",
        "The Pico's GND, SDA and SCL to the far breakout's, each under 1 Ω; SDA to SCL and 3V3 to GND, no beep.",
        "The LED supply alone: the strip stays dark and the bus reads 5 V; with the Pi on, the far breakout's "
        "VIN reads 3.3 V.",
        "pi-table selftest ends with: self-test passed.",
    ), cables=("W_brick", "W_pi_psu")),
    Step(None, "Tune the pads, then seal", "7-tuning", (
        "Clear neutral-cure silicone", "Black PVC insulating tape",
    ), (
        "Run pi-table tune with a card in each cell; sudo pi-table tune --write keeps the thresholds it suggests.",
        "Only when every check passes: seal the top sheet to the rim with neutral-cure silicone; a day to cure.",
        "Tape over the wall notches and the edge's hole (light leaks).",
    ), (
        "pi-table tune calls no pad deaf or noisy, with a card on it.",
        "pi-table selftest passes again after --write.",
    )),
)


def parts(step: Step, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The bill's rows a step uses, in the bill's order: each of its ``uses`` starts one row's part."""
    found = []
    for start in step.uses:
        matched = [row for row in rows if row["part"].startswith(start)]
        if len(matched) != 1:
            raise ValueError(f"step {step.title!r} uses {start!r}, which starts {len(matched)} rows of the bill, not one")
        found.append(matched[0])
    return sorted(found, key=rows.index)


def fingerprint(model: Path = enclosure.ENCLOSURE) -> str:
    """What the pictures depend on: every .scad file of the model (in ``model``), how the pictures
    are taken and the steps drawn, as a SHA-256."""
    return enclosure.fingerprint(model, drawn=[step.scene for step in STEPS if step.scene is not None])


def stale() -> bool:
    """Whether the pictures are missing or older than the model."""
    current = SOURCES.is_file() and SOURCES.read_text(encoding="utf-8").strip() == fingerprint()
    return not current or not all(step.picture.is_file() for step in STEPS if step.picture is not None)


WIRES = enclosure.ENCLOSURE / "build_wires.scad"
"""Each step's wiring as build_steps.scad draws it highlighted: written by ``wires_scad`` from the
netlist (``wiring.harness``) and the model's parameters, so a change to either draws the steps again."""
Point = tuple[float, float, float]
WIRE_COLOURS = {"power": "#d62d20", "data": "#2ca02c", "i2c": "#1f77b4", "pads": "#c8793a", "cable": "#5b3a29",
                "usb": "#555555"}


def _elbow(a: Point, b: Point) -> list[Point]:
    """From ``a`` to ``b`` along the walls: first along x, then y, then z (wires turn at right angles)."""
    way = [a, (b[0], a[1], a[2]), (b[0], b[1], a[2]), b]
    return [here for n, here in enumerate(way) if n == 0 or here != way[n - 1]]


def wires(p: dict, harness: dict) -> tuple[list[tuple[int, str, float, list[Point]]], list[tuple[int, str, Point, Point]]]:
    """Each step's wires (step, colour, thickness, the points along their way) and parts (step,
    colour, corner, size) as the step puts them in: the drawn harness's cables and parts only,
    placed by the model's parameters (the routes ``enclosure.led_route`` and ``i2c_route`` measure).
    Step 3's are on the breakouts' plane (build_steps.scad lifts them with the breakouts); step 4's
    in the box's own coordinates."""
    cables, parts = harness["cables"], harness["connectors"]
    columns, rows = p["grid_columns"], p["grid_rows"]
    floor = p["floor_thickness"] + 1
    middle = {cell: (*enclosure._cell_middle(p, cell), floor) for cell in range(columns * rows)}

    def at(column: int, row: int) -> Point:
        x = column * p["pitch_x"] + (p["solder_room"] if column == 0 else p["pocket_length"] - p["solder_room"])
        return x, row * p["pitch_y"] + p["pocket_width"] / 2, floor

    def start(row: int) -> Point:  # the row's first LED: serpentine from cell 0
        return at(enclosure._row_start(p, row), row)

    def end(row: int) -> Point:  # its last, where the data goes on to the next
        return at(columns - 1 - enclosure._row_start(p, row), row)

    last = enclosure._row_start(p, rows - 1)
    edge_x = (columns - 1 - last) * p["pitch_x"] + p["pocket_length"] / 2
    edge = (edge_x, -p["end_band"] - p["rim"], floor)
    bus = middle[p["bus_cell"]]
    found: list[tuple[int, str, float, list[Point]]] = []
    blocks: list[tuple[int, str, Point, Point]] = []
    for row in range(rows):
        if f"W_row{row}_power" in cables:
            found.append((2, WIRE_COLOURS["power"], 4.0, _elbow(bus, start(row))))
        if row and f"W_row{row}_data" in cables:
            found.append((2, WIRE_COLOURS["data"], 3.0, _elbow(end(row - 1), start(row))))
    if "W_edge_power" in cables:
        found.append((2, WIRE_COLOURS["power"], 4.0, _elbow(bus, edge)))
    if "W_edge_data" in cables:
        found.append((2, WIRE_COLOURS["data"], 3.0, _elbow(end(rows - 1), edge)))
    if "EDGE" in parts:  # the edge strip on the front rim's outer face, from the edge hole
        length = p["edge_leds"] / p["strip_per_metre"] * 1000
        blocks.append((2, "#f2f0e6", (min(edge_x, edge_x - length), -p["end_band"] - p["rim"] - 2, floor),
                       (length, 2, p["strip_width"])))
    if "W_led" in cables:
        gland = (enclosure.exit_x(p, p["led_exit_wall"]), p["grid_y"] + p["rim"], p["gland_z"])
        found.append((2, WIRE_COLOURS["cable"], 5.0, _elbow(start(0), gland)))
    route = enclosure.i2c_route(p)
    hosts = {number: (*enclosure._cell_middle(p, host), 0.0) for number, host in enumerate(p["breakout_host"])}
    if "W_i2c" in cables:
        gland = (enclosure.exit_x(p, p["touch_exit_wall"]), p["grid_y"] + p["rim"], 0.0)
        found.append((3, WIRE_COLOURS["cable"], 5.0, _elbow(hosts[route.chain[0]], gland)))
    for a, b in zip(route.chain, route.chain[1:], strict=False):
        found.append((3, WIRE_COLOURS["i2c"], 3.0, _elbow(hosts[a], hosts[b])))
    chips = sorted(name for name in parts if name.startswith("MPR121_"))
    for cell, breakout in enumerate(p["cell_breakout"]):
        if f"W_PADS_{chips[breakout].removeprefix('MPR121_')}" in cables and cell != p["breakout_host"][breakout]:
            found.append((3, WIRE_COLOURS["pads"], 3.0, _elbow((*middle[cell][:2], 0.0), hosts[breakout])))
    wall = p["box_wall"]
    jack = (wall + p["jack_depth"], wall + p["jack_y"], p["jack_z"])
    if "J1" in parts:
        blocks.append((4, "#444444", (0.0, jack[1] - p["jack_hole"] / 2, jack[2] - p["jack_hole"] / 2),
                       (jack[0], p["jack_hole"], p["jack_hole"])))
    if "F1" in parts:  # the fuse holder on the jack's centre lug
        blocks.append((4, WIRE_COLOURS["power"], (jack[0], jack[1] - 20, jack[2] - 4), (8, 16, 8)))
    board_z = p["box_floor"] + p["stripboard_standoff"] + 3
    pico = (wall + p["stripboard_x"] + p["pico_x"] + p["pico_width"] / 2, wall + p["stripboard_y"] + p["pico_y"],
            board_z)
    back = p["box_y"] - wall / 2
    if "W_led" in cables:
        found.append((4, WIRE_COLOURS["cable"], 5.0, _elbow((wall + p["box_led_gland_x"], back, p["box_gland_z"]), jack)))
    if "W_i2c" in cables:
        found.append((4, WIRE_COLOURS["cable"], 5.0,
                      _elbow((wall + p["box_touch_gland_x"], back, p["box_gland_z"]), pico)))
    if "W_usb" in cables:
        usb = (wall + p["pi_x"] + p["pi_length"], wall + p["pi_y"] + p["pi_width"] / 2,
               p["box_floor"] + p["pi_standoff"] + 8)
        found.append((4, WIRE_COLOURS["usb"], 4.0, _elbow((pico[0], wall + p["stripboard_y"], board_z), usb)))
    return found, blocks


def wires_scad() -> str:
    """enclosure/build_wires.scad: ``wires`` for the reference wiring and model, as OpenSCAD lists."""
    from . import wiring

    def point(xyz: Point) -> str:
        return "[" + ", ".join(f"{value:.1f}" for value in xyz) + "]"

    found, blocks = wires(enclosure.read(), wiring.harness(pinout.load()))
    lines = ["// Made by hardware/tools/steps.py (tools/docs.py) from the netlist and params.scad: do not edit.",
             "// wires: [step, colour, thickness, [points]]; blocks: [step, colour, corner, size].", "wires = ["]
    lines += [f'    [{step}, "{colour}", {thick:g}, [{", ".join(map(point, points))}]],' for step, colour, thick, points
              in found]
    lines += ["];", "blocks = ["]
    lines += [f'    [{step}, "{colour}", {point(corner)}, {point(size)}],' for step, colour, corner, size in blocks]
    return "\n".join([*lines, "];", ""])


def can_render() -> bool:
    return shutil.which("openscad") is not None and (bool(os.environ.get("DISPLAY")) or shutil.which("xvfb-run") is not None)


def render(folder: Path = PICTURES, model: Path = enclosure.ENCLOSURE) -> list[str]:
    """Draw each step's picture from the model in ``model`` into ``folder``, then note the model's
    fingerprint there; the warnings OpenSCAD printed (none: the fingerprint is written)."""
    folder.mkdir(parents=True, exist_ok=True)
    under_x = not os.environ.get("DISPLAY")
    warnings = []
    for step in STEPS:
        if step.picture is None or step.scene is None:
            continue
        picture = folder / step.picture.name
        made = enclosure._openscad([*enclosure.VIEW, "-D", f"step={step.scene}", "-o", str(picture),
                                    str(model / SCENE.name)], picture, under_x)
        warnings += [f"{picture.name}: {warning}" for warning in made.warnings]
    if not warnings:
        (folder / SOURCES.name).write_text(fingerprint(model) + "\n", encoding="utf-8")
    return warnings


def page() -> str:
    """docs/make/steps.md: the build a step a page, one for each numbered step of the guide, each
    with its picture, the parts it uses (from the bill), its work and its checks to tick."""
    from .guide import bom_rows

    rows = bom_rows()
    lines = [
        "# The build, step by step", "",
        "*Generated by `tools/docs.py` from `hardware/tools/steps.py` and the bill of materials, its pictures drawn "
        "from the OpenSCAD model (`enclosure/build_steps.scad`): do not edit it by hand (`./dev docs` writes it "
        "again).*", "",
        f"Print this page: each of the guide's {len(STEPS)} steps starts a sheet of its own. In each picture, what "
        "the step puts in is in colour, lifted apart where its parts go together, and its wiring drawn over it from "
        "the wiring diagram: red the LED pairs' +5 V, green the data, blue the touch chips' bus, copper the pads' "
        "wires, brown the LED and I2C cables, grey the USB cable; what the steps before it built is grey. Each step "
        "that wires something has a wiring sheet too, drawn from the netlist and the stripboard's layout: its parts "
        "as you hold them (the stripboard from above with the Pico and U1 on it, the Pi's header pin 1 at the top "
        "left, each breakout with its pins and pads), every wire it puts in drawn in its colour and labelled at both "
        "ends with its pin's name; open it alone and print it on A4 at 100 % (its labels print at 8.5 pt). Tick each "
        "line as you go, and do not start a step before every check of the one before it holds. "
        "[The build guide](guide.md) says why each thing is done as it is; each step links to its section.", ""]
    for number, step in enumerate(STEPS, 1):
        lines += [f"## Step {number}: {step.title}", ""]
        if step.picture is not None:
            lines += [f"![Step {number}: {step.title}](../../enclosure/pictures/steps/{step.picture.name})", ""]
        if step.cables:
            sheet = f"../../hardware/{SHEETS.name}/step-{number}.svg"
            lines += [f"[![Step {number}'s wiring sheet: every wire it puts in, labelled at both ends]({sheet})]({sheet})",
                      "", f"[Its wiring sheet]({sheet}) alone, to print on A4.", ""]
        lines += ["The parts it uses (from [the bill of materials](bom.md)):", "",
                  *(f"- ☐ {row['quantity']} × {row['part']} ({row['typical part or product'].split(':')[0].split(' (')[0]})"
                    for row in parts(step, rows)), ""]
        lines += ["What to do:", "", *(f"- ☐ {line}" for line in step.work), ""]
        lines += ["Check with the meter before going on:", "", *(f"- ☐ {line}" for line in step.checks), ""] if step.checks \
            else ["Nothing to measure yet: nothing is wired.", ""]
        lines += [f"The guide: [{step.title}](guide.md#{step.guide}).", ""]
        if number < len(STEPS):
            lines += ['<div style="break-after: page"></div>', ""]
    return "\n".join(lines)
