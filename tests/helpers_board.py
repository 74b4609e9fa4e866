"""The touch board's stand-ins: its end of a pty, one that keeps its link up as the firmware does, and
the board emulator beside a daemon started and killed at will."""

from __future__ import annotations

import json
import os
import threading
import time
import tty
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pi_table.engine import GameRecord, Rules, Team, make_game, parse_action
from pi_table.protocol import wire

from helpers import wait_for

if TYPE_CHECKING:
    from pi_table.sim.systemd import FakeSystemd
from pi_table.engine import parse_action


def electrode_of(cell: int) -> int:
    """The electrode under ``cell``'s pad in the reference wiring, which a configuration without
    [touch] cell_electrodes uses: the emulator is pressed by electrode, as a board is."""
    from pi_table.hardware import pinout

    return pinout.load().cell_electrodes[cell]


# The touch board's end of a pty -----------------------------------------------------------------


class Board:
    """The board's end of a pty, linked from a stable path; it speaks only when told to."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.plug()

    def plug(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.decoder = wire.Decoder()
        self.pending: list[wire.Message] = []
        self.seq = 0
        self.counter = 0
        temporary = self.link.with_name(self.link.name + ".new")
        temporary.symlink_to(os.ttyname(self._slave))
        temporary.replace(self.link)

    def unplug(self) -> None:
        """Pull the cable: the link goes and the host's next read fails."""
        self.link.unlink(missing_ok=True)
        os.close(self.master)
        os.close(self._slave)

    def write(self, data: bytes) -> None:
        deadline = time.monotonic() + 3
        while data:
            try:
                data = data[os.write(self.master, data):]
            except BlockingIOError:  # the pty is full until the host reads
                if time.monotonic() > deadline:
                    pytest.fail("the host stopped reading")
                time.sleep(0.005)

    def send(self, message: wire.Message) -> None:
        self.write(wire.encode(message, self.seq))
        self.seq = (self.seq + 1) & 0xFF

    def touch(self, value: int) -> None:
        """A touch report; the counter moves only on a change, as the firmware's does."""
        self.counter += 1
        self.send(wire.Touch(self.counter, value))

    def heartbeat(self, value: int) -> None:
        self.send(wire.Touch(self.counter, value))

    def receive(self, timeout: float = 3.0) -> wire.Message:
        """The host's next frame."""
        deadline = time.monotonic() + timeout
        while not self.pending:
            if time.monotonic() > deadline:
                pytest.fail(f"the host sent nothing within {timeout} s")
            try:
                self.pending += [message for _, message in self.decoder.feed(os.read(self.master, 256))]
            except BlockingIOError:
                time.sleep(0.005)
        return self.pending.pop(0)

    def greet(self, protocol: tuple[int, int] = (wire.PROTOCOL_MAJOR, 0)) -> None:
        """Answer the host's get-hello."""
        assert self.receive() == wire.GetHello()
        self.send(wire.Hello(protocol, (0, 1, 0), "test-board", 36))


