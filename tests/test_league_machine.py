"""Issue 76, 1: the league's season under the organiser's events, as a stateful property. Two
cafés' host tables close nights one after another (a team now and then playing at the other
café: its code away from home, or a team without a code); the organiser voids, holds and
restores nights and edits results (and edits them back) in any order, refused where the rules
say so. After every step the league's season, each café's and each night's standing equal a
recomputation written here from the rules, not from the league's code (``Oracle``):

- a night the organiser voided or held counts for nothing; one restored counts;
- a night none decided on counts unless one of its teams' codes is away from home: a code's home
  is the café of its first night counted, in the order nights opened, and every café where the
  organiser restored a night of it;
- an edit is what the café's own desk would have made of it: the café's book, copied, corrected
  at the same time (an edit back as the café sent it: the correction taken back to the table's game);
- a team without a code is one team by its name wherever it plays, but at a café where the
  organiser split it off (issue 76, 5): there, a team of its own, until made one again; a split
  needs a team of the season at that café and at another, an undoing a team split there;
- the season: ``helpers_fleet.recomputed`` (each night's own standings, summed, openskill over the
  games in the order decided)."""

from __future__ import annotations

import random
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from pi_table.bench.league import play_night
from pi_table.fleet.league import League, LeagueRefused, Scoring
from pi_table.night.book import Book
from pi_table.night.names import folded
from pi_table.night.state import Night

from helpers_fleet import LEAGUE_START, recomputed, sent, shown

TABLES = {"bar-roma": ["r1", "r2"], "bar-milano": ["m1", "m2"]}
TEAMS = {"bar-roma": [("Owls", "OWL7"), ("Foxes", "FOX1"), ("Moles", ""), ("Lynx", "")],
         "bar-milano": [("Herons", "HER2"), ("Badgers", "BAD3"), ("Otters", ""), ("Crows", "")]}
"""Each café's own teams, by name and league code (none: matched by its name)."""
CODED = {folded(name): code for teams in TEAMS.values() for name, code in teams if code}
UNCODED = sorted(folded(name) for teams in TEAMS.values() for name, code in teams if not code)
OUTCOMES = ("won", "forfeit", "double-loss", "void", "sent")


class Tick:
    """One clock for the cafés and the league: each look a minute on, so every event has its own time."""

    def __init__(self) -> None:
        self.now = LEAGUE_START

    def __call__(self) -> float:
        self.now += 60.0
        return self.now


@dataclass
class Played:
    """A night as the oracle keeps it: its café, its host, the café's book's night, the
    organiser's events on it, and the café's book copied for the edits (made at the first)."""

    cafe: str
    host: str
    night: Night
    decided: list[str] = field(default_factory=list)  # void, hold, restore, in order
    edits: dict[tuple[int, str], str] = field(default_factory=dict)  # a pair's result edited, standing
    copy: Book | None = None
    edited: Night | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.cafe, self.host, self.night.id)


@dataclass
class Oracle:
    """The nights in the order they opened, and what the rules make of them."""

    nights: list[Played] = field(default_factory=list)
    history: list[tuple[str, tuple[str, str, str]]] = field(default_factory=list)  # each event kept, on its night
    split: set[tuple[str, str]] = field(default_factory=set)  # a team without a code (its name) split off at a café

    def states(self) -> list[str]:
        """Each night's standing: counted, held or void."""
        homes: dict[str, set[str]] = {}
        states = []
        for played in self.nights:
            codes = {team.code for team in played.night.teams.values() if team.code}
            away = any(code in homes and played.cafe not in homes[code] for code in codes)
            last = played.decided[-1] if played.decided else None
            state = {"void": "void", "hold": "held", "restore": "counted"}.get(last or "", "held" if away else "counted")
            if state == "counted":
                for code in codes:
                    homes.setdefault(code, set()).add(played.cafe)
            states.append(state)
        return states

    def season(self, cafe: str | None = None) -> list[tuple]:
        counted = [(p.cafe, p.edited or p.night) for p, state in zip(self.nights, self.states(), strict=True)
                   if state == "counted" and cafe in (None, p.cafe)]
        return recomputed(counted, Scoring(), CODED, frozenset(self.split))

    def cafes(self, team: str) -> set[str]:
        """The cafés whose counted nights the team without a code ``team`` (its name) played as
        itself: not where it is split off."""
        return {p.cafe for p, state in zip(self.nights, self.states(), strict=True) if state == "counted"
                and (team, p.cafe) not in self.split and team in {folded(line.team) for line in p.night.standings()}}


