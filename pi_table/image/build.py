"""Building the SD image from a base image and a signed bundle, and the Pi's wheels in the base.

What goes in is checked before anything is written: the base image against the SHA-256 the
maker was given with it (Raspberry Pi OS publishes one beside each image), the bundle's signature
against the keys the image will accept (the checkout's ``release-keys/`` and those the maker
names), its wheels for the Pi. The image is then made from a copy of the base, grown by ``room``
for what is installed, and from the checkout at the bundle's commit: ``systemd/image/setup.sh``
runs in its root, which runs ``systemd/install.sh`` from the bundle as a first install does on a
Pi, so the image holds the release an update would bring, checked as an update is.
"""

from __future__ import annotations

import datetime
import fcntl
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..engine.phrase import N_
from ..release import bundle as bundles
from ..release.keys import Keyring
from ..release.layout import LOCK_FILE
from . import imager
from .disk import ImageError, Root, copy_sparse, grow, sha256

ROOM = 1024 * 2**20
"""Bytes added to the base's root for what the image installs: the Debian packages (pygame and
SDL, about 150 MB), the release's environment (about 80 MB) and apt's lists while it runs."""
INSIDE = Path("/var/tmp/pi-table-image")
"""Where the checkout and the bundle are put in the image's root while it is built (then removed)."""
TOOLS = {"losetup": "mount", "mount": "mount", "sfdisk": "fdisk", "e2fsck": "e2fsprogs", "resize2fs": "e2fsprogs",
         "fstrim": "util-linux", "chroot": "coreutils", "mcopy": "mtools", "git": "git", "ssh-keygen": "openssh-client"}
"""The commands the build runs on this machine, and the Debian package each comes in."""
COMPRESSORS = {".xz": ["xz", "-T0", "-c"], ".gz": ["gzip", "-c"], ".zst": ["zstd", "-T0", "-c", "-q"]}
"""What Raspberry Pi Imager opens (xz is Raspberry Pi OS's own; zstd since Imager 1.7), by the output's suffix."""
BINFMT = Path("/proc/sys/fs/binfmt_misc/qemu-aarch64")
COMMIT = re.compile(r"[0-9a-f]{40}(-dirty)?")
PACKAGES_ONLY = "PI_TABLE_ONLY_PACKAGES"
"""install.sh's switch that stops it once the system packages are in (``prepared``)."""
PI_BUILD = ("python3-pip", "python3-venv", "python3-dev", "gcc", "libc6-dev")
"""What the base needs to build a wheel from its source for the Pi (``wheels``), never left in an image."""


def ready(compressor: str | None = None) -> None:
    """ImageError naming what this machine lacks to build: root, a command, aarch64 emulation."""
    from os import geteuid

    if geteuid() != 0:
        raise ImageError(N_("building an image needs root (loop devices, mounts, chroot): run it with sudo"))
    missing = sorted({package for command, package in TOOLS.items() if shutil.which(command) is None}
                     | ({compressor} if compressor and shutil.which(compressor) is None else set()))
    if missing:
        raise ImageError(N_("this machine lacks {packages}: install them (Debian: sudo apt install {packages})"),
                         packages=" ".join(missing))
    try:
        registered = BINFMT.read_text(encoding="ascii")
    except OSError:
        registered = ""
    if not registered.startswith("enabled") or not re.search(r"^flags: .*F", registered, re.MULTILINE):
        raise ImageError(N_("this machine cannot run the Pi's programs: qemu-aarch64 is not registered with "
                            "binfmt_misc (Debian: sudo apt install qemu-user-static binfmt-support)"))


def verified(base: Path, expected: str) -> None:
    """The base image is the one its SHA-256 names, or ImageError saying which it is not."""
    wanted = expected.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", wanted):
        raise ImageError(N_("the base image's SHA-256 is 64 hexadecimal digits, as its publisher gives it, not "
                            "{given}"), given=repr(expected[:80]))
    if not base.is_file():
        raise ImageError(N_("the base image {image} is no file"), image=str(base))
    found = sha256(base)
    if found != wanted:
        raise ImageError(N_("the base image {image} has SHA-256 {found}, not the {expected} it was given with: "
                            "download it again"), image=base.name, found=found, expected=wanted)


def keyring(folder: Path, keys: list[Path]) -> Keyring:
    """A keyring in ``folder`` of the public keys ``keys`` (each named by its file's name, as
    release-keys/NAME.pub is)."""
    ring = Keyring(folder)
    for key in keys:
        try:
            text = key.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ImageError(N_("{path} cannot be read as a public key ({error})"), path=str(key),
                             error=getattr(e, "strerror", None) or type(e).__name__) from None
        ring.add(text, key.name.removesuffix(".pub"))
    return ring


