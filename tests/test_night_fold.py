"""Issue 59: the night is a fold over its events. Each table of a night, a restart and a
recomputation fold the host's events the same way, so a requested bye, an undo, a walk-in or a
hand pairing leave every table with the same night (items 1 to 3 each failed on the code before)."""

from __future__ import annotations

import json

import pytest

from pi_table import config
from pi_table.fleet import schema
from pi_table.night.book import Book
from pi_table.night.games import Game
from pi_table.night.recorder import Recorder
from pi_table.night.state import Night

from helpers import wait_for
from helpers_fleet import heard, host_and_follower, played_at

TEAMS = ("Owls", "Zebras", "Foxes", "Moles", "Quiz Club")
STAFF = "staff · 1a2b3c"


def same(ours: Night | None, theirs: Night | None) -> None:
    """The follower's night is the host's: its rounds, byes asked, history, standings."""
    assert ours is not None and theirs is not None
    assert theirs.rounds == ours.rounds and theirs.rests == ours.rests and theirs.history == ours.history
    assert theirs.since == ours.since and theirs.withdrawn == ours.withdrawn and theirs.closed == ours.closed
    assert [s.to_json() for s in theirs.standings()] == [s.to_json() for s in ours.standings()]
    assert theirs.damage == [] and theirs.events == ours.events  # the host's events, folded


def test_a_bye_asked_then_a_withdrawal_and_an_undo_leave_the_follower_equal_to_its_host(tmp_path):
    """Item 1: Owls ask out of round 2, Zebras withdraw in round 3, round 3 is undone and
    confirmed again: the follower refused every later plan ('no team to rest')."""
    host, at_host, follower = host_and_follower(tmp_path, TEAMS)

    def tell() -> None:
        assert follower.follow("t1", heard(at_host))
        same(host.night, follower.book.night)

    host.propose()
    host.confirm()
    tell()
    host.rest("Owls", STAFF)
    host.propose()
    host.confirm(over=True)
    tell()
    host.withdraw("Zebras", STAFF)
    host.propose()
    host.confirm(over=True)
    tell()
    host.unconfirm(STAFF)
    host.confirm(over=True)
    tell()
    for _ in (4, 5):
        host.propose()
        host.confirm(over=True)
        tell()
    host.close(over=True)
    tell()
    follower.book.stop()
    assert host.night is not None
    again = Book(tmp_path / "t2").night_of(host.night.id)  # a restart: the follower's own file folds the same
    same(host.night, again)


def test_a_walk_in_after_an_undone_round_misses_only_the_rounds_before_it(tmp_path):
    """Item 2: round 3 confirmed, a walk-in joins, round 3 is undone and confirmed again with the
    walk-in in it: it missed rounds 1 and 2 only (it was counted as missing round 3 as well)."""
    host = Book(tmp_path / "t1")
    host.open("Friday league", ["codenames"], ["t1", "t2"], late=0.5)
    for name in TEAMS[:4]:
        host.join(name)
    for _ in range(3):
        host.propose()
        host.confirm(over=True)
    host.join("Late Ones")
    host.unconfirm(STAFF)
    host.propose()
    made = host.confirm(over=True)
    night = host.current()
    assert "Late Ones" in made.names
    assert night.since == {"Late Ones": 2} and night.missed()["Late Ones"] == 2
    late = next(line for line in night.standings() if line.team == "Late Ones")
    assert late.points == 1.0  # two rounds missed at ½, round 3 not played yet
    assert Book(tmp_path / "t1").current().since == {"Late Ones": 2}  # a restart folds the same


def test_a_hand_pairing_leaves_out_a_team_that_asked_out_and_it_scores_what_it_asked(tmp_path):
    """Item 3: a hand round had to name every team, so the team that asked out could only be
    'sitting out', a pairing bye worth a full point, not the ½ it asked for."""
    host = Book(tmp_path / "t1")
    host.open("Friday league", ["codenames"], ["t1", "t2"], late=0.5)
    for name in TEAMS[:4]:
        host.join(name)
    host.rest("Owls", STAFF)
    made = host.pair([{"table": "t1", "red": "Zebras", "blue": "Foxes"}], ["Moles"])
    assert "Owls" not in made.names
    host.confirm()
    points = {line.team: line.points for line in host.current().standings()}
    assert points["Owls"] == 0.5 and points["Moles"] == 1.0  # asked out: H; sat out by the pairing: a bye


