"""A whole game night from the staff page in Debian's Chromium at phone size (issue 32): the night
opened, two teams joining on the phones' page and approved by the staff, a round proposed and confirmed, the pair on the
table's screen, the game played at the table, the standings on the spectators' page and the staff
page, the night closed and its CSV downloaded from the nights kept."""

from __future__ import annotations

import re

import pytest

from helpers import wait_for
from helpers_staff import STAFF_PIN as PIN
from helpers_staff import open_night, staff_login
from helpers_tables import StaffTable

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red's nine agents in cells 0-8
POLL_MS = 15_000  # the staff page reads the night every 5 s; the spectators' page is told of a change at once


def test_a_whole_night_from_the_staff_page_on_a_phone(tmp_path, browser):
    from playwright.sync_api import expect

    table = StaffTable(tmp_path, KEY)
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, accept_downloads=True)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_night(page, table.base, PIN, "Friday league", "1")
        expect(page.locator("#night-open")).to_be_hidden()

        phone = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
        for name, nicknames in (("The Owls", "Ada"), ("Quiz Club", "Bo, Cy")):
            phone.goto(f"{table.base}/night")
            phone.fill("input[name=team]", name)
            phone.fill("input[name=nicknames]", nicknames)
            phone.click("button[type=submit]")
            expect(phone.locator(".said")).to_contain_text(f"Your team {name} is on the list")
        phone.context.close()
        waiting = page.locator("#night-waiting .night-waiting")
        expect(waiting).to_have_count(2, timeout=POLL_MS)  # a phone's team waits for the staff
        expect(page.locator("#night-teams")).to_have_text("Teams: ")
        for name in ("The Owls", "Quiz Club"):
            page.locator(f'.night-approve[data-team="{name}"]').click()
        expect(waiting).to_have_count(0)
        expect(page.locator("#night-teams")).to_have_text("Teams: The Owls, Quiz Club")

        page.click("#night-propose")
        pair = page.locator("#night-round .pair")
        expect(pair).to_have_count(1)
        red, blue = pair.text_content().removeprefix("table 1: ").replace(" (red, plays first)", "").split(" – ")  # type: ignore[union-attr]
        assert {red, blue} == {"The Owls", "Quiz Club"}
        page.click("#night-confirm")
        expect(page.locator("#night-confirm")).to_be_disabled()
        wait_for(lambda: str(table.daemon.loop.notice) == f"next: {red} vs {blue} at table 1", "the pair on the screen")

        spectators = context.new_page()
        spectators.goto(f"{table.base}/")
        board = spectators.locator("#standings")
        expect(board).to_be_visible(timeout=POLL_MS)
        expect(board.locator(".pairs li")).to_have_text(f"table 1: {red} – {blue}")
        expect(board.locator("tr.standing")).to_have_count(2)
        expect(board.locator(".tiebreak")).to_have_text("Tie-break: rating, then margin")  # every standings page names it

        for cell in range(9):  # red finds its nine agents; blue had all 8 left
            table.guess(cell)
        expect(page.locator("#night-standings tr.standing").first).to_contain_text(f"1. {red}", timeout=POLL_MS)
        expect(page.locator("#night-standings tr.standing").first.locator("td").nth(6)).to_have_text("8")  # margin
        expect(board.locator("tr.standing").first).to_contain_text(f"1. {red}", timeout=POLL_MS)
        wait_for(lambda: table.daemon.loop.notice is None, "the screen's pair gone once it has played")

        page.click("#night-close")
        expect(page.locator("#night-state")).to_have_text("no night is open")
        expect(page.locator("#night-kept .row span").first).to_have_text(re.compile(r"^Friday league \(\d{8}-\d{6}\)$"))  # by its name first
        with page.expect_download() as download:
            page.locator("#night-kept .night-csv").first.click()
        assert re.fullmatch(r"Friday-league-\d{4}-\d\d-\d\d-standings\.csv", download.value.suggested_filename)  # by name, one table a file
        exported = open(download.value.path(), encoding="utf-8").read()  # noqa: SIM115 - read whole at once
        assert exported.startswith("\ufeffplace,team,") and f"1,{red},1,1,0,0,0,1.0,8" in exported  # place, team, played, won, lost, drawn, byes, points, margin
        with page.expect_download() as download:
            page.locator("#night-kept .night-xlsx").first.click()
        import io
        from pathlib import Path

        from openpyxl import load_workbook

        workbook = load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))  # saved with no extension
        games = [[cell.value for cell in row] for row in workbook["games"].iter_rows()]
        assert [red, blue, red, "all_agents_found", 8] in [row[4:9] for row in games]
        expect(board.locator("h2")).to_have_text("Final standings: Friday league", timeout=POLL_MS)  # issue 59: not blank
        assert errors == []
    finally:
        context.close()
        table.close()


