"""A real evening's edges (issue 49): a customers' game under way when a night opens, is accepted
or a round is confirmed is free play, never a round's; late teams; a follower that missed a
round's confirmation."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_table.engine import Rules
from pi_table.engine.actions import Guess
from pi_table.engine.endings import Termination
from pi_table.fleet import schema
from pi_table.night.book import Book
from pi_table.night.events import NightRefused
from pi_table.night.games import Game
from pi_table.night.recorder import Recorder
from pi_table.night.standings import Standing
from pi_table.night.state import Night
from pi_table.table.session import Session

from helpers import wait_for
from helpers_staff import Staff
from helpers_tables import StaffTable

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
TEAMS = ("Owls", "Quiz Club", "Foxes", "Moles")


# --- item 1: a game under way before the night is the customers', not a round's -----------------------------------

def test_a_game_under_way_when_the_night_opens_is_free_play_and_the_staff_page_says_so(tmp_path):
    """The issue's reproduction: a game dealt and its first move made, the night opened with four
    teams and round 1 confirmed with that table in it, the casual game played to its end: it is
    no round's game. The staff page says a game not the night's is under way at the table, and
    once it is over round 1's pair plays its own game there, which is the round's."""
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        staff.login()
        table.guess(0)  # the customers' game is under way
        casual = table.daemon.session.id
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1", "2"]})
        for name in TEAMS:
            staff.call("POST", "/staff/api/night/join", {"team": name})
        staff.call("POST", "/staff/api/night/propose")
        status, answer = staff.call("POST", "/staff/api/night/confirm")
        assert status == 200
        first = answer["night"]["rounds"][0]

        def night() -> dict:
            return staff.call("GET", "/staff/api/night")[1]["night"]

        wait_for(lambda: night()["free_play"] == [{"table": "1", "game": casual, "here": True}], "the game under way named")
        for cell in range(1, 9):  # red finds all its agents: the casual game ends
            table.guess(cell)
        wait_for(lambda: night()["free_play"] == [], "the casual game over")
        assert night()["games_played"] == [] and night()["still_played"] == {"1": ["1", "2"]}
        assert staff.call("POST", "/staff/api/new-game", {"game": "codenames", "options": {}})[0] == 200
        own = table.daemon.session.id
        wait_for(lambda: night()["free_play"] == [], "round 1's game is not free play")
        view = table.daemon.session.public_view().to_json()
        for cell in [n for n, seen in enumerate(str(view["board"])) if seen == "?"]:
            if table.daemon.session.state.is_over:
                break
            table.guess(cell)
        wait_for(lambda: len(night()["games_played"]) == 1, "round 1's game at table 1 recorded")
        [game] = night()["games_played"]
        pair = next(p for p in first["pairs"] if p["table"] == "1")
        assert game["id"] == own and game["round"] == 1 and game["teams"] == [pair["red"], pair["blue"]]
    finally:
        table.close()


def opened(tmp_path, clock=None) -> Book:
    book = Book(tmp_path / "host", **({} if clock is None else {"clock": clock}))
    book.open("Friday league", ["codenames"], ["1", "2"])
    for name in TEAMS:
        book.join(name)
    return book


def play_out(recorder: Recorder, session: Session, rng: random.Random, wakes: bool = True):
    """``session``'s game played to its end by random touches, the recorder called as the
    table's loop calls it on each wake (``wakes``: after each move too); what it records."""
    while not session.state.is_over:
        board = str(session.public_view().to_json()["board"])
        session.submit(Guess(rng.choice([cell for cell, seen in enumerate(board) if seen == "?"])))
        if wakes and not session.state.is_over:
            recorder.begun(session.id)
    return recorder.seen(session.id, lambda: session.public_view().to_json())


def test_a_game_under_way_when_a_round_is_confirmed_or_across_a_restart_is_free_play(tmp_path):
    """A game begun while no round put a pair here, still under way when round 1 is confirmed,
    is free play; so is one the table finds under way after a restart with no round written for
    it (its beginning was before the night was open here); a game dealt and untouched when the
    night opened is the round's once its first move comes in the round."""
    rng = random.Random(4)
    book = opened(tmp_path)
    recorder = Recorder(book, "1")
    early = Session(Rules(), rng=rng)
    recorder.untouched(early.id)
    early.submit(Guess(0))
    recorder.begun(early.id)  # no round yet: free play
    book.propose()
    book.confirm()
    assert recorder.free_play() == [{"table": "1", "game": early.id, "here": True}]
    assert play_out(recorder, early, rng) is None and recorder.free_play() == []
    before = Session(Rules(), rng=rng)  # under way, then the table restarts: a recorder that never saw it begin
    before.submit(Guess(0))
    again = Recorder(book, "1")
    again.begun(before.id)
    assert again.free_play() == [{"table": "1", "game": before.id, "here": True}] and book.current().dealt[before.id] is None
    assert play_out(again, before, rng) is None
    own = Session(Rules(), rng=rng)
    again.untouched(own.id)
    game = play_out(again, own, rng)
    assert game is not None and game.round == 1 and game.teams == book.current().rounds[0].pair_at("1").teams  # type: ignore[union-attr]


def test_a_game_whose_first_move_was_its_last_is_the_rounds_only_if_dealt_in_the_night(tmp_path):
    """A wake that sees a game over at once takes the round under way for it only when an
    earlier wake saw it dealt, untouched, in this night; a game over already when the night
    was opened or accepted (still on the table's screen) is not the night's."""
    rng = random.Random(5)
    book = opened(tmp_path)
    recorder = Recorder(book, "1")
    done_before = Session(Rules(), rng=rng)
    assert play_out(recorder, done_before, rng, wakes=False) is None  # no night yet... and over
    book.propose()
    book.confirm()
    late_seen = Recorder(book, "1")
    assert play_out(late_seen, done_before, rng, wakes=False) is None
    assert book.current().played == []
    own = Session(Rules(), rng=rng)
    late_seen.untouched(own.id)
    game = play_out(late_seen, own, rng, wakes=False)
    assert game is not None and game.round == 1


def test_a_game_under_way_when_a_follower_accepts_its_host_is_free_play(tmp_path):
    """A table whose customers play when its staff accept the host's night (round 1 under way,
    a pair put at this table): the game is free play, said on the staff page, and the pair's own
    game after it is round 1's."""
    rng = random.Random(6)
    host = opened(tmp_path)
    host.propose()
    host.confirm()
    follower = Recorder(Book(tmp_path / "t2"), "2")
    casual = Session(Rules(), rng=rng)
    follower.untouched(casual.id)
    casual.submit(Guess(0))
    follower.begun(casual.id)  # no night here yet
    plan = schema.parse("plan", json.dumps(Recorder(host, "1").plan()).encode())
    follower.follow("1", plan)  # type: ignore[arg-type]
    follower.book.accept("1", host.current().code)
    told: list = []
    follower.published = told.append  # the fleet's reporter: the table's night report changed
    follower.begun(casual.id)
    assert follower.free_play() == [{"table": "2", "game": casual.id, "here": True}] and told == [None]
    at_host = Recorder(host, "1")  # the host's staff page names it too, from the follower's night report
    at_host.gather("2", schema.parse("night", json.dumps(follower.report()).encode()))  # type: ignore[arg-type]
    assert at_host.free_play() == [{"table": "2", "game": casual.id, "here": False}]
    assert play_out(follower, casual, rng) is None and follower.book.current().played == [] and told == [None, None]
    at_host.gather("2", schema.parse("night", json.dumps(follower.report()).encode()))  # type: ignore[arg-type]
    assert at_host.free_play() == []
    own = Session(Rules(), rng=rng)
    follower.untouched(own.id)
    game = play_out(follower, own, rng)
    assert game is not None and game.round == 1 and game.teams == host.current().rounds[0].pair_at("2").teams  # type: ignore[union-attr]


