"""The lasting notice of a reset of the owner's passphrase (issue 58): either way back, the
buttons' reset (``owners_part``) or the owner's recovery code, leaves it in the journal folder,
and the table shows it, on its screen, the staff page, its status and its fleet's reports, until
the owner acknowledges it on the staff page. Light: the table reads it at every start.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from ..engine.phrase import N_, Phrase
from ..files import read_json, write_private

NOTICE = "owner.reset"  # in the journal folder: the last reset of the owner's passphrase, until acknowledged
PART = {
    "broker": N_("the broker's password or client key"),
    "dashboard": N_("the fleet dashboard's broker password"),
    "notify": N_("the notifications' address"),
    "recovery": N_("the recovery code"),
    "handout": N_("the café's tables' passwords still to hand out"),
    "offsite": N_("the network place the backups are copied to, and its password"),
    "backups": N_("the nightly backups"),
    "keys": N_("the release keys the owner added"),
    "cafe_broker": N_("the café's broker's passwords"),
}
"""Every piece of the owner's part, by its name, with the words the notice says it in."""
HOWS = {"buttons": N_("the owner's passphrase was reset with the table's buttons at {time} from {address}; wiped: "
                      "{wiped}. The owner acknowledges it on the staff page"),
        "recovery": N_("the owner's passphrase was reset with the recovery code at {time} from {address}. The owner "
                       "acknowledges it on the staff page")}
"""The notice, by the way back taken."""


def note_reset(journal: Path, how: str, address: str | None, wiped: list[str], clock: Callable[[], float] = time.time,
               ) -> Phrase:
    """The lasting notice of a reset of the owner's passphrase (``how``: "buttons" or "recovery")
    from ``address``, and what it wiped, kept in the journal folder until the owner acknowledges it."""
    write_private(journal / NOTICE, json.dumps({"how": how, "at": clock(), "from": address or "?",
                                                "wiped": wiped}).encode("utf-8"))
    notice = read_notice(journal)
    assert notice is not None  # just written
    return notice


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
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if isinstance(at, int | float) else "?"
    wiped = tuple(Phrase.of(PART[piece]) for piece in data.get("wiped", []) if piece in PART) \
        if isinstance(data.get("wiped"), list) else ()
    return Phrase.of(HOWS[how], time=when, address=str(data.get("from", "?"))[:60],
                     wiped=wiped or (Phrase.of(N_("nothing: the owner had set none of it")),))


def acknowledge(journal: Path) -> bool:
    """The owner has seen the notice: it goes. Whether there was one."""
    try:
        (journal / NOTICE).unlink()
    except FileNotFoundError:
        return False
    return True
