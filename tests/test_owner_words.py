"""Words an owner tripped on (issue 62, 5), read on the staff page in Chromium as the owner reads
them, in both languages: the broker's button for a password given says what it does, a table's
name stands apart from its button, and the keyring's line says what is true when every key listed
is revoked. The table's answers are the shapes its sections send (``/staff/api/broker``,
``/staff/api/keys``), given by Playwright's routes so each state is drawn at once."""

from __future__ import annotations

import json

import pytest

from helpers_games import dealt_key
from helpers_staff import owner_login
from helpers_tables import StaffTable

pytestmark = [pytest.mark.browser, pytest.mark.daemon]

BROKER = {"installed": True, "helper": None, "ours": True, "address": "bar-uno.local", "port": 8883,
          "this_table": "bar-uno", "uses": True, "pending": None, "last": None, "refused": None,
          "tables": [{"name": "bar-uno", "broker": "mqtts://bar-uno@bar-uno.local:8883", "password": None},
                     {"name": "terrace", "broker": "mqtts://terrace@bar-uno.local:8883", "password": "to-give"}],
          "suggested": {"address": "bar-uno.local", "table": "bar-uno", "tables": ["terrace"]}}
REVOKED = {"keys": [{"name": "maker", "fingerprint": "SHA256:" + "A" * 43, "revoked": True}], "last": None}
SAID = {
    "en": {"given": "I have given this password: stop keeping it here",
           "this table": "bar-uno (this table) New password",
           "none may sign": "No key may sign an update: each one listed is revoked, and this table installs no "
                            "update until a key is added."},
    "it": {"given": "Ho consegnato questa password: non tenerla più qui",
           "this table": "bar-uno (questo tavolo) Nuova password",
           "none may sign": "Nessuna chiave può firmare un aggiornamento: quelle elencate sono revocate, e questo "
                            "tavolo non installa aggiornamenti finché non si aggiunge una chiave."},
}


def answering(answer: dict):
    """A route's handler: ``answer`` to the page's look, anything else to the table."""
    def handle(route) -> None:
        if route.request.method == "GET":
            route.fulfill(status=200, content_type="application/json", body=json.dumps(answer))
        else:
            route.continue_()
    return handle


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_broker_and_keys_sections_say_what_is_so_and_what_each_button_does(tmp_path, browser, lang):
    from playwright.sync_api import expect

    table = StaffTable(tmp_path, dealt_key(), lang)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    said = SAID[lang]
    for name, answer in (("broker", BROKER), ("keys", REVOKED)):
        page.route(f"**/staff/api/{name}", answering(answer))
    try:
        owner_login(page, table.base)
        expect(page.locator('#cafe-broker-tables button[data-table="terrace"]')).to_have_text(said["given"])
        own = page.locator("#cafe-broker-tables > li").first
        expect(own).to_have_text(said["this table"])
        assert own.evaluate("(item) => item.textContent") == said["this table"]  # the space in the text itself
        expect(page.locator("#keys-list > li")).to_have_count(1)
        expect(page.locator("#keys-line")).to_have_text(said["none may sign"])
    finally:
        context.close()
        table.close()


HOSTING = {**BROKER, "league": None, "hosting": {
    "league": "spring", "cafe": "bar-roma", "address": "bar-uno.local", "port": 8883, "sends": True,
    "cafes": [{"name": "bar-milano", "password": "milan-to-give"}, {"name": "bar-napoli", "password": None}],
    "page": {"broker": "mqtts://league@bar-uno.local:8883", "password": "page-to-give"}}}


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_league_hosted_on_the_broker_shows_each_cafes_handout_and_the_form_asks_it(tmp_path, browser, lang):
    """Issue 64: the broker section of a table hosting a league shows each café what it joins by
    (the league's name, address and port, the café's name, its password until given) and the
    league page's password and command; the form sends the cafés one a line, a password typed or
    none, as ``{"act": "host", ...}``."""
    from playwright.sync_api import expect

    table = StaffTable(tmp_path, dealt_key(), lang)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    posted: list[dict] = []

    def broker(route) -> None:
        if route.request.method == "GET":
            route.fulfill(status=200, content_type="application/json", body=json.dumps(HOSTING))
        else:
            posted.append(json.loads(route.request.post_data or "{}"))
            route.fulfill(status=202, content_type="application/json", body=json.dumps({"ok": True, "asked": 0}))

    page.route("**/staff/api/broker", broker)
    try:
        owner_login(page, table.base)
        milan = page.locator("#cafe-league-cafes > li").first
        expect(milan).to_contain_text("bar-uno.local")
        expect(milan).to_contain_text("milan-to-give")
        expect(milan.locator('button[data-table="bar-milano"]')).to_have_text(SAID[lang]["given"])
        expect(page.locator("#cafe-league-cafes > li").nth(1)).not_to_contain_text("to-give")  # given already
        expect(page.locator("#cafe-league-command")).to_have_text(
            "pi-table league --broker mqtts://league@bar-uno.local:8883 --broker-password-file league.password "
            "--ca pi-table-broker-ca.crt --league spring --roster roster.toml --host 0.0.0.0 --port 8026")
        expect(page.locator("#cafe-league-page")).to_contain_text("page-to-give")
        page.fill("#cafe-host-name", "spring")
        page.fill("#cafe-host-cafe", "bar-roma")
        page.fill("#cafe-host-cafes", "bar-milano\nbar-napoli  typed-one\n")
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#cafe-broker-host button[type=submit]").click()
        expect(page.locator("#cafe-host-cafes")).to_have_value("")  # the passwords typed: not left on the page
        assert posted == [{"act": "host", "league": "spring", "cafe": "bar-roma",
                           "cafes": {"bar-milano": "", "bar-napoli": "typed-one"}}]
    finally:
        context.close()
        table.close()
