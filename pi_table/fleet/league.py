"""A league across cafés (issue 64): each café's closed nights, bridged by its own Mosquitto to the
league's, folded into one season's standings.

A café's host table sends each night it closed, and again at each correction after the close,
retained, on ``league/<league>/cafes/<café>/nights/<host>/<night>`` (``night_topic``): the host's
events (``Night.events``, what every follower folds) and the games its tables recorded
(``record``). The league's broker lets a café write only under its own prefix, and the café's
lets a table write only under its own name there, so the topic says who sent a night. The
league's page folds each night as a follower does (``night.state.fold``, the games each counted
as the night awaited it), and keeps the newest version of each: a correction replaces the night,
never adds to it. A night whose café or table is not the topic's, or not the league's roster's,
is refused and kept apart with why, as the fleet's dashboard keeps a rogue night apart.

The season is the nights' own standings (``Night.standings``), each night's points as the league
chooses (``Scoring``: the night's points, or a scale by place; all nights, or a team's best N),
and the openskill rating across the nights, the night's own computation
(``night.standings.standings``) over every night's results in the order they were decided. A
team is the same team across nights and cafés by its league code, which the roster gives it
(``teams``) or it gave at its first night (a team new to the league registers by playing), else
by the roster's name for a code or its own name as names are compared (``night.names.folded``);
and as the organiser merged two (``merged``, on the page), or split a team of one name off at a
café (``SPLIT``, in the league's history: the café's namesakes a team of their own). A night's TRF, as its host wrote it,
crosses with it, for the organiser to download.

The season is computed once a change (a night kept, replaced or taken back, a refusal, a merge:
``version``), overall and each café's, and every view, export and send reads
that: a page asked by every phone each minute, and a bridge's replay of every night at its
reconnect, cost what reading it costs, whatever the season's size.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase
from ..errors import PiTableError
from ..files import csv_text
from ..night.events import VOID, WON, Event
from ..night.games import Game, GameRefused
from ..night.names import CODE, folded, tidy
from ..night.scoring import DOUBLE_LOSS, FORFEIT
from ..night.standings import Result, Standing, standings
from ..night.state import Night, fold
from ..ui.i18n import say
from ..web.night import night_trf, workbook
from . import schema
from .tables import ID_AFTER_S, named_at

LEAGUE = "league"  # the first level of every league topic
NIGHT_POINTS, PLACES = "night", "places"  # how a night scores for the season
SCALE = (10.0, 8.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0)  # points by place, the first place's first: a team past it scores 0
MOST_SCALE = 64
VOIDED, HELD, RESTORED, EDITED = "void", "hold", "restore", "edit"  # the organiser's events on a night (``Decision``)
SPLIT, UNSPLIT = "split", "unsplit"  # the organiser's events on a team at a café (``Decision.team``)
DECISIONS = (VOIDED, HELD, RESTORED, EDITED, SPLIT, UNSPLIT)
AS_SENT = "sent"  # an edit back: the result as the café sent it
OUTCOMES = (WON, FORFEIT, DOUBLE_LOSS, VOID, AS_SENT)  # what an edit makes of a round's pair (the night's own results)
COUNTED, WAITING = "counted", "held"  # a night's standing in the season, with VOIDED (``League.standing``)
MOST_WHY = 200  # characters of the organiser's reason for an event
MOST_DECISIONS = 5000  # the organiser's events a league keeps: far past a season's voids and edits
SENT_DECISIONS = 100  # the newest of them sent down with the season (each café's tables bound what they read)
COLUMNS = ("place", "team", "cafes", "nights", "points", "played", "won", "lost", "drawn", "rating", "code")
"""The season's columns in its exports, in English as a program reads them (the code last: a
script that read the CSV before codes reads it still)."""


def night_topic(league: str, cafe: str, host: str, night_id: str) -> str:
    """Where ``host``, a table of ``cafe``, sends its closed night ``night_id`` to ``league``."""
    return f"{LEAGUE}/{league}/cafes/{cafe}/nights/{host}/{night_id}"


def cafe_prefix(league: str, cafe: str) -> str:
    """What ``cafe`` sends the league, under which alone the league's broker lets it write."""
    return f"{LEAGUE}/{league}/cafes/{cafe}/"


def season_topic(league: str) -> str:
    """The season's standings, retained: sent by the league's page, read by every café's tables."""
    return f"{LEAGUE}/{league}/season"


def record(night: Night, cafe: str, host: str) -> dict[str, object] | None:
    """What ``host`` sends the league of its ``night``: its events and its games recorded, with its
    version (``seq``, so the newest of a night's corrections is kept), and its TRF as the staff
    page exports it (left out past ``schema.MOST_TRF``); None while it is open or when it is another
    table's (a follower sends nothing: the host sends the night once, whole)."""
    if night.open or night.host is not None:
        return None
    trf = night_trf(night)
    return {"night": night.id, "cafe": cafe, "host": host, "seq": night.seq, "closed": night.closed,
            "events": list(night.events), "games": [game.to_json() for game in night.recorded()],
            **({"trf": trf} if len(trf) <= schema.MOST_TRF else {})}


