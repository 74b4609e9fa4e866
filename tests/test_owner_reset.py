"""The owner's ways back (issue 58, 1): the buttons' reset is a factory reset of the owner's part,
the owner's own way back is the recovery code shown once at the set-up, and either leaves a
lasting notice until the owner acknowledges it (docs/cafe/roles.md, docs/dev/security.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_table.daemon import backup, owner_notice
from pi_table.daemon.staff_desk import FakeDesk
from pi_table.release import helper
from pi_table.release.keys import Keyring
from pi_table.release.layout import Releases
from pi_table.release.service_user import ServiceUser

from helpers import wait_for
from helpers_fleet import BROKER_SECRET, FLEET
from helpers_games import dealt_key
from helpers_staff import OWNER_PASSPHRASE, Staff, download_backup, make_key
from helpers_tables import InProcessDaemon, PathUnit, StaffTable

HOLDERS_PASSPHRASE = "the holder's own passphrase"


class HelperAtWork:
    """The root helper as pi-table-helper.path runs it: each request the table leaves in ``spool``
    taken and acted on by the real helper, on a keyring and releases' folder of the test's own."""

    def __init__(self, folder: Path) -> None:
        self.spool = folder / "spool"
        self.keyring = Keyring(folder / "pi-table-keys")
        self.acts = helper.Helper(Releases(folder / "home"), self.keyring, ServiceUser(None))
        self.done: list[int] = []
        self._path_unit = PathUnit(self.spool, lambda: self.done.append(helper.act(self.acts, self.spool)))

    def serve(self, daemon) -> None:
        """``daemon``'s staff page asks this helper, and its keys section reads this keyring."""
        desk = daemon.helper
        desk.spool, desk.home, desk.helper_missing = self.spool, self.acts.releases.home, lambda: None
        keys = next(section for section in daemon.companion.staff.sections if section.name == "keys")
        keys.keyring, keys.home = self.keyring, self.acts.releases.home

    def stop(self) -> None:
        self._path_unit.stop()


