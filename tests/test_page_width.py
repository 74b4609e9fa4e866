"""Pages that fit a phone whatever they hold (issue 62, 1): a listed release key's fingerprint did
not wrap and the whole staff page grew from 390 to 579 px, the fingerprint cut off and taps landing
on the wrong elements. Each page is filled with its longest realistic content (a fingerprint, long
names in both languages, many teams, a long error) and then every word it draws is given a long
unbreakable one beside it, as a path, an address or a fingerprint in an error would be: no page may
be wider than a 360 px phone, in English and in Italian."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pi_table.release.first_boot import pending
from pi_table.web import Companion, Tokens, codenames_snapshot

from helpers import PAST_THE_EDGE, require_tools, wait_for
from helpers_games import dealt_key
from helpers_staff import OWNER_PASSPHRASE, owner_unlocked, staff_login
from helpers_tables import StaffService, StaffTable

pytestmark = pytest.mark.browser

PHONE = 360
"""The narrowest phone a café's staff or players use."""
LONG = "SHA256:8Qf3kLw0ZrT1xYbN5vJmC2hGd9sPq4aUe7iOo6WcRnE"
"""The longest unbreakable word a page shows: a release key's fingerprint as ssh-keygen prints it."""
NIGHTS = {"en": "The Extraordinary Thursday Quiz League", "it": "Il Torneo Straordinario del Giovedì Sera"}
TEAMS = {"en": ("Incomprehensibilities FC", "Les Énigmes de Ste-Cathy"),
         "it": ("Precipitevolissimevolmen", "Straordinariamente-Lungo")}
"""A night's and teams' names as a café's regulars choose them, as long as the book takes (40 and 24)."""
SEATS = ("Precipitevolissimevolmente:red:leader:1:K7QM Aleman:blue:hacker:2:X53T Viper:red:infiltrato:3:R8WD "
         "Incomprehensibilities:blue:leader:3:P2HN Nebbia:red:hacker:2:J4ZC Orso:blue:infiltrato:1:F9LB")
"""A Codex game's six seats, two with long names."""
TOKENS = Tokens(b"0123456789abcdef0123456789abcdef")

LENGTHEN = """(word) => {
  // Every element that draws words of its own gets the long word beside them: a path, an address,
  // a fingerprint in any message the page can show. Form controls keep their values.
  for (const node of document.body.querySelectorAll('*')) {
    if (['SCRIPT', 'STYLE', 'OPTION', 'TEXTAREA', 'svg'].includes(node.tagName) || node.closest('svg')) continue;
    const own = [...node.childNodes].filter((child) => child.nodeType === 3 && child.textContent.trim());
    if (own.length) own[own.length - 1].textContent += ' ' + word;
  }
}"""


def too_wide(page, where: str) -> list[str]:
    """``where`` as the page is now, in a phone's width: what it is past the screen's edge, or nothing."""
    page.set_viewport_size({"width": PHONE, "height": 800})
    page.wait_for_timeout(200)
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    if wide <= PHONE:
        return []
    return [f"{where}: {wide} px wide on a {PHONE} px phone ({page.evaluate(PAST_THE_EDGE, PHONE)})"]


def filled(page, where: str) -> list[str]:
    """The page with its own content, then with the long word beside each of its words."""
    found = too_wide(page, where)
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.evaluate("() => document.querySelectorAll('[hidden]').forEach((n) => { n.hidden = false; })")
    page.evaluate(LENGTHEN, LONG)
    return found + too_wide(page, f"{where}, every word beside a fingerprint")


def release_keys(folder: Path) -> list[str]:
    """Two Ed25519 public lines, as the owner's computer makes them."""
    require_tools("ssh-keygen")
    lines = []
    for name in ("the-owner-of-the-cafe-on-the-corner", "the-maker"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{name}@cafe", "-f", str(folder / name)],
                       check=True)
        lines.append((folder / f"{name}.pub").read_text())
    return lines


@pytest.fixture(params=["en", "it"])
def lang(request) -> str:
    return request.param


def test_the_staff_page_fits_a_phone_with_its_keys_its_night_and_every_long_word(tmp_path, browser, lang):
    from pi_table.release.keys import Keyring

    (tmp_path / "table").mkdir()
    keyring = Keyring(tmp_path / "pi-table-keys")
    owner, maker = release_keys(tmp_path)
    keyring.add(owner, "the-owner-of-the-cafe-on-the-corner")
    keyring.add(maker, "the-maker")
    keyring.revoke("the-maker")
    table = StaffTable(tmp_path / "table", dealt_key(), lang)
    context = browser.new_context(viewport={"width": PHONE, "height": 800},
                                  locale="it-IT" if lang == "it" else "en-US")
    try:
        companion = table.daemon.companion
        assert companion is not None and companion.staff is not None
        keys = next(section for section in companion.staff.sections if section.name == "keys")
        keys.keyring = keyring  # type: ignore[attr-defined]
        book = table.daemon.night.book
        book.open(NIGHTS[lang], ["codenames"], ["1", "2"])
        for team in (*TEAMS[lang], "Quiz Club", "Night Shift"):
            book.join(team)
        book.propose()
        page = context.new_page()
        staff_login(page, table.base)
        page.wait_for_selector("#keys-list code")
        page.fill("#owner-passphrase", OWNER_PASSPHRASE)
        page.click("#owner-form button")
        owner_unlocked(page)
        page.wait_for_selector("#night-swap-one")
        assert filled(page, f"the staff page [{lang}]") == []
        teams = context.new_page()
        teams.goto(f"{table.base}/night")
        teams.wait_for_selector("input[name=team]")
        assert filled(teams, f"the teams' page [{lang}]") == []
    finally:
        context.close()
        table.close()


