"""A release bundle: one ``.tar.gz`` that updates a table without internet. It holds
``manifest.json`` (first), the source tree under ``source/`` (with its requirements.lock) and,
when it was made with them, the dependencies' wheels for the Pi under ``wheels/``.

A bundle comes from a phone, so the helper (root) trusts nothing in it: every member is a plain
file or folder under the bundle's own folders (no absolute path, no ``..``, no link, no device),
within a size and a count, and exactly the files the manifest lists, each with its checksum. A
refusal names what was wrong and what was expected, never the file's contents.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path, PurePosixPath

from ..engine.phrase import N_
from .layout import LOCK_FILE, VERSION, ReleaseError, source_version, tree_files

MANIFEST, SOURCE, WHEELS = "manifest.json", "source", "wheels"
FORMAT = 1
MAX_BUNDLE = 200 * 1024 * 1024  # compressed, as uploaded: the source is about 5 MB, wheels for the Pi 20 MB
MAX_UNPACKED = 600 * 1024 * 1024
MAX_MEMBER = 100 * 1024 * 1024
MAX_MEMBERS = 20_000
MAX_MANIFEST = 4 * 1024 * 1024
PI = ["--platform", "manylinux_2_17_aarch64", "--platform", "manylinux2014_aarch64", "--platform", "linux_aarch64",
      "--python-version", "3.11", "--implementation", "cp", "--only-binary=:all:"]
"""pip download's options for the Pi's wheels: Raspberry Pi OS Bookworm's Python 3.11 on 64-bit ARM."""


