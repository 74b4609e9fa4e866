"""The lasting notice of a reset of the owner's passphrase (issue 58): either way back, the
buttons' reset (``owners_part``) or the owner's recovery code, leaves it in the journal folder,
and the table shows it, on its screen, the staff page, its status and its fleet's reports, until
the owner acknowledges it on the staff page. Light: the table reads it at every start.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase
from ..files import read_json, write_private
from ..ui.i18n import moment_at

NOTICE = "owner.reset"  # in the journal folder: the last reset of the owner's passphrase, until acknowledged
HISTORY = "owner.resets"  # in the journal folder: every reset, acknowledged or not, the newest last
HISTORY_MOST = 50  # resets the history keeps
HOLD_S = 7 * 86400.0  # a buttons' reset's notice stands at least this long
PART = {
    "broker": N_("the broker's password or client key"),
    "dashboard": N_("the fleet dashboard's broker password"),
    "notify": N_("the notifications' address"),
    "recovery": N_("the recovery code"),
    "handout": N_("the café's tables' passwords still to hand out"),
    "offsite": N_("the network place the backups are copied to, and its password"),
    "backups": N_("the nightly backups"),
    "backup_key": N_("the backup key the copies off the SD card are sealed with"),
    "keys": N_("the release keys the owner added"),
    "cafe_broker": N_("the café's broker's passwords"),
}
"""Every piece of the owner's part, by its name, with the words the notice says it in."""
HOWS = {"buttons": N_("the owner's passphrase was reset with the table's buttons at {time} from {address}; wiped: "
                      "{wiped}. Copies of the backups on a USB stick or at the network place still hold the previous "
                      "owner's settings. The owner acknowledges it on the staff page, from another phone than the "
                      "one that made the reset, a week after it at the soonest"),
        "recovery": N_("the owner's passphrase was reset with the recovery code at {time} from {address}. The owner "
                       "acknowledges it on the staff page")}
"""The notice, by the way back taken."""


def note_reset(journal: Path, how: str, address: str | None, wiped: list[str], marks: Iterable[str] = (),
               clock: Callable[[], float] = time.time) -> Phrase:
    """The lasting notice of a reset of the owner's passphrase (``how``: "buttons" or "recovery")
    from ``address``, and what it wiped, kept in the journal folder until the owner acknowledges it,
    and in the history; ``marks``: the session and the phones that made it (hashes), which never
    acknowledge it."""
    reset = {"how": how, "at": clock(), "from": address or "?", "wiped": wiped}
    write_private(journal / NOTICE, json.dumps({**reset, "marks": list(marks)}).encode("utf-8"))
    write_private(journal / HISTORY, json.dumps([*history(journal), reset][-HISTORY_MOST:]).encode("utf-8"))
    notice = read_notice(journal)
    assert notice is not None  # just written
    return notice


def history(journal: Path) -> list[dict[str, Any]]:
    """Every reset kept, oldest first: how, at, from, wiped and, once acknowledged, when (a
    damaged history is none: the notice itself still stands)."""
    try:
        data = read_json((journal / HISTORY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [entry for entry in data if isinstance(entry, dict)] if isinstance(data, list) else []


def read_notice(journal: Path) -> Phrase | None:
    """The notice of the last reset, while the owner has not acknowledged it; None without one (a
    damaged note still says a reset happened: it is what the owner must see)."""
    try:
        data = read_json((journal / NOTICE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        data = {}
    data = data if isinstance(data, dict) else {}
    how = str(data.get("how"))
    how = how if how in HOWS else "buttons"  # a damaged note: the reset that wipes, the one to look into
    at = data.get("at")
    when = moment_at(at) if isinstance(at, int | float) else "?"
    wiped = tuple(Phrase.of(PART[piece]) for piece in data.get("wiped", []) if piece in PART) \
        if isinstance(data.get("wiped"), list) else ()
    return Phrase.of(HOWS[how], time=when, address=str(data.get("from", "?"))[:60],
                     wiped=wiped or (Phrase.of(N_("nothing: the owner had set none of it")),))


def acknowledge(journal: Path, marks: Iterable[str] = (), clock: Callable[[], float] = time.time) -> bool:
    """The owner has seen the notice: it goes, and the history notes when. Whether there was one.
    A buttons' reset's is refused (Refusal, saying why) to the session or a phone that made it
    (one of ``marks``), and to anyone before ``HOLD_S`` has passed."""
    try:
        data = read_json((journal / NOTICE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        data = {}
    data = data if isinstance(data, dict) else {}
    at = data.get("at")
    if data.get("how") != "recovery":  # a damaged note: the reset that wipes, the one to look into
        made = data.get("marks")
        if isinstance(made, list) and set(made) & set(marks):
            raise Refusal("the notice of the buttons' reset is for the owner who was reset: it cannot be acknowledged "
                          "from the phone that made the reset")
        if not isinstance(at, int | float) or clock() < at + HOLD_S:
            until = moment_at(at + HOLD_S) if isinstance(at, int | float) else "?"
            raise Refusal("the notice of the buttons' reset stands for a week: it can be acknowledged from {until}",
                          until=until)
    (journal / NOTICE).unlink(missing_ok=True)
    kept = history(journal)
    for entry in reversed(kept):
        if entry.get("at") == at:
            entry["acknowledged"] = clock()
            write_private(journal / HISTORY, json.dumps(kept).encode("utf-8"))
            break
    return True