@pytest.mark.daemon
def test_staff_at_the_buttons_reset_the_passphrase_and_get_none_of_the_owners_secrets(tmp_path, monkeypatch):
    """The harm (issue 58, 1): a staff session and the code the table's screen shows after both
    buttons were held made the holder the owner with everything the owner held: a backup with
    the broker's password, the nightly backups, the release keys the owner added. The reset now
    wipes the owner's part before the new passphrase is set."""
    (tmp_path / "table").mkdir()
    at_work = HelperAtWork(tmp_path)
    table = StaffTable(tmp_path / "table", dealt_key(), extra=FLEET)
    daemon = table.daemon
    try:
        at_work.serve(daemon)
        owner = Staff(table.base)
        owner.login()
        owner.as_owner()
        public = make_key(tmp_path)
        assert owner.call("POST", "/staff/api/keys", {"act": "add", "name": "owner", "key": public})[0] == 202
        wait_for(lambda: [key.name for key in at_work.keyring.listed()] == ["owner"], "the owner's key added")
        assert BROKER_SECRET.encode() in download_backup(owner)["config.toml"]  # the owner's own backup holds it
        nightly = backup.folder(daemon.config) / "nightly-20261126-040000.tar.gz"
        nightly.parent.mkdir(parents=True, exist_ok=True)
        nightly.write_bytes(backup.make(daemon.config))

        holder = Staff(table.base)  # a member of staff: the PIN, never the passphrase
        holder.login()
        code = daemon.recovery.issue()  # as both buttons held while the table starts show it, on its screen
        status, answer = holder.call("POST", "/staff/api/owner/reset", {"code": code, "passphrase": HOLDERS_PASSPHRASE})
        assert status == 200, answer
        if answer.get("restarting"):  # the table starts again on what is left
            wait_for(lambda: daemon.restarting, "the restart the reset announced", timeout=15)
            table.close()
            table = InProcessDaemon(tmp_path / "table" / "config.toml")
            daemon = table.daemon
            at_work.serve(daemon)
            holder.base = owner.base = daemon.companion.base_url
        holder.as_owner(HOLDERS_PASSPHRASE)
        backed_up = download_backup(holder)
        assert BROKER_SECRET.encode() not in b"".join(backed_up.values()), "the broker's password was handed over"
        assert holder.call("GET", "/staff/api/backups")[1]["nightly"] == [], "the owner's nightly backups were handed over"
        assert not any(key.name == "owner" and not key.revoked for key in at_work.keyring.listed()), \
            "the owner's release key still lets releases in"
        assert owner.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE})[0] == 403

        notice = owner.call("GET", "/staff/api/owner/notice")[1]["notice"]  # the staff see it too
        assert "reset with the table's buttons" in notice and "127.0.0.1" in notice
        for piece in ("the broker's password", "the nightly backups", "the release keys the owner added"):
            assert piece in notice, piece
        status = daemon.answer({"command": "status"})
        assert notice in status["warnings"]  # pi-table status
        reported = daemon.loop.call(daemon.fleet_reports.status)["warnings_in"]  # the fleet's dashboard, in its language
        assert notice in reported["en"] and any("reimpostata con i pulsanti del tavolo" in said for said in reported["it"])
        shown = daemon.devices.screen.screen.screen.models[-1]  # the phones' and the fleet's screens wrap the table's
        assert notice in [str(warning) for warning in shown.warnings]
        assert "Copies of the backups on a USB stick or at the network place still hold" in notice
        assert owner.call("POST", "/staff/api/owner/notice")[0] == 403  # the owner's word alone takes it down
        # issue 74, 3: whoever made the reset holds the new passphrase, and took the notice down at once
        status, answer = holder.call("POST", "/staff/api/owner/notice")
        assert status == 403 and "cannot be acknowledged from the phone that made the reset" in answer["error"]
        other = Staff(daemon.companion.base_url)  # another phone, given the new passphrase: not before a week
        other.login()
        other.as_owner(HOLDERS_PASSPHRASE)
        status, answer = other.call("POST", "/staff/api/owner/notice")
        assert status == 403 and "stands for a week" in answer["error"]
        assert owner.call("GET", "/staff/api/owner/notice")[1]["notice"] == notice
        monkeypatch.setattr(owner_notice, "HOLD_S", 0.0)  # a week later
        assert holder.call("POST", "/staff/api/owner/notice")[0] == 403  # never from the phone that made it
        assert other.call("POST", "/staff/api/owner/notice") == (200, {"ok": True, "acknowledged": True})
        assert owner.call("GET", "/staff/api/owner/notice")[1]["notice"] is None
        assert not any("passphrase was reset" in warning for warning in daemon.answer({"command": "status"})["warnings"])
        status, kept = other.call("GET", "/staff/api/owner/resets")  # the history stays, for the owner to read
        assert status == 200 and [(reset["how"], reset["from"]) for reset in kept["resets"]] == [("buttons", "127.0.0.1")]
        assert "the release keys the owner added" in kept["resets"][0]["wiped"] and kept["resets"][0]["acknowledged"]
    finally:
        at_work.stop()
        table.close()


# --- the owner's recovery code -------------------------------------------------------------------


@pytest.fixture
def page(tmp_path):
    """A companion with the staff page (a desk that records), a PIN and an owner's passphrase set;
    (companion, desk)."""
    from pi_table.web import Companion
    from pi_table.web.roles import set_passphrase
    from pi_table.web.staff import set_pin

    from helpers_staff import STAFF_PIN, staff_page

    set_pin(tmp_path, STAFF_PIN)
    set_passphrase(tmp_path, OWNER_PASSPHRASE)
    desk = FakeDesk()
    companion = Companion(staff=staff_page(desk, tmp_path))
    companion.start()
    yield companion, desk
    companion.stop()


