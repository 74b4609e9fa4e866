"""Pages anyone can use (issues 31 and 41): axe-core over every page and state the table serves, in
both languages at a small phone's, a phone's and a desk's width (tests/browsing.py), with no serious or critical
violation, no sideways scrolling on a phone, and the pages' Content-Security-Policy on (a style or a
script it blocks fails the page); live regions that speak only when their words change; a keyboard
walk over each page while the page updates itself, which fails when the focus falls to the body or
moves; the board a table a screen reader reads cell by cell; each page titled by its game and role.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pi_table.daemon.restarts import EXIT_RESTART
from pi_table.engine import Rules, make_game, parse_action
from pi_table.engine.codex import Codex
from pi_table.engine.codex_actions import parse_codex_action
from pi_table.engine.codex_setup import parse_setup
from pi_table.hal import TimerState
from pi_table.release.first_boot import pending
from pi_table.web import Companion, Tokens, codenames_snapshot
from pi_table.web.codex_pages import codex_snapshot
from pi_table.web.snapshot import SPYMASTER
from pi_table.web.tokens import seat_role

from browsing import LIVE, PHONE, WATCH_LIVE, Browsing, axe  # noqa: F401 (axe: a fixture)
from helpers import wait_for
from helpers_games import dealt_key
from helpers_staff import STAFF_PIN, staff_login
from helpers_tables import StaffService, StaffTable

pytestmark = pytest.mark.browser

LANGS = ("en", "it")
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
MOVES = ("clue 2", "touch 3", "touch 9", "touch 24")  # a red card, a blue one and the assassin: every state shown
WORDS = {"en": ("APPLE BANK CASTLE DRAGON EAGLE FOREST GLASS HOTEL ICE JET KNIGHT LEMON MOON NEEDLE OPERA "
                "PIANO QUEEN ROBOT SHIP TOWER UMBRELLA VAN WHALE YARD ZEBRA"),
         "it": ("MELA BANCA CASTELLO DRAGO AQUILA FORESTA VETRO ALBERGO GHIACCIO AEREO CAVALIERE LIMONE LUNA AGO "
                "OPERA PIANO REGINA ROBOT NAVE TORRE OMBRELLO FURGONE BALENA CORTILE CONCHIGLIA")}
"""A simulated table's words; CONCHIGLIA, the longest of the Italian list, in the corner cell."""
SETUP = ("Moon:red:leader:1:K7QM Aleman:blue:hacker:2:X53T Viper:red:infiltrato:3:R8WD "
         "Falco:blue:leader:3:P2HN Nebbia:red:hacker:2:J4ZC Orso:blue:infiltrato:1:F9LB")
SENT = tuple(f"send {seat} {(seat + 1) % 6} position" for seat in range(6))
DONE = tuple(f"done {seat}" for seat in range(6))
VOTED = tuple(f"vote {seat} {0 if seat == 1 else 1}" for seat in range(6))
CODEX_STEPS = {  # every step of a Codex game, and how it is reached from the deal
    "messages": (), "private": SENT, "discussion": SENT + DONE, "vote": SENT + DONE + ("end-discussion",),
    "truth": SENT + DONE + ("end-discussion",) + VOTED, "over": SENT + ("code 0 K7QM-J4ZC-R8WD",) + DONE,
}
TICKING = TimerState(length_s=180, remaining_s=95, warn_s=30, enforced=True, running=True)
TOKENS = Tokens(b"0123456789abcdef0123456789abcdef")


STAFF_MODULES = {"loadTable": "staff", "loadHealth": "health", "loadOwner": "owner", "loadNight": "night"}


def refresh(*loads: str) -> str:
    """A script that runs the staff page's own background refreshes (``loads``, each exported by
    its module, which an import of the page's URL gives back as loaded) and waits for them."""
    calls = ", ".join(f'import("/staff/static/{STAFF_MODULES[load]}.js").then((module) => module.{load}(true))'
                      for load in loads)
    return f"() => Promise.all([{calls}])"


def drawn(pages, selector: str, act: Callable[[], object]) -> None:
    """Do ``act`` (a publish, a refresh) and wait until each of ``pages`` (one, or a list) has drawn
    ``selector`` again."""
    pages = pages if isinstance(pages, list) else [pages]
    for page in pages:
        page.evaluate("""(selector) => { window.__drawn = new Promise((done, failed) => {
          const seen = new MutationObserver(() => { seen.disconnect(); done(); });
          seen.observe(document.querySelector(selector), {childList: true, subtree: true, characterData: true, attributes: true});
          setTimeout(() => failed(new Error(`${selector} was not drawn again within 15 s`)), 15000);
        }); }""", selector)
    act()
    for page in pages:
        page.evaluate("() => window.__drawn")


MARK = """() => {
  const here = document.activeElement;
  window.__stop = here;
  return here === document.body || !here ? '' : (here.id ? '#' + here.id : here.tagName.toLowerCase() + ' "' +
    (here.getAttribute('aria-label') || here.name || here.textContent || here.value || '').trim().slice(0, 30) + '"');
}"""
STILL = """() => {
  const now = document.activeElement, was = window.__stop;
  if (now === was || (was.id && now && now.id === was.id)) return '';
  return now === document.body || !now ? 'the body' : (now.id ? '#' + now.id : now.tagName.toLowerCase());
}"""


