"""The system underneath kept patched without the installer (issue 50, 8): Debian's security
updates applied by unattended-upgrade when the owner's schedule says so and the table is idle,
or when the owner asks; what changed, whether a reboot is due and how it ended noted for the
staff page; a table left unhealthy by them reported. unattended-upgrade, dpkg-query, systemctl
and the table's status are stand-ins that do what the real ones do to the files they read."""

from __future__ import annotations

import datetime
import json
import os
import time
from pathlib import Path

import pytest

from pi_table.config.settings import Schedule
from pi_table.release import ReleaseError, desk, helper, requests, system
from pi_table.release.layout import Releases
from pi_table.sim.machine import BEFORE
from pi_table.web import acts

from helpers_machine import DebianMachine


def test_the_security_updates_are_applied_and_what_changed_and_a_reboot_due_are_noted(tmp_path):
    machine = DebianMachine(tmp_path)
    note = helper.security(machine.helper, machine.status, healthy_s=5)
    assert note["outcome"] == "done" and note["running"] is False and note["why"] is None
    assert note["changed"] == [{"package": "libc6:arm64", "from": "2.36-9+deb12u4", "to": "2.36-9+deb12u9"},
                               {"package": "openssl:arm64", "from": "3.0.11-1~deb12u2", "to": "3.0.15-1~deb12u1"}]
    assert note["reboot"] is True and note["reboot_for"] == ["libc6"]
    assert "unattended-upgrade -v" in machine.called()
    assert "systemctl restart pi-table.service" in machine.called()  # the table runs on the patched libraries
    assert Releases(tmp_path / "home").note(system.NOTE) == note


def test_a_run_with_nothing_to_patch_restarts_nothing(tmp_path):
    machine = DebianMachine(tmp_path, patched=BEFORE, reboot=False)
    note = helper.security(machine.helper, machine.status, healthy_s=5)
    assert (note["outcome"], note["changed"], note["reboot"]) == ("nothing", [], False)
    assert not any(call.startswith("systemctl") for call in machine.called())


def test_once_applied_the_run_is_said_to_check_the_tables_health_not_to_be_applied(tmp_path):
    """The page said "Being applied now…" for the whole of the wait for the restarted table's
    health, after the updates were in: the run notes that they are applied and what changed."""
    import threading

    from pi_table.daemon.security import SecurityUpdates

    machine = DebianMachine(tmp_path / "system", healthy=False)  # the health is waited for its whole time
    table = Idle(Schedule("daily", 4), tmp_path / "game.jsonl")
    schedule = SecurityUpdates(table, home=machine.helper.releases.home, reboot_flag=machine.flag)
    run = threading.Thread(target=helper.security, args=(machine.helper, machine.status), kwargs={"healthy_s": 3})
    run.start()
    try:
        deadline = time.monotonic() + 2
        while "systemctl restart pi-table.service" not in machine.called() and time.monotonic() < deadline:
            time.sleep(0.05)
        view = schedule.view("en")
        assert view["running"] and view["checking"]  # the table restarted on them, its health asked
        assert schedule.restarting_run() == schedule.note()["began"]  # this start is the run's restart
        assert [each["package"] for each in view["applied"]] == ["libc6:arm64", "openssl:arm64"]
    finally:
        run.join()
    view = schedule.view("en")
    assert not view["running"] and not view["checking"] and view["last"]["outcome"] == "unhealthy"
    assert schedule.restarting_run() is None  # a start after the run is no restart of it


def test_a_security_update_that_leaves_the_table_unhealthy_is_reported_in_every_language(tmp_path):
    machine = DebianMachine(tmp_path, healthy=False)
    note = helper.security(machine.helper, machine.status, healthy_s=1)
    assert note["outcome"] == "unhealthy"
    told = desk.said(note["why"])
    assert told is not None
    assert told["en"].startswith("the table was not healthy 1 min after the security updates of libc6, openssl")
    assert told["it"] != told["en"] and "libc6, openssl" in told["it"]


def test_unattended_upgrades_own_words_say_why_a_run_failed(tmp_path):
    machine = DebianMachine(tmp_path, upgrade_exit=1, reboot=False)
    note = helper.security(machine.helper, machine.status, healthy_s=5)
    assert note["outcome"] == "failed" and note["changed"] == []
    assert desk.said(note["why"])["en"] == ("unattended-upgrade failed: E: Could not get lock "
                                            "/var/lib/dpkg/lock-frontend")


