"""The owner's acts that restart the table (issue 62, 3): making the broker, adding or taking off a
table, giving a file (the dashboard, the certificate, the fleet broker), changing an owner's
setting, discarding a refused settings file, restoring a backup. Each ends the page's server, and with it the owner's unlock
and what the page had said: the owner never learnt whether it worked.

Their results are kept in ``owner.acts``, in the journal folder (0600, replaced whole), across
the restart they cause: one a section, each the section's sentence of ``RESULTS`` and when, never
a value the owner gave (a password, a URL that may hold one) nor any field at all, and shown for
``RESULT_S`` to whoever looks at the section, the staff too: the result, not the power.

The unlock (``roles.Owner``) is in memory only, deliberately: a power cut, a crash or a restart
someone else asked for ends it, as the owner expects of a passphrase given minutes ago, and a
file that kept it would be one more way in to the owner's power. Only the restart an owner's
own act asked for carries it, on the phone whose session asked (``carried``), when the table is
back within ``CARRY_S`` of the act (or, for a run the root helper restarts the table in minutes
later, the security updates', when the run began within ``CARRY_S`` of it), on the same owner's
passphrase, and only to the moment it ended anyway: a restart never lengthens it.

The note is read strictly: a note that is not what this module writes is no note (no result
shown, no unlock carried), and the log says why once, without its contents.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..engine.phrase import N_, Phrase
from ..errors import PiTableError
from ..files import NotAFile, TooBig, read_file, read_json, write_private
from ..ui.i18n import say

log = logging.getLogger("pi_table.web.acts")
ACTS_FILE = "owner.acts"
ACTS_MOST = 16 * 1024  # bytes: a result for each section and one unlock are a few hundred
RESULTS_MOST = 16  # results kept: one a section
RESULT_S = 24 * 3600.0  # a result is shown this long after its act
CARRY_S = 300.0  # an unlock is carried across a restart the owner's act asked for within this long

SAVED = N_("Saved, and the table has restarted on it; it goes back by itself if it is not healthy.")
BROKER_DONE = N_("Done: the café's broker is changed, and this table has restarted on it.")
SETTINGS_SAVED = N_("Saved: the table has restarted on the new settings; they go back by themselves if it is not healthy.")
DISCARDED = N_("Discarded: the table has restarted on its last good settings.")
RESTORED = N_("Restored: the table has restarted on the backup; it goes back by itself if it is not healthy.")
ROLLED_BACK = N_("Rolled back: the table was not healthy on it and went back by itself to what it had before; "
                  "Health says why.")
RESULTS = {"files": SAVED, "dashboard": SAVED, "notify": SAVED, "broker": BROKER_DONE, "config": SETTINGS_SAVED, "config-discard": DISCARDED,
           "care": RESTORED}
"""Each section's result of an owner's act that restarted the table: the only sentences a note
holds, with ``ROLLED_BACK`` once the change it made was rolled back."""

SECTION = re.compile(r"[a-z][a-z-]{0,31}")
HASH = re.compile(r"[0-9a-f]{64}")
_LOCK = threading.Lock()  # the page and the daemon's threads write the same note


class Damaged(PiTableError, ValueError):
    """A note that is not what ``ActNotes`` writes: why, in words, without its contents."""


class ActNotes:
    """The note of the owner's acts in ``folder`` (the journal's; None: nothing is kept), on the
    wall ``clock`` (it outlives a restart)."""

    def __init__(self, folder: Path | None, clock: Callable[[], float] = time.time) -> None:
        self.path = None if folder is None else folder / ACTS_FILE
        self.clock = clock
        self._told: str | None = None  # why the note was refused, as the log last said it

    def asked(self, section: str, session: str, owner: str, until: float, restarting: bool) -> None:
        """An owner's act of ``section`` that restarts the table: now (``restarting``), its result
        kept at once; or once it is done (``done`` keeps it then). The unlock of the session whose
        CSRF token's hash is ``session`` (acting as the owner until ``until``, on the passphrase
        whose hash's hash is ``owner``) is carried across that restart alone."""
        now = self.clock()
        carry = {"session": session, "owner": owner, "until": until, "asked": now, "section": section,
                 "restart": restarting}
        self._change(lambda note: note | {"carry": carry}
                     | ({"results": note["results"] | {section: _kept(section, now)}} if restarting else {}))

    def done(self, section: str) -> None:
        """``section``'s act is done, just before the restart it asks for (the broker's, after its
        helper): its result is kept, and an unlock its asking left waits for that restart."""
        now = self.clock()

        def armed(note: dict[str, Any]) -> dict[str, Any]:
            carry = note["carry"]
            if carry is not None and carry["section"] == section:
                carry = carry | {"restart": True, "asked": now}
            return note | {"carry": carry, "results": note["results"] | {section: _kept(section, now)}}

        self._change(armed)

    def carried(self, runs: Mapping[str, float] | None = None) -> tuple[str, str, float] | None:
        """The unlock to carry across this start (the session's token hash, the passphrase's, until
        when), when an owner's act asked for a restart within ``CARRY_S``, or this start is the
        restart of a run the act started within ``CARRY_S`` of it (``runs``: by section, when the
        run began that restarts the table by the root helper's hand, minutes later: the security
        updates'); once: it is forgotten."""
        carry = self._read()["carry"]
        if carry is None:
            return None
        self._change(lambda note: note | {"carry": None})
        began = (runs or {}).get(carry["section"])
        asked_now = carry["restart"] and 0 <= self.clock() - carry["asked"] <= CARRY_S
        if not asked_now and not (began is not None and 0 <= began - carry["asked"] <= CARRY_S):
            return None
        return carry["session"], carry["owner"], float(carry["until"])

    def results(self, lang: str) -> dict[str, dict[str, Any]]:
        """Each section's last result, said in ``lang``, and when its act was asked."""
        return {section: {"said": say(Phrase.of(kept["said"]), lang), "at": kept["at"]}
                for section, kept in self._read()["results"].items()}

    def rolled_back(self, began: Iterable[float]) -> None:
        """The results whose change was rolled back (``began``: when each trial rolled back began;
        an act is noted within ``CARRY_S`` after its trial begins) say so from now on (issue 75, 2):
        a later change kept takes the rollback's note away, never what became of this act."""
        began = tuple(began)

        def undone(kept: dict[str, Any]) -> bool:
            return kept["said"] != ROLLED_BACK and any(0 <= kept["at"] - since <= CARRY_S for since in began)

        if any(undone(kept) for kept in self._read()["results"].values()):
            self._change(lambda note: note | {"results": {
                section: kept | {"said": ROLLED_BACK} if undone(kept) else kept
                for section, kept in note["results"].items()}})

    def _read(self) -> dict[str, Any]:
        """The note, its results within ``RESULT_S``; an empty one when there is none or it is damaged."""
        if self.path is None:
            return {"results": {}, "carry": None}
        try:
            note = checked(read_json(read_file(self.path, ACTS_MOST)))
        except FileNotFoundError:
            return {"results": {}, "carry": None}
        except (Damaged, TooBig) as e:
            return self._refused(str(e))
        except NotAFile:
            return self._refused("not a regular file")
        except OSError as e:
            return self._refused(e.strerror or type(e).__name__)
        except ValueError:  # JSON's, and UTF-8's
            return self._refused("not JSON")
        now = self.clock()
        note["results"] = {section: kept for section, kept in note["results"].items() if now - kept["at"] <= RESULT_S}
        return note

    def _refused(self, why: str) -> dict[str, Any]:
        """No note, and the log says ``why`` once (not again while the note is refused for it)."""
        if why != self._told:
            log.warning("the owner's acts' note %s is refused (%s): its results are not shown and no unlock is "
                        "carried", self.path, why)
            self._told = why
        return {"results": {}, "carry": None}

    def _change(self, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        if self.path is None:
            return
        with _LOCK:
            note = change(self._read())
            try:
                write_private(self.path, json.dumps(checked(note)).encode("utf-8"))
            except OSError as e:
                log.warning("cannot keep the owner's acts' note %s (%s): a restart forgets their results", self.path,
                            e.strerror or e)


def _kept(section: str, at: float) -> dict[str, Any]:
    return {"said": RESULTS[section], "at": at}


def checked(note: object) -> dict[str, Any]:
    """``note`` if it is one ``ActNotes`` writes; else Damaged, saying what was expected. Written
    notes pass here too."""
    if not isinstance(note, dict) or set(note) - {"results", "carry"} or not isinstance(note.get("results", {}), dict):
        raise Damaged('expected {"results": {SECTION: RESULT}, "carry": UNLOCK or null}')
    results, carry = note.get("results", {}), note.get("carry")
    if len(results) > RESULTS_MOST:
        raise Damaged(f"at most {RESULTS_MOST} results, found {len(results)}")
    for section, kept in results.items():
        if not SECTION.fullmatch(section) or not isinstance(kept, dict) or set(kept) != {"said", "at"}:
            raise Damaged('a result is {"said", "at"} under the name of its section')
        if kept["said"] not in (RESULTS.get(section), ROLLED_BACK):
            raise Damaged("a result is the table's sentence for its section")
        if not _time(kept["at"]):
            raise Damaged("a result's time is a number of seconds")
    if carry is not None and not (
            isinstance(carry, dict) and set(carry) == {"session", "owner", "until", "asked", "section", "restart"}
            and all(isinstance(carry[key], str) and HASH.fullmatch(carry[key]) for key in ("session", "owner"))
            and _time(carry["until"]) and _time(carry["asked"]) and isinstance(carry["section"], str)
            and SECTION.fullmatch(carry["section"]) and isinstance(carry["restart"], bool)):
        raise Damaged('the unlock carried is {"session", "owner": HASH, "until", "asked": SECONDS, "section": NAME, '
                      '"restart": true or false} or null')
    return {"results": results, "carry": carry}


def _time(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
