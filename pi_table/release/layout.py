"""The releases on a table: /opt/pi-table/releases/<version>-<short id>/, each with its own
virtual environment installed from its wheels (``wheels``) by the service's user, and the links ``current`` (what the
service runs: its ExecStart goes through it) and ``previous`` (the release before it), each
switched in one rename of a new link over the old, so a power cut leaves the old link or the
new, never none.

A release is complete once its ``release.json`` is written, last and fsynced: a folder without
one is half built (a power cut, a failed pip) and is never linked; the next build of it starts
again. A switch to a new release is a trial (``trial.json``): the start count it has had and the
release to go back to. The service's next start proves it (healthy: kept) or, if one start went
by unproven, rolls it back; ``rolled-back.json`` says what went back and why, ``last.json`` how
the last act asked of the helper ended, and ``last-ACT.json`` how the last act of each kind did.
Only root writes here; the service reads.

Standard library only, beside ``pi_table.files``: the root helper runs this with the system's
Python, from the copy of the package the installer put in /opt/pi-table/lib, never from a release.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from ..engine.phrase import N_
from ..errors import PiTableError
from ..files import read_json, replace_file, sync_folder

HOME = Path("/opt/pi-table")
RELEASES, CURRENT, PREVIOUS, VENV = "releases", "current", "previous", "venv"
TRIAL, ROLLED_BACK, LAST, ORIGIN, DONE = "trial.json", "rolled-back.json", "last.json", "origin.json", "release.json"
ACT_NOTE = re.compile(r"[a-z0-9-]{1,32}")  # an act's name, as its own note's is written (``act_note``)
LOCK_FILE = "requirements.lock"
SKIPPED = (".git", ".venv", "build", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "site")
"""What a source tree's copy leaves out: a clone's history, a developer's environment, what builds leave."""
STARTS = 1  # as the configuration's trials: a second start without a proof means the first one died
VERSION = re.compile(r"\d+\.\d+\.\d+(?:[-.+]?[0-9A-Za-z.]+)?")
RELEASE_NAME = re.compile(rf"({VERSION.pattern})-[0-9a-f]{{8}}")


class Why(TypedDict):
    """Why, as a note keeps it for the pages to say in each language: an English template (the
    catalogue's msgid) and its fields."""

    template: str
    fields: dict[str, object]


class ReleaseError(PiTableError, ValueError):
    """What went wrong, as a note's ``why``."""

    def __init__(self, template: str, **fields: object) -> None:
        super().__init__(template.format(**fields))
        self.why = why(template, **fields)


def why(template: str, **fields: object) -> Why:
    return {"template": template, "fields": fields}


def version_key(version: str) -> tuple[int, ...]:
    """A version's order: its three numbers (a suffix does not count)."""
    return tuple(int(part) for part in version.split("-")[0].split("+")[0].split(".")[:3] if part.isdigit())


def source_version(source: Path) -> str:
    """The version a source tree's pyproject.toml sets: the one source of every release's version."""
    try:
        with open(source / "pyproject.toml", "rb") as file:
            version = tomllib.load(file)["project"]["version"]
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as e:
        raise ReleaseError(N_("{source} has no readable pyproject.toml with a [project] version ({error})"),
                           source=str(source), error=type(e).__name__) from None
    if not isinstance(version, str) or not VERSION.fullmatch(version):
        raise ReleaseError(N_("{source}: the version in pyproject.toml is not a version such as 1.2.3"),
                           source=str(source))
    return version


def tree_files(source: Path) -> list[Path]:
    """The source tree's files, relative, sorted; what SKIPPED names and egg-info left out."""
    found: list[Path] = []
    for folder, folders, files in os.walk(source):
        folders[:] = sorted(name for name in folders if name not in SKIPPED and not name.endswith(".egg-info"))
        found.extend(Path(folder, name).relative_to(source) for name in files if not name.endswith(".pyc"))
    return sorted(found)


def act_note(act: str) -> str:
    """The note of the last act ``act`` asked of the helper (``last-ipv4.json``): one per kind of act."""
    if ACT_NOTE.fullmatch(act) is None:
        raise ReleaseError("an act is named by 1 to 32 lowercase letters, digits and '-', not {act!r}", act=act[:40])
    return f"last-{act}.json"

@dataclass(frozen=True)
class Trial:
    """A switch not yet proven: the release tried, the one to go back to, and the starts it has had."""

    release: str
    back_to: str
    previous_before: str | None
    since: float
    starts: int = 0
    by: str = "update"


