"""Pages anyone can use (issue 31): axe-core over every page the table serves, in both languages at
a phone's and a desk's width, with no serious or critical violation; the board a grid a screen
reader reads cell by cell; a Codex seat that keeps its keyboard focus; the staff login's rough edges.

axe-core comes from the npm registry (``npm pack``, pinned in AXE), cached beside the suite's other
downloads (``cache_dir``); it is run inside each page through Playwright, its rules as shipped."""

from __future__ import annotations

import fcntl
import shutil
import tarfile
import tempfile
from pathlib import Path

import pytest

from pi_table.engine import Rules, make_game, parse_action
from pi_table.engine.codex import Codex
from pi_table.engine.codex_setup import parse_setup
from pi_table.web import Companion, Tokens, codenames_snapshot
from pi_table.web.codex_pages import codex_snapshot
from pi_table.web.snapshot import SPYMASTER
from pi_table.web.tokens import seat_role

from helpers import STAFF_PIN, StaffTable, cache_dir, dealt_key, npm_packed, require_tools, staff_login, wait_for

pytestmark = pytest.mark.browser

AXE = ("axe-core", "4.10.3")
FAILING = ("serious", "critical")
"""The impacts that fail a page; the others are printed."""
WIDTHS = (390, 1280)
LANGS = ("en", "it")
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
MOVES = ("clue 2", "touch 3", "touch 9", "touch 24")  # a red card, a blue one and the assassin: every state shown
WORDS = {"en": ("APPLE BANK CASTLE DRAGON EAGLE FOREST GLASS HOTEL ICE JET KNIGHT LEMON MOON NEEDLE OPERA "
                "PIANO QUEEN ROBOT SHIP TOWER UMBRELLA VAN WHALE YARD ZEBRA"),
         "it": ("MELA BANCA CASTELLO DRAGO AQUILA FORESTA VETRO ALBERGO GHIACCIO AEREO CAVALIERE LIMONE LUNA AGO "
                "OPERA PIANO REGINA ROBOT NAVE TORRE OMBRELLO FURGONE BALENA CORTILE ZEBRA")}
SETUP = ("Moon:red:leader:1:K7QM Aleman:blue:hacker:2:X53T Viper:red:infiltrato:3:R8WD "
         "Falco:blue:leader:3:P2HN Nebbia:red:hacker:2:J4ZC Orso:blue:infiltrato:1:F9LB")
TOKENS = Tokens(b"0123456789abcdef0123456789abcdef")


@pytest.fixture(scope="module")
def axe() -> str:
    """axe-core's script, fetched once per pin into the CI cache."""
    require_tools("npm")
    name, version = AXE
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    script = cache / f"{name}-{version}" / "axe.min.js"
    with open(cache / "axe-core.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not script.exists():
            with tempfile.TemporaryDirectory() as download:
                with tarfile.open(npm_packed(name, version, Path(download))) as archive:
                    archive.extract("package/axe.min.js", download, filter="data")
                script.parent.mkdir(exist_ok=True)
                partial = script.with_suffix(".part")
                shutil.copy(Path(download) / "package" / "axe.min.js", partial)
                partial.rename(script)
    return script.read_text(encoding="utf-8")


def violations(page, axe: str, where: str) -> list[str]:
    """axe-core's violations on ``page`` as it is now: the serious and critical ones, each a line;
    the others are printed. (Evaluated through the DevTools protocol: the pages' CSP allows no
    script of the test's own.)"""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe)
    found = page.evaluate("() => axe.run(document).then((r) => r.violations.map((v) => "
                          "({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' '))})))")
    failing = []
    for violation in found:
        line = f"{where}: {violation['impact']} {violation['id']} ({violation['help']}) at {', '.join(violation['nodes'][:4])}"
        print(line)
        if violation["impact"] in FAILING:
            failing.append(line)
    return failing


class Browsing:
    """One phone in the test's language (a seat's link opens on one phone only); each page is
    checked at every width, and no page asks for a file that is not there (an icon, a script: the
    pages' own requests may answer 404, as /night/standings does with no night open)."""

    def __init__(self, browser, axe: str, lang: str) -> None:
        self.axe, self.lang = axe, lang
        self.context = browser.new_context(locale="it-IT" if lang == "it" else "en-GB")
        self.failing: list[str] = []
        self.missing: list[str] = []

    def check(self, url: str, name: str, ready: str, act=None) -> None:
        page = self.context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        page.on("response", lambda response: self.missing.append(response.url) if response.status == 404
                and response.request.resource_type not in ("fetch", "xhr", "eventsource") else None)  # a file, not an answer
        try:
            page.goto(url)
            if act is not None:
                act(page)
            page.wait_for_selector(ready)
            icon = page.evaluate("() => (document.querySelector('link[rel~=icon]') || new URL('/favicon.ico', location.href)).href")
            if not icon.startswith("data:") and page.request.get(icon).status == 404:  # the browser asks for it by itself
                self.missing.append(icon)
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 844})
                page.wait_for_timeout(300)  # laid out again, the last fetches answered (the icon among them)
                self.failing += violations(page, self.axe, f"{name} [{self.lang}, {width} px]")
        finally:
            page.close()

    def done(self) -> None:
        self.context.close()
        assert not self.failing, "\n".join(self.failing)
        assert not self.missing, f"asked for and not found: {self.missing}"