def test_the_request_starts_the_security_unit_outside_the_helpers_sandbox_and_takes_nothing_more(tmp_path):
    machine = DebianMachine(tmp_path)
    spool = tmp_path / "spool"
    desk.ask("security", spool=spool)
    assert helper.act(machine.helper, spool) == 0
    assert machine.called() == ["systemctl start --no-block pi-table-security.service"]
    with pytest.raises(ReleaseError) as refused:
        requests.check({"act": "security", "packages": "openssl; rm -rf /"})
    assert str(refused.value) == "the request security takes nothing more, not 'packages'"


def at(day: int, hour: int, minute: int = 0) -> float:
    """A moment of November 2026 in the machine's time zone (the 23rd is a Monday)."""
    return datetime.datetime(2026, 11, day, hour, minute).timestamp()


def test_the_schedule_is_due_once_after_its_hour_daily_or_on_monday_and_never_when_off():
    daily = Schedule("daily", 4)
    assert daily.due(None, at(25, 4, 1)) and not daily.due(at(25, 4, 2), at(25, 23))
    assert not daily.due(at(24, 4, 30), at(25, 3, 59)) and daily.due(at(24, 4, 30), at(25, 4))
    weekly = Schedule("weekly", 4)
    assert weekly.slot(at(26, 12)) == at(23, 4) and weekly.slot(at(23, 3)) == at(16, 4)
    assert not weekly.due(at(23, 5), at(29, 23)) and weekly.due(at(23, 5), at(30, 4))
    assert Schedule("off", 4).due(None, at(25, 12)) is False


