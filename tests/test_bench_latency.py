"""The touch-to-light benchmark: its board's answers, and the figures it prints."""

from __future__ import annotations

import multiprocessing
import re
import subprocess
import sys
import threading

import pytest

from pi_table.bench import latency
from pi_table.protocol import wire
from pi_table.sim import emulator

pytestmark = pytest.mark.daemon


class LateNotingEmulator:
    """An emulator whose thread writes a report at once but notes it 0.3 s later, as a busy
    machine may run the host's whole reveal between the emulator's write and its note."""

    def __init__(self, link, on_write) -> None:
        self.on_write = on_write

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def press(self, cell: int) -> None:
        frame = wire.encode(wire.Touch(1, 1 << cell), 1)
        threading.Timer(0.3, self.on_write, (frame, 42.0)).start()

    def release(self, cell: int) -> None:
        pass


def test_the_board_says_when_it_wrote_even_when_asked_before_its_note(monkeypatch):
    monkeypatch.setattr(emulator, "BoardEmulator", LateNotingEmulator)
    ours, theirs = multiprocessing.Pipe()
    board = threading.Thread(target=latency._board, args=(theirs, "unused"))
    board.start()
    try:
        assert ours.poll(5) and ours.recv() == "ready"
        ours.send(("press", 3))
        ours.send(("written", 3))  # at once: the note is still 0.3 s away
        assert ours.poll(5) and ours.recv() == 42.0
    finally:
        ours.send(("quit", 0))
        board.join(timeout=5)


FIGURE = r"p50_ms=\d+\.\d+  p99_ms=\d+\.\d+  max_ms=\d+\.\d+"


def bench(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pi_table", "bench", "latency", *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_benchmark_prints_its_figures():
    assert len(lines := bench("--touches", "5")) == 1
    assert re.fullmatch(rf"n=5  {FIGURE}", lines[0])


def test_with_phones_it_prints_both_figures_and_their_ratio():
    lines = bench("--touches", "5", "--phones", "3")
    assert len(lines) == 3
    assert re.fullmatch(r"p50_ratio=\d+\.\d+  p99_ratio=\d+\.\d+", lines[0])
    assert re.fullmatch(rf"0 phones +n=5  {FIGURE}", lines[1])
    assert re.fullmatch(rf"3 phones +n=5  {FIGURE}  push_p50_ms=\d+\.\d+  push_p99_ms=\d+\.\d+  skipped=\d+", lines[2])


def test_a_crowd_past_the_companion_cap_is_refused_by_name():
    done = subprocess.run([sys.executable, "-m", "pi_table", "bench", "latency", "--phones", "100000"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and f"--phones is a whole number from 1 to {latency.MAX_PHONES}" in done.stderr
