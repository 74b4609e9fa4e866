"""The touch board driver over real pyserial on a real pty: the test plays the board, frame by
frame, behind a symlink that stands for /dev/serial/by-id. Every wait is bounded."""

from __future__ import annotations

import logging
import os
import random
import tempfile
import time
import tty
from contextlib import contextmanager
from pathlib import Path

import pytest
import serial
import serial.tools.list_ports
from hypothesis import given, settings
from hypothesis import strategies as st
from serial.tools.list_ports_common import ListPortInfo

from pi_table.drivers.settings import ELECTRODE_LIMIT
from pi_table.drivers.touchboard import (
    BOTH_END_TURN_PADS,
    BUS_FREED,
    BUS_HELD,
    CARDS,
    CHIP_MISSING,
    CHIP_RESET,
    CHIP_SILENT,
    CHIP_UNTUNED,
    CHIPS_SILENT,
    CHIPS_UNTUNED,
    DISCONNECTED,
    I2C_ERRORS,
    I2C_ERRORS_WARN,
    NEWER_BOARD,
    ONE_CARD,
    OUT_OF_RANGE,
    OUT_OF_RANGE_CELLS,
    SILENT_S,
    TOLD_S,
    WITH_END_TURN,
    NotFound,
    TouchBoardConfig,
    TouchBoardSource,
    find_port,
    spans,
)
from pi_table.engine.phrase import Phrase
from pi_table.hal.events import ButtonEvent, DeafCards, HealthEvent, TouchEvent
from pi_table.kinds import NotADevice, SerialDevice
from pi_table.protocol import wire
from pi_table.sim.harness import ManualClock
from pi_table.ui.i18n import say

from helpers import wait_for
from helpers_board import Board

pytestmark = pytest.mark.arm64

PICO = (0x239A, 0x80F4)
OK = HealthEvent("touch", True, Phrase.of("touch board {board} firmware {firmware}", board="test-board", firmware="0.1.0"))
DOWN = HealthEvent("touch", False, DISCONNECTED)
BOTH = Phrase.of(BOTH_END_TURN_PADS)  # the default wiring's END TURN pads, both on chip 0x5c
ROTATED = tuple((e + 5) % 25 for e in range(25)) + (None,) * 11  # electrode e lies under cell e + 5


def mask(*electrodes: int) -> int:
    return sum(1 << e for e in electrodes)


def down(*cells: int) -> TouchEvent:
    return TouchEvent(pressed=cells)


def up(*cells: int) -> TouchEvent:
    return TouchEvent(released=cells)


class Events(list):
    """What the driver emitted; ``wait_for`` polls it with a deadline."""

    def wait_for(self, wanted, times: int = 1, timeout: float = 3.0) -> None:
        deadline = time.monotonic() + timeout
        while self.count(wanted) < times:
            if time.monotonic() > deadline:
                pytest.fail(f"not {times} x {wanted} within {timeout} s; got {list(self)}")
            time.sleep(0.005)

    def of(self, kind) -> list:
        return [event for event in self if isinstance(event, kind)]


@contextmanager
def running(folder: Path, greet: bool = True, clock=time.monotonic, sleep=None, **settings_):
    """A board and a started driver on its link; the driver has said hello unless ``greet`` is False."""
    board = Board(folder / "touch-board")
    settings_.setdefault("silence_timeout_s", 3.0)  # tests pause; the board here sends no heartbeats
    driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(str(board.link)), **settings_), clock=clock, sleep=sleep)
    events = Events()
    driver.start(events.append)
    try:
        if greet:
            board.greet()
            events.wait_for(OK)
        yield board, driver, events
    finally:
        driver.stop()
        board.unplug()


@pytest.fixture
def rig(tmp_path):
    with running(tmp_path) as parts:
        yield parts


# --- hello and reports


def test_hello_exchange_reports_the_board_healthy(rig):
    _, driver, events = rig
    assert driver.connected
    assert events == [OK]


def test_mask_changes_become_presses_and_releases_of_the_mapped_cells(tmp_path):
    """A rotated wiring, an unmapped spare (30) and heartbeats: events only for mapped changes."""
    with running(tmp_path, cells=ROTATED) as (board, _, events):
        board.touch(mask(0, 20))
        board.heartbeat(mask(0, 20))
        board.heartbeat(mask(0, 20))
        board.touch(mask(0, 20, 30))
        board.touch(mask(20, 30))
        board.touch(mask(20))
        board.touch(mask(4))
        events.wait_for(TouchEvent(pressed={9}, released={0}))
        assert events[1:] == [
            down(5, 0),  # electrodes 0 and 20, in one report: one event
            up(5),
            TouchEvent(pressed={9}, released={0}),  # one report, two changes: one event
        ]


def test_a_palm_in_one_report_is_one_event_pressing_every_cell_under_it(rig):
    """The policy must see the whole hand at once: one event per cell would let the first
    finger count as a guess before the others arrive."""
    board, _, events = rig
    board.heartbeat(0)  # the first report after hello: nothing touched
    board.touch(mask(10, 11, 12, 13, 14, 25))  # a palm, the heel of the hand on END TURN
    board.touch(0)
    events.wait_for(up(10, 11, 12, 13, 14))
    assert events[1:] == [down(10, 11, 12, 13, 14), ButtonEvent("end_turn"), up(10, 11, 12, 13, 14)]


def test_an_end_turn_pad_pushes_end_turn_once_per_touch(rig):
    """Either END TURN pad, or both under one palm, is one push: a second would end the next team's turn."""
    board, _, events = rig
    board.heartbeat(0)  # the first report after hello: nothing touched
    board.touch(mask(25))
    board.heartbeat(mask(25))
    board.touch(mask(25, 26))
    board.touch(mask(26))
    board.touch(0)
    board.touch(mask(26))
    board.touch(mask(26, 3))
    events.wait_for(down(3))
    assert events[1:] == [ButtonEvent("end_turn"), ButtonEvent("end_turn"), down(3)]