def release_of(signed: Path, source: Path, accepted: tuple[Path, ...], scratch: Path) -> tuple[dict[str, Any], Path]:
    """The bundle's manifest, its signature checked against the keys the image will accept, and
    the checkout at its commit in ``scratch/tree`` with those keys in its release-keys/."""
    keys = [*sorted((source / "release-keys").glob("*.pub")), *accepted]
    manifest, signer = bundles.checked(signed, keyring(scratch / "keyring", keys))
    if manifest.get("target") != "pi":
        raise ImageError(N_("the bundle's wheels are for {target}, not for the Pi: make it with pi-table bundle "
                            "--for pi"), target=str(manifest.get("target"))[:40])
    commit = str(manifest.get("commit", ""))
    if not COMMIT.fullmatch(commit):
        raise ImageError(N_("the bundle's manifest names no commit; expected the 40 digits pi-table bundle writes"))
    tree = scratch / "tree"
    tree.mkdir()
    if commit.endswith("-dirty"):  # made from the working tree as it was: the checkout's files as they are
        if bundles.export(source, tree, dirty=True).removesuffix("-dirty") != commit.removesuffix("-dirty"):
            raise ImageError(N_("the bundle was made from a working tree at {commit}, and {source} is no longer at "
                                "that commit"), commit=commit[:12], source=str(source))
    else:
        bundles.export(source, tree, commit)
    (tree / "release-keys").mkdir(exist_ok=True)
    for key in accepted:
        shutil.copy(key, tree / "release-keys" / key.name)
    return {**manifest, "signer": signer}, tree


def build(base: Path, expected: str, signed: Path, out: Path, source: Path, accepted: tuple[Path, ...] = (),
          room: int = ROOM, url: str | None = None, icon: str | None = None, wifi_country: str = "",
          cache: Path | None = None, log: IO[str] = sys.stderr) -> imager.Entry:
    """The image of the bundle ``signed`` on ``base`` (checked against ``expected``), written to
    ``out`` (.img.xz, .img.gz or .img.zst) with ``out``.sha256 and Raspberry Pi Imager's OS list
    beside it; the list's entry. ``source``: the checkout the bundle was made from; ``cache``: a
    folder that keeps the base with its system packages for the next build (``prepared``)."""
    compressor = COMPRESSORS.get(out.suffix)
    if compressor is None or not out.name.endswith(".img" + out.suffix):
        raise ImageError(N_("the image's file is NAME.img.xz, NAME.img.gz or NAME.img.zst, not {name}"), name=out.name)
    if wifi_country and not re.fullmatch(r"[A-Z]{2}", wifi_country):
        raise ImageError(N_("a Wi-Fi country is two capital letters (IT, GB, DE), not {country}"),
                         country=repr(wifi_country[:20]))
    verified(base, expected)
    ready(compressor[0])
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".pi-table-image-", dir=out.parent) as folder:
        scratch = Path(folder)
        manifest, tree = release_of(signed, source, accepted, scratch)
        print(f"pi-table {manifest['version']} of commit {manifest['commit'][:12]}, signed with key "
              f"{manifest['signer']}, on {base.name}", file=log, flush=True)
        work = scratch / "image.img"
        if cache is None:
            copy_sparse(base, work)
            grow(work, room, log)
        else:
            copy_sparse(prepared(base, expected, tree, signed, room, cache, log), work)
        with Root(work, scratch, log) as root, _put(root, tree, signed):
            root.run("/usr/bin/env", f"PI_TABLE_WIFI_COUNTRY={wifi_country}", "bash",
                     f"{INSIDE}/tree/systemd/image/setup.sh", f"{INSIDE}/bundle.tar.gz")
        return _written(work, out, compressor, manifest, url, icon, log)


@contextmanager
def _put(root: Root, tree: Path, signed: Path) -> Iterator[None]:
    """The checkout and the bundle in the root while the block runs; then taken out, and the
    root's free blocks given back."""
    inside = root.path / INSIDE.relative_to("/")
    shutil.copytree(tree, inside / "tree", symlinks=True)
    shutil.copy(signed, inside / "bundle.tar.gz")
    yield
    shutil.rmtree(inside)
    root.trim()


