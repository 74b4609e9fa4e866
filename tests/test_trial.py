"""Try, then keep (issue 25): a change made from the staff page or by ``tune --write`` is a trial.
The last good file is kept; the table keeps the change once it is healthy on it, and puts the
last good file back by itself when it cannot start on the change, dies before it is healthy, or
is not healthy by the deadline. First the files' side and the watch with a clock of their own,
then the real ``pi-table run`` under the fake systemd, restarted as the unit restarts it."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from pi_table.config import ConfigError, load_config, trial
from pi_table.daemon.restarts import EXIT_RESTART, SHOWN_FILE
from pi_table.daemon.trial import Health, TrialWatch
from pi_table.engine.phrase import Phrase
from pi_table.sim.systemd import FakeSystemd

from helpers import Clock, self_signed, wait_for
from helpers_staff import STAFF_CONFIG, Staff
from helpers_tables import StaffService

pytestmark = pytest.mark.daemon

CONFIG = STAFF_CONFIG
EXIT_CONFIG = 78


def config_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    return path


# --- the files ------------------------------------------------------------------------------------


def test_a_change_keeps_the_old_file_as_the_last_good_one_and_notes_the_trial(tmp_path):
    path = config_file(tmp_path)
    trial.change(path, {"timer.length_s": 90}, "staff", ["leds", "companion"])
    assert "length_s = 90" in path.read_text() and "# the café likes a slow game" in path.read_text()
    assert trial.beside(path, trial.GOOD).read_text() == CONFIG
    under_way = trial.pending_trial(path)
    assert under_way is not None and (under_way.keys, under_way.by, under_way.working, under_way.starts) == (
        ("timer.length_s",), "staff", ("leds", "companion"), 0)
    trial.change(path, {"game.language": "it"}, "staff", ["leds"])  # before the restart: the same trial
    assert trial.beside(path, trial.GOOD).read_text() == CONFIG  # the last good file is still the proven one
    joined = trial.pending_trial(path)
    assert joined is not None and joined.keys == ("timer.length_s", "game.language") and joined.working == (
        "leds", "companion")


def test_the_files_mode_the_installer_gives_is_kept_by_a_trial_its_last_good_copy_and_a_rollback(tmp_path):
    """48.13: config.toml may hold the broker's password; the installer makes it 0640 (the staff's
    group reads the socket's path in it), and no writer of the service's opens it wider."""
    path = config_file(tmp_path)
    path.chmod(0o640)

    def modes() -> dict[str, str]:
        return {each.name: oct(each.stat().st_mode & 0o777) for each in tmp_path.iterdir()}

    trial.change(path, {"timer.length_s": 90}, "staff")
    assert modes() == {"config.toml": "0o640", "config.toml.good": "0o640", "config.toml.trial": "0o640"}
    trial.starting(path)
    assert trial.starting(path) is None  # rolled back
    assert modes() == {"config.toml": "0o640", "config.toml.good": "0o640", "config.toml.rolled-back": "0o640"}
    trial.change(path, {"timer.length_s": 120}, "staff")
    trial.keep(path)
    trial.change_proven(path, {"leds.brightness": 0.5}, machine=False)
    assert modes() == {"config.toml": "0o640", "config.toml.good": "0o640"}


def test_a_refused_change_writes_nothing_at_all(tmp_path):
    path = config_file(tmp_path)
    with pytest.raises(ConfigError, match="timer.length_s"):
        trial.change(path, {"timer.length_s": 5}, "staff")
    assert path.read_text() == CONFIG and sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_a_trial_gets_one_start_and_a_second_without_a_keep_rolls_it_back(tmp_path):
    path = config_file(tmp_path)
    trial.change(path, {"timer.length_s": 90}, "staff")
    first = trial.starting(path)
    assert first is not None and first.starts == 1 and "length_s = 90" in path.read_text()
    assert trial.starting(path) is None  # the first start died before it was healthy
    assert path.read_text() == CONFIG and trial.pending_trial(path) is None
    note = trial.rolled_back(path)
    assert note is not None and note["keys"] == ["timer.length_s"] and note["by"] == "staff"
    assert note["why"] == {"en": "the table stopped before it was healthy on the new settings",
                           "it": "il tavolo si è fermato prima di funzionare bene con le nuove impostazioni"}


def test_a_kept_trial_makes_the_file_the_last_good_one_and_clears_an_old_rollback(tmp_path):
    path = config_file(tmp_path)
    trial.change(path, {"timer.length_s": 90}, "staff")
    trial.roll_back(path, trial.pending_trial(path), Phrase.of("the table's loop does not answer"))
    trial.change(path, {"sound.volume": 0.3}, "staff")
    assert trial.starting(path) is not None
    trial.keep(path)
    assert trial.pending_trial(path) is None and trial.rolled_back(path) is None
    assert trial.beside(path, trial.GOOD).read_text() == path.read_text() and "volume = 0.3" in path.read_text()
    assert trial.starting(path) is None and "volume = 0.3" in path.read_text()  # nothing left to roll back


def test_a_change_applied_at_once_joins_the_last_good_file_so_a_rollback_keeps_it(tmp_path):
    path = config_file(tmp_path)
    trial.change(path, {"timer.length_s": 90}, "staff")
    trial.change_proven(path, {"leds.brightness": 0.2})
    assert "brightness = 0.2" in trial.beside(path, trial.GOOD).read_text()
    trial.roll_back(path, trial.pending_trial(path), Phrase.of("the table's loop does not answer"))
    config = load_config(path)
    assert config.leds.brightness == 0.2 and config.timer.length_s == 0


def test_a_change_applied_at_once_with_no_trial_is_the_last_good_file_so_no_start_tries_it_again(tmp_path):
    """The container's restore (issue 58): a brightness changed at once left the last good file
    behind, so the next start took the proven file for a hand edit, and its trial outlived it."""
    path = config_file(tmp_path)
    assert trial.remember(path) is None  # a first start: the file is the last good one
    trial.change_proven(path, {"timer.length_s": 95}, machine=False)
    assert trial.beside(path, trial.GOOD).read_text() == path.read_text()
    assert trial.remember(path) is None and trial.pending_trial(path) is None


def test_a_trial_notes_each_address_the_staff_page_was_reached_on_and_a_note_from_before_has_none(tmp_path):
    path = config_file(tmp_path)
    trial.change(path, {"timer.length_s": 30}, "staff", reached="192.0.2.7")
    trial.change(path, {"game.hold_s": 0.3}, "staff", reached="fd00::2")  # joins the trial: both must answer
    under = trial.starting(path)
    assert under is not None and under.reached == ("192.0.2.7", "fd00::2") and under.starts == 1
    note = trial.beside(path, trial.TRIAL)
    older = {k: v for k, v in json.loads(note.read_text()).items() if k != "reached"}
    note.write_text(json.dumps(older))
    assert trial.pending_trial(path) == trial.Trial(("timer.length_s", "game.hold_s"), "staff", (), under.since, 1)


@pytest.mark.parametrize(("sockname", "address"), [(("192.0.2.7", 8024), "192.0.2.7"),
                                                   (("::ffff:192.0.2.7", 8024, 0, 0), "192.0.2.7"),
                                                   (("fd00::2", 8024, 0, 0), "fd00::2"),
                                                   (("fe80::1%eth0", 8024, 0, 2), "fe80::1%eth0"), ("", None)])
def test_the_address_a_page_was_reached_on_is_this_machines_as_a_phone_dials_it(sockname, address):
    """An IPv4 address as itself, not mapped into IPv6: a table that listens on IPv4 alone after
    the change answers there."""
    from types import SimpleNamespace

    from pi_table.web.staff_answers import reached_on

    request = SimpleNamespace(transport=SimpleNamespace(get_extra_info=lambda name: sockname))
    assert reached_on(request) == address  # type: ignore[arg-type]
    assert reached_on(SimpleNamespace(transport=None)) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("note", ["{", "[]", '{"keys": "x"}', '{"keys": [], "by": "staff", "since": 1, "starts": true}'])
def test_a_damaged_note_is_no_trial_and_rolls_nothing_back(tmp_path, note, caplog):
    path = config_file(tmp_path)
    trial.beside(path, trial.TRIAL).write_text(note)
    assert trial.pending_trial(path) is None and trial.starting(path) is None
    assert path.read_text() == CONFIG and "no trial is under way" in caplog.text


# --- the watch, on a clock of its own -------------------------------------------------------------


def watch(tmp_path, answers, deadline_s: float = 10.0, steady_s: float = 0.0):
    """A watch over a trial of ``tmp_path``'s file whose checks answer ``answers`` in turn,
    each check a second later on its clock; kept once healthy for ``steady_s`` on it."""
    path = config_file(tmp_path)
    trial.change(path, {"timer.length_s": 90}, "staff")
    under_way = trial.starting(path)
    clock, restarts, checks = Clock(100.0), [], iter(answers)

    def check() -> Health:
        clock.now += 1
        return next(checks)

    watcher = TrialWatch(path, under_way, check, lambda: restarts.append(clock.now), deadline_s, period_s=0,
                         clock=clock, steady_s=steady_s)
    return path, watcher, restarts


def test_the_watch_keeps_the_change_once_the_table_is_healthy(tmp_path):
    path, watcher, restarts = watch(tmp_path, [Health(Phrase.of("the phones' pages and the staff page are not open "
                                                                "yet")), Health()])
    watcher.run()
    assert watcher.outcome == "kept" and restarts == [] and trial.pending_trial(path) is None
    assert "length_s = 90" in path.read_text()


def test_the_watch_keeps_the_change_only_once_the_table_has_been_healthy_without_a_break_for_its_steady_time(
        tmp_path):
    """Issue 58, 4: one good check is no proof; a table healthy for a moment, then not, is
    watched again from its next good check, and rolled back when that break comes after the deadline."""
    waiting, healthy = Health(Phrase.of("the phones' pages and the staff page are not open yet")), Health()
    path, watcher, restarts = watch(tmp_path, [healthy, healthy, waiting, healthy, healthy, healthy, healthy],
                                    steady_s=3)
    watcher.run()
    assert watcher.outcome == "kept" and restarts == [] and trial.pending_trial(path) is None
    assert watcher.clock.now == 107.0  # healthy at 104, 105, 106, 107: kept at 3 s without a break
    (tmp_path / "later").mkdir()
    path, watcher, restarts = watch(tmp_path / "later", [healthy] * 4 + [waiting], deadline_s=4, steady_s=5)
    watcher.run()
    assert watcher.outcome == "rolled back" and restarts == [105.0] and path.read_text() == CONFIG


def test_the_steady_time_is_the_services_unless_the_environment_names_a_number_of_seconds(caplog):
    from pi_table.daemon.trial import STEADY_VARIABLE, steady_s

    assert steady_s({}) == trial.STEADY_S == 30.0
    assert steady_s({STEADY_VARIABLE: "2.5"}) == 2.5
    for wrong in ("soon", "-1", "inf", "nan"):
        assert steady_s({STEADY_VARIABLE: wrong}) == trial.STEADY_S
    assert "PI_TABLE_TRIAL_STEADY_S is 'soon', expected a number of seconds" in caplog.text


def test_the_watch_rolls_back_at_once_on_what_waiting_cannot_mend(tmp_path):
    why = Phrase.of("the phones' pages and the staff page cannot open: {why}", why="Address already in use")
    path, watcher, restarts = watch(tmp_path, [Health(why, final=True)])
    watcher.run()
    assert watcher.outcome == "rolled back" and restarts == [101.0] and path.read_text() == CONFIG
    note = trial.rolled_back(path)
    assert note is not None and note["why"]["en"] == str(why)
    assert note["why"]["it"].startswith("le pagine per i telefoni e la pagina dello staff non si possono aprire")


def test_the_watch_rolls_back_a_table_not_healthy_by_the_deadline(tmp_path):
    waiting = Health(Phrase.of("the phones' pages and the staff page are not open yet"))
    path, watcher, restarts = watch(tmp_path, [waiting] * 20, deadline_s=5)
    watcher.run()
    assert watcher.outcome == "rolled back" and restarts == [105.0] and path.read_text() == CONFIG
    note = trial.rolled_back(path)
    assert note is not None and note["why"]["en"] == (
        "not healthy 5 s after the start: the phones' pages and the staff page are not open yet")


def test_a_table_stopping_leaves_the_trial_to_its_next_start(tmp_path):
    path, watcher, restarts = watch(tmp_path, [])
    watcher.stop()
    watcher.run()  # stopped before its first check: it decides nothing
    assert watcher.outcome is None and restarts == [] and trial.pending_trial(path) is not None


# --- the real table under the fake systemd --------------------------------------------------------


@pytest.fixture
def service(tmp_path):
    service = StaffService(tmp_path)
    yield service
    service.close()


def settings_shown(staff: Staff, lang: str = "en") -> dict:
    staff.lang = lang
    status, table = staff.call("GET", "/staff/api/table")
    assert status == 200
    return table["settings"]


def test_a_healthy_change_is_kept_after_its_restart(service):
    service.start()
    staff = service.staff()
    assert staff.call("POST", "/staff/api/config", {"changes": {"game.hold_s": 0.3}}) == (
        200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    assert settings_shown_before_restart(service)["keys"] == ["game.hold_s"]
    service.start()
    staff = service.staff()
    deadline = time.monotonic() + 20
    while trial.pending_trial(service.config) is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert trial.pending_trial(service.config) is None, service.log()
    assert settings_shown(staff) == {"trial": None, "rolled_back": None, "refused": None}
    assert load_config(service.config).input.hold_s == 0.3
    assert trial.beside(service.config, trial.GOOD).read_text() == service.config.read_text()


def settings_shown_before_restart(service: StaffService) -> dict:
    under_way = trial.pending_trial(service.config)
    assert under_way is not None
    return under_way.to_json()


def test_a_change_the_table_cannot_start_on_is_rolled_back_at_the_start(service):
    """The checker passed a certificate and its key; before the restart the certificate was
    replaced by something else. The start on the new file fails its check, and instead of
    exiting 78 (which systemd would not restart) the table puts the last good file back and
    starts on it; the staff page says what was rolled back and why, in its language."""
    (service.folder / "files").mkdir()
    cert, key = self_signed(service.folder / "files")  # a key in the table's secrets folder
    service.start()
    staff = service.staff(owner=True)
    assert staff.call("POST", "/staff/api/config", {"changes": {"web.tls_cert": str(cert), "web.tls_key": str(key)}}
                      ) == (200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    cert.write_text("not a certificate any more\n")
    service.start()
    assert "tls_cert" not in service.config.read_text() or 'tls_cert = ""' in service.config.read_text()
    staff = service.staff()  # over http again: the last good file's
    shown = settings_shown(staff)
    assert shown["trial"] is None and shown["rolled_back"]["keys"] == ["web.tls_cert", "web.tls_key"]
    assert shown["rolled_back"]["why"].startswith("the table could not start on the new settings: ")
    assert "which holds no PEM certificate" in shown["rolled_back"]["why"]
    assert "not a certificate any more" not in json.dumps(shown)
    assert settings_shown(staff, "it")["rolled_back"]["why"].startswith(
        "il tavolo non è riuscito ad avviarsi con le nuove impostazioni: ")


def test_a_change_on_which_the_pages_do_not_open_is_rolled_back_and_the_table_restarts(service):
    """The checker passed a free port; another program took it before the restart. The table
    starts, its phones' pages and staff page cannot listen: that cannot mend by waiting, so the
    last good file goes back at once and the table restarts on it."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    service.start()
    staff = service.staff()
    assert staff.call("POST", "/staff/api/config", {"changes": {"web.port": port}}) == (
        200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    squatter = socket.socket()
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    squatter.bind(("127.0.0.1", port))
    squatter.listen()
    try:
        service.start()
        assert service.exited() == EXIT_RESTART  # rolled back: systemd starts it again on the good file
        assert "port = 0" in service.config.read_text()
        service.start()
        shown = settings_shown(service.staff())
        assert shown["rolled_back"]["keys"] == ["web.port"]
        assert shown["rolled_back"]["why"].startswith("the phones' pages and the staff page cannot open: ")
    finally:
        squatter.close()


def test_a_table_that_dies_before_it_is_healthy_rolls_the_change_back_at_its_next_start(service):
    """A start that never becomes healthy and is then killed (a crash, the watchdog, a power
    cut): systemd starts it again, and that second start of the trial puts the last good file back."""
    service.start()
    service.systemd.stop()
    # as ``tune --write`` leaves it: the touch board worked before, and must work again
    trial.change(service.config, {"touch.thresholds": [[9, 4]]}, "tune", ("touch",), machine=False)
    service.start()
    service.systemd.kill()  # the simulated board never says "ok": this trial cannot be kept before it
    assert trial.pending_trial(service.config) is not None and "thresholds" in service.config.read_text()
    service.systemd.close()
    service.start()
    assert "thresholds" not in service.config.read_text()
    shown = settings_shown(service.staff())
    assert shown["rolled_back"] == {**shown["rolled_back"], "keys": ["touch.thresholds"], "by": "tune",
                                    "why": "the table stopped before it was healthy on the new settings"}


def test_the_rollback_headline_shows_at_the_start_after_it_and_goes_once_a_later_start_is_healthy(service):
    """Issue 50: the rollback stayed the staff page's headline through three restarts. The start
    that follows a rollback shows it; the next healthy one lets it go, on the page and on disk."""
    service.start()
    service.systemd.stop()
    trial.change(service.config, {"touch.thresholds": [[9, 4]]}, "tune", ("touch",), machine=False)
    service.start()
    service.systemd.kill()  # never healthy on the change: the next start rolls it back
    service.systemd.close()
    service.start()
    staff = service.staff()
    wait_for(lambda: staff.call("GET", "/staff/api/health")[1]["headline"]["ok"] is False, "the rollback headline")
    headline = staff.call("GET", "/staff/api/health")[1]["headline"]
    assert headline["text"].startswith("The change of ") and "rolled back" in headline["text"], headline
    assert settings_shown(staff)["rolled_back"] is not None
    wait_for(lambda: (service.folder / "journal" / SHOWN_FILE).exists(), "this healthy start to mark it shown",
             timeout=30)  # a stop before the table is healthy has shown it to nobody
    service.systemd.stop()  # a restart, healthy on the last good settings
    service.systemd.close()
    service.start()
    staff = service.staff()
    wait_for(lambda: trial.rolled_back(service.config) is None, "the rollback's note let go", timeout=20)
    assert settings_shown(staff)["rolled_back"] is None
    assert staff.call("GET", "/staff/api/health")[1]["headline"]["ok"] is True


def test_why_a_trial_is_rolled_back_names_no_configuration_key():
    """The reason becomes the staff page's advice under the headline: in the owner's words, not
    a key of the file (issue 50: '[web] enabled')."""
    import ast

    from pi_table.daemon import restarts
    from pi_table.daemon import trial as watch

    for module in (restarts, watch):
        said = [node.args[0].value for node in ast.walk(ast.parse(Path(module.__file__).read_text(encoding="utf-8")))
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "of"
                and node.args and isinstance(node.args[0], ast.Constant)]  # each Phrase.of's words
        assert said, module.__name__
        assert [text for text in said if re.search(r"\[\w+\] \w+", text)] == [], module.__name__


def test_a_change_that_would_lock_the_staff_out_is_rolled_back(service):
    """Found by the fuzz: moving paths.journal_dir left the staff PIN behind in the old folder, so
    after the restart nobody could log in to undo it."""
    service.start()
    staff = service.staff(owner=True)
    assert staff.call("POST", "/staff/api/config", {"changes": {"paths.journal_dir": str(service.folder / "moved")}}
                      ) == (200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    service.start()
    assert service.exited() == EXIT_RESTART  # rolled back: systemd starts it again on the good file
    service.start()
    shown = settings_shown(service.staff())
    assert shown["rolled_back"]["keys"] == ["paths.journal_dir"]
    assert shown["rolled_back"]["why"].startswith("the staff can no longer log in: no staff PIN in ")


def test_a_file_edited_by_hand_is_tried_and_the_last_good_file_stays_until_the_table_is_healthy_on_it(tmp_path):
    path = config_file(tmp_path)
    assert trial.remember(path) is None  # a first start: no other file to come back to
    assert trial.beside(path, trial.GOOD).read_text() == CONFIG
    assert trial.remember(path) is None and trial.pending_trial(path) is None  # the proven file: nothing to prove
    path.write_text(CONFIG.replace("length_s = 0", "length_s = 90"))
    under_way = trial.remember(path)
    assert under_way is not None and (under_way.keys, under_way.by, under_way.starts) == (
        ("timer.length_s",), trial.HAND, 1)
    assert trial.pending_trial(path) == under_way and trial.beside(path, trial.GOOD).read_text() == CONFIG
    assert trial.starting(path) is None  # its start died before the keep: the proven file comes back
    assert path.read_text() == CONFIG


def test_a_hand_edit_whose_start_is_killed_before_it_is_healthy_leaves_the_proven_file_which_comes_back(
        service, monkeypatch):
    """Issue 58, 4: the start's checks made a hand-edited file the last good one before the
    table was up on it; a start killed then (the memory running out, a power cut) left no proven
    file to come back to. It is tried as a change is: the last good file stays until the table
    has been healthy on the new one for the steady time, and the next start puts it back."""
    from pi_table.daemon.trial import STEADY_VARIABLE

    service.start()
    good = trial.beside(service.config, trial.GOOD)
    wait_for(lambda: trial.pending_trial(service.config) is None and good.exists(), "the first file kept",
             timeout=20)
    service.systemd.stop()
    service.systemd.close()
    proven = service.config.read_text()
    assert good.read_text() == proven
    service.config.write_text(proven.replace("length_s = 0", "length_s = 90"))  # passes every check
    monkeypatch.setenv(STEADY_VARIABLE, "3600")  # healthy for an hour at the soonest: the kill comes first
    service.start()
    service.systemd.kill()
    assert good.read_text() == proven, "the start's checks made the untried file the last good one"
    service.systemd.close()
    service.start()
    assert service.config.read_text() == proven
    shown = settings_shown(service.staff())["rolled_back"]
    assert (shown["keys"], shown["why"]) == (["timer.length_s"],
                                             "the table stopped before it was healthy on the new settings")


def test_a_bad_file_edited_by_hand_still_stops_a_table_that_has_no_last_good_one(service):
    service.config.write_text(CONFIG.replace("length_s = 0", "length_s = 5"))
    service.systemd = FakeSystemd(["--hal", "sim", "--config", str(service.config)])
    from pi_table.sim.systemd import ServiceFailed

    with pytest.raises(ServiceFailed, match=f"exited with status {EXIT_CONFIG}"):
        service.systemd.start()
    assert "length_s = 5" in service.config.read_text()


def test_a_file_edited_by_hand_that_is_refused_starts_the_table_on_its_last_good_settings_until_discarded(service):
    """Issue 50, 9: a bad hand edit stopped the table at its start (78), and only SSH could undo
    it. A table that started once on a good file keeps it as the last good one; a start that
    refuses the file starts on that instead, says what it refused on the screen and the staff
    page, and the owner discards the refused file there: the table restarts on the last good one."""
    service.start()
    staff = service.staff()
    assert staff.call("POST", "/staff/api/restart") == (200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    good = service.config.read_text()
    service.config.write_text(good.replace("length_s = 0", "length_s = 5"))  # an edit by hand, over SSH
    service.start()  # not 78: the last good settings
    refused = "the settings file was refused ("
    assert any(refused in warning for warning in service.status()["warnings"]), service.status()["warnings"]
    staff = service.staff()
    shown = settings_shown(staff)["refused"]
    assert shown["why"].startswith(refused) and "timer.length_s" in shown["why"]
    assert "on the staff page" in next(warning for warning in service.status()["warnings"] if refused in warning)
    assert "on the staff page" not in shown["why"]  # said to someone on it: where on it instead
    assert shown["why"].endswith("correct the file, or press Discard the refused file, under Devices")
    warnings = staff.call("GET", "/staff/api/table")[1]["warnings"]  # said once, by the note with its Discard button
    assert not any(refused in warning for warning in warnings), warnings
    italian = settings_shown(staff, "it")["refused"]["why"]
    assert italian.startswith("il file delle impostazioni è stato rifiutato (") and "Scarta il file rifiutato" in italian
    staff.lang = "en"
    headline = staff.call("GET", "/staff/api/health")[1]["headline"]  # not "All good" over a refused file
    assert (headline["ok"], headline["text"], headline["advice"]) == (False, "The settings file was refused.", shown["why"])
    assert check_config(service.config).returncode == EXIT_CONFIG  # the file itself is still refused by its checker
    assert staff.call("POST", "/staff/api/config/discard", {})[0] == 403  # the owner's word
    staff.as_owner()
    assert staff.call("POST", "/staff/api/config/discard", {}) == (200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    assert service.config.read_text() == good
    service.start()
    assert settings_shown(service.staff())["refused"] is None and not any(
        refused in warning for warning in service.status()["warnings"])


def check_config(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pi_table", "check-config", str(path)], capture_output=True,
                          text=True, timeout=30)


def test_check_config_beside_the_running_table_lets_its_own_port_pass_and_not_another_programs(tmp_path):
    """The installer runs check-config on a table that is running: the port the table itself
    holds is its own to let go of at the restart; a port another program holds is refused."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    service = StaffService(tmp_path, STAFF_CONFIG.replace("port = 0", f"port = {port}"))
    try:
        service.start()
        done = subprocess.run([sys.executable, "-m", "pi_table", "check-config", str(service.config)],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        service.systemd.stop()
        squatter = socket.socket()
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        try:
            done = subprocess.run([sys.executable, "-m", "pi_table", "check-config", str(service.config)],
                                  capture_output=True, text=True, timeout=30)
        finally:
            squatter.close()
        assert done.returncode == EXIT_CONFIG and f"web.port: expected a port no other program listens on, found " \
            f"port {port}, which another program listens on" in done.stderr
    finally:
        service.close()


def test_a_table_that_opened_a_night_takes_changes_and_starts_again_as_the_service_does(service):
    """Issue 37's second blocker: opening a night made ``journal/nights/``, and from then on the
    start's own check refused the journal folder (one holding a folder is someone else's): every
    change was answered 400 and the next start exited 78, which systemd never retries."""
    service.start()
    staff = service.staff()
    status, answer = staff.call("POST", "/staff/api/night/open", {"name": "Friday league", "games": ["codenames"],
                                                                   "tables": ["1"]})
    assert status == 200, answer
    assert staff.call("POST", "/staff/api/config", {"changes": {"game.hold_s": 0.3}}) == (
        200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    service.start()  # pi-table run --config FILE, every start-up check on
    staff = service.staff()
    status, night = staff.call("GET", "/staff/api/night")
    assert status == 200 and night["night"]["name"] == "Friday league", night
    assert not (service.folder / "journal/nights").exists() and (service.folder / "nights").is_dir()


def test_a_table_that_followed_a_night_starts_again_as_the_service_does_and_still_follows_it(service):
    """Issue 38, item 1: a table that followed another's night (its book beside the journal,
    the host accepted from the owner's list) restarts as the unit restarts it, every start-up
    check on, and takes the night up again from its book."""
    from pi_table.night.book import Book
    from pi_table.night.recorder import Recorder
    from pi_table.night.store import folder_of

    host = Book(service.folder / "host")
    host.open("Friday league", ["codenames"], ["t1", "1"])
    for name in ("Owls", "Quiz Club", "Foxes", "Moles"):
        host.join(name)
    host.propose()
    host.confirm()
    plan = Recorder(host, "t1").plan()
    follower = Book(folder_of(service.folder / "journal"), cafe_tables=["t1"])
    assert follower.follow("t1", "1", json.loads(json.dumps(plan)))
    follower.stop()
    service.start()
    staff = service.staff()
    status, night = staff.call("GET", "/staff/api/night")
    assert status == 200 and night["night"]["host"] == "t1", night
    assert staff.call("POST", "/staff/api/config", {"changes": {"game.hold_s": 0.3}}) == (
        200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    service.start()  # pi-table run --config FILE, every start-up check on
    staff = service.staff()
    status, night = staff.call("GET", "/staff/api/night")
    assert status == 200 and night["night"]["host"] == "t1" and night["night"]["name"] == "Friday league", night
    assert len(night["night"]["rounds"]) == 1


def test_an_older_tables_nights_in_its_journal_folder_are_moved_beside_it_at_the_start(tmp_path):
    """A table an older version left with ``journal/nights/`` (which the start's check refuses)
    starts: the books are moved where they belong, and the night is there."""
    from pi_table.night.book import Book
    from pi_table.night.store import folder_of

    service = StaffService(tmp_path)
    try:
        journal = tmp_path / "journal"
        Book(journal / "nights").open("Friday league", ["codenames"], ["1"])
        service.start()
        staff = service.staff()
        status, night = staff.call("GET", "/staff/api/night")
        assert status == 200 and night["night"]["name"] == "Friday league", night
        assert not (journal / "nights").exists() and list(folder_of(journal).glob("*.jsonl"))
        assert "moved to" in service.log()
    finally:
        service.close()


def reached_on(service: StaffService, address: str) -> Staff:
    """The staff page as a phone reaches it on ``address`` (the café's Wi-Fi, here another
    loopback address), on the port the table listens on after its last start."""
    port = urllib.parse.urlsplit(service.status()["companion"]).port
    staff = Staff(f"http://{address}:{port}")
    assert staff.login()[0] == 200
    return staff


def test_a_change_that_cuts_the_staff_off_the_address_they_reached_is_rolled_back(tmp_path):
    """Issue 37, item 6: ``web.host = "127.0.0.1"`` passed the trial, whose health asked over
    loopback, and then only SSH could undo it. The table listens on every network; the staff
    reach it on 127.0.0.2, as a phone on the café's Wi-Fi reaches its address there. A change
    after which that address still answers is kept; one after which it does not is rolled back
    by itself, and the page says why."""
    service = StaffService(tmp_path, STAFF_CONFIG.replace('host = "127.0.0.1"', 'host = "0.0.0.0"'))
    try:
        service.start()
        staff = reached_on(service, "127.0.0.2")
        assert staff.call("POST", "/staff/api/config", {"changes": {"game.hold_s": 0.3}})[0] == 200
        assert service.exited() == EXIT_RESTART
        service.start()
        reached_on(service, "127.0.0.2")
        wait_for(lambda: trial.pending_trial(service.config) is None, "the change kept", timeout=20)
        assert load_config(service.config).input.hold_s == 0.3  # kept: the address answers again
        staff = reached_on(service, "127.0.0.2")
        staff.as_owner()  # the address the pages listen on is the owner's (issue 48)
        assert staff.call("POST", "/staff/api/config", {"changes": {"web.host": "127.0.0.1"}}) == (
            200, {"ok": True, "restarting": True})
        assert service.exited() == EXIT_RESTART
        service.start()
        assert service.exited() == EXIT_RESTART  # rolled back: systemd starts it again on the good file
        assert 'host = "0.0.0.0"' in service.config.read_text()
        service.start()
        shown = settings_shown(reached_on(service, "127.0.0.2"))
        assert shown["rolled_back"]["keys"] == ["web.host"]
        assert shown["rolled_back"]["why"].startswith("the staff page was reached on 127.0.0.2, which does not "
                                                      "answer now: / does not answer on port "), shown
        italian = settings_shown(reached_on(service, "127.0.0.2"), "it")["rolled_back"]["why"]
        assert italian.startswith("la pagina dello staff era stata aperta su 127.0.0.2, che ora non risponde: ")
    finally:
        service.close()


def test_a_note_root_writes_beside_the_configuration_is_the_services_as_the_file_is(tmp_path):
    """``pi-table tune --write`` by sudo wrote its trial's note and last good file as root's,
    0640: the service could not read the note, so the trial was no trial and no rollback came
    (the container's test of a table killed on a change found it)."""
    if os.geteuid() != 0:
        pytest.skip("only root's files change hands")
    path = tmp_path / "config.toml"
    path.write_text('[timer]\nlength_s = 0\n')
    os.chown(path, 65534, 65534)
    path.chmod(0o640)
    trial.change(path, {"timer.length_s": 60}, "tune", machine=False)
    for written in (path, trial.beside(path, trial.TRIAL), trial.beside(path, trial.GOOD)):
        assert (written.stat().st_uid, written.stat().st_gid) == (65534, 65534), written


def test_a_staff_restart_before_the_verdict_is_a_clean_stop_and_leaves_the_owners_change_on_trial(service, monkeypatch):
    """Issue 74, 2: the owner changed a setting, the table restarted on it as a trial, and a member
    of staff pressed Restart a few seconds later (the table looked slow): the next start counted a
    death, rolled the change back and noted it as the staff's. An asked-for restart is a clean stop:
    the trial waits for its verdict across it, and who made the change stays who made it."""
    from pi_table.daemon.trial import STEADY_VARIABLE

    monkeypatch.setenv(STEADY_VARIABLE, "300")  # the Restart comes long before the trial could be kept
    service.start()
    owner = service.staff(owner=True)
    assert owner.call("POST", "/staff/api/config", {"changes": {"game.hold_s": 0.3}}) == (
        200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    service.start()
    assert service.staff().call("POST", "/staff/api/restart") == (200, {"ok": True, "restarting": True})
    assert service.exited() == EXIT_RESTART
    service.start()
    service.systemd.stop()  # a stop asked of systemd (a reboot, the power section) is clean too
    service.systemd.close()
    under_way = trial.pending_trial(service.config)
    assert under_way is not None and under_way.by == "owner" and trial.rolled_back(service.config) is None
    assert load_config(service.config).input.hold_s == 0.3
    monkeypatch.setenv(STEADY_VARIABLE, "1")
    service.start()
    wait_for(lambda: trial.pending_trial(service.config) is None, "the trial's verdict", timeout=30)
    assert trial.rolled_back(service.config) is None and load_config(service.config).input.hold_s == 0.3
    assert trial.beside(service.config, trial.GOOD).read_text() == service.config.read_text()


# --- the lifecycle, as a state machine ---------------------------------------------------------------

MAKERS = ("owner", "staff")


class SettingsTrial(RuleBasedStateMachine):
    """DESIGN's "Ways back" for a trial of settings (issue 74, 2): changes by the owner and the
    staff, Restarts asked for, crashes, and the watch's verdicts in any order, each start made as
    the service makes it (``run.starting``). The oracle, from the rules: a change is rolled back
    only by a start that was killed, or found unhealthy, before its verdict, and then to the
    settings proven before it; an asked-for stop never; a trial's makers are every one who made a
    change of it, and its rollback's note names them all."""

    @initialize()
    def first_start(self) -> None:
        from pi_table.daemon.run import starting

        self.starting = starting
        self.path = Path(tempfile.mkdtemp()) / "config.toml"
        self.path.write_text(CONFIG)
        self.value, self.good = 0, 0  # the timer's length in the file, and in the last good one
        self.makers: list[str] | None = None  # the trial under way's
        self.rolled: list[str] | None = None  # the makers named by the rollback's note still shown
        self.start()

    def teardown(self) -> None:
        if hasattr(self, "path"):
            shutil.rmtree(self.path.parent)

    def start(self) -> None:
        _, under = self.starting(self.path)
        self.clock = Clock(100.0)
        self.watch = None if under is None else TrialWatch(
            self.path, under, self.check, lambda: None, deadline_s=10, period_s=0, clock=self.clock, steady_s=1)
        self.health = Health()

    def check(self) -> Health:
        self.clock.now += 1
        return self.health

    def stopped(self, asked: bool) -> None:
        """The table stops (``Daemon.close``: ``asked`` by a Restart or a signal, or not: a crash)
        and systemd starts it again."""
        if self.watch is not None:
            self.watch.stop(clean=asked)
        self.start()

    @rule(by=st.sampled_from(MAKERS), length=st.sampled_from([30, 60, 90]))
    def change(self, by: str, length: int) -> None:
        """A change from the page, and the restart it asks for."""
        trial.change(self.path, {"timer.length_s": length}, by, machine=False)
        if self.makers is None:
            self.good, self.makers = self.value, [by]
        elif by not in self.makers:
            self.makers.append(by)
        self.value = length
        self.stopped(asked=True)

    @rule()
    def restart(self) -> None:
        """The staff's Restart, or systemd's stop and start."""
        self.stopped(asked=True)

    @rule()
    def crash(self) -> None:
        if self.watch is not None and self.watch.outcome is None:
            self.value, self.rolled, self.makers = self.good, self.makers, None
        self.stopped(asked=False)

    @rule()
    def healthy(self) -> None:
        if self.watch is not None and self.watch.outcome is None:
            self.watch.run()
            self.good, self.makers, self.rolled = self.value, None, None

    @rule()
    def unhealthy(self) -> None:
        """A check that waiting cannot mend: rolled back, and the restart the watch asks for."""
        if self.watch is not None and self.watch.outcome is None:
            self.health = Health(Phrase.of("the table's loop does not answer"), final=True)
            self.watch.run()
            self.value, self.rolled, self.makers = self.good, self.makers, None
            self.stopped(asked=True)

    @invariant()
    def the_files_say_what_the_rules_say(self) -> None:
        assert load_config(self.path).timer.length_s == self.value
        under = trial.pending_trial(self.path)
        assert (None if under is None else under.by) == (None if self.makers is None else ", ".join(self.makers))
        if self.makers is not None:
            assert load_config(trial.beside(self.path, trial.GOOD)).timer.length_s == self.good
        note = trial.rolled_back(self.path)
        assert (None if note is None else note["by"]) == (None if self.rolled is None else ", ".join(self.rolled))


SettingsTrial.TestCase.settings = settings(stateful_step_count=12, deadline=None)  # the profile says how many examples
test_a_trial_of_settings_through_its_lifecycle = SettingsTrial.TestCase
