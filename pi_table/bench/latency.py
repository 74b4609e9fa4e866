"""Touch-to-light latency over the real serial path.

The board emulator (the firmware on fake chips) runs in its own process, as the board is its
own machine, and writes its touch reports into a pty; the real pyserial driver reads them, the
table loop takes the guess and renders the LED frame. We time from the moment the board writes
the report that completes a guess to the moment the frame showing the reveal is handed to the
LED backend (both on the system-wide monotonic clock). The hold is set to zero, so the report
itself completes the guess and no hold time is inside the figure.
"""

from __future__ import annotations

import multiprocessing
import random
import tempfile
import threading
import time
from pathlib import Path

from . import percentiles
from ..drivers.touchboard import TouchBoardConfig, TouchBoardSource
from ..engine import Rules
from ..hal import LedFrame, LedStrip, NewGame, SimButtons, SimScreen, UiEvent
from ..protocol import wire
from ..table import Session, TableLoop
from ..table.input import InputSettings, TouchPolicy
from ..ui.leds import REVEALED

REVEAL_COLOURS = set(REVEALED.values())


def _board(conn, link: str) -> None:
    """The emulator's process: presses what it is told, and notes when it wrote the report
    that carried the awaited press (answered on request, so the note never competes with the
    host for the processor while the host is working)."""
    from ..sim.emulator import BoardEmulator

    awaited: dict[str, float | int | None] = {"cell": None, "written": None}
    decoder = wire.Decoder()

    def wrote(data: bytes, when: float) -> None:
        for _, message in decoder.feed(data):
            cell = awaited["cell"]
            if cell is not None and awaited["written"] is None and isinstance(message, wire.Touch):
                if message.mask >> cell & 1:
                    awaited["written"] = when

    emulator = BoardEmulator(link=Path(link), on_write=wrote)
    emulator.start()
    conn.send("ready")
    try:
        while True:
            command, cell = conn.recv()
            if command == "quit":
                return
            if command == "written":
                conn.send(awaited["written"])
                continue
            if command == "press":
                awaited.update(cell=cell, written=None)
            getattr(emulator, command)(cell)
    finally:
        emulator.stop()


class _Stopwatch(LedStrip):
    """The LED backend of the benchmark: notes when the awaited reveal is handed to it."""

    def __init__(self) -> None:
        self.cell: int | None = None
        self.shown_at = 0.0
        self.shown = threading.Event()

    def show(self, frame: LedFrame) -> None:
        cell = self.cell
        if cell is not None and not self.shown.is_set() and frame.cells[cell] in REVEAL_COLOURS:
            self.shown_at = time.perf_counter()
            self.shown.set()


def run(touches: int = 200, seed: int = 1) -> dict:
    watch = _Stopwatch()
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    link = Path(tempfile.mkdtemp(prefix="pi-table-bench-")) / "touch-board"
    board = context.Process(target=_board, args=(theirs, str(link)), daemon=True)
    board.start()
    if not ours.poll(30) or ours.recv() != "ready":
        raise RuntimeError("the board emulator did not start within 30 s")
    session = Session(Rules(), rng=random.Random(seed))
    driver = TouchBoardSource(TouchBoardConfig(port=str(link)))
    loop = TableLoop(session, driver, watch, SimScreen(keep=1), SimButtons(), TouchPolicy(InputSettings(hold_s=0.0)))
    loop.open()
    runner = threading.Thread(target=loop.run, name="table-loop")
    runner.start()
    samples = []
    try:
        _wait(lambda: driver.connected, "the driver to say hello to the emulator")
        rng = random.Random(seed)
        for _ in range(touches):
            if session.state.is_over:
                loop.post(UiEvent(NewGame()))
                _wait(lambda: not session.state.is_over, "a new game")
            cell = rng.choice([cell for cell, shown in enumerate(session.table_view().board) if shown == "?"])
            watch.cell = cell
            watch.shown.clear()
            ours.send(("press", cell))
            if not watch.shown.wait(5):
                raise RuntimeError(f"no reveal of card {cell} within 5 s")
            ours.send(("written", cell))
            samples.append(watch.shown_at - ours.recv())
            watch.cell = None
            ours.send(("release", cell))
            _wait(lambda: not loop.policy.pressed, "the release to arrive")
    finally:
        loop.stop_soon()
        runner.join(timeout=5)
        loop.close()
        ours.send(("quit", 0))
        board.join(timeout=5)
    return {"n": len(samples), **percentiles(samples), "max_ms": round(max(samples) * 1000, 3)}


def _wait(condition, what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.001)
