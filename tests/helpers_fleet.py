"""The café's broker, the fleet and the league: Mosquitto with the documented configuration, tables on
it, a night's plan heard, two cafés' nights."""

from __future__ import annotations

import json
import random
import subprocess
import threading
import time
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING

from pi_table.bench.league import play_night
from pi_table.engine import Guess, Rules
from pi_table.fleet.league import League, Scoring, SeasonLine, night_topic, record, team_key
from pi_table.night.book import Book
from pi_table.night.names import folded
from pi_table.night.state import Night

from helpers import ROOT, openssl, require_tools, wait_for
from helpers_games import dealt_key
from helpers_machine import MosquittoUnit
from helpers_staff import STAFF_CONFIG, Staff, part
from helpers_tables import InProcessDaemon, StaffTable

if TYPE_CHECKING:
    from pi_table.night.games import Game as NightGame
    from pi_table.night.recorder import Recorder


BROKER_SECRET = "the-broker-password-58"
FLEET = f'[fleet]\nbroker = "mqtts://t1:{BROKER_SECRET}@127.0.0.1:1"\ntable_id = "t1"\n'
"""A fleet's settings whose broker's password the owner holds (issue 58: a reset wipes it); the
broker answers nowhere, and the table plays on unreported."""


# --- the café's broker: the documented Mosquitto configuration, over TLS, a user per table ----------

MOSQUITTO_DOCS = ROOT / "pi_table" / "fleet" / "mosquitto"  # the shipped files (docs/fleet/mosquitto/ shows a copy)
BROKER_USERS = {"t1": "table-one-secret", "t2": "table-two-secret", "dashboard": "dashboard-secret",
                "staff": "staff-secret"}


def broker_ca(folder: Path) -> None:
    """A CA, and the broker's certificate for 127.0.0.1 signed by it (P-256 keys: quick)."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=pi-table test CA", "-days", "1",
            cwd=folder)
    openssl("req", *key, "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1", cwd=folder)
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "broker.crt", "-days", "1", "-extfile", "san.ext", cwd=folder)


def start_cafe(folder: Path, client_certificates: bool = False, users: dict[str, str] = BROKER_USERS):
    """Mosquitto with the documented configuration, its paths and port swapped for the test's, a
    user for each of ``users`` (name: password); with ``client_certificates``, the documented
    lines for them uncommented. The broker (a LocalBroker) and its TLS port."""
    from pi_table.fleet.broker import LocalBroker, free_port, mosquitto  # the fleet's tests alone

    require_tools("openssl", "mosquitto_passwd", also_missing=() if mosquitto() else ("mosquitto",))
    broker_ca(folder)
    passwd = folder / "pi-table.passwd"
    for number, (user, password) in enumerate(users.items()):
        made = subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if number == 0 else []), str(passwd), user, password],
                              capture_output=True, text=True, timeout=30)
        assert made.returncode == 0, made.stderr
    acl = folder / "pi-table.acl"
    acl.write_text((MOSQUITTO_DOCS / "pi-table.acl").read_text())
    port = free_port()
    settings = (MOSQUITTO_DOCS / "pi-table.conf").read_text()
    swaps = {
        "password_file /etc/mosquitto/pi-table.passwd": f"password_file {passwd}",
        "acl_file /etc/mosquitto/pi-table.acl": f"acl_file {acl}",
        "listener 8883": f"listener {port} 127.0.0.1",
        "certfile /etc/mosquitto/certs/broker.crt": f"certfile {folder / 'broker.crt'}",
        "keyfile /etc/mosquitto/certs/broker.key": f"keyfile {folder / 'broker.key'}",
    }
    if client_certificates:
        swaps |= {"#cafile /etc/mosquitto/certs/pi-table-ca.crt": f"cafile {folder / 'ca.crt'}",
                  "#require_certificate true": "require_certificate true",
                  "#use_identity_as_username true": "use_identity_as_username true"}
    for documented, here in swaps.items():
        assert documented in settings, f"the documented configuration no longer says {documented!r}"
        settings = settings.replace(documented, here)
    broker = LocalBroker(folder / "broker", settings)  # its own plain listener too, under the same users
    broker.start()
    return broker, port


# the staff's https on the network, http for this machine and the guests
ON_THE_NETWORK = STAFF_CONFIG.replace('host = "127.0.0.1"\nport = 0\n', 'host = "0.0.0.0"\nport = 0\ntls_port = 0\n')


# --- a game night's tables, as the night's tests play them ------------------------------------


def heard(recorder: Recorder) -> dict:
    """The host's plan as a follower reads it off the broker: JSON, through the declared schema."""
    from pi_table.fleet import schema

    plan = recorder.plan()
    assert plan is not None
    return schema.parse("plan", json.dumps(plan).encode())  # type: ignore[return-value]


