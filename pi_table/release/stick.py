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

The way back (a fresh SD card, its set-up page): the table asks ``{"act": "backup-from-stick",
"backup": NAME}``, NAME ``newest`` or a nightly backup's name (``chosen``), nothing else. The helper
starts ``pi-table-stick-restore@NAME.service``, whose ``helper stick --restore NAME`` finds the stick
as above, mounts it read-only, lists its backups (``on_stick``: regular files with a nightly name,
no link followed), copies the one asked for, if the listing holds it, into the table's backups
folder as a file of the service's user, no bigger than a backup may be (``copy_from``), unmounts
and notes the listing and the copy (``act_note("backup-from-stick")``). The table then restores
it as the staff page restores a nightly backup: the same checks as an upload, as a trial.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.phrase import N_
from ..files import read_json
from .layout import ReleaseError

ACT = "backup-to-stick"
UNIT = "pi-table-stick.service"
FROM_ACT = "backup-from-stick"
FROM_UNIT = "pi-table-stick-restore@{backup}.service"
NEWEST = "newest"
MOUNT_DIR = Path("/run/pi-table-stick")
FOLDER = "pi-table-backups"  # on the stick
FILESYSTEMS = {"vfat": "vfat", "exfat": "exfat", "ext4": "ext4"}
NIGHTLY = re.compile(r"nightly-\d{8}-\d{6}\.tar\.gz")  # daemon.backup.NIGHTLY, which this layer may not import
KEEP = 7
MOST_BYTES = 256 << 20  # the nightly backups' whole room on the SD card (daemon.backup.NIGHTLY_MOST)
BACKUP_MOST = 64 << 20  # one backup, as the table reads it to restore (daemon.backup.MOST_BYTES)
LISTED_MOST = 100  # backups a stick's listing names
TOO_BIG = N_("the backup {name} on the stick is not a regular file of at most {most} MB: not copied")
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
        devices = read_json(listed).get("blockdevices", [])
    except (ValueError, AttributeError):
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
    stick = _plugged_in(tools)
    source = newest(backups, owner)
    if stick is None or source is None:
        return None
    with _mounted(stick, tools, "nosuid,nodev,noexec,noatime"):
        copy_to(source, owner, tools.mount_dir)
        os.sync()
    return {"backup": source.name, "stick": stick.label or stick.device, "at": time.time()}


@contextmanager
def _mounted(stick: Stick, tools: Tools, options: str) -> Iterator[Path]:
    """``stick`` mounted with ``options`` under the fixed folder, unmounted whatever happens meanwhile."""
    tools.mount_dir.mkdir(mode=0o700, exist_ok=True)
    _run([*tools.mount, "-t", stick.fstype, "-o", options, "--", stick.device, str(tools.mount_dir)])
    try:
        yield tools.mount_dir
    finally:
        _run([*tools.umount, "--", str(tools.mount_dir)])


def _plugged_in(tools: Tools) -> Stick | None:
    return find(_run([*tools.lsblk, "--json", "--output", "NAME,PATH,TYPE,TRAN,RM,HOTPLUG,FSTYPE,LABEL,MOUNTPOINT"]))


# --- the way back: a backup from the stick --------------------------------------------------------


def chosen(backup: object) -> str:
    """The backup a request names, parsed into its kind: ``newest``, or a nightly backup's name
    (never a path); ReleaseError naming what was expected."""
    if backup == NEWEST or (isinstance(backup, str) and NIGHTLY.fullmatch(backup)):
        return str(backup)
    raise ReleaseError(N_("a backup on a stick is named newest or nightly-YYYYMMDD-HHMMSS.tar.gz, not {found}"),
                       found=repr(str(backup)[:60]))


