"""The build guide's tables, made from the sources: the pinout, the bill of materials, the
power budget, and the enclosure's figures (enclosure/params.scad). ``python -m
pi_table.hardware.tools.guide`` rewrites each ``<!-- generated: NAME -->`` block of hardware/README.md;
a test checks the committed guide is current, so every number in it comes from a file CI checks.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import re
import sys
from pathlib import Path

from ...drivers.touchboard import spans
from ...engine import CELLS, GRID
from ...ui.pixels import PowerLimit
from .. import pinout
from ..pinout import HEADER, MPR121_ELECTRODES, Pinout
from . import HARDWARE, enclosure, heat, latency
from . import wiring as diagram

LED = PowerLimit()  # the output stage's own estimate of what one WS2812B draws


def bom_rows(path: Path = HARDWARE / "bom.csv") -> list[dict[str, str]]:
    text = path.read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


PART_NUMBER = re.compile(r"\b[A-Z0-9][A-Za-z0-9./-]*\d[A-Za-z0-9./-]*\b")
"""A maker's part number or a distributor's order code: a word with a digit (SC0915, 0257005.PXPV),
after the maker's name that begins the typical part ("Raspberry Pi SC0915", "3M 1181")."""
UNSOURCED = frozenset({
    "Three-core cable H03VV-F 3 x 0.75 mm2 (18 AWG), 1.5 m",
    "Silicone wire 0.75 mm2 (18 AWG), red and black, 3 m each",
    "M12 x 1.5 cable gland, 15 mm thread, for 3.5-7 mm cable (12.5 mm hole)",
})
"""The rows that still name their kind, not a part: no maker's number for them has been checked
yet, so each states a buyable specification that ``specification_problems`` checks against the
design. The guide's *What was and was not checked* names each, and the rule below fails when one
is sourced and still listed here, as when any other row loses its number."""


def names_a_part(typical: str) -> bool:
    """Whether a row's typical part names a maker and its number, not only the kind of part."""
    maker = typical[:1].isupper() or typical[:1].isdigit()  # a maker's name first, not "any" nor "nylon"
    return maker and PART_NUMBER.search(typical) is not None


def orderable_problems(rows: list[dict[str, str]]) -> list[str]:
    """The rows a maker cannot order as they stand: an electrical part, or a part whose fit hangs on
    its data sheet, that names no maker's part number or order code ("any ATO holder")."""
    found = []
    for row in rows:
        typical = row["typical part or product"]
        needs = row["kind"] == "electrical" or "data sheet" in typical
        numbered = names_a_part(typical)
        if needs and not numbered and row["part"] not in UNSOURCED:
            found.append(f"hardware/bom.csv: {row['part']}: its typical part ({typical[:60]!r}) names no maker's part "
                         "number or order code: name one that fits, as the row's other words say")
        elif numbered and row["part"] in UNSOURCED:
            found.append(f"hardware/bom.csv: {row['part']} now names a part: take it off guide.UNSOURCED and the guide's "
                         "list of parts still to source")
    return found


GLAND = re.compile(r"\bM(?P<diameter>\d+) x (?P<pitch>\d+(?:\.\d+)?) cable gland, (?P<thread>\d+(?:\.\d+)?) mm "
                   r"thread, for (?P<least>\d+(?:\.\d+)?)-(?P<most>\d+(?:\.\d+)?) mm cable "
                   r"\((?P<hole>\d+(?:\.\d+)?) mm hole\)")
"""A gland's buyable specification, as its row in the bill names it: its thread (diameter x pitch),
the thread's length, the cables it clamps, the hole it wants."""
GLAND_FORM = "'M<diameter> x <pitch> cable gland, <length> mm thread, for <least>-<most> mm cable (<hole> mm hole)'"
SPARE = re.compile(r"(?P<mm>\d+(?:\.\d+)?) mm or more to spare")
"""The margin in the clamping range a gland's row promises each cable ("1 mm or more to spare")."""
HOLE_PLAY = 1.0
"""How much wider than its thread a gland's hole may be, mm: this build's allowance for the thread
the bill names to be the one the hole was drilled for, not a maker's figure."""


