"""Every page of every server in Debian's Chromium (issue 73): the routes come from each server's
router (tests/walk.py), not from a list kept by hand, so a page a new server adds is checked the
day it is served. In both languages:

- axe-core on every page, signed in and not, at a small phone's, a phone's and a desk's width
  (tests/browsing.py: no serious or critical violation, no sideways scrolling, nothing the page's
  policy blocks);
- Lighthouse's accessibility audit on each kind of page (``Server.kinds``), 100 each;
- the English-leak check on each kind of Italian page: 30 loads each with every answer the page asks for
  held back a short random while, and no English sentence of the catalogue ever on the page once
  it is drawn.

tests/test_a11y.py goes deeper on each page's states (a game's every step, the keyboard's place);
this file goes wide."""

from __future__ import annotations

import fcntl
import json
import os
import random
import re
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pi_table.config import broker as broker_config
from pi_table.fleet.dashboard import Dashboard, hash_password
from pi_table.fleet.league import HELD, VOIDED
from pi_table.fleet.league_page import LeaguePage
from pi_table.ui.messages import parse_po, po_path
from pi_table.web import Tokens
from pi_table.web.snapshot import SPYMASTER

from browsing import WIDTHS, Browsing, axe  # noqa: F401 (axe: a fixture)
from helpers import cache_dir, require_tools
from helpers_fleet import two_cafes_season
from helpers_games import dealt_key
from helpers_phones import CHROMIUM
from helpers_staff import STAFF_CONFIG, Staff
from helpers_tables import StaffService, StaffTable
from walk import pages_of, running, signed_in

pytestmark = pytest.mark.browser

PASSWORD = "organiser-secret-26"
NO_BROKER = broker_config("mqtt://127.0.0.1:1")  # the fleet's pages answer while their broker is away
LIGHTHOUSE = ("lighthouse", "12.8.2")
LOADS = 30
HELD_S = (0.0, 0.1)
"""How long each answer a page asks for is held back: a short random while, so that they arrive in
every order (the words before the data, or after)."""


STRANGER = "a stranger"


OWN_WORDS = """() => {
  // the page's own words: a part it marks as another language's (the log's English lines) left out
  for (const other of document.querySelectorAll('body [lang]:not([lang|="it"])')) other.remove();
  return document.body.innerText;
}"""


@dataclass
class Server:
    """One server of the house: its address, who visits it (by name, the cookies each holds: a
    stranger none) and its pages as each finds them (a path, the visitor, its status)."""

    name: str
    base: str
    visitors: dict[str, str]
    own: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Where a visitor sees a page of its own though a stranger is shown one there too (the staff
    page signed in); where a stranger is refused, a visitor's page is its own anyway."""
    pages: list[tuple[str, str, int]] = field(default_factory=list)

    def kinds(self) -> list[tuple[str, str]]:
        """Each kind of page it serves (a path, and the visitor it is served to): a stranger's, and
        each visitor's own, answered 200."""
        strangers = {path for path, visitor, status in self.pages if visitor == STRANGER and status == 200}
        return [(path, visitor) for path, visitor, status in self.pages if status == 200 and (
            visitor == STRANGER or path not in strangers or path in self.own.get(visitor, ()))]

    def visit_as(self, visitor: str, context) -> None:
        """``context`` holds ``visitor``'s cookies."""
        cookie = self.visitors[visitor]
        if cookie:
            context.add_cookies([{"name": name, "value": value, "url": self.base + "/"}
                                 for name, _, value in (part.partition("=") for part in cookie.split("; "))])


def found(server: Server, serving, port: int, filled: dict | None = None) -> Server:
    """``server`` with the pages its router answers (walk.pages_of) to each of its visitors."""
    who = {cookie: visitor for visitor, cookie in server.visitors.items()}
    server.pages = [(path, who[cookie], status)
                    for path, cookie, status, _, _ in pages_of(serving, port, tuple(who), filled)]
    return server


