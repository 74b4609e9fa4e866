"""An owner's act that restarts the table (issue 62, 3): its result is kept across the restart it
caused, in a small private note of the journal folder, and said on the next look at its section
without the passphrase (the result, not the power); an unlock given shortly before is carried
across that restart on that phone, and across no other. A damaged note is no note, said once in
the log."""

from __future__ import annotations

import json
import logging

import pytest

from pi_table.ui.i18n import translation
from pi_table.web import acts

from helpers import wait_for
from helpers_games import dealt_key
from helpers_staff import Staff, owner_unlocked
from helpers_tables import InProcessDaemon, StaffTable, again, restarted

pytestmark = pytest.mark.daemon
SECRET = "dash-secret-62"


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_dashboard_saved_says_its_result_after_the_restart_and_the_unlock_survives_it(tmp_path, lang):
    table = StaffTable(tmp_path, dealt_key())
    after = None
    try:
        staff = Staff(table.base, lang=lang)
        assert staff.login()[0] == 200
        staff.as_owner()
        status, answer = staff.call("POST", "/staff/api/files/dashboard", {"port": 0, "user": "dashboard",
                                                                          "password": SECRET})
        assert (status, answer["restarting"]) == (200, True), answer
        after = restarted(table)
        staff = again(staff, after)
        status, state = staff.call("GET", "/staff/api/owner")
        assert status == 200 and state["left_s"] > 0, state  # still the owner on this phone
        said = translation(lang).gettext(acts.SAVED)
        assert said != acts.SAVED or lang == "en"
        assert state["results"]["dashboard"]["said"] == said
        note = (tmp_path / "journal" / acts.ACTS_FILE).read_text()
        assert SECRET not in note and "password" not in note
        other = Staff(staff.base, lang=lang)  # another staff phone: told the result, never the power
        assert other.login()[0] == 200
        status, state = other.call("GET", "/staff/api/owner")
        assert state["left_s"] == 0 and state["results"]["dashboard"]["said"] == said
    finally:
        (after or table).close()


def test_an_owners_setting_saved_says_its_result_after_the_restart_and_the_unlock_survives_it(tmp_path):
    table = StaffTable(tmp_path, dealt_key())
    after = None
    try:
        staff = Staff(table.base)
        assert staff.login()[0] == 200
        staff.as_owner()
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"paths.keep_games": 150}})  # the owner's
        assert (status, answer["restarting"]) == (200, True), answer
        after = restarted(table)
        status, state = again(staff, after).call("GET", "/staff/api/owner")
        assert status == 200 and state["left_s"] > 0 and state["results"]["config"]["said"] == acts.SETTINGS_SAVED
    finally:
        (after or table).close()


def test_an_owners_change_rolled_back_says_so_in_its_section_and_keeps_saying_it(tmp_path):
    """Issue 75, 2: a change rolled back still said "Saved, and the table has restarted on it" for
    a day while Health said it was rolled back. The rollback's note says when its trial began;
    the start after it marks the act asked then as rolled back, even once a later change kept takes
    the note away."""
    from pi_table.config import trial
    from pi_table.engine.phrase import Phrase

    table = StaffTable(tmp_path, dealt_key())
    after = None
    try:
        staff = Staff(table.base)
        assert staff.login()[0] == 200
        staff.as_owner()
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"paths.keep_games": 150}})
        assert (status, answer["restarting"]) == (200, True), answer
        after = restarted(table)
        staff = again(staff, after)
        status, state = staff.call("GET", "/staff/api/owner")
        assert state["results"]["config"]["said"] == acts.SETTINGS_SAVED
        config = tmp_path / "config.toml"
        began = state["results"]["config"]["at"] - 1  # the change's trial, begun just before its act was noted
        trial.roll_back(config, trial.Trial(("paths.keep_games",), "owner", (), began),  # the watch's verdict
                        Phrase.of("the table stopped before it was healthy on the new settings"))
        assert staff.call("POST", "/staff/api/restart") == (200, {"ok": True, "restarting": True})
        wait_for(lambda: not after.runner.is_alive(), "the table ending itself to restart", 15)
        after.close()  # a rollback is followed by a start, which marks the act
        (tmp_path / "journal/staff.restarts").unlink(missing_ok=True)
        after = InProcessDaemon(tmp_path / "config.toml")
        staff = again(staff, after)
        status, state = staff.call("GET", "/staff/api/owner")
        assert status == 200 and state["results"]["config"]["said"] != acts.SETTINGS_SAVED  # no longer "Saved"
        assert state["results"]["config"]["said"] == acts.ROLLED_BACK
        trial.beside(config, trial.ROLLED_BACK).unlink()  # a later change kept takes the note away
        status, state = staff.call("GET", "/staff/api/owner")
        assert state["results"]["config"]["said"] == acts.ROLLED_BACK
    finally:
        (after or table).close()