# --- item 2: late teams ------------------------------------------------------------------------------------------------

@settings(settings.get_profile("tables"))  # a night's book on disk, some teams joining late
@given(st.integers(3, 16), st.integers(1, 5), st.integers(2, 6), st.lists(st.integers(2, 6), min_size=1, max_size=3),
       st.sampled_from([0.0, 0.5]), st.randoms(use_true_random=False))
def test_a_late_team_sits_out_no_more_often_than_one_that_came_on_time(tmp_path_factory, teams, tables, rounds,
                                                                        joins, late, random):
    """Issue 49, item 2: teams that join before round N (from the staff page, or a phone's team
    approved) missed the rounds before it: each is scored as the night says (Z, nothing, or H,
    a draw's half), and the sit-out queue counts them, so no team that came late has more byes
    than a team there from the first round, and every team is compared on every round."""
    book = Book(tmp_path_factory.mktemp("night"))
    book.open("Late", ["codenames"], [str(t) for t in range(1, tables + 1)], late=late)
    for i in range(teams):
        book.join(f"Team {i}")
    for number in range(1, rounds + 1):
        for j, at in enumerate(joins):
            if at == number:
                book.join(f"Late {j}", waiting=j % 2 == 1)
                if j % 2:
                    book.approve(f"Late {j}")
        made = book.propose()
        book.confirm(over=True)
        for pair in made.pairs:
            book.record(Game(f"{number}-{pair.table}", pair.table, "codenames", pair.teams, random.choice(pair.teams),
                             Termination.ALL_AGENTS_FOUND, 1, None, number, float(number)))
    night = book.current()
    byes, lines = night.byes(), {line.team: line for line in night.standings()}
    on_time = [byes[f"Team {i}"] for i in range(teams)]
    for j, at in enumerate(joins):
        if at <= rounds:
            name = f"Late {j}"
            assert byes[name] <= min(on_time), (name, byes[name], on_time)
            line = lines[name]
            assert line.missed == at - 1 and line.played + line.byes + line.missed == rounds
            assert line.points == line.won + line.drawn / 2 + line.byes * night.bye + line.missed * late
    assert all(line.played + line.byes + line.missed == rounds for line in lines.values())
    book.stop()


def test_a_late_team_is_paired_from_the_next_round_and_its_missed_rounds_travel_with_the_plan(tmp_path):
    """24 teams on 7 tables, one joining before round 3 (the issue's figure: it sat out 3 of its
    4 rounds in 50 of 50 nights): it plays round 3 and round 4; the night's ½ for a round
    missed is in its points at the host and at a table that follows from the plan."""
    rng = random.Random(7)
    book = Book(tmp_path / "host")
    book.open("Friday", ["codenames"], [str(t) for t in range(1, 8)], late=0.5)
    for i in range(24):
        book.join(f"Team {i:02d}")
    for number in range(1, 5):
        if number == 3:
            book.join("Latecomers")
        made = book.propose()
        book.confirm(over=True)
        for pair in made.pairs:
            book.record(Game(f"{number}-{pair.table}", pair.table, "codenames", pair.teams, rng.choice(pair.teams),
                             Termination.ALL_AGENTS_FOUND, 1, None, number, float(number)))
    night = book.current()
    assert [made.number for made in night.rounds if "Latecomers" in made.resting] == []
    line = next(line for line in night.standings() if line.team == "Latecomers")
    assert (line.missed, line.played, line.byes) == (2, 2, 0) and line.points == line.won + 1.0
    plan = schema.parse("plan", json.dumps(Recorder(book, "1").plan()).encode())
    follower = Recorder(Book(tmp_path / "t2", clock=book.clock), "2")
    follower.follow("1", plan)  # type: ignore[arg-type]
    follower.book.accept("1", night.code)
    followed = follower.book.current()
    assert followed.since == {"Latecomers": 2} and followed.late == 0.5
    assert next(s for s in followed.standings() if s.team == "Latecomers").points == 1.0  # no game gathered there
    with pytest.raises(NightRefused, match="a round missed by a late team 0 or ½"):
        Book(tmp_path / "other").open("x", ["codenames"], ["1"], late=1)


def test_the_staff_page_opens_a_night_with_the_points_of_a_round_missed_and_names_a_late_team(tmp_path):
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        staff.login()
        status, answer = staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"],
                                                                      "tables": ["1"], "late": 1})
        assert status == 400 and '"late": 0 or 0.5' in answer["error"]
        status, answer = staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"],
                                                                      "tables": ["1"], "seeding": "coin"})
        assert status == 400 and '"seeding": "draw" or "ratings"' in answer["error"]
        status, answer = staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"],
                                                                      "tables": ["1"], "late": 0.5})
        assert status == 200 and answer["night"]["late"] == 0.5 and answer["night"]["seeding"] == "draw"
        for name in TEAMS[:2]:
            staff.call("POST", "/staff/api/night/join", {"team": name})
        staff.call("POST", "/staff/api/night/propose")
        staff.call("POST", "/staff/api/night/confirm")
        night = staff.call("POST", "/staff/api/night/join", {"team": "Latecomers"})[1]["night"]
        assert {"name": "Latecomers", "nicknames": [], "since": 1} in night["teams"]
        line = next(line for line in night["standings"] if line["team"] == "Latecomers")
        assert line["missed"] == 1 and line["points"] == 0.5
    finally:
        table.close()


# --- item 3: a follower that missed a round's confirmation ---------------------------------------------------------

class Clock:
    """The tables' clocks, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def game_at(recorder: Recorder, clock: Clock, rng: random.Random, end: bool = True) -> tuple[Session, object]:
    """A game dealt at the recorder's table a minute on, begun (and played out if ``end``) as the loop sees it."""
    clock.now += 60
    session = Session(Rules(), rng=rng)
    recorder.untouched(session.id)
    session.submit(Guess(0))
    recorder.begun(session.id)
    return session, play_out(recorder, session, rng) if end else None


