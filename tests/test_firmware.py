"""The touch-board firmware run on the host: the real adafruit_mpr121 driver on fake chips.

Each chip is a register-level FakeMPR121 on a FakeI2C bus, built with
``adafruit_mpr121.MPR121(i2c, address)`` exactly as code.py does; the Pi is a fake port whose
bytes are decoded with the protocol's own decoder; time is a manual clock.
"""

from __future__ import annotations

import errno
import itertools
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import adafruit_mpr121
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from pi_table.firmware import deploy, touchboard
from pi_table.firmware.touchboard import ADDRESSES, CHIP_SETTINGS, ECR_RUN, TouchBoard

from pi_table.drivers.touchboard import CHIP_UNTUNED, CHIPS_UNTUNED, TouchBoardConfig, TouchBoardSource
from pi_table.kinds import SerialDevice
from pi_table.protocol import wire
from pi_table.sim.harness import ManualClock
from pi_table.sim.mpr121 import UNTOUCHED, FakeI2C, FakeMPR121

FIRMWARE = Path(touchboard.__file__).parent
HELLO = wire.Hello((wire.PROTOCOL_MAJOR, wire.PROTOCOL_MINOR), touchboard.FIRMWARE_VERSION, "test-board", 36)
TICK = 1 / 64  # exact in binary, so 16 ticks are exactly one 0.25 s heartbeat period


class FakePort:
    """The board's usb_cdc.data as TouchBoard sees it, with the host's side for the test."""

    def __init__(self) -> None:
        self.connected = True
        self.broken = False
        self.room: int | None = None  # bytes the port's buffer still takes; None: no limit
        self.writes = 0
        self.written = bytearray()
        self.incoming = bytearray()
        self._decoder = wire.Decoder()
        self._host_seq = 0

    def write(self, data: bytes) -> int:
        self.writes += 1
        if self.broken:
            raise OSError(errno.EIO, "host went away")
        taken = len(data) if self.room is None else min(self.room, len(data))
        if self.room is not None:
            self.room -= taken
        self.written += data[:taken]
        return taken

    def read(self, size: int) -> bytes | None:
        if self.broken:
            raise OSError(errno.EIO, "host went away")
        data = bytes(self.incoming[:size])
        del self.incoming[:size]
        return data or None

    def host_sends(self, *messages: wire.Message) -> None:
        for message in messages:
            self.incoming += wire.encode(message, self._host_seq)
            self._host_seq += 1

    def received(self) -> list[wire.Message]:
        """Messages the board wrote since the last call."""
        messages = [message for _seq, message in self._decoder.feed(bytes(self.written))]
        self.written.clear()
        return messages

    @property
    def bad_frames(self) -> int:
        """Damaged frames the host has dropped so far."""
        return self._decoder.bad_frames


def bus_over(i2c: FakeI2C) -> touchboard.Bus:
    """A Bus as code.py makes one, over the fake bus and its lines."""
    return touchboard.Bus(i2c.reopen, lambda: (i2c.line("SCL"), i2c.line("SDA")), pause=lambda seconds: None)


