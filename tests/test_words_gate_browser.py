"""A page draws nothing in words before its words are there (issue 63, item 1): each page is loaded
30 times in Debian's Chromium with its words' answer (``/api/texts``, the staff page's words)
held back, and with it hurried while the page's other answers are held back, on an Italian table
and on an English table whose phone chose Italian; no English is ever left on the Italian page
(the TV's standings of a night, the staff page's history and game, the phones' key page).

The answers are held back by Playwright's route interception, a short random while each: the
order they arrive in is what the race was about, not how long they take."""

from __future__ import annotations

import random
import re
import time

import pytest

from pi_table.web import Tokens
from pi_table.web.snapshot import SPYMASTER

from helpers_staff import STAFF_PIN, Staff, staff_login
from helpers_tables import StaffTable

pytestmark = pytest.mark.browser

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red's nine agents in cells 0-8
LOADS = {"it": 30, "en": 10}
"""Loads of each page: on the Italian table; on the English table whose phone chose Italian (the same
gate, reached by the phone's choice: fewer, to keep the test's time to a few minutes)."""
HELD_S = (0.02, 0.2)  # how long an answer is held back: a short random while
WORDS = ("**/api/texts*", "**/staff/words/*", "**/staff/cards/*")  # a page's words
DATA = ("**/night/standings*", "**/staff/api/table*", "**/staff/api/night*")  # what a page draws in words
ENGLISH = re.compile(r"\b(Standings|Tie-break|played|won|lost|byes|points|rating|margin|Round|table|sitting out|"
                     r"codenames|started|Game|result|moves|duration|in play|unfinished|spectators|the key|"
                     r"connected|connecting|left|clue|Team|hidden|revealed|operatives|red agent|blue agent)\b")
"""Words these pages show in English that their Italian never has."""
PAGES = {  # a page, what is drawn once it is whole, and where its words are
    "tv": ("/", "#standings tr.standing", ("#standings", "#app", "#status", "title")),
    "staff": ("/staff", "#history td", ("#history", "#game-line")),
    "key": ("{key}", "#app .grid", ("#app", "#status", "title")),
}


def played_night(table: StaffTable) -> str:
    """A night with one game played (red, Volpi, won): its standings have ratings. The key's page."""
    staff = Staff(table.base)
    staff.login()
    staff.call("POST", "/staff/api/night/open", {"name": "Venerdì", "games": ["codenames"], "tables": ["1"]})
    for name in ("Volpi", "Gufi"):
        staff.call("POST", "/staff/api/night/join", {"team": name})
    staff.call("POST", "/staff/api/night/propose", {})
    status, answer = staff.call("POST", "/staff/api/night/confirm", {})
    assert status == 200, answer
    for cell in range(9):
        table.guess(cell)
    game_id = staff.call("GET", "/staff/api/table")[1]["game_id"]
    return "/p/" + Tokens.kept_in(table.folder / "journal").token(game_id, SPYMASTER)


def english_on(page, where: tuple[str, ...]) -> list[str]:
    said = [page.title() if place == "title" else page.locator(place).inner_text() for place in where]
    return [f"{place}: {text!r}" for place, text in zip(where, said, strict=True) if ENGLISH.search(text)]


@pytest.mark.parametrize("table_lang", ["it", "en"])
def test_no_page_draws_english_before_its_italian_words_arrive_nor_keeps_it(tmp_path, browser, table_lang):
    from playwright.sync_api import expect

    table = StaffTable(tmp_path, KEY, lang=table_lang)
    chance = random.Random(63)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # an English table's phone that chose Italian: the choice is the page's language, not the table's
    context.add_init_script("localStorage.setItem('pi-table-lang', 'it'); localStorage.setItem('staff-lang', 'it');")
    found: list[str] = []
    try:
        key = played_night(table)
        login = context.new_page()
        staff_login(login, table.base, STAFF_PIN)
        expect(login.locator("#desk")).to_be_visible()
        login.close()

        def held(route) -> None:
            time.sleep(chance.uniform(*HELD_S))
            route.continue_()

        for name, (path, whole, where) in PAGES.items():
            for load in range(LOADS[table_lang]):
                page = context.new_page()
                for pattern in WORDS if load % 2 == 0 else DATA:  # the words late, then the words first
                    page.route(pattern, held)
                page.goto(table.base + path.format(key=key))
                expect(page.locator(whole).first).to_be_attached()
                page.wait_for_timeout(100)  # an answer held back arrives, and the page redraws in it
                assert page.evaluate("document.documentElement.lang") == "it"
                found += [f"{name}, load {load}, {'words late' if load % 2 == 0 else 'words first'}: {line}"
                          for line in english_on(page, where)]
                page.close()
        assert not found, "\n".join(found[:20])
    finally:
        context.close()
        table.close()


def test_the_italian_tv_and_staff_page_write_numbers_dates_and_results_in_italian(tmp_path, browser):
    """Issue 63, item 2: a rating "3,44", not "3.44", on the Italian TV and staff page; the night's
    history says a result in words ("Turno 1, tavolo 1: vinta (Volpi)"), not its code "won"; a
    game's start in the page's language, not an ISO date cut short."""
    from playwright.sync_api import expect

    table = StaffTable(tmp_path, KEY, lang="it")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")  # the phone's own locale
    try:
        played_night(table)
        staff = Staff(table.base)
        staff.login()
        status, answer = staff.call("POST", "/staff/api/night/result",
                                    {"round": 1, "table": "1", "result": "won", "winner": "Volpi"})
        assert status == 200, answer
        decimal = re.compile(r"^-?\d+,\d+$")
        tv = context.new_page()
        tv.goto(table.base + "/")
        expect(tv.locator("#standings tr.standing").first).to_be_attached()
        ratings = tv.locator("#standings tr.standing td:nth-child(7)").all_inner_texts()
        assert ratings and all(decimal.match(rating) for rating in ratings), ratings
        page = context.new_page()
        staff_login(page, table.base, STAFF_PIN)
        expect(page.locator("#night-history")).to_contain_text("Turno 1, tavolo 1: vinta (Volpi)")
        expect(page.locator("#night-standings tr.standing").first).to_be_attached()
        ratings = page.locator("#night-standings tr.standing td:nth-child(8)").all_inner_texts()
        assert ratings and all(decimal.match(rating) for rating in ratings), ratings
        started = page.locator("#history tr:nth-child(2) td").first.inner_text()
        # the page kit's one form of an Italian date (Intl, medium): "29 nov 2026, 06:11", not "2026-11-27 11:29"
        assert re.fullmatch(r"\d{1,2} [a-z]{3} \d{4}, \d{2}:\d{2}", started), started
    finally:
        context.close()
        table.close()