def test_end_turn_held_when_the_board_comes_up_does_not_count(tmp_path):
    """A hand resting on END TURN through a reconnect must lift before it ends another turn."""
    with running(tmp_path) as (board, _, events):
        board.touch(mask(25, 1))
        board.touch(mask(1))
        board.touch(mask(25, 1))
        events.wait_for(ButtonEvent("end_turn"))
        assert events[1:] == [down(1), ButtonEvent("end_turn")]


# --- damaged input


def test_garbage_bit_flips_and_truncated_frames_never_press_anything(rig):
    board, driver, events = rig
    everything = wire.encode(wire.Touch(7, mask(*range(36))), 9)
    board.write(bytes([0xA5, 0x0A, 0x00, 0x02, 0xFF]) + random.Random(7).randbytes(200))
    for bit in range(len(everything) * 8):  # every single-bit error of a frame claiming every pad
        flipped = bytearray(everything)
        flipped[bit // 8] ^= 1 << bit % 8
        board.write(bytes(flipped))
    for cut in range(1, len(everything)):
        board.write(everything[:cut])
    board.write(bytes(110))  # lets a damaged length byte run out before the real report
    board.touch(mask(8))
    events.wait_for(down(8))  # every byte above came before this report, so the driver has read them all
    assert events == [OK, down(8)]
    assert driver.bad_frames >= (len(everything) - 1) * 8  # all but the flips of the sync byte


def test_a_damaged_length_byte_costs_a_quiet_moment_not_the_reports_after_it(rig):
    """A length byte claiming 96 bytes would hold back the next reports until that many came."""
    board, _, events = rig
    board.write(bytes([wire.SYNC, wire.MAX_PAYLOAD]))
    board.touch(mask(8))  # and then nothing more
    events.wait_for(down(8))  # never, were the length believed: nothing more comes


REAL = (0, 9, 17, 24)  # the pads the board really reports; a corrupt mask would show others
SENTINEL = 12

corruptions = st.one_of(
    st.just(("clean",)),
    st.tuples(st.just("flip"), st.integers(0, 15), st.integers(0, 7)),
    st.tuples(st.just("cut"), st.integers(1, 15)),
    st.tuples(st.just("noise"), st.lists(st.sampled_from([0xA5, 0x0A, 0x02, 0x00, 0xFF, 0x37]), max_size=40)),
)


def corrupted(frame: bytes, how: tuple) -> bytes:
    if how[0] == "flip":
        damaged = bytearray(frame)
        damaged[how[1]] ^= 1 << how[2]
        return bytes(damaged)
    if how[0] == "cut":
        return frame[: how[1]]
    if how[0] == "noise":
        return bytes(how[1]) + frame
    return frame


@settings(settings.get_profile("tables"))
@given(st.lists(st.tuples(st.integers(0, 15), corruptions), min_size=1, max_size=12))
def test_a_randomly_damaged_stream_presses_only_what_the_board_reported(reports):
    """Whatever survives, the driver sees a subsequence of the real reports: only real pads
    press, each cell alternates press and release, and a clean report brings it in line."""
    real = [mask(*(e for i, e in enumerate(REAL) if bits >> i & 1)) for bits, _ in reports]
    with tempfile.TemporaryDirectory() as folder, running(Path(folder)) as (board, _, events):
        frames = [wire.encode(wire.Touch(n + 1, value), n) for n, value in enumerate(real)]
        stream = b"".join(corrupted(frame, how) for frame, (_, how) in zip(frames, reports))
        board.write(stream + bytes(110))
        board.touch(real[-1] | mask(SENTINEL))
        deadline = time.monotonic() + 3
        while not any(SENTINEL in t.pressed for t in events.of(TouchEvent)):
            assert time.monotonic() < deadline, f"no press of the sentinel within 3 s; got {list(events)}"
            time.sleep(0.005)
        touches = events.of(TouchEvent)
    reported = {e for value in real for e in REAL if value >> e & 1}
    assert set().union(*(t.pressed for t in touches)) <= reported | {SENTINEL}
    for cell in reported:
        states = [cell in t.pressed for t in touches if cell in t.pressed | t.released]
        assert states == [True, False] * (len(states) // 2) + [True] * (len(states) % 2)
    pressed: set[int] = set()
    for t in touches:
        pressed = (pressed - t.released) | t.pressed
    assert pressed == {e for e in REAL if real[-1] >> e & 1} | {SENTINEL}
    assert events.of(HealthEvent) == [OK] and not events.of(ButtonEvent)


# --- versions, unplugs, silence, restarts


@pytest.mark.parametrize("major, advice", [(wire.PROTOCOL_MAJOR + 1, NEWER_BOARD), (0, Phrase.of("update the firmware"))])
def test_a_board_speaking_another_protocol_is_refused_and_asked_again_slowly(tmp_path, major, advice):
    with running(tmp_path, greet=False, backoff_max_s=0.3) as (board, driver, events):
        board.greet(protocol=(major, 0))
        detail = Phrase.of("touch board speaks protocol {major}.{minor}, this table speaks {ours}.x: {advice}", major=major,
                           minor=0, ours=wire.PROTOCOL_MAJOR, advice=advice)
        refused = HealthEvent("touch", False, detail)
        events.wait_for(refused)
        board.touch(mask(0))
        board.greet(protocol=(major, 0))  # the driver opened the port again and asked again
        board.touch(mask(1))
        assert board.receive() == wire.GetHello()  # and again: done with what came before
        assert not driver.connected
        assert events == [refused]


def test_unplug_mid_press_releases_the_cell_and_replug_at_the_same_path_reconnects(tmp_path):
    waits: list[float] = []  # the driver's waits between attempts: each after a failed reopen but the first

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(min(seconds, 0.05))

    with running(tmp_path, cells=ROTATED, sleep=sleep) as (board, driver, events):
        board.touch(mask(3))
        events.wait_for(down(8))
        board.unplug()
        events.wait_for(DOWN)
        deadline = time.monotonic() + 3
        while len(waits) < 4:  # three failed reopens
            assert time.monotonic() < deadline, f"the driver waited {waits} and tried no more"
            time.sleep(0.005)
        assert events == [OK, down(8), up(8), DOWN]  # they said nothing more
        assert not driver.connected
        board.plug()
        board.greet()
        events.wait_for(OK, times=2, timeout=4)
        board.touch(mask(4))
        events.wait_for(down(9))
        assert events[4:] == [OK, down(9)]
        assert driver.disconnects == 1


class WatchedClock(ManualClock):
    """The driver's clock, moved by hand, counting the driver's looks at it: while it serves a
    board, the driver looks once after each read."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0

    def __call__(self) -> float:
        self.looks += 1
        return self.now

    def read_since(self) -> None:
        """Wait for a read begun after this call: the second look from now follows one."""
        wanted = self.looks + 2
        deadline = time.monotonic() + 3
        while self.looks < wanted:
            assert time.monotonic() < deadline, "the driver stopped reading"
            time.sleep(0.001)


def test_a_silent_board_is_dropped_and_opened_again(tmp_path):
    """On the driver's clock, moved by hand only once the driver has read the last heartbeat: it
    never finds 0.6 s without a word while they come, however late its thread runs."""
    clock = WatchedClock()
    with running(tmp_path, clock=clock, silence_timeout_s=0.6) as (board, driver, events):
        board.touch(mask(2))
        events.wait_for(down(2))
        for _ in range(12):  # 1.2 s of heartbeats: longer than the timeout, but never silent
            board.heartbeat(mask(2))
            clock.read_since()
            clock.advance(0.1)
        assert events == [OK, down(2)]
        clock.advance(0.6)  # then silence, 0.7 s since the last word
        events.wait_for(DOWN)
        assert events[2:] == [up(2), DOWN]
        board.greet()  # the same port, opened again
        events.wait_for(OK, times=2)
        assert driver.connected and events.count(DOWN) == 1


def test_a_new_hello_means_the_board_restarted(tmp_path):
    clock = ManualClock()  # the driver's: a silent board is never dropped here
    with running(tmp_path, clock=clock, hello_timeout_s=0.2) as (board, driver, events):
        board.touch(mask(6))
        events.wait_for(down(6))
        clock.advance(0.25)  # past the moment a hello could still be the answer to ours
        board.send(wire.Hello((wire.PROTOCOL_MAJOR, 0), (0, 1, 0), "test-board", 36))
        events.wait_for(DOWN)
        assert events[2:] == [up(6), DOWN]
        board.greet()
        events.wait_for(OK, times=2)
        assert driver.connected and driver.disconnects == 1


def test_a_board_that_starts_as_the_port_opens_says_hello_twice_without_a_restart(rig):
    """Its own start-up hello and the answer to our get-hello arrive back to back."""
    board, driver, events = rig
    board.send(wire.Hello((wire.PROTOCOL_MAJOR, 0), (0, 1, 0), "test-board", 36))
    board.touch(mask(5))
    events.wait_for(down(5))
    assert events == [OK, down(5)] and driver.disconnects == 0


def test_reports_queued_before_the_port_opened_are_stale(tmp_path):
    """A hello or a touch left in the port's buffer describes a board that may be gone."""
    board = Board(tmp_path / "touch-board")
    board.send(wire.Hello((wire.PROTOCOL_MAJOR, 0), (0, 0, 9), "old-board", 36))
    board.touch(mask(7))
    driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(str(board.link))))
    events = Events()
    driver.start(events.append)
    try:
        board.greet()
        events.wait_for(OK)
        board.touch(mask(8))  # the first report after the hello: nothing before it may press a cell
        events.wait_for(down(8))
        assert events == [OK, down(8)]
    finally:
        driver.stop()
        board.unplug()


