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

from helpers import program

USB_STICK = {"name": "sdb", "path": "/dev/sdb", "type": "disk", "tran": "usb", "rm": True, "hotplug": True,
             "fstype": None, "label": None, "mountpoint": None,
             "children": [{"name": "sdb1", "path": "/dev/sdb1", "type": "part", "tran": None, "rm": True,
                           "hotplug": True, "fstype": "vfat", "label": "CAFE", "mountpoint": None}]}
SD_CARD = {"name": "mmcblk0", "path": "/dev/mmcblk0", "type": "disk", "tran": None, "rm": False, "hotplug": False,
           "fstype": None, "label": None, "mountpoint": None,
           "children": [{"name": "mmcblk0p2", "path": "/dev/mmcblk0p2", "type": "part", "tran": None, "rm": False,
                         "hotplug": False, "fstype": "ext4", "label": "rootfs", "mountpoint": "/"}]}


def listed(*disks) -> str:
    return json.dumps({"blockdevices": list(disks)})


def changed(disk: dict, **part) -> dict:
    return {**disk, "children": [{**disk["children"][0], **part}]}


def test_the_stick_is_a_removable_usb_disks_partition_with_fat_exfat_or_ext4_not_mounted():
    assert stick.find(listed(SD_CARD, USB_STICK)) == stick.Stick("/dev/sdb1", "vfat", "CAFE")
    assert stick.find(listed(SD_CARD)) is None  # the SD card is never a stick
    assert stick.find(listed(changed(USB_STICK, fstype="ntfs"))) is None
    assert stick.find(listed(changed(USB_STICK, fstype="iso9660"))) is None
    assert stick.find(listed(changed(USB_STICK, mountpoint="/media/x"))) is None
    assert stick.find(listed({**USB_STICK, "tran": "sata", "rm": False, "hotplug": False})) is None
    assert stick.find(listed(changed(USB_STICK, path="/dev/../etc/shadow"))) is None
    assert stick.find(listed(changed(USB_STICK, fstype="exfat", label=None))) == stick.Stick("/dev/sdb1", "exfat", "")
    whole = {**USB_STICK, "fstype": "ext4", "children": None}  # a stick formatted without a partition table
    assert stick.find(listed(whole)) == stick.Stick("/dev/sdb", "ext4", "")
    older = changed({**USB_STICK, "rm": "1"}, rm="1")  # older lsblk: "1" and "0"
    assert stick.find(listed(older)) is not None
    with pytest.raises(ReleaseError):
        stick.find("not json")


def test_the_request_takes_nothing_from_the_table():
    assert requests.check({"act": "backup-to-stick"}) == {"act": "backup-to-stick"}
    for extra in ({"device": "/dev/sda"}, {"path": "/etc"}, {"bundle": "x.tar.gz"}):
        with pytest.raises(ReleaseError, match="takes nothing more"):
            requests.check({"act": "backup-to-stick", **extra})


class Machine:
    """A table's folders and the stick's stand-ins: ``lsblk`` answers ``disks``, ``mount`` and
    ``umount`` note their calls; ``mounted`` (the fixed mount folder) stands for the stick."""

    def __init__(self, folder: Path, *disks: dict, mount_fails: bool = False) -> None:
        self.folder = folder
        self.calls = folder / "calls"
        answer = folder / "lsblk.json"
        answer.write_text(listed(*disks))
        self.config = folder / "etc" / "config.toml"
        self.config.parent.mkdir()
        self.config.write_text('[paths]\njournal_dir = "/nonexistent"\n'.replace("/nonexistent", str(folder / "journal")))
        self.backups = folder / "backups"
        self.backups.mkdir()
        self.mounted = folder / "run" / "pi-table-stick"
        self.mounted.parent.mkdir()
        tools = stick.Tools(
            lsblk=(program(folder / "lsblk", f'echo "lsblk $*" >> {self.calls}\ncat {answer}\n'),),
            mount=(program(folder / "mount", f'echo "mount $*" >> {self.calls}\n'
                                             + ('echo "mount: wrong fs type" >&2; exit 32\n' if mount_fails else "")),),
            umount=(program(folder / "umount", f'echo "umount $*" >> {self.calls}\n'),),
            mount_dir=self.mounted)
        self.helper = helper.Helper(Releases(folder / "home"), Keyring(folder / "no-keys"), ServiceUser(None),
                                    config=self.config, stick=tools)

    def called(self) -> list[str]:
        return self.calls.read_text().splitlines() if self.calls.exists() else []

    def night(self, stamp: str, data: bytes = b"\x1f\x8b a backup") -> Path:
        path = self.backups / f"nightly-{stamp}.tar.gz"
        path.write_bytes(data)
        return path

    def note(self) -> dict | None:
        return self.helper.releases.note(act_note(stick.ACT))


def test_the_newest_backup_is_written_to_the_stick_mounted_safely_then_unmounted_and_noted(tmp_path):
    machine = Machine(tmp_path, SD_CARD, USB_STICK)
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
    machine = Machine(tmp_path, SD_CARD)
    machine.night("20261126-040000")
    machine.helper.releases.note_act({"act": stick.ACT, "outcome": "done", "at": 1.0, "backup": "x", "why": None})
    assert helper.to_stick(machine.helper, io.StringIO()) == 0
    assert [call.split()[0] for call in machine.called()] == ["lsblk"]
    assert machine.note()["at"] == 1.0  # the stick's last backup is still the one the page shows


def test_the_stick_keeps_a_week_of_nights(tmp_path):
    machine = Machine(tmp_path, USB_STICK)
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
    machine = Machine(tmp_path, USB_STICK)
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
    machine = Machine(tmp_path, USB_STICK)
    secret = tmp_path / "shadow"
    secret.write_text("root's secret")
    os.symlink(secret, machine.backups / "nightly-20261126-040000.tar.gz")
    assert helper.to_stick(machine.helper, io.StringIO()) == 1
    assert "root's secret" not in "".join(path.read_text() for path in machine.mounted.rglob("*") if path.is_file())
    assert machine.note()["outcome"] == "failed"


def test_a_mount_that_fails_is_noted_with_its_words(tmp_path):
    machine = Machine(tmp_path, USB_STICK, mount_fails=True)
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
    from pi_table.daemon.backup import Nightly
    from pi_table.daemon.offsite_desk import OffsiteDesk
    from pi_table.daemon.root_helper import RootHelper
    from pi_table.daemon.run import Daemon

    machine = Machine(tmp_path, SD_CARD, USB_STICK)
    config_path = tmp_path / "table.toml"
    config_path.write_text(f'[paths]\njournal_dir = "{tmp_path / "journal"}"\n')
    config = load_config(config_path)
    spool = tmp_path / "spool"
    spool.mkdir()
    root = RootHelper(spool=spool)
    root.home, root.helper_missing = machine.helper.releases.home, lambda: None
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
