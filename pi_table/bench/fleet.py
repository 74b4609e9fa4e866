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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import config, version
from ..files import read_json
from ..fleet.broker import LocalBroker
from ..fleet.dashboard import write_password_file
from ..fleet.reporter import Reporter
from ..fleet.schema import Message
from ..sim.systemd import stop_as_systemd
from . import BenchFailed, percentiles

MAX_TABLES = 1000
PASSWORD = "bench-fleet-password"
LATE_S = 30.0  # the flood bench waits this long for a table's last change to show
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """A process's user and system CPU seconds so far (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def status(table: int, step: int) -> Message:
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
        named = False  # an event with a name (the nights' standings), not a row, until its blank line
        try:
            for line in self.response:
                named = line.startswith(b"event: ") or (named and line != b"\n")
                if named or not line.startswith(b"data: "):
                    continue
                now = time.time()
                row = read_json(line[6:])
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
        raise BenchFailed(f"the dashboard's stream answered {response.status}")
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
        raise BenchFailed(f"the dashboard's login answered {response.status}")
    return cookie.split(";", 1)[0]


def dashboard(broker_url: str, folder: Path, client_id: str = "bench-dashboard",
              *options: str) -> tuple[subprocess.Popen[str], int]:
    """``pi-table fleet`` on the broker, as a café runs it (its password file in ``folder``), and
    the port its page listens on."""
    write_password_file(folder / "password", PASSWORD)
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_table", "fleet", "--broker", broker_url, "--password-file", str(folder / "password"),
         "--port", "0", "--client-id", client_id, *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = process.stdout.readline() if process.stdout else ""
    if "http://" not in line:
        process.kill()
        raise BenchFailed(f"the dashboard did not start: {line.strip()}")
    return process, int(line.split("http://", 1)[1].split(",")[0].rsplit(":", 1)[1].split("/")[0])


@contextmanager
def broker_and_dashboard(settings: str = "") -> Iterator[tuple[LocalBroker, subprocess.Popen[str], int]]:
    """A Mosquitto and ``pi-table fleet`` on it: the broker, the dashboard's process and the port
    its page listens on; both stopped after."""
    with tempfile.TemporaryDirectory(prefix="pi-table-bench-fleet-") as name:
        broker = LocalBroker(Path(name) / "broker", settings=settings)
        broker.start()
        try:
            process, port = dashboard(broker.url, Path(name))
            try:
                yield broker, process, port
            finally:
                stop_as_systemd(process, 30)
        finally:
            broker.stop()


def run(tables: int = 200, seconds: float = 10.0, rate: float = 100.0) -> dict[str, object]:
    """Start a broker, the dashboard and ``tables`` reporters; feed them ``rate`` status
    changes a second (round the tables) for ``seconds``; the figures."""
    with broker_and_dashboard("max_queued_messages 100000\n") as (broker, dashboard, port):
        reporters: list[Reporter] = []
        try:
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
                    raise BenchFailed("not every simulated table connected to the broker within 30 s")
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
    if len(latencies) < 2:
        raise BenchFailed("no status update reached the dashboard's stream")
    return {
        "tables": tables,
        "updates_sent": step,
        "updates_streamed": len(latencies),
        "latency": {**percentiles(latencies, 1), "max_ms": round(latencies[-1] * 1e3, 1)},
        "cpu_pct": {"broker": round(100 * broker_cpu / elapsed, 1), "dashboard": round(100 * dashboard_cpu / elapsed, 1)},
    }


def night_messages(kb: float) -> tuple[bytes, bytes]:
    """A host's plan (table t1, tonight, t1 and t2 paired in round 1) and table t2's night message
    of about ``kb`` KB: its games there, as many as it takes, as a table in a flood would send them."""
    opened = float(int(time.time()) - 60)
    night = time.strftime("%Y%m%d-%H%M%S", time.gmtime(opened))
    teams = ["Owls", "Quiz Club", "Foxes", "Moles"]
    plan = {"night": night, "name": "Bench night", "games": ["codenames"], "tables": ["t1", "t2"], "opened": opened,
            "closed": None, "seq": 1, "teams": [{"name": team, "nicknames": []} for team in teams],
            "rounds": [{"number": 1, "resting": [], "pairs": [{"table": "t1", "red": "Owls", "blue": "Quiz Club"},
                                                              {"table": "t2", "red": "Foxes", "blue": "Moles"}]}]}
    game = {"table": "t2", "game": "codenames", "teams": ["Foxes", "Moles"], "winner": "Foxes",
            "termination": "all_agents_found", "margin": 3, "score": None, "round": 1, "at": opened + 30}
    size = len(json.dumps({**game, "id": "t2-000"})) + 2
    games = [{**game, "id": f"t2-{n:03d}"} for n in range(int(kb * 1024) // size)]
    told = {"night": night, "name": "Bench night", "open": True, "teams": teams, "games": games}
    return json.dumps(plan).encode(), json.dumps(told).encode()


def flood(seconds: float = 10.0, rate: float = 30.0, kb: float = 95.0) -> dict[str, object]:
    """Issue 37, 9: one table (t2, in the night table t1 hosts) sends its night of ``kb`` KB
    ``rate`` times a second for ``seconds``, while another (t3, the real reporter) changes its
    status twice a second; the figures: how long t3's change takes to show on the dashboard's
    live page, before the flood and during it, and what the dashboard read of the flood."""
    plan, told = night_messages(kb)
    with broker_and_dashboard() as (broker, dashboard, port):
        watched = Reporter(config.broker(broker.url, table_id="t3"), act=lambda request: {"ok": False}, heartbeat_s=3600)
        flooder = Reporter(config.broker(broker.url, table_id="t2"), act=lambda request: {"ok": False}, heartbeat_s=3600)
        host = Reporter(config.broker(broker.url, table_id="t1"), act=lambda request: {"ok": False}, heartbeat_s=3600)
        try:
            cookie = login(port)
            stream = Stream(port, cookie)
            for reporter in (watched, flooder, host):
                reporter.start()
            deadline = time.monotonic() + 30
            while not all(reporter.connected.is_set() for reporter in (watched, flooder, host)):
                if time.monotonic() > deadline:
                    raise BenchFailed("the bench's tables did not connect to the broker within 30 s")
                time.sleep(0.05)
            host.client.publish("pi-table/t1/plan", plan, qos=1, retain=True).wait_for_publish(10)
            quiet = watch(stream, watched, seconds / 2)
            sent = [0]
            stop = threading.Event()

            def send() -> None:
                began = time.monotonic()
                while not stop.is_set():
                    flooder.client.publish("pi-table/t2/night", told, qos=1, retain=True)
                    sent[0] += 1
                    stop.wait(max(0.0, began + sent[0] / rate - time.monotonic()))

            sender = threading.Thread(target=send, daemon=True)
            cpu = cpu_s(dashboard.pid)
            sender.start()
            flooded = watch(stream, watched, seconds)
            stop.set()
            sender.join()
            cpu = cpu_s(dashboard.pid) - cpu
            time.sleep(1.0)  # what the broker still had for the dashboard arrives
            rows = {row["table_id"]: row for row in api(port, cookie, "/api/tables")}
        finally:
            for reporter in (watched, flooder, host):
                reporter.stop()
    return {"flood": {"messages": sent[0], "kb_each": round(len(told) / 1024, 1), "a_second": rate,
                      "dropped_by_the_dashboard": rows.get("t2", {}).get("dropped", 0)},
            "quiet": quiet, "flooded": flooded, "dashboard_cpu_pct": round(100 * cpu / seconds, 1)}


def watch(stream: Stream, table: Reporter, seconds: float) -> dict[str, float]:
    """``table``'s status changed twice a second for ``seconds``: the time each change took to
    show on the live page (the row streamed for it), p50, p99 and the slowest; a change still
    not shown ``LATE_S`` after the last is counted as not shown."""
    stream.latencies, stream.measuring = [], True
    began, step = time.monotonic(), 0
    while time.monotonic() < began + seconds:
        step += 1
        table.offer(status(3, step))
        time.sleep(0.5)
    deadline = time.monotonic() + LATE_S
    while len(stream.latencies) < step and time.monotonic() < deadline:
        time.sleep(0.1)
    stream.measuring = False
    latencies = sorted(stream.latencies)
    if len(latencies) < 2:
        return {"changes": step, "shown": len(latencies)}
    return {"changes": step, "shown": len(latencies), **percentiles(latencies, 1), "max_ms": round(latencies[-1] * 1e3, 1)}


def api(port: int, cookie: str, path: str) -> Any:
    """A signed-in page's GET of the dashboard's JSON ``path``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers={"Cookie": cookie})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise BenchFailed(f"the dashboard's {path} answered {response.status}")
    return read_json(body)
