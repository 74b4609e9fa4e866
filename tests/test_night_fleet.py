"""A game night across the café's tables on the fleet's dashboard: each table's night topic read
against its declared schema, every game counted once whoever tells it and however often, a bad
message dropped and counted on its table's row, and the standings the same computation as the
table's own; through a real Mosquitto, a table that was offline sends its night when it is back."""

from __future__ import annotations

import json

import pytest

from pi_table import config
from pi_table.engine.endings import Termination
from pi_table.fleet.dashboard import Fleet
from pi_table.night.book import Book
from pi_table.night.games import Game
from pi_table.night.recorder import Recorder
from pi_table.night.standings import standings

from helpers import wait_for


def game(n: int, red: str, blue: str, winner: str | None, table: str = "t1", round_: int = 1) -> Game:
    return Game(f"g{n}", table, "codenames", (red, blue), winner, Termination.ALL_AGENTS_FOUND, 3, None, round_,
                1_700_000_000.0 + n)


def told(*games: Game, teams=("Owls", "Quiz Club", "Foxes", "Moles"), night="20250101-200000") -> bytes:
    return json.dumps({"night": night, "name": "Friday league", "open": True, "teams": list(teams),
                       "games": [g.to_json() for g in games]}).encode()


def test_the_dashboard_counts_each_game_once_and_ranks_as_the_table_does():
    fleet = Fleet()
    heard: list[dict] = []
    fleet.night_changed = heard.append
    first, second, third = game(1, "Owls", "Quiz Club", "Owls"), game(2, "Foxes", "Moles", None, table="t2"), \
        game(3, "Owls", "Foxes", "Foxes", table="t2", round_=2)
    fleet.take("pi-table/t1/night", told(first))
    fleet.take("pi-table/t1/night", told(first))  # sent again at a reconnect
    fleet.take("pi-table/t2/night", told(second, third))
    fleet.take("pi-table/t2/night", told(second, third))
    night = fleet.night()
    assert night is not None and night["games"] == ["g1", "g2", "g3"] and night["tables"] == ["t1", "t2"]
    expected = standings(["Owls", "Quiz Club", "Foxes", "Moles"], [first, second, third])
    assert night["standings"] == [line.to_json() for line in expected]
    assert heard[-1] == night


def test_a_game_a_table_claims_for_another_is_its_own_and_counted_once():
    fleet = Fleet()
    fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls")))
    fleet.take("pi-table/t2/night", told(game(1, "Owls", "Quiz Club", "Quiz Club", table="t1")))
    night = fleet.night()
    assert night is not None and night["games"] == ["g1"] and night["standings"][0]["team"] == "Owls"


@pytest.mark.parametrize(("payload", "why"), [
    (b"not json", "night should be JSON in UTF-8 of at most 256 KB"),
    (json.dumps({"night": "n", "name": "x", "open": True, "teams": [], "games": [{"id": "g"}]}).encode(),
     "night.games[0].table should be a text of at most 100 characters"),
    (told(game(1, "Owls", "Quiz Club", "Owls")).replace(b"all_agents_found", b"a sentence"),
     "night.games[0].termination should be one of"),
    (told(game(1, "Owls", "Quiz Club", "Owls")).replace(b'"winner": "Owls"', b'"winner": "Moles"'),
     "the winner is one of the game's teams"),
    (told(game(1, "Owls", "Quiz Club", "Owls")).replace(b'"Quiz Club"], "winner"', b'"Owls"], "winner"'),
     "a game of codenames is played by 2 different teams"),
])
def test_a_bad_night_message_is_dropped_and_counted_on_its_tables_row(payload, why):
    fleet = Fleet()
    fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls")))
    row = fleet.take("pi-table/t1/night", payload)
    assert row is not None and row["dropped"] == 1 and row["dropped_why"].startswith(why)
    night = fleet.night()
    assert night is not None and night["games"] == ["g1"]  # what it had counted stays