@pytest.mark.parametrize("setting, said", [
    ('security_updates = "hourly"', "security_updates is one of daily, weekly, off, not 'hourly'"),
    ("security_hour = 24", "security_hour is an hour 0 to 23, not 24"),
])
def test_the_schedule_is_the_owners_and_a_schedule_that_is_none_is_refused_by_name(tmp_path, setting, said):
    from pi_table.config import ConfigError, load_config
    from pi_table.config.schema import BY_KEY

    assert BY_KEY["system.security_updates"].owners and BY_KEY["system.security_hour"].owners
    config = tmp_path / "config.toml"
    config.write_text(f"[system]\n{setting}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert said in str(refused.value)
    config.write_text('[system]\nsecurity_updates = "weekly"\nsecurity_hour = 3\n')
    assert load_config(config).security == Schedule("weekly", 3)


class Idle:
    """The table as the schedule reads it: its game's journal, last written when its last move was
    made, a night open or not, and a staff desk that notes what the helper was asked."""

    def __init__(self, schedule: Schedule, journal: Path) -> None:
        from types import SimpleNamespace

        journal.write_text("{}\n")
        self.journal, self.night_open, self.asked = journal, False, []
        self.config = SimpleNamespace(security=schedule)
        self.session = SimpleNamespace(journal=SimpleNamespace(path=journal), record=SimpleNamespace(moves=3),
                                       state=SimpleNamespace(is_over=False))
        self.helper = SimpleNamespace(ask=lambda act, **args: self.asked.append(act))
        self.first_boot = None  # set up (a table waiting for its set-up: tests/test_setup_page.py)

    def moved(self, when: float) -> None:
        os.utime(self.journal, (when, when))

    @property
    def night(self):
        from types import SimpleNamespace

        return SimpleNamespace(book=SimpleNamespace(night=SimpleNamespace(open=self.night_open)))


def test_a_run_due_waits_for_the_table_to_be_idle_with_no_night_open_and_is_asked_once(tmp_path):
    from pi_table.daemon.security import SecurityUpdates

    table, now = Idle(Schedule("daily", 4), tmp_path / "game.jsonl"), [at(25, 3)]
    table.moved(at(24, 23))
    schedule = SecurityUpdates(table, home=tmp_path / "home", clock=lambda: now[0])
    assert schedule.tick() and table.asked == ["security"]  # a table that never ran one: at once
    table.asked.clear()
    Releases(tmp_path / "home").write_note(system.NOTE, {"running": False, "began": at(24, 4, 30), "at": at(24, 4, 40),
                                                         "outcome": "nothing", "changed": [], "reboot": False})
    schedule.asked = None
    assert not schedule.tick() and table.asked == []  # before its hour
    now[0] = at(25, 4, 5)
    table.moved(at(25, 3, 50))  # a late game's last move, 15 minutes ago
    assert not schedule.tick() and schedule.busy().template.startswith("a game is being played")
    now[0] = at(25, 4, 15)  # left on the table for 25 minutes: not being played
    assert schedule.busy() is None
    table.night_open = True
    assert not schedule.tick() and schedule.busy().template.startswith("a game night is open")
    table.night_open = False
    now[0] = at(25, 5, 40)
    assert schedule.tick() and table.asked == ["security"]
    assert not schedule.tick() and schedule.running()  # asked, not yet begun: not asked again
    Releases(tmp_path / "home").write_note(system.NOTE, {"running": False, "began": at(25, 5, 41), "at": at(25, 5, 50),
                                                         "outcome": "nothing", "changed": [], "reboot": False})
    now[0] = at(26, 3, 59)
    assert not schedule.tick() and not schedule.running()
    now[0] = at(26, 4, 0)
    assert schedule.tick() and table.asked == ["security", "security"]


def test_a_game_dealt_and_untouched_or_over_is_not_said_to_be_played(tmp_path):
    """The journal is written when a game is dealt (at every start, after every game) as well as
    at each move: the page said "(a game is being played…)" of an idle table. A game is played
    while it has moves, is not over, and its last move is recent."""
    from pi_table.daemon.security import SecurityUpdates

    table, now = Idle(Schedule("daily", 4), tmp_path / "game.jsonl"), [at(25, 21)]
    table.moved(at(25, 20, 59))  # written a minute ago
    schedule = SecurityUpdates(table, home=tmp_path / "home", clock=lambda: now[0])
    assert schedule.busy() is not None  # a move a minute ago
    table.session.record.moves = 0  # dealt a minute ago, untouched
    assert schedule.busy() is None and schedule.view("en")["waits"] is None
    table.session.record.moves, table.session.state.is_over = 9, True  # its last move ended it
    assert schedule.busy() is None and schedule.view("en")["waits"] is None


def test_the_owners_run_during_a_game_is_not_said_to_wait(tmp_path):
    """A run the owner asked for in the middle of a game runs: the page said "Being applied now…
    (a game is being played: the security updates wait…)". The wait is said only of a run due."""
    from pi_table.daemon.security import SecurityUpdates

    table, now = Idle(Schedule("daily", 4), tmp_path / "game.jsonl"), [at(25, 21)]
    table.moved(at(25, 20, 58))  # a move two minutes ago
    schedule = SecurityUpdates(table, home=tmp_path / "home", clock=lambda: now[0])
    assert schedule.view("en")["waits"].startswith("a game is being played")
    assert schedule.run_now() is None and table.asked == ["security"]
    view = schedule.view("en")
    assert view["running"] and view["waits"] is None


def test_a_reboot_due_is_said_until_the_computer_restarts(tmp_path):
    """The run notes that a reboot is due; the page says so while /run/reboot-required says so,
    and not after the reboot that empties /run (it said so through the owner's restart before)."""
    from pi_table.daemon.security import SecurityUpdates

    machine = DebianMachine(tmp_path / "system")
    helper.security(machine.helper, machine.status, healthy_s=5)
    table = Idle(Schedule("daily", 4), tmp_path / "game.jsonl")
    schedule = SecurityUpdates(table, home=machine.helper.releases.home, reboot_flag=machine.flag)
    last = schedule.view("en")["last"]
    assert (last["outcome"], last["reboot"], last["reboot_for"]) == ("done", True, ["libc6"])
    machine.flag.unlink()  # the computer restarted: /run is a fresh tmpfs
    last = schedule.view("en")["last"]
    assert (last["outcome"], last["reboot"], last["reboot_for"]) == ("done", False, [])


def test_a_reboot_due_heads_the_health_page_in_every_language_until_the_computer_restarts(tmp_path):
    """The headline said "All good" while the security section said a reboot was due: a reboot
    due is something to do, so it is in the headline, and says what to press."""
    from pi_table.daemon.security import SecurityUpdates
    from pi_table.web.sections.health import headline

    machine = DebianMachine(tmp_path / "system")
    helper.security(machine.helper, machine.status, healthy_s=5)  # a run that went well, libc6 asks for a reboot
    table = Idle(Schedule("daily", 4), tmp_path / "game.jsonl")
    schedule = SecurityUpdates(table, home=machine.helper.releases.home, reboot_flag=machine.flag)
    said = headline(schedule.attention("en"), "en")
    assert not said["ok"] and "libc6" in said["text"] and "reboot" in said["text"]
    assert said["advice"] == "Restart the computer under Power."
    italian = headline(schedule.attention("it"), "it")
    assert not italian["ok"] and "libc6" in italian["text"] and italian["text"] != said["text"]
    assert italian["advice"] != said["advice"]
    machine.flag.with_name(machine.flag.name + ".pkgs").unlink()  # a reboot asked by no package named
    assert "reboot" in headline(schedule.attention("en"), "en")["text"]
    machine.flag.unlink()  # the computer restarted: /run is a fresh tmpfs
    assert schedule.attention("en") == [] and headline([], "en")["ok"]


@pytest.mark.daemon
def test_the_staff_page_shows_the_last_run_the_owner_runs_it_now_and_an_unhealthy_one_heads_the_page(tmp_path):
    from helpers_games import dealt_key
    from helpers_staff import Staff
    from helpers_tables import StaffTable

    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", dealt_key())
    try:
        machine = DebianMachine(tmp_path / "system", healthy=False)
        daemon = table.daemon
        daemon.security.home, daemon.security.reboot_flag = machine.helper.releases.home, machine.flag
        assert daemon.helper is not None
        daemon.helper.spool, daemon.helper.helper_missing = tmp_path / "spool", lambda: None
        staff = Staff(table.base)
        staff.login()
        status, seen = staff.call("GET", "/staff/api/security")
        assert status == 200 and seen["last"] is None and seen["schedule"] == {"every": "daily", "hour": 4}
        status, answer = staff.call("POST", "/staff/api/security", {"act": "run"})
        assert status == 403 and answer["owner"] == "needed" and not (tmp_path / "spool").exists()
        staff.as_owner()
        assert staff.call("POST", "/staff/api/security", {"act": "now; reboot"})[0] == 400
        before = time.time()
        status, answer = staff.call("POST", "/staff/api/security", {"act": "run"})
        assert status == 202 and answer["ok"] and before <= answer["asked"] <= time.time()  # the page's mark
        asked = answer["asked"]
        assert json.loads((tmp_path / "spool" / requests.REQUEST).read_text()) == {"act": "security"}
        carry = json.loads((tmp_path / "table" / "journal" / acts.ACTS_FILE).read_text())["carry"]
        assert (carry["section"], carry["restart"]) == ("security", False)  # its restart comes minutes later
        status, answer = staff.call("POST", "/staff/api/security", {"act": "run"})
        assert status == 409 and answer["error"] == "the security updates are being applied already"
        assert helper.act(machine.helper, tmp_path / "spool") == 0  # the root helper takes it: the unit starts
        helper.security(machine.helper, machine.status, healthy_s=1)  # and the unit runs, the table unhealthy after
        status, seen = staff.call("GET", "/staff/api/security")
        assert seen["running"] is False and seen["last"]["outcome"] == "unhealthy" and seen["last"]["reboot"] is True
        assert seen["last"]["at"] >= asked  # what the page waits for to drop its "Asked" line
        assert [each["package"] for each in seen["last"]["changed"]] == ["libc6:arm64", "openssl:arm64"]
        assert seen["last"]["why"].startswith("the table was not healthy 1 min after the security updates")
        headline = staff.call("GET", "/staff/api/health")[1]["headline"]
        assert headline["ok"] is False and headline["text"] == "A security update left the table unhealthy."
        assert headline["advice"] == seen["last"]["why"]
        staff.lang = "it"
        headline = staff.call("GET", "/staff/api/health")[1]["headline"]
        assert headline["text"] != "A security update left the table unhealthy." and "libc6" in headline["advice"]
    finally:
        table.close()