def keyboard_walk(page, update: Callable[[], object], where: str, stops: int = 90) -> list[str]:
    """Tab through ``page``; at each stop the page updates itself (``update``: what its timers or
    the table would do), and the focus must stay where the keyboard put it. The stops it lost."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    lost, seen = [], []
    for _ in range(stops):
        page.keyboard.press("Tab")
        here = page.evaluate(MARK)
        if not here or here in seen[-1:]:
            if seen:  # past the last stop: back to the page
                break
            continue
        seen.append(here)
        update()
        moved = page.evaluate(STILL)
        if moved:
            lost.append(f"{where}: the focus on {here} went to {moved} as the page updated")
    assert len(seen) > 1, f"{where}: the keyboard reached nothing"
    return lost


def played(actions=MOVES):
    game = make_game(Rules())
    state = game.start(game.parse_key(KEY))
    for text in actions:
        state = game.apply(state, parse_action(text))
    return game.spymaster_view(state)


def codex_at(step: str, timer: TimerState | None = None):
    """A Codex game's snapshot at ``step`` (CODEX_STEPS), the discussion's with its clock running."""
    game = Codex()
    state = game.start(parse_setup(SETUP))
    for text in CODEX_STEPS[step]:
        state = game.apply(state, parse_codex_action(text))
    assert state.step == step
    return codex_snapshot("g1", game, state, TOKENS, timer=timer if step == "discussion" else None)


@pytest.fixture(params=LANGS)
def lang(request) -> str:
    return request.param


@pytest.fixture
def companion(lang):
    companion = Companion("127.0.0.1", 0, language=lang)
    companion.start()
    yield companion
    companion.stop()


def night_under_way(table: StaffTable, proposed: bool = True) -> None:
    """A game night on the table's book: four teams, a round confirmed, the next one proposed (or none)."""
    book = table.daemon.night.book
    book.open("Friday league", ["codenames"], ["1", "2"])
    for team in ("The Owls", "Quiz Club", "Night Shift", "Les Énigmes"):
        book.join(team)
    if proposed:
        book.propose()


# --- axe, reflow and the policy over every page and state -----------------------------------------

def test_axe_finds_nothing_serious_on_the_grid_pages(companion, browser, axe, lang):
    pages = Browsing(browser, axe, lang)
    key = f"{companion.base_url}/p/{TOKENS.token('g1', SPYMASTER)}"
    for words in (None, tuple(WORDS[lang].split())):  # a real table's cards, and a simulated one's words
        companion.publish(codenames_snapshot("g1", played(), TOKENS, words))
        pages.visit(companion.base_url + "/", f"spectators' page (words: {bool(words)})", ".grid .cell.A")
        pages.visit(key, f"the key's page (words: {bool(words)})", ".grid .cell.A.shown")
    pages.done()


def test_axe_finds_nothing_serious_on_every_step_of_the_codex_pages(companion, browser, axe, lang):
    pages = Browsing(browser, axe, lang)
    companion.publish(codex_at("messages"))
    seat = pages.open(companion.link(TOKENS.token("g1", seat_role(0))), "form[data-form=send] label.chip")
    public = pages.open(companion.base_url + "/", ".agents")
    try:
        for step in CODEX_STEPS:
            if step != "messages":
                drawn([seat, public], "#app", lambda step=step: companion.publish(codex_at(step, TICKING)))
            pages.check(seat, f"a Codex seat ({step})")
            pages.check(public, f"Codex's public page ({step})")
    finally:
        pages.close(seat)
        pages.close(public)
    pages.done()


def test_axe_finds_nothing_serious_on_the_staff_page_with_and_without_a_night(tmp_path, browser, axe, lang):
    table = StaffTable(tmp_path, dealt_key(), lang)
    pages = Browsing(browser, axe, lang)

    def log_in(page) -> None:
        page.fill("#pin", "wrong-pin")  # a refusal on show first, then the desk
        page.click("#login button")
        page.wait_for_selector("#pin[aria-invalid=true]")
        page.fill("#pin", STAFF_PIN)
        page.click("#login button")
        page.wait_for_selector("#history tr")
        page.wait_for_selector("#config details")
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")  # every section

    try:
        pages.visit(f"{table.base}/staff", "the staff login", "#login:not([hidden])")
        table.guess(table.key.index("R"))
        table.guess(table.key.index("B"))  # a red and a blue card on the board: its white-on-colour cells
        page = pages.open(f"{table.base}/staff", "#board [role=cell].R", log_in)
        pages.check(page, "the staff page")
        night_under_way(table)
        drawn(page, "#night-section", lambda: page.evaluate(refresh("loadNight")))
        page.wait_for_selector("#night-swap-one")
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        pages.check(page, "the staff page with a night open and a round proposed")
        pages.context.on("page", pages.watch)
        table.daemon.night.book.confirm()  # a round on the page to print: its cross-table too (issue 76, item 11)
        with pages.context.expect_page() as opened:
            page.click("#night-print")
        printed = opened.value
        printed.wait_for_selector("[role=region]:nth-of-type(2) table td")
        assert printed.evaluate("() => getComputedStyle(document.querySelector('td')).borderTopStyle") == "solid"
        pages.check(printed, "the night's page to print")
        printed.close()
        pages.close(page)
        pages.done()
    finally:
        table.close()


