"""``pi-table bench night``: a game night across simulated tables through one Mosquitto to the
fleet's dashboard (issue 32).

Each table is what the daemon wires for one: its own book (``night.book.Book``), its
``Recorder`` and its fleet ``Reporter`` (real paho clients, sessions and retained ``night`` and
``plan`` topics). The first table hosts the night: its book is the staff page's, which opens
the night, takes the teams and pairs each round. The others follow it from its plan alone, heard
over the broker (the host is on each one's list of the café's tables, ``[fleet] cafe_tables``,
as an owner sets it for a fleet of tables that play nights together), and the host gathers their games from theirs before pairing the next round. A
table's game is played by a script (random touches on a dealt key) in a real ``Session`` until
the engine ends it, then recorded and published as the daemon does. One follower is restarted
mid-night (its book and reporter made again from disk) and one is offline for a round (its
reporter stopped once it has the round's plan: it sends its night when it is back).

Checked (RuntimeError if not): the dashboard's standings, and the host's, equal a recomputation
from the games played, every game counted once, and no round repeats a pair while a pairing
without that repeat was possible. Figures: from a game's end (its ``at``) to the dashboard's live
stream (SSE event ``night``) counting it, p50 and p99, for the games of tables online when they
ended; and from a round's confirmation on the host's staff page to every online table having
its plan.
"""

from __future__ import annotations

import http.client
import json
import random
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
from ..night.book import Book, Night
from ..night.games import Game
from ..night.pairing import key, met, repeats_needed
from ..night.recorder import Recorder
from ..night.standings import standings
from ..table.session import Session
from . import percentiles
from .fleet import live_stream, login

PASSWORD = "bench-night-password"
WAIT_S = 30.0  # for the dashboard to count every game, or a table to connect


class NightStream:
    """The dashboard's live stream read in a thread: when each game id was first counted (in
    the standings of any night the SSE event ``nights`` carries)."""

    def __init__(self, port: int, cookie: str) -> None:
        self.connection, self.response = live_stream(port, cookie)
        self.counted: dict[str, float] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        night = False
        try:
            for line in self.response:
                if line.startswith(b"event: "):
                    night = line.strip() == b"event: nights"
                elif line.startswith(b"data: ") and night:
                    now = time.time()
                    for game_id in (game_id for counted in json.loads(line[6:]) for game_id in counted["games"]):
                        self.counted.setdefault(game_id, now)
                    night = False
        except (OSError, ValueError):
            return


class BenchTable:
    """A simulated table as the daemon wires one for a night: its book, recorder and reporter."""

    def __init__(self, name: str, folder: Path, broker_url: str, cafe_tables: tuple[str, ...]) -> None:
        self.name, self.folder, self.broker_url, self.cafe_tables = name, folder / name, broker_url, cafe_tables
        self.folder.mkdir(parents=True)
        self.book: Book | None = None
        self.recorder: Recorder | None = None
        self.reporter: Reporter | None = None
        self._open_book()

    def _open_book(self) -> None:
        self.book = Book(self.folder, cafe_tables=self.cafe_tables)
        self.recorder = Recorder(self.book, self.name)

    @property
    def night(self) -> Night | None:
        return None if self.book is None else self.book.night

    def _close_book(self) -> None:
        if self.book is not None:
            self.book.stop()

    def connect(self) -> None:
        assert self.recorder is not None
        self.reporter = Reporter(config.broker(self.broker_url, table_id=self.name), act=lambda r: {"ok": False},
                                 heartbeat_s=3600)
        self.reporter.take_night(self.recorder)
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


def wait(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"waited {WAIT_S:g} s for {what}")
        time.sleep(0.005)


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
        names = tuple(f"t{n}" for n in range(1, tables + 1))
        bench_tables = [BenchTable(name, folder, broker.url, names) for name in names]
        host, restarted, offline = bench_tables[0], bench_tables[1], bench_tables[-1]
        assert host.book is not None
        staff = host.book  # the host's staff page
        games: list[Game] = []
        away: set[str] = set()  # the games ended while their table was offline
        plan_s: list[float] = []  # from a round's confirmation to every online table having its plan
        repeated = 0
        try:
            dashboard.start()
            cookie = login(dashboard.port, PASSWORD)
            stream = NightStream(dashboard.port, cookie)
            for table in bench_tables:
                table.connect()
            staff.open("Bench night", ["codenames"], [table.name for table in bench_tables])
            for n in range(1, teams + 1):
                staff.join(f"Team {n:02d}")
            began = time.monotonic()
            for number in range(1, rounds + 1):
                night = staff.current()
                before = met(pair.teams for made in night.rounds for pair in made.pairs)
                staff.propose()
                confirmed = time.monotonic()
                made = staff.confirm()
                wait(lambda n=number: all(t.night is not None and len(t.night.rounds) == n for t in bench_tables),
                     f"every table to hear round {number}'s plan")
                plan_s.append(time.monotonic() - confirmed)
                repeated += check_round(number, [pair.teams for pair in made.pairs], before)
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
                wait(lambda: staff.current().ids() >= {game.id for game in games},
                     f"the host to gather round {number}'s games")
            wait(lambda: len(stream.counted) >= len(games), f"the dashboard to count all {len(games)} games")
            elapsed = time.monotonic() - began
            page = night_on_the_page(dashboard.port, cookie)
            hosted = staff.current()
        finally:
            for table in bench_tables:
                table.stop()
            dashboard.stop()
            broker.stop()
    expected = [line.to_json() for line in standings(hosted.teams, games)]
    if page["standings"] != expected or sorted(page["games"]) != sorted(game.id for game in games):
        raise RuntimeError("the dashboard's standings differ from a recomputation from the games played")
    if [line.to_json() for line in hosted.standings()] != expected or len(hosted.played) != len(games):
        raise RuntimeError("the host's standings differ from a recomputation from the games played")
    latencies = sorted(stream.counted[game.id] - game.at for game in games if game.id not in away)
    return {"tables": tables, "teams": teams, "rounds": rounds, "games": len(games), "repeated_pairs": repeated,
            "seconds": round(elapsed, 1), "standings_latency": percentiles(latencies, 1),
            "plan_latency": percentiles(plan_s, 1)}
