"""The owner's notifications (issue 62): each event the owner chose arrives where the owner's
Apprise URL points, here a receiver on this machine (an HTTP server for ``json://``, an SMTP server
for ``mailto://``), never a public service; a fault that stays is told once; a receiver that fails
or hangs leaves its reason on the staff page and the table plays on; the URL is the owner's, checked
as its kind, and never shown back (docs/cafe/notifications.md, docs/dev/security.md)."""

from __future__ import annotations

import http.server
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pi_table.daemon import backup, notices, offsite
from pi_table.files import write_private
from pi_table.hal.events import not_working
from pi_table.sim.machine import USB_STICK

from helpers import wait_for
from helpers_games import dealt_key
from helpers_machine import StickMachine
from helpers_staff import STAFF_CONFIG, Staff
from helpers_tables import InProcessDaemon, StaffTable, again, restarted

pytestmark = pytest.mark.daemon
SECRET_TOKEN = "owner-token-62"


class Receiver:
    """An HTTP service on this machine that takes Apprise's ``json://`` messages: ``answer`` is
    its status, ``hang_s`` how long it waits before answering."""

    def __init__(self, answer: int = 200, hang_s: float = 0.0) -> None:
        self.messages: list[dict] = []
        self.answer, self.hang_s = answer, hang_s
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                time.sleep(outer.hang_s)
                outer.messages.append(json.loads(body))
                self.send_response(outer.answer)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"json://127.0.0.1:{self.server.server_address[1]}/{SECRET_TOKEN}"

    def bodies(self) -> list[str]:
        return [message["message"] for message in self.messages]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    found = Receiver()
    yield found
    found.close()


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    """The table looks at itself ten times a second, as a test cannot wait five seconds a look."""
    monkeypatch.setenv(notices.POLL_VARIABLE, "0.1")


def notified(folder: Path, url: str, events: tuple[str, ...] = tuple(notices.EVENTS)) -> str:
    """The settings' part that sends the owner's notifications to ``url`` (its file the owner's, 0600)."""
    files = folder / "files"
    files.mkdir(exist_ok=True)
    write_private(files / "notify-1.url", url.encode() + b"\n")
    return f'[notify]\nurl_file = "{files / "notify-1.url"}"\nevents = {json.dumps(list(events))}\n'


def told(receiver: Receiver, words: str, timeout: float = 10.0) -> list[str]:
    """The messages that say ``words``, once one does."""
    wait_for(lambda: any(words in body for body in receiver.bodies()), f"a message saying {words!r}", timeout,
             explain=lambda: receiver.bodies())
    return [body for body in receiver.bodies() if words in body]


def device_fails(table: StaffTable) -> None:
    table.daemon.devices.why["leds"] = not_working("leds")


def rolled_back(table: StaffTable) -> None:
    from pi_table.config import trial

    good = trial.beside(table.config, trial.GOOD)
    good.write_text(table.config.read_text())
    trial.roll_back(table.config, trial.Trial(keys=("paths.keep_games",), by="staff", working=(), since=time.time()),
                    "the phones' pages did not answer")


def security_ran(table: StaffTable) -> None:
    home = table.folder / "home"
    home.mkdir()
    (home / "security.json").write_text(json.dumps({"running": False, "began": time.time() - 60, "at": time.time(),
                                                    "outcome": "done", "changed": [], "reboot": False}))
    assert table.daemon.helper is not None
    table.daemon.helper.home = home


def backup_fails(table: StaffTable, monkeypatch) -> None:
    def full(config, now=None, whole=False):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backup, "make", full)
    assert table.daemon.nightly is not None and table.daemon.nightly.tick() is None


def card_full(table: StaffTable, monkeypatch) -> None:
    monkeypatch.setattr(notices, "FULL_PART", 0.0)  # whatever this machine's disk holds is "nearly full"


