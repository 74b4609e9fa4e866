"""The wiring in hardware/pinout.toml: sound as it stands, every rule able to fail, and the
software built from it (the configuration's defaults, the firmware) agreeing with it."""

from __future__ import annotations

import gettext
import importlib.util
import io
import math
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pi_table.firmware
import pytest
from pi_table.firmware import touchboard
from pi_table.hardware import pinout
from pi_table.hardware.pinout import HEADER, LED_DATA, Chip
from pi_table.hardware.tools import enclosure, guide, heat, latency, wiring

from pi_table.config import build, defaults
from pi_table.drivers import buttons as buttons_driver
from pi_table.drivers.settings import PINS as WS281X_PINS
from pi_table.ui.i18n import translation
from pi_table.ui.pixels import PowerLimit

from helpers import require_tools

WIRING = pinout.load()
FIRMWARE = Path(pi_table.firmware.__file__).parent


def test_the_reference_wiring_breaks_no_rule():
    assert WIRING.problems() == []


@pytest.mark.parametrize(
    "change, words",
    [
        ({"led_data": 17}, "cannot drive WS2812B"),
        ({"buttons": {**WIRING.buttons, "new_game": 17}}, "end_turn are both on GPIO 17"),
        ({"buttons": {**WIRING.buttons, "end_turn": 11}}, "end_turn and SPI0 are both on GPIO 11"),
        ({"buttons": {**WIRING.buttons, "end_turn": 10}}, "end_turn and the LED data line are both on GPIO 10"),
        ({"buttons": {**WIRING.buttons, "end_turn": 28}}, "not on the 40-pin header"),
        ({"sda": "GP4", "scl": "GP7"}, "not the SDA and SCL of one I2C bus"),
        ({"sda": "GP5", "scl": "GP4"}, "not the SDA and SCL of one I2C bus"),
        ({"maintenance_pin": "GP4"}, "the maintenance pin GP4 is also the I2C bus's"),
        ({"chips": (Chip(0x5A, "GND", 0), Chip(0x5A, "GND", 12), Chip(0x5C, "SDA", 24))}, "share an address"),
        ({"chips": (Chip(0x5A, "GND", 0), Chip(0x5B, "SCL", 12), Chip(0x5C, "SDA", 24))}, "which gives 0x5d"),
        ({"chips": (Chip(0x5A, "GND", 0), Chip(0x5B, "3V3", 24), Chip(0x5C, "SDA", 12))}, "expected 12"),
        ({"cell_electrodes": (0,) * 25}, "cell 0 and cell 1 are both on electrode 0"),
        ({"cell_electrodes": tuple(range(24))}, "the grid has 25 cells"),
        ({"cell_electrodes": tuple(range(24)) + (36,)}, "cell 24 is on electrode 36"),
        ({"end_turn_electrodes": (24,)}, "cell 2 and an END TURN pad are both on electrode 24"),
        ({"leds_per_cell": 0}, "at least one LED"),
        ({"grounds": {**WIRING.grounds, "new_game": 9}}, "end_turn and new_game share ground pin 9"),
        ({"grounds": {**WIRING.grounds, "end_turn": 11}}, "end_turn's ground is on header pin 11, which is not a ground"),
        ({"grounds": {k: v for k, v in WIRING.grounds.items() if k != "display"}}, "no ground pin for display"),
        ({"fuse_ma": 4000}, "would blow at the supply's rated 4 A"),
        ({"led_data": 18}, "GPIO 18 (PWM0) and the I2S amplifier is fitted"),
        ({"led_data": 12}, "keep the LEDs on GPIO 10 (SPI)"),
        ({"led_data": 21}, "GPIO 21 (PCM DOUT) and the I2S amplifier is fitted"),
        ({"amp_pins": {**WIRING.amp_pins, "din": 20}}, "the amplifier's DIN is on GPIO 20; I2S puts it on GPIO 21"),
        ({"buttons": {**WIRING.buttons, "end_turn": 19}}, "end_turn and the amplifier's LRCLK are both on GPIO 19"),
        ({"amp_vin_pin": 4}, "the amplifier's VIN is on header pin 4"),
        ({"grounds": {k: v for k, v in WIRING.grounds.items() if k != "amp"}}, "no ground pin for amp"),
        ({"grounds": {**WIRING.grounds, "amp": 20}}, "led_data and amp share ground pin 20"),
        ({"pi_supply_ma": 2500}, "use a bigger supply"),
    ],
)
def test_each_rule_catches_its_mistake(change, words):
    problems = replace(WIRING, **change).problems()
    assert any(words in problem for problem in problems), problems


