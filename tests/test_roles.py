"""Owner and staff: every staff action is named with the role it needs, where its route is
declared (``web.section.staff``, ``owner``), and the staff page gathers them into one list
(``StaffPage.roles``) and holds each request to it. The staff play and keep the table
day to day with the PIN; updates, restores, power, the PIN's reset and the settings that hold
the fleet's credentials or name the table's files need the owner's passphrase, which a staff
session gives to act as the owner for a few minutes."""

from __future__ import annotations

import http.client
import json
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from aiohttp import web

from pi_table.daemon.staff_desk import FakeDesk
from pi_table.night.book import Book
from pi_table.night.recorder import Recorder
from pi_table.web import Companion
from pi_table.web.auth import secret_matches
from pi_table.web.roles import OWNER, OWNER_FILE, OWNER_S, STAFF, owners_keys, role, set_passphrase
from pi_table.web.staff import ATTEMPTS_OVERALL, ATTEMPTS_PER_ADDRESS, CSRF_HEADER, Section, StaffPage, set_pin

from helpers import Clock, wait_for
from helpers_staff import OWNER_PASSPHRASE, STAFF_CONFIG, Staff, staff_page
from helpers_staff import STAFF_PIN as PIN

OWNERS = {("POST", "/staff/api/power"), ("POST", "/staff/api/restore"), ("GET", "/staff/api/update"),
          ("POST", "/staff/api/update"), ("POST", "/staff/recover"), ("GET", "/staff/api/backup"),
          ("POST", "/staff/api/wifi"), ("GET", "/staff/api/files"), ("POST", "/staff/api/files/{kind}"),
          ("GET", "/staff/api/backups"), ("POST", "/staff/api/config/discard"), ("POST", "/staff/api/security"),
          ("POST", "/staff/api/keys"), ("POST", "/staff/api/network"), ("GET", "/staff/api/broker"),
          ("POST", "/staff/api/broker"), ("GET", "/staff/api/broker/ca.crt"), ("POST", "/staff/api/owner/recovery"),
          ("POST", "/staff/api/owner/notice"), ("GET", "/staff/api/owner/resets"), ("GET", "/staff/api/offsite"),
          ("POST", "/staff/api/offsite"), ("POST", "/staff/api/offsite/key"), ("POST", "/staff/api/offsite/ca"),
          ("POST", "/staff/api/offsite/backup-key"),
          ("GET", "/staff/api/notify"), ("POST", "/staff/api/notify/test")}
"""What the issue gives the owner alone: power, restores, updates and the PIN's reset; the
backup's download, which holds the settings whole (a broker's password written in its URL too);
the Wi-Fi (issue 39), which can take the table off the network the staff reach it on; and the
files the owner gives the table (issue 39: the HTTPS certificate, the broker's password, the
blocked words); the nightly backups' list (issue 50), whose restore is the owner's too; Debian's
security updates run now (issue 50, 8), which may restart the table; a release key added or revoked
(issue 50, 4), which decides what updates the table installs; a fixed address or a host name
(issue 50, 7), which can take the table off the address the staff reach; the café's broker on this
table (issue 50, 3): its view holds the passwords the other tables are to be given; a new recovery
code for the owner's passphrase, and the notice of its reset acknowledged (issue 58, 1); the network
place the backups are copied to, and its password (issue 62); the owner's notifications (issue 62):
their Apprise URL is a secret, and a test sends to a host it names."""


class RolesDesk(FakeDesk):
    """A table that also answers the owner's backups and updates, recording them, and keeps game nights (none yet)."""

    def __init__(self) -> None:
        super().__init__()
        self.night = Recorder(Book(Path(tempfile.mkdtemp(prefix="pi-table-roles-")) / "nights"), "1")
        self.care = RolesCare(self.calls)


