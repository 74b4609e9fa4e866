"""``pi-table bench fleet``: many tables through one Mosquitto to the fleet's dashboard.

Each simulated table is the real reporter (``pi_table.fleet.reporter.Reporter``, its own
paho client, session and last will), fed made-up statuses at a steady rate shared among them.
The dashboard is ``pi-table fleet`` in a process of its own, logged into as a person would,
its live stream read here. Figures: the end-to-end latency of a status update (the reporter
made it, the broker passed it on, the dashboard took it in and streamed it out, this process
read it), p50 and p99; the broker's and the dashboard's CPU over the measured seconds (100 % is
one core). Needs Debian's mosquitto; it binds loopback ports only.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .. import config, version
from ..fleet.broker import LocalBroker
from ..fleet.dashboard import write_password_file
from ..fleet.reporter import Reporter
from . import percentiles

MAX_TABLES = 1000
PASSWORD = "bench-fleet-password"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """A process's user and system CPU seconds so far (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def status(table: int, step: int) -> dict:
    """What a daemon hands its reporter, with a board that changes at every step."""
    board = "".join("R" if (step >> bit) & 1 else "?" for bit in range(25))
    return {"version": version(), "game_id": f"bench-{table}", "uptime_s": float(step), "began": time.time(),
            "state": {"game": "codenames", "board": board, "phase": "guess", "clue": 2, "winner": None, "losers": []},
            "health": {"touch": "ok", "leds": "ok", "screen": "ok", "buttons": "ok"}, "warnings": []}


class Stream:
    """The dashboard's live stream read in a thread: each status update's latency once."""

    def __init__(self, port: int, cookie: str) -> None:
        self.connection, self.response = live_stream(port, cookie)
        self.latencies: list[float] = []
        self.seen: set[tuple[str, float]] = set()
        self.measuring = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.response:
                if not line.startswith(b"data: "):
                    continue
                now = time.time()
                row = json.loads(line[6:])
                stamp = (row["table_id"], row["reported_at"])
                if row["reported_at"] is None or stamp in self.seen:
                    continue  # an online or event message: the same status again
                self.seen.add(stamp)
                if self.measuring:
                    self.latencies.append(now - row["reported_at"])
        except (OSError, ValueError):
            return


def live_stream(port: int, cookie: str) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """The dashboard's live stream (its server-sent events), opened as the page opens it."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", "/events", headers={"Cookie": cookie})
    response = connection.getresponse()
    if response.status != 200:
        raise RuntimeError(f"the dashboard's stream answered {response.status}")
    return connection, response


def login(port: int, password: str = PASSWORD) -> str:
    """The session cookie, from the login form as a browser posts it."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/login", body=f"password={password}",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    cookie = response.getheader("Set-Cookie", "")
    connection.close()
    if response.status != 303 or not cookie:
        raise RuntimeError(f"the dashboard's login answered {response.status}")
    return cookie.split(";", 1)[0]


def run(tables: int = 200, seconds: float = 10.0, rate: float = 100.0) -> dict:
    """Start a broker, the dashboard and ``tables`` reporters; feed them ``rate`` status
    changes a second (round the tables) for ``seconds``; the figures."""
    with tempfile.TemporaryDirectory(prefix="pi-table-bench-fleet-") as name:
        folder = Path(name)
        broker = LocalBroker(folder / "broker", settings="max_queued_messages 100000\n")
        broker.start()
        write_password_file(folder / "password", PASSWORD)
        dashboard = subprocess.Popen(
            [sys.executable, "-m", "pi_table", "fleet", "--broker", broker.url, "--password-file",
             str(folder / "password"), "--port", "0", "--client-id", "bench-dashboard"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        reporters: list[Reporter] = []
        try:
            line = dashboard.stdout.readline() if dashboard.stdout else ""
            if "http://" not in line:
                raise RuntimeError(f"the dashboard did not start: {line.strip()}")
            port = int(line.split("http://", 1)[1].split(",")[0].rsplit(":", 1)[1])
            stream = Stream(port, login(port))
            for table in range(tables):
                reporter = Reporter(config.broker(broker.url, table_id=f"bench-{table:03d}"),
                                    act=lambda request: {"ok": False, "error": "a bench table"}, heartbeat_s=3600)
                reporter.start()
                reporter.offer(status(table, 0))
                reporters.append(reporter)
            deadline = time.monotonic() + 30
            while not all(reporter.connected.is_set() for reporter in reporters):
                if time.monotonic() > deadline:
                    raise RuntimeError("not every simulated table connected to the broker within 30 s")
                time.sleep(0.05)
            time.sleep(1.0)  # the first statuses settle
            stream.measuring = True
            broker_cpu, dashboard_cpu = cpu_s(broker.process.pid), cpu_s(dashboard.pid)  # type: ignore[union-attr]  # started
            began = time.monotonic()
            step = 0
            while (now := time.monotonic()) < began + seconds:
                step += 1
                reporters[step % tables].offer(status(step % tables, step))
                time.sleep(max(0.0, began + step / rate - now))
            elapsed = time.monotonic() - began
            broker_cpu = cpu_s(broker.process.pid) - broker_cpu  # type: ignore[union-attr]  # started
            dashboard_cpu = cpu_s(dashboard.pid) - dashboard_cpu
            time.sleep(1.0)  # the last updates arrive
            stream.measuring = False
            latencies = sorted(stream.latencies)
        finally:
            for reporter in reporters:
                reporter.stop()
            dashboard.terminate()
            dashboard.wait(timeout=10)
            broker.stop()
    if len(latencies) < 2:
        raise RuntimeError("no status update reached the dashboard's stream")
    return {
        "tables": tables,
        "updates_sent": step,
        "updates_streamed": len(latencies),
        "latency": {**percentiles(latencies, 1), "max_ms": round(latencies[-1] * 1e3, 1)},
        "cpu_pct": {"broker": round(100 * broker_cpu / elapsed, 1), "dashboard": round(100 * dashboard_cpu / elapsed, 1)},
    }
