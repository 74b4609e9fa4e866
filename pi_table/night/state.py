"""A game night's state: pure (no file, no clock, no lock), advanced only by ``Night.apply``, one
event at a time. The night is the fold of its events (``fold``): the same events in the same order
make the same night at its host, at every table that follows it, after a restart and in any
recomputation. The book (``night.book``) checks a director's request, writes its event and
applies it; a follower folds the host's events (``HOSTED``, carried by its plan) into a fresh
``Night`` and keeps only its own part (``OWN``: its file, its games) of the one it holds.

An event is a line of the book, or a host's plan's, as JSON decodes it: each field is checked as
it is read (``Night.apply``), so its values are whatever the file or the broker held.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from ..engine.errors import Refusal
from ..engine.phrase import Phrase
from ..errors import PiTableError
from .code import shown
from .games import Game
from .names import Team, folded
from .pairing import BLUE, RED, Pair, PairingRefused, Round, key, met, propose, warnings
from .scoring import BYE_POINTS, DOUBLE_LOSS, FORFEIT, PLAYED, RATING, tiebreak_order

if TYPE_CHECKING:
    from .standings import Result, Standing


MAX_HISTORY = 2000  # the staff's withdrawals and results in a night: far past a week of rounds
STAFF_EVENTS = ("withdraw", "reinstate", "result", "unconfirm", "rest", "unrest", "apart", "unapart", "rename")  # the night's history: each with who ("by") and when ("at")
HOSTED = ("open", "join", "approve", "remove", *STAFF_EVENTS, "proposal", "round", "close")  # the host's events a follower folds
WON, VOID, CREDIT, TABLE = "won", "void", "game", "table"  # with scoring's FORFEIT and DOUBLE_LOSS
RESULTS = (WON, FORFEIT, DOUBLE_LOSS, VOID, CREDIT, TABLE)
MAX_BYE_POINTS = 1.0
DRAW, RATINGS = "draw", "ratings"  # how round 1 orders the teams, all level: by lot, or by earlier nights' ratings
LATE_POINTS, LATE_CHOICES = 0.0, (0.0, 0.5)  # a round missed by joining late: Z (zero-point bye) or H (half-point)
# A line of the book, or a host's plan, as JSON decodes it: each field is checked as it is read
# (``Night.apply``), so its values are whatever the file or the broker held.
Event: TypeAlias = dict[str, Any]


class StaffResult(TypedDict):
    """The staff's latest result for a round's pair (``Night.results``)."""

    result: str  # one of RESULTS but TABLE
    winner: str | None  # a win's or a forfeit's
    game: str | None  # CREDIT's: the game recorded in the night credited to this pair
    at: float


class FreeGame(TypedDict):
    """This table's free-play game over (``Night.ended``): what it keeps of its view, and when."""

    view: dict[str, Any]  # FREE_VIEW's fields of its public view's JSON
    at: float


class DamagedLine(PiTableError, ValueError):
    """A line that fails its checksum or holds no event: its argument says what was expected."""


class EventRefused(PiTableError, ValueError):
    """An event, or a value in one, that does not fit the night where it comes (no such team, no
    round to undo, a bye's points out of range): from a request, the night's file or the host."""


class NightRefused(Refusal):
    """What the night cannot do now (no night open, a round of a closed night...)."""


@dataclass(frozen=True, slots=True)
class Damage:
    """A line of a night's file left out: the file, the line, and what was expected there."""

    path: str
    line: int
    why: str

    @property
    def phrase(self) -> Phrase:
        return Phrase.of("{path}: line {line} is damaged ({why}) and was left out", path=self.path, line=self.line,
                         why=self.why)