def test_the_recovery_code_sets_a_new_passphrase_once_and_gives_the_next_one(page):
    """Issue 58, 1: the owner's own way back. Made by the owner (shown once, its hash alone kept),
    it sets a new passphrase from a staff session; it serves once, a new one comes in the answer,
    and the reset leaves its notice."""
    companion, desk = page
    folder = companion.staff.folder
    owner = Staff(companion.base_url)
    owner.login()
    assert owner.call("GET", "/staff/api/owner")[1]["recovery"] is False
    assert owner.call("POST", "/staff/api/owner/recovery")[0] == 403  # the owner's: a staff session alone is not
    owner.as_owner()
    status, made = owner.call("POST", "/staff/api/owner/recovery")
    code = made["recovery_code"]
    assert status == 200 and len(code.replace("-", "")) == 20 and owner.headers["Cache-Control"] == "no-store"
    assert code.replace("-", "") not in (folder / "owner.recovery").read_text()  # its hash alone
    assert owner.call("GET", "/staff/api/owner")[1]["recovery"] is True

    staff = Staff(companion.base_url)
    staff.login()
    assert staff.call("POST", "/staff/api/owner/recover", {"recovery": code, "passphrase": "short"})[0] == 400
    status, answer = staff.call("POST", "/staff/api/owner/recover", {"recovery": "ABCD-EFGH-JKMN-PQRS-TVWX",
                                                                     "passphrase": NEW_PASSPHRASE})
    assert status == 403 and "wrong recovery code" in answer["error"]
    status, answer = staff.call("POST", "/staff/api/owner/recover", {"recovery": code.lower().replace("-", " "),
                                                                     "passphrase": NEW_PASSPHRASE})
    assert status == 200 and answer["left_s"] > 0, answer  # typed in lower case, spaced: the same code
    following = answer["recovery_code"]
    assert following != code and "restarting" not in answer
    assert desk.calls[-1] == "owner reset recovery" and "wipe" not in desk.calls  # the owner's way: nothing wiped
    assert Staff(companion.base_url).call("POST", "/staff/login", {"pin": "482916"})[0] == 200  # the staff stay in
    assert owner.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE})[0] == 403  # the old one: gone
    again = Staff(companion.base_url)
    again.login()
    assert again.call("POST", "/staff/api/owner/recover", {"recovery": code, "passphrase": OWNER_PASSPHRASE})[0] == 403
    again.as_owner(NEW_PASSPHRASE)
    status, answer = again.call("POST", "/staff/api/owner/recover", {"recovery": following,
                                                                     "passphrase": OWNER_PASSPHRASE})
    assert status == 200  # the next code serves, once
    notice = again.call("GET", "/staff/api/owner/notice")[1]["notice"]
    assert "reset with the recovery code" in notice and "127.0.0.1" in notice


def test_guesses_of_the_recovery_code_count_as_the_passphrases_do(page):
    """The recovery code is tried through the owner's door: its guesses and the passphrase's share
    one limit, and a phone that gave the passphrase before keeps its way in."""
    from pi_table.web.staff import ATTEMPTS_PER_ADDRESS

    companion, _ = page
    owners_phone = Staff(companion.base_url)
    owners_phone.login()
    owners_phone.as_owner()  # it passed the owner's door before: a known device
    staff = Staff(companion.base_url)
    staff.login()
    statuses = [staff.call("POST", "/staff/api/owner/recover", {"recovery": f"GUESS{number:015d}",
                                                                "passphrase": NEW_PASSPHRASE})[0]
                for number in range(ATTEMPTS_PER_ADDRESS)]
    assert statuses == [403] * ATTEMPTS_PER_ADDRESS
    assert staff.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE})[0] == 429  # the same count
    assert owners_phone.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE})[0] == 200


NEW_PASSPHRASE = "a new passphrase for 58"


# --- the owner's part, declared once -------------------------------------------------------------


def test_every_owners_secret_is_in_the_part_the_reset_wipes_or_kept_with_why():
    """The wipe reads one list (``owners_part``): a setting that holds a secret (a broker's URL, a
    file read by the service alone) or a file of the owner's in the journal folder is in it, or
    kept with why; every piece it wipes has its words in the notice."""
    from pi_table.config.schema import OPTIONS
    from pi_table.daemon import broker_desk, offsite, owners_part
    from pi_table.daemon.owner_notice import PART
    from pi_table.web import roles

    secret = {option.key for option in OPTIONS if option.kind == "broker" or "readable by the service alone" in option.help}
    assert secret >= {"fleet.broker", "fleet.password_file", "fleet.key", "fleet.dashboard_password_file", "web.tls_key"}
    assert secret <= set(owners_part.SETTINGS) | set(owners_part.KEPT)
    assert not set(owners_part.SETTINGS) & set(owners_part.KEPT)
    owners_files = {roles.OWNER_FILE, roles.RECOVERY_FILE, broker_desk.HANDOUT, offsite.PLACE_FILE}
    assert owners_files <= set(owners_part.JOURNAL_FILES) | set(owners_part.KEPT)
    pieces = {*owners_part.SETTINGS.values(), *owners_part.JOURNAL_FILES.values(), "backups", "keys", "cafe_broker"}
    assert pieces == set(PART)