def test_the_latest_night_is_shown_and_only_a_few_are_kept():
    fleet = Fleet()
    for day in range(1, 6):
        fleet.take("pi-table/t1/night", told(game(day, "Owls", "Quiz Club", "Owls"), night=f"2025010{day}-200000"))
    night = fleet.night()
    assert night is not None and night["night"] == "20250105-200000" and night["games"] == ["g5"]
    assert len(fleet.nights) == 3


def test_the_recorder_reports_the_night_and_only_this_tables_games(tmp_path):
    book = Book(tmp_path)
    recorder = Recorder(book, "t1")
    assert recorder.report() is None
    book.open("Friday league", ["codenames"], ["t1", "t2"])
    for name in ("Owls", "Quiz Club", "Foxes", "Moles"):
        book.join(name)
    book.record(game(1, "Owls", "Quiz Club", "Owls"))
    book.record(game(2, "Foxes", "Moles", "Moles", table="t2"))
    report = recorder.report()
    assert report is not None and [g["id"] for g in report["games"]] == ["g1"] and report["open"]
    assert report["teams"] == ["Owls", "Quiz Club", "Foxes", "Moles"]
    fleet = Fleet()
    fleet.take("pi-table/t1/night", json.dumps(report).encode())
    assert fleet.night()["games"] == ["g1"]  # type: ignore[index]


@pytest.mark.broker
def test_a_table_offline_sends_its_night_when_it_is_back_and_a_new_dashboard_learns_it(broker, tmp_path):
    from pi_table.fleet.dashboard import Dashboard, hash_password
    from pi_table.fleet.reporter import Reporter

    settings = config.broker(broker.url, table_id="t1")
    first = game(1, "Owls", "Quiz Club", "Owls")
    report = json.loads(told(first))
    table = Reporter(settings, act=lambda request: {"ok": True})
    table.night(report)  # recorded while the broker was away: nothing to send yet
    dashboard = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password("x" * 8), client_id="dash-1")
    dashboard.start()
    try:
        table.start()
        wait_for(lambda: (dashboard.fleet.night() or {}).get("games") == ["g1"], "t1's night on the dashboard", 10)
        report["games"].append(game(2, "Foxes", "Moles", "Moles").to_json())
        table.night(report)
        wait_for(lambda: dashboard.fleet.night()["games"] == ["g1", "g2"], "the second game", 10)  # type: ignore[index]
    finally:
        table.stop()
        dashboard.stop()
    again = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password("x" * 8), client_id="dash-2")
    again.start()  # a dashboard started later: the night is retained at the broker
    try:
        wait_for(lambda: (again.fleet.night() or {}).get("games") == ["g1", "g2"], "the retained night", 10)
    finally:
        again.stop()


def test_a_night_keeps_so_many_games_a_table_and_counts_the_rest_as_dropped(monkeypatch):
    """A night keeps ``GAMES_A_NIGHT`` games of each table: one telling of new games without end
    costs no more memory and takes no other table's place; what it sent past that is counted."""
    from pi_table.fleet import dashboard

    monkeypatch.setattr(dashboard, "GAMES_A_NIGHT", 4)
    fleet = Fleet()
    row = fleet.take("pi-table/t1/night", told(*(game(n, "Owls", "Foxes", "Owls") for n in range(1, 4))))
    assert row["dropped"] == 0
    row = fleet.take("pi-table/t1/night", told(*(game(n, "Owls", "Foxes", "Owls") for n in range(1, 7))))
    assert row["dropped"] == 1 and "one table can play in a night: not counted" in row["dropped_why"]
    assert fleet.take("pi-table/t1/night", told(game(2, "Owls", "Foxes", "Owls")))["dropped"] == 1  # a known game: taken
    row = fleet.take("pi-table/t2/night", told(*(game(n, "Quiz Club", "Moles", "Moles", table="t2") for n in range(7, 10))))
    assert row["dropped"] == 0  # the other table's games still count
    night = fleet.night()
    assert night is not None and night["games"] == ["g1", "g2", "g3", "g4", "g7", "g8", "g9"]
