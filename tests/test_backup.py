"""Backup and restore (issue 27, item 2): one .tar.gz holds what makes this table this table; an
upload is checked strictly and says what it replaces; a restore is a trial, kept when the table
comes back healthy and rolled back by itself when it does not; a backup a night is kept, pruned
by count and size. The files' side and the watch on clocks of their own, then the daemon in this
process, then the commands."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_table.cli import main
from pi_table.config import Config, load_config, trial
from pi_table.config.machine import Running
from pi_table.daemon import backup
from pi_table.daemon.restarts import EXIT_RESTART, Restarts
from pi_table.daemon.trial import Health
from pi_table.engine import Rules, parse_action
from pi_table.engine.games import make_game
from pi_table.engine.phrase import Phrase
from pi_table.table import Session, history
from pi_table.table.journal import IN_PLAY
from pi_table.ui.i18n import say
from pi_table.web.staff import PIN_FILE, SESSIONS_FILE, set_pin

from helpers import Clock, wait_for
from helpers_games import dealt_key
from helpers_release import fix_manifest, member, packed, regular, repacked
from helpers_staff import STAFF_CONFIG, STAFF_PIN, download, upload
from helpers_tables import StaffService, service_daemon

SECRET = b"0123456789abcdef0123456789abcdef"  # the companion's: 32 bytes


KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # a finished game's: red touched the assassin (24)
PHONES = {"companion.secret": SECRET, "companion.released": b'{"game_id": "g", "generations": {"1": 2}}',
          "companion.opened": b"token-of-a-phone\n"}
"""The phones' secret and links: a seat's token and a phone's cookie are made from them."""


def table(folder: Path, config: str = STAFF_CONFIG) -> Path:
    """A table's files: its configuration, a finished game, the game in play, the PIN, the
    phones' secret and links, and what must not travel (sessions, restart times, the fleet's
    pending reports)."""
    folder.mkdir(exist_ok=True)
    path = folder / "config.toml"
    path.write_text(config)
    journal = folder / "journal"
    rules = Rules()
    finished = Session(rules, key=make_game(rules).parse_key(KEY), journal_dir=journal)
    finished.submit(parse_action("touch 24"))
    assert finished.state.is_over
    finished.new_game()  # the game in play
    finished.submit(parse_action("clue 2"))
    finished.close()
    set_pin(journal, STAFF_PIN)
    for name, data in (*PHONES.items(), (SESSIONS_FILE, b"{}"), ("staff.restarts", b"[]"), ("fleet.pending", b"[]")):
        (journal / name).write_bytes(data)
    return path


def games(path: Path) -> list[str]:
    return sorted(p.name for p in (path.parent / "journal").glob("*.jsonl"))


def in_play(path: Path) -> str | None:
    """The game in play's id, as the table named it."""
    return json.loads((path.parent / "journal" / IN_PLAY).read_text())["game"]


def finished_games(path: Path) -> list[str]:
    return [name for name in games(path) if name != f"{in_play(path)}.jsonl"]


GAME_ENDS = ("the game in play ends, as End game ends it: it stays in the history and a new one is dealt; phones "
             "scan the codes again")


def said(contents: backup.Contents) -> list[str]:
    return [say(phrase, "en") for phrase in contents.replaces]


# --- making one and reading it back ---------------------------------------------------------------


def test_a_backup_holds_the_settings_the_pin_and_the_finished_games_and_never_the_key_or_the_phones_secret(tmp_path):
    """Issue 37, item 3: the staff's download held the game in play's journal (its key) and the
    phones' secret (every seat's token and a phone's cookie can be made from it)."""
    path = table(tmp_path)
    (finished,) = finished_games(path)
    manifest, files = backup.read(backup.make(load_config(path), now=1_700_000_000))
    assert sorted(files) == ["config.toml", f"journal/{finished}", "journal/staff.pin"]
    assert files["config.toml"] == path.read_bytes()
    assert manifest["format"] == "pi-table backup" and manifest["version"] == 1 and manifest["table"]
    pin = (tmp_path / "journal" / PIN_FILE).read_bytes()
    assert manifest["files"]["journal/staff.pin"] == {"size": len(pin), "sha256": hashlib.sha256(pin).hexdigest()}
    playing = tmp_path / "journal" / f"{in_play(path)}.jsonl"
    key = json.loads(playing.read_text().splitlines()[0])["key"]
    assert not any(key.encode() in data or SECRET in data for data in files.values())
    nightly = backup.Nightly(load_config(path)).tick()  # the nightly backups keep the same rule
    assert nightly is not None and sorted(backup.read(nightly.read_bytes())[1]) == sorted(files)


def test_the_game_on_the_table_stays_out_even_finished_while_an_undo_could_bring_it_back(tmp_path):
    path = table(tmp_path)
    session = Session.resume(Rules(), tmp_path / "journal")
    session.submit(parse_action(f"touch {session.spymaster_view().key.cells.index('A')}"))
    assert session.state.is_over  # the game in play is over, and still on the table
    session.close()
    assert backup.read(backup.make(load_config(path)))[1].keys() == {
        "config.toml", "journal/staff.pin", *(f"journal/{name}" for name in finished_games(path))}
    assert len(finished_games(path)) == 1
    session = Session.resume(Rules(), tmp_path / "journal")  # the next game dealt: the last one is history
    session.close()
    assert len(finished_games(path)) == 2
    assert {f"journal/{name}" for name in finished_games(path)} < backup.read(backup.make(load_config(path)))[1].keys()