def test_axe_finds_nothing_serious_on_the_set_up_page_from_its_form_to_done(tmp_path, browser, axe, lang):
    """A table fresh from the SD image (docs/dev/first-boot.md): its set-up page in the reader's
    language, as it opens, refusing a wrong code beside its button, and done."""
    service = StaffService(tmp_path, first_boot=True)
    waiting = pending(tmp_path / "journal")
    assert waiting is not None
    pages = Browsing(browser, axe, lang)

    def in_language(page) -> None:
        page.wait_for_selector("#zones option", state="attached")
        page.select_option("#lang", lang)
        page.wait_for_selector(f"html[lang={lang}]")

    try:
        service.start()
        base = service.status()["companion"]
        page = pages.open(f"{base}/setup", "#submit", in_language)
        pages.check(page, "the set-up page")
        for field, value in (("#code", "0000 0000"), ("#name", "table-7"), ("#zone", "Etc/UTC"), ("#pin", "739120"),
                             ("#pin-again", "739120"), ("#passphrase", "the café's own table 7"),
                             ("#passphrase-again", "the café's own table 7")):
            page.fill(field, value)
        page.click("#submit")
        page.wait_for_selector("#code[aria-invalid=true]")
        pages.check(page, "the set-up page refusing a wrong code")
        page.fill("#code", waiting.shown)
        page.click("#submit")
        page.wait_for_selector("#done:not([hidden])")
        assert service.exited() == EXIT_RESTART  # the table restarts on its settings: the page stays, alone
        pages.check(page, "the set-up page, done", served=False)
        pages.close(page)
        pages.done()
    finally:
        service.close()


def test_axe_finds_nothing_serious_on_the_nights_pages_for_the_teams_and_the_spectators(tmp_path, browser, axe, lang):
    table = StaffTable(tmp_path, dealt_key(), lang)
    pages = Browsing(browser, axe, lang)

    def join(page) -> None:
        page.fill("input[name=team]", "The Owls")
        page.click("button[type=submit]")

    try:
        pages.visit(f"{table.base}/night", "the teams' page with no night open", "input[name=team]")
        night_under_way(table)
        page = pages.open(f"{table.base}/night", "input[name=team]")
        assert page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('input')).fontSize)") >= 16
        pages.check(page, "the teams' page")
        pages.close(page)
        pages.visit(f"{table.base}/night", "the teams' page, a team refused", ".said", join)  # a name already taken
        spectators = pages.open(f"{table.base}/", "#standings tr.standing")
        assert "null" not in spectators.inner_text("#standings")  # no round confirmed yet, one proposed
        pages.check(spectators, "the spectators' page with a night open")
        pages.close(spectators)
        book = table.daemon.night.book
        made = book.confirm()
        book.result(1, made.pairs[0].table, "forfeit", "staff", winner=made.pairs[0].red)
        spectators = pages.open(f"{table.base}/", "#standings table.crosstable td")
        pages.check(spectators, "the spectators' page with the night's cross-table")
        pages.close(spectators)
        pages.done()
    finally:
        table.close()


def test_axe_finds_nothing_serious_on_the_page_that_refuses_another_phone(companion, browser, axe, lang):
    companion.publish(codex_at("messages"))
    link = companion.link(TOKENS.token("g1", seat_role(0)))
    first = browser.new_context()
    first.new_page().goto(link)
    pages = Browsing(browser, axe, lang)
    try:
        page = pages.open(link, "body")
        assert page.evaluate("() => document.documentElement.lang") == lang
        assert page.title() and "pi-table" != page.title()
        pages.check(page, "the refusal of another phone")
        pages.close(page)
        pages.done()
    finally:
        first.close()


def test_axe_finds_nothing_serious_on_the_fleet_dashboard(broker, browser, axe, lang):
    from pi_table.config import broker as broker_config
    from pi_table.fleet.dashboard import Dashboard, hash_password
    from pi_table.fleet.reporter import Reporter

    dashboard = Dashboard(broker_config(broker.url), "127.0.0.1", 0, hash_password("café-tables-2026"), lang,
                          client_id=f"a11y-{lang}")
    dashboard.start()
    reporter = Reporter(broker_config(broker.url, table_id="terrazza-vicino-al-bar"), act=lambda request: {"ok": True},
                        heartbeat_s=3600)
    reporter.start()
    try:
        wait_for(dashboard.connected.is_set, "the dashboard's subscription", 10)
        wait_for(reporter.connected.is_set, "the table's link", 10)
        pages = Browsing(browser, axe, lang)

        def sign_in(page) -> None:
            page.fill("input[name=password]", "café-tables-2026")
            page.click("button")

        pages.visit(f"{dashboard.url}/login", "the fleet's login", "input[name=password]")
        reporter.offer(STATUS)
        page = pages.open(f"{dashboard.url}/login", "#rows tr", sign_in)
        pages.check(page, "the fleet dashboard with a table")
        boards = iter(["RB" + "?" * 23, "R" + "?" * 24] * 50)  # a card revealed and taken back: the row drawn again
        lost = keyboard_walk(page, lambda: drawn(page, "#rows", lambda: reporter.offer(
            {**STATUS, "state": {**STATUS["state"], "board": next(boards)}})), "the fleet dashboard")
        pages.close(page)
        pages.done()
        assert lost == []
    finally:
        reporter.stop()
        dashboard.stop()


