"""How fast the daemon comes up and resumes a game.

``start``: ``pi-table run --hal sim`` in a child process, from the fork to systemd's
``READY=1`` (the FakeSystemd stand-in hears it on a real notify socket), and the daemon's
resident memory then: a figure, with no target (a Pi boots in about 20 s and systemd waits 2 s
before a restart, so no player notices tens of milliseconds). A bare ``python -c pass`` is timed
in the same run, to read the figure against the interpreter's own start on this (noisy)
machine. One start before them is not timed: it writes the modules' bytecode, which pip
compiles when it installs a release, so the figure is the daemon's start and not the
compiler's (a shell or CI with ``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every
module at every start).

``stop``: from SIGTERM to the process's exit, journal closed and socket removed (systemd's
``systemctl stop`` and every restart wait for it).

``resume``: ``Session.resume`` of a journal holding a 50-action game: reading the file,
replaying every entry and reopening it for appending, as a restart does.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..engine import EndTurn, Guess, Rules, Undo
from ..sim.systemd import FakeSystemd
from ..table import Session
from . import BenchFailed, percentiles, rss_mb

CONFIG = '[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n'


def run(starts: int = 30, resumes: int = 50, actions: int = 50) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="pi-table-bench-") as folder:
        start_to_ready, stop = _starts(Path(folder), starts)
        return {
            "start_to_ready": start_to_ready,
            "sigterm_to_exit": stop,
            "resume": _resumes(Path(folder) / "resume", resumes, actions),
        }


def _starts(folder: Path, count: int) -> tuple[dict[str, float], dict[str, float]]:
    config = folder / "config.toml"
    config.write_text(CONFIG)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # for the children: the bytecode is written once
    _start_and_stop(config)
    ready, bare, rss, stop = [], [], [], []
    for _ in range(count):
        took, resident, stopped = _start_and_stop(config)
        ready.append(took)
        rss.append(resident)
        stop.append(stopped)
        began = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.monotonic() - began)
    figures = percentiles(ready)
    return {
        "runs": count,
        **figures,
        "python_start_p50_ms": percentiles(bare)["p50_ms"],
        "ratio_to_python_start": round(figures["p50_ms"] / percentiles(bare)["p50_ms"], 1),
        "rss_mb": round(max(rss), 1),
    }, {"runs": count, **percentiles(stop)}


def _start_and_stop(config: Path) -> tuple[float, float, float]:
    """One start: seconds to READY, resident MB then, seconds from SIGTERM to the exit."""
    service = FakeSystemd(["--hal", "sim", "--config", str(config)])
    try:
        ready = service.start()
        assert service.process is not None  # started
        rss = rss_mb(service.process.pid)
        time.sleep(0.5)  # up and idle, as a table is when it is stopped
        began = time.monotonic()
        if service.stop() != 0:
            raise BenchFailed(f"the daemon did not stop cleanly: {service.log_tail()}")
        return ready, rss, time.monotonic() - began
    finally:
        service.close()


def _resumes(folder: Path, count: int, actions: int) -> dict[str, float]:
    """Turns of: two guesses on the playing team's own cards, an undo, END TURN. Each turn
    shows one card net, so 50 actions leave the game going, as a resume finds it."""
    rules = Rules()
    session = Session(rules, rng=random.Random(1), journal_dir=folder)
    key = session.record.key.cells
    turn = ("guess", "guess", "undo", "end-turn")
    while len(session.record.entries) < actions:
        step = turn[len(session.record.entries) % len(turn)]
        if step == "guess":
            team = session.grid.state.team.value[0].upper()  # "R" or "B", the key's letters
            session.submit(Guess(next(c for c, shown in enumerate(session.table_view().board)
                                      if shown == "?" and key[c] == team)))
        else:
            session.submit(Undo() if step == "undo" else EndTurn())
    session.close()
    times = []
    for _ in range(count):
        began = time.perf_counter()
        resumed = Session.resume(rules, folder, fsync=False)
        times.append(time.perf_counter() - began)
        if resumed.record.entries != session.record.entries or resumed.state.is_over:
            raise BenchFailed("the resumed game is not the game written")
        resumed.close()
    return {"actions": len(session.record.entries), "runs": count, **percentiles(times)}
