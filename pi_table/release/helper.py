"""The root helper: ``python -m pi_table.release.helper ACT``, run as root, from the release last
proven (systemd/pi-table-helper picks it). Its acts:

- ``install --source DIR [--extras E]``: build the source tree's release and switch to it
  (install.sh: a first install is an update with nothing to go back to);
- ``request``: the one request the service left in its spool folder (pi-table-helper.service,
  started by pi-table-helper.path): an update, a reboot or a power off, nothing else;
- ``starting`` and ``started``: pi-table.service's ExecStartPre= and ExecStartPost=, which count
  a trial's starts (rolling back one that did not survive its start) and prove it once the
  running table answers ``status`` with the trial's version, healthy.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..engine.phrase import N_
from . import bundle, requests
from .layout import CURRENT, DONE, HOME, LAST, ORIGIN, ReleaseError, Releases, source_version, version_key, why

DEADLINE_S = 120.0  # from the restart to healthy: a start, READY, the status answered, with room for a slow SD card
PROOF_S = 20.0  # how long a start waits for the status to answer (within the unit's TimeoutStartSec=60)
INCOMING = ".incoming"


@contextmanager
def locked(releases: Releases) -> Iterator[None]:
    """One change of the links and notes at a time (the update, a start's check)."""
    releases.home.mkdir(parents=True, exist_ok=True)
    with open(releases.home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def release_data(releases: Releases, name: str | None) -> dict:
    try:
        data = json.loads((releases.releases / str(name) / DONE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def install(releases: Releases, source: Path, extras: str) -> str:
    """install.sh's step: the checkout's release built and made current, and where it came from noted."""
    name = releases.build(source, extras)
    with locked(releases):
        releases.switch(name, "install")
    origin = git_origin(source)
    if origin is not None:
        releases.write_note(ORIGIN, origin)
    return name


def git_origin(source: Path) -> dict | None:
    """The repository and branch of the checkout ``source`` (a newer version there is offered),
    None when it is no git checkout. Read as root in the café's clone: git's safe.directory allows it."""
    if shutil.which("git") is None or not (source / ".git").exists():
        return None

    def git(*args: str) -> str | None:
        done = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(source), *args], capture_output=True,
                              text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    branch = git("rev-parse", "--abbrev-ref", "HEAD")
    if not branch or branch == "HEAD":
        return None
    return {"repository": git("remote", "get-url", "origin") or str(source), "branch": branch}


def clone(origin: dict, into: Path) -> Path:
    """The newest tree of the table's branch, cloned (one commit) into ``into``."""
    done = subprocess.run(["git", "-c", "safe.directory=*", "clone", "--quiet", "--depth", "1", "--branch",
                           str(origin["branch"]), "--", str(origin["repository"]), str(into)],
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise ReleaseError(N_("the repository {repository} cannot be read: {error}"),
                           repository=str(origin["repository"]),
                           error=(done.stderr.strip().splitlines() or ["git failed"])[-1][:200])
    return into


def take_bundle(spool: Path, name: str, into: Path) -> Path:
    """The uploaded bundle copied out of the service's folder into root's (so it cannot change
    while it is checked), then removed from the spool."""
    path = spool / name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise ReleaseError(N_("the bundle {bundle} cannot be read ({error})"), bundle=name,
                           error=e.strerror or type(e).__name__) from None
    copy = into / "bundle.tar.gz"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ReleaseError(N_("the bundle {bundle} is not a plain file"), bundle=name)
        with os.fdopen(os.dup(fd), "rb") as source, open(copy, "wb") as out:
            copied = 0
            while chunk := source.read(1 << 20):
                copied += len(chunk)
                if copied > bundle.MAX_BUNDLE:
                    raise ReleaseError(N_("the bundle is {size} MB; a bundle is at most {most} MB"),
                                       size=f"over {bundle.MAX_BUNDLE // 2**20}", most=bundle.MAX_BUNDLE // 2**20)
                out.write(chunk)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
    return copy


def update(releases: Releases, request: dict, spool: Path, systemctl: Sequence[str], log=sys.stdout) -> str:
    """Build the new release beside the running one, switch, restart, and wait for the table to be
    proven on it (by the start's ExecStartPost=) or rolled back (by the next start's ExecStartPre=,
    when it could not start); past the deadline, roll it back here. The outcome, in a word."""
    incoming = releases.releases / INCOMING
    shutil.rmtree(incoming, ignore_errors=True)
    incoming.mkdir(mode=0o700, parents=True)
    try:
        if request["from"] == "bundle":
            _, source, wheels = bundle.unpack(take_bundle(spool, request["bundle"], incoming), incoming / "bundle")
        else:
            origin = releases.note(ORIGIN)
            if origin is None:
                raise ReleaseError(N_("this table was not installed from a git repository: update it with a bundle"))
            source, wheels = clone(origin, incoming / "clone"), None
        running = release_data(releases, releases.linked(CURRENT))
        version = source_version(source)
        if running and version_key(version) <= version_key(running.get("version", "0")):
            raise ReleaseError(N_("version {version} is not newer than the running {running}"),
                               version=version, running=running.get("version"))
        name = releases.build(source, running.get("extras", ""), wheels, log)
    finally:
        shutil.rmtree(incoming, ignore_errors=True)
    with locked(releases):
        trial = releases.switch(name, "update")
    print(f"switched to {name}; restarting pi-table", file=log, flush=True)
    subprocess.run([*systemctl, "restart", "pi-table.service"], check=False)
    if trial is None:
        return "done"
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        pending = releases.trial()
        if pending is None or pending.release != name:
            return "rolled back" if releases.linked(CURRENT) != name else "done"
        time.sleep(1)
    with locked(releases):
        pending = releases.trial()
        if pending is None or pending.release != name:
            return "rolled back" if releases.linked(CURRENT) != name else "done"
        releases.roll_back(pending, why(N_("the table was not healthy {seconds} s after the switch to {release}"),
                                        seconds=round(DEADLINE_S), release=name))
    subprocess.run([*systemctl, "restart", "pi-table.service"], check=False)
    return "rolled back"


def act(releases: Releases, spool: Path, systemctl: Sequence[str] = ("systemctl",), log=sys.stdout) -> int:
    """The request waiting in ``spool``, done; a refused or failed one noted (for the staff page) and logged."""
    try:
        request = requests.take(spool)
    except ReleaseError as e:
        print(f"refused: {e}", file=sys.stderr, flush=True)
        releases.write_note(LAST, {"act": "unknown", "outcome": "refused", "at": time.time(), "why": e.why})
        return 1
    print(f"request: {request['act']}", file=log, flush=True)
    if request["act"] in ("reboot", "poweroff"):
        releases.write_note(LAST, {"act": request["act"], "outcome": "done", "at": time.time(),
                                   "why": why(N_("asked from the staff page"))})
        return subprocess.run([*systemctl, request["act"]], check=False).returncode
    try:
        outcome = update(releases, request, spool, systemctl, log)
    except ReleaseError as e:
        print(f"update failed: {e}", file=sys.stderr, flush=True)
        releases.write_note(LAST, {"act": "update", "outcome": "failed", "at": time.time(), "why": e.why})
        return 1
    print(f"update: {outcome}", file=log, flush=True)
    return 0


def started(releases: Releases, status: Sequence[str], proof_s: float = PROOF_S) -> str:
    """ExecStartPost=: a trial's release proven once the table's status answers with its version
    and says it is healthy as a change on trial must be (its loop, its phones' and staff pages
    answering). A release from before that answer (a step back by a bundle) is proven by its
    version alone, as it was then."""
    trial = releases.trial()
    if trial is None or releases.linked(CURRENT) != trial.release:
        return "no trial"
    wanted = release_data(releases, trial.release).get("version")
    deadline = time.monotonic() + proof_s
    while time.monotonic() < deadline:
        done = subprocess.run(status, capture_output=True, text=True, timeout=10, check=False)
        try:
            answer = json.loads(done.stdout)
            answered = answer.get("version") if done.returncode == 0 else None
            healthy = answer.get("healthy", {"ok": True})["ok"] is True
        except (ValueError, AttributeError, TypeError, KeyError):
            answered, healthy = None, False
        if answered == wanted and healthy:
            with locked(releases):
                if releases.trial() == trial:
                    releases.prove(trial)
                    return f"release {trial.release} is proven"
        time.sleep(0.5)
    return f"release {trial.release} is not proven yet: its status did not answer {wanted}, healthy"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pi-table-helper", description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=HOME, help="the releases' folder (default %(default)s)")
    acts = parser.add_subparsers(dest="act", required=True)
    build = acts.add_parser("install", help="build the checkout's release and switch to it")
    build.add_argument("--source", type=Path, required=True)
    build.add_argument("--extras", default="")
    asked = acts.add_parser("request", help="do the request the service left in its spool folder")
    asked.add_argument("--spool", type=Path, default=requests.SPOOL)
    acts.add_parser("starting", help="pi-table.service's ExecStartPre=")
    acts.add_parser("started", help="pi-table.service's ExecStartPost=")
    args = parser.parse_args(argv)
    releases = Releases(args.home)
    try:
        if args.act == "install":
            print(f"installed release {install(releases, args.source.resolve(), args.extras)}", flush=True)
            return 0
        if args.act == "request":
            return act(releases, args.spool)
        if args.act == "starting":
            with locked(releases):
                print(releases.starting(), flush=True)
            return 0
        print(started(releases, [sys.executable, "-I", "-m", "pi_table", "status", "--json", "--healthy"]), flush=True)
        return 0
    except ReleaseError as e:
        print(f"pi-table-helper: {e}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
