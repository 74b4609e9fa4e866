"""A café whose SD card died (issue 62): a fresh image's set-up page restores the table from a
backup the stick copy wrote on a USB stick. The root helper alone finds, mounts (read-only) and
reads the stick, asked for one backup's name parsed into its kind; the set-up then restores the
copy as the staff page restores a nightly backup, as a trial. A stick from a stranger is a
restored backup: the same checks, a hostile one refused in words with nothing of the table lost.
The table runs in this process as the service runs it; the root helper and systemd's start of
the stick's unit are played by a thread, lsblk, mount and umount by stand-ins (``helpers_machine.StickMachine``)."""

from __future__ import annotations

import dataclasses
import json
import re
import tarfile

import pytest

from pi_table.config import load_config, trial
from pi_table.daemon import backup
from pi_table.release import helper
from pi_table.release.first_boot import DONE, PENDING
from pi_table.release.service_user import ServiceUser
from pi_table.sim.machine import USB_STICK

from helpers import wait_for
from helpers_machine import FakeNetworkManager, StickMachine, old_table_backup, stick_holding
from helpers_phones import call, looked_on_stick
from helpers_release import member, packed
from helpers_staff import STAFF_PIN, Staff
from helpers_tables import FreshTable, InProcessDaemon

pytestmark = pytest.mark.daemon
PASSPHRASE = "the café's own table 7"
NEWER, OLDER = "nightly-20261126-040000.tar.gz", "nightly-20261125-040000.tar.gz"


class StickTable(FreshTable):
    """A fresh table whose root helper, when it starts a stick's unit, runs that unit's act at
    once, as systemd would, on the stick's stand-ins (``machine``)."""

    def __init__(self, tmp_path, monkeypatch, machine: StickMachine) -> None:
        self.machine, self.started = machine, tmp_path / "started"
        self.systemctl = helper_program(tmp_path / "systemctl", self.started)
        super().__init__(tmp_path, monkeypatch, FakeNetworkManager(tmp_path / "nm", monkeypatch))

    def act(self) -> None:
        acts = dataclasses.replace(self.acts, systemctl=(self.systemctl,), stick=self.machine.helper.stick,
                                   user=ServiceUser(None))
        helper.act(acts, self.spool)
        for unit in self.started.read_text().split() if self.started.exists() else []:
            self.started.unlink()
            instance = unit.removeprefix("pi-table-stick-restore@").removesuffix(".service")
            helper.from_stick(acts, instance)


def helper_program(path, started):
    from pi_table.sim.machine import program

    return program(path, f'echo "$3" >> {started}\n')  # systemctl start --no-block UNIT


@pytest.fixture
def café(tmp_path, monkeypatch):
    """The café's old table's backup on the stick (and an older one), and a fresh table."""
    made = []

    def make(**on_stick: bytes) -> tuple[StickTable, StickMachine]:
        (tmp_path / "stick").mkdir()
        machine = StickMachine(tmp_path / "stick", USB_STICK)
        stick_holding(machine, **on_stick)
        (tmp_path / "fresh").mkdir()
        made.append(StickTable(tmp_path / "fresh", monkeypatch, machine))
        return made[-1], machine

    yield make
    for each in made:
        each.close()


def old_backup(tmp_path) -> bytes:
    return old_table_backup(tmp_path / "old")


def restoring(code: str, name: str, **changed) -> dict:
    return {"code": code, "restore": name, "passphrase": PASSPHRASE, "passphrase_again": PASSPHRASE,
            "zone": "Europe/Rome", "wifi": None, **changed}