def test_a_backup_of_the_same_table_replaces_nothing_but_says_so(tmp_path):
    path = table(tmp_path)
    config = load_config(path)
    contents = backup.check(backup.make(config), config, Running())
    assert said(contents)[1:] == ["the settings: the same as now", "the staff PIN: the same as now",
                                  "the games' history: 1 game in place of the 1 kept now", GAME_ENDS]
    assert contents.keys == ("journal",)
    assert say(contents.replaces[4], "it") == (
        "la partita in corso si chiude, come con Chiudi partita: resta nello storico e se ne prepara una nuova; i "
        "telefoni inquadrano di nuovo i codici")
    # when it was made, in each language's one form of a date (the pages' Intl form), not the manifest's ISO
    assert re.search(r" made [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M by ", say(contents.replaces[0], "en"))
    assert re.search(r" \d{1,2} [a-z]{3} \d{4}, \d\d:\d\d ", say(contents.replaces[0], "it"))


def test_the_check_says_which_settings_the_pin_and_how_many_games_it_replaces(tmp_path):
    path = table(tmp_path)
    data = backup.make(load_config(path))
    path.write_text(STAFF_CONFIG.replace("length_s = 0", "length_s = 90"))
    set_pin(tmp_path / "journal", "135790")
    rules = Rules()
    Session(rules, key=make_game(rules).parse_key(dealt_key(6)), journal_dir=tmp_path / "journal").close()
    contents = backup.check(data, load_config(path), Running())
    assert said(contents)[1:] == ["the settings: timer.length_s change",
                                  "the staff PIN: the backup's (log in with the PIN the table had then)",
                                  "the games' history: 1 game in place of the 2 kept now", GAME_ENDS]
    assert contents.keys == ("timer.length_s", "staff.pin", "journal")
    assert say(contents.replaces[3], "it").startswith("lo storico delle partite: 1 partita")


def test_a_table_too_big_for_a_backup_is_refused_in_words(tmp_path, monkeypatch):
    path = table(tmp_path)
    monkeypatch.setattr(backup, "MOST_BYTES", 100)
    with pytest.raises(backup.BadBackup, match=r"the backup would hold 0.0 MB, more than 0.0 MB: keep fewer games"):
        backup.make(load_config(path))


# --- hostile uploads -----------------------------------------------------------------------------


