"""Try, then keep: a change of the configuration made from a page, or by ``tune --write``.

Before the changed file replaces the old one, the old one is kept beside it as the last good
file (``config.toml.good``) and a note of the trial (``config.toml.trial``) says which keys
changed, who changed them, which devices were working then, and how many starts the trial has
had. A table that starts on the file and is healthy by its deadline keeps it (``keep``): the
note goes, and the file is the last good one. If the table cannot start on it, stops before it
is healthy, or is not healthy by the deadline, the last good file is put back (``roll_back``)
with a note of what was rolled back and why (``config.toml.rolled-back``, for the staff page),
and the table starts on it. No checker foresees everything; this net catches what it missed.

A change made from the staff page notes the address of this machine the page was reached on
(``reached``): the table keeps the change only if the page answers there again, so a setting
cannot cut the staff off the network (``web.host = "127.0.0.1"`` on a table reached over the Wi-Fi).

A bad file edited by hand stops the table no more: the start finds it refused and starts on
the last good file instead (``refuse``), leaving a note of what was refused and why
(``config.toml.refused``) that the staff page and the screen show until the file passes again
or the owner discards it (``discard``), so no refusal at a start needs SSH to undo.
``pi-table check-config`` still refuses it (78). A file edited by hand that passes a start's
checks is tried as a change is (``remember``): passing the checks is no proof, and a start on it
that is killed before it is healthy (a power cut, the memory running out, a crash no check
foresees) must leave the proven file in place, and put it back at the next start (issue 58).

A stop that was asked for (the staff's Restart, systemd's stop) before the verdict is no death
(``paused``): its start is given back, and the next start waits for the verdict again (issue 74: a
Restart pressed within the steady time rolled the owner's change back). Who made a change stays
in its note: a change that joins a trial adds its maker (``joined``), it never replaces the first.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import time
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

from ..engine.phrase import Phrase, Text
from ..engine.views import LANGUAGES
from ..errors import PiTableError
from ..files import read_json, replace_file
from ..ui.i18n import say
from .loading import ConfigError, read_text
from .machine import Running
from .schema import BY_KEY

log = logging.getLogger("pi_table.config")
GOOD, TRIAL, ROLLED_BACK, REFUSED = ".good", ".trial", ".rolled-back", ".refused"
STARTS = 1  # starts a trial has: a second start without a keep means the first one died
DEADLINE_S = 60.0  # from the start to healthy: the companion opens after READY, the board says hello
STEADY_S = 30.0  # healthy this long without a break before a trial is kept: a start that dies soon after is no proof
HAND = "hand"  # who made a change a start found in the file: an edit by hand (over SSH, on the card)


class DamagedNote(PiTableError, ValueError):
    """A trial's note that is not one: no trial is under way (said once in the log)."""


@dataclass(frozen=True, slots=True)
class Trial:
    """A trial under way: the keys changed, by whom, the devices that worked before it (which
    must work again on the new file), when it began, and the addresses of this machine the staff
    page was reached on to make it (where it must answer again)."""

    keys: tuple[str, ...]
    by: str
    working: tuple[str, ...]
    since: float
    starts: int = 0
    reached: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"keys": list(self.keys), "by": self.by, "working": list(self.working), "since": self.since,
                "starts": self.starts, "reached": list(self.reached)}

    @classmethod
    def from_json(cls, data: object) -> Trial:
        """The note as written (one written before ``reached`` has none); refused when it is
        not one (``DamagedNote``: a damaged note is no trial)."""
        if isinstance(data, dict):
            keys, working, by = data.get("keys"), data.get("working", []), data.get("by")
            since, starts, reached = data.get("since"), data.get("starts"), data.get("reached", [])
            if (_strings(keys) and _strings(working) and isinstance(by, str) and isinstance(since, int | float)
                    and isinstance(starts, int) and not isinstance(starts, bool) and _strings(reached)):
                return cls(tuple(keys), by, tuple(working), float(since), starts, tuple(reached))
        raise DamagedNote("a trial's note has keys, by, working, since, starts and reached")


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(each, str) for each in value)


