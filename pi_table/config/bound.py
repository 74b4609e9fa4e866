"""Each secret the settings name bound to the destination it was given for (issue 74): a secret
goes only where its owner gave it, whatever names it later.

A secret file in the secrets folder (``kinds.SecretFile``) is written with the setting it was
given as and its destination, in that folder's ledger (``LEDGER``, 0600): the broker's password
with the broker's scheme, host and port (``broker_destination``), the dashboard's likewise, the
notifications' address with the address itself (``address_destination``). Before a secret is
sent, ``refused`` compares what names it now with what it was given for: another setting,
another broker, a file the ledger does not know, and the table does not send it, saying why.
So a change of destination by any way (the page, a restored backup, a hand edit of the file)
leaves the secret where it was until the owner gives it again for the new destination.

A table from before this ledger has none: its start (before a restored backup is applied) and
a restore's check begin it, binding the files its own settings name then (``begin``); a
secret file read where no ledger is (a tool's, not a table's) is bound at its first use. The
network place's password and a league's are kept or sent whole with their destination
(``daemon.offsite``, ``release.broker``); ``same_destination`` is their test of a change.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import urllib.parse
from collections.abc import Mapping
from pathlib import Path

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase, Text
from ..files import read_file, read_json, write_private
from ..kinds import SECRETS
from .machine import read_password

log = logging.getLogger("pi_table.config")
LEDGER = ".given-for.json"
"""In the secrets folder: each secret file's name, the setting it was given as and its destination."""
LEDGER_MOST = 256 * 1024  # a few hundred files at most: the owner's page writes a few a year
PASSWORD, DASHBOARD, NOTIFY = "fleet.password_file", "fleet.dashboard_password_file", "notify.url_file"
WHAT = {PASSWORD: N_("the broker's password"), DASHBOARD: N_("the fleet dashboard's broker password"),
        NOTIFY: N_("the notifications' address")}
"""The settings that name a secret file a destination is bound to, each as the owner knows it."""