@dataclass(slots=True)
class Night:
    """A night as its lines make it: pure state, changed only by ``apply``."""

    id: str
    name: str = ""
    games: tuple[str, ...] = ()  # the games allowed
    tables: tuple[str, ...] = ()
    opened: float = 0.0
    closed: float | None = None
    teams: dict[str, Team] = field(default_factory=dict)
    waiting: dict[str, Team] = field(default_factory=dict)  # joined from a phone, not yet approved by the staff
    played: list[Game] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)  # confirmed
    proposal: Round | None = None
    damage: list[Damage] = field(default_factory=list)
    host: str | None = None  # the table whose staff page runs the night; None: this one
    seq: int = 0  # the host's count of the night's changes: a follower keeps the newest plan
    code: str = ""  # the host's: what its staff and screen show to the staff of the tables that follow
    accepted: bool = False  # a night followed: its host accepted here (a night followed before the codes was not)
    left: bool = False  # a night followed: left by this table's staff
    bye: float = BYE_POINTS  # the points of a bye (a round sat out)
    late: float = LATE_POINTS  # the points of a round a team missed because it joined after it (Z 0, or H ½)
    draw: str = ""  # the seed of round 1's draw by lot, written when the night opened ('': a night from before it)
    seeding: str = DRAW  # round 1 by lot, or by the ratings of earlier nights (``seeds``) first
    seeds: dict[str, float] = field(default_factory=dict)  # a team's rating at the café's earlier nights, by its folded name
    since: dict[str, int] = field(default_factory=dict)  # a team that joined late: the rounds confirmed before it
    tiebreak: str = RATING  # after points: the rating, or Buchholz
    withdrawn: set[str] = field(default_factory=set)
    rests: dict[int, set[str]] = field(default_factory=dict)  # a round: the teams that asked to sit it out
    rest_points: dict[tuple[int, str], float] = field(default_factory=dict)  # what each bye asked for scores (H or Z)
    apart: set[frozenset[str]] = field(default_factory=set)  # pairs of teams the director keeps apart (friends)
    renamed: dict[str, str] = field(default_factory=dict)  # a team's mistyped name: what it is named now
    results: dict[tuple[int, str], StaffResult] = field(default_factory=dict)  # a round's table: the staff's latest result
    history: list[Event] = field(default_factory=list)  # the staff's events (STAFF_EVENTS), in order
    dealt: dict[str, int | None] = field(default_factory=dict)  # this table's games: the round each began in
    dealt_at: dict[str, float] = field(default_factory=dict)  # and when, for a game whose first move a wake saw
    dealt_known: dict[str, int] = field(default_factory=dict)  # and the history's length then (a round undone since)
    ended: dict[str, FreeGame] = field(default_factory=dict)  # this table's free-play games over: their view and end
    confirmed: list[float | None] = field(default_factory=list)  # when each round was confirmed (the host's clock)
    events: list[Event] = field(default_factory=list)  # the host's events (HOSTED) in order: what a follower folds


    @property
    def open(self) -> bool:
        return self.closed is None

    @property
    def ours(self) -> bool:
        """Open, and this table's own or one it accepted to follow: a night the book takes up again."""
        return self.open and (self.host is None or self.accepted)

    def apply(self, event: Event) -> None:
        """One line's event; KeyError, TypeError or ValueError when it does not make sense."""
        kind = event["event"]
        if kind == "open":
            self.name, self.opened = str(event["name"]), float(event["at"])
            self.games, self.tables = tuple(map(str, event["games"])), tuple(map(str, event["tables"]))
            self.code = str(event.get("code", ""))  # a night opened before the codes has none
            self.bye, self.tiebreak = _bye(event.get("bye", BYE_POINTS)), _tiebreak(event.get("tiebreak", RATING))
            self.late = _late(event.get("late", LATE_POINTS))
            self.draw, self.seeding = str(event.get("draw", "")), _seeding(event.get("seeding", DRAW))
            self.seeds = {str(name): float(rating) for name, rating in dict(event.get("seeds") or {}).items()}
        elif kind == "join":
            joined = Team(str(event["team"]), tuple(map(str, event["nicknames"])), str(event.get("team_code", "")))
            (self.waiting if event.get("waiting") else self.teams)[joined.name] = joined
            if not event.get("waiting"):
                self._joined(joined.name)
        elif kind == "approve":
            name = str(event["team"])
            self.teams[name] = self.waiting.pop(name)
            self._joined(name)
        elif kind == "remove":
            self._remove(str(event["team"]))
        elif kind in STAFF_EVENTS:
            self._decided(event)
        elif kind in ("proposal", "round"):
            made = Round.from_json(event["round"])
            if kind == "round":
                self.rounds.append(made)
                self.confirmed.append(None if event.get("at") is None else float(event["at"]))
                self.proposal = None
            else:
                self.proposal = made
        elif kind == "game":
            game = self.as_named(Game.from_json(event["game"]))
            if all(game.id != other.id for other in self.played):
                self.played.append(game)
        elif kind == "close":
            self.closed = float(event["at"])
        elif kind == "plan":
            self._follow(str(event["host"]), event["plan"])
            return
        elif kind == "accept":
            self.host, self.accepted, self.left, self.closed = str(event["host"]), True, False, None
            return
        elif kind == "leave":
            self.closed, self.left = float(event["at"]), True
            return
        elif kind == "deal":  # this table's own: no change of the host's plan
            number = event["round"]
            self.dealt[str(event["game"])] = None if number is None else int(number)
            if event.get("at") is not None:
                self.dealt_at[str(event["game"])] = float(event["at"])
            if event.get("known") is not None:
                self.dealt_known[str(event["game"])] = int(event["known"])
            return
        elif kind == "free":  # this table's own free-play game over: kept while a plan may make it a round's
            self.ended[str(event["game"])] = {"view": dict(event["view"]), "at": float(event["at"])}
            return
        else:
            raise DamagedLine("an event of the night")
        if kind in ("join", "approve", "remove", "withdraw", "reinstate", "rest", "unrest", "unconfirm"):
            self._recheck()
        if self.host is None:
            self.seq += 1
            if kind in HOSTED:  # what a follower folds: the plan's, not the games (their own topic), nor the code
                self.events.append({key: value for key, value in event.items() if key != "code"})

    def _joined(self, name: str) -> None:
        """The team ``name`` is in the night from the next round: the rounds before it, it missed."""
        if self.rounds:
            self.since[name] = len(self.rounds)

    def _follow(self, host: str, plan: Event) -> None:
        """The host's plan, as ``plan_json`` makes it: the night's state but for this table's own
        (``OWN``), all of it the fold of the host's events, so no field a follower forgets diverges."""
        hosted = fold(self.id, plan["events"]) if plan.get("events") is not None else _planned(self.id, plan)
        if hosted.rounds != [Round.from_json(made) for made in plan["rounds"]] \
                or list(hosted.teams) != [str(t["name"]) for t in plan["teams"]] \
                or hosted.history != [dict(event) for event in plan.get("history") or ()]:
            raise EventRefused("a plan whose events do not make its rounds, teams and history")
        for name in NIGHT_FIELDS - OWN:
            setattr(self, name, getattr(hosted, name))
        self.played = [self.as_named(game) for game in self.played]  # its own, played under a name since corrected
        self.host, self.seq = host, int(plan["seq"])

    def _planned(self, plan: Event) -> None:
        """A plan of a host from before issue 59 (no ``events``): its state as it says, its history
        replayed over its rounds."""
        self.seq, self.name = int(plan["seq"]), str(plan["name"])
        self.games, self.tables = tuple(map(str, plan["games"])), tuple(map(str, plan["tables"]))
        self.opened, self.closed = float(plan["opened"]), None if plan["closed"] is None else float(plan["closed"])
        self.teams = {str(t["name"]): Team(str(t["name"]), tuple(map(str, t["nicknames"])), str(t.get("code", "")))
                      for t in plan["teams"]}
        self.rounds, self.proposal = [Round.from_json(made) for made in plan["rounds"]], None
        confirmed = [None if at is None else float(at) for at in plan.get("confirmed") or ()][:len(self.rounds)]
        self.confirmed = confirmed + [None] * (len(self.rounds) - len(confirmed))
        self.since = {str(t["name"]): _since(t["since"], len(self.rounds)) for t in plan["teams"] if t.get("since")}
        self.bye, self.tiebreak = _bye(plan.get("bye", BYE_POINTS)), _tiebreak(plan.get("tiebreak", RATING))
        self.late = _late(plan.get("late", LATE_POINTS))
        for event in plan.get("history") or ():
            self._decided(dict(event), replay=True)

    def _decided(self, event: Event, replay: bool = False) -> None:
        """A staff's event (``STAFF_EVENTS``), checked: ValueError (or KeyError, TypeError) when
        it names no team, round, table or result of the night. ``replay``: the history of a
        host's plan, whose rounds are already as the history left them."""
        kind, by, at = str(event["event"]), str(event["by"]), float(event["at"])
        if len(self.history) >= MAX_HISTORY:
            raise EventRefused("a night's history is full")
        if kind in ("rest", "unrest"):  # a team asked to sit out a round to come, keeping its place (or not now)
            name, number = str(event["team"]), int(event["round"])
            asked = self.rests.setdefault(number, set())
            if name not in self.teams or number < 1 or (name in asked) != (kind == "unrest") \
                    or (not replay and (number <= len(self.rounds) or name in self.withdrawn)):
                raise EventRefused(f"no team to {kind}")
            # the director's choice for this bye, H or Z; a bye asked before the choice: the night's ``late``
            chosen = {"points": _late(event["points"])} if kind == "rest" and event.get("points") is not None else {}
            if kind == "rest":
                asked.add(name)
                self.rest_points[(number, name)] = chosen.get("points", self.late)
            else:
                asked.discard(name)
            self.history.append({"event": kind, "team": name, "round": number, **chosen, "by": by, "at": at})
            return
        if kind == "rename":  # a mistyped team named anew: every part of the night names it so
            name, to = str(event["team"]), str(event["to"])
            if name not in self.teams or not to.strip() or to in self.teams or to in self.waiting:
                raise EventRefused("no team to rename")
            self._rename(name, to)
            self.history.append({"event": kind, "team": name, "to": to, "by": by, "at": at})
            return
        if kind in ("apart", "unapart"):  # two teams the pairing keeps apart (friends who came together), or no more
            names = [str(name) for name in event["teams"]]
            if len(names) != 2 or len(set(names)) != 2 or not set(names) <= set(self.teams) \
                    or (key(*names) in self.apart) != (kind == "unapart"):
                raise EventRefused(f"no two teams to {kind}")
            (self.apart.add if kind == "apart" else self.apart.discard)(key(*names))
            self.history.append({"event": kind, "teams": sorted(names), "by": by, "at": at})
            return
        if kind == "unconfirm":  # the last round back to a proposal, with its results (Swiss-Manager's "delete round")
            number = int(event["round"])
            if not replay:
                if number != len(self.rounds) or number < 1:
                    raise EventRefused("no round to undo")
                self.proposal = self.rounds.pop()
                del self.confirmed[number - 1:]
                # its games no longer count (``paired``: their pairing is an undone one), its results go
                self.results = {key: entry for key, entry in self.results.items() if key[0] != number}
                # a team that joined after it missed only the rounds before it (issue 59, item 2)
                self.since = {name: before for name, rounds in self.since.items()
                              if (before := min(rounds, number - 1)) > 0}
            elif number < 1:
                raise EventRefused("no round to undo")
            self.history.append({"event": kind, "round": number, "by": by, "at": at})
            return
        if kind in ("withdraw", "reinstate"):
            name = str(event["team"])
            if name not in self.teams or (name in self.withdrawn) != (kind == "reinstate"):
                raise EventRefused(f"no team to {kind}")
            if kind == "withdraw":
                self.withdrawn.add(name)
                if not replay:  # gone: the byes it asked for the rounds to come are too
                    for number, asked in self.rests.items():
                        if number > len(self.rounds):
                            asked.discard(name)
            else:
                self.withdrawn.discard(name)
            self.history.append({"event": kind, "team": name, "by": by, "at": at})
            return
        number, table, result = int(event["round"]), str(event["table"]), str(event["result"])
        pair = self.rounds[number - 1].pair_at(table) if 0 < number <= len(self.rounds) else None
        winner, game = event.get("winner"), event.get("game")
        if pair is None or result not in RESULTS or (result in (WON, FORFEIT)) != (winner in pair.teams) \
                or (result == CREDIT) != isinstance(game, str):
            raise EventRefused("no result of a round's pair")
        if result == TABLE:
            self.results.pop((number, table), None)
        else:
            self.results[(number, table)] = {"result": result, "winner": winner, "game": game, "at": at}
        self.history.append({"event": kind, "round": number, "table": table, "result": result, "winner": winner,
                             "game": game, "by": by, "at": at})

    def _rename(self, old: str, new: str) -> None:
        """The team ``old`` named ``new`` in every part of the night (its place in the order the
        teams joined kept); the history keeps the name each event was written with."""
        def named(name: str) -> str:
            return new if name == old else name

        self.teams = {named(name): replace(kept, name=named(name)) for name, kept in self.teams.items()}
        self.rounds = [made.renamed(named) for made in self.rounds]
        self.proposal = None if self.proposal is None else self.proposal.renamed(named)
        self.withdrawn = {named(name) for name in self.withdrawn}
        self.rests = {number: {named(name) for name in names} for number, names in self.rests.items()}
        self.rest_points = {(number, named(name)): points for (number, name), points in self.rest_points.items()}
        self.since = {named(name): rounds for name, rounds in self.since.items()}
        self.apart = {frozenset(map(named, pair)) for pair in self.apart}
        self.results = {place: {**entry, "winner": None if entry["winner"] is None else named(entry["winner"])}
                        for place, entry in self.results.items()}
        # an old name taken again is the new team's own now: a game under it is that team's
        self.renamed = {**{was: named(now) for was, now in self.renamed.items() if was != new}, old: new}
        self.played = [self.as_named(game) for game in self.played]

    def as_named(self, game: Game) -> Game:
        """``game`` with its teams as they are named now: one played, or told, under a name since corrected."""
        if not any(name in self.renamed for name in game.teams):
            return game
        return replace(game, teams=tuple(self.renamed.get(name, name) for name in game.teams),
                       winner=None if game.winner is None else self.renamed.get(game.winner, game.winner))

    def _recheck(self) -> None:
        """A proposal that no longer names exactly the teams due to play its round (one joined,
        withdrew, came back or asked out since, or a round undone back to a proposal made before a
        walk-in) goes, to be made again: no team is left out of a round it is due to play."""
        made = self.proposal
        if made is not None and made.names != self.due(made.number):
            self.proposal = None

    def due(self, number: int) -> set[str]:
        """The teams due to play round ``number``: in the night, not withdrawn, not asked out of it."""
        out = self.rests.get(number, set())
        return {name for name in self.teams if name not in self.withdrawn and name not in out}

    def _remove(self, name: str) -> None:
        """A team gone before its first round."""
        if self.waiting.pop(name, None) is not None:
            return
        number = self.first_round(name)
        if number is not None:
            raise DamagedLine("a removal of a team before its first round")
        del self.teams[name]
        self.withdrawn.discard(name)
        self.apart = {pair for pair in self.apart if name not in pair}
        self.since.pop(name, None)

    def staff_result(self, number: int, table: str) -> str | None:
        """The staff's result for round ``number``'s pair at ``table`` (``RESULTS``), if they entered one."""
        entry = self.results.get((number, table))
        return None if entry is None else entry["result"]

    def first_round(self, name: str) -> int | None:
        """The first confirmed round that pairs the team ``name`` at a table, if any: from then on
        its games are the night's, and it stays in the standings."""
        return next((made.number for made in self.rounds if any(name in pair.teams for pair in made.pairs)), None)

    def pairing(self, number: int, known: int | None = None) -> int:
        """Round ``number``'s pairing: the times it was undone (in the first ``known`` lines of the
        history), so a game dealt for a pairing undone since is told from the round's new one."""
        return sum(e["event"] == "unconfirm" and e["round"] == number for e in self.history[:known])

    def paired(self, game: Game) -> bool:
        """Whether ``game`` is of a round confirmed, as it is paired now: not one of an undone
        pairing (a game from before pairings were counted is taken as the round's)."""
        return game.round is not None and 0 < game.round <= len(self.rounds) \
            and (game.pairing is None or game.pairing == self.pairing(game.round))

    def ids(self) -> set[str]:
        return {game.id for game in self.played}

    def recorded(self) -> list[Game]:
        """The games recorded that are the night's, for its lists and exports: each of a round as it
        is paired now. A game of a pairing undone since stays in the file (so it is refused if told
        again) but counts for nothing, so no list shows it and no result credits it."""
        return [game for game in self.played if game.round is None or self.paired(game)]

    def unplayed(self, made: Round | None, table: str) -> Pair | None:
        """The pair round ``made`` puts at ``table``, while its game there is not recorded."""
        pair = None if made is None else made.pair_at(table)
        if made is None or pair is None \
                or any(g.round == made.number and g.table == table and self.paired(g) for g in self.played):
            return None
        return pair

    def still_played(self, made: Round) -> list[str]:
        """The tables of round ``made`` whose game is neither recorded nor entered by the staff:
        still played, or not begun."""
        return [pair.table for pair in made.pairs if (made.number, pair.table) not in self.results
                and not any(g.round == made.number and g.table == pair.table and self.paired(g) for g in self.played)]

    def awaits(self, game: Game) -> bool:
        """Whether ``game`` is one the night waits for: its round's game at its table, by the pair
        the round put there, of a game the night allows."""
        made = self.rounds[game.round - 1] if game.round is not None and 0 < game.round <= len(self.rounds) else None
        pair = self.unplayed(made, game.table)
        return pair is not None and pair.teams == game.teams and game.game in self.games \
            and game.id not in self.ids() and self.paired(game)

    def plan_json(self) -> dict[str, object]:
        """What the host tells the tables that follow it (the fleet's ``plan`` topic): all they
        need to record their round's games, and the sequence that orders the plans."""
        return {"night": self.id, "name": self.name, "games": list(self.games), "tables": list(self.tables),
                "opened": self.opened, "closed": self.closed, "seq": self.seq,
                "teams": self.teams_json(), "rounds": [made.to_json() for made in self.rounds],
                "bye": self.bye, "late": self.late, "tiebreak": self.tiebreak, "history": list(self.history),
                "confirmed": list(self.confirmed), "events": list(self.events)}

    def teams_json(self) -> list[dict[str, object]]:
        """The teams, each with ``since`` when it joined late (the rounds confirmed before it)."""
        return [{**t.to_json(), **({"since": self.since[t.name]} if t.name in self.since else {})}
                for t in self.teams.values()]

    def counted(self) -> list[Result]:
        return list(self.slots().values())

    def slots(self) -> dict[tuple[int, str], Result]:
        """Each round's pair (by its round and table) as it counts: the staff's result for it,
        else the game its table recorded (unless the staff credited that game to another pair);
        a void pair or one still played, none."""
        from .standings import Result

        by_id = {game.id: game for game in self.played}
        credited = {entry["game"] for entry in self.results.values() if entry["result"] == CREDIT}
        slots = {(game.round, game.table): Result.of(game) for game in self.played
                 if game.rated and game.round is not None and self.paired(game) and game.id not in credited}
        for (number, table), entry in self.results.items():
            pair = self.rounds[number - 1].pair_at(table)
            assert pair is not None  # _decided checked it
            slots.pop((number, table), None)
            result, place = entry["result"], f"{number}/{table}"
            if result in (WON, FORFEIT, DOUBLE_LOSS):
                how = PLAYED if result == WON else result
                slots[(number, table)] = Result(place, number, pair.teams, entry["winner"], how, None, entry["at"])
            elif result == CREDIT and entry["game"] is not None and (game := by_id.get(entry["game"])) is not None \
                    and game.rated:
                winner = None if game.winner is None else pair.teams[game.teams.index(game.winner)]
                slots[(number, table)] = Result(game.id, number, pair.teams, winner, PLAYED, game.margin, game.at)
        return slots

    def byes(self) -> Counter[str]:
        """The rounds each team sat out."""
        return Counter(name for made in self.rounds for name in made.resting)

    def missed(self) -> Counter[str]:
        """The rounds each team missed as the night scores them (``late``): those confirmed before
        it joined, and those it asked to sit out."""
        asked = Counter(name for number, names in self.rests.items() if number <= len(self.rounds)
                        for name in names if name not in self.rounds[number - 1].names)
        return Counter(self.since) + asked

    def missed_points(self, name: str, number: int) -> float:
        """What round ``number``, missed by the team ``name``, scores: the bye's the director chose
        when it asked out (H or Z), else the night's ``late``."""
        if name in self.rests.get(number, ()):
            return self.rest_points.get((number, name), self.late)
        return self.late

    def asked_out(self, name: str, number: int) -> bool:
        """Whether the team ``name`` missed round ``number`` as the night scores it: it joined
        after the round, or asked to sit it out."""
        return number <= self.since.get(name, 0) or name in self.rests.get(number, ())

    def away(self) -> Counter[str]:
        """The rounds each team had neither a pair nor a bye in: it joined late, or was withdrawn then."""
        named = Counter(name for made in self.rounds for name in made.names)
        return Counter({name: len(self.rounds) - named[name] for name in self.teams})

    def absent(self) -> Counter[str]:
        """The rounds each team was away, and those whose pair the staff voided: unplayed rounds,
        for its Buchholz."""
        void = Counter(name for (number, table), entry in self.results.items() if entry["result"] == VOID
                       for name in self.rounds[number - 1].pair_at(table).teams)  # type: ignore[union-attr]
        return self.away() + void

    def unpaired(self) -> Counter[str]:
        """The rounds each team played no game in: its byes, and the rounds it was away: the
        sit-out queue's count, so a team that came late or was away is not sent to sit out first."""
        return self.away() + self.byes()

    def colours(self) -> dict[str, list[str]]:
        """Each team's colours (red plays first), round by round."""
        seen: dict[str, list[str]] = {}
        for made in self.rounds:
            for pair in made.pairs:
                seen.setdefault(pair.red, []).append(RED)
                seen.setdefault(pair.blue, []).append(BLUE)
        return seen

    def standings(self) -> list[Standing]:
        from .standings import standings  # openskill: loaded once a night is looked at, not at the table's start

        return standings(self.teams, self.counted(), self.byes(), self.bye, self.tiebreak, self.withdrawn,
                         self.missed(), self.late, self.absent(), self.rounds,
                         {(name, made.number): self.missed_points(name, made.number) for made in self.rounds
                          for name in self.teams if name not in made.names and self.asked_out(name, made.number)})

    @property
    def round(self) -> Round | None:
        """The round under way: the last confirmed one."""
        return self.rounds[-1] if self.rounds else None

    def next_round(self) -> Round:
        """The Swiss pairing of the next round, from the standings and the pairs that have met."""
        if not self.teams:
            raise NightRefused("no team has joined the night yet")
        due = self.due(len(self.rounds) + 1)
        lines = [line for line in self.standings() if line.team in due]
        if len(lines) < 2:
            raise PairingRefused("a round needs two teams and a table")
        return propose(len(self.rounds) + 1, self.ranked([line.team for line in lines]),
                       {line.team: line.points for line in lines}, self.unpaired(), self.met(), self.tables,
                       self.colours(), seeded=not self.rounds and self.seeding == RATINGS and bool(self.draw),
                       apart=self.apart)

    def ranked(self, teams: list[str]) -> list[str]:
        """``teams`` (in the standings' order) as the next round ranks them: in round 1, where all
        are level, by lot from the night's ``draw`` (so no alphabet decides who sits out or who
        meets), the ratings of earlier nights first when the night is seeded by them."""
        if self.rounds or not self.draw:
            return teams
        drawn = sorted(teams)
        random.Random(self.draw).shuffle(drawn)
        if self.seeding == RATINGS:
            drawn.sort(key=lambda name: -self.seeds.get(folded(name), 0.0))  # a newcomer rates 0; the lot among equals
        return drawn

    def met(self) -> Counter[frozenset[str]]:
        """The pairs of teams that have met: paired in a round (a pair paired counts as met), or in a game recorded."""
        paired = met(pair.teams for made in self.rounds for pair in made.pairs)
        return paired | met((game.teams[0], game.teams[1]) for game in self.recorded() if game.rated)

    def to_json(self) -> dict[str, object]:
        """The night for its staff page: its code too, at its host (the staff of the tables that follow type it)."""
        return {"id": self.id, "name": self.name, "games": list(self.games), "tables": list(self.tables),
                "opened": self.opened, "closed": self.closed, "open": self.open, "host": self.host,
                "teams": self.teams_json(),
                "waiting": [t.to_json() for t in self.waiting.values()],
                "withdrawn": sorted(self.withdrawn), "bye": self.bye,
                "rests": {str(number): sorted(names) for number, names in self.rests.items() if names}, "late": self.late, "tiebreak": self.tiebreak,
                "rounds": [made.to_json() for made in self.rounds],
                "draw": self.draw, "seeding": self.seeding,
                "seeds": {key: rating for name in self.teams if (key := folded(name)) in self.seeds
                          for rating in (self.seeds[key],)},
                "still_played": {str(made.number): tables for made in self.rounds if (tables := self.still_played(made))},
                "results": [{"round": number, "table": table, **entry} for (number, table), entry in self.results.items()],
                "history": list(self.history),
                "proposal": None if self.proposal is None else self.proposal.to_json(),
                "apart": sorted(sorted(pair) for pair in self.apart),
                "warnings": [] if self.proposal is None else warnings(self.proposal, self.met(), self.colours(), self.apart),
                "games_played": [game.to_json() for game in self.recorded()],
                "standings": [line.to_json() for line in self.standings()],
                **({"code": shown(self.code)} if self.host is None and self.code else {})}