def test_a_follower_that_missed_a_rounds_confirmation_reconciles_its_game_when_the_plan_comes(tmp_path):
    """The broker was down when the host confirmed round 2: the follower began round 2's game as
    free play (it knew round 1 only, whose game there was played). When the plan comes, the
    first game dealt there after round 2 was confirmed is round 2's, by round 2's pair: one
    already over is recorded then, one under way when it ends; a game begun before the
    confirmation stays free play."""
    rng, clock = random.Random(8), Clock()
    host = Book(tmp_path / "host", clock=clock)
    host.open("Friday league", ["codenames"], ["t1", "t2"])
    for name in TEAMS:
        host.join(name)
    host.propose()
    host.confirm()
    at_host = Recorder(host, "t1", clock=clock)
    follower = Recorder(Book(tmp_path / "t2", clock=clock), "t2", clock=clock)
    follower.follow("t1", schema.parse("plan", json.dumps(at_host.plan()).encode()))  # type: ignore[arg-type]
    follower.book.accept("t1", host.current().code)
    first = game_at(follower, clock, rng)[1]
    assert first is not None and first.round == 1  # type: ignore[attr-defined]
    before = game_at(follower, clock, rng)[1]  # free play: round 1's pair has played, round 2 not confirmed
    assert before is None
    clock.now += 60
    host.propose()
    host.confirm(over=True)  # the follower does not hear of it
    late = game_at(follower, clock, rng)[1]
    assert late is None and follower.book.current().dealt  # free play, as far as the follower knows
    recorded = []
    follower.published = recorded.append
    assert follower.follow("t1", schema.parse("plan", json.dumps(at_host.plan()).encode()))  # type: ignore[arg-type]
    night = follower.book.current()
    pair = night.rounds[1].pair_at("t2")
    [game] = [g for g in night.played if g.round == 2]
    assert pair is not None and game.teams == pair.teams and recorded == [game]
    assert len(night.played) == 2 and night.still_played(night.rounds[1]) == ["t1"]
    clock.now += 60
    host.propose()
    host.confirm(over=True)
    under_way, _ = game_at(follower, clock, rng, end=False)
    follower.follow("t1", schema.parse("plan", json.dumps(at_host.plan()).encode()))  # type: ignore[arg-type]
    assert follower.free_play() == []  # round 3's now
    game = play_out(follower, under_way, rng)
    assert game is not None and game.round == 3 and game.teams == follower.book.current().rounds[2].pair_at("t2").teams  # type: ignore[union-attr, attr-defined]
    again = Book(tmp_path / "t2", clock=clock)  # all of it written: a restart finds the same
    assert {g.id for g in again.current().played} == {g.id for g in follower.book.current().played}
    again.stop()


# --- item 10: Buchholz and the rounds a team did not play -------------------------------------------------------------

def test_buchholz_counts_every_round_a_team_did_not_play_against_its_own_points(tmp_path):
    """Issue 49, item 10: a round a team did not play (a bye, a forfeit, a void pair, a round it
    missed by joining late or while withdrawn) counts as one against a dummy opponent with the
    team's own points, as FIDE's tie-break regulations count an unplayed round; before, a late,
    withdrawn or void round added nothing. Recomputed from the rounds and the results alone."""
    rng = random.Random(9)
    book = Book(tmp_path / "host")
    book.open("Friday", ["codenames"], ["1", "2"], tiebreak="buchholz", late=0.5)
    for name in TEAMS:
        book.join(name)
    for number in range(1, 5):
        if number == 2:
            book.join("Latecomers")
        if number == 3:
            book.withdraw(TEAMS[0], "staff")
        if number == 4:
            book.reinstate(TEAMS[0], "staff")
        made = book.propose()
        book.confirm(over=True)
        for n, pair in enumerate(made.pairs):
            if number == 3 and n == 1:
                book.result(number, pair.table, "void", "staff")
            elif number == 4 and n == 1:
                book.result(number, pair.table, "forfeit", "staff", winner=pair.blue)
            else:
                book.record(Game(f"{number}-{pair.table}", pair.table, "codenames", pair.teams,
                                 rng.choice(pair.teams), Termination.ALL_AGENTS_FOUND, 1, None, number, float(number)))
    night = book.current()
    lines = {line.team: line for line in night.standings()}
    played: dict[str, list[str]] = {name: [] for name in lines}
    for result in night.slots().values():
        if result.rated:
            first, second = result.teams
            played[first].append(second)
            played[second].append(first)
    ahead = {}  # issue 59, item 4: an opponent's rounds away after its last game count as draws (art. 16.3.2)
    for name, line in lines.items():
        last = max([number for (number, _), result in night.slots().items() if name in result.teams
                    and (result.rated or result.winner == name)]
                   + [made.number for made in night.rounds if name in made.resting], default=0)
        away = [made.number for made in night.rounds[last:] if name not in made.names]
        ahead[name] = line.points + sum(0.5 - (0.5 if number <= night.since.get(name, 0) else 0.0) for number in away)
    for name, line in lines.items():
        unplayed = len(night.rounds) - len(played[name])
        expected = sum(ahead[other] for other in played[name]) + unplayed * line.points
        assert abs(line.buchholz - expected) < 1e-9, (name, line.buchholz, expected)
    book.stop()


# --- item 5: TRF-16's own codes --------------------------------------------------------------------------------------

TRF_VALUE = {"1": 1, "0": 0, "=": 0.5, "+": 1, "-": 0, "U": 1, "F": 1, "H": 0.5, "Z": 0}


def test_the_trf_export_writes_trf16s_own_bye_codes_and_counts_its_columns_in_bytes(tmp_path):
    """Issue 49, item 5, and issue 76, item 9: every round sat out for the pairing is TRF-16's
    pairing-allocated bye (U), whatever it scores, with the points of a bye other than a win on
    bbpPairings's BBU line: written H or Z before, FIDE's tie-break programs read it as a bye the
    team asked for, cut first, while the table's Cut-1 and Median do not. A round a late team
    missed is H or Z as the night says, one a withdrawn team was away Z. A name is written in
    ASCII, so a reader counting bytes and one counting characters (bbpPairings) find the columns
    after it in the same place: an accent moved them by a byte before. Read back by bytes."""
    from pi_table.web.night import night_trf

    for bye, late in ((1.0, 0.0), (0.5, 0.5), (0.0, 0.0)):
        rng = random.Random(10)
        book = Book(tmp_path / f"{bye}-{late}")
        book.open("Caffè", ["codenames"], ["1"], bye=bye, late=late)
        for name in ("àèìòùÀÈÌÒÙ Caffè Nerò é", "Owls", "Foxes"):
            book.join(name)
        for number in range(1, 6):
            if number == 2:
                book.join("Latecomers")
            if number == 3:
                book.withdraw("Owls", "staff")
            made = book.propose()
            book.confirm(over=True)
            for pair in made.pairs:
                book.record(Game(f"{number}-{pair.table}", pair.table, "codenames", pair.teams, rng.choice(pair.teams),
                                 Termination.ALL_AGENTS_FOUND, 1, None, number, float(number)))
        night = book.current()
        data = night_trf(night).encode()
        assert data.endswith(b"\r\n")
        assert (b"BBU" in data) == (bye != 1) and (bye == 1 or f"\r\nBBU {bye:4.1f}\r\n".encode() in data)
        value = {**TRF_VALUE, "U": bye}
        points = {line.team: line.points for line in night.standings()}
        byes = night.byes()
        for row in data.split(b"\r\n"):
            if not row.startswith(b"001"):
                continue
            assert len(row) == 89 + 10 * 5 and row.isascii(), row  # every column where TRF-16 puts it
            name = row[14:47].decode().strip()
            full = next(team for team in night.teams if team.replace("àèìòùÀÈÌÒÙ", "aeiouAEIOU").replace(
                "è", "e").replace("ò", "o").replace("é", "e") == name)
            codes = [chr(row[98 + 10 * at]) for at in range(5)]
            assert float(row[80:84]) == sum(value[code] for code in codes) == points[full], (full, codes)
            sat_out = [code for code, made in zip(codes, night.rounds, strict=True) if full in made.resting]
            assert len(sat_out) == byes[full]
            assert sat_out == ["U"] * len(sat_out), (full, sat_out)
            if full == "Latecomers":
                assert codes[0] == ("H" if late else "Z")
            if full == "Owls":
                assert codes[2:] == ["Z", "Z", "Z"]
        book.stop()