class LeagueDecided(RuleBasedStateMachine):
    @initialize(seed=st.integers(0, 2**16))
    def start(self, seed: int) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="pi-table-league-machine-"))
        self.rng = random.Random(seed)
        self.tick = Tick()
        self.books = {cafe: Book(self.folder / cafe, clock=self.tick) for cafe in TABLES}
        self.league = League("spring", cafes=TABLES, clock=self.tick)
        self.oracle = Oracle()
        for cafe in TABLES:  # a night at each café first: each team's code at home
            self.a_night_closed(cafe, None, 2)

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    @rule(cafe=st.sampled_from(sorted(TABLES)), visitor=st.sampled_from([None, 0, 1, 2, 3]), rounds=st.integers(1, 3))
    def a_night_closed(self, cafe: str, visitor: int | None, rounds: int) -> None:
        """A night of the café's own teams; ``visitor``: one of them replaced by the other café's
        team of that place (its code away from home, or a team with no code)."""
        teams = list(TEAMS[cafe])
        if visitor is not None:
            other = next(c for c in TEAMS if c != cafe)
            teams[visitor] = TEAMS[other][visitor]
        host = TABLES[cafe][0]
        night = play_night(self.books[cafe], TABLES[cafe], [name for name, _ in teams], rounds, self.rng,
                           codes={name: code for name, code in teams if code})
        assert self.league.take(*sent(night, cafe, host))
        self.oracle.nights.append(Played(cafe, host, self.books[cafe].night_of(night.id)))

    @rule(which=st.integers(0, 100), event=st.sampled_from(["void", "hold", "restore"]))
    def a_night_decided(self, which: int, event: str) -> None:
        place = which % len(self.oracle.nights)
        played, state = self.oracle.nights[place], self.oracle.states()[place]
        allowed = {"void": state != "void", "hold": state == "counted", "restore": state != "counted"}[event]
        if not allowed:
            with pytest.raises(LeagueRefused):
                self.league.decision(event, played.key, "organiser", "refused")
            return
        self.league.keep(self.league.decision(event, played.key, "organiser", f"{event} it"))
        played.decided.append(event)
        self.oracle.history.append((event, played.key))

    @rule(which=st.integers(0, 100), number=st.integers(1, 3), place=st.integers(0, 1), outcome=st.sampled_from(OUTCOMES),
          side=st.integers(0, 1))
    def a_result_edited(self, which: int, number: int, place: int, outcome: str, side: int) -> None:
        played = self.oracle.nights[which % len(self.oracle.nights)]
        table = TABLES[played.cafe][place]
        made = played.night.rounds[number - 1] if number <= len(played.night.rounds) else None
        pair = None if made is None else made.pair_at(table)
        winner = pair.teams[side] if pair is not None and outcome in ("won", "forfeit") else None
        if pair is None or (outcome == "sent" and (number, table) not in played.edits):
            with pytest.raises(LeagueRefused):
                self.league.decision("edit", played.key, "organiser", "refused", number, table, outcome, winner)
            return
        decision = self.league.decision("edit", played.key, "organiser", "the score sheet", number, table, outcome,
                                        winner)
        self.league.keep(decision)
        self.oracle.history.append(("edit", played.key))
        if played.copy is None:  # the café's desk, as a copy of its book: corrected as the organiser edits
            copied = self.folder / "oracle" / played.night.id
            shutil.copytree(self.folder / played.cafe, copied)
            played.copy = Book(copied)
        played.copy.clock = lambda: decision.at
        played.edited = played.copy.correct(played.night.id, number, table, "table" if outcome == "sent" else outcome,
                                            "organiser", winner)
        if outcome == "sent":
            del played.edits[(number, table)]
        else:
            played.edits[(number, table)] = outcome

    @rule(team=st.sampled_from(UNCODED), cafe=st.sampled_from(sorted(TABLES)), event=st.sampled_from(["split", "unsplit"]))
    def a_team_split(self, team: str, cafe: str, event: str) -> None:
        """The organiser splits a team without a code off at a café, or makes it one again."""
        if event == "split":
            cafes = self.oracle.cafes(team)
            allowed = cafe in cafes and len(cafes) > 1
        else:
            allowed = (team, cafe) in self.oracle.split
        if not allowed:
            with pytest.raises(LeagueRefused):
                self.league.parted(event, team, cafe, "organiser", "refused")
            return
        self.league.keep(self.league.parted(event, team, cafe, "organiser", f"{event} it"))
        (self.oracle.split.add if event == "split" else self.oracle.split.remove)((team, cafe))
        self.oracle.history.append((event, (cafe, "", "")))

    @invariant()
    def the_season_is_the_rules(self) -> None:
        if not hasattr(self, "oracle"):
            return
        assert shown(self.league.season(), self.league) == self.oracle.season()
        for cafe in TABLES:
            assert shown(self.league.season(cafe), self.league) == self.oracle.season(cafe)
        assert [self.league.standing(p.key).state for p in self.oracle.nights] == self.oracle.states()
        assert [(d.event, d.key) for d in self.league.history] == self.oracle.history


LeagueDecided.TestCase.settings = settings(settings.get_profile("nights"), stateful_step_count=25, deadline=None,
                                           suppress_health_check=[HealthCheck.too_slow])
test_the_season_under_the_organisers_events_is_the_rules = LeagueDecided.TestCase