def host_and_follower(folder: Path, teams: tuple[str, ...]) -> tuple[Book, Recorder, Recorder]:
    """Host t1 (its night at t1 and t2, ``teams`` joined) and follower t2, accepted with the code:
    the host's book, its recorder and the follower's."""
    from pi_table.night.recorder import Recorder

    host = Book(folder / "t1")
    host.open("Friday league", ["codenames"], ["t1", "t2"])
    for name in teams:
        host.join(name)
    at_host = Recorder(host, "t1")
    follower = Recorder(Book(folder / "t2"), "t2")
    follower.follow("t1", heard(at_host))
    follower.book.accept("t1", host.current().code)
    return host, at_host, follower


def played_at(recorder: Recorder, seed: int = 1) -> NightGame | None:
    """A game played to its end at the recorder's table by random touches, and what it records."""
    from pi_table.table.session import Session

    rng = random.Random(seed)
    session = Session(Rules(), rng=rng)
    recorder.untouched(session.id)  # dealt in the night, as the table's loop sees it on a wake
    while not session.state.is_over:
        board = str(session.public_view().to_json()["board"])
        session.submit(Guess(rng.choice([cell for cell, seen in enumerate(board) if seen == "?"])))
    return recorder.seen(session.id, lambda: session.public_view().to_json())


# --- the café's broker on a table, its staff page and its root helper (test_broker_page.py, test_league.py) --


class Cafe:
    """A table in this process on the staff page, whose root helper (the test's call of
    ``helper.act``) sets up a real Mosquitto; ``restarted`` starts the table again as systemd does
    after it ended itself to try its new settings."""

    def __init__(self, folder: Path, extra: str = "") -> None:
        from pi_table.release import helper
        from pi_table.release.keys import Keyring
        from pi_table.release.layout import Releases
        from pi_table.release.service_user import ServiceUser

        (folder / "table").mkdir()
        self.folder, self.unit = folder, MosquittoUnit(folder / "unit")
        self.spool, self.home = folder / "spool", folder / "home"
        self.helper = helper.Helper(Releases(self.home), Keyring(folder / "keys"), ServiceUser(None),
                                    mosquitto=self.unit.broker)
        self.table: InProcessDaemon = StaffTable(folder / "table", dealt_key(), extra=extra)
        self.config = folder / "table" / "config.toml"
        self._wire()

    def _wire(self) -> None:
        daemon = self.table.daemon
        assert daemon.helper is not None
        daemon.helper.spool, daemon.helper.helper_missing = self.spool, lambda: None
        desk = part(daemon, "broker")  # the section's part of the table
        desk.home, desk.etc, desk.port = self.home, self.unit.etc, self.unit.port

    def staff(self) -> Staff:
        assert self.table.daemon.companion is not None
        staff = Staff(self.table.daemon.companion.base_url)
        staff.login()
        staff.as_owner()
        return staff

    def helper_acts(self) -> int:
        from pi_table.release import helper

        return helper.act(self.helper, self.spool)

    def restarted(self) -> None:
        """The table ended itself to try the broker's settings: started again on them."""
        wait_for(lambda: not self.table.runner.is_alive(), "the table ending itself to restart", 15)
        self.table.close()
        (self.folder / "table/journal/staff.restarts").unlink(missing_ok=True)
        self.table = InProcessDaemon(self.config)
        self._wire()

    def close(self) -> None:
        self.table.close()
        self.unit.close()


def settled(staff: Staff) -> dict:
    """The broker's view once the change asked has been settled by the helper's note."""
    seen: dict = {}

    def done() -> bool:
        seen.update(staff.call("GET", "/staff/api/broker")[1])
        return seen["pending"] is None

    wait_for(done, "the change settled", 15)
    return seen


def connected(url: str, ca: Path, table_id: str = "", topics: tuple[str, ...] = (), heard=None):
    """A raw client of the café's broker as the user in ``url`` (with its password), over TLS,
    subscribed to ``topics`` at every connection, their messages to ``heard``: the broker takes a
    user's client id from its name, so the table's own dashboard, the same user, takes the
    connection over now and then, and the client comes back on a new one."""
    from pi_table.config import broker as broker_config
    from pi_table.fleet import link

    settings = broker_config(url, ca=str(ca))
    client = link.client(settings, f"test-{time.monotonic_ns()}")
    up = threading.Event()

    def on_connect(c, u, flags, reason, properties) -> None:
        if reason.is_failure:
            return
        if topics:
            client.subscribe([(name, 1) for name in topics])
        else:
            up.set()

    def on_subscribe(c, u, mid, reasons, properties) -> None:
        up.set()  # the broker holds the subscriptions: what is published from now on reaches ``heard``

    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, heard
    client.connect(settings.host, settings.port)
    client.loop_start()
    wait_for(up.is_set, f"{settings.username} connected" + (" and subscribed" if topics else ""), 10)
    return client


# --- a league's nights: two cafés' host tables, as the league's tests and its pages' play them --------