def team_key(text: str) -> str:
    """A team's key as the roster writes it (``[merged]``): a code as it is kept (capitals), else a
    team's name as names are compared."""
    return text if CODE.fullmatch(text) else folded(text)


def split_key(key: str, cafe: str) -> str:
    """The key of the team ``key`` split off at ``cafe`` ("owls@bar-milano"), as the roster writes
    it (``team_key``), so a merge may name it."""
    return folded(f"{key}@{cafe}")


def splits(history: Iterable[Decision]) -> frozenset[tuple[str, str]]:
    """The teams split off at a café (each its key and the café) that the organiser's latest split
    or unsplit of them leaves split."""
    standing: dict[tuple[str, str], str] = {}
    for decision in history:
        if decision.event in (SPLIT, UNSPLIT):
            standing[(decision.team, decision.cafe)] = decision.event
    return frozenset(pair for pair, event in standing.items() if event == SPLIT)


class LeagueRefused(Refusal):
    """What the organiser asked of the league cannot be done: the sentence says what is expected."""


class DecisionRefused(PiTableError, ValueError):
    """An organiser's event, as the roster keeps it, out of its kind: the message says what is expected."""


class ScoringRefused(PiTableError, ValueError):
    """A league's way of counting its nights out of its kind: the message says what is expected."""


@dataclass(frozen=True, slots=True)
class Scoring:
    """How the league counts a night: its own ``points`` (``NIGHT_POINTS``) or a ``scale`` by place
    (``PLACES``, teams sharing a place score that place's), over every night or a team's ``best`` (0: all)."""

    points: str = NIGHT_POINTS
    scale: tuple[float, ...] = SCALE
    best: int = 0

    def __post_init__(self) -> None:
        if self.points not in (NIGHT_POINTS, PLACES):
            raise ScoringRefused(f"a league counts a night by {NIGHT_POINTS!r} or {PLACES!r}, not {self.points!r}")
        if not 0 < len(self.scale) <= MOST_SCALE or any(
                isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1000 for p in self.scale):
            raise ScoringRefused(f"a league's scale is 1 to {MOST_SCALE} places' points, each from 0 to 1000")
        if isinstance(self.best, bool) or not isinstance(self.best, int) or not 0 <= self.best <= 1000:
            raise ScoringRefused("a league counts a team's best 1 to 1000 nights, or 0 for all")

    def of(self, line: Standing) -> float:
        """What a team's line of a night scores for the season."""
        if self.points == NIGHT_POINTS:
            return line.points
        return self.scale[line.place - 1] if line.place <= len(self.scale) else 0.0

    def total(self, scored: Iterable[float]) -> float:
        """A team's season points: its nights' points, or its ``best`` of them."""
        ordered = sorted(scored, reverse=True)
        return sum(ordered[:self.best] if self.best else ordered)


@dataclass(frozen=True, slots=True)
class CafeNight:
    """A night as the league keeps it: the café and host table that sent it, the night folded,
    and its TRF as the host wrote it (None from a table before it sent one)."""

    cafe: str
    host: str
    night: Night
    seq: int
    trf: str | None = None


NIGHTS_PARTS = {  # a café's night's fields (schema.LEAGUE_NIGHT), as the league's page names them to its reader
    "cafe": N_("the night's café"), "host": N_("the night's table"), "night": N_("the night's name"),
    "seq": N_("the night's version"), "closed": N_("the time the night closed"), "events": N_("the night's events"),
    "games": N_("the night's games"), "trf": N_("the night's TRF"),
}
WHOLE = N_("the café's message")  # the night as a whole, or a part of it NIGHTS_PARTS does not name


def worded(refused: schema.Refused) -> Phrase:
    """Why a night was refused, in words its reader knows: the part of the night and what it should
    be, never the program's path to the field ("league.night.events[3].at", issue 73)."""
    path = refused.field.removeprefix("league.night").removeprefix(".")
    part = re.sub(r"[.\[].*", "", path)  # the first field of the path
    named = Phrase.of(NIGHTS_PARTS.get(part, WHOLE))
    if part in NIGHTS_PARTS and path != part:  # a value within the part
        named = Phrase.of("a value among {part}", part=named)
    return Phrase.of("{field} should be {expected}", field=named, expected=refused.expected)


@dataclass(frozen=True, slots=True)
class Apart:
    """A night the league refused: whoever's topic it came on, and why (never what it held)."""

    cafe: str
    host: str
    night: str
    why: Phrase


@dataclass(frozen=True, slots=True)
class SeasonLine:
    """A team's season: its name (the roster's for its code, else at its latest night), its league
    code if it has one, its key (``League.team``), the cafés it played in, its nights, the points
    they count for, its games, its rating across the nights and its place."""

    team: str
    code: str
    key: str
    cafes: tuple[str, ...]
    nights: int
    points: float
    played: int
    won: int
    lost: int
    drawn: int
    mu: float
    sigma: float
    place: int = 0
    shared: bool = False

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, object]:
        return {"team": self.team, **({"code": self.code} if self.code else {}), "key": self.key,
                "cafes": list(self.cafes), "nights": self.nights, "points": self.points, "played": self.played,
                "won": self.won, "lost": self.lost, "drawn": self.drawn,
                "rating": round(self.ordinal, 2) + 0.0, "mu": round(self.mu, 3), "sigma": round(self.sigma, 3),
                "place": self.place, "shared": self.shared}


