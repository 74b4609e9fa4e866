"""The installation-day self-test: the LED walk, the checklist, and what it reports."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pi_table.daemon.devices import Devices
from pi_table.daemon.selftest import WHITE, SelfTest
from pi_table.drivers.settings import ButtonPins
from pi_table.drivers.touchboard import spans
from pi_table.engine import CELLS, EndTurn
from pi_table.hal import ButtonEvent, DialEvent, SimButtons, SimLedStrip, SimScreen, SimTouch
from pi_table.sim.emulator import BoardEmulator

from helpers import wait_for
from helpers_board import electrode_of

pytestmark = pytest.mark.daemon

PINS = ButtonPins(encoder_a=22, encoder_b=23, encoder_push=24)


def devices(**health) -> Devices:
    d = Devices(SimTouch(), SimLedStrip(), SimScreen(), SimButtons())
    d.health = {"touch": "ok", "leds": "ok", "screen": "ok", "buttons": "ok", **health}
    return d


def run_in_thread(test: SelfTest, timeout_s: float):
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("ok", test.run(timeout_s)))
    thread.start()
    return thread, result


def test_the_walk_lights_each_cell_alone_in_order_then_the_edge():
    d = devices()
    test = SelfTest(d, PINS, edge_pixels=24, say=lambda line: None, sleep=lambda s: None)
    test.walk()
    lit = [frame for frame in d.leds.frames if any(frame.cells)]
    walk = [[cell for cell, colour in enumerate(frame.cells) if colour == WHITE] for frame in lit[:CELLS]]
    assert walk == [[cell] for cell in range(CELLS)]
    assert all(colour == WHITE for colour in d.leds.frames[CELLS].edge) and not any(d.leds.frames[CELLS].cells[0])


def test_every_pad_button_dial_and_tap_completes_it_with_live_feedback():
    d, lines = devices(), []
    test = SelfTest(d, PINS, edge_pixels=24, say=lines.append, sleep=lambda s: None)
    thread, result = run_in_thread(test, timeout_s=10)
    wait_for(lambda: d.screen.last is not None, "the checklist on the screen")
    for cell in range(CELLS):
        d.touch.press(cell)
        d.touch.release(cell)
    wait_for(lambda: len(d.screen.last.pads) == CELLS, "every pad on the screen")
    assert d.leds.last.cells[7] == (0, 200, 60)  # a touched cell glows green
    d.buttons.push("end_turn")
    d.buttons.push("new_game")
    test.events.put(DialEvent(1))
    d.buttons.push("enter_clue")
    d.screen.tap(EndTurn())
    thread.join(timeout=5)
    assert result["ok"] is True and lines[-1] == "self-test passed"
    assert "pad 24 ok (25/25)" in lines and "tap the screen ok" in lines
    assert d.screen.last.message == "all done" and all(done for _, done in d.screen.last.checks)


def test_what_was_not_seen_and_broken_devices_fail_it():
    d, lines = devices(leds="not working: no /dev/spidev0.0"), []
    clock = iter(range(0, 10_000, 1)).__next__
    test = SelfTest(d, ButtonPins(), edge_pixels=24, say=lines.append, sleep=lambda s: None, clock=clock)
    thread, result = run_in_thread(test, timeout_s=3)
    d.touch.press(3)
    test.events.put(ButtonEvent("end_turn"))
    thread.join(timeout=10)
    assert result["ok"] is False and lines[-1] == "self-test FAILED"
    assert any(line.startswith("FAILED LED strip: not working: no /dev/spidev0.0; what to do: turn SPI on") for line in lines)
    missing = next(line for line in lines if line.startswith("not seen:"))
    assert "NEW GAME" in missing and "tap the screen" in missing
    assert not d.leds.frames or not any(WHITE in frame.cells for frame in d.leds.frames)  # no walk on a dead strip


def test_the_command_checks_every_pad_through_the_board(tmp_path):
    """``pi-table selftest --hal sim --touch-port``: the pads come over the real serial link."""
    emulator = BoardEmulator(link=tmp_path / "board")
    emulator.start()
    config = tmp_path / "config.toml"
    config.write_text('[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "pi_table", "selftest", "--hal", "sim", "--touch-port", str(emulator.link),
             "--config", str(config), "--timeout", "20"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        first = process.stdout.readline()
        assert first.startswith("hands off the table for 1 s: measuring each pad at rest"), first
        second = process.stdout.readline()
        assert second.startswith("now, in any order: touch each card once (25 to go), END TURN"), second
        for electrode in (*map(electrode_of, range(CELLS)), 25):
            emulator.tap(electrode, 150)  # many scans long: the emulator's thread may be starved a while
            time.sleep(0.02)
        out = process.communicate(timeout=30)[0]
    finally:
        emulator.stop()
    assert process.returncode == 0, out
    assert "pad 24 ok (25/25)" in out and "END TURN ok" in out and out.strip().endswith("self-test passed")


def selftest_against(emulator: BoardEmulator, folder: Path, timeout_s: float) -> subprocess.Popen:
    """``pi-table selftest`` on a simulated table with the emulated board on its touch port."""
    config = folder / "config.toml"
    config.write_text('[web]\nenabled = false\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                      'socket_group = ""\n')
    return subprocess.Popen(
        [sys.executable, "-m", "pi_table", "selftest", "--hal", "sim", "--touch-port", str(emulator.link),
         "--config", str(config), "--timeout", str(timeout_s)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def test_the_command_flags_a_deaf_pad_and_a_noisy_one_with_what_to_do(tmp_path):
    """The board's readings: a pad a finger moves only 6 counts (threshold 8) and one that
    wanders 5 counts either way at rest (release threshold 4)."""
    emulator = BoardEmulator(link=tmp_path / "board")
    emulator.set_pad(electrode_of(3), strength=6, noise=1)
    emulator.set_pad(electrode_of(7), strength=14, noise=5)
    emulator.start()
    try:
        process = selftest_against(emulator, tmp_path, timeout_s=3)
        while not process.stdout.readline().startswith("now, in any order"):
            pass
        for electrode in (*map(electrode_of, range(CELLS)), 25):
            emulator.tap(electrode, 100)
        out = process.communicate(timeout=30)[0]
    finally:
        emulator.stop()
    assert process.returncode == 1, out
    assert "FAILED cell 3: deaf: a touch moves it only" in out and "lower its thresholds" in out
    assert "FAILED cell 7: noisy: at rest its delta reaches" in out and "away from the LED data" in out
    assert "not seen: pad 3" in out and "FAILED cell 0" not in out
    assert out.strip().endswith("self-test FAILED")


def test_the_command_names_the_cards_of_a_chip_that_does_not_answer(tmp_path):
    """Issue 51: chip 0x5B's joint broken on installation day: the test fails naming the chip,
    its cards and what to check, not only the pads it did not see."""
    emulator = BoardEmulator(link=tmp_path / "board", missing=(1,))
    emulator.start()
    try:
        process = selftest_against(emulator, tmp_path, timeout_s=2)
        out = process.communicate(timeout=30)[0]
    finally:
        emulator.stop()
    assert process.returncode == 1, out
    cards = spans(sorted(cell for cell in range(CELLS) if 12 <= electrode_of(cell) < 24))  # the shipped map's
    assert (f"FAILED touch chip 0x5b has not answered since the touch board started: cards {cards} cannot be touched; "
            "check the joints on that chip's breakout and the I2C cable to it") in out, out
    assert out.strip().endswith("self-test FAILED")


def test_buttons_that_cannot_be_claimed_are_a_failed_check_with_what_to_do_not_a_traceback(tmp_path):
    """Off a Pi gpiozero finds no pin library and raises BadPinFactory when the buttons are
    claimed: the installer must see a failed check that says what to do."""
    config = tmp_path / "config.toml"
    config.write_text('[leds]\nbackend = "none"\n[screen]\nenabled = false\n[touch]\nport = "/dev/pi-table-no-ttyACM9"\n'
                      '[web]\nenabled = false\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                      'socket_group = ""\n')
    environ = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    done = subprocess.run([sys.executable, "-m", "pi_table", "selftest", "--config", str(config), "--timeout", "1"],
                          capture_output=True, text=True, timeout=60, env=environ)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert done.returncode == 1
    failed = next(line for line in done.stdout.splitlines() if line.startswith("FAILED buttons"))
    assert "gpio" in failed.lower() and "what to do:" in failed
    assert done.stdout.strip().endswith("self-test FAILED")


def test_under_lang_it_the_devices_and_their_faults_are_said_in_italian_and_pygame_says_nothing(tmp_path):
    """The real command on this machine's devices: no board on USB, no SPI, no GPIO, and a
    screen (SDL's dummy driver). Each device by its Italian name, the board's fault in Italian
    from the driver's own words (only the system's and the libraries' own stay as they are),
    and no greeting from pygame, which the self-test's painter imports before any device opens."""
    config = tmp_path / "config.toml"
    config.write_text('[screen]\nvideo_driver = "dummy"\nwidth = 800\nheight = 480\n[web]\nenabled = false\n'
                      '[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
    environ = {k: v for k, v in os.environ.items() if k not in ("GPIOZERO_PIN_FACTORY", "PYGAME_HIDE_SUPPORT_PROMPT")}
    done = subprocess.run([sys.executable, "-m", "pi_table", "selftest", "--config", str(config), "--timeout", "1",
                           "--lang", "it"], capture_output=True, text=True, timeout=60, env=environ)
    out = done.stdout
    assert done.returncode == 1 and out.strip().endswith("autotest NON SUPERATO"), done.stderr
    assert "pygame" not in out
    assert ("scheda touch: scheda touch non trovata (nessun dispositivo USB 239a:80f4): controlla il cavo USB tra la "
            "scheda touch e il Pi; la partita aspetta") in out
    assert "NON SUPERATO striscia LED: non funziona: " in out and "NON SUPERATO pulsanti: non funziona: " in out
    assert not re.search(r"(^|NON SUPERATO )(touch|leds|screen|buttons|sound):", out, re.MULTILINE) and "no USB" not in out


def test_the_pygame_screen_keeps_drawing_the_checklist(tmp_path):
    """The real screen backend with the self-test's painter: the checklist has no turn timer,
    and asking it for one stopped the screen's thread after its first picture."""
    import pygame

    from pi_table.drivers.pygame_screen import PygameScreen
    from pi_table.hal import SelfTestModel
    from pi_table.ui.selftest import SelfTestPainter

    screen = PygameScreen(SelfTestPainter(), size=(800, 480), video_driver="dummy")
    screen.start(lambda event: None)
    try:
        screen.show(SelfTestModel(frozenset(), (("press END TURN", False),), "touch every card"))
        screen.screenshot(tmp_path / "first.png")
        screen.show(SelfTestModel(frozenset({0, 1}), (("press END TURN", True),), "touch every card"))
        screen.screenshot(tmp_path / "second.png")
        first, second = (pygame.image.load(str(tmp_path / f"{name}.png")) for name in ("first", "second"))
        assert pygame.image.tobytes(first, "RGB") != pygame.image.tobytes(second, "RGB"), \
            "the second checklist is on the screen"
    finally:
        screen.stop()
