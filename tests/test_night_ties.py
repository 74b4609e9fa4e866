"""The night's tie-breaks and a director's tools around them (issue 59, item 4): Buchholz as FIDE's
tie-break regulations (C.07, 2023) count an opponent that withdrew, the tie-breaks a director
orders, places shared by teams still tied, round 1 seeded top half against bottom half, the deal
that follows the pairing's colours, and closing while tables still play.

The expected values are worked out here from FIDE's rules, round by round, never from the code
under test."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pi_table.engine.endings import Termination
from pi_table.engine.keys import ASSASSIN, RED_AGENT
from pi_table.night import scoring
from pi_table.night.book import Book
from pi_table.night.events import NightRefused
from pi_table.night.games import Game
from pi_table.web.night import (
    night_csv,
    night_xlsx,
    printable,
    table_csv,
    tiebreak_choices,
    tiebreak_words,
    tiebreaks_shown,
)

from helpers import wait_for
from helpers_staff import Staff
from helpers_tables import StaffTable

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


def hosted(tmp_path, teams, tables=("1", "2"), **options) -> Book:
    book = Book(tmp_path / "host")
    book.open("Friday", ["codenames"], list(tables), **options)
    for name in teams:
        book.join(name)
    return book


def by_hand(book: Book, pairs: list[tuple[str, str, str]], resting: list[str] = []) -> None:  # noqa: B006
    """The next round paired by hand and confirmed: ``pairs`` each (table, red, blue)."""
    book.pair([{"table": t, "red": red, "blue": blue} for t, red, blue in pairs], resting)
    book.confirm(over=True)


def won(book: Book, number: int, table: str, winner: str | None) -> None:
    pair = book.current().rounds[number - 1].pair_at(table)
    assert pair is not None
    book.record(Game(f"{number}-{table}", table, "codenames", pair.teams, winner, Termination.ALL_AGENTS_FOUND, 2,
                     None, number, 100.0 * number))


# --- FIDE's Buchholz family, worked out from the rules --------------------------------------------------------------
# A team's record is one entry a round: (opponent or None, points it scored, kind); kind is "game"
# (played at a table), "bye" (the pairing's), "won" (by forfeit), "lost" (by forfeit, or a double
# loss), "asked" (a bye it asked for, or a round it missed by joining late) or "away" (withdrawn).
# Art. 16.2: the rounds a team did not play by its own doing ("lost", "asked", "away") are its
# voluntarily unplayed rounds (VUR).
VOLUNTARY = ("lost", "asked", "away")


def fide_points(record) -> float:
    return sum(scored for _, scored, _ in record)


def fide_adjusted(record) -> float:
    """Art. 16.3.2: the score of an opponent, its rounds without an opponent after the last one it
    played (or had the pairing's bye in) counted as draws."""
    last = max((n for n, (_, _, kind) in enumerate(record) if kind in ("game", "bye", "won")), default=-1)
    return sum(DRAW if n > last and opponent is None and kind in ("asked", "away") else scored
               for n, (opponent, scored, kind) in enumerate(record))


def fide_values(records, name) -> list[tuple[float, float, bool]]:
    """Each round's (value, points scored, voluntarily unplayed): a game's value is the opponent's
    adjusted score; an unplayed round's a dummy opponent with the team's own points (art. 16.4)."""
    own = fide_points(records[name])
    return [(fide_adjusted(records[opponent]) if opponent is not None else own, scored, kind in VOLUNTARY)
            for opponent, scored, kind in records[name]]


def fide_buchholz(records, name, cut_low=0, cut_high=0) -> float:
    """Buchholz, less its ``cut_low`` least significant values (the voluntarily unplayed rounds
    first, art. 16.5) and its ``cut_high`` most significant: Cut-1 is (1, 0), the Median (1, 1)."""
    values = fide_values(records, name)
    for _ in range(cut_low):
        values.remove(min(values, key=lambda v: (not v[2], v[0])))
    for _ in range(cut_high):
        values.remove(max(values, key=lambda v: v[0]))
    return sum(value for value, _, _ in values)


def fide_sonneborn_berger(records, name) -> float:
    return sum(value * scored for value, scored, _ in fide_values(records, name))


def test_an_opponent_that_withdrew_counts_its_rounds_away_as_draws_in_buchholz(tmp_path):
    """Owls beat Zebras, who then withdraw: FIDE counts the Zebras' two rounds away as draws in
    the Owls' Buchholz (art. 16.3.2), so Zebras count 1.0 there, not 0."""
    book = hosted(tmp_path, ("Owls", "Zebras", "Foxes", "Moles"), tiebreak="buchholz")
    by_hand(book, [("1", "Owls", "Zebras"), ("2", "Foxes", "Moles")])
    won(book, 1, "1", "Owls")
    won(book, 1, "2", "Foxes")
    book.withdraw("Zebras", "staff")
    by_hand(book, [("1", "Owls", "Foxes")], ["Moles"])
    won(book, 2, "1", "Owls")
    by_hand(book, [("1", "Moles", "Owls")], ["Foxes"])
    won(book, 3, "1", "Owls")
    records = {
        "Owls": [("Zebras", WIN, "game"), ("Foxes", WIN, "game"), ("Moles", WIN, "game")],
        "Zebras": [("Owls", LOSS, "game"), (None, LOSS, "away"), (None, LOSS, "away")],
        "Foxes": [("Moles", WIN, "game"), ("Owls", LOSS, "game"), (None, WIN, "bye")],
        "Moles": [("Foxes", LOSS, "game"), (None, WIN, "bye"), ("Owls", LOSS, "game")],
    }
    lines = {line.team: line for line in book.current().standings()}
    assert fide_buchholz(records, "Owls") == 4.0  # Zebras 0 + ½ + ½, Foxes 2, Moles 1
    for name, line in lines.items():
        assert line.points == fide_points(records[name])
        assert line.buchholz == fide_buchholz(records, name), name
    book.stop()


def test_buchholz_cut_1_the_median_and_sonneborn_berger_are_fides_with_unplayed_rounds_cut_first(tmp_path):
    """A pairing's bye, a late team's round missed (½), a forfeit, a double loss and a game both
    teams lost (a draw's ½ each): each team's Buchholz Cut-1 cuts its voluntarily unplayed round
    before any lower value (art. 16.5), the Median its lowest and highest, Sonneborn-Berger
    weighs each opponent by the points taken from it, and WIN counts the rounds worth a win."""
    book = hosted(tmp_path, ("A", "B", "C", "D", "E"), tables=("1", "2", "3"), late=0.5)
    by_hand(book, [("1", "A", "B"), ("2", "C", "D")], ["E"])
    won(book, 1, "1", "A")
    won(book, 1, "2", "C")
    book.join("F")
    by_hand(book, [("1", "A", "C"), ("2", "B", "D"), ("3", "E", "F")])
    won(book, 2, "1", "C")
    book.result(2, "2", "forfeit", "staff", winner="D")
    won(book, 2, "3", "F")
    by_hand(book, [("1", "A", "F"), ("2", "C", "E"), ("3", "B", "D")])
    won(book, 3, "1", None)
    won(book, 3, "2", "C")
    book.result(3, "3", "double-loss", "staff")
    records = {
        "A": [("B", WIN, "game"), ("C", LOSS, "game"), ("F", DRAW, "game")],
        "B": [("A", LOSS, "game"), (None, LOSS, "lost"), (None, LOSS, "lost")],
        "C": [("D", WIN, "game"), ("A", WIN, "game"), ("E", WIN, "game")],
        "D": [("C", LOSS, "game"), (None, WIN, "won"), (None, LOSS, "lost")],
        "E": [(None, WIN, "bye"), ("F", LOSS, "game"), ("C", LOSS, "game")],
        "F": [(None, DRAW, "asked"), ("E", WIN, "game"), ("A", DRAW, "game")],
    }
    lines = {line.team: line for line in book.current().standings()}
    assert fide_buchholz(records, "F", 1) != fide_buchholz(records, "F") - min(v for v, _, _ in fide_values(records, "F"))
    for name, line in lines.items():
        assert line.points == fide_points(records[name]), name
        assert (line.buchholz, line.buchholz_cut1, line.median_buchholz, line.sonneborn_berger) == (
            fide_buchholz(records, name), fide_buchholz(records, name, 1), fide_buchholz(records, name, 1, 1),
            fide_sonneborn_berger(records, name)), name
        assert line.wins == sum(scored == WIN for _, scored, _ in records[name]), name
    book.stop()


def test_the_csv_and_the_workbook_show_the_tie_breaks_the_director_chose_and_the_csv_names_the_order(tmp_path):
    """Issue 76, item 8: the standings' CSV and sheet showed Buchholz and the rating only, not
    the Cut-1, Median, Sonneborn-Berger or wins the director ordered, and the CSV did not name the
    order. Each chosen tie-break is a column of its own, in the night's order, after the columns
    always there; the standings' CSV ends with the order; the values are the standings' own."""
    import csv
    import io

    from openpyxl import load_workbook

    order = "sonneborn-berger,buchholz-cut1,direct-encounter,median-buchholz,wins"
    book = hosted(tmp_path, ("A", "B", "C", "D", "E"), tables=("1", "2"), tiebreak=order)
    by_hand(book, [("1", "A", "B"), ("2", "C", "D")], ["E"])
    won(book, 1, "1", "A")
    won(book, 1, "2", None)
    night = book.current()
    more = ["sonneborn_berger", "buchholz_cut1", "median_buchholz", "wins"]
    expected = [(line.place, line.team, *(float(getattr(line, field)) for field in more)) for line in night.standings()]
    for lang, delimiter in (("en", ","), ("it", ";")):
        rows = list(csv.reader(io.StringIO(table_csv(night, "standings", lang).removeprefix("\ufeff")), delimiter=delimiter))
        head = rows[0]
        assert head[:12] == ["place", "team", "played", "won", "lost", "drawn", "byes", "points", "margin", "rating",
                             "buchholz", "withdrawn"] and head[12:] == more, lang
        assert [(int(row[0]), row[1], *(float(row[head.index(field)].replace(",", ".")) for field in more))
                for row in rows[1:1 + len(night.teams)]] == expected, lang
        assert rows[1 + len(night.teams):] == [[], ["tie-break", order]], lang
    sheet = [[cell.value for cell in row] for row in load_workbook(io.BytesIO(night_xlsx(night)))["standings"].iter_rows()]
    assert sheet[0][12:] == more
    assert [row[12:] for row in sheet[1:]] == [[getattr(line, field) for field in more] for line in night.standings()]
    one_file = list(csv.reader(io.StringIO(night_csv(night))))
    assert one_file[one_file.index(sheet[0]) + 1][1] == night.standings()[0].team and ["tie-break", order] in one_file
    book.stop()


def test_a_director_orders_the_tie_breaks_and_teams_still_level_share_a_place(tmp_path):
    """Four teams all on one point after two rounds, Buchholz alike, and no two of them level
    having all met: they share first place (no alphabet decides); a third round, and the direct
    encounter parts the pairs level on points."""
    book = hosted(tmp_path, ("Owls", "Bats", "Moles", "Foxes"), tiebreak="buchholz,direct-encounter")
    by_hand(book, [("1", "Owls", "Bats"), ("2", "Moles", "Foxes")])
    won(book, 1, "1", "Owls")
    won(book, 1, "2", "Moles")
    by_hand(book, [("1", "Bats", "Moles"), ("2", "Foxes", "Owls")])
    won(book, 2, "1", "Bats")
    won(book, 2, "2", "Foxes")
    lines = book.current().standings()
    assert [(s.team, s.place, s.shared) for s in lines] == [
        ("Owls", 1, True), ("Bats", 1, True), ("Moles", 1, True), ("Foxes", 1, True)]  # as they joined
    assert book.current().to_json()["standings"][3]["place"] == 1
    by_hand(book, [("1", "Moles", "Owls"), ("2", "Foxes", "Bats")])
    won(book, 3, "1", "Owls")
    won(book, 3, "2", "Bats")
    lines = book.current().standings()
    assert {s.team: s.buchholz for s in lines} == {"Owls": 4.0, "Bats": 4.0, "Moles": 5.0, "Foxes": 5.0}
    assert [(s.team, s.place, s.shared) for s in lines] == [
        ("Owls", 1, False), ("Bats", 2, False), ("Moles", 3, False), ("Foxes", 4, False)]  # Owls beat Bats in round 1
    book.stop()


def test_a_tie_break_order_not_of_the_list_is_refused_naming_the_list(tmp_path):
    book = Book(tmp_path)
    for wrong in ("buchholz,coin", "wins,wins", ""):
        with pytest.raises(NightRefused, match="rating, buchholz, buchholz-cut1, median-buchholz, sonneborn-berger, "
                                               "direct-encounter, wins"):
            book.open("x", ["codenames"], ["1"], tiebreak=wrong)
    assert book.night is None


def test_a_tie_break_added_to_the_one_list_orders_the_standings_and_reaches_every_page(tmp_path, monkeypatch):
    """Issue 77, item 2: a tie-break is one entry of ``scoring.TIEBREAKS`` (its words, the fields
    it compares, its columns), and nothing else is edited for it. Added there, it orders the
    standings, and the heading, the printed page, the CSV, the staff page's choices and the pages'
    columns name it (before, the standings and the heading raised a KeyError). Round 1: A beats B,
    C has the pairing's bye: A and C on 1 point, A with the win at a table (C first by Buchholz)."""
    monkeypatch.setitem(scoring.TIEBREAKS, "most-won", scoring.Tiebreak("won at a table", ("won",),
                                                                         (("won at a table", "won"),)))
    book = hosted(tmp_path, ("A", "B", "C"), tables=("1",), tiebreak="most-won,rating")
    by_hand(book, [("1", "A", "B")], ["C"])
    won(book, 1, "1", "A")
    night = book.current()
    assert [(s.team, s.place) for s in night.standings()] == [("A", 1), ("C", 2), ("B", 3)]
    assert [s.team for s in night.standings()] != [s.team for s in replace(night, tiebreak="buchholz").standings()]
    assert tiebreak_words(night.tiebreak, str) == "won at a table, rating, then margin"
    assert "<th>won at a table</th>" in printable(night, "en")
    assert ["won at a table", "won"] in tiebreaks_shown(night.tiebreak)["columns"]
    assert ["most-won", "won at a table"] in tiebreak_choices()
    assert "won at a table" in scoring.tiebreak_texts()
    book.stop()


def test_round_one_seeded_by_ratings_pairs_the_top_half_against_the_bottom_half(tmp_path):
    """Seeds 1-4 of 8 meet seeds 5-8 (1 against 5, 2 against 6, ...), as a seeded Swiss pairs its
    first round; round 2 pairs by closest points again: the winners meet."""
    names = [f"Team {n}" for n in range(1, 9)]
    book = hosted(tmp_path, names, tables=("1", "2", "3", "4"))
    # last week, paired by hand (a round drawn by lot left two teams level 1 run in 6): the lower
    # number of each pair wins, and no two teams end with the same rating
    weeks = [[(1, 4), (2, 6), (5, 7), (3, 8)], [(2, 8), (4, 5), (1, 3), (6, 7)], [(1, 8), (2, 4), (3, 7), (5, 6)]]
    for number, pairs in enumerate(weeks, 1):
        by_hand(book, [(str(table), f"Team {a}", f"Team {b}") for table, (a, b) in enumerate(pairs, 1)])
        for table, (a, _) in enumerate(pairs, 1):
            won(book, number, str(table), f"Team {a}")
    book.close()
    book.open("This week", ["codenames"], ["1", "2", "3", "4"], seeding="ratings")
    for name in reversed(names):
        book.join(name)
    seeds = book.current().to_json()["seeds"]
    order = sorted(names, key=lambda name: -seeds[name.lower()])
    assert len({seeds[name.lower()] for name in names}) == 8  # no two level: the seeds alone order them
    made = book.propose()
    assert {frozenset(pair.teams) for pair in made.pairs} == {frozenset((order[n], order[n + 4])) for n in range(4)}
    book.confirm()
    winners = {pair.red if pair.table in ("1", "2") else pair.blue for pair in made.pairs}  # two due each colour
    for pair in made.pairs:
        won(book, 1, pair.table, *set(pair.teams) & winners)
    second = book.propose()
    assert all(set(pair.teams) <= winners or not set(pair.teams) & winners for pair in second.pairs)
    book.stop()


POLL_MS = 15_000  # the staff page reads the night every 5 s; the TV is told of a change at once
BLUE_FIRST = "BBBBBBBBBRRRRRRRRNNNNNNNA"  # blue has 9 agents: blue starts


@pytest.mark.parametrize("first_card", [RED_AGENT, ASSASSIN])
def test_the_game_dealt_for_a_round_is_started_by_the_team_the_pairing_calls_red(tmp_path, first_card):
    """The slip says "Foxes (red, plays first)": the game the round's pair plays at the table is
    one red starts, though the table's game waiting untouched was dealt blue first. Before, red
    went to the pair's first team whatever the key's start, so the blue team began half the time.
    The first card touched is one of red's (the game goes on: its round is written at its first
    move) or the assassin (the first move is the last: the game is the round's all the same). The
    test touched cell 0 of a random deal, the assassin 1 deal in 25, and then waited for a round
    written at the first move, which a game already over never writes."""
    table = StaffTable(tmp_path, BLUE_FIRST)
    try:
        session = table.daemon.session
        assert session.public_view().to_json()["start"] == "blue"
        staff = Staff(table.base)
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"]})
        for name in ("Foxes", "Owls"):
            staff.call("POST", "/staff/api/night/join", {"team": name})
        staff.call("POST", "/staff/api/night/propose")
        [pair] = staff.call("POST", "/staff/api/night/confirm")[1]["night"]["rounds"][0]["pairs"]
        night = table.daemon.night.book  # type: ignore[union-attr]
        assert f"{pair['red']} (red, plays first)" in printable(night.current(), "en")
        wait_for(lambda: session.public_view().to_json()["start"] == "red", "the round's game dealt red first")
        view = session.public_view().to_json()
        assert view["turn"] == "red" and view["game"] == "codenames"
        table.guess(session.state.key.cells.index(first_card))
        if first_card == ASSASSIN:
            [game] = wait_for(lambda: night.current().recorded(), "the game over at its first move recorded")
            assert game.round == 1 and game.teams == (pair["red"], pair["blue"])
        else:
            wait_for(lambda: night.current().dealt, "the game's round written")
            assert list(night.current().dealt.values()) == [1]
    finally:
        table.close()


def test_closing_while_tables_still_play_is_asked_first_naming_them(tmp_path):
    """Round 2 confirmed, table 2's game not recorded: closing is refused, naming table 2, until
    the director confirms it; the staff page's API says the same without ``confirm``."""
    book = hosted(tmp_path, ("Owls", "Bats", "Moles", "Foxes"))
    for number in (1, 2):
        made = book.propose()
        book.confirm()
        won(book, number, "1", made.pairs[0].red)
        if number == 1:
            won(book, 1, "2", made.pairs[1].red)
    with pytest.raises(NightRefused, match="Still played at table 2: close the night anyway"):
        book.close()
    assert book.current().open
    book.close(over=True)
    assert book.night is not None and not book.night.open
    book.stop()
    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", "RRRRRRRRRBBBBBBBBNNNNNNNA")
    try:
        staff = Staff(table.base)
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1", "2"]})
        for name in ("Owls", "Bats", "Moles", "Foxes"):
            staff.call("POST", "/staff/api/night/join", {"team": name})
        staff.call("POST", "/staff/api/night/propose")
        staff.call("POST", "/staff/api/night/confirm")
        status, answer = staff.call("POST", "/staff/api/night/close")
        assert status == 409 and "Still played at table 1, 2" in answer["error"]
        status, answer = staff.call("POST", "/staff/api/night/close", {"confirm": True})
        assert status == 200 and answer["night"] is None
    finally:
        table.close()


@pytest.mark.browser
def test_the_staff_page_orders_the_tie_breaks_asks_before_closing_over_a_table_and_the_tv_keeps_the_final_standings(
        tmp_path, browser):
    """The night opened on the staff page with its tie-breaks in order; a team that asked for a
    bye is on the TV as sitting out at its asking; Close the night while table 1 plays asks first,
    naming it; the TV then shows the final standings (it went blank), shared places as "1=",
    until a new night opens."""
    from playwright.sync_api import expect

    from helpers_staff import STAFF_PIN, open_night

    table = StaffTable(tmp_path, "RRRRRRRRRBBBBBBBBNNNNNNNA")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    asked: list[str] = []

    def answer(dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_night(page, table.base, STAFF_PIN, "Friday", "1", {
            "#night-tiebreak": "buchholz-cut1", "#night-tiebreak-2": "direct-encounter", "#night-tiebreak-3": "wins"})
        expect(page.locator("#night-tiebreak-used")).to_have_text("Tie-break: Buchholz Cut-1, direct encounter, wins")
        staff = Staff(table.base)
        staff.login()
        assert staff.call("GET", "/staff/api/night")[1]["night"]["tiebreak"] == "buchholz-cut1,direct-encounter,wins"
        for name in ("Owls", "Bats", "Moles"):
            staff.call("POST", "/staff/api/night/join", {"team": name})
        staff.call("POST", "/staff/api/night/rest", {"team": "Moles"})
        page.click("#night-propose")
        page.click("#night-confirm")
        expect(page.locator("#night-round h3")).to_have_text("Round 1")
        expect(page.locator("#night-standings tr.standing").first).to_contain_text("1= ", timeout=POLL_MS)

        spectators = context.new_page()
        spectators.goto(f"{table.base}/")
        board = spectators.locator("#standings")
        expect(board.locator(".asked")).to_have_text("Round 1, sitting out at their asking: Moles", timeout=POLL_MS)
        expect(board.locator("table").first.locator("th")).to_have_text(["Team", "played", "won", "lost", "byes", "points", "Buchholz Cut-1",
                                                  "wins"])
        expect(board.locator("tr.standing").first).to_contain_text("1= ")

        expect(page.locator("#night-still")).to_have_text("Still played: round 1 at table 1")  # what the close asks from
        page.click("#night-close")
        expect(page.locator("#night-state")).to_have_text("no night is open")
        assert asked[-1] == ("Still played at table 1: close the night anyway? A game there that ends after the close "
                             "counts for nothing, unless its table was offline and had not heard of the close: it then "
                             "counts once the table reports it")
        expect(board.locator("h2")).to_have_text("Final standings: Friday", timeout=POLL_MS)
        expect(board.locator("tr.standing")).to_have_count(3)
        expect(board.locator(".pairs")).to_have_count(0)
        staff.call("POST", "/staff/api/night/open", {"name": "Saturday", "games": ["codenames"], "tables": ["1"]})
        expect(board.locator("h2")).to_have_text("Standings: Saturday", timeout=POLL_MS)
        assert errors == []
    finally:
        context.close()
        table.close()
