"""A backup that leaves the SD card is sealed with the owner's backup key (issue 75): the copy on a
USB stick (a folder stands for it, written and read back by the stick act's own functions) and at
an SFTP place (``rclone serve sftp`` on the loopback, as tests/test_offsite.py runs it) is no backup
anyone can read, and comes back with the key; a wrong key, a copy cut short or changed is refused
in words of a closed list, and nothing is applied."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import time
import zlib
from pathlib import Path

import pytest

from pi_table.config import load_config
from pi_table.daemon import backup, offsite, sealed
from pi_table.release import stick
from pi_table.ui.i18n import say

from helpers import require_tools
from helpers_machine import PLACE_PASSWORD, Served, place_address
from helpers_staff import STAFF_CONFIG

SETTING = "# the café likes a slow game"  # a line of the settings (STAFF_CONFIG), which every backup holds
OTHER_KEY = "0000-1111-2222-3333-4444"


def night(config, copies=(offsite.send,)) -> backup.Nightly:
    """The nightly backup due, at 5 in the morning, and its ``copies`` off the card."""
    return backup.Nightly(config, clock=lambda: time.mktime((2026, 11, 27, 5, 0, 0, 0, 0, -1)), copies=copies)


def table(folder: Path, key: bool = True):
    """A table in ``folder`` with its settings, and its backup key made (shown once: returned)."""
    require_tools("rclone")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(STAFF_CONFIG)
    config = load_config(folder / "config.toml")
    return config, backup.new_key(config) if key else None


def not_readable(copy: bytes, config) -> None:
    """``copy`` is no backup anyone without the key reads: not gzip, the settings' text nowhere in
    it, and refused as a backup without the key (the plain backup of ``config`` holds that text)."""
    assert SETTING.encode() in zlib.decompress(backup.make(config), wbits=31)
    assert sealed.is_sealed(copy) and not copy.startswith(b"\x1f\x8b")
    assert SETTING.encode() not in copy
    with pytest.raises((OSError, EOFError, zlib.error)):
        gzip.decompress(copy)
    with pytest.raises(backup.BadBackup):
        backup.read(copy)


def restores(config, data: bytes, key: str | None):
    """``data`` restored on the table ``config`` with ``key`` (its contents), or the refusal's words."""
    return backup.check(data, config, key=None if key is None else sealed.key_given(key))


def test_the_stick_copy_is_sealed_and_restores_on_a_new_card_with_the_key_alone(tmp_path):
    config, key = table(tmp_path / "old")
    made = night(config, copies=()).tick()
    assert made is not None and sealed.leaves(made)
    on_stick = tmp_path / "stick"
    on_stick.mkdir()
    stick.copy_to(made, None, on_stick)  # the helper's stick act, the folder for the stick's file system
    copy = (on_stick / stick.FOLDER / made.name).read_bytes()
    assert copy == made.read_bytes()
    not_readable(copy, config)

    fresh, _ = table(tmp_path / "fresh", key=False)
    backup.folder(fresh).mkdir(mode=0o700)
    stick.copy_from(on_stick, made.name, backup.folder(fresh), 0, 0)  # the set-up's copy from the stick
    data = backup.nightly_data(fresh, made.name)
    with pytest.raises(backup.BadBackup) as refused:
        restores(fresh, data, None)
    assert say(refused.value.phrase, "en").startswith("the backup is sealed with the owner's backup key")
    contents = restores(fresh, data, key)
    assert contents.files[backup.CONFIG] == STAFF_CONFIG.encode()


def test_the_sftp_place_gets_the_sealed_copy_and_it_comes_back_with_the_key(tmp_path):
    server = Served("sftp", tmp_path / "served", tmp_path / "server-home")
    try:
        config, key = table(tmp_path / "old")
        offsite.save(config, offsite.parse(place_address("sftp", server.port), PLACE_PASSWORD))
        made = night(config).tick()
        assert made is not None and offsite.last(config)["ok"] is True
        copy = (server.folder / "pi-table" / "bar-uno" / made.name).read_bytes()
    finally:
        server.close()
    assert copy == made.read_bytes()
    not_readable(copy, config)
    fresh, _ = table(tmp_path / "fresh", key=False)
    assert restores(fresh, copy, key).files[backup.CONFIG] == STAFF_CONFIG.encode()
    assert restores(fresh, copy, key.lower().replace("-", " ")).files  # as typed: any case, spaces


