"""Issue 76, item 11: a mistyped team renamed by the director, an event of the night's journal:
every part of the night (rounds, results, byes, standings) names it anew, at the host, after a
restart, at the tables that follow and in what the league is sent; a game told later under the
old name still counts."""

from __future__ import annotations

import pytest

from pi_table.engine.endings import Termination
from pi_table.fleet.league import record
from pi_table.night.book import Book
from pi_table.night.events import NightRefused
from pi_table.night.games import Game
from pi_table.night.names import NameRefused
from pi_table.night.pairing import key
from pi_table.night.state import fold

from helpers_fleet import heard, host_and_follower
from helpers_staff import Staff
from helpers_tables import StaffTable

STAFF = "staff · 1a2b3c"
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def a_game(made, table: str, winner: int = 0, game_id: str | None = None) -> Game:
    pair = made.pair_at(table)
    return Game(game_id or f"r{made.number}-{table}", table, "codenames", pair.teams, pair.teams[winner],
                Termination.ALL_AGENTS_FOUND, 3, None, made.number, 1000.0 * made.number + len(table))


def test_a_renamed_team_is_named_anew_everywhere_in_the_night_and_after_a_restart(tmp_path):
    book = Book(tmp_path)
    book.open("Friday", ["codenames"], ["1", "2"])
    for name in ("Olws", "Foxes", "Moles", "Bats", "Cats"):
        book.join(name)
    book.apart("Olws", "Foxes", STAFF)
    made = book.propose()
    book.confirm()
    for pair in made.pairs:
        assert book.record(a_game(made, pair.table, winner=0 if "Olws" == pair.red else 1))
    book.rest("Olws", STAFF, points=0.5)
    with pytest.raises(NameRefused, match="joined already"):
        book.rename("Olws", "foxes", STAFF)
    with pytest.raises(NightRefused, match="no team Owl"):
        book.rename("Owl", "Owls", STAFF)
    book.rename("Olws", "Owls", STAFF)
    night = book.current()
    assert list(night.teams) == ["Owls", "Foxes", "Moles", "Bats", "Cats"]  # its place in the order it joined
    assert "Olws" not in str(night.rounds) and "Owls" in night.rounds[0].names
    assert night.apart == {key("Owls", "Foxes")} and night.rests[2] == {"Owls"} and night.rest_points[(2, "Owls")] == 0.5
    assert all("Olws" not in game.teams and game.winner != "Olws" for game in night.played)
    owls = next(line for line in night.standings() if line.team == "Owls")
    assert owls.points >= 1 and {line.team for line in night.standings()} == set(night.teams)
    assert night.history[-1] == {"event": "rename", "team": "Olws", "to": "Owls", "by": STAFF,
                                 "at": night.history[-1]["at"]}
    bats_won = next(line for line in book.current().standings() if line.team == "Bats").won  # round 1's pairs are drawn
    book.rename("Bats", "Olws", STAFF)  # the old name taken by another team: a game under it is that team's now
    made = book.propose()
    book.confirm()
    pair = next(pair for pair in made.pairs if "Olws" in pair.teams)
    assert book.record(a_game(made, pair.table, winner=pair.teams.index("Olws")))
    assert next(line for line in book.current().standings() if line.team == "Olws").won == bats_won + 1
    night = book.current()
    book.stop()
    again = Book(tmp_path).current()
    assert again.teams.keys() == night.teams.keys() and [s.to_json() for s in again.standings()] == [
        s.to_json() for s in night.standings()]


def test_a_team_that_joins_under_a_name_renamed_away_wins_its_own_games(tmp_path):
    """Found by the fold machine's rename rule (issue 76, item 11): a team renamed from "Owls",
    then a new team joining as "Owls", had each of its games counted for the renamed team (the
    old name still mapped to the new one), at the host and at every table that folds the plan."""
    book = Book(tmp_path)
    book.open("Friday", ["codenames"], ["1", "2"])
    for name in ("Owls", "Foxes", "Moles"):
        book.join(name)
    book.propose()
    book.confirm()
    book.rename("Owls", "Owls II", STAFF)
    book.join("Owls")
    made = book.propose()
    book.confirm(over=True)
    pair = next(pair for pair in made.pairs if "Owls" in pair.teams)
    assert book.record(a_game(made, pair.table, winner=pair.teams.index("Owls")))
    for night in (book.current(), fold(book.current().id, book.current().events)):
        assert night.renamed == {}
    owls = next(line for line in book.current().standings() if line.team == "Owls")
    assert (owls.won, owls.played) == (1, 1)
    book.stop()


def test_a_follower_and_the_league_get_the_new_name_and_a_game_told_late_under_the_old_one_counts(tmp_path):
    host, at_host, follower = host_and_follower(tmp_path, ("Olws", "Foxes", "Moles", "Bats"))
    made = host.propose()
    host.confirm()
    assert follower.follow("t1", heard(at_host))
    late = a_game(made, "t2")  # played at t2 under the names it was dealt with, told the host after the rename
    assert follower.book.record(late)
    host.rename("Olws", "Owls", "staff")
    assert follower.follow("t1", heard(at_host))
    assert list(follower.book.current().teams) == list(host.current().teams)
    assert host.gather(host.current().id, "t2", [late]) and len(host.current().played) == 1
    renamed = {"Olws": "Owls"}
    assert host.current().played[0].teams == tuple(renamed.get(name, name) for name in late.teams)
    assert follower.follow("t1", heard(at_host))
    assert [s.to_json() for s in follower.book.current().standings()] == [
        s.to_json() for s in host.current().standings()]
    night_id = host.close(over=True).id
    sent = record(host.night_of(night_id), "bar-roma", "t1")  # what the league is sent, as today: the events and the games
    assert sent is not None
    league = fold(night_id, sent["events"])  # type: ignore[arg-type]
    assert "Owls" in league.teams and "Olws" not in league.teams
    assert all("Olws" not in game["teams"] for game in sent["games"])  # type: ignore[attr-defined]
    follower.book.stop()
    host.stop()


def test_the_staff_page_renames_a_team_behind_its_checks(tmp_path):
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        assert staff.call("POST", "/staff/api/night/rename", {"team": "Olws", "to": "Owls"})[0] == 401
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"]})
        for name in ("Olws", "Foxes"):
            staff.call("POST", "/staff/api/night/join", {"team": name})
        assert staff.call("POST", "/staff/api/night/rename", {"team": "Olws", "to": "Owls"}, csrf="wrong")[0] == 403
        status, answer = staff.call("POST", "/staff/api/night/rename", {"team": "Olws"})
        assert status == 400 and "expected" in answer["error"]
        status, answer = staff.call("POST", "/staff/api/night/rename", {"team": "Olws", "to": "FOXES"})
        assert status == 409 and "joined already" in answer["error"]
        status, answer = staff.call("POST", "/staff/api/night/rename", {"team": "Olws", "to": "  Owls "})
        assert status == 200 and [team["name"] for team in answer["night"]["teams"]] == ["Owls", "Foxes"]
        entry = answer["night"]["history"][-1]
        assert (entry["event"], entry["team"], entry["to"]) == ("rename", "Olws", "Owls")
        assert entry["by"].startswith("staff · ")
    finally:
        table.close()
