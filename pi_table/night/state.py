"""A game night's state: pure (no file, no clock, no lock), advanced only by ``Night.apply``, one
event at a time. The night is the fold of its events (``fold``): the same events in the same order
make the same night at its host, at every table that follows it, after a restart and in any
recomputation. The book (``night.book``) checks a director's request, writes its event and
applies it; a follower folds the host's events (``HOSTED``, carried by its plan) into a fresh
``Night`` and keeps only its own part (``OWN``: its file, its games) of the one it holds.

An event is a line of the book, or a host's plan's, as JSON decodes it: each field is checked as
it is read (``Night.apply``), so its values are whatever the file or the broker held.

``Night`` joins the night's rooms: its fields (``night.fields``), the staff's decisions
(``night.decisions``) and what it counts (``night.counts``); here are the fold, the plan a
follower keeps, the next round's pairing and the night as its pages read it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import fields

from .code import shown
from .counts import Counts
from .decisions import Decisions
from .events import (
    DRAW,
    HOSTED,
    LATE_POINTS,
    RATINGS,
    STAFF_EVENTS,
    DamagedLine,
    Event,
    EventRefused,
    NightRefused,
    _bye,
    _late,
    _seeding,
    _since,
    _tiebreak,
)
from .games import Game
from .names import Team, folded
from .pairing import PairingRefused, Round, propose, warnings
from .scoring import BYE_POINTS, RATING


class Night(Decisions, Counts):
    """A night as its lines make it: pure state, changed only by ``apply``."""

    __slots__ = ()

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
        """The team ``name`` is in the night from the next round: the rounds before it, it missed.
        A name another team was renamed from is this team's own now: a game told under it is its."""
        if self.rounds:
            self.since[name] = len(self.rounds)
        self.renamed.pop(name, None)

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
