"""``pi-table bench night``: a game night across simulated tables through one Mosquitto to the
fleet's dashboard (issue 32).

The staff page's book (``night.book.Book``) opens the night, takes the teams and pairs each
round; each table is what the daemon wires for one: its own book, its ``Recorder`` and its
fleet ``Reporter`` (real paho clients, sessions and retained ``night`` topics). A table's game is
played by a script (random touches on a dealt key) in a real ``Session`` until the engine ends
it, then recorded and published as the daemon does. One table is restarted mid-night (its book
and reporter made again from disk) and one is offline for a round (its reporter stopped: it
sends its night when it is back). The round's plan reaches each table as a copy of the staff
page's book, which the bench carries: the product has no way yet to carry it to the other tables.

Checked (RuntimeError if not): the dashboard's standings equal a recomputation from the games
played, every game counted once, and no round repeats a pair while a pairing without that repeat
was possible. Figures: from a game's end (its ``at``) to the dashboard's live stream (SSE event
``night``) counting it, p50 and p99, for the games of tables online when they ended.
"""

from __future__ import annotations

import http.client
import json
import random
import shutil
import tempfile
import threading
import time
from pathlib import Path

from .. import config
from ..engine import Rules
from ..engine.actions import Guess
from ..fleet.broker import LocalBroker
from ..fleet.dashboard import Dashboard, hash_password
from ..fleet.reporter import Reporter
from ..night.book import Book
from ..night.games import Game
from ..night.pairing import key, met, repeats_needed
from ..night.recorder import Recorder
from ..night.standings import standings
from ..table.session import Session
from . import percentiles

PASSWORD = "bench-night-password"
WAIT_S = 30.0  # for the dashboard to count every game, or a table to connect


