"""Issue 58, 5: a new staff phone during an attack still gets in within a minute, confirmed at the
table. A polite flood (hundreds of fresh addresses, each asking as a person does) ties with a new
staff phone in the line for the budget of devices never seen, so the phone waited behind all of
them; while that line is long the table's screen shows a code, and a login that carries it skips
the line, still under one address's limit, and each code serves one try (issue 74, 5)."""

from __future__ import annotations

import http.client
import json
import logging
import math
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

from pi_table.daemon.staff_desk import FakeDesk
from pi_table.web import Companion
from pi_table.web.auth import CODE_DIGITS, CODE_KEPT_S, WINDOW_S, LineCode, Throttle
from pi_table.web.roles import set_passphrase
from pi_table.web.staff import ATTEMPTS_OVERALL, ATTEMPTS_PER_ADDRESS, set_pin

from helpers import Clock, wait_for
from helpers_staff import OWNER_PASSPHRASE, STAFF_CONFIG, STAFF_PIN, Staff, staff_page
from helpers_tables import service_daemon


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def staff(tmp_path, clock):
    """The staff page on a clock of the test's, and the companion serving it."""
    set_pin(tmp_path, STAFF_PIN)
    page = staff_page(FakeDesk(), tmp_path, session_s=600, clock=clock)
    companion = Companion(staff=page)
    companion.start()
    yield page, companion
    companion.stop()


def from_address(companion, address: str, body: object) -> tuple[int, dict, dict]:
    """A login from ``address`` (a loopback one of its own): its status, answer and headers."""
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=10, source_address=(address, 0))
    connection.request("POST", "/staff/login", body=json.dumps(body))
    answer = connection.getresponse()
    status, raw, headers = answer.status, answer.read(), dict(answer.getheaders())
    connection.close()
    return status, json.loads(raw), headers


def polite_flood(companion, count: int) -> list[tuple[int, dict, dict]]:
    """``count`` fresh addresses, each asking once with a wrong PIN."""
    return [from_address(companion, f"127.0.{1 + n // 250}.{1 + n % 250}", {"pin": "000000"}) for n in range(count)]


def test_a_polite_flood_keeps_a_new_phone_in_line_for_minutes_and_the_code_shows_meanwhile():
    """The reproduction: 300 fresh addresses, each asking again only when told (as a person does),
    keep a new phone that comes half a minute later out for far more than a minute; the table's
    code is shown the whole time, and goes once the line has been short for ``CODE_KEPT_S``."""
    now = [0.0]
    code = LineCode(clock=lambda: now[0])
    throttle = Throttle(ATTEMPTS_PER_ADDRESS, ATTEMPTS_OVERALL, lambda: now[0], code)
    flood = {f"10.0.{n // 250}.{n % 250}": 0.0 for n in range(300)}
    assert code.shown() is None  # nobody waits: no code
    phone_due, phone_in, shown = 30.0, None, set()
    for second in range(1200):
        now[0] = float(second)
        for address, due in flood.items():
            if due <= second:
                wait = throttle.tried(address, False, now[0])
                flood[address] = second + math.ceil(wait) if wait else math.inf  # served once, it leaves
        if phone_in is None and phone_due <= second:
            wait = throttle.tried("192.0.2.7", False, now[0])
            phone_due, phone_in = (second + math.ceil(wait), None) if wait else (phone_due, second)
        if (seen := code.shown()) is not None:
            shown.add(seen)
    assert phone_in is not None and phone_in - 30 > 5 * WINDOW_S, phone_in  # minutes, not one
    assert len(shown) == 1 and len(next(iter(shown))) == CODE_DIGITS and next(iter(shown)).isdigit()
    last_served = 300 // ATTEMPTS_OVERALL * WINDOW_S  # the flood's last turn
    now[0] = last_served + CODE_KEPT_S + WINDOW_S + 1  # the line long gone, and the while after it
    assert code.shown() is None