def test_axe_finds_nothing_serious_on_the_league_page_and_it_writes_its_numbers_and_dates_in_the_readers_language(
        broker, browser, axe, lang, tmp_path):
    """Issue 73: the league's page, a visitor's and the organiser's sign-in, at every width (and
    issue 76: with nights held and void, the organiser's forms opened and sent by keyboard); its
    ratings and the cafés' last contact written by Intl in the page's language (no ISO date, no
    "9.28" in Italian), its time zone said once, a refused night said in words; and it keeps
    itself up to date by fetch into a polite live region: the page is never loaded again."""
    import json
    import re

    from pi_table.config import broker as broker_config
    from pi_table.fleet.dashboard import hash_password
    from pi_table.fleet.league import EDITED, HELD, VOIDED, night_topic
    from pi_table.fleet.league_page import LeaguePage

    from helpers_fleet import sent, two_cafes_season

    league, roster, played = two_cafes_season(tmp_path)
    served = LeaguePage(broker_config(broker.url), league, "127.0.0.1", 0, lang, client_id=f"a11y-league-{lang}",
                        every_s=1, password_hash=hash_password("organiser-secret"), roster=roster)
    cafe, host, night = played[0]
    stranger = {**json.loads(sent(night, cafe, host)[1]), "cafe": "bar-napoli"}
    served.league.take(night_topic("spring", "bar-napoli", host, night.id), json.dumps(stranger).encode())
    served.start()
    try:
        pages = Browsing(browser, axe, lang)
        pages.visit(f"{served.url}/login", "the league's sign-in", "input[name=password]")
        page = pages.open(served.url, "main table")
        loads = []
        page.on("framenavigated", lambda frame: loads.append(frame.url) if frame == page.main_frame else None)
        pages.check(page, "the league's page")
        ratings = page.locator("main table").first.locator("tbody tr td:last-child").all_inner_texts()
        decimal = "," if lang == "it" else "."
        assert ratings and all(re.fullmatch(rf"-?\d+\{decimal}\d\d", rating) for rating in ratings), ratings
        text = page.inner_text("main")
        assert not re.search(r"\d{4}-\d\d-\d\d|\d+/\d+/\d\d\b", text), text  # no ISO date, no two-digit year
        assert text.count(page.get_attribute("main", "data-zone")) == 1
        assert "league.night" not in text
        headings = page.locator("#season h2").all_inner_texts()
        served.league.take(night_topic("spring", "bar-napoli", host, night.id), b"")  # the refused night taken back
        page.wait_for_function("() => document.getElementById('kit-said').textContent !== ''", timeout=10_000)
        # no night refused now, and the stranger's café, heard from by no night the league keeps, is gone too
        assert page.locator("#season h2").all_inner_texts() == [h for h in headings[:-1] if "bar-napoli" not in h]
        pages.close(page)
        assert loads == []  # the page was never loaded again
        # issue 76, 1: a night held, one voided and a result edited, shown to a visitor and to the organiser, whose
        # forms open, fill and send from the keyboard alone
        league = served.league
        for event, (cafe, host, night) in ((HELD, played[1]), (VOIDED, played[3])):
            league.keep(league.decision(event, (cafe, host, night.id), "organiser", "a result is disputed"))
        cafe, host, night = played[0]
        pair = night.rounds[0].pairs[0]
        league.keep(league.decision(EDITED, (cafe, host, night.id), "organiser", "the score sheet", 1, pair.table, "void"))
        pages.visit(served.url, "the league's page with nights held and void", "#season ol")

        def sign_in(page) -> None:
            page.fill("input[name=password]", "organiser-secret")
            page.click("button")

        page = pages.open(f"{served.url}/login", "#season summary", sign_in)
        page.locator("#season summary").first.focus()
        page.keyboard.press("Enter")  # the first night's decision opens: the night held
        page.wait_for_selector("#season details[open] form[action='/result']")
        pages.check(page, "the organiser's league page, a night's decision open")
        page.keyboard.press("Tab")  # its decision: restore, first
        page.keyboard.press("Tab")
        page.keyboard.type("settled at the desk")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        page.wait_for_selector("main [role=status]")
        assert league.standing((played[1][0], played[1][1], played[1][2].id)).state == "counted"
        pages.check(page, "the organiser's league page, a night restored")
        pages.close(page)
        pages.done()
    finally:
        served.stop()