def _bye(points: object) -> float:
    """A night's points for a bye: 0 to a win's; EventRefused for anything else."""
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 <= points <= MAX_BYE_POINTS:
        raise EventRefused("a bye's points are a number from 0 to 1")
    return float(points)


def _late(points: object) -> float:
    """A night's points for a round a team missed by joining late: Z (0) or H (½); EventRefused for anything else."""
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points not in LATE_CHOICES:
        raise EventRefused("a round missed by a late team scores 0 or 0.5")
    return float(points)


def _since(rounds: object, confirmed: int) -> int:
    """A late team's rounds missed: a whole number from 1 to the rounds confirmed; EventRefused otherwise."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 0 < rounds <= confirmed:
        raise EventRefused("a late team missed some of the rounds confirmed")
    return rounds


def _seeding(name: object) -> str:
    if name not in (DRAW, RATINGS):
        raise EventRefused("round 1 is drawn or seeded by ratings")
    return str(name)


def _tiebreak(name: object) -> str:
    tiebreak_order(name if isinstance(name, str) else "")  # ValueError unless it names an order
    return str(name)


NIGHT_FIELDS = frozenset(f.name for f in fields(Night))
OWN = frozenset(("id", "played", "damage", "host", "accepted", "left", "dealt", "dealt_at", "dealt_known", "ended"))
"""A follower's own part of a night: its file and its games. The rest is the host's, folded."""


def fold(night_id: str, events: Iterable[Event]) -> Night:
    """The night that the host's ``events`` (``HOSTED``) make, in order; ValueError (or KeyError,
    TypeError) at one that does not make sense, or is no host's."""
    night = Night(night_id)
    for event in events:
        if event.get("event") not in HOSTED:
            raise EventRefused("a host's event of the night")
        night.apply(dict(event))
    return night


def _planned(night_id: str, plan: Event) -> Night:
    """The night a plan from before issue 59 (its state, no events) says."""
    night = Night(night_id)
    night._planned(plan)
    return night
