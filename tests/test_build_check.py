"""The build's rules read its files whole (hardware/tools/check.py): a copy of the checkout's
hardware/, enclosure/ and firmware/ with one mistake a maker made in it, and the rules name the
part and the fix. Each of these passed every rule once (issue 78)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pi_table.hardware.tools import HARDWARE, check

ROOT = HARDWARE.parent


def checkout(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """A copy of the build's files, each named file's first text replaced: the copy must change."""
    for folder in ("hardware", "enclosure", "firmware"):
        shutil.copytree(ROOT / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.png", "wiring.svg", "wiring-parts", "pictures"))
    for name, (old, new) in edits.items():
        path = tmp_path / name
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{name} no longer says {old!r}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return tmp_path


def test_the_reference_build_breaks_no_rule(tmp_path):
    assert check.problems(checkout(tmp_path, {})) == []
    assert check.main([str(ROOT)]) == 0


STRIP = "WS2812B LED strip 60 LEDs/m 5 V 5 m reel"


@pytest.mark.parametrize("edits, words", [
    pytest.param({"hardware/pinout.toml": ("edge_leds = 24", "edge_leds = 40"),
                  "enclosure/params.scad": ("edge_leds = 24;", "edge_leds = 40;")},
                 "the edge strip's 40 LEDs take 666.67 mm; the front rim's outer face it lies on is 420.6 mm: set "
                 "edge_leds to 25 or fewer", id="a 40-LED edge strip on the 420 mm front rim"),
    pytest.param({"hardware/bom.csv": (STRIP, STRIP.replace("60 LEDs/m", "30 LEDs/m"))},
                 "the bill of materials' WS2812B LED strip 30 LEDs/m 5 V 5 m reel, IP65 silicone-coated, 12 mm wide is "
                 "for EDGE, ROW0, ROW1, ROW2, ROW3, ROW4, which the diagram draws at 60 LEDs/m (pinout.toml's "
                 "strip_per_metre, params.scad's LED pitch): buy strip of 60 LEDs/m", id="a 30 LEDs/m strip bought"),
    pytest.param({"hardware/pinout.toml": ('sda = "GP4"            # Pico pin 6\nscl = "GP5"',
                                           'sda = "GP6"            # Pico pin 9\nscl = "GP7"'),
                  "firmware/code.py": ("board.GP5, board.GP4", "board.GP7, board.GP6")},
                 "W_i2c wire 1 at T18 H1 (I2C cable: SDA) is laid on Pico pin 6 (GP4)'s track; the diagram draws it to "
                 "Pico pin 9 (GP6), where the pinout puts it: move its end to that pin's track, or the pinout back",
                 id="I2C moved to GP6/GP7, the stripboard unchanged"),
    pytest.param({"hardware/pinout.toml": ('maintenance_pin = "GP22"', 'maintenance_pin = "GP28"'),
                  "firmware/boot.py": ('MAINTENANCE_PIN = "GP22"', 'MAINTENANCE_PIN = "GP28"')},
                 "the maintenance header stands on Pico pin 29 (GP22); pinout.toml puts the maintenance jumper on GP28 "
                 "(Pico pin 34): move the header to Pico pin 34 and a ground beside it, or maintenance_pin back",
                 id="the maintenance jumper on GP28, the stripboard on GP22"),
    pytest.param({"hardware/bom.csv": ("74AHCT125 quad level shifter", "74HC125 quad level shifter")},
                 "the bill of materials' 74HC125 quad level shifter DIP-14 is for U1, which the diagram draws as a "
                 "74AHCT125: buy a 74AHCT125", id="a 74HC125 bought for U1"),
    pytest.param({"hardware/bom.csv": ("MPR121 capacitive touch breakout,3", "MPR121 capacitive touch breakout,2")},
                 "the bill of materials buys 2 of MPR121 capacitive touch breakout for the 3 the diagram draws "
                 "(MPR121_5A, MPR121_5B, MPR121_5C): order 3", id="two MPR121 breakouts ordered"),
    pytest.param({"hardware/bom.csv": ('"Silicone wire 0.75 mm2 (18 AWG), red and black',
                                       '"Silicone wire 26 AWG, red and black')},
                 "the bill of materials' Silicone wire 26 AWG, red and black, 3 m each is 26 AWG wire, for "
                 "W_edge_power, W_row0_power, W_row1_power, W_row2_power, W_row3_power, W_row4_power, which the diagram "
                 "draws in 0.75 mm2 (rated 6 A): buy 0.75 mm2 wire for them", id="26 AWG bought for the power pairs"),
    pytest.param({"hardware/bom.csv": ("M12 x 1.5 cable gland, 15 mm thread", "M12 x 1.5 cable gland, 8 mm thread")},
                 "hardware/bom.csv: M12 x 1.5 cable gland, 8 mm thread, for 3.5-7 mm cable (12.5 mm hole): its 8 mm "
                 "thread does not take the frame's rim (8 mm), its locknut (5 mm) and a turn to spare (1.5 mm): buy a "
                 "long-thread gland, 14.5 mm of thread or more", id="the common 8 mm gland thread through the 8 mm rim"),
    pytest.param({"hardware/bom.csv": ("for 3.5-7 mm cable", "for 3-6.5 mm cable")},
                 "hardware/bom.csv: M12 x 1.5 cable gland, 15 mm thread, for 3-6.5 mm cable (12.5 mm hole): the LED "
                 "cable, 6 mm across (params.scad's led_cable_od), is not 1 mm inside its 3-6.5 mm clamping range: buy a "
                 "gland clamping 4-7 mm or wider", id="a gland for 3-6.5 mm cable, the LED cable about 6 mm"),
    pytest.param({"hardware/bom.csv": ("M12 x 1.5 cable gland", "M16 x 1.5 cable gland")},
                 "hardware/bom.csv: M16 x 1.5 cable gland, 15 mm thread, for 3.5-7 mm cable (12.5 mm hole): its M16 "
                 "thread does not fit the 12.5 mm hole params.scad's gland_hole drills: buy an M12 gland, or drill "
                 "gland_hole for M16", id="an M16 gland against the 12.5 mm hole"),
    pytest.param({"hardware/bom.csv": ("for 3.5-7 mm cable (12.5 mm hole)", "for 3.5-7 mm cable")},
                 "hardware/bom.csv: M12 x 1.5 cable gland, 15 mm thread, for 3.5-7 mm cable does not state the "
                 "gland to buy", id="a gland row that drops a figure"),
    pytest.param({"hardware/bom.csv": ('"Silicone wire 0.75 mm2 (18 AWG), red and black',
                                       '"Silicone wire 0.5 mm2 (20 AWG), red and black')},
                 "the bill of materials' Silicone wire 0.5 mm2 (20 AWG), red and black, 3 m each is 0.5 mm2 / 20 AWG "
                 "wire, for W_edge_power, W_row0_power, W_row1_power, W_row2_power, W_row3_power, W_row4_power, which "
                 "the diagram draws in 0.75 mm2 (rated 6 A): buy 0.75 mm2 wire for them",
                 id="0.5 mm2 bought for the power pairs"),
    pytest.param({"hardware/bom.csv": ('"Silicone wire 0.75 mm2 (18 AWG), red and black', '"Silicone wire, red and black')},
                 "hardware/bom.csv: Silicone wire, red and black, 3 m each is bought by its words, for W_edge_power, "
                 "W_row0_power, W_row1_power, W_row2_power, W_row3_power, W_row4_power, and states no gauge: say 0.75 "
                 "mm2, the gauge the diagram draws them in", id="the silicone wire's gauge left out"),
    pytest.param({"hardware/bom.csv": ("H03VV-F 3 x 0.75 mm2 (18 AWG), 1.5 m", "H03VV-F 2 x 0.75 mm2 (18 AWG), 1.5 m")},
                 "the bill of materials' Three-core cable H03VV-F 2 x 0.75 mm2 (18 AWG), 1.5 m has 2 cores, for W_led, "
                 "which the diagram draws with 3 wires: buy a cable of 3 cores", id="a 2-core LED cable"),
    pytest.param({"hardware/bom.csv": ("Littelfuse FHAC0001ZXJ (DigiKey F3209-ND)", "any ATO/ATC in-line holder")},
                 "hardware/bom.csv: Inline blade fuse holder (ATO) with leads: its typical part ('any ATO/ATC in-line "
                 "holder') names no maker's part number or order code: name one that fits, as the row's other words say",
                 id="a fuse holder bought as 'any'"),
    pytest.param({"hardware/steps/step-4.svg": ('<polyline class="wire" data-wire="W_PADS_5A 3"',
                                                '<polyline data-wire="W_PADS_5A 3"')},
                 "step 4's sheet (hardware/steps/step-4.svg) does not draw W_PADS_5A wire 3 (white, MPR121_5A E2 to "
                 "PADS_5A cell 5): draw the sheets again (python tools/docs.py, or ./dev docs)",
                 id="a pad wire rubbed out of step 4's wiring sheet"),
    pytest.param({"hardware/pinout.toml": ('sda = "GP4"            # Pico pin 6\nscl = "GP5"',
                                           'sda = "GP6"            # Pico pin 9\nscl = "GP7"'),
                  "firmware/code.py": ("board.GP5, board.GP4", "board.GP7, board.GP6")},
                 "step 1's sheet (hardware/steps/step-1.svg) draws W_i2c wire 1 from Pico 6 to MPR121_5B 1; the netlist "
                 "joins Pico 9 to MPR121_5B 1: draw the sheets again (python tools/docs.py, or ./dev docs)",
                 id="I2C moved to GP6/GP7, the sheets drawn for GP4/GP5"),
])
def test_each_mistake_in_the_files_is_named_with_its_fix(tmp_path, edits, words):
    found = check.problems(checkout(tmp_path, edits))
    assert any(words in problem for problem in found), found


def test_the_firmware_is_held_to_the_pinout(tmp_path):
    """The pinout moved and the firmware not: the board would open the bus on pins no wire reaches."""
    found = check.problems(checkout(tmp_path, {"hardware/pinout.toml": ('maintenance_pin = "GP22"',
                                                                        'maintenance_pin = "GP21"')}))
    assert 'firmware/boot.py reads the maintenance jumper on GP22; pinout.toml puts it on GP21: write ' \
           'MAINTENANCE_PIN = "GP21"' in found, found