def test_an_unlock_is_not_carried_across_a_restart_no_owners_act_asked(tmp_path):
    table = StaffTable(tmp_path, dealt_key())
    after = None
    try:
        staff = Staff(table.base)
        assert staff.login()[0] == 200
        staff.as_owner()
        assert staff.call("POST", "/staff/api/restart", {})[0] == 200  # the staff's restart: not the owner's act
        after = restarted(table)
        status, state = again(staff, after).call("GET", "/staff/api/owner")
        assert status == 200 and state["left_s"] == 0 and state["results"] == {}
    finally:
        (after or table).close()


def test_an_unlock_is_not_carried_onto_another_owners_passphrase(tmp_path):
    """A passphrase reset at the start (both buttons held, then a new one set) ends every unlock
    given with the one before, the carried one too."""
    from pi_table.web.roles import set_passphrase

    table = StaffTable(tmp_path, dealt_key())
    after = None
    try:
        staff = Staff(table.base)
        assert staff.login()[0] == 200
        staff.as_owner()
        assert staff.call("POST", "/staff/api/files/blocked-words", {"words": "rude"})[0] == 200
        wait_for(lambda: not table.runner.is_alive(), "the table ending itself to restart", 15)
        set_passphrase(tmp_path / "journal", "another owner's passphrase")
        after = restarted(table)
        status, state = again(staff, after).call("GET", "/staff/api/owner")
        assert status == 200 and state["left_s"] == 0 and state["results"]["files"]["said"] == acts.SAVED
    finally:
        (after or table).close()


def test_an_unlock_is_carried_only_within_minutes_of_the_act_and_only_to_when_it_ended_anyway(tmp_path):
    now = [1_000_000.0]
    notes = acts.ActNotes(tmp_path, clock=lambda: now[0])
    notes.asked("dashboard", "a" * 64, "b" * 64, now[0] + 500, True)
    now[0] += acts.CARRY_S + 1
    assert notes.carried() is None  # too late: a restart long after the act is not the act's
    notes.asked("dashboard", "a" * 64, "b" * 64, now[0] + 500, True)
    now[0] += 10
    assert notes.carried() == ("a" * 64, "b" * 64, now[0] + 490)
    assert notes.carried() is None  # carried once: the next restart ends the unlock
    assert notes.results("en")["dashboard"]["said"] == acts.SAVED  # the result stays, for the next look


@pytest.mark.parametrize("damage, why", [
    (b"\x00not json", "not JSON"),
    (json.dumps({"results": {"files": {"said": "mqtts://t1:pw@host", "at": 1.0}}}).encode(),
     "a result is the table's sentence for its section"),
    (json.dumps({"results": {"files": {"said": acts.BROKER_DONE, "at": 1.0}}}).encode(),
     "a result is the table's sentence for its section"),
    (json.dumps({"results": {"broker": {"said": acts.BROKER_DONE, "fields": {"url": "mqtts://t1:pw@h"},
                                        "at": 1.0}}}).encode(), 'a result is {"said", "at"}'),
    (json.dumps({"results": [], "carry": None}).encode(), "expected"),
    (json.dumps({"carry": {"session": "x", "owner": "y", "until": 1, "asked": 1, "section": "broker", "restart": True}}).encode(), "the unlock carried"),
    (b"{" + b" " * acts.ACTS_MOST + b"}", "bytes, at most"),
])
def test_a_damaged_note_is_no_note_and_the_log_says_why_once(tmp_path, caplog, damage, why):
    (tmp_path / acts.ACTS_FILE).write_bytes(damage)
    notes = acts.ActNotes(tmp_path)
    with caplog.at_level(logging.WARNING, logger="pi_table.web.acts"):
        assert notes.results("en") == {} and notes.carried() is None and notes.results("it") == {}
    told = [record.getMessage() for record in caplog.records if record.name == "pi_table.web.acts"]
    assert len(told) == 1 and why in told[0] and "not shown" in told[0], told
    assert "pw@" not in told[0]  # said without the file's contents
    notes.asked("dashboard", "a" * 64, "b" * 64, 1e12, True)  # a new act writes a good note again
    assert notes.results("en")["dashboard"]["said"] == acts.SAVED