def trf_tiebreaks(trf: str, bye: float = 1.0) -> dict[str, tuple[float, float, float, float, float]]:
    """Each player's points, Buchholz, Cut-1, Median and Sonneborn-Berger as FIDE's TieBreakServer
    reads a TRF-16 (its ``trf2json`` and ``tiebreak``, C.07 of 2023), written here from its rules,
    not from the table's code: ``1 = 0 U`` played, the rest not; a round not played is voluntary
    (VUR) unless it scores a win's point (``+``, ``F``); an opponent's rounds after its last
    round that is no VUR, with no opponent named, count as draws for the Buchholz of those it met
    (16.3.2); a round not played counts a dummy with the player's own points (16.4); the cuts take
    the VURs first (16.5)."""
    scored = {"1": 1.0, "=": 0.5, "0": 0.0, "U": bye, "+": 1.0, "F": 1.0, "H": 0.5, "-": 0.0, "Z": 0.0, " ": 0.0}
    rows = {}
    for line in trf.split("\r\n"):
        if line.startswith("001"):
            rounds = [line[91 + 10 * at:99 + 10 * at] for at in range((len(line) - 89) // 10)]
            rows[int(line[4:8])] = (line[14:47].strip(), [(int(r[0:4]), r[7]) for r in rounds])
    points = {n: sum(scored[code] for _, code in played) for n, (_, played) in rows.items()}
    vur = {n: [code not in "1=0U" and scored[code] < 1 for _, code in played] for n, (_, played) in rows.items()}
    last = {n: max([at + 1 for at, v in enumerate(vur[n]) if not v], default=0) for n in rows}
    adjusted = {n: sum(scored[code] if at + 1 <= last[n] or opponent else 0.5
                       for at, (opponent, code) in enumerate(played)) for n, (_, played) in rows.items()}
    out = {}
    for n, (name, played) in rows.items():
        values = [(adjusted[opponent] if code in "1=0" and opponent else points[n], scored[code], vur[n][at])
                  for at, (opponent, code) in enumerate(played)]
        low = sorted(values, key=lambda v: (not v[2], v[0]))[1:]
        out[name] = (points[n], sum(v[0] for v in values), sum(v[0] for v in low),
                     sum(v[0] for v in sorted(low, key=lambda v: v[0])[:-1]), sum(v[0] * v[1] for v in values))
    return out


def test_a_voided_pair_is_written_so_fides_tiebreak_server_counts_the_table_s_tiebreaks(tmp_path):
    """Issue 76, item 9: a pair the staff voided (paired, not played, nothing to either) was
    written ``0000 - Z``, a round the team sat out of its own doing: FIDE's TieBreakServer counted
    such a round after a team's last game as a draw for its opponents' Buchholz (16.3.2), so their
    Buchholz, Cut-1 and Median differed from the table's. TRF-16 has no code for a pair paired
    that counts nothing; the closest is the pair named with ``-`` each (not played, nothing
    scored), which TieBreakServer reads as the table counts every team's points, Buchholz and
    Sonneborn-Berger, and every other team's cuts. The one difference left: it takes the voided
    round for one the team chose to miss (a VUR, cut first), which the table does not, as neither
    team chose it, so the pair's own Cut-1 and Median lose that round's dummy there."""
    from pi_table.web.night import night_trf

    book = Book(tmp_path / "host")
    book.open("Friday", ["codenames"], ["1", "2", "3"], tiebreak="buchholz-cut1")
    for name in ("Owls", "Quiz Club", "Foxes", "Moles", "Bats", "Cats"):
        book.join(name)
    rng = random.Random(76)
    for number in range(1, 5):
        made = book.propose()
        book.confirm(over=True)
        for at, pair in enumerate(made.pairs):
            if number == 4 and at == 0:
                book.result(number, pair.table, "void", "staff")
                voided = pair
                continue
            book.record(Game(f"{number}-{pair.table}", pair.table, "codenames", pair.teams, rng.choice(pair.teams),
                             Termination.ALL_AGENTS_FOUND, 1, None, number, float(number)))
    night = book.current()
    trf = night_trf(night)
    start = {name: n for n, name in enumerate(night.teams, start=1)}
    rows = {line[14:47].strip(): line for line in trf.split("\r\n") if line.startswith("001")}
    assert rows[voided.red][121:129] == f"{start[voided.blue]:>4} w -"
    assert rows[voided.blue][121:129] == f"{start[voided.red]:>4} b -"
    read = trf_tiebreaks(trf)
    for line in night.standings():
        points, buchholz, cut1, median, berger = read[line.team]
        assert (points, buchholz, berger) == pytest.approx((line.points, line.buchholz, line.sonneborn_berger)), line.team
        if line.team in voided.teams:  # its voided round's dummy, the team's own points, cut first there
            assert cut1 == pytest.approx(line.buchholz - line.points) and cut1 <= line.buchholz_cut1, line.team
        else:
            assert (cut1, median) == pytest.approx((line.buchholz_cut1, line.median_buchholz)), line.team
    book.stop()


# --- item 11: the print -----------------------------------------------------------------------------------------------

def test_the_print_gives_each_pairs_result_and_never_a_rating_of_minus_zero(tmp_path, monkeypatch):
    """Issue 49, item 11: the page to print lists each round's pairs with their results (a win,
    a forfeit, a double loss, a void pair, still played) and no rating reads "-0.0"."""
    from pi_table.web.night import printable

    book = Book(tmp_path / "host")
    book.open("Friday", ["codenames"], ["1", "2"])
    for name in TEAMS:
        book.join(name)
    made = book.propose()
    book.confirm()
    first, second = made.pairs
    book.record(Game("g1", first.table, "codenames", first.teams, first.blue, Termination.ALL_AGENTS_FOUND, 2, None,
                     1, 1.0))
    page = printable(book.current(), "en")
    assert f"{first.red} (red, plays first) – {first.blue}: {first.blue} won" in page
    assert f"{second.red} (red, plays first) – {second.blue}: still played" in page
    book.result(1, second.table, "forfeit", "staff", winner=second.red)
    page = printable(book.current(), "en")
    assert f"{second.blue}: {second.red} won by forfeit" in page
    book.result(1, second.table, "double-loss", "staff")
    assert "double loss (both lose)" in printable(book.current(), "en")
    book.result(1, second.table, "void", "staff")
    page = printable(book.current(), "it")
    assert f"{second.blue}: annullata (non conta)" in page
    assert "-0.0" not in page and "-0.0" not in printable(book.current(), "en")
    near = Standing("A", 1, 0, 1, 0, 0, 0.0, -2, mu=1.0, sigma=1.04 / 3)  # an ordinal of -0.04
    assert f"{near.ordinal:.1f}" == "-0.0" and f"{near.rating(1):.1f}" == "0.0" and str(near.to_json()["rating"]) == "-0.04"
    monkeypatch.setattr(Night, "standings", lambda self: [near])  # the print of such a line
    assert "<td>0.0</td>" in printable(book.current(), "en") and "-0.0" not in printable(book.current(), "en")


# --- item 9: a round undone, a closed night corrected -------------------------------------------------------------

def test_a_round_confirmed_by_mistake_is_undone_before_its_games_begin_with_who_and_when(tmp_path):
    """Issue 49, item 9: the last round confirmed goes back to a proposal (to swap and confirm
    again), since issue 59 with its games and results, which then count no more; it is a line of the night's history
    with who and when, kept across a restart, and a table that follows drops the round too."""
    rng, clock = random.Random(11), Clock()
    book = opened(tmp_path, clock=clock)
    made = book.propose()
    book.confirm()
    follower = Recorder(Book(tmp_path / "t2", clock=clock), "2", clock=clock)
    at_host = Recorder(book, "1", clock=clock)
    follower.follow("1", schema.parse("plan", json.dumps(at_host.plan()).encode()))  # type: ignore[arg-type]
    follower.book.accept("1", book.current().code)
    assert follower.next_up() is not None  # round 1's pair at table 2
    book.unconfirm("staff · 1a2b3c")
    night = book.current()
    assert night.rounds == [] and night.proposal == made and night.confirmed == []
    assert night.history[-1] == {"event": "unconfirm", "round": 1, "by": "staff · 1a2b3c", "at": clock.now}
    assert follower.follow("1", schema.parse("plan", json.dumps(at_host.plan()).encode()))  # type: ignore[arg-type]
    assert follower.book.current().rounds == [] and follower.next_up() is None  # no pair to play there now
    book.stop()
    again = Book(tmp_path / "host", clock=clock)
    assert again.current().rounds == [] and again.current().proposal == made
    again.confirm()
    again.record(Game("g1", "1", "codenames", made.pairs[0].teams, made.pairs[0].red, Termination.ALL_AGENTS_FOUND,
                      1, None, 1, clock.now, pairing=0))  # as the recorder writes it: round 1's first pairing
    again.unconfirm("staff")  # issue 59: undone with its results, as Swiss-Manager deletes a round
    again.confirm()
    assert again.current().slots() == {}  # the game of the undone pairing counts no more
    again.stop()
    dealt = Book(tmp_path / "dealt", clock=clock)
    dealt.open("x", ["codenames"], ["1", "2"])
    for name in TEAMS:
        dealt.join(name)
    dealt.propose()
    dealt.confirm()
    session = Session(Rules(), rng=rng)
    here = Recorder(dealt, "1", clock=clock)
    here.untouched(session.id)
    session.submit(Guess(0))
    here.begun(session.id)  # round 1's game began at this table
    dealt.unconfirm("staff")
    dealt.confirm()
    while not session.state.is_over:
        board = str(session.public_view().to_json()["board"])
        session.submit(Guess(rng.choice([cell for cell, seen in enumerate(board) if seen == "?"])))
    assert here.seen(session.id, lambda: session.public_view().to_json()) is None  # dealt for the undone pairing
    assert dealt.current().slots() == {}
    dealt.stop()


def test_a_followers_game_of_a_round_the_host_undid_is_free_play(tmp_path):
    """A table that began the round's game just as the host undid the round (the host sees only
    the games recorded): the game becomes free play there, never a game of a round that is gone."""
    rng, clock = random.Random(12), Clock()
    book = opened(tmp_path, clock=clock)
    book.propose()
    book.confirm()
    at_host = Recorder(book, "1", clock=clock)
    follower = Recorder(Book(tmp_path / "t2", clock=clock), "2", clock=clock)
    follower.follow("1", schema.parse("plan", json.dumps(at_host.plan()).encode()))  # type: ignore[arg-type]
    follower.book.accept("1", book.current().code)
    session, _ = game_at(follower, clock, rng, end=False)
    assert follower.book.current().dealt[session.id] == 1
    book.unconfirm("staff")
    follower.follow("1", schema.parse("plan", json.dumps(at_host.plan()).encode()))  # type: ignore[arg-type]
    assert follower.book.current().dealt[session.id] is None
    assert play_out(follower, session, rng) is None and follower.book.current().played == []


def test_a_closed_night_is_corrected_at_the_desk_with_who_and_when(tmp_path):
    """A result entered after the night closed: written in its book and history with who and
    when, counted in its standings and exports, and kept across a restart; a night open is
    corrected at the desk as before, and a night followed from another table is not this one's."""
    from pi_table.web.night import night_trf

    clock = Clock()
    book = opened(tmp_path, clock=clock)
    made = book.propose()
    book.confirm()
    pair = made.pairs[0]
    book.record(Game("g1", pair.table, "codenames", pair.teams, pair.red, Termination.ALL_AGENTS_FOUND, 1, None, 1,
                     clock.now))
    with pytest.raises(NightRefused, match="is open: correct it at the desk"):
        book.correct(book.current().id, 1, pair.table, "won", "staff", winner=pair.blue)
    night_id = book.close(over=True).id  # table 2 still plays: closed over it (issue 59)
    clock.now += 3600
    corrected = book.correct(night_id, 1, pair.table, "won", "owner · 9f8e7d", winner=pair.blue)
    assert corrected.history[-1]["by"] == "owner · 9f8e7d" and corrected.history[-1]["at"] == clock.now
    assert next(s for s in corrected.standings() if s.team == pair.blue).won == 1
    [row] = [row for row in night_trf(corrected).split("\r\n") if row.startswith("001") and row[14:47].strip() == pair.blue]
    assert row[98] == "1"  # the export counts the correction
    with pytest.raises(NightRefused, match="round 3 has no pair at table 1"):
        book.correct(night_id, 3, "1", "void", "staff")
    book.stop()
    kept = Book(tmp_path / "host").night_of(night_id)
    assert kept.history[-1]["by"] == "owner · 9f8e7d" and kept.closed is not None
    assert next(s for s in kept.standings() if s.team == pair.blue).won == 1


def test_the_staff_page_undoes_a_round_and_corrects_a_closed_night_behind_its_checks(tmp_path):
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        assert staff.call("POST", "/staff/api/night/unconfirm")[0] == 401
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"]})
        for name in TEAMS[:2]:
            staff.call("POST", "/staff/api/night/join", {"team": name})
        staff.call("POST", "/staff/api/night/propose")
        staff.call("POST", "/staff/api/night/confirm")
        assert staff.call("POST", "/staff/api/night/unconfirm", csrf="wrong")[0] == 403
        status, answer = staff.call("POST", "/staff/api/night/unconfirm")
        assert status == 200 and answer["night"]["rounds"] == [] and answer["night"]["proposal"]["number"] == 1
        assert answer["night"]["history"][-1]["event"] == "unconfirm" and answer["night"]["history"][-1]["by"].startswith("staff")
        status, answer = staff.call("POST", "/staff/api/night/pair", {"pairs": "1"})
        assert status == 409 and "a round by hand pairs every team" in answer["error"]
        status, answer = staff.call("POST", "/staff/api/night/pair", {"pairs": [{"table": "1", "red": TEAMS[1],
                                                                                 "blue": TEAMS[0]}], "resting": []})
        assert status == 200 and answer["night"]["proposal"]["pairs"] == [{"table": "1", "red": TEAMS[1],
                                                                           "blue": TEAMS[0]}]
        status, answer = staff.call("POST", "/staff/api/night/confirm")
        pair = answer["night"]["rounds"][0]["pairs"][0]
        night_id = answer["night"]["id"]
        staff.call("POST", "/staff/api/night/close", {"confirm": True})  # its round still played (issue 59)
        status, answer = staff.call("POST", f"/staff/api/night/{night_id}/result", {"round": 1, "table": "1"})
        assert status == 400 and "expected" in answer["error"]
        status, answer = staff.call("POST", f"/staff/api/night/{night_id}/result",
                                    {"round": 1, "table": "1", "result": "forfeit", "winner": pair["blue"]})
        assert status == 200 and answer["night"]["results"][0]["winner"] == pair["blue"]
        assert staff.call("GET", f"/staff/api/night/{night_id}/kept")[1]["night"]["history"][-1]["result"] == "forfeit"
        assert staff.call("POST", "/staff/api/night/20200101-000000/result",
                          {"round": 1, "table": "1", "result": "void"})[0] == 409
    finally:
        table.close()


# --- item 7: a swap by hand is warned, and a round paired by hand ---------------------------------------------------

def test_a_proposal_warns_of_a_rematch_or_a_colour_a_team_is_not_due_and_the_staff_pair_by_hand(tmp_path):
    """Issue 49, item 7: a swap that makes a rematch, or gives a team the colour it is not due
    (it had it more often, or twice running), is warned under the proposal, as Swiss-Manager
    warns; a round can be paired by hand whole, every team once, and is warned the same way."""
    book = Book(tmp_path / "host")
    book.open("Friday", ["codenames"], ["1", "2"])
    for name in TEAMS:
        book.join(name)
    first = book.propose()
    assert book.current().to_json()["warnings"] == []
    book.confirm()
    one, two = first.pairs
    made = book.propose()
    assert book.current().to_json()["warnings"] == []  # the pairing avoids both
    a = made.pairs[0]
    partner = next(other for pair in (one, two) if a.red in pair.teams for other in pair.teams if other != a.red)
    book.swap(a.blue, partner)  # a.red meets its opponent of round 1 again
    warned = book.current().to_json()["warnings"]
    swapped = book.current().proposal
    assert swapped is not None
    rematches = [w for w in warned if w["kind"] == "rematch"]
    assert rematches == [{"kind": "rematch", "table": pair.table, "teams": list(pair.teams)} for pair in swapped.pairs
                         if set(pair.teams) in (set(one.teams), set(two.teams))] and rematches
    by_hand = book.pair([{"table": "1", "red": one.red, "blue": one.blue}, {"table": "2", "red": two.blue,
                                                                            "blue": two.red}], [])
    assert by_hand.pairs[0].teams == one.teams
    warned = book.current().to_json()["warnings"]
    assert {"kind": "rematch", "table": "1", "teams": list(one.teams)} in warned
    assert {"kind": "colour", "table": "1", "team": one.red, "due": "blue"} in warned
    for bad in ([{"table": "1", "red": one.red, "blue": one.red}, {"table": "2", "red": two.red, "blue": two.blue}],
                [{"table": "1", "red": one.red, "blue": one.blue}],
                [{"table": "1", "red": one.red, "blue": one.blue}, {"table": "9", "red": two.red, "blue": two.blue}]):
        with pytest.raises(NightRefused, match="a round by hand pairs every team of the night once"):
            book.pair(bad, [])
    book.stop()


# --- item 8: round 1 drawn by lot, or seeded by earlier nights' ratings ---------------------------------------------

def test_round_one_is_drawn_by_lot_from_the_nights_seed_and_the_draw_is_the_books(tmp_path):
    """Issue 49, item 8: with every team level, round 1 was paired in the alphabet's order, so the
    teams late in it sat out and neighbours met. It is now a draw by lot from a seed the night
    writes when it opens: another night draws differently, and the same book draws the same
    (after a restart too), as the page says."""
    teams = [f"Team {letter}" for letter in "ABCDEFG"]  # 7 teams, 2 tables: 3 sit out
    resting, firsts = Counter(), set()
    for n in range(12):
        book = Book(tmp_path / f"n{n}")
        book.open("Friday", ["codenames"], ["1", "2"])
        for name in teams:
            book.join(name)
        made = book.propose()
        resting.update(made.resting)
        firsts.add(made.pairs[0].teams)
        if n == 0:
            seed = book.current().to_json()["draw"]
            assert isinstance(seed, str) and len(seed) >= 8 and book.current().to_json()["seeding"] == "draw"
            book.stop()
            again = Book(tmp_path / "n0")
            assert again.propose() == made and again.current().to_json()["draw"] == seed
            again.stop()
        else:
            book.stop()
    assert len(resting) >= 5 and len(firsts) >= 5, (resting, firsts)  # not the alphabet's last three every night


def test_round_one_is_seeded_by_the_cafes_ratings_from_earlier_nights_when_the_staff_choose_it(tmp_path):
    clock = Clock()
    book = Book(tmp_path / "host", clock=clock)
    book.open("Last week", ["codenames"], ["1"])
    for name in ("Owls", "Foxes"):
        book.join(name)
    for number in range(1, 4):
        made = book.propose()
        book.confirm()
        pair = made.pairs[0]
        book.record(Game(f"g{number}", "1", "codenames", pair.teams, "Owls", Termination.ALL_AGENTS_FOUND, 5, None,
                         number, clock.now + number))
    book.close()
    clock.now += 7 * 24 * 3600
    book.open("This week", ["codenames"], ["1", "2"], seeding="ratings")
    for name in ("Bats", "foxes", "Moles", "OWLS"):  # names typed again, as the staff type them
        book.join(name)
    made = book.propose()
    assert "OWLS" in made.pairs[0].teams  # the best rated of last week leads the round (a newcomer rates 0)
    night = book.current().to_json()
    assert night["seeding"] == "ratings" and night["seeds"]["owls"] > night["seeds"]["foxes"]
    assert "foxes" in made.pairs[-1].teams  # the worst rated of last week last
    with pytest.raises(NightRefused, match="round 1 is drawn by lot or seeded by the ratings"):
        Book(tmp_path / "other").open("x", ["codenames"], ["1"], seeding="coin")
    book.stop()


# --- item 4: the spectators' TV ----------------------------------------------------------------------------------------

def test_the_spectators_page_is_told_of_each_change_of_the_night_on_its_event_stream(tmp_path):
    """Issue 49, item 4: the TV polled the standings every 10 s. The table now tells every
    spectator's stream of a change of the night (``event: night``) within a fraction of a
    second, as the fleet's dashboard pushes its nights; a seat's stream is not told. And the
    standings it then fetches carry what the TV shows: the tie-break's columns, who withdrew,
    who sits out."""
    import http.client
    import time

    from helpers_phones import get, next_event

    table = StaffTable(tmp_path, KEY)
    connection = http.client.HTTPConnection("127.0.0.1", table.daemon.companion.port, timeout=10)  # type: ignore[union-attr]
    try:
        connection.request("GET", "/api/public/events")
        stream = connection.getresponse()
        assert next_event(stream)[0] == "message"  # the game's view first
        staff = Staff(table.base)
        staff.login()
        began = time.monotonic()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"],
                                                     "tiebreak": "buchholz"})
        assert next_event(stream) == ("night", {}) and time.monotonic() - began < 2
        for name in TEAMS[:3]:
            staff.call("POST", "/staff/api/night/join", {"team": name})
        staff.call("POST", "/staff/api/night/propose")
        staff.call("POST", "/staff/api/night/confirm")
        staff.call("POST", "/staff/api/night/withdraw", {"team": TEAMS[0]})
        night = json.loads(get(table.base + "/night/standings")[1])["night"]
        assert night["tiebreak"] == "buchholz" and all("buchholz" in line and "margin" in line for line in night["standings"])
        assert [line["withdrawn"] for line in night["standings"] if line["team"] == TEAMS[0]] == [True]
        assert len(night["rounds"][0]["resting"]) == 1
    finally:
        connection.close()
        table.close()


