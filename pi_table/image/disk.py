"""An SD image's disk, worked on as a file: its partitions (sfdisk), one of them on a loop device
by its offset (no partition scan, whose device nodes come late or, in a container without udev,
never), its root grown, its root mounted and entered with chroot, and its FAT boot partition
copied out to a folder and back with mtools, so the machine that builds needs no vfat driver.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Self

from ..engine.phrase import N_
from ..files import read_json
from ..release import ReleaseError

SECTOR = 512
CHUNK = 1 << 20
FAT = {"b", "c", "e", "6"}  # sfdisk's MBR types of a FAT partition
LINUX = "83"
MTOOLS = {"MTOOLS_SKIP_CHECK": "1"}
INSIDE = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
          "HOME": "/root", "DEBIAN_FRONTEND": "noninteractive"}
"""The environment of what runs in the image's root: nothing of this machine's but the proxies below."""
PROXIES = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")


class ImageError(ReleaseError):
    """What the image would not be built from, or its disk would not do, said as a release's refusal is
    (a template and its fields, for the catalogue)."""


def run(command: list[str], log: IO[str] | None = None, input: str | None = None, env: dict[str, str] | None = None,
        ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
    """``command``, its output into ``log`` (or kept, without one); ImageError naming it when it fails."""
    if log is not None:
        print("$ " + " ".join(command), file=log, flush=True)
    done = subprocess.run(command, input=input, text=True, env={**os.environ, **(env or {})},
                          stdout=log if log is not None else subprocess.PIPE,
                          stderr=subprocess.STDOUT if log is not None else subprocess.PIPE, check=False)
    if done.returncode not in ok:
        said = (done.stderr or "").strip().splitlines() if log is None else []
        raise ImageError(N_("{command} exited {status} ({error})"), command=command[0], status=done.returncode,
                        error=said[-1][:200] if said else "its log says why")
    return done


@dataclass(frozen=True)
class Partition:
    number: int
    start: int  # bytes from the start of the image
    size: int  # bytes
    kind: str  # the MBR type, as sfdisk names it

    @property
    def spec(self) -> str:
        """mtools' name for the file system on it, in ``image``: IMAGE@@OFFSET."""
        return f"@@{self.start}"


def partitions(image: Path) -> list[Partition]:
    done = run(["sfdisk", "--json", str(image)])
    try:
        table = read_json(done.stdout)["partitiontable"]
        return [Partition(number, entry["start"] * SECTOR, entry["size"] * SECTOR, str(entry["type"]).lower())
                for number, entry in enumerate(table["partitions"], 1)]
    except (ValueError, KeyError, TypeError):
        raise ImageError(N_("{image} has no partition table sfdisk can read"), image=image.name) from None


def layout(image: Path) -> tuple[Partition, Partition]:
    """The boot and root partitions of an image laid out as Raspberry Pi OS's is: a FAT one first,
    and the Linux root last, with nothing after it (so it can grow to the card's end)."""
    found = partitions(image)
    if len(found) < 2 or found[0].kind not in FAT or found[-1].kind != LINUX:
        raise ImageError(N_("{image} is not laid out as Raspberry Pi OS's image is: expected a FAT boot partition "
                           "first and a Linux root partition last"), image=image.name)
    return found[0], found[-1]


def copy_sparse(source: Path, target: Path) -> None:
    """``source`` (an image, or its .xz) into ``target`` as a raw image, its runs of zeros left as holes."""
    with (lzma.open(source) if source.suffix == ".xz" else open(source, "rb")) as reader, open(target, "wb") as out:
        try:
            while chunk := reader.read(CHUNK):
                if chunk.count(0) == len(chunk):
                    out.seek(len(chunk), os.SEEK_CUR)
                else:
                    out.write(chunk)
        except lzma.LZMAError as e:
            raise ImageError(N_("{image} cannot be decompressed ({error})"), image=source.name, error=str(e)) from None
        out.truncate()


