"""The staff page over HTTP: the way in (PIN, session, CSRF, limits) and every refusal, then what
the staff do to a real table in this process (new game, undo, history, configuration, restart),
and that no answer of theirs carries the key; last, the page in Debian's Chromium on a
phone-sized screen, in English and Italian."""

from __future__ import annotations

import csv
import http.client
import http.cookiejar
import io
import json
import math
import os
import re
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from pi_table.daemon.staff_desk import FakeDesk
from pi_table.engine import Rules
from pi_table.engine.codex import STEPS
from pi_table.web import Companion, auth
from pi_table.web.auth import SCRYPT_N, SCRYPT_P, SCRYPT_R, hash_secret, secret_matches
from pi_table.web.staff import ATTEMPTS_OVERALL, ATTEMPTS_PER_ADDRESS, COOKIE, CSRF_HEADER, PIN_FILE, set_pin
from pi_table.web.staff_words import TEXTS

from helpers import Clock, self_signed, wait_for
from helpers_games import dealt_key
from helpers_staff import STAFF_CONFIG as CONFIG
from helpers_staff import STAFF_PIN as PIN
from helpers_staff import Staff, guess_from, staff_login, staff_page
from helpers_tables import StaffTable as InProcessTable


def pi_table(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """The pi-table command line, run as a person runs it, given ``stdin``."""
    return subprocess.run([sys.executable, "-m", "pi_table", *args], input=stdin, capture_output=True, text=True,
                          timeout=30)

STATIC = Path(__file__).resolve().parent.parent / "pi_table" / "web" / "static"
API = [("GET", "/staff/api/table"), ("POST", "/staff/api/new-game"), ("POST", "/staff/api/undo"),
       ("POST", "/staff/api/end-game"), ("GET", "/staff/api/history"), ("GET", "/staff/api/history.csv"),
       ("GET", "/staff/api/config"), ("POST", "/staff/api/config"), ("GET", "/staff/api/log"),
       ("POST", "/staff/api/restart"), ("POST", "/staff/api/logout"), ("GET", "/staff/api/nothing-here")]
"""Every staff action, and a path under /staff/api/ that is none."""


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def desk():
    return FakeDesk()


@pytest.fixture
def page(tmp_path, desk, clock):
    set_pin(tmp_path, PIN)
    companion = Companion(staff=staff_page(desk, tmp_path, session_s=600, clock=clock))
    companion.start()
    yield companion
    companion.stop()


# --- the PIN ------------------------------------------------------------------------------------


@pytest.mark.secret_work
def test_the_pin_is_kept_as_a_salted_scrypt_hash_readable_by_the_service_alone(tmp_path):
    path = set_pin(tmp_path / "journal", PIN)
    kept = path.read_text().strip()
    assert kept.startswith(f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}$") and PIN not in kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert secret_matches(kept, PIN) and not secret_matches(kept, "482917") and not secret_matches("nonsense", PIN)
    assert hash_secret(PIN) != hash_secret(PIN)  # salted
    with pytest.raises(ValueError, match="at least 6 characters, not 4"):
        set_pin(tmp_path, "1234")


SALT, DIGEST = "ab" * 16, "cd" * 32


@pytest.mark.parametrize(("stored", "why"), [
    (f"scrypt$16384$8$20000${SALT}${DIGEST}", "asks for more than a check is given"),  # an hour of a core
    (f"scrypt$1048576$8$1${SALT}${DIGEST}", "asks for more than a check is given"),  # 1 GiB
    (f"scrypt$16384$64$1${SALT}${DIGEST}", "asks for more than a check is given"),
    (f"scrypt$20000$8$1${SALT}${DIGEST}", "N is a power of two"),
    (f"scrypt$16384$0$1${SALT}${DIGEST}", "R and P at least 1"),
    (f"scrypt$16384$8$1$ab${DIGEST}", "a salt of 8 to 64 bytes"),
    (f"scrypt$16384$8$1${SALT}${'cd' * 1000}", "a hash of 16 to 64"),
    (f"scrypt$16384$8$1$zz${DIGEST}", "hexadecimal"),
    (f"scrypt$16384$8$1e9${SALT}${DIGEST}", "whole numbers"),
    (f"scrypt$16384$8$\u00b2${SALT}${DIGEST}", "whole numbers"),
    (f"argon2$16384$8$1${SALT}${DIGEST}", "expected scrypt$N$R$P$SALT$HASH"),
    ("", "expected scrypt$N$R$P$SALT$HASH"),
])
def test_a_hash_out_of_bounds_is_not_well_formed_and_never_checked(stored, why, monkeypatch):
    assert why in auth.well_formed(stored)
    monkeypatch.setattr(auth.hashlib, "scrypt", lambda *args, **kwargs: pytest.fail("a check ran"))
    assert not secret_matches(stored, PIN)


def test_the_hashes_the_table_makes_are_well_formed():
    assert auth.well_formed(hash_secret(PIN)) is None
    assert auth.well_formed(f"scrypt$65536$8$1${SALT}${DIGEST}") is None  # four checks of ours: the most


def test_a_restored_pin_that_asks_for_an_hour_of_the_cpu_lets_nobody_in_at_once_and_says_why(tmp_path, desk, caplog):
    """A staff.pin with scrypt p = 20000 took the only check's turn for about an hour of CPU at
    the first login. Such a file is a bad one: the page says no PIN is set (and how to set one),
    the log says what is wrong with it, once, and no check runs."""
    (tmp_path / PIN_FILE).write_text(f"scrypt$16384$8$20000${SALT}${DIGEST}\n")
    companion = Companion(staff=staff_page(desk, tmp_path))
    companion.start()
    try:
        staff = Staff(companion.base_url)
        began = time.monotonic()
        for _ in range(3):
            assert staff.login() == (409, {"ok": False, "error": "no staff PIN is set: sudo pi-table set-staff-pin"})
        assert time.monotonic() - began < 5
        assert staff.call("GET", "/staff/session")[1] == {"pin_set": False, "csrf": None}
    finally:
        companion.stop()
    told = [record.getMessage() for record in caplog.records if "not a hash this table checks" in record.getMessage()]
    assert len(told) == 1 and "the staff PIN in" in told[0] and "N·R·P at most" in told[0], told
    assert SALT not in caplog.text and DIGEST not in caplog.text


@pytest.mark.slow  # some 4 s of CPU by itself: out of ./dev test (issue 40)
def test_set_staff_pin_reads_the_pin_from_a_pipe_and_refuses_a_short_one(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
    short = pi_table("set-staff-pin", "--config", str(config), stdin="12\n")
    assert short.returncode == 2 and "at least 6 characters, not 2" in short.stderr
    assert not (tmp_path / "journal" / PIN_FILE).exists()
    done = pi_table("set-staff-pin", "--config", str(config), stdin=f"{PIN}\n")
    assert done.returncode == 0, done.stderr
    assert secret_matches((tmp_path / "journal" / PIN_FILE).read_text(), PIN)
    config.write_text(config.read_text() + '[game]\nlanguage = "it"\n')  # an Italian table's owner reads Italian
    short = pi_table("set-staff-pin", "--config", str(config), stdin="12\n")
    assert short.returncode == 2 and short.stderr == ("pi-table set-staff-pin: il PIN dello staff ha almeno 6 caratteri, "
                                                      "non 2: non è cambiato niente\n")
    done = pi_table("set-staff-pin", "--config", str(config), stdin=f"{PIN}\n")
    assert done.returncode == 0 and done.stdout.startswith("PIN dello staff impostato (")


# --- the way in, and every refusal --------------------------------------------------------------


def test_without_a_session_every_staff_action_is_refused_and_nothing_is_done(page, desk):
    staff = Staff(page.base_url)
    for method, path in API:
        status, answer = staff.call(method, path, {} if method == "POST" else None)
        assert (status, answer) == (401, {"ok": False, "error": "log in first"}), path
    staff.call("GET", "/staff/api/table", csrf="made-up")
    assert desk.calls == []


def test_without_a_pin_the_page_says_how_to_set_one_and_lets_nobody_in(tmp_path, desk):
    companion = Companion(staff=staff_page(desk, tmp_path))
    companion.start()
    try:
        staff = Staff(companion.base_url, lang="it")
        assert staff.call("GET", "/staff/session") == (200, {"pin_set": False, "csrf": None})
        status, html = staff.call("GET", "/staff")
        assert status == 200 and "sudo pi-table set-staff-pin" in str(html)
        assert staff.login("anything") == (409, {"ok": False, "error": "non c'è un PIN dello staff: sudo pi-table set-staff-pin"})
        assert staff.call("GET", "/staff/api/table")[0] == 401
    finally:
        companion.stop()
    assert desk.calls == []


def test_a_wrong_pin_is_refused_and_the_right_one_gives_a_strict_httponly_cookie(page, desk):
    staff = Staff(page.base_url)
    assert staff.login("000000") == (401, {"ok": False, "error": "wrong PIN"})
    assert staff.call("GET", "/staff/api/table")[0] == 401
    status, answer = staff.login()
    assert status == 200 and answer["ok"] and len(answer["csrf"]) >= 32
    cookie = staff.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "Path=/staff" in cookie and "Secure" not in cookie  # plain http here: a Secure cookie would never return
    assert staff.call("GET", "/staff/session") == (200, {"pin_set": True, "csrf": answer["csrf"]})
    status, table = staff.call("GET", "/staff/api/table")
    assert status == 200 and table["devices"][0] == {
        "device": "touch", "health": "not working: unplugged",
        "advice": "Check the board's USB cable; the table finds the board again by itself."}
    assert table["devices"][1]["advice"] is None
    staff.lang = "it"
    assert staff.call("GET", "/staff/api/table")[1]["devices"][:2] == [
        {"device": "touch", "health": "non funziona: unplugged",
         "advice": "Controlla il cavo USB della scheda: il tavolo la ritrova da solo."},
        {"device": "leds", "health": "ok", "advice": None}]
    assert desk.calls == ["table", "table"]


def test_an_action_without_the_sessions_csrf_token_is_refused(page, desk):
    staff = Staff(page.base_url)
    staff.login()
    refusal = {"ok": False, "error": "the page's security token is missing or wrong: reload the page"}
    for csrf in (None, "", staff.csrf[:-1] + ("A" if staff.csrf[-1] != "A" else "B")):
        for method, path in API:
            assert staff.call(method, path, {} if method == "POST" else None, csrf=csrf) == (403, refusal), path
    other = Staff(page.base_url)
    other.login()
    assert staff.call("POST", "/staff/api/undo", csrf=other.csrf)[0] == 403  # another session's token
    assert desk.calls == []
    assert staff.call("POST", "/staff/api/undo") == (409, {"ok": False, "error": "there is nothing to undo"})
    staff.lang = "it"
    assert staff.call("POST", "/staff/api/undo") == (409, {"ok": False, "error": "non c'è niente da annullare"})


def test_logins_are_limited_per_address_and_overall_and_the_refusal_says_how_long(page, clock):
    staff = Staff(page.base_url)
    for _ in range(ATTEMPTS_PER_ADDRESS):
        assert staff.login("000000")[0] == 401
        clock.now += 1
    status, answer = staff.login()  # the right PIN, but too soon
    assert (status, answer) == (429, {"ok": False, "error": "too many attempts: wait 55 s"})
    assert staff.headers["Retry-After"] == "55"
    staff.lang = "it"
    assert staff.login()[1] == {"ok": False, "error": "troppi tentativi: aspetta 55 s"}
    clock.now += 55
    assert staff.login()[0] == 200

    clock.now += 120  # a new window: many addresses together
    flood = [f"127.0.0.{10 + n}" for n in range(ATTEMPTS_OVERALL)]
    assert guess_from(page, flood, 1) == [401] * ATTEMPTS_OVERALL
    assert guess_from(page, flood[:1], 1) == [429]  # past them, the overall limit holds the flood
    port = int(page.base_url.rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(flood[0], 0))
    connection.request("POST", "/staff/login", body=json.dumps({"pin": "000000"}))
    assert json.loads(connection.getresponse().read()) == {  # in line for the budget: the table's code skips it
        "ok": False, "error": "many phones are logging in: wait 60 s, or type the code on the table's screen", "line": True}
    connection.close()


def test_guesses_from_many_addresses_do_not_lock_out_a_phone_that_has_logged_in_before(page, clock):
    """The overall limit stopped a guest guessing from several addresses, and every staff phone
    with it: about 20 guesses a minute kept the staff out for as long as the guest liked."""
    staff = Staff(page.base_url)
    assert staff.login()[0] == 200
    assert staff.call("POST", "/staff/api/logout")[0] == 200  # the session goes, the phone is remembered
    device = next(cookie for cookie in staff.cookies if cookie.name == "pt_staff_device")
    assert device.path == "/staff" and device.has_nonstandard_attr("HttpOnly")
    clock.now += 120
    flood = [f"127.0.0.{10 + n}" for n in range(ATTEMPTS_OVERALL)]
    assert guess_from(page, flood, 1) == [401] * ATTEMPTS_OVERALL
    assert guess_from(page, flood, 1) == [429] * ATTEMPTS_OVERALL
    new = Staff(page.base_url)  # a new phone waits for the budget, first in line: it asked least (issue 58, 5b)
    assert new.login()[0] == 429 and new.headers["Retry-After"] == "60"
    forged = Staff(page.base_url)
    forged.cookies.set_cookie(http.cookiejar.Cookie(
        0, "pt_staff_device", device.value.split(".")[0] + ".00", None, False, "127.0.0.1", False, False, "/staff",
        True, False, None, False, None, None, {}))
    assert forged.login()[0] == 429  # a device cookie only the PIN signs
    assert staff.login("999999")[0] == 401  # the known phone is counted on its own
    assert staff.login()[0] == 200
    assert guess_from(page, flood, 1) == [429] * ATTEMPTS_OVERALL  # the flood asks on, and on
    clock.now += 60  # the budget's turns come back: the flood asks again at once, and the new phone's is kept for it
    assert guess_from(page, flood, 1) == [401] * (ATTEMPTS_OVERALL - 1) + [429]
    assert new.login()[0] == 200


def test_no_number_of_addresses_gets_more_than_the_budget_and_a_new_phone_gets_in_within_a_minute_of_a_typo():
    """Issue 58, 5b and 5c: 200 addresses got 200 checks of the PIN in 38 s (each address's first
    try in a minute was its own), and a new phone that mistyped once during the flood was told to
    wait. On a clock of its own, 200 addresses ask every second for two minutes: every minute
    holds at most the budget's checks from them all; a phone never seen, asking as a person does
    (when told to), is let through at the next free turn, and again within a minute of its typo."""
    from pi_table.web.auth import Throttle

    throttle = Throttle(ATTEMPTS_PER_ADDRESS, ATTEMPTS_OVERALL)
    flood = [f"10.0.{n // 250}.{n % 250}" for n in range(200)]
    checked: list[float] = []
    phone_tries: list[float] = []
    phone_due = 30.0  # it comes in half a minute into the flood
    for now in range(180):
        for address in flood:
            if not throttle.tried(address, False, float(now)):
                checked.append(now)
        if now >= phone_due:
            wait = throttle.tried("192.0.2.7", False, float(now))
            if wait:
                phone_due = now + math.ceil(wait)  # a person tries again when told
            else:
                phone_tries.append(now)
                phone_due = now + 2  # its typo; the right PIN a moment later
    windows = [sum(1 for at in checked + phone_tries if start <= at < start + 60) for start in range(120)]
    assert max(windows) <= ATTEMPTS_OVERALL, max(windows)  # not the 200 of the flood's addresses
    assert len(checked) >= 2 * ATTEMPTS_OVERALL  # the budget is spent: the flood is not locked out either
    assert phone_tries[:2] == [60, 120], phone_tries  # at the first free turn; again at the next, within a minute
    assert throttle.tried("device known", True, 179.0) == 0  # a phone logged in before waits for nobody


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_a_phone_that_logged_in_before_keeps_its_standing_across_a_pin_change(page, tmp_path, clock):
    """The PIN signed the device cookies, so changing it forgot every phone: then 20 wrong PINs
    a minute from 4 addresses (5 each, within each address's limit) kept every staff phone at
    429, even with the new PIN. The cookies are signed with a key of their own, kept beside the
    PIN: a known phone stays known (and a restart keeps it so)."""
    staff, changer = Staff(page.base_url), Staff(page.base_url)
    assert staff.login()[0] == 200 and changer.login()[0] == 200
    assert changer.call("POST", "/staff/api/pin", {"old": PIN, "new": "new-pin-7"})[0] == 200
    assert staff.call("GET", "/staff/api/log")[0] == 401  # its session ended with the old PIN, as it must
    clock.now += 120
    flood = [f"127.0.0.{10 + n}" for n in range(4)]
    assert guess_from(page, flood, ATTEMPTS_PER_ADDRESS) == [401] * ATTEMPTS_OVERALL
    never = Staff(page.base_url)  # a phone never seen waits for the budget as the guessers do
    assert never.login("new-pin-7")[0] == 429
    assert staff.login("new-pin-7")[0] == 200
    set_pin(tmp_path, "third-pin-8")  # by hand (pi-table set-staff-pin), and a restart
    clock.now += 120
    page.stop()
    again = Companion(staff=staff_page(FakeDesk(), tmp_path, session_s=600, clock=clock))
    again.start()
    try:
        staff.base = again.base_url
        assert guess_from(again, flood, ATTEMPTS_PER_ADDRESS) == [401] * ATTEMPTS_OVERALL
        assert staff.login("third-pin-8")[0] == 200
    finally:
        again.stop()


def test_a_phone_in_a_session_without_its_device_cookie_is_given_one_as_it_acts(page):
    """A phone logged in before the device key (or whose cookie went) is known again at its next
    action, not at its next login, which a flood might keep it from."""
    staff = Staff(page.base_url)
    assert staff.login()[0] == 200
    staff.cookies.clear("127.0.0.1", "/staff", "pt_staff_device")
    assert staff.call("GET", "/staff/api/log")[0] == 200
    assert "pt_staff_device=" in staff.headers["Set-Cookie"]
    assert staff.call("GET", "/staff/api/log")[0] == 200
    assert "Set-Cookie" not in staff.headers  # once is enough


def test_the_pin_is_checked_a_few_at_a_time_and_a_login_with_no_turn_is_told_to_come_back(page, monkeypatch):
    """The login ran scrypt (16 MiB, most of a core) in a worker thread with no bound, so a flood
    from many addresses took as many threads and that much memory at once. It is checked as the
    fleet dashboard's password is (``auth.Gate``): ``CHECKS_AT_ONCE`` at a time, a few more
    waiting their turn briefly, and the rest told to try again (429), which counts as no try."""
    held, checking = threading.Event(), []
    matches = auth.secret_matches

    def held_check(stored: str, tried: str) -> bool:
        checking.append(tried)
        held.wait(10)
        return matches(stored, tried)

    monkeypatch.setattr(auth, "secret_matches", held_check)
    monkeypatch.setattr(auth, "CHECK_WAIT_S", 0.05)

    def login(address: str, pin: str, lang: str = "en") -> tuple[int, str | None, str | None]:
        connection = http.client.HTTPConnection("127.0.0.1", page.port, timeout=10, source_address=(address, 0))
        connection.request("POST", "/staff/login", body=json.dumps({"pin": pin}), headers={"X-Staff-Lang": lang})
        answer = connection.getresponse()
        said = (answer.status, json.loads(answer.read()).get("error"), answer.getheader("Retry-After"))
        connection.close()
        return said

    answers: list[tuple[int, str | None, str | None]] = []
    guesses = [threading.Thread(target=lambda n=n: answers.append(login(f"127.0.0.{10 + n}", "000000")))
               for n in range(auth.CHECKS_AT_ONCE)]
    for guess in guesses:
        guess.start()
    wait_for(lambda: len(checking) == auth.CHECKS_AT_ONCE, "every turn to be taken")
    busy = (429, "too many logins at once: try again in a moment", "1")
    for _ in range(ATTEMPTS_PER_ADDRESS + 1):  # more than an address may try a minute
        assert login("127.0.0.2", PIN) == busy
    assert login("127.0.0.2", PIN, "it") == (429, "troppi accessi insieme: riprova tra un momento", "1")
    assert len(checking) == auth.CHECKS_AT_ONCE  # none checked besides
    held.set()
    for guess in guesses:
        guess.join(timeout=10)
    assert [status for status, _, _ in answers] == [401] * auth.CHECKS_AT_ONCE
    assert login("127.0.0.2", PIN)[0] == 200  # turned away, not counted


def test_sessions_kept_in_a_shape_the_page_does_not_write_are_dropped_and_the_staff_log_in_again(tmp_path, desk):
    """A kept session whose time was not a number was loaded as it was: every login then failed
    (500) writing the sessions down, until someone deleted the file."""
    set_pin(tmp_path, PIN)
    (tmp_path / "staff.sessions").write_text(json.dumps({"0" * 64: ["token", "pin", "yesterday"]}))
    companion = Companion(staff=staff_page(desk, tmp_path))
    companion.start()
    try:
        staff = Staff(companion.base_url)
        assert staff.login()[0] == 200 and staff.call("GET", "/staff/api/log")[0] == 200
    finally:
        companion.stop()
    assert len(json.loads((tmp_path / "staff.sessions").read_text())) == 1


def test_a_session_expires_unused_and_use_keeps_it_alive(page, clock, desk):
    staff = Staff(page.base_url)
    staff.login()
    clock.now += 500
    status, answer = staff.call("GET", "/staff/api/log")
    assert status == 200 and answer["lines"] == ["one", "two"]  # with where they came from (issue 39)
    clock.now += 500  # 1,000 s after the login, 500 after its last use: alive
    assert staff.call("GET", "/staff/api/log")[0] == 200
    clock.now += 300
    staff.headers_out = {"X-Staff-Background": "1"}  # the page refreshing itself is no use
    assert staff.call("GET", "/staff/api/log")[0] == 200
    staff.headers_out = {}
    clock.now += 301
    assert staff.call("GET", "/staff/api/log") == (401, {"ok": False, "error": "your session has expired: log in again"})
    assert staff.call("GET", "/staff/api/log")[0] == 401
    assert staff.call("GET", "/staff/session")[1] == {"pin_set": True, "csrf": None}
    assert desk.calls == ["log", "log", "log"]


def test_a_new_pin_ends_every_session(page, tmp_path):
    staff = Staff(page.base_url)
    staff.login()
    assert staff.call("GET", "/staff/api/log")[0] == 200
    set_pin(tmp_path, "new-pin-7")
    assert staff.call("GET", "/staff/api/log") == (401, {"ok": False, "error": "your session has expired: log in again"})
    assert staff.login()[0] == 401
    assert staff.login("new-pin-7")[0] == 200


def test_logging_out_ends_the_session_and_a_restart_does_not(page, tmp_path, desk, clock):
    staff, other = Staff(page.base_url), Staff(page.base_url)
    staff.login()
    other.login()
    again = Companion(staff=staff_page(desk, tmp_path, session_s=600, clock=clock))  # the service restarted
    again.start()
    try:
        other.base = again.base_url
        assert other.call("GET", "/staff/api/log")[0] == 200
    finally:
        again.stop()
    assert staff.call("POST", "/staff/api/logout") == (200, {"ok": True})
    assert staff.call("GET", "/staff/api/log", csrf=staff.csrf)[0] == 401
    kept = json.loads((tmp_path / "staff.sessions").read_text())
    assert len(kept) == 1 and staff.csrf not in json.dumps(kept)  # the other's session alone is kept
    assert stat.S_IMODE((tmp_path / "staff.sessions").stat().st_mode) == 0o600


def test_malformed_actions_get_400_and_say_what_was_expected(page, desk):
    staff = Staff(page.base_url)
    staff.login()
    status, answer = staff.call("POST", "/staff/api/new-game", {"game": "codenames", "options": {"speed": 3}})
    assert status == 400 and answer["error"] == "unknown option speed: expected clue_required, three_player, setup"
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"timer.length_s": {"a": 1}}})
    assert status == 400 and 'expected {"changes"' in answer["error"]
    assert staff.call("POST", "/staff/api/config", {"changes": "x"})[0] == 400
    assert desk.calls == []


