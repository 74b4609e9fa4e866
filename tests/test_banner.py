"""The spymaster screen's banner says the most serious fault first, and a table whose buttons are
all switched off neither loads gpiozero nor warns about buttons."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from pi_table.engine import Rules, make_game
from pi_table.engine.phrase import Phrase
from pi_table.hal import HealthEvent
from pi_table.sim.harness import SimTable
from pi_table.table import Session
from pi_table.ui.screen import ScreenPainter, ScreenSettings

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