def test_a_correction_to_a_closed_night_reaches_the_follower_and_stays_after_its_restart(tmp_path):
    """Issue 59: ``Book.follow`` dropped a closed night's plan, so a result corrected at the host
    after the close never reached the tables that follow."""
    host, at_host, follower = host_and_follower(tmp_path, TEAMS[:4])
    host.propose()
    made = host.confirm()
    host.close(over=True)
    assert follower.follow("t1", heard(at_host))
    pair = made.pairs[0]
    assert host.night is not None
    host.correct(host.night.id, 1, pair.table, "won", STAFF, winner=pair.blue)
    assert follower.follow("t1", heard(at_host)) and not follower.follow("t1", heard(at_host))  # once
    same(host.night, follower.book.night_of(host.night.id))
    assert follower.book.snapshot() is None  # still closed here
    follower.book.stop()
    restarted = Recorder(Book(tmp_path / "t2"), "t2")
    same(host.night, restarted.book.night_of(host.night.id))
    host.correct(host.night.id, 1, pair.table, "won", STAFF, winner=pair.red)  # heard after the restart
    assert restarted.follow("t1", heard(at_host))
    same(host.night, restarted.book.night_of(host.night.id))


@pytest.mark.broker
def test_through_mosquitto_a_bye_a_withdrawal_and_an_undo_leave_the_follower_with_its_hosts_night(broker, tmp_path):
    """Item 1 as the café runs it: host t1 and follower t2 on a real Mosquitto. After the bye,
    the withdrawal and the undo the follower heard rounds 4 and 5 and the close, and its round-4
    game reached the host."""
    from pi_table.fleet.reporter import Reporter

    tables = {name: Recorder(Book(tmp_path / name), name) for name in ("t1", "t2")}
    reporters = {name: Reporter(config.broker(broker.url, table_id=name), act=lambda request: {"ok": True})
                 for name in tables}
    for name, reporter in reporters.items():
        reporter.take_night(tables[name])
    host, follower = tables["t1"].book, tables["t2"]

    def heard_all() -> bool:
        night, ours = follower.book.night, host.night
        return night is not None and ours is not None and night.seq == ours.seq and night.closed == ours.closed

    try:
        for reporter in reporters.values():
            reporter.start()
        host.open("Friday league", ["codenames"], ["t1", "t2"])
        wait_for(lambda: follower.book.offered(), "t1's night on offer to t2", 10)
        follower.book.accept("t1", host.current().code)
        for name in TEAMS:
            host.join(name)
        host.propose()
        host.confirm()
        host.rest("Owls", STAFF)
        host.propose()
        host.confirm(over=True)
        host.withdraw("Zebras", STAFF)
        host.propose()
        host.confirm(over=True)
        host.unconfirm(STAFF)
        host.confirm(over=True)
        host.propose()
        made = host.confirm(over=True)
        wait_for(heard_all, "t2 hearing round 4", 10)
        same(host.night, follower.book.night)
        game = played_at(follower)
        pair = made.pair_at("t2")
        assert game is not None and pair is not None and game.teams == pair.teams and game.round == 4
        wait_for(lambda: game.id in host.current().ids(), "t1 gathering t2's round-4 game", 10)
        host.propose()
        host.confirm(over=True)
        host.close(over=True)
        wait_for(heard_all, "t2 hearing round 5 and the close", 10)
        same(host.night, follower.book.night)
    finally:
        for reporter in reporters.values():
            reporter.stop()
        for table in tables.values():
            table.book.stop()
    again = Book(tmp_path / "t2").night_of(host.night.id)  # type: ignore[union-attr]
    same(host.night, again)


