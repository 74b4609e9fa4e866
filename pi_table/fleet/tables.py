"""What the fleet's dashboard knows of the tables that report to a broker: each table's row and
the game nights their hosts run, from their messages (``Fleet``); ``dashboard`` serves it.

Each table's row says whether it is online, in a game or idle, its faults, the games finished
today and their length; what a table sends that is not what its topic carries (``schema``), or
past its share of what the dashboard reads (``Fleet.afford``), is dropped and counted on its row.
The game nights shown are those hosts run (their plans), each with the games its tables tell of,
counted only as the plan paired them; the café's come first and any other is shown apart. The
café's tables are the owner's list (then only they host or play), or else the host and tables of
the night the most tables play: each table tells of its own night alone, with its own login.
"""

from __future__ import annotations

import calendar
import datetime as dt
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..engine.games import terminations, title_of
from ..engine.phrase import N_, Phrase
from ..engine.views import LANGUAGES
from ..files import csv_text
from ..hal.events import DEVICE_NAMES, is_fault
from ..night.follower import CLOCK_SKEW_S
from ..night.games import Game, GameRefused
from ..night.standings import high_scores
from ..night.state import Night
from ..night.store import NIGHT_ID
from ..ui.i18n import say, say_health, translation
from ..web.night import tiebreak_columns, tiebreak_words
from . import schema
from .link import PREFIX
from .schema import Message

log = logging.getLogger("pi_table.fleet")
ERRORS_KEPT = 5
NIGHTS_SHOWN = 3  # game nights on the page (a host's latest each): the open ones first, then the last closed
SHARE_KB_S, BURST_KB, LEAST_KB = 100, 2048, 1  # what one table may send the dashboard (``Fleet.afford``)
ID_AFTER_S = 60  # a night's id names the second it opened, or one a little after (its host had a night of that second)
GAMES_A_DAY = 1000  # one table's finished games kept a day: a game takes minutes, and a day is 1,440 of them
TOO_MANY_TODAY = Phrase.of("a game over past the {most} one table can finish in a day: not counted", most=GAMES_A_DAY)
TOO_FAST = Phrase.of("more than {kb} KB a second from one table: not read", kb=SHARE_KB_S)
UNSAID = N_("not said (a table of an older version)")
"""How a game from a table that does not report its ending's code ended, as the page counts it."""
DROPS_SAID_EVERY_S = 60.0  # a table's dropped messages are in the log at most this often


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


def _night_games(table_id: str, night: object) -> list[Game]:
    """A night message's games (``schema.NIGHT``), each the topic's table's: no table speaks for another."""
    assert isinstance(night, dict)
    return [Game.from_json({**game, "table": table_id}) for game in night["games"]]


def playing(plan: Message, told: dict[str, tuple[str, list[Game]]]) -> list[str]:
    """The tables of ``plan``'s night that tell of it on their own ``night`` topic: each speaks
    for itself alone (the broker's ACL), so none can make another's night its own."""
    return [table for table in plan["tables"] if told.get(table, ("", []))[0] == plan["night"]]


def named_at(night_id: str) -> float | None:
    """The time a night's id names (``night.store.NIGHT_ID``: the second it opened, UTC), or None
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