class RolesCare:
    """Backup and updates' part of the table, each act recorded in ``calls``."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def releases(self, lang, repository):
        self.calls.append("releases")
        return {"running": {"version": "0"}, "offered": []}

    def update(self, source, bundle, data):
        self.calls.append(f"update {source}")

    def check_restore(self, data, key):
        self.calls.append("check restore")
        return []

    def restore(self, data, reached, key):
        self.calls.append("restore")
        return []

    def backup(self):
        return "backup.tar.gz", b"a backup"


def full_page(desk, folder, **settings) -> StaffPage:
    """The staff page as the daemon makes it, with every section registered: the console's, the
    owner's files, a game night, the Wi-Fi, the security updates, the release keys, the network."""
    return staff_page(desk, folder, instead={"care": desk.care, "night": desk.night}, **settings)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def desk():
    return RolesDesk()


@pytest.fixture
def table(tmp_path, desk, clock):
    """A companion with every section of the staff page, a PIN and an owner's passphrase."""
    set_pin(tmp_path, PIN)
    set_passphrase(tmp_path, OWNER_PASSPHRASE)
    companion = Companion(staff=full_page(desk, tmp_path, session_s=3600, clock=clock))
    companion.start()
    yield companion
    companion.stop()


def staff_of(companion: Companion, lang: str = "en") -> Staff:
    staff = Staff(companion.base_url, lang)
    assert staff.login()[0] == 200
    return staff


# --- the one list -------------------------------------------------------------------------------


def test_every_staff_action_of_the_page_is_named_with_the_role_it_needs(tmp_path):
    """The routes are walked as the page mounts them (every section's): each one under /staff/api/
    is the staff's or the owner's, and the owner's are what the issue gives the owner."""
    app = web.Application()
    page = full_page(RolesDesk(), tmp_path)
    page.mount(app)
    routes = [route for route in app.router.routes() if route.resource is not None
              and route.resource.canonical.startswith(("/staff/api/", "/staff/recover"))]
    assert len(routes) >= 30
    named = {(route.method, route.resource.canonical): role(page.roles, route.method, route) for route in routes
             if route.method != "HEAD"}  # aiohttp's own beside each GET: named as its GET (role())
    assert set(named.values()) == {STAFF, OWNER}, [name for name, needed in named.items() if needed is None]
    assert {name for name, needed in named.items() if needed is OWNER} == OWNERS
    assert {name for name, needed in page.roles.items() if needed is OWNER} == OWNERS
    stale = set(page.roles) - set(named)
    assert stale == set()  # every route named is one the page has


def test_a_section_that_mounts_a_route_with_no_role_stops_the_page_from_mounting(tmp_path):
    """A section's routes carry their role; one added by hand, beside them, has none."""

    class Careless(Section, name="careless"):
        def mount(self, app: web.Application) -> None:
            app.add_routes([web.post("/staff/api/format-the-card", self.page.api(self.act))])

        async def act(self, request, session):
            return web.json_response({"ok": True})

    page = StaffPage(FakeDesk(), tmp_path, sections=[Careless])
    with pytest.raises(RuntimeError, match=r"staff actions with no role: POST /staff/api/format-the-card"):
        page.mount(web.Application())


def test_every_owners_action_refuses_a_staff_session_and_does_nothing(table, desk):
    roles = table.staff.roles
    owners = sorted(name for name, needed in roles.items() if needed is OWNER)
    staff = staff_of(table)
    for method, path in owners:
        body = {"act": "reboot"} if path.endswith("power") else {"code": "1234 5678", "pin": "123456"} \
            if path.endswith("recover") else {"ssid": "Cafe", "password": ""} if path.endswith("wifi") \
            else {"act": "run"} if path.endswith("security") else {"act": "revoke", "name": "maker"} \
            if path.endswith("keys") else {"act": "hostname", "name": "bar-1"} if path.endswith("network") \
            else {"act": "renew", "table": "bar-2"} if path.endswith("broker") and method == "POST" \
            else {"from": "repository"} if method == "POST" else None
        status, answer = staff.call(method, path.replace("{kind}", "tls"), body)  # a route's part, as the page fills it
        assert status == 403 and answer["owner"] == "needed", (path, status, answer)
    assert desk.calls == []
    staff.lang = "it"
    assert staff.call("POST", "/staff/api/power", {"act": "reboot"})[1]["error"] == (
        "serve la frase segreta del gestore: inseriscila in Gestore, poi riprova")
    staff.lang = "en"
    for method, path in sorted(roles):  # the staff's own that only look: never refused for want of the owner
        if roles[method, path] is STAFF and method == "GET" and "{" not in path:
            status, answer = staff.call(method, path)
            assert status == 200 and not (isinstance(answer, dict) and "owner" in answer and "error" in answer), path


