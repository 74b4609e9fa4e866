"""The board emulator: the touch board's own firmware on fake MPR121 chips, behind a pty.

It answers on a pseudo-terminal exactly as the board does on USB, because it *is* the
firmware's logic (``pi_table.firmware.touchboard``) driving the real ``adafruit_mpr121``
driver against register-level fake chips. A stable symlink stands for the board's
``/dev/serial/by-id`` path: an unplug removes the pty (the host's reads fail, as with a real
unplug) and a replug makes a new one behind the same link.

The pads read like real ones through a card, so ``pi-table tune`` has something to tune: before
every scan each pad's filtered value is its level at rest (the fake chip's 720) plus a whole
number of counts drawn evenly from -noise to +noise (1 by default), and a finger takes it
``strength`` counts lower (14 by default: the issue's estimate through card and acrylic is 7 to
20, against the firmware's threshold of 8). The chips track their baseline upwards, as the
firmware sets the real ones to, so a pad's baseline settles at the top of its noise.

What a café's electricity does can be done to it too (``brownout``, ``spikes``, ``hold_sda``): the
firmware runs over a ``Bus`` it can clear, on the fake bus's lines, as code.py runs it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import random
import tempfile
import threading
import time
import tty
from collections.abc import Callable, Iterable
from pathlib import Path

import adafruit_mpr121

from ..drivers.settings import TouchBoardConfig
from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase
from ..firmware.touchboard import Bus, TouchBoard, connect_chip, connect_chips
from ..protocol import wire
from ..ui.i18n import say
from ..worker import Worker
from .mpr121 import FakeI2C, FakeMPR121

ADDRESSES = (0x5A, 0x5B, 0x5C)
PINS = 12
NOISE = 1  # counts either side of a pad's level, each sample
STRENGTH = 14  # counts a finger moves a pad through card and acrylic


class BoardRefused(Refusal):
    """What the emulator cannot do as asked (an electrode or chip it has not, a command it does not
    know, a board unplugged): said to whoever typed it, and the emulator goes on."""


class PtyPort:
    """The board's end of a pty, with the manners of CircuitPython's ``usb_cdc.data`` when its
    timeouts are 0: reads never wait, writes never block (bytes the host does not read in
    time are dropped, as the board drops them when nobody listens)."""

    def __init__(self, on_write: Callable[[bytes, float], None] | None = None) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self._slave)
        flags = fcntl.fcntl(self.master, fcntl.F_GETFL)
        fcntl.fcntl(self.master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        self.name = os.ttyname(self._slave)
        self.connected = True
        self.on_write = on_write

    def write(self, data: bytes) -> int:
        """Write what fits now; ``on_write(data, when)`` hears of it (benchmarks time from here)."""
        when = time.perf_counter()
        try:
            written = os.write(self.master, data)
        except BlockingIOError:
            written = 0
        if self.on_write is not None:
            self.on_write(data, when)
        return written

    def read(self, count: int) -> bytes:
        try:
            return os.read(self.master, count)
        except BlockingIOError:
            return b""
        except OSError as e:
            if e.errno == errno.EIO:  # no host has the port open right now
                return b""
            raise

    def close(self) -> None:
        self.connected = False
        for fd in (self.master, self._slave):
            os.close(fd)


class BoardEmulator:
    """A touch board in software. ``press``/``release`` act on electrodes, as fingers do;
    ``missing`` chips (0-2) do not answer when it starts (``mend_chip`` makes them)."""

    def __init__(
        self,
        link: Path | None = None,
        board_id: str = "emulator",
        scan_s: float = 0.005,
        on_write: Callable[[bytes, float], None] | None = None,
        noise: int = NOISE,
        strength: int = STRENGTH,
        missing: tuple[int, ...] = (),
    ) -> None:
        self._own_folder = link is None
        self.link = Path(link) if link else Path(tempfile.mkdtemp(prefix="pi-table-board-")) / "touch-board"
        self.board_id = board_id
        self.scan_s = scan_s
        self.on_write = on_write
        self.rng = random.Random()
        self.chips = [FakeMPR121(tracking=True) for _ in ADDRESSES]
        self.noise = [noise] * PINS * len(ADDRESSES)
        self.strength = [strength] * PINS * len(ADDRESSES)
        self.fingers: set[int] = set()  # the electrodes pressed now
        self.i2c = FakeI2C(dict(zip(ADDRESSES, self.chips)))
        for chip in missing:  # a breakout whose joints never made contact: the board starts without it
            self.i2c.unplug(ADDRESSES[self._chip_index(chip)])
        self.bus = Bus(self.i2c.reopen, lambda: (self.i2c.line("SCL"), self.i2c.line("SDA")))
        self._lock = threading.Lock()
        self._worker = Worker("board-emulator")
        self.port: PtyPort | None = None
        self.board: TouchBoard | None = None

    @property
    def path(self) -> str:
        return str(self.link)

    def start(self) -> None:
        self.plug()
        self._worker.start(self._scan)

    def stop(self) -> None:
        self._worker.stop()
        self.unplug()
        if self._own_folder:
            self.link.parent.rmdir()

    def plug(self) -> None:
        """Power the board up behind the link: a new pty, a fresh firmware start and hello."""
        with self._lock:
            if self.port is not None:
                return
            self.port = PtyPort(self.on_write)
            self._move_pads()
            self.board = TouchBoard(connect_chips(self.bus, adafruit_mpr121.MPR121), self.port, time.monotonic,
                                    self.board_id, reset=self._reset, bus=self.bus, connect=self._connect)
            self.board.start()
            temporary = self.link.with_name(self.link.name + ".new")
            temporary.unlink(missing_ok=True)
            temporary.symlink_to(self.port.name)
            temporary.replace(self.link)

    def _connect(self, address: int) -> adafruit_mpr121.MPR121 | None:
        """A chip missing at start, tried again as code.py's ``connect`` does."""
        return connect_chip(self.bus, adafruit_mpr121.MPR121, address)

    def unplug(self) -> None:
        """Pull the cable: the link goes and the host's reads fail."""
        with self._lock:
            if self.port is None:
                return
            self.link.unlink(missing_ok=True)
            self.port.close()
            self.port = self.board = None

    def _reset(self) -> None:
        """The firmware asked for a reset: USB drops and the board comes back."""
        threading.Thread(target=self._replug_after, args=(0.05,), daemon=True).start()

    def _replug_after(self, seconds: float) -> None:
        self.unplug()
        time.sleep(seconds)
        self.plug()

    def _scan(self) -> None:
        while not self._worker.stopping.is_set():
            with self._lock:
                if self.board is not None:
                    self._move_pads()
                    self.board.step()
            self._worker.stopping.wait(self.scan_s)

    def _chip(self, electrode: int) -> tuple[FakeMPR121, int]:
        if not 0 <= electrode < PINS * len(self.chips):
            raise BoardRefused("electrode {electrode} does not exist: electrodes are 0 to {last}",
                               electrode=electrode, last=PINS * len(self.chips) - 1)
        return self.chips[electrode // PINS], electrode % PINS

    def _move_pads(self) -> None:
        """Each pad's next sample: its level, less a finger's strength, plus noise."""
        for electrode in range(len(self.noise)):
            chip, pin = self.chips[electrode // PINS], electrode % PINS
            finger = self.strength[electrode] if electrode in self.fingers else 0
            noise = self.noise[electrode]
            chip.set_filtered(pin, chip.untouched - finger + self.rng.randint(-noise, noise))

    def press(self, *electrodes: int) -> None:
        """Fingers on these pads; several land between two scans, so one report carries them (a palm)."""
        for electrode in electrodes:
            self._chip(electrode)
        with self._lock:
            self.fingers.update(electrodes)

    def release(self, *electrodes: int) -> None:
        """Fingers off these pads, between two scans."""
        for electrode in electrodes:
            self._chip(electrode)
        with self._lock:
            self.fingers.difference_update(electrodes)

    def set_pad(self, electrode: int, strength: int, noise: int) -> None:
        """How far a finger moves this pad, and how much it wanders at rest, in counts: a deaf
        pad (a strength under the threshold) or a noisy one (noise near it) to tune against."""
        self._chip(electrode)
        if strength < 0 or noise < 0:
            raise BoardRefused("strength and noise are counts, 0 or more, not {strength} and {noise}",
                               strength=strength, noise=noise)
        with self._lock:
            self.strength[electrode], self.noise[electrode] = strength, noise

    def tap(self, electrode: int, ms: float) -> None:
        self.press(electrode)
        time.sleep(ms / 1000)
        self.release(electrode)

    def brownout(self, chip: int) -> None:
        """A dip in chip ``chip``'s supply (0-2): it comes back in stop mode, its registers at their defaults."""
        self._chip_index(chip)
        with self._lock:
            self.chips[chip].power_on_reset()

    def cut_chip(self, chip: int) -> None:
        """Chip ``chip`` (0-2) stops answering, its registers kept: a joint on its breakout broke."""
        with self._lock:
            self.i2c.unplug(ADDRESSES[self._chip_index(chip)])

    def mend_chip(self, chip: int) -> None:
        """Chip ``chip`` answers again: the joint made good."""
        with self._lock:
            self.i2c.plug(ADDRESSES[self._chip_index(chip)])

    def _chip_index(self, chip: int) -> int:
        if not 0 <= chip < len(self.chips):
            raise BoardRefused("chip {chip} does not exist: chips are 0 to {last}", chip=chip, last=len(self.chips) - 1)
        return chip

    def spikes(self, one_in: int) -> None:
        """About one I2C transfer in ``one_in`` fails from now on (0: none)."""
        with self._lock:
            self.i2c.fail_one_in(one_in)

    def hold_sda(self, clocks: int) -> None:
        """A chip holds SDA low until SCL has been clocked ``clocks`` times."""
        with self._lock:
            self.i2c.hold_sda(clocks)

    def garbage(self, count: int) -> None:
        self._write(self.rng.randbytes(count))

    def corrupt(self) -> None:
        """One touch report claiming every electrode, with its CRC broken: it must not count."""
        frame = bytearray(wire.encode(wire.Touch(0xFFFF, (1 << (PINS * len(self.chips))) - 1), 0))
        frame[-1] ^= 0xFF
        self._write(bytes(frame))

    def _write(self, data: bytes) -> None:
        with self._lock:
            if self.port is None:
                raise BoardRefused("the board is unplugged")
            self.port.write(data)


COMMANDS = N_("""\
press PAD... | release PAD... | tap PAD MS | pad PAD STRENGTH NOISE | garbage K | corrupt | unplug | replug |
brownout C | cut-chip C | mend-chip C | spikes K | hold-sda K | quit
(PAD a card 0-24, as the table's cards are numbered, or an END TURN pad: end, end2; several at once
for a palm; MS milliseconds; K a number of random bytes; STRENGTH and NOISE in counts: how far a
finger moves the pad, how far it wanders at rest; C a chip 0-2 that a dip in its supply resets,
or whose joint breaks (cut) and is made good (mend);
spikes: one I2C transfer in K fails, 0 none; hold-sda: a chip holds SDA low until K clocks on SCL)""")
"""The emulator's commands, as it shows them when it starts and beside a line it does not know."""


class Pads:
    """The table's pads by the names its owner reads them by, each on the electrode the table's
    wiring gives it: the cards by their number, END TURN's pads as end, end2..."""

    def __init__(self, wiring: TouchBoardConfig) -> None:
        self.electrodes = {str(cell): electrode for electrode, cell in enumerate(wiring.cells) if cell is not None}
        self.cards = len(self.electrodes)
        self.end_turn = [f"end{n + 1}" if n else "end" for n in range(len(wiring.end_turn))]
        self.electrodes.update(zip(self.end_turn, wiring.end_turn))

    def __getitem__(self, name: str) -> int:
        if name.lower() in self.electrodes:
            return self.electrodes[name.lower()]
        names = self.end_turn
        listed = names[0] if len(names) == 1 else Phrase.of("{some} and {last}", some=", ".join(names[:-1]),
                                                             last=names[-1])
        pads = Phrase.of("the cards are 0 to {last}, and END TURN's pads {pads}", last=self.cards - 1, pads=listed)
        if name.isdigit():
            raise BoardRefused("card {name} does not exist: {pads}", name=name, pads=pads)
        raise BoardRefused("not a pad: {name!r}; {pads}", name=name, pads=pads)


def run_commands(emulator: BoardEmulator, lines: Iterable[str], write: Callable[[str], object], wiring: TouchBoardConfig,
                 lang: str = "en") -> None:
    """Act on one command per line until ``quit`` or the end of input; errors are reported (in
    ``lang``) and the emulator goes on. A pad is named as on the table ``wiring`` describes."""
    pads = Pads(wiring)
    for raw in lines:
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "quit":
                return
            if verb in ("unplug", "replug", "corrupt") and not args:
                {"unplug": emulator.unplug, "replug": emulator.plug, "corrupt": emulator.corrupt}[verb]()
            elif verb in ("press", "release") and args:
                getattr(emulator, verb)(*(pads[arg] for arg in args))
            elif verb == "garbage" and len(args) == 1:
                emulator.garbage(_whole(args[0]))
            elif verb == "tap" and len(args) == 2:
                emulator.tap(pads[args[0]], _whole(args[1]))
            elif verb == "pad" and len(args) == 3:
                emulator.set_pad(pads[args[0]], _whole(args[1]), _whole(args[2]))
            elif verb in ("brownout", "cut-chip", "mend-chip", "spikes", "hold-sda") and len(args) == 1:
                getattr(emulator, verb.replace("-", "_"))(_whole(args[0]))
            else:
                raise BoardRefused("not a command: {line!r}; expected {commands}", line=raw.strip(),
                                   commands=Phrase(COMMANDS))
        except BoardRefused as e:
            write(f"emulate-board: {say(e.phrase, lang)}\n")


def _whole(word: str) -> int:
    if not word.isdigit():
        raise BoardRefused("expected a whole number, not {word!r}", word=word)
    return int(word)