def opened(base: str, path: str) -> str:
    """The cookie a phone is given as the first to open ``path`` (a seat's page is its from then on)."""
    with urllib.request.urlopen(base + path, timeout=10) as answer:
        return "; ".join(cookie.split(";", 1)[0] for cookie in answer.headers.get_all("Set-Cookie"))


@pytest.fixture(scope="module", params=("en", "it"))
def house(request, tmp_path_factory) -> Iterator[tuple[str, list[Server]]]:
    """Every server pi-table runs, in one language, each with something to show: a table with a
    night under way and a game dealt (the phones' pages, the staff page, the night's pages), a
    fresh table waiting for its set-up, the fleet's dashboard and a league's page with a season."""
    lang = request.param
    folder = tmp_path_factory.mktemp(f"house-{lang}")
    with ExitStack() as stack:
        (folder / "table").mkdir()
        table = StaffTable(folder / "table", dealt_key(), lang=lang)
        stack.callback(table.close)
        book = table.daemon.night.book
        book.open("Friday league", ["codenames"], ["1", "2"])
        for team in ("The Owls", "Quiz Club"):
            book.join(team)
        companion = table.daemon.companion
        assert companion is not None
        staff = Staff(table.base)
        staff.login()
        game_id = staff.call("GET", "/staff/api/table")[1]["game_id"]
        key = Tokens.kept_in(folder / "table" / "journal").token(game_id, SPYMASTER)
        session = "; ".join(f"{cookie.name}={cookie.value}" for cookie in staff.cookies)
        visitors = {STRANGER: "", "the spymaster's phone": opened(table.base, f"/p/{key}"), "staff": session}
        servers = [found(Server("table", table.base, visitors, {"staff": ("/staff",)}), companion, companion.port,
                         {"token": [key]})]

        (folder / "fresh").mkdir()
        fresh = StaffService(folder / "fresh", config=STAFF_CONFIG + f'[game]\nlanguage = "{lang}"\n',
                             first_boot=True)
        fresh.start()
        stack.callback(fresh.close)
        base = fresh.status()["companion"].rstrip("/")
        servers.append(Server("set-up", base, {STRANGER: ""}, pages=[("/setup", STRANGER, 200)]))

        league, roster, played = two_cafes_season(folder)
        for event, (cafe, host, night) in ((HELD, played[1]), (VOIDED, played[3])):  # a night waiting, one void (76)
            league.keep(league.decision(event, (cafe, host, night.id), "organiser", "a result is disputed"))
        for serving, name in ((Dashboard(NO_BROKER, "127.0.0.1", 0, hash_password(PASSWORD), lang,
                                         client_id=f"every-page-fleet-{lang}"), "fleet dashboard"),
                              (LeaguePage(NO_BROKER, league, "127.0.0.1", 0, lang, client_id=f"every-page-league-{lang}",
                                          password_hash=hash_password(PASSWORD), roster=roster), "league")):
            stack.enter_context(running(serving))
            visitors = {STRANGER: "", "the organiser": signed_in(serving.port, PASSWORD)}
            servers.append(found(Server(name, serving.url.rstrip("/"), visitors, {"the organiser": ("/",)}), serving,
                                 serving.port))
        yield lang, servers


def test_axe_finds_nothing_serious_on_every_page_of_every_server(house, browser, axe):
    lang, servers = house
    seen = 0
    failing: list[str] = []
    for server in servers:
        for visitor in server.visitors:
            paths = [(path, status) for path, by, status in server.pages if by == visitor]
            pages = Browsing(browser, axe, lang)
            server.visit_as(visitor, pages.context)
            for path, status in paths:
                url = server.base + path
                pages.visit(url, f"{server.name} {path} ({status}, {visitor})", "main")
                if status != 200:  # a refusal is a page, served with its status
                    pages.missing = [missing for missing in pages.missing if missing != url]
                seen += 1
            try:
                pages.done()
            except AssertionError as failed:
                failing.append(str(failed))
    print(f"axe [{lang}]: {seen} pages of {len(servers)} servers, each at {len(WIDTHS)} widths")
    assert not failing, "\n".join(failing)
    assert seen >= 10, seen  # the phones' five, the staff page twice, the set-up's, the fleet's and the league's