def test_without_the_amplifier_the_leds_may_take_pwm():
    """GPIO 18 is the LEDs' PWM option and the amplifier's bit clock: the clash is a rule only
    while the amplifier is fitted, and its ground pin is then free."""
    bare = replace(WIRING, amp_fitted=False, led_data=18, grounds={k: v for k, v in WIRING.grounds.items() if k != "amp"})
    assert bare.problems() == []
    assert bare.pi_supply_load_ma == WIRING.pi_supply_load_ma - WIRING.amp_peak_ma


@pytest.mark.parametrize(
    "change, words",
    [
        ({"speaker_x": 5}, "the speaker and its rib run into a corner post, a board, the DC jack"),
        ({"speaker_x": 130}, "the speaker and its rib run into"),
        ({"speaker_depth": 60}, "the speaker and its rib run into"),
        ({"speaker_height": 33}, "the 33 mm speaker does not fit between the box's floor and the lid's lip"),
        ({"grille_slot_length": 80}, "the speaker's grille is larger than the speaker's face"),
        ({"grille_slots": 7}, "the speaker's grille is larger than the speaker's face"),
        ({"box_gland_x": [150, 60]}, "the speaker's grille runs into a gland's nut"),
    ],
)
def test_each_speaker_fit_rule_catches_its_mistake(change, words):
    """The speaker lies along the box's back wall behind the Pi, its grille through the wall."""
    assert enclosure.problems(enclosure.read()) == []
    found = enclosure.problems(enclosure.read(overrides=change))
    assert any(words in problem for problem in found), found


def test_the_header_table_is_the_real_header():
    """Physical pins 1-40: the 26 GPIOs sit on distinct pins, and the functions the table uses
    are where the Pi's documentation puts them."""
    physical = [pin for pin, _ in HEADER.values()]
    assert len(set(physical)) == 26 and all(1 <= pin <= 40 for pin in physical)
    assert HEADER[10] == (19, "SPI0 MOSI") and HEADER[18] == (12, "PWM0") and HEADER[12] == (32, "PWM0")
    assert [HEADER[pin][0] for pin in pinout.I2S.values()] == [12, 35, 40]  # PCM CLK, FS, DOUT
    assert set(LED_DATA) == set(WS281X_PINS)  # the LED driver can drive every pin the rules allow


def test_the_configuration_defaults_are_the_wiring():
    config = build(defaults(), None)
    assert config.leds.ws281x.pin == WIRING.led_data
    assert config.buttons.end_turn == WIRING.buttons["end_turn"] and config.buttons.new_game == WIRING.buttons["new_game"]
    assert (config.buttons.encoder_a is not None) == WIRING.encoder_fitted
    cells = {cell: electrode for electrode, cell in enumerate(config.touch.cells) if cell is not None}
    assert [cells[cell] for cell in range(25)] == list(WIRING.cell_electrodes)
    assert config.touch.end_turn == WIRING.end_turn_electrodes
    assert config.touch.usb_id == tuple(int(part, 16) for part in WIRING.usb_id.split(":"))
    assert all(len(leds) == WIRING.leds_per_cell for leds in config.leds.map.cells)
    assert len(config.leds.map.edge) == WIRING.edge_leds
    assert config.leds.power.budget_ma == WIRING.current_limit_ma < WIRING.led_supply_ma


def test_the_firmware_talks_to_the_chips_the_wiring_names():
    assert touchboard.ADDRESSES == tuple(chip.address for chip in WIRING.chips)
    assert touchboard.PINS == pinout.MPR121_ELECTRODES
    code = (FIRMWARE / "code.py").read_text()
    scl, sda = re.search(r"busio\.I2C\(board\.(GP\d+), board\.(GP\d+)", code).groups()
    assert (sda, scl) == (WIRING.sda, WIRING.scl)
    assert f"I2C_HZ = {WIRING.i2c_hz}" in code
    boot = (FIRMWARE / "boot.py").read_text()
    assert f'MAINTENANCE_PIN = "{WIRING.maintenance_pin}"' in boot


def test_the_i2c_bus_s_length_and_capacitance_have_one_source_the_build_guide():
    """The guide works them out from the cable's data sheet and params.scad (its i2c table); the
    firmware's README and code.py point there instead of giving figures of their own, which drift."""
    for path in (FIRMWARE / "README.md", FIRMWARE / "code.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\d\s*pF|\d(\.\d+)?\s*m of|pF/m", text), f"{path.name} gives the I2C bus's figures itself"
        assert re.search(r"The I2C bus: why 100 kHz", text), f"{path.name} does not point at the guide's I2C section"
    guide_text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert "## The I2C bus: why 100 kHz" in guide_text and "<!-- generated: i2c -->" in guide_text