def test_with_the_code_on_the_screen_a_new_phone_gets_in_at_once_and_without_it_waits(staff, clock, caplog):
    caplog.set_level(logging.DEBUG)
    page, companion = staff
    assert page.line_code.shown() is None
    flood = polite_flood(companion, 300)
    assert [status for status, _, _ in flood].count(401) == ATTEMPTS_OVERALL  # the budget: the rest wait in line
    code = page.line_code.shown()
    assert code is not None and len(code) == CODE_DIGITS

    phone = "127.0.9.9"
    status, answer, headers = from_address(companion, phone, {"pin": STAFF_PIN})
    assert status == 429 and answer["line"] is True and int(headers["Retry-After"]) > 0  # in line, without the code
    assert "code on the table's screen" in answer["error"]
    wrong = f"{(int(code) + 1) % 10 ** CODE_DIGITS:0{CODE_DIGITS}d}"
    assert from_address(companion, phone, {"pin": STAFF_PIN, "code": wrong})[:2] == (status, answer)  # no code at all
    assert page.line_code.shown() == code  # a wrong code changes nothing

    clock.now += 1  # within a minute: at once
    status, answer, headers = from_address(companion, phone, {"pin": STAFF_PIN, "code": code})
    assert status == 200 and answer["ok"] is True
    assert page.line_code.shown() not in (None, code)  # used up: a new one is drawn, still shown
    assert from_address(companion, "127.0.9.10", {"pin": STAFF_PIN, "code": code})[0] == 429  # the old one is spent

    said = [json.dumps(answer) + json.dumps(headers) for _, answer, headers in flood]
    assert not [text for text in said if code in text]
    assert code not in caplog.text and page.line_code.shown() not in caplog.text
    assert "got in past the line with the code on the table's screen" in caplog.text  # its trace, without it


def test_a_code_gives_one_wrong_guess_and_whoever_read_it_cannot_lock_the_staff_out(staff, clock):
    """Issue 74, 5: all the tries that carried the code were counted as one address's, so a guest
    who read it over a shoulder sent 5 wrong PINs with it and the next staff phone with the code
    got 429 for a minute. A try with the code spends it, right or wrong: a code gives one wrong
    guess at most, and the staff type the next one the screen shows."""
    page, companion = staff
    polite_flood(companion, ATTEMPTS_OVERALL + 1)
    code = page.line_code.shown()
    assert code is not None
    guesses = [from_address(companion, "127.0.9.9", {"pin": "000000", "code": code})
               for _ in range(ATTEMPTS_PER_ADDRESS)]
    assert guesses[0][0] == 401  # one guess with it
    assert [(status, answer.get("line")) for status, answer, _ in guesses[1:]] == [(429, True)] * (
        ATTEMPTS_PER_ADDRESS - 1)  # the code is spent: back in line like any address never seen
    assert from_address(companion, "127.0.8.1", {"pin": STAFF_PIN, "code": code})[0] == 429  # nor for anyone
    shown = page.line_code.shown()
    assert shown not in (None, code)
    status, answer, _ = from_address(companion, "127.0.8.1", {"pin": STAFF_PIN, "code": shown})
    assert status == 200 and answer["ok"] is True  # the staff, with the code the screen shows now, at once
    again = page.line_code.shown()
    assert from_address(companion, "127.0.8.2", {"pin": STAFF_PIN, "code": again})[0] == 200  # and the next phone


