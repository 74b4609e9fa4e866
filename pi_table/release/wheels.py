"""What a release is installed from: built wheels and their SHA-256, never a source tree. The
service's user installs them (``make_release``) with pip's ``--no-index --only-binary :all:
--require-hashes``, so no build backend runs and no file but the ones hashed can come in.

The wheels come from a signed bundle (``bundle.unpack``: their hashes are the signed manifest's),
or are built from a source tree by the service's user (``built``: install.sh's first install,
and an update from the repository, whose commit is checked against the keyring first), the
dependencies' by the hashes the tree's requirements.lock gives (``pinned``), so the signed
commit names every file that comes in but the build tools pip fetches to build a source.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..engine.phrase import N_
from ..errors import PiTableError
from ..files import read_file, read_json, replace_file, sync_folder
from .layout import DONE, LOCK_FILE, VENV, VERSION, ReleaseError, Releases
from .service_user import ServiceUser, own_by_root

WHEEL = re.compile(r"(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._]*[A-Za-z0-9])?)-(?P<version>[A-Za-z0-9_.!+]+)"
                   r"(?:-\d[A-Za-z0-9_.]*)?-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+\.whl")
PROJECT = "pi_table"
SECTION = re.compile(r"# \[(?P<extra>[a-z0-9-]+)\]")  # requirements.lock: the pins of an extra follow


MAX_LOCK = 1024 * 1024  # requirements.lock: some 70 KB of hashes

REPRODUCIBLE = {"SOURCE_DATE_EPOCH": "315532800"}
"""A wheel's files dated 1980, whenever it is built: the same tree makes the same wheel, so the
installer run again on the same checkout finds its release built already."""


def project(name: str) -> str:
    """A distribution's name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def digest(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


@dataclass(frozen=True)
class Wheels:
    """The wheels in ``folder``, by file name, each with its SHA-256; ``version`` is pi-table's own wheel's."""

    folder: Path
    hashes: dict[str, str]

    def __post_init__(self) -> None:
        own = [name for name in self.hashes if project(self._match(name)["name"]) == project(PROJECT)]
        if len(own) != 1:
            raise ReleaseError(N_("a release holds exactly one wheel of pi-table, not {count}"), count=len(own))

    @staticmethod
    def _match(name: str) -> re.Match[str]:
        match = WHEEL.fullmatch(name)
        if match is None:
            raise ReleaseError(N_("{name} is not a wheel's file name (name-version-tags.whl)"), name=repr(name[:120]))
        return match

    @property
    def version(self) -> str:
        own = next(name for name in self.hashes if project(self._match(name)["name"]) == project(PROJECT))
        version = self._match(own)["version"]
        if not VERSION.fullmatch(version):
            raise ReleaseError(N_("pi-table's wheel has no version such as 1.2.3"))
        return version

    def identity(self, extras: str) -> str:
        """A digest of every wheel and the extras: the same wheels make the same release on every table."""
        mixed = hashlib.sha256(extras.encode())
        for name in sorted(self.hashes):
            mixed.update(f"{name}\0{self.hashes[name]}\n".encode())
        return mixed.hexdigest()

    def wanted(self, extras: str) -> str:
        """pi-table at its version with ``extras``, as pip is asked for it."""
        return f"{project(PROJECT)}[{extras}]=={self.version}" if extras else f"{project(PROJECT)}=={self.version}"

    def chosen(self, report: object) -> Wheels:
        """The wheels pip's ``--report`` of a dry run chose to install (pi-table's and what its
        extras need, no more: a Pi 5 takes no rpi-ws281x); ReleaseError for a report that names a
        file not among them, or is no report."""
        try:
            files = [Path(item["download_info"]["url"]).name for item in report["install"]]  # type: ignore[index]
        except (KeyError, TypeError):
            raise ReleaseError(N_("pip's plan of what to install cannot be read")) from None
        strangers = [name for name in files if name not in self.hashes]
        if strangers:
            raise ReleaseError(N_("pip would install {name}, which is none of the release's wheels"),
                               name=repr(strangers[0][:120]))
        own = next(name for name in self.hashes if project(self._match(name)["name"]) == project(PROJECT))
        return Wheels(self.folder, {name: self.hashes[name] for name in {own, *files}})

    def requirements(self, extras: str) -> str:
        """pip's requirements for ``--require-hashes``: every project among the wheels at its
        version, with the hash of each of its wheels (one per platform), pi-table with ``extras``."""
        pinned: dict[tuple[str, str], list[str]] = defaultdict(list)
        for name, sha in sorted(self.hashes.items()):
            match = self._match(name)
            pinned[(project(match["name"]), match["version"])].append(sha)
        lines = []
        for (name, version), hashes in sorted(pinned.items()):
            wanted = f"{name}[{extras}]" if name == project(PROJECT) and extras else name
            lines.append(f"{wanted}=={version} " + " ".join(f"--hash=sha256:{sha}" for sha in hashes))
        return "".join(line + "\n" for line in lines)


