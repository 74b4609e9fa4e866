"""The touch board on USB serial: frames in, cell presses and releases out.

The board (an RP2040 running firmware/touchboard.py) reports the whole electrode mask on every
change and as a heartbeat (firmware ``heartbeat_s``, 0.25 s). This backend reads it on one
background thread, turns each report's mask changes into one ``TouchEvent`` (a palm arrives
whole) by the configured electrode-to-cell map, and keeps the link alive by itself: an unplug,
a board that goes silent or a board that restarts releases every cell it had reported pressed,
reports "touch board disconnected" once, and the port is opened again with backoff until the
board answers.

Finding the board without a configured port: the ports whose USB VID:PID match ``usb_id``,
less any CircuitPython console. CircuitPython names the console's interface "CircuitPython CDC
control" and the ``usb_cdc.data`` port's "CircuitPython CDC2 control" (the names Adafruit's
board toolkit tells them apart by), and on Linux pyserial reports them as ``interface``, so
there the data port is what remains. Where names are missing (pyserial on Windows), the port
on the highest USB interface number in its ``location`` ("1-1.2:x.2") wins: CircuitPython
numbers the data port's interfaces after the console's. A ``port`` such as
``/dev/serial/by-id/usb-..._CircuitPython_...-if02`` avoids any guess.

What the board tells of its chips' bus (a ``wire.Fault``: transfers it had to try again, a chip
a brown-out reset, a chip out of range, SDA held low) is logged, and for a while after it shows
in the board's health on the staff page (``trouble``), while the board itself plays on. A chip
that does not answer is a fault for as long as the board says so (it says so each second): the
health names the chip, its cards and what to check, and the table is told the deaf cards
(``DeafCards``) so that it marks them for the players.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ..engine import CELLS
from ..engine.phrase import N_, Phrase, Text
from ..errors import PiTableError
from ..firmware.touchboard import DEFAULT_THRESHOLDS
from ..hal.events import (
    AlreadyStarted,
    ButtonEvent,
    DeafCards,
    Emit,
    Event,
    HealthEvent,
    NotStarted,
    OffTheGrid,
    TouchEvent,
)
from ..hal.touch import TouchSource
from ..kinds import SerialDevice
from ..protocol import wire
from ..worker import Worker
from .settings import TouchBoardConfig

log = logging.getLogger("pi_table.touch")

READ_TIMEOUT_S = 0.05  # the longest a read blocks: bounds how late stop() and the silence check are
WRITE_TIMEOUT_S = 0.5  # a board that stops reading must not hang the table loop's recalibrate()
DISCONNECTED = Phrase.of("touch board disconnected: check the USB cable from the touch board to the Pi; the game waits")
NEWER_BOARD = Phrase.of("update pi-table, or deploy the firmware that came with it")
NOT_FOUND = N_("touch board not found (no {usb} device): check the USB cable from the touch board to the Pi; the game "
               "waits")
CONSOLE_ONLY = N_("the touch board ({usb}) shows only its console port: enable usb_cdc data in its boot.py (deploy "
                  "firmware/ to it again); the game waits")
CANNOT_OPEN = N_("touch board not found ({error}): check the USB cable from the touch board to the Pi; the game waits")
NO_HELLO = N_("the touch board on {path} did not say hello within {seconds:g} s: check that it runs the table's "
              "firmware (deploy firmware/ to it again); the game waits")
OLDER_BOARD = Phrase.of("update the firmware")
OTHER_PROTOCOL = N_("touch board speaks protocol {major}.{minor}, this table speaks {ours}.x: {advice}")
CHIP_RESET = N_("touch chip {chip} was reset and set up again: a dip in the touch board's power; check the USB cable "
                "from the touch board to the Pi, and the Pi's own supply")
OUT_OF_RANGE_CELLS = N_("touch chip {chip} could not tune the pads of cells {cells} and was set up again: check the "
                        "wires from those pads to the chip")
OUT_OF_RANGE = N_("touch chip {chip} could not tune its pads and was set up again: check the wires from its pads to "
                  "the chip")
I2C_ERRORS = N_("I2C errors: {count} in the last {minutes} minutes, each tried again at once: check the I2C cable's "
                "joints, and that it runs apart from the LED cable")
BUS_FREED = N_("a touch chip held the I2C bus, and the touch board freed it: if this comes back, check the I2C "
               "cable's joints")
BUS_HELD = N_("a touch chip holds the I2C bus and the touch board has not freed it yet: no card can be touched; the "
              "board tries again each second, and if this stays, unplug its USB cable and plug it in again")
CHIP_SILENT = N_("touch chip {chip} does not answer: {pads} cannot be touched; check the joints on that chip's "
                 "breakout and the I2C cable to it")
CHIP_MISSING = N_("touch chip {chip} has not answered since the touch board started: {pads} cannot be touched; check "
                  "the joints on that chip's breakout and the I2C cable to it")
CHIPS_SILENT = N_("touch chips {chips} do not answer: {pads} cannot be touched; check the I2C cable from the touch "
                  "board to the chips, and the joints on each breakout")
CHIP_UNTUNED = N_("touch chip {chip} does not run the table's tuned thresholds: {pads} may miss touches or feel ones "
                  "not made; unplug the touch board's USB cable and plug it in again")
CHIPS_UNTUNED = N_("touch chips {chips} do not run the table's tuned thresholds: {pads} may miss touches or feel ones "
                   "not made; unplug the touch board's USB cable and plug it in again")
ONE_CARD, CARDS = N_("card {cell}"), N_("cards {cells}")
WITH_END_TURN, SPARE_PADS = N_("{cards} and {end_turn}"), N_("its spare pads")
THE_END_TURN_PAD, BOTH_END_TURN_PADS = N_("the END TURN pad"), N_("both END TURN pads")
ALL_END_TURN_PADS, SOME_END_TURN_PADS = N_("all {count} END TURN pads"), N_("{count} of the {total} END TURN pads")
"""The pads a silent chip leaves deaf, as its fault names them: its cards, and the END TURN pads
it reads counted against the wiring's (the reference build puts both on one chip)."""
FAULTS = (DISCONNECTED.template, NOT_FOUND, CONSOLE_ONLY, CANNOT_OPEN, NO_HELLO, OTHER_PROTOCOL, CHIP_RESET,
          OUT_OF_RANGE_CELLS, OUT_OF_RANGE, I2C_ERRORS, BUS_FREED, BUS_HELD, CHIP_SILENT, CHIP_MISSING, CHIPS_SILENT,
          CHIP_UNTUNED, CHIPS_UNTUNED)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""
