"""The nightly backup written to a USB stick (issue 62): an SD card is what dies in a Pi, and a
stick left plugged in the table is where its backup survives it (docs/cafe/backup.md).

The table asks the root helper ``{"act": "backup-to-stick"}`` and nothing more: no device, no
path, no name comes from the table. The helper starts ``pi-table-stick.service`` (a sandbox of
its own: it may mount, and touch block devices, which the helper's unit may not), which runs
``helper stick``: it finds the stick itself (``find``: a removable USB disk's partition holding
FAT, exFAT or ext4, not mounted, from ``lsblk --json``), mounts it with nosuid,nodev,noexec under
the fixed ``MOUNT_DIR``, copies the newest nightly backup of the fixed backups folder (a regular
file of the service's user, its name a nightly backup's) into ``pi-table-backups/`` on it
(opened without following a link: a stick is a stranger's), keeps the newest ``KEEP`` there,
syncs, unmounts and notes how it went (``act_note("backup-to-stick")``) for the staff page.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.phrase import N_
from .layout import ReleaseError

ACT = "backup-to-stick"
UNIT = "pi-table-stick.service"
MOUNT_DIR = Path("/run/pi-table-stick")
FOLDER = "pi-table-backups"  # on the stick
FILESYSTEMS = {"vfat": "vfat", "exfat": "exfat", "ext4": "ext4"}
NIGHTLY = re.compile(r"nightly-\d{8}-\d{6}\.tar\.gz")  # daemon.backup.NIGHTLY, which this layer may not import
KEEP = 7
MOST_BYTES = 256 << 20  # the nightly backups' whole room on the SD card (daemon.backup.NIGHTLY_MOST)
TOOL_S = 60.0
DEVICE = re.compile(r"/dev/[A-Za-z0-9._-]{1,60}")
LABEL_MOST = 60


@dataclass(frozen=True, slots=True)
class Stick:
    """A partition found on a removable USB disk: its device (``/dev/...``), file system and label."""

    device: str
    fstype: str
    label: str


@dataclass(frozen=True)
class Tools:
    """The programs the act runs (stand-ins in tests), and where it mounts the stick."""

    lsblk: Sequence[str] = ("lsblk",)
    mount: Sequence[str] = ("mount",)
    umount: Sequence[str] = ("umount",)
    mount_dir: Path = MOUNT_DIR


def find(listed: str) -> Stick | None:
    """The first partition (or whole disk) of a removable USB disk with a file system a backup may
    go on, not mounted, from ``lsblk --json --output-all``'s text; None when there is none."""
    try:
        devices = json.loads(listed).get("blockdevices", [])
    except (ValueError, AttributeError, RecursionError):
        raise ReleaseError(N_("lsblk's answer cannot be read: expected its JSON")) from None
    for disk in devices if isinstance(devices, list) else []:
        if not isinstance(disk, dict) or disk.get("type") != "disk" or disk.get("tran") != "usb" \
                or not (_true(disk.get("rm")) or _true(disk.get("hotplug"))):
            continue
        children = disk.get("children")
        for part in [*(children if isinstance(children, list) else []), disk]:
            found = _usable(part)
            if found is not None:
                return found
    return None


def _true(value: object) -> bool:
    return value is True or value in ("1", 1)  # lsblk's JSON: booleans, or "1" and "0" in older versions


def _usable(part: object) -> Stick | None:
    if not isinstance(part, dict) or part.get("fstype") not in FILESYSTEMS:
        return None
    device, points = part.get("path"), part.get("mountpoints", [part.get("mountpoint")])
    if not isinstance(device, str) or not DEVICE.fullmatch(device) or any(points or ()):
        return None
    label = part.get("label")
    return Stick(device, FILESYSTEMS[part["fstype"]], label[:LABEL_MOST] if isinstance(label, str) else "")


def newest(backups: Path, owner: int | None) -> Path | None:
    """The newest nightly backup in ``backups`` (the fixed folder), a regular file of the
    service's user (``owner``: its uid; None: anyone's, off a table); None when there is none."""
    try:
        names = sorted((entry.name for entry in os.scandir(backups) if NIGHTLY.fullmatch(entry.name)), reverse=True)
    except FileNotFoundError:
        return None
    return backups / names[0] if names else None


