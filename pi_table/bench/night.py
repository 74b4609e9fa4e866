"""``pi-table bench night``: a game night as a café runs it, every part the real program in a
process of its own: ``tables`` tables, each ``pi-table run`` (simulated devices, but its touch
board is the board emulator on a pty: the real serial path, pressed as fingers press it), one
Mosquitto, and the fleet's dashboard, ``pi-table fleet``. The first table hosts the night from
its staff page, reached over HTTP as a phone reaches it; the others follow it (the host on their
``[fleet] cafe_tables``). At each table the round's pair deals a game (its control socket's
``new-game``) and plays it to its end by random touches. Mid-night a follower is killed
(SIGKILL) in the middle of its game and started again, the host likewise in another round, and
the broker is killed and started again between two rounds.

Checked (RuntimeError if not), against this module's own recomputation, not the table's code:
every game that ended at a table is counted once by the host and by the dashboard, each for the
round and the pair it was dealt for; the standings of the host's staff page and of the dashboard
equal a recomputation from the rounds and games (points, byes, Buchholz, and the Plackett-Luce
rating written here from Weng and Lin's paper, 2011, within 0.001 of what the pages round to);
no round repeats a pair that a choice of who plays without it avoided, where a brute force can
tell.

Figures: from a game's end (its ``at``, the table's clock, this machine's) to the dashboard's
live stream (SSE event ``nights``) counting it, p50 and p99, for the games of tables that were
up, split where the time goes: from the end to the table's ``night`` message reaching a client
of the broker (the table's loop, its book's fsync, its reporter, the broker) and from there to
the live stream (the dashboard's reading, its standings, made at most every ``NIGHTS_EVERY_S``,
and its pages); and from a round's confirmation on the staff page to the host's plan at the
broker. Needs Mosquitto and the emulator extra (the board emulator); it binds loopback ports only.
"""

from __future__ import annotations

import http.client
import itertools
import json
import math
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from .. import config
from ..daemon.control import ControlError, request
from ..files import read_json
from ..fleet import link
from ..fleet.broker import LocalBroker
from ..fleet.dashboard import NIGHTS_EVERY_S
from ..sim.systemd import stop_as_systemd
from . import BenchFailed, percentiles
from . import wait as bench_wait
from .fleet import dashboard, live_stream, login

PIN = "482915"
WAIT_S = 60.0  # for a table to start, a round's games to be gathered, the dashboard to count them
TAP_MS = 150  # a finger on a pad, past the shortest hold with room to spare
TRIES = 5  # touches of a card before the bench says the table takes none
HOLD_S = 0.05
MU, SIGMA, BETA, KAPPA, TAU = 25.0, 25 / 3, 25 / 6, 0.0001, 25 / 300  # Weng and Lin's defaults, openskill's too


