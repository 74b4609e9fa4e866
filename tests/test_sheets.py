"""Each step's wiring sheet (hardware/tools/sheets.py, hardware/steps/step-N.svg): every wire the
step puts in, from the netlist, drawn in its colour and labelled at both ends with its pin's name,
on one A4 page at 8 pt or more. Issue 78: the step pictures drew almost none of the wires, and the
wiring pages printed their labels at 2.7-4.7 pt on A3."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from pi_table.hardware import pinout
from pi_table.hardware.tools import sheets, wiring
from pi_table.hardware.tools.steps import STEPS

HARNESS = wiring.harness(pinout.load())
NUMBERS = range(1, len(STEPS) + 1)


def committed(number: int) -> str | None:
    path = sheets.sheet_path(number)
    return path.read_text(encoding="utf-8") if path.is_file() else None


@pytest.mark.parametrize("number", NUMBERS)
def test_each_step_s_sheet_draws_every_wire_of_the_step_at_8_pt_on_a4(number):
    assert sheets.problems(number, committed(number), HARNESS) == []


def test_the_sheets_are_what_the_netlist_and_the_layout_draw_now():
    """A sheet for each step that wires something (the printing and the tuning wire nothing)."""
    assert sheets.drawn() == [number for number in NUMBERS if STEPS[number - 1].cables] == [1, 3, 4, 5, 6]
    for number in NUMBERS:
        made = sheets.drawing(number) if number in sheets.drawn() else None
        assert committed(number) == made, f"step-{number}.svg is stale: run python tools/docs.py"


def test_the_steps_that_wire_draw_the_netlist_s_every_cable_between_them():
    """Each wire of the netlist is on a step's sheet (the stripboard's tracks on the board), and a
    cable no step names is reported by name."""
    assert sheets.unwired_problems(HARNESS) == []
    drawn = {link.wire for number in NUMBERS for link in sheets.step_wires(STEPS[number - 1], HARNESS)}
    every = {link.wire for link in wiring.links(HARNESS) if link.wire and link.wire[0] not in sheets.BOARD_CABLES}
    assert drawn == every
    more = {**HARNESS, "cables": {**HARNESS["cables"], "W_fan": {"wirecount": 2, "colors": ["RD", "BK"]}}}
    assert sheets.unwired_problems(more) == ["W_fan is wired by no step: name it in its step's cables "
                                             "(hardware/tools/steps.py), so its wiring sheet draws it"]


def _first(pattern: str, text: str) -> re.Match[str]:
    match = re.search(pattern, text)
    assert match, pattern
    return match


def test_a_wire_rubbed_out_of_a_sheet_is_named_with_its_step_its_wire_and_the_fix():
    text = committed(4)
    assert text is not None
    line = _first(r'\n<polyline class="wire" data-wire="W_PADS_5A 3"[^\n]*', text)[0]
    found = sheets.problems(4, text.replace(line, "", 1), HARNESS)
    assert found == ["step 4's sheet (hardware/steps/step-4.svg) does not draw W_PADS_5A wire 3 (white, MPR121_5A E2 "
                     "to PADS_5A cell 5): draw the sheets again (python tools/docs.py, or ./dev docs)"]


def test_a_label_shrunk_under_8_pt_is_named_with_its_step_and_its_size():
    text = committed(5)
    assert text is not None
    label = _first(r'<text class="end" data-wire="W_i2c 1" data-pin="Pico 6"[^>]*font-size="3"', text)[0]
    found = sheets.problems(5, text.replace(label, label.replace('font-size="3"', 'font-size="2"'), 1), HARNESS)
    assert found == ["step 5's sheet (hardware/steps/step-5.svg) prints 'GP4 (pin 6), T18 H1' at 5.7 pt on A4, under 8 pt: draw "
                     "the sheets again (python tools/docs.py, or ./dev docs) (its labels are drawn at 8.5 pt)"]


def test_a_page_larger_than_a4_shrinks_its_labels_and_is_named():
    text = committed(1)
    assert text is not None
    size = _first(r'width="(\d+)mm" height="(\d+)mm"', text)
    bigger = text.replace(size[0], f'width="{int(size[1]) * 2}mm" height="{int(size[2]) * 2}mm"', 1)
    found = sheets.problems(1, bigger, HARNESS)
    assert found[0] == (f"step 1's sheet (hardware/steps/step-1.svg) is {int(size[1]) * 2} x {int(size[2]) * 2} mm, "
                        "larger than A4 (210 x 297 mm): draw the sheets again (python tools/docs.py, or ./dev docs)")
    smaller = text.replace(size[0], f'width="{int(size[1]) // 2}mm" height="{int(size[2]) // 2}mm"', 1)
    assert sheets.problems(1, smaller, HARNESS)[0].endswith("under 8 pt: draw the sheets again (python tools/docs.py, "
                                                            "or ./dev docs) (its labels are drawn at 8.5 pt)")


def test_a_label_printed_over_another_is_named():
    text = committed(6)
    assert text is not None
    first = _first(r'data-wire="W_brick 1" data-pin="J1 1" (x="[\d.]+" y="[\d.]+")', text)[1]
    second = _first(r'data-wire="W_brick 2" data-pin="J1 2" (x="[\d.]+" y="[\d.]+")', text)[1]
    assert sheets.problems(6, text.replace(second, first, 1), HARNESS) == [
        "step 6's sheet (hardware/steps/step-6.svg) prints '+5V (centre)' over 'GND': draw the sheets again (python "
        "tools/docs.py, or ./dev docs)"]


def test_a_wire_drawn_to_another_pin_is_named():
    text = committed(1)
    assert text is not None
    moved = text.replace('data-wire="W_i2c 1" data-ends="Pico 6 | MPR121_5B 1"',
                         'data-wire="W_i2c 1" data-ends="Pico 9 | MPR121_5B 1"', 1)
    assert moved != text
    assert sheets.problems(1, moved, HARNESS) == [
        "step 1's sheet (hardware/steps/step-1.svg) draws W_i2c wire 1 from Pico 9 to MPR121_5B 1; the netlist joins "
        "Pico 6 to MPR121_5B 1: draw the sheets again (python tools/docs.py, or ./dev docs)"]


def test_a_step_without_its_sheet_names_its_wires():
    assert sheets.problems(3, None, HARNESS)[0].startswith(
        "step 3 (Lay the LED strip and the power bus) has no wiring sheet (hardware/steps/step-3.svg) for its 23 wires")
    assert sheets.problems(2, None, HARNESS) == []  # printing wires nothing


def test_the_pins_are_placed_from_the_pinout():
    """The bus moved to GP6/GP7 in the pinout: the sheets draw the I2C cable to Pico pins 9 and 10,
    and the committed sheets, drawn for GP4/GP5, are named as wrong."""
    moved = wiring.harness(replace(pinout.load(), sda="GP6", scl="GP7"))
    text = sheets.drawing(1, moved)
    assert 'data-ends="Pico 9 | MPR121_5B 1"' in text and ">GP6 (pin 9)<" in text
    assert sheets.problems(1, text, moved) == []
    assert any("draws W_i2c wire 1 from Pico 6 to MPR121_5B 1; the netlist joins Pico 9" in problem
               for problem in sheets.problems(1, committed(1), moved))