def test_a_staff_member_who_read_the_code_cannot_lock_the_owner_out_of_the_owners_door(staff, tmp_path, clock):
    """Issue 74, 5, the owner's door: wrong passphrases sent with the code spend it, one each."""
    page, companion = staff
    set_passphrase(tmp_path, OWNER_PASSPHRASE)
    staff_phone, owners_phone = Staff(companion.base_url), Staff(companion.base_url)
    assert staff_phone.login()[0] == 200 and owners_phone.login()[0] == 200
    throttle = page.owner.door.throttle
    for n in range(ATTEMPTS_OVERALL):  # the owner's budget spent by devices never seen
        assert throttle.tried(f"10.0.0.{n}", False, clock()) == 0
    assert throttle.tried("10.0.1.1", False, clock()) > 0  # someone waits in line
    from pi_table.web.staff import CSRF_HEADER

    cookies = "; ".join(f"{cookie.name}={cookie.value}" for cookie in staff_phone.cookies)
    for _ in range(ATTEMPTS_PER_ADDRESS):  # from an address of its own: the owner's phone shares none of its tries
        code = page.line_code.shown()
        assert code is not None
        connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=10, source_address=("127.0.9.9", 0))
        connection.request("POST", "/staff/api/owner", body=json.dumps({"passphrase": "not the owner's one", "code": code}),
                           headers={"Cookie": cookies, CSRF_HEADER: staff_phone.csrf or "", "Content-Type": "application/json"})
        assert connection.getresponse().status == 403
        connection.close()
        assert page.line_code.shown() != code  # spent by the wrong try
    status, answer = owners_phone.call("POST", "/staff/api/owner",
                                       {"passphrase": OWNER_PASSPHRASE, "code": page.line_code.shown()})
    assert status == 200 and answer["left_s"] > 0


@pytest.mark.parametrize("given", ["12345", "1234567", "12a456", "１２３４５６", "123 456", 123456, ["123456"], True])
def test_a_code_that_is_not_its_digits_is_a_400_naming_what_is_expected_and_not_a_try(staff, given):
    _, companion = staff
    for _ in range(ATTEMPTS_PER_ADDRESS + 1):
        status, answer, _ = from_address(companion, "127.0.9.9", {"pin": "000000", "code": given})
        assert status == 400 and answer["error"] == f"the code on the table's screen is {CODE_DIGITS} digits"
    it = Staff(companion.base_url, lang="it")
    status, answer = it.call("POST", "/staff/login", {"pin": STAFF_PIN, "code": given})
    assert status == 400 and answer["error"] == f"il codice sullo schermo del tavolo è di {CODE_DIGITS} cifre"
    assert from_address(companion, "127.0.9.9", {"pin": STAFF_PIN})[0] == 200  # none of them was counted


def test_no_code_or_an_empty_one_is_a_login_without_it(staff):
    _, companion = staff
    assert from_address(companion, "127.0.9.9", {"pin": STAFF_PIN, "code": None})[0] == 200
    assert from_address(companion, "127.0.9.8", {"pin": STAFF_PIN, "code": ""})[0] == 200


def test_the_owners_step_up_skips_the_line_with_the_code_too(staff, tmp_path, clock):
    """The owner's door shares the code (its line fills from the fleet dashboard's login on the
    table too): a staff phone that gives the passphrase and the code acts as the owner at once."""
    page, companion = staff
    set_passphrase(tmp_path, OWNER_PASSPHRASE)
    phone = Staff(companion.base_url)
    assert phone.login()[0] == 200
    throttle = page.owner.door.throttle
    for n in range(ATTEMPTS_OVERALL):  # the owner's budget spent by devices never seen
        assert throttle.tried(f"10.0.0.{n}", False, clock()) == 0
    assert page.line_code.shown() is None
    assert throttle.tried("10.0.1.1", False, clock()) > 0  # someone waits in line
    code = page.line_code.shown()
    assert code is not None
    status, answer = phone.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE})
    assert status == 429 and answer["line"] is True
    status, answer = phone.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE, "code": "12"})
    assert (status, answer) == (400, {"ok": False, "error": f"the code on the table's screen is {CODE_DIGITS} digits"})
    status, answer = phone.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE, "code": code})
    assert status == 200 and answer["left_s"] > 0 and code not in json.dumps(answer)
    assert page.line_code.shown() not in (None, code)