Key = tuple[str, str, str]  # a night kept: its café, its host table, its id


@dataclass(frozen=True, slots=True)
class Decision:
    """One of the organiser's events, kept in the league's history (``League.history``), which
    never loses one: a night voided, held or restored (counted again, or counted at last where
    the league held it), a result edited (``round``'s pair at ``table`` made ``result``, with
    its ``winner`` for a win or a forfeit; ``AS_SENT``: back to the café's), or a ``team`` (its
    key) split off at ``cafe`` or made one again (no night: ``host`` and ``night`` empty, as a
    café's table of before them reads them). Who (``by``), when (``at``, the league page's
    clock) and why."""

    event: str
    cafe: str
    host: str
    night: str
    by: str
    at: float
    why: str
    round: int = 0
    table: str = ""
    result: str = ""
    winner: str | None = None
    team: str = ""

    @property
    def key(self) -> Key:
        return (self.cafe, self.host, self.night)

    def to_json(self) -> dict[str, object]:
        edit = {"round": self.round, "table": self.table, "result": self.result, "winner": self.winner}
        return {"event": self.event, "cafe": self.cafe, "host": self.host, "night": self.night,
                **({"team": self.team} if self.event in (SPLIT, UNSPLIT) else {}), "by": self.by,
                "at": self.at, "why": self.why, **(edit if self.event == EDITED else {})}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Decision:
        """An event as ``to_json`` wrote it (the roster's ``[[history]]``); DecisionRefused (KeyError)
        when it is not one."""
        event = str(data["event"])
        if event not in DECISIONS:
            raise DecisionRefused(f"an event is one of {', '.join(DECISIONS)}")
        at = data["at"]
        if isinstance(at, bool) or not isinstance(at, (int, float)):
            raise DecisionRefused("an event's time is a number of seconds")
        if event in (SPLIT, UNSPLIT):
            cafe, team, by, why = texts = [data[name] for name in ("cafe", "team", "by", "why")]
            if not all(isinstance(text, str) and text for text in texts):
                raise DecisionRefused("a split names its team, its café, who and why")
            return cls(event, cafe, "", "", by, float(at), why, team=team)
        cafe, host, night, by, why = texts = [data[name] for name in ("cafe", "host", "night", "by", "why")]
        if not all(isinstance(text, str) and text for text in texts):
            raise DecisionRefused("an event names its café, table, night, who and why")
        if event != EDITED:
            return cls(event, cafe, host, night, by, float(at), why)
        number, table, result, winner = data["round"], data["table"], data["result"], data.get("winner")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1 or not isinstance(table, str) \
                or result not in OUTCOMES or (winner is not None) != (result in (WON, FORFEIT)) \
                or not isinstance(winner, (str, type(None))):
            raise DecisionRefused("an edit names a round, a table, a result and its winner")
        return cls(event, cafe, host, night, by, float(at), why, number, table, result, winner)

    def night_event(self) -> Event:
        """An edit as the night's own staff's result (``night.decisions``' "result"): a night folds it
        as it folds a correction at the café's desk."""
        return {"event": "result", "round": self.round, "table": self.table, "result": self.result,
                "winner": self.winner, "game": None, "by": self.by, "at": self.at}


@dataclass(frozen=True, slots=True)
class Counted:
    """A night's standing in the season: ``COUNTED``, ``WAITING`` for the organiser (who held it,
    ``decided``, or the league did: a team's code ``away`` from its home café) or ``VOIDED``; the
    organiser's latest void, hold or restore of it, if any."""

    state: str
    away: tuple[str, ...] = ()
    decided: Decision | None = None


@dataclass(frozen=True, slots=True)
class Folded:
    """What the league computes once a version: the season overall (None) and each café's, and
    each night's standing."""

    version: int
    lines: dict[str | None, list[SeasonLine]]
    nights: dict[Key, Counted]


def edits(history: Iterable[Decision], key: Key) -> dict[tuple[int, str], Decision]:
    """The organiser's edits standing on the night ``key``: each round's pair's latest, but for one
    edited back as the café sent it."""
    standing: dict[tuple[int, str], Decision] = {}
    for decision in history:
        if decision.event == EDITED and decision.key == key:
            standing[(decision.round, decision.table)] = decision
    return {slot: decision for slot, decision in standing.items() if decision.result != AS_SENT}


def with_games(night: Night, games: Iterable[Game]) -> Night:
    """``night`` with each of ``games`` its rounds await, as a follower counts them: its round's
    game at its table, by its pair, once."""
    for game in games:
        if night.awaits(game):
            night.played.append(game)
    return night


OUTCOMES_SAID = {WON: N_("{team} won"), FORFEIT: N_("{team} won by forfeit"),
                 DOUBLE_LOSS: N_("both teams lost by forfeit"), VOID: N_("void: it counts for nothing"),
                 AS_SENT: N_("as the café sent it")}
