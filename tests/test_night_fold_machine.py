"""Issue 59: a night's way back, as a stateful property. A host (t1) and two tables that follow it
(t2, t3), the plans and games handed over as the fleet's broker hands them (a follower whose broker
is down hears nothing until it is back, then the retained plan and the games); random director
actions (join, withdraw, back in, a bye asked for rounds to come, keep two apart or no more, rename
a team, propose, swap, pair by hand,
confirm, undo with its results, record, correct, close, correct after the close, restart any
table, a game told again after its round was deleted). After every
step every table's standings, history and TRF equal a recomputation written here from FIDE's
rules for a Swiss with byes (``Oracle``), not from the code under test: a game won scores 1, a
pairing-allocated bye the night's bye, a round missed by joining late the night's ``late`` (Z or
H), a round asked out what the director chose for that bye (H ½ or Z 0; none chosen: the night's
``late``), a round away (withdrawn) or void 0; TRF-16's score column is the sum of its
round codes. ``NightOnThreeTablesThroughMosquitto`` plays the same rules through a real
Mosquitto, each table with the fleet's reporter, with a broker outage of its own."""

from __future__ import annotations

import contextlib
import copy
import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pi_table import config
from pi_table.engine.endings import Termination
from pi_table.fleet import schema
from pi_table.fleet.reporter import Reporter
from pi_table.night.book import Book
from pi_table.night.events import NightRefused
from pi_table.night.games import Game
from pi_table.night.pairing import PairingRefused
from pi_table.night.recorder import Recorder
from pi_table.night.state import Night
from pi_table.web.night import night_trf

from helpers import require_tools

pytestmark = pytest.mark.slow

POOL = ("Owls", "Zebras", "Foxes", "Moles", "Quiz Club", "Late Ones", "Bar Flies")
RENAMED = ("Owls II", "Zebra Crossing")  # what the director corrects a name to, besides the pool's
TABLES = ("t1", "t2", "t3")
STAFF = "staff · 0a0b0c"
TRF_POINTS = {"1": 1.0, "+": 1.0, "W": 1.0, "F": 1.0, "U": 1.0, "=": 0.5, "H": 0.5, "D": 0.5,
              "0": 0.0, "-": 0.0, "L": 0.0, "Z": 0.0, " ": 0.0}
"""TRF-16's result codes (column 99 of a round) and the points each gives."""