def test_board_log_lines_and_refused_commands_reach_the_host_log(rig, caplog):
    board, _, _ = rig
    caplog.set_level(logging.INFO, logger="pi_table.touch")
    board.send(wire.Log("chip 0x5b missing: electrodes 12-23 read untouched"))
    board.send(wire.Ack(wire.Recalibrate.TYPE, wire.Ack.BAD_ELECTRODE))
    board.touch(mask(1))
    deadline = time.monotonic() + 3
    while len(caplog.records) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert [r.getMessage() for r in caplog.records] == [
        "touch board says: chip 0x5b missing: electrodes 12-23 read untouched",
        f"touch board refused recalibrate (status {wire.Ack.BAD_ELECTRODE})",
    ]


# --- what the board tells of its chips' bus: logged, and in the board's health for a while


def told(driver: TouchBoardSource, phrase: Phrase | None) -> None:
    """Wait until the driver's health words are ``phrase``."""
    deadline = time.monotonic() + 3
    while driver.trouble() != phrase:
        if time.monotonic() > deadline:
            pytest.fail(f"the driver's trouble is {driver.trouble()}, not {phrase}")
        time.sleep(0.005)


@contextmanager
def on_manual_time(folder: Path, **settings_):
    """A greeted board and its driver on a manual clock that never makes the board look silent."""
    clock = ManualClock(100.0)
    with running(folder, clock=clock, silence_timeout_s=100 * TOLD_S, **settings_) as (board, driver, _):
        yield board, driver, clock


def test_a_chip_the_board_found_reset_is_a_warning_in_its_health_for_ten_minutes(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="pi_table.touch")
    with on_manual_time(tmp_path) as (board, driver, clock):
        assert driver.trouble() is None
        board.send(wire.Fault(wire.Fault.RESET, 0x5B, 2))
        told(driver, Phrase.of(CHIP_RESET, chip="0x5b"))
        assert say(driver.trouble(), "it").startswith("il chip touch 0x5b si è azzerato ed è stato configurato di nuovo")
        clock.advance(TOLD_S - 1)
        assert driver.trouble() == Phrase.of(CHIP_RESET, chip="0x5b") and driver.connected
        clock.advance(1)
        assert driver.trouble() is None
    assert [(r.levelname, r.getMessage()) for r in caplog.records if "reset" in r.getMessage()] == [
        ("WARNING", "touch board: chip 0x5b was found reset (2 times since the board started) and was set up again")]


