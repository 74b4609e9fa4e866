"""Benchmarks that print their figures (run them with ``pi-table bench``)."""

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import PiTableError


class BenchFailed(PiTableError, RuntimeError):
    """A benchmark that could not measure (a table that never started, a page that answered
    wrong, figures that disagree): what it says is the run's failure, not a figure."""


def percentiles(seconds: list[float], digits: int = 3) -> dict[str, float]:
    """p50 and p99 of durations given in seconds, in milliseconds (p99 never above the max)."""
    cuts = statistics.quantiles([s * 1000 for s in seconds], n=100, method="inclusive")
    return {"p50_ms": round(cuts[49], digits), "p99_ms": round(cuts[98], digits)}


def wait(condition: Callable[[], bool], what: str, timeout: float, every: float) -> None:
    """Poll ``condition`` every ``every`` s; a benchmark whose table never gets there stops, naming what."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise BenchFailed(f"waited {timeout:g} s for {what}")
        time.sleep(every)


def rss_mb(pid: int) -> float:
    """A process's resident memory now, in MB (/proc/PID/status, VmRSS); NaN once it has none."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
