"""The nightly backup written to a USB stick (issue 62) by the root helper: the table asks
``backup-to-stick`` and nothing more; the helper's stick act finds the stick itself (lsblk), mounts
it nosuid,nodev,noexec under its fixed folder, copies the newest nightly backup, syncs, unmounts and
notes it. lsblk, mount and umount are stand-ins here, as systemctl and NetworkManager are in the
helper's other tests: the mount's folder stands for the stick's file system."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from pi_table.release import helper, requests, stick
from pi_table.release.desk import said
from pi_table.release.keys import Keyring
from pi_table.release.layout import ReleaseError, Releases, act_note
from pi_table.release.service_user import ServiceUser
from pi_table.sim.machine import USB_STICK, lsblk_listing, program

from helpers_machine import StickMachine, stick_holding

SD_CARD = {"name": "mmcblk0", "path": "/dev/mmcblk0", "type": "disk", "tran": None, "rm": False, "hotplug": False,
           "fstype": None, "label": None, "mountpoint": None,
           "children": [{"name": "mmcblk0p2", "path": "/dev/mmcblk0p2", "type": "part", "tran": None, "rm": False,
                         "hotplug": False, "fstype": "ext4", "label": "rootfs", "mountpoint": "/"}]}


def changed(disk: dict, **part) -> dict:
    return {**disk, "children": [{**disk["children"][0], **part}]}


def test_the_stick_is_a_removable_usb_disks_partition_with_fat_exfat_or_ext4_not_mounted():
    assert stick.find(lsblk_listing(SD_CARD, USB_STICK)) == stick.Stick("/dev/sdb1", "vfat", "CAFE")
    assert stick.find(lsblk_listing(SD_CARD)) is None  # the SD card is never a stick
    assert stick.find(lsblk_listing(changed(USB_STICK, fstype="ntfs"))) is None
    assert stick.find(lsblk_listing(changed(USB_STICK, fstype="iso9660"))) is None
    assert stick.find(lsblk_listing(changed(USB_STICK, mountpoint="/media/x"))) is None
    assert stick.find(lsblk_listing({**USB_STICK, "tran": "sata", "rm": False, "hotplug": False})) is None
    assert stick.find(lsblk_listing(changed(USB_STICK, path="/dev/../etc/shadow"))) is None
    assert stick.find(lsblk_listing(changed(USB_STICK, fstype="exfat", label=None))) == stick.Stick("/dev/sdb1", "exfat", "")
    whole = {**USB_STICK, "fstype": "ext4", "children": None}  # a stick formatted without a partition table
    assert stick.find(lsblk_listing(whole)) == stick.Stick("/dev/sdb", "ext4", "")
    older = changed({**USB_STICK, "rm": "1"}, rm="1")  # older lsblk: "1" and "0"
    assert stick.find(lsblk_listing(older)) is not None
    with pytest.raises(ReleaseError):
        stick.find("not json")


def test_the_request_takes_nothing_from_the_table():
    assert requests.check({"act": "backup-to-stick"}) == {"act": "backup-to-stick"}
    for extra in ({"device": "/dev/sda"}, {"path": "/etc"}, {"bundle": "x.tar.gz"}):
        with pytest.raises(ReleaseError, match="takes nothing more"):
            requests.check({"act": "backup-to-stick", **extra})


def test_the_newest_backup_is_written_to_the_stick_mounted_safely_then_unmounted_and_noted(tmp_path):
    machine = StickMachine(tmp_path, SD_CARD, USB_STICK)
    machine.night("20261125-040000", b"older")
    newest = machine.night("20261126-040000", b"newest")
    assert helper.to_stick(machine.helper, io.StringIO()) == 0
    mounted = str(machine.mounted)
    assert machine.called()[1:] == [f"mount -t vfat -o nosuid,nodev,noexec,noatime -- /dev/sdb1 {mounted}",
                                    f"umount -- {mounted}"]
    assert (machine.mounted / "pi-table-backups" / newest.name).read_bytes() == b"newest"
    assert [path.name for path in (machine.mounted / "pi-table-backups").iterdir()] == [newest.name]
    note = machine.note()
    assert note is not None and note["outcome"] == "done" and note["backup"] == newest.name and note["stick"] == "CAFE"


def test_no_stick_no_mount_and_the_last_note_stays(tmp_path):
    machine = StickMachine(tmp_path, SD_CARD)
    machine.night("20261126-040000")
    machine.helper.releases.note_act({"act": stick.ACT, "outcome": "done", "at": 1.0, "backup": "x", "why": None})
    assert helper.to_stick(machine.helper, io.StringIO()) == 0
    assert [call.split()[0] for call in machine.called()] == ["lsblk"]
    assert machine.note()["at"] == 1.0  # the stick's last backup is still the one the page shows


def test_the_stick_keeps_a_week_of_nights(tmp_path):
    machine = StickMachine(tmp_path, USB_STICK)
    on_stick = machine.mounted / "pi-table-backups"
    on_stick.mkdir(parents=True)
    for day in range(10, 20):
        (on_stick / f"nightly-202611{day}-040000.tar.gz").write_bytes(b"old")
    (on_stick / "photos.jpg").write_bytes(b"the owner's own")  # not ours: left alone
    machine.night("20261126-040000")
    assert helper.to_stick(machine.helper, io.StringIO()) == 0
    kept = sorted(path.name for path in on_stick.iterdir())
    assert kept == ["nightly-20261114-040000.tar.gz", *[f"nightly-202611{day}-040000.tar.gz" for day in range(15, 20)],
                    "nightly-20261126-040000.tar.gz", "photos.jpg"]


def test_a_link_on_the_strangers_stick_is_never_followed(tmp_path):
    """A stick's ``pi-table-backups`` that is a link (to the system's files) is refused, not written through."""
    machine = StickMachine(tmp_path, USB_STICK)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    machine.mounted.mkdir()
    os.symlink(elsewhere, machine.mounted / "pi-table-backups")
    machine.night("20261126-040000")
    assert helper.to_stick(machine.helper, io.StringIO()) == 1
    assert list(elsewhere.iterdir()) == []
    note = machine.note()
    assert note["outcome"] == "failed" and "pi-table-backups cannot be written" in said(note["why"])["en"]
    assert machine.called()[-1].startswith("umount")  # unmounted all the same


def test_a_backup_that_is_a_link_is_not_copied(tmp_path):
    """The backups folder is the service's: a nightly name that is a link (to root's files) is not read through."""
    machine = StickMachine(tmp_path, USB_STICK)
    secret = tmp_path / "shadow"
    secret.write_text("root's secret")
    os.symlink(secret, machine.backups / "nightly-20261126-040000.tar.gz")
    assert helper.to_stick(machine.helper, io.StringIO()) == 1
    assert "root's secret" not in "".join(path.read_text() for path in machine.mounted.rglob("*") if path.is_file())
    assert machine.note()["outcome"] == "failed"


def test_a_mount_that_fails_is_noted_with_its_words(tmp_path):
    machine = StickMachine(tmp_path, USB_STICK, mount_fails=True)
    machine.night("20261126-040000")
    assert helper.to_stick(machine.helper, io.StringIO()) == 1
    assert "mount failed: mount: wrong fs type" in said(machine.note()["why"])["en"]


def test_the_helper_starts_the_sticks_unit_when_asked(tmp_path):
    calls = tmp_path / "calls"
    systemctl = program(tmp_path / "systemctl", f'echo "systemctl $*" >> {calls}\n')
    spool = tmp_path / "spool"
    spool.mkdir()
    requests.write(spool, {"act": "backup-to-stick"})
    machine = helper.Helper(Releases(tmp_path / "home"), Keyring(tmp_path / "no-keys"), ServiceUser(None),
                            (systemctl,))
    assert helper.act(machine, spool, io.StringIO()) == 0
    assert calls.read_text().splitlines() == ["systemctl start --no-block pi-table-stick.service"]


def test_the_table_asks_after_its_night_and_its_page_shows_the_sticks_last_backup(tmp_path):
    """The whole way: the night's backup made, the table asks the helper (nothing but the act), the
    helper starts the stick's unit, whose act writes the backup and its note, which the page shows."""
    from types import SimpleNamespace

    from pi_table.config import load_config
    from pi_table.daemon import backup
    from pi_table.daemon.backup import Nightly
    from pi_table.daemon.offsite_desk import OffsiteDesk
    from pi_table.daemon.root_helper import Machine, RootHelper
    from pi_table.daemon.run import Daemon

    machine = StickMachine(tmp_path, SD_CARD, USB_STICK)
    config_path = tmp_path / "table.toml"
    config_path.write_text(f'[paths]\njournal_dir = "{tmp_path / "journal"}"\n')
    config = load_config(config_path)
    backup.new_key(config)  # the set-up's: the card's nightly backup is sealed, so it may leave
    spool = tmp_path / "spool"
    spool.mkdir()
    root = RootHelper(Machine(spool, machine.helper.releases.home, tmp_path / "keys", tmp_path / "reboot-required",
                              tmp_path / "mosquitto", 8883, stand_in=True))
    table = SimpleNamespace(helper=root)
    desk = OffsiteDesk(SimpleNamespace(config=config), root)
    made = Nightly(config, copies=(lambda config, made: Daemon._to_stick(table, config, made),)).tick()
    assert made is not None and made.parent == machine.backups
    assert json.loads((spool / requests.REQUEST).read_text()) == {"act": "backup-to-stick"}
    systemctl = program(tmp_path / "systemctl", "exit 0\n")
    assert helper.act(helper.Helper(machine.helper.releases, machine.helper.keyring, ServiceUser(None), (systemctl,)),
                      spool, io.StringIO()) == 0
    assert desk.offsite("it")["stick"] is None  # asked, not yet written
    assert helper.to_stick(machine.helper, io.StringIO()) == 0  # pi-table-stick.service's act
    shown = desk.offsite("it")["stick"]
    assert shown["ok"] is True and shown["backup"] == made.name and shown["stick"] == "CAFE" and shown["why"] is None