def test_a_fresh_table_is_restored_from_the_newest_backup_on_a_stick_and_keeps_it_once_healthy(café, tmp_path):
    data = old_backup(tmp_path)
    fresh, machine = café(**{NEWER: data, OLDER: b"an older night", "holiday.jpg": b"the owner's"})
    journal = fresh.folder / "journal"
    waiting = fresh.boot.waiting
    base = fresh.daemon.companion.base_url
    assert call(base, "GET", "/setup/api/stick")[0] == 403  # no phone has asked with the code
    assert call(base, "POST", "/setup/api/stick", {"code": "1111 2222", "backup": "newest"})[0] == 403
    status, refused, _ = call(base, "POST", "/setup/api/stick", {"code": waiting.code, "backup": "../../etc/shadow"})
    assert (status, refused["field"]) == (400, "restore") and "shadow" not in refused["error"]
    status, refused, _ = call(base, "POST", "/setup/api/stick", {"code": waiting.code, "backup": OLDER})
    assert (status, refused["field"]) == (400, "restore") and "did not list" in refused["error"]  # none listed yet
    found = looked_on_stick(base, waiting.code)
    assert found["outcome"] == "done" and found["backup"] == NEWER and found["stick"] == "CAFE"
    for ticket in ({}, {"X-Stick-Ticket": "guessed"}):  # a guest on the network, without the code
        status, hidden, _ = call(base, "GET", "/setup/api/stick?lang=en", headers=ticket)
        assert status == 403 and "look again" in hidden["error"] and NEWER not in json.dumps(hidden), hidden
    assert found["listed"] == [NEWER, OLDER]
    assert "the staff PIN: the backup's (log in with the PIN the table had then)" in found["replaces"]
    assert any("game.language" in line for line in found["replaces"])
    assert machine.called()[1].startswith("mount -t vfat -o ro,")
    # the set-up with the backup in place of the name, language and PIN: it is staged as a restore
    status, done, _ = call(base, "POST", "/setup/api", restoring(waiting.shown, NEWER, passphrase_again="other"))
    assert (status, done["field"]) == (400, "passphrase-again")
    status, done, _ = call(base, "POST", "/setup/api", restoring(waiting.shown, NEWER))
    assert status == 200 and done["ok"] and done["restarting"] and done["recovery_code"], done
    assert (journal / DONE).exists() and not (journal / PENDING).exists()
    assert backup.pending(load_config(fresh.config)) is not None  # a trial, as the staff page's restore
    wait_for(lambda: not fresh.runner.is_alive(), "the table ending itself to restart", 15)
    fresh.close()
    (journal / "staff.restarts").unlink(missing_ok=True)
    again = InProcessDaemon(fresh.config)  # started as systemd starts it: the restore applied, then watched
    try:
        config = load_config(fresh.config)
        assert config.language == "it"
        wait_for(lambda: backup.pending(config) is None, "the restore kept once the table is healthy on it", 60)
        assert not (backup.folder(config) / ("restore" + trial.ROLLED_BACK)).exists()
        staff = Staff(again.daemon.companion.base_url)
        assert staff.login(STAFF_PIN)[0] == 200  # the old table's PIN
        staff.as_owner(PASSPHRASE)  # the set-up's passphrase
    finally:
        again.close()


def test_a_sealed_backup_on_the_stick_asks_for_its_key_refuses_a_wrong_one_and_keeps_the_right_one(café, tmp_path):
    """Issue 75: the stick holds the old table's backup sealed with the owner's key; the set-up
    restores it with that key alone, refuses without it or with another (nothing staged), and the
    table keeps the owner's key (its copies go on opening with the key written down)."""
    from pi_table.daemon import sealed

    key = "ABCD-EFGH-JKMN-PQRS-TVWX"
    data = sealed.seal(old_backup(tmp_path), sealed.key_given(key))
    fresh, _ = café(**{NEWER: data})
    journal = fresh.folder / "journal"
    waiting = fresh.boot.waiting
    base = fresh.daemon.companion.base_url
    before = sorted(path.name for path in journal.iterdir())
    found = looked_on_stick(base, waiting.code)
    assert found["outcome"] == "done" and found["sealed"] is True and found["backup"] == NEWER, found
    assert found["replaces"] == []  # nothing of it is read before its key is given
    for given, words in ((None, "sealed with the owner's backup key"), ("0000-1111-2222-3333-4444",
                                                                          "does not open this backup"),
                         ("ABCD", "5 groups of 4 letters and digits")):
        status, refused, _ = call(base, "POST", "/setup/api",
                                  restoring(waiting.code, NEWER, **({} if given is None else {"key": given})))
        assert (status, refused["field"]) == (400, "restore") and words in refused["error"], refused
        assert backup.pending(load_config(fresh.config)) is None  # nothing staged
        assert sorted(path.name for path in journal.iterdir()) == before and fresh.boot.waiting is not None
    status, done, _ = call(base, "POST", "/setup/api", restoring(waiting.code, NEWER, key=key.lower()))
    assert status == 200 and done["ok"] and done["backup_key"] is None, done  # the owner's, no new one to write
    config = load_config(fresh.config)
    assert backup.pending(config) is not None and sealed.kept_key(config) == sealed.key_given(key)


HOSTILE = packed([(member("journal/staff.pin", kind=tarfile.SYMTYPE, link="/etc/shadow"), b"")])


@pytest.mark.parametrize(("on_stick", "words"), [
    (HOSTILE, "the backup's 'journal/staff.pin' is a symbolic link: expected regular files only"),
    (b"\x1f\x8b not a backup", "the backup is damaged"),
    (b"#!/bin/sh\nrm -rf /\n", "the backup is not a .tar.gz file")])
def test_a_strangers_stick_is_refused_in_words_with_nothing_of_the_table_lost(café, on_stick, words):
    fresh, _ = café(**{NEWER: on_stick})
    journal = fresh.folder / "journal"
    waiting = fresh.boot.waiting
    base = fresh.daemon.companion.base_url
    before = sorted(path.name for path in journal.iterdir())
    found = looked_on_stick(base, waiting.code)
    assert found["outcome"] == "refused" and words in found["why"], found
    status, refused, _ = call(base, "POST", "/setup/api", restoring(waiting.code, NEWER))
    assert (status, refused["field"]) == (400, "restore") and words in refused["error"]
    assert on_stick.decode("latin-1") not in json.dumps(refused)
    assert backup.pending(load_config(fresh.config)) is None  # nothing staged
    assert sorted(path.name for path in journal.iterdir()) == before  # still waiting for its set-up, as it was
    assert fresh.boot.waiting is not None and (journal / PENDING).exists()