def test_no_copy_leaves_the_card_unsealed(tmp_path, monkeypatch):
    """No key kept: the nightly backup stays on the card, and the place is told why it got nothing."""
    told = []
    monkeypatch.setattr(backup, "failed", lambda where, why: told.append((where, say(why, "en"))))
    config, _ = table(tmp_path, key=False)
    offsite.save(config, offsite.parse(place_address("sftp", 1), PLACE_PASSWORD))
    made = night(config).tick()
    assert made is not None and made.read_bytes().startswith(b"\x1f\x8b") and not sealed.leaves(made)
    last = offsite.last(config)
    assert last["ok"] is False and last["why"]["en"] == say(sealed.NOT_SEALED, "en")
    assert last["why"]["it"] != last["why"]["en"]
    assert told == [("offsite", say(sealed.NOT_SEALED, "en"))]


@pytest.fixture
def sealed_copy(tmp_path):
    """A sealed backup of more than two blocks (64 KiB each: the settings given a long comment that
    does not pack), its key, and a fresh table to restore it on."""
    config, key = table(tmp_path / "old")
    noise = base64.b64encode(os.urandom(150_000)).decode()
    config.source.write_text(STAFF_CONFIG + "".join(f"# {noise[at:at + 76]}\n" for at in range(0, len(noise), 76)))
    data = sealed.seal(backup.make(load_config(config.source)), sealed.key_given(key))
    assert len(data) > 2 * 65536
    fresh, _ = table(tmp_path / "fresh")
    return data, key, fresh


def refused(fresh, data: bytes, key: str) -> str:
    """The restore of ``data`` with ``key`` on ``fresh``, refused: its words; nothing staged or applied."""
    before = {path.name: path.read_bytes() for path in fresh.paths.journal_dir.iterdir()}
    settings = fresh.source.read_bytes()
    with pytest.raises(backup.BadBackup) as refusal:
        backup.stage(data, fresh, backup.Running((str(fresh.paths.journal_dir),), None), "set-up", (),
                     key=sealed.key_given(key))
    assert backup.pending(fresh) is None and not (backup.folder(fresh) / backup.STAGED).exists()
    assert {path.name: path.read_bytes() for path in fresh.paths.journal_dir.iterdir()} == before
    assert fresh.source.read_bytes() == settings
    words = {lang: say(refusal.value.phrase, lang) for lang in ("en", "it")}
    assert words["it"] != words["en"] and SETTING not in words["en"]
    return words["en"]


def test_a_wrong_key_is_refused_and_changes_nothing(sealed_copy):
    data, _, fresh = sealed_copy
    assert refused(fresh, data, OTHER_KEY) == say(sealed.WRONG_KEY, "en")
    with pytest.raises(sealed.Unopened) as mistyped:
        sealed.key_given("ABCD-EFGH")
    assert "5 groups of 4 letters and digits" in say(mistyped.value.phrase, "en")


CUT_SHORT = "the backup is cut short: expected a whole .tar.gz (was the download finished?)"
BLOCK = 65536 + 16  # a block of rclone's crypt, and its seal


@pytest.mark.parametrize(("cut", "words"), [
    (100, sealed.WRONG_KEY),  # in the first block: the one sentence for another key or a copy changed or cut
    (32 + BLOCK + 1000, sealed.DAMAGED),  # in a later block
    (32 + BLOCK, CUT_SHORT),  # at a block's edge: the backup inside tells it (its gzip has no end)
    (20, sealed.DAMAGED)])  # in the seal's header
def test_a_copy_cut_short_is_refused_and_changes_nothing(sealed_copy, cut, words):
    data, key, fresh = sealed_copy
    assert refused(fresh, data[:cut], key) == say(words, "en")


@pytest.mark.parametrize("at", [40, 32 + BLOCK + 500, -10])
def test_a_changed_copy_is_refused_and_changes_nothing(sealed_copy, at):
    """A byte changed in the first block (where it cannot be told from another key), a later one, the last."""
    data, key, fresh = sealed_copy
    changed = bytearray(data)
    changed[at] ^= 0x01
    words = refused(fresh, bytes(changed), key)
    assert words == say(sealed.WRONG_KEY if at == 40 else sealed.DAMAGED, "en")
    assert backup.check(data, fresh, key=sealed.key_given(key)).files  # the copy as made opens


def test_a_new_key_seals_the_nightly_backups_the_card_keeps_and_the_old_ones_need_the_old_key(tmp_path):
    config, first = table(tmp_path)
    made = night(config, copies=()).tick()
    assert made is not None
    old = made.read_bytes()
    second = backup.new_key(config)
    assert second != first and sealed.kept_key(config) == sealed.key_given(second)
    assert made.read_bytes() != old and backup.check(made.read_bytes(), config).files  # the table reads its own
    assert backup.check(old, config, key=sealed.key_given(first)).files  # a copy sealed before: its key
    with pytest.raises(backup.BadBackup):
        backup.check(old, config)