def test_a_team_asks_out_of_rounds_4_and_5_on_the_staff_page_and_scores_what_a_missed_round_scores(tmp_path):
    """The director's tool: "we miss rounds 4 and 5", asked in round 2, taken back for one round,
    kept out of those rounds' pairings (by the book's and by hand), each scoring H at a ½ night."""
    from helpers_staff import Staff
    from helpers_tables import StaffTable

    table = StaffTable(tmp_path, "RRRRRRRRRBBBBBBBBNNNNNNNA")
    try:
        staff = Staff(table.base)
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1", "2"],
                                                      "late": 0.5})
        for name in TEAMS[:4]:
            staff.call("POST", "/staff/api/night/join", {"team": name})
        for _ in range(2):
            staff.call("POST", "/staff/api/night/propose")
            staff.call("POST", "/staff/api/night/confirm", {"over": True})
        for body in ({"team": "Owls", "rounds": [2]}, {"team": "Owls", "rounds": ["4"]}, {"team": "Owls", "rounds": 4},
                     {"team": "Owls", "rounds": [4], "points": 1}, {"team": "Owls", "rounds": [4], "points": True}):
            assert staff.call("POST", "/staff/api/night/rest", body)[0] in (400, 409)  # past, or not numbers
        status, answer = staff.call("POST", "/staff/api/night/rest", {"team": "Owls", "rounds": [4, 5, 6]})
        assert status == 200 and answer["night"]["rests"] == {"4": ["Owls"], "5": ["Owls"], "6": ["Owls"]}
        status, answer = staff.call("POST", "/staff/api/night/unrest", {"team": "Owls", "round": 6})
        assert status == 200 and answer["night"]["rests"] == {"4": ["Owls"], "5": ["Owls"]}
        made = staff.call("POST", "/staff/api/night/propose")[1]["night"]["proposal"]
        assert made["number"] == 3 and "Owls" in [name for pair in made["pairs"] for name in (pair["red"], pair["blue"])]
        staff.call("POST", "/staff/api/night/confirm", {"over": True})
        made = staff.call("POST", "/staff/api/night/propose")[1]["night"]["proposal"]
        assert made["number"] == 4 and "Owls" not in [name for pair in made["pairs"] for name in (pair["red"], pair["blue"])]
        assert "Owls" not in made["resting"]
        staff.call("POST", "/staff/api/night/confirm", {"over": True})
        others = TEAMS[1:4]
        status, answer = staff.call("POST", "/staff/api/night/pair", {
            "pairs": [{"table": "1", "red": others[0], "blue": others[1]}], "resting": [others[2]]})
        assert status == 200, answer
        night = staff.call("POST", "/staff/api/night/confirm", {"over": True})[1]["night"]
        owls = next(line for line in night["standings"] if line["team"] == "Owls")
        assert owls["missed"] == 2 and owls["points"] == 1.0  # rounds 4 and 5 at ½ each; no game recorded
    finally:
        table.close()


def test_a_plan_from_a_host_before_the_events_is_still_followed_and_an_old_followers_file_still_loads(tmp_path):
    """The format is extended, not broken: a host before issue 59 sends no ``events``, and a
    follower's file from then holds plan lines without them; both still make the host's night."""
    host, at_host, follower = host_and_follower(tmp_path, TEAMS[:4])
    host.rest("Owls", STAFF)
    host.propose()
    host.confirm()
    host.withdraw("Zebras", STAFF)
    old = {key: value for key, value in heard(at_host).items() if key != "events"}
    assert follower.follow("t1", old)
    theirs = follower.book.night
    assert theirs is not None and theirs.events == []  # nothing to fold: the plan's state, its history replayed
    assert theirs.rounds == host.current().rounds and theirs.rests == host.current().rests
    assert theirs.withdrawn == {"Zebras"} and theirs.history == host.current().history
    follower.book.stop()
    again = Book(tmp_path / "t2")  # its file holds the old plan's line
    assert again.night is not None and again.night.damage == [] and again.night.rounds == host.current().rounds
    assert [s.to_json() for s in again.night.standings()] == [s.to_json() for s in host.current().standings()]


def test_a_bye_asked_for_scores_half_or_zero_as_the_director_chose_at_every_table_and_in_the_trf(tmp_path):
    """Issue 59: a bye asked for scored the night's "round missed" whatever the director chose for
    it; each now scores its own choice, ½ (H) or 0 (Z), at the host, at the follower, after a
    restart and in the TRF, and one asked without a choice still scores the night's ``late``."""
    from pi_table.night.events import NightRefused
    from pi_table.web.night import night_trf

    host, at_host, follower = host_and_follower(tmp_path, (*TEAMS, "Bar Flies"))
    host.rest("Owls", STAFF, [1], points=0.5)
    host.rest("Zebras", STAFF, [1], points=0.0)
    host.rest("Foxes", STAFF, [1])  # no choice: the night's late, 0 here
    with pytest.raises(NightRefused):
        host.rest("Moles", STAFF, [1], points=1.0)
    host.propose()
    host.confirm()
    assert follower.follow("t1", heard(at_host))
    points = {line.team: line.points for line in host.current().standings()}
    assert (points["Owls"], points["Zebras"], points["Foxes"]) == (0.5, 0.0, 0.0)
    same(host.night, follower.book.night)
    codes = {row[14:47].strip(): row[98] for row in night_trf(host.current()).split("\r\n") if row.startswith("001 ")}
    assert (codes["Owls"], codes["Zebras"], codes["Foxes"]) == ("H", "Z", "Z")
    follower.book.stop()
    again = Book(tmp_path / "t2").night_of(host.current().id)
    same(host.night, again)


