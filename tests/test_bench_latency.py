"""The touch-to-light benchmark: its board's answers, and the figures it prints."""

from __future__ import annotations

import multiprocessing
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pi_table.bench import BenchFailed, held, latency
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


FIGURE = r"p50_ms=\d+\.\d+  p99_ms=\d+\.\d+  max_ms=\d+\.\d+  cpu_pct=\d+\.\d  rss_mb=\d+\.\d"


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


def can_hold() -> bool:
    try:
        held.cpu_controller()
    except BenchFailed:
        return False
    return os.geteuid() == 0


needs_a_cgroup = pytest.mark.skipif(not can_hold(), reason="holding a process to a share of a core needs root and Linux's CPU controller")


@needs_a_cgroup
def test_with_cpu_it_holds_the_table_to_that_share_and_says_how_often_it_waited():
    lines = bench("--touches", "5", "--phones", "3", "--cpu", "50")
    assert re.fullmatch(rf"0 phones +n=5  {FIGURE}  throttled=\d+", lines[1])
    assert re.fullmatch(rf"3 phones +n=5  {FIGURE}  throttled=\d+  push_p50_ms=.*", lines[2])


@needs_a_cgroup
def test_a_held_process_gets_its_share_and_leaves_its_cgroup_as_it_was():
    came_from = Path("/proc/self/cgroup").read_text()
    with held.held(10) as group:
        assert str(os.getpid()) in (group.group / "cgroup.procs").read_text().split()
        started, spent = time.perf_counter(), time.process_time()
        while time.perf_counter() - started < 1.0:  # a second's spin: 0.1 s of a core, in ten periods
            pass
        share = (time.process_time() - spent) / (time.perf_counter() - started)
        assert group.throttled() >= 5
    assert share < 0.2
    assert Path("/proc/self/cgroup").read_text() == came_from and not group.group.exists()


def test_the_cpu_controller_is_found_in_either_cgroup_version(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text("cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0\n"
                      "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n")
    assert held.cpu_controller(mounts) == (Path("/sys/fs/cgroup/cpu,cpuacct"), False)
    (tmp_path / "unified").mkdir()
    (tmp_path / "unified" / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    mounts.write_text(f"cgroup2 {tmp_path / 'unified'} cgroup2 rw,nosuid 0 0\n")
    assert held.cpu_controller(mounts) == (tmp_path / "unified", True)
    (tmp_path / "unified" / "cgroup.controllers").write_text("hugetlb\n")
    with pytest.raises(BenchFailed, match="cannot be held to a share of a core"):
        held.cpu_controller(mounts)
