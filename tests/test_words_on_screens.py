"""The words on the cards on every screen, in Chromium (issue 79): a spymaster reads the cards on
the key page (the table's reader a stand-in), fixes the one it could not read and confirms; the
TV's page then shows the grid with its words, a touch at the table reveals a card with its word,
and the staff page's board shows them too. In both languages, axe clean on each."""

from __future__ import annotations

import pytest

from pi_table.ui.words import load_words

from browsing import Browsing, axe, violations  # noqa: F401 (axe: a fixture)
from helpers_staff import staff_login
from helpers_tables import StaffTable, reading_with

pytestmark = pytest.mark.browser

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
TYPED = {"en": "lighthouse", "it": "faro"}
"""The word a spymaster types for the card the reader could not read."""


@pytest.mark.parametrize("lang", ["en", "it"])
def test_words_confirmed_on_the_key_page_reach_the_tv_and_a_touch_reveals_a_card_with_its_word(
        tmp_path, monkeypatch, browser, axe, lang):
    read = [*load_words(lang)[:24], None]  # the last card in the picture could not be read
    reading_with(tmp_path, monkeypatch, read)
    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", KEY, lang=lang)
    pages = Browsing(browser, axe, lang)
    try:
        from pi_table.web.snapshot import SPYMASTER
        from pi_table.web.tokens import Tokens

        token = Tokens.kept_in(tmp_path / "table/journal").token(table.daemon.session.id, SPYMASTER)
        key = pages.open(f"{table.base}/p/{token}", "#cards-take:not([hidden])")
        key.set_input_files("#cards-picture", files=[{"name": "cards.jpg", "mimeType": "image/jpeg",
                                                      "buffer": b"\xff\xd8\xff\xe0" + bytes(range(256)) * 64}])
        key.wait_for_selector("#cards-form:not([hidden])")
        order = key.evaluate("() => [...document.querySelectorAll('.cards-words input')].map((i) => +i.id.split('-')[2])")
        unread = order[24]  # the card in the picture's last place: its word left to type
        assert key.input_value(f"#cards-word-{unread}") == ""
        assert key.input_value(f"#cards-word-{order[0]}") == read[0]
        key.fill(f"#cards-word-{unread}", TYPED[lang])
        pages.check(key, "the key page's reading, the words to confirm")
        key.click("#cards-confirm")
        key.wait_for_selector("#cards-form[hidden]")
        confirmed = {cell: read[index] or TYPED[lang] for index, cell in enumerate(order)}

        tv = pages.open(f"{table.base}/", ".table.words .cell .word")
        for cell in (0, 3, unread):
            assert tv.inner_text(f'.cell[data-cell="{cell}"] .word') == confirmed[cell]
        assert tv.locator(".cell .word").count() == 25 and tv.locator(".cell.R").count() == 0
        table.guess(3)
        tv.wait_for_selector('.cell.R[data-cell="3"]')
        assert tv.inner_text('.cell[data-cell="3"] .word') == confirmed[3]
        assert tv.locator(".cell.B, .cell.A, .cell.N").count() == 0  # the key on no screen but the spymasters'
        pages.check(tv, "the TV with the words and a card revealed")
        key.wait_for_selector('.cell.R.shown[data-cell="3"]')
        assert key.inner_text('.cell[data-cell="3"] .word') == confirmed[3]
        staff = pages.context.new_page()
        pages.watch(staff)
        staff_login(staff, table.base)
        staff.wait_for_selector(f'#board [data-cell="{unread}"] .word')
        assert staff.inner_text('#board .R[data-cell="3"] .word') == confirmed[3]
        pages.check(staff, "the staff page's board with the words")
        for page in (key, tv, staff):
            pages.close(page)
    finally:
        table.close()
    pages.done()