def test_the_glands_bought_have_the_thread_the_fit_rule_asks_for():
    """The rim is 8 mm of solid PLA: a common M12 gland's 8 mm of thread leaves its locknut nothing.
    The bill names the thread length params.scad's fit rule is checked with, and the rule fails
    the common gland."""
    shape = enclosure.read()
    gland = next(row for row in guide.bom_rows() if "cable gland" in row["part"])
    assert f"{shape['gland_thread']:g} mm thread" in gland["part"]
    assert not [problem for problem in enclosure.problems(shape) if "thread" in problem]
    common = enclosure.problems(enclosure.read(overrides={"gland_thread": 8}))
    assert next(problem for problem in common if "thread" in problem).startswith(
        "a gland's 8 mm thread does not take the frame's rim (8 mm), its locknut (5 mm) and a turn to spare")


def test_where_a_maker_chooses_the_table_the_guide_says_how_deep_it_must_be():
    """The station's table gives the depth the frame and the station need; step 1 of the guide and
    the making pages' "what you need" say it, rounded up, where a maker chooses the table."""
    depth, width = enclosure.table_needed(enclosure.read())
    words = f"at least {math.ceil(depth)} mm ({math.ceil(depth / 10)} cm) deep and {math.ceil(width)} mm wide"
    step_1 = (HARDWARE / "README.md").read_text(encoding="utf-8").split("## 2. The printed enclosure")[0]
    assert words in " ".join(step_1.split())
    assert words in " ".join((ROOT / "docs" / "make" / "index.md").read_text(encoding="utf-8").split())


def test_the_heat_estimate_caps_a_cells_steady_light_and_the_defaults_keep_under_it():
    """A cell lit full white (4 LEDs at 60 mA) warms its air some 20-40 K: too much for PLA kept
    for long. The cap keeps the warm end of the estimate to 20 K; the table's steady colours at the
    default brightness and gamma stay under it, and the check can fail: with no gamma correction
    at full brightness, a bystander's warm grey is over it."""
    shape = enclosure.read()
    full = heat.estimate(shape).rise(WIRING.leds_per_cell * 3 * 20 * 5 / 1000)
    assert 15 < full[0] < full[1] < 45
    cap_ma = heat.cap_watts(shape) / heat.SUPPLY_V * 1000
    assert heat.estimate(shape).rise(heat.cap_watts(shape))[1] == pytest.approx(heat.PLA_LIMIT_C - heat.ROOM_C)
    bystander = heat.STEADY["a revealed card (N)"]
    assert all(heat.cell_ma(colour, WIRING, 0.5, 2.2) <= cap_ma for colour in heat.STEADY.values())
    assert heat.cell_ma(bystander, WIRING, 1.0, 1.0, heat.UNCAPPED) > cap_ma
    assert heat.brightest(WIRING, 1.0, cap_ma) < 1.0 == heat.brightest(WIRING, 2.2, cap_ma)
    assert "under the cap" in heat.table(shape, WIRING)


def test_the_output_stage_holds_every_cell_to_the_steady_cap():
    """The cap the guide works out is the one the output stage holds: a bystander's grey at gamma 1
    and full brightness, over the cap by itself, is dimmed to it; white at full brightness too."""
    cap_ma = heat.cap_watts(enclosure.read()) / heat.SUPPLY_V * 1000
    assert 0.95 * cap_ma <= PowerLimit().cell_ma <= cap_ma
    for colour in (heat.STEADY["a revealed card (N)"], (255, 255, 255)):
        assert heat.cell_ma(colour, WIRING, 1.0, 1.0, heat.UNCAPPED) > cap_ma
        assert PowerLimit().cell_ma - 1 <= heat.cell_ma(colour, WIRING, 1.0, 1.0) <= PowerLimit().cell_ma
    assert "within the cap" in heat.table(enclosure.read(), WIRING)


def test_the_latency_budget_gives_both_readings_of_the_second_filter():
    """The datasheet does not say whether the second filter moves each sample or each block of SFI:
    the guide gives both totals, the block reading 8 to 16 ms later, and how to measure which."""
    now = latency.firmware()
    running, block = latency.total(now, WIRING), latency.total(now, WIRING, block=True)
    assert 8 <= block[0] - running[0] <= 16 and 8 <= block[1] - running[1] <= 16
    readme = " ".join((HARDWARE / "README.md").read_text(encoding="utf-8").split())
    assert "photodiode" in readme and "solenoid" in readme and "does not say whether" in readme