# --- item 6: a workbook, and CSVs one table each -------------------------------------------------------------------

def exported_night(tmp_path) -> Book:
    book = Book(tmp_path / "host")
    book.open("Caffè", ["codenames"], ["1"], bye=0.5)
    for name in ("=1+1", "Quiz Club", "Caffè Nerò"):
        book.join(name)
    made = book.propose()
    book.confirm()
    pair = made.pairs[0]
    book.record(Game("g1", "1", "codenames", pair.teams, pair.red, Termination.ALL_AGENTS_FOUND, 3, None, 1, 1.0))
    return book


def test_the_workbook_has_a_sheet_for_each_table_numbers_as_numbers_and_no_formula_a_guest_typed(tmp_path):
    """Issue 49, item 6: the CSV was three blocks with different headers in one comma file with no
    BOM, which an Italian spreadsheet opens in one column. The night is a workbook (openpyxl), a
    sheet for each table: standings, rounds, games, and the night's settings; read back here."""
    import io

    from openpyxl import load_workbook

    from pi_table.web.night import night_xlsx

    book = exported_night(tmp_path)
    night = book.current()
    workbook = load_workbook(io.BytesIO(night_xlsx(night)))
    assert workbook.sheetnames == ["standings", "rounds", "games", "night"]
    standings = [[cell.value for cell in row] for row in workbook["standings"].iter_rows()]
    assert standings[0][:4] == ["place", "team", "played", "won"]
    lines = night.standings()
    assert [row[1] for row in standings[1:]] == [line.team for line in lines]
    assert [row[7] for row in standings[1:]] == [line.points for line in lines] and 0.5 in [row[7] for row in standings[1:]]
    formula = next(cell for row in workbook["standings"].iter_rows() for cell in row if cell.value == "=1+1")
    assert formula.data_type == "s"  # a guest's team name, never a formula
    rounds = [[cell.value for cell in row] for row in workbook["rounds"].iter_rows()]
    assert rounds[0] == ["round", "table", "red", "blue", "result", "winner"] and rounds[1][0] == 1
    games = [[cell.value for cell in row] for row in workbook["games"].iter_rows()]
    assert games[1][3] == "g1" and games[1][8] == 3
    settings = {row[0].value: row[1].value for row in workbook["night"].iter_rows()}
    assert settings["tie-break"] == "rating" and settings["bye points"] == 0.5 and settings["name"] == "Caffè"
    book.stop()