def test_failed_transfers_are_logged_at_info_and_a_rising_rate_is_a_warning_in_health(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="pi_table.touch")
    with on_manual_time(tmp_path) as (board, driver, clock):
        board.send(wire.Fault(wire.Fault.I2C_ERRORS, 0x5A, 4))
        board.send(wire.Fault(wire.Fault.I2C_ERRORS, 0x5B, I2C_ERRORS_WARN - 5))
        board.send(wire.Ping(1))  # echoed frames are ignored: a marker that the two above were read
        deadline = time.monotonic() + 3
        while driver.i2c_errors < I2C_ERRORS_WARN - 1 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert driver.trouble() is None  # one under the rate: each was tried again, nothing was missed
        clock.advance(60)
        board.send(wire.Fault(wire.Fault.I2C_ERRORS, 0x5A, 1))
        told(driver, Phrase.of(I2C_ERRORS, count=I2C_ERRORS_WARN, minutes=10))
        assert say(driver.trouble(), "it").startswith(f"errori I2C: {I2C_ERRORS_WARN} negli ultimi 10 minuti")
        clock.advance(TOLD_S - 60)  # the first two fall out of the window
        assert driver.trouble() is None
        board.send(wire.Fault(wire.Fault.I2C_ERRORS, 0x5A, 1))
        deadline = time.monotonic() + 3
        while driver.i2c_errors < I2C_ERRORS_WARN + 1 and time.monotonic() < deadline:
            time.sleep(0.005)
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if "I2C" in r.getMessage()]
    assert lines == [
        ("INFO", "touch board: 4 I2C transfers to chip 0x5a failed (4 in the last 10 minutes)"),
        ("INFO", "touch board: 5 I2C transfers to chip 0x5b failed (9 in the last 10 minutes)"),
        ("INFO", "touch board: 1 I2C transfers to chip 0x5a failed (10 in the last 10 minutes)"),
        ("WARNING", "touch board: I2C errors are rising: 10 in the last 10 minutes; check the I2C cable's joints, and "
                    "that it runs apart from the LED cable"),
        ("INFO", "touch board: 1 I2C transfers to chip 0x5a failed (2 in the last 10 minutes)"),
        ("INFO", "touch board: I2C errors have eased: 2 in the last 10 minutes"),
    ]


def test_a_chip_out_of_range_names_the_cells_of_its_pads(tmp_path):
    """Chip 0x5B's electrode 16 (its pin 4) is under cell 21 in this wiring; the status's top bits
    are the chip's failure flags, not pads."""
    with on_manual_time(tmp_path, cells=ROTATED) as (board, driver, _clock):
        board.send(wire.Fault(wire.Fault.OUT_OF_RANGE, 0x5B, 0x8000 | 1 << 4 | 1 << 9))
        told(driver, Phrase.of(OUT_OF_RANGE_CELLS, chip="0x5b", cells="1, 21"))
        board.send(wire.Fault(wire.Fault.OUT_OF_RANGE, 0x5C, 0x8000 | 1 << 11))  # electrode 35: no cell
        told(driver, Phrase.of(OUT_OF_RANGE, chip="0x5c"))


def test_a_bus_the_board_cannot_free_shows_until_it_does_and_comes_first(tmp_path, caplog):
    with on_manual_time(tmp_path) as (board, driver, clock):
        board.send(wire.Fault(wire.Fault.I2C_ERRORS, 0x5A, 4 * I2C_ERRORS_WARN))
        board.send(wire.Fault(wire.Fault.BUS_HELD, 0, 0))
        told(driver, Phrase.of(BUS_HELD))
        clock.advance(2 * TOLD_S)
        assert driver.trouble() == Phrase.of(BUS_HELD)  # no card can be touched: it does not fade
        board.send(wire.Fault(wire.Fault.BUS_HELD, 0, 6))
        told(driver, Phrase.of(BUS_FREED))
        board.send(wire.Fault(wire.Fault.RESET, 0x5A, 1))
        told(driver, Phrase.of(CHIP_RESET, chip="0x5a"))  # the more serious of the two
        board.send(wire.Fault(9, 0x5A, 1))  # a kind from a later firmware: logged, no harm
        board.send(wire.Fault(wire.Fault.BUS_HELD, 0, 0))
        told(driver, Phrase.of(BUS_HELD))
        board.send(wire.Hello((wire.PROTOCOL_MAJOR, 2), (0, 4, 0), "test-board", 36))  # it restarted
        board.greet()
        told(driver, Phrase.of(CHIP_RESET, chip="0x5a"))  # a board started afresh tells again of a bus it cannot free
    assert ("a chip holds the I2C bus's SDA low and nine clocks on SCL did not free it: every pad is deaf while "
            "it does; the board clocks it again each second") in caplog.text
    assert "power is cycled" not in caplog.text  # issue 51.7: the board frees it by itself, often at its second try
    assert "a fault of a kind this version does not know (fault kind=9 chip=0x5a count=1)" in caplog.text


def silent(chip: int, how: int = wire.CHIP_STOPPED) -> wire.Fault:
    return wire.Fault(wire.Fault.NOT_ANSWERING, chip, how)


def test_a_held_bus_is_one_diagnosis_with_one_action(tmp_path):
    """Issue 78.5: while a chip holds the bus every chip stops answering, and the cards were marked
    deaf with "check the I2C cable and every breakout" beside the health's "unplug the USB cable":
    two faults, two actions, for one. The deaf cards give the held bus as their reason while it is
    held, and the silent chips again once it is freed."""
    with on_manual_time(tmp_path) as (board, driver, _clock):
        events = []
        driver._emit = events.append
        board.send(wire.Fault(wire.Fault.BUS_HELD, 0, 0))
        for chip in (0x5A, 0x5B, 0x5C):
            board.send(silent(chip))
        told(driver, Phrase.of(BUS_HELD))
        held = DeafCards(frozenset(range(25)), (Phrase.of(BUS_HELD),))
        wait_for(lambda: events and events[-1] == held, f"the table told {held}", timeout=3)
        assert driver.deaf_cards() == held
        board.send(wire.Fault(wire.Fault.BUS_HELD, 0, 3))  # freed, and the chips not answering yet
        board.send(silent(0x5A))
        wait_for(lambda: events and events[-1].why and events[-1].why[0].template == CHIPS_SILENT,
                 "the silent chips told as their own fault once the bus is free", timeout=3)