def pinned(text: str, extras: tuple[str, ...] | None = None) -> list[str]:
    """The lock's requirements, one line each (``name==version --hash=sha256:...``): every table's
    and those of ``extras`` (None: of every extra). ReleaseError for a pin with no hash, or an
    extra the lock has no section for."""
    entries: dict[str | None, list[str]] = {None: []}
    section: str | None = None
    for line in text.replace("\\\n", " ").splitlines():  # a pin and its hashes: one line
        line = line.strip()
        if (found := SECTION.fullmatch(line)) is not None:
            section = found["extra"]
            entries.setdefault(section, [])
        elif line and not line.startswith("#"):
            if "--hash=sha256:" not in line:
                raise ReleaseError(N_("{lock} pins {requirement} with no hash: make it again with "
                                      "python -m pi_table.release.lock"), lock=LOCK_FILE,
                                   requirement=line.split()[0][:80])
            entries[section].append(" ".join(line.split()))
    wanted = [extra for extra in entries if extra is not None] if extras is None else [e for e in extras if e]
    missing = [extra for extra in wanted if extra not in entries]
    if missing:
        raise ReleaseError(N_("{lock} has no pins for the extra {extra}: expected one of {known}"), lock=LOCK_FILE,
                           extra=missing[0], known=", ".join(extra for extra in entries if extra) or "none")
    return entries[None] + [entry for extra in wanted for entry in entries[extra]]


def hashed(folder: Path) -> Wheels:
    """The wheels in ``folder``, hashed now."""
    return Wheels(folder, {path.name: digest(path) for path in sorted(folder.glob("*.whl"))})


def built(source: Path, extras: str, into: Path, user: ServiceUser, log: IO[str]) -> Wheels:
    """pi-table's wheel of the tree ``source`` and the wheels of what it needs with ``extras``
    at the versions and hashes its requirements.lock pins (pip's ``--require-hashes``: a file the
    lock does not name is refused), for this machine (downloaded, or built from their source
    where none is published, as rpi-ws281x for the Pi), all made by the service's user in ``into``."""
    wheels, home = into / "wheels", into / "build-home"
    for path in (wheels, home):
        path.mkdir()
        user.give(path)
    try:
        lock = read_file(source / LOCK_FILE, MAX_LOCK).decode("utf-8")
    except (OSError, UnicodeDecodeError, PiTableError):
        raise ReleaseError(N_("{source} has no readable {lock}: every release installs locked versions"),
                           source=str(source), lock=LOCK_FILE) from None
    requirements = into / "pinned.txt"
    replace_file(requirements, "".join(line + "\n" for line in pinned(lock, tuple(filter(None, extras.split(",")))))
                 .encode("utf-8"), 0o644)
    user.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(wheels), str(source)], log,
             "pip wheel (pi-table)", home, env=REPRODUCIBLE)
    user.run([sys.executable, "-m", "pip", "wheel", "--wheel-dir", str(wheels), "--require-hashes", "--requirement",
              str(requirements)], log, "pip wheel (its dependencies, by their hashes)", home, env=REPRODUCIBLE)
    return hashed(wheels)


MAX_PLAN = 4 * 1024 * 1024  # pip's report of a few dozen packages: a few hundred kilobytes


def make_release(releases: Releases, wheels: Wheels, extras: str, user: ServiceUser, log: IO[str] = sys.stdout) -> str:
    """The release of ``wheels`` beside the others, unless it is there already; its name. A venv
    (seeing the system's packages: Debian's pygame, gpiozero, spidev) that the service's user
    makes and fills with pip from the wheels alone, by their hashes, then made root's. Root runs
    none of it: it makes the folder, takes the venv back and writes the note that completes it."""
    name = f"{wheels.version}-{wheels.identity(extras)[:8]}"
    if releases.complete(name):
        print(f"release {name} is built already", file=log, flush=True)
        return name
    folder = releases.releases / name
    if folder.exists():  # half built: a power cut or a failure in an earlier try
        shutil.rmtree(folder)
    folder.mkdir(mode=0o755, parents=True)
    venv, home = folder / VENV, folder / ".home"
    for path in (venv, home):
        path.mkdir()
        user.give(path)
    user.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], log, "venv", home)
    pip = [str(venv / "bin/python"), "-m", "pip", "install", "--no-warn-script-location", "--no-index",
           "--find-links", str(wheels.folder), "--only-binary", ":all:"]
    plan = home / "plan.json"  # what pi-table with these extras needs of the wheels, as pip's resolver says
    user.run([*pip, "--dry-run", "--quiet", "--report", str(plan), wheels.wanted(extras)], log, "pip (its plan)", home)
    try:
        planned = read_json(read_file(plan, MAX_PLAN))
    except (OSError, ValueError, PiTableError):
        planned = None
    requirements = folder / "requirements.txt"
    replace_file(requirements, wheels.chosen(planned).requirements(extras).encode("utf-8"), 0o644)
    user.run([*pip, "--require-hashes", "--requirement", str(requirements)], log, "pip", home)
    shutil.rmtree(home)
    own_by_root(venv)
    done = {"release": name, "version": wheels.version, "extras": extras, "built": time.time()}
    replace_file(folder / DONE, json.dumps(done).encode("utf-8"), 0o644)
    sync_folder(releases.releases)
    return name
