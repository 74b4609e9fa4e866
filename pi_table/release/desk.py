"""The service's side of the releases, for the staff page: which release runs and which came
before, what is offered (a newer version on the repository's branch, a bundle uploaded into the
spool folder), how the last update ended and why a rollback happened (in every language the table
speaks), the network as the pages show it, and ``ask``, which leaves a request for the root helper. Reading only: the service
cannot write under /opt (ProtectSystem=strict); the helper does.
"""

from __future__ import annotations

import logging
import string
import tempfile
from pathlib import Path
from typing import Any

from .. import version as installed_version
from ..engine.phrase import Phrase
from ..engine.views import LANGUAGES
from ..ui.i18n import say
from . import bundle, network, requests
from .layout import (
    CURRENT,
    DONE,
    HOME,
    LAST,
    ORIGIN,
    PREVIOUS,
    ROLLED_BACK,
    ReleaseError,
    Releases,
    act_note,
    source_version,
    version_key,
)

log = logging.getLogger("pi_table.release")


def noted_phrase(note_why: object) -> Phrase | None:
    """A note's why (an English template and its fields) as the sentence it is; None if it is not one."""
    if not isinstance(note_why, dict) or not isinstance(note_why.get("template"), str):
        return None
    fields = note_why.get("fields")
    if not isinstance(fields, dict) or not all(isinstance(value, str | int | float) for value in fields.values()):
        return None
    try:  # a template from another release may name other fields
        named = {name for _, name, _, _ in string.Formatter().parse(note_why["template"]) if name}
    except ValueError:
        return None
    if not named <= set(fields):
        return None
    return Phrase.of(note_why["template"], **{str(key): value for key, value in fields.items()})


def said(note_why: object) -> dict[str, str] | None:
    """A note's why (an English template and its fields) said in each of the table's languages."""
    phrase = noted_phrase(note_why)
    if phrase is None:
        return None
    try:
        return {lang: say(phrase, lang) for lang in LANGUAGES}
    except (KeyError, IndexError, ValueError):  # a template from another release, with other fields
        return None


def _release(releases: Releases, name: str | None) -> dict[str, Any] | None:
    if name is None:
        return None
    data = releases.note(f"{releases.releases.name}/{name}/{DONE}") or {}
    return {"release": name, "version": data.get("version")}


