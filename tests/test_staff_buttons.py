"""Every button of the staff page, pressed in Chromium on a phone as the owner presses it: none
throws, none logs an error, and each one's result is where the owner's eyes are (issue 39: Reboot
and Shut down threw ``power is not a function`` while the tests called the API alone). Then the
page's scripts read for the mistake behind it: a name bound twice, one hiding the other."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_table.daemon.staff_desk import FakeDesk
from pi_table.web.sections import SECTIONS

from helpers_games import dealt_key
from helpers_staff import OWNER_PASSPHRASE, owner_login, part, staff_login
from helpers_tables import StaffTable as InProcessTable

pytestmark = [pytest.mark.browser, pytest.mark.daemon]

STATIC = Path(__file__).resolve().parent.parent / "pi_table" / "web" / "static"
SCRIPTS = ("staff.js", *(section.script for section in SECTIONS.values() if section.script))
"""The page's scripts: its own, then each section's (web/sections/)."""

LATE = ("owner-end", "restore", "tls-self", "logout", "restart")
"""Pressed last, by the test itself: the first locks the owner's actions, the others would
restart the table or end the session under the walk."""
MUST = ("undo", "end-game", "export-csv", "export-json", "log-refresh", "log-download", "backup-download",
        "update-look", "selftest-start", "tune-start", "reboot", "poweroff", "night-propose", "night-confirm",
        "night-withdraw", "night-csv", "night-trf", "night-print", "night-close", "tls-upload", "notify-test", *LATE)
"""The buttons the walk must have pressed, by their ids: it cannot pass by finding fewer."""
HANDLED = re.compile(r"^Failed to load resource: the server responded with a status of (400|401|403|404|409)\b")
"""Chromium's own console line for an answer the page reads as a refusal and says in words:
the walk counts every other console error (and a 401 by its request: ``refusals``)."""


def walk(page, seen: set[str], pressed: list[str]) -> None:
    """Press every visible, enabled button not in ``seen`` once (by its id, else its section and
    words), those of ``LATE`` held back; a button that appears on the way is pressed too."""
    from playwright.sync_api import Error as PlaywrightError

    for _ in range(200):
        handles = page.locator("button:visible:enabled").element_handles()
        names = [button.evaluate("(b) => b.id || `${(b.closest('section, form, header') || document.body).id}:"
                                 "${b.textContent.trim()}`") for button in handles]
        todo = [(name, button) for name, button in zip(names, handles, strict=True)
                if name not in seen and name not in LATE]
        if not todo:
            return
        name, button = todo[0]
        try:
            button.click(timeout=5000)
        except PlaywrightError as e:  # redrawn meanwhile (the page reads the table every 5 s): found again
            if "not attached" not in str(e):
                raise
            continue
        seen.add(name)
        pressed.append(name)
        settle(page)


def refusals(page) -> list[str]:
    """The requests ``page`` will have had refused as not logged in (401), but those in flight when
    its logout left, which the logout ended (the page reads the table every 5 s; one may have
    been sent just before the press)."""
    refused: list[str] = []
    live: set = set()  # the page's requests in flight
    racing: set = set()  # those in flight when the logout left

    def sent(request) -> None:
        if request.url.endswith("/staff/api/logout"):
            racing.update(live)  # not the logout itself: its session was to be alive
        live.add(request)

    page.on("request", sent)
    page.on("requestfinished", lambda request: live.discard(request))
    page.on("requestfailed", lambda request: live.discard(request))
    page.on("response", lambda response: refused.append(f"{response.request.method} {response.url}: 401")
            if response.status == 401 and response.request not in racing else None)
    return refused


def settle(page) -> None:
    """Until the page has no request in flight (its answers drawn)."""
    page.wait_for_function("() => (window.__inFlight || 0) === 0", timeout=10_000)
    page.wait_for_timeout(150)


IN_FLIGHT = """(() => {
  window.__inFlight = 0;
  const fetchOf = window.fetch;
  window.fetch = async (...args) => { window.__inFlight++; try { return await fetchOf(...args); }
                                      finally { window.__inFlight--; } };
})();"""


@pytest.mark.parametrize("lang", ["en", "it"])
def test_every_button_of_the_staff_page_works_on_a_phone(tmp_path, browser, lang):
    table = InProcessTable(tmp_path, dealt_key(), lang)
    context = browser.new_context(viewport={"width": 390, "height": 844}, accept_downloads=True)
    context.add_init_script(IN_FLIGHT)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.on("console", lambda message: errors.append(f"console: {message.text} ({message.location.get('url')})")
            if message.type == "error" and not HANDLED.match(message.text) else None)
    refused = refusals(page)
    answers = {"dialog": "accept"}
    page.on("dialog", lambda dialog: dialog.accept() if answers["dialog"] == "accept" else dialog.dismiss())
    seen: set[str] = set()
    pressed: list[str] = []
    try:
        owner_login(page, table.base)
        settle(page)
        ids = page.evaluate("() => [...document.querySelectorAll('[id]')].map((node) => node.id)")
        assert sorted({name for name in ids if ids.count(name) > 1}) == []  # a second one: $() finds the first alone
        # the owner's files refused, so the walk goes on without the restart a change of them makes
        page.fill("#broker-address", "mqtts://table:password@broker.example")
        page.fill("#blocked-words", "two words")
        page.fill("#notify-url", "not-an-apprise-url")  # refused: its save and its test say why
        walk(page, seen, pressed)
        assert "broker-form:" + {"en": "Save the broker", "it": "Salva il broker"}[lang] in pressed
        # what the first pass left hidden: a night with its teams, a backup chosen, two PINs that differ
        page.fill("#night-name", "Friday")
        page.click("#night-open button[type=submit]")
        for team in ("Owls", "Larks", "Wrens", "Finches"):  # one removed, one withdrawn and back: a round of three
            page.fill("#night-team", team)
            page.click("#night-join button")
            settle(page)
        backup = tmp_path / "backup.tar.gz"
        backup.write_bytes(part(table.daemon, "care").backup()[1])
        page.set_input_files("#restore-file", str(backup))
        for field, pin in (("#pin-old", "482916"), ("#pin-new", "111111"), ("#pin-again", "222222")):
            page.fill(field, pin)
        settle(page)
        walk(page, seen, pressed)
        assert not errors, (errors, pressed)
        page.click("#owner-end")
        answers["dialog"] = "dismiss"  # driven to its question, and nothing restored: the walk goes on
        page.click("#restore")
        page.click("#tls-self")
        answers["dialog"] = "accept"
        page.click("#logout")
        page.wait_for_selector("#login:visible")
        page.click("#recover summary")
        for field, value in (("#recover-code", "12345678"), ("#recover-pin", "111111"),
                             ("#recover-passphrase", OWNER_PASSPHRASE)):
            page.fill(field, value)
        walk(page, seen, pressed)  # the forgotten PIN's form
        staff_login(page, table.base)
        page.click("#restart")  # the in-process table stops: no systemd here to start it again
        page.wait_for_selector("#message:visible")
        pressed += LATE
        assert not [error for error in errors if "ERR_CONNECTION_REFUSED" not in error], errors  # the page waits it out
        assert refused == []  # no session lost on the way
        assert not [name for name in MUST if name not in pressed], (pressed, page.locator("#message").inner_text())
        assert "recover-form:" + {"en": "Set the new PIN", "it": "Imposta il nuovo PIN"}[lang] in pressed
        print(f"{len(pressed)} buttons pressed: {', '.join(pressed)}")
    finally:
        context.close()
        table.close()


# --- the mistake behind it, read in the scripts -------------------------------------------------

KEYWORDS = {"async", "await", "const", "let", "var", "function", "return", "true", "false", "null", "undefined", "new",
            "of", "in", "typeof"}


def _names(bound: str) -> list[str]:
    """The names a parameter list or a destructuring pattern binds: defaults and renamed keys
    (``{ a: b }`` binds b) left out."""
    bound = re.sub(r"=[^,)}\]]*", "", bound)
    bound = re.sub(r"\w+\s*:", "", bound)
    return [name for name in re.findall(r"[A-Za-z_$][\w$]*", bound) if name not in KEYWORDS]


def rebound(source: str) -> dict[str, list[int]]:
    """The names a module binds at its top level (its functions, constants, variables and
    imports) that it binds again inside (a local, a parameter, a destructured name, a function
    of its own), with the lines where: one hides the other there."""
    top = set(re.findall(r"^(?:export\s+)?(?:async\s+)?function\s+(\w+)", source, re.MULTILINE))
    top |= set(re.findall(r"^(?:export\s+)?(?:const|let|var)\s+([\w$]+)", source, re.MULTILINE))
    for imported in re.findall(r"^import\s*\{([^}]*)\}\s*from", source, re.MULTILINE):
        top |= set(_names(imported))
    found: dict[str, list[int]] = {}
    for number, line in enumerate(source.splitlines(), 1):
        inner = []
        if line.startswith((" ", "\t")):  # else the top level's own declarations
            inner += re.findall(r"(?<![\w$.])(?:const|let|var)\s+([\w$]+)", line)
            inner += re.findall(r"(?<![\w$.])function\s+([\w$]+)", line)
        for pattern in (r"(?:const|let|var)\s*[{\[]([^}\]]*)[}\]]\s*=", r"function\s*[\w$]*\s*\(([^)]*)\)",
                        r"\(([^()]*)\)\s*=>", r"catch\s*\(([^)]*)\)"):
            for bound in re.findall(pattern, line):
                inner += _names(bound)
        inner += re.findall(r"(?<![\w$.)])([A-Za-z_$][\w$]*)\s*=>", line)
        for name in inner:
            if name in top:
                found.setdefault(name, []).append(number)
    return found


@pytest.mark.parametrize("script", SCRIPTS)
def test_no_name_of_a_script_is_hidden_by_another_binding_of_it(script):
    assert rebound((STATIC / script).read_text()) == {}


def test_the_reading_finds_the_mistake_of_issue_39():
    before = """function consoleSections() {}