def test_the_stick_is_not_asked_for_a_backup_that_is_not_sealed(tmp_path, monkeypatch):
    """The root helper copies the card's newest backup as it is: without a key, it is not asked."""
    from types import SimpleNamespace

    from pi_table.daemon.run import Daemon

    asked, told = [], []
    monkeypatch.setattr(backup, "failed", lambda where, why: told.append((where, say(why, "en"))))
    helper = SimpleNamespace(helper_missing=lambda: None, ask=lambda act, **args: asked.append(act))
    config, _ = table(tmp_path, key=False)
    made = night(config, copies=(lambda config, made: Daemon._to_stick(SimpleNamespace(helper=helper), config, made),
                                 )).tick()
    assert made is not None and asked == [] and told == [("stick", say(sealed.NOT_SEALED, "en"))]
    backup.new_key(config)  # the key made: the card's backup sealed, and the next one asked for
    Daemon._to_stick(SimpleNamespace(helper=helper), config, made)
    assert asked == ["backup-to-stick"]


def test_the_owner_makes_a_backup_key_on_the_staff_page_shown_once_and_the_nights_sealed_with_it(tmp_path):
    """A table set up before there were keys (or whose owner lost theirs): the owner's act alone,
    in the section of the copies off the SD card."""
    from helpers_tables import StaffService

    require_tools("rclone")
    service = StaffService(tmp_path)
    try:
        service.start()
        config = load_config(service.config)
        made = night(config, copies=()).tick()
        assert made is not None and not sealed.leaves(made)
        staff, owner = service.staff(), service.staff(owner=True)
        assert owner.call("GET", "/staff/api/offsite")[1]["backup_key"] is False
        assert staff.call("POST", "/staff/api/offsite/backup-key")[0] == 403
        status, answer = owner.call("POST", "/staff/api/offsite/backup-key")
        assert status == 200 and re.fullmatch(r"[0-9A-Z]{4}(-[0-9A-Z]{4}){4}", answer["backup_key"]), answer
        assert sealed.kept_key(config) == sealed.key_given(answer["backup_key"])
        assert sealed.leaves(made) and backup.check(made.read_bytes(), config,
                                                    key=sealed.key_given(answer["backup_key"])).files
        shown = owner.call("GET", "/staff/api/offsite")[1]
        assert shown["backup_key"] is True and answer["backup_key"] not in json.dumps(shown)  # shown that once
        assert answer["backup_key"] not in json.dumps(owner.call("GET", "/staff/api/owner")[1])
    finally:
        service.close()


def test_the_staff_pages_restore_asks_the_owners_key_for_a_copy_sealed_with_another_and_refuses_a_wrong_one(tmp_path):
    """A new card restoring the old table's copy from the phone (its own key made at its set-up):
    the table's key does not open it, so the page asks for the owner's backup key (``key`` in the
    answer: the field is shown); a wrong key, a mistyped one, a copy cut or changed are refused in
    the sealed copies' words, nothing staged; the right key typed restores it."""
    from helpers_staff import raw_post
    from helpers_tables import StaffService

    old, key = table(tmp_path / "old")
    copy = sealed.seal(backup.make(old), sealed.key_given(key))
    (tmp_path / "fresh").mkdir()
    service = StaffService(tmp_path / "fresh")
    try:
        service.start()
        fresh = load_config(service.config)
        backup.new_key(fresh)  # the new card's own, made at its set-up
        owner = service.staff(owner=True)

        def restore(data: bytes, typed: str | None = None, check: bool = True) -> tuple[int, dict]:
            return raw_post(owner.base, "/staff/api/restore" + ("?check" if check else ""), owner, data,
                            {} if typed is None else {"X-Backup-Key": typed})

        status, answer = restore(copy)
        assert (status, answer.get("key"), answer["error"]) == (400, True, say(sealed.NO_KEY, "en")), answer
        changed = bytearray(copy)
        changed[40] ^= 0x01
        for data, typed, words, check in ((copy, OTHER_KEY, sealed.WRONG_KEY, True),
                                          (copy, OTHER_KEY, sealed.WRONG_KEY, False),  # the restore itself too
                                          (copy[:20], key, sealed.DAMAGED, True),
                                          (bytes(changed), key, sealed.WRONG_KEY, False),
                                          (copy, "ABCD-EFGH", None, True)):
            status, answer = restore(data, typed, check)
            assert status == 400 and answer["key"] is True, answer
            assert answer["error"] == say(words, "en") if words else "5 groups of 4 letters" in answer["error"]
            assert backup.pending(fresh) is None and not (backup.folder(fresh) / backup.STAGED).exists()
        status, answer = restore(copy, key.lower())
        assert status == 200 and any("settings" in each for each in answer["replaces"]), answer
        status, answer = restore(copy, key, check=False)
        assert status == 200 and answer["restarting"] is True, answer
    finally:
        service.close()