# --- the way back: a backup copied from the stick, for the set-up page to restore -------------------


def from_note(machine: StickMachine) -> dict | None:
    return machine.helper.releases.note(act_note(stick.FROM_ACT))


def test_the_request_from_the_stick_takes_one_backups_name_parsed_into_its_kind():
    for backup in ("newest", "nightly-20261126-040000.tar.gz"):
        assert requests.check({"act": "backup-from-stick", "backup": backup}) == {"act": "backup-from-stick",
                                                                                 "backup": backup}
    for backup in ("../../etc/shadow", "/dev/sda1", "nightly-20261126-040000.tar.gz/..", "pi-table-backups", "", 7,
                   None, "nightly-2026112-040000.tar.gz", "Newest"):
        with pytest.raises(ReleaseError, match="named newest or nightly-YYYYMMDD-HHMMSS.tar.gz"):
            requests.check({"act": "backup-from-stick", "backup": backup})
    for shape in ({}, {"backup": "newest", "path": "/etc"}, {"device": "/dev/sda"}):
        with pytest.raises(ReleaseError, match="takes backup"):
            requests.check({"act": "backup-from-stick", **shape})


def test_the_helper_starts_the_restore_unit_for_the_backup_asked(tmp_path):
    calls = tmp_path / "calls"
    systemctl = program(tmp_path / "systemctl", f'echo "systemctl $*" >> {calls}\n')
    spool = tmp_path / "spool"
    machine = helper.Helper(Releases(tmp_path / "home"), Keyring(tmp_path / "no-keys"), ServiceUser(None),
                            (systemctl,))
    for backup in ("newest", "nightly-20261126-040000.tar.gz"):
        requests.write(spool, {"act": "backup-from-stick", "backup": backup})
        assert helper.act(machine, spool, io.StringIO()) == 0
    assert calls.read_text().splitlines() == [
        "systemctl start --no-block pi-table-stick-restore@newest.service",
        "systemctl start --no-block pi-table-stick-restore@nightly-20261126-040000.tar.gz.service"]


