"""The wiring diagram, drawn from the pinout: a WireViz harness description (YAML), which the
``wireviz`` command (with Graphviz) renders to SVG and PNG, and the electrical rules it must keep,
checked by reading it back as a netlist.

``python -m pi_table.hardware.tools.wiring [FOLDER]`` writes ``wiring.yml`` into FOLDER (hardware/
by default) and, when ``wireviz`` is installed, ``wiring.svg`` and ``wiring.png`` beside it.
A test checks that the committed ``wiring.yml`` is what the pinout gives, and that it breaks
none of the rules in ``problems``.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ...engine import GRID
from ...ui.pixels import PowerLimit
from .. import pinout
from ..pinout import HEADER, MPR121_ELECTRODES, Pinout, pico_pin
from . import HARDWARE, enclosure

STRAP = {"SDA": 1, "SCL": 2, "3V3": 3, "GND": 4}  # the breakout's pin that ADDR is tied to
MA_PER_LED_FULL = 3 * PowerLimit().ma_per_channel  # one WS2812B at full white, as the output stage reckons it

AHCT125 = {1: "1OE", 2: "1A", 3: "1Y", 4: "2OE", 5: "2A", 6: "2Y", 7: "GND",
           8: "3Y", 9: "3A", 10: "3OE", 11: "4Y", 12: "4A", 13: "4OE", 14: "VCC"}
"""The 74AHCT125's DIP-14 pins, as TI's SN74AHCT125 and Nexperia's 74AHCT125 datasheets number
them: four buffers, each with an active-low output enable (nOE), input nA and output nY."""
ICS = {"125": AHCT125}
"""Each 74-series function the diagram may draw, by its number: its DIP-14 pins, which every logic
family of it shares (TI's SN74HC125, SN74HCT125, SN74AHC125 and SN74AHCT125 number them alike)."""
IC_PART = re.compile(r"^(?:SN)?74(?P<family>[A-Z]+)(?P<function>\d+)")
"""A 74-series part number (a connector's ``mpn``): its logic family and its function."""
IC_INPUTS = ("A", "OE")
"""How an IC's input pins' names end: CMOS inputs must be tied, never left floating."""
IC_BOUGHT = re.compile(r"\b(?:SN)?74[A-Z]+\d+")
"""A 74-series part number where a bill's row names one."""
IC_PARTS = {"U1": "74AHCT125"}
"""Each IC the design draws, and its part number."""
TTL_INPUTS_V = 2.0
"""The least input high of the TTL-threshold families at VCC 4.5-5.5 V: TI's SN74AHCT125 and
SN74HCT125 data sheets (V_IH), and SN74ACT125's."""
CMOS_INPUTS = 0.7
"""The CMOS-threshold families' least input high, as a share of VCC: TI's SN74HC125 (3.15 V at
4.5 V, 4.2 V at 6 V) and SN74AHC125 (3.85 V at 5.5 V) data sheets."""
INPUT_HIGH = {"AHCT": None, "HCT": None, "ACT": None, "AHC": CMOS_INPUTS, "HC": CMOS_INPUTS, "AC": CMOS_INPUTS}
"""Each logic family the rules know: None for TTL thresholds (TTL_INPUTS_V), else the CMOS share of VCC."""
LOGIC_3V3 = re.compile(r"^GP(IO)?\d+$")
"""The label of a pin that drives 3.3 V logic at most: the Pi's GPIOs and the Pico's GPs (both chips'
I/O run from 3.3 V)."""
LOGIC_HIGH_V = 3.3
SUPPLY_V = 5.0
"""What the LED supply and the Pi's supply give: an IC whose VCC reaches either runs at 5 V."""

PER_METRE = "LEDs/m"
DENSITY = re.compile(r"(\d+) LEDs/m")
"""How a strip's drawing and the bill's row state its LEDs a metre."""
GAUGES = re.compile(r"\b\d+(?:\.\d+)? mm2|\b\d+ AWG\b")
"""A wire's gauge, as a cable's drawing and the bill's rows state it: "0.75 mm2", "26 AWG"."""
CORES = re.compile(r"\b(\d+) x \d+(?:\.\d+)? mm2\b|\b(\d+) cores\b")
"""A cable's cores, as the bill's rows state them: "3 x 0.75 mm2", "4 cores"."""
STOCK = re.compile(r"ROW\d+|EDGE|PADS_\w+|GUARD")
"""The parts cut from a reel or a roll the bill buys by length (the strip's pieces, the copper
foil's pads and guard), not bought one a piece."""
AMPACITY_MA = {"0.75 mm2": 6000, "0.5 mm2": 3000, "0.25 mm2": 1500, "26 AWG": 1000, "28 AWG": 500}
"""What a wire of each gauge may carry for long inside the table: 0.75 and 0.5 mm2 as IEC 60227
rates flexible cords (6 A, 3 A); the thinner ones are conservative estimates for short runs."""
SIGNAL_MA = 1000
"""A wire that carries more than this must have its gauge drawn."""
LISTED_MA = 500
"""A wire that carries more than this is listed in the build guide with its gauge: the LEDs' feed,
the Pi's supply cable, the amplifier's power and its speaker."""
SUPPLY = "PSU"
"""The LED supply: its +5 V (pin 1) and ground (pin 2) are where the LEDs' current comes from."""
PI_SUPPLY = "PI_PSU"
"""The Pi's supply: through the Pi's 5 V rail it also feeds the display and the amplifier."""
AMP = "AMP"
"""The MAX98357A breakout: the source of the speaker's current."""
AMP_PINS = {1: "LRC", 2: "BCLK", 3: "DIN", 4: "GAIN", 5: "SD", 6: "GND", 7: "VIN", "+": "OUT+", "-": "OUT-"}
"""Adafruit's MAX98357A breakout (product 3006): its header's seven pins in board order, and the
speaker terminal's two."""
SPEAKER_OHM = 4
SPEAKER_W = 3
"""The speaker bought: 4 ohm, 3 W, the most the MAX98357A gives at 5 V."""
THROUGH = {"F1": (1, 2), "F2": (1, 2)}
"""Parts the LEDs' current flows through from one pin to the other: the fuse, and the polyfuse
on the shifter's feed. The rules read each one's rating from its drawing (``fuse_rating``)."""
MAIN_FUSE = "F1"
"""The fuse at the jack: what a short draws from the LED supply is what it lets through."""
POLYFUSE = "Bourns MF-R020"
POLYFUSE_HOLD_MA = 200
POLYFUSE_TRIP_MA = 400
"""F2, the resettable fuse at the start of the shifter's 26 AWG feed (W_shifter_power): Bourns'
MF-R020 data holds 0.2 A and trips by 0.4 A. The 74AHCT125 draws microamps; a short on the
stripboard then heats no thin wire, where the 5 A fuse alone would let a 1 A wire carry 5 A."""
AMPS = re.compile(r"(?P<amps>\d+(?:\.\d+)?) ?A\b(?: (?P<kind>hold|trip))?")
"""A current a part's name states: "5 A", "0.2 A hold", "0.4 A trip"."""
JACK = "J1"
CENTRE = "(centre)"
"""How the jack's pin label says it is the centre pin: its label says which polarity the centre is."""
CENTRE_SAID = "centre-{}"
"""How the bill states a barrel plug's polarity: "centre-positive", as supplies' labels say it."""
FRAME_EXITS = {"W_led": "led_exit_wall", "W_i2c": "touch_exit_wall"}
"""The cables that leave the frame for the box, each through a gland of its own: the params.scad
name of the wall at whose end it leaves the back rim."""
GROUND = "GND"
"""The label of every ground pin: pins so labelled on one part are that part's ground, joined on it."""

BREAKOUT_PULLUPS = "10 kOhm"
"""Each Adafruit MPR121 breakout's pull-ups on SDA and SCL (its schematic): drawn on the breakout,
the I2C rules read them there."""
PULLUPS = re.compile(r"pull-ups (?P<value>\S+ ?\S*Ohm) on SDA and SCL")
"""How a part drawn on the bus says it pulls the lines up (its ``subtype``)."""
I2C_MODES = {100_000: ("Standard-mode", 1000, 3.0), 400_000: ("Fast-mode", 300, 3.0),
             1_000_000: ("Fast-mode Plus", 120, 20.0)}
"""NXP UM10204 (the I2C-bus specification), by each mode's top clock rate: its name, the longest
rise time of SDA and SCL (t_r, table 10, ns) and the current a device sinks at 0.4 V (I_OL, table
9, mA)."""
I2C_BUS_PF = 400
"""UM10204's most capacitance on a Standard- or Fast-mode bus line (C_b, table 10)."""
I2C_LOW_V = 0.4
"""UM10204's most low level a device must give at I_OL (V_OL, table 9)."""
I2C_SUPPLY_V = 3.3
"""The bus's pull-ups go to the breakouts' VIN, the Pico's 3V3(OUT)."""
RISE_RC = 0.8473
"""t_r = 0.8473 R C: the time an RC takes from 30 % to 70 % of the supply (UM10204 7.1, equation 2)."""
I2C_PIN_PF = 10
"""UM10204's most capacitance of one device's SDA or SCL pin (C_i, table 9): the Pico and each breakout."""
I2C_CABLE = "Lapp UNITRONIC LiYY (TP) 2 x 2 x 0.25 mm2"
I2C_CABLE_DATASHEET_PF_PER_M = 120
"""The I2C cable's capacitance core to core as its maker's data sheet gives it: Lapp's UNITRONIC
LiYY (TP) data sheet, mutual capacitance core/core about 120 nF/km (at 800 Hz)."""
I2C_CABLE_MARGIN = 1.5
"""A line sees its pair's partner and the other pair's two cores, all at AC ground, where the data
sheet's figure is one core to one other: half as much again covers the two more and the spread
between batches."""
PAIRS = (("WH", "BN"), ("GN", "YE"), ("GY", "PK"), ("BU", "RD"))
"""The first four pairs of a twisted-pair cable coloured by DIN 47100, as LiYY (TP) cables are:
white with brown, green with yellow, grey with pink, blue with red. A cable coloured as network
cable is (TIA-568) pairs a colour with its white-striped partner, BU with BUWH: ``partners`` knows both."""
I2C_COLOURS = ("WH", "GN", "YE", "BN")
"""The I2C cable's cores for SDA, SCL, 3V3 and GND (its wires 1-4): SDA (white) is twisted with
GND (brown) and SCL (green) with 3V3 (yellow), so neither line of the bus shares a twist with the other."""
I2C_TWISTS = "SDA twisted with GND, SCL with 3V3"
"""How the cable's notes and the build guide say its pairs; ``twist_problems`` holds them to the colours."""
TWISTED = "(TP)"
"""How a cable's type says its cores are twisted in pairs (Lapp's name for it)."""
STATED_TWISTS = re.compile(r"(?P<a>\w+) twisted with (?P<b>\w+), (?P<c>\w+) with (?P<d>\w+)")
"""How a cable's notes state its two pairs."""
BUS_LINES = ("SDA", "SCL")
HOOKUP_WIRE = "26 AWG silicone hook-up wire"
I2C_WIRE_PF_PER_M = 100
"""A 26 AWG hook-up wire of the bus on the frame, laid with the other three along the walls: twice
the 0.3-0.5 pF/cm the guide gives a lone wire, for its three neighbours (an estimate)."""


def i2c_mode(hz: int) -> tuple[str, int, float]:
    """The I2C mode that runs at ``hz``: its name, its longest rise time (ns) and its I_OL (mA)."""
    top = next((top for top in sorted(I2C_MODES) if hz <= top), None)
    if top is None:
        raise ValueError(f"i2c_hz is at most {max(I2C_MODES)} Hz (Fast-mode Plus), not {hz}")
    return I2C_MODES[top]


def i2c_cable_pf_per_m() -> float:
    """One line of the I2C cable, per metre: the data sheet's figure with the margin."""
    return I2C_CABLE_DATASHEET_PF_PER_M * I2C_CABLE_MARGIN


CABLE_PF_PER_M = {I2C_CABLE: i2c_cable_pf_per_m(), HOOKUP_WIRE: I2C_WIRE_PF_PER_M}
"""One line's capacitance per metre of each cable the bus may run on, by the cable's type."""

# Parts' values: each resistor and capacitor drawn carries its value (its ``subtype``), each IC its
# part number (``mpn``), as WireViz shows them, and the rules read them there.

VALUE = re.compile(r"(?P<number>\d+(?:\.\d+)?)\s*(?P<prefix>[pnuµkKM]?)(?P<unit>(?i:ohm)|F)\b")
PREFIXES = {"": 1.0, "p": 1e-12, "n": 1e-9, "u": 1e-6, "µ": 1e-6, "k": 1e3, "K": 1e3, "M": 1e6}


def value_of(text: str) -> tuple[float, str] | None:
    """The first value ``text`` states, in ohms or farads with its unit ("330 Ohm", "10 kohm",
    "100 nF": (330.0, "Ohm"), (10000.0, "Ohm"), (1e-07, "F")), or None."""
    match = VALUE.search(text)
    if match is None:
        return None
    return float(match["number"]) * PREFIXES[match["prefix"]], "F" if match["unit"] == "F" else "Ohm"


@dataclass(frozen=True, slots=True)
class Value:
    """A resistor's or capacitor's value as the design asks it, and how far the part may be off."""

    text: str
    tolerance: float  # the part bought's: a drawn value further from the design's is another part

    @property
    def amount(self) -> tuple[float, str]:
        """The value in ohms or farads, with its unit."""
        amount = value_of(self.text)
        if amount is None:
            raise ValueError(f"{self.text!r} is not a value in ohms or farads")
        return amount


VALUES = {
    "R1": Value("10 kOhm", 0.05),  # the pull-down on 1A; the bill's carbon film: J, 5 %
    "R2": Value("330 Ohm", 0.05),  # in the data line at row 0's DIN
    "C1": Value("100 nF", 0.10),  # across U1's supply; the bill's X7R: K, 10 %
    "C2": Value("1000 uF", 0.20),  # across the LED bus; the bill's electrolytic: 20 %
    "C3": Value("10 uF", 0.20),  # across the Pico's 3V3(OUT)
}
"""Each resistor's and capacitor's value in the design, with the tolerance of the part the bill buys."""


def pi_pins(wiring: Pinout) -> tuple[list[int | str], list[str]]:
    """The Pi's pins the diagram uses, with their labels: each signal beside its own ground pin."""
    fitted = buttons(wiring)
    grounds = wiring.fitted_grounds()
    pins: list[int | str] = [HEADER[wiring.led_data][0], grounds["led_data"]]
    labels = [f"GPIO{wiring.led_data}", GROUND]
    for name, pin in fitted.items():
        pins += [HEADER[pin][0], grounds[name]]
        labels += [f"GPIO{pin}", GROUND]
    if wiring.amp_fitted:
        pins += [HEADER[pin][0] for pin in wiring.amp_pins.values()] + [wiring.amp_vin_pin, grounds["amp"]]
        labels += [f"GPIO{pin}" for pin in wiring.amp_pins.values()] + ["5V", GROUND]
    # the header's 5 V pins are the supply's rail: labelled alike, they are one net with the USB-C input
    pins += [pinout.DISPLAY_5V, grounds["display"], "USB-A VBUS", "USB-A D-", "USB-A D+", "USB-A GND", "USB-C 5V",
             "USB-C GND", "DSI"]
    labels += ["5V", GROUND, "VBUS", "D-", "D+", GROUND, "5V", GROUND, "DSI"]
    return pins, labels


def buttons(wiring: Pinout) -> dict[str, int]:
    return {name: pin for name, pin in wiring.buttons.items() if wiring.encoder_fitted or not name.startswith("encoder")}


def rows() -> list[str]:
    """The strip's pieces in the order the data runs: the grid's rows from cell 0, then the edge."""
    return [f"ROW{row}" for row in range(GRID)] + ["EDGE"]


def loads(wiring: Pinout) -> dict[tuple[str, int | str], float]:
    """What each piece of strip draws at full white, at its +5 V pin and back at its ground pin."""
    draw = {f"ROW{row}": GRID * wiring.leds_per_cell * MA_PER_LED_FULL for row in range(GRID)}
    draw["EDGE"] = wiring.edge_leds * MA_PER_LED_FULL
    return {(piece, pin): ma for piece, ma in draw.items() for pin in (2, 3)}


def pi_loads(wiring: Pinout) -> dict[tuple[str, int | str], float]:
    """What the Pi's supply feeds, at each load's 5 V pin and back at its ground: the Pi itself
    with the touch board on its USB port (at its USB-C input: the port's switch is not drawn),
    the display and the amplifier at its peak."""
    board = wiring.pi_loads_ma["pi"] + wiring.pi_loads_ma["touch_board"]
    draws: dict[tuple[str, int | str], float] = {
        ("Pi", "USB-C 5V"): board, ("Pi", "USB-C GND"): board,
        ("DISPLAY", 2): wiring.pi_loads_ma["display"], ("DISPLAY", 3): wiring.pi_loads_ma["display"],
    }
    if wiring.amp_fitted:
        draws |= {(AMP, 7): wiring.amp_peak_ma, (AMP, 6): wiring.amp_peak_ma}
    return draws


def speaker_ma() -> float:
    """The speaker's current at the amplifier's full power: the root of P / R."""
    return round((SPEAKER_W / SPEAKER_OHM) ** 0.5 * 1000)


def currents(harness: dict, wiring: Pinout) -> dict[tuple[str, int], float]:
    """The most each wire carries from any source: the LED supply (up to its fuse), the Pi's
    supply (up to its rating) and the amplifier into its speaker."""
    found = [wire_currents(harness, loads(wiring), wiring.fuse_ma)]
    found.append(wire_currents(harness, pi_loads(wiring), wiring.pi_supply_ma, PI_SUPPLY))
    if wiring.amp_fitted:
        speaker = speaker_ma()
        found.append(wire_currents(harness, {("SPEAKER", 1): speaker, ("SPEAKER", 2): speaker}, speaker, AMP))
    merged: dict[tuple[str, int], float] = {}
    for each in found:
        for wire, ma in each.items():
            merged[wire] = max(merged.get(wire, 0.0), ma)
    return merged


MAINTENANCE = "(maintenance jumper)"
"""How the Pico's drawing labels the pin the maintenance jumper grounds at boot (pinout.toml's
maintenance_pin): the stripboard's header is held to it."""


def pico_pins(wiring: Pinout) -> tuple[list[int | str], list[str]]:
    """The Pico's pins the diagram draws, each where the pinout's GP name puts it: the I2C bus,
    3V3(OUT) and a ground, the maintenance jumper's pin, and the USB port."""
    pins: list[int | str] = [pico_pin(wiring.sda), pico_pin(wiring.scl), 36, 38, pico_pin(wiring.maintenance_pin),
                             "USB VBUS", "USB D-", "USB D+", "USB GND"]
    labels = [wiring.sda, wiring.scl, "3V3(OUT)", GROUND, f"{wiring.maintenance_pin} {MAINTENANCE}",
              "VBUS", "D-", "D+", GROUND]
    return pins, labels


def harness(wiring: Pinout, shape: dict | None = None) -> dict:
    """The WireViz description: connectors, cables and how they join (the I2C cable's length from
    ``shape``, params.scad's figures: enclosure/params.scad unless given)."""
    pins, labels = pi_pins(wiring)
    pico, pico_labels = pico_pins(wiring)
    supply = wiring.led_supply_ma / 1000
    row_leds = GRID * wiring.leds_per_cell
    connectors: dict[str, dict] = {
        "Pi": {"type": "Raspberry Pi 40-pin header and ports", "pins": pins, "pinlabels": labels,
               "notes": "in the box; each wire to the header has a ground pin of its own"},
        "PI_PSU": {"type": "Raspberry Pi USB-C power supply", "pinlabels": ["5V", GROUND]},
        "DISPLAY": {"type": "Raspberry Pi Touch Display 2", "pinlabels": ["DSI", "5V", GROUND],
                    "notes": "in the hood; its own ribbon and power cable"},
        "U1": {"type": "level shifter, DIP-14 in a socket", "mpn": IC_PARTS["U1"], "pins": list(AHCT125),
               "pinlabels": list(AHCT125.values()),
               "loops": [[1, 7], [4, 7], [5, 7], [9, 7], [10, 7], [12, 7], [13, 7]],
               "notes": "on the stripboard in the box. 1OE to GND: gate 1 always on.\n"
                        "Gates 2-4 unused: nA and nOE to GND, so no input floats and their outputs hold low"},
        "R1": {"type": "resistor", "subtype": VALUES["R1"].text, "pinlabels": ["1", "2"],
               "notes": "pull-down on 1A: the strip sees a steady low while the Pi is off"},
        "C1": {"type": "ceramic capacitor", "subtype": VALUES["C1"].text, "pinlabels": ["1", "2"],
               "notes": "across VCC and GND at U1"},
        "J1": {"type": "panel DC jack 5.5 x 2.1 mm, 5 A, 8 mm hole", "pinlabels": [f"+5V {CENTRE}", GROUND],
               "notes": "in the electronics box's wall"},
        SUPPLY: {"type": "5 V LED supply, barrel plug", "pinlabels": ["+5V", GROUND],
                 "notes": f"{supply:g} A; plugs into J1"},
        "F1": {"type": f"blade fuse {wiring.fuse_ma / 1000:g} A, inline holder", "pinlabels": ["in", "out"],
               "notes": f"above the supply's {supply:g} A, within the feed wire's rating"},
        "F2": {"type": f"polyfuse {POLYFUSE_HOLD_MA / 1000:g} A hold, {POLYFUSE_TRIP_MA / 1000:g} A trip ({POLYFUSE})",
               "pinlabels": ["in", "out"], "notes": "on the fuse holder's out lead: guards the shifter's thin feed"},
        "BUS": {"type": "power bus: 2 x WAGO 221-415 a polarity", "pinlabels": ["+5V"] * 8 + [GROUND] * 8,
                "notes": "on the frame by the LED cable's exit: its power cores in, the 1000 uF,\n"
                         "and a +5 V/GND pair to each row and the edge"},
        "C2": {"type": "electrolytic capacitor, 10 V", "subtype": VALUES["C2"].text, "pinlabels": ["+", "-"],
               "notes": "across the bus"},
        "R2": {"type": "resistor", "subtype": VALUES["R2"].text, "pinlabels": ["1", "2"],
               "notes": "in the data line at row 0's DIN"},
        "Pico": {"type": f"Raspberry Pi Pico touch board, I2C {wiring.i2c_hz // 1000} kHz",
                 "pins": pico, "pinlabels": pico_labels,
                 "notes": "in the box, on the stripboard beside U1: its USB cable to the Pi,\n"
                          "its I2C cable out to the breakouts on the frame"},
        "C3": {"type": "ceramic capacitor", "subtype": VALUES["C3"].text, "pinlabels": ["1", "2"],
               "notes": "across 3V3(OUT) and GND at the Pico"},
        "GUARD": {"type": "guard foil round every cell", "pinlabels": [GROUND]},
    }
    for number, piece in enumerate(rows()):
        last = piece == "EDGE"
        connectors[piece] = {
            "type": f"WS2812B edge strip, {wiring.strip_per_metre} {PER_METRE}" if last else
                    f"WS2812B strip, row {number}, {wiring.strip_per_metre} {PER_METRE}",
            "pinlabels": ["DIN", "+5V", GROUND] + ([] if last else ["DOUT"]),
            "notes": (f"{wiring.edge_leds} LEDs round the rim" if last else
                      f"{row_leds} LEDs; starts at the operatives' {'left' if number % 2 == 0 else 'right'}"
                      + (": LED 0 under cell 0" if number == 0 else "")),
        }
    cables: dict[str, dict] = {
        "W_pi_psu": {"category": "bundle", "wirecount": 2, "colors": ["RD", "BK"], "gauge": "0.75 mm2",
                     "notes": "the supply's USB-C cable (18 AWG)"},
        "W_dsi": {"category": "bundle", "wirecount": 1, "colors": ["WH"], "notes": "the display's DSI ribbon"},
        "W_display_power": {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "26 AWG",
                            "notes": "the display's own power cable"},
        "W_pi_data": {"wirecount": 2, "colors": ["GN", "BK"], "gauge": "26 AWG", "notes": "female jumpers, under 20 cm"},
        "W_R1": {"category": "bundle", "wirecount": 2, "colors": ["WH", "WH"], "notes": "stripboard tracks"},
        "W_C1": {"category": "bundle", "wirecount": 2, "colors": ["WH", "WH"], "notes": "stripboard tracks"},
        "W_F2": {"category": "bundle", "wirecount": 1, "colors": ["RD"], "notes": "F2's own lead"},
        "W_shifter_power": {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "26 AWG",
                            "notes": "U1's 5 V and ground from F2 and the jack's ground lug"},
        "W_R2": {"category": "bundle", "wirecount": 1, "colors": ["GN"], "notes": "R2's own lead"},
        "W_brick": {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "0.75 mm2", "notes": "the supply's own lead"},
        "W_jack": {"wirecount": 1, "colors": ["RD"], "gauge": "0.75 mm2", "notes": "the fuse holder's own lead"},
        "W_led": {"wirecount": 3, "colors": ["BN", "BU", "GNYE"], "gauge": "0.75 mm2",
                  "notes": "the LED cable, H03VV-F 3 x 0.75 mm2, box to the frame: the feed (brown +5 V,\n"
                           "blue ground) to the bus, the data (green-yellow) on to R2 at row 0"},
        "W_C2": {"category": "bundle", "wirecount": 2, "colors": ["RD", "BK"], "notes": "C2's own leads"},
        "W_usb": {"wirecount": 4, "colors": ["RD", "WH", "GN", "BK"], "gauge": "28 AWG",
                  "notes": "short USB cable in the box, Pico to Pi: the touch board's power and data"},
        "W_i2c": {"wirecount": 4, "colors": list(I2C_COLOURS), "gauge": "0.25 mm2", "type": I2C_CABLE,
                  "notes": "the I2C cable, box to the frame: LiYY (TP) 2 x 2 x 0.25 mm2,\n" + I2C_TWISTS},
        "W_C3": {"category": "bundle", "wirecount": 2, "colors": ["RD", "BK"], "notes": "C3's own leads"},
    }
    connections: list[list[dict]] = [
        [{"PI_PSU": [1, 2]}, {"W_pi_psu": [1, 2]}, {"Pi": ["USB-C 5V", "USB-C GND"]}],
        [{"DISPLAY": [1]}, {"W_dsi": [1]}, {"Pi": ["DSI"]}],
        [{"DISPLAY": [2, 3]}, {"W_display_power": [1, 2]}, {"Pi": [pinout.DISPLAY_5V, wiring.grounds["display"]]}],
        [{"Pi": [HEADER[wiring.led_data][0], wiring.grounds["led_data"]]}, {"W_pi_data": [1, 2]}, {"U1": [2, 7]}],
        [{"U1": [2, 7]}, {"W_R1": [1, 2]}, {"R1": [1, 2]}],
        [{"U1": [14, 7]}, {"W_C1": [1, 2]}, {"C1": [1, 2]}],
        [{"F1": [2]}, {"W_F2": [1]}, {"F2": [1]}],
        [{"F2": [2]}, {"W_shifter_power": [1]}, {"U1": [14]}],
        [{"J1": [2]}, {"W_shifter_power": [2]}, {"U1": [7]}],
        [{"U1": [3]}, {"W_led": [3]}, {"R2": [1]}],
        [{"R2": [2]}, {"W_R2": [1]}, {"ROW0": [1]}],
        [{SUPPLY: [1, 2]}, {"W_brick": [1, 2]}, {"J1": [1, 2]}],
        [{"J1": [1]}, {"W_jack": [1]}, {"F1": [1]}],
        [{"F1": [2]}, {"W_led": [1]}, {"BUS": [1]}],
        [{"J1": [2]}, {"W_led": [2]}, {"BUS": [9]}],
        [{"BUS": [2, 10]}, {"W_C2": [1, 2]}, {"C2": [1, 2]}],
        [{"Pi": ["USB-A VBUS", "USB-A D-", "USB-A D+", "USB-A GND"]}, {"W_usb": [1, 2, 3, 4]},
         {"Pico": ["USB VBUS", "USB D-", "USB D+", "USB GND"]}],
        [{"Pico": [36, 38]}, {"W_C3": [1, 2]}, {"C3": [1, 2]}],
    ]
    for number, piece in enumerate(rows()):
        power = f"W_{piece.lower()}_power"
        cables[power] = {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "0.75 mm2",
                         "notes": f"bus to the start of {'the edge' if piece == 'EDGE' else 'row ' + str(number)}"}
        connections.append([{"BUS": [3 + number, 11 + number]}, {power: [1, 2]}, {piece: [2, 3]}])
        if number:
            data = f"W_{piece.lower()}_data"
            cables[data] = {"wirecount": 1, "colors": ["GN"], "gauge": "26 AWG",
                            "notes": "data only: the pieces' power comes from the bus"}
            connections.append([{rows()[number - 1]: [4]}, {data: [1]}, {piece: [1]}])
    for name, pin in buttons(wiring).items():
        button, cable = _title(name), f"W_{name}"
        connectors[button] = {"type": "push button to GND", "pinlabels": ["switch", GROUND], "notes": "in the lid"}
        cables[cable] = {"wirecount": 2, "colors": ["WH", "BK"], "gauge": "26 AWG", "notes": "female jumpers"}
        connections.append([{"Pi": [HEADER[pin][0], wiring.grounds[name]]}, {cable: [1, 2]}, {button: [1, 2]}])
    if wiring.amp_fitted:
        _sound(wiring, connectors, cables, connections)
    electrode_cells = {electrode: f"cell {cell}" for cell, electrode in enumerate(wiring.cell_electrodes)}
    chips = sorted(wiring.chips, key=lambda chip: chip.first_electrode)  # as params.scad numbers the breakouts
    reached, bus = "Pico", "W_i2c"
    electrode_cells |= {electrode: f"END TURN {side}" for side, electrode in enumerate(wiring.end_turn_electrodes, 1)}
    route = enclosure.i2c_route(enclosure.read() if shape is None else shape)
    cables["W_i2c"]["length"] = round(route.cable) / 1000
    for chip, hop in zip((chips[number] for number in route.chain), (0.0, *route.hops), strict=True):
        name, pads = f"MPR121_{chip.address:02X}", f"PADS_{chip.address:02X}"
        used = [e for e in range(chip.first_electrode, chip.first_electrode + MPR121_ELECTRODES) if e in electrode_cells]
        connectors[name] = {
            "type": f"MPR121 breakout at {hex(chip.address)}", "subtype": f"pull-ups {BREAKOUT_PULLUPS} on SDA and SCL",
            "pinlabels": ["SDA", "SCL", "VIN", GROUND, "ADDR"] + [f"E{e}" for e in range(MPR121_ELECTRODES)],
            "notes": f"on the frame beside its pads; ADDR to {chip.addr_to}; electrodes "
                     f"{chip.first_electrode}-{chip.first_electrode + MPR121_ELECTRODES - 1}",
            "loops": [[STRAP[chip.addr_to], 5]],  # the address strap, ADDR tied to its neighbour
        }
        if reached != "Pico":
            bus = f"W_{name}"
            cables[bus] = {"wirecount": 4, "colors": ["BU", "YE", "RD", "BK"], "gauge": "26 AWG", "type": HOOKUP_WIRE,
                           "length": round(hop) / 1000, "notes": "the I2C bus on the frame, on from the breakout before"}
        connections.append([{reached: pico[:4] if reached == "Pico" else [1, 2, 3, 4]}, {bus: [1, 2, 3, 4]},
                            {name: [1, 2, 3, 4]}])
        reached = name
        if used:
            connectors[pads] = {"type": "copper foil pads", "pinlabels": [electrode_cells[e] for e in used]}
            cables[f"W_{pads}"] = {"wirecount": len(used), "colors": ["WH"] * len(used), "gauge": "26 AWG",
                                   "notes": "one short wire a pad"}
            connections.append([{name: [6 + e - chip.first_electrode for e in used]}, {f"W_{pads}": list(range(1, len(used) + 1))},
                                {pads: list(range(1, len(used) + 1))}])
    for leaving in FRAME_EXITS:
        cables[leaving]["notes"] += ";\na cable gland of its own where it leaves the frame and where it enters the box"
    first = f"MPR121_{chips[route.chain[0]].address:02X}"  # the bus reaches it first
    cables["W_guard"] = {"wirecount": 1, "colors": ["BK"], "gauge": "26 AWG",
                         "notes": "the guard to the GND of the breakout the I2C cable reaches first"}
    connections.append([{first: [4]}, {"W_guard": [1]}, {"GUARD": [1]}])
    return {"connectors": connectors, "cables": cables, "connections": connections}


def _sound(wiring: Pinout, connectors: dict, cables: dict, connections: list) -> None:
    """The amplifier on the Pi's I2S pins and a 5 V pin, and its speaker."""
    connectors[AMP] = {
        "type": "MAX98357A I2S amplifier breakout", "pins": list(AMP_PINS), "pinlabels": list(AMP_PINS.values()),
        "notes": "in the box, on foam tape beside the stripboard. GAIN open: 9 dB.\n"
                 "SD open: the breakout's pull-up plays the left and right mix",
    }
    connectors["SPEAKER"] = {"type": f"speaker {SPEAKER_OHM} Ohm {SPEAKER_W} W", "pinlabels": ["+", "-"],
                             "notes": "on the box's grille, facing the players"}
    cables["W_amp"] = {"wirecount": 5, "colors": ["YE", "GN", "BU", "RD", "BK"], "gauge": "26 AWG",
                       "notes": "female jumpers: the I2S clocks and data, 5 V and ground"}
    cables["W_speaker"] = {"wirecount": 2, "colors": ["RD", "BK"], "gauge": "26 AWG",
                           "notes": "the speaker's own leads, into the breakout's screw terminal"}
    header = [HEADER[wiring.amp_pins[signal]][0] for signal in ("bclk", "lrclk", "din")]
    connections.append([{"Pi": [*header, wiring.amp_vin_pin, wiring.grounds["amp"]]}, {"W_amp": [1, 2, 3, 4, 5]},
                        {AMP: [2, 1, 3, 7, 6]}])
    connections.append([{AMP: ["+", "-"]}, {"W_speaker": [1, 2]}, {"SPEAKER": [1, 2]}])


def _title(name: str) -> str:
    return name.replace("_", " ").upper().replace(" ", "_")


# The netlist: the harness read back as pins joined by wires, so its electrical rules can be checked.

Pin = tuple[str, int | str]
"""A connector's pin: (connector, pin)."""


@dataclass(frozen=True, slots=True)
class Link:
    """Two pins joined: by a cable's wire (``wire`` names it), or inside a part (``wire`` is None)."""

    a: Pin
    b: Pin
    wire: tuple[str, int] | None = None
    through: bool = False  # joined only for current, through a part such as the fuse


def labels(connector: dict) -> dict[int | str, str]:
    """Each pin of a connector and its label (pins counted from 1 where the connector lists none)."""
    names = connector.get("pinlabels", [])
    return dict(zip(connector.get("pins") or range(1, len(names) + 1), names, strict=True))


def links(harness: dict) -> list[Link]:
    """Every join in the harness: each wire's ends, each loop, each part's own same-labelled pins
    (the Pi's ground pins, the bus's lever connectors) and each through-part's two pins."""
    found: list[Link] = []
    for name, connector in harness["connectors"].items():
        by_label: dict[str, list[int | str]] = defaultdict(list)
        for pin, label in labels(connector).items():
            by_label[label].append(pin)
        found += [Link((name, pins[0]), (name, pin)) for pins in by_label.values() for pin in pins[1:]]
        found += [Link((name, a), (name, b)) for a, b in connector.get("loops", [])]
        if name in THROUGH:
            found.append(Link((name, THROUGH[name][0]), (name, THROUGH[name][1]), through=True))
    for left, cable, right in harness["connections"]:
        (a_name, a_pins), = left.items()
        (cable_name, wires), = cable.items()
        (b_name, b_pins), = right.items()
        for a, wire, b in zip(a_pins, wires, b_pins, strict=True):
            found.append(Link((a_name, a), (b_name, b), (cable_name, wire)))
    return found


def nets(harness: dict) -> list[set[Pin]]:
    """The harness's nets: sets of pins joined by wires and inside parts (not through the fuse)."""
    parent: dict[Pin, Pin] = {}

    def root(pin: Pin) -> Pin:
        while parent.setdefault(pin, pin) != pin:
            pin = parent[pin]
        return pin

    for name, connector in harness["connectors"].items():
        for pin in labels(connector):
            root((name, pin))
    for link in links(harness):
        if not link.through:
            parent[root(link.a)] = root(link.b)
    grouped: dict[Pin, set[Pin]] = defaultdict(set)
    for pin in parent:
        grouped[root(pin)].add(pin)
    return sorted(grouped.values(), key=lambda net: sorted(map(str, net)))


# The design: the nets the harness must realise, each named, declared from the pinout apart
# from the drawing, so a wire missing, one too many or two swapped shows as a difference.

MPR121_PIN = {"SDA": 1, "SCL": 2, "VIN": 3, GROUND: 4, "ADDR": 5}
"""The MPR121 breakout's pins as the diagram numbers them; its electrode n is pin 6 + n."""
TIED_LOW = ("GND", "1OE", "2OE", "3OE", "4OE", "2A", "3A", "4A")
"""The 74AHCT125's pins on ground: its own, every enable (low: on) and the unused gates' inputs."""


def design(wiring: Pinout) -> dict[str, set[Pin]]:
    """The nets the design intends, by name: every pin the diagram wires on exactly one of them;
    any other pin of a part is left unconnected."""
    pieces = rows()
    chips = [f"MPR121_{chip.address:02X}" for chip in wiring.chips]
    nets: dict[str, set[Pin]] = {
        "LED data at 3.3 V": {("Pi", HEADER[wiring.led_data][0]), ("U1", 2), ("R1", 1)},
        "LED data at 5 V": {("U1", 3), ("R2", 1)},
        "row 0's DIN": {("R2", 2), (pieces[0], 1)},
    }
    for before, piece in itertools.pairwise(pieces):
        nets[f"{_row_name(piece)}'s DIN"] = {(before, 4), (piece, 1)}
    nets |= {
        "+5 V from the jack": {(SUPPLY, 1), ("J1", 1), ("F1", 1)},
        "+5 V LED bus": {("F1", 2), ("F2", 1), ("C2", 1), *(("BUS", pin) for pin in range(1, 9)),
                         *((piece, 2) for piece in pieces)},
        "+5 V of the shifter": {("F2", 2), ("U1", 14), ("C1", 1)},
        "5 V of the Pi": {(PI_SUPPLY, 1), ("Pi", "USB-C 5V"), ("Pi", pinout.DISPLAY_5V), ("DISPLAY", 2)},
        "DSI": {("Pi", "DSI"), ("DISPLAY", 1)},
        **{f"USB {line}": {("Pi", f"USB-A {line}"), ("Pico", f"USB {line}")} for line in ("VBUS", "D-", "D+")},
        "SDA": {("Pico", pico_pin(wiring.sda)), *((chip, MPR121_PIN["SDA"]) for chip in chips)},
        "SCL": {("Pico", pico_pin(wiring.scl)), *((chip, MPR121_PIN["SCL"]) for chip in chips)},
        "3V3 of the touch chips": {("Pico", 36), ("C3", 1), *((chip, MPR121_PIN["VIN"]) for chip in chips)},
    }
    ground = {(PI_SUPPLY, 2), ("Pi", "USB-C GND"), ("Pi", "USB-A GND"), ("DISPLAY", 3), ("R1", 2), ("C1", 2),
              ("J1", 2), (SUPPLY, 2), ("C2", 2), ("Pico", 38), ("Pico", "USB GND"), ("C3", 2), ("GUARD", 1),
              *(("Pi", pin) for pin in wiring.fitted_grounds().values()),
              *(("U1", pin) for pin, label in AHCT125.items() if label in TIED_LOW),
              *(("BUS", pin) for pin in range(9, 17)), *((piece, 3) for piece in pieces),
              *((chip, MPR121_PIN[GROUND]) for chip in chips)}
    straps = {"GND": ground, "3V3": nets["3V3 of the touch chips"], "SDA": nets["SDA"], "SCL": nets["SCL"]}
    for chip, name in zip(wiring.chips, chips, strict=True):
        straps[chip.addr_to].add((name, MPR121_PIN["ADDR"]))
    for name, pin in buttons(wiring).items():
        nets[f"the {name.replace('_', ' ')} button"] = {("Pi", HEADER[pin][0]), (_title(name), 1)}
        ground.add((_title(name), 2))
    if wiring.amp_fitted:
        nets["5 V of the Pi"].update({("Pi", wiring.amp_vin_pin), (AMP, 7)})
        for signal, pin in (("bclk", 2), ("lrclk", 1), ("din", 3)):
            nets[f"I2S {AMP_PINS[pin]}"] = {("Pi", HEADER[wiring.amp_pins[signal]][0]), (AMP, pin)}
        nets |= {"speaker +": {(AMP, "+"), ("SPEAKER", 1)}, "speaker -": {(AMP, "-"), ("SPEAKER", 2)}}
        ground.add((AMP, 6))
    nets["ground"] = ground
    places = {e: f"cell {cell}" for cell, e in enumerate(wiring.cell_electrodes)}
    places |= {e: f"END TURN {side}" for side, e in enumerate(wiring.end_turn_electrodes, 1)}
    for chip, name in zip(wiring.chips, chips, strict=True):
        used = [e for e in range(chip.first_electrode, chip.first_electrode + MPR121_ELECTRODES) if e in places]
        for number, electrode in enumerate(used, 1):
            nets[f"the pad of {places[electrode]} (electrode {electrode})"] = {
                (name, 6 + electrode - chip.first_electrode), (f"PADS_{chip.address:02X}", number)}
    return nets


def _row_name(piece: str) -> str:
    return "the edge" if piece == "EDGE" else f"row {piece.removeprefix('ROW')}"


def net_problems(harness: dict, wiring: Pinout) -> list[str]:
    """The harness realises exactly the design's nets: each intended net in one piece, no two of
    them joined, and no other pin joined to anything."""
    intended = design(wiring)
    drawn = nets(harness)
    net_of = {pin: number for number, net in enumerate(drawn) for pin in net}
    named = {pin: name for name, pins in intended.items() for pin in pins}
    order = list(intended)
    found = []
    misplaced: set[tuple[int, str]] = set()  # (a drawn net, an intended net) whose pins there are explained
    moved: set[int] = set()  # the drawn nets whose strays are explained as a wire's end moved onto them
    for name, pins in intended.items():
        absent = sorted((pin for pin in pins if pin not in net_of), key=str)
        if absent:
            found.append(f"the net {name} needs {_pin_words(harness, absent)}, which the diagram does not draw")
        pieces: dict[int, list[Pin]] = defaultdict(list)
        for pin in sorted((pin for pin in pins if pin in net_of), key=str):
            pieces[net_of[pin]].append(pin)
        hosts = {number: _owner(drawn[number], named, exclude=name) for number in pieces}
        main = max(pieces, key=lambda number: (hosts[number] is None, len(pieces[number])), default=None)
        for number, piece in list(pieces.items()):
            it = "it" if len(piece) == 1 else "them"
            strays = sorted((pin for pin in drawn[number] if pin not in named), key=str)
            if number != main and hosts[number] is not None:  # a few pins wired into another net: moved, not two nets joined
                found.append(f"{_pin_words(harness, piece)} {'is' if len(piece) == 1 else 'are'} wired to the net "
                             f"{hosts[number]}, where the design puts {it} on the net {name}")
                misplaced.add((number, name))
                del pieces[number]
            elif strays and len(pieces) > 1:  # a wire's end moved to a pin the design leaves free: moved, not missing
                rest = sorted((pin for other, each in pieces.items() if other != number for pin in each), key=str)
                found.append(f"{_pin_words(harness, piece)} {'is' if len(piece) == 1 else 'are'} wired to "
                             f"{_places(harness, strays)}, where the design joins {it} to {_pin_words(harness, rest)} "
                             f"on the net {name}: move that wire")
                moved.add(number)
        if len(set(pieces) - moved) > 1:
            found.append(f"the net {name} is in {len(pieces)} pieces: "
                         + " | ".join(_pin_words(harness, piece) for piece in pieces.values()) + ": a wire is missing")
    for number, net in enumerate(drawn):
        names = sorted({named[pin] for pin in net if pin in named and (number, named[pin]) not in misplaced},
                       key=order.index)
        if len(names) > 1:
            found.append(f"{' and '.join(names)} are joined, which the design keeps apart")
        strays = sorted((pin for pin in net if pin not in named), key=str)
        if strays and len(net) > 1 and number not in moved:
            joined_to = f"the net {names[0]}" if names else "each other"
            found.append(f"{_pin_words(harness, strays)} joined to {joined_to}, where the design connects nothing")
    return found


def _owner(net: set[Pin], named: dict[Pin, str], exclude: str) -> str | None:
    """The intended net that holds most of a drawn net's pins, when that is not ``exclude`` and it
    holds more of them than ``exclude`` does: the net a few strays were wired into."""
    counts: dict[str, int] = defaultdict(int)
    for pin in net:
        if pin in named:
            counts[named[pin]] += 1
    owner = max(counts, key=lambda name: counts[name], default=None)
    return owner if owner is not None and owner != exclude and counts[owner] > counts[exclude] else None


def _pin_words(harness: dict, pins: list[Pin], most: int = 4) -> str:
    """Pins in words, each with its label: the first ``most`` of them, and how many more."""
    words = [f"{name} {pin} ({_label(harness, (name, pin))})" if _label(harness, (name, pin)) else f"{name} {pin}"
             for name, pin in pins[:most]]
    return ", ".join(words) + (f" and {len(pins) - most} more" if len(pins) > most else "")


PI_3V3 = (1, 17)
"""The Pi's header pins that give 3.3 V."""
PICO_3V3 = "3V3(OUT)"
"""The label of the Pico's pin that gives 3.3 V."""


def _rail(harness: dict, pin: Pin) -> str | None:
    """A pin that gives 3.3 V in words, whether the Pi's drawing has it or not; None for another pin."""
    name, number = pin
    if name == "Pi" and number in PI_3V3:
        return f"the Pi's 3.3 V (header pin {number})"
    if _label(harness, pin) == PICO_3V3:
        return f"the {name}'s 3.3 V ({name} {number}, {PICO_3V3})"
    return None


def _places(harness: dict, pins: list[Pin]) -> str:
    """Pins in words, a 3.3 V pin as the rail it is."""
    return ", ".join(_rail(harness, pin) or _pin_words(harness, [pin]) for pin in pins)


class Joins:
    """The harness's links with, for each pin, the links that end on it: to follow a current."""

    def __init__(self, harness: dict) -> None:
        self.every = links(harness)
        self.beside: dict[Pin, list[int]] = defaultdict(list)
        for number, link in enumerate(self.every):
            self.beside[link.a].append(number)
            self.beside[link.b].append(number)

    def across(self, pin: Pin) -> Iterable[tuple[Link, Pin]]:
        """Each link that ends on ``pin``, with the pin at its other end."""
        for number in self.beside[pin]:
            link = self.every[number]
            yield link, link.b if link.a == pin else link.a

    def reach(self, start: Pin, without: int | None = None) -> set[Pin]:
        """Every pin joined to ``start`` by links (fuses included), leaving out link ``without``."""
        seen, queue = {start}, deque([start])
        while queue:
            pin = queue.popleft()
            for number in self.beside[pin]:
                if number != without:
                    other = self.every[number].b if self.every[number].a == pin else self.every[number].a
                    if other not in seen:
                        seen.add(other)
                        queue.append(other)
        return seen


def wire_currents(harness: dict, draws: dict[Pin, float], limit_ma: float,
                  supply: str = SUPPLY) -> dict[tuple[str, int], float]:
    """The most each wire can carry from ``supply`` (by default the LED supply), in mA: what the
    loads beyond it draw (the pieces of strip at full white), up to ``limit_ma`` (the fuse). A
    wire in a loop may carry the whole of it: how a loop shares the current depends on the wires'
    lengths."""
    joins = Joins(harness)
    currents: dict[tuple[str, int], float] = {}
    for source in ((supply, pin) for pin in labels(harness["connectors"][supply])):
        fed = joins.reach(source)
        for number, link in enumerate(joins.every):
            if link.wire is None or link.a not in fed:
                continue
            after = joins.reach(source, without=number)
            beyond = sum(ma for pin, ma in draws.items() if pin in fed and pin not in after)
            carried = limit_ma if link.a in after and link.b in after else min(beyond, limit_ma)
            currents[link.wire] = max(currents.get(link.wire, 0.0), carried)
    return currents


def problems(harness: dict, wiring: Pinout) -> list[str]:
    """Every electrical rule the harness breaks, in words; empty when it is sound."""
    return [*end_problems(harness), *ground_problems(harness), *header_problems(harness), *ic_problems(harness),
            *net_problems(harness, wiring), *gauge_problems(harness, wiring), *fault_problems(harness, wiring),
            *value_problems(harness), *logic_problems(harness), *i2c_problems(harness, wiring),
            *placement_problems(harness), *twist_problems(harness), *rail_problems(harness)]


def end_problems(harness: dict) -> list[str]:
    """Each wire ends on a pin its part has, and is one of its cable's wires."""
    found = []
    for link in links(harness):
        found += [_undrawn_end(name, pin) for name, pin in (link.a, link.b)
                  if pin not in labels(harness["connectors"][name])]
        if link.wire and not 1 <= link.wire[1] <= harness["cables"][link.wire[0]]["wirecount"]:
            found.append(f"{link.wire[0]} has no wire {link.wire[1]}")
    return found


def _undrawn_end(name: str, pin: int | str) -> str:
    """A wire's end on a pin its part's drawing lacks. The Pi is drawn with the header pins the
    design takes, so a pin of its 40 it does not draw is one the design does not use, not one the
    Pi lacks."""
    if name == "Pi" and isinstance(pin, int) and 1 <= pin <= 40:
        gpio = {physical: bcm for bcm, (physical, _use) in HEADER.items()}
        what = ("3V3" if pin in PI_3V3 else "5V" if pin in pinout.HEADER_5V else "GND" if pin in pinout.HEADER_GROUNDS
                else f"GPIO{gpio[pin]}" if pin in gpio else "the HAT ID EEPROM's")
        return f"a wire ends on the Pi's header pin {pin} ({what}), which the design does not use"
    return f"a wire ends on {name} pin {pin}, which {name} does not have"


def header_problems(harness: dict) -> list[str]:
    """Each pin of the Pi's header takes one wire (a jumper's socket holds one), grounds too."""
    ends: dict[int | str, int] = defaultdict(int)
    for link in links(harness):
        for name, pin in (link.a, link.b):
            if link.wire and name == "Pi" and isinstance(pin, int):
                ends[pin] += 1
    return [f"the Pi's header pin {pin} takes {count} wires: give each its own pin" for pin, count in sorted(ends.items())
            if count > 1]


def ground_problems(harness: dict) -> list[str]:
    """One ground: every pin labelled GND, on every supply and board, on one net."""
    grounded = [net for net in nets(harness) if any(_label(harness, pin) == GROUND for pin in net)]
    if len(grounded) <= 1:
        return []
    parts = ["; ".join(sorted({name for name, pin in net if _label(harness, (name, pin)) == GROUND})) for net in grounded]
    return [f"{len(grounded)} ground nets, not one: " + " | ".join(parts) + ": join them"]


SUPPLIES = {"VCC": {(SUPPLY, 1), (PI_SUPPLY, 1)}, GROUND: {(SUPPLY, 2), (PI_SUPPLY, 2)}}
"""The supplies' pins an IC's VCC and GND must reach."""


def ics(harness: dict) -> Iterable[tuple[str, dict, str, str]]:
    """Each IC drawn with a 74-series part number the rules know: (name, connector, part number, family)."""
    for name, connector in harness["connectors"].items():
        part = IC_PART.match(connector.get("mpn", ""))
        if part is not None and part["function"] in ICS:
            yield name, connector, part.group(0), part["family"]


def ic_problems(harness: dict) -> list[str]:
    """Each IC the design draws has its part number; each drawn with its datasheet's pin numbers
    (the function's, the same in every logic family), none of its inputs left floating, and its
    supply pins (VCC, GND) wired to a supply's, through the fuses: a chip without them is dead, or
    powered through its inputs."""
    found = [f"{name} is drawn without a part number the rules know ({part} is the design's): its pins and logic "
             f"family cannot be checked" for name, part in IC_PARTS.items()
             if name in harness["connectors"] and name not in {drawn for drawn, *_ in ics(harness)}]
    joins = Joins(harness)
    joined = set(joins.beside)
    for name, connector, chip, _family in ics(harness):
        drawn, sheet = labels(connector), ICS[IC_PART.match(chip)["function"]]
        for pin in sorted(set(drawn) | set(sheet), key=lambda pin: (str(type(pin)), str(pin).zfill(3))):
            if drawn.get(pin) != sheet.get(pin):
                found.append(f"{name} ({chip}) pin {pin} is drawn as {drawn.get(pin, 'nothing')}; "
                             f"the datasheet's pin {pin} is {sheet.get(pin, 'no pin')}")
        for pin, label in sheet.items():
            if label.endswith(IC_INPUTS) and (name, pin) not in joined:
                found.append(f"{name} ({chip}) pin {pin}, input {label}, is left floating: tie it")
            elif label in SUPPLIES and not (reach := joins.reach((name, pin))) & SUPPLIES[label]:
                rails = [words for each in sorted(reach, key=str) if (words := _rail(harness, each)) and label == "VCC"]
                found.append(f"{name} ({chip}) pin {pin}, its supply {label}, is on {rails[0]} instead of the "
                             f"{SUPPLY_V:g} V supply: move its wire to the {SUPPLY_V:g} V supply" if rails else
                             f"{name} ({chip}) pin {pin}, its supply {label}, reaches neither supply: wire it")
    return found


def rail_problems(harness: dict) -> list[str]:
    """No 3.3 V pin (the Pi's, the Pico's) joined to a 5 V supply: 5 V there would reach the 3.3 V
    rail of the board and its chips."""
    joins = Joins(harness)
    found = []
    for pin in sorted(joins.beside, key=str):
        rail = _rail(harness, pin)
        if rail and (fed := sorted(joins.reach(pin) & SUPPLIES["VCC"], key=str)):
            found.append(f"the {SUPPLY_V:g} V supply ({_pin_words(harness, fed)}) reaches {rail}: {SUPPLY_V:g} V there "
                         f"would reach the 3.3 V rail and the chips on it: take that wire off the 3.3 V pin")
    return found


def value_problems(harness: dict) -> list[str]:
    """Each resistor and capacitor the design values is drawn with its value, within the tolerance of
    the part bought: a 33 kOhm where 330 Ohm belongs makes the same nets."""
    found = []
    for name, want in VALUES.items():
        if name not in harness["connectors"]:
            continue  # net_problems says the part is missing
        drawn_text = harness["connectors"][name].get("subtype", "")
        drawn, design = value_of(drawn_text), want.amount
        if drawn is None:
            found.append(f"{name} is drawn without its value: the design's is {want.text}")
        elif drawn[1] != design[1] or abs(drawn[0] - design[0]) > want.tolerance * design[0]:
            found.append(f"{name} is drawn as {drawn_text}; the design's is {want.text} "
                         f"(within {want.tolerance:.0%}, the part bought's tolerance)")
    return found


def logic_problems(harness: dict) -> list[str]:
    """An IC powered at 5 V whose input a 3.3 V output drives reads a high only if its family's
    input high is at most 3.3 V: the TTL-threshold families (AHCT, HCT, ACT: 2.0 V); the CMOS ones
    (HC, AHC, AC) want 0.7 x VCC, 3.5 V."""
    found = []
    joins = Joins(harness)
    nets_of = {pin: frozenset(net) for net in nets(harness) for pin in net}
    for name, connector, chip, family in ics(harness):
        vcc = next(pin for pin, label in labels(connector).items() if label == "VCC")
        if not joins.reach((name, vcc)) & SUPPLIES["VCC"]:
            continue  # ic_problems says so
        if family not in INPUT_HIGH:
            found.append(f"{name} is a {chip}, a logic family the rules do not know: use a 74AHCT or 74HCT part, "
                         f"whose inputs read 3.3 V logic at 5 V")
            continue
        share = INPUT_HIGH[family]
        high = TTL_INPUTS_V if share is None else share * SUPPLY_V
        for pin, label in labels(connector).items():
            drivers = sorted(f"{other} {_label(harness, (other, number))}" for other, number in nets_of.get((name, pin), ())
                             if LOGIC_3V3.match(_label(harness, (other, number))))
            if label.endswith("A") and drivers and high > LOGIC_HIGH_V:
                found.append(f"{name} is a {chip}: at {SUPPLY_V:g} V its inputs need {high:.2f} V for a high "
                             f"({share:g} x VCC, CMOS thresholds), and its input {label} is driven by {drivers[0]} at "
                             f"{LOGIC_HIGH_V:g} V at most: use a TTL-threshold part, a 74AHCT{chip[-3:]} or "
                             f"74HCT{chip[-3:]} (a high from {TTL_INPUTS_V:g} V)")
    return found


@dataclass(frozen=True, slots=True)
class I2CBus:
    """One line of the I2C bus (SDA) as the harness draws it: its cables with their lengths, the
    devices' pins on it and its pull-ups."""

    cables: tuple[tuple[str, float | None, float | None], ...]  # (cable, metres, pF a metre); None: not drawn
    devices: tuple[str, ...]
    pullups: tuple[tuple[str, float], ...]  # (part, ohms)

    @property
    def pf(self) -> float:
        """The line's capacitance: its cables' and its devices' pins."""
        return sum((metres or 0) * (per_m or 0) for _, metres, per_m in self.cables) + len(self.devices) * I2C_PIN_PF

    @property
    def pullup_ohm(self) -> float | None:
        """Its pull-ups in parallel, or None without any."""
        return 1 / sum(1 / ohms for _, ohms in self.pullups) if self.pullups else None

    def rise_ns(self) -> float | None:
        """How long the pull-ups take to raise the line from 30 % to 70 % (UM10204's t_r)."""
        return None if self.pullup_ohm is None else RISE_RC * self.pullup_ohm * self.pf * 1e-3


def i2c_bus(harness: dict) -> I2CBus:
    """The SDA line: the net of the pins labelled SDA, the cables with a wire in it, the parts on it,
    and those whose part says it pulls SDA and SCL up."""
    sda = next((net for net in nets(harness) if any(_label(harness, pin) == "SDA" for pin in net)), set())
    cables = {}
    for link in links(harness):
        if link.wire and link.a in sda:
            cable = harness["cables"][link.wire[0]]
            cables[link.wire[0]] = (cable.get("length"), CABLE_PF_PER_M.get(cable.get("type", "")))
    parts = sorted({name for name, _ in sda} - set(harness["cables"]))
    pullups = []
    for name in parts:
        found = PULLUPS.search(harness["connectors"][name].get("subtype", ""))
        value = value_of(found["value"]) if found else None
        if value is not None:
            pullups.append((name, value[0]))
    return I2CBus(tuple((name, *figures) for name, figures in sorted(cables.items())), tuple(parts), tuple(pullups))


def i2c_problems(harness: dict, wiring: Pinout) -> list[str]:
    """The I2C bus within NXP UM10204 at the pinout's clock: every cable on it drawn with its length
    and a type whose capacitance is known; its capacitance at most 400 pF; its pull-ups raising it
    within the mode's rise time, and strong no more than a device can pull low (0.4 V at I_OL)."""
    bus = i2c_bus(harness)
    found = [f"{cable} carries the I2C bus without {'a length' if metres is None else 'a type whose capacitance is known'}"
             f": the bus's capacitance cannot be checked" for cable, metres, per_m in bus.cables
             if metres is None or per_m is None]
    mode, rise_ns, sink_ma = i2c_mode(wiring.i2c_hz)
    if bus.pf > I2C_BUS_PF:
        found.append(f"the I2C bus's SDA line has {bus.pf:.0f} pF, over the {I2C_BUS_PF} pF UM10204 allows a bus "
                     f"line: shorten it")
    ohms = bus.pullup_ohm
    if ohms is None:
        found.append("nothing on the I2C bus pulls SDA and SCL up: the lines cannot rise")
        return found
    least = (I2C_SUPPLY_V - I2C_LOW_V) / sink_ma * 1000
    most = rise_ns / (RISE_RC * bus.pf * 1e-3)
    pullups = f"{ohms / 1000:.2f} kOhm ({', '.join(f'{name} {value / 1000:g} kOhm' for name, value in bus.pullups)})"
    if ohms > most:
        found.append(f"at {wiring.i2c_hz // 1000} kHz the pull-ups, {pullups} in parallel, raise the bus's "
                     f"{bus.pf:.0f} pF in {bus.rise_ns():.0f} ns, over {mode}'s {rise_ns} ns (UM10204): pull-ups of "
                     f"{most / 1000:.2f} kOhm or less, a slower clock or a shorter bus")
    if ohms < least:
        found.append(f"the pull-ups, {pullups} in parallel, are under the {least:.0f} Ohm a device can pull down to "
                     f"{I2C_LOW_V:g} V at {sink_ma:g} mA ({mode}, UM10204): fewer or larger pull-ups")
    return found


def core_line(harness: dict, cable: str, wire: int) -> str:
    """What a core of ``cable`` carries, by the pins at its ends: SDA, SCL, GND, 3V3 (a breakout's
    VIN, the Pico's 3V3(OUT)), or else its first end's label."""
    ends = [_label(harness, pin) for link in links(harness) if link.wire == (cable, wire) for pin in (link.a, link.b)]
    for line in (*BUS_LINES, GROUND):
        if line in ends:
            return line
    if {"VIN", "3V3(OUT)"} & set(ends):
        return "3V3"
    return ends[0] if ends else "nothing"


def partners(colour: str) -> tuple[str, ...]:
    """The colours that may be twisted with ``colour`` in a twisted-pair cable: its white-striped
    partner (TIA-568), and its partner in ``PAIRS`` (DIN 47100)."""
    striped = colour[:-2] if colour.endswith("WH") and len(colour) > 2 else colour + "WH"
    return (striped, *(b if colour == a else a for a, b in PAIRS if colour in (a, b)))


def twisted_pairs(harness: dict, cable: str) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """The pairs of a twisted-pair cable as its colours make them, each core as (line, colour), in
    the order of their first cores."""
    colours = harness["cables"][cable].get("colors", [])
    wire_of = {colour: wire for wire, colour in enumerate(colours, 1)}
    pairs = []
    for colour in colours:
        partner = next((other for other in partners(colour) if other in wire_of), None)
        if partner is not None and wire_of[partner] > wire_of[colour]:
            pairs.append(((core_line(harness, cable, wire_of[colour]), colour),
                          (core_line(harness, cable, wire_of[partner]), partner)))
    return pairs


COLOUR_WORDS = {"WH": "white", "BN": "brown", "GN": "green", "YE": "yellow", "GY": "grey", "PK": "pink",
                "BU": "blue", "RD": "red"}


def twists_said(harness: dict, cable: str) -> str:
    """A twisted-pair cable's pairs as the build guide says them: "SDA (white) with GND (brown), ..."."""
    return ", ".join(f"{a} ({COLOUR_WORDS.get(a_colour, a_colour)}) with {b} ({COLOUR_WORDS.get(b_colour, b_colour)})"
                     for (a, a_colour), (b, b_colour) in twisted_pairs(harness, cable))


def twist_problems(harness: dict) -> list[str]:
    """In a cable of twisted pairs, SDA and SCL are never one pair (the clock's edges couple into
    the data most where they are twisted together), and the pairs are those its notes state (which
    the build guide repeats)."""
    found = []
    for name, cable in harness["cables"].items():
        if TWISTED not in cable.get("type", ""):
            continue
        pairs = twisted_pairs(harness, name)
        crossed = [f"{name} twists {a} ({a_colour}) with {b} ({b_colour}): the bus's two lines crosstalk where they "
                   f"are twisted together; twist each with a supply core ({I2C_TWISTS})"
                   for (a, a_colour), (b, b_colour) in pairs if {a, b} == set(BUS_LINES)]
        stated = STATED_TWISTS.search(cable.get("notes", ""))
        drawn = {frozenset((a, b)) for (a, _), (b, _) in pairs}
        found += crossed  # that said, the notes' pairs are beside the point
        if not crossed and stated and drawn != {frozenset((stated["a"], stated["b"])), frozenset((stated["c"], stated["d"]))}:
            found.append(f"{name} twists " + " and ".join(f"{a} ({a_colour}) with {b} ({b_colour})"
                                                         for (a, a_colour), (b, b_colour) in pairs)
                         + f": its notes say {stated.group(0)}")
    return found


SERIES_RESISTOR = ("R2", ("ROW0", 1))
"""The LED data line's series resistor and the DIN it guards."""


def placement_problems(harness: dict) -> list[str]:
    """Two parts whose nets are right either way, but whose place is not: the data line's series
    resistor belongs at the DIN it guards, not at the far end of the LED cable; the guard foil is
    grounded at the touch chips' ground, at the breakout the I2C cable reaches first, not on the
    LEDs' ground."""
    found = []
    resistor, din = SERIES_RESISTOR
    first = next((link.b[0] for link in links(harness) if link.wire and link.wire[0] == "W_i2c"), None)
    for link in links(harness):
        if not link.wire:
            continue
        ends = {link.a[0], link.b[0]}
        if din in (link.a, link.b) and resistor in ends and link.wire[0] in FRAME_EXITS:
            found.append(f"{resistor} joins {din[0]}'s DIN by {link.wire[0]}, the cable from the box: it is at the box "
                         f"end, where it neither damps the ringing at the line's end nor guards the first LED's input; "
                         f"solder it at {din[0]}'s DIN, on its own lead")
        if "GUARD" in ends:
            pin = link.b if link.a[0] == "GUARD" else link.a
            if pin != (first, MPR121_PIN[GROUND]):
                found.append(f"the guard foil is grounded at {pin[0]} {pin[1]} ({_label(harness, pin)}), not at the GND "
                             f"of {first}, the breakout the I2C cable reaches first: "
                             + ("the LEDs' ground carries their amps, whose drop moves the guard against the touch "
                                "chips' ground and into every pad" if not pin[0].startswith("MPR121_") else
                                "its ground returns to the Pico through the chain's thin wires"))
    return found


ROW_JOIN_GAUGE = "26 AWG"
"""The three short wires that join a row's pieces through the notches (not drawn: a row is one part)."""


def row_join_ma(wiring: Pinout) -> float:
    """The most a join within a row carries: the row's first join feeds every piece after the first."""
    return (GRID - 1) * wiring.leds_per_cell * MA_PER_LED_FULL


def gauge_problems(harness: dict, wiring: Pinout) -> list[str]:
    """Each wire that carries over 1 A has a gauge, and the gauge carries what the wire may: from
    the LED supply, the Pi's supply and the amplifier."""
    found = []
    if row_join_ma(wiring) > AMPACITY_MA[ROW_JOIN_GAUGE]:
        found.append(f"the joins within a row carry up to {row_join_ma(wiring) / 1000:.2f} A; {ROW_JOIN_GAUGE} is "
                     f"rated {AMPACITY_MA[ROW_JOIN_GAUGE] / 1000:g} A: inject power at every piece or use heavier wire")
    for (cable, wire), ma in sorted(currents(harness, wiring).items()):
        gauge = harness["cables"][cable].get("gauge")
        if gauge is None and ma > SIGNAL_MA:
            found.append(f"{cable} wire {wire} carries up to {ma / 1000:.2f} A and has no gauge")
        elif gauge is not None and gauge not in AMPACITY_MA:
            found.append(f"{cable} has gauge {gauge}, which is not one of {', '.join(AMPACITY_MA)}")
        elif gauge is not None and ma > AMPACITY_MA[gauge]:
            found.append(f"{cable} wire {wire} carries up to {ma / 1000:.2f} A; {gauge} is rated "
                         f"{AMPACITY_MA[gauge] / 1000:g} A")
    return found


def fuse_rating(text: str) -> dict[str, float]:
    """The currents a fuse's name states, in mA, by kind: a fuse's rating ("5 A": {"": 5000}), a
    polyfuse's hold and trip ("0.2 A hold, 0.4 A trip": {"hold": 200, "trip": 400})."""
    return {match["kind"] or "": float(match["amps"]) * 1000 for match in AMPS.finditer(text)}


def opens_at(connector: dict) -> float | None:
    """The current past which a fuse drawn so opens, in mA: a polyfuse's trip current, a fuse's
    rating; None when its drawing does not state it."""
    stated = fuse_rating(connector.get("type", ""))
    return stated.get("trip") if "polyfuse" in connector.get("type", "") else stated.get("")


def fault_ma(harness: dict, wiring: Pinout) -> dict[Pin, float]:
    """The most current a short could draw through each pin fed from the LED supply's +5 V before
    a fuse opens: the supply up to its fuse F1 (before it, the brick's own limit and its lead's
    rating), past each fuse no more than that fuse's rating (the polyfuse's trip current), each
    read from the fuse's drawing (one that does not state it limits nothing: fault_problems says so)."""
    drawn = {name: opens_at(harness["connectors"][name]) for name in THROUGH if name in harness["connectors"]}
    ratings = {name: float("inf") if ma is None else ma for name, ma in drawn.items()}
    joins = Joins(harness)
    start = (SUPPLY, 1)
    best = {start: ratings.get(MAIN_FUSE, float(wiring.fuse_ma))}
    queue = [start]
    while queue:  # the widest way to each pin: a pin's current is its best way's narrowest fuse
        pin = queue.pop()
        for link, other in joins.across(pin):
            carried = min(best[pin], ratings[link.a[0]]) if link.through else best[pin]
            if carried > best.get(other, -1.0):
                best[other] = carried
                queue.append(other)
    return best


UNSTATED = {True: 'trip current (as "0.4 A trip")', False: 'rating (as "5 A")'}
"""What a polyfuse's drawing, and a fuse's, must state for the rules to read it."""


def fault_problems(harness: dict, wiring: Pinout) -> list[str]:
    """Each wire on the LED supply's +5 V is protected: no fuse before it lets a short put more
    through it than its gauge is rated for. (A short's return runs on the ground side, behind the
    same fuse.)"""
    found = [f"{name} is drawn without its {UNSTATED['polyfuse' in part['type']]}: the wires after it cannot be checked"
             for name in THROUGH if (part := harness["connectors"].get(name)) is not None and opens_at(part) is None]
    shorts = fault_ma(harness, wiring)
    for link in links(harness):
        gauge = harness["cables"].get(link.wire[0], {}).get("gauge") if link.wire else None
        most = max(shorts.get(link.a, 0.0), shorts.get(link.b, 0.0))
        if gauge in AMPACITY_MA and most > AMPACITY_MA[gauge]:
            found.append(f"{link.wire[0]} wire {link.wire[1]} may carry {most / 1000:g} A in a short before a fuse "
                         f"opens; {gauge} is rated {AMPACITY_MA[gauge] / 1000:g} A: fuse it at its start")
    return found


def bom_problems(harness: dict, rows: Iterable[dict[str, str]]) -> list[str]:
    """Every part and cable drawn is in the bill of materials, every electrical part bought is drawn,
    and a part bought for one the diagram draws with a value states that value."""
    found = []
    drawn = set(harness["connectors"]) | set(harness["cables"])
    named: set[str] = set()
    for row in rows:
        items = set(row["in the diagram"].split())
        if row["kind"] == "electrical":
            if not items:
                found.append(f"the bill of materials' {row['part']} is electrical but names nothing in the diagram")
            found += [f"the bill of materials' {row['part']} names {item}, which the diagram does not draw"
                      for item in sorted(items - drawn)]
            for item in sorted(items & set(VALUES)):
                drawn_value = value_of(harness["connectors"].get(item, {}).get("subtype", ""))
                if drawn_value is not None and value_of(row["part"]) != drawn_value:
                    found.append(f"the bill of materials' {row['part']} is for {item}, which the diagram draws as "
                                 f"{harness['connectors'][item]['subtype']}")
            found += bought_problems(harness, row, items & drawn)
            polarity = centre_polarity(harness)
            for item in sorted(items & {SUPPLY, JACK}):
                said = CENTRE_SAID.format(polarity)
                if polarity and said not in row["part"]:
                    found.append(f"the bill of materials' {row['part']} is for {item}, whose plug {JACK} takes {said} "
                                 f"({JACK}'s centre is {_centre_label(harness)}): say {said}")
            for item in sorted(items & set(THROUGH) & set(harness["connectors"])):
                bought, drawn_type = fuse_rating(row["part"]), harness["connectors"][item].get("type", "")
                if bought and bought != fuse_rating(drawn_type):  # a row that states no current (a holder) says nothing
                    found.append(f"the bill of materials' {row['part']} is for {item}, which the diagram draws as "
                                 f"{drawn_type}")
        elif row["kind"] != "mechanical":
            found.append(f"the bill of materials' {row['part']} is {row['kind']!r}: electrical or mechanical")
        elif items:
            found.append(f"the bill of materials' {row['part']} is mechanical yet names {' '.join(sorted(items))}")
        named |= items
    found += [f"{item} is drawn but not in the bill of materials" for item in sorted(drawn - named)]
    return found


def bought_problems(harness: dict, row: dict[str, str], items: set[str]) -> list[str]:
    """A row of the bill against the parts it is bought for: as many as the diagram draws (those
    cut from stock aside), each IC's part number, a strip's LEDs a metre, and the gauge and the
    cores of each cable drawn where the row states them."""
    found = []
    part, words = row["part"], f"{row['part']} {row.get('typical part or product', '')}"
    pieces = sorted(item for item in items if item in harness["connectors"] and not STOCK.fullmatch(item))
    if row.get("quantity") and int(row["quantity"]) < len(pieces):
        found.append(f"the bill of materials buys {row['quantity']} of {part} for the {len(pieces)} the diagram draws "
                     f"({', '.join(pieces)}): order {len(pieces)}")
    for item in sorted(items & set(harness["connectors"])):
        mpn = harness["connectors"][item].get("mpn")
        if mpn and set(IC_BOUGHT.findall(words)) != {mpn}:
            found.append(f"the bill of materials' {part} is for {item}, which the diagram draws as a {mpn}: buy a {mpn}")
    strips = {item: density[1] for item in sorted(items)
              if (density := DENSITY.search(harness["connectors"].get(item, {}).get("type", "")))}
    if strips and set(DENSITY.findall(part)) != set(strips.values()):
        density = " and ".join(sorted(set(strips.values())))
        found.append(f"the bill of materials' {part} is for {', '.join(strips)}, which the diagram draws at {density} "
                     f"{PER_METRE} (pinout.toml's strip_per_metre, params.scad's LED pitch): buy strip of {density} "
                     f"{PER_METRE}")
    stated = GAUGES.findall(part)
    by_gauge: dict[str, list[str]] = defaultdict(list)
    for item in sorted(items & set(harness["cables"])):
        gauge = harness["cables"][item].get("gauge")
        if stated and gauge and gauge not in stated:
            by_gauge[gauge].append(item)
    found += [f"the bill of materials' {part} is {' / '.join(stated)} wire, for {', '.join(cables)}, which the diagram "
              f"draws in {gauge}" + (f" (rated {AMPACITY_MA[gauge] / 1000:g} A)" if gauge in AMPACITY_MA else "")
              + f": buy {gauge} wire for them" for gauge, cables in sorted(by_gauge.items())]
    if cores := CORES.search(part):
        bought = int(cores[1] or cores[2])
        found += [f"the bill of materials' {part} has {bought} cores, for {item}, which the diagram draws with {wires} "
                  f"wires: buy a cable of {wires} cores" for item in sorted(items & set(harness["cables"]))
                  if (wires := harness["cables"][item]["wirecount"]) > bought]
    return found


def _centre_label(harness: dict) -> str:
    """The label of the jack's centre pin, without its "(centre)": "+5V"."""
    jack = harness["connectors"].get(JACK, {})
    return next((label.replace(CENTRE, "").strip() for label in labels(jack).values() if CENTRE in label), "")


def centre_polarity(harness: dict) -> str:
    """Which polarity the jack's centre pin is drawn as: "positive", "negative", or "" when not drawn."""
    label = _centre_label(harness)
    return "positive" if label.startswith("+") else "negative" if label == GROUND else ""


def _label(harness: dict, pin: Pin) -> str:
    return labels(harness["connectors"].get(pin[0], {})).get(pin[1], "")


def text(wiring: Pinout) -> str:
    """The harness as YAML (JSON is YAML, and needs no YAML writer), with a header comment."""
    return ("# Made by python -m pi_table.hardware.tools.wiring from hardware/pinout.toml: edit that, not this.\n"
            + json.dumps(harness(wiring), indent=2) + "\n")


SUBSYSTEMS = {
    "supply": ("The LED supply, its fuses and bus, and the level shifter", r"PSU|J1|F\d|BUS|C1|C2|R\d|U1"),
    "strip": ("The strip: its rows and the edge, fed from the bus", r"ROW\d+|EDGE"),
    "touch": ("The touch board: the Pico, the breakouts and their pads", r"Pico|C3|MPR121_\w+|PADS_\w+|GUARD"),
    "pi": ("The Pi: its supply, the display, the sound and the buttons", r"Pi|PI_PSU|DISPLAY|AMP|SPEAKER|END_TURN|NEW_GAME"),
}
"""The diagram in parts a page can print whole: each its title and the connectors it is about
(a pattern of their names); a cable to another part is drawn with the connector at its far end."""
PARTS = HARDWARE / "wiring-parts"
"""Where each part's description and drawing go: wiring-parts/NAME.yml and NAME.svg (not wiring/:
WireViz leaves a file of that name beside wiring.yml while it draws)."""


def subsystem(harness: dict, members: str) -> dict:
    """The part of ``harness`` about the connectors whose names fit ``members``: every cable that
    ends on one of them, whole, with the connectors at its ends."""
    own = {name for name in harness["connectors"] if re.fullmatch(members, name)}
    cables = {next(iter(cable)) for left, cable, right in harness["connections"]
              if {next(iter(left)), next(iter(right))} & own}
    connections = [joined for joined in harness["connections"] if next(iter(joined[1])) in cables]
    drawn = own | {next(iter(end)) for left, _, right in connections for end in (left, right)}
    return {"connectors": {name: shown for name, shown in harness["connectors"].items() if name in drawn},
            "cables": {name: shown for name, shown in harness["cables"].items() if name in cables},
            "connections": connections}


def subsystem_text(wiring: Pinout, name: str) -> str:
    """One part's description, as ``text`` writes the whole."""
    title, members = SUBSYSTEMS[name]
    return (f"# Made by python -m pi_table.hardware.tools.wiring from hardware/pinout.toml: {title.lower()}, part of "
            "wiring.yml.\n" + json.dumps(subsystem(harness(wiring), members), indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.hardware.tools.wiring",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, nargs="?", default=HARDWARE,
                        help="where to write wiring.yml, .svg and .png (default: hardware/)")
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
    shrink(folder / "wiring.png")
    parts = folder / PARTS.name
    parts.mkdir(exist_ok=True)
    for name in SUBSYSTEMS:
        part = parts / f"{name}.yml"
        part.write_text(subsystem_text(pinout.load(), name), encoding="utf-8")
        subprocess.run([sys.executable, "-m", "wireviz.wv_cli", "--format", "s", "--output-dir", str(parts), str(part)],
                       check=True, stdout=subprocess.DEVNULL)
        print(f"wrote {part} and its drawing")
    return 0


def shrink(png: Path) -> None:
    """Store the picture in 64 colours: a line drawing loses nothing a reader sees, and the file
    a fifth of its size (Pillow comes with wireviz)."""
    from PIL import Image

    with Image.open(png) as picture:
        fewer = picture.convert("RGB").quantize(colors=64, method=Image.Quantize.FASTOCTREE)
    fewer.save(png, optimize=True)


if __name__ == "__main__":
    sys.exit(main())