def test_each_table_is_a_csv_of_its_own_with_a_bom_and_the_pages_languages_separators(tmp_path):
    """One table a file, with a UTF-8 BOM (a spreadsheet reads the accents); in Italian, fields
    separated by ';' and decimals by ',', as an Italian spreadsheet expects; a guest's '=' kept as text."""
    import csv
    import io

    from pi_table.web.night import table_csv

    book = exported_night(tmp_path)
    night = book.current()
    english = table_csv(night, "standings", "en")
    assert english.startswith("\ufeff") and english.count("\n") == 1 + len(night.teams) + 2  # then the tie-break
    rows = list(csv.reader(io.StringIO(english.removeprefix("\ufeff"))))
    assert rows[0][:2] == ["place", "team"] and "'=1+1" in [row[1] for row in rows[1:1 + len(night.teams)]]
    italian = table_csv(night, "standings", "it")
    rows = list(csv.reader(io.StringIO(italian.removeprefix("\ufeff")), delimiter=";"))
    table = rows[:1 + len(night.teams)]
    assert {row[7] for row in table[1:]} >= {"0,5"} and all(len(row) == len(rows[0]) for row in table)
    assert rows[len(table):] == [[], ["tie-break", "rating"]]
    assert "Caffè Nerò" in italian
    assert table_csv(night, "games", "en").removeprefix("\ufeff").startswith("round,table,game,id")
    assert table_csv(night, "rounds", "it").removeprefix("\ufeff").startswith("round;table;red;blue")
    book.stop()