def test_the_buttons_driver_names_the_pinouts_pins_and_grounds():
    """The driver's docstring tells a maker where each contact and its ground go: the pinout's."""
    words = " ".join(buttons_driver.__doc__.split())
    for name, pin in WIRING.buttons.items():
        assert f"GPIO {pin} (header pin {HEADER[pin][0]}, ground pin {WIRING.grounds[name]})" in words, name
    assert f"Pins {WIRING.grounds['led_data']} and {WIRING.grounds['display']} are the LED shifter's and the display's" in words


HARDWARE = Path(pinout.__file__).parent
def test_the_build_guide_is_current_with_its_sources():
    """Every table of numbers in hardware/README.md is written from the sources."""
    text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert guide.render(text) == text, "run: python -m pi_table.hardware.tools.guide"
    assert text.count("<!-- generated:") == len(guide.blocks())


def test_the_guide_s_dead_chip_step_is_the_pinout_s_chips():
    """Issue 78.5: the guide said a dead breakout shows as "a whole group of twelve" dead; no chip
    reads twelve cards (their pads are spread beside their breakouts). The step points at a table
    drawn from the pinout, which the test above holds current."""
    text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    step = text.split("### If a pad does not respond")[1].split("## Bill of materials")[0]
    assert f"<!-- generated: chips -->\n{guide.chips_table(WIRING)}\n<!-- end -->" in step
    assert "twelve" not in step
    read = {chip.address: sum(chip.first_electrode <= e < chip.first_electrode + 12 for e in WIRING.cell_electrodes)
            for chip in WIRING.chips}
    assert 12 not in read.values() and sum(read.values()) == 25, read


def test_the_pinout_says_of_the_board_s_ports_what_boot_py_does():
    """In service boot.py opens the data port alone (the console only with the maintenance jumper):
    the pinout's note on the board's USB id says so, not "the second CDC interface"."""
    boot = (FIRMWARE / "boot.py").read_text(encoding="utf-8")
    assert "usb_cdc.enable(console=maintenance, data=True)" in boot
    note = next(line for line in (HARDWARE / "pinout.toml").read_text(encoding="utf-8").splitlines()
                if line.startswith("usb_id"))
    assert "in service its data port is its only serial port" in note and "second" not in note


def test_the_latency_budget_is_worked_from_the_firmwares_settings():
    """The finger-to-light table reads the chip's registers and the loop's constants the board runs
    with; those settings bring the pending light under 20 ms typically, and the guide names the
    hold the host really uses (which the pending light does not wait for)."""
    now = latency.firmware()
    code = (FIRMWARE / "code.py").read_text(encoding="utf-8")
    assert f"I2C_HZ = {now.i2c_hz}" in code and re.search(rf"SCAN_PAUSE_S = {now.pause_s}\b", code)
    assert latency.settings({"CONFIG2": 0x2A, "DEBOUNCE": 0x22}, 0.004, 100_000) == latency.Settings(4, 6, 2, 0.004, 100_000)
    assert (now.esi_ms, now.sfi, now.touch_debounce, now.pause_s) == (2, 4, 1, 0.002)
    assert latency.total(now, WIRING)[0] < latency.TARGET_MS
    assert f"under the {latency.TARGET_MS} ms aimed at" in latency.table(WIRING)
    slow = latency.settings({"CONFIG2": 0x2C, "DEBOUNCE": 0x22}, 0.004, 100_000)  # ESI 16 ms: the check can fail
    assert latency.total(slow, WIRING)[0] > latency.TARGET_MS
    stages = {name: typical for name, typical, _ in latency.stages(now, WIRING)}
    assert stages["the frame down the strip's 124 LEDs and the latch"] == pytest.approx(4.32, abs=0.01)
    assert stages["its second filter reaches the touch threshold"] == 4.0  # 4 samples 2 ms apart, crossed halfway
    hold = build(defaults(), None).input.hold_s
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert f"(`game.hold_s`, {hold:g} s by default)" in readme and "touch debounce 1 (DEBOUNCE 0x21" in readme