HOSTILE = {
    "up": ([regular("journal/../../etc/cron.d/x")], "the backup's 'journal/../../etc/cron.d/x' leads out of its folder "
                                                     "(..): expected a name inside the backup"),
    "absolute": ([regular("/etc/passwd")], "the backup's '/etc/passwd' has an absolute path"),
    "symlink": ([(member("journal/staff.pin", kind=tarfile.SYMTYPE, link="/etc/shadow"), b"")],
                "the backup's 'journal/staff.pin' is a symbolic link: expected regular files only"),
    "hardlink": ([(member("journal/staff.pin", kind=tarfile.LNKTYPE, link="config.toml"), b"")],
                 "the backup's 'journal/staff.pin' is a hard link: expected regular files only"),
    "device": ([(member("journal/staff.pin", kind=tarfile.CHRTYPE), b"")],
               "the backup's 'journal/staff.pin' is a device: expected regular files only"),
    "pipe": ([(member("journal/staff.pin", kind=tarfile.FIFOTYPE), b"")], "is a pipe: expected regular files only"),
    "folder": ([(member("journal", kind=tarfile.DIRTYPE), b"")], "the backup's 'journal' is a folder"),
    "unknown": ([regular("journal/run.sh")], "the backup's 'journal/run.sh' is not a file a backup holds: expected "
                                              "manifest.json, config.toml, journal/ with the games"),
    "sessions": ([regular(f"journal/{SESSIONS_FILE}")], "'journal/staff.sessions' is not a file a backup holds"),
    "not a book": ([regular("nights/run.sh")], "'nights/run.sh' is not a file a backup holds"),
    "twice": ([regular("journal/staff.pin"), regular("journal/staff.pin")],
              "the backup holds 'journal/staff.pin' twice: expected each file once"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_archive_is_refused_naming_what_and_what_was_expected(tmp_path, name):
    members, words = HOSTILE[name]
    config = load_config(table(tmp_path))
    with pytest.raises(backup.BadBackup) as refused:
        backup.check(packed(members), config, Running())
    assert words in str(refused.value)
    assert not (tmp_path / "backups").exists()  # nothing staged


def good(tmp_path) -> tuple[bytes, Config]:
    config = load_config(table(tmp_path))
    return backup.make(config), config


def test_files_that_do_not_match_the_manifest_are_refused_without_showing_them(tmp_path):
    data, config = good(tmp_path)
    changed = repacked(data, lambda name, body: body.replace(b"$", b"%") if name == "journal/staff.pin" else body)
    with pytest.raises(backup.BadBackup) as refused:
        backup.check(changed, config, Running())
    assert str(refused.value) == ("the backup's 'journal/staff.pin' does not match its manifest's size and "
                                  "sha256: the file was damaged or changed after the backup was made")
    missing = repacked(data, lambda name, body: None if name == "config.toml" else body)
    with pytest.raises(backup.BadBackup, match="the backup's manifest lists 'config.toml', which the backup does not"):
        backup.check(missing, config, Running())
    def unlist(name: str, body: bytes) -> bytes:
        manifest = json.loads(body) if name == "manifest.json" else None
        return body if manifest is None else json.dumps({**manifest, "files": {
            listed: entry for listed, entry in manifest["files"].items() if listed != "config.toml"}}).encode()

    unlisted = repacked(data, unlist)
    with pytest.raises(backup.BadBackup, match="the backup holds 'config.toml', which its manifest does not list"):
        backup.check(unlisted, config, Running())
    foreign = repacked(data, lambda name, body: b'{"format": "zip"}' if name == "manifest.json" else body)
    with pytest.raises(backup.BadBackup, match="manifest.json is not a pi-table backup's: expected pi-table backup "
                                                 "version 1"):
        backup.check(foreign, config, Running())
    none = repacked(data, lambda name, body: None if name == "manifest.json" else body)
    with pytest.raises(backup.BadBackup, match="the backup has no manifest.json: expected one"):
        backup.check(none, config, Running())


def test_what_is_no_tar_gz_or_unpacks_too_far_is_refused(tmp_path, monkeypatch):
    data, config = good(tmp_path)
    cases = {b"PK\x03\x04 a zip": "the backup is not a .tar.gz file",
             data[: len(data) // 2]: "the backup is cut short: expected a whole .tar.gz",
             data + b"\x1f\x8b more": "the backup has more data after its end",
             data[:10] + b"\xff" * 40: "the backup is damaged: its packed data cannot be unpacked"}
    for uploaded, words in cases.items():
        with pytest.raises(backup.BadBackup, match=words):
            backup.check(uploaded, config, Running())
    zeros = io.BytesIO()
    with tarfile.open(fileobj=zeros, mode="w:gz") as archive:
        archive.addfile(member("journal/a.jsonl", 4 << 20), io.BytesIO(bytes(4 << 20)))
    bomb = zeros.getvalue()
    assert len(bomb) * backup.MOST_RATIO < 4 << 20  # zeros pack a thousand times smaller
    with pytest.raises(backup.BadBackup, match=r"the backup unpacks to more than [\d.]+ MB, or 200 times its own"):
        backup.check(bomb, config, Running())
    monkeypatch.setattr(backup, "MOST_FILE", 1000)
    with pytest.raises(backup.BadBackup, match="the backup's 'journal/big.jsonl' is 1001 bytes: expected at most 1000"):
        backup.check(packed([regular("journal/big.jsonl", bytes(range(256)) * 3 + b"y" * 233)]), config, Running())


def test_a_configuration_the_checker_refuses_is_refused_with_the_checkers_words(tmp_path):
    data, config = good(tmp_path)
    slow = repacked(data, lambda name, body: body.replace(b"length_s = 0", b"length_s = 5") if name == "config.toml"
                    else body)
    slow = fix_manifest(slow)
    with pytest.raises(backup.BadBackup) as refused:
        backup.check(slow, config, Running())
    assert str(refused.value).startswith("the backup's configuration does not pass check-config: ")
    assert "timer.length_s" in str(refused.value)
    moved = fix_manifest(repacked(data, lambda name, body: body.replace(b'journal_dir = "journal"',
                                                                         b'journal_dir = "elsewhere"')
                                  if name == "config.toml" else body))
    with pytest.raises(backup.BadBackup, match="the backup's configuration keeps the games in .*elsewhere, this table "
                                                 "in .*journal: expected the same"):
        backup.check(moved, config, Running())


def test_a_backup_whose_settings_name_the_previous_settings_as_a_password_is_refused(tmp_path):
    """Issue 58, 3: a backup's configuration named ``fleet.password_file = "config.toml.good"``
    (the previous settings, holding the café's broker's password in its URL), in clear, towards the
    sender's broker: it passed the check, and the old settings went out as the MQTT password. A
    secret file is one of the table's secrets folder's (``files/``), never a copy of the settings."""
    data, config = good(tmp_path)
    assert config.source is not None
    config.source.with_name("config.toml.good").write_text(
        config.source.read_text() + '[fleet]\nbroker = "mqtt://t1:SECRET-of-the-cafe@broker.cafe.lan"\n')
    for named in ("config.toml.good", "config.toml.trial", "config.toml.refused", "config.toml", "journal/staff.pin",
                  "files/../config.toml.good"):
        hostile = fix_manifest(repacked(data, lambda name, body, named=named: body + (
            f'[fleet]\nbroker = "mqtt://t1@203.0.113.9:1883"\npassword_file = "{named}"\n'
            'password_in_clear = true\n').encode() if name == "config.toml" else body))
        with pytest.raises(backup.BadBackup) as refused:
            backup.check(hostile, config, Running())
        said = str(refused.value)
        assert "fleet.password_file" in said and "the table's secrets folder" in said, said
        assert "SECRET-of-the-cafe" not in said


@pytest.fixture(scope="module")
def one_table(tmp_path_factory) -> tuple[bytes, Config]:
    return good(tmp_path_factory.mktemp("table"))


@given(st.binary(max_size=2000), st.integers(min_value=0))
def test_any_bytes_are_a_backup_or_a_refusal_in_words(one_table, noise, where):
    data, config = one_table
    at = where % (len(data) + 1)
    for uploaded in (noise, data[:at] + noise + data[at + len(noise):]):
        try:
            backup.check(uploaded, config, Running())
        except backup.BadBackup as e:
            assert SECRET.decode() not in str(e)


# --- the restore, a trial -------------------------------------------------------------------------


def state(path: Path) -> dict:
    journal = path.parent / "journal"
    phones = tuple((journal / name).read_bytes() if (journal / name).exists() else None for name in PHONES)
    pointer = journal / IN_PLAY
    return {"config": path.read_bytes(), "games": games(path), "pin": (journal / PIN_FILE).read_bytes(),
            "phones": phones, "in_play": json.loads(pointer.read_text())["game"] if pointer.exists() else None}


def restored(backed_up: dict, now: dict) -> dict:
    """What restoring a backup of the table as it was (``backed_up``) leaves of it as it is
    (``now``): the backup's settings, PIN and finished games; the game in play now stays in the
    history, ended (none is in play); no phones' secret (the start makes a new one)."""
    finished = {name for name in backed_up["games"] if name != f"{backed_up['in_play']}.jsonl"}
    return {"config": backed_up["config"], "games": sorted(finished | {f"{now['in_play']}.jsonl"}),
            "pin": backed_up["pin"], "phones": (None,) * len(PHONES), "in_play": None}


def staged(tmp_path) -> tuple[Path, dict, dict]:
    """A table backed up, then changed (a slower timer, another PIN, another game), with the
    backup staged for its next start: the path, the state the restore leaves and the state changed."""
    path = table(tmp_path)
    before, data = state(path), backup.make(load_config(path))
    path.write_text(STAFF_CONFIG.replace("length_s = 0", "length_s = 90"))
    set_pin(tmp_path / "journal", "135790")
    rules = Rules()
    Session(rules, key=make_game(rules).parse_key(dealt_key(6)), journal_dir=tmp_path / "journal").close()
    changed = state(path)
    backup.stage(data, load_config(path), Running(), "staff", ["staff"], reached="192.0.2.7")
    return path, restored(before, changed), changed


def older_backup(path: Path) -> tuple[bytes, str, str]:
    """A backup as pi-table made it before issue 37 (its format unchanged): with the phones'
    secret and links, and the game in play, whose name sorts last; and a finished game. The
    backup, the game in play's name and the finished game's."""
    journal = path.parent / "journal"
    (finished,) = finished_games(path)
    members = [regular("config.toml", path.read_bytes()), regular("journal/staff.pin", (journal / PIN_FILE).read_bytes()),
               regular(f"journal/{finished}", (journal / finished).read_bytes()),
               regular("journal/zzzz.jsonl", (journal / f"{in_play(path)}.jsonl").read_bytes()),
               *(regular(f"journal/{name}", b"B" * len(data)) for name, data in PHONES.items())]
    return packed(members), "zzzz.jsonl", finished


def test_an_older_backup_with_the_key_and_the_phones_secret_is_restored_without_them_and_says_so(tmp_path):
    """Issues 37, items 3 and 11: a backup made before holds the game in play (here under a name
    that sorts last, which every later start resumed) and the phones' secret. Both are left out,
    said in the check, not refused; the game in play now ends, and no restart resumes the backup's."""
    path = table(tmp_path)
    data, stranger, finished = older_backup(path)
    config = load_config(path)
    contents = backup.check(data, config, Running())
    assert said(contents)[3:] == [
        "the games' history: 1 game in place of the 1 kept now", GAME_ENDS,
        "left out of the backup: the phones' secret and links (the table makes a new secret)",
        "left out of the backup: 1 game that is not finished (a backup brings finished games only)"]
    assert [say(phrase, "it") for phrase in contents.replaces[5:]] == [
        "lasciati fuori dal backup: il segreto e i link dei telefoni (il tavolo crea un segreto nuovo)",
        "lasciata fuori dal backup: 1 partita non finita (un backup riporta solo partite finite)"]
    playing = in_play(path)
    backup.stage(data, config, Running(), "staff", ())
    staged_files = backup.read((tmp_path / "backups" / backup.STAGED).read_bytes())[1]
    assert sorted(staged_files) == ["config.toml", f"journal/{finished}", "journal/staff.pin"]  # the start replays none
    backup.starting(config)
    journal = tmp_path / "journal"
    assert games(path) == sorted([finished, f"{playing}.jsonl"]) and not (journal / stranger).exists()
    assert not any((journal / name).exists() for name in PHONES)
    for _ in range(2):  # every later start too
        session = Session.resume(Rules(), journal)
        assert session.id not in (playing, "zzzz") and session.record.moves == 0
        session.close()
    ended = next(game for game in history(journal) if game["id"] == playing)
    assert ended["over"] is False and ended["moves"] == 1  # in the history, unfinished, as End game leaves it


def test_a_staged_restore_is_applied_at_the_start_with_the_state_before_kept_as_the_last_good(tmp_path):
    path, before, changed = staged(tmp_path)
    assert state(path) == changed  # nothing replaced until the start
    config, restoring = backup.starting(load_config(path))
    assert restoring is not None and restoring.starts == 1 and restoring.by == "staff"
    assert restoring.reached == ("192.0.2.7",)  # the staff page must answer there again, as after a change
    assert restoring.keys == ("timer.length_s", "staff.pin", "journal")
    assert state(path) == before and config.timer.length_s == 0
    assert (tmp_path / "journal" / SESSIONS_FILE).exists() and (tmp_path / "journal" / "fleet.pending").exists()
    last_good = backup.read((tmp_path / "backups" / backup.LAST_GOOD).read_bytes(), whole=True)[1]
    assert last_good["config.toml"] == changed["config"] and last_good["journal/staff.pin"] == changed["pin"]
    assert last_good["journal/companion.secret"] == SECRET and f"journal/{changed['in_play']}.jsonl" in last_good


def test_a_restore_whose_start_dies_before_it_is_healthy_is_rolled_back_at_the_next(tmp_path):
    path, _, changed = staged(tmp_path)
    backup.starting(load_config(path))
    config, restoring = backup.starting(load_config(path))  # the first start never kept it
    assert restoring is None and state(path) == changed and config.timer.length_s == 90
    note = trial.rolled_back(backup.trial_path(config))
    assert note is not None and note["keys"] == ["timer.length_s", "staff.pin", "journal"] and note["why"] == {
        "en": "the table stopped before it was healthy on the restored backup",
        "it": "il tavolo si è fermato prima di funzionare bene con il backup ripristinato"}
    assert backup.pending(config) is None and sorted(p.name for p in (tmp_path / "backups").iterdir()) == [
        "restore.rolled-back"]
    assert backup.starting(config) == (config, None)  # nothing left to roll back


@pytest.mark.parametrize("ends", ["kept", "killed"])
def test_the_settings_a_restore_brings_are_its_trial_alone_and_the_starts_after_it_try_nothing_again(tmp_path, ends):
    """Issue 58, the container's restore: the start that applied a restore also took the file
    before it for a hand edit on trial, which no watch kept, so a second restore was refused and
    the start after rolled the restored settings back."""
    from pi_table.daemon.run import starting

    path, before, changed = staged(tmp_path)
    trial.beside(path, trial.GOOD).write_text(STAFF_CONFIG)  # the 90 s timer was an edit by hand
    config, hand = starting(path)  # as the service starts: its checks first, the journal's restore in the daemon
    assert hand is not None and hand.keys == ("timer.length_s",)
    config, restoring = backup.starting(config)
    assert restoring is not None and trial.pending_trial(path) is None
    assert trial.beside(path, trial.GOOD).read_bytes() == path.read_bytes() == before["config"]
    if ends == "kept":
        backup.keep(config)
    else:  # the start died before it was healthy: the next puts the state before the restore back
        assert backup.starting(load_config(path))[1] is None
    config, again = starting(path)
    assert again is None and trial.pending_trial(path) is None and trial.rolled_back(path) is None
    assert path.read_bytes() == (before if ends == "kept" else changed)["config"]
    assert trial.beside(path, trial.GOOD).read_bytes() == path.read_bytes()
    backup.stage(backup.make(config), config, Running(), "staff", ())  # a second restore is not refused


class Stopped:
    """What ``Restarts`` needs of a table to watch a restore: its configuration."""

    def __init__(self, config: Config) -> None:
        self.config, self.companion = config, None


def watched(tmp_path, answers, deadline_s: float = 10.0):
    """The restore's watch, as the daemon makes it, its checks answering ``answers`` a second apart
    (kept once healthy for a second of that clock: the tests' steady time, ``PI_TABLE_TRIAL_STEADY_S``)."""
    path, before, changed = staged(tmp_path)
    config, restoring = backup.starting(load_config(path))
    watch = Restarts(Stopped(config), None, deadline_s, restoring).watch  # type: ignore[arg-type]
    assert watch is not None
    clock, restarted, checks = Clock(100.0), [], iter(answers)

    def check() -> Health:
        clock.now += 1
        return next(checks)

    watch.check, watch.clock, watch.period_s, watch.restart = check, clock, 0, lambda: restarted.append(clock.now)
    return path, before, changed, watch, restarted


def test_a_restore_the_table_is_healthy_on_is_kept(tmp_path):
    path, before, _, watch, restarted = watched(
        tmp_path, [Health(Phrase.of("the phones' pages and the staff page are not open yet")), Health(), Health()])
    assert watch.steady_s == 1.0  # issue 58, 4: a restore, too, is kept only once the table stays healthy on it
    note = trial.beside(path, trial.ROLLED_BACK)  # a rollback of settings from before the restore
    note.write_text('{"at": 1.0, "keys": ["game.hold_s"], "by": "staff", "why": {"en": "not healthy"}}')
    watch.run()
    config = load_config(path)
    assert watch.outcome == "kept" and restarted == [] and backup.pending(config) is None
    assert trial.rolled_back(path) is None  # issue 50: the kept restore ends its headline too
    assert not (tmp_path / "backups").exists() or list((tmp_path / "backups").iterdir()) == []
    assert backup.starting(config) == (config, None) and state(path) == before


def test_a_restore_the_table_cannot_mend_is_rolled_back_by_the_restart_it_asks_for(tmp_path):
    why = Phrase.of("the phones' pages and the staff page cannot open: {why}", why="Address already in use")
    path, before, changed, watch, restarted = watched(tmp_path, [Health(why, final=True)])
    watch.run()
    assert watch.outcome == "rolled back" and restarted == [101.0] and state(path) == before  # at the next start
    config, restoring = backup.starting(load_config(path))
    assert restoring is None and state(path) == changed and config.timer.length_s == 90
    note = trial.rolled_back(backup.trial_path(config))
    assert note is not None and note["why"]["en"] == str(why)
    assert note["why"]["it"].startswith("le pagine per i telefoni e la pagina dello staff non si possono aprire")
    shown = trial.state(backup.trial_path(config), "it")
    assert shown["trial"] is None and shown["rolled_back"]["keys"] == ["timer.length_s", "staff.pin", "journal"]


def test_a_restore_not_healthy_by_the_deadline_is_rolled_back(tmp_path):
    waiting = Health(Phrase.of("the phones' pages and the staff page are not open yet"))
    path, _, changed, watch, restarted = watched(tmp_path, [waiting] * 20, deadline_s=5)
    watch.run()
    assert restarted == [105.0]
    config, _ = backup.starting(load_config(path))
    note = trial.rolled_back(backup.trial_path(config))
    assert note is not None and note["why"]["en"] == (
        "not healthy 5 s after the start: the phones' pages and the staff page are not open yet")
    assert state(path) == changed


def test_a_restore_and_a_change_of_settings_wait_for_each_other(tmp_path):
    path = table(tmp_path)
    data = backup.make(load_config(path))
    trial.change(path, {"timer.length_s": 90}, "staff")
    with pytest.raises(backup.BadBackup, match="a change of the settings waits to be proven after its restart"):
        backup.stage(data, load_config(path), Running(), "staff", ())
    trial.keep(path)
    backup.stage(data, load_config(path), Running(), "staff", ())
    with pytest.raises(backup.BadBackup, match="a restored backup is being tried: wait until it is kept"):
        backup.stage(data, load_config(path), Running(), "staff", ())
    restarts = Restarts(Stopped(load_config(path)), None, 10.0)  # type: ignore[arg-type]
    assert [str(p) for p in restarts.change({"timer.length_s": 30}, proven=False)] == [
        "a restored backup is being tried: change the settings once it is kept or rolled back"]


@pytest.mark.daemon
def test_a_table_restored_from_its_page_restarts_on_the_backup_and_keeps_it(tmp_path, capsys):
    from pi_table.daemon.run import Daemon

    path = table(tmp_path)
    before, data = state(path), backup.make(load_config(path))
    path.write_text(STAFF_CONFIG.replace("length_s = 0", "length_s = 90"))
    daemons = []

    def started() -> tuple[Daemon, threading.Thread]:
        daemon = service_daemon(path)
        daemon.start()
        runner = threading.Thread(target=daemon.run, daemon=True)
        runner.start()
        assert daemon.wait_for_phones()
        daemons.append((daemon, runner))
        return daemon, runner

    try:
        daemon, runner = started()
        nightly = daemon.nightly  # started with the table, once it is up
        assert nightly is not None and nightly._worker.thread is not None and nightly._worker.thread.is_alive()
        assert said(backup.check_upload(data, daemon))[1] == "the settings: timer.length_s change"
        assert backup.restore_upload(data, daemon) == []
        daemon.restart()  # as the staff page asks for it, once its answer is sent
        runner.join(timeout=5)
        assert daemon.restarting and not runner.is_alive()
        daemon.close()
        assert nightly.stopped.is_set()
        daemon, runner = started()
        after = state(path)
        assert daemon.config.timer.length_s == 0 and (after["config"], after["pin"]) == (before["config"], before["pin"])
        assert set(after["games"]) == {*before["games"], f"{daemon.session.id}.jsonl"}  # the game in play ended
        assert after["in_play"] == daemon.session.id and after["phones"][0] not in (None, SECRET)  # a new secret
        watch = daemon.restarts.watch
        assert watch is not None
        wait_for(lambda: watch.outcome == "kept", "the restore kept", timeout=20)  # set once keep() is done
        assert backup.pending(daemon.config) is None
        bad = tmp_path / "bad.tar.gz"
        bad.write_bytes(packed([regular("/etc/passwd")]))
        assert main(["restore", "--config", str(path), str(bad)]) == 1  # refused here, before the table is asked
        assert "has an absolute path" in capsys.readouterr().err
        assert main(["restore", "--config", str(path), str(bad.with_name("none.tar.gz"))]) == 1
        (tmp_path / "backups" / backup.UPLOAD).write_bytes(data)
        answer = daemon.answer({"command": "restore", "lang": "it"})  # as pi-table restore asks it
        assert answer["ok"] and answer["replaces"][1] == "le impostazioni: uguali a ora"
        assert not (tmp_path / "backups" / backup.UPLOAD).exists()
        runner.join(timeout=5)
        assert daemon.restarting
    finally:
        for daemon, runner in daemons:
            daemon.stop()
            runner.join(timeout=5)
            daemon.close()


# --- the commands ---------------------------------------------------------------------------------


def test_the_commands_back_up_a_table_and_restore_it_while_it_is_stopped(tmp_path, capsys):
    path = table(tmp_path)
    before, saved = state(path), tmp_path / "saved.tar.gz"
    assert main(["backup", "--config", str(path), "-o", str(saved)]) == 0
    out = capsys.readouterr().out
    assert saved.stat().st_mode & 0o777 == 0o600 and "so keep it private" in out and "secret" not in out
    path.write_text(STAFF_CONFIG.replace("length_s = 0", "length_s = 90"))
    assert main(["restore", "--config", str(path), str(saved)]) == 0
    out = capsys.readouterr().out
    assert "the settings: timer.length_s change" in out and "no table is running: it is restored when the table " \
        "next starts" in out
    _, restoring = backup.starting(load_config(path))
    assert restoring is not None and restoring.by == "pi-table restore" and state(path) == restored(before, before)
    (tmp_path / "bad.tar.gz").write_bytes(b"no backup")
    assert main(["restore", "--config", str(path), str(tmp_path / "bad.tar.gz")]) == 1
    assert "the backup is not a .tar.gz file" in capsys.readouterr().err


# --- the nightly backups --------------------------------------------------------------------------


def local(day: int, hour: int, second: int = 0) -> float:
    return time.mktime((2024, 5, day, hour, 0, second, 0, 0, -1))


def test_a_backup_a_night_at_the_quiet_hour_or_at_the_first_chance_after(tmp_path):
    config = load_config(table(tmp_path))
    clock = Clock(local(1, 10))
    nightly = backup.Nightly(config, clock=clock)
    first = nightly.tick()  # none was made since the last quiet hour: made at once
    assert first is not None and first == tmp_path / "backups" / "nightly-20240501-100000.tar.gz"
    assert first.stat().st_mode & 0o777 == 0o600 and backup.read(first.read_bytes())[1]
    assert nightly.tick() is None
    clock.now = local(2, 3)
    assert nightly.tick() is None  # the night's comes at 4
    clock.now = local(2, 4, 30)
    second = nightly.tick()
    assert second is not None and second.name == "nightly-20240502-040030.tar.gz"
    assert list(backup.kept(tmp_path / "backups")) == [second, first]


def test_the_nightly_backups_are_pruned_by_count_and_by_size(tmp_path):
    config = load_config(table(tmp_path))
    clock = Clock(100.0)
    nightly = backup.Nightly(config, clock=clock, keep=3)
    for day in range(1, 7):
        clock.now = local(day, 5)
        assert nightly.tick() is not None
    folder = tmp_path / "backups"
    assert [path.name[8:16] for path in backup.kept(folder)] == ["20240506", "20240505", "20240504"]
    size = backup.kept(folder)[0].stat().st_size
    nightly.most = 2 * size + size // 2
    clock.now = local(7, 5)
    nightly.tick()
    assert [path.name[8:16] for path in backup.kept(folder)] == ["20240507", "20240506"]
    nightly.most = 1  # the newest stays, whatever its size
    clock.now = local(8, 5)
    nightly.tick()
    assert [path.name[8:16] for path in backup.kept(folder)] == ["20240508"]


# --- as the service runs --------------------------------------------------------------------------


@pytest.mark.daemon
def test_the_service_gives_the_staff_no_key_and_a_restored_game_never_comes_back(tmp_path):
    """As the service runs (``pi-table run`` under the fake systemd, every start-up check on):
    the staff's download holds neither the game in play's key nor the phones' secret; an older
    backup that holds both is restored without them, the game in play ends, and no later start
    resumes the backup's game (issue 37, items 3 and 11)."""
    service = StaffService(tmp_path)
    journal = tmp_path / "journal"
    try:
        service.start()
        staff = service.staff(owner=True)  # a backup and a restore are the owner's
        playing = service.status()["game_id"]
        key = json.loads((journal / f"{playing}.jsonl").read_text().splitlines()[0])["key"]
        secret = (journal / "companion.secret").read_bytes()
        _, files = backup.read(download(staff, "/staff/api/backup"))
        assert not any(key.encode() in data or secret in data for data in files.values())
        assert sorted(files) == ["config.toml", "journal/staff.pin"]
        older = packed([regular("config.toml", service.config.read_bytes()),
                        regular("journal/zzzz.jsonl", (journal / f"{playing}.jsonl").read_bytes()),
                        regular("journal/companion.secret", b"B" * 32)])
        status, answer = upload(staff, "/staff/api/restore?check", older)
        assert status == 200 and answer["replaces"][4:] == [
            GAME_ENDS, "left out of the backup: the phones' secret and links (the table makes a new secret)",
            "left out of the backup: 1 game that is not finished (a backup brings finished games only)"]
        status, answer = upload(staff, "/staff/api/restore", older)
        assert status == 200 and answer["ok"] and answer["restarting"]
        assert answer["said"] == ("Restored: the table restarts to try it, and deals a new game: the game in play "
                                  "has ended.")  # it said "resumes its game" below "the game in play ends"
        assert service.exited() == EXIT_RESTART
        service.start()
        dealt = service.status()["game_id"]
        assert dealt != playing and not (journal / "zzzz.jsonl").exists()
        assert (journal / "companion.secret").read_bytes() not in (secret, b"B" * 32)  # a new secret
        staff = service.staff()
        wait_for(lambda: backup.pending(load_config(service.config)) is None, "the restore kept", timeout=30)
        ended = next(game for game in history(journal) if game["id"] == playing)
        assert ended["over"] is False  # in the history, as End game leaves a game
        assert staff.call("POST", "/staff/api/restart") == (200, {"ok": True, "restarting": True})
        assert service.exited() == EXIT_RESTART
        service.start()
        assert service.status()["game_id"] == dealt  # and at every later start
    finally:
        service.close()


@pytest.mark.daemon
def test_a_staff_restart_before_a_restores_verdict_is_a_clean_stop_and_the_restore_stays_the_owners(
        tmp_path, monkeypatch):
    """Issue 74, 2: a Restart pressed a few seconds after the owner's restore counted as the death
    of its trial, and the next start rolled the restore back. An asked-for stop is clean: the next
    start tries the restore again (without applying it a second time), and it stays the owner's."""
    from pi_table.daemon.trial import STEADY_VARIABLE

    monkeypatch.setenv(STEADY_VARIABLE, "300")  # the Restart comes long before the restore could be kept
    service = StaffService(tmp_path)
    try:
        service.start()
        owner = service.staff(owner=True)
        data = download(owner, "/staff/api/backup")
        service.config.write_text(service.config.read_text().replace("length_s = 0", "length_s = 90"))
        trial.beside(service.config, trial.GOOD).write_text(service.config.read_text())
        status, answer = upload(owner, "/staff/api/restore", data)
        assert status == 200 and answer["restarting"]
        assert service.exited() == EXIT_RESTART
        service.start()
        played = service.status()["game_id"]
        assert service.staff().call("POST", "/staff/api/restart") == (200, {"ok": True, "restarting": True})
        assert service.exited() == EXIT_RESTART
        config = load_config(service.config)
        restoring = backup.pending(config)
        assert restoring is not None and restoring.by == "owner"
        assert trial.rolled_back(backup.trial_path(config)) is None and config.timer.length_s == 0
        monkeypatch.setenv(STEADY_VARIABLE, "1")
        service.start()
        assert service.status()["game_id"] == played  # not applied again: the game dealt after it goes on
        wait_for(lambda: backup.pending(load_config(service.config)) is None, "the restore's verdict", timeout=30)
        assert trial.rolled_back(backup.trial_path(config)) is None
        assert load_config(service.config).timer.length_s == 0
    finally:
        service.close()


@pytest.mark.parametrize("stored", [
    "scrypt$16384$8$20000$" + "00" * 16 + "$" + "11" * 32,  # p = 20000: a check would hold a core for an hour
    "scrypt$1048576$64$1$" + "00" * 16 + "$" + "11" * 32,  # 8 GiB of memory a check
    "plain text, not a hash",
])
def test_a_backup_whose_pin_asks_for_more_than_a_check_is_given_is_refused_before_it_is_staged(tmp_path, stored):
    """Issue 37: a restored staff.pin with scrypt's p = 20000 held the one check's turn for about
    an hour of the processor. The restore's check bounds it as the staff page does (auth.well_formed)."""
    data, config = good(tmp_path)
    manifest, files = backup.read(data)
    files["journal/staff.pin"] = stored.encode()
    crafted = backup._packed(manifest, files, time.time())
    with pytest.raises(backup.BadBackup, match="the backup's staff PIN is not a hash this table checks") as refused:
        backup.stage(crafted, config, Running(), "staff", ())
    assert "11" * 32 not in str(refused.value)
    assert not (tmp_path / "backups").exists()


def test_a_change_of_settings_and_its_check_say_the_file_they_could_not_write_or_read(tmp_path, monkeypatch):
    """``Restarts.change`` and ``problems`` read the settings file one way: an unknown key, and the
    file's own error (an SD card's, here), said as each met it."""
    import errno

    from pi_table.config import trial as config_trial
    from pi_table.config import writing

    def failing(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    path = table(tmp_path)
    restarts = Restarts(Stopped(load_config(path)), None, 10.0)  # type: ignore[arg-type]
    unknown = [f"{path}: unknown key sound.loudness: expected one of pi-table check-config --defaults"]
    assert [str(p) for p in restarts.problems({"sound.loudness": 3})] == unknown
    assert [str(p) for p in restarts.change({"sound.loudness": 3}, proven=True)] == unknown
    monkeypatch.setattr(writing, "changed_text", failing)
    monkeypatch.setattr(config_trial, "change_proven", failing)
    assert [str(p) for p in restarts.problems({"timer.length_s": 30})] == [f"{path}: cannot be read: Input/output error"]
    assert [str(p) for p in restarts.change({"timer.length_s": 30}, proven=True)] == [
        f"{path}: cannot be written: Input/output error"]