pytestmark = pytest.mark.browser


def test_a_night_on_offer_followed_with_its_hosts_code_then_left_and_a_phones_team_removed(tmp_path, browser):
    """Issue 37: the follower's staff page lists the night another table offers it, follows it
    once its host's code is typed, and leaves it; at a host, a phone's team is removed unseen."""
    import json

    from playwright.sync_api import expect

    from pi_table.fleet import schema
    from pi_table.night.book import Book
    from pi_table.night.code import shown
    from pi_table.night.recorder import Recorder

    host = Book(tmp_path / "host")
    host.open("Friday league", ["codenames"], ["t1", "1"])
    for name in ("Owls", "Quiz Club"):
        host.join(name)
    plan = schema.parse("plan", json.dumps(Recorder(host, "t1").plan()).encode())
    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", KEY)
    assert table.daemon.night is not None
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        table.daemon.night.follow("t1", plan)  # heard from the broker: an offer
        staff_login(page, table.base, PIN)
        offer = page.locator("#night-offers .night-offer")
        expect(offer.locator("span")).to_have_text("table t1: Friday league", timeout=30_000)
        offer.locator(".night-offer-code").fill("ABCD EFGH")
        offer.locator(".night-accept").click()
        expect(page.locator("#message")).to_contain_text("not the code of table t1's night Friday league")
        expect(page.locator("#night-state")).to_have_text("no night is open")
        offer.locator(".night-offer-code").fill(shown(host.current().code))
        offer.locator(".night-accept").click()
        expect(page.locator("#night-state")).to_have_text("Friday league")
        expect(page.locator("#night-host")).to_contain_text("table t1")
        expect(page.locator("#night-close")).to_be_hidden()
        expect(page.locator("#night-code")).to_be_hidden()  # a follower has no code to show: its host does
        page.click("#night-leave")
        expect(page.locator("#night-state")).to_have_text("no night is open")

        page.fill("#night-name", "Our own")
        page.fill("#night-tables", "1 2")
        page.click("#night-open button[type=submit]")
        expect(page.locator("#night-code")).to_contain_text("Code for the other tables: ")
        phone = context.new_page()
        phone.goto(f"{table.base}/night")
        phone.fill("input[name=team]", "Gatecrashers")
        phone.click("button[type=submit]")
        expect(phone.locator(".said")).to_contain_text("the staff confirm it")
        waiting = page.locator("#night-waiting .night-waiting")
        expect(waiting.locator("span")).to_have_text("Gatecrashers", timeout=POLL_MS)
        page.locator('.night-refuse[data-team="Gatecrashers"]').click()
        expect(waiting).to_have_count(0)
        page.fill("#night-team", "Owls")
        page.click("#night-join button[type=submit]")
        expect(page.locator("#night-teams")).to_have_text("Teams: Owls")
        page.select_option("#night-remove-team", "Owls")
        page.click("#night-remove")
        expect(page.locator("#night-teams")).to_have_text("Teams: ")
        assert errors == []
    finally:
        context.close()
        table.close()
        host.stop()