def played(actions=MOVES):
    game = make_game(Rules())
    state = game.start(game.parse_key(KEY))
    for text in actions:
        state = game.apply(state, parse_action(text))
    return game.spymaster_view(state)


@pytest.fixture(params=LANGS)
def lang(request) -> str:
    return request.param


@pytest.fixture
def companion(lang):
    companion = Companion("127.0.0.1", 0, language=lang)
    companion.start()
    yield companion
    companion.stop()


def test_axe_finds_nothing_serious_on_the_grid_pages(companion, browser, axe, lang):
    pages = Browsing(browser, axe, lang)
    key = f"{companion.base_url}/p/{TOKENS.token('g1', SPYMASTER)}"
    for words in (None, tuple(WORDS[lang].split())):  # a real table's cards, and a simulated one's words
        companion.publish(codenames_snapshot("g1", played(), TOKENS, words))
        pages.check(companion.base_url + "/", f"spectators' page (words: {bool(words)})", ".grid .cell.A")
        pages.check(key, f"the key's page (words: {bool(words)})", ".grid .cell.A.shown")
    pages.done()


def test_axe_finds_nothing_serious_on_the_codex_pages(companion, browser, axe, lang):
    pages = Browsing(browser, axe, lang)
    game = Codex()
    state = game.start(parse_setup(SETUP))
    companion.publish(codex_snapshot("g1", game, state, TOKENS))
    seat = companion.link(TOKENS.token("g1", seat_role(0)))
    pages.check(seat, "a Codex seat", "form[data-form=send] label.chip")
    pages.check(companion.base_url + "/", "Codex's public page", ".agents")
    pages.done()


def test_axe_finds_nothing_serious_on_the_staff_page(tmp_path, browser, axe, lang):
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
        pages.check(f"{table.base}/staff", "the staff login", "#login:not([hidden])")
        table.guess(table.key.index("R"))
        pages.check(f"{table.base}/staff", "the staff page", "#board span.R", log_in)
        pages.done()
    finally:
        table.close()


def test_axe_finds_nothing_serious_on_the_fleet_dashboard(broker, browser, axe, lang):
    from pi_table.config import broker as broker_config
    from pi_table.fleet.dashboard import Dashboard, hash_password

    dashboard = Dashboard(broker_config(broker.url), "127.0.0.1", 0, hash_password("café-tables-2026"), lang,
                          client_id=f"a11y-{lang}")
    dashboard.start()
    try:
        wait_for(dashboard.connected.is_set, "the dashboard's subscription", 10)
        pages = Browsing(browser, axe, lang)

        def sign_in(page) -> None:
            page.fill("input[name=password]", "café-tables-2026")
            page.click("button")

        pages.check(f"{dashboard.url}/login", "the fleet's login", "input[name=password]")
        pages.check(f"{dashboard.url}/login", "the fleet dashboard", "table thead th", sign_in)
        pages.done()
    finally:
        dashboard.stop()


# --- the board to a screen reader, a seat's focus, the staff login --------------------------------

def ax_grid(page) -> list[list[str]]:
    """The grid as Chromium's accessibility tree has it: each row's cells, by their names."""
    nodes = {node["nodeId"]: node for node in page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]}
    def role(node):
        return node.get("role", {}).get("value")

    def named(node):
        return node.get("name", {}).get("value")

    def below(node, wanted):
        for child in (nodes[i] for i in node.get("childIds", []) if i in nodes):
            yield from [child] if role(child) == wanted else below(child, wanted)

    grid = next(node for node in nodes.values() if role(node) == "grid")
    return [[named(cell) for cell in below(row, "gridcell")] for row in below(grid, "row")]


def test_the_board_is_a_grid_of_rows_each_cell_named_by_number_word_and_state(tmp_path, browser):
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
        rows = ax_grid(page)
        assert [[name.split()[0] for name in row] for row in rows] == [[str(c) for c in order[r * 5:r * 5 + 5]] for r in range(5)]
        names = {int(name.split()[0]): name for row in rows for name in row}
        assert names[3] == "3 DRAGO agente rosso, carta scoperta" and names[0] == "0 MELA agente rosso, carta coperta"
        assert page.get_attribute('[data-cell="3"] .word', "lang") == "it"
        page.goto(companion.base_url + "/")
        page.wait_for_selector(".grid .cell.A")
        names = {int(name.split()[0]): name for row in ax_grid(page) for name in row}
        assert names[0] == "0 MELA carta coperta" and names[24] == "24 ZEBRA assassino, carta scoperta"
    finally:
        page.close()
        companion.stop()
    table = StaffTable(tmp_path, dealt_key(), "it")
    context = browser.new_context()
    page = context.new_page()
    try:
        table.guess(table.key.index("A"))
        staff_login(page, table.base)
        page.wait_for_selector("#board span.A")
        rows = ax_grid(page)
        assert [[name.split(",")[0] for name in row] for row in rows] == [[str(c) for c in order[r * 5:r * 5 + 5]] for r in range(5)]
        assert f"{table.key.index('A')}, assassino, carta scoperta" in [name for row in rows for name in row]
        assert page.get_attribute("#board", "aria-label") == "la griglia"
        assert page.get_attribute("#new-game-game", "aria-label") == "Partita"
    finally:
        context.close()
        table.close()


def test_a_codex_seat_keeps_its_keyboard_focus_through_a_choice_and_the_tables_updates(browser):
    from pi_table.engine.codex_actions import parse_codex_action

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
