"""The wiring diagram, drawn from the pinout: a WireViz harness description (YAML), which the
``wireviz`` command (with Graphviz) renders to SVG and PNG.

``python -m pi_table.hardware.wiring [FOLDER]`` writes ``wiring.yml`` into FOLDER (hardware/
by default) and, when ``wireviz`` is installed, ``wiring.svg`` and ``wiring.png`` beside it.
A test checks that the committed ``wiring.yml`` is what the pinout gives.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

from . import pinout
from .pinout import HEADER, MPR121_ELECTRODES, Pinout

STRAP = {"SDA": 1, "SCL": 2, "3V3": 3, "GND": 4}  # the breakout's pin that ADDR is tied to
GROUND_PIN = 6  # one of the header's ground pins (6, 9, 14, 20, 25, 30, 34, 39)


def harness(wiring: Pinout) -> dict:
    """The WireViz description: connectors, cables and how they join."""
    buttons = {name: pin for name, pin in wiring.buttons.items() if wiring.encoder_fitted or not name.startswith("encoder")}
    header_pins = [HEADER[wiring.led_data][0], *(HEADER[pin][0] for pin in buttons.values()), GROUND_PIN]
    header_labels = [f"GPIO{wiring.led_data}", *(f"GPIO{pin}" for pin in buttons.values()), "GND"]
    connectors = {
        "Pi": {"type": "Raspberry Pi 40-pin header", "pins": header_pins, "pinlabels": header_labels},
        "Shifter": {"type": "74AHCT125 level shifter", "pinlabels": ["1A", "1Y", "VCC 5V", "GND", "1OE"]},
        "LED_PSU": {"type": "5 V LED supply", "pinlabels": ["+5V", "GND"],
                    "notes": f"{wiring.led_supply_ma / 1000:g} A; 1000 uF across it at the strip"},
        "Strip": {"type": "WS2812B strip input", "pinlabels": ["DIN", "+5V", "GND"],
                  "notes": f"{wiring.leds} LEDs: {wiring.leds_per_cell} a cell, serpentine rows, then the edge"},
        "Pico": {"type": pinout_board(wiring), "pinlabels": [wiring.sda, wiring.scl, "3V3(OUT)", "GND", "USB"]},
        "Pi_USB": {"type": "Raspberry Pi USB-A port", "pinlabels": ["USB"]},
    }
    for name in buttons:
        connectors[_title(name)] = {"type": "push button to GND", "pinlabels": ["switch", "GND"]}
    cables = {
        "W_data": {"wirecount": 2, "colors": ["GN", "BK"], "notes": "keep under 1 m"},
        "W_led": {"wirecount": 1, "colors": ["GN"], "notes": "330 ohm in series at the first LED"},
        "W_power": {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "0.75 mm2", "notes": "LED supply to the strip"},
        "W_logic": {"wirecount": 2, "colors": ["RD", "BK"], "notes": "5 V and ground to the shifter"},
        "W_usb": {"category": "bundle", "wirecount": 1, "colors": ["WH"], "notes": "USB cable: power and data"},
    }
    connections = [
        [{"Pi": [header_pins[0], GROUND_PIN]}, {"W_data": [1, 2]}, {"Shifter": [1, 4]}],
        [{"Shifter": [2]}, {"W_led": [1]}, {"Strip": [1]}],
        [{"LED_PSU": [1, 2]}, {"W_power": [1, 2]}, {"Strip": [2, 3]}],
        [{"LED_PSU": [1, 2]}, {"W_logic": [1, 2]}, {"Shifter": [3, 5]}],
        [{"Pico": [5]}, {"W_usb": [1]}, {"Pi_USB": [1]}],
    ]
    for name, pin in buttons.items():
        cable = f"W_{name}"
        cables[cable] = {"wirecount": 2, "colors": ["WH", "BK"]}
        connections.append([{"Pi": [HEADER[pin][0], GROUND_PIN]}, {cable: [1, 2]}, {_title(name): [1, 2]}])
    for chip in wiring.chips:
        name = f"MPR121_{chip.address:02X}"
        last = chip.first_electrode + MPR121_ELECTRODES - 1
        connectors[name] = {
            "type": f"MPR121 breakout at {hex(chip.address)}",
            "pinlabels": ["SDA", "SCL", "VIN", "GND", "ADDR"],
            "notes": f"ADDR to {chip.addr_to}; electrodes {chip.first_electrode}-{last}",
            "loops": [[STRAP[chip.addr_to], 5]],  # the address strap, ADDR tied to its neighbour
        }
        cables[f"W_{name}"] = {"wirecount": 4, "colors": ["BU", "YE", "RD", "BK"], "notes": "the one I2C bus"}
        connections.append([{"Pico": [1, 2, 3, 4]}, {f"W_{name}": [1, 2, 3, 4]}, {name: [1, 2, 3, 4]}])
    return {"connectors": connectors, "cables": cables, "connections": connections}


def pinout_board(wiring: Pinout) -> str:
    return f"Raspberry Pi Pico touch board, I2C {wiring.i2c_hz // 1000} kHz"


def _title(name: str) -> str:
    return name.replace("_", " ").upper().replace(" ", "_")


def text(wiring: Pinout) -> str:
    """The harness as YAML (JSON is YAML, and needs no YAML writer), with a header comment."""
    return ("# Made by python -m pi_table.hardware.wiring from hardware/pinout.toml: edit that, not this.\n"
            + json.dumps(harness(wiring), indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.hardware.wiring", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, nargs="?", default=Path(__file__).parent,
                        help="where to write wiring.yml, .svg and .png (default: beside this module, hardware/)")
    folder = parser.parse_args(argv).folder
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "wiring.yml"
    source.write_text(text(pinout.load()), encoding="utf-8")
    print(f"wrote {source}")
    if importlib.util.find_spec("wireviz") is None or shutil.which("dot") is None:
        print("wireviz or Graphviz is not installed (pip install wireviz, apt install graphviz): no SVG or PNG",
              file=sys.stderr)
        return 1
    command = [sys.executable, "-m", "wireviz.wv_cli", "--format", "sp", "--output-dir", str(folder), str(source)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