USB_CABLE = N_("Check the USB cable from the touch board to the Pi: it must carry data, and many short cables only "
               "charge (use a data cable, as the bill of materials names); the table finds the board again by itself.")
DEPLOY = N_("Deploy the firmware that came with this pi-table (firmware/) to the touch board, as the build guide says; "
            "the table finds the board again by itself.")
JOINTS = N_("Check the soldered joints on touch chip {chip}'s breakout and its four wires from the touch board (3V3, "
            "GND, SDA, SCL): until it answers, {pads} cannot be touched; once mended, it is taken back by itself.")
ADVICE = {
    DISCONNECTED.template: USB_CABLE, NOT_FOUND: USB_CABLE, CANNOT_OPEN: USB_CABLE,
    CONSOLE_ONLY: DEPLOY, NO_HELLO: DEPLOY, OTHER_PROTOCOL: DEPLOY,
    CHIP_RESET: N_("Power the Pi from its own supply (3 A for a Pi 4, 5 A for a Pi 5) and check the touch board's USB "
                   "cable: a dip in power resets the touch chips, and the board sets them up again by itself."),
    OUT_OF_RANGE_CELLS: N_("Check the wires from the pads of cells {cells} to touch chip {chip}: a break, or a wire "
                           "touching ground or another pad; then Tune the pads on the staff page."),
    OUT_OF_RANGE: N_("Check the wires from touch chip {chip}'s pads: a break, or a wire touching ground or another pad; "
                     "then Tune the pads on the staff page."),
    I2C_ERRORS: N_("Check the SDA and SCL joints from the touch board to the breakouts, and keep those wires apart from "
                   "the LED cable; no touch is lost meanwhile."),
    BUS_FREED: N_("Nothing to do if it happened once; if it comes back, check the SDA and SCL joints on the breakouts."),
    BUS_HELD: N_("Unplug the touch board's USB cable and plug it in again; if it comes back, check the SDA and SCL "
                 "joints on each breakout."),
    CHIP_SILENT: JOINTS, CHIP_MISSING: JOINTS,
    CHIPS_SILENT: N_("Check the four wires touch chips {chips} share from the touch board (3V3, GND, SDA, SCL), then "
                     "each breakout's joints: until they answer, {pads} cannot be touched; once mended, each is taken "
                     "back by itself."),
    CHIP_UNTUNED: N_("Unplug the touch board's USB cable and plug it in again: the board sets every chip up afresh "
                     "with its own values. If the line comes back, deploy the firmware that came with this pi-table "
                     "(firmware/) to the touch board: one before protocol 1.4 takes no chip's values while another "
                     "does not answer. If it still comes back, touch chip {chip} does not keep what is written to it: "
                     "whoever built the table replaces its breakout."),
    CHIPS_UNTUNED: N_("Unplug the touch board's USB cable and plug it in again: the board sets every chip up afresh "
                      "with its own values. If the line comes back, deploy the firmware that came with this pi-table "
                      "(firmware/) to the touch board: one before protocol 1.4 takes no chip's values while another "
                      "does not answer. If it still comes back, touch chips {chips} do not keep what is written to "
                      "them: whoever built the table checks their breakouts' joints and replaces those that keep "
                      "nothing."),
}
"""What the staff do about each fault the board reports (the staff page's advice under it),
naming the fault's own chip and cards: a silent chip's joints are not mended by a cable."""