# --- the owner's passphrase ---------------------------------------------------------------------


def test_without_a_passphrase_the_owners_actions_say_how_to_set_one(tmp_path, desk):
    set_pin(tmp_path, PIN)
    page = full_page(desk, tmp_path)
    companion = Companion(staff=page)
    companion.start()
    try:
        staff = staff_of(companion)
        unset = {"ok": False, "owner": "unset",
                 "error": "this needs the owner, and no owner's passphrase is set: sudo pi-table set-owner-passphrase"}
        assert staff.call("POST", "/staff/api/power", {"act": "reboot"}) == (409, unset)
        assert staff.call("POST", "/staff/api/owner", {"passphrase": "anything at all"}) == (409, unset)
        assert staff.call("POST", "/staff/api/config", {"changes": {"fleet.broker": "mqtt://x:1883"}}) == (409, unset)
        assert staff.call("GET", "/staff/api/owner") == (200, {"set": False, "left_s": 0, "recovery": False, "results": {}})
        reset = {"code": "1", "pin": "123456", "passphrase": "anything at all"}
        status, answer = Staff(companion.base_url).call("POST", "/staff/recover", reset)
        assert status == 403 and "wrong or expired code" in answer["error"]  # no code live: no word of the passphrase
        desk.code.recovery.issue()
        assert Staff(companion.base_url).call("POST", "/staff/recover", reset) == (409, unset)  # a code live: how to set one
        staff.lang = "it"
        assert staff.call("POST", "/staff/api/power", {"act": "reboot"})[1]["error"] == (
            "serve il gestore, e non è impostata nessuna frase segreta del gestore: sudo pi-table set-owner-passphrase")
    finally:
        companion.stop()
    assert [call for call in desk.calls if call != "settings"] == []


def test_a_staff_session_acts_as_the_owner_for_ten_minutes_once_it_gives_the_passphrase(table, desk, clock, tmp_path):
    staff, other = staff_of(table), staff_of(table)
    assert staff.call("GET", "/staff/api/owner") == (200, {"set": True, "left_s": 0, "recovery": False, "results": {}})
    assert staff.call("POST", "/staff/api/owner", {"passphrase": PIN}) == (403, {"ok": False, "error": "wrong passphrase"})
    assert staff.call("POST", "/staff/api/owner", {"passphrase": 12}) == (
        400, {"ok": False, "error": 'expected {"passphrase": THE OWNER\'S PASSPHRASE, "code": THE CODE ON THE '
                                    'TABLE\'S SCREEN or none} or {"end": true}'})
    status, answer = staff.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE})
    assert (status, answer) == (200, {"set": True, "left_s": OWNER_S, "recovery": False, "results": {}})
    assert "pt_owner_device=" in staff.headers["Set-Cookie"] and "HttpOnly" in staff.headers["Set-Cookie"]
    assert staff.call("POST", "/staff/api/power", {"act": "reboot"}) == (202, {"ok": True})
    assert other.call("POST", "/staff/api/power", {"act": "reboot"})[0] == 403  # that session's alone
    clock.now += OWNER_S - 1
    assert staff.call("POST", "/staff/api/update", {"from": "repository"}) == (202, {"ok": True})
    clock.now += 2
    assert staff.call("POST", "/staff/api/update", {"from": "repository"})[0] == 403  # ten minutes, then asked again
    staff.as_owner()
    assert staff.call("POST", "/staff/api/owner", {"end": True}) == (200, {"set": True, "left_s": 0, "recovery": False, "results": {}})
    assert staff.call("POST", "/staff/api/power", {"act": "poweroff"})[0] == 403
    assert desk.calls == ["reboot", "update repository"]  # the helper asked to reboot, then to update

    staff.as_owner()
    again = Companion(staff=full_page(desk, tmp_path, session_s=3600, clock=clock))  # the service restarted
    again.start()
    try:
        staff.base = again.base_url
        assert staff.call("GET", "/staff/api/owner") == (200, {"set": True, "left_s": 0, "recovery": False, "results": {}})  # logged in, not the owner
    finally:
        again.stop()
    assert "owner" not in (tmp_path / "staff.sessions").read_text()