def test_a_phone_that_skipped_the_line_with_the_code_leaves_it_to_the_next():
    """A phone in line that gets in with the code is out of the line: the next in line takes the
    next free turn, not one after a place kept for nobody."""
    now = [0.0]
    throttle = Throttle(ATTEMPTS_PER_ADDRESS, ATTEMPTS_OVERALL, lambda: now[0], code := LineCode(lambda: now[0]))
    for second in range(ATTEMPTS_OVERALL):  # the budget spent, a try a second
        assert throttle.tried(f"10.0.0.{second}", False, float(second)) == 0
    assert throttle.wait("192.0.2.7", False, 30.0) > 0 and throttle.in_line("192.0.2.7")  # the staff phone, first
    assert throttle.wait("192.0.2.8", False, 31.0) > 0  # another, behind it
    now[0] = 32.0
    assert code.shown() is not None
    assert throttle.tried("192.0.2.7", False, 32.0, coded=True) == 0 and not throttle.in_line("192.0.2.7")
    assert throttle.tried("192.0.2.8", False, 60.5) == 0  # the first turn back is the next one's


def test_the_code_lasts_while_the_line_is_long_and_a_while_after_then_goes():
    now = [0.0]
    code = LineCode(clock=lambda: now[0])
    assert code.shown() is None and not code.carried("000000")
    code.needed()
    first = code.shown()
    assert first is not None and code.carried(first)
    now[0] = CODE_KEPT_S - 1  # a phone mid-typing is not cut off
    assert code.shown() == first
    code.needed()  # still someone in line: it stays, the same
    now[0] = 2 * CODE_KEPT_S - 2
    assert code.shown() == first
    now[0] = 2 * CODE_KEPT_S  # the line short for CODE_KEPT_S: gone
    assert code.shown() is None and not code.carried(first)
    code.needed()  # a new flood: a new code
    assert code.shown() is not None


# --- the table's screen ------------------------------------------------------------------------


def test_the_screen_shows_the_code_while_the_budget_is_spent_and_not_otherwise(tmp_path):
    """The daemon hands the code to the spymasters' screen alone: not to the table's status, nor
    the pages' snapshot, nor its log; drawn in the banner with what it is for."""
    from pi_table.ui.mounting import ScreenSettings
    from pi_table.ui.screens import ScreenPainter

    (tmp_path / "config.toml").write_text(STAFF_CONFIG)
    daemon = service_daemon(tmp_path / "config.toml")
    daemon.start()
    import threading

    runner = threading.Thread(target=daemon.run, daemon=True)
    runner.start()
    try:
        assert daemon.wait_for_phones() and daemon.companion is not None
        screen = daemon.devices.screen.screen
        page = daemon.companion.staff
        assert page is not None and page.line_code.shown() is None
        assert daemon.loop.call(lambda: daemon.loop.notice) is None
        throttle, clock = page.gate.door.throttle, page.gate.door.throttle.clock
        for n in range(ATTEMPTS_OVERALL):  # the budget of devices never seen, spent
            assert throttle.tried(f"10.0.0.{n}", False, clock()) == 0
        assert daemon.loop.call(lambda: daemon.loop.notice) is None  # spent, but nobody waits yet
        assert throttle.tried("10.0.1.1", False, clock()) > 0  # now someone waits in line
        code = page.line_code.shown()
        assert code is not None
        wait_for(lambda: any(code in str(warning) for warning in screen.models[-1].warnings), "the code on the screen")
        pygame.font.init()
        painter = ScreenPainter(ScreenSettings())
        painter.draw(pygame.Surface((800, 480)), screen.models[-1], 0.0)
        banner = next(text for text in painter.frame.texts if code in text)
        assert banner.startswith(f"Staff logging in: type {code} with the PIN")
        assert code not in str(daemon.answer({"command": "status"})) and code not in str(daemon.companion._snapshot)
        assert code not in "\n".join(line for _, line in daemon.recent_log.records)
        assert page.line_code.spend(code)  # a login carried it: a new one on the screen
        new = page.line_code.shown()
        assert new not in (None, code)
        wait_for(lambda: any(new in str(warning) for warning in screen.models[-1].warnings), "the new code")
    finally:
        daemon.stop()
        runner.join(timeout=5)
        daemon.close()