def make(source: Path, out: Path, wheels: bool = False) -> dict:
    """Write the bundle of the source tree ``source`` to ``out``; its manifest. With ``wheels``,
    pip downloads the wheels of the locked versions for the Pi (from PyPI, or pip's own cache):
    without them the table's pip fetches them from PyPI when it installs the bundle."""
    version = source_version(source)
    files = {f"{SOURCE}/{path}": source / path for path in tree_files(source)}
    if f"{SOURCE}/{LOCK_FILE}" not in files:
        raise ReleaseError(N_("{source} has no {lock}: every release installs locked versions"),
                           source=str(source), lock=LOCK_FILE)
    with tempfile.TemporaryDirectory(prefix="pi-table-bundle-") as scratch:
        if wheels:
            done = subprocess.run([sys.executable, "-m", "pip",
                                   "download", "--disable-pip-version-check", "--no-deps", *PI, "-d", scratch,
                                   "-r", str(source / LOCK_FILE)], capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise ReleaseError(N_("pip could not download the wheels for the Pi ({error}); "
                                      "make the bundle without --wheels, and the table fetches them from PyPI"),
                                   error=(done.stderr.strip().splitlines() or ["no message"])[-1])
            files.update({f"{WHEELS}/{path.name}": path for path in sorted(Path(scratch).glob("*.whl"))})
        made = time.time()
        manifest = {"format": FORMAT, "name": "pi-table", "version": version, "made": made,
                    "files": {name: _digest(path) for name, path in files.items()}}
        data = json.dumps(manifest, indent=1).encode("utf-8")
        with tarfile.open(out, "w:gz") as bundle:
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mtime, info.mode = len(data), int(made), 0o644
            bundle.addfile(info, io.BytesIO(data))
            for name, path in files.items():
                info = bundle.gettarinfo(str(path), name)
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                with open(path, "rb") as file:
                    bundle.addfile(info, file)
    return manifest


def _digest(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _refuse(template: str, **fields: object) -> ReleaseError:
    return ReleaseError(template, **fields)


def _member_path(name: str) -> PurePosixPath:
    shown = name if len(name) <= 120 else name[:117] + "..."
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or "\\" in name or "\0" in name:
        raise _refuse(N_("the bundle's member {member} is outside the bundle; expected a path under {folders}"),
                      member=repr(shown), folders=f"{SOURCE}/ or {WHEELS}/")
    if path.parts[0] not in (SOURCE, WHEELS) and name != MANIFEST:
        raise _refuse(N_("the bundle's member {member} is outside the bundle; expected a path under {folders}"),
                      member=repr(shown), folders=f"{SOURCE}/ or {WHEELS}/")
    return path


def unpack(bundle: Path, into: Path) -> tuple[str, Path, Path | None]:
    """Check the bundle and unpack it into the empty folder ``into``: its version, its source
    tree and its wheels' folder (None without wheels). ReleaseError saying what was wrong."""
    size = bundle.stat().st_size
    if size > MAX_BUNDLE:
        raise _refuse(N_("the bundle is {size} MB; a bundle is at most {most} MB"),
                      size=size // 2**20, most=MAX_BUNDLE // 2**20)
    digests: dict[str, str] = {}
    manifest: dict | None = None
    total = count = 0
    try:
        with tarfile.open(bundle, "r:gz") as archive:
            for member in archive:
                count += 1
                if count > MAX_MEMBERS:
                    raise _refuse(N_("the bundle has more than {most} members"), most=MAX_MEMBERS)
                path = _member_path(member.name)
                if member.isdir():
                    (into / path).mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isfile():
                    raise _refuse(N_("the bundle's member {member} is a link or a device; expected plain files"),
                                  member=repr(member.name[:120]))
                total += member.size
                if member.size > MAX_MEMBER or total > MAX_UNPACKED:
                    raise _refuse(N_("the bundle unpacks to more than {most} MB, or one file to more than {one} MB"),
                                  most=MAX_UNPACKED // 2**20, one=MAX_MEMBER // 2**20)
                source = archive.extractfile(member)
                assert source is not None  # a regular file has its data
                if member.name == MANIFEST:
                    manifest = _manifest(source.read(MAX_MANIFEST + 1))
                    continue
                target = into / path
                target.parent.mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256()
                mode = 0o755 if member.mode & 0o100 else 0o644
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
                with os.fdopen(fd, "wb") as out:
                    while chunk := source.read(1 << 20):
                        digest.update(chunk)
                        out.write(chunk)
                digests[member.name] = digest.hexdigest()
    except (tarfile.TarError, EOFError, OSError, UnicodeDecodeError) as e:
        raise _refuse(N_("the file is not a pi-table bundle (a .tar.gz that pi-table bundle makes): {error}"),
                      error=type(e).__name__) from None
    if manifest is None:
        raise _refuse(N_("the bundle has no {manifest}; expected one, as pi-table bundle writes"), manifest=MANIFEST)
    listed = manifest["files"]
    for name in sorted(set(listed) | set(digests)):
        if name not in digests:
            raise _refuse(N_("the bundle lacks {member}, which its manifest lists"), member=repr(name[:120]))
        if name not in listed:
            raise _refuse(N_("the bundle's member {member} is not in its manifest"), member=repr(name[:120]))
        if listed[name] != digests[name]:
            raise _refuse(N_("the bundle's member {member} does not match its manifest's checksum"),
                          member=repr(name[:120]))
    version = source_version(into / SOURCE)
    if version != manifest["version"]:
        raise _refuse(N_("the bundle's manifest says version {said}, its pyproject.toml {found}; expected the same"),
                      said=manifest["version"], found=version)
    wheels = into / WHEELS
    return version, into / SOURCE, wheels if wheels.is_dir() else None


def _manifest(data: bytes) -> dict:
    """The manifest's fields, checked; ReleaseError naming the one that is wrong."""
    if len(data) > MAX_MANIFEST:
        raise _refuse(N_("the bundle's {manifest} is longer than {most} KB"), manifest=MANIFEST,
                      most=MAX_MANIFEST // 1024)
    try:
        manifest = json.loads(data)
    except (ValueError, RecursionError):
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
    when the file is no bundle. Its checks come when it is installed."""
    try:
        if bundle.stat().st_size > MAX_BUNDLE:
            return None
        with tarfile.open(bundle, "r:gz") as archive:
            first = archive.next()
            if first is None or first.name != MANIFEST or not first.isfile():
                return None
            source = archive.extractfile(first)
            return None if source is None else _manifest(source.read(MAX_MANIFEST + 1))["version"]
    except (tarfile.TarError, EOFError, OSError, ReleaseError):
        return None
