"""Issue 76, item 11: the night's cross-table on its printed page and on the spectators' TV, each
team's row with its result against each opponent by round, from the same standings (no second
computation of results)."""

from __future__ import annotations

import json
import re

from pi_table.engine.endings import Termination
from pi_table.night.book import Book
from pi_table.night.games import Game
from pi_table.web.night import printable

from helpers_phones import get
from helpers_staff import Staff
from helpers_tables import StaffTable

STAFF = "staff · 1a2b3c"
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def play(book: Book, number: int, table: str, winner: int = 0) -> None:
    pair = book.current().rounds[number - 1].pair_at(table)
    assert pair is not None
    assert book.record(Game(f"r{number}-{table}", table, "codenames", pair.teams, pair.teams[winner],
                            Termination.ALL_AGENTS_FOUND, 3, None, number, 1000.0 * number + len(table)))


def evening(folder) -> Book:
    """Three rounds: games, a forfeit, a void pair, a bye of the pairing, a bye asked for (½), a
    walk-in after round 1 (its round 1 missed, Z), and round 3 still played at one table."""
    book = Book(folder)
    book.open("Friday", ["codenames"], ["1", "2"], bye=1)
    for name in ("Owls", "Foxes", "Moles", "Bats", "Cats"):
        book.join(name)
    book.propose()
    book.confirm()
    play(book, 1, "1")
    book.result(1, "2", "forfeit", STAFF, winner=book.current().rounds[0].pair_at("2").blue)  # type: ignore[union-attr]
    book.join("Late Ones")
    book.rest("Owls", STAFF, points=0.5)
    book.propose()
    book.confirm()
    play(book, 2, "1", winner=1)
    book.result(2, "2", "void", STAFF)
    book.propose()
    book.confirm()
    play(book, 3, "1")  # table 2 still plays round 3
    return book


def test_the_printed_cross_table_rows_follow_the_standings_and_each_round_scores_what_they_count(tmp_path):
    book = evening(tmp_path)
    night = book.current()
    lines = night.standings()
    page = printable(night, "en")
    crossed = page[page.index("<h2>Cross-table</h2>"):]
    rows = re.findall(r"<tr><td>(\d+)\. ([^<]+)</td>((?:<td>[^<]*</td>)+)</tr>", crossed)
    assert [(int(n), team) for n, team, _ in rows] == [(n, line.team) for n, line in enumerate(lines, start=1)]
    row = {team: int(n) for n, team, _ in rows}
    cells = {team: re.findall(r"<td>([^<]*)</td>", text) for _, team, text in rows}
    still = night.rounds[2].pair_at("2").teams  # type: ignore[union-attr]
    for line in lines:
        said = cells[line.team]
        assert len(said) == 3
        points = 0.0
        for number, cell in enumerate(said, start=1):
            opponent, result = cell.split(" ")
            if opponent != "–":  # an opponent: its row names this team back in the same round
                back = cells[rows[int(opponent) - 1][1]][number - 1]
                assert back.split(" ")[0] == str(row[line.team])
            marks = {"+": 1.0, "−": 0.0, "…": 0.0}  # a forfeit won or lost, still played
            points += marks[result] if result in marks else float(result)
            if result == "…":
                assert number == 3 and line.team in still
        assert points == line.points  # the cross-table scores what the standings count
    assert cells["Owls"][1] == "– 0.5"  # the bye it asked for, ½
    assert cells["Late Ones"][0] == "– 0"  # the round it missed by joining late
    assert "+ or − a forfeit" in page
    italian = printable(night, "it")
    assert "<h2>Tabellone</h2>" in italian
    # the print's numbers in its language, as the TV writes them: "0,5" and a rating "3,4", never "0.5"
    assert "– 0,5</td>" in italian  # Owls' bye
    assert re.findall(r"<td>[^<]*\d\.\d[^<]*</td>", italian) == []
    assert re.findall(r"<td>-?\d+\.\d</td>", page)  # the English page's rating: "3.4"
    book.stop()


def test_the_tv_shows_the_cross_table_of_its_standings(tmp_path):
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"]})
        for name in ("Owls", "Foxes", "Moles"):
            staff.call("POST", "/staff/api/night/join", {"team": name})
        status, public = get(table.base + "/night/standings")
        assert status == 200 and json.loads(public)["night"]["crosstable"] == [
            {"team": line["team"], "rounds": []} for line in json.loads(public)["night"]["standings"]]
        staff.call("POST", "/staff/api/night/propose")
        made = staff.call("POST", "/staff/api/night/confirm")[1]["night"]["rounds"][0]
        pair = made["pairs"][0]
        staff.call("POST", "/staff/api/night/result", {"round": 1, "table": "1", "result": "forfeit",
                                                       "winner": pair["blue"]})
        shown = json.loads(get(table.base + "/night/standings")[1])["night"]
        row = {line["team"]: n for n, line in enumerate(shown["standings"], start=1)}
        crossed = {line["team"]: line["rounds"] for line in shown["crosstable"]}
        assert [line["team"] for line in shown["crosstable"]] == list(row)
        assert crossed[pair["blue"]] == [{"opponent": row[pair["red"]], "scored": 1.0, "forfeit": True}]
        assert crossed[pair["red"]] == [{"opponent": row[pair["blue"]], "scored": 0.0, "forfeit": True}]
        assert crossed[made["resting"][0]] == [{"opponent": None, "scored": 1.0, "forfeit": False}]
    finally:
        table.close()
