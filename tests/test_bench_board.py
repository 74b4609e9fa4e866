"""The bench step (hardware/tools/bench.py): the touch board's own report of its chips and pads,
on the board emulator (the firmware's own logic behind a pty), before anything is on the frame."""

from __future__ import annotations

import re
import threading

import pytest
import serial
from pi_table.hardware import pinout
from pi_table.hardware.tools import bench, guide, steps

from pi_table.sim.emulator import BoardEmulator

from helpers import wait_for

WIRING = pinout.load()


def on_the_bench(tmp_path, missing=(), touched=range(36), seconds=60.0):
    """Run the bench's command against an emulated board, a finger on each of ``touched`` in turn
    once it asks for them: its exit status and what it said."""
    emulator = BoardEmulator(link=tmp_path / "board", missing=missing)
    emulator.start()
    said: list[str] = []
    result: list[int] = []
    try:
        with serial.Serial(emulator.path, timeout=0.05) as port:
            worker = threading.Thread(target=lambda: result.append(bench.run(port, WIRING, said.append, seconds)))
            worker.start()
            wait_for(lambda: any(line.startswith("touch each electrode") for line in said), "the call for touches",
                     timeout=10)
            for electrode in touched:  # each finger held until the board reports it, however loaded the machine
                emulator.press(electrode)
                wait_for(lambda e=electrode: any(f"(electrode {e}): touched" in line for line in said),
                         f"electrode {electrode} reported", timeout=5)
                emulator.release(electrode)
            worker.join(seconds + 10)
    finally:
        emulator.stop()
    return result[0], said


def test_a_sound_board_names_each_chip_and_hears_every_electrode(tmp_path):
    status, said = on_the_bench(tmp_path)
    assert status == 0, said
    assert said[0].startswith("touch board emulator: firmware ")
    for chip in WIRING.chips:
        assert f"chip {hex(chip.address)} (ADDR to {chip.addr_to}, electrodes {chip.first_electrode}-" \
               f"{chip.first_electrode + 11}): answers" in said
    assert "chip 0x5b E4 (electrode 16): touched" in said
    assert said[-1] == "every chip answers and every electrode was touched"


def test_a_dead_breakout_and_a_pad_not_heard_are_named_before_the_frame(tmp_path):
    status, said = on_the_bench(tmp_path, missing=(2,), touched=[e for e in range(24) if e != 7], seconds=15.0)
    assert status == 1
    assert ("chip 0x5c (ADDR to SDA, electrodes 24-35): does not answer: check its four wires (3V3, GND, SDA, SCL) "
            "and its ADDR strap") in said
    assert said[-1] == "not heard: chip 0x5a E7 not touched; chip 0x5c does not answer"


def test_the_bench_step_comes_first_and_runs_the_bench_command():
    """Issue 78.3: the touch board is tested before anything is soldered to the frame."""
    first = steps.STEPS[0]
    assert any(steps.BENCH in line for line in first.work) and any(steps.BENCH in line for line in first.checks)
    assert steps.BENCH == f"python -m {bench.__name__}"
    with pytest.raises(SystemExit):
        bench.main(["--help"])


def test_the_step_pages_are_the_guide_s_steps_each_with_its_parts_from_the_bill():
    """Issue 78.2: the guide speaks of seven steps, the printable pages had five, and no page said
    what parts its step takes. One page a numbered step of the guide, in its order, each listing
    the bill's rows it uses (quantity and part as the bill gives them), and every row bought used
    by a step."""
    text = (steps.enclosure.HARDWARE / "README.md").read_text(encoding="utf-8")
    numbered = re.findall(r"^## (\d+)\. (.+)$", text, flags=re.MULTILINE)
    anchors = [f"{number}-{re.sub(r'[^a-z0-9 -]', '', title.lower()).replace(' ', '-')}" for number, title in numbered]
    assert [step.guide for step in steps.STEPS] == anchors
    rows = guide.bom_rows()
    used = {row["part"] for step in steps.STEPS for row in steps.parts(step, rows)}
    assert used == {row["part"] for row in rows}, {row["part"] for row in rows} - used
    page = steps.page()
    assert page.count("## Step ") == len(steps.STEPS) == len(numbered)
    first = page.split("## Step 2")[0]
    mpr121 = next(row for row in rows if row["part"].startswith("MPR121"))
    assert f"- ☐ {mpr121['quantity']} × {mpr121['part']} (Adafruit 1982)" in first


def test_a_step_that_names_a_part_the_bill_has_not_is_refused():
    step = steps.Step(None, "a step", "1-parts-and-tools", ("Flux capacitor",), (), ())
    with pytest.raises(ValueError, match="uses 'Flux capacitor', which starts 0 rows of the bill, not one"):
        steps.parts(step, guide.bom_rows())