def test_a_login_whose_body_dawdles_or_overflows_is_refused(tmp_path, desk):
    set_pin(tmp_path, PIN)
    companion = Companion(staff=staff_page(desk, tmp_path, body_timeout_s=0.3))
    companion.start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=10)
        connection.putrequest("POST", "/staff/login")
        connection.putheader("Content-Length", "100")
        connection.endheaders(b'{"pin": ')  # and the rest never comes
        answer = connection.getresponse()
        assert answer.status == 408 and "did not arrive within 0.3 s" in json.loads(answer.read())["error"]
        connection.close()
        staff = Staff(companion.base_url)
        assert staff.call("POST", "/staff/login", {"pin": "1" * 70_000})[0] == 413
        assert staff.login()[0] == 200
    finally:
        companion.stop()


def test_a_body_nested_too_deep_for_the_parser_is_not_json_and_not_a_500(page, desk, monkeypatch):
    """A guest's '[[[[…' (60,000 deep) made json.loads raise RecursionError: a 500 and a traceback.
    Refused before the parser is entered: at its recursion limit even a finalizer run then failed."""
    parsed = []
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda text, *args, **kwargs: parsed.append(len(text)) or loads(text, *args, **kwargs))
    staff = Staff(page.base_url)
    deep = "[" * 60_000
    for path in ("/staff/login", "/staff/api/new-game", "/staff/api/config"):
        if path != "/staff/login":
            assert staff.login()[0] == 200
        request = urllib.request.Request(page.base_url + path, data=deep.encode(), method="POST",
                                         headers={CSRF_HEADER: staff.csrf or "", "Content-Type": "application/json"})
        try:
            staff.opener.open(request, timeout=10)
            status = 200
        except urllib.error.HTTPError as e:
            status = e.code
        assert status == (401 if path == "/staff/login" else 400), path
    assert staff.call("GET", "/staff/api/table")[0] == 200 and desk.calls == ["table"]
    assert len(deep) not in parsed and parsed  # the bodies of the log-in and the calls were read, never the deep one


