"""The director's commands of the night this table hosts: open it, its teams, its rounds, their
results and its close, each checked and written as a line of the book (``night.book``).

What the staff decide at the desk, as a tournament's director does, is a line of the book with
who did it and when (``STAFF_EVENTS``: the night's history): a team withdrawn (it keeps its
results and leaves the pairings) or back, and a round's result entered or corrected at a table
(``RESULTS``: a win, a forfeit, a double loss, a void pair, a recorded game credited to this pair,
or back to the table's own game). The host's plan carries that history, so the tables that follow
and the dashboard count the same results.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from typing import Any

from ..engine.games import NAMES
from ..engine.phrase import N_
from .code import new_code
from .events import (
    CREDIT,
    DRAW,
    LATE_CHOICES,
    LATE_POINTS,
    RATINGS,
    RESULTS,
    WON,
    Event,
    NightRefused,
    _bye,
    _late,
    _seeding,
    _tiebreak,
)
from .names import NameRefused, Team, folded, team, tidy
from .pairing import MAX_TABLES, Pair, Round, swap
from .scoring import BYE_POINTS, FORFEIT, RATING, TIEBREAKS
from .state import Night
from .store import TABLE_ID, Store, _locked, read_night

log = logging.getLogger("pi_table.night")
MAX_NIGHT_NAME = 40
MAX_ROUNDS = 1000  # a night's rounds, as a plan carries them: a bye is asked for one of them at most
SEED_NIGHTS = 20  # the nights kept here whose ratings seed a night's round 1: the café's last few weeks
MAX_TEAMS = 64  # teams a night takes from the phones: a café's room, not a flood from its Wi-Fi
MAX_WAITING = 16  # phones' teams waiting for the staff at once: a flood fills this list, never the night


class Director(Store):
    """The commands of a night hosted here, each under the book's lock."""

    @_locked
    def open(self, name: str, games: Iterable[str], tables: Iterable[str], bye: float = BYE_POINTS,
             tiebreak: str = RATING, late: float = LATE_POINTS, seeding: str = DRAW) -> Night:
        """A new night here, hosted: its games, tables, the points of a bye, its tie-break, the
        points of a round a team missed by joining late, and how round 1 is ordered (``DRAW``, by
        lot from a seed written now, or ``RATINGS``, the ratings of the café's earlier nights,
        written now too): what the book holds, it pairs the same again."""
        self._free()
        try:
            name = tidy(name, MAX_NIGHT_NAME, N_("night's name"))
        except NameRefused as e:
            raise NightRefused(e.phrase) from None
        games, tables = tuple(dict.fromkeys(games)), tuple(dict.fromkeys(tables))
        unknown = [game for game in games if game not in NAMES]
        if not games or unknown:
            raise NightRefused("the night's games are some of {names}", names=", ".join(NAMES))
        if not tables or len(tables) > MAX_TABLES or not all(TABLE_ID.fullmatch(t) for t in tables):
            raise NightRefused("a night has 1 to {most} tables, each named with letters, digits, - or _",
                               most=MAX_TABLES)
        try:
            bye, tiebreak, late = _bye(bye), _tiebreak(tiebreak), _late(late)
        except ValueError:
            raise NightRefused("a bye scores 0 to 1 point, a round missed by a late team 0 or ½, and the tie-break "
                               "order names some of {names}", names=", ".join(TIEBREAKS)) from None
        try:
            seeding = _seeding(seeding)
        except ValueError:
            raise NightRefused("round 1 is drawn by lot or seeded by the ratings of earlier nights: {names}",
                               names=f"{DRAW}, {RATINGS}") from None
        seeds = self._seeds() if seeding == RATINGS else {}
        at = self.clock()
        self._start(self._new_id(at))
        night = self._change({"event": "open", "name": name, "games": list(games), "tables": list(tables), "at": at,
                              "code": new_code(), "bye": bye, "tiebreak": tiebreak, "late": late,
                              "draw": secrets.token_hex(8), "seeding": seeding, "seeds": seeds})
        self._point(night.id)
        return night

    def _seeds(self) -> dict[str, float]:
        """Each team's rating (its ordinal) at the last of the café's nights hosted here, closed, it
        played in (the last ``SEED_NIGHTS``), by its folded name: a team types its name again."""
        seeds: dict[str, float] = {}
        for path in self.kept()[-SEED_NIGHTS:]:
            night = read_night(path)[0]
            if night.open or night.host is not None:
                continue
            seeds.update((folded(line.team), line.rating(3)) for line in night.standings() if line.played)
        return seeds

    @_locked
    def join(self, name: str, nicknames: Iterable[str] = (), waiting: bool = False, code: str = "") -> Team:
        """A team joins: at once from the staff page, ``waiting`` for the staff's approval from a
        phone; ``code``: its league code, as typed (``names.code``)."""
        night = self._hosted()
        if waiting and len(night.waiting) >= MAX_WAITING:
            raise NightRefused("{count} teams are waiting for the staff to confirm them: ask the staff",
                               count=MAX_WAITING)
        if waiting and len(night.teams) + len(night.waiting) >= MAX_TEAMS:
            raise NightRefused("the night has all the teams it takes: ask the staff")
        joined = team(name, nicknames, [*night.teams, *night.waiting], self.blocked, code)
        self._change({"event": "join", "team": joined.name, "nicknames": list(joined.nicknames),
                      **({"team_code": joined.code} if joined.code else {}),
                      **({"waiting": True} if waiting else {})})
        return joined

    @_locked
    def approve(self, name: str) -> Team:
        """A team that joined from a phone, confirmed by the staff: from now on it is paired."""
        night = self._hosted()
        if name not in night.waiting:
            raise NightRefused("no team {team} is waiting for the staff", team=name)
        self._change({"event": "approve", "team": name})
        return night.teams[name]

    @_locked
    def remove(self, name: str) -> None:
        """A team gone from the night (a phone's junk, a team that went home), while no confirmed
        round has paired it; a team that has been paired is in the night's games and standings."""
        night = self._hosted()
        if name not in night.teams and name not in night.waiting:
            raise NightRefused("no team {team} is in the night", team=name)
        number = night.first_round(name)
        if number is not None:
            raise NightRefused("the team {team} is paired in round {number}: a team is removed only before its "
                               "first round", team=name, number=number)
        self._change({"event": "remove", "team": name})

    @_locked
    def withdraw(self, name: str, by: str) -> None:
        """A team that leaves the night (``by``: who at the desk): it keeps its results and is
        paired no more, until it is back (``reinstate``)."""
        night = self._hosted()
        if name not in night.teams or name in night.withdrawn:
            raise NightRefused("no team {team} is playing in the night", team=name)
        self._change({"event": "withdraw", "team": name, "by": by, "at": self.clock()})

    @_locked
    def rest(self, name: str, by: str, rounds: Iterable[int] = (), points: float | None = None) -> list[int]:
        """The team ``name`` sits out ``rounds`` (none: the next one) at its own asking (``by``: who
        at the desk), keeping its place: it is paired again after them, and each scores what the
        director chose (``points``: ½, H, or 0, Z; None: what a round missed scores, ``late``).
        The rounds asked for, each a line of the book."""
        night = self._hosted()
        if name not in night.teams or name in night.withdrawn:
            raise NightRefused("no team {team} is playing in the night", team=name)
        asked = sorted(set(rounds)) or [len(night.rounds) + 1]
        if points is not None and points not in LATE_CHOICES:
            raise NightRefused("a bye asked for scores 0 or ½")
        for number in asked:
            if not len(night.rounds) < number <= MAX_ROUNDS:
                raise NightRefused("a bye is asked for a round to come, from {next} to {most}",
                                   next=len(night.rounds) + 1, most=MAX_ROUNDS)
            if name in night.rests.get(number, ()):
                raise NightRefused("the team {team} has asked for a bye in round {number} already", team=name,
                                   number=number)
        for number in asked:
            self._change({"event": "rest", "team": name, "round": number,
                          **({} if points is None else {"points": points}), "by": by, "at": self.clock()})
        return asked

    @_locked
    def unrest(self, name: str, by: str, number: int | None = None) -> None:
        """The team ``name``'s bye asked for round ``number`` (None: the next one), taken back: it is paired in it."""
        night = self._hosted()
        number = len(night.rounds) + 1 if number is None else number
        if number <= len(night.rounds) or name not in night.rests.get(number, ()):
            raise NightRefused("the team {team} has not asked for a bye in round {number}", team=name, number=number)
        self._change({"event": "unrest", "team": name, "round": number, "by": by, "at": self.clock()})

    @_locked
    def reinstate(self, name: str, by: str) -> None:
        """A team withdrawn, back in the night: it is paired again from the next round."""
        night = self._hosted()
        if name not in night.withdrawn:
            raise NightRefused("no team {team} has withdrawn", team=name)
        self._change({"event": "reinstate", "team": name, "by": by, "at": self.clock()})

    @_locked
    def result(self, number: int, table: str, result: str, by: str, winner: str | None = None,
               game: str | None = None) -> None:
        """The staff's result for round ``number``'s pair at ``table`` (``RESULTS``): ``winner``
        one of the pair for a win or a forfeit, ``game`` a game recorded in the night to credit
        to this pair; ``TABLE`` goes back to what the table recorded."""
        night = self._hosted()
        self._change(self._result(night, number, table, result, by, winner, game))

    def _result(self, night: Night, number: int, table: str, result: str, by: str, winner: str | None,
                game: str | None) -> Event:
        """The line of a result for ``night``; NightRefused saying what is wrong with it."""
        made = night.rounds[number - 1] if 0 < number <= len(night.rounds) else None
        pair = None if made is None else made.pair_at(table)
        if pair is None:
            raise NightRefused("round {number} has no pair at table {table}", number=number, table=table)
        if result not in RESULTS:
            raise NightRefused("a result is one of {results}", results=", ".join(RESULTS))
        if (result in (WON, FORFEIT)) != (winner in pair.teams):
            raise NightRefused("a win or a forfeit names its winner, {red} or {blue}, and no other result does",
                               red=pair.red, blue=pair.blue)
        if result == CREDIT and not any(g.id == game and g.rated for g in night.recorded()):
            raise NightRefused("no game {game} between two teams is recorded in the night", game=str(game))
        return {"event": "result", "round": number, "table": table, "result": result, "winner": winner,
                "game": game if result == CREDIT else None, "by": by, "at": self.clock()}

    @_locked
    def correct(self, night_id: str, number: int, table: str, result: str, by: str, winner: str | None = None,
                game: str | None = None) -> Night:
        """A result of a night this table hosted, entered after it closed (as ``result``): a line
        of its book and its history with who and when; the night as it is now."""
        night = self.night_of(night_id)
        if night.open:
            raise NightRefused("the night {name} is open: correct it at the desk", name=night.name)
        if night.host is not None:
            raise NightRefused("the night {name} is run from table {host}'s staff page", name=night.name,
                               host=night.host)
        self._closed_change(night, self._result(night, number, table, result, by, winner, game))
        log.info("night %s: round %d at table %s corrected after the night closed (%s)", night.name, number, table,
                 result)
        return night


    @_locked
    def unconfirm(self, by: str) -> Round:
        """The last round confirmed, back to a proposal (``by``: who at the desk), with its results:
        the staff's go, and its games, on every table, count no more (their pairing is undone,
        ``Night.paired``), nor does one of them told of later. The tables that follow fold it
        with the plan. The round undone: its proposal goes too when a team due to play it joined
        since (a walk-in after the confirm), to be proposed again with it."""
        night = self._hosted()
        if not night.rounds:
            raise NightRefused("no round is confirmed")
        number = len(night.rounds)
        made = night.rounds[-1]
        self._change({"event": "unconfirm", "round": number, "by": by, "at": self.clock()})
        return made


    @_locked
    def propose(self) -> Round:
        made = self._hosted().next_round()
        self._change({"event": "proposal", "round": made.to_json()})
        return made

    @_locked
    def swap(self, one: str, other: str) -> Round:
        night = self._hosted()
        if night.proposal is None:
            raise NightRefused("propose the next round first")
        made = swap(night.proposal, one, other)
        self._change({"event": "proposal", "round": made.to_json()})
        return made

    @_locked
    def pair(self, pairs: Iterable[dict[str, Any]], resting: Iterable[str]) -> Round:
        """The next round paired by hand (``pairs``: each ``{"table", "red", "blue"}``), as its
        proposal: every team of the night not withdrawn once, at a table of the night or sitting out,
        but those that asked to sit the round out: left out, they score what they asked (issue 59, item 3)."""
        night = self._hosted()
        try:
            made = Round(len(night.rounds) + 1, tuple(Pair(str(p["table"]), str(p["red"]), str(p["blue"])) for p in pairs),
                         tuple(map(str, resting)))
        except (KeyError, TypeError):
            made = Round(0, ())
        names = [name for pair in made.pairs for name in pair.teams] + list(made.resting)
        tables = [pair.table for pair in made.pairs]
        if not made.pairs or sorted(names) != sorted(night.due(made.number)) \
                or len(set(tables)) != len(tables) or not set(tables) <= set(night.tables):
            raise NightRefused("a round by hand pairs every team of the night once, one pair a table of the night, "
                               "and names the others as sitting out, but those that asked to sit it out")
        self._change({"event": "proposal", "round": made.to_json()})
        return made

    @_locked
    def confirm(self, over: bool = False) -> Round:
        """The round proposed, confirmed; while a table still plays the round before, only when
        told to go ``over`` it (those games still count for their own round)."""
        night = self._hosted()
        if night.proposal is None:
            raise NightRefused("propose the next round first")
        playing = [] if night.round is None else night.still_played(night.round)
        if playing and not over:
            raise NightRefused("round {number} is still played at table {tables}: confirm round {next} anyway? "
                               "Those games count for round {number} when they end", number=len(night.rounds),
                               tables=", ".join(playing), next=len(night.rounds) + 1)
        made = night.proposal
        self._change({"event": "round", "round": made.to_json(), "at": self.clock()})
        return made


    @_locked
    def close(self, over: bool = False) -> Night:
        """The night closed; while a table still plays (or has not begun) a round's game, only
        when told to go ``over`` it: a game ending at a table that has heard of the close is not
        recorded, and one from a table offline then is taken once it reports (``gather``)."""
        night = self._hosted()
        playing = sorted({table for made in night.rounds for table in night.still_played(made)})
        if playing and not over:
            raise NightRefused("Still played at table {tables}: close the night anyway? A game there that ends after "
                               "the close counts for nothing, unless its table was offline and had not heard of the "
                               "close: it then counts once the table reports it", tables=", ".join(playing))
        night = self._change({"event": "close", "at": self.clock()})
        self._ended()
        return night

