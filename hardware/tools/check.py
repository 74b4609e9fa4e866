"""Every rule of the build at once, each file read whole: the pinout's, the wiring diagram's
netlist and the bill of materials against it (the rows bought by their words against the design's
figures), the stripboard's, each step's wiring sheet, the
enclosure's fit, the firmware's pins, and the files agreeing where two say one thing. A mistake that one file's rules cannot see
(a strip of the wrong density in the bill, the I2C bus moved on the Pico but not on the stripboard)
shows here, named with its fix.

``python -m pi_table.hardware.tools.check [CHECKOUT]`` prints each problem of a checkout (this one
by default) and exits 1 when there is any.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .. import pinout
from ..pinout import Pinout
from . import HARDWARE, enclosure, guide, sheets, stripboard, wiring
from .steps import STEPS

SHARED = {"leds_per_cell": "leds_per_cell", "strip_per_metre": "strip_per_metre", "edge_leds": "edge_leds"}
"""The figures params.scad and pinout.toml both give: params.scad's name, the pinout's."""


def problems(checkout: Path = HARDWARE.parent) -> list[str]:
    """Every rule the checkout's build files break, in words; empty when they are sound."""
    wiring_ = pinout.load((checkout / "hardware" / "pinout.toml").read_text(encoding="utf-8"))
    shape = enclosure.read((checkout / "enclosure" / "params.scad").read_text(encoding="utf-8"))
    rows = guide.bom_rows(checkout / "hardware" / "bom.csv")
    found = wiring_.problems() + enclosure.problems(shape) + agreement_problems(wiring_, shape)
    found += firmware_problems(checkout / "firmware", wiring_)
    try:
        harness = wiring.harness(wiring_, shape)
    except ValueError:  # a GP name the Pico does not have: the pinout's rules above name it
        return found
    found += wiring.problems(harness, wiring_) + wiring.bom_problems(harness, rows)
    found += guide.specification_problems(rows, harness, shape) + guide.orderable_problems(rows)
    return found + stripboard.problems(stripboard.layout(), harness, rows) + sheet_problems(checkout, harness)


def sheet_problems(checkout: Path, harness: dict) -> list[str]:
    """Each step's wiring sheet in the checkout draws every wire the netlist gives the step, on A4
    at 8 pt or more; every cable is some step's."""
    found = sheets.unwired_problems(harness)
    for number in range(1, len(STEPS) + 1):
        path = checkout / sheets.sheet_path(number).relative_to(HARDWARE.parent)
        text = path.read_text(encoding="utf-8") if path.is_file() else None
        found += sheets.problems(number, text, harness)
    return found


def agreement_problems(wiring_: Pinout, shape: dict) -> list[str]:
    """Where params.scad and pinout.toml give one figure, they give the same."""
    found = [f"params.scad's {scad} is {shape[scad]}, pinout.toml's {toml} is {getattr(wiring_, toml)}: make them one"
             for scad, toml in SHARED.items() if shape[scad] != getattr(wiring_, toml)]
    if shape["mpr121_count"] != len(wiring_.chips):
        found.append(f"params.scad mounts {shape['mpr121_count']} MPR121 breakouts, pinout.toml wires "
                     f"{len(wiring_.chips)}: make them one")
    return found


I2C_PINS = re.compile(r"busio\.I2C\(board\.(GP\d+), board\.(GP\d+)")
"""How firmware/code.py opens the bus: busio.I2C(SCL, SDA)."""
MAINTENANCE_PIN = re.compile(r'MAINTENANCE_PIN = "(GP\d+)"')


def firmware_problems(firmware: Path, wiring_: Pinout) -> list[str]:
    """The firmware opens the I2C bus on the pinout's pins and reads the maintenance jumper on its pin."""
    found = []
    code = I2C_PINS.search((firmware / "code.py").read_text(encoding="utf-8"))
    if code is None or (code[2], code[1]) != (wiring_.sda, wiring_.scl):
        opened = f"SDA {code[2]}, SCL {code[1]}" if code else "no pins it can be read from"
        found.append(f"firmware/code.py opens the I2C bus on {opened}; pinout.toml wires SDA {wiring_.sda}, "
                     f"SCL {wiring_.scl}: write busio.I2C(board.{wiring_.scl}, board.{wiring_.sda}, ...)")
    boot = MAINTENANCE_PIN.search((firmware / "boot.py").read_text(encoding="utf-8"))
    if boot is None or boot[1] != wiring_.maintenance_pin:
        found.append(f"firmware/boot.py reads the maintenance jumper on {boot[1] if boot else 'no pin'}; pinout.toml "
                     f"puts it on {wiring_.maintenance_pin}: write MAINTENANCE_PIN = \"{wiring_.maintenance_pin}\"")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.hardware.tools.check",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, nargs="?", default=HARDWARE.parent,
                        help="the checkout whose hardware/, enclosure/ and firmware/ to check (default: this one)")
    checkout = parser.parse_args(argv).checkout
    if not (checkout / "hardware" / "bom.csv").is_file():
        print(f"needs a checkout of pi-table: {checkout / 'hardware' / 'bom.csv'} not found", file=sys.stderr)
        return 2
    found = problems(checkout)
    for problem in found:
        print(problem)
    print(f"{len(found)} problems" if found else "every rule holds", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