def test_the_newest_backup_on_the_stick_is_copied_read_only_into_the_backups_folder_and_listed(tmp_path):
    machine = StickMachine(tmp_path, SD_CARD, USB_STICK)
    stick_holding(machine, **{"nightly-20261125-040000.tar.gz": b"older", "nightly-20261126-040000.tar.gz": b"newest",
                              "holiday.jpg": b"the owner's own"})
    assert helper.from_stick(machine.helper, "newest", io.StringIO()) == 0
    mounted = str(machine.mounted)
    assert machine.called()[1:] == [f"mount -t vfat -o ro,nosuid,nodev,noexec,noatime -- /dev/sdb1 {mounted}",
                                    f"umount -- {mounted}"]
    copied = machine.backups / "nightly-20261126-040000.tar.gz"
    assert copied.read_bytes() == b"newest" and stat_mode(copied) == 0o600
    assert sorted(path.name for path in machine.backups.iterdir()) == [copied.name]  # no partial file left
    note = from_note(machine)
    assert note["outcome"] == "done" and note["backup"] == copied.name and note["stick"] == "CAFE"
    assert note["listed"] == ["nightly-20261126-040000.tar.gz", "nightly-20261125-040000.tar.gz"]
    assert helper.from_stick(machine.helper, "nightly-20261125-040000.tar.gz", io.StringIO()) == 0  # one chosen
    assert (machine.backups / "nightly-20261125-040000.tar.gz").read_bytes() == b"older"
    assert helper.from_stick(machine.helper, "newest", io.StringIO()) == 0  # the same asked again: copied already
    assert copied.read_bytes() == b"newest" and from_note(machine)["outcome"] == "done"


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_no_stick_or_no_backup_on_it_is_noted_for_the_owner(tmp_path):
    machine = StickMachine(tmp_path, SD_CARD)
    assert helper.from_stick(machine.helper, "newest", io.StringIO()) == 1
    assert "no USB stick was found" in said(from_note(machine)["why"])["en"]
    (tmp_path / "other").mkdir()
    machine = StickMachine(tmp_path / "other", USB_STICK)
    stick_holding(machine, **{"photo.jpg": b"x"})
    assert helper.from_stick(machine.helper, "newest", io.StringIO()) == 1
    assert "the stick CAFE holds no backup" in said(from_note(machine)["why"])["en"]
    assert machine.called()[-1].startswith("umount")  # unmounted all the same
    assert list(machine.backups.iterdir()) == []