class LiveBoard(Board):
    """A board that keeps its end up as the firmware does, in a thread of its own: each get-hello
    answered, whenever the host asks (a host that reconnects asks again), and the pads reported
    at every change and every quarter second (the firmware's heartbeat), so a table that
    times a silent board out finds this one alive however slowly it runs. ``press`` and
    ``release`` are a finger's, on an electrode."""

    HEARTBEAT_S = 0.25

    def __init__(self, link: Path) -> None:
        super().__init__(link)
        self.pads = 0
        self.hellos = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="live-board", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.wait(self.HEARTBEAT_S):
            with self._lock:
                try:
                    self.pending += [message for _, message in self.decoder.feed(os.read(self.master, 256))]
                except BlockingIOError:
                    pass
                for message in self.pending:
                    if message == wire.GetHello():
                        self.send(wire.Hello((wire.PROTOCOL_MAJOR, 0), (0, 1, 0), "test-board", 36))
                        self.hellos += 1
                self.pending.clear()
                self.heartbeat(self.pads)

    def press(self, electrode: int) -> None:
        with self._lock:
            self.pads |= 1 << electrode
            self.touch(self.pads)

    def release(self, electrode: int) -> None:
        with self._lock:
            self.pads &= ~(1 << electrode)
            self.touch(self.pads)

    def unplug(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        super().unplug()


HOLD_S = 0.05
TAP_MS = 150  # past the hold with room to spare: a driver thread late to read the press still sees a hold


class EmulatedTable:
    """The board emulator, a configuration, and the daemon started and killed at will."""

    def __init__(self, folder: Path, limit_fsize: int | None = None) -> None:
        self.folder = folder
        self.journal = folder / "journal"
        self.socket = folder / "control.sock"
        from pi_table.sim.emulator import BoardEmulator

        self.emulator = BoardEmulator(link=folder / "touch-board")
        self.emulator.start()
        self.config = folder / "config.toml"
        self.config.write_text(
            f'[game]\nhold_s = {HOLD_S}\n'
            f'[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n'
        )
        self.limit_fsize = limit_fsize
        self.service: FakeSystemd | None = None

    def start(self, phones: bool = True) -> None:
        """The daemon started as the unit starts it, until READY; with ``phones``, until its phones'
        pages have opened too (``FakeSystemd.start``)."""
        from pi_table.sim.systemd import FakeSystemd

        self.service = FakeSystemd(
            ["--hal", "sim", "--touch-port", str(self.emulator.link), "--config", str(self.config)],
            log=self.folder / "daemon.log", limit_fsize=self.limit_fsize,
        )
        self.service.start(phones=phones)

    def connected(self) -> None:
        wait_for(lambda: self.status()["health"]["touch"] == "ok", "the daemon's hello with the board")

    def status(self) -> dict:
        from pi_table.daemon.control import request

        return request(self.socket, "status")

    def tap(self, cell: int) -> None:
        """A finger on a card's pad for TAP_MS, then a pause: two taps closer than the board's
        scan would overlap, and two cards touched at once count as nothing (a spill)."""
        self.tap_electrode(electrode_of(cell))

    def tap_electrode(self, electrode: int) -> None:
        self.emulator.tap(electrode, TAP_MS)
        time.sleep(0.03)

    def guess(self, cell: int) -> None:
        """A finger on a card's pad until the table shows the card revealed, then lifted. A tap
        of a fixed length proves nothing on a loaded machine: the emulator's scan may sleep
        through it (issue 40: a test saw no guess in 5 s), never through a finger held."""
        self.emulator.press(electrode_of(cell))
        try:
            wait_for(lambda: self.status()["state"]["board"][cell] != "?", f"card {cell} revealed", timeout=30)
        finally:
            self.emulator.release(electrode_of(cell))

    def kill(self) -> None:
        self.service.kill()
        self.service.close()

    def close(self) -> None:
        if self.service is not None:
            self.service.close()
        self.emulator.stop()

    def game_file(self) -> Path:
        return max(self.journal.glob("*.jsonl"))

    def entries(self, path: Path | None = None) -> list[str]:
        """The complete entries of a game file, as text: what a restart must replay."""
        lines = (path or self.game_file()).read_text().split("\n")[:-1]  # a torn last line is no entry
        return [json.loads(line)["action"] for line in lines[1:]]

    def expected(self, path: Path | None = None, entries: list[str] | None = None) -> dict:
        """The table view after ``entries`` on the game's key, by the engine alone."""
        path = path or self.game_file()
        header = json.loads(path.read_text().split("\n")[0])
        game = make_game(Rules.from_json(header["rules"]))
        key = game.parse_key(header["key"], Team.parse(header["start"]))
        entries = self.entries(path) if entries is None else entries
        record = GameRecord.replay(game, key, [parse_action(text) for text in entries])
        return game.table_view(record.state).to_json()