def advice_for(fault: Text) -> Phrase | None:
    """The advice for a fault of the board's, with that fault's chip and cards; None for another."""
    if not isinstance(fault, Phrase) or fault.template not in ADVICE:
        return None
    return Phrase.of(ADVICE[fault.template], **dict(fault.fields))


CONSOLE_INTERFACE = "CircuitPython CDC "  # the REPL; the data port's name says "CDC2"
TOLD_S = 600.0
"""How long a fault the board told stays in its health: the board has mended it by then, but
the staff should see it when they look at the staff page within a round or two."""
I2C_ERRORS_WARN = 10
"""Failed transfers within TOLD_S that make the board's health a warning: a sound bus has none,
the board tries each again at once so no touch is missed, a chip unplugged for a moment costs 4;
ten in ten minutes is a rate rising past a passing spike."""
FIRST_CHIP = 0x5A
"""The I2C address of the chip with electrodes 0-11; the next address has 12-23, and so on (the firmware's rule)."""
CHIP_PADS = wire.CHIP_ELECTRODES
PER_CHIP = (1, 4)
"""The protocol from which the board takes thresholds per chip (set-chip-thresholds) and reports
what each chip holds: an older board is sent set-thresholds, all or nothing."""
SILENT_S = 2.5
"""How long a chip the board told silent stays so without being told again: the board tells it
each second while it lasts, so one not told for this long answers again (the frame that said so
was lost)."""