def test_every_word_the_page_shows_is_in_the_catalogue():
    script = (STATIC / "staff.js").read_text()
    page = (STATIC / "staff.html").read_text()
    used = set(re.findall(r'data-t="([^"]+)"', page))
    used |= set(re.findall(r'\bt\("([^"]+)"', script))
    used |= {label for _, label in re.findall(r'\["([\w.]+)", "([^"]+)"\]', script)}  # AT_HAND's labels
    used |= set(re.findall(r'^const DEVICES = \{(.*?)\};', script, re.DOTALL | re.MULTILINE)[0].split('"')[1::2])
    assert "Log in" in used and "the touch board" in used and "Volume" in used
    assert sorted(used - set(TEXTS)) == []
    assert "t(state.step)" in script and sorted(set(STEPS) - set(TEXTS)) == []  # Codex's step, by its name


# --- a real table ----------------------------------------------------------------------------------

@pytest.fixture
def table(tmp_path):
    table = InProcessTable(tmp_path, dealt_key())
    yield table
    table.close()


def test_new_game_with_options_undo_end_game_and_the_history_with_its_exports(table):
    staff = Staff(table.base)
    staff.login()
    table.guess(table.key.index("A"))  # the assassin: the first game ends at once
    status, answer = staff.call("POST", "/staff/api/new-game", {"game": "alias24", "options": {"nuke": "mad"}})
    assert status == 200 and answer["state"]["game"] == "alias24"
    assert table.daemon.session.rules == Rules(game="alias24", nuke="mad")
    assert staff.call("POST", "/staff/api/undo") == (409, {"ok": False, "error": "there is nothing to undo"})
    status, answer = staff.call("POST", "/staff/api/new-game", {"game": "alias24", "options": {"dark_cell": 99}})
    assert (status, answer["error"]) == (409, "dark_cell is a cell number 0 to 24, not 99")
    status, answer = staff.call("POST", "/staff/api/new-game", {"game": "codenames", "options": {"dark_cell": 3}})
    assert (status, answer["error"]) == (400, "unknown option dark_cell: expected clue_required, three_player, setup")
    assert table.daemon.session.rules.game == "alias24"  # refused: the game on the table goes on
    view = table.daemon.loop.call(table.daemon.session.spymaster_view)
    table.guess(view.key.cells.index(view.table.turn.letter))  # played: it stays in the history, unfinished
    ended = table.daemon.session.id
    status, answer = staff.call("POST", "/staff/api/end-game")
    assert status == 200 and answer["state"]["game"] == "alias24" and answer["game_id"] != ended

    status, history = staff.call("GET", "/staff/api/history")
    games = history["games"]
    assert status == 200 and [game["game"] for game in games] == ["alias24", "alias24", "codenames"]
    assert [game["over"] for game in games] == [False, False, True] and games[2]["moves"] == 1
    status, text = staff.call("GET", "/staff/api/history.csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert staff.headers["Content-Disposition"] == 'attachment; filename="pi-table-history.csv"'
    assert [row["id"] for row in rows] == [game["id"] for game in games]
    assert rows[2]["over"] == "true" and rows[2]["moves"] == "1" and "assassin" in rows[2]["reason"]
    assert rows[2]["termination"] == "assassin" and games[2]["termination"] == "assassin"  # a code, for any reader
    status, exported = staff.call("GET", "/staff/api/history?download")
    assert exported == history and "pi-table-history.json" in staff.headers["Content-Disposition"]


def test_a_new_game_of_the_other_kind_switches_the_table_to_codex_and_back(table):
    staff = Staff(table.base)
    staff.login()
    status, answer = staff.call("POST", "/staff/api/new-game", {"game": "codex", "options": {"nuke": "mad"}})
    assert (status, answer["error"]) == (400, "unknown option nuke: expected sealed_votes")
    status, answer = staff.call("POST", "/staff/api/new-game", {"game": "codex", "options": {"sealed_votes": True}})
    assert status == 200 and answer["state"]["game"] == "codex" and table.daemon.session.kind == "codex"
    assert table.daemon.session.rules.sealed_votes  # Codex's options, as the grid games have theirs
    status, answer = staff.call("POST", "/staff/api/new-game", {"game": "codenames", "options": {"three_player": True}})
    assert status == 200 and answer["state"]["game"] == "codenames"
    assert table.daemon.session.rules == Rules(three_player=True)
    status, answer = staff.call("POST", "/staff/api/new-game", {"game": "codex"})
    assert status == 200 and table.daemon.session.rules.sealed_votes  # kept while a grid game was played


def test_no_staff_answer_carries_the_key_during_a_game(table):
    staff = Staff(table.base)
    staff.login()
    for cell in (0, 1):
        if table.key[cell] in "RB":
            table.guess(cell)
    table.daemon.loop.call(lambda: None)
    board = table.daemon.session.table_view().board
    hidden = [cell for cell, shown in enumerate(board) if shown == "?"]
    assert len(hidden) >= 23
    answers = [staff.call(method, path)[1] for method, path in API if method == "GET"]
    answers.append(staff.call("POST", "/staff/api/undo")[1])
    answers.append(staff.call("GET", "/staff/session")[1])
    text = json.dumps(answers)
    assert table.key not in text
    for run in re.findall(r"[RBNA?.]{25}", text):  # every board-like string: the hidden cells are hidden
        assert [run[cell] for cell in hidden] == ["?"] * len(hidden), run


def test_the_configuration_form_explains_each_key_in_the_pages_language(table):
    staff = Staff(table.base)
    staff.login()
    for lang, length_help, length_hint in [("en", "turn timer in seconds; 0 is off", "seconds, 10 to 3600, or 0: off"),
                                           ("it", "timer del turno in secondi; 0 lo spegne", "secondi, da 10 a 3600, o 0: spento")]:
        staff.lang = lang
        status, answer = staff.call("GET", "/staff/api/config")
        helps = {option["key"]: option["help"] for option in answer["options"]}
        hints = {option["key"]: option["hint"] for option in answer["options"]}
        assert status == 200 and helps["timer.length_s"] == length_help
        assert hints["timer.length_s"] == length_hint  # the numbers it takes, from the range the checker holds it to
    assert helps["game.language"] == "la lingua dello schermo: en, it"  # key names and values stay as they are


TOO_SHORT = {"en": "turn timer length is 0 (off) or 10 to 3600 seconds, not 5",
             "it": "la durata del timer del turno è 0 (spento) o da 10 a 3600 secondi, non 5"}
"""The checker's refusal of a 5-second turn timer, as the page shows it in each language."""


def test_a_bad_value_is_refused_with_the_checkers_message_and_nothing_is_written(table):
    staff = Staff(table.base)
    staff.login()
    staff.as_owner()
    before = table.config.read_bytes()
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"timer.length_s": 5, "game.language": "it"}})
    assert status == 400 and [problem["error"] for problem in answer["problems"]] == [
        f"{table.config}: timer.length_s: turn timer length is 0 (off) or 10 to 3600 seconds, not 5"]
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"paths.journal_dir": str(table.config)}})
    assert status == 400 and answer["error"] == f"{table.config}: paths.journal_dir: expected a folder the table " \
        f"can write its games in (made if missing), found a file: {table.config}"  # check-config's machine check
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"sound.loudness": 0.5}})
    assert status == 400 and "unknown key sound.loudness" in answer["error"]
    staff.lang = "it"  # the checker's words in the page's language, the keys and values as they are
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"timer.length_s": 5}})
    assert status == 400 and [problem["error"] for problem in answer["problems"]] == [
        f"{table.config}: timer.length_s: {TOO_SHORT['it']}"]
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"paths.journal_dir": str(table.config)}})
    assert status == 400 and answer["error"] == f"{table.config}: paths.journal_dir: atteso: una cartella in cui " \
        f"il tavolo può scrivere le partite (creata se manca); trovato: un file: {table.config}"
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"leds.cells": [{"a": 1}]}})
    assert status == 400 and [problem["error"] for problem in answer["problems"]] == [
        f"{table.config}: leds.cells: atteso: una stringa, un numero, true o false, o una lista di questi; "
        "trovato: {'a': 1} (una tabella)"]
    assert table.config.read_bytes() == before and not table.daemon.restarting
    kept = sorted(p.name for p in table.folder.iterdir() if p.name.startswith("config"))
    assert kept == ["config.toml", "config.toml.good"]  # and the last good one: the file the start passed