def test_the_bill_of_materials_adds_up_and_has_every_part():
    rows = guide.bom_rows()
    assert all(None not in row and all(value for key, value in row.items() if key != "in the diagram") for row in rows), \
        "a row with a field too many or missing (only a mechanical part is drawn as nothing)"
    assert all(int(row["quantity"]) > 0 and float(row["unit price (USD)"]) > 0 for row in rows)
    assert guide.bom_total(rows) == round(sum(int(r["quantity"]) * float(r["unit price (USD)"]) for r in rows), 2)
    parts = " ".join(row["part"] for row in rows)
    for needed in ("Raspberry Pi", "Pico", "MPR121", "WS2812B", "level shifter", "power supply", "display", "button",
                   "DIP-14 socket", "10 uF", "100 nF", "10 kohm", "DC jack 5.5 x 2.1 mm, 5 A", "8 mm hole", "fuse holder",
                   "0.75 mm2 (18 AWG)", "IP65", "pin header", "feet", "Cable ties", "M12 x 1.5 cable gland", "black",
                   "neutral-cure silicone", "flat bar 20 x 3 mm", "foam", "I2C cable", "PTC resettable fuse", "Heatsink",
                   "insulating tape", "Solder wire", "alcohol"):
        assert needed in parts, needed
    fuse = next(row for row in rows if row["part"].startswith("Blade fuse"))
    assert f"{WIRING.fuse_ma / 1000:g} A" in fuse["part"]
    glands = next(row for row in rows if "gland" in row["part"])
    assert int(glands["quantity"]) == len(enclosure.glands(enclosure.read()))
    mpr121 = next(row for row in rows if "MPR121" in row["part"])
    assert int(mpr121["quantity"]) == len(WIRING.chips)
    strip = next(row for row in rows if "WS2812B" in row["part"])
    assert f"{WIRING.strip_per_metre} LEDs/m" in strip["part"] and f"{WIRING.strip_reel_m:g} m reel" in strip["part"]


def test_the_power_budget_keeps_the_supply_within_its_rating():
    worst = WIRING.leds * wiring.MA_PER_LED_FULL
    assert WIRING.current_limit_ma < WIRING.led_supply_ma < worst  # the limit is what keeps the supply safe
    assert f"{worst / 1000:.2f} A" in guide.power_table(WIRING)


def test_the_committed_wiring_description_is_the_pinouts():
    assert (HARDWARE / "wiring.yml").read_text(encoding="utf-8") == wiring.text(WIRING)
    harness = wiring.harness(WIRING)
    assert {f"MPR121_{chip.address:02X}" for chip in WIRING.chips} <= set(harness["connectors"])


def test_the_diagram_s_printable_parts_are_the_pinouts_and_draw_every_connector_once():
    """Issue 60: the whole diagram was one picture 16,012 px wide; each part prints on a page."""
    harness = wiring.harness(WIRING)
    for name in wiring.SUBSYSTEMS:
        assert (wiring.PARTS / f"{name}.yml").read_text(encoding="utf-8") == wiring.subsystem_text(WIRING, name), \
            "run: python -m pi_table.hardware.tools.wiring"
    owners = {connector: [name for name, (_title, members) in wiring.SUBSYSTEMS.items()
                          if re.fullmatch(members, connector)] for connector in harness["connectors"]}
    assert {connector: found for connector, found in owners.items() if len(found) != 1} == {}, \
        "each connector belongs to one part of the diagram"
    drawn = {cable for _title, members in wiring.SUBSYSTEMS.values()
             for cable in wiring.subsystem(harness, members)["cables"]}
    assert drawn == set(harness["cables"])


@pytest.mark.tool
def test_wireviz_renders_the_wiring_diagram(tmp_path):
    require_tools("dot", also_missing=() if importlib.util.find_spec("wireviz") else ("wireviz",))
    assert wiring.main([str(tmp_path)]) == 0
    svg = (tmp_path / "wiring.svg").read_text(encoding="utf-8")
    assert "MPR121 breakout at 0x5c" in svg and f"GPIO{WIRING.led_data}" in svg
    assert (tmp_path / "wiring.png").stat().st_size > 10_000
    touch = (tmp_path / wiring.PARTS.name / "touch.svg").read_text(encoding="utf-8")
    assert "MPR121 breakout at 0x5c" in touch and "WS2812B" not in touch


ROOT = HARDWARE.parent
BUILD_DOCUMENTS = ("README.md", "hardware/README.md", "hardware/pinout.toml", "hardware/wiring.yml",
                   "enclosure/README.md", "enclosure/params.scad", "firmware/README.md", "firmware/PROTOCOL.md")