def test_the_set_up_page_fits_a_phone_with_every_long_word(tmp_path, browser, lang):
    service = StaffService(tmp_path, first_boot=True)
    assert pending(tmp_path / "journal") is not None
    context = browser.new_context(viewport={"width": PHONE, "height": 800})
    try:
        service.start()
        page = context.new_page()
        page.goto(f"{service.status()['companion']}/setup")
        page.wait_for_selector("#zones option", state="attached")
        page.select_option("#lang", lang)
        page.wait_for_selector(f"html[lang={lang}]")
        page.fill("#name", TEAMS[lang][1])  # refused: a table's name is a host's
        page.fill("#code", "0000 0000")
        page.click("#submit")
        page.wait_for_selector("[aria-invalid=true]")
        assert filled(page, f"the set-up page [{lang}]") == []
    finally:
        context.close()
        service.close()


def test_the_tv_and_the_phones_pages_fit_a_phone_with_every_long_word(browser, lang):
    from pi_table.engine import Rules, make_game
    from pi_table.web.snapshot import SPYMASTER

    companion = Companion("127.0.0.1", 0, language=lang)
    companion.start()
    context = browser.new_context(viewport={"width": PHONE, "height": 800})
    try:
        game = make_game(Rules())
        view = game.spymaster_view(game.start(game.parse_key(dealt_key())))
        words = tuple(("PRECIPITEVOLISSIMEVOLMENTE" if lang == "it" else "INCOMPREHENSIBILITIES",) * 25)
        companion.publish(codenames_snapshot("g1", view, TOKENS, words))
        for url, where in ((f"{companion.base_url}/", "the TV's page"),
                           (f"{companion.base_url}/p/{TOKENS.token('g1', SPYMASTER)}", "the key's page")):
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector(".grid .cell")
            assert filled(page, f"{where} [{lang}]") == []
            page.close()
        from pi_table.engine.codex import Codex
        from pi_table.engine.codex_setup import parse_setup
        from pi_table.web.codex_pages import codex_snapshot
        from pi_table.web.tokens import seat_role

        codex = Codex()  # six seats with the longest names a seat takes
        companion.publish(codex_snapshot("g2", codex, codex.start(parse_setup(SEATS)), TOKENS))
        page = context.new_page()
        page.goto(companion.link(TOKENS.token("g2", seat_role(0))))
        page.wait_for_selector("form[data-form=send] label.chip")
        assert filled(page, f"a Codex seat's page [{lang}]") == []
    finally:
        context.close()
        companion.stop()


def test_the_fleet_dashboard_fits_a_phone_with_many_long_named_tables(broker, browser, lang):
    from pi_table.config import broker as broker_config
    from pi_table.fleet.dashboard import Dashboard, hash_password
    from pi_table.fleet.reporter import Reporter

    dashboard = Dashboard(broker_config(broker.url), "127.0.0.1", 0, hash_password("café-tables-2026"), lang,
                          client_id=f"width-{lang}")
    dashboard.start()
    names = [f"terrazza-vicino-al-bancone-del-bar-{n}" for n in range(6)]
    reporters = [Reporter(broker_config(broker.url, table_id=name), act=lambda request: {"ok": True},
                          heartbeat_s=3600) for name in names]
    context = browser.new_context(viewport={"width": PHONE, "height": 800})
    try:
        wait_for(dashboard.connected.is_set, "the dashboard's subscription", 10)
        for reporter in reporters:
            reporter.start()
            wait_for(reporter.connected.is_set, "a table's link", 10)
            reporter.offer(STATUS)
        page = context.new_page()
        page.goto(f"{dashboard.url}/login")
        page.fill("input[name=password]", "café-tables-2026")
        page.click("button")
        wait_for(lambda: page.locator("#rows tr").count() >= len(names), "every table's row", 10)
        assert filled(page, f"the fleet dashboard [{lang}]") == []
    finally:
        context.close()
        for reporter in reporters:
            reporter.stop()
        dashboard.stop()


STATUS = {"version": "0.1.0", "game_id": "g1", "game": "codenames", "over": False, "began": 1e9, "at": 1e9,
          "state": {"game": "codenames", "board": "R" + "?" * 24, "phase": "guess", "clue": 2, "winner": None, "losers": []},
          "health": {"touch": "not working: the board is unplugged from /dev/i2c-1 at 0x5a, its cable loose",
                     "leds": "ok"}, "warnings": [], "uptime_s": 10.0, "events_dropped": 0}
"""A table's status as its reporter publishes it: in a game, with a long fault to show."""