async function power(act) {}
function wireConsole() {
  const { health, power } = consoleSections();
  $("reboot").addEventListener("click", () => power("reboot"));
}
"""
    assert rebound(before) == {"power": [4]}
    assert rebound("function field() {}\nfunction show(problems) {\n  for (const field of problems) {}\n}\n") == {
        "field": [3]}
    assert rebound("import { say, t } from './staff.js';\nfunction draw(say) {\n  return t('x');\n}\n") == {"say": [2]}
    assert rebound("function draw() {}\nfunction other() {\n  const shown = (drawn) => drawn;\n}\n") == {}


def test_the_pages_scripts_are_modules_loaded_by_the_page_its_own_first(tmp_path):
    """The page as the table serves it loads staff.js, then each section's script, each a module
    (test_staff_sections.py: none imports another but staff.js)."""
    import urllib.request

    from pi_table.web import Companion

    from helpers_staff import staff_page

    companion = Companion(staff=staff_page(FakeDesk(), tmp_path))
    companion.start()
    try:
        with urllib.request.urlopen(f"{companion.base_url}/staff", timeout=10) as answer:
            served = answer.read().decode()
    finally:
        companion.stop()
    assert re.findall(r"<script[^>]*>", served) == [f'<script type="module" src="/staff/static/{name}">'
                                                    for name in SCRIPTS if name != "night.js"]  # no night kept here
    for script in SCRIPTS:
        assert '"use strict"' not in (STATIC / script).read_text()  # a module is strict by itself
