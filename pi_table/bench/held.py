"""A benchmark's process held to a share of one core, as a slower or busier Pi gives the table.

Linux's CPU controller does it, the mechanism behind systemd's ``CPUQuota=``, with systemd's
period (100 ms): a cgroup of its own whose quota is the share of each period (cgroup v2's
``cpu.max``, v1's ``cpu.cfs_quota_us``). The process is moved in, and back to the cgroup it came
from when the figure is taken, so processes it started before (the board, the phones: other
machines) are not held. It needs the right to make a cgroup (root here): without it the
benchmark stops and says so, never runs unheld under a held figure's name.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import BenchFailed

PERIOD_US = 100_000  # systemd's CPUQuotaPeriodSec= default
MOUNTS = Path("/proc/self/mounts")


@dataclass
class Held:
    """The cgroup holding the process; ``throttled()`` counts the periods it was made to wait
    for the next one, its quota spent."""

    group: Path
    v2: bool

    def throttled(self) -> int:
        for line in (self.group / "cpu.stat").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "nr_throttled":
                return int(value)
        raise BenchFailed(f"{self.group}/cpu.stat says nothing of nr_throttled")


def cpu_controller(mounts: Path = MOUNTS) -> tuple[Path, bool]:
    """Where Linux's CPU controller is mounted, and whether it is cgroup v2's."""
    found: tuple[Path, bool] | None = None
    for line in mounts.read_text().splitlines():
        _, where, kind, options, *_ = line.split()
        if kind == "cgroup" and "cpu" in options.split(","):
            return Path(where), False
        if kind == "cgroup2" and "cpu" in (Path(where) / "cgroup.controllers").read_text().split():
            found = Path(where), True
    if found is None:
        raise BenchFailed("no cgroup here has Linux's CPU controller: the process cannot be held to a share of a core")
    return found


@contextmanager
def held(percent: float, mounts: Path = MOUNTS) -> Iterator[Held]:
    """This process held to ``percent`` of one core while inside."""
    root, v2 = cpu_controller(mounts)
    came_from = root / _own_group(v2)
    group = root / f"pi-table-bench-{os.getpid()}"
    quota = max(1000, round(PERIOD_US * percent / 100))  # the kernel's least quota is 1 ms
    try:
        group.mkdir()
    except PermissionError as e:
        raise BenchFailed(f"holding the table to {percent:g} % of a core makes a cgroup in {root}, which this user "
                           "may not (run the benchmark as root)") from e
    try:
        if v2:
            (group / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
        (group / "cgroup.procs").write_text(str(os.getpid()))
        try:
            yield Held(group, v2)
        finally:
            (came_from / "cgroup.procs").write_text(str(os.getpid()))
    finally:
        group.rmdir()


def _own_group(v2: bool) -> str:
    """This process's cgroup under the CPU controller, relative to its mount."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if (v2 and controllers == "") or "cpu" in controllers.split(","):
            return path.lstrip("/")
    raise BenchFailed("/proc/self/cgroup names no cgroup of Linux's CPU controller for this process")
