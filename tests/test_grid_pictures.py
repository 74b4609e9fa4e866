"""Every picture of the grid on the pages follows the one rule (pi_table/ui/orientation.py): seen
from the spymasters' side, cell 0 (the operatives' left, row 0) at the top right and cell 24 at the
bottom left, a bar on the operatives' edge, every cell numbered as the table numbers it. And the
spectator page's words stay whole, with nothing wider than the screen, from a phone to a TV.
In Debian's Chromium; each picture is also written as a PNG, for a person to look at."""

from __future__ import annotations

import pytest

from pi_table.engine import CELLS, Rules, make_game, parse_action
from pi_table.ui.orientation import page_layout, reading_order
from pi_table.ui.words import load_words
from pi_table.web import Tokens, codenames_snapshot
from pi_table.web.snapshot import SPYMASTER

from helpers_games import dealt_key
from helpers_staff import staff_login
from helpers_tables import StaffTable as InProcessTable

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
WIDTHS = (360, 390, 800, 1280)
LONGEST = {lang: tuple(sorted(load_words(lang), key=len)[-CELLS:]) for lang in ("en", "it")}
"""The longest words of each shipped list: the hardest deal to fit."""
PLACES = """(grid) => {
  // Where each cell and the operatives' bar are, as fractions of the picture's box.
  const box = grid.getBoundingClientRect(), at = (node) => { const r = node.getBoundingClientRect();
    return {left: r.left - box.left, top: r.top - box.top, right: r.right - box.left, bottom: r.bottom - box.top}; };
  const cells = {};
  for (const cell of grid.querySelectorAll("[role=cell]")) cells[cell.dataset.cell ?? cell.textContent.split(" ")[0]] = at(cell);
  const bar = grid.parentElement.querySelector(".edge");
  return {cells, bar: bar ? at(bar) : null, bar_text: bar ? bar.textContent : null};
}"""
WHOLE = """() => {
  // Each word that is not whole: clipped by its plate, out of its cell, or under another box.
  const broken = [];
  for (const word of document.querySelectorAll(".word")) {
    const cell = word.closest(".cell"), w = word.getBoundingClientRect(), c = cell.getBoundingClientRect();
    const inside = w.left >= c.left - 0.5 && w.right <= c.right + 0.5 && w.top >= c.top - 0.5 && w.bottom <= c.bottom + 0.5;
    const seen = [w.left + 1, w.right - 1].every((x) => word.contains(document.elementFromPoint(x, (w.top + w.bottom) / 2)));
    if (word.scrollWidth > word.clientWidth || !inside || !seen) broken.push(cell.dataset.cell);
  }
  return {broken, overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth};
}"""


def played(actions=("clue 1", "touch 3", "touch 12")):
    game = make_game(Rules())
    state = game.start(game.parse_key(KEY))
    for text in actions:
        state = game.apply(state, parse_action(text))
    return game.spymaster_view(state)


def by_the_rule(places: dict, numbers=range(CELLS)) -> None:
    """Cell 0 at the top right, 24 at the bottom left, the cells in reading order row by row, and
    the operatives' bar along the top of them."""
    cells = {int(number): place for number, place in places["cells"].items() if int(number) in numbers}
    assert set(cells) == set(numbers)
    top, right = min(c["top"] for c in cells.values()), max(c["right"] for c in cells.values())
    bottom, left = max(c["bottom"] for c in cells.values()), min(c["left"] for c in cells.values())
    assert cells[0]["top"] == top and cells[0]["right"] == right
    assert cells[24]["bottom"] == bottom and cells[24]["left"] == left
    order = sorted(cells, key=lambda cell: (round(cells[cell]["top"]), cells[cell]["left"]))
    assert order == list(reading_order())
    bar = places["bar"]
    assert bar is not None and bar["bottom"] <= top and bar["left"] <= left + 1 and bar["right"] >= right - 1


def test_the_pages_are_told_the_rule():
    assert page_layout() == {"order": list(reading_order()), "operatives": "top"}
    assert reading_order()[:5] == (4, 3, 2, 1, 0) and reading_order()[-5:] == (24, 23, 22, 21, 20)


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_key_and_spectator_pages_by_the_rule_with_every_word_whole_from_a_phone_to_a_tv(companion, browser,
                                                                                            tmp_path, lang):
    tokens = Tokens(b"s" * 32)
    companion.publish(codenames_snapshot("g1", played(), tokens, LONGEST[lang]))
    page = browser.new_page()
    try:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            for name, path in (("spectator", "/"), ("key", f"/p/{tokens.token('g1', SPYMASTER)}")):
                page.goto(companion.base_url + path)
                page.wait_for_selector(".grid .cell.R")
                page.screenshot(path=str(tmp_path / f"{name}-{lang}-{width}.png"), full_page=True)
                by_the_rule(page.locator(".grid").evaluate(PLACES))
                assert page.evaluate(WHOLE) == {"broken": [], "overflow": 0}, (name, width)
                numbers = [page.locator(f'[data-cell="{cell}"] .number').inner_text() for cell in (0, 3, 24)]
                assert numbers == ["0", "3", "24"]  # a card shown or a card of the key: still numbered
        assert page.locator(".edge").inner_text() == "operatives' side"  # in the page's language (the table's: English)
    finally:
        page.close()


def test_the_pages_without_words_number_every_cell_and_fit_a_phone(companion, browser, tmp_path):
    tokens = Tokens(b"s" * 32)
    companion.publish(codenames_snapshot("g1", played(), tokens))
    page = browser.new_page(viewport={"width": 360, "height": 800})
    try:
        page.goto(f"{companion.base_url}/p/{tokens.token('g1', SPYMASTER)}")
        page.wait_for_selector(".grid .cell.R")
        page.screenshot(path=str(tmp_path / "key-360.png"))
        by_the_rule(page.locator(".grid").evaluate(PLACES))
        texts = [page.locator(f'[data-cell="{cell}"]').inner_text().split("\n") for cell in range(CELLS)]
        assert texts == [[str(cell), KEY[cell]] for cell in range(CELLS)]  # its number, and what it is
        assert page.evaluate(WHOLE)["overflow"] == 0
    finally:
        page.close()


def test_the_staff_pages_board_by_the_rule(tmp_path, browser):
    table = InProcessTable(tmp_path, dealt_key())
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        staff_login(page, table.base)
        page.wait_for_selector("#board span")
        page.screenshot(path=str(tmp_path / "staff.png"), full_page=True)
        places = page.locator("#board").evaluate(PLACES)
        by_the_rule(places)
        assert places["bar_text"] == "operatives' side"
        assert page.locator("#board span").all_inner_texts() == [str(cell) for cell in reading_order()]  # as shown
    finally:
        context.close()
        table.close()