def prepared(base: Path, expected: str, tree: Path, signed: Path, room: int, cache: Path, log: IO[str]) -> Path:
    """The base, grown by ``room``, with the system packages the installer asks for (apt under
    emulation: the slow part of a build), kept in ``cache`` by what it is made from: the base's
    SHA-256, the room and the installer up to where it stops for them (what follows makes no
    difference to them). Made once, under a lock; older ones removed."""
    installer = (tree / "systemd/install.sh").read_bytes()
    stop = installer.find(f'"${{{PACKAGES_ONLY}:-0}}"'.encode())  # where it tests the switch
    key = hashlib.sha256(f"{expected}\0{room}\0".encode() + (installer[:stop] if stop >= 0 else installer)).hexdigest()
    kept = cache / f"prepared-{key[:16]}.img"
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "prepared.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if kept.is_file():
            print(f"the base with its packages, kept: {kept}", file=log, flush=True)
            return kept
        partial = kept.with_name(kept.name + ".part")
        copy_sparse(base, partial)
        grow(partial, room, log)
        with (tempfile.TemporaryDirectory(prefix=".prepare-", dir=cache) as folder,
              Root(partial, Path(folder), log) as root, _put(root, tree, signed)):
            root.run("/usr/bin/env", f"{PACKAGES_ONLY}=1", "PI_TABLE_NO_START=1",
                     f"PI_TABLE_BUNDLE={INSIDE}/bundle.tar.gz", "bash", f"{INSIDE}/tree/systemd/install.sh")
            root.run("apt-get", "clean")
        partial.replace(kept)
        for older in cache.glob("prepared-*.img*"):
            if older != kept:
                older.unlink()
        return kept


def _written(work: Path, out: Path, compressor: list[str], manifest: dict[str, Any], url: str | None, icon: str | None,
             log: IO[str]) -> imager.Entry:
    """The image compressed into ``out`` (hashed on the way), ``out``.sha256, the icon and the OS list."""
    partial = out.with_name(out.name + ".partial")
    extracted = hashlib.sha256()
    with open(work, "rb") as image, open(partial, "wb") as target:
        packer = subprocess.Popen(compressor, stdin=subprocess.PIPE, stdout=target)
        assert packer.stdin is not None
        while chunk := image.read(1 << 20):
            extracted.update(chunk)
            packer.stdin.write(chunk)
        packer.stdin.close()
        if packer.wait() != 0:
            raise ImageError(N_("{command} exited {status} ({error})"), command=compressor[0],
                             status=packer.returncode, error="compressing the image")
    partial.replace(out)
    downloaded = sha256(out)
    out.with_name(out.name + ".sha256").write_text(f"{downloaded}  {out.name}\n", encoding="utf-8")
    name = out.name.removesuffix(".img" + out.suffix)
    drawn = out.with_name(name + ".svg")
    drawn.write_text(imager.ICON, encoding="utf-8")
    entry = imager.entry(version=manifest["version"], url=url or out.resolve().as_uri(),
                         icon=icon or drawn.resolve().as_uri(), extract_size=work.stat().st_size,
                         extract_sha256=extracted.hexdigest(), download_size=out.stat().st_size,
                         download_sha256=downloaded, day=datetime.date.today())
    imager.write(out.with_name(name + ".json"), entry)
    print(f"{out}: {out.stat().st_size // 2**20} MB, {work.stat().st_size // 2**20} MB written to the card",
          file=log, flush=True)
    return entry


def wheels(base: Path, expected: str, source: Path, out: Path, log: IO[str] = sys.stderr) -> list[str]:
    """The wheels of the versions ``source``'s requirements.lock pins, built in ``base``'s root
    (Raspberry Pi OS's Python on the Pi's processor, under emulation) into ``out``, for the
    dependencies the package index has no wheel of for the Pi (``pi-table bundle --wheels-from``).
    This machine's ways to the index (pip's settings, its certificates) are lent to pip there."""
    lock = source / LOCK_FILE
    if not lock.is_file():
        raise ImageError(N_("{source} has no {lock}: the wheels are built at the versions it pins"),
                         source=str(source), lock=LOCK_FILE)
    verified(base, expected)
    ready()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".pi-table-wheels-", dir=out) as folder:
        scratch = Path(folder)
        work = scratch / "image.img"
        copy_sparse(base, work)
        grow(work, ROOM, log)
        with Root(work, scratch, log) as root:
            inside = root.path / INSIDE.relative_to("/")
            (inside / "wheels").mkdir(parents=True)
            shutil.copy(lock, inside / LOCK_FILE)
            root.run("apt-get", "update", "-q")
            root.run("apt-get", "install", "-y", "-q", "--no-install-recommends", *PI_BUILD)
            root.lend_pip()
            root.run("python3", "-m", "pip", "wheel", "--no-deps", "--wheel-dir", f"{INSIDE}/wheels",
                     "--requirement", f"{INSIDE}/{LOCK_FILE}", pip=True)
            made = sorted(path.name for path in (inside / "wheels").glob("*.whl"))
            for name in made:
                shutil.copy(inside / "wheels" / name, out / name)
    return made