def test_a_silent_chip_is_a_fault_while_the_board_says_so_and_the_table_is_told_its_cards(tmp_path, caplog):
    """The board tells a chip that does not answer each second: the health names it, its cards
    (by the wiring's map) and what to check, after a bus it cannot free and before a chip reset;
    the table gets the deaf cards; the fault ends when the board says the chip answers, or stops
    telling it (SILENT_S), and with the link."""
    caplog.set_level(logging.INFO, logger="pi_table.touch")
    with on_manual_time(tmp_path, cells=ROTATED) as (board, driver, clock):
        events = []
        driver._emit = events.append  # what the table loop would hear
        board.send(wire.Fault(wire.Fault.RESET, 0x5A, 1))
        board.send(silent(0x5B))
        deaf = Phrase.of(CHIP_SILENT, chip="0x5b", pads=Phrase.of(CARDS, cells="0-3, 17-24"))
        told(driver, deaf)  # the health says so before the driver's thread tells the table: wait for that too
        told_cards = DeafCards(frozenset({0, 1, 2, 3, *range(17, 25)}), (deaf,))
        wait_for(lambda: events and events[-1] == told_cards, f"the table told {told_cards}", timeout=3)
        assert say(deaf, "it").startswith("il chip touch 0x5b non risponde; non si possono toccare: carte 0-3, 17-24")
        clock.advance(SILENT_S - 0.5)
        board.send(silent(0x5B))  # told again a second later: logged once
        board.send(silent(0x5C, wire.CHIP_MISSING))
        both = Phrase.of(CHIPS_SILENT, chips="0x5b, 0x5c", pads=Phrase.of(WITH_END_TURN, cards=Phrase.of(CARDS, cells="0-4, 17-24"), end_turn=BOTH))
        told(driver, both)
        assert str(both).startswith("touch chips 0x5b, 0x5c do not answer: cards 0-4, 17-24 and both END TURN pads")
        board.send(wire.Fault(wire.Fault.BUS_HELD, 0, 0))
        told(driver, Phrase.of(BUS_HELD))  # no card at all can be touched: that first
        board.send(wire.Fault(wire.Fault.BUS_HELD, 0, 3))
        board.send(silent(0x5B, wire.CHIP_ANSWERS))
        only = Phrase.of(CHIP_MISSING, chip="0x5c", pads=Phrase.of(WITH_END_TURN, cards=Phrase.of(ONE_CARD, cell=4), end_turn=BOTH))
        told(driver, only)
        clock.advance(SILENT_S)  # no longer told: the frame that said it answers was lost
        told(driver, Phrase.of(CHIP_RESET, chip="0x5a"))
        deadline = time.monotonic() + 3
        while events[-1] != DeafCards() and time.monotonic() < deadline:
            time.sleep(0.005)
        assert events[-1] == DeafCards()
        board.send(silent(0x5A))
        told(driver, Phrase.of(CHIP_SILENT, chip="0x5a", pads=Phrase.of(CARDS, cells="5-16")))
        board.unplug()  # the whole board lost: its own fault, and no cards deaf
        deadline = time.monotonic() + 3
        while events[-1] != HealthEvent("touch", False, DISCONNECTED) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert events[-2:] == [DeafCards(), HealthEvent("touch", False, DISCONNECTED)]
        board.plug()  # for the context's own unplug
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "answer" in r.getMessage()]
    assert warned == [f"touch board: {deaf}", f"touch board: {Phrase.of(CHIP_MISSING, chip='0x5c', pads=Phrase.of(WITH_END_TURN, cards=Phrase.of(ONE_CARD, cell=4), end_turn=BOTH))}",
                      f"touch board: {Phrase.of(CHIP_SILENT, chip='0x5a', pads=Phrase.of(CARDS, cells='5-16'))}"]
    assert "touch board: chip 0x5b answers again: its pads are heard again" in caplog.text


@pytest.mark.parametrize("end_turn, silent, en, it", [
    ((25, 26), {0x5C: wire.CHIP_STOPPED}, "card 24 and both END TURN pads cannot", "carta 24 e i due FINE TURNO"),
    ((25,), {0x5C: wire.CHIP_STOPPED}, "card 24 and the END TURN pad cannot", "carta 24 e sensore FINE TURNO"),
    ((13, 25), {0x5C: wire.CHIP_STOPPED}, "card 24 and 1 of the 2 END TURN pads", "carta 24 e 1 dei 2 sensori FINE TURNO"),
    ((13, 25, 26), {0x5B: wire.CHIP_STOPPED, 0x5C: wire.CHIP_STOPPED}, "cards 12, 14-24 and all 3 END TURN pads",
     "carte 12, 14-24 e tutti i 3 sensori FINE TURNO"),
    ((25, 26), {0x5B: wire.CHIP_STOPPED}, "cards 12-23 cannot", "carte 12-23"),
])
def test_a_silent_chip_names_the_end_turn_pads_it_reads_as_many_as_they_are(end_turn, silent, en, it):
    """Issue 60: chip 0x5C reads both END TURN pads of the reference wiring, and was said to leave
    "the END TURN pad" deaf: the sentence counts the pads the silent chips read of the wiring's."""
    cells = tuple(cell if cell not in end_turn else None for cell in range(25))
    board = TouchBoardSource(TouchBoardConfig(cells=cells, end_turn=end_turn))
    told = board._silence(silent)
    assert en in str(told) and it in say(told, "it"), (str(told), say(told, "it"))


@pytest.mark.parametrize("numbers, text", [([], ""), ([7], "7"), ([1, 2], "1-2"), ([0, 2, 3, 4, 9], "0, 2-4, 9")])
def test_spans_say_runs_of_cells_as_a_person_reads_them(numbers, text):
    assert spans(numbers) == text


def test_a_board_with_fewer_electrodes_than_the_wiring_is_warned_about(tmp_path, caplog):
    """Two chips answering for three: cell 24 and the END TURN pads could never be touched."""
    with running(tmp_path, greet=False) as (board, _, events):
        assert board.receive() == wire.GetHello()
        board.send(wire.Hello((wire.PROTOCOL_MAJOR, 0), (0, 1, 0), "test-board", 24))
        events.wait_for(OK)
    assert "has 24 electrodes: electrodes [24, 25, 26] are mapped but will never be touched" in caplog.text