def test_a_damaged_note_on_the_table_is_refused_and_the_page_says_no_result(tmp_path, caplog):
    (tmp_path / "journal").mkdir()
    (tmp_path / "journal" / acts.ACTS_FILE).write_text('{"results": {"dashboard": 7}}')
    with caplog.at_level(logging.WARNING, logger="pi_table.web.acts"):
        table = StaffTable(tmp_path, dealt_key())
        try:
            staff = Staff(table.base)
            assert staff.login()[0] == 200
            for _ in range(2):
                status, state = staff.call("GET", "/staff/api/owner")
                assert status == 200 and state["results"] == {}
        finally:
            table.close()
    told = [record.getMessage() for record in caplog.records if record.name == "pi_table.web.acts"]
    assert len(told) == 1 and acts.ACTS_FILE in told[0], told


@pytest.mark.browser
def test_on_a_phone_the_dashboard_saved_says_its_result_once_the_table_is_back_and_stays_unlocked(tmp_path, browser):
    from playwright.sync_api import expect

    from pi_table.fleet.broker import free_port

    from helpers_staff import OWNER_PASSPHRASE, staff_login

    made = StaffTable(tmp_path, dealt_key())
    made.close()  # its PIN, passphrase and game made; then on a port of its own, as a café's table listens
    made.config.write_text(made.config.read_text().replace("port = 0", f"port = {free_port()}", 1))
    table = InProcessDaemon(made.config)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        assert table.daemon.companion is not None
        staff_login(page, table.daemon.companion.base_url)
        page.fill("#owner-passphrase", OWNER_PASSPHRASE)
        page.click("#owner-form button")
        expect(page.locator("#dashboard-form")).to_be_visible()
        page.fill("#dashboard-port", "0")
        page.fill("#dashboard-password", SECRET)
        page.click("#dashboard-form button")
        expect(page.locator("#dashboard-result")).to_contain_text("the table restarts to try it")
        wait_for(lambda: not table.runner.is_alive(), "the table ending itself to restart", 15)
        table.close()
        (tmp_path / "journal/staff.restarts").unlink(missing_ok=True)
        table = InProcessDaemon(made.config)
        expect(page.locator("#dashboard-result")).to_have_text(acts.SAVED, timeout=30_000)  # not "restarts": it has
        expect(page.locator("#dashboard-form")).to_be_visible()  # still unlocked: no passphrase asked again
        owner_unlocked(page)
    finally:
        page.close()
        table.close()


def test_an_unlock_is_carried_across_the_restart_of_the_run_the_act_started_minutes_later(tmp_path):
    """The security updates (issue 62, 3): the owner's "Apply them now" starts a run, which restarts
    the table by the root helper's hand once its updates are in, minutes later; that start carries
    the unlock (to when it ended anyway), and no start of another run or none does."""
    now = [1_000_000.0]
    notes = acts.ActNotes(tmp_path, clock=lambda: now[0])
    notes.asked("security", "a" * 64, "b" * 64, now[0] + 1800, False)
    now[0] += 900  # the updates took a quarter of an hour
    assert notes.carried({"security": now[0] - 898}) == ("a" * 64, "b" * 64, now[0] + 900)  # begun 2 s after
    notes.asked("security", "a" * 64, "b" * 64, now[0] + 1800, False)
    now[0] += 60
    assert notes.carried() is None  # a restart with no run of the act's behind it: a crash, the staff's
    notes.asked("security", "a" * 64, "b" * 64, now[0] + 1800, False)
    now[0] += 900
    assert notes.carried({"security": now[0] - 10}) is None  # a run begun long after the act: the schedule's
    notes.asked("dashboard", "a" * 64, "b" * 64, now[0] + 1800, False)
    assert notes.carried({"security": now[0]}) is None  # another section's run carries nothing of this act