@dataclass
class Oracle:
    """What the director did, as the rules score it: the teams in the order they joined, the
    rounds confirmed before each joined, the rounds each asked to sit out, the confirmed rounds
    (their pairs and who sat out, as the host confirmed them), the games won and the staff's results."""

    late: float
    bye: float = 1.0
    teams: list[str] = field(default_factory=list)
    joined: dict[str, int] = field(default_factory=dict)
    withdrawn: set[str] = field(default_factory=set)
    asked: dict[str, set[int]] = field(default_factory=dict)
    chosen: dict[tuple[str, int], float] = field(default_factory=dict)  # a bye asked for: H or Z, as the director chose
    rounds: list[tuple[dict[str, tuple[str, str]], set[str]]] = field(default_factory=list)  # table: (red, blue); resting
    won: dict[tuple[int, str], str] = field(default_factory=dict)  # a round's table: its game's winner
    decided: dict[tuple[int, str], tuple[str, str | None]] = field(default_factory=dict)  # the staff's result
    history: list[tuple[object, ...]] = field(default_factory=list)
    closed: bool = False
    undone: dict[int, int] = field(default_factory=dict)  # a round: the times it was deleted (its pairing now)
    apart: set[frozenset[str]] = field(default_factory=set)  # two teams the director keeps apart

    def rename(self, old: str, new: str) -> None:
        """The team ``old`` named ``new`` in everything the director did and every result; the
        history keeps each event as it was written."""
        def named(name: str) -> str:
            return new if name == old else name

        self.teams = [named(team) for team in self.teams]
        self.joined = {named(team): rounds for team, rounds in self.joined.items()}
        self.withdrawn = {named(team) for team in self.withdrawn}
        self.asked = {named(team): rounds for team, rounds in self.asked.items()}
        self.chosen = {(named(team), number): points for (team, number), points in self.chosen.items()}
        self.rounds = [({table: (named(red), named(blue)) for table, (red, blue) in pairs.items()},
                        {named(team) for team in resting}) for pairs, resting in self.rounds]
        self.won = {place: named(winner) for place, winner in self.won.items()}
        self.decided = {place: (result, None if winner is None else named(winner))
                        for place, (result, winner) in self.decided.items()}
        self.apart = {frozenset(map(named, pair)) for pair in self.apart}

    def fewest_apart(self, due: list[str], pairs: int) -> int:
        """The fewest pairs kept apart that any ``pairs`` pairs of the teams ``due`` can hold
        (whoever sits out): what the pairing must reach."""
        def fewest(left: list[str], wanted: int) -> int:
            if wanted == 0:
                return 0
            if len(left) < 2 * wanted:
                return 1 << 30
            first, rest = left[0], left[1:]
            best = fewest(rest, wanted)  # the first sits out
            for other in rest:
                best = min(best, (frozenset((first, other)) in self.apart)
                           + fewest([team for team in rest if team != other], wanted - 1))
            return best

        return fewest(due, pairs)

    def round_points(self, team: str, number: int) -> tuple[float, str]:
        """A team's points in round ``number`` and what kind of round it was for it."""
        pairs, resting = self.rounds[number - 1]
        if team in resting:
            return self.bye, "bye"
        for table, (red, blue) in pairs.items():
            if team in (red, blue):
                staff = self.decided.get((number, table))
                if staff is not None:
                    result, winner = staff
                    return (1.0 if result in ("won", "forfeit") and winner == team else 0.0), result
                winner = self.won.get((number, table))
                return (0.0 if winner is None else float(winner == team)), "game"
        if number in self.asked.get(team, ()):
            return self.chosen.get((team, number), self.late), "missed"
        if number <= self.joined[team]:
            return self.late, "missed"
        return 0.0, "away"

    def standings(self) -> dict[str, tuple[float, int, int, bool]]:
        """Each team's points, byes, rounds missed, and whether it is withdrawn."""
        out = {}
        for team in self.teams:
            kinds = [self.round_points(team, number) for number in range(1, len(self.rounds) + 1)]
            out[team] = (sum(points for points, _ in kinds), sum(kind == "bye" for _, kind in kinds),
                         sum(kind == "missed" for _, kind in kinds), team in self.withdrawn)
        return out

    def due(self) -> list[str]:
        number = len(self.rounds) + 1
        return [t for t in self.teams if t not in self.withdrawn and number not in self.asked.get(t, ())]

    def undo(self) -> None:
        """The last round deleted with its results (Swiss-Manager's "delete last round"): its games and
        the staff's results for it count no more, and a game of it told of later never does."""
        number = len(self.rounds)
        self.rounds.pop()
        self.undone[number] = self.undone.get(number, 0) + 1
        self.won = {key: winner for key, winner in self.won.items() if key[0] != number}
        self.decided = {key: entry for key, entry in self.decided.items() if key[0] != number}
        for team, before in self.joined.items():
            self.joined[team] = min(before, number - 1)  # a walk-in after the confirm missed only the rounds before


def heard(recorder: Recorder) -> dict:
    plan = recorder.plan()
    assert plan is not None
    return schema.parse("plan", json.dumps(plan).encode())  # type: ignore[return-value]


def trf_checked(night: Night) -> dict[str, float]:
    """Each team's score in the night's TRF, checked against the sum of its round codes (TRF-16)."""
    scores = {}
    for row in night_trf(night).split("\r\n"):
        if not row.startswith("001 "):
            continue
        score = float(row[80:84])
        codes = [row[98 + 10 * n] for n in range(len(night.rounds))]
        assert score == sum(TRF_POINTS[code] for code in codes), row
        scores[row[14:47].strip()] = score
    return scores


