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
and as the organiser merged two (``merged``, on the page). A night's TRF, as its host wrote it,
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
from ..night.games import Game, GameRefused
from ..night.names import CODE, folded
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


class LeagueRefused(Refusal):
    """What the organiser asked of the league cannot be done: the sentence says what is expected."""


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


@dataclass
class League:
    """The league's nights, from the messages of its broker; safe from any thread. ``cafes``: the
    organiser's roster, each café's tables ([] for a café whose tables are not listed; no café
    listed: any café may send); ``teams``: the roster's teams, each code's name; ``merged``: a
    team's key (``team_key``) the organiser merged into another's."""

    name: str
    scoring: Scoring = field(default_factory=Scoring)
    cafes: Mapping[str, Iterable[str]] = field(default_factory=dict)
    merged: dict[str, str] = field(default_factory=dict)
    teams: Mapping[str, str] = field(default_factory=dict)
    clock: Callable[[], float] = time.time
    nights: dict[Key, CafeNight] = field(default_factory=dict)
    apart: dict[Key, Apart] = field(default_factory=dict)
    heard: dict[str, float] = field(default_factory=dict)  # a café: its newest night's newest event, by its clock
    version: int = 0  # counts the changes of the season (a night, a refusal, a merge)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _folding: threading.Lock = field(default_factory=threading.Lock)  # one computation of a version, however many ask
    _folded: tuple[int, dict[str | None, list[SeasonLine]]] | None = None  # the version's season, overall and a café's
    _made: dict[str, tuple[int, Any]] = field(default_factory=dict)  # what is made of a version (page data, exports)

    def __post_init__(self) -> None:
        self.merged = {team_key(duplicate): team_key(into) for duplicate, into in self.merged.items()}
        self._coded = {folded(name): code for code, name in self.teams.items()}  # a roster's name: its code

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
        for told in sent["games"]:
            try:
                game = Game.from_json(told)
            except (GameRefused, KeyError, TypeError, ValueError):
                raise schema.Refused("league.night.games", Phrase.of("the night's games")) from None
            if night.awaits(game):  # its round's game at its table, by its pair, once: as a follower counts it
                night.played.append(game)
        return CafeNight(cafe, host, night, int(sent["seq"]), sent.get("trf"))

    def team(self, name: str, code: str = "") -> str:
        """A team's key across nights and cafés: its league ``code``, else the code the roster gives
        its name, else its name as names are compared; then as the organiser merged it."""
        key = code or self._coded.get(folded(name), folded(name))
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
            nights = [held.night for held in self.nights.values()]
        for night in nights:
            if {duplicate, into} <= {self.team(name, team.code) for name, team in night.teams.items()}:
                raise LeagueRefused("these two teams played one night together: two teams, not one under two names")

    def merge(self, duplicate: str, into: str) -> None:
        """The organiser's merge: the season's team ``duplicate`` (its key) is ``into`` from now on
        (``mergeable``'s refusal else)."""
        self.mergeable(duplicate, into)
        with self._lock:
            self.merged[duplicate] = into
            self.version += 1

    def season(self, cafe: str | None = None) -> list[SeasonLine]:
        """The season's standings, over every café's nights or ``cafe``'s alone, the leader first:
        computed once a change (``version``), then served as it is to every view, export and send."""
        return self._seasons()[1].get(cafe, [])

    def _seasons(self) -> tuple[int, dict[str | None, list[SeasonLine]]]:
        """The season of the league's version, overall (None) and each café's: the one computed for
        it, else computed now, once, whoever else asks meanwhile."""
        with self._folding:
            with self._lock:
                version, kept = self.version, list(self.nights.values())
            if self._folded is not None and self._folded[0] == version:
                return self._folded
            kept.sort(key=lambda n: (n.night.opened, n.cafe, n.host, n.night.id))
            by_cafe: dict[str, list[CafeNight]] = {}
            for held in kept:
                by_cafe.setdefault(held.cafe, []).append(held)
            folded: dict[str | None, list[SeasonLine]] = {cafe: self._fold(nights) for cafe, nights in by_cafe.items()}
            folded[None] = self._fold(kept)
            self._folded = (version, folded)
            return self._folded

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
            keys = {name: self.team(name, team.code) for name, team in night.teams.items()}
            coded.update(team.code for team in night.teams.values() if team.code)
            for line in night.standings():
                key = keys.setdefault(line.team, self.team(line.team))
                scored.setdefault(key, []).append(self.scoring.of(line))
                if key not in self.teams:
                    names[key] = line.team
                cafes.setdefault(key, set()).add(held.cafe)
                count = counts.setdefault(key, [0, 0, 0, 0])
                for place, value in enumerate((line.played, line.won, line.lost, line.drawn)):
                    count[place] += value
            for result in night.counted():
                teams = (keys.setdefault(result.teams[0], self.team(result.teams[0])),
                         keys.setdefault(result.teams[1], self.team(result.teams[1])))
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
        was last heard, and the nights kept apart, with why (in ``lang``): made once a change and a
        language, when each café was last heard put in at each call."""
        with self._lock:
            heard = dict(self.heard)
        shown = self._data(lang)
        return {**shown, "cafes": [{**cafe, "heard": heard.get(str(cafe["cafe"]))}
                                   for cafe in shown["cafes"]]}  # type: ignore[attr-defined]  # _data's: a list of objects

    def _data(self, lang: str) -> dict[str, object]:
        """``to_json`` for the league's version, in ``lang``, but for when each café was last heard."""
        version, seasons = self._seasons()
        with self._folding:
            if (made := self._made.get(f"data {lang}")) is not None and made[0] == version:
                return made[1]  # type: ignore[no-any-return]  # a language's: the page's data
            with self._lock:
                kept, apart = list(self.nights.values()), list(self.apart.values())
            nights: dict[str, list[dict[str, object]]] = {}
            for n in sorted(kept, key=lambda n: n.night.opened):
                nights.setdefault(n.cafe, []).append({
                    "night": n.night.id, "name": n.night.name, "host": n.host, "closed": n.night.closed, "seq": n.seq,
                    "games": len(n.night.played), "trf": n.trf is not None})
            data: dict[str, object] = {
                "league": self.name,
                "scoring": {"points": self.scoring.points, "scale": list(self.scoring.scale), "best": self.scoring.best},
                "season": [line.to_json() for line in seasons[None]],
                "cafes": [{"cafe": name, "nights": nights.get(name, []),
                           "season": [line.to_json() for line in seasons.get(name, [])]}
                          for name in sorted(set(nights) | {a.cafe for a in apart} | set(self.cafes))],
                "apart": [{"cafe": a.cafe, "host": a.host, "night": a.night, "why": say(a.why, lang)} for a in apart]}
            self._made[f"data {lang}"] = (version, data)
            return data

    def _export(self, kind: str, make: Callable[[], Any]) -> Any:
        """The export ``kind`` of the league's version: the one made for it, else ``make()``'s, kept."""
        version, _ = self._seasons()
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