def test_a_strangers_stick_gives_no_link_no_device_no_oversize_file_and_takes_nothing_of_the_table(tmp_path,
                                                                                                 monkeypatch):
    """A stick is a stranger's: a backup that is a link (to root's files) is neither listed nor
    copied, nor is a file bigger than a backup may be; a name the table keeps already is not
    replaced; a backups folder on the stick that is a link is not read through."""
    machine = StickMachine(tmp_path, USB_STICK)
    secret = tmp_path / "shadow"
    secret.write_text("root's secret")
    on_stick = stick_holding(machine, **{"nightly-20261120-040000.tar.gz": b"x" * 2048})
    os.symlink(secret, on_stick / "nightly-20261126-040000.tar.gz")
    os.mkfifo(on_stick / "nightly-20261125-040000.tar.gz")
    assert helper.from_stick(machine.helper, "nightly-20261126-040000.tar.gz", io.StringIO()) == 1
    assert "holds no backup nightly-20261126-040000.tar.gz" in said(from_note(machine)["why"])["en"]
    assert helper.from_stick(machine.helper, "nightly-20261125-040000.tar.gz", io.StringIO()) == 1
    monkeypatch.setattr(stick, "BACKUP_MOST", 1024)
    assert helper.from_stick(machine.helper, "newest", io.StringIO()) == 1
    assert "is not a regular file of at most 0 MB" in said(from_note(machine)["why"])["en"]
    monkeypatch.undo()
    kept = machine.night("20261120-040000", b"the table's own")
    assert helper.from_stick(machine.helper, "newest", io.StringIO()) == 1
    assert "keeps another backup named nightly-20261120-040000.tar.gz: not replaced" in said(
        from_note(machine)["why"])["en"]
    assert kept.read_bytes() == b"the table's own"
    assert sorted(path.name for path in machine.backups.iterdir()) == [kept.name]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "nightly-20261127-040000.tar.gz").write_text("root's secret")
    for path in on_stick.iterdir():
        path.unlink()
    on_stick.rmdir()
    os.symlink(elsewhere, on_stick)
    assert helper.from_stick(machine.helper, "newest", io.StringIO()) == 1
    assert "pi-table-backups cannot be read" in said(from_note(machine)["why"])["en"]
    assert "root's secret" not in "".join(path.read_text() for path in machine.backups.iterdir())
