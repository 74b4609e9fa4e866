"""A whole game night from the staff page in Debian's Chromium at phone size (issue 32): the night
opened, two teams joining on the phones' page, a round proposed and confirmed, the pair on the
table's screen, the game played at the table, the standings on the spectators' page and the staff
page, the night closed and its CSV downloaded from the nights kept."""

from __future__ import annotations

import pytest

from helpers import STAFF_PIN as PIN
from helpers import StaffTable, staff_login, wait_for

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red's nine agents in cells 0-8
POLL_MS = 15_000  # the staff page reads the night every 5 s, the spectators' page every 10 s


def test_a_whole_night_from_the_staff_page_on_a_phone(tmp_path, browser):
    from playwright.sync_api import expect

    table = StaffTable(tmp_path, KEY)
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, accept_downloads=True)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        staff_login(page, table.base, PIN)
        expect(page.locator("#night-state")).to_have_text("no night is open", timeout=30_000)  # the staff page's first fetches, on a loaded machine
        page.fill("#night-name", "Friday league")
        page.fill("#night-tables", "1")
        page.click("#night-open button[type=submit]")
        expect(page.locator("#night-state")).to_have_text("Friday league")
        expect(page.locator("#night-open")).to_be_hidden()

        phone = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
        for name, nicknames in (("The Owls", "Ada"), ("Quiz Club", "Bo, Cy")):
            phone.goto(f"{table.base}/night")
            phone.fill("input[name=team]", name)
            phone.fill("input[name=nicknames]", nicknames)
            phone.click("button[type=submit]")
            expect(phone.locator(".said")).to_contain_text(f"Your team {name} has joined")
        phone.context.close()
        expect(page.locator("#night-teams")).to_have_text("Teams: The Owls, Quiz Club", timeout=POLL_MS)

        page.click("#night-propose")
        pair = page.locator("#night-round .pair")
        expect(pair).to_have_count(1)
        red, blue = pair.text_content().removeprefix("table 1: ").split(" – ")  # type: ignore[union-attr]
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

        for cell in range(9):  # red finds its nine agents; blue had all 8 left
            table.guess(cell)
        expect(page.locator("#night-standings tr.standing").first).to_contain_text(f"1. {red}", timeout=POLL_MS)
        expect(page.locator("#night-standings tr.standing").first.locator("td").nth(5)).to_have_text("8")  # margin
        expect(board.locator("tr.standing").first).to_contain_text(f"1. {red}", timeout=POLL_MS)
        wait_for(lambda: table.daemon.loop.notice is None, "the screen's pair gone once it has played")

        page.click("#night-close")
        expect(page.locator("#night-state")).to_have_text("no night is open")
        with page.expect_download() as download:
            page.locator("#night-kept .night-csv").first.click()
        assert download.value.suggested_filename.startswith("pi-table-night-")
        exported = open(download.value.path(), encoding="utf-8").read()  # noqa: SIM115 - read whole at once
        assert f"{red},{blue},{red},all_agents_found,8" in exported and f"1,{red},1,1,0,0,1" in exported
        expect(board).to_be_hidden(timeout=POLL_MS)
        assert errors == []
    finally:
        context.close()
        table.close()


pytestmark = pytest.mark.browser