def night_closed(table: StaffTable) -> None:
    assert table.daemon.night is not None
    book = table.daemon.night.book
    book.open("Friday league", ["codenames"], ["1"])
    book.join("The Owls")
    book.join("Quiz Club")
    wait_for(lambda: table.daemon.notices._night is not None, "the watch seeing the night open", 10)
    book.close()


EVENTS = {
    "device": (device_fails, "Device fault: the LED strip is not working"),
    "restart": (rolled_back, "A change of settings was rolled back: the phones' pages did not answer"),
    "update": (security_ran, "The security updates were applied"),
    "backup": (backup_fails, "The nightly backup could not be made: the card or the disk it writes to is full"),
    "disk": (card_full, "The SD card is nearly full"),
    "night": (night_closed, "The game night Friday league closed with no game played."),
}


def test_the_staff_page_offers_each_event_the_table_tells_of_and_no_other():
    from pi_table.web.sections import notify

    assert set(notices.EVENTS.values()) <= set(notify.TEXTS)  # each offered in the page's words
    assert tuple(notices.EVENTS) == tuple(EVENTS)  # and each has its test below


@pytest.mark.parametrize("event", list(EVENTS))
def test_each_event_the_owner_chose_arrives_once(tmp_path, receiver, monkeypatch, event):
    make, words = EVENTS[event]
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url))
    try:
        time.sleep(0.5)
        assert receiver.bodies() == []  # a healthy table tells nothing
        if make in (backup_fails, card_full):
            make(table, monkeypatch)
        else:
            make(table)
        assert len(told(receiver, words)) == 1
        time.sleep(1.0)  # ten looks more: the condition stays, and is not told again
        assert len([body for body in receiver.bodies() if words in body]) == 1, receiver.bodies()
        assert all(message["title"] == "Table " + os.uname().nodename for message in receiver.messages)
        if event == "night":
            assert "The Owls" not in receiver.bodies()[0]  # no game played: nobody won (test_notice_words: one that was)
    finally:
        table.close()


def test_the_helpers_runs_before_the_first_start_with_notifications_are_not_told(tmp_path, receiver, monkeypatch):
    """A table that gains its notifications (an update brings them) does not tell of last week's runs."""
    from pi_table.release import layout

    home = tmp_path / "home"
    monkeypatch.setattr(layout, "HOME", home)  # the helper's home, as the staff desk is made with it
    home.mkdir()
    (home / "security.json").write_text(json.dumps({"running": False, "began": time.time() - 7 * 86400,
                                                    "at": time.time() - 7 * 86400 + 60, "outcome": "done"}))
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url))
    try:
        assert table.daemon.notices is not None and table.daemon.helper is not None
        assert table.daemon.helper.home == home
        wait_for(lambda: table.daemon.notices._held, "the first look", 10)
        time.sleep(0.5)
        assert receiver.bodies() == []
        security_ran_again = {"running": False, "began": time.time(), "at": time.time() + 1, "outcome": "done"}
        (home / "security.json").write_text(json.dumps(security_ran_again))
        told(receiver, "The security updates were applied")  # a run after it is news
    finally:
        table.close()


def test_a_touch_chip_gone_silent_is_told_once_by_the_table_as_the_service_runs_it(tmp_path, receiver):
    """The table under the stand-in for systemd, reading the touch board's emulator: a chip whose
    joint broke is told, once, with the cards it leaves deaf."""
    from helpers_board import EmulatedTable

    table = EmulatedTable(tmp_path)
    table.config.write_text(table.config.read_text() + notified(tmp_path, receiver.url))
    try:
        table.start()
        table.connected()
        time.sleep(0.5)
        assert receiver.bodies() == []
        table.emulator.cut_chip(2)
        silent = told(receiver, "does not answer", timeout=30)
        assert len(silent) == 1 and silent[0].startswith("Device fault: touch chip 0x5c"), silent
        time.sleep(1.0)
        assert len([body for body in receiver.bodies() if "does not answer" in body]) == 1
    finally:
        table.close()


def test_an_event_the_owner_did_not_choose_is_not_told(tmp_path, receiver):
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url, events=("disk",)))
    try:
        device_fails(table)
        time.sleep(1.0)
        assert receiver.bodies() == []
    finally:
        table.close()