def test_stop_ends_the_link_thread_and_frees_the_port(rig):
    """stop() returns with the link's thread ended (a read blocks READ_TIMEOUT_S at most), not
    left running after its join gives up."""
    board, driver, _ = rig
    with pytest.raises(serial.SerialException, match="exclusively lock"):
        serial.serial_for_url(str(board.link), exclusive=True)  # a second daemon cannot steal frames
    driver.stop()
    assert not driver._worker.thread.is_alive()
    serial.serial_for_url(str(board.link), exclusive=True).close()


def test_the_board_is_opened_as_the_device_file_its_port_leads_to_never_as_a_url(tmp_path, monkeypatch):
    """Issue 48, 1-3: the driver handed the port's text to pyserial's ``serial_for_url``, whose
    ``spy://...?file=PATH`` created or emptied PATH and whose ``socket://`` dialled a host. Now
    it opens the device file the port leads to (``serial.Serial``), and a link changed to lead
    anywhere but a character device under /dev is refused, whatever is there left as it was."""

    def never(*args, **kwargs):
        raise AssertionError("serial_for_url reads its port as a URL")

    monkeypatch.setattr(serial, "serial_for_url", never)
    with running(tmp_path) as (board, _driver, events):
        assert board.link.is_symlink() and OK in events
    victim = tmp_path / "owner.pass"
    victim.write_text("the owner's hash")
    (tmp_path / "swapped").symlink_to(victim)
    with pytest.raises(NotADevice, match="which is not under /dev"):
        SerialDevice(str(tmp_path / "swapped")).target()
    with pytest.raises(NotADevice, match="which is not a character device"):
        SerialDevice("/dev/shm").target()
    assert victim.read_text() == "the owner's hash"


def test_reopening_backs_off_from_a_tenth_to_two_seconds_and_reports_once(tmp_path):
    delays: list[float] = []
    driver = TouchBoardSource(
        TouchBoardConfig(port=SerialDevice(str(tmp_path / "no-board"))), sleep=lambda s: (delays.append(s), time.sleep(0.001))
    )
    events = Events()
    driver.start(events.append)
    deadline = time.monotonic() + 3
    while len(delays) < 7 and time.monotonic() < deadline:
        time.sleep(0.005)
    driver.stop()
    assert delays[:7] == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0])
    (health,) = events
    assert not health.ok and str(health.detail).startswith("touch board not found") and "no-board" in str(health.detail)


def test_stop_ends_a_backoff_wait_at_once(tmp_path):
    """The wait between tries is an hour here: only a wait that stop() wakes lets the thread end."""
    driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(str(tmp_path / "no-board")), backoff_s=3600, backoff_max_s=3600))
    events = Events()
    driver.start(events.append)
    deadline = time.monotonic() + 3
    while not events and time.monotonic() < deadline:  # the first failed open is reported, then the wait
        time.sleep(0.005)
    assert events and not events[0].ok
    driver.stop()
    assert not driver._worker.thread.is_alive()


# --- commands


def test_recalibrate_sends_the_electrodes_under_the_cells(tmp_path):
    wiring = ROTATED[:8] + (None,) + ROTATED[9:]  # cell 13 (electrode 8) has no pad
    with running(tmp_path, greet=False, cells=wiring) as (board, driver, events):
        assert board.receive() == wire.GetHello()
        driver.recalibrate([11])  # not connected yet: dropped, not queued
        board.send(wire.Hello((wire.PROTOCOL_MAJOR, 0), (0, 1, 0), "test-board", 36))
        events.wait_for(OK)
        driver.recalibrate([])
        driver.recalibrate([13])  # nothing to send: an empty mask would re-baseline every pad
        driver.recalibrate([2, 11])
        driver.set_thresholds(3, ((10, 5), (12, 6)))
        assert board.receive() == wire.Recalibrate(mask(22, 6))
        assert board.receive() == wire.SetThresholds(3, ((10, 5), (12, 6)))
        assert driver.recalibrations == 1
        with pytest.raises(ValueError, match="cell 25 is off the grid"):
            driver.recalibrate([25])


def test_the_configured_thresholds_are_sent_at_every_connection(tmp_path):
    """A board that restarted has its firmware's defaults again: the table's own go with each hello."""
    thresholds = tuple((10 + e % 5, 5) for e in range(36))
    clock = ManualClock()  # the driver's: a silent board is never dropped here
    with running(tmp_path, clock=clock, thresholds=thresholds, hello_timeout_s=0.2) as (board, _driver, events):
        assert board.receive() == wire.SetThresholds(0, thresholds)
        board.send(wire.Ack(wire.SetThresholds.TYPE, wire.Ack.OK))
        clock.advance(0.25)  # past the moment a hello could still be the answer to ours
        board.send(wire.Hello((wire.PROTOCOL_MAJOR, 0), (0, 1, 0), "test-board", 36))  # it restarted
        events.wait_for(DOWN)
        board.greet()
        assert board.receive() == wire.SetThresholds(0, thresholds)


PER_CHIP_HELLO = wire.Hello((wire.PROTOCOL_MAJOR, 4), (0, 6, 0), "test-board", 36)


def test_a_board_of_protocol_1_4_is_sent_each_chip_s_own_thresholds_at_every_connection(tmp_path):
    """Issue 60.1: one set-chip-thresholds per chip, which the board keeps as that chip's own, so
    a chip that does not answer now takes its own when it does. Electrodes the configuration
    leaves out get the firmware's own 8/4, so a chip tuned by an earlier configuration is not left
    on that one's values."""
    thresholds = tuple((10 + e % 5, 5) for e in range(30))
    with running(tmp_path, greet=False, thresholds=thresholds) as (board, _driver, events):
        assert board.receive() == wire.GetHello()
        board.send(PER_CHIP_HELLO)
        events.wait_for(HealthEvent("touch", True, Phrase.of("touch board {board} firmware {firmware}",
                                                             board="test-board", firmware="0.6.0")))
        assert [board.receive() for _ in range(3)] == [
            wire.SetChipThresholds(0x5A, thresholds[:12]), wire.SetChipThresholds(0x5B, thresholds[12:24]),
            wire.SetChipThresholds(0x5C, thresholds[24:] + ((8, 4),) * 6)]