def sha256(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


@contextmanager
def loop(image: Path, partition: Partition, log: IO[str] | None = None) -> Iterator[str]:
    """``partition`` of ``image`` on a loop device of its own, detached after."""
    device = run(["losetup", "--find", "--show", "--offset", str(partition.start), "--sizelimit",
                  str(partition.size), str(image)]).stdout.strip()
    try:
        yield device
    finally:
        run(["losetup", "--detach", device], log, ok=(0, 1))


def grow(image: Path, room: int, log: IO[str]) -> Partition:
    """The image made ``room`` bytes longer and its last (root) partition and ext4 file system with it."""
    with open(image, "r+b") as file:
        file.truncate(image.stat().st_size + room)
    last = partitions(image)[-1]
    run(["sfdisk", "--no-reread", "--no-tell-kernel", "-N", str(last.number), str(image)], log, input=", +\n")
    grown = partitions(image)[-1]
    with loop(image, grown, log) as device:
        run(["e2fsck", "-f", "-y", device], log, ok=(0, 1))  # 1: it corrected something, as -y asks
        run(["resize2fs", device], log)
    return grown


def fat_files(folder: Path) -> dict[str, str]:
    """Each file under ``folder``, by its path there, with its SHA-256."""
    return {str(path.relative_to(folder)): sha256(path) for path in sorted(folder.rglob("*")) if path.is_file()}


def fat_out(image: Path, boot: Partition, folder: Path, log: IO[str]) -> dict[str, str]:
    """The boot partition's files copied into ``folder``; what they were (``fat_files``)."""
    run(["mcopy", "-s", "-n", "-i", f"{image}{boot.spec}", "::*", f"{folder}/"], log, env=MTOOLS)
    return fat_files(folder)


def fat_back(image: Path, boot: Partition, folder: Path, before: dict[str, str], log: IO[str]) -> list[str]:
    """What changed in ``folder`` since ``before`` written back onto the boot partition: files new or
    changed copied over, files gone deleted. The paths changed, for the log."""
    after = fat_files(folder)
    target = f"{image}{boot.spec}"
    changed = []
    for name, digest in after.items():
        if before.get(name) == digest:
            continue
        parent = Path(name).parent
        for depth in range(len(parent.parts)):
            made = "/".join(parent.parts[: depth + 1])
            run(["mmd", "-D", "s", "-i", target, f"::/{made}"], log, env=MTOOLS, ok=(0, 1))  # 1: it is there
        run(["mcopy", "-o", "-i", target, str(folder / name), f"::/{name}"], log, env=MTOOLS)
        changed.append(name)
    for name in sorted(set(before) - set(after)):
        run(["mdel", "-i", target, f"::/{name}"], log, env=MTOOLS)
        changed.append(name)
    return changed


class Root:
    """The image's root file system mounted (its loop device freed with the mount), its boot
    partition's files on /boot/firmware, and what a chroot needs: /proc, /sys, /dev, a /run and a
    /tmp of its own, this machine's resolver (for apt) in place of the image's while it runs,
    and Debian's policy that starts no service in it. ``close`` undoes each, the boot
    partition's changes written back."""

    def __init__(self, image: Path, scratch: Path, log: IO[str]) -> None:
        self.image, self.log = image, log
        self.boot, self.root = layout(image)
        self.path = scratch / "root"
        self.firmware = scratch / "boot"
        self._stack = ExitStack()
        self._before: dict[str, str] = {}

    def open(self) -> Self:
        stack, path = self._stack, self.path
        path.mkdir()
        self.firmware.mkdir()
        self._before = fat_out(self.image, self.boot, self.firmware, self.log)
        stack.callback(self._write_boot)
        run(["mount", "-o", f"loop,offset={self.root.start},sizelimit={self.root.size}", str(self.image), str(path)],
            self.log)
        stack.callback(run, ["umount", "--recursive", str(path)], self.log)
        (path / "boot/firmware").mkdir(parents=True, exist_ok=True)
        for command in (["mount", "--bind", str(self.firmware), str(path / "boot/firmware")],
                        ["mount", "-t", "proc", "proc", str(path / "proc")],
                        ["mount", "-t", "sysfs", "sysfs", str(path / "sys")],
                        ["mount", "--rbind", "/dev", str(path / "dev")],
                        ["mount", "--make-rslave", str(path / "dev")],
                        ["mount", "-t", "tmpfs", "tmpfs", str(path / "run")],
                        ["mount", "-t", "tmpfs", "-o", "mode=1777", "tmpfs", str(path / "tmp")]):
            run(command, self.log)
        resolver = path / "etc/resolv.conf"
        kept = path / "etc/resolv.conf.pi-table-image"
        if resolver.exists() or resolver.is_symlink():
            os.rename(resolver, kept)
            stack.callback(os.replace, kept, resolver)
        else:
            stack.callback(resolver.unlink, missing_ok=True)
        resolver.write_bytes(Path("/etc/resolv.conf").read_bytes())
        policy = path / "usr/sbin/policy-rc.d"
        policy.write_text("#!/bin/sh\n# pi-table image: no service starts while the image is built\nexit 101\n")
        policy.chmod(0o755)
        stack.callback(policy.unlink, missing_ok=True)
        return self

    def _write_boot(self) -> None:
        changed = fat_back(self.image, self.boot, self.firmware, self._before, self.log)
        print(f"boot partition: {', '.join(changed) or 'nothing'} changed", file=self.log, flush=True)

    def run(self, *command: str, pip: bool = False) -> None:
        """``command`` in the root, as root, with the chroot's own environment and this machine's
        proxies; ``pip``: its pip settings (PIP_*) too."""
        lent = {name: value for name, value in os.environ.items() if name in PROXIES or pip and name.startswith("PIP_")}
        run(["chroot", str(self.path), "/usr/bin/env", "-i",
             *(f"{key}={value}" for key, value in {**INSIDE, **lent}.items()), *command], self.log)

    def lend_pip(self) -> None:
        """This machine's ways to the package index for pip in the root, while it is open: its pip
        configuration and its certificates (a proxy's own among them), bound read-only over the root's."""
        for host in (Path("/etc/pip.conf"), Path("/etc/ssl/certs/ca-certificates.crt")):
            if not host.is_file():
                continue
            target = self.path / host.relative_to("/")
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.touch()
                self._stack.callback(target.unlink, missing_ok=True)
            run(["mount", "--bind", str(host), str(target)], self.log)
            run(["mount", "-o", "remount,bind,ro", str(target)], self.log)
            self._stack.callback(run, ["umount", str(target)], self.log)

    def trim(self) -> None:
        """The root's free blocks given back (holes in the image, zeros to the compressor)."""
        run(["fstrim", str(self.path)], self.log, ok=(0, 1, 32))  # a file system without discard: left as it is

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> Self:
        try:
            return self.open()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()