TOLD = {SPLIT: N_("split {team} of {cafe} off: a team of its own"),
        UNSPLIT: N_("made {team} of {cafe} one team with its namesakes again"),
        VOIDED: N_("voided the night {night} of {cafe}, table {table}"),
        HELD: N_("held the night {night} of {cafe}, table {table}"),
        RESTORED: N_("restored the night {night} of {cafe}, table {table}"),
        EDITED: N_("made round {round} at table {table} of the night {night} of {cafe}: {outcome}")}


def told(decision: Decision, night: str) -> Phrase:
    """What the organiser did, in the history's words (``night``: its name, or a split team's)."""
    if decision.event in (SPLIT, UNSPLIT):
        return Phrase.of(TOLD[decision.event], team=night, cafe=decision.cafe)
    if decision.event != EDITED:
        return Phrase.of(TOLD[decision.event], night=night, cafe=decision.cafe, table=decision.host)
    outcome = Phrase.of(OUTCOMES_SAID[decision.result], team=decision.winner or "")
    return Phrase.of(TOLD[EDITED], round=decision.round, table=decision.table, night=night, cafe=decision.cafe,
                     outcome=outcome)


def named(decision: Decision, nights: Mapping[Key, str], teams: Mapping[str, str]) -> str:
    """What the organiser's event ``decision`` names, by the name the page shows: its night's, or a
    split team's (its café's own line, else the team's, else its key)."""
    if decision.event not in (SPLIT, UNSPLIT):
        return nights.get(decision.key, decision.night)
    return teams.get(split_key(decision.team, decision.cafe), teams.get(decision.team, decision.team))


def results(night: Night, edited: Mapping[tuple[int, str], Decision]) -> list[dict[str, object]]:
    """Each round's pair of ``night`` and its result as it counts (``winner``; ``how`` None: none
    counts), and whether the organiser's edit stands on it: what the organiser's edit form offers."""
    slots = night.slots()
    shown = []
    for made in night.rounds:
        for pair in made.pairs:
            counted = slots.get((made.number, pair.table))
            shown.append({"round": made.number, "table": pair.table, "teams": list(pair.teams),
                          "winner": None if counted is None else counted.winner,
                          "how": None if counted is None else counted.how,
                          "edited": (made.number, pair.table) in edited})
    return shown