def test_a_chip_that_answers_without_its_thresholds_is_a_warning_until_it_holds_them(tmp_path, caplog):
    """What the board reads back from each chip (its thresholds report) against what this table
    sent it: a chip holding others is untuned on the health, by its cards; a chip that does not
    answer is deaf, not untuned; the warning goes when it holds its own again."""
    caplog.set_level(logging.INFO, logger="pi_table.touch")
    thresholds = tuple((12, 6) for _ in range(36))
    clock = ManualClock(100.0)
    with running(tmp_path, greet=False, clock=clock, silence_timeout_s=100 * TOLD_S, thresholds=thresholds,
                 cells=ROTATED) as (board, driver, _events):
        board.receive()
        board.send(PER_CHIP_HELLO)
        for _ in range(3):
            board.receive()
        ours, firmware_s = ((12, 6),) * 12, ((8, 4),) * 12
        board.send(wire.Thresholds(0x5A, ours))
        board.send(wire.Thresholds(0x5B, firmware_s))
        untuned = Phrase.of(CHIP_UNTUNED, chip="0x5b", pads=Phrase.of(CARDS, cells="0-3, 17-24"))
        told(driver, untuned)
        assert str(untuned).startswith("touch chip 0x5b does not run the table's tuned thresholds: cards 0-3, 17-24")
        assert say(untuned, "it").startswith("il chip touch 0x5b")
        board.send(wire.Thresholds(0x5C, firmware_s))
        told(driver, Phrase.of(CHIPS_UNTUNED, chips="0x5b, 0x5c",
                               pads=Phrase.of(WITH_END_TURN, cards=Phrase.of(CARDS, cells="0-4, 17-24"), end_turn=BOTH)))
        board.send(silent(0x5C))  # deaf, which the health says first; not untuned meanwhile
        told(driver, Phrase.of(CHIP_SILENT, chip="0x5c", pads=Phrase.of(WITH_END_TURN, cards=Phrase.of(ONE_CARD, cell=4), end_turn=BOTH)))
        assert driver.untuned_chips() == [0x5B]
        board.send(wire.Thresholds(0x5C, ours))  # set up again when it answered: with its own
        board.send(silent(0x5C, wire.CHIP_ANSWERS))
        board.send(wire.Thresholds(0x5B, ours))
        told(driver, None)
    assert ("touch board: chip 0x5b does not run the table's thresholds (electrode 12 holds 8/4, not 12/6)"
            in caplog.text)
    assert "touch board: chip 0x5b runs the table's thresholds again" in caplog.text


def test_an_older_board_that_refuses_the_thresholds_leaves_every_chip_untuned(tmp_path):
    """A board before 1.4 refuses set-thresholds whole when a chip does not answer, and does not
    say what its chips hold: every chip is taken as untuned until the board connects again."""
    thresholds = tuple((12, 6) for _ in range(36))
    with running(tmp_path, greet=False, thresholds=thresholds) as (board, driver, _events):
        board.greet(protocol=(wire.PROTOCOL_MAJOR, 3))
        assert board.receive() == wire.SetThresholds(0, thresholds)
        board.send(wire.Ack(wire.SetThresholds.TYPE, wire.Ack.BAD_ELECTRODE))
        told(driver, Phrase.of(CHIPS_UNTUNED, chips="0x5a, 0x5b, 0x5c",
                               pads=Phrase.of(WITH_END_TURN, cards=Phrase.of(CARDS, cells="0-24"), end_turn=BOTH)))


def test_no_thresholds_configured_leaves_the_board_s_own(rig):
    board, driver, _events = rig
    driver.set_thresholds(0, ((9, 4),))  # the next thing the board hears is this, not a set-up
    assert board.receive() == wire.SetThresholds(0, ((9, 4),))


def test_readings_asked_for_reach_the_listener_and_move_no_cell(tmp_path):
    heard = []
    board = Board(tmp_path / "touch-board")
    driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(str(board.link)), silence_timeout_s=3.0))
    driver.on_readings = heard.append
    events = Events()
    driver.start(events.append)
    try:
        board.greet()
        events.wait_for(OK)
        assert driver.stream_readings(50, 10)
        assert board.receive() == wire.StreamReadings(50, 10)
        readings = wire.Readings(12, 0, 0, ((700, 720),) * 12)
        board.send(wire.Ack(wire.StreamReadings.TYPE, wire.Ack.OK))
        board.send(readings)
        deadline = time.monotonic() + 3
        while not heard and time.monotonic() < deadline:
            time.sleep(0.005)
        assert heard == [readings]
        assert events.of(TouchEvent) == [] and driver.bad_frames == 0
    finally:
        driver.stop()
        board.unplug()


# --- finding the board


def port_info(device: str, interface: str | None, location: str, usb_id=PICO) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = usb_id
    info.interface, info.location = interface, location
    return info


def test_discovery_opens_the_circuitpython_data_port_not_the_console(tmp_path, monkeypatch):
    board = Board(tmp_path / "ttyACM1")
    ports = [
        port_info(str(tmp_path / "ttyACM0"), "CircuitPython CDC control", "1-1.3:1.0"),
        port_info(str(board.link), "CircuitPython CDC2 control", "1-1.3:1.2"),
        port_info(str(tmp_path / "ttyUSB0"), None, "1-1.4", usb_id=(0x2341, 0x0043)),
    ]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    driver = TouchBoardSource(TouchBoardConfig(usb_id=PICO))
    events = Events()
    driver.start(events.append)
    try:
        board.greet()
        events.wait_for(OK)
    finally:
        driver.stop()
        board.unplug()