def _told(note: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if note is None else {**note, "why": said(note.get("why"))}


def state(home: Path = HOME) -> dict[str, Any]:
    """The releases as the staff page shows them: ``running`` (its release and version),
    ``previous``, ``trial`` (a release switched to and not yet proven), ``rolled_back`` (what went
    back to what and why, while no later update was proven) and ``last`` (the last act asked of the
    helper: update, reboot, poweroff; done, failed, refused or rolled back; why)."""
    releases = Releases(home)
    trial = releases.trial()
    running = _release(releases, releases.linked(CURRENT)) or {"release": None, "version": installed_version()}
    return {"running": running, "previous": _release(releases, releases.linked(PREVIOUS)),
            "trial": None if trial is None else {"release": trial.release, "starts": trial.starts, "since": trial.since},
            "rolled_back": _told(releases.note(ROLLED_BACK)), "last": _told(releases.note(LAST))}


def last_act(home: Path, acts: tuple[str, ...]) -> dict[str, Any] | None:
    """The last of ``acts`` asked of the helper, as ``state``'s ``last`` says it: a section's own
    act's note, which an act of another kind after it leaves alone; the shared note for a table
    whose helper wrote no act's own yet."""
    releases = Releases(home)
    notes = [note for act in acts if (note := releases.note(act_note(act))) is not None]
    shared = releases.note(LAST)
    if not notes and shared is not None and shared.get("act") in acts:
        notes = [shared]
    return _told(max(notes, key=_at, default=None))


def _at(note: dict[str, Any]) -> float:
    """When a note was written (0 when it does not say)."""
    at = note.get("at")
    return float(at) if isinstance(at, int | float) else 0.0


def seen_networks(home: Path = HOME) -> list[dict[str, Any]]:
    """The Wi-Fi networks in reach now; while the radio is the table's own Wi-Fi (it scans no
    more), those the root helper saw before it opened it."""
    seen = [each.to_json() for each in network.networks()]
    if seen:
        return seen
    kept = Releases(home).note(network.NETWORKS)
    found = kept.get("networks") if kept is not None else None
    return [each for each in found if isinstance(each, dict)] if isinstance(found, list) else []


def network_view(lang: str, home: Path = HOME) -> dict[str, Any]:
    """The network as the pages show it (the set-up page, the staff page's Wi-Fi section): how the
    table is connected, the networks in reach, and the last Wi-Fi act of the root helper (its why
    in ``lang``)."""
    now = network.state()
    wifi = last_act(home, ("wifi", "hotspot"))
    told = None if wifi is None else {key: wifi.get(key) for key in ("act", "ssid", "outcome", "at")} | {
        "why": (wifi.get("why") or {}).get(lang)}
    return {"network": {"known": now.known, "connected": now.connected, "via": now.via, "hotspot": now.hotspot},
            "networks": seen_networks(home), "last": told}


PATH_UNIT = "pi-table-helper.path"


def helper_missing(home: Path = HOME) -> Phrase | None:
    """Why no root helper would take a request on this machine (its launcher not installed, or
    its path unit not watching the spool folder); None when one would. A table run by hand, or
    whose installer did not run, says so instead of accepting what nothing will do."""
    import shutil  # the staff's power and update buttons only
    import subprocess

    launcher = home / "helper"
    systemctl = shutil.which("systemctl")
    if not launcher.is_file() or systemctl is None:
        return Phrase.of("this table has no root helper ({path} is missing): updates, reboot and power off are done "
                         "on the computer itself; sudo systemd/install.sh installs the helper", path=str(launcher))
    try:
        watching = subprocess.run([systemctl, "is-active", "--quiet", PATH_UNIT], timeout=10, check=False).returncode
    except (OSError, subprocess.TimeoutExpired):
        watching = 1
    if watching != 0:
        return Phrase.of("the root helper is not watching for requests ({unit} is not active): "
                         "sudo systemctl start {unit}", unit=PATH_UNIT)
    return None


def ask(act: str, spool: Path = requests.SPOOL, **args: object) -> None:
    """Leave the request ``act`` (update, reboot, poweroff...) for the root helper; ReleaseError, with
    nothing written, when it is none of them. An update takes ``from_="bundle", bundle=NAME`` (a
    file already in ``spool``) or ``from_="repository"``."""
    request: dict[str, object] = {"act": act}
    if "from_" in args:
        request["from"] = args.pop("from_")
    requests.write(spool, {**request, **args})


def offered(home: Path = HOME, spool: Path = requests.SPOOL, repository: bool = True) -> list[dict[str, Any]]:
    """The versions newer than the running one that an update could install: each bundle in the
    spool folder (``{"from": "bundle", "bundle": NAME, "version": V}``), and the head of the
    repository's branch (``{"from": "repository", "version": V, "branch": B}``; asking it clones
    one commit, so it needs the network)."""
    running = state(home)["running"]["version"] or "0"
    found: list[dict[str, Any]] = []
    for path in sorted(spool.glob("*.tar.gz")) if spool.is_dir() else []:
        version = bundle.peek(path)
        if version is not None and version_key(version) > version_key(running):
            found.append({"from": "bundle", "bundle": path.name, "version": version})
    origin = Releases(home).note(ORIGIN)
    if repository and origin is not None:
        version = _repository_version(origin)
        if version is not None and version_key(version) > version_key(running):
            found.append({"from": "repository", "version": version, "branch": origin.get("branch")})
    return found


def _repository_version(origin: dict[str, Any]) -> str | None:
    """The version at the head of the table's branch (one commit cloned, by the service itself);
    None, logged, when the repository cannot be read. Its signature is checked when it is installed."""
    import subprocess  # the page's Updates section only

    from .helper import clone_command  # not at import: python -m pi_table.release.helper loads this package first

    with tempfile.TemporaryDirectory(prefix="pi-table-offered-") as scratch:
        clone = Path(scratch) / "clone"
        done = subprocess.run(clone_command(origin, clone), capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            log.warning("no version offered from the repository %s: %s", origin.get("repository"),
                        (done.stderr.strip().splitlines() or ["git failed"])[-1][:200])
            return None
        try:
            return source_version(clone)
        except ReleaseError as e:
            log.warning("no version offered from the repository: %s", e)
            return None