def test_every_build_document_names_one_corner_for_cell_0():
    """Cell 0, LED 0 and electrode 0 are at the operatives' left in row 0, where params.scad puts
    the grid's origin; no build document names the corner from one seat's view ("top-left")."""
    params = " ".join((ROOT / "enclosure" / "params.scad").read_text(encoding="utf-8").replace("//", " ").split())
    assert f"The grid's origin is the inner corner of the frame's rim at {guide.CORNER}" in params
    for name in BUILD_DOCUMENTS:
        assert guide.corner_problems(name, (ROOT / name).read_text(encoding="utf-8")) == []
    for name in ("hardware/README.md", "hardware/pinout.toml", "hardware/wiring.yml"):
        assert guide.CORNER in (ROOT / name).read_text(encoding="utf-8"), name


def test_the_corner_rule_catches_a_corner_named_from_one_side():
    text = "Stick the strip in,\nstarting Top-Left (seen from the operatives' side)."
    assert guide.corner_problems("guide", text) == [
        "guide line 2 names a corner 'Top-Left': say the operatives' left, row 0 (as params.scad)"]


@pytest.mark.tool
def test_a_pi_installs_the_pinout_and_none_of_the_build_tools(tmp_path):
    """The wheel pip builds from a copy of the checkout, as systemd/install.sh has it do on a Pi:
    the pinout the configuration's defaults come from, and nothing of hardware/tools/ (the
    enclosure's evaluator, the netlist rules, the guide's builder) nor the bill of materials; and
    the Italian catalogue compiled by the build from its .po (git keeps no .mo: issue 77)."""
    copy = tmp_path / "checkout"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, copy / name)
    for name in ("pi_table", "firmware", "hardware", "build_backend"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
                           "--wheel-dir", str(tmp_path / "wheel"), str(copy)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No matching distribution found for setuptools" in done.stderr:
        require_tools(also_missing=("PyPI through pip (the build's setuptools)",))
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        installed = sorted(name for name in archive.namelist() if name.startswith("pi_table/hardware/"))
        compiled = archive.read("pi_table/ui/locale/it/LC_MESSAGES/pi_table.mo")
    assert installed == [f"pi_table/hardware/{name}" for name in ("__init__.py", "pinout.py", "pinout.toml")]
    italian = gettext.GNUTranslations(io.BytesIO(compiled))
    assert italian.gettext("Undo") != "Undo" and italian.gettext("Undo") == translation("it").gettext("Undo")


def test_every_row_a_maker_must_order_by_its_number_names_one():
    """Issue 60: 7 of 29 electrical rows (C3, J1, the fuse holder, the H03VV-F cable, the silicone
    wire, the copper tape, the USB cable) and the long-thread gland named no part number. Each
    row still without one is named in the guide as still to source."""
    rows = guide.bom_rows()
    assert guide.orderable_problems(rows) == []
    checked = " ".join((guide.HARDWARE / "README.md").read_text(encoding="utf-8").split("## What was and was not checked")[1]
                       .split())
    for part, words in zip(sorted(guide.UNSOURCED), ("long-thread M12 gland", "H03VV-F 3 x 0.75 mm²",
                                                      "0.75 mm² silicone wire"), strict=True):
        assert part in {row["part"] for row in rows} and words in checked, part


@pytest.mark.parametrize("typical, words", [
    ("any ATO/ATC in-line holder", "Inline blade fuse holder (ATO) with leads: its typical part ('any ATO/ATC in-line "
                                   "holder') names no maker's part number or order code"),
    ("threaded panel jack with nut and solder lugs, rated 5 A or more", "names no maker's part number"),
])
def test_a_row_without_a_part_number_is_reported_naming_it(typical, words):
    rows = [{**row, "typical part or product": typical} if row["part"].startswith(("Inline blade fuse", "Panel DC jack"))
            else row for row in guide.bom_rows()]
    found = guide.orderable_problems(rows)
    assert len(found) == 2 and any(words in problem for problem in found), found


def test_a_row_sourced_but_still_listed_unsourced_is_reported():
    rows = [{**row, "typical part or product": "Lapp SKINTOP ST-M 12x1.5 (53111000)"} if row["part"].startswith("M12")
            else row for row in guide.bom_rows()]
    assert guide.orderable_problems(rows) == [
        "hardware/bom.csv: M12 x 1.5 cable gland, 15 mm thread, for 3.5-7 mm cable (12.5 mm hole) now names a part: "
        "take it off guide.UNSOURCED and the guide's list of parts still to source"]