class Rig:
    """A board with fake chips at ``addresses`` (the rest missing), a fake host and a manual clock.

    As code.py does, the board is given a way to connect a chip that was missing at start, and
    with ``clearable`` the chips' bus as a Bus it can clear; ``hold_sda`` has a chip hold SDA low
    from power-on."""

    def __init__(self, addresses=ADDRESSES, clearable: bool = False, hold_sda: int = 0) -> None:
        self.clock = ManualClock()
        self.i2c = FakeI2C(clock=self.clock, wait=self.clock.advance)
        self.fakes = {ADDRESSES.index(a): self.i2c.attach(a, FakeMPR121()) for a in addresses}
        self.i2c.hold_sda(hold_sda)
        self.bus = bus_over(self.i2c) if clearable else None
        self.chips = touchboard.connect_chips(self.bus or self.i2c, adafruit_mpr121.MPR121)
        self.port = FakePort()
        self.feeds = 0
        self.resets: list[bytes] = []
        self.board = TouchBoard(self.chips, self.port, self.clock, "test-board", feed_watchdog=self._feed,
                                reset=self._reset, connect=self._connect, bus=self.bus, pause=self.clock.advance)

    def _connect(self, address: int):
        return touchboard.connect_chip(self.bus or self.i2c, adafruit_mpr121.MPR121, address)

    def _feed(self) -> None:
        self.feeds += 1

    def _reset(self) -> None:
        self.resets.append(bytes(self.port.written))  # what the host had been sent by then

    def pad(self, electrode: int) -> tuple[FakeMPR121, int]:
        return self.fakes[electrode // 12], electrode % 12

    def touch(self, *electrodes: int) -> None:
        for electrode in electrodes:
            fake, pin = self.pad(electrode)
            fake.touch(pin)

    def release(self, *electrodes: int) -> None:
        for electrode in electrodes:
            fake, pin = self.pad(electrode)
            fake.release(pin)

    def step(self, seconds: float = TICK) -> list[wire.Message]:
        self.clock.advance(seconds)
        self.board.step()
        return self.port.received()

    def started(self) -> Rig:
        """Started, with the hello and the first touch report already read."""
        self.board.start()
        self.step()
        return self


@pytest.fixture
def rig() -> Rig:
    return Rig().started()


def touches(messages):
    return [m for m in messages if isinstance(m, wire.Touch)]


def said(messages):
    """All but the touch reports: what the heartbeats of a long step would bury."""
    return [m for m in messages if not isinstance(m, wire.Touch)]


# --- reporting touches


def test_start_says_hello_with_protocol_firmware_board_id_and_electrode_count():
    rig = Rig()
    rig.board.start()
    assert rig.port.received() == [HELLO]


def test_the_first_step_reports_the_untouched_table():
    rig = Rig()
    rig.board.start()
    rig.port.received()
    assert rig.step() == [wire.Touch(0, 0)]


@pytest.mark.parametrize("electrode", [0, 13, 35], ids=["chip 0x5a", "chip 0x5b", "chip 0x5c"])
def test_a_touch_and_a_release_are_reported_at_once_with_the_counter_going_up(rig, electrode):
    rig.touch(electrode)
    assert rig.step() == [wire.Touch(1, 1 << electrode)]
    rig.release(electrode)
    assert rig.step() == [wire.Touch(2, 0)]


def test_several_pads_on_different_chips_share_one_mask(rig):
    rig.touch(0, 13, 35)
    assert rig.step() == [wire.Touch(1, 1 << 0 | 1 << 13 | 1 << 35)]
    rig.release(13)
    assert rig.step() == [wire.Touch(2, 1 << 0 | 1 << 35)]


def test_an_unchanged_table_is_repeated_every_quarter_second_with_the_same_counter(rig):
    rig.touch(7)
    rig.step()
    heartbeats = []
    for _ in range(64):  # one second
        heartbeats += [(rig.clock.now, m) for m in touches(rig.step())]
    assert [m for _t, m in heartbeats] == [wire.Touch(1, 1 << 7)] * 4
    times = [t for t, _m in heartbeats]
    assert [b - a for a, b in itertools.pairwise(times)] == [0.25] * 3


def test_the_change_counter_wraps_at_65536(rig):
    rig.board.counter = 0xFFFF
    rig.touch(3)
    assert rig.step() == [wire.Touch(0, 1 << 3)]


def test_the_board_numbers_its_frames_in_sequence_wrapping_after_255(rig):
    rig.board.seq = 254
    rig.port.host_sends(wire.Ping(1), wire.Ping(2), wire.Ping(3))
    rig.board.step()
    frames = wire.Decoder().feed(bytes(rig.port.written))
    assert [seq for seq, _m in frames] == [254, 255, 0]


def test_a_clock_that_wraps_backwards_brings_the_heartbeat_forward_instead_of_stalling(rig):
    rig.step(0.1)
    rig.clock.now -= 60  # code.py's tick clock wraps every 65.536 s
    assert rig.step() == [wire.Touch(0, 0)]


# --- host commands


def test_get_hello_is_answered_with_hello(rig):
    rig.port.host_sends(wire.GetHello())
    assert rig.step() == [HELLO]


def test_ping_is_answered_with_a_pong_carrying_its_token(rig):
    rig.port.host_sends(wire.Ping(0x1234), wire.Ping(7))
    assert rig.step() == [wire.Pong(0x1234), wire.Pong(7)]


def test_set_thresholds_writes_the_chip_registers(rig):
    rig.port.host_sends(wire.SetThresholds(11, ((40, 20), (30, 15))))
    assert rig.step() == [wire.Ack(wire.SetThresholds.TYPE, wire.Ack.OK)]
    assert (rig.chips[0][11].threshold, rig.chips[0][11].release_threshold) == (40, 20)
    assert (rig.chips[1][0].threshold, rig.chips[1][0].release_threshold) == (30, 15)
    assert (rig.chips[1][1].threshold, rig.chips[1][1].release_threshold) == touchboard.DEFAULT_THRESHOLDS


def test_set_thresholds_restarts_each_chip_it_touches_once_not_once_per_register(rig):
    """Each restart re-takes the chip's baselines, maybe with hands on the table: one per update."""
    before = {index: (fake.ecr_writes, fake.restarts) for index, fake in rig.fakes.items()}
    rig.port.host_sends(wire.SetThresholds(0, ((10, 5),) * 36))  # 79 bytes: two steps' reads
    assert rig.step() + rig.step() == [wire.Ack(wire.SetThresholds.TYPE, wire.Ack.OK)]
    after = {index: (fake.ecr_writes, fake.restarts) for index, fake in rig.fakes.items()}
    assert {index: (a[0] - b[0], a[1] - b[1]) for (index, a), b in zip(after.items(), before.values())} == {
        0: (2, 1), 1: (2, 1), 2: (2, 1)}  # stop once, start once
    assert all(fake.ignored_writes == 0 for fake in rig.fakes.values())
    assert [(rig.chips[2][p].threshold, rig.chips[2][p].release_threshold) for p in range(12)] == [(10, 5)] * 12
    rig.port.host_sends(wire.SetThresholds(11, ((20, 10), (20, 10))))
    rig.step()
    assert [fake.restarts - after[index][1] for index, fake in rig.fakes.items()] == [1, 1, 0]


def test_start_sets_each_chip_up_with_one_restart():
    rig = Rig()  # the driver's constructor has reset the chips its own way
    before = [fake.restarts for fake in rig.fakes.values()]
    rig.board.start()
    assert [fake.restarts - b for fake, b in zip(rig.fakes.values(), before)] == [1, 1, 1]


def test_set_thresholds_changes_what_counts_as_a_touch(rig):
    rig.port.host_sends(wire.SetThresholds(4, ((40, 20),)))
    rig.step()
    for electrode in (4, 5):  # the same light touch on a raised and a default pad
        fake, pin = rig.pad(electrode)
        fake.set_filtered(pin, fake.baseline[pin] - 20)
    assert touches(rig.step()) == [wire.Touch(1, 1 << 5)]


def test_thresholds_that_do_not_read_back_are_told_to_the_host_and_not_acked_ok():
    """The thresholds go to a chip as one 24-byte burst, which takes its register pointer to move
    on after each byte written; a chip where it does not is caught by reading them back."""
    rig = Rig()
    rig.fakes[1].burst_writes = False  # every byte of a burst lands on register 0x41
    rig.board.start()
    wrong = wire.Log("chip 0x5b thresholds read back wrong: electrode 12 holds 4/0, not 8/4")
    assert rig.port.received() == [HELLO, wrong]  # at start, and again after every hello
    rig.port.host_sends(wire.GetHello())
    assert rig.step() == [wire.Touch(0, 0), HELLO, wrong]
    rig.port.host_sends(wire.SetThresholds(11, ((40, 20), (30, 15))))
    assert rig.step() == [
        wire.Log("chip 0x5b thresholds read back wrong: electrode 12 holds 4/0, not 30/15"),
        wire.Ack(wire.SetThresholds.TYPE, wire.Ack.NOT_TAKEN),
    ]
    rig.port.host_sends(wire.SetThresholds(0, ((40, 20),)))  # chip 0x5a takes them: acked ok
    assert rig.step() == [wire.Ack(wire.SetThresholds.TYPE, wire.Ack.OK)]
    assert touchboard.read_thresholds(rig.chips[0])[:2] == [(40, 20), (8, 4)]


@pytest.mark.parametrize("first", [35, 60], ids=["runs past 35", "starts past 35"])
def test_set_thresholds_past_the_last_electrode_is_refused_and_changes_nothing(rig, first):
    rig.port.host_sends(wire.SetThresholds(first, ((40, 20), (40, 20))))
    assert rig.step() == [wire.Ack(wire.SetThresholds.TYPE, wire.Ack.BAD_ELECTRODE)]
    assert rig.chips[2][11].threshold == touchboard.DEFAULT_THRESHOLDS[0]
    assert rig.board.thresholds == [touchboard.DEFAULT_THRESHOLDS] * 36


def test_recalibrate_retakes_the_baseline_of_a_pad_that_drifted(rig):
    fake, pin = rig.pad(5)
    fake.set_filtered(pin, UNTOUCHED - 60)  # a damp cover: the pad reads low with nobody near
    assert rig.step() == [wire.Touch(1, 1 << 5)]
    rig.port.host_sends(wire.Recalibrate(0))
    assert rig.step() == [wire.Ack(wire.Recalibrate.TYPE, wire.Ack.OK)]
    assert rig.step() == [wire.Touch(2, 0)]
    fake.touch(pin)  # and it still senses a finger from its new level
    assert rig.step() == [wire.Touch(3, 1 << 5)]


def test_recalibrate_with_a_mask_retakes_only_the_chips_of_those_electrodes(rig):
    for electrode in (5, 17):
        fake, pin = rig.pad(electrode)
        fake.set_filtered(pin, UNTOUCHED - 60)
    rig.step()
    rig.port.host_sends(wire.Recalibrate(1 << 17))
    rig.step()
    assert rig.step() == [wire.Touch(2, 1 << 5)]


def test_recalibrate_naming_an_electrode_past_35_is_refused(rig):
    rig.port.host_sends(wire.Recalibrate(1 << 40))
    assert rig.step() == [wire.Ack(wire.Recalibrate.TYPE, wire.Ack.BAD_ELECTRODE)]


def test_reset_acks_first_and_then_restarts(rig):
    rig.port.host_sends(wire.Reset())
    assert rig.step() == [wire.Ack(wire.Reset.TYPE, wire.Ack.OK)]
    assert len(rig.resets) == 1
    assert [m for _seq, m in wire.Decoder().feed(rig.resets[0])] == [wire.Ack(wire.Reset.TYPE, wire.Ack.OK)]


def test_garbage_and_damaged_frames_from_the_host_are_ignored(rig):
    damaged = bytearray(wire.encode(wire.Ping(1), 0))
    damaged[-1] ^= 0xFF
    rig.port.incoming += b"\x00\xff\xa5\x07junk" + damaged + wire.encode(wire.Ping(2), 1)
    assert rig.step() == [wire.Pong(2)]
    assert rig.board.decoder.bad_frames >= 1


def test_board_messages_echoed_back_are_not_answered(rig):
    """A loopback (or a confused host) must not make the board talk to itself forever."""
    rig.port.host_sends(wire.Touch(1, 1), wire.Ack(0x82, 0), wire.Log("hi"))
    assert rig.step() == []


# --- readings for tuning


def readings(messages):
    return [m for m in messages if isinstance(m, wire.Readings)]


def test_a_readings_stream_sends_each_chip_once_a_period_for_its_rounds(rig):
    fake, pin = rig.pad(17)
    fake.set_filtered(pin, fake.baseline[pin] - 15)  # a finger through the card
    rig.port.host_sends(wire.StreamReadings(50, 2))
    first = rig.step()
    assert [m for m in first if isinstance(m, wire.Ack)] == [wire.Ack(wire.StreamReadings.TYPE, wire.Ack.OK)]
    rounds = [readings(first)]
    for _ in range(20):
        rounds.append(readings(rig.step(0.01)))
    when = [step for step, r in enumerate(rounds) if r]  # in 10 ms steps
    sent = [rounds[step] for step in when]
    assert len(sent) == 2 and [[m.first for m in r] for r in sent] == [[0, 12, 24]] * 2
    assert all(len(m.pads) == 12 and m.flags == 0 and m.out_of_range == 0 for r in sent for m in r)
    chip1 = sent[0][1]
    baseline = fake.baseline[pin]
    assert chip1.pads[5] == (baseline - 15, baseline)
    assert chip1.pads[0] == (UNTOUCHED, fake.baseline[0])
    assert when[0] == 0 and when[1] in (5, 6)  # the second round waited a period


def test_readings_carry_out_of_range_and_over_current(rig):
    fake = rig.fakes[2]
    fake.out_of_range = 1 << 11
    fake.status_flags = 0x80  # autoconfiguration failed
    fake.over_current = True
    rig.port.host_sends(wire.StreamReadings(20, 1))
    chip2 = readings(rig.step())[2]
    assert (chip2.first, chip2.out_of_range) == (24, 1 << 11)
    assert chip2.flags == wire.Readings.OVER_CURRENT | wire.Readings.AUTOCONFIG_FAILED


def test_a_readings_round_is_one_bus_transfer_per_chip(rig):
    rig.port.host_sends(wire.StreamReadings(20, 1))
    rig.step()  # the command arrives after this step's scan
    before = rig.i2c.transactions
    rig.step(0.25)  # a heartbeat step: 3 status reads and a probe
    assert rig.i2c.transactions - before == 3 + 1
    rig.port.host_sends(wire.StreamReadings(20, 1))
    before = rig.i2c.transactions
    rig.step(0.25)
    assert rig.i2c.transactions - before == 3 + 3 + 1


@pytest.mark.parametrize("stop", [wire.StreamReadings(0, 0), wire.GetHello()], ids=["rounds 0", "get-hello"])
def test_a_stream_is_stopped_by_rounds_0_and_by_get_hello(rig, stop):
    rig.port.host_sends(wire.StreamReadings(20, 1000))
    assert readings(rig.step())
    rig.port.host_sends(stop)
    rig.step()
    assert not any(readings(rig.step(0.05)) for _ in range(5))


def test_a_chip_that_stops_answering_mid_stream_is_logged_and_the_others_go_on(rig):
    rig.port.host_sends(wire.StreamReadings(20, 2))
    rig.step()
    rig.i2c.unplug(0x5B)
    sent = rig.step(0.02)
    assert [m.first for m in readings(sent)] == [0, 24]
    assert wire.Log("chip 0x5b not answering: electrodes 12-23 read untouched") in sent


def test_a_missing_chip_sends_no_readings():
    rig = Rig(addresses=(0x5A, 0x5B)).started()
    rig.port.host_sends(wire.StreamReadings(20, 1))
    assert [m.first for m in readings(rig.step())] == [0, 12]


# --- chip setup and trouble


def test_start_leaves_every_chip_with_the_documented_settings_and_thresholds(rig):
    for fake in rig.fakes.values():
        for name, register, value in CHIP_SETTINGS:
            assert fake.read_register(register) == value, name
        assert fake.read_register(0x5E) == ECR_RUN
        assert fake.ignored_writes == 0  # every write was made in stop mode, as the chip requires
    for chip in rig.chips:
        assert [(chip[p].threshold, chip[p].release_threshold) for p in range(12)] == [(8, 4)] * 12


def test_the_readme_settings_table_is_what_the_firmware_writes():
    readme = (FIRMWARE / "README.md").read_text()
    rows = re.findall(r"^\| (0x[0-9A-F]{2}) \| (\w+) \| (0x[0-9A-F]{2}) \|", readme, re.MULTILINE)
    documented = {(int(register, 16), name, int(value, 16)) for register, name, value in rows}
    written = {(register, name, value) for name, register, value in CHIP_SETTINGS} | {(0x5E, "ECR", ECR_RUN)}
    assert documented == written


def test_a_missing_chip_is_logged_and_the_other_24_electrodes_still_work():
    rig = Rig(addresses=(0x5A, 0x5B))
    assert rig.chips[2] is None
    rig.board.start()
    missing = [wire.Log("chip 0x5c missing: electrodes 24-35 read untouched"),
               wire.Fault(wire.Fault.NOT_ANSWERING, 0x5C, wire.CHIP_MISSING)]
    assert rig.port.received() == [HELLO, *missing]
    rig.touch(0, 23)
    assert touches(rig.step()) == [wire.Touch(1, 1 << 0 | 1 << 23)]
    rig.port.host_sends(wire.GetHello())  # a host that opened the port late still hears of it
    assert rig.step() == [HELLO, *missing]
    rig.port.host_sends(wire.SetThresholds(24, ((40, 20),)), wire.Recalibrate(1 << 30), wire.Recalibrate(0))
    assert rig.step() == [
        wire.Ack(wire.SetThresholds.TYPE, wire.Ack.BAD_ELECTRODE),
        wire.Ack(wire.Recalibrate.TYPE, wire.Ack.BAD_ELECTRODE),
        wire.Ack(wire.Recalibrate.TYPE, wire.Ack.OK),
    ]


def test_a_chip_that_stops_answering_is_logged_then_reconfigured_when_it_answers_again(rig):
    rig.port.host_sends(wire.SetThresholds(13, ((40, 20),)))
    rig.step()
    rig.touch(1, 13)
    rig.step()
    rig.i2c.unplug(0x5B)
    assert rig.step() == [
        wire.Log("chip 0x5b not answering: electrodes 12-23 read untouched"),
        wire.Fault(wire.Fault.NOT_ANSWERING, 0x5B, wire.CHIP_STOPPED),
        wire.Touch(2, 1 << 1),
    ]
    assert rig.feeds == 3 + 4  # the board keeps going, and keeps feeding the watchdog
    rig.fakes[1].power_on_reset()  # it lost power on the way: stop mode, thresholds gone
    rig.i2c.plug(0x5B)
    assert rig.step(touchboard.RETRY_S) == [
        wire.Log("chip 0x5b answering again: reconfigured"),
        wire.Fault(wire.Fault.NOT_ANSWERING, 0x5B, wire.CHIP_ANSWERS),
        wire.Touch(2, 1 << 1),  # the heartbeat that fell due meanwhile
        wire.Fault(wire.Fault.I2C_ERRORS, 0x5B, 1 + touchboard.RETRIES),  # its read and the retries, once a second
    ]
    assert rig.fakes[1].read_register(0x5E) == ECR_RUN
    assert rig.chips[1][1].threshold == 40  # the host's thresholds came back with it


MISSING_5C = wire.Fault(wire.Fault.NOT_ANSWERING, 0x5C, wire.CHIP_MISSING)


def test_a_chip_missing_at_start_is_tried_again_and_set_up_when_it_answers():
    """A loose header at power-on must not need a board restart once it is pushed home."""
    rig = Rig(addresses=(0x5A, 0x5B))
    rig.board.start()
    assert rig.port.received() == [HELLO, wire.Log("chip 0x5c missing: electrodes 24-35 read untouched"), MISSING_5C]
    rig.port.host_sends(wire.SetThresholds(30, ((40, 20),)))  # refused while it is missing
    assert rig.step() == [wire.Touch(0, 0), wire.Ack(wire.SetThresholds.TYPE, wire.Ack.BAD_ELECTRODE), MISSING_5C]
    before = rig.i2c.transactions
    assert said(rig.step(touchboard.RETRY_S)) == [MISSING_5C]  # tried again, still missing: told again
    assert rig.i2c.transactions - before == 2 + 2 + 2 * 2  # two chips' status, the missing one's probe, two checks
    fake = rig.fakes[2] = rig.i2c.attach(0x5C, FakeMPR121())
    assert rig.step(touchboard.RETRY_S / 2) == [wire.Touch(0, 0)] and rig.board.chips[2] is None  # not due yet
    assert rig.step(touchboard.RETRY_S / 2) == [wire.Log("chip 0x5c found: set up"),
                                                wire.Fault(wire.Fault.NOT_ANSWERING, 0x5C, wire.CHIP_ANSWERS),
                                                wire.Touch(0, 0)]
    assert fake.read_register(0x5E) == ECR_RUN and fake.ignored_writes == 0
    rig.touch(30)
    assert rig.step() == [wire.Touch(1, 1 << 30)]
    rig.port.host_sends(wire.SetThresholds(30, ((40, 20),)), wire.GetHello())
    assert rig.step() == [wire.Ack(wire.SetThresholds.TYPE, wire.Ack.OK), HELLO]  # no standing problem left
    assert rig.board.chips[2][6].threshold == 40


TUNED = tuple((12 + e % 4, 6) for e in range(36))  # each electrode its own, none the firmware's 8/4


def tuned(index: int) -> tuple[tuple[int, int], ...]:
    return TUNED[12 * index:12 * index + 12]


def held(fake: FakeMPR121) -> tuple[tuple[int, int], ...]:
    """The (touch, release) pairs the fake chip's registers hold."""
    return tuple((fake.read_register(0x41 + 2 * pin), fake.read_register(0x42 + 2 * pin)) for pin in range(12))


def test_set_thresholds_is_refused_whole_when_a_chip_is_missing_as_protocol_1_0_says():
    """Issue 60.1: the table sent its 36 tuned pairs in one set-thresholds, the board refused it
    whole (chip 0x5c missing), and the two chips that answer kept the firmware's 8/4. That meaning
    stays for an older host; set-chip-thresholds (below) is what a 1.4 host sends instead."""
    rig = Rig(addresses=(0x5A, 0x5B))
    rig.board.start()
    rig.port.received()
    rig.port.host_sends(wire.SetThresholds(0, TUNED))
    assert said(rig.step() + rig.step()) == [MISSING_5C, wire.Ack(wire.SetThresholds.TYPE, wire.Ack.BAD_ELECTRODE)]
    assert held(rig.fakes[0]) == ((8, 4),) * 12


def test_each_chip_takes_its_own_thresholds_and_a_missing_one_takes_its_own_when_it_answers():
    """Issue 60.1: thresholds per chip. The chips that answer take theirs at once; the board keeps
    the missing chip's (acked KEPT) and sets it up with them when it answers, through the same
    set-up as a chip found at start; a 1.4 host is told what each chip holds, read back."""
    rig = Rig(addresses=(0x5A, 0x5B))
    rig.board.start()
    rig.port.received()
    rig.port.host_sends(*[wire.SetChipThresholds(a, tuned(n)) for n, a in enumerate(ADDRESSES)])
    assert said(rig.step() + rig.step()) == [
        wire.Thresholds(0x5A, tuned(0)), wire.Ack(wire.SetChipThresholds.TYPE, wire.Ack.OK),
        wire.Thresholds(0x5B, tuned(1)), wire.Ack(wire.SetChipThresholds.TYPE, wire.Ack.OK),
        MISSING_5C, wire.Ack(wire.SetChipThresholds.TYPE, wire.Ack.KEPT)]  # the third frame read in the next step
    assert [held(rig.fakes[n]) for n in (0, 1)] == [tuned(0), tuned(1)]
    fake = rig.fakes[2] = rig.i2c.attach(0x5C, FakeMPR121())  # the joint makes contact
    assert said(rig.step(touchboard.RETRY_S)) == [wire.Thresholds(0x5C, tuned(2)), wire.Log("chip 0x5c found: set up"),
                                                  wire.Fault(wire.Fault.NOT_ANSWERING, 0x5C, wire.CHIP_ANSWERS)]
    assert held(fake) == tuned(2)  # its own pairs, written with the rest of its set-up
    rig.i2c.unplug(0x5C)
    rig.step()
    fake.power_on_reset()  # it lost power on the way: 0/0 everywhere
    rig.i2c.plug(0x5C)
    assert wire.Thresholds(0x5C, tuned(2)) in rig.step(touchboard.RETRY_S) and held(fake) == tuned(2)
    fake.power_on_reset()  # a brown-out, found by the probe within three steps
    told = rig.step() + rig.step() + rig.step()
    assert wire.Thresholds(0x5C, tuned(2)) in told and held(fake) == tuned(2)


def test_set_chip_thresholds_a_chip_already_holds_does_not_restart_it():
    """A host that connects again sends every chip's pairs again: a chip holding them already is
    not stopped and started, which would re-take its baselines and lose a finger held on a pad."""
    rig = Rig().started()
    rig.port.host_sends(wire.SetChipThresholds(0x5A, tuned(0)))
    rig.step()
    restarts = rig.fakes[0].restarts
    rig.touch(3)
    rig.port.host_sends(wire.SetChipThresholds(0x5A, tuned(0)))
    told = rig.step()
    assert wire.Ack(wire.SetChipThresholds.TYPE, wire.Ack.OK) in told and rig.fakes[0].restarts == restarts
    assert touches(rig.step(0.25))[-1].mask == 1 << 3


def test_set_chip_thresholds_names_a_chip_of_the_board_and_older_hosts_get_no_thresholds_reports():
    rig = Rig().started()
    rig.port.host_sends(wire.SetChipThresholds(0x5D, tuned(0)))
    assert rig.step() == [wire.Ack(wire.SetChipThresholds.TYPE, wire.Ack.BAD_ELECTRODE)]
    rig.port.host_sends(wire.GetHello(), wire.SetThresholds(0, TUNED))  # a 1.3 host: it would drop a report as damaged
    assert said(rig.step() + rig.step()) == [HELLO, wire.Ack(wire.SetThresholds.TYPE, wire.Ack.OK)]
    rig.fakes[1].power_on_reset()
    assert [type(m) for m in said(rig.step() + rig.step() + rig.step())] == [wire.Fault]


def test_a_chip_that_does_not_hold_its_thresholds_is_reported_with_what_it_holds():
    rig = Rig(addresses=(0x5A, 0x5B))
    rig.board.start()
    rig.fakes[2] = rig.i2c.attach(0x5C, FakeMPR121(burst_writes=False))  # its pointer stays put on writes
    rig.port.host_sends(wire.SetChipThresholds(0x5C, tuned(2)))
    assert wire.Ack(wire.SetChipThresholds.TYPE, wire.Ack.KEPT) in rig.step()
    report = next(m for m in rig.step(touchboard.RETRY_S) if isinstance(m, wire.Thresholds))
    assert report.chip == 0x5C and report.pairs == held(rig.fakes[2]) != tuned(2)


def test_without_a_way_to_connect_a_missing_chip_stays_missing():
    rig = Rig(addresses=(0x5A, 0x5B))
    rig.board.connect = None  # the board emulator's chips are all there from the start
    rig.board.start()
    rig.i2c.attach(0x5C, FakeMPR121())
    rig.step(touchboard.RETRY_S)
    assert rig.board.chips[2] is None and rig.step(touchboard.RETRY_S) == [wire.Touch(0, 0), MISSING_5C]


def test_a_host_that_is_not_listening_gets_no_writes_and_stalls_nothing(rig):
    rig.port.connected = False
    writes = rig.port.writes
    rig.touch(2)
    for _ in range(40):
        rig.step()
    assert rig.port.writes == writes
    assert rig.board.counter == 1
    rig.port.connected = True
    assert touches(rig.step(0.25)) == [wire.Touch(1, 1 << 2)]


def test_a_port_that_raises_on_write_or_read_is_survived(rig):
    rig.port.broken = True
    seq = rig.board.seq
    rig.touch(2)
    rig.step()
    rig.step(0.25)
    assert rig.board.frames_dropped == 2
    assert rig.board.seq == seq  # a frame that never left does not use up a sequence number
    assert rig.feeds == 3 + 3


def test_a_frame_the_port_takes_only_in_part_is_finished_before_any_other_and_counted_once_out(rig):
    """With write_timeout 0 a full USB buffer takes part of a frame: the rest goes first, later,
    and nothing is cut into it."""
    sent, dropped = rig.board.frames_sent, rig.board.frames_dropped
    rig.port.room = 5
    rig.touch(2)
    rig.port.host_sends(wire.Ping(1))
    assert rig.step() == []  # 5 bytes of the touch report went; the pong found no room
    assert (rig.board.frames_sent, rig.board.frames_dropped) == (sent, dropped + 1)
    rig.port.room = 3
    rig.release(2)
    assert rig.step() == []  # 3 more bytes of the first report; the second is dropped, not cut in
    rig.port.room = None
    assert rig.step() == [wire.Touch(1, 1 << 2)]  # the tail, at the start of the next step
    assert (rig.board.frames_sent, rig.board.frames_dropped) == (sent + 1, dropped + 2)
    assert rig.step(0.25) == [wire.Touch(2, 0)]  # the heartbeat says the state it missed
    assert rig.port.bad_frames == 0


def test_a_frame_the_port_takes_none_of_is_dropped_and_uses_no_sequence_number(rig):
    seq = rig.board.seq
    rig.port.room = 0
    rig.touch(2)
    rig.step()
    assert rig.board.seq == seq and rig.board.frames_dropped == 1
    rig.port.room = None
    rig.clock.advance(0.25)
    rig.board.step()
    assert [s for s, _m in wire.Decoder().feed(bytes(rig.port.written))] == [seq]


def test_a_host_that_closes_the_port_mid_frame_gets_no_tail_later(rig):
    rig.port.room = 4
    rig.touch(2)
    rig.step()
    rig.port.connected = False
    rig.step()
    rig.port.room, rig.port.connected = None, True
    rig.port.written.clear()  # a new host opens the port: it reads from here on
    rig.clock.advance(0.25)
    rig.board.step()
    host = wire.Decoder()
    assert [m for _s, m in host.feed(bytes(rig.port.written))] == [wire.Touch(1, 1 << 2)] and host.bad_frames == 0
    assert rig.board.frames_dropped == 1  # the frame cut by the closing


def test_the_watchdog_is_fed_once_per_step_and_once_per_chip_set_up_at_start():
    rig = Rig(addresses=(0x5A, 0x5B))
    rig.board.start()
    assert rig.feeds == 2
    for _ in range(5):
        rig.step()
    assert rig.feeds == 7


def test_an_idle_scan_is_three_touch_status_reads_and_a_probe_and_each_chip_is_checked_once_a_second(rig):
    """At 100 kHz a status read is ~48 clocks (480 us) and the probe of one chip's ECR ~39: 4 per
    step leave room for >= 100 Hz. Once a second, in place of the probe, each chip's mode and
    configuration (3 bytes) and its out-of-range status (2) are read."""
    for electrodes in ((), (4,), ()):  # idle, a change, a heartbeat
        rig.touch(*electrodes)
        before = rig.i2c.transactions
        rig.step(0.25)
        assert rig.i2c.transactions - before == 3 + 1
    before = rig.i2c.transactions
    rig.step(0.25)  # a second since the check at the first step
    assert rig.i2c.transactions - before == 3 + 3 * 2


# --- what a café's electricity does: a chip reset, a transfer failing, SDA held low


def registers(fake: FakeMPR121) -> dict[str, int]:
    """The settings a chip holds, by name, as CHIP_SETTINGS names them, with ECR."""
    return {name: fake.read_register(register) for name, register, _value in CHIP_SETTINGS} | {
        "ECR": fake.read_register(0x5E)}


SET_UP = {name: value for name, _register, value in CHIP_SETTINGS} | {"ECR": ECR_RUN}


def test_a_chip_a_brown_out_reset_is_set_up_again_with_the_host_s_thresholds_and_told(rig):
    """Its status reads 0 in stop mode, as an untouched table does: the probe of its ECR finds it
    within three steps, and the check each second reads its whole configuration."""
    rig.port.host_sends(wire.SetThresholds(12, ((40, 20),) * 12))
    rig.step()
    rig.fakes[1].power_on_reset()
    assert said(rig.step()) + said(rig.step()) + said(rig.step()) == [wire.Fault(wire.Fault.RESET, 0x5B, 1)]
    assert registers(rig.fakes[1]) == SET_UP and rig.chips[1][1].threshold == 40  # the host's thresholds too
    rig.touch(13)
    assert rig.step() == [wire.Touch(1, 1 << 13)]
    rig.fakes[1].power_on_reset()
    assert said(rig.step(1.0)) == [wire.Fault(wire.Fault.RESET, 0x5B, 2)]  # the check; counted since the board started


@pytest.mark.parametrize("command", [wire.Recalibrate(1 << 12), wire.SetThresholds(12, ((30, 15),))])
def test_a_command_to_a_chip_a_brown_out_reset_sets_it_up_whole_first(rig, command):
    """Starting a reset chip runs it on its defaults (thresholds 0/0, ESI 16 ms, no
    autoconfiguration): a recalibrate or set-thresholds before the check finds it sets it up whole."""
    rig.fakes[1].power_on_reset()
    rig.port.host_sends(command)
    assert rig.step() == [wire.Fault(wire.Fault.RESET, 0x5B, 1), wire.Ack(command.TYPE, wire.Ack.OK)]
    assert registers(rig.fakes[1]) == SET_UP
    assert rig.chips[1][0].threshold == (30 if isinstance(command, wire.SetThresholds) else 8)


def test_an_out_of_range_status_sets_the_chip_up_again_once_and_is_told_after_each_hello(rig):
    fake = rig.fakes[0]
    fake.out_of_range, fake.status_flags = 1 << 4, 0x80  # electrode 4 out of range, autoconfiguration failed
    restarts = fake.restarts
    assert said(rig.step(1.0)) == [wire.Fault(wire.Fault.OUT_OF_RANGE, 0x5A, 0x8010)]
    assert fake.restarts == restarts + 1 and registers(fake) == SET_UP
    assert said(rig.step(1.0)) == []  # still so after the set-up: the pad's own fault, not set up again and again
    assert fake.restarts == restarts + 1
    rig.port.host_sends(wire.GetHello())
    assert rig.step() == [HELLO, wire.Fault(wire.Fault.OUT_OF_RANGE, 0x5A, 0x8010)]
    fake.out_of_range = fake.status_flags = 0
    rig.step(1.0)
    fake.status_flags = 0x40  # auto-reconfiguration failed, later: set up again
    assert said(rig.step(1.0)) == [wire.Fault(wire.Fault.OUT_OF_RANGE, 0x5A, 0x4000)] and fake.restarts == restarts + 2


def test_a_failed_transfer_is_tried_again_at_once_and_a_held_finger_is_kept(rig):
    rig.touch(3)
    assert rig.step() == [wire.Touch(1, 1 << 3)]
    restarts = rig.fakes[0].restarts
    rig.i2c.fail_next(touchboard.RETRIES)
    assert rig.step(0.25) == [wire.Touch(1, 1 << 3)]  # the last try read it: no chip lost, the heartbeat
    assert rig.fakes[0].restarts == restarts  # not set up again: the finger's baseline stands
    assert said(rig.step(0.75)) == [wire.Fault(wire.Fault.I2C_ERRORS, 0x5A, touchboard.RETRIES)]
    assert said(rig.step(1.0)) == []  # told once: nothing failed since


@pytest.mark.parametrize("burst_ms", [2, 3, 6])
def test_a_burst_of_failed_transfers_a_few_ms_long_is_ridden_out_and_a_held_finger_kept(rig, burst_ms):
    """Issue 51.2: a burst of disturbance fails every transfer for a few ms (4 or more back to
    back at 100 kHz). The retries are spread out (RETRY_PAUSES_S), so the last comes after the
    burst: no chip is lost, nothing is set up again, and the finger held through it stays a touch."""
    rig.touch(3, 15)
    assert touches(rig.step()) == [wire.Touch(1, 1 << 3 | 1 << 15)]
    restarts = [fake.restarts for fake in rig.fakes.values()]
    rig.clock.advance(0.25)
    rig.i2c.fail_for(burst_ms / 1000)  # from the step's start
    assert rig.step(0) == [wire.Touch(1, 1 << 3 | 1 << 15)]  # the heartbeat: the same fingers
    assert [fake.restarts for fake in rig.fakes.values()] == restarts
    told = said(rig.step(0.75))
    assert [m.kind for m in told] == [wire.Fault.I2C_ERRORS] and told[0].chip == 0x5A  # each failure told, no chip lost


def test_the_pauses_between_retries_stay_far_under_a_step_and_the_watchdog(rig):
    """The spread costs a chip that is really gone 7 ms once a second: the step stays far under
    the watchdog's 2 s, and a lost chip's first step is the only slow one."""
    assert len(touchboard.RETRY_PAUSES_S) == touchboard.RETRIES
    assert sum(touchboard.RETRY_PAUSES_S) <= 0.008
    rig.i2c.unplug(0x5B)
    before = rig.clock()
    rig.step(0)
    assert rig.clock() - before == pytest.approx(sum(touchboard.RETRY_PAUSES_S))
    before = rig.clock()
    rig.step(0)
    assert rig.clock() == before  # lost: not tried again until RETRY_S


def test_a_chip_a_brown_out_reset_is_found_within_a_step_per_chip_not_a_second(rig):
    """Issue 51.3: a reset chip reads 0 for its touch status, as an untouched one does. Each step
    reads one chip's ECR in turn (one byte): a chip out of run mode is checked and set up again
    at once, so its pads are deaf for three steps at most, not up to the once-a-second check."""
    rig.touch(14)
    rig.step()
    rig.fakes[1].power_on_reset()
    told = []
    for _ in touchboard.ADDRESSES:
        told += said(rig.step())
    assert told == [wire.Fault(wire.Fault.RESET, 0x5B, 1)]
    assert registers(rig.fakes[1]) == SET_UP
    rig.fakes[1].touch(2)  # its baseline re-taken: a finger counts again
    assert touches(rig.step(0.25))[-1].mask == 1 << 14


def test_a_chip_that_will_not_stay_running_is_set_up_again_once_a_second_not_each_step(rig):
    """An over-current stops a chip by itself: the probe finds it stopped at every turn, but sets it
    up again at most once a CHECK_S, as the check did: ~25 transfers, not a flood."""
    fake = rig.fakes[2]
    fake.power_on_reset()
    for _ in touchboard.ADDRESSES:
        rig.step()
    once = fake.restarts
    assert registers(fake) == SET_UP
    for _ in range(20):
        fake.write_register(0x5E, 0)  # it stops again
        rig.step()
    assert fake.restarts == once
    rig.step(touchboard.CHECK_S)
    assert fake.restarts > once and registers(fake) == SET_UP


def test_only_a_chip_that_fails_every_try_is_lost(rig):
    rig.i2c.fail_next(1 + touchboard.RETRIES)
    assert rig.step() == [wire.Log("chip 0x5a not answering: electrodes 0-11 read untouched"),
                          wire.Fault(wire.Fault.NOT_ANSWERING, 0x5A, wire.CHIP_STOPPED)]
    assert rig.step(1.0) == [wire.Log("chip 0x5a answering again: reconfigured"),
                             wire.Fault(wire.Fault.NOT_ANSWERING, 0x5A, wire.CHIP_ANSWERS), wire.Touch(0, 0),
                             wire.Fault(wire.Fault.I2C_ERRORS, 0x5A, 1 + touchboard.RETRIES)]


@pytest.mark.parametrize("held, clocks", [(0, 0), (1, 1), (7, 7), (9, 9), (10, None)])
def test_a_bus_clear_clocks_scl_until_sda_is_let_go_then_sends_a_stop(held, clocks):
    """NXP UM10204 3.1.16: up to nine clocks, then a STOP; none where SDA is free, and no STOP
    where nine did not free it."""
    i2c = FakeI2C()
    i2c.hold_sda(held)
    i2c.deinit()
    assert touchboard.clock_out(i2c.line("SCL"), i2c.line("SDA"), pause=lambda seconds: None) == clocks
    assert i2c.clocks == (0 if not held else min(held, 9) + (clocks is not None))  # the STOP lifts SCL once more
    assert i2c.stops == (1 if held and clocks else 0) and i2c.level("SDA") == (clocks is not None)


def test_a_chip_holding_sda_is_freed_and_no_chip_is_lost():
    rig = Rig(clearable=True).started()
    rig.touch(3, 30)
    rig.step()
    restarts = [fake.restarts for fake in rig.fakes.values()]
    rig.i2c.hold_sda(7)
    assert rig.step(0.25) == [wire.Fault(wire.Fault.BUS_HELD, 0, 7), wire.Touch(1, 1 << 3 | 1 << 30)]
    assert [fake.restarts for fake in rig.fakes.values()] == restarts  # the held fingers are kept
    assert rig.i2c.stops == 1 and not rig.i2c.deinited
    assert rig.step(0.75)[-3:] == [wire.Fault(wire.Fault.I2C_ERRORS, a, 1 + touchboard.RETRIES) for a in ADDRESSES]


def test_a_bus_held_through_nine_clocks_is_told_once_and_cleared_again_each_second():
    rig = Rig(clearable=True).started()
    rig.i2c.hold_sda(20)  # nine, nine, and two more
    lost = [frame for n, a in enumerate(ADDRESSES)
            for frame in (wire.Log(f"chip 0x{a:02x} not answering: electrodes {12 * n}-{12 * n + 11} read untouched"),
                          wire.Fault(wire.Fault.NOT_ANSWERING, a, wire.CHIP_STOPPED))]
    assert rig.step() == [wire.Fault(wire.Fault.BUS_HELD, 0, 0), *lost]
    assert wire.Fault(wire.Fault.BUS_HELD, 0, 0) not in rig.step(touchboard.RETRY_S)  # held still: said once
    found = rig.step(touchboard.RETRY_S)
    assert found[0] == wire.Fault(wire.Fault.BUS_HELD, 0, 2)
    assert found[1:7] == [frame for a in ADDRESSES for frame in (
        wire.Log(f"chip 0x{a:02x} answering again: reconfigured"),
        wire.Fault(wire.Fault.NOT_ANSWERING, a, wire.CHIP_ANSWERS))]
    assert rig.i2c.stops == 1


WATCHDOG_S = 2.0  # code.py's (test_code_py_wires_the_pico_pins_watchdog_port_and_board holds it)


def test_a_chip_holding_scl_costs_a_step_one_transfer_s_wait_not_the_watchdog():
    """Issue 60.4: CircuitPython's RP2040 busio waits 1 s before it gives up a transfer on a held
    SCL, so a transfer and its three retries (or three chips) would outlast the 2 s watchdog and
    restart the board. The first transfer that times out gives the bus up: every step stays under
    the watchdog, the chips are told not answering, and found again once SCL is let go."""
    rig = Rig(clearable=True).started()
    rig.touch(3)
    rig.step()
    rig.i2c.hold_scl()
    told = []
    for _ in range(8):
        before = rig.clock()
        told += rig.step(touchboard.RETRY_S / 4)
        waited = rig.clock() - before - touchboard.RETRY_S / 4
        assert waited <= rig.i2c.timeout_s + 3 * sum(touchboard.RETRY_PAUSES_S) < WATCHDOG_S  # one wait at most
    assert [m for m in told if isinstance(m, wire.Fault)][:3] == [
        wire.Fault(wire.Fault.NOT_ANSWERING, a, wire.CHIP_STOPPED) for a in ADDRESSES]
    assert rig.bus.i2c is None and "No pull up" in rig.bus.problem  # not made again at a clear: SCL reads low
    rig.i2c.release_scl()
    assert found_again(rig.step(touchboard.RETRY_S)) == list(ADDRESSES)
    rig.release(3)  # its set-up re-took the baselines under the finger: lifted and put down again
    rig.step()
    rig.touch(3)
    assert touches(rig.step())[-1].mask == 1 << 3


def test_a_held_scl_while_a_missing_chip_is_probed_costs_one_wait_not_the_watchdog():
    """Issue 78.6: the driver finds a chip by a zero-byte write, which CircuitPython's RP2040 port
    sends through bitbangio (its hardware cannot): on a held SCL that waits a whole second and
    fails EIO, not ETIMEDOUT, so the bus was not given up, and the driver's follow-up read waited
    another second: over the 2 s watchdog. The fake bus does as bitbangio does; the board probes
    by a one-byte read the hardware bounds."""
    rig = Rig(addresses=ADDRESSES[1:], clearable=True).started()  # 0x5a missing: tried again each RETRY_S
    rig.i2c.attach(0x5A, FakeMPR121())  # its header pushed home, as a chip holds SCL
    rig.i2c.hold_scl()
    for _ in range(3):
        before = rig.clock()
        rig.step(touchboard.RETRY_S)
        waited = rig.clock() - before - touchboard.RETRY_S
        assert waited <= rig.i2c.timeout_s + 3 * sum(touchboard.RETRY_PAUSES_S) < WATCHDOG_S
    rig.i2c.release_scl()
    assert found_again(rig.step(touchboard.RETRY_S)) == list(ADDRESSES)


def test_the_fake_bus_sends_a_zero_byte_write_as_bitbangio_does():
    """CircuitPython's RP2040 busio hands a zero-byte write to bitbangio: on a held SCL it waits
    the bus's timeout and fails EIO; every other transfer times out with ETIMEDOUT."""
    waits = []
    i2c = FakeI2C(wait=waits.append)
    i2c.attach(0x5A, FakeMPR121())
    i2c.hold_scl()
    assert i2c.try_lock()
    with pytest.raises(OSError) as probe:
        i2c.writeto(0x5A, b"")
    with pytest.raises(OSError) as read:
        i2c.readfrom_into(0x5A, bytearray(1))
    assert (probe.value.errno, read.value.errno, waits) == (errno.EIO, errno.ETIMEDOUT, [1.0, 1.0])


def found_again(messages):
    return [m.chip for m in messages if isinstance(m, wire.Fault) and (m.kind, m.count) == (wire.Fault.NOT_ANSWERING, wire.CHIP_ANSWERS)]


def test_a_bus_held_at_power_on_is_cleared_and_the_chips_found():
    """CircuitPython will not make a bus whose line reads low: the board starts with none, and its
    first step clears it."""
    rig = Rig(clearable=True, hold_sda=4)
    assert rig.bus.i2c is None and "No pull up" in rig.bus.problem and rig.chips == [None, None, None]
    rig.board.start()
    assert rig.port.received()[1:] == [frame for n, a in enumerate(ADDRESSES) for frame in (
        wire.Log(f"chip 0x{a:02x} missing: electrodes {12 * n}-{12 * n + 11} read untouched"),
        wire.Fault(wire.Fault.NOT_ANSWERING, a, wire.CHIP_MISSING))]
    assert rig.step()[:7] == [wire.Fault(wire.Fault.BUS_HELD, 0, 4), *found(ADDRESSES)]
    assert all(registers(fake) == SET_UP for fake in rig.fakes.values())


def test_a_board_whose_chips_are_all_missing_makes_its_bus_again_each_second():
    """No pull-ups at power-on (the I2C cable out): once it is plugged in, the chips are found."""
    rig = Rig(clearable=True)
    rig.i2c.pull_ups = False
    assert rig.bus.clear() == 0 and rig.bus.i2c is None  # nothing held: nothing told
    rig.board.chips = [None, None, None]
    rig.board.start()
    rig.port.received()
    rig.i2c.pull_ups = True
    assert rig.step(touchboard.RETRY_S)[:6] == found(ADDRESSES)


def found(addresses):
    """What the board says of chips missing at start once they answer: a log and the fault's end, each."""
    return [frame for a in addresses for frame in (
        wire.Log(f"chip 0x{a:02x} found: set up"), wire.Fault(wire.Fault.NOT_ANSWERING, a, wire.CHIP_ANSWERS))]


def test_a_bus_that_is_not_there_fails_each_transfer_as_a_missing_chip_does():
    rig = Rig(clearable=True, hold_sda=9)
    with pytest.raises(OSError, match="no I2C bus: No pull up found"):
        rig.bus.writeto(0x5A, b"")
    assert rig.bus.try_lock() and touchboard.connect_chip(rig.bus, adafruit_mpr121.MPR121, 0x5A) is None


# --- the fake chip itself (the board emulator relies on it too)


def test_the_fake_chip_comes_out_of_soft_reset_with_the_datasheet_defaults():
    fake = FakeMPR121()
    fake.registers[0x41] = 9
    fake.write_register(0x5E, 0x8F)
    fake.write_register(0x80, 0x63)
    assert [fake.read_register(r) for r in (0x5C, 0x5D, 0x5E, 0x41)] == [0x10, 0x24, 0x00, 0x00]


def test_the_fake_chip_ignores_writes_in_run_mode_and_keeps_hysteresis():
    i2c = FakeI2C()
    fake = i2c.attach(0x5A, FakeMPR121())
    chip = adafruit_mpr121.MPR121(i2c, 0x5A)  # leaves it running, thresholds 12/6
    fake.i2c_write(bytes([0x41, 99]))  # a raw write while running
    assert fake.read_register(0x41) == 12 and fake.ignored_writes == 1
    base = chip.baseline_data(0)
    for level, touched in ((base - 13, True), (base - 8, True), (base - 5, False), (base - 8, False)):
        fake.set_filtered(0, level)
        assert chip.touched() & 1 == touched, level


def test_the_fake_chip_loads_the_baseline_as_the_calibration_lock_bits_say():
    fake = FakeMPR121()
    fake.set_filtered(0, 0x2BF)
    fake.write_register(0x5E, 0x8C)  # CL 0b10: the top 5 bits
    assert fake.baseline[0] == 0x2A0
    fake.write_register(0x5E, 0x00)
    fake.write_register(0x5E, 0xCC)  # CL 0b11: all 10 bits
    assert fake.baseline[0] == 0x2BF
    fake.write_register(0x5E, 0x00)
    fake.i2c_write(bytes([0x1E, 0x40]))  # in stop mode the baseline register can be written
    fake.write_register(0x5E, 0x0C)  # CL 0b00: run from the baseline registers as they are
    assert fake.baseline[0] == 0x100


def test_the_fake_chip_auto_increments_through_data_and_baseline():
    fake = FakeMPR121()
    fake.set_filtered(1, 0x2BF)
    fake.write_register(0x5E, 0xCC)
    fake.i2c_write(bytes([0x06]))  # electrode 1's data, low byte first
    assert fake.i2c_read(2) == b"\xbf\x02"
    fake.i2c_write(bytes([0x1E]))
    assert fake.i2c_read(2) == bytes([UNTOUCHED >> 2, 0x2BF >> 2])


def test_the_fake_bus_behaves_like_busio_for_missing_devices_and_the_lock():
    i2c = FakeI2C({0x5A: FakeMPR121()})
    with pytest.raises(RuntimeError):
        i2c.writeto(0x5A, b"\x00")
    assert i2c.try_lock() and not i2c.try_lock()
    with pytest.raises(OSError) as missing:
        i2c.writeto(0x5B, b"\x00")
    assert missing.value.errno == errno.ENODEV and i2c.scan() == [0x5A]
    i2c.unlock()
    assert touchboard.connect_chips(i2c, adafruit_mpr121.MPR121)[1:] == [None, None]


# --- code.py and boot.py with stand-ins for the CircuitPython modules


class Stop(Exception):
    """Ends code.py's endless loop from a stand-in module."""


def run_code_py(monkeypatch, host_sends=(), hold_sda=0, steps=3):
    i2c = FakeI2C()
    for address in ADDRESSES:
        i2c.attach(address, FakeMPR121())
    i2c.hold_sda(hold_sda)
    port = FakePort()
    port.host_sends(*host_sends)
    calls = []
    ticks = [0]

    def sleep(seconds):
        calls.append(("sleep", seconds))
        ticks[0] += 5
        if [c[0] for c in calls].count("sleep") == steps:
            raise Stop

    def make_i2c(scl, sda, frequency):
        calls.append(("I2C", scl, sda, frequency))
        return i2c.reopen()

    def make_pin(pin):
        calls.append(("pin", pin))
        return i2c.line({"GP4": "SDA", "GP5": "SCL"}[pin])

    def reset():
        calls.append(("reset", bytes(port.written)))
        raise Stop

    watchdog = SimpleNamespace(timeout=None, mode=None, feed=lambda: calls.append(("feed",)))
    stand_ins = {
        "board": SimpleNamespace(GP4="GP4", GP5="GP5"),
        "busio": SimpleNamespace(I2C=make_i2c),
        "digitalio": SimpleNamespace(DigitalInOut=make_pin),
        "microcontroller": SimpleNamespace(
            watchdog=watchdog, reset=reset,
            cpu=SimpleNamespace(uid=bytearray.fromhex("e6614103e7000001"),
                                reset_reason="microcontroller.ResetReason.WATCHDOG"),
        ),
        "supervisor": SimpleNamespace(ticks_ms=lambda: ticks[0]),
        "usb_cdc": SimpleNamespace(data=port),
        "watchdog": SimpleNamespace(WatchDogMode=SimpleNamespace(RESET="RESET")),
        "time": SimpleNamespace(sleep=sleep),
        "touchboard": touchboard,
    }
    for name, module in stand_ins.items():
        monkeypatch.setitem(sys.modules, name, module)
    with pytest.raises(Stop):
        runpy.run_path(str(FIRMWARE / "code.py"))
    return calls, port, watchdog, i2c


def test_code_py_wires_the_pico_pins_watchdog_port_and_board(monkeypatch):
    calls, port, watchdog, _i2c = run_code_py(monkeypatch)
    assert calls[0] == ("I2C", "GP5", "GP4", 100_000)  # the bus's capacitance puts 400 kHz's rise time out of reach
    assert (watchdog.mode, watchdog.timeout) == ("RESET", 2.0)
    assert (port.timeout, port.write_timeout) == (0, 0)
    assert [c[0] for c in calls[1:]] == ["feed"] * 3 + ["feed", "sleep"] * 3  # 3 chips set up, 3 steps
    assert port.received() == [
        wire.Hello((wire.PROTOCOL_MAJOR, wire.PROTOCOL_MINOR), touchboard.FIRMWARE_VERSION, "e6614103e7000001", 36),
        wire.Log("restart cause: WATCHDOG"),
        wire.Touch(0, 0),
    ]


def test_code_py_restarts_the_board_after_the_reset_ack_has_had_time_to_leave(monkeypatch):
    calls, _port, _watchdog, _i2c = run_code_py(monkeypatch, host_sends=[wire.Reset()])
    assert calls[-2][0] == "sleep" and calls[-1][0] == "reset"
    sent = [message for _seq, message in wire.Decoder().feed(calls[-1][1])]
    assert sent[-1] == wire.Ack(wire.Reset.TYPE, wire.Ack.OK)


def test_code_py_clears_a_bus_held_at_power_on_on_the_i2c_pins(monkeypatch, capsys):
    """CircuitPython refuses to make a bus whose SDA reads low: code.py starts without one, and the
    first step clocks SCL (GP5) until SDA (GP4) is let go, sends a STOP and makes the bus again."""
    calls, port, _watchdog, i2c = run_code_py(monkeypatch, hold_sda=3, steps=1)
    assert "I2C: No pull up found on SDA or SCL" in capsys.readouterr().out
    assert [c for c in calls if c[0] in ("I2C", "pin")] == [("I2C", "GP5", "GP4", 100_000), ("pin", "GP5"),
                                                            ("pin", "GP4"), ("I2C", "GP5", "GP4", 100_000)]
    assert (i2c.clocks, i2c.stops, i2c.deinited) == (3 + 1, 1, False)
    sent = port.received()
    assert wire.Fault(wire.Fault.BUS_HELD, 0, 3) in sent
    assert [m.text for m in sent if isinstance(m, wire.Log)][-3:] == [f"chip 0x{a:02x} found: set up" for a in ADDRESSES]


def run_boot_py(monkeypatch, grounded: bool, runtime: bool = True) -> list:
    """boot.py with stand-ins: the maintenance pin reads low when ``grounded``; ``runtime``
    False is a CircuitPython before 8, with supervisor.disable_autoreload() only."""
    calls: list = []

    class Pin:
        def __init__(self, pin) -> None:
            calls.append(("pin", pin))

        def switch_to_input(self, pull=None) -> None:
            calls.append(("pull", pull))

        @property
        def value(self) -> bool:
            return not grounded

        def deinit(self) -> None:
            calls.append(("deinit",))

    supervisor = SimpleNamespace(disable_autoreload=lambda: calls.append(("autoreload", False)))
    if runtime:
        supervisor = SimpleNamespace(runtime=SimpleNamespace(autoreload=True))
    stand_ins = {
        "usb_cdc": SimpleNamespace(enable=lambda **kw: calls.append(("usb_cdc", kw))),
        "board": SimpleNamespace(GP22="GP22"),
        "digitalio": SimpleNamespace(DigitalInOut=Pin, Pull=SimpleNamespace(UP="UP")),
        "storage": SimpleNamespace(disable_usb_drive=lambda: calls.append(("drive", False))),
        "supervisor": supervisor,
    }
    for name, module in stand_ins.items():
        monkeypatch.setitem(sys.modules, name, module)
    runpy.run_path(str(FIRMWARE / "boot.py"))
    if runtime:
        calls.append(("autoreload", supervisor.runtime.autoreload))
    return calls


def test_in_service_boot_py_opens_the_data_port_alone_without_the_console(monkeypatch):
    """Issue 60.4: a Ctrl-C on the console raises KeyboardInterrupt in code.py, which disarms the
    watchdog: in service there is no console to type it on."""
    calls = run_boot_py(monkeypatch, grounded=False)
    assert ("usb_cdc", {"console": False, "data": True}) in calls
    assert calls.index(("deinit",)) < calls.index(("usb_cdc", {"console": False, "data": True}))  # the pin read first


@pytest.mark.parametrize("runtime", [True, False], ids=["CircuitPython 8+", "older"])
def test_in_service_boot_py_hides_the_drive_and_turns_auto_reload_off(monkeypatch, runtime):
    """A host write to CIRCUITPY would reload code.py and with it disarm the watchdog."""
    calls = run_boot_py(monkeypatch, grounded=False, runtime=runtime)
    assert ("pin", "GP22") in calls and ("pull", "UP") in calls and ("deinit",) in calls
    assert ("drive", False) in calls and ("autoreload", False) in calls


@pytest.mark.parametrize("runtime", [True, False], ids=["CircuitPython 8+", "older"])
def test_the_maintenance_pin_grounded_at_boot_keeps_the_drive_and_auto_reload(monkeypatch, runtime):
    calls = run_boot_py(monkeypatch, grounded=True, runtime=runtime)
    assert ("drive", False) not in calls and ("autoreload", False) not in calls
    assert ("usb_cdc", {"console": True, "data": True}) in calls  # the console, for maintenance only


# --- deploy.py


@pytest.fixture
def drive(tmp_path) -> Path:
    (tmp_path / "boot_out.txt").write_text("Adafruit CircuitPython 9.2.1; Raspberry Pi Pico with rp2040\n")
    return tmp_path


def no_circup(name):
    return None


def test_deploy_dry_run_lists_every_file_and_the_circup_command_and_copies_nothing(drive, capsys):
    assert deploy.deploy(drive, dry_run=True, which=no_circup) == 0
    out = capsys.readouterr().out
    assert f"circup --path {drive} install adafruit_mpr121" in out
    for target in ("lib/pi_table/__init__.py", "lib/pi_table/protocol/__init__.py", "lib/pi_table/protocol/wire.py",
                   "touchboard.py", "boot.py", "code.py"):
        assert f"would copy {FIRMWARE.parent}" in out and f"-> {drive / target}" in out
    assert sorted(p.name for p in drive.iterdir()) == ["boot_out.txt"]


def test_deploy_copies_the_firmware_and_protocol_and_runs_circup(drive, capsys):
    ran = []
    result = deploy.deploy(drive, which=lambda name: "/usr/bin/circup",
                           run=lambda command: ran.append(command) or SimpleNamespace(returncode=0))
    assert result == 0
    assert ran == [["circup", "--path", str(drive), "install", "adafruit_mpr121"]]
    for source, target in deploy.plan(drive):
        assert target.read_bytes() == source.read_bytes()
    assert (drive / "lib/pi_table/protocol/wire.py").is_file()
    copies = [line for line in capsys.readouterr().out.splitlines() if line.startswith("copy ")]
    assert len(copies) == 6 and copies[-1].endswith("code.py")  # the last write, the last reload
    deploy.deploy(drive, which=no_circup)
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("unchanged ") for line in lines) == 6  # nothing rewritten


