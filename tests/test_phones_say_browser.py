"""What the phones say (issue 63, item 4): the end of a game with who won, on the grid's pages and
Codex's ("Partita finita: vince la squadra blu", not "Finita: …" alone); a Codex seat's page
announces a message received and a Hacker's block, not only the phase."""

from __future__ import annotations

import pytest
from test_a11y import DONE, SENT, TOKENS, CodexTable, codex_at

from pi_table.engine import Rules, make_game, parse_action
from pi_table.web import Companion, codenames_snapshot
from pi_table.web.tokens import seat_role

pytestmark = pytest.mark.browser

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red's nine agents in cells 0-8
WON = {"en": ("Game over: the red team wins (", "Game over: the red faction wins"),
       "it": ("Partita finita: vince la squadra rossa (", "Partita finita: vince la fazione rossa")}
HEARD = {"en": ("Message received: ", "A Hacker blocked you"),
         "it": ("Comunicazione ricevuta: ", "Un Hacker ti ha bloccato")}


@pytest.fixture(params=["en", "it"])
def companion(request):
    companion = Companion("127.0.0.1", 0, language=request.param)
    companion.start()
    yield companion
    companion.stop()


def red_won():
    game = make_game(Rules())
    state = game.start(game.parse_key(KEY))
    for text in ("clue unlimited", *(f"touch {cell}" for cell in range(9))):
        state = game.apply(state, parse_action(text))
    return game.spymaster_view(state)


def test_the_phones_say_who_won_a_grid_game_and_a_codex_game(companion, browser):
    from playwright.sync_api import expect

    grid, codex = WON[companion.language]
    page = browser.new_page()
    try:
        companion.publish(codenames_snapshot("g1", red_won(), TOKENS))
        page.goto(companion.base_url + "/")
        expect(page.locator("#summary")).to_contain_text(grid)
        expect(page.locator("#status")).not_to_have_text("")
        companion.publish(codex_at("over"))
        expect(page.locator("#status")).to_have_text(codex)
    finally:
        page.close()


def test_a_codex_seat_announces_a_message_received_and_a_hackers_block(companion, browser):
    from playwright.sync_api import expect

    message, block = HEARD[companion.language]
    table = CodexTable(companion, "messages")
    moon, aleman = browser.new_page(), browser.new_page()
    try:
        aleman.goto(companion.link(TOKENS.token("g1", seat_role(1))))
        moon.goto(companion.link(TOKENS.token("g1", seat_role(0))))
        expect(aleman.locator("#app h2").first).to_be_visible()
        expect(moon.locator("#app h2").first).to_be_visible()
        for text in SENT:  # each agent sends its next one its position: Moon's message goes to Aleman (seat 1)
            table.then(text)
        expect(aleman.locator("#said")).to_contain_text(message)
        if companion.language == "it":  # the page says "ad" before a name that begins with "a", as the table does
            expect(moon.locator("#app")).to_contain_text("hai mandato ad Aleman (posto 1)")
        table.then("block 1 0")  # Aleman, the blue Hacker, blocks Moon: told once the private step is over
        for text in DONE:
            table.then(text)
        expect(moon.locator("#said")).to_contain_text(block)
    finally:
        moon.close()
        aleman.close()
