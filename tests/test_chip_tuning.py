"""A touch chip's tuning through its lifecycle (issue 60.1), as a stateful property test.

The firmware (``TouchBoard`` on fake MPR121 chips, test_firmware's ``Rig``) and the Pi's driver
(``TouchBoardSource``) talk through the board's port, both on the rig's clock. Random sequences
of what happens to a chip: present or absent when the board connects, cut and mended while the
table plays, a brown-out, a breakout that does not keep what is written to it put in, the table
tuned afresh, the board restarted. The oracle, written from the rules and not from the code:
every chip that answers runs the thresholds the table's tuning gives it, unless its breakout
does not keep them, and the health says untuned for exactly those chips.

The driver's link runs here in the test's thread, through its own steps (``_connect``,
``_read``, ``_take``, as its thread runs them), so each rule is complete when it returns.
"""

from __future__ import annotations

import adafruit_mpr121
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from pi_table.firmware import touchboard
from test_firmware import ADDRESSES, Rig, held

from pi_table.drivers.touchboard import CHIP_UNTUNED, CHIPS_UNTUNED, TouchBoardConfig, TouchBoardSource
from pi_table.kinds import SerialDevice
from pi_table.sim.mpr121 import FakeMPR121

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