def test_the_staff_page_exports_a_workbook_and_each_table_in_the_pages_language(tmp_path):
    import io
    import urllib.request

    from openpyxl import load_workbook

    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base, lang="it")
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Venerdì", "games": ["codenames"], "tables": ["1"]})
        night_id = staff.call("GET", "/staff/api/night")[1]["night"]["id"]

        def fetch(path: str) -> tuple[int, bytes, dict]:
            from pi_table.web.staff import CSRF_HEADER

            request = urllib.request.Request(table.base + path, headers={"X-Staff-Lang": "it",
                                                                         CSRF_HEADER: str(staff.csrf)})
            try:
                with staff.opener.open(request, timeout=10) as answer:
                    return answer.status, answer.read(), dict(answer.headers)
            except urllib.error.HTTPError as e:
                return e.code, b"", {}

        status, body, headers = fetch(f"/staff/api/night/{night_id}.xlsx")
        assert status == 200 and re.search(r'filename="\w+-\d{4}-\d\d-\d\d\.xlsx"', headers["Content-Disposition"])  # its name
        assert load_workbook(io.BytesIO(body)).sheetnames == ["standings", "rounds", "games", "night"]
        status, body, headers = fetch(f"/staff/api/night/{night_id}/standings.csv")
        assert status == 200 and body.startswith("\ufeff".encode()) and body.decode().startswith("\ufeffplace;team;")
        assert fetch(f"/staff/api/night/{night_id}/secrets.csv")[0] == 404
        assert get_status(table.base + f"/staff/api/night/{night_id}.xlsx") == 401
    finally:
        table.close()