def specification_problems(rows: list[dict[str, str]], harness: dict, shape: dict) -> list[str]:
    """The rows bought by their words, not a maker's number, against the design's own figures: a
    gland's thread against the hole params.scad drills, its length against each wall it goes
    through with the locknut and a turn to spare, its clamping range against each cable's
    diameter with the margin the row promises (params.scad's gland_spare where it promises none); a
    wire's gauge stated (the wiring rules hold it to the diagram's, and that to the current it carries)."""
    found = []
    for row in rows:
        part = row["part"]
        if "gland" in part.lower():
            found += gland_problems(row, shape)
        cables = sorted(item for item in row["in the diagram"].split() if harness["cables"].get(item, {}).get("gauge"))
        if cables and not names_a_part(row["typical part or product"]) and not diagram.GAUGES.search(part):
            gauges = " and ".join(sorted({harness["cables"][cable]["gauge"] for cable in cables}))
            found.append(f"hardware/bom.csv: {part} is bought by its words, for {', '.join(cables)}, and states no "
                         f"gauge: say {gauges}, the gauge the diagram draws them in")
    return found


def gland_problems(row: dict[str, str], shape: dict) -> list[str]:
    """A gland's row against the enclosure's hole, walls and cables (enclosure.GLAND_WALLS, GLAND_CABLES)."""
    part = row["part"]
    spec = GLAND.search(part)
    if spec is None:
        return [f"hardware/bom.csv: {part} does not state the gland to buy: name it as {GLAND_FORM}, the figures "
                "the rules check"]
    found = []
    diameter, pitch, thread, hole = int(spec["diameter"]), float(spec["pitch"]), float(spec["thread"]), float(spec["hole"])
    least, most, drilled = float(spec["least"]), float(spec["most"]), shape["gland_hole"]
    if hole != drilled:
        found.append(f"hardware/bom.csv: {part}: it asks for a {hole:g} mm hole; params.scad's gland_hole drills "
                     f"{drilled:g} mm: say ({drilled:g} mm hole)")
    if not diameter < drilled <= diameter + HOLE_PLAY:
        found.append(f"hardware/bom.csv: {part}: its M{diameter} thread does not fit the {drilled:g} mm hole "
                     f"params.scad's gland_hole drills: buy an M{math.ceil(drilled - HOLE_PLAY)} gland, or drill "
                     f"gland_hole for M{diameter}")
    nut = shape["gland_nut_depth"]
    where, wall = max(((where, shape[name]) for where, name in enclosure.GLAND_WALLS.items()), key=lambda each: each[1])
    if thread < wall + nut + pitch:
        found.append(f"hardware/bom.csv: {part}: its {thread:g} mm thread does not take {where} ({wall:g} mm), its "
                     f"locknut ({nut:g} mm) and a turn to spare ({pitch:g} mm): buy a long-thread gland, "
                     f"{wall + nut + pitch:g} mm of thread or more")
    promised = SPARE.search(row["what it is for"])
    spare = float(promised["mm"]) if promised else shape["gland_spare"]
    across = {what: shape[name] for what, name in enclosure.GLAND_CABLES.items()}
    found += [f"hardware/bom.csv: {part}: {what}, {mm:g} mm across (params.scad's {enclosure.GLAND_CABLES[what]}), is "
              f"not {spare:g} mm inside its {least:g}-{most:g} mm clamping range: buy a gland clamping "
              f"{min(across.values()) - spare:g}-{max(across.values()) + spare:g} mm or wider"
              for what, mm in across.items() if not least + spare <= mm <= most - spare]
    return found


def bom_total(rows: list[dict[str, str]]) -> float:
    return round(sum(int(row["quantity"]) * float(row["unit price (USD)"]) for row in rows), 2)


