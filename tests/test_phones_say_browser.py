"""What the phones say (issue 63, item 4): the end of a game with who won, on the grid's pages and
Codex's ("Partita finita: vince la squadra blu", not "Finita: …" alone); a Codex seat's page
announces a message received and a Hacker's block, not only the phase."""

from __future__ import annotations

import pytest

from pi_table.engine import Rules, make_game, parse_action
from pi_table.engine.codex import Codex
from pi_table.engine.codex_actions import parse_codex_action
from pi_table.engine.codex_setup import parse_setup
from pi_table.web import Companion, Tokens, codenames_snapshot
from pi_table.web.codex_pages import codex_snapshot
from pi_table.web.tokens import seat_role

pytestmark = pytest.mark.browser

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red's nine agents in cells 0-8
SETUP = ("Moon:red:leader:1:K7QM Aleman:blue:hacker:2:X53T Viper:red:infiltrato:3:R8WD "
         "Falco:blue:leader:3:P2HN Nebbia:red:hacker:2:J4ZC Orso:blue:infiltrato:1:F9LB")
SENT = tuple(f"send {seat} {(seat + 1) % 6} position" for seat in range(6))  # each agent tells the next
DONE = tuple(f"done {seat}" for seat in range(6))
TOKENS = Tokens(b"0123456789abcdef0123456789abcdef")
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


class CodexGame:
    """A Codex game on the companion, each action applied here and the new view published."""

    def __init__(self, companion: Companion, *actions: str) -> None:
        self.companion, self.game = companion, Codex()
        self.state = self.game.start(parse_setup(SETUP))
        self.then(*actions)

    def then(self, *actions: str) -> None:
        for text in actions:
            self.state = self.game.apply(self.state, parse_codex_action(text))
        self.companion.publish(codex_snapshot("g1", self.game, self.state, TOKENS))


def test_the_phones_say_who_won_a_grid_game_and_a_codex_game(companion, browser):
    from playwright.sync_api import expect

    grid, codex = WON[companion.language]
    page = browser.new_page()
    try:
        companion.publish(codenames_snapshot("g1", red_won(), TOKENS))
        page.goto(companion.base_url + "/")
        expect(page.locator("#summary")).to_contain_text(grid)
        expect(page.locator("#status")).not_to_have_text("")
        CodexGame(companion, *SENT, "code 0 K7QM-J4ZC-R8WD", *DONE)  # Moon enters red's code
        expect(page.locator("#status")).to_have_text(codex)
    finally:
        page.close()


def test_a_codex_seat_announces_a_message_received_and_a_hackers_block(companion, browser):
    from playwright.sync_api import expect

    message, block = HEARD[companion.language]
    table = CodexGame(companion)
    moon, aleman = browser.new_page(), browser.new_page()
    try:
        aleman.goto(companion.link(TOKENS.token("g1", seat_role(1))))
        moon.goto(companion.link(TOKENS.token("g1", seat_role(0))))
        expect(aleman.locator("#app h2").first).to_be_visible()
        expect(moon.locator("#app h2").first).to_be_visible()
        table.then(*SENT)  # each agent tells the next its position: Moon's message goes to Aleman (seat 1)
        expect(aleman.locator("#said")).to_contain_text(message)
        if companion.language == "it":  # the page says "ad" before a name that begins with "a", as the table does
            expect(moon.locator("#app")).to_contain_text("hai mandato ad Aleman (posto 1)")
        table.then("block 1 0")  # Aleman, the blue Hacker, blocks Moon: told once the private step is over
        table.then(*DONE)
        expect(moon.locator("#said")).to_contain_text(block)
    finally:
        moon.close()
        aleman.close()