def test_no_setting_the_staff_change_can_send_or_show_a_games_journal(table):
    """The audit's way to the key: the broker's password_file set to the game's journal, the
    table restarted, and the journal went to a broker of the guest's choosing as the password."""
    staff = Staff(table.base)
    staff.login()
    staff.as_owner()
    before = table.config.read_bytes()
    (journal,) = (table.folder / "journal").glob("*.jsonl")
    for changes in ({"fleet.broker": "mqtt://x@127.0.0.1:18890", "fleet.table_id": "x",
                     "fleet.password_file": str(journal)}, {"sim.words": str(journal)}):
        status, answer = staff.call("POST", "/staff/api/config", {"changes": changes})
        key = next(key for key in changes if key.endswith(("password_file", "words")))
        said = [problem["error"] for problem in answer["problems"]]
        if key == "fleet.password_file":  # a secret file names nothing outside the secrets folder (issue 58, 3)
            assert status == 400 and len(said) == 1 and said[0].startswith(
                f"{table.config}: {key}: expected a file in {table.folder / 'files'}, the table's secrets folder, found")
        else:
            assert status == 400 and said == [
                f"{table.config}: {key}: {key.partition('.')[2]} names {journal}, in the journal folder "
                f"{table.folder / 'journal'}, where the table keeps its secrets (the games' keys, the staff PIN): "
                "name a file outside it"]
        assert table.key not in json.dumps(answer)
    assert table.config.read_bytes() == before and not table.daemon.restarting