LEAGUE_START = 1_795_000_000.0  # 2026-11-18, a café's evening


class CafeClock:
    """A café's clock: each look a minute on, so every night, round and game has its own time."""

    def __init__(self, start: float) -> None:
        self.ticks = count()
        self.start = start

    def __call__(self) -> float:
        return self.start + 60.0 * next(self.ticks)


def sent(night: Night, cafe: str, host: str) -> tuple[str, bytes]:
    """The topic and message a host table sends the league of its closed night, as JSON crosses the bridge."""
    message = record(night, cafe, host)
    assert message is not None
    return night_topic("spring", cafe, host, night.id), json.dumps(message).encode()


def recomputed(nights: list[tuple[str, Night]], scoring: Scoring, merged: dict[str, str] | None = None,
               split: frozenset[tuple[str, str]] = frozenset()) -> list[tuple]:
    """The season from the cafés' own nights, by the rules: each night's points as the night's
    standings give them (or the scale at its place), summed (or a team's best N), then openskill's
    Plackett-Luce over every result played at a table, in the order decided; ordered by points, then
    the rating (mu - 3 sigma). ``split``: a team (its key) and a café whose games there are a team
    of their own, keyed "team@café"."""
    from openskill.models import PlackettLuce

    merged = merged or {}
    model = PlackettLuce()
    at = ""  # the café of the night being counted

    def key(name: str) -> str:
        kept = team_key(merged.get(folded(name), folded(name)))
        return f"{kept}@{at}" if (kept, at) in split else kept

    points: dict[str, list[float]] = {}
    ratings: dict[str, object] = {}
    games = []
    for cafe, night in nights:
        at = cafe
        for line in night.standings():
            if scoring.points == "night":
                scored = line.points
            else:
                scored = scoring.scale[line.place - 1] if line.place <= len(scoring.scale) else 0.0
            points.setdefault(key(line.team), []).append(scored)
        for result in night.counted():
            if result.how == "played":
                games.append((result.at, f"{cafe}/{night.host or 't'}/{night.id}/{result.id}", cafe, result))
    for team in points:
        ratings[team] = model.rating(name=team)
    for _, _, at, result in sorted(games, key=lambda g: (g[0], g[1])):
        first, second = key(result.teams[0]), key(result.teams[1])
        ranks = [1, 1] if result.winner is None else [1, 2] if key(result.winner) == first else [2, 1]
        [[ratings[first]], [ratings[second]]] = model.rate([[ratings[first]], [ratings[second]]], ranks=ranks)
    season = []
    for team, scored in points.items():
        best = sorted(scored, reverse=True)[:scoring.best] if scoring.best else scored
        rating = ratings[team]
        season.append((team, len(scored), sum(best), round(rating.mu - 3 * rating.sigma, 6)))  # type: ignore[attr-defined]
    return sorted(season, key=lambda line: (-line[2], -line[3]))


def shown(season: list[SeasonLine], league: League) -> list[tuple]:
    """A season's lines as ``recomputed`` gives them: each team's key, nights, points and rating."""
    return [(line.key, line.nights, line.points, round(line.ordinal, 6)) for line in season]


def two_cafes(tmp_path, rng: random.Random) -> tuple[dict[str, Book], list[tuple[str, str, Night]]]:
    """Two cafés' host tables, three nights each; two teams play in both cafés (one under another
    spelling, as names are compared: the same team)."""
    books = {"bar-roma": Book(tmp_path / "roma", clock=CafeClock(LEAGUE_START)),
             "bar-milano": Book(tmp_path / "milano", clock=CafeClock(LEAGUE_START + 30))}
    teams = {"bar-roma": ["Owls", "Zebras", "Foxes", "Moles", "Quiz Club"],
             "bar-milano": ["owls", "Zébras", "Lynx", "Herons", "Otters", "Badgers"]}
    tables = {"bar-roma": ["r1", "r2"], "bar-milano": ["m1", "m2", "m3"]}
    played = []
    for week in range(3):
        for cafe, book in books.items():
            night = play_night(book, tables[cafe], rng.sample(teams[cafe], len(teams[cafe]) - week % 2), 3, rng)
            played.append((cafe, tables[cafe][0], night))
    return books, played


ROSTER = '[cafes]\nbar-roma = ["r1", "r2"]\nbar-milano = ["m1", "m2", "m3"]\n'
"""The two cafés of ``two_cafes`` and their tables, as a league's organiser lists them."""


def two_cafes_season(folder: Path) -> tuple[League, Path, list[tuple[str, str, Night]]]:
    """The spring league of ``two_cafes``'s cafés, every night of theirs taken; its roster file
    (in ``folder``) and the nights as they were played."""
    from pi_table.fleet.league_page import read_roster

    _, played = two_cafes(folder, random.Random(5))
    roster = folder / "roster.toml"
    roster.write_text(ROSTER)
    league = read_roster(roster).league("spring")
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))
    return league, roster, played
