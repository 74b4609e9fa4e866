"""The owner's part of the table (issue 58): everything only the owner holds, declared here once
(``PART``), which the buttons' reset wipes before a new owner's passphrase is set, as a router's
factory reset does: whoever holds both buttons while the table starts (the staff stand at the
table every night) gets a table with none of the owner's secrets, never the owner's data. And the
lasting notice either way back (the buttons' reset, the owner's recovery code) leaves, on the
staff page, the table's screen, its status and its fleet's reports, until the owner acknowledges it.

The part, each piece by the name the notice says it by:

- the settings that hold or name a password (``SETTINGS``): the broker's password in its URL and
  in its file, the fleet dashboard's broker password, the notifications' Apprise URL; emptied in the configuration and in its
  last good copy (which a rollback would put back), and the files that held them removed;
- the owner's files in the journal folder (``JOURNAL_FILES``, from ``backup.owners``, which says what
  of each a backup holds): the recovery code's hash, the café's
  tables' passwords still to hand out (``broker_desk``), the network place the backups are copied to
  with its password, its pinned SSH key and its own CA (``offsite``), the backup key the copies off
  the card are sealed with (``sealed``);
- the nightly backups (each holds the settings as they were);
- what root holds, through the root helper's ``owner-wipe``: the release keys the owner added from
  the staff page and the café's broker's passwords (``release.helper``).

The owner's passphrase itself is replaced by the reset. What stays is in ``KEPT``, with why.
"""

from __future__ import annotations

import logging
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..config import ConfigError, trial
from ..config.settings import BROKER, PASSWORD_FILE, hide_password, keep_password
from ..engine.errors import Refusal
from ..engine.phrase import Text
from ..files import replace_file
from ..release.layout import Releases, act_note
from . import backup, offsite, owner_files
from .owner_notice import PART

if TYPE_CHECKING:
    from ..config import Config

log = logging.getLogger("pi_table.daemon")
DASHBOARD_PASSWORD = "fleet.dashboard_password_file"
NOTIFY_URL = "notify.url_file"  # the Apprise URL of the owner's notifications: a token, a mail password
SETTINGS = {BROKER: "broker", PASSWORD_FILE: "broker", "fleet.cert": "broker", "fleet.key": "broker",
            DASHBOARD_PASSWORD: "dashboard", NOTIFY_URL: "notify"}
"""The settings that hold a password (the broker's URL) or name a file that does, or the table's
client key for the broker (with its certificate), by the piece of the part each is."""
JOURNAL_FILES = {name: owned.piece for name, owned in backup.owners().items()}
"""The owner's files in the journal folder, by the piece of the part each is (``backup.owners``:
the one list, which says what of each a backup holds)."""
KEPT = {
    "web.tls_key": "the https key: the table's identity to the phones, shown on no page and sent nowhere; a new "
                   "owner gives the table a certificate of their own",
    "owner.pass": "the owner's passphrase: the reset replaces it",
    "staff.pin": "the staff PIN: the staff's, whom the reset does not concern",
}
"""What an owner set that the reset keeps, and why: nothing a page, a backup or a report hands over."""
WAIT_S = 120.0  # the root helper's wipe: two small files and a reload of Mosquitto
POLL_S = 0.2


class RootHelper(Protocol):
    """The root helper as the reset asks it (``root_helper.RootHelper``)."""

    home: Path  # the releases' folder, where it notes how an act ended
    helper_missing: Callable[[], Text | None]

    def ask(self, act: str, **args: object) -> Text | None: ...