class NoHelper:
    """A computer without the root helper: root holds none of the owner's there."""

    home = Path("/nonexistent/pi-table-home")

    def helper_missing(self):
        return "no helper here"

    def ask(self, act, **args):
        raise AssertionError("no helper to ask")


def test_the_wipe_leaves_no_password_in_the_settings_their_last_good_copy_or_the_owners_files(tmp_path):
    from pi_table.config import load_config, trial
    from pi_table.daemon import owners_part
    from pi_table.web.roles import new_recovery_code

    from helpers_staff import STAFF_CONFIG

    files = tmp_path / "files"
    files.mkdir()
    (files / "broker-1.password").write_text("file-password\n")
    (files / "dashboard-1.password").write_text("dashboard-password\n")
    (files / "blocked-words-1.txt").write_text("owls\n")
    (files / "notify-1.url").write_text("ntfys://owner-token@ntfy.example/cafe-owls\n")
    config = tmp_path / "config.toml"
    config.write_text(STAFF_CONFIG + '[fleet]\nbroker = "mqtts://t1@broker.example:8883"\n'
                      f'table_id = "t1"\npassword_file = "{files / "broker-1.password"}"\n'
                      f'dashboard_password_file = "{files / "dashboard-1.password"}"\n'
                      f'[night]\nblocked_words = "{files / "blocked-words-1.txt"}"\n'
                      f'[notify]\nurl_file = "{files / "notify-1.url"}"\n')
    good = config.read_text().replace(f'password_file = "{files / "broker-1.password"}"\n', "").replace(
        "mqtts://t1@", f"mqtts://t1:{BROKER_SECRET}@")  # the settings before: the password in the URL
    trial.beside(config, trial.GOOD).write_text(good)
    (tmp_path / "journal").mkdir()
    new_recovery_code(tmp_path / "journal")
    (tmp_path / "journal" / "broker.handout").write_text('{"handout": {"t2": "a password"}}')
    (tmp_path / "journal" / "backup.key").write_text("ABCDEFGHJKMNPQRSTVWX")  # daemon.sealed.KEY_FILE
    (tmp_path / "backups").mkdir()
    (tmp_path / "backups" / "nightly-20261126-040000.tar.gz").write_bytes(b"a backup")
    loaded = load_config(config)

    wiped = owners_part.wipe(loaded, NoHelper())

    assert wiped == ["broker", "dashboard", "notify", "recovery", "handout", "backups", "backup_key"]
    for path in (config, trial.beside(config, trial.GOOD)):
        text = path.read_text()
        assert BROKER_SECRET not in text and ".password" not in text and ".url" not in text, path
        assert 'broker = "mqtts://t1@broker.example:8883"' in text and "blocked-words-1.txt" in text  # the rest kept
    assert sorted(path.name for path in files.iterdir()) == ["blocked-words-1.txt"]
    assert sorted(path.name for path in (tmp_path / "journal").iterdir()) == []
    assert list((tmp_path / "backups").iterdir()) == []
    assert load_config(config).fleet.table_id == "t1"  # a configuration the table starts on
    assert owners_part.wipe(load_config(config), NoHelper()) == []  # nothing of the owner's left


def test_a_reset_is_refused_while_a_restored_backup_is_tried(tmp_path, monkeypatch):
    """Its start would bring the owner's settings back under the new passphrase."""
    from pi_table.config import load_config
    from pi_table.daemon import owners_part
    from pi_table.engine.errors import Refusal

    from helpers_staff import STAFF_CONFIG

    config = tmp_path / "config.toml"
    config.write_text(STAFF_CONFIG)
    monkeypatch.setattr(backup, "pending", lambda config: object())
    with pytest.raises(Refusal, match="a restored backup is being tried"):
        owners_part.wipe(load_config(config), NoHelper())


# --- on a phone ------------------------------------------------------------------------------------


CODE = r"^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$"