def broker_destination(url: str) -> str:
    """Where a broker's password goes: the broker's scheme, host and port (its scheme's port when
    none is written), whatever the user; '' for no broker or a URL that names none."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port or (8883 if parts.scheme.lower() == "mqtts" else 1883)
    except ValueError:  # a port out of range: no broker
        return ""
    host = parts.hostname or ""
    if not host or parts.scheme.lower() not in ("mqtt", "mqtts"):
        return ""
    return f"{parts.scheme.lower()}://{f'[{host}]' if ':' in host else host}:{port}"


def address_destination(text: str) -> str:
    """Where a secret that is its own address goes (the notifications' Apprise URL): that
    address, kept in the ledger by its hash (the ledger holds no secret)."""
    return "sha256:" + hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def same_destination(given: str, now: str) -> bool:
    """Whether a secret given for ``given`` may go to ``now``: the one destination, never none."""
    return bool(given) and given == now


def _ledger(file: str) -> Path:
    return Path(os.path.realpath(file)).parent / LEDGER


def _entries(ledger: Path) -> dict[str, dict[str, str]] | None:
    """The ledger's entries; None when there is none yet (a table from before it). One that
    cannot be read binds nothing: every secret is refused until given again."""
    try:
        found = read_json(read_file(ledger, LEDGER_MOST))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        log.error("the secrets' ledger %s cannot be read (%s): no secret is sent until given again", ledger,
                  getattr(e, "strerror", None) or type(e).__name__)
        return {}
    return {name: entry for name, entry in found.items() if isinstance(entry, dict)} if isinstance(found, dict) else {}


def give(file: str, key: str, given_for: str) -> None:
    """The owner gave the secret in ``file`` as ``key``, for ``given_for``: noted in the ledger."""
    ledger = _ledger(file)
    entries = _entries(ledger) or {}
    entries[os.path.basename(os.path.realpath(file))] = {"key": key, "for": given_for}
    write_private(ledger, json.dumps(entries, indent=1, sort_keys=True).encode())


def given_for(file: str, key: str) -> str | None:
    """The destination the secret in ``file`` was given for as ``key``; None when it was given
    as another setting or not given at all (the ledger does not know it)."""
    entries = _entries(_ledger(file)) or {}
    entry = entries.get(os.path.basename(os.path.realpath(file)))
    return entry.get("for") if entry is not None and entry.get("key") == key else None


def refused(file: str, key: str, now: str) -> Phrase | None:
    """Why the secret in ``file``, named as ``key``, may not go to ``now``; None when it was given
    for it. Where no ledger is yet (a tool's file, no table's) the first use binds it to ``now``."""
    if _entries(_ledger(file)) is None:
        give(file, key, now)
        log.info("%s in %s bound to %s: its first use", key, file, now)
        return None
    return why_not(file, key, now)


def why_not(file: str, key: str, now: str) -> Phrase | None:
    """Why the secret in ``file``, named as ``key``, may not go to ``now`` (the ledger's word
    alone: a file it does not know was given for nothing); None when it was given for it."""
    was = given_for(file, key)
    what = Phrase.of(WHAT.get(key, key))
    if was is None:
        return Phrase.of("{what} in {file} was not given on the staff page as this setting: it is sent nowhere until "
                         "the owner gives it again", what=what, file=os.path.basename(file))
    if not same_destination(was, now):
        return Phrase.of("{what} was given for {given}, not for {now}: it is sent nowhere until the owner gives it "
                         "again for {now}", what=what, given=_shown(was), now=_shown(now) or Phrase.of("no destination"))
    return None


def read_bound_password(file: str, key: str, now: str) -> str:
    """The password in ``file`` to send to ``now``; Refusal when it was not given for it (the
    reason, never the file's contents), OSError when it cannot be read."""
    password = read_password(file)
    why = refused(file, key, now)
    if why is not None:
        raise Refusal(why)
    return password


def begin(source: Path | None, values: Mapping[str, object]) -> None:
    """A table with no ledger yet in the secrets folder beside its configuration ``source``: the
    secret files its settings ``values`` name bound to their destinations now, once, and the
    ledger begun (empty when they name none), so no later setting binds a file by naming it
    first. At a start, before a restored backup is applied, and at a restore's check."""
    if source is None:
        return
    folder = source.parent / SECRETS
    ledger = folder / LEDGER
    if not folder.is_dir() or _entries(ledger) is not None:
        return
    entries = {}
    for key in WHAT:
        file = str(values.get(key, "") or "")
        if not file or not os.path.isfile(file) or _ledger(file) != ledger:
            continue
        try:
            now = address_destination(Path(file).read_text(encoding="utf-8")) if key == NOTIFY else \
                broker_destination(str(values.get("fleet.broker", "") or ""))
        except (OSError, UnicodeDecodeError):
            continue  # bound to nothing: sent nowhere until given again
        if now:
            entries[os.path.basename(os.path.realpath(file))] = {"key": key, "for": now}
    try:
        write_private(ledger, json.dumps(entries, indent=1, sort_keys=True).encode())
    except OSError as e:  # a read-only card: each secret is bound at its first use, which writes it too
        log.error("the secrets' ledger cannot be begun in %s: %s", folder, e.strerror or e)
        return
    log.info("the secrets' ledger begun in %s: %s", folder, ", ".join(entries) or "no secret named")


def forget_missing(folder: Path) -> None:
    """The ledger's entries for files no longer in ``folder`` dropped (the owner's files pruned)."""
    ledger = folder / LEDGER
    entries = _entries(ledger)
    if not entries:
        return
    kept = {name: entry for name, entry in entries.items() if (folder / name).is_file()}
    if kept != entries:
        write_private(ledger, json.dumps(kept, indent=1, sort_keys=True).encode())


def _shown(where: str) -> Text:
    """A destination as a message says it: a broker's address, or the notifications' address by name."""
    return Phrase.of("another notifications' address") if where.startswith("sha256:") else where