def login_from(companion: Companion, address: str) -> dict[str, str]:
    """A staff session logged in from ``address``: the headers its requests carry."""
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=10, source_address=(address, 0))
    connection.request("POST", "/staff/login", body=json.dumps({"pin": PIN}))
    answer = connection.getresponse()
    csrf = json.loads(answer.read())["csrf"]
    cookies = [cookie.split(";")[0] for cookie in answer.headers.get_all("Set-Cookie")]
    connection.close()
    return {"Cookie": "; ".join(cookies), CSRF_HEADER: csrf, "Content-Type": "application/json"}


def step_up_from(companion: Companion, address: str, session: dict[str, str], passphrase: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=10, source_address=(address, 0))
    connection.request("POST", "/staff/api/owner", body=json.dumps({"passphrase": passphrase}), headers=session)
    status = connection.getresponse().status
    connection.close()
    return status


def test_guesses_of_the_passphrase_are_limited_as_logins_are_and_leave_the_owners_phone_its_way(table, clock):
    """A member of the staff guessing the owner's passphrase is held to five tries a minute from
    an address and twenty from all; the phone the owner gave it on before is counted on its own,
    and a phone never seen waits first in line for the budget, ahead of the guessers, however
    fast they ask again (issue 48, 6: the flood blocked it; issue 58, 5: and every address's
    first try went past the budget)."""
    owner = staff_of(table)
    owner.as_owner()
    assert owner.call("POST", "/staff/api/owner", {"end": True})[0] == 200
    clock.now += 120
    guessers = {f"127.0.0.{10 + n}": login_from(table, f"127.0.0.{10 + n}") for n in range(4)}
    for address, session in guessers.items():
        assert [step_up_from(table, address, session, "a guess, wrong") for _ in range(ATTEMPTS_PER_ADDRESS)] == [
            403] * ATTEMPTS_PER_ADDRESS
    assert ATTEMPTS_PER_ADDRESS * len(guessers) == ATTEMPTS_OVERALL
    address, session = next(iter(guessers.items()))
    assert step_up_from(table, address, session, OWNER_PASSPHRASE) == 429
    new = login_from(table, "127.0.0.30")
    assert step_up_from(table, "127.0.0.30", new, OWNER_PASSPHRASE) == 429  # the budget is spent: it waits in line
    owner.as_owner()  # the owner's phone is not locked out
    clock.now += 60  # turns come back, and the guessers ask at once: the new phone's turn is kept for it
    asked = [step_up_from(table, address, session, "a guess, wrong") for address, session in guessers.items()
             for _ in range(ATTEMPTS_PER_ADDRESS)]
    assert asked == [403] * (ATTEMPTS_OVERALL - 1) + [429]
    assert step_up_from(table, "127.0.0.30", new, OWNER_PASSPHRASE) == 200


# --- the settings that are the owner's ----------------------------------------------------------


@pytest.mark.parametrize("key", ["fleet.broker", "fleet.password_file", "fleet.ca", "fleet.cert", "fleet.key",
                                 "fleet.table_id", "fleet.cafe_tables", "fleet.password_in_clear", "web.tls_cert",
                                 "web.tls_key", "web.url", "web.host", "touch.port", "touch.usb_id", "leds.spi_bus",
                                 "sim.words", "night.blocked_words", "paths.journal_dir", "paths.socket",
                                 "paths.socket_group", "paths.keep_games"])
def test_the_keys_that_name_a_device_a_file_a_folder_or_a_host_are_the_owners(key):
    """Issue 48: the kind decides the role. touch.port (a device), web.url (the host every QR link
    sends its token to), night.blocked_words and sim.words (files) were the staff's."""
    assert owners_keys([key, "timer.length_s"], form()) == [key]


@pytest.mark.parametrize("key", ["buttons.end_turn", "buttons.new_game", "buttons.encoder_a", "buttons.encoder_b",
                                 "buttons.encoder_push"])
