"""Where the root helper stops being root: every step that runs code other than the helper's
own (pip building or installing, git, the release's own modules) runs as the service's user, by
``setpriv``, with no capabilities, no supplementary groups, no new privileges and a clean
environment. Root only unpacks checked files, changes links and notes, and restarts, reboots or
powers off.

A release's folder is root's; its ``venv`` is handed to the service's user while pip fills it
and taken back (every file made root's, unwritable by others) once pip is done, so nothing the
user runs later can change a release, and nothing a release holds is ever run by root.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from ..engine.phrase import N_
from .layout import ReleaseError

USER = "pi-table"
PATH = "/usr/local/bin:/usr/bin:/bin"


class ServiceUser:
    """Runs commands as ``user`` (None: as whoever runs this, for tests that cannot drop root:
    they say so), with ``home`` as its HOME (pip's and git's scratch)."""

    def __init__(self, user: str | None = USER) -> None:
        self.user = user
        if user is not None:
            try:
                entry = pwd.getpwnam(user)
            except KeyError:
                raise ReleaseError(N_("the service's user {user} does not exist: run the installer"),
                                   user=user) from None
            self.uid, self.gid = entry.pw_uid, entry.pw_gid
        else:
            self.uid, self.gid = os.geteuid(), os.getegid()

    def command(self, command: Sequence[str]) -> list[str]:
        """``command`` as the service's user would run it."""
        if self.user is None:
            return list(command)
        setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
        return [setpriv, f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--no-new-privs",
                "--inh-caps=-all", "--bounding-set=-all", "--", *command]

    def run(self, command: Sequence[str], log: IO[str], what: str, home: Path, cwd: Path | None = None,
            env: dict[str, str] | None = None) -> None:
        """Run ``command`` as the user, its output into ``log``; ReleaseError naming ``what`` when it fails."""
        environment = {"PATH": PATH, "HOME": str(home), "LANG": "C.UTF-8", "PIP_NO_CACHE_DIR": "1",
                       "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1",
                       # the machine's ways to an index (a proxy, a mirror) are pip's and git's own settings
                       **{key: value for key, value in os.environ.items() if key.startswith(("PIP_", "http", "HTTP"))},
                       **(env or {})}
        print("$ " + " ".join(command), file=log, flush=True)
        done = subprocess.run(self.command(command), stdout=log, stderr=subprocess.STDOUT, cwd=cwd, env=environment,
                              check=False)
        if done.returncode != 0:
            raise ReleaseError(N_("building the release failed: {step} exited {status} (the helper's log says why)"),
                               step=what, status=done.returncode)

    def give(self, top: Path) -> None:
        """The folder ``top`` and all in it, which root has just made, made the user's to write in."""
        if os.geteuid() != 0 or self.user is None:
            return
        for folder, _, files in os.walk(top, followlinks=False):
            for name in files:
                os.lchown(Path(folder, name), self.uid, self.gid)
            os.lchown(folder, self.uid, self.gid)


def own_by_root(top: Path) -> None:
    """Every file and folder under ``top`` made root's and unwritable by others, links left as they
    are (never followed): what the service's user made is fixed once it is done."""
    if os.geteuid() != 0:
        return
    for folder, folders, files in os.walk(top, followlinks=False):
        for name in [*folders, *files]:
            _fix(Path(folder, name))
    _fix(top)


def _fix(path: Path) -> None:
    status = os.lstat(path)
    os.lchown(path, 0, 0)
    if not stat.S_ISLNK(status.st_mode):
        os.chmod(path, stat.S_IMODE(status.st_mode) & ~0o022 & ~stat.S_ISUID & ~stat.S_ISGID)