# --- issue 25: nothing the staff change takes the table down or shows the key ---------------------


def refused_with(staff: Staff, changes: dict) -> str:
    """The staff's change, refused: the answer's words (400), checked for a 500 or a surprise."""
    status, answer = staff.call("POST", "/staff/api/config", {"changes": changes})
    assert status == 400, (changes, status, answer)
    assert isinstance(answer, dict) and answer["ok"] is False
    return json.dumps(answer)


def test_moving_the_journal_does_not_open_the_running_games_journal_to_a_setting(table, tmp_path):
    """Issue 25, 1: one change that moved paths.journal_dir and pointed sim.words at the running
    game's journal got past the guard (it looked in the new folder only), and the checker's
    error quoted the journal's first line, key included. The same change could send the
    journal to a broker as a password."""
    staff = Staff(table.base)
    staff.login()
    staff.as_owner()
    before = table.config.read_bytes()
    journal = table.folder / "journal" / f"{table.daemon.session.id}.jsonl"
    lines = journal.read_text().splitlines()
    assert table.key in journal.read_text()  # the secret the staff must never see
    elsewhere = tmp_path / "elsewhere"
    for changes, why in (({"paths.journal_dir": str(elsewhere), "sim.words": str(journal)},
                          f"in the journal folder {table.folder / 'journal'}, where the table keeps its secrets"),
                         ({"paths.journal_dir": str(elsewhere), "fleet.broker": "mqtt://x@127.0.0.1:18890",
                           "fleet.table_id": "x", "fleet.password_file": str(journal)},
                          f"{table.folder / 'files'}, the table's secrets folder")):  # a secret's kind (issue 58, 3)
        said = refused_with(staff, changes)
        assert why in said
        assert table.key not in said and not any(line[:20] in said for line in lines)
    assert table.config.read_bytes() == before and not table.daemon.restarting


def test_a_private_key_is_never_sent_as_a_password_or_shown_as_words(table, tmp_path):
    staff = Staff(table.base)
    staff.login()
    staff.as_owner()
    (tmp_path / "files").mkdir()
    cert, key = self_signed(tmp_path / "files")  # a private key in the table's secrets folder
    for changes in ({"web.tls_cert": str(cert), "web.tls_key": str(key), "sim.words": str(key)},
                    {"web.tls_cert": str(cert), "web.tls_key": str(key), "fleet.broker": "mqtt://x@127.0.0.1:18890",
                     "fleet.table_id": "x", "fleet.password_file": str(key)}):
        said = refused_with(staff, changes)
        assert "the private key of web.tls_key" in said and "PRIVATE KEY" not in said


def test_a_password_file_that_is_not_text_is_refused_not_a_table_that_dies_at_every_start(table, tmp_path):
    """Issue 25, 2: a readable password file that is not UTF-8 was accepted, and the table then died
    at every start with a UnicodeDecodeError until systemd gave up on it."""
    staff = Staff(table.base)
    staff.login()
    staff.as_owner()
    before = table.config.read_bytes()
    for name, content, found in [("binary", b"\xff\xfe\x00secret", "which is not UTF-8 text (byte 0)"),
                                 ("empty", b"\n", "which is empty")]:
        password = tmp_path / "files" / name  # the table's secrets folder
        password.parent.mkdir(exist_ok=True)
        password.write_bytes(content)
        said = refused_with(staff, {"fleet.broker": "mqtt://x@127.0.0.1:18890", "fleet.table_id": "x",
                                    "fleet.password_file": str(password)})
        assert f"fleet.password_file: expected a UTF-8 text file holding the broker's password, found {password}, " \
               f"{found}" in said and "secret" not in said
    assert table.config.read_bytes() == before and not table.daemon.restarting


