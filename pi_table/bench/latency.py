"""Touch-to-light latency over the real serial path.

The board emulator (the firmware on fake chips) runs in its own process, as the board is its
own machine, and writes its touch reports into a pty; the real pyserial driver reads them, the
table loop judges the touch and renders the LED frame. We time from the moment the board writes
the report that carries the press to the moment the frame lighting that card as touched (the
pending light, which does not wait for the hold) is handed to the LED backend (both on the
system-wide monotonic clock), so no hold time is inside the figure. The hold is the shortest the
configuration allows, and each touch is held until its reveal, so every one is a guess; each is
one pad, so a report with several (a palm) never comes into it.

With phones, the companion serves beside the table as the daemon wires it, and that many
phones, in a process of their own (they are other machines), each from a loopback address of
its own, hold the public page's event stream open: every reveal is pushed to all of them while
the next guess is timed. The phones note when each view first reached them, so the figure
comes with how long a reveal took to reach the last phone, and how many views a phone skipped
because a newer one was there before its turn (a stream sends the newest view).

Each figure comes with what the table's process spent while the guesses were timed: its CPU
(100 % is one core) and its resident memory. Held to a share of a core (``held``), as a slower
Pi, or one busy with its screen and sound, gives it, it also counts the periods the process
waited out its quota spent: a touch that comes then waits for the next period.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TypedDict

from ..drivers.settings import TouchBoardConfig
from ..drivers.touchboard import TouchBoardSource
from ..engine import Rules
from ..files import read_json
from ..hal import LedFrame, LedStrip, NewGame, Screen, SimButtons, SimScreen, UiEvent
from ..kinds import SerialDevice
from ..protocol import wire
from ..table import Session, TableLoop
from ..table.input import HOLD_MIN_S, InputSettings, TouchPolicy
from ..ui.leds import PENDING, REVEALED
from ..web import Companion, CompanionScreen, Tokens
from ..web.doors import MAX_CONNECTIONS
from . import BenchFailed, percentiles, wait
from .held import held

REVEAL_COLOURS = set(REVEALED.values())


class Crowd(TypedDict):
    """What the phones' process answers: how many phones hold a stream, and for each view (its
    game and board) how many phones got it and when the last one did."""

    connected: int
    views: dict[str, list[float]]  # [phones, when]: a count, then a time (perf_counter's)


def _board(conn: Connection[str | float | None, tuple[str, int]], link: str) -> None:
    """The emulator's process: presses what it is told, and notes when it wrote the report
    that carried the awaited press (answered on request, so the note never competes with the
    host for the processor while the host is working)."""
    from ..sim.emulator import BoardEmulator

    awaited: dict[str, float | int | None] = {"cell": None, "written": None}
    noted = threading.Event()  # the emulator's thread noted the write of the awaited press
    decoder = wire.Decoder()

    def wrote(data: bytes, when: float) -> None:
        for _, message in decoder.feed(data):
            cell = awaited["cell"]
            if (isinstance(cell, int) and not noted.is_set() and isinstance(message, wire.Touch)
                    and message.mask >> cell & 1):
                awaited["written"] = when
                noted.set()

    emulator = BoardEmulator(link=Path(link), on_write=wrote)
    emulator.start()
    conn.send("ready")
    try:
        while True:
            command, cell = conn.recv()
            if command == "quit":
                return
            if command == "written":
                # The host can read the report, reveal and ask before the emulator's thread,
                # between its write and this note, runs again: wait for the note.
                conn.send(awaited["written"] if noted.wait(NOTE_S) else None)
                continue
            if command == "press":
                noted.clear()
                awaited.update(cell=cell, written=None)
            getattr(emulator, command)(cell)
    finally:
        emulator.stop()


class _Stopwatch(LedStrip):
    """The LED backend of the benchmark: notes when the awaited card first lights as touched,
    and when its reveal is handed to it."""

    def __init__(self) -> None:
        self.cell: int | None = None
        self.shown_at = self.revealed_at = 0.0
        self.shown = threading.Event()
        self.revealed = threading.Event()

    def show(self, frame: LedFrame) -> None:
        cell = self.cell
        if cell is None:
            return
        if not self.shown.is_set() and frame.cells[cell] == PENDING:
            self.shown_at = time.perf_counter()
            self.shown.set()
        if not self.revealed.is_set() and frame.cells[cell] in REVEAL_COLOURS:
            self.revealed_at = time.perf_counter()
            self.revealed.set()


NOTE_S = 5.0
STEP_S = 5.0  # for a step of the table in this process (a new game, a release), polled every ms
PHONES_READY_S = 30.0
MAX_PHONES = MAX_CONNECTIONS  # a connection each: past the companion's cap it turns them away


def _phones(conn: Connection[Crowd | str, str], port: int, count: int) -> None:
    """The phones' process: ``count`` phones, each from an address of its own in 127.0.0.0/8,
    hold the public event stream open and note when each view first reached each of them.
    Asked, it answers with, for each view, how many phones got it and when the last one did.

    The phones are other machines: here they share the table's processor, so their process runs
    only on time the table leaves (Linux's SCHED_IDLE). At the table's priority, its reading 300
    streams competed with the table's threads for two cores and set much of the figure's tail
    (p99 3.6-4.1 ms, against 2.0-3.4 ms at nice 19, in runs on one machine). At nice 19 it still
    kept a core from a table thread that woke for a touch: timed at each step, the tail was the
    board's reader and the table loop waking (0.2 ms at the median, 3-4 ms at p99), and under
    SCHED_IDLE the p99 fell from 3.6-4.9 ms to 2.0-2.5 ms (three runs each, taken in turns, 300
    touches with 300 phones). The rest is the companion's own burst: one reveal written to 300
    streams takes it about 3 ms, while the table's threads share the interpreter with it."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux: the lowest priority there is
        os.nice(19)
    asyncio.run(_hold_streams(conn, port, count))


async def _hold_streams(conn: Connection[Crowd | str, str], port: int, count: int) -> None:
    seen: list[dict[bytes, float]] = [{} for _ in range(count)]  # per phone: event line -> first arrival
    keys: dict[bytes, str | None] = {}  # event line -> its game and board (None: not a board)

    async def phone(n: int) -> None:
        address = f"127.0.{1 + n // 250}.{1 + n % 250}"
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        writer.write(b"GET /api/public/events HTTP/1.0\r\nHost: table\r\n\r\n")  # 1.0: no chunks to undo
        while (line := await reader.readline()) not in (b"\r\n", b""):  # the answer's headers
            pass
        while line := await reader.readline():
            if line.startswith(b"data: "):
                seen[n].setdefault(line, time.perf_counter())

    streams = [asyncio.create_task(phone(n)) for n in range(count)]
    loop = asyncio.get_running_loop()
    while True:
        command = await loop.run_in_executor(None, conn.recv)
        if command == "quit":
            break
        failed = [task.exception() for task in streams if task.done() and not task.cancelled() and task.exception()]
        if failed:
            conn.send(f"a phone's stream failed: {failed[0]!r}")
            continue
        views: dict[str, list[float]] = {}  # game and board -> [phones that got it, when the last one did]
        for lines in seen:
            for line, when in lines.items():
                if line not in keys:
                    view = read_json(line[6:])
                    keys[line] = f"{view['game_id']} {view['view']['board']}" if view.get("kind") == "board" else None
                if (key := keys[line]) is None:
                    continue
                got = views.setdefault(key, [0, 0.0])
                got[0] += 1
                got[1] = max(got[1], when)
        conn.send({"connected": sum(1 for lines in seen if lines), "views": views})
    for task in streams:
        task.cancel()


def run(touches: int = 200, seed: int = 1, phones: int | None = None, cpu: float | None = None) -> dict[str, float]:
    """Time ``touches`` guesses; with ``phones`` (0 or more), the companion serves beside the
    table and that many phones hold its event stream open; with ``cpu``, the table's process is
    held to that percentage of a core while the guesses are timed (``held``)."""
    watch = _Stopwatch()
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    link = Path(tempfile.mkdtemp(prefix="pi-table-bench-")) / "touch-board"
    board = context.Process(target=_board, args=(theirs, str(link)), daemon=True)
    board.start()
    if not ours.poll(30) or ours.recv() != "ready":
        raise BenchFailed("the board emulator did not start within 30 s")
    session = Session(Rules(), rng=random.Random(seed))
    driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(str(link))))
    screen: Screen = SimScreen(keep=1)
    companion: Companion | None = None
    crowd: Connection[str, Crowd | str] | None = None
    if phones is not None:
        companion = Companion("127.0.0.1", 0)
        companion.start()
        screen = CompanionScreen(screen, companion, Tokens.kept_in(None))
    loop = TableLoop(session, driver, watch, screen, SimButtons(), TouchPolicy(InputSettings(hold_s=HOLD_MIN_S)))
    loop.open()
    runner = threading.Thread(target=loop.run, name="table-loop")
    runner.start()
    try:
        if phones and companion is not None:
            crowd, crowd_end = context.Pipe()
            context.Process(target=_phones, args=(crowd_end, companion.port, phones), daemon=True).start()
            wait(lambda: _ask(crowd)["connected"] == phones, f"{phones} phones to open the event stream",
                 PHONES_READY_S, every=0.05)
        wait(lambda: driver.connected, "the driver to say hello to the emulator", STEP_S, every=0.001)
        if cpu is None:
            samples, shown, figures = _guesses(touches, seed, session, loop, watch, ours)
        else:
            with held(cpu) as group:
                before = group.throttled()
                samples, shown, figures = _guesses(touches, seed, session, loop, watch, ours)
                figures["throttled"] = group.throttled() - before
        pushed = _pushed(crowd, shown, phones) if phones and crowd is not None else {}
    finally:
        loop.stop_soon()
        runner.join(timeout=5)
        loop.close()
        ours.send(("quit", 0))
        board.join(timeout=5)
        if crowd is not None:
            crowd.send("quit")
        if companion is not None:
            companion.stop()
    return {"n": len(samples), **percentiles(samples), "max_ms": round(max(samples) * 1000, 3), **figures, **pushed}