def test_discovery_without_interface_names_takes_the_later_interface(monkeypatch):
    """pyserial on Windows gives no interface names; CircuitPython numbers the data port after the console."""
    ports = [port_info("COM9", None, "1-3:x.2"), port_info("COM4", None, "1-3:x.0")]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    assert find_port(PICO) == SerialDevice("COM9")


def test_discovery_with_two_boards_takes_one_and_says_so(monkeypatch, caplog):
    ports = [
        port_info("/dev/ttyACM3", "CircuitPython CDC2 control", "1-1.4:1.2"),
        port_info("/dev/ttyACM1", "CircuitPython CDC2 control", "1-1.3:1.2"),
    ]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    assert find_port(PICO) == SerialDevice("/dev/ttyACM1")
    assert "several USB 239a:80f4 ports (/dev/ttyACM1, /dev/ttyACM3)" in caplog.text


@pytest.mark.parametrize(
    "ports, why, italian",
    [
        ([], "no USB 239a:80f4 device", "scheda touch non trovata (nessun dispositivo USB 239a:80f4): controlla il cavo"),
        ([port_info("/dev/ttyACM0", "CircuitPython CDC control", "1-1:1.0")], "enable usb_cdc data in its boot.py",
         "la scheda touch (USB 239a:80f4) mostra solo la porta della console: abilita usb_cdc data nel suo boot.py"),
    ],
)
def test_discovery_says_what_it_found_instead_and_what_to_do_in_each_language(monkeypatch, ports, why, italian):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    with pytest.raises(NotFound, match=why) as found:
        find_port(PICO)
    assert say(found.value.phrase, "it").startswith(italian)


def test_a_board_that_never_says_hello_is_reported_in_the_tables_language(tmp_path):
    """A port that opens but never answers (no firmware of the table's on it): the health says
    so from the driver's own words, said in Italian whole, with what to do."""
    master, slave = os.openpty()
    tty.setraw(slave)
    link = tmp_path / "silent"
    link.symlink_to(os.ttyname(slave))
    driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(str(link)), hello_timeout_s=0.2), sleep=lambda s: time.sleep(0.01))
    events = Events()
    driver.start(events.append)
    try:
        deadline = time.monotonic() + 3
        while not events.of(HealthEvent) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        driver.stop()
        os.close(master)
        os.close(slave)
    (health,) = events.of(HealthEvent)
    assert not health.ok and str(health.detail).startswith(f"the touch board on {link} did not say hello within 0.2 s")
    assert say(health.detail, "it") == (f"la scheda touch su {link} non si è presentata entro 0.2 s: controlla che esegua il "
                                        "firmware del tavolo (installa di nuovo firmware/ sulla scheda); la partita aspetta")


# --- configuration


@pytest.mark.parametrize(
    "settings_, error",
    [
        ({"cells": (25,)}, "electrode 0 is mapped to cell 25, off the grid"),
        ({"cells": (4, None, 4)}, "cell 4 is mapped twice: to electrodes 0 and 2"),
        ({"end_turn": (3,)}, "electrode 3 is both END TURN and cell 3"),
        ({"end_turn": (64,)}, "END TURN electrode 64 does not exist"),
        ({"end_turn": (25, 25)}, "end_turn lists an electrode twice"),
        ({"cells": (None,) * 65}, "at most 64 electrodes"),
        ({"usb_id": (0x239A,)}, "usb_id is"),
        ({"silence_timeout_s": 0}, "silence_timeout_s must be above 0"),
        ({"backoff_s": 0.5, "backoff_max_s": 0.1}, r"backoff_max_s \(0.1\) must be at least"),
        ({"thresholds": ((8, 4), (4, 8))}, r"electrode 1's thresholds are \[touch, release\]"),
        ({"thresholds": ((8, 4, 2),)}, r"electrode 0's thresholds"),
        ({"thresholds": ((300, 4),)}, r"<= 255, not \[300, 4\]"),
        ({"thresholds": ((8, 4),) * 65}, "thresholds lists at most 64"),
    ],
)
def test_a_bad_configuration_is_refused_with_the_reason(settings_, error):
    with pytest.raises(ValueError, match=error):
        TouchBoardConfig(**settings_)


def test_the_default_wiring_is_electrodes_0_to_24_with_end_turn_on_spares():
    config = TouchBoardConfig()
    assert config.cells[:25] == tuple(range(25)) and set(config.cells[25:]) == {None}
    assert TouchBoardConfig(cells=ROTATED[:3] + (None,), end_turn=(3,)).end_turn == (3,)


def test_the_configuration_s_electrode_limit_is_the_touch_mask_s():
    """drivers/settings.py says 64 without loading the protocol (a simulated table's start does
    without it): the number must stay the touch mask's bits."""
    assert ELECTRODE_LIMIT == wire.MASK_BYTES * 8


@pytest.mark.parametrize("lang, joints, usb", [
    ("en", "Check the soldered joints on touch chip 0x5c's breakout", "many short cables only charge"),
    ("it", "Controlla le saldature sulla scheda del chip touch 0x5c", "molti cavi corti servono solo a caricare")])
def test_each_fault_of_the_board_has_advice_that_fits_it_and_the_staff_page_gives_it(lang, joints, usb):
    """Issue 60.2: under a silent chip the staff page said to check the board's USB cable (advice
    kept by device): each fault has its own, a silent chip's naming its chip and its cards."""
    from pi_table.drivers.touchboard import ADVICE, DISCONNECTED, FAULTS, advice_for
    from pi_table.web.staff_words import advised

    assert set(ADVICE) == set(FAULTS), "a fault of the board's without its advice"
    silent = Phrase.of(CHIP_SILENT, chip="0x5c", pads=Phrase.of(CARDS, cells="2, 7, 12"))
    status = {"health": {"touch": say(silent, lang)},
              "advice": {"touch": say(advice_for(silent), lang), "leds": "not a fault: not shown"}}
    (touch,) = [device for device in advised(status, lang) if device["device"] == "touch"]
    assert touch["advice"].startswith(joints) and "2, 7, 12" in touch["advice"] and "USB" not in touch["advice"]
    assert usb in say(advice_for(DISCONNECTED), lang)
    assert advice_for("connecting") is None and advice_for(Phrase.of("the LED strip is not working")) is None