def wipe(config: Config, helper: RootHelper, wait_s: float = WAIT_S,
         before: Callable[[], object] = lambda: None) -> list[str]:
    """The owner's part wiped, root's first (through ``helper``): the names of the pieces that
    held something. Refusal, saying why, while a restored backup is tried (its start would bring
    the owner's settings back) or when root's part cannot be wiped (nothing here is wiped then).
    ``before``: what must happen while the part is still whole (the owner told, at their address)."""
    if backup.pending(config) is not None:
        raise Refusal("a restored backup is being tried: reset the owner's passphrase once it is kept or rolled back")
    before()
    wiped = _root(helper, wait_s)
    if config.source is not None:
        wiped += [SETTINGS[key] for key in _settings(config.source)]
        owner_files.prune(config)  # the files that held them, no settings naming them now
    journal = config.paths.journal_dir
    for name, piece in JOURNAL_FILES.items():
        if (journal / name).exists():
            (journal / name).unlink()
            wiped.append(piece)
    (backup.folder(config) / offsite.NOTE).unlink(missing_ok=True)  # where the place was: the new owner's own
    nightly = backup.kept(backup.folder(config))
    for path in nightly:
        path.unlink(missing_ok=True)
    if nightly:
        wiped.append("backups")
    log.warning("the owner's part wiped by the buttons' reset: %s", ", ".join(wiped) or "it held nothing")
    return [piece for piece in PART if piece in wiped]  # in the part's order


def _settings(source: Path) -> set[str]:
    """The passwords out of the configuration and its last good copy (a copy that cannot be
    changed is removed: no rollback brings a password back); the keys the configuration held one in."""
    from ..config.writing import changed_text  # tomlkit: loaded for a reset alone

    emptied: set[str] = set()
    for path in (trial.beside(source, trial.GOOD), source):
        try:
            document: dict[str, Any] | None = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            document = None
        changes = _emptied(document) if document is not None else None
        try:
            if changes:
                replace_file(path, changed_text(path, changes).encode("utf-8"), path.stat().st_mode & 0o777)
        except ConfigError:
            changes = None
        if changes is None and not (path == source and trial.discard(source)):  # the refused file: the good one
            path.unlink()
        if path == source:
            emptied = set(SETTINGS) if changes is None else set(changes)
    return emptied


def _emptied(document: dict[str, Any]) -> dict[str, object] | None:
    """The changes that empty the secrets a configuration holds: the broker URL's password dropped,
    the files unnamed; None when a section they are in is no table."""
    changes: dict[str, object] = {}
    sections = {key.partition(".")[0] for key in SETTINGS}
    if any(not isinstance(document.get(section, {}), dict) for section in sections):
        return None
    broker = document.get("fleet", {}).get("broker")
    if isinstance(broker, str) and hide_password(broker) != broker:
        changes[BROKER] = keep_password(hide_password(broker), "")
    for key in SETTINGS.keys() - {BROKER}:
        section, _, name = key.partition(".")
        if document.get(section, {}).get(name):
            changes[key] = ""
    return changes


def _root(helper: RootHelper, wait_s: float) -> list[str]:
    """Root's part wiped by the helper's ``owner-wipe``, waited for: the pieces it held. Without a
    helper on this computer root holds none of the owner's (its keys and broker come through it)."""
    if helper.helper_missing() is not None:
        return []
    releases = Releases(helper.home)
    asked = time.time()
    if (problem := helper.ask("owner-wipe")) is not None:
        raise Refusal("the computer's helper cannot wipe the owner's release keys and broker ({problem}): nothing "
                      "was reset", problem=problem)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        note = releases.note(act_note("owner-wipe")) or {}  # its own: another act meanwhile leaves it
        at = note.get("at")
        if note.get("act") == "owner-wipe" and isinstance(at, int | float) and at >= asked - 1:
            if note.get("outcome") != "done":
                raise Refusal("the computer's helper could not wipe the owner's release keys and broker: nothing "
                              "was reset; see the log (journalctl -u pi-table-helper)")
            return [piece for piece, held in (("keys", note.get("keys")), ("cafe_broker", note.get("broker_users")))
                    if held]
        time.sleep(POLL_S)
    raise Refusal("the computer's helper did not wipe the owner's release keys and broker within {seconds} s: nothing "
                  "was reset", seconds=round(wait_s))