def test_undoing_a_round_drops_its_results_and_games_on_every_table_and_a_late_game_of_it_never_counts(tmp_path):
    """Issue 59: undo of the last round refused a round with a game or a result; Swiss-Manager
    deletes the last round with its results. Undone at the host, its results go on every table,
    a follower's game of it counts no more there, the same game told of later is refused at the
    host, and the round paired again is played afresh; a restart folds the same."""
    host, at_host, follower = host_and_follower(tmp_path, TEAMS[:4])
    host.propose()
    made = host.confirm()
    assert follower.follow("t1", heard(at_host))
    game = played_at(follower)
    assert game is not None and game.round == 1 and game.pairing == 0
    at_t1 = made.pair_at("t1")
    assert at_t1 is not None
    host.result(1, "t1", "won", STAFF, winner=at_t1.red)
    assert len(host.current().slots()) == 1  # the staff's result; the follower's game not told yet
    host.unconfirm(STAFF)
    assert host.current().results == {} and host.current().slots() == {}
    host.confirm()
    assert follower.follow("t1", heard(at_host))
    same(host.night, follower.book.night)
    assert follower.book.current().slots() == {}  # its game of the undone pairing counts no more
    assert host.gather(host.current().id, "t2", [game]) == []  # told of late: refused
    assert all(line.points == 0.0 for line in host.current().standings())
    again = played_at(follower, seed=2)  # round 1 as paired again, played afresh
    assert again is not None and again.pairing == 1
    assert host.gather(host.current().id, "t2", [again]) == [again]
    assert len(host.current().slots()) == 1
    follower.book.stop()
    same(host.night, Book(tmp_path / "t2").night_of(host.current().id))


def test_a_game_written_before_pairings_were_counted_still_loads_and_counts(tmp_path):
    """An old night file's game has no ``pairing``: it is its round's, as it always was."""
    host = Book(tmp_path / "t1")
    host.open("Friday league", ["codenames"], ["t1", "t2"])
    for name in TEAMS[:4]:
        host.join(name)
    host.propose()
    pair = host.confirm().pairs[0]
    old = {"id": "g1", "table": pair.table, "game": "codenames", "teams": list(pair.teams), "winner": pair.red,
           "termination": "all_agents_found", "margin": 1, "score": None, "round": 1, "at": 1.0}
    assert host.record(Game.from_json(old))
    host.stop()
    again = Book(tmp_path / "t1").current()
    assert again.damage == [] and [s.points for s in again.standings() if s.team == pair.red] == [1.0]


def test_a_game_of_a_round_played_before_the_close_and_told_of_after_it_counts_at_the_host(tmp_path):
    """Issue 59: a follower offline at the close played its round's game meanwhile; told of after
    the close it was refused (collecting refused a closed night), so its pair counted nothing.
    The host's closed night takes it as a correction, kept across a restart."""
    host, at_host, follower = host_and_follower(tmp_path, TEAMS[:4])
    host.propose()
    host.confirm()
    assert follower.follow("t1", heard(at_host))
    game = played_at(follower)  # the broker is down: the host hears nothing of it
    assert game is not None
    night_id = host.current().id
    host.close(over=True)
    assert follower.follow("t1", heard(at_host))  # back: the closed plan
    report = schema.parse("night", json.dumps(follower.report()).encode())  # as the broker hands it over
    assert at_host.gather("t2", report) == [game]  # type: ignore[arg-type]
    assert at_host.gather("t2", report) == []  # type: ignore[arg-type]  # once
    counted = host.night_of(night_id)
    assert (1, "t2") in counted.slots() and counted.closed is not None
    host.stop()
    again = Book(tmp_path / "t1").night_of(night_id)
    assert again.damage == [] and (1, "t2") in again.slots()


def report_of(recorder: Recorder) -> dict:
    """A table's night report as another table reads it off the broker: JSON, through the declared schema."""
    return schema.parse("night", json.dumps(recorder.report()).encode())  # type: ignore[return-value]