class NightStream:
    """The dashboard's live stream read in a thread: when each game id was first counted."""

    def __init__(self, port: int, cookie: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.connection.request("GET", "/events", headers={"Cookie": cookie})
        self.response = self.connection.getresponse()
        if self.response.status != 200:
            raise RuntimeError(f"the dashboard's stream answered {self.response.status}")
        self.counted: dict[str, float] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        night = False
        try:
            for line in self.response:
                if line.startswith(b"event: "):
                    night = line.strip() == b"event: night"
                elif line.startswith(b"data: ") and night:
                    now = time.time()
                    for game_id in json.loads(line[6:])["games"]:
                        self.counted.setdefault(game_id, now)
                    night = False
        except (OSError, ValueError):
            return


class BenchTable:
    """A simulated table as the daemon wires one for a night: its book, recorder and reporter."""

    def __init__(self, name: str, folder: Path, broker_url: str) -> None:
        self.name, self.folder, self.broker_url = name, folder / name, broker_url
        self.folder.mkdir(parents=True)
        self.book: Book | None = None
        self.recorder: Recorder | None = None
        self.reporter: Reporter | None = None

    def follow(self, staff_book: Path) -> None:
        """The night as the staff page's book has it (the bench carries it), read as at a start."""
        self._close_book()
        shutil.copyfile(staff_book, self.folder / staff_book.name)
        self._open_book()

    def _open_book(self) -> None:
        self.book = Book(self.folder)
        recorder = self.recorder = Recorder(self.book, self.name)
        recorder.published = lambda game: self.reporter.night(recorder.report()) if self.reporter else None

    def _close_book(self) -> None:
        if self.book is not None:
            self.book.stop()

    def connect(self) -> None:
        assert self.recorder is not None
        self.reporter = Reporter(config.broker(self.broker_url, table_id=self.name), act=lambda r: {"ok": False},
                                 heartbeat_s=3600)
        self.reporter.night(self.recorder.report())
        self.reporter.start()

    def disconnect(self) -> None:
        if self.reporter is not None:
            self.reporter.stop()
            self.reporter = None

    def restart(self) -> None:
        """Stopped and started again: the book read from disk, a new reporter."""
        self.disconnect()
        self._close_book()
        self._open_book()
        self.connect()

    def play(self, rng: random.Random) -> Game:
        """The round's game at this table, played by a script of random touches, recorded as it ends."""
        assert self.recorder is not None
        session = Session(Rules(), rng=random.Random(rng.random()))
        while not session.state.is_over:
            board = str(session.public_view().to_json()["board"])
            session.submit(Guess(rng.choice([cell for cell, seen in enumerate(board) if seen == "?"])))
        game = self.recorder.seen(session.id, lambda: session.public_view().to_json())
        if game is None:
            raise RuntimeError(f"table {self.name} recorded no game for its pair")
        return game

    def stop(self) -> None:
        self.disconnect()
        self._close_book()


def login(port: int) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/login", body=f"password={PASSWORD}",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    cookie = response.getheader("Set-Cookie", "")
    connection.close()
    if response.status != 303 or not cookie:
        raise RuntimeError(f"the dashboard's login answered {response.status}")
    return cookie.split(";", 1)[0]


def night_on_the_page(port: int, cookie: str) -> dict:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/api/night", headers={"Cookie": cookie})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"the dashboard's /api/night answered {response.status}")
    return json.loads(body)


def check_round(number: int, pairs: list[tuple[str, str]], before) -> int:
    """The round's repeated pairs; RuntimeError when a pairing of its teams with fewer was possible."""
    repeats = sum(before[key(a, b)] > 0 for a, b in pairs)
    needed = repeats_needed([name for pair in pairs for name in pair], before)
    if repeats > needed:
        raise RuntimeError(f"round {number} repeats {repeats} pairs where {needed} had to be")
    return repeats


def run(tables: int = 4, teams: int = 24, rounds: int = 6, seed: int = 32) -> dict:
    """A night of ``rounds`` rounds for ``teams`` teams at ``tables`` tables; the figures."""
    if tables < 2 or rounds < 2 or teams < 2 * tables:
        raise ValueError("a bench night needs 2 tables, 2 rounds and two teams a table")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pi-table-bench-night-") as name:
        folder = Path(name)
        broker = LocalBroker(folder / "broker")
        broker.start()
        dashboard = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password(PASSWORD),
                              client_id="bench-night-dashboard")
        staff = Book(folder / "staff")
        bench_tables = [BenchTable(f"t{n}", folder, broker.url) for n in range(1, tables + 1)]
        restarted, offline = bench_tables[1], bench_tables[-1]
        games: list[Game] = []
        away: set[str] = set()  # the games ended while their table was offline
        repeated = 0
        try:
            dashboard.start()
            cookie = login(dashboard.port)
            stream = NightStream(dashboard.port, cookie)
            staff.open("Bench night", ["codenames"], [table.name for table in bench_tables])
            for n in range(1, teams + 1):
                staff.join(f"Team {n:02d}")
            for table in bench_tables:
                table.follow(staff.kept()[-1])
                table.connect()
            began = time.monotonic()
            for number in range(1, rounds + 1):
                night = staff.current()
                before = met(pair.teams for made in night.rounds for pair in made.pairs)
                staff.propose()
                made = staff.confirm()
                repeated += check_round(number, [pair.teams for pair in made.pairs], before)
                for table in bench_tables:
                    table.follow(staff.kept()[-1])
                if number == 2:
                    offline.disconnect()  # away for the round: its game waits in its book
                for table in bench_tables:
                    game = table.play(rng)
                    games.append(game)
                    if table is offline and number == 2:
                        away.add(game.id)
                    if table is restarted and number == (rounds + 1) // 2:
                        restarted.restart()  # mid-night, its game just recorded
                if number == 2:
                    offline.connect()
                for game in games[-tables:]:
                    staff.record(game)
            deadline = time.monotonic() + WAIT_S
            while len(stream.counted) < len(games):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the dashboard counted {len(stream.counted)} of {len(games)} games")
                time.sleep(0.05)
            elapsed = time.monotonic() - began
            page = night_on_the_page(dashboard.port, cookie)
        finally:
            for table in bench_tables:
                table.stop()
            staff.stop()
            dashboard.stop()
            broker.stop()
    expected = [line.to_json() for line in standings(staff.night.teams if staff.night else (), games)]
    if page["standings"] != expected or sorted(page["games"]) != sorted(game.id for game in games):
        raise RuntimeError("the dashboard's standings differ from a recomputation from the games played")
    latencies = sorted(stream.counted[game.id] - game.at for game in games if game.id not in away)
    return {"tables": tables, "teams": teams, "rounds": rounds, "games": len(games), "repeated_pairs": repeated,
            "seconds": round(elapsed, 1), "standings_latency": percentiles(latencies, 1)}
