"""A release bundle: one ``.tar.gz`` that updates a table, signed by its maker. Its members, in
this order:

- ``manifest.json``: the version, the commit it was made from, what machine its wheels are for,
  and the SHA-256 of every other member;
- ``manifest.sig``: the maker's signature of the manifest's bytes (``keys.sign``);
- ``wheels/*.whl``: pi-table's own wheel and the wheels of the dependencies at the versions
  requirements.lock names, for the table's machine.

A bundle is made from what git tracks at a commit (``git archive``), never from whatever lies in
a folder: a backup or a cache left in a checkout cannot travel in one, and the same commit makes
the same release. A checkout with changes not committed is refused unless the maker says so.

A bundle comes from a phone, so the helper (root) trusts nothing in it: the signature is checked
against the table's keyring before any other member is read, and then every member must be a
plain file under ``wheels/``, within a size and a count, and exactly the files the manifest
lists, each with its checksum. Nothing in it is built or run as root: the wheels are installed
by the service's user, by their hashes (``layout.Releases.build``). A refusal names what was
wrong and what was expected, never a file's contents.
"""

from __future__ import annotations

import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path, PurePosixPath
from typing import IO, Any

from ..engine.phrase import N_
from ..files import read_json
from .keys import MAX_SIGNATURE, Keyring, sign
from .layout import LOCK_FILE, VERSION, ReleaseError, source_version
from .wheels import REPRODUCIBLE, WHEEL, Wheels, digest, hashed, pinned

MANIFEST, SIGNATURE, WHEELS = "manifest.json", "manifest.sig", "wheels"
FORMAT = 2
MAX_BUNDLE = 200 * 1024 * 1024  # compressed, as uploaded: the wheels for the Pi are about 20 MB
MAX_UNPACKED = 600 * 1024 * 1024
MAX_MEMBER = 100 * 1024 * 1024
MAX_MEMBERS = 2_000
MAX_MANIFEST = 1024 * 1024
PI = ["--platform", "manylinux_2_17_aarch64", "--platform", "manylinux2014_aarch64", "--platform", "linux_aarch64",
      "--python-version", "3.11", "--implementation", "cp", "--only-binary=:all:"]
"""pip download's options for the Pi's wheels: Raspberry Pi OS Bookworm's Python 3.11 on 64-bit ARM."""
TARGETS = ("pi", "here")
"""What machine a bundle's wheels are for: the Pi, or the machine that makes it (a test, or a Pi)."""


def _git(checkout: Path, *args: str) -> str:
    # safe.directory: the installer (root) reads the café's own clone, which is the café's user's
    done = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(checkout), *args], capture_output=True,
                          check=False)
    if done.returncode != 0:
        raise ReleaseError(N_("{source} is no git checkout, or git cannot read it ({error}): a bundle is made "
                              "from a commit"), source=str(checkout),
                           error=(done.stderr.decode("utf-8", "replace").strip().splitlines() or ["git failed"])[-1][:200])
    return done.stdout.decode("utf-8", "replace")


def export(checkout: Path, into: Path, commit: str = "HEAD", dirty: bool = False) -> str:
    """What git tracks at ``commit`` of ``checkout``, written into ``into``; the commit's id.
    ``dirty``: the tracked files as they are in the working tree, changes and all (the id then
    ends ``-dirty``); without it, a checkout with changes not committed is refused."""
    if shutil.which("git") is None:
        raise ReleaseError(N_("git is missing: a bundle is made from a commit of a git checkout"))
    head = _git(checkout, "rev-parse", "--verify", f"{commit}^{{commit}}").strip()
    changed = [line for line in _git(checkout, "status", "--porcelain", "--untracked-files=no").splitlines() if line]
    if dirty:
        for name in _git(checkout, "ls-files", "-z").split("\0"):
            if name and (checkout / name).is_file():
                (into / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(checkout / name, into / name)
        return f"{head}-dirty" if changed else head
    if changed and commit == "HEAD":
        raise ReleaseError(N_("{source} has changes not committed: commit them, or say --dirty to bundle the "
                              "tracked files as they are"), source=str(checkout))
    archived = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(checkout), "archive", "--format=tar", head],
                              capture_output=True, check=False)
    if archived.returncode != 0:
        raise ReleaseError(N_("git archive of {commit} failed"), commit=head[:12])
    with tarfile.open(fileobj=io.BytesIO(archived.stdout)) as tree:
        tree.extractall(into, filter="data")
    return head