def _guesses(touches: int, seed: int, session: Session, loop: TableLoop, watch: _Stopwatch,
             board: Connection[tuple[str, int], float | None]) -> tuple[list[float], dict[str, float], dict[str, float]]:
    """Play ``touches`` guesses: each one's time from the board's write to its light; when each
    reveal's frame was shown, by view; and what the table's process spent meanwhile, its CPU (100 %
    is one core) and its memory resident at the end."""
    samples: list[float] = []
    shown: dict[str, float] = {}  # view -> when its frame was shown
    rng = random.Random(seed)
    started, spent = time.perf_counter(), time.process_time()
    for _ in range(touches):
        if session.state.is_over:
            loop.post(UiEvent(NewGame()))
            wait(lambda: not session.state.is_over, "a new game", STEP_S, every=0.001)
        cell = rng.choice([cell for cell, shown in enumerate(session.table_view().board) if shown == "?"])
        watch.cell = cell
        watch.shown.clear()
        watch.revealed.clear()
        board.send(("press", cell))
        if not watch.shown.wait(5):
            raise BenchFailed(f"card {cell} did not light as touched within 5 s")
        if not watch.revealed.wait(5):
            raise BenchFailed(f"no reveal of card {cell} within 5 s")
        board.send(("written", cell))
        written = board.recv()
        if written is None:
            raise BenchFailed(f"the emulator did not note writing the press of card {cell} within {NOTE_S} s")
        samples.append(watch.shown_at - written)
        shown[f"{session.id} {session.table_view().board}"] = watch.revealed_at
        watch.cell = None
        board.send(("release", cell))
        wait(lambda: not loop.policy.pressed, "the release to arrive", STEP_S, every=0.001)
    cpu = (time.process_time() - spent) / (time.perf_counter() - started)
    resident = int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return samples, shown, {"cpu_pct": round(cpu * 100, 1), "rss_mb": round(resident / 2**20, 1)}