def offsite_fails(table: StaffTable, monkeypatch) -> None:
    """The network place kept, and rclone gone from the table: each try of the copy fails."""
    config = table.daemon.config
    offsite.save(config, offsite.parse("sftp://cafe@127.0.0.1:2222/pi-table", "not the password"))
    monkeypatch.setattr(offsite.shutil, "which", lambda name: None)
    assert table.daemon.nightly is not None and table.daemon.nightly.tick() is not None  # the night's, copied by it
    offsite.send_newest(config)  # the next try fails as well


def stick_fails(table: StaffTable, monkeypatch) -> None:
    """The root helper's stick act (its stand-ins: a stick whose mount fails) run twice, as two nights would."""
    from pi_table.release import helper

    (table.folder / "stick").mkdir()
    machine = StickMachine(table.folder / "stick", USB_STICK, mount_fails=True)
    machine.night("20261126-040000")
    assert table.daemon.helper is not None
    table.daemon.helper.home = machine.helper.releases.home
    for _ in range(2):
        assert helper.to_stick(machine.helper, io.StringIO()) == 1
        time.sleep(0.3)  # three looks of the watch between the tries


@pytest.mark.parametrize(("fails", "words"), [
    (offsite_fails, "The nightly backup could not be copied to the network place: another error: the table's log"),
    (stick_fails, "The nightly backup could not be written to the USB stick: ")])
def test_a_copy_off_the_sd_card_that_fails_is_told_once_not_at_each_try(tmp_path, receiver, monkeypatch, fails, words):
    """The backup's copies off the card fail as the nightly backup does: the owner who chose
    "backup" is told, once for the fault, not once a try; the owner who did not is not told."""
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url))
    try:
        fails(table, monkeypatch)
        assert len(told(receiver, words)) == 1
        time.sleep(1.0)
        assert len([body for body in receiver.bodies() if words in body]) == 1, receiver.bodies()
    finally:
        table.close()
    (tmp_path / "other").mkdir()
    table = StaffTable(tmp_path / "other", dealt_key(), extra=notified(tmp_path / "other", receiver.url,
                                                                        ("device", "disk")))
    try:
        fails(table, monkeypatch)
        time.sleep(1.0)
        assert len([body for body in receiver.bodies() if words in body]) == 1, receiver.bodies()
    finally:
        table.close()


def test_a_fault_that_clears_and_comes_back_is_told_again_only_after_the_quiet_time(tmp_path, receiver, monkeypatch):
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url))
    words = EVENTS["device"][1]
    try:
        for _ in range(3):  # a loose cable: the fault comes and goes
            device_fails(table)
            wait_for(lambda: table.daemon.notices is not None and "device:leds" in table.daemon.notices._held,
                     "the watch seeing the fault", 10)
            del table.daemon.devices.why["leds"]
            wait_for(lambda: "device:leds" not in table.daemon.notices._held, "the watch seeing it clear", 10)
        assert len(told(receiver, words)) == 1
        monkeypatch.setattr(notices, "QUIET_S", 0.0)  # the quiet time has passed
        device_fails(table)
        wait_for(lambda: len([body for body in receiver.bodies() if words in body]) == 2, "the fault told again", 10)
    finally:
        table.close()


def test_what_was_told_is_not_told_again_after_a_restart(tmp_path, receiver, monkeypatch):
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url))
    card_full(table, monkeypatch)
    told(receiver, "nearly full")
    table.close()
    again = InProcessDaemon(table.config)
    try:
        time.sleep(1.0)
        assert len([body for body in receiver.bodies() if "nearly full" in body]) == 1
    finally:
        again.close()


