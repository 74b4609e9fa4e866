"""``pi-table fleet``: one page with every table that reports to a broker.

It subscribes to every table's status, online, events, night and plan topics (QoS 1, in a
session the broker keeps, so events made while the dashboard was away reach it when it returns)
and keeps each table's row: online or not, in a game or idle, its faults, the games finished
today and their length; what a table sends that is not what its topic carries (``schema``), or
past its share of what the dashboard reads (``Fleet.afford``), is dropped and counted on its row.
The game nights it shows are those hosts run (their plans), each with the games its tables tell
of, counted only as the plan paired them; the café's come first and any other is shown apart.
The café's tables are ``--cafe-tables`` (then only they host or play), or else the host and tables
of the night the most tables play: each table tells of its own night alone, with its own login. paho's thread only reads the messages; a thread of the dashboard's own makes what changed
into rows and standings for the live page (Server-Sent Events), so a table that floods delays
no other. The day's games export as CSV.

Its login is the staff page's way in (``web.auth.Gate``) with a password whose scrypt hash is
kept in a file (``pi-table fleet --set-password``): a session cookie (HttpOnly,
SameSite=Strict), tries limited per address, and a browser that has signed in before counted on
its own (a flood from the owner's own address, behind a shared router or a proxy, does not lock
the owner out). What it knows lives in memory (its sessions too): restarted, it learns the
tables again from their retained status, online, night and plan topics; the day's games come
back only as far as the broker kept its session's events.
"""

from __future__ import annotations

import argparse
import asyncio
import calendar
import datetime as dt
import getpass
import html
import json
import logging
import ssl
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn, TypeAlias

import paho.mqtt.client as mqtt
from aiohttp import web

from .. import config
from ..config import FleetConfig
from ..config.settings import shown_url
from ..engine.errors import Refusal
from ..engine.games import terminations, title_of
from ..engine.phrase import N_, Phrase
from ..engine.views import LANGUAGES
from ..errors import PiTableError
from ..files import csv_text, write_private
from ..hal.events import DEVICE_NAMES, is_fault
from ..night.book import CLOCK_SKEW_S, NIGHT_ID
from ..night.games import Game, GameRefused
from ..night.standings import high_scores
from ..night.state import Night
from ..ui.i18n import say, say_health, translation
from ..web.auth import Gate, Refused, Throttle, Why, from_this_machine, hash_secret
from ..web.document import document
from ..web.night import TIEBREAK_FIELDS, TIEBREAK_WORDS, tiebreak_columns, tiebreak_words
from ..web.runner import ServerThread
from . import link, schema
from .link import PREFIX
from .schema import Message

log = logging.getLogger("pi_table.fleet")
COOKIE = "pi_table_fleet"  # and "pi_table_fleet_device": a browser that has signed in before
SESSION_S = 12 * 3600  # a session's life, in the browser and unused
ATTEMPTS = 5  # logins an address (or a known browser) may try a minute
ATTEMPTS_OVERALL = 20  # from browsers never seen, all addresses together, a minute (on a table: the staff page's count)
ERRORS_KEPT = 5
NIGHTS_SHOWN = 3  # game nights on the page (a host's latest each): the open ones first, then the last closed
NIGHTS_EVERY_S = 0.2  # the nights' standings are made at most this often, for however many messages came
SHARE_KB_S, BURST_KB, LEAST_KB = 100, 2048, 1  # what one table may send the dashboard (``Fleet.afford``)
ID_AFTER_S = 60  # a night's id names the second it opened, or one a little after (its host had a night of that second)
GAMES_A_DAY = 1000  # one table's finished games kept a day: a game takes minutes, and a day is 1,440 of them
TOO_MANY_TODAY = Phrase.of("a game over past the {most} one table can finish in a day: not counted", most=GAMES_A_DAY)
TOO_FAST = Phrase.of("more than {kb} KB a second from one table: not read", kb=SHARE_KB_S)
UNSAID = N_("not said (a table of an older version)")
"""How a game from a table that does not report its ending's code ended, as the page counts it."""
DROPS_SAID_EVERY_S = 60.0  # a table's dropped messages are in the log at most this often
# What a live page's stream is told: ("", a table's row), or ("nights", the nights' standings)
News: TypeAlias = tuple[str, dict[str, object] | list[dict[str, object]]]
FAILED = Phrase.of("the dashboard failed on a message (its own fault: see its log)")
WORDS = {  # the page's words, translated once for the page's language
    "title": N_("The fleet"), "table": N_("Table"), "connection": N_("Online"), "online": N_("online"), "offline": N_("offline"),
    "playing": N_("in a game"), "idle": N_("idle"), "over": N_("game over"), "faults": N_("Faults"),
    "games_today": N_("Games today"), "endings": N_("How they ended"), "average": N_("Average length"), "game": N_("Game"), "seen": N_("Last report"),
    "export": N_("The day's games (CSV)"), "password": N_("Password"), "sign_in": N_("Sign in"),
    "sign_out": N_("Sign out"), "wrong": N_("Wrong password."), "wait": N_("Too many tries: wait a minute."),
    "busy": N_("Too many logins at once: try again in a moment."),
    "in_clear": N_("The password is taken over https only, never in clear: without the table's certificate this page "
                   "answers this machine alone (the table's screen says why and what to do)."),
    "none": N_("none"),
    "unheard": N_("never reported"),
    "dropped": N_("messages dropped: {count} (the last: {why})"),
    "standings": N_("Standings of {night}"), "hosted": N_("run from table {host}"), "closed": N_("closed"),
    "apart": N_("from elsewhere: not a night of the café's tables"),
    "team": N_("Team"), "played": N_("played"), "won": N_("won"),
    "lost": N_("lost"), "points": N_("points"), "margin": N_("margin"), "rating": N_("rating"),
    "byes": N_("byes"), "buchholz": N_("Buchholz"), "withdrawn": N_("withdrawn"), "tiebreak": N_("Tie-break: {tiebreak}"),
    **{field: TIEBREAK_WORDS[name] for name, field in TIEBREAK_FIELDS.items()},  # the columns a night's tie-breaks add
}
FAULTS = (FAILED.template, WORDS["dropped"])
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""