def test_the_screen_says_it_in_italian():
    from pi_table.ui.i18n import say
    from pi_table.web.auth import code_notice

    assert say(code_notice("123456"), "it") == "staff che accede: scrivi 123456 con il PIN"


# --- the page on a phone -----------------------------------------------------------------------


SAID = {"en": ("Code shown on the table's screen", "many phones are logging in: wait"),
        "it": ("Codice mostrato sullo schermo del tavolo", "molti telefoni stanno accedendo: aspetta")}


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "it"])
def test_a_phone_told_it_waits_in_line_is_asked_for_the_code_and_gets_in_with_it(staff, browser, lang):
    from playwright.sync_api import expect

    page, companion = staff
    polite_flood(companion, ATTEMPTS_OVERALL + 1)  # the budget spent, someone in line: the screen shows a code
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = context.new_page()
        phone.goto(f"{companion.base_url}/staff")
        phone.select_option("#lang", lang)
        expect(phone.locator("label[for=pin]")).to_have_text("Staff PIN" if lang == "en" else "PIN dello staff")
        expect(phone.locator("#code-field")).to_be_hidden()  # no line yet for this phone: no field
        phone.fill("#pin", STAFF_PIN)
        with phone.expect_response("**/staff/login") as answer:
            phone.click("#login button")
        assert answer.value.status == 429
        expect(phone.locator("#code-field")).to_be_visible()
        expect(phone.locator("label[for=code]")).to_have_text(SAID[lang][0])
        expect(phone.locator("#message")).to_contain_text(SAID[lang][1])
        code = page.line_code.shown()
        assert code is not None
        phone.fill("#pin", STAFF_PIN)
        phone.fill("#code", code)
        with phone.expect_response("**/staff/login") as answer:
            phone.click("#login button")
        assert answer.value.status == 200 and code not in answer.value.text()
        expect(phone.locator("#desk")).to_be_visible()
        assert page.line_code.shown() not in (None, code)  # used up
    finally:
        context.close()


def owners_sign_in(response) -> bool:
    """The form's own POST: the page's background reads GET the same address and may answer first."""
    return response.url.endswith("/staff/api/owner") and response.request.method == "POST"


@pytest.mark.browser
def test_the_owners_form_asks_for_the_code_while_the_owners_door_has_a_line(staff, browser, tmp_path, clock):
    from playwright.sync_api import expect

    page, companion = staff
    set_passphrase(tmp_path, OWNER_PASSPHRASE)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = context.new_page()
        phone.goto(f"{companion.base_url}/staff")
        phone.fill("#pin", STAFF_PIN)
        phone.click("#login button")
        expect(phone.locator("#owner-form")).to_be_visible()
        expect(phone.locator("#owner-code-field")).to_be_hidden()
        throttle = page.owner.door.throttle
        for n in range(ATTEMPTS_OVERALL + 1):  # the owner's budget spent, and someone in line
            throttle.tried(f"10.0.0.{n}", False, clock())
        code = page.line_code.shown()
        assert code is not None
        phone.fill("#owner-passphrase", OWNER_PASSPHRASE)
        with phone.expect_response(owners_sign_in) as answer:
            phone.click("#owner-form button")
        assert answer.value.status == 429
        expect(phone.locator("#owner-code-field")).to_be_visible()
        phone.fill("#owner-passphrase", OWNER_PASSPHRASE)
        phone.fill("#owner-code", code)
        with phone.expect_response(owners_sign_in) as answer:
            phone.click("#owner-form button")
        assert answer.value.status == 200
        expect(phone.locator("#owner-form")).to_be_hidden()  # unlocked
    finally:
        context.close()