@pytest.fixture(scope="module")
def lighthouse() -> Path:
    """Where npm installed Lighthouse (pinned in LIGHTHOUSE), once per pin into the CI cache."""
    require_tools("npm", "node", CHROMIUM)
    name, version = LIGHTHOUSE
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    installed = cache / f"{name}-{version}"
    with open(cache / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (installed / "node_modules" / name / "package.json").exists():
            done = subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(installed),
                                   f"{name}@{version}"], capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                require_tools(also_missing=(f"the npm package {name}@{version} (npm install: {done.stderr.strip()[-200:]})",))
    return installed


def test_lighthouse_gives_every_page_100_for_accessibility(house, lighthouse):
    lang, servers = house
    asked = [{"url": server.base + path, "cookie": server.visitors[visitor], "visitor": visitor}
             for server in servers for path, visitor in server.kinds()]
    done = subprocess.run(["node", str(Path(__file__).with_name("lighthouse.mjs")), str(lighthouse)],
                          input=json.dumps(asked), capture_output=True, text=True, timeout=900,
                          env={**os.environ, "CHROME_PATH": CHROMIUM})
    assert done.returncode == 0, done.stderr[-2000:]
    scores = json.loads(done.stdout)
    for score, page in zip(scores, asked, strict=True):
        print(f"Lighthouse [{lang}] {score['url']} ({page['visitor']}): {round(score['score'] * 100)}")
    assert len(scores) >= 11, scores
    assert [score for score in scores if score["score"] < 1] == [], scores


def english_sentences() -> list[str]:
    """The catalogue's English that its Italian does not keep: each entry's parts between its
    fields, of three words or more (a shorter part can be a name both languages share)."""
    italian = parse_po(po_path("it").read_text(encoding="utf-8"))
    parts = set()
    for english, translated in italian.items():
        for part in re.split(r"\{[^}]*\}|%\([^)]*\)[sd]|\n", english):
            part = part.strip(" .,:;!?()\"'…")
            if len(part.split()) >= 3 and part not in translated:
                parts.add(part)
    return sorted(parts, key=len, reverse=True)


@pytest.mark.parametrize("house", ["it"], indirect=True)  # the Italian pages alone
def test_no_italian_page_of_any_server_shows_english_in_30_loads_with_its_answers_held_back(house, browser):
    _, servers = house
    from playwright.sync_api import expect

    english = english_sentences()
    assert len(english) > 500, len(english)
    chance = random.Random(73)

    def held(route) -> None:
        time.sleep(chance.uniform(*HELD_S))
        route.continue_()

    found_english: list[str] = []
    loads = 0
    for server in servers:
        for visitor in server.visitors:
            paths = [path for path, by in server.kinds() if by == visitor]
            context = browser.new_context(locale="it-IT", viewport={"width": 390, "height": 844})
            try:
                server.visit_as(visitor, context)
                for path in paths:
                    for load in range(LOADS):
                        page = context.new_page()
                        page.route(re.compile(r".*/(api|staff|setup|night|season|events)\b.*"), held)
                        page.goto(server.base + path)
                        expect(page.locator("main").first).to_be_attached()
                        page.wait_for_timeout(250)  # the last answer held back arrives, and the page draws it
                        text = page.title() + "\n" + page.evaluate(OWN_WORDS)
                        found_english += [f"{server.name} {path}, load {load}: {sentence!r}"
                                          for sentence in english if sentence in text]
                        loads += 1
                        page.close()
            finally:
                context.close()
    print(f"English-leak check: {loads} loads of Italian pages, {len(found_english)} English sentences seen")
    assert not found_english, "\n".join(found_english[:20])
    kinds = sum(len(server.kinds()) for server in servers)
    assert kinds >= 11 and loads == kinds * LOADS, (kinds, loads)