def test_certificates_that_would_not_load_and_a_port_another_program_holds_are_refused(table, tmp_path):
    """Issue 25, 3: tls_cert and tls_key naming readable files that are not a certificate and its
    key were accepted, and after the restart neither the staff page nor the phones' pages
    answered, so nothing could undo it; likewise a port another program holds."""
    import socket

    staff = Staff(table.base)
    staff.login()
    staff.as_owner()
    before = table.config.read_bytes()
    files = tmp_path / "files"  # the table's secrets folder, where a key must be
    files.mkdir()
    cert, key = self_signed(files)
    other_cert, other_key = self_signed(files, "other")
    text = files / "notes.txt"
    text.write_text("not a certificate\n")
    for changes, key_at_fault, found in [
            ({"web.tls_cert": str(text), "web.tls_key": str(key)}, "web.tls_cert", "which holds no PEM certificate"),
            ({"web.tls_cert": str(cert), "web.tls_key": str(text)}, "web.tls_key", "which does not load as tls_cert's key"),
            ({"web.tls_cert": str(cert), "web.tls_key": str(other_key)}, "web.tls_key",
             "which does not load as tls_cert's key")]:
        said = refused_with(staff, changes)
        assert f"{key_at_fault}: expected" in said and found in said and "not a certificate" not in said
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    try:
        port = held.getsockname()[1]
        said = refused_with(staff, {"web.port": port})
        assert f"web.port: expected a port no other program listens on, found port {port}, which another program " \
               "listens on" in said
    finally:
        held.close()
    assert table.config.read_bytes() == before and not table.daemon.restarting
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"web.tls_cert": str(other_cert),
                                                                          "web.tls_key": str(other_key)}})
    assert (status, answer) == (200, {"ok": True, "restarting": True})  # a real pair passes


def test_a_setting_pointed_at_a_device_a_pipe_or_the_kernels_files_is_refused_without_reading_them(table, tmp_path):
    """Found by the fuzz (tests/test_staff_fuzz.py): sim.words = /dev/zero held the staff's request
    while the deck was read for ever, filling the table's memory; /proc/self/environ passed as a
    broker password."""
    staff = Staff(table.base)
    staff.login()
    staff.as_owner()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for changes, found in [({"sim.words": "/dev/zero"}, "the configuration's folder, or a folder below it, found "
                                                        "'/dev/zero'"),
                           ({"sim.words": str(fifo)}, "not a file (a folder, a device or a pipe)"),
                           ({"fleet.broker": "mqtt://x@127.0.0.1:18890", "fleet.table_id": "x",
                             "fleet.password_file": "/proc/self/environ"}, "the table's secrets folder, found "
                                                                           "'/proc/self/environ'")]:
        assert found in refused_with(staff, changes)


@pytest.mark.parametrize("key", ["web.url", "sim.words", "fleet.broker", "paths.socket", "web.host", "game.game",
                                 "fleet.password_file", "sound.quiet_hours"])
def test_a_lone_surrogate_in_a_value_is_a_400_naming_the_key(table, key):
    staff = Staff(table.base)
    staff.login()
    staff.as_owner()
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {key: "a\ud800b"}})
    assert status == 400 and [problem["error"] for problem in answer["problems"]] == [
        f"{table.config}: {key}: expected text, found a string that is not Unicode text (a lone surrogate at "
        "character 1)"]


def test_a_good_value_is_written_keeping_the_file_and_the_service_restarts_to_apply_it(table):
    staff = Staff(table.base)
    staff.login()
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"timer.length_s": 90, "game.language": "it"}})
    assert (status, answer) == (200, {"ok": True, "restarting": True})
    text = table.config.read_text()
    assert "length_s = 90\n" in text and "# the café likes a slow game\n" in text and 'language = "it"' in text
    from pi_table.config import load_config

    assert load_config(table.config).timer.length_s == 90
    table.runner.join(timeout=5)
    assert table.daemon.restarting and not table.runner.is_alive()


def test_the_language_the_brightness_the_volume_and_the_timer_apply_at_once_without_a_restart(table):
    staff = Staff(table.base)
    staff.login()
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"game.language": "it"}})
    assert (status, answer) == (200, {"ok": True, "restarting": False})
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"leds.brightness": 0.2}})
    assert (status, answer) == (200, {"ok": True, "restarting": False})
    text = table.config.read_text()
    assert 'language = "it"' in text and "brightness = 0.2\n" in text
    loop = table.daemon.loop
    assert loop.call(lambda: loop.lang) == "it" and table.daemon.config.leds.brightness == 0.2
    with urllib.request.urlopen(table.base + "/", timeout=10) as page:  # the phones' pages speak it too
        assert '<html lang="it">' in page.read().decode()
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"sound.volume": 0.3}})
    assert (status, answer) == (200, {"ok": True, "restarting": False})
    assert table.daemon.announcer.settings.volume == 0.3
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"timer.length_s": 90}})
    assert (status, answer) == (200, {"ok": True, "restarting": False})
    assert loop.call(lambda: loop.timer.state(loop.clock()).length_s) == 90  # the turn under way runs to it
    assert "length_s = 90\n" in table.config.read_text()
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"leds.cells": [{"a": 1}]}})
    assert status == 400 and [problem["error"] for problem in answer["problems"]] == [
        f"{table.config}: leds.cells: expected a string, a number, true or false, or a list of them, "
        "found {'a': 1} (a table)"]
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {"leds.brightness": 7}})
    assert status == 400 and "leds.brightness" in answer["error"]
    assert "brightness = 0.2\n" in table.config.read_text()
    assert not table.daemon.restarting and table.runner.is_alive()


def test_changes_at_hand_made_at_once_are_all_kept_in_the_file_and_on_the_table(table):
    """Two phones (or a phone and the fleet) changing the file at once each read it, changed it and
    wrote it back: one change was lost, and the table then disagreed with its file."""
    from pi_table.config import load_config

    for round_ in range(8):
        brightness, volume, language = 0.2 + round_ / 20, 0.1 + round_ / 20, ("en", "it")[round_ % 2]
        changes = [("leds.brightness", brightness), ("sound.volume", volume), ("game.language", language)]
        answers: list[object] = []
        threads = [threading.Thread(target=lambda change=change, answers=answers: answers.append(
                       table.daemon.change_at_hand(*change))) for change in changes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
        assert answers == [[], [], []]
        kept = load_config(table.config)
        assert (kept.leds.brightness, kept.sound.volume, kept.language) == (brightness, volume, language)
        assert table.daemon.config.language == language


def test_the_log_shows_the_services_last_lines(table):
    staff = Staff(table.base)
    staff.login()
    import logging

    logging.getLogger("pi_table.daemon").warning("the LED supply browned out")
    status, answer = staff.call("GET", "/staff/api/log")
    assert status == 200 and answer["lines"][-1].endswith("WARNING pi_table.daemon: the LED supply browned out")


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_a_restart_from_the_page_ends_the_service_with_the_code_systemd_restarts(tmp_path):
    from pi_table.daemon.restarts import EXIT_RESTART
    from pi_table.sim.systemd import FakeSystemd

    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    assert pi_table("set-staff-pin", "--config", str(config), stdin=f"{PIN}\n").returncode == 0
    systemd = FakeSystemd(["--hal", "sim", "--config", str(config)])
    systemd.start()
    try:
        status = json.loads(pi_table("status", "--json", "--config", str(config)).stdout)
        staff = Staff(status["companion"])
        assert staff.login()[0] == 200
        assert staff.call("POST", "/staff/api/restart") == (200, {"ok": True, "restarting": True})
        assert systemd.process is not None
        assert systemd.process.wait(timeout=10) == EXIT_RESTART
    finally:
        systemd.close()


def test_restarts_asked_in_a_hurry_wait_their_turn_so_systemd_never_gives_up_on_the_table(table):
    """Five restarts in two minutes trip the unit's start limit, and systemd would leave the table
    down until someone with SSH started it: the staff's fourth restart in the window waits."""
    from pi_table.daemon import restarts

    unit = (Path(__file__).resolve().parent.parent / "systemd" / "pi-table.service").read_text()
    burst = int(re.search(r"^StartLimitBurst=(\d+)$", unit, re.MULTILINE).group(1))
    window = float(re.search(r"^StartLimitIntervalSec=(\d+)$", unit, re.MULTILINE).group(1))
    assert window == restarts.RESTART_WINDOW_S and restarts.STAFF_RESTARTS <= burst - 2  # room for a crash besides
    kept = table.folder / "journal" / restarts.RESTARTS_FILE
    now = time.time()
    # the oldest leaves the window 3 s from now: room for a loaded machine between here and the ask
    kept.write_text(json.dumps([now - restarts.RESTART_WINDOW_S + 3.0, now - 50, now - 10]))
    wait = table.daemon.restart()
    assert 2.0 < wait <= 3.0 and not table.daemon.restarting and table.runner.is_alive()
    assert 0 < table.daemon.restart() <= wait  # asked again meanwhile: the same restart, no sooner
    table.runner.join(timeout=10)
    assert table.daemon.restarting and not table.runner.is_alive()
    assert json.loads(kept.read_text())[:2] == [now - 50, now - 10]  # the oldest gone, the waited one counted
    assert len(json.loads(kept.read_text())) == 3


def test_over_https_the_pin_and_the_cookie_never_cross_the_wifi_in_clear(tmp_path, desk):
    """[web] tls_cert and tls_key: the companion serves https (the staff cookie is Secure), and
    plain http on its port gets nowhere."""

    from pi_table.daemon.phones import _tls, _TlsError

    cert, key = self_signed(tmp_path)
    set_pin(tmp_path, PIN)
    companion = Companion(staff=staff_page(desk, tmp_path), tls=_tls(str(cert), str(key)))
    companion.start()
    try:
        assert companion.base_url.startswith("https://")
        staff = Staff(companion.base_url, cafile=cert)
        assert staff.login()[0] == 200
        session = next(cookie for cookie in staff.cookies if cookie.name == COOKIE)
        assert session.secure and staff.call("GET", "/staff/api/log")[0] == 200
        plain = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=10)
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            plain.request("POST", "/staff/login", body=json.dumps({"pin": PIN}))
            plain.getresponse().read()
    finally:
        companion.stop()
    with pytest.raises(_TlsError):  # a key that is not a key: the companion's fault says to check tls_key
        _tls(str(tmp_path / "table.crt"), str(tmp_path / "table.crt"))