def test_a_start_after_a_crash_and_a_new_version_are_told(tmp_path, receiver):
    """The table as the service runs it, killed as a crash kills it; the next start tells of it,
    and of the version it now runs when another ran before."""
    from pi_table import version

    config = tmp_path / "config.toml"
    (tmp_path / "journal").mkdir()
    config.write_text(STAFF_CONFIG + notified(tmp_path, receiver.url))
    running = tmp_path / "journal" / notices.RUNNING_FILE
    service = subprocess.Popen([sys.executable, "-m", "pi_table", "run", "--hal", "sim", "--config", str(config)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: running.exists() and (tmp_path / "journal" / notices.SENT_FILE).exists(), "the table running", 30)
    finally:
        service.send_signal(signal.SIGKILL)
        service.wait(timeout=10)
    sent = json.loads((tmp_path / "journal" / notices.SENT_FILE).read_text())
    (tmp_path / "journal" / notices.SENT_FILE).write_text(json.dumps({**sent, "version": "0.0.1"}))
    table = InProcessDaemon(config)
    try:
        told(receiver, "The table restarted after a crash")
        told(receiver, f"The table now runs version {version()}.")
    finally:
        table.close()
    assert not running.exists()  # a clean stop: the next start tells of no crash
    table = InProcessDaemon(config)
    try:
        time.sleep(1.0)
        assert len([body for body in receiver.bodies() if "crash" in body]) == 1
    finally:
        table.close()


def owner(table: StaffTable, lang: str = "en") -> Staff:
    staff = Staff(table.base, lang=lang)
    assert staff.login()[0] == 200
    staff.as_owner()
    return staff


def test_the_owners_test_arrives_by_mail(tmp_path):
    from aiosmtpd.controller import Controller

    from pi_table.fleet.broker import free_port

    mails: list[str] = []

    class Mailbox:
        async def handle_DATA(self, server, session, envelope):
            mails.append(envelope.content.decode("utf-8", "replace"))
            return "250 OK"

    smtp = Controller(Mailbox(), hostname="127.0.0.1", port=free_port())
    smtp.start()
    table = StaffTable(tmp_path, dealt_key())
    try:
        staff = owner(table)
        url = f"mailto://127.0.0.1:{smtp.port}?from=table@example.org&to=owner@example.org"
        status, answer = staff.call("POST", "/staff/api/notify/test", {"url": url})
        assert status == 200 and answer["last"]["ok"] is True, answer
        wait_for(lambda: mails, "the test mail", 10)
        assert "A test from table" in mails[0] and "owner@example.org" in mails[0]
    finally:
        table.close()
        smtp.stop()


def test_only_the_owner_sends_a_test_or_sees_the_notifications(tmp_path, receiver):
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url))
    try:
        staff = Staff(table.base)
        assert staff.login()[0] == 200
        for method, path, body in (("GET", "/staff/api/notify", None), ("POST", "/staff/api/notify/test", {}),
                                   ("POST", "/staff/api/files/notify", {"url": receiver.url, "events": []})):
            status, answer = staff.call(method, path, body)
            assert status == 403 and answer["owner"] == "needed", (path, answer)
        assert receiver.messages == []
        staff.as_owner()
        status, answer = staff.call("GET", "/staff/api/notify")
        assert status == 200 and answer["url"] == "json://…" and SECRET_TOKEN not in json.dumps(answer)
        assert tuple(answer["offered"]) == tuple(notices.EVENTS)  # the page's boxes: it keeps no list of its own
    finally:
        table.close()


@pytest.mark.parametrize("url, why", [
    ("file:///etc/passwd", "begins with one of"),
    (f"https://127.0.0.1/{SECRET_TOKEN}", "begins with one of"),
    (f"json://127.0.0.1/{SECRET_TOKEN} json://127.0.0.2/", "no spaces"),
    (f"json://{'x' * 3000}", "at most 2048 characters"),
    (f"tgram://{SECRET_TOKEN}", "is not one tgram:// takes"),
])
def test_an_address_is_checked_as_its_kind_and_never_said_back(tmp_path, url, why):
    table = StaffTable(tmp_path, dealt_key())
    try:
        staff = owner(table)
        for path, body in (("/staff/api/notify/test", {"url": url}),
                           ("/staff/api/files/notify", {"url": url, "events": ["device"]})):
            status, answer = staff.call("POST", path, body)
            assert status == 400 and why in json.dumps(answer), (path, answer)
            assert SECRET_TOKEN not in json.dumps(answer)
        assert not (tmp_path / "files").exists() or list((tmp_path / "files").glob("notify-*")) == []
    finally:
        table.close()


