"""The spymaster screen's banner says the most serious fault first, and a table whose buttons are
all switched off neither loads gpiozero nor warns about buttons."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import replace

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from pi_table.engine import Rules, make_game
from pi_table.engine.phrase import Phrase
from pi_table.hal import HealthEvent
from pi_table.sim.harness import SimTable
from pi_table.table import Session
from pi_table.ui.mounting import ScreenSettings
from pi_table.ui.screens import ScreenPainter

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
BUTTONS = Phrase.of("the buttons are not working (no pins): check their wires to the Pi; the game goes on without them")
TOUCH = Phrase.of("the touch board is not working (unplugged): check the USB cable from the touch board to the Pi; "
                  "the game waits")
SOUND = Phrase.of("the sound is not working: check the speaker or amplifier and its cable; the game goes on silent")


def table() -> SimTable:
    return SimTable(Session(Rules(), rng=random.Random(1), key=make_game(Rules()).parse_key(KEY)))


def test_a_missing_touch_board_is_said_before_the_buttons_and_the_sound_however_they_came():
    t = table()
    for device, fault in (("buttons", BUTTONS), ("sound", SOUND), ("touch", TOUCH)):  # the order a start meets them
        t.loop.post(HealthEvent(device, False, fault))
    t.loop.run_pending()
    t.loop.show()
    assert t.shown.warnings == (TOUCH, BUTTONS, SOUND)
    pygame.font.init()
    painter = ScreenPainter(ScreenSettings())
    painter.draw(pygame.Surface((800, 480)), t.shown, 0.0)
    banner = next(text for text in painter.frame.texts if "touch board" in text)
    assert banner.startswith("The touch board is not working") and banner.index("touch") < banner.index("buttons")


def test_a_spill_is_said_after_the_touch_board_and_before_the_buttons():
    t = table()
    t.loop.post(HealthEvent("buttons", False, BUTTONS))
    t.loop.post(HealthEvent("touch", False, TOUCH))
    t.loop.run_pending()
    for cell in range(5):  # a palm on the grid: the table asks for a wipe
        t.touch.press(cell)
    t.loop.run_pending()
    warnings = [str(warning) for warning in t.loop.cues(t.clock()).warnings]
    assert [warning.split(" ")[:3] for warning in warnings] == [
        ["the", "touch", "board"], ["wipe", "the", "table:"], ["the", "buttons", "are"]], warnings


BUTTONS_OFF = """
import json, sys
from pathlib import Path
from pi_table.config import parse_config
from pi_table.daemon.devices import open_devices
config = parse_config(sys.stdin.read(), Path("config.toml"))
devices = open_devices(config, "hw", None)
devices.buttons.start(lambda event: None)
print(json.dumps({"gpiozero": "gpiozero" in sys.modules, "buttons": devices.health["buttons"],
                  "faults": sorted(devices.faults)}))
"""


def test_a_table_with_every_button_switched_off_never_loads_gpiozero(tmp_path):
    config = ('[buttons]\nend_turn = false\nnew_game = false\n[leds]\nbackend = "none"\n[screen]\nenabled = false\n'
              '[sound]\nenabled = false\n')
    done = subprocess.run([sys.executable, "-c", BUTTONS_OFF], input=config, capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"gpiozero": False, "buttons": "not fitted", "faults": []}
    assert "button" not in done.stderr


def longest_faults(lang: str) -> list[Phrase]:
    """Every fault the touch board's driver reports, its fields as long as the reference build
    makes them (the longest pads in ``lang`` of one chip, or of several for a fault of several,
    all three chips, a by-id path): the longest words a banner shows."""
    from itertools import combinations
    from pathlib import Path

    from pi_table.hardware import pinout

    from pi_table.config import parse_config
    from pi_table.drivers import touchboard
    from pi_table.protocol import wire
    from pi_table.ui.i18n import say

    wiring = pinout.load()
    board = touchboard.TouchBoardSource(parse_config(
        f"[touch]\ncell_electrodes = {list(wiring.cell_electrodes)}\nend_turn = {list(wiring.end_turn_electrodes)}\n",
        Path("config.toml")).touch)
    chips = [chip.address for chip in wiring.chips]

    def longest_pads(sizes: range) -> object:
        """The longest pads in ``lang`` that a fault of so many silent chips names."""
        silent = [dict.fromkeys(some, wire.CHIP_STOPPED) for n in sizes for some in combinations(chips, n)]
        return max((dict(board._silence(each).fields)["pads"] for each in silent), key=lambda pads: len(say(pads, lang)))

    one, several = longest_pads(range(1, 2)), longest_pads(range(2, len(chips) + 1))
    fields = {"chip": "0x5b", "chips": "0x5a, 0x5b, 0x5c",
              "cells": "3-4, 8-9, 13-14, 18-19, 22-24", "usb": "239a:80f4", "seconds": 3, "major": 2, "minor": 0,
              "ours": 1, "advice": touchboard.NEWER_BOARD, "count": 120, "minutes": 10,
              "error": "[Errno 2] could not open port /dev/ttyACM1: No such file or directory",
              "path": "/dev/serial/by-id/usb-Raspberry_Pi_Pico_E6614C311B4A5D2F-if02"}
    return [Phrase.of(template, **fields, pads=several if "{chips}" in template else one) for template in touchboard.FAULTS]


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_banner_shows_each_touch_fault_whole_and_the_grid_keeps_finger_sized_taps(lang):
    """A silent chip's sentence came out cut at "…check the join…" on the one-line banner: the
    banner wraps, so each fault and what to do about it is read whole, the longest in each
    language; a second fault that no longer fits is counted, not cut."""
    from pi_table.ui.i18n import say

    pygame.font.init()
    t = table()
    t.loop.show()
    faults = longest_faults(lang)
    for fault in faults:
        for shown in ((fault,), (fault, BUTTONS)):
            painter = ScreenPainter(ScreenSettings())
            painter.draw(pygame.Surface((800, 480)), replace(t.shown, cues=replace(t.shown.cues, warnings=shown), lang=lang), 0.0)
            frame = painter.frame
            assert frame.cut == (), f"cut on the screen: {frame.cut}"
            said = say(fault, lang)
            assert any(said[1:] in text for text in frame.texts), said
            assert all(min(pygame.Rect(tap.rect).size) >= 60 and pygame.Rect(tap.rect).bottom <= 480
                       for tap in frame.taps), "a tap squeezed or pushed off the screen"