def compare(touches: int, phones: int, seed: int = 1, cpu: float | None = None) -> dict[str, float | dict[str, float]]:
    """The figure with the companion and no phone, then with ``phones`` phones, and their ratio."""
    alone = run(touches, seed, phones=0, cpu=cpu)
    crowded = run(touches, seed, phones=phones, cpu=cpu)
    return {
        "p50_ratio": round(crowded["p50_ms"] / alone["p50_ms"], 2),
        "p99_ratio": round(crowded["p99_ms"] / alone["p99_ms"], 2),
        "0 phones": alone,
        f"{phones} phones": crowded,
    }


def _ask(crowd: Connection[str, Crowd | str]) -> Crowd:
    crowd.send("views")
    answer = crowd.recv()
    if isinstance(answer, str):  # the phones' process says what went wrong in words
        raise BenchFailed(answer)
    return answer


def _pushed(crowd: Connection[str, Crowd | str], shown: dict[str, float], phones: int) -> dict[str, float]:
    """How long each reveal took from its LED frame to the last phone, once every phone has the
    last one; and how many (reveal, phone) pushes were skipped (a stream sends the newest view,
    so a phone that lags a whole reveal behind skips one)."""
    last = max(shown, key=lambda view: shown[view])
    wait(lambda: _ask(crowd)["views"].get(last, [0])[0] == phones, "every phone to get the last reveal",
         PHONES_READY_S, every=0.05)
    views = _ask(crowd)["views"]
    delays = [views[view][1] - when for view, when in shown.items() if view in views]
    return {
        **{f"push_{name}": value for name, value in percentiles(delays).items()},
        "skipped": len(shown) * phones - sum(views[view][0] for view in shown if view in views),
    }