def wait(condition: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    """Polled every 10 ms: a night's tables are other processes, and their steps take tens of them."""
    bench_wait(condition, what, timeout, every=0.01)


class StaffPhone:
    """A phone on a table's staff page: logged in with the PIN, its CSRF token on every change."""

    def __init__(self, base: str) -> None:
        self.base, self.opener = base, urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.csrf = ""
        self.csrf = self.call("POST", "/staff/login", {"pin": PIN})["csrf"]

    def call(self, method: str, path: str, body: object = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        from ..web.staff import CSRF_HEADER

        headers = {"Content-Type": "application/json", CSRF_HEADER: self.csrf}
        ask = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        with self.opener.open(ask, timeout=30) as answer:
            said: dict[str, Any] = read_json(answer.read())  # the staff page's JSON
            return said


class Table:
    """``pi-table run`` for table ``name``, its touch board the emulator on a pty."""

    def __init__(self, name: str, folder: Path, broker_url: str, cafe: tuple[str, ...]) -> None:
        from ..hardware import pinout
        from ..sim.emulator import BoardEmulator  # the emulator extra: loaded by this bench alone

        self.name, self.folder = name, folder / name
        self.folder.mkdir(parents=True)
        self.electrodes = pinout.load().cell_electrodes
        self.emulator = BoardEmulator(link=self.folder / "touch-board")
        self.emulator.start()
        self.config = self.folder / "config.toml"
        tables = ", ".join(f'"{table}"' for table in cafe)
        self.config.write_text(
            f'[game]\nhold_s = {HOLD_S}\n[web]\nhost = "127.0.0.1"\nport = 0\n'
            f'[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n[timer]\nlength_s = 0\n'
            f'[fleet]\nbroker = "{broker_url}"\ntable_id = "{name}"\ncafe_tables = [{tables}]\n')
        subprocess.run([sys.executable, "-m", "pi_table", "set-staff-pin", "--config", str(self.config)],
                       input=f"{PIN}\n", capture_output=True, text=True, timeout=60, check=True)
        self.process: subprocess.Popen[bytes] | None = None
        self.staff: StaffPhone | None = None

    def start(self) -> None:
        with open(self.folder / "daemon.log", "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pi_table", "run", "--hal", "sim", "--touch-port", str(self.emulator.link),
                 "--config", str(self.config)], stdout=log, stderr=subprocess.STDOUT)
        wait(self._up, f"table {self.name} to start")
        self.staff = StaffPhone(self.status()["companion"])

    def _up(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise BenchFailed(f"table {self.name} exited with {self.process.returncode}: see its daemon.log")
        try:
            status = self.status()
        except ControlError:  # not listening yet
            return False
        return status.get("ok") is True and status["health"]["touch"] == "ok" and status["companion"] is not None

    def status(self) -> dict[str, Any]:
        return request(self.folder / "control.sock", "status")

    def kill(self) -> None:
        """SIGKILL, as a power cut or the kernel would: nothing of the table's is let finish."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def play(self, rng: random.Random, killed_after: int | None = None) -> None:
        """The round's pair deals and plays to the end by random touches (the table killed and
        started again after ``killed_after`` touches, if given)."""
        answer = request(self.folder / "control.sock", "new-game", game="codenames")
        if not answer.get("ok"):
            raise BenchFailed(f"table {self.name} dealt no game: {answer}")
        touches = 0
        while (state := self.status()["state"])["termination"] is None:
            if touches == killed_after:
                self.kill()
                self.start()
            board = str(state["board"])
            cell = rng.choice([n for n, seen in enumerate(board) if seen == "?"])

            def taken(before: str = board) -> bool:
                return bool(self.status()["state"]["board"] != before)

            for _ in range(TRIES):  # a touch the loaded machine missed is touched again, as a player would
                self.emulator.tap(self.electrodes[cell], TAP_MS)
                try:
                    wait(taken, "a touch taken", 3)
                    break
                except RuntimeError:
                    continue
            else:
                raise BenchFailed(f"table {self.name} took none of {TRIES} touches on a card")
            touches += 1

    def stop(self) -> None:
        if self.process is not None:
            stop_as_systemd(self.process, 20)
        self.emulator.stop()


class Heard:
    """A client of the broker, as any of the café's machines: when each game was first told of
    on a table's ``night`` topic, and when the host's plan first had each round."""

    def __init__(self, broker_url: str) -> None:
        settings = config.broker(broker_url)
        self.games: dict[str, float] = {}
        self.rounds: dict[int, float] = {}
        self.client = link.client(settings, "bench-night-ear")
        self.client.on_connect = lambda client, *_: client.subscribe([("pi-table/+/night", 1), ("pi-table/+/plan", 1)])
        self.client.on_message = self._message
        self.client.connect(settings.host, settings.port)
        self.client.loop_start()

    def _message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        now = time.time()
        body = read_json(message.payload)
        if message.topic.endswith("/night"):
            for game in body["games"]:
                self.games.setdefault(game["id"], now)
        else:
            for made in body["rounds"]:
                self.rounds.setdefault(made["number"], now)

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


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
                    for game_id in (game_id for counted in read_json(line[6:]) for game_id in counted["games"]):
                        self.counted.setdefault(game_id, now)
                    night = False
        except (OSError, ValueError):
            return


def night_on_the_dashboard(port: int, cookie: str) -> dict[str, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/api/night", headers={"Cookie": cookie})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise BenchFailed(f"the dashboard's /api/night answered {response.status}")
    night: dict[str, Any] = read_json(body)  # the dashboard's JSON
    return night


# --- the recomputation: the rules of docs/cafe/night.md, written again from them -----------------------------------

def plackett_luce(ratings: dict[str, list[float]], first: str, second: str, winner: str | None) -> None:
    """One game between two one-player teams, rated as Weng and Lin's Plackett-Luce model (their
    Algorithm 4) with additive dynamics ``TAU``: ``ratings`` holds [mu, sigma] by team."""
    for name in (first, second):
        ratings[name][1] = math.sqrt(ratings[name][1] ** 2 + TAU ** 2)
    rank = {first: 1 if winner in (first, None) else 2, second: 1 if winner in (second, None) else 2}
    c = math.sqrt(sum(ratings[name][1] ** 2 + BETA ** 2 for name in (first, second)))
    share = {name: math.exp(ratings[name][0] / c) for name in (first, second)}
    tied = {name: sum(rank[other] == rank[name] for other in rank) for name in rank}
    below = {name: sum(share[other] for other in rank if rank[other] >= rank[name]) for name in rank}
    updates = {}
    for i in (first, second):
        omega = delta = 0.0
        for q in (first, second):
            if rank[q] <= rank[i]:
                p = share[i] / below[q]
                omega += ((1.0 if q == i else 0.0) - p) / tied[q]
                delta += p * (1 - p) / tied[q]
        variance = ratings[i][1] ** 2
        gamma = math.sqrt(variance) / c
        updates[i] = (ratings[i][0] + variance / c * omega,
                      ratings[i][1] * math.sqrt(max(1 - gamma * variance / c ** 2 * delta, KAPPA)))
    for name, (mu, sigma) in updates.items():
        ratings[name] = [mu, sigma]


def recomputed(night: dict[str, Any]) -> list[dict[str, Any]]:
    """The night's standings from its rounds, results and games alone (the staff page's JSON)."""
    teams = [team["name"] for team in night["teams"]]
    points, byes = Counter[str](), Counter[str]()
    met: dict[str, list[str]] = {name: [] for name in teams}
    counts = {name: Counter[str]() for name in teams}
    ratings = {name: [MU, SIGMA] for name in teams}
    games = {(game["round"], game["table"]): game for game in night["games_played"]}
    assert not night["results"], "the bench enters no result at the desk"
    results = []
    for made in night["rounds"]:
        for name in made["resting"]:
            byes[name] += 1
        for pair in made["pairs"]:
            game = games.get((made["number"], pair["table"]))
            if game is not None:
                if game["teams"] != [pair["red"], pair["blue"]]:
                    raise BenchFailed(f"game {game['id']} is not by the pair round {made['number']} put at its table")
                results.append(game)
    for game in sorted(results, key=lambda g: (g["round"], g["at"], g["id"])):
        first, second = game["teams"]
        plackett_luce(ratings, first, second, game["winner"])
        for name, other in ((first, second), (second, first)):
            counts[name]["played"] += 1
            met[name].append(other)
            outcome = "drawn" if game["winner"] is None else "won" if game["winner"] == name else "lost"
            counts[name][outcome] += 1
            sign = 0 if game["winner"] is None else 1 if game["winner"] == name else -1
            counts[name]["margin"] += sign * (game["margin"] or 0)
    for name in teams:
        points[name] = counts[name]["won"] + counts[name]["drawn"] / 2 + byes[name] * night["bye"]
    lines = []
    for name in teams:
        mu, sigma = ratings[name]
        buchholz = sum(points[other] for other in met[name]) + byes[name] * points[name]
        lines.append({"team": name, "played": counts[name]["played"], "won": counts[name]["won"],
                      "lost": counts[name]["lost"], "drawn": counts[name]["drawn"], "byes": byes[name],
                      "points": points[name], "margin": counts[name]["margin"], "rating": mu - 3 * sigma, "mu": mu,
                      "sigma": sigma, "buchholz": buchholz, "withdrawn": False})
    tiebreak = (lambda s: -s["buchholz"]) if night["tiebreak"] == "buchholz" else (lambda s: 0)
    joined = {name: n for n, name in enumerate(teams)}  # teams still level share a place, as they joined
    return sorted(lines, key=lambda s: (-s["points"], tiebreak(s), -s["rating"], -s["margin"], joined[s["team"]]))


def same_standings(shown: list[dict[str, Any]], mine: list[dict[str, Any]]) -> bool:
    """Whether a page's standings are the recomputation, as the page rounds them."""
    if [s["team"] for s in shown] != [s["team"] for s in mine]:
        return False
    exact = ("played", "won", "lost", "drawn", "byes", "points", "margin", "buchholz", "withdrawn")
    return all(s[key] == m[key] for s, m in zip(shown, mine, strict=True) for key in exact) and all(
        abs(s[key] - m[key]) <= 0.5 * 10 ** -digits + 1e-9 for s, m in zip(shown, mine, strict=True)
        for key, digits in (("rating", 2), ("mu", 3), ("sigma", 3)))