STATUS = {"version": "0.1.0", "game_id": "g1", "game": "codenames", "over": False, "began": 1e9, "at": 1e9,
          "state": {"game": "codenames", "board": "R" + "?" * 24, "phase": "guess", "clue": 2, "winner": None, "losers": []},
          "health": {"touch": "not working: the board is unplugged", "leds": "ok"}, "warnings": [], "uptime_s": 10.0,
          "events_dropped": 0}
"""A table's status as its reporter publishes it: in a game, with a fault to show."""


# --- the keyboard's place, the live regions, the titles -------------------------------------------

class CodexTable:
    """A Codex game the companion's seats play: each action a page sends is applied and published."""

    def __init__(self, companion: Companion, step: str = "messages") -> None:
        self.companion, self.game = companion, Codex()
        self.state = self.game.start(parse_setup(SETUP))
        for text in CODEX_STEPS[step]:
            self.state = self.game.apply(self.state, parse_codex_action(text))
        companion.act = self.act
        self.publish()

    def act(self, game_id: str, role: str, text: str):
        from pi_table.engine import InvalidAction, RuleError
        from pi_table.web.codex_pages import seat_action

        try:
            self.state = self.game.apply(self.state, seat_action(int(role.removeprefix("seat-")), text))
        except (InvalidAction, RuleError) as refusal:
            return refusal.phrase
        self.publish()
        return None

    def then(self, text: str) -> None:
        self.state = self.game.apply(self.state, parse_codex_action(text))
        self.publish()

    def publish(self, timer: TimerState | None = None) -> None:
        self.companion.publish(codex_snapshot("g1", self.game, self.state, TOKENS, timer=timer))


def test_a_keyboard_walk_on_the_phones_pages_keeps_its_place_as_they_update(companion, browser, lang):
    words = tuple(WORDS[lang].split())
    views = [codenames_snapshot("g1", played(MOVES[:n]), TOKENS, words) for n in (2, 3)]
    shown = [0]

    def next_view() -> None:
        shown[0] = 1 - shown[0]
        companion.publish(views[shown[0]])

    companion.publish(views[0])
    context = browser.new_context(locale="it-IT" if lang == "it" else "en-GB", viewport={"width": PHONE, "height": 844})
    lost = []
    try:
        for url, name in ((companion.base_url + "/", "the spectators' page"),
                          (f"{companion.base_url}/p/{TOKENS.token('g1', SPYMASTER)}", "the key's page")):
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector(".grid [role=cell]")
            lost += keyboard_walk(page, lambda page=page: drawn(page, "#app", next_view), name)
            for _ in range(2):  # another language, and back: the page is said again in it
                other = page.locator("#languages .chip[aria-pressed=false]")
                code = other.get_attribute("lang")
                other.focus()
                page.keyboard.press("Enter")
                page.wait_for_selector(f"#languages .chip[lang={code}][aria-pressed=true]")
                page.wait_for_selector(".grid [role=cell]")
                assert page.evaluate("() => document.activeElement.closest('#languages') !== null"), \
                    f"{name}: a language chip lost the focus"
            page.close()
        table = CodexTable(companion, "private")
        seat = context.new_page()
        seat.goto(companion.link(TOKENS.token("g1", seat_role(0))))
        seat.wait_for_selector("button.chip.fragment")
        others = iter(range(1, 6))
        lost += keyboard_walk(seat, lambda: drawn(seat, "#app", lambda: table.then(f"done {next(others)}")), "a Codex seat",
                              stops=4)
        seat.locator("button.chip.fragment").first.focus()
        seat.keyboard.press("Enter")  # the fragment fills the first box, and its chip is spent
        seat.wait_for_selector("button.chip.fragment[disabled]")
        assert seat.evaluate("() => document.activeElement !== document.body"), "a spent fragment chip dropped the focus"
        table = CodexTable(companion, "messages")
        seat.goto(companion.link(TOKENS.token("g1", seat_role(0))))
        seat.wait_for_selector("form[data-form=send] label.chip")
        seat.focus("#send-to-1")
        seat.keyboard.press("Space")
        seat.focus("form[data-form=send] .choices:nth-of-type(2) input")
        seat.keyboard.press("Space")
        seat.focus("#send-submit")
        seat.keyboard.press("Enter")  # sent: the form is gone, and the page says the message is on its way
        seat.wait_for_selector("form[data-form=send]", state="detached")
        assert seat.evaluate("() => document.activeElement !== document.body"), "Send dropped the focus"
    finally:
        context.close()
    assert lost == []


def test_a_keyboard_walk_on_the_staff_page_with_a_night_keeps_its_place_as_it_updates(tmp_path, browser):
    table = StaffTable(tmp_path, dealt_key())
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    try:
        night_under_way(table)
        staff_login(page, table.base)
        page.wait_for_selector("#night-swap-one")
        page.wait_for_selector("#headline:not(:empty)")
        lost = keyboard_walk(page, lambda: page.evaluate(
            refresh("loadTable", "loadHealth", "loadOwner", "loadNight")), "the staff page")
        page.focus("#night-swap-one")
        page.keyboard.press("ArrowDown")  # a choice being made, which the night's refresh must keep
        chosen = page.evaluate("() => document.activeElement.value")
        page.evaluate(refresh("loadNight"))
        page.wait_for_timeout(5500)  # and the page's own refresh
        assert page.evaluate("() => [document.activeElement.id, document.activeElement.value]") == ["night-swap-one", chosen]
        assert lost == []
    finally:
        context.close()
        table.close()