def copy_to(source: Path, owner: int | None, mounted: Path) -> None:
    """``source`` into ``mounted``'s backups folder, nothing followed: the source opened without
    following a link and checked a regular file of ``owner``'s; the stick's folder and file
    opened without following one (a stick's links point where its maker wanted); the newest
    ``KEEP`` kept there; every byte on the stick before this returns."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        read = os.open(source, flags)
    except OSError as e:
        raise ReleaseError(N_("the nightly backup {name} cannot be read ({error})"), name=source.name,
                           error=e.strerror or str(e)) from None
    try:
        seen = os.fstat(read)
        if not stat.S_ISREG(seen.st_mode) or (owner is not None and seen.st_uid != owner) or seen.st_size > MOST_BYTES:
            raise ReleaseError(N_("the nightly backup {name} is not a backup the table made: not copied"),
                               name=source.name)
        root = os.open(mounted, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            try:
                os.mkdir(FOLDER, 0o755, dir_fd=root)
            except FileExistsError:
                pass
            folder = os.open(FOLDER, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root)
        except OSError as e:
            os.close(root)
            raise ReleaseError(N_("the stick's folder {folder} cannot be written ({error})"), folder=FOLDER,
                               error=e.strerror or str(e)) from None
        os.close(root)
        try:
            _write(read, folder, source.name)
            _prune(folder)
            os.fsync(folder)
        finally:
            os.close(folder)
    finally:
        os.close(read)


def _write(read: int, folder: int, name: str) -> None:
    partial = f".{name}.partial"
    try:
        os.unlink(partial, dir_fd=folder)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise ReleaseError(N_("the stick cannot be written ({error})"), error=e.strerror or str(e)) from None
    try:
        out = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                      dir_fd=folder)
        try:
            while chunk := os.read(read, 1 << 20):
                os.write(out, chunk)
            os.fsync(out)
        finally:
            os.close(out)
        os.replace(partial, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError as e:
        raise ReleaseError(N_("the stick cannot be written ({error})"), error=e.strerror or str(e)) from None


def _prune(folder: int) -> None:
    names = sorted((name for name in os.listdir(folder) if NIGHTLY.fullmatch(name)), reverse=True)
    for name in names[KEEP:]:
        try:
            os.unlink(name, dir_fd=folder)
        except OSError:
            pass  # a stick's own file we cannot take: the next night tries again


def backup_to_stick(backups: Path, owner: int | None, tools: Tools = Tools()) -> dict[str, Any] | None:
    """The newest nightly backup written to the stick plugged in: how it went (``backup``, ``stick``:
    its label), or None when no stick is plugged in or no backup is kept yet. ReleaseError saying
    why it failed (the stick unmounted all the same)."""
    listed = _run([*tools.lsblk, "--json", "--output", "NAME,PATH,TYPE,TRAN,RM,HOTPLUG,FSTYPE,LABEL,MOUNTPOINT"])
    stick = find(listed)
    source = newest(backups, owner)
    if stick is None or source is None:
        return None
    tools.mount_dir.mkdir(mode=0o700, exist_ok=True)
    _run([*tools.mount, "-t", stick.fstype, "-o", "nosuid,nodev,noexec,noatime", "--", stick.device,
          str(tools.mount_dir)])
    try:
        copy_to(source, owner, tools.mount_dir)
        os.sync()
    finally:
        _run([*tools.umount, "--", str(tools.mount_dir)])
    return {"backup": source.name, "stick": stick.label or stick.device, "at": time.time()}


def _run(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TOOL_S, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        raise ReleaseError(N_("{program} cannot run ({error})"), program=Path(command[0]).name, error=str(e)) from None
    if done.returncode != 0:
        raise ReleaseError(N_("{program} failed: {error}"), program=Path(command[0]).name,
                           error=(done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:200])
    return done.stdout