def check_round(number: int, pairs: list[tuple[str, str]], teams: list[str], before: Counter[frozenset[str]]) -> int:
    """The round's rematches; RuntimeError when some choice of who plays, with as many games,
    had fewer (a brute force, where it is small enough to try)."""
    repeats = sum(before[frozenset(pair)] > 0 for pair in pairs)
    if repeats and math.comb(len(teams), 2 * len(pairs)) * math.prod(range(1, 2 * len(pairs), 2)) <= 2_000_000:
        def least(players: tuple[str, ...]) -> int:
            if not players:
                return 0
            first, rest = players[0], players[1:]
            return min((before[frozenset((first, other))] > 0) + least(rest[:i] + rest[i + 1:])
                       for i, other in enumerate(rest))

        needed = min(least(players) for players in itertools.combinations(teams, 2 * len(pairs)))
        if repeats > needed:
            raise BenchFailed(f"round {number} repeats {repeats} pairs where {needed} had to be")
    elif repeats:
        raise BenchFailed(f"round {number} repeats {repeats} pairs, too many teams to tell whether it had to")
    return repeats


def run(tables: int = 4, teams: int = 18, rounds: int = 6, seed: int = 32) -> dict[str, object]:
    """A night of ``rounds`` rounds for ``teams`` teams at ``tables`` tables; the figures."""
    if tables < 2 or rounds < 3 or teams < 2 * tables:
        raise ValueError("a bench night needs 2 tables, 3 rounds and two teams a table")  # a programming error
    rng = random.Random(seed)
    names = tuple(f"t{n}" for n in range(1, tables + 1))
    with tempfile.TemporaryDirectory(prefix="pi-table-bench-night-") as folder_name:
        folder = Path(folder_name)
        broker = LocalBroker(folder / "broker")
        broker.start()
        board, started = None, []
        heard: Heard | None = None
        try:
            board, port = dashboard(broker.url, folder, "bench-night-dashboard", "--cafe-tables", ",".join(names))
            cookie = login(port)
            stream = NightStream(port, cookie)
            heard = Heard(broker.url)
            for name in names:
                started.append(Table(name, folder, broker.url, names))
                started[-1].start()
            host, follower = started[0], started[1]
            assert host.staff is not None
            host.staff.call("POST", "/staff/api/night/open", {"name": "Bench night", "games": ["codenames"],
                                                               "tables": list(names)})
            for n in range(1, teams + 1):
                host.staff.call("POST", "/staff/api/night/join", {"team": f"Team {n:02d}"})
            down: set[tuple[str, int]] = set()  # (table, round): a game its table was killed in, out of the figures
            plan_s, repeated, confirmed_at = [], 0, {}
            began = time.monotonic()
            for number in range(1, rounds + 1):
                night = host.staff.call("GET", "/staff/api/night")["night"]
                before = Counter(frozenset((p["red"], p["blue"])) for made in night["rounds"] for p in made["pairs"])
                made = host.staff.call("POST", "/staff/api/night/propose")["night"]["proposal"]
                confirmed_at[number] = time.time()
                host.staff.call("POST", "/staff/api/night/confirm")
                pairs = [(p["red"], p["blue"]) for p in made["pairs"]]
                repeated += check_round(number, pairs, [t["name"] for t in night["teams"]], before)
                for table in started[1:]:
                    assert table.staff is not None

                    def followed(staff: StaffPhone = table.staff, n: int = number) -> bool:
                        return len(staff.call("GET", "/staff/api/night")["night"]["rounds"]) == n

                    wait(followed, f"table {table.name} to follow round {number}")
                killed = {host: 2, follower: (rounds + 1) // 2}
                with ThreadPoolExecutor(len(started)) as tables_playing:
                    for played in [tables_playing.submit(table.play, random.Random(rng.random()),
                                                         3 if killed.get(table) == number else None)
                                   for table in started]:
                        played.result()  # a table's failure is the bench's
                down |= {(table.name, number) for table, at in killed.items() if at == number}
                def gathered(staff: StaffPhone = host.staff, n: int = number) -> bool:
                    return len(staff.call("GET", "/staff/api/night")["night"]["games_played"]) == n * len(started)

                wait(gathered, f"the host to gather round {number}'s games")
                if number == 3:  # the broker killed between two rounds, and started again
                    assert broker.process is not None
                    broker.process.kill()
                    broker.process.wait()
                    broker.start()
            hosted = host.staff.call("GET", "/staff/api/night")["night"]
            wait(lambda: len(stream.counted) >= len(hosted["games_played"]), "the dashboard to count every game")
            elapsed = time.monotonic() - began
            page = night_on_the_dashboard(port, cookie)
            plan_s = [heard.rounds[n] - confirmed_at[n] for n in confirmed_at if n in heard.rounds]
        finally:
            if heard is not None:
                heard.stop()
            for table in started:
                table.stop()
            if board is not None:
                stop_as_systemd(board, 20)
            broker.stop()
    mine = recomputed(hosted)
    games = hosted["games_played"]
    if sorted(page["games"]) != sorted(g["id"] for g in games) or len({g["id"] for g in games}) != len(games):
        raise BenchFailed("the dashboard and the host do not count the same games once each")
    if not same_standings(hosted["standings"], mine):
        raise BenchFailed("the host's standings differ from a recomputation from the rounds and games")
    if not same_standings(page["standings"], mine):
        raise BenchFailed("the dashboard's standings differ from a recomputation from the rounds and games")
    measured = [g for g in games if (g["table"], g["round"]) not in down]
    total = [stream.counted[g["id"]] - g["at"] for g in measured]
    to_broker = [heard.games[g["id"]] - g["at"] for g in measured if g["id"] in heard.games]
    to_page = [stream.counted[g["id"]] - heard.games[g["id"]] for g in measured if g["id"] in heard.games]
    return {"tables": tables, "teams": teams, "rounds": rounds, "games": len(games), "repeated_pairs": repeated,
            "seconds": round(elapsed, 1), "standings_latency": percentiles(total, 1),
            "table_to_broker": percentiles(to_broker, 1), "broker_to_page": percentiles(to_page, 1),
            "dashboard_throttle_ms": NIGHTS_EVERY_S * 1000, "plan_latency": percentiles(plan_s, 1)}