def test_the_address_saved_is_the_owners_file_tried_as_every_change(tmp_path, receiver):
    table = StaffTable(tmp_path, dealt_key())
    after = None
    try:
        staff = owner(table)
        status, answer = staff.call("POST", "/staff/api/files/notify", {"url": receiver.url, "events": ["disk"]})
        assert (status, answer["restarting"]) == (200, True), answer
        after = restarted(table)
        staff = again(staff, after)
        status, state = staff.call("GET", "/staff/api/owner")
        assert state["results"]["notify"]["said"]  # the act's result, after the restart it caused
        status, answer = staff.call("GET", "/staff/api/notify")
        assert (status, answer["url"], answer["events"]) == (200, "json://…", ["disk"]), answer
        kept = list((tmp_path / "files").glob("notify-*.url"))
        assert len(kept) == 1 and kept[0].stat().st_mode & 0o777 == 0o600
        assert SECRET_TOKEN not in (tmp_path / "config.toml").read_text()
        status, answer = staff.call("POST", "/staff/api/notify/test", {})
        assert status == 200 and answer["last"]["ok"] is True, answer
        assert "A test from table" in receiver.bodies()[0]
    finally:
        (after or table).close()


@pytest.mark.parametrize("answer, hang_s, why", [(500, 0.0, "the service did not take the message"),
                                                 (200, 3.0, "the service did not answer within 1 s")])
def test_a_failing_or_hanging_service_leaves_its_reason_and_the_table_plays_on(tmp_path, monkeypatch, answer, hang_s,
                                                                                why):
    monkeypatch.setattr(notices, "SEND_S", 1.0)
    failing = Receiver(answer, hang_s)
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, failing.url))
    try:
        staff = owner(table)
        began = time.monotonic()
        device_fails(table)
        status, answered = staff.call("POST", "/staff/api/notify/test", {})
        assert status == 200 and answered["last"]["ok"] is False and why in answered["last"]["why"], answered
        assert time.monotonic() - began < 10  # the page waited a bounded time
        assert SECRET_TOKEN not in json.dumps(answered)
        table.guess(0)  # the table plays on while the service fails
        status, view = staff.call("GET", "/staff/api/table")
        assert status == 200, view
        status, answered = staff.call("GET", "/staff/api/notify")
        assert answered["last"]["ok"] is False and why in answered["last"]["why"]
        status, logged = staff.call("GET", "/staff/api/log")  # nothing of the URL in what the staff may read
        assert status == 200 and SECRET_TOKEN not in json.dumps(logged)
    finally:
        table.close()
        failing.close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "it"])
def test_on_a_phone_the_owner_sends_a_test_and_sees_a_failing_service_named(tmp_path, browser, lang):
    """The staff page's section as the owner uses it: a test to the URL typed, before it is saved,
    arrives; one to a service that refuses it leaves the reason on the page; the URL typed is never
    shown back."""
    from playwright.sync_api import expect

    from pi_table.ui.i18n import translation

    from helpers_staff import owner_login

    working, failing = Receiver(), Receiver(answer=500)
    table = StaffTable(tmp_path, dealt_key(), lang=lang)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    said = translation(lang).gettext
    try:
        owner_login(page, table.base)
        expect(page.locator("#notify-form")).to_be_visible()
        expect(page.locator("#notify-line")).to_have_text(said("No address set: nothing is sent."))
        page.fill("#notify-url", working.url)
        page.click("#notify-test")
        expect(page.locator("#notify-result")).to_have_text(said("Test sent: look for it where the messages arrive."))
        assert len(working.bodies()) == 1 and said("A test from table {table}: the owner's notifications arrive "
                                                   "here.").format(table=os.uname().nodename) == working.bodies()[0]
        page.fill("#notify-url", failing.url)
        page.click("#notify-test")
        failed = said("the service did not take the message: {why}").split("{why}")[0]
        expect(page.locator("#notify-last")).to_contain_text(failed)
        assert SECRET_TOKEN not in page.locator("#notify-section").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the section fits the phone
    finally:
        page.close()
        table.close()
        working.close()
        failing.close()