def test_the_buttons_wiring_is_the_owners(table, desk, key):
    """Issue 58, 1: the staff set END TURN or NEW GAME "not fitted" (false), and the buttons' reset,
    the way back of whoever forgot the passphrase, was gone for everyone; the wiring is the owner's."""
    assert owners_keys([key, "timer.length_s"], form()) == [key]
    staff = staff_of(table)
    status, answer = staff.call("POST", "/staff/api/config", {"changes": {key: False}})
    assert status == 403 and answer["owner"] == "needed", answer
    assert [call for call in desk.calls if call != "settings"] == []  # nothing changed
    staff.as_owner()
    assert staff.call("POST", "/staff/api/config", {"changes": {key: False}})[0] == 200


@pytest.mark.parametrize("key", ["game.language", "timer.length_s", "leds.brightness", "sound.volume", "web.port",
                                 "staff.session_min", "sound.quiet_hours", "screen.video_driver", "touch.thresholds"])
def test_the_day_to_day_settings_are_the_staffs(key):
    assert owners_keys([key], form()) == []


def test_every_key_is_the_owners_exactly_when_its_kind_names_something_or_the_key_says_so():
    from pi_table.config.schema import NAMING, OPTIONS, WIRED

    fields = form()
    assert {option.key for option in OPTIONS if fields[option.key]["owner"]} == {
        option.key for option in OPTIONS if option.kind in NAMING or option.kind in WIRED or option.owner}
    assert {option.kind for option in OPTIONS if not fields[option.key]["owner"]} <= {
        "str", "bool", "int", "number", "int_list", "int_lists"}  # numbers, choices and plain words


def form() -> dict:
    """The settings' form as the daemon's desk gives it, by key."""
    return {option["key"]: option for option in RolesDesk().settings()["options"]}


def test_a_change_that_holds_an_owners_key_needs_the_owner_and_names_the_key(table, desk):
    staff = staff_of(table)
    changes = {"timer.length_s": 60, "fleet.broker": "mqtts://mine.example:8883", "web.tls_key": "/tmp/k.pem"}
    status, answer = staff.call("POST", "/staff/api/config", {"changes": changes})
    assert (status, answer) == (403, {"ok": False, "owner": "needed", "error": (
        "changing Fleet broker, HTTPS private key file needs the owner's passphrase: give it under Owner, then save "
        "again")})
    assert staff.call("POST", "/staff/api/config", {"changes": {"paths.journal_dir": "/tmp"}})[0] == 403
    assert desk.calls == ["settings", "settings"]  # the form read for whose each key is: nothing changed
    assert staff.call("POST", "/staff/api/config", {"changes": {"timer.length_s": 60}}) == (
        200, {"ok": True, "restarting": False})  # the staff's own, at hand
    staff.as_owner()
    assert staff.call("POST", "/staff/api/config", {"changes": changes}) == (200, {"ok": True, "restarting": True})
    wait_for(lambda: [call for call in desk.calls if call != "settings"] == [
        "at hand timer.length_s=60", f"change {changes}", "restart"], "the change as the owner")


# --- the command that sets it -------------------------------------------------------------------


def pi_table(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pi_table", *args], input=stdin, capture_output=True, text=True,
                          timeout=30)


def test_set_owner_passphrase_keeps_its_hash_beside_the_pin_and_refuses_a_short_one(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(STAFF_CONFIG + '[game]\nlanguage = "it"\n')
    short = pi_table("set-owner-passphrase", "--config", str(config), stdin="short\n")
    assert short.returncode == 2 and short.stderr == (
        "pi-table set-owner-passphrase: la frase segreta del gestore ha almeno 10 caratteri, non 5: "
        "non è cambiato niente\n")
    assert not (tmp_path / "journal" / OWNER_FILE).exists()
    done = pi_table("set-owner-passphrase", "--config", str(config), stdin=f"{OWNER_PASSPHRASE}\n")
    assert done.returncode == 0 and "frase segreta del gestore impostata" in done.stdout, done.stderr
    path = tmp_path / "journal" / OWNER_FILE
    kept = path.read_text()
    assert secret_matches(kept, OWNER_PASSPHRASE) and OWNER_PASSPHRASE not in kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