# --- the page in a browser -------------------------------------------------------------------------

WORDS = {
    "en": {"login": "Log in", "undo": "Undo", "new": "New game", "done": "Undone: the last action is taken back.", "dealt": "Dealt: a new game of Alias 24.", "saved": "Saved: the table restarts",
           "applied": "Saved and applied.",
           "save": "Save and apply", "history": "History", "logout": "Log out", "wrong": "wrong PIN"},
    "it": {"login": "Entra", "undo": "Annulla mossa", "new": "Nuova partita", "done": "Mossa annullata: l'ultima azione è stata tolta.",
           "dealt": "Preparata: una nuova partita di Alias 24.",
           "saved": "Salvato: il tavolo si riavvia", "save": "Salva e applica", "history": "Storico",
           "applied": "Salvato e applicato.",
           "logout": "Esci", "wrong": "PIN sbagliato"},
}


@pytest.mark.parametrize("lang", ["en", "it"])
def test_login_undo_new_game_config_and_logout_on_a_phone(tmp_path, browser, lang):
    from playwright.sync_api import expect

    words = WORDS[lang]
    table = InProcessTable(tmp_path, dealt_key(), lang)  # the page starts in the table's language, whatever the phone's
    restarts: list[bool] = []
    assert table.daemon.companion is not None and table.daemon.companion.staff is not None
    table.daemon.companion.staff.desk.restart = lambda: restarts.append(True)  # type: ignore[method-assign]  # systemd's part
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  locale="en-GB" if lang == "it" else "it-IT")
    try:
        starting = table.daemon.session.table_view().turn
        mine = [cell for cell, letter in enumerate(table.key) if letter == starting.letter]
        table.guess(mine[0])
        table.guess(mine[1])
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(f"{table.base}/staff")
        expect(page.locator("#login button")).to_have_text(words["login"])
        page.fill("#pin", "000000")
        page.click("#login button")
        expect(page.locator("#message")).to_have_text(words["wrong"])
        page.fill("#pin", PIN)
        page.click("#login button")
        expect(page.locator("#desk")).to_be_visible()
        devices = len(table.daemon.status()["health"]) + 1  # each device, and the journal
        assert devices >= 6  # touch, LEDs, screen, buttons, phones and the journal at least
        expect(page.locator("#devices li")).to_have_count(devices)
        expect(page.locator("#board span.hidden")).to_have_count(23)

        page.click("#undo")
        expect(page.locator("#message")).to_have_text(words["done"])
        assert table.daemon.session.table_view().board.count("?") == 24

        page.select_option("#new-game-game", "alias24")
        page.click("#new-game summary")
        page.select_option("#new-game select[name=nuke]", "mad")
        page.click("#new-game button[type=submit]")
        expect(page.locator("#game-line")).to_contain_text("Alias 24")  # the game by its name
        expect(page.locator("#message")).to_have_text(words["dealt"])  # what was done, not "done" (issue 50)
        assert table.daemon.session.rules == Rules(game="alias24", nuke="mad")
        expect(page.locator("#history tr")).to_have_count(3)  # a header and two games
        if lang == "it":  # the plain game by its Italian name
            expect(page.locator("#history tr").nth(2)).to_contain_text("Nome in codice")

        page.select_option("#new-game-game", "codex")
        page.check("#new-game input[name=sealed_votes]")
        page.click("#new-game button[type=submit]")
        expect(page.locator("#game-line")).to_contain_text("Codex")
        assert table.daemon.session.kind == "codex" and table.daemon.session.rules.sealed_votes

        page.click('#config details[data-group="game"] > summary')  # the turn timer is in the game's group
        timer = page.locator('#config input[name="timer.length_s"]')
        timer.fill("5")
        page.click(f"#config button:text('{words['save']}')")
        expect(page.locator('#config .field[data-key="timer.length_s"] .problem')).to_contain_text(
            {"en": "5 refused", "it": "5 rifiutato"}[lang])
        expect(timer).to_have_value("0")  # the value in force
        assert "length_s = 5" not in table.config.read_text() and restarts == []
        timer.fill("120")
        page.click(f"#config button:text('{words['save']}')")
        expect(page.locator("#message")).to_contain_text(words["applied"])  # the turn timer is at hand
        assert re.search(r"^length_s = 120$", table.config.read_text(), re.MULTILINE) and restarts == []
        page.reload()  # the form as the file is now
        page.click('#config details[data-group="game"] > summary')  # the turn timer is in the game's group
        expect(page.locator('#config input[name="timer.length_s"]')).to_have_value("120")
        page.locator('#config input[name="timer.warn_s"]').fill("20")
        page.click(f"#config button:text('{words['save']}')")
        expect(page.locator("#message")).to_contain_text(words["saved"])
        assert re.search(r"^warn_s = 20$", table.config.read_text(), re.MULTILINE)
        wait_for(lambda: restarts, "the restart asked for once the page had its answer (StaffPage.then_restart)")
        assert restarts == [True]

        page.click("#logout")
        expect(page.locator("#login")).to_be_visible()
        assert page.evaluate("fetch('/staff/api/table').then((answer) => answer.status)") == 401
        page.reload()
        expect(page.locator("#login")).to_be_visible()  # the session is gone, not only hidden
    finally:
        context.close()
        table.close()


REFUSED = {
    "en": {"nothing": "there is nothing to undo", "token": "the page's security token is missing or wrong: reload the page",
           "expired": "your session has expired: log in again", "wrong": "wrong PIN", "wait": "too many attempts: wait"},
    "it": {"nothing": "non c'è niente da annullare",
           "token": "il codice di sicurezza della pagina manca o è sbagliato: ricarica la pagina",
           "expired": "la sessione è scaduta: entra di nuovo", "wrong": "PIN sbagliato", "wait": "troppi tentativi: aspetta"},
}