def test_deploy_refuses_a_folder_that_is_not_a_circuitpy_drive(tmp_path, capsys):
    assert deploy.main([str(tmp_path)]) == 2
    assert "not a CIRCUITPY drive" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_deploy_stops_before_copying_when_circup_fails(drive):
    result = deploy.deploy(drive, which=lambda name: "circup", run=lambda command: SimpleNamespace(returncode=1))
    assert result == 1
    assert not (drive / "code.py").exists()


def test_deploy_from_an_installed_package_finds_the_protocol_inside_it(drive, tmp_path):
    """Installed, firmware/ is pi_table/firmware/ and the protocol sits beside it in the package."""
    package = tmp_path / "site-packages" / "pi_table"
    for name in ("__init__.py", "protocol/__init__.py", "protocol/wire.py"):
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIRMWARE.parent / "pi_table" / name, package / name)
    shutil.copytree(FIRMWARE, package / "firmware", ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, str(package / "firmware" / "deploy.py"), str(drive)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for name in ("__init__.py", "protocol/__init__.py", "protocol/wire.py"):
        assert (drive / "lib" / "pi_table" / name).read_bytes() == (package / name).read_bytes()
    assert (drive / "code.py").is_file()


# --- a chip's tuning through its lifecycle (issue 60.1), a stateful property test
#
# A touch chip's tuning through its lifecycle (issue 60.1), as a stateful property test.
#
# The firmware (``TouchBoard`` on fake MPR121 chips, test_firmware's ``Rig``) and the Pi's driver
# (``TouchBoardSource``) talk through the board's port, both on the rig's clock. Random sequences
# of what happens to a chip: present or absent when the board connects, cut and mended while the
# table plays, a brown-out, a breakout that does not keep what is written to it put in, the table
# tuned afresh, the board restarted. The oracle, written from the rules and not from the code:
# every chip that answers runs the thresholds the table's tuning gives it, unless its breakout
# does not keep them, and the health says untuned for exactly those chips.
#
# The driver's link runs here in the test's thread, through its own steps (``_connect``,
# ``_read``, ``_take``, as its thread runs them), so each rule is complete when it returns.

SETTLE_S = touchboard.RETRY_S + 0.25  # a chip that answers again is tried within RETRY_S
STEP_S = 0.05

pair = st.integers(2, 255).flatmap(lambda touch: st.tuples(st.just(touch), st.integers(1, touch - 1)))
tuning = st.lists(pair, min_size=36, max_size=36).map(tuple)


class PiEnd:
    """The board's port as pyserial's Serial shows it to the Pi: a read with nothing waiting lets
    the board take a step first, as a read waits for the board's next frames."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig

    @property
    def in_waiting(self) -> int:
        return len(self.rig.port.written)

    def read(self, size: int) -> bytes:
        if not self.rig.port.written:
            self.rig.clock.advance(STEP_S)
            self.rig.board.step()
        data = bytes(self.rig.port.written[:size])
        del self.rig.port.written[:size]
        return data

    def write(self, data: bytes) -> int:
        self.rig.port.incoming += data
        return len(data)

    def close(self) -> None:
        pass


class ChipTuning(RuleBasedStateMachine):
    @initialize(present=st.sets(st.sampled_from(range(3))), thresholds=tuning)
    def connect(self, present: set[int], thresholds: tuple[tuple[int, int], ...]) -> None:
        self.rig = Rig(addresses=tuple(ADDRESSES[n] for n in sorted(present)))
        self.answering = set(present)  # the oracle's: chips that answer on the bus
        self.faulty: set[int] = set()  # chips whose breakout does not keep a burst write
        self.rig.board.start()
        self.tune(thresholds)

    def tune(self, thresholds: tuple[tuple[int, int], ...]) -> None:
        """A table started on these thresholds, as the service starts after `pi-table tune`."""
        self.thresholds = thresholds
        self.driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice("/dev/ttyACM0"), thresholds=thresholds),
                                       serial_factory=lambda device, **settings_: PiEnd(self.rig), clock=self.rig.clock)
        self.driver._emit = lambda event: None
        self.reconnect()

    def reconnect(self) -> None:
        self.driver._port = None
        self.driver._connect()
        self.settle()

    def settle(self) -> None:
        """Both ends run for SETTLE_S: the board sets up what answers, the driver hears it all."""
        end = self.rig.clock() + SETTLE_S
        while self.rig.clock() < end:
            for _seq, message in self.driver._read():
                assert self.driver._take(message, self.rig.clock()) is None
            self.driver._tell_deaf()

    def chip(self, n: int) -> FakeMPR121 | None:
        return self.rig.fakes.get(n)

    @rule(n=st.sampled_from(range(3)))
    @precondition(lambda self: self.answering)
    def cut(self, n: int) -> None:
        if n in self.answering:
            self.rig.i2c.unplug(ADDRESSES[n])
            self.answering.discard(n)
        self.settle()

    @rule(n=st.sampled_from(range(3)), faulty=st.booleans())
    def mend(self, n: int, faulty: bool) -> None:
        """The chip's joint makes contact; a chip never seen yet is a new breakout, perhaps one
        whose register pointer does not move on when written (it cannot keep its thresholds)."""
        if n not in self.rig.fakes:
            self.rig.fakes[n] = self.rig.i2c.attach(ADDRESSES[n], FakeMPR121(burst_writes=not faulty))
            if faulty:
                self.faulty.add(n)
        self.rig.i2c.plug(ADDRESSES[n])
        self.answering.add(n)
        self.settle()

    @rule(n=st.sampled_from(range(3)))
    def brown_out(self, n: int) -> None:
        chip = self.chip(n)
        if chip is not None:
            chip.power_on_reset()
        self.settle()

    @rule(thresholds=tuning)
    def retune(self, thresholds: tuple[tuple[int, int], ...]) -> None:
        self.tune(thresholds)

    @rule()
    def host_reconnects(self) -> None:
        self.reconnect()

    @rule()
    def board_restarts(self) -> None:
        """Unplugged and plugged in: a fresh firmware start, then the table connects again."""
        self.rig.board = touchboard.TouchBoard(
            touchboard.connect_chips(self.rig.i2c, adafruit_mpr121.MPR121), self.rig.port, self.rig.clock,
            "test-board", connect=self.rig._connect, pause=self.rig.clock.advance)
        self.rig.board.start()
        self.rig.port.written.clear()
        self.reconnect()

    @invariant()
    def every_answering_chip_runs_its_tuning_and_the_health_says_which_do_not(self) -> None:
        untuned = []
        for n in sorted(self.answering):
            runs = held(self.rig.fakes[n]) == self.thresholds[12 * n:12 * n + 12]
            assert runs != (n in self.faulty), f"chip {n} {'does not run' if not runs else 'runs'} its tuning"
            if not runs:
                untuned.append(ADDRESSES[n])
        assert self.driver.untuned_chips() == untuned
        trouble = self.driver.trouble()
        if untuned and self.answering == set(range(3)):  # no deaf chip to say first
            assert trouble is not None and trouble.template == (CHIP_UNTUNED if len(untuned) == 1 else CHIPS_UNTUNED)
        elif not untuned and trouble is not None:
            assert trouble.template not in (CHIP_UNTUNED, CHIPS_UNTUNED)


ChipTuning.TestCase.settings = settings(stateful_step_count=12, deadline=None)  # the profile says how many examples
test_a_chip_s_tuning_through_its_lifecycle = ChipTuning.TestCase