def bom_table() -> str:
    rows = bom_rows()
    lines = ["| part | qty | typical part or product | unit USD | for | drawn as |",
             "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        drawn = ", ".join(row["in the diagram"].split()) or row["kind"]
        lines.append(f"| {row['part']} | {row['quantity']} | {row['typical part or product']} | "
                     f"{float(row['unit price (USD)']):.2f} | {row['what it is for']} | {drawn} |")
    lines.append(f"| **total** | | | **{bom_total(rows):.2f}** | typical prices, before shipping | |")
    return "\n".join(lines)


def pinout_table(wiring: Pinout) -> str:
    grounds = wiring.grounds
    lines = ["| function | BCM GPIO | header pin | its ground pin |", "| --- | --- | --- | --- |",
             f"| LED data ({pinout.LED_DATA[wiring.led_data]}), to the shifter | {wiring.led_data} | "
             f"{HEADER[wiring.led_data][0]} | {grounds['led_data']} |"]
    for name, pin in wiring.buttons.items():
        fitted = "" if wiring.encoder_fitted or not name.startswith("encoder") else " (optional, not fitted by default)"
        lines.append(f"| {name.replace('_', ' ')}{fitted} | {pin} | {HEADER[pin][0]} | {grounds[name]} |")
    lines.append(f"| the display's power cable (5 V) | | {pinout.DISPLAY_5V} | {grounds['display']} |")
    if wiring.amp_fitted:
        for signal, words in (("bclk", "bit clock, BCLK"), ("lrclk", "frame clock, LRC"), ("din", "data, DIN")):
            pin = wiring.amp_pins[signal]
            lines.append(f"| amplifier I2S {words} ({HEADER[pin][1]}) | {pin} | {HEADER[pin][0]} | |")
        lines.append(f"| amplifier VIN (5 V) and GND | | {wiring.amp_vin_pin} | {grounds['amp']} |")
    lines += ["", "| Pico | to | MPR121 address | electrodes |", "| --- | --- | --- | --- |"]
    for chip in wiring.chips:
        last = chip.first_electrode + MPR121_ELECTRODES - 1
        lines.append(f"| {wiring.sda} (SDA), {wiring.scl} (SCL) | ADDR to {chip.addr_to} | "
                     f"{hex(chip.address)} | {chip.first_electrode}-{last} |")
    columns = GRID
    lines += ["", "| each cell's electrode | " + " | ".join(f"column {n}" for n in range(columns)) + " |",
              "| --- |" + " --- |" * columns]
    for row in range(GRID):
        found = wiring.cell_electrodes[row * columns:(row + 1) * columns]
        side = " (the operatives' side)" if row == 0 else " (the spymasters' side)" if row == GRID - 1 else ""
        lines.append(f"| row {row}{side} | " + " | ".join(f"cell {row * columns + n}: **{e}**"
                                                         for n, e in enumerate(found)) + " |")
    lines += ["", f"Column 0 is at {CORNER}. END TURN pads on electrodes "
              f"{', '.join(map(str, wiring.end_turn_electrodes))}. I2C at {wiring.i2c_hz // 1000} kHz."]
    return "\n".join(lines)


def chips_table(wiring: Pinout) -> str:
    """Which cards and END TURN pads each touch chip reads, from the pinout: a chip that does not
    answer leaves exactly these deaf (never a row, nor twelve cards: the chips' pads are spread
    so that each breakout's wires stay short)."""
    lines = ["| chip | its ADDR pin to | cards | END TURN pads |", "| --- | --- | --- | --- |"]
    for chip in wiring.chips:
        electrodes = range(chip.first_electrode, chip.first_electrode + MPR121_ELECTRODES)
        cells = [cell for cell, electrode in enumerate(wiring.cell_electrodes) if electrode in electrodes]
        end_turn = sum(electrode in electrodes for electrode in wiring.end_turn_electrodes)
        lines.append(f"| {hex(chip.address)} | {chip.addr_to} | {spans(cells) or 'none'} | {end_turn or 'none'} |")
    return "\n".join(lines)


PI_LOADS = {"pi": "the Pi 4, busy", "display": "the display, full backlight",
            "touch_board": "the Pico and its MPR121s, through USB"}
"""The words for what the Pi's supply feeds (pinout.toml's power.pi_loads_ma)."""


def power_table(wiring: Pinout) -> str:
    leds = wiring.leds
    full = leds * diagram.MA_PER_LED_FULL
    rest = leds * LED.idle_ma_per_led
    limit = wiring.current_limit_ma
    return "\n".join([
        "| figure | value |", "| --- | --- |",
        f"| LEDs | {leds} ({CELLS} cells x {wiring.leds_per_cell}, edge {wiring.edge_leds}) |",
        f"| strip | {wiring.strip_m:.2f} m at {wiring.strip_per_metre} LEDs/m, from a {wiring.strip_reel_m:g} m reel |",
        f"| worst case, every LED full white | {full / 1000:.2f} A ({diagram.MA_PER_LED_FULL:g} mA each) |",
        f"| at rest, every LED dark | {rest / 1000:.2f} A |",
        f"| LED supply | {wiring.led_supply_ma / 1000:.2f} A at 5 V |",
        f"| limit the daemon enforces (`leds.current_limit_ma`) | {limit / 1000:.2f} A: the supply less "
        f"{wiring.led_supply_margin:.0%} |",
        f"| without the limit, full white would ask the supply for | {full / wiring.led_supply_ma:.1f}x its rating |",
        *(f"| the Pi's supply feeds: {PI_LOADS.get(name, name)} (estimate) | {ma / 1000:.2f} A |"
          for name, ma in wiring.pi_loads_ma.items()),
        *([f"| the Pi's supply feeds: the amplifier at its peak, 3 W into 4 ohm (estimate) | "
           f"{wiring.amp_peak_ma / 1000:.2f} A |"] if wiring.amp_fitted else []),
        f"| the Pi's supply | {wiring.pi_supply_ma / 1000:.2f} A at 5 V, asked for at most "
        f"{wiring.pi_supply_load_ma / 1000:.2f} A |",
    ])


def wires_table(wiring: Pinout) -> str:
    """The wires that carry amps (the LEDs', the Pi's supply's, the amplifier's), with their gauge
    and the most each may carry."""
    harness = diagram.harness(wiring)
    currents = diagram.currents(harness, wiring)
    lines = ["| wire | gauge | carries at most | rated | what |", "| --- | --- | --- | --- | --- |"]
    for cable, spec in harness["cables"].items():
        most = max((ma for (name, _), ma in currents.items() if name == cable), default=0.0)
        if most > diagram.LISTED_MA:
            lines.append(f"| {cable} | {spec['gauge']} | {most / 1000:.2f} A | "
                         f"{diagram.AMPACITY_MA[spec['gauge']] / 1000:g} A | {spec['notes']} |")
    joins = diagram.ROW_JOIN_GAUGE
    lines.append(f"| within a row, piece to piece | {joins} | {diagram.row_join_ma(wiring) / 1000:.2f} A | "
                 f"{diagram.AMPACITY_MA[joins] / 1000:g} A | the three short wires through each notch |")
    return "\n".join(lines)


def i2c_table(wiring: Pinout, shape: dict) -> str:
    """The I2C bus from the box to the frame, as the wiring's I2C rule reads it from the harness: its
    cable's length from params.scad, its capacitance at its most (the cable's data sheet figure with
    a margin), its pull-ups and its rise time, against the mode at the pinout's clock rate and the
    other mode's."""
    route = enclosure.i2c_route(shape)
    bus = diagram.i2c_bus(diagram.harness(wiring))
    lengths = {cable: metres or 0.0 for cable, metres, _ in bus.cables}
    mode, rise, _ = diagram.i2c_mode(wiring.i2c_hz)
    other = 400_000 if wiring.i2c_hz <= 100_000 else 100_000
    other_mode, other_rise, _ = diagram.i2c_mode(other)
    rise_ns = bus.rise_ns() or 0.0
    hosts = " to ".join(f"cell {shape['breakout_host'][n]}" for n in route.chain)
    cut = next(row for row in bom_rows() if "I2C cable" in row["part"])["part"]
    on_frame = sum(metres for cable, metres in lengths.items() if cable != "W_i2c")
    return "\n".join([
        "| figure | value |", "| --- | --- |",
        f"| I2C cable, Pico to the first breakout | {lengths['W_i2c']:.2f} m along its way (the bill: {cut}) |",
        f"| the bus on the frame, breakout to breakout | {on_frame:.2f} m, {hosts} |",
        f"| the cable, a line to the other cores | {diagram.i2c_cable_pf_per_m():g} pF/m: {diagram.I2C_CABLE}'s data "
        f"sheet gives {diagram.I2C_CABLE_DATASHEET_PF_PER_M} pF/m ({diagram.I2C_CABLE_DATASHEET_PF_PER_M} nF/km) core "
        f"to core, x {diagram.I2C_CABLE_MARGIN:g} for the line's three neighbours |",
        f"| one bus line's capacitance, at its most | {bus.pf:.0f} pF: the cable, the frame's wires at "
        f"{diagram.I2C_WIRE_PF_PER_M} pF/m (an estimate), {len(bus.devices)} pins at {diagram.I2C_PIN_PF} pF; the I2C "
        f"specification (NXP UM10204) allows {diagram.I2C_BUS_PF} pF |",
        f"| its pull-ups | {(bus.pullup_ohm or 0) / 1000:.2f} kOhm: the {len(bus.pullups)} breakouts' "
        f"{diagram.BREAKOUT_PULLUPS} in parallel |",
        f"| its rise time at {wiring.i2c_hz // 1000} kHz (`i2c_hz`) | {rise_ns:.0f} ns (0.8473 R C, 30 % to 70 %): "
        f"{mode} allows {rise} ns |",
        f"| at {other // 1000} kHz | {other_mode} allows {other_rise} ns: "
        + ("this bus fits" if rise_ns <= other_rise else "this bus does not fit") + " |",
    ])


def blocks() -> dict[str, str]:
    wiring = pinout.load()
    shape = enclosure.read()
    return {"pinout": pinout_table(wiring), "chips": chips_table(wiring), "bom": bom_table(), "power": power_table(wiring),
            "wires": wires_table(wiring), "i2c": i2c_table(wiring, shape),
            "pads": enclosure.pads_table(shape), "printing": enclosure.printing_table(shape),
            "station": enclosure.station_table(shape), "led_cable": enclosure.led_table(shape),
            "latency": latency.table(wiring), "heat": heat.table(shape, wiring)}


def render(guide: str) -> str:
    """``guide`` with each generated block replaced by what the sources say now."""
    made = blocks()

    def fill(match: re.Match) -> str:
        name = match.group(1)
        if name not in made:
            raise KeyError(f"the guide asks for a block {name!r}; there are {', '.join(made)}")
        return f"<!-- generated: {name} -->\n{made[name]}\n<!-- end -->"

    return re.sub(r"<!-- generated: (\w+) -->\n.*?<!-- end -->", fill, guide, flags=re.DOTALL)


SCREEN_CORNER = re.compile(r"\b(top|bottom|upper|lower)[- ](left|right)\b", re.IGNORECASE)
"""A corner named as on a screen: on a table it reads differently from each side."""
CORNER = "the operatives' left"
"""How every document names the corner of cell 0, LED 0 and electrode 0 (row 0 is the row nearest
the operatives), as enclosure/params.scad puts the grid's origin."""


def corner_problems(name: str, text: str) -> list[str]:
    """Each place in a build document that names a corner from one seat's view, not the table's."""
    return [f"{name} line {number} names a corner {match.group(0)!r}: say {CORNER}, row 0 (as params.scad)"
            for number, line in enumerate(text.splitlines(), 1) for match in SCREEN_CORNER.finditer(line)]


GUIDES = (HARDWARE / "README.md", enclosure.ENCLOSURE / "README.md")
"""The files with generated blocks: the build guide, and the enclosure's README (its print settings)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.hardware.tools.guide",
                                     description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    missing = [str(guide) for guide in GUIDES if not guide.is_file()]
    if missing:
        print(f"needs a checkout of pi-table: {', '.join(missing)} not found", file=sys.stderr)
        return 2
    for guide in GUIDES:
        guide.write_text(render(guide.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {guide}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