def _pip(*args: str, log: IO[str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", *args]
    print("$ " + " ".join(command), file=log, flush=True)
    return subprocess.run(command, capture_output=True, text=True, env={**os.environ, **REPRODUCIBLE}, check=False)


def _locked(tree: Path) -> list[str]:
    """The lock's pins, every extra's too, each with its hashes (``wheels.pinned``)."""
    lock = tree / LOCK_FILE
    if not lock.is_file():
        raise ReleaseError(N_("{source} has no {lock}: every release installs locked versions"), source=str(tree),
                           lock=LOCK_FILE)
    return pinned(lock.read_text(encoding="utf-8"))


def _requirement_file(folder: Path, lines: list[str]) -> str:
    """``lines`` written as a requirements file in ``folder`` (pip takes hashes only from one); its path."""
    path = Path(tempfile.mkstemp(prefix="pinned-", suffix=".txt", dir=folder)[1])
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _wheels_for(tree: Path, into: Path, target: str, more: Path | None, log: IO[str]) -> None:
    """pi-table's wheel of ``tree`` and the locked dependencies' for ``target`` into ``into``. For
    the Pi from another machine, a dependency with no wheel for the Pi on the index (rpi-ws281x)
    is taken from ``more`` (wheels built on a Pi), or the bundle is refused saying so."""
    built = _pip("wheel", "--no-deps", "--disable-pip-version-check", "--quiet", "--wheel-dir", str(into), str(tree),
                 log=log)
    if built.returncode != 0:
        raise ReleaseError(N_("pip could not build pi-table's wheel ({error})"), error=_said(built))
    locked = _locked(tree)
    if target == "here" or _is_the_pi():
        done = _pip("wheel", "--no-deps", "--disable-pip-version-check", "--quiet", "--wheel-dir", str(into),
                    "--require-hashes", "--requirement", _requirement_file(tree, locked), log=log)
        if done.returncode != 0:
            raise ReleaseError(N_("pip could not fetch or build the locked dependencies' wheels ({error})"),
                               error=_said(done))
        return
    missing = []
    for requirement in locked:
        done = _pip("download", "--no-deps", "--disable-pip-version-check", "--quiet", *PI, "--dest", str(into),
                    "--require-hashes", "--requirement", _requirement_file(tree, [requirement]), log=log)
        if done.returncode != 0:
            missing.append(requirement.split()[0])
    for requirement in list(missing):
        name, _, version = requirement.partition("==")
        found = [path for path in sorted(more.glob("*.whl")) if (match := WHEEL.fullmatch(path.name))
                 and re.sub(r"[-_.]+", "-", match["name"]).lower() == re.sub(r"[-_.]+", "-", name).lower()
                 and match["version"] == version] if more is not None else []
        for path in found:
            shutil.copy2(path, into / path.name)
        if found:
            missing.remove(requirement)
    if missing:
        raise ReleaseError(N_("the index has no wheel for the Pi of {packages}: make the bundle on a Pi, or give "
                              "their wheels built on a Pi with --wheels-from DIR"), packages=", ".join(missing))


def _is_the_pi() -> bool:
    """Whether this machine is the table's kind (64-bit ARM, Python 3.11): its own wheels are the Pi's."""
    return platform.machine() == "aarch64" and sys.version_info[:2] == (3, 11)


def _said(done: subprocess.CompletedProcess[str]) -> str:
    return (done.stderr.strip().splitlines() or ["no message"])[-1][:200]


def make(checkout: Path, out: Path, key: Path, commit: str = "HEAD", dirty: bool = False, target: str = "pi",
         more: Path | None = None, log: IO[str] = sys.stderr) -> dict[str, Any]:
    """Write the bundle of ``checkout`` at ``commit`` to ``out``, signed with the private key
    ``key``; its manifest. ``target``: "pi" (the wheels for the Pi) or "here" (this machine's)."""
    if target not in TARGETS:
        raise ReleaseError(N_("a bundle is for {targets}, not {target}"), targets=" or ".join(TARGETS), target=target)
    with tempfile.TemporaryDirectory(prefix="pi-table-bundle-") as scratch:
        tree, wheels = Path(scratch, "tree"), Path(scratch, "wheels")
        tree.mkdir()
        wheels.mkdir()
        made_from = export(checkout, tree, commit, dirty)
        version = source_version(tree)
        _wheels_for(tree, wheels, target, more, log)
        found = hashed(wheels)
        if found.version != version:
            raise ReleaseError(N_("pi-table's wheel says version {found}, pyproject.toml {said}; expected the same"),
                               found=found.version, said=version)
        made = time.time()
        manifest = {"format": FORMAT, "name": "pi-table", "version": version, "commit": made_from, "target": target,
                    "made": made, "files": {f"{WHEELS}/{name}": sha for name, sha in found.hashes.items()}}
        data = json.dumps(manifest, indent=1).encode("utf-8")
        signature = sign(data, key)
        partial = out.with_name(out.name + ".partial")
        with tarfile.open(partial, "w:gz") as bundle:
            for name, member in ((MANIFEST, data), (SIGNATURE, signature)):
                _add(bundle, name, member, made)
            for name in found.hashes:
                _add(bundle, f"{WHEELS}/{name}", (wheels / name).read_bytes(), made)
        os.replace(partial, out)
    return manifest


def _add(bundle: tarfile.TarFile, name: str, data: bytes, made: float) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), int(made), 0o644
    bundle.addfile(info, io.BytesIO(data))


def _refuse(template: str, **fields: object) -> ReleaseError:
    return ReleaseError(template, **fields)


def _member_path(name: str) -> PurePosixPath:
    shown = name if len(name) <= 120 else name[:117] + "..."
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or len(path.parts) != 2 or path.parts[0] != WHEELS \
            or "\\" in name or "\0" in name or not WHEEL.fullmatch(path.parts[1]):
        raise _refuse(N_("the bundle's member {member} is outside the bundle; expected a wheel under {folders}"),
                      member=repr(shown), folders=f"{WHEELS}/")
    return path


def _first(archive: tarfile.TarFile, name: str, most: int) -> bytes | None:
    """The next member's bytes if it is the plain file ``name`` of at most ``most`` bytes, else None."""
    member = archive.next()
    if member is None or member.name != name or not member.isfile() or member.size > most:
        return None
    source = archive.extractfile(member)
    return None if source is None else source.read(most + 1)


def unpack(bundle: Path, into: Path, keyring: Keyring) -> tuple[Wheels, str]:
    """Check the bundle's signature against ``keyring``, then check and unpack its wheels into
    the empty folder ``into``: the wheels and the name of the key that signed them. ReleaseError
    saying what was wrong; nothing is unpacked before the signature holds."""
    _sized(bundle)
    digests: dict[str, str] = {}
    total = count = 0
    wheels = into / WHEELS
    try:
        with tarfile.open(bundle, "r:gz") as archive:
            manifest, signer = _signed(archive, keyring)
            wheels.mkdir(mode=0o755, parents=True)
            while (member := archive.next()) is not None:  # on past the two read (iterating starts again)
                count += 1
                if count > MAX_MEMBERS:
                    raise _refuse(N_("the bundle has more than {most} members"), most=MAX_MEMBERS)
                path = _member_path(member.name)
                if not member.isfile():
                    raise _refuse(N_("the bundle's member {member} is a link or a device; expected plain files"),
                                  member=repr(member.name[:120]))
                total += member.size
                if member.size > MAX_MEMBER or total > MAX_UNPACKED:
                    raise _refuse(N_("the bundle unpacks to more than {most} MB, or one file to more than {one} MB"),
                                  most=MAX_UNPACKED // 2**20, one=MAX_MEMBER // 2**20)
                source = archive.extractfile(member)
                assert source is not None  # a regular file has its data
                target = wheels / path.name
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
                with os.fdopen(fd, "wb") as out:
                    while chunk := source.read(1 << 20):
                        out.write(chunk)
                digests[member.name] = digest(target)
    except (tarfile.TarError, EOFError, OSError, UnicodeDecodeError) as e:
        raise _unreadable(e) from None
    listed = manifest["files"]
    for name in sorted(set(listed) | set(digests)):
        if name not in digests:
            raise _refuse(N_("the bundle lacks {member}, which its manifest lists"), member=repr(name[:120]))
        if name not in listed:
            raise _refuse(N_("the bundle's member {member} is not in its manifest"), member=repr(name[:120]))
        if listed[name] != digests[name]:
            raise _refuse(N_("the bundle's member {member} does not match its manifest's checksum"),
                          member=repr(name[:120]))
    found = Wheels(wheels, {PurePosixPath(name).name: sha for name, sha in digests.items()})
    if found.version != manifest["version"]:
        raise _refuse(N_("the bundle's manifest says version {said}, its pi-table wheel {found}; expected the same"),
                      said=manifest["version"], found=found.version)
    return found, signer


def checked(bundle: Path, keyring: Keyring) -> tuple[dict[str, Any], str]:
    """The bundle's manifest, once its signature holds against ``keyring``, and the name of the
    key that signed it; its wheels are not read (``unpack`` checks them). For what is built from
    a bundle beside a table: the SD image (``pi_table.image``) names its commit and version."""
    _sized(bundle)
    try:
        with tarfile.open(bundle, "r:gz") as archive:
            return _signed(archive, keyring)
    except (tarfile.TarError, EOFError, OSError, UnicodeDecodeError) as e:
        raise _unreadable(e) from None


def _unreadable(error: BaseException) -> ReleaseError:
    """Why a bundle could not be read, in words: cut short (a copy or an upload that stopped
    before its end), or not a bundle at all."""
    if isinstance(error, EOFError) or (isinstance(error, tarfile.ReadError) and "unexpected end" in str(error)):
        return _refuse(N_("the bundle is cut short: copy or upload the whole file again"))
    return _refuse(N_("the file is not a pi-table bundle: expected a .tar.gz that pi-table bundle makes"))


def _sized(bundle: Path) -> None:
    size = bundle.stat().st_size
    if size > MAX_BUNDLE:
        raise _refuse(N_("the bundle is {size} MB; a bundle is at most {most} MB"),
                      size=size // 2**20, most=MAX_BUNDLE // 2**20)


def _signed(archive: tarfile.TarFile, keyring: Keyring) -> tuple[dict[str, Any], str]:
    """The manifest and the signer's name from the first two members, the signature checked
    before the manifest's fields are read."""
    data = _first(archive, MANIFEST, MAX_MANIFEST)
    if data is None or len(data) > MAX_MANIFEST:
        raise _refuse(N_("the file is not a pi-table bundle: expected {manifest} first, as pi-table bundle "
                         "writes it"), manifest=MANIFEST)
    signature = _first(archive, SIGNATURE, MAX_SIGNATURE)
    if signature is None:
        _format_of(data)  # an older bundle is told as such
        raise _refuse(N_("the release is not signed: a table installs only releases signed with a key it "
                         "accepts (pi-table bundle --key)"))
    signer = keyring.verify(data, signature)
    return _manifest(data), signer


def _format_of(data: bytes) -> None:
    """ReleaseError for a bundle of an older format (a source tree, unsigned), which says so."""
    try:
        said = read_json(data).get("format")
    except (ValueError, AttributeError):
        return
    if said == 1:
        raise _refuse(N_("the bundle is of the old kind (format 1: a source tree, unsigned), which a table no "
                         "longer installs: make it again with pi-table bundle --key"))


def _manifest(data: bytes) -> dict[str, Any]:
    """The manifest's fields, checked (its format, name, version and files; what else it holds,
    as JSON decodes it); ReleaseError naming the one that is wrong."""
    try:
        manifest = read_json(data)
    except ValueError:
        manifest = None
    if not isinstance(manifest, dict):
        raise _refuse(N_("the bundle's {manifest} is not a JSON object"), manifest=MANIFEST)
    expected = {"format": f"{FORMAT}", "name": "pi-table", "version": "a version such as 1.2.3",
                "files": "an object of paths and SHA-256 checksums"}
    files = manifest.get("files")
    good = {"format": manifest.get("format") == FORMAT, "name": manifest.get("name") == "pi-table",
            "version": isinstance(manifest.get("version"), str) and VERSION.fullmatch(manifest["version"]) is not None,
            "files": isinstance(files, dict) and all(isinstance(k, str) and isinstance(v, str) and len(v) == 64
                                                     for k, v in files.items())}
    for key, ok in good.items():
        if not ok:
            raise _refuse(N_("the bundle's {manifest} has a wrong {key}; expected {expected}"),
                          manifest=MANIFEST, key=key, expected=expected[key])
    return manifest


def peek(bundle: Path) -> str | None:
    """The version a bundle's manifest says, read without unpacking (for what is offered); None
    when the file is no bundle. Its signature and checks come when it is installed."""
    try:
        if bundle.stat().st_size > MAX_BUNDLE:
            return None
        with tarfile.open(bundle, "r:gz") as archive:
            data = _first(archive, MANIFEST, MAX_MANIFEST)
            return None if data is None else _manifest(data)["version"]
    except (tarfile.TarError, EOFError, OSError, ReleaseError):
        return None