def spans(numbers: list[int]) -> str:
    """Sorted whole numbers as runs, the way a person reads them: [3, 5, 6, 7] -> "3, 5-7"."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def _interface_number(location: str | None) -> int:
    """The USB interface number at the end of a pyserial location ("1-1.2:1.2", "1-2:x.2"); -1 if none."""
    match = re.search(r":\w+\.(\d+)$", location or "")
    return int(match.group(1)) if match else -1


class NotFound(PiTableError, LookupError):
    """The board was not found, or did not answer: ``phrase`` says what was found instead and
    what to do, in the words each language has (``str()`` is its English, for the log)."""

    def __init__(self, phrase: Phrase) -> None:
        self.phrase = phrase
        super().__init__(str(phrase))


def find_port(usb_id: tuple[int, int]) -> SerialDevice:
    """The device path of the board's data port (the rule is in the module docstring).

    Raises NotFound (a LookupError) saying what was found instead.
    """
    from serial.tools import list_ports

    wanted = f"USB {usb_id[0]:04x}:{usb_id[1]:04x}"
    ours = [p for p in list_ports.comports() if (p.vid, p.pid) == tuple(usb_id)]
    if not ours:
        raise NotFound(Phrase.of(NOT_FOUND, usb=wanted))
    candidates = [p for p in ours if not (p.interface or "").startswith(CONSOLE_INTERFACE)]
    if not candidates:
        raise NotFound(Phrase.of(CONSOLE_ONLY, usb=wanted))
    top = max(_interface_number(p.location) for p in candidates)
    best = sorted(p.device for p in candidates if _interface_number(p.location) == top)
    if len(best) > 1:
        log.warning("several %s ports (%s): using %s; set the port to choose", wanted, ", ".join(best), best[0])
    return SerialDevice(best[0])  # the system's own list: checked as every port is, when it is opened


class _Refused(PiTableError):
    """The board answered, but speaks a protocol this table does not."""

    def __init__(self, phrase: Phrase) -> None:
        self.phrase = phrase
        super().__init__(str(phrase))


def _open_serial(device: SerialDevice, **settings: Any) -> Any:
    """The board's port opened as the device file it is: never pyserial's ``serial_for_url``,
    whose URLs write files (``spy://``) and dial hosts (``socket://``, ``rfc2217://``)."""
    import serial

    return serial.Serial(device.target(), **settings)


class TouchBoardSource(TouchSource):
    """The real touch grid: ``start(emit)`` runs one thread that owns the serial link.

    ``recalibrate``, ``set_thresholds`` and ``stream_readings`` may be called from any thread
    while connected; ``on_readings``, when set before ``start``, is called on the link's thread
    with each ``wire.Readings`` the board streams. ``connected``, ``bad_frames``,
    ``disconnects``, ``recalibrations`` and ``i2c_errors`` are for health reports, and ``trouble()``
    says what the board told of its chips' bus that the staff should see.
    """

    def __init__(
        self,
        config: TouchBoardConfig | None = None,
        serial_factory: Callable[..., Any] = _open_serial,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        self.config = config or TouchBoardConfig()
        self._serial_factory = serial_factory
        self._clock = clock
        self._worker = Worker("touch-board")
        self._stopping = self._worker.stopping
        self._sleep = sleep or self._stopping.wait  # the default wakes at once on stop()
        self._cells = {e: cell for e, cell in enumerate(self.config.cells) if cell is not None}
        self._end_turn_bits = sum(1 << e for e in self.config.end_turn)
        self._write_lock = threading.Lock()
        self._emit: Emit | None = None
        self._port: Any = None
        self._seq = 0
        self._decoder = wire.Decoder()
        self._bad_before = 0  # bad frames counted by the decoders of earlier connections
        self._health_said: tuple[bool, Phrase] | None = None
        self._hello: wire.Hello | None = None
        self._asked_at = 0.0
        self._mask: int | None = None  # the last mask applied; None until the first report
        self._pressed: frozenset[int] = frozenset()  # the cells this connection reported pressed
        self.disconnects = 0
        self.recalibrations = 0
        self.i2c_errors = 0  # failed transfers the board told of since start
        self.on_readings: Callable[[wire.Readings], object] | None = None
        self._told: dict[int, tuple[float, Phrase]] = {}  # a fault's kind -> when the board last told it, in words
        self._errors: deque[tuple[float, int]] = deque()  # (when, count) of the failed transfers told within TOLD_S
        self._errors_rising = False
        self._told_lock = threading.Lock()  # the link's thread tells, the table loop's asks
        self._silent: dict[int, tuple[float, int]] = {}  # a chip the board told silent -> (when, MISSING or STOPPED)
        self._deaf_said = DeafCards()  # what the table was last told of the deaf cards
        self._wanted: dict[int, tuple[tuple[int, int], ...]] = {}  # a chip -> the thresholds this table sent it
        self._held: dict[int, tuple[tuple[int, int], ...]] = {}  # a chip -> what the board last said it holds

    # --- the TouchSource interface

    def start(self, emit: Emit) -> None:
        if self._worker.thread is not None:
            raise AlreadyStarted("the touch board source was already started")
        self._emit = emit
        self._worker.start(self._run)

    def stop(self) -> None:
        self._worker.stop()
        self._close()

    def ended(self) -> str | None:
        return self._worker.ended("the touch board")

    def recalibrate(self, cells: list[int]) -> None:
        """Re-baseline the electrodes under ``cells``; cells without an electrode are skipped
        (an empty mask would mean every electrode to the board)."""
        for cell in cells:
            if not 0 <= cell < CELLS:
                raise OffTheGrid(f"cell {cell} is off the grid: cells are 0 to {CELLS - 1}")
        wanted = set(cells)
        mask = sum(1 << e for e, cell in self._cells.items() if cell in wanted)
        if mask and self._command(wire.Recalibrate(mask), f"recalibrate cells {sorted(wanted)}"):
            self.recalibrations += 1

    # --- more of the board

    def set_thresholds(self, first: int, pairs: tuple[tuple[int, int], ...]) -> None:
        """Touch/release thresholds for electrodes ``first``, ``first + 1``, ... (the board acks)."""
        self._command(wire.SetThresholds(first, tuple(pairs)), f"set thresholds from electrode {first}")

    def stream_readings(self, period_ms: int, rounds: int) -> bool:
        """Ask the board for readings every ``period_ms`` for ``rounds`` rounds (0 stops);
        they arrive at ``on_readings``. False when the board is not connected."""
        return self._command(wire.StreamReadings(period_ms, rounds), "stream readings")

    @property
    def connected(self) -> bool:
        """True from the board's hello until the link is lost."""
        return self._hello is not None

    def trouble(self) -> Phrase | None:
        """What the board told that the staff should see, the most serious first, or None: a bus
        it cannot free (until it frees it or starts afresh); chips that do not answer (while the
        board says so); else, told within TOLD_S, a chip reset, a chip out of range, failed
        transfers rising to I2C_ERRORS_WARN, the bus freed."""
        now = self._clock()
        with self._told_lock:
            told = dict(self._told)
            errors = self._errors_within(now)
        if self._bus_held():
            return Phrase.of(BUS_HELD)
        silent = self._silent_chips(now)
        if silent:
            return self._silence(silent)
        untuned = self.untuned_chips()
        if untuned:
            return self._untuned(untuned)
        recent = {kind: phrase for kind, (when, phrase) in told.items() if now - when < TOLD_S}
        for kind in (wire.Fault.RESET, wire.Fault.OUT_OF_RANGE):
            if kind in recent:
                return recent[kind]
        if errors >= I2C_ERRORS_WARN:
            return Phrase.of(I2C_ERRORS, count=errors, minutes=round(TOLD_S / 60))
        return recent.get(wire.Fault.BUS_HELD)

    def _bus_held(self) -> bool:
        """Whether the board last said a chip holds the bus and it has not freed it."""
        with self._told_lock:
            held = self._told.get(wire.Fault.BUS_HELD)
        return held is not None and held[1].template == BUS_HELD

    def untuned_chips(self) -> list[int]:
        """The chips that answer but do not hold the thresholds this table sent them, by address:
        a chip the board says holds others (read back after its set-up or a write), or, on a board
        before protocol 1.4, every chip of a set-thresholds it refused."""
        silent = self._silent_chips(self._clock())
        with self._told_lock:
            return sorted(chip for chip, pairs in self._wanted.items()
                          if chip not in silent and self._held.get(chip, pairs) != pairs)

    def _untuned(self, chips: list[int]) -> Phrase:
        cells = sorted(cell for chip in chips for cell in self._pads_of(chip)[0])
        pads = self._pads_phrase(cells, sum(self._pads_of(chip)[1] for chip in chips))
        if len(chips) == 1:
            return Phrase.of(CHIP_UNTUNED, chip=f"0x{chips[0]:02x}", pads=pads)
        return Phrase.of(CHIPS_UNTUNED, chips=", ".join(f"0x{chip:02x}" for chip in chips), pads=pads)

    def deaf_cards(self) -> DeafCards:
        """The cells whose pads sit on chips the board says do not answer, and why: for the table
        and the self-test."""
        silent = self._silent_chips(self._clock())
        if not silent:
            return DeafCards()
        # a held bus silences every chip: it is the one fault, with the health's one action
        why = Phrase.of(BUS_HELD) if self._bus_held() else self._silence(silent)
        return DeafCards(frozenset(cell for chip in silent for cell in self._pads_of(chip)[0]), (why,))

    def _silent_chips(self, now: float) -> dict[int, int]:
        """The chips told silent within SILENT_S, by address, with how (MISSING or STOPPED)."""
        with self._told_lock:
            return {chip: how for chip, (when, how) in sorted(self._silent.items()) if now - when < SILENT_S}

    def _silence(self, silent: dict[int, int]) -> Phrase:
        """The fault of the silent chips: which, the pads they leave deaf, and what to check."""
        if len(silent) > 1:
            cells = sorted(cell for chip in silent for cell in self._pads_of(chip)[0])
            end_turn = sum(self._pads_of(chip)[1] for chip in silent)
            return Phrase.of(CHIPS_SILENT, chips=", ".join(f"0x{chip:02x}" for chip in silent),
                             pads=self._pads_phrase(cells, end_turn))
        ((chip, how),) = silent.items()
        pads, end_turn = self._pads_of(chip)
        return Phrase.of(CHIP_MISSING if how == wire.CHIP_MISSING else CHIP_SILENT, chip=f"0x{chip:02x}",
                         pads=self._pads_phrase(sorted(pads), end_turn))

    def _pads_of(self, chip: int) -> tuple[frozenset[int], int]:
        """The cells whose pads chip ``chip`` (an I2C address) reads, and how many END TURN pads it reads."""
        first = (chip - FIRST_CHIP) * CHIP_PADS
        electrodes = range(first, first + CHIP_PADS)
        return (frozenset(self._cells[e] for e in electrodes if e in self._cells),
                sum(e in self.config.end_turn for e in electrodes))

    def _pads_phrase(self, cells: list[int], end_turn: int) -> Phrase:
        """The cells and the ``end_turn`` END TURN pads a silent or untuned chip reads, in words."""
        total = len(self.config.end_turn)
        pads = (Phrase.of(SOME_END_TURN_PADS, count=end_turn, total=total) if end_turn < total
                else Phrase.of(THE_END_TURN_PAD) if total == 1 else Phrase.of(BOTH_END_TURN_PADS) if total == 2
                else Phrase.of(ALL_END_TURN_PADS, count=total))
        if not cells:
            return pads if end_turn else Phrase.of(SPARE_PADS)
        cards = Phrase.of(ONE_CARD, cell=cells[0]) if len(cells) == 1 else Phrase.of(CARDS, cells=spans(cells))
        return Phrase.of(WITH_END_TURN, cards=cards, end_turn=pads) if end_turn else cards

    @property
    def bad_frames(self) -> int:
        """Damaged frames dropped since start: a rising count means a bad cable or noise."""
        return self._bad_before + self._decoder.bad_frames

    # --- the link thread

    def _run(self) -> None:
        backoff = self.config.backoff_s
        while not self._stopping.is_set():
            wait = backoff
            try:
                self._connect()
            except _Refused as refusal:
                self._health(False, refusal.phrase)
                wait = self.config.backoff_max_s  # a firmware update takes minutes: ask slowly
            except (OSError, NotFound) as e:  # OSError: pyserial's SerialException, in the system's words
                log.debug("touch board connection attempt failed: %s", e)
                if self._health_said is None:  # the first failure only; later ones keep the last word
                    self._health(False, e.phrase if isinstance(e, NotFound) else Phrase.of(CANNOT_OPEN, error=str(e)))
            else:
                lost = self._serve()
                if lost is None:
                    break
                self._lose(lost)
                backoff = self.config.backoff_s
                wait = backoff
            self._close()
            if self._stopping.is_set():
                break
            self._sleep(wait)
            backoff = min(wait * 2, self.config.backoff_max_s)
        self._close()

    def _connect(self) -> None:
        """Open the port and wait for the board's hello; raises when it does not come or does not fit."""
        device = self.config.port or find_port(self.config.usb_id)
        path = device.path
        port = self._serial_factory(  # exclusive: a second reader would take half the frames
            device, baudrate=self.config.baudrate, timeout=READ_TIMEOUT_S, write_timeout=WRITE_TIMEOUT_S, exclusive=True
        )
        with self._write_lock:  # pyserial's open() has dropped what came before: stale reports
            self._port = port
        old, self._decoder = self._decoder, wire.Decoder()
        self._bad_before += old.bad_frames
        self._asked_at = self._clock()
        self._send(wire.GetHello())
        deadline = self._asked_at + self.config.hello_timeout_s
        while self._clock() < deadline and not self._stopping.is_set():
            for _seq, message in self._read():
                if isinstance(message, wire.Hello):
                    self._accept(message, path)
                    return
                if isinstance(message, wire.Log):
                    self._log_from_board(message)
        raise NotFound(Phrase.of(NO_HELLO, path=path, seconds=self.config.hello_timeout_s))

    def _accept(self, hello: wire.Hello, path: str) -> None:
        major, minor = hello.protocol
        if major != wire.PROTOCOL_MAJOR:
            advice = NEWER_BOARD if major > wire.PROTOCOL_MAJOR else OLDER_BOARD
            raise _Refused(Phrase.of(OTHER_PROTOCOL, major=major, minor=minor, ours=wire.PROTOCOL_MAJOR, advice=advice))
        firmware = ".".join(str(n) for n in hello.firmware)
        beyond = sorted(e for e in (*self._cells, *self.config.end_turn) if e >= hello.electrodes)
        if beyond:
            log.warning("touch board %s has %d electrodes: electrodes %s are mapped but will never be touched",
                        hello.board, hello.electrodes, beyond)
        self._mask = None
        self._hello = hello
        with self._told_lock:  # a board started afresh tells again of a bus it cannot free, of silent chips, of thresholds
            self._told.pop(wire.Fault.BUS_HELD, None)
            self._silent.clear()
            self._held.clear()
        self._send_thresholds(hello)
        self._health(True, Phrase.of("touch board {board} firmware {firmware}", board=hello.board, firmware=firmware),
                     f"on {path}, protocol {major}.{minor}, {hello.electrodes} electrodes")

    def _send_thresholds(self, hello: wire.Hello) -> None:
        """The configured thresholds, for the electrodes the board has (the firmware's own where
        none is configured). A restarted board has forgotten them, so every connection sends
        them again. From protocol 1.4 one frame per chip, which the board keeps as that chip's
        own, so a chip that does not answer now takes its own when it does; an older board gets
        set-thresholds, which it refuses whole when one chip does not answer."""
        pairs = tuple(self.config.thresholds[e] if e < len(self.config.thresholds) else DEFAULT_THRESHOLDS
                      for e in range(hello.electrodes))
        chips = range(0, hello.electrodes - CHIP_PADS + 1, CHIP_PADS)
        with self._told_lock:
            self._wanted = {FIRST_CHIP + first // CHIP_PADS: pairs[first:first + CHIP_PADS] for first in chips}
        if tuple(hello.protocol) >= PER_CHIP:
            for chip, wanted in self._wanted.items():
                self._send(wire.SetChipThresholds(chip, wanted))
            return
        configured = self.config.thresholds[:hello.electrodes]
        step = (wire.MAX_PAYLOAD - 1) // 2
        for first in range(0, len(configured), step):
            self._send(wire.SetThresholds(first, configured[first:first + step]))

    def _serve(self) -> str | None:
        """Deliver the board's reports until the link is lost (returns why) or stop() (None)."""
        heard_at = self._clock()
        while not self._stopping.is_set():
            try:
                frames = self._read()
            except OSError as e:
                return f"read failed: {e}"
            now = self._clock()
            if frames:
                heard_at = now
            elif now - heard_at > self.config.silence_timeout_s:
                return f"no frame for {self.config.silence_timeout_s} s"
            self._tell_deaf()  # a chip no longer told silent hears again
            for _seq, message in frames:
                lost = self._take(message, now)
                if lost is not None:
                    return lost
        return None

    def _take(self, message: wire.Message, now: float) -> str | None:
        """One message from the board, acted on; why the link is lost when the message says so."""
        if isinstance(message, wire.Touch):
            self._apply(message.mask)
        elif isinstance(message, wire.Hello):
            if message == self._hello and now - self._asked_at < self.config.hello_timeout_s:
                return None  # a board that started as we opened the port also answers our GetHello
            return "the board restarted (a new hello)"
        elif isinstance(message, wire.Readings):
            if self.on_readings is not None:
                self.on_readings(message)
        elif isinstance(message, wire.Log):
            self._log_from_board(message)
        elif isinstance(message, wire.Fault):
            self._fault(message, now)
        elif isinstance(message, wire.Thresholds):
            self._thresholds_held(message)
        elif isinstance(message, wire.Ack) and message.status != wire.Ack.OK:
            self._refused(message)
        return None

    def _read(self) -> list[tuple[int, wire.Message]]:
        """The frames that arrived within one read timeout; a partial frame left after a quiet
        read is given up (its length byte may be damaged), as the Decoder advises."""
        data = self._port.read(self._port.in_waiting or 1)
        if data:
            return self._decoder.feed(data)
        return self._decoder.drop_partial() if self._decoder.pending else []

    def _apply(self, mask: int) -> None:
        """One event for the mapped cells whose bits changed in this report, all of them at
        once (a palm is judged whole). Before the first report of a connection, END TURN counts
        as in its reported state: a hand resting on it while the board comes back must not end
        a second turn."""
        before = self._mask if self._mask is not None else mask & self._end_turn_bits
        self._mask = mask
        changed = [(cell, bool(mask >> e & 1)) for e, cell in self._cells.items() if (mask ^ before) >> e & 1]
        pressed = frozenset(cell for cell, down in changed if down)
        released = frozenset(cell for cell, down in changed if not down)
        if changed:
            self._pressed = (self._pressed - released) | pressed
            self._tell(TouchEvent(pressed, released))
        if mask & self._end_turn_bits and not before & self._end_turn_bits:
            self._tell(ButtonEvent("end_turn"))

    def _lose(self, why: str) -> None:
        self._hello = None
        self.disconnects += 1
        if self._pressed:
            self._tell(TouchEvent(released=self._pressed))
        self._pressed = frozenset()
        with self._told_lock:  # the whole board is lost: its own fault says so
            self._silent.clear()
        self._tell_deaf()
        self._health(False, DISCONNECTED, why)

    def _health(self, ok: bool, detail: Phrase, more: str = "") -> None:
        """Report a change of the link's health, and log it, once: retries repeat nothing."""
        if self._health_said == (ok, detail):
            return
        self._health_said = (ok, detail)
        (log.info if ok else log.error)("%s%s", detail, f" ({more})" if more else "")
        self._tell(HealthEvent("touch", ok, detail))

    def _tell(self, event: Event) -> None:
        """Hand an event to the table loop."""
        if self._emit is None:
            raise NotStarted("the touch board source is not started")
        self._emit(event)

    def _refused(self, ack: wire.Ack) -> None:
        """A command the board did not carry out as asked, logged; a set-thresholds refused by a
        board before 1.4 leaves every chip this table sent thresholds to untuned."""
        command = wire.MESSAGES.get(ack.command, wire.Message).NAME or hex(ack.command)
        if ack.command == wire.SetChipThresholds.TYPE and ack.status == wire.Ack.KEPT:
            log.info("touch board keeps a chip's thresholds for when it answers again")
            return
        log.warning("touch board refused %s (status %d)", command, ack.status)
        if ack.command == wire.SetThresholds.TYPE:
            with self._told_lock:
                self._held.update((chip, ()) for chip in self._wanted)

    def _thresholds_held(self, report: wire.Thresholds) -> None:
        """What a chip holds, as the board read it back: logged when it differs from what this
        table sent it, and when it holds them again after that."""
        with self._told_lock:
            wanted = self._wanted.get(report.chip)
            before = self._held.get(report.chip, wanted)
            self._held[report.chip] = report.pairs
        if wanted is None or report.pairs == before:
            return
        if report.pairs == wanted:
            log.info("touch board: chip 0x%02x runs the table's thresholds again", report.chip)
            return
        first = (report.chip - FIRST_CHIP) * CHIP_PADS
        pin = next(pin for pin in range(CHIP_PADS) if report.pairs[pin] != wanted[pin])
        log.warning("touch board: chip 0x%02x does not run the table's thresholds (electrode %d holds %d/%d, not %d/%d)",
                    report.chip, first + pin, *report.pairs[pin], *wanted[pin])

    @staticmethod
    def _log_from_board(message: wire.Log) -> None:
        log.info("touch board says: %s", message.text)

    def _fault(self, fault: wire.Fault, now: float) -> None:
        """Log what the board told, and keep it for ``trouble``: failed transfers at INFO, with a
        WARNING when their rate rises past I2C_ERRORS_WARN (and an INFO when it falls back), the
        rest at WARNING (ERROR for a bus the board cannot free)."""
        chip = f"0x{fault.chip:02x}"
        if fault.kind == wire.Fault.I2C_ERRORS:
            self._transfers_failed(chip, fault.count, now)
            return
        if fault.kind == wire.Fault.NOT_ANSWERING:
            self._chip_answers(fault, now)
            return
        if fault.kind == wire.Fault.RESET:
            log.warning("touch board: chip %s was found reset (%d times since the board started) and was set up "
                        "again", chip, fault.count)
            phrase = Phrase.of(CHIP_RESET, chip=chip)
        elif fault.kind == wire.Fault.OUT_OF_RANGE:
            cells = self._cells_of(fault.chip, fault.count)
            log.warning("touch board: chip %s reads out of range (status 0x%04x: %s) and was set up again", chip,
                        fault.count, f"cells {cells}" if cells else "no cell's pad")
            phrase = Phrase.of(OUT_OF_RANGE_CELLS, chip=chip, cells=cells) if cells else Phrase.of(OUT_OF_RANGE,
                                                                                                      chip=chip)
        elif fault.kind == wire.Fault.BUS_HELD and fault.count:
            log.warning("touch board: a chip held the I2C bus's SDA low; %d clocks on SCL freed it", fault.count)
            phrase = Phrase.of(BUS_FREED)
        elif fault.kind == wire.Fault.BUS_HELD:
            log.error("touch board: a chip holds the I2C bus's SDA low and nine clocks on SCL did not free it: every "
                      "pad is deaf while it does; the board clocks it again each second")
            phrase = Phrase.of(BUS_HELD)
        else:
            log.warning("touch board: a fault of a kind this version does not know (%s)", fault)
            return
        with self._told_lock:
            self._told[fault.kind] = (now, phrase)
        if fault.kind == wire.Fault.BUS_HELD:
            self._tell_deaf()  # the deaf cards' reason is the held bus while it is held

    def _chip_answers(self, fault: wire.Fault, now: float) -> None:
        """A chip the board says does not answer (again: each second), or answers again: logged
        when that changes, a WARNING naming its deaf pads, and the table told its deaf cards."""
        with self._told_lock:
            was = self._silent.pop(fault.chip, None)
            if fault.count != wire.CHIP_ANSWERS:
                self._silent[fault.chip] = (now, fault.count)
        if fault.count == wire.CHIP_ANSWERS:
            if was is not None:
                log.info("touch board: chip 0x%02x answers again: its pads are heard again", fault.chip)
        elif was is None or was[1] != fault.count or now - was[0] >= SILENT_S:
            log.warning("touch board: %s", self._silence({fault.chip: fault.count}))
        self._tell_deaf()

    def _tell_deaf(self) -> None:
        """Tell the table the deaf cards when they changed since it was last told."""
        deaf = self.deaf_cards()
        if deaf != self._deaf_said:
            self._deaf_said = deaf
            self._tell(deaf)

    def _transfers_failed(self, chip: str, count: int, now: float) -> None:
        self.i2c_errors += count
        with self._told_lock:
            self._errors.append((now, count))
            within = self._errors_within(now)
        minutes = round(TOLD_S / 60)
        # The count is of failed tries, the last of a lost chip's among them (never tried again: the
        # fault not-answering tells that chip), so the line says failed, not tried again.
        log.info("touch board: %d I2C transfers to chip %s failed (%d in the last %d minutes)", count, chip, within,
                 minutes)
        rising = within >= I2C_ERRORS_WARN
        if rising and not self._errors_rising:
            log.warning("touch board: I2C errors are rising: %d in the last %d minutes; check the I2C cable's joints, "
                        "and that it runs apart from the LED cable", within, minutes)
        elif self._errors_rising and not rising:
            log.info("touch board: I2C errors have eased: %d in the last %d minutes", within, minutes)
        self._errors_rising = rising

    def _errors_within(self, now: float) -> int:
        """The failed transfers told within TOLD_S of ``now`` (older ones forgotten); under the lock."""
        while self._errors and now - self._errors[0][0] >= TOLD_S:
            self._errors.popleft()
        return sum(count for _, count in self._errors)

    def _cells_of(self, chip: int, status: int) -> str:
        """The cells whose pads a chip's out-of-range status names, as "4, 7" ("" when none)."""
        first = (chip - FIRST_CHIP) * CHIP_PADS
        electrodes = [first + pin for pin in range(CHIP_PADS) if status >> pin & 1]
        return ", ".join(str(cell) for cell in sorted(self._cells[e] for e in electrodes if e in self._cells))

    # --- writing

    def _command(self, message: wire.Message, what: str) -> bool:
        if not self.connected:
            log.warning("touch board not connected: cannot %s", what)
            return False
        return self._send(message)

    def _send(self, message: wire.Message) -> bool:
        with self._write_lock:
            if self._port is None:
                return False
            try:
                self._port.write(wire.encode(message, self._seq))
            except OSError as e:  # the reading thread notices the loss and reconnects
                log.warning("touch board write of %s failed: %s", message.NAME, e)
                return False
            self._seq = (self._seq + 1) & 0xFF
            return True

    def _close(self) -> None:
        with self._write_lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except OSError:
                pass