def get_status(url: str) -> int:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def test_drawn_nights_keep_fides_absolute_colour_rules_but_where_a_rematch_would_be_needed(tmp_path, monkeypatch):
    """With round 1 drawn by lot (item 8), 16 of 60 nights of 8 teams over 6 rounds gave a team a
    colour three times running or twice more often than the other: a pair due the same colour was
    coloured without looking at the absolute rules, and the matching weighed such a pair as any
    clash. Now the rule decides a pair's colours first, and a pair that must break it either way
    weighs more than every other clash: 1 of those 60 nights (test_night_director's exact search
    finds each round's breaks unavoidable without a rematch). Draws fixed here, so it is a figure."""
    from pi_table.night import director

    broken = 0
    for k in range(30):
        monkeypatch.setattr(director.secrets, "token_hex", lambda _n, k=k: f"{k:016x}")
        book = Book(tmp_path / f"n{k}")
        book.open("x", ["codenames"], ["1", "2", "3", "4"])
        for name in "ABCDEFGH":
            book.join(name)
        for number in range(1, 7):
            made = book.propose()
            book.confirm()
            for pair in made.pairs:
                book.record(Game(f"{number}-{pair.table}", pair.table, "codenames", pair.teams,
                                 pair.teams[int(pair.red > pair.blue)], Termination.ALL_AGENTS_FOUND, 3, None, number,
                                 float(number)))
        broken += any("red,red,red" in ",".join(seen) or "blue,blue,blue" in ",".join(seen)
                      or abs(seen.count("red") - seen.count("blue")) > 2 for seen in book.current().colours().values())
        book.stop()
    assert broken <= 2, broken


# --- beyond the anchors: a bye asked for, pairing slips -------------------------------------------------------------

def test_a_team_asks_for_a_bye_for_the_next_round_keeps_its_place_and_is_scored_as_the_night_says(tmp_path):
    """As Swiss-Manager and Best Coast Pairings offer: a team steps out of the next round (the
    staff at the desk, with who and when), is not paired in it, and is back after it; the round
    scores what a round missed scores (H here), the sit-out queue counts it, the TRF writes H,
    and a table that follows counts the same."""
    from pi_table.web.night import night_trf

    clock = Clock()
    book = Book(tmp_path / "host", clock=clock)
    book.open("Friday", ["codenames"], ["1", "2"], late=0.5)
    for name in TEAMS:
        book.join(name)
    book.rest(TEAMS[0], "staff · 1a2b3c")
    assert book.current().history[-1] == {"event": "rest", "team": TEAMS[0], "round": 1, "by": "staff · 1a2b3c",
                                           "at": clock.now}
    made = book.propose()
    assert TEAMS[0] not in made.names and len(made.pairs) == 1
    book.rest(TEAMS[1], "staff")
    book.unrest(TEAMS[1], "staff")  # asked, then not
    with pytest.raises(NightRefused, match="has not asked for a bye"):
        book.unrest(TEAMS[1], "staff")
    made = book.propose()
    book.confirm()
    pair = made.pairs[0]
    book.record(Game("g1", pair.table, "codenames", pair.teams, pair.red, Termination.ALL_AGENTS_FOUND, 2, None, 1, 1.0))
    line = next(s for s in book.current().standings() if s.team == TEAMS[0])
    assert (line.missed, line.points, line.byes) == (1, 0.5, 0)
    assert TEAMS[0] in {name for pair in book.propose().pairs for name in pair.teams}  # back, and first to play
    [row] = [row for row in night_trf(book.current()).split("\r\n") if row[14:47].strip() == TEAMS[0]]
    assert row[98] == "H"
    follower = planned_follower(book)
    assert next(s for s in follower.standings() if s.team == TEAMS[0]).points == 0.5
    with pytest.raises(NightRefused, match="no team Nobody is playing in the night"):
        book.rest("Nobody", "staff")
    book.stop()


def planned_follower(book: Book) -> Night:
    from pi_table.fleet.tables import planned

    plan = schema.parse("plan", json.dumps(Recorder(book, "1").plan()).encode())
    follower = planned("1", plan)  # type: ignore[arg-type]
    follower.played = list(book.current().played)
    return follower


def test_the_pairing_slips_of_a_round_print_a_slip_a_table_with_its_colours(tmp_path):
    from pi_table.web.night import slips

    book = opened(tmp_path)
    made = book.propose()
    book.confirm()
    page = slips(book.current(), 1, "it")
    for pair in made.pairs:
        assert f"Tavolo {pair.table}" in page and f"{pair.red}" in page and f"{pair.blue}" in page
    assert page.count('class="slip"') == len(made.pairs) and "Turno 1" in page
    with pytest.raises(NightRefused, match="round 2 is not confirmed"):
        slips(book.current(), 2, "en")
    book.stop()


def test_the_staff_page_gives_a_bye_asked_for_and_prints_a_rounds_slips(tmp_path):
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        assert staff.call("POST", "/staff/api/night/rest", {"team": TEAMS[0]})[0] == 401
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"]})
        for name in TEAMS[:3]:
            staff.call("POST", "/staff/api/night/join", {"team": name})
        assert staff.call("POST", "/staff/api/night/rest", {"team": TEAMS[0]}, csrf="wrong")[0] == 403
        status, answer = staff.call("POST", "/staff/api/night/rest", {"team": TEAMS[0]})
        assert status == 200 and answer["night"]["rests"] == {"1": [TEAMS[0]]}
        assert answer["night"]["history"][-1]["by"].startswith("staff")
        made = staff.call("POST", "/staff/api/night/propose")[1]["night"]["proposal"]
        assert made["resting"] == [] and TEAMS[0] not in made["pairs"][0].values()
        night = staff.call("POST", "/staff/api/night/confirm")[1]["night"]
        status, page = staff.call("GET", f"/staff/api/night/{night['id']}/print?round=1")
        assert status == 200 and page.count('class="slip"') == 1 and "(red, plays first)" in page
        assert staff.call("GET", f"/staff/api/night/{night['id']}/print?round=7")[0] == 409
    finally:
        table.close()