def test_a_game_told_again_after_the_close_is_the_one_the_night_folded_at_every_table(tmp_path):
    """CI's night machine: a game told again after the close (a retained report handed over again,
    a table back after an outage) is one the night folded already, at the host and at the
    follower, before and after a restart: nothing is written, nothing is raised."""
    host, at_host, follower = host_and_follower(tmp_path, TEAMS[:4])
    host.propose()
    host.confirm()
    assert follower.follow("t1", heard(at_host))
    theirs, ours = played_at(follower), played_at(at_host, seed=2)
    assert theirs is not None and ours is not None
    assert at_host.gather("t2", report_of(follower)) == [theirs]
    assert follower.gather("t1", report_of(at_host)) == [ours]
    host.close()
    assert follower.follow("t1", heard(at_host))
    told = {"t1": report_of(at_host), "t2": report_of(follower)}
    books = {path: path.read_bytes() for path in tmp_path.rglob("*.jsonl")}
    for _ in ("as they are", "after a restart"):
        assert at_host.gather("t2", told["t2"]) == [] and follower.gather("t1", told["t1"]) == []
        assert {path: path.read_bytes() for path in tmp_path.rglob("*.jsonl")} == books
        at_host.book.stop()
        follower.book.stop()
        at_host, follower = Recorder(Book(tmp_path / "t1"), "t1"), Recorder(Book(tmp_path / "t2"), "t2")
    assert at_host.book.night is None and follower.book.night is None


def test_a_game_of_a_night_open_in_its_file_but_not_here_is_written_into_no_night(tmp_path, caplog):
    """A closed night whose close line was damaged folds as open, though no night is open here.
    A game of it told of later raised NightRefused ('no night is open') in the fleet's thread, or,
    with another night open here, was written into that night's file. Now no night keeps it,
    and the log says why."""
    host, at_host, follower = host_and_follower(tmp_path, TEAMS[:4])
    host.propose()
    host.confirm()
    assert follower.follow("t1", heard(at_host))
    assert played_at(follower) is not None  # the broker is down: the host hears nothing of it
    night_id = host.current().id
    host.close(over=True)
    host.stop()
    path = tmp_path / "t1" / f"{night_id}.jsonl"
    data = path.read_bytes()
    close = data.rindex(b'"close"')
    damaged = data[:close] + b'"closed"' + data[close + len(b'"close"'):]  # its checksum no longer holds
    path.write_bytes(damaged)
    at_host = Recorder(Book(tmp_path / "t1"), "t1")
    assert at_host.book.night is None and at_host.book.night_of(night_id).open
    report = report_of(follower)
    assert at_host.gather("t2", report) == []
    at_host.book.open("Saturday", ["codenames"], ["t1", "t2"])
    for name in TEAMS[:4]:
        at_host.book.join(name)
    assert at_host.gather("t2", report) == []
    assert at_host.book.current().played == [] and path.read_bytes() == damaged
    assert f"games of the night {night_id}, which is neither open here nor closed" in caplog.text


def test_a_game_of_an_undone_pairing_is_in_no_games_list_nor_export_and_cannot_be_credited(tmp_path):
    """A game of a round as it was paired before an undo counts for nothing (above), so the staff
    page's recorded games, the CSV's and the workbook's games and the results form's "this
    recorded game" list it no more; the game of the round paired again is listed."""
    from pi_table.night.events import NightRefused
    from pi_table.web.night import night_csv, night_tables

    host, at_host, follower = host_and_follower(tmp_path, TEAMS[:4])
    host.propose()
    host.confirm()
    assert follower.follow("t1", heard(at_host))
    undone = played_at(follower)
    assert undone is not None and host.gather(host.current().id, "t2", [undone]) == [undone]
    host.unconfirm(STAFF)
    host.confirm()
    again = played_at(follower, seed=2) if follower.follow("t1", heard(at_host)) else None
    assert again is not None and host.gather(host.current().id, "t2", [again]) == [again]
    for night in (host.current(), follower.book.current()):
        assert [game["id"] for game in night.to_json()["games_played"]] == [again.id]  # type: ignore[attr-defined]
        assert [row[3] for row in night_tables(night)["games"][1:]] == [again.id]
        assert undone.id not in night_csv(night) and again.id in night_csv(night)
    with pytest.raises(NightRefused, match=f"no game {undone.id} between two teams"):
        host.result(1, "t2", "game", STAFF, game=undone.id)
