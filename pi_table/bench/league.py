"""``pi-table bench league``: a league of cafés, each its own Mosquitto bridged to the league's, and
``pi-table league`` in a process of its own (issue 64).

Each café has three tables; its host table is the real reporter (``fleet.reporter.Reporter``, its
book and recorder) on the café's broker, whose bridge is the one a café's join writes
(``release.broker.bridge_conf``: the league's topics alone, QoS 1, ``cleansession false``) and whose
login at the league's broker is checked by the league's own ACL (``release.broker.league_acl``).
Nights are closed one after another, round the cafés, each of three rounds at its three tables.
Each café has six teams of its own (a league of 200 cafés has 1,200 teams). Figures: a night closed
at its host → the league's page showing it (its TRF asked every 20 ms until the page keeps it, then
its ``/season.json`` until it lists it), p50 and p99;
the page's memory (its resident set at the end) and CPU over the run (100 % is one core; the answers
to those asks included); at the end, the page's CPU per view (its page, ``/season.json`` and the
CSV, each asked ``VIEWS`` times) and the bytes of the season a café's broker holds (what each café's
tables are sent).
The links are plain MQTT on loopback: TLS is left out, as it costs the same with or without a league.
Needs Debian's mosquitto; it binds loopback ports only.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from .. import config
from ..engine.endings import Termination
from ..files import read_json
from ..fleet.broker import LocalBroker, free_port
from ..fleet.league import season_topic
from ..fleet.reporter import Reporter
from ..night.book import Book
from ..night.games import Game
from ..night.recorder import Recorder
from ..night.state import Night
from ..release.broker import bridge_conf, league_acl, new_password, password_hash
from . import BenchFailed, percentiles, rss_mb, wait
from .fleet import cpu_s

LEAGUE = "bench"
TABLES = 3  # a café's, the host's first
TEAMS = ("Owls", "Zebras", "Foxes", "Moles", "Quiz Club", "Lynx", "Herons")
MAX_CAFES = 200
VIEWS = 20  # each of the page's answers asked at the end, for its CPU per view
MIXED = (("codenames", False), ("codenames", False), ("alias24", True))  # a night's games; Alias 24's armed nuke
# loses it for both teams
SEEN_S = 60.0
POLL_S = 0.02  # how often the bench asks the page: its answers are in the page's CPU


def play_night(book: Book, tables: list[str], teams: list[str], rounds: int, rng: random.Random,
               at: float | None = None, codes: Mapping[str, str] | None = None) -> Night:
    """A night hosted on ``tables[0]``: ``teams`` join (each with its league code in ``codes``,
    if any), ``rounds`` Swiss rounds, each pair's game recorded with a winner drawn by ``rng`` (an
    Alias 24 game now and then lost by both), closed. ``at``: when its games ended (the book's
    clock's now when None)."""
    night = book.open("League night", ["codenames", "alias24"], tables)
    for name in teams:
        book.join(name, code=(codes or {}).get(name, ""))
    for _ in range(rounds):
        book.propose()
        made = book.confirm(over=True)
        for pair in made.pairs:
            kind, may_draw = rng.choice(MIXED)
            winner = None if may_draw and rng.random() < 0.3 else rng.choice(pair.teams)
            ending = Termination.ARMED_NUKE if winner is None else Termination.ALL_AGENTS_FOUND
            book.record(Game(f"{pair.table}-{night.id}-{made.number}", pair.table, kind, pair.teams, winner, ending,
                             None if winner is None else rng.randint(0, 8), None, made.number,
                             book.clock() if at is None else at, 0))
    return book.close(over=True)


def run(cafes: int = 20, nights: int = 3, seed: int = 64) -> dict[str, object]:
    """``cafes`` cafés bridged to one league, ``nights`` nights closed at each; the figures."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pi-table-bench-league-") as scratch:
        folder = Path(scratch)
        names = [f"cafe-{n:02d}" for n in range(cafes)]
        secrets = {name: new_password() for name in [*names, "league"]}
        (folder / "league.passwd").write_text("".join(f"{name}:{password_hash(secret)}\n"
                                                     for name, secret in secrets.items()))
        (folder / "league.acl").write_text(league_acl(LEAGUE, names))
        league = LocalBroker(folder / "league", f"allow_anonymous false\npassword_file {folder}/league.passwd\n"
                                                f"acl_file {folder}/league.acl\n")
        brokers = [league] + [LocalBroker(folder / name, bridge_conf(LEAGUE, name, "127.0.0.1", league.port,
                                                                     secrets[name], None)) for name in names]
        page = None
        reporters: list[Reporter] = []
        books: list[Book] = []
        try:
            for broker in brokers:
                broker.start()
            (folder / "page.password").write_text(secrets["league"] + "\n")
            port = free_port()
            page = subprocess.Popen(
                [sys.executable, "-m", "pi_table", "league", "--broker", f"mqtt://league@127.0.0.1:{league.port}",
                 "--broker-password-file", str(folder / "page.password"), "--league", LEAGUE, "--port", str(port)],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for name, broker in zip(names, brokers[1:], strict=True):
                book = Book(folder / f"{name}-book")
                reporter = Reporter(replace(config.broker(broker.url, table_id=f"{name}-t1"), league=LEAGUE, cafe=name),
                                    act=lambda request: {"ok": False, "error": "a bench table"}, heartbeat_s=3600)
                reporter.take_night(Recorder(book, f"{name}-t1"))
                reporter.start()
                books.append(book)
                reporters.append(reporter)
            _wait(lambda: all(r.connected.is_set() for r in reporters) and _season(port) is not None,
                  "every host table and the league's page")
            cpu = cpu_s(page.pid)
            began = time.monotonic()
            latencies = []
            opened: dict[str, int] = {}  # a café: the second its last night opened
            for _ in range(nights):
                for index, (name, book) in enumerate(zip(names, books, strict=True)):
                    tables = [f"{name}-t{n}" for n in range(1, TABLES + 1)]
                    if int(time.time()) == opened.get(name):
                        time.sleep(1.0 - time.time() % 1.0)  # a night's id is its second: one a second at each café
                    opened[name] = int(time.time())
                    night = play_night(book, tables, [f"{team} {index}" for team in TEAMS[:2 * TABLES]], 3, rng)
                    closed_at = time.monotonic()  # its close written and handed to the reporter
                    _wait(partial(_kept, port, name, tables[0], night.id), f"the night {night.id} of {name} at the league")
                    _wait(partial(_shows, port, name, night.id), f"the night {night.id} of {name} on the league's page")
                    latencies.append(time.monotonic() - closed_at)
            elapsed = time.monotonic() - began
            cpu = cpu_s(page.pid) - cpu
            memory = rss_mb(page.pid)
            season = _season(port)
            views = {path: _view_ms(port, path, page.pid) for path in ("/", "/season.json", "/season.csv")}
            sent = _sent_down(brokers[-1].port)
        finally:
            for reporter in reporters:
                reporter.stop()
            for book in books:
                book.stop()
            if page is not None:
                page.terminate()
                page.wait(timeout=10)
            for broker in brokers:
                broker.stop()
    if season is None:
        raise BenchFailed("the league's page did not answer at the end")
    return {"cafes": cafes, "tables": cafes * TABLES, "nights": len(latencies), "teams": len(season["season"]),
            "closed_to_page": {**percentiles(latencies, 1), "max_ms": round(max(latencies) * 1e3, 1)},
            "page": {"rss_mb": round(memory, 1), "cpu_pct": round(100 * cpu / elapsed, 1)},
            "view_cpu_ms": {"page": views["/"], "season_json": views["/season.json"], "csv": views["/season.csv"]},
            "season_sent": {"bytes_a_cafe": sent}}


def _view_ms(port: int, path: str, pid: int) -> float:
    """The page's CPU, in ms, per answer of ``path`` (asked ``VIEWS`` times, one after another)."""
    before = cpu_s(pid)
    for _ in range(VIEWS):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
            answer.read()
    return round((cpu_s(pid) - before) * 1e3 / VIEWS, 1)


def _sent_down(port: int) -> int:
    """The bytes of the season a café's broker (on ``port``) holds, retained: what its tables are sent."""
    heard: list[bytes | bytearray] = []
    done = threading.Event()

    def message(client: mqtt.Client, userdata: object, got: mqtt.MQTTMessage) -> None:
        heard.append(got.payload)
        done.set()

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-season-{port}")
    client.on_message = message
    client.on_connect = lambda c, u, f, r, p: c.subscribe(season_topic(LEAGUE), qos=1)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        if not done.wait(SEEN_S):
            raise BenchFailed("no season at a café's broker")
    finally:
        client.disconnect()
        client.loop_stop()
    return len(heard[-1])


def _season(port: int) -> dict[str, Any] | None:
    """The league page's data, or None while it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/season.json", timeout=5) as answer:
            found: dict[str, Any] = read_json(answer.read())
            return found
    except OSError:
        return None


def _kept(port: int, cafe: str, host: str, night_id: str) -> bool:
    """Whether the league's page keeps the night ``night_id`` of ``cafe`` (its TRF served): a small
    answer to ask every 20 ms, where the season of 200 cafés is not; the season is then asked once
    it is, so the time to the page still counts the season computed with it."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/nights/{cafe}/{host}/{night_id}.trf", timeout=5):
            return True
    except OSError:
        return False


def _shows(port: int, cafe: str, night_id: str) -> bool:
    """Whether the league's page lists the night ``night_id`` of ``cafe``."""
    data = _season(port)
    return data is not None and any(entry["cafe"] == cafe and any(n["night"] == night_id for n in entry["nights"])
                                    for entry in data["cafes"])


def _wait(condition: Callable[[], bool], what: str) -> None:
    wait(condition, what, SEEN_S, POLL_S)