# --- the password ---------------------------------------------------------------------------

class PasswordError(PiTableError, ValueError):
    """The fleet page's password cannot be set or read: the message says how to make one."""


def hash_password(password: str) -> str:
    """The line kept in the password file: the salted scrypt hash the staff PIN's is too."""
    if not password:
        raise PasswordError("the password is empty: choose one of at least 8 characters")
    if len(password) < 8:
        raise PasswordError(f"the password has {len(password)} characters: choose one of at least 8")
    return hash_secret(password)


def read_password_file(path: Path) -> str:
    """The stored hash; PasswordError saying how to make one when the file is missing or wrong."""
    try:
        stored = path.read_text(encoding="utf-8").strip()
    except OSError as e:
        raise PasswordError(f"cannot read the password file {path} ({e.strerror or e}): make it with "
                         f"pi-table fleet --set-password --password-file {path}") from None
    if not stored.startswith("scrypt$") or stored.count("$") != 5:
        raise PasswordError(f"{path} holds no password hash: make it with pi-table fleet --set-password --password-file {path}")
    return stored


def write_password_file(path: Path, password: str) -> None:
    """Write the hash, readable by its owner alone, in place of any before (atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, (hash_password(password) + "\n").encode())


# --- what the dashboard knows ---------------------------------------------------------------

@dataclass
class TableRow:
    table_id: str
    online: bool | None = None  # None: no online message seen yet
    status: Message = field(default_factory=Message)
    games: list[Message] = field(default_factory=list)  # game_over events, today's
    errors: list[str] = field(default_factory=list)  # the last few error events and refused commands
    seen: float | None = None  # when a message the dashboard took last came from it (this machine's clock)
    dropped: int = 0  # its messages the dashboard could not take
    why: Phrase | None = None  # why the last of them was dropped
    dropped_said: float | None = None  # when the log last said so
    share: float = BURST_KB * 1024  # bytes it may send now (``Fleet.afford``)
    shared_at: float | None = None  # when its share was last worked out (the pace's clock)


class Fleet:
    """Every table seen on the broker, from its messages; safe from any thread. ``take`` (paho's
    thread) reads a message and marks what it changed; ``news`` (the dashboard's own thread) says
    which rows changed and whether the nights did, and ``nights`` makes their standings. A
    device's health is said in ``lang``, the page's language; with ``cafe_tables`` (the owner's
    list), only those tables host a night or tell of its games. ``pace`` times each table's share."""

    def __init__(self, clock: Callable[[], float] = time.time, lang: str = "en", cafe_tables: Iterable[str] = (),
                 pace: Callable[[], float] = time.monotonic) -> None:
        self.clock, self.lang, self.pace = clock, lang, pace
        self.cafe = frozenset(cafe_tables)
        self.tables: dict[str, TableRow] = {}
        self.plans: dict[str, Message] = {}  # by host: the plan of the night it runs (schema.PLAN), its latest
        self.told: dict[str, tuple[str, list[Game]]] = {}  # by table: the night it tells of, and its games there
        self.due = threading.Event()  # set when a row or the nights changed: news for the pages
        self._due_rows: set[str] = set()
        self._nights_due = False
        self._version = 0  # counts the changes to the plans and games, so ``nights`` is made once for each
        self._nights: tuple[int, list[dict[str, object]]] | None = None
        self._lock = threading.Lock()

    def take(self, topic: str, payload: bytes | bytearray) -> dict[str, object] | None:
        """One message: the table's row as it is now, or None for a message that is not a
        table's, or is empty (a retained one cleared: ``_cleared``). One past the table's share
        (``afford``) is dropped unread; one that is not what its topic carries (``schema.parse``),
        or a plan of no night the café runs (``_check_plan``), is dropped; each counted on the table's row."""
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != PREFIX or parts[2] not in schema.TOPICS:
            return None
        if not payload:
            self._cleared(parts[1], parts[2])
            return None
        table_id, kind = parts[1], parts[2]
        if not self.afford(table_id, len(payload)):
            return self.drop(table_id, TOO_FAST)
        try:
            value = schema.parse(kind, payload)
            games = _night_games(table_id, value) if kind == "night" else []
            if kind == "plan":
                self._check_plan(table_id, value)  # type: ignore[arg-type]  # schema.PLAN: an object
        except (schema.Refused, GameRefused) as refused:
            return self.drop(table_id, refused.phrase)
        with self._lock:
            table = self._table(table_id)
            table.seen = self.clock()
            not_taken: Phrase | None = None
            if kind == "online":
                table.online = value  # type: ignore[assignment]  # schema.TOPICS: true or false
            elif kind == "status":
                table.status = value  # type: ignore[assignment]  # schema.STATUS: an object
            elif kind == "night":
                self._night(table_id, value, games)  # type: ignore[arg-type]  # schema.NIGHT: an object
            elif kind == "plan":
                self._plan(table_id, value)  # type: ignore[arg-type]  # schema.PLAN: an object
            else:
                not_taken = self._event(table, value)  # type: ignore[arg-type]  # schema.EVENT: an object
            row = self._row(table)
            self._due_rows.add(table_id)
        self.due.set()
        if not_taken is not None:  # what it could take is taken; the rest is counted as dropped
            row = self.drop(table_id, not_taken)
        return row

    def afford(self, table_id: str, size: int) -> bool:
        """Whether the table's share lets the dashboard read a message of ``size`` bytes (at least
        ``LEAST_KB``), taken from it: ``BURST_KB`` at once (its retained topics, a day's events
        the broker kept while the dashboard was away), then ``SHARE_KB_S`` a second."""
        now = self.pace()
        with self._lock:
            table = self._table(table_id)
            if table.shared_at is not None:  # a clock set back gives nothing
                table.share = min(BURST_KB * 1024.0, table.share + max(0.0, now - table.shared_at) * SHARE_KB_S * 1024)
            table.shared_at = now
            cost = max(size, LEAST_KB * 1024)
            if table.share < cost:
                return False
            table.share -= cost
            return True

    def _table(self, table_id: str) -> TableRow:
        """The table's row (under the lock), made at its first message."""
        return self.tables.setdefault(table_id, TableRow(table_id))

    def _check_plan(self, host: str, plan: Message) -> None:
        """schema.Refused unless ``plan`` is of a night ``host`` may run, opened when its id says
        (``named_at``), by now (``CLOCK_SKEW_S`` aside), and holds a night (``planned``): a table's
        plan decides no night by an id that sorts last, nor by one opened in the future to come due later."""
        if self.cafe and host not in self.cafe:
            raise schema.Refused("plan", Phrase.of("from one of the café's tables ({tables}): [fleet] cafe_tables",
                                                   tables=", ".join(sorted(self.cafe))))
        named = named_at(plan["night"])
        if named is None or not 0 <= named - int(plan["opened"]) <= ID_AFTER_S:
            raise schema.Refused("plan.night", Phrase.of("the time its night opened (plan.opened), as YYYYMMDD-HHMMSS "
                                                         "in UTC"))
        if plan["opened"] > self.clock() + CLOCK_SKEW_S:
            raise schema.Refused("plan.night", Phrase.of("a night opened by now: this table's clock may be ahead"))
        try:
            planned(host, plan)
        except (KeyError, TypeError, ValueError):  # what the schema let through and a night cannot be
            raise schema.Refused("plan", Phrase.of("a night's plan, its rounds of its teams")) from None

    def _plan(self, host: str, plan: Message) -> None:
        """A host's plan (under the lock): its night's now, unless it is an older one of the same
        night or the same one again (a host sends its plan again at every connection)."""
        kept = self.plans.get(host)
        if kept is None or kept["night"] != plan["night"] or kept["seq"] < plan["seq"]:
            self.plans[host] = plan
            self._nights_changed()

    def _night(self, table_id: str, told: Message, games: list[Game]) -> None:
        """A table's night (under the lock): the night it tells of and its games there, whole each
        time; the nights are due again when it is one a plan names the table in."""
        self.told[table_id] = (told["night"], games)
        if any(plan["night"] == told["night"] and table_id in plan["tables"] for plan in self.plans.values()):
            self._nights_changed()

    def _cleared(self, table_id: str, kind: str) -> None:
        """A table's retained message cleared, as the café's broker clears them all when the owner
        takes a table off it (pi_table/release/broker.py): its status, and the dashboard forgets
        the table; its plan or its night, and the nights it told of."""
        with self._lock:
            gone = kind == "status" and self.tables.pop(table_id, None) is not None
            self._due_rows.discard(table_id)
            if (kind in ("status", "plan") and self.plans.pop(table_id, None) is not None) or (
                    kind in ("status", "night") and self.told.pop(table_id, None) is not None):
                self._nights_changed()
        if gone:
            log.info("the dashboard forgets %s: its status was cleared at the broker", table_id)
        self.due.set()

    def _nights_changed(self) -> None:
        self._version += 1
        self._nights_due = True

    def news(self, langs: Iterable[str] = ()) -> tuple[list[dict[str, object]], bool]:
        """What changed since the last call, for the pages: the rows of the tables that sent
        something (each once, however many messages it sent, and once in each of ``langs``, the
        fleet's language when none), and whether the nights did."""
        today = self.today()
        with self._lock:
            rows = [self._row(self.tables[table_id], today, lang) for table_id in sorted(self._due_rows)
                    for lang in (tuple(langs) or (self.lang,))]
            nights, self._due_rows, self._nights_due = self._nights_due, set(), False
        return rows, nights

    def nights(self) -> list[dict[str, object]]:
        """The nights hosts run (their plans), at most ``NIGHTS_SHOWN``: the café's first (``apart``
        False: hosted by one of ``cafe_tables``), then any other; among them the open ones first, the
        most played (by the tables that tell of them, ``playing``) and the latest opened. Each with
        its standings, the same computation as a table's own (``night.book.Night``), made once for
        each change of the plans and games."""
        with self._lock:
            version = self._version
            if self._nights is not None and self._nights[0] == version:
                return self._nights[1]
            plans, told = list(self.plans.items()), dict(self.told)
        plans.sort(key=lambda hosted: (hosted[1]["closed"] is None, len(playing(hosted[1], told)),
                                       hosted[1]["opened"]), reverse=True)
        cafe = self.cafe or (frozenset({plans[0][0], *plans[0][1]["tables"]}) if plans else frozenset())
        plans.sort(key=lambda hosted: hosted[0] not in cafe)  # stable: each part keeps its order
        nights = [{**self._standings(host, plan, told), "apart": host not in cafe} for host, plan in plans[:NIGHTS_SHOWN]]
        with self._lock:
            if self._nights is None or self._nights[0] < version:
                self._nights = (version, nights)
        return nights

    def night(self) -> dict[str, object] | None:
        """The night the page shows first (``nights``), or None before any."""
        return next(iter(self.nights()), None)

    def _standings(self, host: str, plan: Message, told: dict[str, tuple[str, list[Game]]]) -> dict[str, object]:
        """A host's night and its standings: the games its tables tell of, each counted as a
        follower records one (``Night.awaits``: its round's pair at its table, the first there),
        from the café's tables alone when the owner listed them."""
        night = planned(host, plan)
        for table in night.tables:
            said, games = told.get(table, ("", []))
            if said == night.id and (not self.cafe or table in self.cafe):
                night.played.extend(game for game in games if night.awaits(game))
        return {"night": night.id, "host": host, "name": night.name, "open": night.open, "tables": list(night.tables),
                "games": sorted(game.id for game in night.played),
                "standings": [line.to_json() for line in night.standings()], "tiebreak": night.tiebreak,
                "tiebreak_words": {lang: tiebreak_words(night.tiebreak, translation(lang).gettext) for lang in LANGUAGES},
                "columns": list(tiebreak_columns(night.tiebreak)), "bye": night.bye,
                "high_scores": [score.to_json() for score in high_scores(night.played)]}

    def drop(self, table_id: str, why: Phrase, failure: bool = False) -> dict[str, object]:
        """A message of the table's not taken: counted on its row; in the log at most once a
        ``DROPS_SAID_EVERY_S`` a table, so a table that sends nothing else floods nothing
        (``failure``: the dashboard's own, logged with its traceback)."""
        now = self.clock()
        with self._lock:
            table = self._table(table_id)
            table.dropped += 1
            table.why = why
            said = table.dropped_said
            if tell := said is None or not 0 <= now - said < DROPS_SAID_EVERY_S:  # (a clock set back: said again)
                table.dropped_said = now
            row = self._row(table)
            self._due_rows.add(table_id)
        self.due.set()
        if tell:
            log.warning("table %s: message dropped, %s (%d from it so far; said at most every %g s)", table_id, why,
                        row["dropped"], DROPS_SAID_EVERY_S, exc_info=failure)
        return row

    def today(self) -> dt.date:
        """The day on this machine's clock (local time): the one "today's games" are of."""
        return self._day(self.clock())

    def _of_the_day(self, table: TableRow, today: dt.date) -> list[Message]:
        return [game for game in table.games if self._day(game.get("at", 0)) == today]

    def _event(self, table: TableRow, event: Message) -> Phrase | None:
        """A table's event (under the lock); why it was not taken (``GAMES_A_DAY`` games a table at most)."""
        today = self.today()
        table.games = [game for game in table.games if self._day(game.get("at", 0)) == today]
        if event.get("event") == "game_over" and self._day(event.get("at", 0)) == today:
            if all(game.get("game_id") != event.get("game_id") for game in table.games):  # QoS 1: maybe twice
                if len(table.games) >= GAMES_A_DAY:
                    return TOO_MANY_TODAY
                table.games.append({**event, "table_id": table.table_id})  # the topic's: no table speaks for another
        elif event.get("event") == "error" or (event.get("event") == "command" and not event.get("ok")):
            table.errors = [*table.errors, str(event.get("error"))][-ERRORS_KEPT:]
        return None

    @staticmethod
    def _day(at: float) -> dt.date:
        return dt.datetime.fromtimestamp(at).date()

    def _row(self, table: TableRow, today: dt.date | None = None, lang: str | None = None) -> dict[str, object]:
        """The table's row as the page shows it, in ``lang`` (the fleet's unless given); its games
        those of ``today`` (the clock's day, unless given), so yesterday's leave the count at
        midnight, not at the next message."""
        lang = lang or self.lang
        status = table.status
        health = status.get("health", {})
        gettext = translation(lang).gettext  # the page's language names the devices and games
        warned = status.get("warnings_in", {}).get(lang) or status.get("warnings", [])  # in the page's language
        faults = list(warned) or [  # what the table's screen warns of, or else its health
            f"{gettext(DEVICE_NAMES.get(device, device))}: {say_health(detail, lang)}"
            for device, detail in health.items() if is_fault(detail)]
        games = self._of_the_day(table, today or self.today())
        lengths = [game["duration_s"] for game in games if isinstance(game.get("duration_s"), (int, float))]
        return {
            "table_id": table.table_id,
            "lang": lang,  # the pages in this language show it (``Dashboard._fan_out``)
            "online": table.online,
            "heard": table.seen is not None,  # a café's table that never reported is listed too (``rows``)
            "activity": activity(status),
            "game": status.get("game"),
            "game_id": status.get("game_id"),
            "game_title": gettext(title_of(game)) if (game := str(status.get("game") or "")) else None,
            "faults": faults,
            "errors": list(table.errors),
            "games_today": len(games),
            "endings": self._endings(games, lang),
            "average_s": round(sum(lengths) / len(lengths), 1) if lengths else None,
            "lengths_s": lengths,
            "version": status.get("version"),
            "uptime_s": status.get("uptime_s"),
            "reported_at": status.get("at"),
            "seen": table.seen,
            "dropped": table.dropped,
            "dropped_why": None if table.why is None else say(table.why, lang),
        }

    def _endings(self, games: list[Message], lang: str) -> list[list[str | int]]:
        """How the games ended, by the engine's termination code, counted and said in the page's
        language, most first: what groups the endings of every table (an older table's games, which
        carry no code, under their own words)."""
        gettext = translation(lang).gettext
        counted = Counter(game.get("termination") for game in games)
        words = {ending.value: ending.words for ending in terminations()}
        return [[gettext(words[code]) if code in words else gettext(UNSAID), count] for code, count in counted.most_common()]

    def rows(self, lang: str | None = None) -> list[dict[str, object]]:
        """Every table's row, in ``lang`` (the fleet's unless given): each heard from, and each of
        the owner's ``cafe_tables`` never heard from (not "1 of 1 tables online" when the café has
        three)."""
        today = self.today()
        with self._lock:
            tables = {**{table_id: TableRow(table_id) for table_id in self.cafe}, **self.tables}
            return [self._row(table, today, lang) for _, table in sorted(tables.items())]

    def csv(self) -> str:
        """Today's finished games (the clock's day), one line each, oldest first."""
        today = self.today()
        with self._lock:
            games = sorted((game for table in self.tables.values() for game in self._of_the_day(table, today)),
                           key=lambda g: g.get("at", 0))
        return csv_text([["table_id", "game_id", "game", "ended", "duration_s", "winner", "reason", "termination", "score"],
                         *([game.get("table_id"), game.get("game_id"), game.get("game"),
                            dt.datetime.fromtimestamp(game.get("at", 0)).isoformat(timespec="seconds"),
                            game.get("duration_s"), game.get("winner"), game.get("reason"), game.get("termination"),
                            game.get("score")] for game in games)])


def asked_language(accepted: str, otherwise: str) -> str:
    """The first language of an Accept-Language header (``it-IT,it;q=0.9,en;q=0.8``), by its
    weights, that the table speaks; ``otherwise`` when it names none (or refuses them, ``q=0``)."""
    asked = []
    for order, part in enumerate(accepted.split(",")):
        tag, _, weight = part.strip().partition(";")
        try:
            q = float(weight.strip().removeprefix("q=")) if weight.strip().startswith("q=") else 1.0
        except ValueError:
            continue
        primary = tag.strip().split("-")[0].lower()
        if q > 0 and primary in LANGUAGES:
            asked.append((-q, order, primary))
    return min(asked)[2] if asked else otherwise


def _night_games(table_id: str, night: object) -> list[Game]:
    """A night message's games (``schema.NIGHT``), each the topic's table's: no table speaks for another."""
    assert isinstance(night, dict)
    return [Game.from_json({**game, "table": table_id}) for game in night["games"]]


def playing(plan: Message, told: dict[str, tuple[str, list[Game]]]) -> list[str]:
    """The tables of ``plan``'s night that tell of it on their own ``night`` topic: each speaks
    for itself alone (the broker's ACL), so none can make another's night its own."""
    return [table for table in plan["tables"] if told.get(table, ("", []))[0] == plan["night"]]


def named_at(night_id: str) -> float | None:
    """The time a night's id names (``night.book.NIGHT_ID``: the second it opened, UTC), or None
    when it names none."""
    if not NIGHT_ID.fullmatch(night_id):
        return None
    try:
        return float(calendar.timegm(time.strptime(night_id, "%Y%m%d-%H%M%S")))
    except ValueError:  # a month 13, a day 32
        return None


def planned(host: str, plan: Message) -> Night:
    """The night a host's plan (``schema.PLAN``) holds, as a table that follows it keeps it, no game played yet."""
    night = Night(plan["night"])
    night.apply({"event": "plan", "host": host, "plan": plan})
    return night


def activity(status: Message) -> str:
    """What a table is doing: ``over`` (a game finished), ``playing`` (cards revealed, moves
    made) or ``idle`` (dealt and untouched, or nothing heard yet)."""
    if not status:
        return "idle"
    if status.get("over"):
        return "over"
    state = status.get("state") or {}
    board = state.get("board")
    touched = (isinstance(board, str) and any(cell not in "?." for cell in board)) or bool(state.get("clue"))
    return "playing" if touched or state.get("phase") not in (None, "clue", "place") else "idle"


# --- the web page ---------------------------------------------------------------------------

class Dashboard(ServerThread):
    """The MQTT subscriber, the web server and the news for the pages, each in a thread of its
    own: paho's reads the tables' messages, the news thread (``_news``) makes what changed into
    rows and standings for the live pages, so no night's standings hold up another table's row."""

    roll_check_s = 30.0  # how often the page looks whether the day turned (and sends every row again)

    def __init__(self, broker: FleetConfig, host: str, port: int, password_hash: str | Callable[[], str | None],
                 lang: str = "en", client_id: str = "pi-table-fleet", clock: Callable[[], float] = time.time,
                 cafe_tables: Iterable[str] = (), tls: ssl.SSLContext | None = None, tries: Throttle | None = None,
                 in_clear: bool = False) -> None:
        """``password_hash``: the login's hash, or where it is read each time (on a table: the
        owner's passphrase, ``KeptSecret``, and ``tries`` the staff page's count of its tries);
        ``tls``: the page over https (a table's own certificate). Without ``tls`` the login answers
        this machine alone, unless ``in_clear`` lets its password cross the network in clear
        (``pi-table fleet``'s own page, on a network its owner trusts)."""
        super().__init__("fleet-dashboard")
        self.broker, self.host, self.port, self.lang, self.tls = broker, host, port, lang, tls
        self.in_clear = in_clear
        self.fleet = Fleet(clock=clock, lang=lang, cafe_tables=cafe_tables)
        self._newsroom: threading.Thread | None = None
        self._stopping = False
        secret: Callable[[], str | None] = password_hash if callable(password_hash) else lambda: password_hash
        self.gate = Gate("fleet", secret, COOKIE, "/", ATTEMPTS, ATTEMPTS_OVERALL, SESSION_S, time.monotonic,
                         cookie_s=SESSION_S, tries=tries)
        self.client = link.client(broker, client_id)
        self.client.on_connect = self._connected
        self.client.on_connect_fail = self._connect_failed
        self.client.on_message = self._message
        self._unreachable_said = False  # the broker's absence is in the log, once until it connects
        self.connected = threading.Event()
        self._queues: dict[asyncio.Queue[News | None], str] = {}  # each live page's, and its language (None: it stops)
        self._roller: asyncio.Task[None] | None = None
        self.words = {each: {key: translation(each).gettext(text) for key, text in WORDS.items()} for each in LANGUAGES}
        # counted in the page: the forms for one table online and for any other number, as both the
        # table's languages count
        self.tables_online = {each: [translation(each).ngettext("{online} of {count} tables online",
                                                                "{online} of {count} tables online", n) for n in (1, 2)]
                              for each in LANGUAGES}

    # MQTT

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("the broker %s refused the dashboard: %s", self.broker.host, reason)
            return
        client.subscribe([(link.topic("+", name), 1) for name in schema.TOPICS])
        self._unreachable_said = False
        self.connected.set()

    def _connect_failed(self, client: mqtt.Client, userdata: Any) -> None:
        """paho could not reach the broker (it tries again, less and less often): said once."""
        if not self._unreachable_said:
            self._unreachable_said = True
            error = sys.exc_info()[1]
            log.warning("cannot reach the broker %s:%d (%s): check --broker and the network; trying again",
                        self.broker.host, self.broker.port, getattr(error, "strerror", None) or error or "no connection")

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """A table's message. The schema drops what a table may not send; anything else that
        goes wrong is counted against the table here, never left to end paho's thread and, with
        it, every table's updates."""
        try:
            self.fleet.take(message.topic, message.payload)
        except Exception:  # noqa: BLE001 (the last line of defence)
            self.fleet.drop(message.topic.split("/")[1], FAILED, failure=True)

    # the news for the pages

    def _news(self) -> None:
        """The news thread: each row that changed to the live pages as it comes (one for however
        many messages its table sent meanwhile), and the nights' standings at most every
        ``NIGHTS_EVERY_S``, once for however many plans and games came meanwhile."""
        nights_due, next_nights = False, 0.0
        while True:
            self.fleet.due.wait(None if not nights_due else max(0.0, next_nights - time.monotonic()))
            if self._stopping:
                return
            self.fleet.due.clear()
            try:
                rows, due = self.fleet.news(LANGUAGES)  # each row in every language a page may speak
                for row in rows:
                    self.call(self._fan_out, row)
                nights_due = nights_due or due
                if nights_due and time.monotonic() >= next_nights:
                    nights_due, next_nights = False, time.monotonic() + NIGHTS_EVERY_S
                    self.call(self._fan_out, self.fleet.nights(), "nights")
            except Exception:  # a bug of the dashboard's must not end the pages' news for good
                log.exception("the dashboard could not tell the pages of a change: the next change tries again")

    def _fan_out(self, row: dict[str, object] | list[dict[str, object]], kind: str = "") -> None:
        """A table's row (or, ``kind`` "nights", the nights' standings) to every live page (a row
        to those in its language)."""
        for queue, lang in list(self._queues.items()):
            if queue.qsize() < 1000 and (isinstance(row, list) or row["lang"] == lang):  # a page that stopped
                queue.put_nowait((kind, row))  # reading misses rows, never holds memory

    # the server

    def start(self) -> None:
        """Serve the page (raises OSError when its port is taken), then tell it the news and
        connect to the broker."""
        super().start()
        self._newsroom = threading.Thread(target=self._news, name="fleet-news", daemon=True)
        self._newsroom.start()
        try:
            link.connect(self.client, self.broker)
        except BaseException:
            self.stop()
            raise

    async def _roll_over(self) -> None:
        """At the day's turn, every row again to the live pages: their games today start at 0
        though no table has said anything since."""
        day = self.fleet.today()
        while True:
            await asyncio.sleep(self.roll_check_s)
            if (today := self.fleet.today()) != day:
                day = today
                for row in self.fleet.rows():
                    self._fan_out(row)

    async def _open(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/login", self._login_page)
        app.router.add_post("/login", self._login)
        app.router.add_post("/logout", self._logout)
        app.router.add_get("/api/tables", self._tables)
        app.router.add_get("/api/night", self._night)
        app.router.add_get("/api/nights", self._nights)
        app.router.add_get("/events", self._events)
        app.router.add_get("/export.csv", self._export)
        for name in PAGE_FILES:  # the page's style and script, the same for anyone: no secret in them
            app.router.add_get(f"/{name}", self._page_file)
        app.on_shutdown.append(self._end_streams)
        runner = await self._set_up(app)
        await web.TCPSite(runner, self.host, self.port, ssl_context=self.tls).start()
        if self.port == 0:
            self.port = runner.addresses[0][1]
        self._roller = asyncio.create_task(self._roll_over())

    async def _close(self) -> None:
        assert self._roller is not None  # _open ran
        self._roller.cancel()
        await asyncio.gather(self._roller, return_exceptions=True)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self._stopping = True
        self.fleet.due.set()
        if self._newsroom is not None:
            self._newsroom.join(timeout=5)
        super().stop()

    # login

    def _over_tls(self, request: web.Request) -> None:
        """A login over plain http from another machine is refused before its password is read
        (nor counted): a password never crosses the network in clear."""
        if not (self.tls or self.in_clear or from_this_machine(request)):
            lang = self._language(request)
            raise web.HTTPForbidden(text=self._html(f'<p class=error>{html.escape(self.words[lang]["in_clear"])}</p>',
                                                    lang), content_type="text/html")

    async def _login_page(self, request: web.Request, message: str = "", status: int = 200) -> web.Response:
        self._over_tls(request)
        lang = self._language(request)
        w = self.words[lang]
        body = (f'<form method="post" action="/login"><label>{w["password"]} <input type="password" name="password" '
                f'autocomplete="current-password" autofocus></label> <button>{w["sign_in"]}</button>'
                f'{f"<p class=error>{html.escape(message)}</p>" if message else ""}</form>')
        return web.Response(text=self._html(body, lang), content_type="text/html", status=status)

    async def _login(self, request: web.Request) -> web.Response:
        def refused(said: str, status: int) -> Awaitable[web.Response]:
            return self._login_page(request, self.words[self._language(request)][said], status)

        return await signed_in(request, self.gate, refused, self._over_tls)

    async def _logout(self, request: web.Request) -> web.Response:
        signed_out(request, self.gate, "/login")

    def _require(self, request: web.Request) -> None:
        if isinstance(self.gate.visit(request), Refused):
            raise web.HTTPUnauthorized(text="sign in first: /login")

    # pages

    async def _page(self, request: web.Request) -> web.Response:
        if isinstance(self.gate.visit(request), Refused):
            raise web.HTTPSeeOther("/login")
        lang = self._language(request)
        w = self.words[lang]
        heads = "".join(f"<th>{w[key]}</th>" for key in ("table", "connection", "game", "faults", "games_today", "endings",
                                                          "average", "seen"))
        page_data = json.dumps({"words": {**w, "tables": self.tables_online[lang]}, "standing": STANDING}).replace("<", "\\u003c")
        body = (f'<header><h1>{w["title"]}</h1><p id="count"></p><a href="/export.csv">{w["export"]}</a>'
                f'<form method="post" action="/logout"><button>{w["sign_out"]}</button></form></header>'
                f'<div class="scroll" tabindex="0" role="region" aria-label="{w["title"]}">'
                f'<table><thead><tr>{heads}</tr></thead><tbody id="rows"></tbody></table></div><div id="nights"></div>'
                f'<script type="application/json" id="fleet-words">{page_data}</script>'
                f'<script src="/fleet.js"></script>')
        return web.Response(text=self._html(body, lang), content_type="text/html")

    def _language(self, request: web.Request) -> str:
        """The pages' language for ``request``: the first the phone asks for (Accept-Language, by
        its weights) that the table speaks, else the table's own (issue 62, 4: English under an
        Italian phone, with no way to another)."""
        return asked_language(request.headers.get("Accept-Language", ""), self.lang)

    async def _page_file(self, request: web.Request) -> web.Response:
        name = request.path.lstrip("/")
        return web.Response(text=page_file(name), content_type=PAGE_FILES[name])

    def _html(self, body: str, lang: str) -> str:
        return document(lang, f'pi-table: {self.words[lang]["title"]}', f"{body}\n",
                        head='<link rel="icon" href="data:,">\n'  # no icon, and no request for one
                             '<link rel="stylesheet" href="/fleet.css">\n', referrer=True)

    async def _tables(self, request: web.Request) -> web.Response:
        self._require(request)
        return web.json_response(self.fleet.rows(self._language(request)))

    async def _night(self, request: web.Request) -> web.Response:
        """The night the page shows first (``Fleet.night``), or null."""
        self._require(request)
        return web.json_response(await asyncio.to_thread(self.fleet.night))

    async def _nights(self, request: web.Request) -> web.Response:
        """Every night the page shows (``Fleet.nights``)."""
        self._require(request)
        return web.json_response(await asyncio.to_thread(self.fleet.nights))

    async def _export(self, request: web.Request) -> web.Response:
        self._require(request)
        day = self.fleet.today().isoformat()
        return web.Response(text=self.fleet.csv(), content_type="text/csv",
                            headers={"Content-Disposition": f'attachment; filename="pi-table-fleet-{day}.csv"'})

    async def _end_streams(self, app: web.Application) -> None:
        """At a stop, every page's stream ends: none holds the stop until its next write fails."""
        for queue in self._queues:
            queue.put_nowait(None)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """Every row now and the nights' standings, then each again as it changes (the
        standings as the SSE event ``nights``, a list)."""
        self._require(request)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
        await response.prepare(request)
        queue: asyncio.Queue[News | None] = asyncio.Queue()
        lang = self._language(request)
        self._queues[queue] = lang
        try:
            for row in self.fleet.rows(lang):
                await response.write(f"data: {json.dumps(row)}\n\n".encode())
            if nights := await asyncio.to_thread(self.fleet.nights):
                await response.write(f"event: nights\ndata: {json.dumps(nights)}\n\n".encode())
            while True:
                try:
                    news = await asyncio.wait_for(queue.get(), 15)
                except TimeoutError:
                    await response.write(b": still here\n\n")  # a proxy keeps the stream open
                    continue
                if news is None:  # the dashboard stops
                    break
                kind, told = news
                head = f"event: {kind}\n" if kind else ""
                await response.write(f"{head}data: {json.dumps(told)}\n\n".encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self._queues.pop(queue, None)
        return response


PAGE_FILES = {"fleet.css": "text/css", "fleet.js": "text/javascript"}
"""The page's style and script, in web/static/ beside the staff page's (under the same checks)."""


def same_origin(request: web.Request) -> bool:
    """A form posted from this page, not another site's (the cookie's SameSite=Strict already
    keeps it off cross-site requests; this says so for old browsers too)."""
    origin = request.headers.get("Origin")
    return origin is None or origin == f"{request.scheme}://{request.host}"


REFUSED = {Why.TOO_MANY: "wait", Why.BUSY: "busy", Why.WRONG: "wrong"}
"""The login page's word for a password its gate refused (any other refusal: ``wrong``)."""


async def signed_in(request: web.Request, gate: Gate, refused: Callable[[str, int], Awaitable[web.Response]],
                    checked: Callable[[web.Request], None] = lambda request: None) -> web.Response:
    """A fleet page's sign-in form sent (the dashboard's, the league's organiser's: one way in
    through their ``Gate``): from the page's own origin and ``checked`` (the dashboard refuses a
    password in clear), a form in UTF-8 whose password the gate tries; the page's ``/`` with the
    session's cookie, or ``refused(word, status)`` says why not (``REFUSED``)."""
    if not same_origin(request):
        raise web.HTTPForbidden(text="a login from another site's page")
    checked(request)
    try:
        form = await request.post()
    except ValueError:  # a body that is not a form in UTF-8 (UnicodeDecodeError among them)
        raise web.HTTPBadRequest(text="the login is a form with a password field, in UTF-8") from None
    entered = await gate.log_in(request, form.get("password"))
    if isinstance(entered, Refused):
        return await refused(REFUSED.get(entered.why, "wrong"), entered.status)
    response = web.HTTPSeeOther("/")
    gate.let_in(request, response, entered)
    raise response


def signed_out(request: web.Request, gate: Gate, then: str) -> NoReturn:
    """A fleet page's sign-out form sent from its own origin: the session ended, and on to ``then``."""
    if not same_origin(request):
        raise web.HTTPForbidden(text="a logout from another site's page")
    response = web.HTTPSeeOther(then)
    gate.log_out(request, response)
    raise response


@cache
def page_file(name: str) -> str:
    """One of ``PAGE_FILES``, read once."""
    return resources.files("pi_table.web").joinpath("static", name).read_text(encoding="utf-8")


STANDING = ("played", "won", "lost", "byes", "points", "margin", "rating", "buchholz")  # a team's line's columns, after its name


def main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pi-table fleet``: set the page's password, or serve the page until SIGTERM or SIGINT."""
    if args.set_password:
        return set_password(parser, args.password_file)
    if not args.broker:
        parser.error("--broker is needed: the broker's URL, mqtt[s]://USER:PASSWORD@HOST[:PORT]")
    try:
        if bool(args.cert) != bool(args.key):
            raise ValueError("--cert and --key go together: a client certificate needs its private key")
        broker = config.broker(args.broker, password_file=args.broker_password_file, ca=args.ca, cert=args.cert,
                               key=args.key)
        if broker.in_clear and not args.password_in_clear:
            raise ValueError(f"the broker's password would cross the network in clear to {shown_url(args.broker)}: "
                             "use mqtts:// (TLS), or --password-in-clear for a broker on a network you trust")
        stored = read_password_file(args.password_file)
    except ValueError as e:
        parser.error(str(e))
    cafe = [name.strip() for name in args.cafe_tables.split(",") if name.strip()]
    try:
        dashboard = Dashboard(broker, args.host, args.port, stored, args.lang, args.client_id, cafe_tables=cafe,
                              in_clear=True)  # its own page, plain http as docs/cafe/fleet.md says
        dashboard.start()
    except OSError as e:  # the broker's password file, or the page's port
        print(f"pi-table fleet: {e.strerror or e}: {e.filename or f'{args.host}:{args.port}'}", file=sys.stderr)
        return 1
    except Refusal as e:  # the broker's password file holds no password (config.machine.read_password)
        print(f"pi-table fleet: --broker-password-file: {say(e.phrase, args.lang)}", file=sys.stderr)
        return 1
    print(f"pi-table fleet: {dashboard.url}, tables from {broker.host}:{broker.port}", flush=True)
    dashboard.serve_until_signalled()
    return 0


def set_password(parser: argparse.ArgumentParser, path: Path, command: str = "fleet") -> int:
    """``pi-table fleet --set-password`` (or ``league``'s): the page's password, asked or read from stdin, hashed into ``path``."""
    if sys.stdin.isatty():
        password = getpass.getpass(f"the {command} page's password: ")
        if getpass.getpass("again: ") != password:
            parser.error("the two passwords differ: nothing was written")
    else:
        password = sys.stdin.readline().rstrip("\n")
    try:
        write_password_file(path, password)
    except PasswordError as e:
        parser.error(str(e))
    except OSError as e:
        print(f"pi-table {command}: cannot write {path} ({e.strerror or e})", file=sys.stderr)
        return 1
    print(f"pi-table {command}: the password's hash is in {path}")
    return 0