class NightOnThreeTables(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(__import__("tempfile").mkdtemp(prefix="night-fold-"))
        self.host = Recorder(Book(self.folder / "t1"), "t1")
        self.followers = {name: Recorder(Book(self.folder / name, cafe_tables=["t1"]), name) for name in TABLES[1:]}
        self.online = {name: True for name in self.followers}
        self.oracle: Oracle | None = None
        self.night_id = ""
        self.expected: dict[str, Oracle] = {}  # each follower: the oracle as of the last plan it heard
        self.games: list[Game] = []
        self.count = 0
        self.retained: dict = {}  # the host's last plan, as the broker keeps it (retained)

    def teardown(self) -> None:
        for table in (self.host, *self.followers.values()):
            table.book.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def book(self) -> Book:
        return self.host.book

    def tell(self) -> None:
        """What the broker hands each follower that is online: the host's plan, then the games.
        The plan is the last one the host published, retained at the broker: a host restarted
        after the close hosts no night, and publishes none."""
        if self.oracle is None:
            return
        if self.host.plan() is not None:
            self.retained = heard(self.host)
        plan = self.retained
        for name, follower in self.followers.items():
            if not self.online[name]:
                continue
            follower.follow("t1", plan)
            night = follower.book.night
            if night is not None and night.open:
                for game in self.games:
                    follower.book.gather(night.id, game.table, [game])
            self.expected[name] = copy.deepcopy(self.oracle)

    # --- the director ------------------------------------------------------------------------------

    @initialize(late=st.sampled_from([0.0, 0.5]), teams=st.integers(2, 5))
    def open(self, late: float, teams: int) -> None:
        self.night_id = self.book.open("Friday", ["codenames"], list(TABLES), late=late).id
        self.oracle = Oracle(late)
        for name in POOL[:teams]:
            self.join_team(name)
        self.tell()

    def join_team(self, name: str) -> None:
        assert self.oracle is not None
        self.book.join(name)
        self.oracle.teams.append(name)
        self.oracle.joined[name] = len(self.oracle.rounds)

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(data=st.data())
    def walk_in(self, data: st.DataObject) -> None:
        assert self.oracle is not None
        free = [name for name in POOL if name not in self.oracle.teams]
        if free:
            self.join_team(data.draw(st.sampled_from(free)))
            self.tell()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(data=st.data())
    def withdraw_or_back(self, data: st.DataObject) -> None:
        assert self.oracle is not None
        name = data.draw(st.sampled_from(self.oracle.teams))
        if name in self.oracle.withdrawn:
            self.book.reinstate(name, STAFF)
            self.oracle.withdrawn.discard(name)
            self.oracle.history.append(("reinstate", name))
        else:
            self.book.withdraw(name, STAFF)
            self.oracle.withdrawn.add(name)
            self.oracle.asked[name] = {n for n in self.oracle.asked.get(name, set()) if n <= len(self.oracle.rounds)}
            self.oracle.history.append(("withdraw", name))
        self.tell()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(data=st.data(), ahead=st.integers(1, 3), span=st.integers(1, 2), points=st.sampled_from([None, 0.0, 0.5]))
    def bye_asked(self, data: st.DataObject, ahead: int, span: int, points: float | None) -> None:
        assert self.oracle is not None
        playing = [t for t in self.oracle.teams if t not in self.oracle.withdrawn]
        if not playing:
            return
        name = data.draw(st.sampled_from(playing))
        first = len(self.oracle.rounds) + ahead
        rounds = [n for n in range(first, first + span) if n not in self.oracle.asked.get(name, ())]
        if not rounds:
            return
        assert self.book.rest(name, STAFF, rounds, points) == rounds
        self.oracle.asked.setdefault(name, set()).update(rounds)
        for number in rounds:
            self.oracle.chosen.pop((name, number), None)
            if points is not None:
                self.oracle.chosen[(name, number)] = points
        self.oracle.history.extend(("rest", name, n, *(() if points is None else (points,))) for n in rounds)
        self.tell()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(data=st.data())
    def propose(self, data: st.DataObject) -> None:
        assert self.oracle is not None
        try:
            made = self.book.propose()
        except PairingRefused:
            assert len(self.oracle.due()) < 2
            return
        assert made.names == set(self.oracle.due())
        kept_apart = sum(frozenset(pair.teams) in self.oracle.apart for pair in made.pairs)
        assert kept_apart == self.oracle.fewest_apart(self.oracle.due(), len(made.pairs)), made
        if data.draw(st.booleans()) and len(made.pairs) >= 1:  # the director swaps two teams
            names = sorted(made.names)
            one, other = data.draw(st.sampled_from(names)), data.draw(st.sampled_from(names))
            if one != other:
                try:
                    self.book.swap(one, other)
                except PairingRefused:
                    pass
        self.tell()
        if data.draw(st.booleans()):  # and confirms it at once, as a director mostly does
            self.confirm()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(data=st.data())
    def pair_by_hand(self, data: st.DataObject) -> None:
        assert self.oracle is not None
        due = data.draw(st.permutations(self.oracle.due()))
        if len(due) < 2:
            return
        pairs = [{"table": table, "red": due[2 * n], "blue": due[2 * n + 1]}
                 for n, table in enumerate(TABLES) if 2 * n + 1 < len(due)]
        self.book.pair(pairs, due[2 * len(pairs):])
        self.tell()
        if data.draw(st.booleans()):
            self.confirm()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule()
    def confirm(self) -> None:
        assert self.oracle is not None
        night = self.book.current()
        if night.proposal is None:
            return
        made = self.book.confirm(over=True)
        assert made.names == set(self.oracle.due())  # no team due to play is left out
        self.oracle.rounds.append(({pair.table: (pair.red, pair.blue) for pair in made.pairs}, set(made.resting)))
        self.tell()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed and bool(self.oracle.rounds))
    @rule()
    def undo(self) -> None:
        assert self.oracle is not None
        number = len(self.oracle.rounds)
        self.book.unconfirm(STAFF)
        self.oracle.undo()
        self.oracle.history.append(("unconfirm", number))
        self.tell()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed and bool(self.oracle.rounds))
    @rule(data=st.data())
    def walk_in_after_the_confirm(self, data: st.DataObject) -> None:
        """The docs' worked example: a team walks in just after a round was confirmed; the director
        undoes the round and pairs it again with the team in (it costs the team nothing)."""
        self.walk_in(data)
        self.undo()
        self.propose(data)

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed and len(self.oracle.teams) >= 2)
    @rule(data=st.data())
    def keep_apart(self, data: st.DataObject) -> None:
        """The director keeps two teams apart (friends who came together), or no more."""
        assert self.oracle is not None
        one, other = data.draw(st.lists(st.sampled_from(self.oracle.teams), min_size=2, max_size=2, unique=True))
        teams = frozenset((one, other))
        if teams in self.oracle.apart:
            self.book.unapart(one, other, STAFF)
            self.oracle.apart.discard(teams)
            self.oracle.history.append(("unapart", tuple(sorted(teams))))
        else:
            self.book.apart(one, other, STAFF)
            self.oracle.apart.add(teams)
            self.oracle.history.append(("apart", tuple(sorted(teams))))
        self.tell()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(data=st.data())
    def rename(self, data: st.DataObject) -> None:
        """The director corrects a mistyped team's name: every table, and every game told later
        under the old name, count it as the team's."""
        assert self.oracle is not None
        name = data.draw(st.sampled_from(self.oracle.teams))
        free = [other for other in (*POOL, *RENAMED) if other not in self.oracle.teams]
        if not free:
            return
        to = data.draw(st.sampled_from(free))
        self.book.rename(name, to, STAFF)
        self.oracle.rename(name, to)
        self.oracle.history.append(("rename", name, to))
        self.tell()

    def unplayed(self) -> list[tuple[int, str, tuple[str, str]]]:
        assert self.oracle is not None
        return [(number, table, pair) for number, (pairs, _) in enumerate(self.oracle.rounds, start=1)
                for table, pair in pairs.items() if (number, table) not in self.oracle.won]

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(data=st.data())
    def game_over(self, data: st.DataObject) -> None:
        """A round's game ends at its table: recorded there, gathered by the others."""
        assert self.oracle is not None
        waiting = self.unplayed()
        if not waiting:
            return
        number, table, (red, blue) = data.draw(st.sampled_from(waiting))
        winner = data.draw(st.sampled_from([red, blue]))
        self.count += 1
        game = Game(f"g{self.count}", table, "codenames", (red, blue), winner, Termination.ALL_AGENTS_FOUND, 1, None,
                    number, 1_800_000_000.0 + self.count, pairing=self.oracle.undone.get(number, 0))
        if not self.played(game):
            return
        self.games.append(game)
        self.oracle.won[(number, table)] = winner
        self.tell()

    def played(self, game: Game) -> bool:
        """The game recorded where it was played, and handed to the host; a follower offline
        (or one that has not heard the round) has its game typed in at the host."""
        here = self.followers.get(game.table)
        if here is not None and self.online[game.table] and here.book.night is not None and here.book.night.open \
                and here.book.night.awaits(game):
            assert here.book.record(game)
            self.book.gather(self.book.current().id, game.table, [game])
        else:
            assert self.book.record(game)
        return True

    @precondition(lambda self: self.oracle is not None and bool(self.games))
    @rule()
    def games_told_again(self) -> None:
        """Every game played so far told again to every other table that hears the broker (a
        table back after an outage, a retained report handed over again), as the fleet's thread
        hands a report over, before the close or after it: one of a round deleted since, or of a
        pairing deleted since, is refused; the others are kept already. Nothing is raised."""
        hearing = [("t1", self.host), *((name, self.followers[name]) for name in self.followers if self.online[name])]
        for game in self.games:
            report = schema.parse("night", json.dumps({"night": self.night_id, "name": "Friday", "open": True,
                                                       "teams": list(game.teams), "games": [game.to_json()]}).encode())
            for name, recorder in hearing:
                if name != game.table:
                    assert recorder.gather(game.table, report) == []  # type: ignore[arg-type]
        self.tell()

    @precondition(lambda self: self.oracle is not None and bool(self.oracle.rounds))
    @rule(data=st.data())
    def result(self, data: st.DataObject) -> None:
        """The staff enter or correct a round's result at the desk; after the close, a correction."""
        assert self.oracle is not None
        number = data.draw(st.integers(1, len(self.oracle.rounds)))
        pairs = self.oracle.rounds[number - 1][0]
        if not pairs:
            return
        table = data.draw(st.sampled_from(sorted(pairs)))
        result = data.draw(st.sampled_from(["won", "forfeit", "double-loss", "void"]))
        winner = data.draw(st.sampled_from(pairs[table])) if result in ("won", "forfeit") else None
        if self.oracle.closed:
            self.book.correct(self.night_id, number, table, result, STAFF, winner=winner)
        else:
            self.book.result(number, table, result, STAFF, winner=winner)
        self.oracle.decided[(number, table)] = (result, winner)
        self.oracle.history.append(("result", number, table, result, winner))
        self.tell()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed and len(self.oracle.rounds) >= 3)
    @rule()
    def close(self) -> None:
        assert self.oracle is not None
        for name in self.followers:  # every table back before the night closes (see the report: a table
            self.online[name] = True  # offline at the close does not gather the games played meanwhile)
        self.tell()
        self.book.close(over=True)
        self.oracle.closed = True
        self.tell()

    # --- the tables ---------------------------------------------------------------------------------

    @rule(table=st.sampled_from(TABLES))
    def restart(self, table: str) -> None:
        """A power cut: the table starts again from its own files."""
        if table == "t1":
            self.host.book.stop()
            self.host = Recorder(Book(self.folder / "t1"), "t1")
        else:
            self.followers[table].book.stop()
            self.followers[table] = Recorder(Book(self.folder / table, cafe_tables=["t1"]), table)

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(table=st.sampled_from(TABLES[1:]))
    def broker_outage(self, table: str) -> None:
        """The follower's broker goes down, or comes back (it then hears the retained plan and the games)."""
        self.online[table] = not self.online[table]
        self.tell()

    # --- what every table holds ---------------------------------------------------------------------

    @invariant()
    def every_table_holds_the_night_the_rules_make(self) -> None:
        if self.oracle is not None:
            self.holds(self.expected)

    def holds(self, expected: dict[str, Oracle]) -> None:
        """The host's night is the oracle's, and each follower's the one ``expected`` of it."""
        assert self.oracle is not None
        tables = [(self.book.night_of(self.night_id), self.oracle)] + [
            (follower.book.night_of(self.night_id), expected[name]) for name, follower in self.followers.items()
            if name in expected]
        for night, oracle in tables:
            assert night.damage == []
            lines = {line.team: (line.points, line.byes, line.missed, line.withdrawn) for line in night.standings()}
            assert lines == oracle.standings()
            history = [(e["event"], *(tuple(e[key]) if key == "teams" else e[key]
                                      for key in ("team", "to", "teams", "round", "table", "result", "winner", "points")
                                      if key in e))
                       for e in night.history]
            assert history == oracle.history
            assert trf_checked(night) == {team: points for team, (points, *_) in oracle.standings().items()}