def test_a_keyboard_walk_on_the_teams_page_reaches_its_form(tmp_path, browser):
    table = StaffTable(tmp_path, dealt_key())
    page = browser.new_page()
    try:
        night_under_way(table)
        page.goto(f"{table.base}/night")
        assert keyboard_walk(page, lambda: None, "the teams' page") == []
    finally:
        page.close()
        table.close()


def test_live_regions_speak_only_when_their_words_change(tmp_path, companion, browser, axe):
    pages = Browsing(browser, axe, "en")
    table = CodexTable(companion, "discussion")
    try:
        public = pages.open(companion.base_url + "/", ".agents")
        for second in (95, 94, 93):  # the discussion's clock, which the table sends every second
            drawn(public, "#app", lambda second=second: table.publish(
                TimerState(length_s=180, remaining_s=second, warn_s=30, enforced=True, running=True)))
        pages.close(public)
        staff = StaffTable(tmp_path, dealt_key())
        try:
            night_under_way(staff, proposed=False)
            spectators = pages.open(f"{staff.base}/", "#standings tr.standing")
            spectators.evaluate("() => standings().then(() => standings())")
            pages.close(spectators)
            page = pages.open(f"{staff.base}/staff", "#headline:not(:empty)", lambda page: staff_login(page, staff.base))
            page.evaluate(refresh("loadHealth", "loadOwner", "loadNight"))
            page.evaluate(refresh("loadHealth", "loadOwner", "loadNight"))
            pages.close(page)
        finally:
            staff.close()
        assert pages.failing == []
    finally:
        pages.context.close()


@pytest.mark.parametrize("private", [False, True])
def test_the_turn_and_each_reveal_are_announced_once_politely(browser, private):
    """A touch at the table changes the pages: a screen reader hears the card revealed and the
    turn that follows, once, and nothing when the page first opens (it is read as a whole); a
    clue's number is heard as it is entered (before, only the turn that followed it)."""
    words = tuple(WORDS["en"].split())
    companion = Companion("127.0.0.1", 0)
    companion.start()
    companion.publish(codenames_snapshot("g1", played(()), TOKENS, words))
    page = browser.new_page()
    try:
        page.goto(f"{companion.base_url}/p/{TOKENS.token('g1', SPYMASTER)}" if private else companion.base_url + "/")
        page.wait_for_selector(".grid [role=cell]")
        said = page.locator("[aria-live=polite].said")
        assert said.count() == 1 and said.inner_text() == ""
        page.evaluate(WATCH_LIVE, LIVE)
        heard = []
        for moves in (MOVES[:1], MOVES[:2], MOVES[:3], MOVES):
            drawn(page, "#app", lambda moves=moves: companion.publish(codenames_snapshot("g1", played(moves), TOKENS, words)))
            heard.append(said.inner_text())
        assert heard[:3] == ["Red is in its guess phase. Clue 2", "3 DRAGON revealed: red agent",
                             "9 JET revealed: blue agent. Blue is in its clue phase"]
        assert heard[3].startswith("24 ZEBRA revealed: assassin. Game over: the red team wins (")
        assert page.evaluate("() => window.__repeats") == []
    finally:
        page.close()
        companion.stop()


@pytest.mark.parametrize("lang, titles", [
    ("en", ("Codenames · spectators", "Codenames · the key", "Codex · Moon, seat 0", "Codex · spectators")),
    ("it", ("Nome in codice · spettatori", "Nome in codice · la chiave", "Codex · Moon, posto 0", "Codex · spettatori")),
])
def test_each_phone_page_is_titled_by_its_game_and_its_reader(browser, lang, titles):
    companion = Companion("127.0.0.1", 0, language=lang)
    companion.start()
    page = browser.new_page()
    try:
        companion.publish(codenames_snapshot("g1", played(), TOKENS))
        for url, title in ((companion.base_url + "/", titles[0]), (f"{companion.base_url}/p/{TOKENS.token('g1', SPYMASTER)}", titles[1])):
            page.goto(url)
            page.wait_for_selector(".grid [role=cell]")
            assert page.title() == title
        companion.publish(codex_at("messages"))
        for url, title in ((companion.link(TOKENS.token("g1", seat_role(0))), titles[2]), (companion.base_url + "/", titles[3])):
            page.goto(url)
            page.wait_for_selector(".agents", state="attached")
            assert page.title() == title
    finally:
        page.close()
        companion.stop()


CONTRAST = """(selector) => [...document.querySelectorAll(selector)].map((node) => {
  // WCAG's contrast ratio of the node's text on its own background (both opaque, as these are).
  const rgb = (colour) => colour.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const luminance = (colour) => rgb(colour).map((c) => c / 255).map((c) => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
  const style = getComputedStyle(node), [a, b] = [luminance(style.color), luminance(style.backgroundColor)];
  return [node.textContent.trim(), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
})"""