class Releases:
    """The releases under ``home`` (/opt/pi-table; under a staging root for install.sh's tests)."""

    def __init__(self, home: Path = HOME) -> None:
        self.home = Path(home)
        self.releases = self.home / RELEASES

    # --- what is there ---------------------------------------------------------------------------

    def linked(self, link: str) -> str | None:
        """The release ``current`` or ``previous`` names, or None."""
        try:
            target = os.readlink(self.home / link)
        except OSError:
            return None
        name = Path(target).name
        return name if RELEASE_NAME.fullmatch(name) else None

    def complete(self, name: str) -> bool:
        return RELEASE_NAME.fullmatch(name) is not None and (self.releases / name / DONE).is_file()

    def venv(self, name: str) -> Path:
        return self.releases / name / VENV

    def note(self, name: str) -> dict[str, Any] | None:
        """The note ``name`` (a path under the releases' home) as JSON decodes it, its fields for the
        reader to check; None when it cannot be read or is no JSON object."""
        try:
            data = read_json((self.home / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_note(self, name: str, data: Mapping[str, object]) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        replace_file(self.home / name, json.dumps(data).encode("utf-8"), 0o644)

    def note_act(self, data: Mapping[str, object]) -> None:
        """How an act asked of the helper ended: ``last.json`` (the last act of any kind) and the
        act's own note, which the next act of another kind leaves alone (a rollback's why was lost
        to the next request of any kind)."""
        self.write_note(LAST, data)
        self.write_note(act_note(str(data["act"])), data)

    def trial(self) -> Trial | None:
        data = self.note(TRIAL)
        try:
            return None if data is None else Trial(**data)
        except TypeError:
            return None

    # --- switching -----------------------------------------------------------------------------------

    def link(self, link: str, name: str | None) -> None:
        """Point ``link`` at the release ``name`` (None: take it away) in one rename."""
        path = self.home / link
        if name is None:
            path.unlink(missing_ok=True)
        else:
            if not self.complete(name):
                raise ReleaseError(N_("release {release} is not completely built: it is never linked"), release=name)
            temporary = self.home / f".{link}.new"
            temporary.unlink(missing_ok=True)
            os.symlink(f"{RELEASES}/{name}", temporary)
            os.replace(temporary, path)
        sync_folder(self.home)

    def switch(self, name: str, by: str) -> Trial | None:
        """``current`` to the release ``name``, the one it named to ``previous``; a trial when there
        was one to go back to (a first install has none). The trial's note is written first: a power
        cut before the switch leaves a note for a switch that never happened, which the next start drops."""
        old, before = self.linked(CURRENT), self.linked(PREVIOUS)
        trial = None
        if old is not None and old != name and self.complete(old):
            trial = Trial(name, old, before, time.time(), by=by)
            self.write_note(TRIAL, trial.__dict__)
            self.link(PREVIOUS, old)
        self.link(CURRENT, name)
        self._venv_link()
        self.prune()
        return trial

    def _venv_link(self) -> None:
        """/opt/pi-table/venv: the running release's environment, where an older install had its
        only one (and scripts may still look)."""
        venv = self.home / VENV
        if venv.is_dir() and not venv.is_symlink():
            shutil.rmtree(venv)
        if not venv.is_symlink():
            os.symlink(f"{CURRENT}/{VENV}", venv)

    def prune(self) -> None:
        """Every release but the current and previous ones goes: the SD card keeps two."""
        keep = {self.linked(CURRENT), self.linked(PREVIOUS)}
        for folder in self.releases.iterdir():
            if folder.name not in keep and not folder.name.startswith("."):
                shutil.rmtree(folder, ignore_errors=True)

    def starting(self) -> str:
        """At each start of the service (its ExecStartPre): a trial counts one start more; a trial
        whose release is not current (a power cut before the switch) is dropped; one that has had
        its start and was not proven is rolled back. What happened, in a word for the log."""
        trial = self.trial()
        if trial is None:
            return "no trial"
        if self.linked(CURRENT) != trial.release:
            (self.home / TRIAL).unlink(missing_ok=True)
            return "a trial whose switch never happened is dropped"
        if trial.starts >= STARTS:
            self.roll_back(trial, why(N_("the table stopped before it was healthy on release {release}"),
                                      release=trial.release))
            return f"rolled back to {trial.back_to}"
        self.write_note(TRIAL, {**trial.__dict__, "starts": trial.starts + 1})
        return f"trying {trial.release} (start {trial.starts + 1})"

    def prove(self, trial: Trial) -> None:
        """The table is healthy on the trial's release: it stays, and the trial is over."""
        (self.home / ROLLED_BACK).unlink(missing_ok=True)
        (self.home / TRIAL).unlink(missing_ok=True)
        sync_folder(self.home)
        self.note_act({"act": "update", "outcome": "done", "at": time.time(), "release": trial.release,
                               "why": why(N_("release {release} runs and is healthy"), release=trial.release)})

    def roll_back(self, trial: Trial, reason: Why) -> None:
        """Back to the release the trial left, with a note of what went back and why."""
        self.link(CURRENT, trial.back_to)
        self.link(PREVIOUS, trial.previous_before if trial.previous_before and self.complete(trial.previous_before)
                  else None)
        note = {"release": trial.release, "to": trial.back_to, "at": time.time(), "why": reason}
        self.write_note(ROLLED_BACK, note)
        self.note_act({"act": "update", "outcome": "rolled back", **note})
        (self.home / TRIAL).unlink(missing_ok=True)
        sync_folder(self.home)
        print(f"release {trial.release} rolled back to {trial.back_to}: "
              + reason["template"].format(**reason["fields"]), file=sys.stderr, flush=True)
