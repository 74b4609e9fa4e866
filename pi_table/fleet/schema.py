"""What the dashboard reads of each topic a table publishes, declared once, and the one parser
every message goes through.

A table's broker login lets it publish on its own topics, but not only what its reporter
would: a message that is not what its topic carries is refused here, naming the field and what
was expected (never repeating what came), and the dashboard counts it against that table. What
passes holds the declared fields alone, each of its kind and within its bounds, so no table's
message can make the page's code raise, its JSON invalid or its memory grow. A field that is
absent is left out (the dashboard has a default for each); a field not declared is not kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from ..engine import CELLS
from ..engine.games import NAMES, terminations
from ..engine.phrase import Phrase
from ..errors import PiTableError
from ..files import read_json
from ..night.events import MAX_HISTORY
from ..night.names import MAX_CODE, MAX_NAME, MAX_NICKNAMES
from ..night.pairing import MAX_TABLES

MAX_PAYLOAD = 256 * 1024  # bytes: some ten times the longest status a finished game of any kind gives
NAME = 100  # characters in an id, a game's, a device's or a team's name, a version, a board
SAID = 1000  # characters in a warning, a device's health, a game's reason, an error
MOST = 64  # devices in a health, warnings in a list
MOST_TRF = 128 * 1024  # characters of a night's TRF sent to a league: 256 teams over 40 rounds
SURROGATE = re.compile("[\ud800-\udfff]")  # JSON's \ud800 alone: no UTF-8 can carry it (the CSV could not be sent)
# A message's JSON object: what a table publishes, or what ``Record.read`` kept of one (its
# declared fields alone, each of the kind its Spec declares, checked here at run time).
Message: TypeAlias = dict[str, Any]


class Refused(PiTableError, ValueError):
    """A message that is not what its topic carries: ``phrase`` names the field and what it should be."""

    def __init__(self, field: str, expected: Phrase) -> None:
        self.field, self.expected = field, expected
        self.phrase = Phrase.of("{field} should be {expected}", field=field, expected=expected)
        super().__init__(str(self.phrase))


class Spec:
    """One value's declaration: ``read`` gives it as kept, or raises Refused naming ``where``."""

    def read(self, value: object, where: str) -> object:
        if not self.fits(value):
            raise Refused(where, self.expected())
        return value

    def fits(self, value: object) -> bool:
        raise NotImplementedError

    def expected(self) -> Phrase:
        raise NotImplementedError


@dataclass(frozen=True)
class Text(Spec):
    longest: int

    def fits(self, value: object) -> bool:
        return isinstance(value, str) and len(value) <= self.longest and not SURROGATE.search(value)

    def expected(self) -> Phrase:
        return Phrase.counting("count", "a text of at most {count} character", "a text of at most {count} characters",
                               count=self.longest)