def test_the_owner_makes_and_uses_a_recovery_code_and_acknowledges_each_reset_on_a_phone(tmp_path, browser):
    """Every button issue 58 adds, pressed: a recovery code made, the passphrase set with it, the
    notice acknowledged; then the buttons' reset from the page, and its notice after the restart."""
    import re

    from playwright.sync_api import expect

    from helpers_staff import STAFF_PIN, staff_login

    table = StaffTable(tmp_path, dealt_key())
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        staff_login(page, table.base, STAFF_PIN)
        expect(page.locator("#owner-line")).to_be_visible()
        expect(page.locator("#recovery-line")).to_contain_text("No recovery code is kept")
        page.click("#recovery-make")  # the owner's: the page asks for the passphrase, then makes it
        page.fill("#owner-passphrase", OWNER_PASSPHRASE)
        page.click("#owner-form button")
        expect(page.locator("#recovery-code")).to_have_text(re.compile(CODE))
        code = page.locator("#recovery-code").inner_text()
        expect(page.locator("#recovery-line")).to_contain_text("Each new one replaces the one before")

        page.reload()
        page.click("#passphrase-recover summary")
        page.fill("#passphrase-recovery", code)
        page.fill("#passphrase-recover-new", NEW_PASSPHRASE)
        page.fill("#passphrase-recover-again", NEW_PASSPHRASE)
        page.click("#passphrase-recover-form button")
        expect(page.locator("#message")).to_contain_text("The owner's passphrase is changed")
        expect(page.locator("#recovery-code")).to_have_text(re.compile(CODE))
        assert page.locator("#recovery-code").inner_text() != code
        page.reload()
        expect(page.locator("#owner-notice")).to_contain_text("reset with the recovery code")
        page.click("#owner-notice-ack")  # this phone acts as the owner since it set the passphrase
        expect(page.locator("#message")).to_have_text("The notice is acknowledged.")
        expect(page.locator("#owner-notice")).to_be_hidden()
        expect(page.locator("#owner-resets-list")).to_contain_text("with the recovery code, from 127.0.0.1")  # 74.3
        expect(page.locator("#owner-resets-list")).to_contain_text("acknowledged ")

        shown = table.daemon.recovery.issue()  # as both buttons held at the start show it, on the screen alone
        page.click("#passphrase-reset summary")
        expect(page.locator("#passphrase-reset")).to_contain_text("the release keys the owner added")
        page.fill("#passphrase-code", shown)
        page.fill("#passphrase-reset-new", OWNER_PASSPHRASE)
        page.fill("#passphrase-reset-again", OWNER_PASSPHRASE)
        page.click("#passphrase-reset-form button")
        expect(page.locator("#message")).to_contain_text("the table restarts now, without the owner's secrets")
        wait_for(lambda: table.daemon.restarting, "the restart after the owner's part was wiped")
        table.close()
        table = InProcessDaemon(tmp_path / "config.toml")
        page.goto(f"{table.daemon.companion.base_url}/staff")  # the session outlives the restart
        expect(page.locator("#owner-notice")).to_contain_text("reset with the table's buttons")
        expect(page.locator("#owner-notice")).to_contain_text("the recovery code")  # what it wiped
    finally:
        context.close()
        table.close()


@pytest.mark.parametrize("lang, form", [("en", r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M"),
                                        ("it", r"\d{1,2} (gen|feb|mar|apr|mag|giu|lug|ago|set|ott|nov|dic) \d{4}, \d\d:\d\d")],
                         ids=["en", "it"])
def test_the_reset_notice_and_its_refusal_write_their_dates_in_the_readers_one_form(tmp_path, lang, form):
    """The audit's N03: the notice's moment and the day it may be acknowledged, in the pages' one
    form of a date in each language (web/static/kit.js), never an ISO date in an Italian sentence."""
    from pi_table.engine.errors import Refusal
    from pi_table.ui.i18n import say

    at = 1_796_000_000.0  # 2026-11-30, at whatever hour the machine's zone says
    notice = owner_notice.note_reset(tmp_path, "buttons", "192.0.2.7", ["offsite"], clock=lambda: at)
    with pytest.raises(Refusal) as refused:
        owner_notice.acknowledge(tmp_path, clock=lambda: at + 60)
    for said in (say(notice, lang), say(refused.value.phrase, lang)):
        assert re.search(form, said), said
        assert not re.search(r"\d{4}-\d\d-\d\d", said), said