def test_the_staff_boards_cells_and_codex_done_button_read_at_4_5_to_1(tmp_path, companion, browser):
    """Text at the size these are drawn needs 4.5:1 (WCAG 1.4.3): the staff board's red and blue
    cells, and Codex's Done button, measured as drawn (axe leaves some of them to a person)."""
    table = StaffTable(tmp_path, KEY)
    page = browser.new_page(viewport={"width": PHONE, "height": 844})
    try:
        for cell in (0, 9):
            table.guess(cell)
        staff_login(page, table.base)
        page.wait_for_selector("#board .B")
        low = [(text, ratio) for text, ratio in page.evaluate(CONTRAST, "#board .R, #board .B") if ratio < 4.5]
        CodexTable(companion, "private")
        page.goto(companion.link(TOKENS.token("g1", seat_role(0))))
        page.wait_for_selector("#done-submit")
        low += [(text, ratio) for text, ratio in page.evaluate(CONTRAST, "#done-submit") if ratio < 4.5]
        assert low == []
    finally:
        page.close()
        table.close()


# --- the staff page: nothing changes the table but an act, nothing said before it is asked --------

def test_a_setting_at_hand_changes_the_table_only_when_applied(tmp_path, browser):
    table = StaffTable(tmp_path, dealt_key())
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    try:
        staff_login(page, table.base)
        before = table.config.read_text()
        language = page.locator("#at-hand select[name='game.language']")
        language.focus()
        page.keyboard.press("ArrowDown")  # a keyboard user reading the choices
        page.wait_for_timeout(1500)
        assert language.input_value() == "it" and table.daemon.config.language == "en"
        assert table.config.read_text() == before and page.locator("#message").is_hidden()
        assert page.evaluate("() => document.activeElement.name") == "game.language"
        page.click("#at-hand button[type=submit]")
        page.wait_for_function("() => document.getElementById('message').textContent.includes('Saved and applied')")
        wait_for(lambda: table.daemon.config.language == "it", "the language applied")
    finally:
        context.close()
        table.close()


def test_the_nights_games_are_chosen_by_their_names_in_the_pages_language(tmp_path, browser):
    """The owner ticks "Nome in codice" and "Alias 24" on an Italian staff page: the night allows
    the games by their ids, which no one types."""
    table = StaffTable(tmp_path, dealt_key(), "it")
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    try:
        staff_login(page, table.base)
        games = page.locator("#night-games label")
        games.first.wait_for()
        assert games.all_inner_texts() == ["Nome in codice", "Nome in codice (in cooperativa)", "Alias 24",
                                        "Nome in codice con il tavolo come capo dell'agenzia", "Codex"]
        page.fill("#night-name", "Venerdì")
        page.get_by_label("Alias 24", exact=True).check()
        page.click("#night-open button[type=submit]")
        page.wait_for_selector("#night-open", state="hidden")
        assert table.daemon.night.book.current().games == ("codenames", "alias24")
    finally:
        context.close()
        table.close()


def test_a_fresh_staff_page_says_nothing_before_anything_is_asked(tmp_path, browser):
    """Before the PIN is typed the page has asked the table nothing a session would need: no red
    "log in first" greets the staff."""
    table = StaffTable(tmp_path, dealt_key())
    page = browser.new_page()
    try:
        page.goto(f"{table.base}/staff")
        page.wait_for_selector("#login:not([hidden])")
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(500)
        assert page.locator("#message").is_hidden() and page.inner_text("#message") == ""
    finally:
        page.close()
        table.close()


# --- the board: a table read cell by cell, its words whole and readable -----------------------------

def ax_table(page, name: str = "la griglia") -> list[list[str]]:
    """The board (the table ``name``d so) as Chromium's accessibility tree has it: each row's cells,
    by their names; and no grid anywhere."""
    nodes = {node["nodeId"]: node for node in page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]}

    def role(node):
        return node.get("role", {}).get("value")

    def named(node):
        return node.get("name", {}).get("value")

    def below(node, wanted):
        for child in (nodes[i] for i in node.get("childIds", []) if i in nodes):
            yield from [child] if role(child) == wanted else below(child, wanted)

    tables = [node for node in nodes.values() if role(node) == "table" and named(node) == name]
    assert len(tables) == 1 and not [node for node in nodes.values() if role(node) in ("grid", "gridcell")]
    return [[named(cell) for cell in below(row, "cell")] for row in below(tables[0], "row")]