@pytest.mark.parametrize("lang", ["en", "it"])
def test_every_refusal_shows_on_the_phone_in_its_language_and_nothing_is_done(page, desk, clock, browser, lang):
    """The table's refusal (409), a missing security token (403), an expired session (401) and
    too many wrong PINs (429), each as the page shows it."""
    from playwright.sync_api import expect

    desk.lang = lang
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = context.new_page()
        phone.on("dialog", lambda dialog: dialog.accept())
        # The page's own refreshes are held from the start: one answered 401 after the clock's jump
        # below would show the login before the test's Undo could be pressed (the refusal shown
        # is the test's, not the refresh's).
        phone.route("**/staff/api/**", lambda route: None if route.request.headers.get("x-staff-background")
                    else route.fallback())
        phone.goto(f"{page.base_url}/staff")
        phone.fill("#pin", PIN)
        phone.click("#login button")
        expect(phone.locator("#desk")).to_be_visible()
        phone.click("#undo")
        expect(phone.locator("#message")).to_have_text(REFUSED[lang]["nothing"])

        def strip_token(route):
            route.continue_(headers={k: v for k, v in route.request.headers.items() if k.lower() != "x-staff-token"})

        phone.route("**/staff/api/end-game", strip_token)
        phone.click("#end-game")
        expect(phone.locator("#message")).to_have_text(REFUSED[lang]["token"])
        assert "end-game" not in desk.calls
        phone.unroute("**/staff/api/end-game")

        clock.now += 601  # the page fixture's session lasts 600 s unused
        phone.click("#undo")
        expect(phone.locator("#message")).to_have_text(REFUSED[lang]["expired"])
        expect(phone.locator("#login")).to_be_visible()
        assert desk.calls.count("undo") == 1

        stranger = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        stranger.goto(f"{page.base_url}/staff")
        for pin, status in [("000000", 401)] * ATTEMPTS_PER_ADDRESS + [(PIN, 429)]:
            stranger.fill("#pin", pin)
            with stranger.expect_response("**/staff/login") as answer:
                stranger.click("#login button")
            assert answer.value.status == status
            expect(stranger.locator("#pin")).to_have_value("")  # the page has taken the answer
        expect(stranger.locator("#message")).to_contain_text(REFUSED[lang]["wait"])
        expect(stranger.locator("#desk")).to_be_hidden()
        stranger.context.close()
    finally:
        context.close()


def test_a_refresh_in_flight_when_the_staff_log_out_is_refused_and_says_nothing(page, browser):
    """The page reads the table every 5 s; a read sent just before Log out is pressed and answered
    after it is refused (its session has ended), and the login form says nothing of it: the staff
    logged out, they were not thrown out. No request leaves the page after the press but the
    logout's (CI met the race on 2026-11-28, in the walk of tests/test_staff_buttons.py)."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = context.new_page()
        staff_login(phone, page.base_url)
        expect(phone.locator("#desk")).to_be_visible()
        held = []
        phone.route("**/staff/api/table", lambda route: held.append(route))  # let through once the logout has been answered
        with phone.expect_request("**/staff/api/table"):
            phone.evaluate('import("/staff/static/staff.js").then((module) => { window.reading = module.loadTable(true); })')
        for _ in range(250):  # the route's handler runs as the test next waits on the page
            if held:
                break
            phone.wait_for_timeout(20)
        assert held, "the read was not held by its route within 5 s"
        sent = []
        phone.on("request", lambda request: sent.append(request.url.removeprefix(page.base_url)))
        with phone.expect_response("**/staff/api/logout"):
            phone.click("#logout")
        expect(phone.locator("#login")).to_be_visible()
        with phone.expect_response("**/staff/api/table") as answer:
            for read in held:  # the desk's 5 s refresh may have sent one too: each is answered
                read.continue_()
        assert answer.value.status == 401  # the session it was sent with has ended
        phone.evaluate("() => window.reading")  # the page has read the refusal
        expect(phone.locator("#login")).to_be_visible()
        expect(phone.locator("#message")).to_be_hidden()
        assert sent[sent.index("/staff/api/logout"):] == ["/staff/api/logout"]  # a refresh may leave before the press
    finally:
        context.close()


def test_the_page_switches_language(tmp_path, browser):
    from playwright.sync_api import expect

    table = InProcessTable(tmp_path, dealt_key())
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
    try:
        page = context.new_page()
        page.goto(f"{table.base}/staff")
        page.fill("#pin", PIN)
        page.click("#login button")
        expect(page.locator("#undo")).to_have_text("Undo")
        page.select_option("#lang", "it")
        expect(page.locator("#undo")).to_have_text("Annulla mossa")
        expect(page.locator("#devices li").first).to_contain_text("la scheda touch")
        page.reload()  # the choice is kept on the phone
        expect(page.locator("#logout")).to_have_text("Esci")
    finally:
        context.close()
        table.close()


def test_the_logs_dates_are_typed_as_the_pages_language_writes_them_not_as_the_phones_locale(tmp_path, browser):
    """Issue 62, 4: the log's From and To were the phone's own date pickers, which write a date
    as the phone's locale does (27/11/2026 under en-GB) whatever the page's language. They are
    written, shown and read as the page's language writes a date, in the phone's time."""
    import calendar

    from playwright.sync_api import expect

    table = InProcessTable(tmp_path, dealt_key())
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB", timezone_id="UTC")
    try:
        page = context.new_page()
        page.goto(f"{table.base}/staff")
        page.fill("#pin", PIN)
        page.click("#login button")
        since = page.locator("#log-since")
        today = time.gmtime()
        expect(since).to_have_attribute("placeholder", re.compile(rf"^{time.strftime('%m/%d/%Y', today)}, \d\d:\d\d$"))

        def asked(typed: str, name: str = "since") -> str | None:
            """The log's ``since`` (or ``until``) the page asks for once ``typed`` is in From (or To)."""
            field = page.locator(f"#log-{name}")
            field.fill(typed)
            with page.expect_request(lambda request: "/staff/api/log?" in request.url) as request:
                field.blur()
            asked = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(request.value.url).query)).get(name)
            field.fill("")
            return asked

        assert asked("03/04/2026, 05:06") == str(calendar.timegm((2026, 3, 4, 5, 6, 0)))  # month first in English
        assert asked("12/31/2026") == str(calendar.timegm((2026, 12, 31, 0, 0, 0)))  # a day alone: from its start
        assert asked("12/30/2026", "until") == str(calendar.timegm((2026, 12, 31, 0, 0, 0)))  # and to its end
        page.select_option("#lang", "it")
        expect(page.locator("#undo")).to_have_text("Annulla mossa")
        with page.expect_response(lambda response: "/staff/api/log?" in response.url):  # answered before asked() waits on its own
            page.click("#log-refresh")
        expect(since).to_have_attribute("placeholder", re.compile(rf"^{time.strftime('%d/%m/%Y', today)}, \d\d:\d\d$"))
        assert asked("03/04/2026, 05:06") == str(calendar.timegm((2026, 4, 3, 5, 6, 0)))  # day first in Italian
        assert asked("31/02/2026") is None  # no such day: not another one
        expect(since).to_have_attribute("aria-invalid", "true")
    finally:
        context.close()
        table.close()


def test_without_a_pin_the_page_in_a_browser_shows_how_to_set_one_and_nothing_else(tmp_path, browser, desk):
    from playwright.sync_api import expect

    desk.lang = "it"  # an Italian table's page, on a phone set to English
    companion = Companion(staff=staff_page(desk, tmp_path))
    companion.start()
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
    try:
        page = context.new_page()
        page.goto(f"{companion.base_url}/staff")
        expect(page.locator("#no-pin")).to_contain_text("Impostalo sul computer del tavolo con: sudo pi-table set-staff-pin")
        expect(page.locator("#login")).to_be_hidden()
        expect(page.locator("#desk")).to_be_hidden()
    finally:
        context.close()
        companion.stop()
    assert desk.calls == []