@dataclass(frozen=True)
class Number(Spec):
    """From ``low`` to ``high``: NaN and the infinities fail the comparison, true and false are no numbers."""

    low: int
    high: int
    whole: bool = False

    def fits(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (self.whole and isinstance(value, float)):
            return False
        return self.low <= value <= self.high

    def expected(self) -> Phrase:
        return Phrase.of("a whole number from {low} to {high}" if self.whole else "a number from {low} to {high}",
                         low=self.low, high=self.high)


@dataclass(frozen=True)
class Time(Number):
    """Unix seconds within two centuries: what ``datetime.fromtimestamp`` takes on any machine."""

    low: int = 946_684_800  # 2000-01-01
    high: int = 7_258_118_400  # 2200-01-01

    def expected(self) -> Phrase:
        return Phrase.of("a time in Unix seconds from the year 2000 to 2200")


@dataclass(frozen=True)
class Word(Spec):
    """One of the codes ``words()`` gives when asked (every game registered then, its own ways to
    end among them): a code every table says alike, which each reader translates."""

    words: Callable[[], tuple[str, ...]]

    def fits(self, value: object) -> bool:
        return isinstance(value, str) and value in self.words()

    def expected(self) -> Phrase:
        return Phrase.of("one of {words}", words=", ".join(self.words()))


@dataclass(frozen=True)
class Flag(Spec):
    def fits(self, value: object) -> bool:
        return isinstance(value, bool)

    def expected(self) -> Phrase:
        return Phrase.of("true or false")


@dataclass(frozen=True)
class Null(Spec):
    def fits(self, value: object) -> bool:
        return value is None

    def expected(self) -> Phrase:
        return Phrase.of("null")


@dataclass(frozen=True)
class Either(Spec):
    """One of a few plain values (no lists or objects among them)."""

    first: Spec
    second: Spec

    def fits(self, value: object) -> bool:
        return self.first.fits(value) or self.second.fits(value)

    def expected(self) -> Phrase:
        return Phrase.of("{first} or {second}", first=self.first.expected(), second=self.second.expected())


@dataclass(frozen=True)
class Shapes(Spec):
    """A value as ``first`` reads it, else as ``second`` does: a field that is a number in one
    event and an object in another (a night's ``round``)."""

    first: Spec
    second: Spec

    def read(self, value: object, where: str) -> object:
        for spec in (self.first, self.second):
            try:
                return spec.read(value, where)
            except Refused:
                pass
        raise Refused(where, self.expected())

    def expected(self) -> Phrase:
        return Phrase.of("{first} or {second}", first=self.first.expected(), second=self.second.expected())


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec
    most: int = MOST

    def fits(self, value: object) -> bool:
        return isinstance(value, list) and len(value) <= self.most and all(self.item.fits(item) for item in value)

    def expected(self) -> Phrase:
        return Phrase.counting("count", "a list of at most {count} item, each {item}", "a list of at most {count} items, each {item}",
                               count=self.most, item=self.item.expected())


@dataclass(frozen=True)
class MapOf(Spec):
    """An object of names to plain values."""

    item: Spec
    most: int = MOST
    name: Spec = Text(NAME)

    def fits(self, value: object) -> bool:
        return isinstance(value, dict) and len(value) <= self.most and all(
            self.name.fits(name) and self.item.fits(item) for name, item in value.items())

    def expected(self) -> Phrase:
        return Phrase.counting("count", "an object of at most {count} field, each {item}",
                               "an object of at most {count} fields, each {item}", count=self.most, item=self.item.expected())


@dataclass(frozen=True)
class Record(Spec):
    """An object with these fields, each read as declared; ``required`` ones read as null when absent."""

    fields: dict[str, Spec]
    required: tuple[str, ...] = ()

    def read(self, value: object, where: str) -> Message:
        if not isinstance(value, dict):
            raise Refused(where, self.expected())
        return {name: spec.read(value.get(name), f"{where}.{name}") for name, spec in self.fields.items()
                if name in value or name in self.required}

    def expected(self) -> Phrase:
        return Phrase.of("an object")


@dataclass(frozen=True)
class Records(Spec):
    """A list of at most ``most`` objects, each read as ``item`` declares."""

    item: Record
    most: int = MOST

    def read(self, value: object, where: str) -> list[Message]:
        if not isinstance(value, list) or len(value) > self.most:
            raise Refused(where, self.expected())
        return [self.item.read(item, f"{where}[{place}]") for place, item in enumerate(value)]

    def expected(self) -> Phrase:
        return Phrase.counting("count", "a list of at most {count} object", "a list of at most {count} objects",
                               count=self.most)


def maybe(spec: Spec) -> Spec:
    return Either(spec, Null())


NAMED, SENTENCE = maybe(Text(NAME)), maybe(Text(SAID))
TERMINATION = maybe(Word(terminations))  # how a game ended; a table from before it sends none
TIME, UPTIME = Time(), Number(0, 10**9)  # some thirty years at most
LENGTH = Number(-(10**9), 10**9)  # a game's: below 0 when the table's clock was set back during it, still a game

STATE = Record({  # the public view, as much of it as tells whether a game is in play (``tables.activity``)
    "board": maybe(Text(NAME)),
    "clue": Either(Number(0, 1000, whole=True), NAMED),  # a number, "unlimited" or none yet
    "phase": Either(Text(NAME), maybe(Number(0, 1000, whole=True))),  # a step's name; a phase may be a number
})
STATUS = Record({  # reporter.status_message
    "version": NAMED, "game_id": NAMED, "game": NAMED, "state": STATE, "over": Flag(), "termination": TERMINATION,
    "health": MapOf(Text(SAID)), "warnings": ListOf(Text(SAID)), "warnings_in": MapOf(ListOf(Text(SAID)), 8),
    "uptime_s": maybe(UPTIME), "at": TIME,
})
EVENT = Record({  # reporter.changes and the commands' answers; its table is the topic's, whatever it says
    "event": Text(NAME), "at": TIME, "game_id": NAMED, "game": NAMED, "winner": NAMED, "reason": SENTENCE,
    "termination": TERMINATION, "score": maybe(Number(0, CELLS, whole=True)), "duration_s": maybe(LENGTH), "ok": Flag(),
    "error": SENTENCE,
}, required=("event",))
MOST_GAMES, MOST_TEAMS = 500, 256  # a night's at one table (some 150 KB): more than a week of rounds
GAME = Record({  # night.games.Game.to_json: every field there, null where the game has none, but its cards'
    # words and board (issue 79), kept at the table that played it: a night's 500 games' words would pass MAX_PAYLOAD
    "id": Text(NAME), "table": Text(NAME), "game": Text(NAME), "teams": ListOf(Text(NAME), 2), "winner": NAMED,
    "termination": Word(terminations), "margin": maybe(Number(0, CELLS, whole=True)),
    "score": maybe(Number(0, CELLS, whole=True)), "round": maybe(Number(1, 10_000, whole=True)), "at": TIME,
    "pairing": Number(0, 10_000, whole=True),  # the round's undos before it was dealt (issue 59); before it, none
}, required=("id", "table", "game", "teams", "winner", "termination", "margin", "score", "round", "at"))
NIGHT = Record({  # night.recorder.Recorder.report: the table's night and the games recorded at it
    "night": Text(NAME), "name": Text(NAME), "open": Flag(), "teams": ListOf(Text(NAME), MOST_TEAMS),
    "games": Records(GAME, MOST_GAMES),
    "free": Text(NAME),  # the game under way there that is no round's (issue 49); none while there is none
}, required=("night", "name", "open", "teams", "games"))
TEAM = Record({"name": Text(MAX_NAME), "nicknames": ListOf(Text(MAX_NAME), MAX_NICKNAMES),
               "code": Text(MAX_CODE),  # its league code (issue 64); none when it gave none
               "since": Number(1, 10_000, whole=True)},  # a team that joined late: the rounds it missed
              required=("name", "nicknames"))
PAIR = Record({"table": Text(NAME), "red": Text(MAX_NAME), "blue": Text(MAX_NAME)}, required=("table", "red", "blue"))
ROUND = Record({"number": Number(1, 10_000, whole=True), "pairs": Records(PAIR, MAX_TABLES),
                "resting": ListOf(Text(MAX_NAME), MOST_TEAMS)}, required=("number", "pairs", "resting"))
DECIDED = Record({  # night.book.Night.history: a team withdrawn or back, a result entered or corrected at the desk
    "event": Text(NAME), "team": Text(MAX_NAME), "round": Number(1, 10_000, whole=True), "table": Text(NAME),
    "result": Text(NAME), "winner": maybe(Text(MAX_NAME)), "game": NAMED, "by": Text(NAME), "at": TIME,
    "points": Number(0, 1),  # a bye asked for: what the director chose it scores (issue 59); before it, none
    "teams": ListOf(Text(MAX_NAME), 2),  # two teams kept apart, or no more (issue 76)
    "to": Text(MAX_NAME),  # a team renamed: its new name (issue 76)
}, required=("event", "by", "at"))
FOLDED = Record({  # night.book.Night.events: the host's events (night.book.HOSTED) a follower folds (issue 59)
    "event": Text(NAME), "name": Text(NAME), "games": ListOf(Text(NAME), len(NAMES)),
    "tables": ListOf(Text(NAME), MAX_TABLES), "at": maybe(TIME), "bye": Number(0, 1), "tiebreak": Text(NAME),
    "late": Number(0, 1), "draw": Text(NAME), "seeding": Text(NAME),
    "seeds": MapOf(Number(-(10**6), 10**6), 2000),  # earlier nights' ratings, by folded name
    "team": Text(MAX_NAME), "nicknames": ListOf(Text(MAX_NAME), MAX_NICKNAMES), "waiting": Flag(),
    "team_code": Text(MAX_CODE),  # a team's league code, as it joined (issue 64)
    "round": Shapes(Number(1, 10_000, whole=True), ROUND),  # a staff event's round, or a round proposed or confirmed
    "table": Text(NAME), "result": Text(NAME), "winner": maybe(Text(MAX_NAME)), "game": NAMED, "by": Text(NAME),
    "points": Number(0, 1),  # a bye asked for: H or Z, as the director chose
    "teams": ListOf(Text(MAX_NAME), 2),  # two teams kept apart, or no more (issue 76)
    "to": Text(MAX_NAME),  # a team renamed: its new name (issue 76)
}, required=("event",))
PLAN = Record({  # night.book.Night.plan_json: the night a host runs, as the tables that follow it read it
    "night": Text(NAME), "name": Text(NAME), "games": ListOf(Text(NAME), len(NAMES)), "tables": ListOf(Text(NAME), MAX_TABLES),
    "opened": TIME, "closed": maybe(TIME), "seq": Number(0, 10**9, whole=True), "teams": Records(TEAM, MOST_TEAMS),
    "rounds": Records(ROUND, 1000), "proof": Text(NAME),  # of the night's code (night.code); a host before them sends none
    "bye": Number(0, 1), "tiebreak": Text(NAME), "history": Records(DECIDED, MAX_HISTORY),  # a host before issue 38's: none
    "late": Number(0, 1),  # a round missed by joining late (issue 49); a host before it: none
    "confirmed": ListOf(maybe(TIME), 1000),  # when each round was confirmed (null: a book from before it)
    "events": Records(FOLDED, 10_000),  # what a follower folds (issue 59); a host before it sends none
}, required=("night", "name", "games", "tables", "opened", "closed", "seq", "teams", "rounds"))
TOPICS: dict[str, Spec] = {"status": STATUS, "online": Flag(), "events": EVENT, "night": NIGHT, "plan": PLAN}
"""What the dashboard reads of each table's topics; the tables read each other's night and plan."""
LEAGUE_NIGHT = Record({  # fleet.league.record: a café's closed night, as its host table sends it to the league
    "night": Text(NAME), "cafe": Text(NAME), "host": Text(NAME), "seq": Number(0, 10**9, whole=True),
    "closed": TIME, "events": Records(FOLDED, 10_000), "games": Records(GAME, MOST_GAMES),
    "trf": Text(MOST_TRF),  # its TRF as its host wrote it (issue 64); a host before it sends none
}, required=("night", "cafe", "host", "seq", "closed", "events", "games"))
SEASON_LINE = Record({  # fleet.league.SeasonLine.to_json: a team's line of the season
    "team": Text(MAX_NAME), "code": Text(MAX_CODE),  # its league code, when it has one
    "cafes": ListOf(Text(NAME), MOST), "nights": Number(0, 10**6, whole=True),
    "points": Number(0, 10**9), "played": Number(0, 10**6, whole=True), "won": Number(0, 10**6, whole=True),
    "lost": Number(0, 10**6, whole=True), "drawn": Number(0, 10**6, whole=True), "rating": Number(-(10**6), 10**6),
    "place": Number(1, 10**6, whole=True), "shared": Flag(),
}, required=("team", "nights", "points", "played", "won", "lost", "drawn", "rating", "place", "shared"))
DECISION = Record({  # fleet.league.Decision.to_json: the organiser's event on a night, or on a team at a café (issue 76)
    "event": Text(NAME), "cafe": Text(NAME), "host": Text(NAME), "night": Text(NAME), "by": Text(NAME), "at": TIME,
    "why": Text(SAID), "round": Number(1, 10_000, whole=True), "table": Text(NAME), "result": Text(NAME),
    "winner": maybe(Text(MAX_NAME)),
    "team": Text(SAID),  # a team split off at a café (its key; host and night empty); a page before it sends none
}, required=("event", "cafe", "host", "night", "by", "at", "why"))
SEASON = Record({  # fleet.league_page.LeaguePage: the season the league's page sends down to every café
    "league": Text(NAME), "at": TIME, "season": Records(SEASON_LINE, 2000),
    "history": Records(DECISION, 100),  # the organiser's newest events (fleet.league.SENT_DECISIONS); before them none
}, required=("league", "at", "season"))
LEAGUE_TOPICS: dict[str, Spec] = {"league.night": LEAGUE_NIGHT, "league.season": SEASON}
"""What the league's page reads of the nights the cafés' host tables send over their bridges (issue 64)."""


def parse(kind: str, payload: bytes | bytearray) -> object:
    """A message on topic ``kind`` (one of ``TOPICS``, or of ``LEAGUE_TOPICS``) as declared there;
    Refused when it is not."""
    if len(payload) <= MAX_PAYLOAD:
        try:
            value = read_json(payload)
        except ValueError:  # not JSON, not UTF-8, nested past the bound
            pass
        else:
            return {**TOPICS, **LEAGUE_TOPICS}[kind].read(value, kind)
    raise Refused(kind, Phrase.of("JSON in UTF-8 of at most {count} KB", count=MAX_PAYLOAD // 1024))