@dataclass
class League:
    """The league's nights, from the messages of its broker; safe from any thread. ``cafes``: the
    organiser's roster, each café's tables ([] for a café whose tables are not listed; no café
    listed: any café may send); ``teams``: the roster's teams, each code's name; ``merged``: a
    team's key (``team_key``) the organiser merged into another's; ``history``: the organiser's
    events, as the roster keeps them.

    A team's code used away from its home café (the café of its first night counted, and any
    where the organiser counted a night of it) holds that night for the organiser, whole, out of
    the season until the organiser restores it (the code is then at home at that café too) or
    voids it: a café's night, mistaken or made up, moves no other café's team until the
    organiser says so (docs/cafe/league.md)."""

    name: str
    scoring: Scoring = field(default_factory=Scoring)
    cafes: Mapping[str, Iterable[str]] = field(default_factory=dict)
    merged: dict[str, str] = field(default_factory=dict)
    teams: Mapping[str, str] = field(default_factory=dict)
    clock: Callable[[], float] = time.time
    nights: dict[Key, CafeNight] = field(default_factory=dict)
    apart: dict[Key, Apart] = field(default_factory=dict)
    heard: dict[str, float] = field(default_factory=dict)  # a café: its newest night's newest event, by its clock
    history: list[Decision] = field(default_factory=list)  # the organiser's events, in order (``decision``, ``keep``)
    version: int = 0  # counts the changes of the season (a night, a refusal, a merge, an organiser's event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _folding: threading.Lock = field(default_factory=threading.Lock)  # one computation of a version, however many ask
    _folded: Folded | None = None  # the version's season, overall and a café's, and each night's standing
    _made: dict[str, tuple[int, Any]] = field(default_factory=dict)  # what is made of a version (page data, exports)

    def __post_init__(self) -> None:
        self.merged = {team_key(duplicate): team_key(into) for duplicate, into in self.merged.items()}
        self._coded = {folded(name): code for code, name in self.teams.items()}  # a roster's name: its code
        self._split = splits(self.history)  # the teams split off at a café, as the history leaves them

    def take(self, topic: str, payload: bytes | bytearray) -> bool:
        """One message of the league's broker: whether it changed the league. A night not on a
        night's topic of this league is not the league's; an empty one is a night taken back."""
        parts = topic.split("/")
        if len(parts) != 7 or parts[:3] != [LEAGUE, self.name, "cafes"] or parts[4] != "nights":
            return False
        key: Key = (parts[3], parts[5], parts[6])
        with self._lock:
            before = (self.nights.get(key), self.apart.get(key))
            if not payload:
                self.nights.pop(key, None)
                self.apart.pop(key, None)
            else:
                self._kept(key, payload)
            if self.nights.get(key) is not before[0] or self.apart.get(key) != before[1]:
                self.version += 1  # a night heard again as it was (a bridge's replay) changes nothing to compute
            return True

    def _kept(self, key: Key, payload: bytes | bytearray) -> None:
        """A night's message kept: the night (a correction replaces it; an older version changes
        nothing), or its refusal apart. Under the lock."""
        try:
            kept = self._night(key, payload)
        except schema.Refused as refused:
            self.apart[key] = Apart(*key, worded(refused))
            return
        known = self.nights.get(key)
        if known is None or known.seq < kept.seq:
            self.nights[key] = kept
        self.apart.pop(key, None)
        # heard when the café itself says (its night's last event, a correction's when corrected), never later than
        # now: a page restarted, or a bridge's replay, hears old nights that say nothing of the café now
        told = min(max((float(event["at"]) for event in kept.night.events if "at" in event), default=0.0), self.clock())
        self.heard[key[0]] = max(self.heard.get(key[0], told), told)

    def _night(self, key: Key, payload: bytes | bytearray) -> CafeNight:
        """The night a café's message holds, checked against its topic and the roster, folded;
        schema.Refused naming what is wrong."""
        cafe, host, night_id = key
        sent: dict[str, Any] = schema.parse("league.night", payload)  # type: ignore[assignment]  # LEAGUE_NIGHT: an object
        if (sent["cafe"], sent["host"], sent["night"]) != key:
            raise schema.Refused("league.night", Phrase.of("the night of the café and table its topic names"))
        if self.cafes and cafe not in self.cafes:
            raise schema.Refused("league.night.cafe", Phrase.of("one of the league's cafés"))
        try:
            night = fold(night_id, sent["events"])
        except (KeyError, TypeError, ValueError):
            raise schema.Refused("league.night.events", Phrase.of("a night's events, as its host folds them")) from None
        named = named_at(night_id)
        if named is None or not 0 <= named - int(night.opened) <= ID_AFTER_S:
            raise schema.Refused("league.night.night", Phrase.of("the time its night opened, as YYYYMMDD-HHMMSS in UTC"))
        if night.open:
            raise schema.Refused("league.night.events", Phrase.of("the events of a night closed"))
        tables = set(self.cafes.get(cafe, ()))
        if tables and not {host, *night.tables} <= tables:
            raise schema.Refused("league.night.host", Phrase.of("a night at the café's own tables ({tables})",
                                                                  tables=", ".join(sorted(tables))))
        try:
            games = [Game.from_json(told) for told in sent["games"]]
        except (GameRefused, KeyError, TypeError, ValueError):
            raise schema.Refused("league.night.games", Phrase.of("the night's games")) from None
        return CafeNight(cafe, host, with_games(night, games), int(sent["seq"]), sent.get("trf"))

    def team(self, name: str, code: str = "", cafe: str | None = None) -> str:
        """A team's key across nights and cafés: its league ``code``, else the code the roster gives
        its name, else its name as names are compared; then as the organiser merged it, and, at a
        ``cafe`` where the organiser split it off, its café's own (merged in turn as the organiser did)."""
        key = self._merged_into(code or self._coded.get(folded(name), folded(name)))
        if cafe is not None and (key, cafe) in self._split:
            key = self._merged_into(split_key(key, cafe))
        return key

    def _merged_into(self, key: str) -> str:
        """The team ``key`` is as the organiser merged it."""
        for _ in range(len(self.merged)):  # a merge into a team merged since: followed, never round a loop
            if key not in self.merged:
                break
            key = self.merged[key]
        return key

    def mergeable(self, duplicate: str, into: str) -> None:
        """LeagueRefused unless ``duplicate`` and ``into`` (keys, as the season's lines give them)
        are two teams of the season that never played one night together: a merge makes one team
        of two names, and two teams of one night made one would count that night twice."""
        keys = {line.key for line in self.season()}
        if duplicate not in keys or into not in keys:
            raise LeagueRefused("a merge names two teams of the season, as its page lists them")
        if duplicate == into:
            raise LeagueRefused("a merge names two teams of the season, not one twice")
        with self._lock:
            nights = list(self.nights.values())
        for held in nights:
            if {duplicate, into} <= {self.team(name, team.code, held.cafe) for name, team in held.night.teams.items()}:
                raise LeagueRefused("these two teams played one night together: two teams, not one under two names")

    def merge(self, duplicate: str, into: str) -> None:
        """The organiser's merge: the season's team ``duplicate`` (its key) is ``into`` from now on
        (``mergeable``'s refusal else)."""
        self.mergeable(duplicate, into)
        with self._lock:
            self.merged[duplicate] = into
            self.version += 1

    def season(self, cafe: str | None = None) -> list[SeasonLine]:
        """The season's standings, over every café's nights counted or ``cafe``'s alone, the leader
        first: computed once a change (``version``), then served as it is to every view, export and send."""
        return self._seasons().lines.get(cafe, [])

    def standing(self, key: Key) -> Counted | None:
        """The night ``key``'s standing in the season (None: no such night kept)."""
        return self._seasons().nights.get(key)

    def decision(self, event: str, key: Key, by: str, why: str, number: int = 0, table: str = "",
                 result: str = "", winner: str | None = None) -> Decision:
        """The organiser's event ``event`` on the night ``key``, made now, checked against the
        season: a night is voided unless void, held while counted, restored while held or void; an
        edit names a round's pair of the night and a result (a win's or a forfeit's winner one of
        the pair), or ``AS_SENT`` where an edit stands (round ``number``'s pair at ``table``). LeagueRefused (a reason out of its kind:
        NameRefused) saying why; nothing kept (``keep``)."""
        why = tidy(why, MOST_WHY, N_("reason"))
        standing = self.standing(key)
        if standing is None:
            raise LeagueRefused("the league keeps no such night: load the page again")
        with self._lock:
            if len(self.history) >= MOST_DECISIONS:
                raise LeagueRefused("the league's history is full")
            standing_edits = edits(self.history, key)
        if event == VOIDED and standing.state == VOIDED:
            raise LeagueRefused("this night is void already")
        if event == HELD and standing.state != COUNTED:
            raise LeagueRefused("only a night that counts can be held")
        if event == RESTORED and standing.state == COUNTED:
            raise LeagueRefused("this night counts already: nothing to restore")
        if event == EDITED:
            pair = self.pair(key, number, table)
            if pair is None:
                raise LeagueRefused("an edit names a round's pair of the night")
            if result not in OUTCOMES or (result in (WON, FORFEIT)) != (winner in pair):
                raise LeagueRefused("an edit makes a result of the night's: a win or a forfeit names one of the pair")
            if result == AS_SENT and (number, table) not in standing_edits:
                raise LeagueRefused("this result is as the café sent it: nothing to edit back")
            return Decision(event, key[0], key[1], key[2], by, self.clock(), why, number, table, result, winner)
        if event not in (VOIDED, HELD, RESTORED):
            raise LeagueRefused("the organiser voids, holds or restores a night, or edits a result")
        return Decision(event, key[0], key[1], key[2], by, self.clock(), why)

    def parted(self, event: str, team: str, cafe: str, by: str, why: str) -> Decision:
        """The organiser's split (``SPLIT``) of the season's team ``team`` (its key) at ``cafe``:
        its games there count for a team of their own, the café's namesakes unrelated to the
        others (two teams of one name and no code); or its undoing (``UNSPLIT``), the one team
        again. Made now, checked against the season; LeagueRefused (a reason out of its kind:
        NameRefused) saying why; nothing kept (``keep``)."""
        why = tidy(why, MOST_WHY, N_("reason"))
        with self._lock:
            if len(self.history) >= MOST_DECISIONS:
                raise LeagueRefused("the league's history is full")
            split = (team, cafe) in self._split
        if event == UNSPLIT:
            if not split:
                raise LeagueRefused("this team is not split at this café: nothing to undo")
            return Decision(event, cafe, "", "", by, self.clock(), why, team=team)
        if event != SPLIT:
            raise LeagueRefused("the organiser splits a team off at a café, or makes it one team again")
        line = next((line for line in self.season() if line.key == team), None)
        if line is None:
            raise LeagueRefused("a split names a team of the season, as its page lists it, and a café it played at")
        if line.code:
            raise LeagueRefused("a team with a league code is one team wherever it plays: "
                                "hold or void a night that used its code by mistake")
        if cafe not in line.cafes:
            raise LeagueRefused("this team played no night at this café")
        if len(line.cafes) < 2:
            raise LeagueRefused("this team played at one café alone: there is nothing to split")
        return Decision(event, cafe, "", "", by, self.clock(), why, team=team)

    def pair(self, key: Key, number: int, table: str) -> tuple[str, str] | None:
        """The teams round ``number`` of the night ``key`` put at ``table`` (None: no such pair)."""
        with self._lock:
            held = self.nights.get(key)
        rounds = [] if held is None else held.night.rounds
        pair = rounds[number - 1].pair_at(table) if 0 < number <= len(rounds) else None
        return None if pair is None else pair.teams

    def rostered(self, scoring: Scoring, cafes: Mapping[str, Iterable[str]], merged: Mapping[str, str],
                 teams: Mapping[str, str], history: Iterable[Decision]) -> None:
        """The organiser's roster as it is now (its file edited while the page runs): the season
        computed again with its scoring, teams, merges and events. A night is checked against the
        cafés when it is taken: the page has the broker hand them all again."""
        with self._lock:
            self.scoring, self.cafes, self.teams, self.history = scoring, cafes, teams, list(history)
            self.merged = {team_key(duplicate): team_key(into) for duplicate, into in merged.items()}
            self._coded = {folded(name): code for code, name in self.teams.items()}
            self._split = splits(self.history)
            self.version += 1

    def keep(self, decision: Decision) -> None:
        """The organiser's event ``decision`` (``decision``'s) in the league's history, the season
        computed again."""
        with self._lock:
            self.history.append(decision)
            self._split = splits(self.history)
            self.version += 1

    def _seasons(self) -> Folded:
        """The season of the league's version, overall (None) and each café's, and each night's
        standing: the one computed for it, else computed now, once, whoever else asks meanwhile."""
        with self._folding:
            with self._lock:
                version, kept, history = self.version, list(self.nights.values()), list(self.history)
            if self._folded is not None and self._folded.version == version:
                return self._folded
            kept.sort(key=lambda n: (n.night.opened, n.cafe, n.host, n.night.id))
            standing_of = self._counted(kept, history)
            counted = [self._edited(held, history) for held in kept
                       if standing_of[(held.cafe, held.host, held.night.id)].state == COUNTED]
            by_cafe: dict[str, list[CafeNight]] = {}
            for held in counted:
                by_cafe.setdefault(held.cafe, []).append(held)
            folded: dict[str | None, list[SeasonLine]] = {cafe: self._fold(nights) for cafe, nights in by_cafe.items()}
            folded[None] = self._fold(counted)
            self._folded = Folded(version, folded, standing_of)
            return self._folded

    def _counted(self, kept: list[CafeNight], history: list[Decision]) -> dict[Key, Counted]:
        """Each night's standing (``kept`` in the order they opened): the organiser's latest void,
        hold or restore of it, else held where a team's code is away from home. A code's home is
        the café of its first night counted; a night the organiser restored makes its café a home
        of each of its codes too."""
        decided: dict[Key, Decision] = {}
        for decision in history:
            if decision.event in (VOIDED, HELD, RESTORED):
                decided[decision.key] = decision
        homes: dict[str, set[str]] = {}
        counted: dict[Key, Counted] = {}
        for held in kept:
            key = (held.cafe, held.host, held.night.id)
            codes = {self.team(name, team.code, held.cafe) for name, team in held.night.teams.items() if team.code}
            away = tuple(sorted(code for code in codes if code in homes and held.cafe not in homes[code]))
            said = decided.get(key)
            if said is not None and said.event == VOIDED:
                counted[key] = Counted(VOIDED, away, said)
            elif (said is not None and said.event == HELD) or (away and (said is None or said.event != RESTORED)):
                counted[key] = Counted(WAITING, away, said)
            else:
                counted[key] = Counted(COUNTED, away, said)
                for code in codes:
                    homes.setdefault(code, set()).add(held.cafe)
        return counted

    def _edited(self, held: CafeNight, history: list[Decision]) -> CafeNight:
        """``held`` as the organiser's edits standing on it make it: folded again with each as its
        staff's result, after the café's own (an edit naming a pair the café's newest version no
        longer has stands for nothing)."""
        standing = edits(history, (held.cafe, held.host, held.night.id))
        if not standing:
            return held
        night = fold(held.night.id, held.night.events)
        for decision in standing.values():
            try:
                night.apply(decision.night_event())
            except (KeyError, TypeError, ValueError):
                continue
        return replace(held, night=with_games(night, held.night.played))

    def _fold(self, kept: list[CafeNight]) -> list[SeasonLine]:
        """The standings of ``kept`` (nights in the order they opened), the leader first."""
        scored: dict[str, list[float]] = {}
        names: dict[str, str] = dict(self.teams)  # a code's name: the roster's
        coded = set(self.teams)  # the keys that are codes: the roster's, and those the nights' teams gave
        cafes: dict[str, set[str]] = {}
        counts: dict[str, list[int]] = {}  # played, won, lost, drawn
        results: list[Result] = []
        for held in kept:
            night = held.night
            keys = {name: self.team(name, team.code, held.cafe) for name, team in night.teams.items()}
            coded.update(team.code for team in night.teams.values() if team.code)
            for line in night.standings():
                key = keys.setdefault(line.team, self.team(line.team, cafe=held.cafe))
                scored.setdefault(key, []).append(self.scoring.of(line))
                if key not in self.teams:
                    names[key] = line.team
                cafes.setdefault(key, set()).add(held.cafe)
                count = counts.setdefault(key, [0, 0, 0, 0])
                for place, value in enumerate((line.played, line.won, line.lost, line.drawn)):
                    count[place] += value
            for result in night.counted():
                teams = (keys.setdefault(result.teams[0], self.team(result.teams[0], cafe=held.cafe)),
                         keys.setdefault(result.teams[1], self.team(result.teams[1], cafe=held.cafe)))
                if teams[0] != teams[1]:  # two of a night merged into one: no game against itself
                    results.append(Result(f"{held.cafe}/{held.host}/{night.id}/{result.id}", None, teams,
                                          None if result.winner is None else keys[result.winner], result.how,
                                          result.margin, result.at))
        rated = {line.team: line for line in standings(scored, results)}  # round None: in the order decided
        lines = [SeasonLine(names[key], key if key in coded else "", key, tuple(sorted(cafes[key])), len(points),
                            self.scoring.total(points), played, won, lost, drawn, rated[key].mu, rated[key].sigma)
                 for key, points in scored.items() for played, won, lost, drawn in [counts[key]]]
        lines.sort(key=lambda s: (-s.points, -s.ordinal))
        level = Counter((line.points, line.ordinal) for line in lines)
        places = {score: lines.index(next(line for line in lines if (line.points, line.ordinal) == score)) + 1
                  for score in level}
        return [replace(line, place=places[score], shared=level[score] > 1)
                for line in lines for score in [(line.points, line.ordinal)]]

    def to_json(self, lang: str = "en") -> dict[str, object]:
        """The league page's data: the season overall and per café, each café's nights and when it
        was last heard, the nights kept apart, with why (in ``lang``), the organiser's history and
        the teams split off at a café (``split``): made once a change and a
        language, when each café was last heard put in at each call."""
        with self._lock:
            heard = dict(self.heard)
        shown = self._data(lang)
        return {**shown, "cafes": [{**cafe, "heard": heard.get(str(cafe["cafe"]))}
                                   for cafe in shown["cafes"]]}  # type: ignore[attr-defined]  # _data's: a list of objects

    def _data(self, lang: str) -> dict[str, object]:
        """``to_json`` for the league's version, in ``lang``, but for when each café was last heard."""
        folded = self._seasons()
        version, seasons = folded.version, folded.lines
        with self._folding:
            if (made := self._made.get(f"data {lang}")) is not None and made[0] == version:
                return made[1]  # type: ignore[no-any-return]  # a language's: the page's data
            with self._lock:
                kept, apart, history = list(self.nights.values()), list(self.apart.values()), list(self.history)
                split = sorted(self._split)
            nights: dict[str, list[dict[str, object]]] = {}
            for n in sorted(kept, key=lambda n: n.night.opened):
                standing = folded.nights[(n.cafe, n.host, n.night.id)]
                nights.setdefault(n.cafe, []).append({
                    "night": n.night.id, "name": n.night.name, "host": n.host, "closed": n.night.closed, "seq": n.seq,
                    "games": len(n.night.played), "trf": n.trf is not None, "state": standing.state,
                    "away": list(standing.away), "why": None if standing.decided is None else standing.decided.why,
                    "results": results(self._edited(n, history).night, edits(history, (n.cafe, n.host, n.night.id)))})
            names = {(n.cafe, n.host, n.night.id): n.night.name for n in kept}
            teams = {line.key: line.team for line in seasons[None]}
            data: dict[str, object] = {
                "league": self.name,
                "scoring": {"points": self.scoring.points, "scale": list(self.scoring.scale), "best": self.scoring.best},
                "season": [line.to_json() for line in seasons[None]],
                "cafes": [{"cafe": name, "nights": nights.get(name, []),
                           "season": [line.to_json() for line in seasons.get(name, [])]}
                          for name in sorted(set(nights) | {a.cafe for a in apart} | set(self.cafes))],
                "apart": [{"cafe": a.cafe, "host": a.host, "night": a.night, "why": say(a.why, lang)} for a in apart],
                "history": [{"at": d.at, "by": d.by, "what": say(told(d, named(d, names, teams)), lang), "why": d.why}
                            for d in history],
                "split": [{"team": team, "cafe": cafe, "name": teams.get(split_key(team, cafe), team)}
                          for team, cafe in split]}
            self._made[f"data {lang}"] = (version, data)
            return data

    def down(self) -> dict[str, object]:
        """What the league's page sends down to every café (``schema.SEASON``): the season, and the
        organiser's newest events (``SENT_DECISIONS``), made once a change."""
        def made() -> dict[str, object]:
            with self._lock:
                history = list(self.history[-SENT_DECISIONS:])
            return {"league": self.name, "season": [line.to_json() for line in self.season()],
                    "history": [decision.to_json() for decision in history]}
        down: dict[str, object] = self._export("down", made)
        return down

    def _export(self, kind: str, make: Callable[[], Any]) -> Any:
        """The export ``kind`` of the league's version: the one made for it, else ``make()``'s, kept."""
        version = self._seasons().version
        with self._folding:
            if (made := self._made.get(kind)) is not None and made[0] == version:
                return made[1]
        value = make()
        with self._folding:
            self._made[kind] = (version, value)
        return value

    def trf(self, cafe: str, host: str, night_id: str) -> str | None:
        """The TRF of a night kept, as its host wrote it; None when no such night, or its host sent none."""
        with self._lock:
            kept = self.nights.get((cafe, host, night_id))
        return None if kept is None else kept.trf

    def rows(self, cafe: str | None = None) -> list[list[object]]:
        """The season's standings (``cafe``'s alone, or overall) as an export's rows: ``COLUMNS``, then a team a row."""
        return [list(COLUMNS), *([line.place, line.team, " ".join(line.cafes), line.nights, line.points, line.played,
                                  line.won, line.lost, line.drawn, round(line.ordinal, 2) + 0.0, line.code]
                                 for line in self.season(cafe))]

    def csv(self) -> str:
        """The season's standings overall, one line a team, the leader first (made once a change)."""
        made: str = self._export("csv", lambda: csv_text(self.rows()))
        return made

    def xlsx(self) -> bytes:
        """The season's standings as a workbook (made once a change, ``_workbook``)."""
        made: bytes = self._export("xlsx", self._workbook)
        return made

    def _workbook(self) -> bytes:
        """The season's standings as a workbook: a sheet overall (``season``), then one a café (its
        name as a sheet's title may be: no ``[]:*?/\\``, 31 characters, and told apart)."""
        with self._lock:
            cafes = sorted({n.cafe for n in self.nights.values()})
        sheets: dict[str, list[tuple[object, ...]]] = {"season": [tuple(row) for row in self.rows()]}
        for cafe in cafes:
            title = "".join("_" if c in "[]:*?/\\" else c for c in cafe)[:28]
            taken = {name.casefold() for name in sheets}  # a spreadsheet tells titles apart by more than their case
            title = next(f"{title}{n or ''}" for n in range(len(sheets) + 1) if f"{title}{n or ''}".casefold() not in taken)
            sheets[title] = [tuple(row) for row in self.rows(cafe)]
        return workbook(sheets)