@pytest.mark.parametrize("damage", [b"not json", b'{"told": {"disk": "soon"}}', b"[1, 2]"])
def test_a_damaged_note_of_what_was_told_tells_again(tmp_path, receiver, monkeypatch, damage):
    (tmp_path / "journal").mkdir()
    (tmp_path / "journal" / notices.SENT_FILE).write_bytes(damage)
    monkeypatch.setattr(notices, "FULL_PART", 0.0)
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url))
    try:
        told(receiver, "The SD card is nearly full")
    finally:
        table.close()


@pytest.mark.parametrize("last", [{"why": "{nothing}", "args": {}}, {"why": notices.FAILED, "args": {}},
                                  {"why": notices.SLOW, "args": "x"}])
def test_a_damaged_last_outcome_is_shown_without_its_reason(tmp_path, receiver, last):
    (tmp_path / "journal").mkdir()
    (tmp_path / "journal" / notices.SENT_FILE).write_text(json.dumps({"version": "0", "last": {"at": 1, **last}}))
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url, events=()))
    try:
        status, answer = owner(table).call("GET", "/staff/api/notify")
        assert status == 200 and answer["last"] == {"at": 1, "ok": False, "why": None}, answer
    finally:
        table.close()


def test_the_buttons_reset_is_told_to_the_owners_address_before_it_wipes_it(tmp_path, receiver):
    """Issue 75, 5: the buttons' reset wiped the notifications' address with the rest of the
    owner's part, so the one event the owner most needs to hear of was never sent. It is told
    first, whatever events the owner chose, and waited for: the reset's answer comes after it."""
    table = StaffTable(tmp_path, dealt_key(), extra=notified(tmp_path, receiver.url, events=("disk",)))
    try:
        holder = Staff(table.base)
        holder.login()
        code = table.daemon.recovery.issue()  # as both buttons held while the table starts show it
        status, answer = holder.call("POST", "/staff/api/owner/reset",
                                     {"code": code, "passphrase": "the holder's own passphrase"})
        assert status == 200, answer
        said = [body for body in receiver.bodies() if "being reset with the table's buttons, from 127.0.0.1" in body]
        assert len(said) == 1 and "Copies of the backups on a USB stick or at the network place" in said[0]
        assert not (tmp_path / "files" / "notify-1.url").exists()  # wiped after it was told
        assert 'url_file = ""' in table.config.read_text()
    finally:
        table.close()


@pytest.mark.parametrize("url, secret", [("tgram://abc123secret/", "abc123secret"),
                                         ("mailto://user:pw-secret-9@", "pw-secret-9"),
                                         ("json://secret-host-1:99999/", "secret-host-1")])
def test_no_part_of_an_address_apprise_cannot_load_reaches_the_tables_log(url, secret, capfd):
    """Issue 74: Apprise wrote an address it could not load into its log, which the table's log
    (the staff's to read: a handler on the root logger, as the daemon's recent lines and the
    journal's are) took in: a short token whole. Apprise's lines stay out of it, and out of
    stderr (the journal) too."""
    import logging

    lines: list[str] = []
    table_log = logging.Handler(logging.DEBUG)
    table_log.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    root = logging.getLogger()
    level, root.level = root.level, logging.DEBUG
    root.addHandler(table_log)
    try:
        notices.NoticeUrl.parse(url)
    except notices.Refusal as refused:
        assert secret not in str(refused)
    finally:
        root.removeHandler(table_log)
        root.setLevel(level)
    assert not [line for line in lines if secret in line] and secret not in "".join(capfd.readouterr())
