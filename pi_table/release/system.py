"""The system underneath the table kept patched without the installer: Debian's security updates
applied by ``unattended-upgrade`` (Debian's unattended-upgrades, which takes only the security
suite unless told otherwise) when the owner's schedule says so and the table is idle, or when the
owner asks on the staff page. The service asks (``config.settings.Schedule`` says when); the root helper starts
pi-table-security.service, which runs ``/opt/pi-table/helper security`` as root outside the
helper's sandbox (apt writes the whole system). Debian's own timer is told not to run it
(install.sh), so nothing patches the table in the middle of a game.

Each run is noted for the staff page (``NOTE``): when, what changed (each package, from which
version to which), whether a reboot is due, and how it ended: ``done``, ``nothing`` to do,
``failed`` (unattended-upgrade's own words), or ``unhealthy``: the table restarted on the patched
system and did not answer healthy, which the page's headline reports rather than hides.

Standard library only: the root helper runs it with the system's Python.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from ..engine.phrase import N_
from .layout import ReleaseError, Releases, Why, why

NOTE = "security.json"  # the last run, in the releases' folder beside the other notes
UNIT = "pi-table-security.service"
REBOOT_FLAG = Path("/run/reboot-required")  # left by a package that needs a reboot (a kernel, libc); .pkgs names them
UPGRADE_S = 3600.0  # a Pi 3 on a slow line, with a kernel among the updates
ASKED_S = 6 * 3600.0  # a run asked and never noted as begun is asked again after this long


def installed(dpkg_query: Sequence[str]) -> dict[str, str]:
    """The packages installed, each with its version (``dpkg-query``; ReleaseError when it fails)."""
    done = subprocess.run([*dpkg_query, "-W", "-f", "${db:Status-Abbrev}\t${Package}:${Architecture}\t${Version}\n"],
                          capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise ReleaseError(N_("the installed packages cannot be listed ({error})"), error=_last(done))
    found = {}
    for line in done.stdout.splitlines():
        status, _, rest = line.partition("\t")
        package, _, version = rest.partition("\t")
        if status.startswith("ii") and package:
            found[package.removesuffix(":all")] = version
    return found


def changed(before: dict[str, str], after: dict[str, str]) -> list[dict[str, str | None]]:
    """Each package a run changed, by name: the version before (None: new) and after (None: removed)."""
    return [{"package": name, "from": before.get(name), "to": after.get(name)}
            for name in sorted(before.keys() | after.keys()) if before.get(name) != after.get(name)]


def reboot_due(flag: Path = REBOOT_FLAG) -> list[str] | None:
    """The packages that ask for a reboot (``[]`` when the flag names none); None when none is due."""
    if not flag.exists():
        return None
    try:
        return sorted(set(flag.with_name(flag.name + ".pkgs").read_text(encoding="utf-8").split()))
    except OSError:
        return []


def patch(upgrade: Sequence[str], dpkg_query: Sequence[str], log: IO[str]) -> tuple[list[dict[str, str | None]], str | None]:
    """unattended-upgrade run once: what it changed, and its own words when it failed (None: it did not)."""
    before = installed(dpkg_query)
    try:
        done = subprocess.run(upgrade, stdout=log, stderr=subprocess.PIPE, text=True, timeout=UPGRADE_S, check=False)
        failed = None if done.returncode == 0 else _last(done)
    except subprocess.TimeoutExpired:
        failed = f"it did not end within {round(UPGRADE_S / 60)} min"
    except OSError as e:
        failed = e.strerror or type(e).__name__
    return changed(before, installed(dpkg_query)), failed


def _last(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in (done.stderr or "").splitlines() if line.strip()]
    return lines[-1][:200] if lines else f"exit {done.returncode}"


def begun(releases: Releases, now: float | None = None) -> None:
    """The note that a run is under way (the page says so, and the schedule does not ask again)."""
    last = {key: value for key, value in (releases.note(NOTE) or {}).items() if key != "applied"}
    releases.write_note(NOTE, {**last, "running": True, "began": time.time() if now is None else now})


def applied(releases: Releases, found: list[dict[str, str | None]]) -> None:
    """The note that the run's updates are in (``found``, what changed) and the table, restarted
    on them, is being asked for its health: the page says so, not that they are being applied."""
    releases.write_note(NOTE, {**(releases.note(NOTE) or {}), "applied": found})


def noted(releases: Releases, began: float, outcome: str, found: list[dict[str, str | None]],
          reboot: list[str] | None, reason: Why | None) -> dict[str, Any]:
    """How a run ended, noted for the staff page, and returned."""
    note = {"running": False, "began": began, "at": time.time(), "outcome": outcome, "changed": found,
            "reboot": reboot is not None, "reboot_for": reboot or [], "why": reason}
    releases.write_note(NOTE, note)
    return note


def unhealthy(minutes: int, found: list[dict[str, str | None]]) -> Why:
    """The why of a run that left the table unhealthy, naming what it changed."""
    names = ", ".join(str(each["package"]).split(":")[0] for each in found[:8]) + (", ..." if len(found) > 8 else "")
    return why(N_("the table was not healthy {minutes} min after the security updates of {packages}: its log says "
                  "why; restart the computer, and if it stays so, restore the SD card's backup or reinstall"),
               minutes=minutes, packages=names)