def test_the_director_s_desk_on_a_phone_still_played_withdraw_results_and_the_tie_break(tmp_path, browser):
    """Issue 38 on the staff page: the tables still playing a round, the question before a round
    is confirmed over them, a team withdrawn and back, a forfeit entered, each in the history with
    who and when, the first player shown, and the tie-break named above the standings."""
    from playwright.sync_api import expect

    table = StaffTable(tmp_path, KEY)
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    asked: list[str] = []

    def answer(dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_night(page, table.base, PIN, "Friday league", "1 2", {"#night-bye": "0.5", "#night-tiebreak": "buchholz"})
        for name in ("Owls", "Quiz Club", "Foxes", "Moles", "Bats"):
            page.fill("#night-team", name)
            page.click("#night-join button[type=submit]")
            expect(page.locator("#night-teams")).to_contain_text(name)
        expect(page.locator("#night-tiebreak-used")).to_have_text(
            "Tie-break: Buchholz (the points of the teams met), then rating")
        page.click("#night-propose")
        expect(page.locator("#night-round .pair .first")).to_have_count(2)
        expect(page.locator("#night-round .pair").first).to_contain_text("(red, plays first)")
        page.click("#night-confirm")
        expect(page.locator("#night-still")).to_have_text("Still played: round 1 at table 1, 2")
        assert asked == []  # nothing was in play: no question
        page.click("#night-propose")
        page.click("#night-confirm")
        expect(page.locator("#night-round h3")).to_have_text("Round 2")
        assert asked and asked[-1].startswith("Round 1 is still played at table 1, 2. Confirm round 2 anyway?")
        page.select_option("#night-remove-team", "Bats")
        page.click("#night-withdraw")
        expect(page.locator("#night-withdrawn")).to_contain_text("Bats (withdrawn)")
        page.select_option("#night-result-round", "1")
        red = page.locator("#night-result option").first.get_attribute("value").removeprefix("won:")  # type: ignore[union-attr]
        page.select_option("#night-result", f"forfeit:{red}")
        page.click("#night-result-save")
        expect(page.locator(".night-history")).to_have_count(2)
        expect(page.locator(".night-history").first).to_contain_text("staff · ")
        expect(page.locator(".night-history").first).to_contain_text(f"Round 1, table 1: won by forfeit ({red})")
        page.locator('.night-reinstate[data-team="Bats"]').click()
        expect(page.locator("#night-withdrawn")).to_be_empty()
        expect(page.locator(".night-history")).to_have_count(3)
        page.select_option("#night-remove-team", "Owls")  # issue 59: "we miss rounds 4 and 5"
        page.fill("#night-rest-rounds", "4-5")
        page.select_option("#night-rest-points", "0.5")  # the director's choice for this bye: H
        page.click("#night-rest-later")
        expect(page.locator("#night-rests")).to_contain_text("Asked for a bye in round 4: Owls")
        expect(page.locator("#night-rests")).to_contain_text("Asked for a bye in round 5: Owls")
        assert asked[-1].startswith("Give the team Owls the bye it asked for in rounds 4, 5?")
        assert asked[-1].endswith("each round scores a draw (½ point).")
        page.locator('.night-unrest[data-team="Owls"][data-round="5"]').click()
        expect(page.locator("#night-rests")).not_to_contain_text("round 5")
        expect(page.locator("#night-rests")).to_contain_text("Asked for a bye in round 4: Owls")
        expect(page.locator(".night-history")).to_have_count(6)
        page.select_option("#night-result-round", "2")  # issue 59: round 2 deleted with its result
        page.select_option("#night-result-table", "1")
        red = page.locator("#night-result option").first.get_attribute("value").removeprefix("won:")  # type: ignore[union-attr]
        page.select_option("#night-result", f"won:{red}")
        page.click("#night-result-save")
        expect(page.locator(".night-history")).to_have_count(7)
        page.click("#night-unconfirm")
        expect(page.locator(".night-history")).to_have_count(8)
        assert asked[-1] == ("Undo round 2? It goes back to a proposal, to change and confirm again, and its results "
                             "at table 1 are dropped on every table: those games count no more.")
        expect(page.locator("#night-round h3")).not_to_have_text("Round 2")
        assert errors == []
    finally:
        context.close()
        table.close()


def test_the_tv_is_pushed_the_tie_breaks_columns_the_marks_who_sits_out_and_says_what_changed(tmp_path, browser):
    """Issue 49, item 4, and issue 53, items 10, 11, 14, 15: the spectators' page shows the columns
    of the night's tie-break (Buchholz, the rating, the margin its line names), who has withdrawn
    and who sits out the round, each change pushed within a second or two (it polled every 10 s);
    its live region says what changed (a win), the table is drawn quietly. The desk says a round
    proposed in words, and each button of a team or a night kept names it."""
    import urllib.parse
    import urllib.request

    from playwright.sync_api import expect

    from helpers_staff import Staff

    table = StaffTable(tmp_path, KEY)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        staff = Staff(table.base)
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"],
                                                     "tiebreak": "buchholz"})
        for name in ("The Owls", "Quiz Club", "Moles"):
            staff.call("POST", "/staff/api/night/join", {"team": name})
        form = urllib.parse.urlencode({"team": "Latecomers", "nicknames": ""}).encode()
        urllib.request.urlopen(urllib.request.Request(table.base + "/night/join", data=form), timeout=10).close()
        staff_login(page, table.base, PIN)
        expect(page.locator(".night-approve")).to_have_attribute("aria-label", "Approve the team Latecomers", timeout=POLL_MS)
        expect(page.locator(".night-refuse")).to_have_attribute("aria-label", "Remove the team Latecomers")
        page.click("#night-propose")
        expect(page.locator("#night-round h3")).to_have_text("Round 1, proposed: not confirmed yet")
        page.click("#night-confirm")
        expect(page.locator("#night-round h3")).to_have_text("Round 1")
        round_ = staff.call("GET", "/staff/api/night")[1]["night"]["rounds"][0]
        red = round_["pairs"][0]["red"]

        spectators = context.new_page()
        spectators.goto(f"{table.base}/")
        board = spectators.locator("#standings")
        expect(board.locator("table").first.locator("th")).to_have_text(
            ["Team", "played", "won", "lost", "byes", "points", "Buchholz", "rating", "margin"], timeout=POLL_MS)
        expect(board.locator("table.crosstable th")).to_have_text(["Team", "Round 1"])  # and its cross-table (issue 76)
        expect(board.locator(".resting")).to_have_text(f"sitting out: {round_['resting'][0]}")
        assert board.get_attribute("aria-live") is None  # the table is drawn quietly
        staff.call("POST", "/staff/api/night/withdraw", {"team": round_["resting"][0]})
        expect(board.locator("tr.withdrawn")).to_contain_text(f"{round_['resting'][0]} (withdrawn)", timeout=3_000)
        for cell in range(9):  # red finds its nine agents
            table.guess(cell)
        expect(spectators.locator("#standings-said")).to_have_text(f"{red} won", timeout=3_000)
        expect(board.locator("tr.standing", has_text=red)).to_contain_text(f"{red}1100")  # played, won, lost, byes

        staff.call("POST", "/staff/api/night/close")
        night_id = staff.call("GET", "/staff/api/night")[1]["kept"][-1]
        page.reload()
        expect(page.locator("#night-kept .night-csv").first).to_have_attribute(
            "aria-label", f"Export CSV of the night Friday ({night_id})", timeout=POLL_MS)
        expect(page.locator("#night-kept .night-print").first).to_have_attribute("aria-label",
                                                                                  f"Print the night Friday ({night_id})")
        assert errors == []
    finally:
        context.close()
        table.close()