def test_the_board_is_a_table_of_rows_each_cell_named_by_number_word_and_state(tmp_path, browser):
    """The ARIA table pattern (a static structure, read cell by cell), not a grid of widgets."""
    from pi_table.ui.orientation import page_layout

    order = page_layout()["order"]
    companion = Companion("127.0.0.1", 0, language="it")
    companion.start()
    words = WORDS["it"].split()
    companion.publish(codenames_snapshot("g1", played(), TOKENS, tuple(words)))
    page = browser.new_page()
    try:
        page.goto(f"{companion.base_url}/p/{TOKENS.token('g1', SPYMASTER)}")
        page.wait_for_selector(".grid .cell.A.shown")
        rows = ax_table(page)
        assert [[name.split()[0] for name in row] for row in rows] == [[str(c) for c in order[r * 5:r * 5 + 5]] for r in range(5)]
        names = {int(name.split()[0]): name for row in rows for name in row}
        assert names[3] == "3 DRAGO agente rosso, carta coperta" and names[0] == "0 MELA agente rosso, da scoprire"
        assert page.get_attribute('[data-cell="3"] .word', "lang") == "it"
        page.goto(companion.base_url + "/")
        page.wait_for_selector(".grid .cell.A")
        names = {int(name.split()[0]): name for row in ax_table(page) for name in row}
        assert names[0] == "0 MELA da scoprire" and names[24] == "24 CONCHIGLIA assassino, carta coperta"
    finally:
        page.close()
        companion.stop()
    table = StaffTable(tmp_path, dealt_key(), "it")
    context = browser.new_context()
    page = context.new_page()
    try:
        table.guess(table.key.index("A"))
        staff_login(page, table.base)
        page.wait_for_selector("#board .A")
        rows = ax_table(page)
        assert [[name.split(",")[0] for name in row] for row in rows] == [[str(c) for c in order[r * 5:r * 5 + 5]] for r in range(5)]
        assert f"{table.key.index('A')}, assassino, carta coperta" in [name for row in rows for name in row]
        assert page.get_attribute("#board", "aria-label") == "la griglia"
        assert page.get_attribute("#new-game-game", "aria-label") == "Partita"
    finally:
        context.close()
        table.close()


def test_the_cards_words_stay_whole_and_readable_on_a_small_phone(browser):
    """Every word within its cell at 360 px, none drawn smaller than 12 px (the Italian list's
    longest, CONCHIGLIA, among them): a long word takes a second line rather than shrink."""
    companion = Companion("127.0.0.1", 0, language="it")
    companion.start()
    companion.publish(codenames_snapshot("g1", played(), TOKENS, tuple(WORDS["it"].split())))
    page = browser.new_page(viewport={"width": 360, "height": 740})
    try:
        page.goto(companion.base_url + "/")
        page.wait_for_selector(".grid .cell .word")
        cells = page.evaluate("""() => [...document.querySelectorAll('.grid .cell')].map((cell) => {
          const word = cell.querySelector('.word'), inner = cell.getBoundingClientRect(), box = word.getBoundingClientRect();
          return [word.textContent, parseFloat(getComputedStyle(word).fontSize), box.left >= inner.left && box.right <= inner.right,
                  word.scrollWidth <= word.clientWidth];
        })""")
        assert [cell for cell in cells if cell[1] < 12 or not cell[2] or not cell[3]] == []
    finally:
        page.close()
        companion.stop()


def test_a_codex_seat_keeps_its_keyboard_focus_through_a_choice_and_the_tables_updates(browser):
    companion = Companion("127.0.0.1", 0)
    companion.start()
    game = Codex()
    state = game.start(parse_setup(SETUP))
    companion.publish(codex_snapshot("g1", game, state, TOKENS))
    page = browser.new_page()
    try:
        page.goto(companion.link(TOKENS.token("g1", seat_role(0))))
        page.wait_for_selector("form[data-form=send] label.chip")
        page.focus("#send-to-2")
        page.keyboard.press("Space")  # a choice: the page is drawn again
        page.wait_for_selector("#send-to-2:checked")
        assert page.evaluate("document.activeElement.id") == "send-to-2"
        state = game.apply(state, parse_codex_action("send 1 0 position"))  # another agent acts: an update
        companion.publish(codex_snapshot("g1", game, state, TOKENS))
        page.wait_for_function("() => document.querySelector('.agents').textContent.includes('sent')")
        assert page.evaluate("document.activeElement.id") == "send-to-2"
    finally:
        page.close()
        companion.stop()


def test_the_staff_login_marks_a_wrong_pin_and_focuses_the_heading_and_the_pages_chips_are_48_px(tmp_path, browser):
    table = StaffTable(tmp_path, dealt_key(), "it")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{table.base}/staff")
        pin = page.locator("#pin")
        assert pin.get_attribute("inputmode") is None  # a PIN may hold letters: the full keyboard
        pin.fill("wrong-pin")
        page.click("#login button")
        page.wait_for_selector("#pin[aria-invalid=true]")
        assert pin.get_attribute("aria-describedby") == "message"
        pin.fill(STAFF_PIN)
        page.click("#login button")
        page.wait_for_selector("#desk:not([hidden])")
        assert page.evaluate("document.activeElement.id") == "heading"
        assert pin.get_attribute("aria-invalid") is None
        scroll = page.locator("#history").locator("xpath=..")
        assert scroll.get_attribute("tabindex") == "0" and scroll.get_attribute("aria-labelledby") == "history-heading"
        page.goto(table.base + "/")
        page.wait_for_selector("#languages .chip")
        assert all(box["height"] >= 48 for box in (chip.bounding_box() for chip in page.locator("#languages .chip").all()))
    finally:
        context.close()
        table.close()