def on_stick(mounted: Path) -> list[str]:
    """The nightly backups on the stick mounted at ``mounted``, newest first: regular files in its
    ``pi-table-backups`` folder with a nightly backup's name (the folder opened without following
    a link, a link or anything else in it left out); [] when it has no such folder."""
    root = os.open(mounted, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        folder = os.open(FOLDER, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root)
    except FileNotFoundError:
        return []
    except OSError as e:
        raise ReleaseError(N_("the stick's folder {folder} cannot be read ({error})"), folder=FOLDER,
                           error=e.strerror or str(e)) from None
    finally:
        os.close(root)
    try:
        names = [name for name in os.listdir(folder) if NIGHTLY.fullmatch(name)
                 and stat.S_ISREG(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)]
    finally:
        os.close(folder)
    return sorted(names, reverse=True)[:LISTED_MOST]


def copy_from(mounted: Path, name: str, backups: Path, uid: int, gid: int) -> None:
    """The backup ``name`` of the stick mounted at ``mounted`` copied into the table's ``backups``
    folder as a file of ``uid``'s (0600): nothing followed on the stick (a stranger's), a regular
    file of at most ``BACKUP_MOST`` bytes, written whole under a partial name and then linked into
    place, never over a backup the table keeps already (nothing of the table's is lost to a stick)."""
    try:
        read = os.open(mounted / FOLDER / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise ReleaseError(N_("the backup {name} on the stick cannot be read ({error})"), name=name,
                           error=e.strerror or str(e)) from None
    try:
        seen = os.fstat(read)
        if not stat.S_ISREG(seen.st_mode) or seen.st_size > BACKUP_MOST:
            raise ReleaseError(TOO_BIG, name=name, most=BACKUP_MOST >> 20)
        try:
            folder = os.open(backups, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as e:
            raise ReleaseError(N_("the table's backups folder cannot be written ({error})"),
                               error=e.strerror or str(e)) from None
        try:
            _copy_in(read, folder, name, uid, gid)
        finally:
            os.close(folder)
    finally:
        os.close(read)



def _copy_in(read: int, folder: int, name: str, uid: int, gid: int) -> None:
    partial = f".{name}.partial"
    try:
        os.unlink(partial, dir_fd=folder)
    except FileNotFoundError:
        pass
    try:
        out = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                      dir_fd=folder)
        try:
            if os.geteuid() == 0:
                os.fchown(out, uid, gid)
            size = 0
            while chunk := os.read(read, 1 << 20):
                size += len(chunk)
                if size > BACKUP_MOST:  # a file that grows while it is read
                    raise ReleaseError(TOO_BIG, name=name, most=BACKUP_MOST >> 20)
                os.write(out, chunk)
            os.fsync(out)
        finally:
            os.close(out)
        os.link(partial, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        if not _same(folder, partial, name):  # the same copy asked again is done; another is not replaced
            raise ReleaseError(N_("the table keeps another backup named {name}: not replaced"), name=name) from None
    except OSError as e:
        raise ReleaseError(N_("the table's backups folder cannot be written ({error})"),
                           error=e.strerror or str(e)) from None
    finally:
        try:
            os.unlink(partial, dir_fd=folder)
        except OSError:
            pass


def _same(folder: int, partial: str, name: str) -> bool:
    """Whether ``name`` in ``folder`` is a regular file holding what ``partial`` holds (neither followed)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        ours, theirs = os.open(partial, flags, dir_fd=folder), os.open(name, flags, dir_fd=folder)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(theirs).st_mode) or os.fstat(theirs).st_size != os.fstat(ours).st_size:
            return False
        while chunk := os.read(ours, 1 << 20):
            if os.read(theirs, len(chunk)) != chunk:
                return False
        return True
    finally:
        os.close(ours)
        os.close(theirs)


def backup_from_stick(backups: Path, backup: str, uid: int, gid: int, tools: Tools = Tools()) -> dict[str, Any]:
    """The backup asked for (``newest``, or a name the stick's listing holds) copied from the
    stick plugged in into ``backups``: the copy's name (``backup``), the ``stick``'s label and what
    it ``listed``. ReleaseError saying why not: no stick, no such backup, a copy refused (the stick
    unmounted all the same)."""
    stick = _plugged_in(tools)
    if stick is None:
        raise ReleaseError(N_("no USB stick was found: plug in the stick that holds the backups (FAT, exFAT or "
                              "ext4), then look again"))
    with _mounted(stick, tools, "ro,nosuid,nodev,noexec,noatime") as mounted:
        listed = on_stick(mounted)
        name = (listed[0] if listed else None) if backup == NEWEST else backup if backup in listed else None
        if name is None:
            raise ReleaseError(N_("the stick {stick} holds no backup {backup} in its folder {folder}: expected the "
                                  "backups a table wrote there (nightly-….tar.gz)"), stick=stick.label or stick.device,
                               backup="" if backup == NEWEST else backup, folder=FOLDER)
        copy_from(mounted, name, backups, uid, gid)
    return {"backup": name, "stick": stick.label or stick.device, "listed": listed}

def _run(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TOOL_S, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        raise ReleaseError(N_("{program} cannot run ({error})"), program=Path(command[0]).name, error=str(e)) from None
    if done.returncode != 0:
        raise ReleaseError(N_("{program} failed: {error}"), program=Path(command[0]).name,
                           error=(done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:200])
    return done.stdout