def beside(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


BACKUPS = "backups"  # beside the journal folder: the backups (pi_table.daemon.backup), and a restore's notes


def restore_notes(journal_dir: Path) -> Path:
    """The name a restore's notes are beside (``restore.trial``, ``restore.rolled-back``): a
    restore is tried as a change of settings is, its notes in the backups folder. Asked at every
    start, which loads the backups' code only when a restore waits."""
    return journal_dir.parent / BACKUPS / "restore"


def change(path: Path, changes: Mapping[str, object], by: str, working: Iterable[str] = (),
           running: Running | None = None, machine: bool = True, reached: str | None = None) -> None:
    """Write ``changes`` into ``path`` as a trial (``writing.changed_text`` checks them first,
    with ``machine`` on this machine too; ConfigError: nothing written); ``reached``: the address
    the staff page that made it was reached on. A change made while another waits for its restart joins
    that trial: the last good file stays the one the table last proved, and both addresses must answer."""
    from .writing import changed_text  # tomlkit loads for a change, not at every start

    new = changed_text(path, changes, machine, running)
    pending = pending_trial(path)
    here = () if reached is None else (reached,)
    if pending is None:
        _copy(path, beside(path, GOOD))
        trial = Trial(tuple(changes), by, tuple(working), time.time(), reached=here)
    else:
        trial = Trial(tuple(dict.fromkeys((*pending.keys, *changes))), joined(pending.by, by), pending.working,
                      pending.since,
                      reached=tuple(dict.fromkeys((*pending.reached, *here))))
    _write_json(path, TRIAL, trial.to_json())
    replace_file(path, new.encode("utf-8"), _mode(path))


def joined(makers: str, by: str) -> str:
    """The makers of a trial (``owner, staff``) once ``by`` has made a change of it too."""
    names = makers.split(", ")
    return makers if by in names else ", ".join((*names, by))


def change_proven(path: Path, changes: Mapping[str, object], running: Running | None = None,
                  machine: bool = True) -> None:
    """Write ``changes`` that the table applies at once and has proven (the brightness, the
    language...): into the file and, while a trial waits, into its last good file too, so a
    rollback does not take them back; with no trial under way, the file is the last good one
    (else the next start would take it for an edit by hand). Checked first as ``change`` checks."""
    from .writing import changed_text

    new = changed_text(path, changes, machine, running)
    good = beside(path, GOOD)
    if good.exists():  # none yet: the next start makes the file the last good one
        proven = new if pending_trial(path) is None else changed_text(good, changes)
        replace_file(good, proven.encode("utf-8"), _mode(good), like=path)
    replace_file(path, new.encode("utf-8"), _mode(path))


def replace_tried_elsewhere(path: Path, data: bytes) -> None:
    """Make ``data`` the file and its last good copy at once, ending any trial of it: a file
    another trial answers for (a restore's, whose own last good state holds the file before it),
    which no start must try, or roll back, a second time."""
    replace_file(path, data, _mode(path))
    replace_file(beside(path, GOOD), data, _mode(path), like=path)
    beside(path, TRIAL).unlink(missing_ok=True)


def pending_trial(path: Path) -> Trial | None:
    """The trial under way for ``path``, or None (a note that cannot be read is no trial, said once)."""
    note = beside(path, TRIAL)
    try:
        return Trial.from_json(read_json(note.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        log.warning("%s cannot be read (%s): no trial is under way", note, e)
        return None


def starting(path: Path) -> Trial | None:
    """At a start: the trial under way, counted one start more; or, when its last start never
    kept it (the table died before it was healthy), rolled back first, and None."""
    trial = pending_trial(path)
    if trial is None:
        return None
    if trial.starts >= STARTS:
        roll_back(path, trial, Phrase.of("the table stopped before it was healthy on the new settings"))
        return None
    trial = replace(trial, starts=trial.starts + 1)
    _write_json(path, TRIAL, trial.to_json())
    return trial


def paused(path: Path) -> None:
    """The table stopped cleanly, as asked, before the trial's verdict: the start it had is given
    back, so the next start tries it again rather than taking the stop for a death."""
    trial = pending_trial(path)
    if trial is not None and trial.starts > 0:
        _write_json(path, TRIAL, replace(trial, starts=trial.starts - 1).to_json())
        log.info("the table stopped as asked before the new settings were proven: the next start tries them again")


def keep(path: Path) -> None:
    """The table is healthy on the file: it is the last good one now, and the trial is over."""
    _copy(path, beside(path, GOOD))
    beside(path, ROLLED_BACK).unlink(missing_ok=True)
    beside(path, TRIAL).unlink(missing_ok=True)
    log.info("the new settings are kept: the table is healthy on them")


def roll_back(path: Path, trial: Trial, why: Text) -> None:
    """Put the last good file back, and leave a note of what was rolled back and why, said in
    every language the table speaks (the staff page shows it in its own)."""
    good = beside(path, GOOD)
    if good.exists():
        replace_file(path, good.read_bytes(), _mode(path))
    _write_json(path, ROLLED_BACK, {"at": time.time(), "since": trial.since, "keys": list(trial.keys), "by": trial.by,
                                    "why": {lang: say(why, lang) for lang in LANGUAGES}})
    beside(path, TRIAL).unlink(missing_ok=True)
    log.error("the settings changed by %s (%s) are rolled back: %s", trial.by, ", ".join(trial.keys), say(why, "en"))


def remember(path: Path) -> Trial | None:
    """The file passed a start's checks with no trial under way (a note of a refusal before it
    goes): the same as the last good one, nothing to prove (None); with none yet (a first start),
    the last good one, as there is nothing else to come back to; another, edited by hand, a trial
    from this start on, which the table keeps once healthy on it as it keeps a change."""
    beside(path, REFUSED).unlink(missing_ok=True)
    text, good = read_text(path), beside(path, GOOD)
    try:
        proven = read_text(good)
    except ConfigError:  # none yet, or not one: nothing proven is lost
        replace_file(good, text.encode("utf-8"), _mode(path), like=path)
        return None
    if proven == text:
        return None
    under = Trial(_changed_keys(proven, text), HAND, (), time.time(), starts=1)
    _write_json(path, TRIAL, under.to_json())
    log.info("%s differs from the last good settings (%s): tried until the table is healthy on it", path,
             ", ".join(under.keys) or "its form alone")
    return under


def _changed_keys(old: str, new: str) -> tuple[str, ...]:
    """The ``section.key`` names whose values differ between two files (a file TOML cannot read
    has none)."""
    def values(text: str) -> dict[str, object]:
        try:
            document = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            return {}
        return {f"{section}.{name}": value for section, table in document.items() if isinstance(table, dict)
                for name, value in table.items()}

    before, after = values(old), values(new)
    return tuple(key for key in dict.fromkeys((*before, *after)) if before.get(key) != after.get(key))


def refuse(path: Path, why: Text, here: Text | None = None) -> None:
    """The file failed a start's checks and the table starts on the last good one: a note of
    why, in every language the table speaks, for the screen (``why``) and the staff page
    (``here``: its words say where on the page, not "on the staff page", to someone on it)."""
    said = {"at": time.time(), "why": {lang: say(why, lang) for lang in LANGUAGES}}
    if here is not None:
        said["here"] = {lang: say(here, lang) for lang in LANGUAGES}
    _write_json(path, REFUSED, said)
    log.error("%s is refused (%s): the table starts on the last good settings, %s", path, say(why, "en"),
              beside(path, GOOD))


def refused(path: Path) -> dict[str, Any] | None:
    """The note of a file the table would not start on, while it runs on the last good one."""
    return _read_note(path, REFUSED)


def discard(path: Path) -> bool:
    """The owner's word: the refused file is replaced by the last good one (the table restarts on
    it). False when there is no refusal to discard."""
    good = beside(path, GOOD)
    if refused(path) is None or not good.exists():
        return False
    replace_file(path, good.read_bytes(), _mode(path))
    beside(path, REFUSED).unlink(missing_ok=True)
    log.warning("the refused %s is discarded: the last good settings replace it", path)
    return True


def rolled_back(path: Path) -> dict[str, Any] | None:
    """The note of the last rollback, while no change has been kept since; None without one."""
    return _read_note(path, ROLLED_BACK)


def _read_note(path: Path, suffix: str) -> dict[str, Any] | None:
    """A note beside ``path``; None without one, or with one that is not a note."""
    try:
        note = read_json(beside(path, suffix).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return note if isinstance(note, dict) else None


def state(path: Path | None, lang: str) -> dict[str, Any]:
    """The settings' trial for the staff page: a change waiting to be proven healthy, and the
    last one rolled back (which keys, by whom, when, and why in ``lang``) until one is kept; a
    file refused at the start, and why in the page's words."""
    pending = None if path is None else pending_trial(path)
    note = None if path is None else rolled_back(path)
    refusal = None if path is None else refused(path)
    last = None
    if note is not None:
        why, keys = note.get("why"), note.get("keys")
        named = [key for key in keys if isinstance(key, str)] if isinstance(keys, list) else []
        last = {"at": note.get("at") if isinstance(note.get("at"), int | float) else None,
                "keys": named, "labels": labels(named, lang), "by": str(note.get("by", "")),
                "why": str(why.get(lang) or why.get("en") or "") if isinstance(why, dict) else ""}
    return {"trial": None if pending is None else {"keys": list(pending.keys), "labels": labels(pending.keys, lang),
                                                    "by": pending.by, "since": pending.since},
            "rolled_back": last,
            "refused": None if refusal is None else {
                "at": refusal.get("at") if isinstance(refusal.get("at"), int | float) else None,
                "why": str(why.get(lang) or why.get("en") or "") if isinstance(
                    why := refusal.get("here", refusal.get("why")), dict) else ""}}


def labels(keys: Iterable[str], lang: str) -> list[str]:
    """The settings ``keys`` as the owner knows them, by their labels in ``lang`` (issue 39: a
    rollback's note named ``web.enabled``); a key no setting has, as it is."""
    return [say(Phrase(BY_KEY[key].label), lang) if key in BY_KEY else key for key in keys]


def _copy(source: Path, to: Path) -> None:
    replace_file(to, read_text(source).encode("utf-8"), _mode(source), like=source)


def _mode(path: Path) -> int:
    """The file's own mode, kept by every rewrite; a new file gets the installer's 0640 (the staff
    in the table's group read the socket's path in it; no other user a broker's password)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o640


def _write_json(path: Path, suffix: str, data: dict[str, Any]) -> None:
    """A note beside the file ``path``, as readable as the file itself."""
    replace_file(beside(path, suffix), json.dumps(data).encode("utf-8"), _mode(path), like=path)