def test_no_stick_is_said_and_the_table_still_waits_for_its_set_up(café):
    fresh, machine = café()
    machine.calls.unlink(missing_ok=True)
    (machine.folder / "lsblk.json").write_text(json.dumps({"blockdevices": []}))
    found = looked_on_stick(fresh.daemon.companion.base_url, fresh.boot.waiting.code)
    assert found["outcome"] == "failed" and "no USB stick was found" in found["why"]
    assert fresh.boot.waiting is not None


@pytest.mark.browser
def test_on_a_phone_the_owner_looks_on_the_stick_sees_what_it_brings_and_sets_the_table_up_from_it(café, tmp_path,
                                                                                                   browser):
    from playwright.sync_api import expect

    fresh, _ = café(**{NEWER: old_backup(tmp_path), OLDER: HOSTILE})
    waiting = fresh.boot.waiting
    base = fresh.daemon.companion.base_url
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    try:
        page.goto(f"{base}/setup")
        page.fill("#code", waiting.shown)
        page.click("#stick-look")
        restore = page.locator("#restore")
        expect(restore).to_contain_text(f"Backup {NEWER} from the stick CAFE, made ")
        made = restore.inner_text().partition(", made ")[2].partition(". ")[0]  # the page kit's date, in English
        assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M", made), made
        expect(page.locator("#restore-replaces")).to_contain_text("the staff PIN: the backup's")
        expect(page.locator("#own-settings")).to_be_hidden()  # the backup brings the name, language and PIN
        expect(page.locator("#pin-part")).to_be_hidden()
        page.select_option("#stick-choice", OLDER)  # an older night, which is a stranger's
        page.click("#stick-copy")
        expect(restore).to_contain_text("is a symbolic link: expected regular files only")
        assert "error" in (restore.get_attribute("class") or "")
        expect(page.locator("#own-settings")).to_be_visible()  # nothing to restore: the set-up as ever
        page.select_option("#stick-choice", NEWER)
        page.click("#stick-copy")
        expect(restore).to_contain_text(f"Backup {NEWER}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.fill("#zone", "Europe/Rome")
        page.fill("#passphrase", PASSPHRASE)
        page.fill("#passphrase-again", PASSPHRASE)
        page.click("#submit")
        page.locator("#done").wait_for()
        expect(page.locator("#recovery-code")).to_have_text(re.compile(r"^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$"))
        # a backup made before there were keys: the table makes its own, shown this once beneath
        expect(page.locator("#backup-key-code")).to_have_text(re.compile(r"^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$"))
        assert backup.pending(load_config(fresh.config)) is not None
    finally:
        context.close()


@pytest.mark.browser
def test_on_a_phone_a_sealed_backup_asks_for_its_key_and_says_why_a_wrong_one_does_not_open_it(café, tmp_path,
                                                                                               browser):
    from playwright.sync_api import expect

    from pi_table.daemon import sealed

    key = "ABCD-EFGH-JKMN-PQRS-TVWX"
    fresh, _ = café(**{NEWER: sealed.seal(old_backup(tmp_path), sealed.key_given(key))})
    base = fresh.daemon.companion.base_url
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    try:
        page.goto(f"{base}/setup")
        page.fill("#code", fresh.boot.waiting.shown)
        page.click("#stick-look")
        expect(page.locator("#restore")).to_contain_text(f"Backup {NEWER} from the stick CAFE is sealed: type its "
                                                         "backup key")
        expect(page.locator("#backup-key-given")).to_be_visible()
        expect(page.locator("#restore-replaces")).to_be_hidden()  # nothing of it read before its key
        page.fill("#zone", "Europe/Rome")
        page.fill("#passphrase", PASSPHRASE)
        page.fill("#passphrase-again", PASSPHRASE)
        page.fill("#backup-key-given", "0000-1111-2222-3333-4444")
        page.click("#submit")
        expect(page.locator("#restore-error")).to_contain_text("does not open this backup")
        assert backup.pending(load_config(fresh.config)) is None and fresh.boot.waiting is not None
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.fill("#backup-key-given", key.lower())
        page.click("#submit")
        page.locator("#done").wait_for()
        expect(page.locator("#recovery-code")).to_have_text(re.compile(r"^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$"))
        expect(page.locator("#backup-key")).to_be_hidden()  # the owner's own key kept: nothing new to write down
        assert sealed.kept_key(load_config(fresh.config)) == sealed.key_given(key)
    finally:
        context.close()