NightOnThreeTables.TestCase.settings = settings(settings.get_profile("nights"), stateful_step_count=40, deadline=None,
                                                suppress_health_check=[HealthCheck.too_slow])
test_a_night_on_three_tables_folds_the_same_as_the_rules_say = NightOnThreeTables.TestCase


class NightOnThreeTablesThroughMosquitto(NightOnThreeTables):
    """The same night, each table with the fleet's reporter on one real Mosquitto: plans, games
    and corrections go only through the broker. The broker goes down for a director's action
    (the tables play on, the host keeps running the night) and comes back; any table restarts
    with its reporter. Each step ends once the broker has settled every table (``tell``), and
    the rules' recomputation is checked then."""

    SETTLE_S = 20.0
    """How long a step waits for the broker to bring every table level: far beyond the loopback's
    milliseconds, so only a table that never catches up runs into it (the invariant then says how)."""

    def __init__(self) -> None:
        from pi_table.fleet.broker import LocalBroker, mosquitto

        require_tools(also_missing=() if mosquitto() else ("mosquitto (Debian: apt install mosquitto)",))
        super().__init__()
        self.broker = LocalBroker(self.folder / "broker")
        self.broker.start()
        self.up = True
        self.reporters: dict[str, Reporter] = {}
        for table in TABLES:
            self.connect(table)

    def teardown(self) -> None:
        for reporter in self.reporters.values():
            reporter.stop()
        self.broker.stop()
        super().teardown()

    def recorder(self, table: str) -> Recorder:
        return self.host if table == "t1" else self.followers[table]

    def connect(self, table: str) -> None:
        """The table's reporter, as the daemon starts it (``Reporter.take_night``), retrying a lost
        broker every tenth of a second rather than the table's growing delay (1 s to a minute)."""
        reporter = Reporter(config.broker(self.broker.url, table_id=table), act=lambda request: {"ok": True})
        reporter.client.reconnect_delay_set(0.1, 0.5)
        reporter.take_night(self.recorder(table))
        reporter.start()
        self.reporters[table] = reporter

    def tell(self) -> None:
        """Wait until the broker has brought every table level with the host (the host's events
        folded, every game counted where the rules count it); while the broker is down, nothing."""
        if self.oracle is None or not self.up:
            return
        deadline = time.monotonic() + self.SETTLE_S
        while not self.settled() and time.monotonic() < deadline:
            time.sleep(0.01)
        self.expected = {name: copy.deepcopy(self.oracle) for name in self.followers}

    def settled(self) -> bool:
        assert self.oracle is not None
        everyone = {name: self.oracle for name in self.followers}
        with contextlib.ExitStack() as locked:  # read no book while the broker's thread changes it
            for table in TABLES:
                locked.enter_context(self.recorder(table).book.lock)
            try:
                events = self.book.night_of(self.night_id).events
                if any(follower.book.night_of(self.night_id).events != events for follower in self.followers.values()):
                    return False
                if any(self.recorder(table).book.night_of(self.night_id).awaits(game)
                       for game in self.games for table in TABLES if table != game.table):
                    return False  # a game on its way: a round the staff decided scores the same without it
                self.holds(everyone)
            except (AssertionError, NightRefused):  # not heard yet
                return False
        return True

    def played(self, game: Game) -> bool:
        """The game recorded at its own table, which tells the others through the broker (when it is
        back); a table that has not heard the round plays it later."""
        here = self.recorder(game.table)
        night = here.book.night
        if night is None or not night.open or not night.awaits(game):
            return False
        assert here.book.record(game) and here.published is not None
        here.published(game)
        return True

    @rule(table=st.sampled_from(TABLES))
    def restart(self, table: str) -> None:
        """A power cut: the table starts again from its own files, and its reporter with it."""
        event(f"restarted: {table}")
        self.reporters.pop(table).stop()
        super().restart(table)
        self.connect(table)
        self.tell()

    @precondition(lambda self: self.oracle is not None and not self.oracle.closed)
    @rule(data=st.data())
    def broker_outage(self, data: st.DataObject) -> None:
        """The café's broker stops (its retained messages kept, as systemd stops it), the director
        does one thing or a game ends meanwhile, and the broker starts again: every table catches up."""
        assert self.oracle is not None
        acts = {"walk in": lambda: self.walk_in(data), "withdraw or back": lambda: self.withdraw_or_back(data),
                "bye asked": lambda: self.bye_asked(data, data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2)),
                                                    data.draw(st.sampled_from([None, 0.0, 0.5]))),
                "propose": lambda: self.propose(data), "pair by hand": lambda: self.pair_by_hand(data),
                "confirm": self.confirm}
        if self.oracle.rounds:
            acts.update({"undo": self.undo, "result": lambda: self.result(data), "game over": lambda: self.game_over(data)})
        act = data.draw(st.sampled_from(sorted(acts)))
        event(f"the broker down while: {act}")  # --hypothesis-show-statistics counts them
        self.broker.stop()
        self.up = False
        acts[act]()
        self.broker.start()
        self.up = True
        self.tell()


NightOnThreeTablesThroughMosquitto.TestCase.settings = settings(
    settings.get_profile("nights on a broker"), stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
test_a_night_on_three_tables_through_mosquitto_folds_the_same_as_the_rules_say = pytest.mark.broker(
    NightOnThreeTablesThroughMosquitto.TestCase)
