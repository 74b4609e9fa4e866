"""The security updates' side in the service (``release.system`` is the root helper's): the
schedule kept (the owner's ``[system] security_updates`` and ``security_hour``), never during
a game or a night: once a run is due, the root helper is asked at the first moment the table is
idle (no game under way with a move within ``PLAYED_S``, whatever the game) with no night open.
And the staff page's section (``web.sections.security``): the last run, what changed, whether a
reboot is due, and a run asked now by the owner.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..engine.phrase import N_, Phrase, Text
from ..release import system
from ..release.desk import said
from ..release.layout import HOME, Releases
from ..ui.i18n import say
from .rounds import Rounds

if TYPE_CHECKING:
    from ..config import Config
    from ..night.recorder import Recorder
    from ..table import Session
    from .first_boot import FirstBoot
    from .root_helper import RootHelper

log = logging.getLogger("pi_table.daemon")
EVERY_S = 300.0  # how often the schedule is looked at
PLAYED_S = 1200.0  # a game with no move for this long is left on the table, not being played
FIRST_S = 120.0  # after the start: the table settles (and a restart after a run is not taken for a new slot)

IN_A_GAME = N_("a game is being played: the security updates wait until the table is idle")
IN_A_NIGHT = N_("a game night is open: the security updates wait until it is closed")
SETTING_UP = N_("the table waits for its set-up: the security updates come once it is set up")
RUNNING = N_("the security updates are being applied already")
UNHEALTHY = N_("A security update left the table unhealthy.")
FAILED = N_("The security updates failed.")
REBOOT_FOR = N_("A reboot is due to finish the security updates ({packages}).")
REBOOT = N_("A reboot is due to finish the security updates.")
RESTART = N_("Restart the computer under Power.")
FAULTS = (UNHEALTHY, FAILED, REBOOT_FOR)
"""The templates of the headline's lines this module reports: docs/cafe/troubleshooting.md has an entry for each."""


class Table(Protocol):
    """What the schedule reads of the running table (``run.Daemon``)."""

    config: Config
    session: Session
    night: Recorder | None
    helper: RootHelper | None
    first_boot: FirstBoot | None


class SecurityUpdates(Rounds):
    """The schedule of ``daemon``'s table, looked at every ``every_s`` on the wall ``clock``; the
    helper's notes in ``home``; ``reboot_flag``, Debian's mark that a reboot is due (in /run,
    which a reboot empties)."""

    thread, what, first_s = "security-updates", "the security updates' schedule", FIRST_S

    def __init__(self, daemon: Table, home: Path = HOME, clock: Callable[[], float] = time.time,
                 every_s: float = EVERY_S, reboot_flag: Path = system.REBOOT_FLAG) -> None:
        super().__init__(every_s)
        self.daemon, self.home, self.clock = daemon, home, clock
        self.reboot_flag = reboot_flag
        self.asked: float | None = None  # when this service last asked the helper for a run
        self.said: Text | None = None  # why the last due run could not be asked (logged once)

    def note(self) -> dict[str, Any]:
        return Releases(self.home).note(system.NOTE) or {}

    def restarting_run(self) -> float | None:
        """When the run began whose restart this start is: a run that applied updates restarts the
        table, then asks its health, and its note says so meanwhile (``system.applied``); else None."""
        note = self.note()
        began = note.get("began")
        applying = note.get("running") is True and note.get("applied") is not None
        return float(began) if applying and isinstance(began, int | float) and not isinstance(began, bool) else None

    def busy(self) -> Text | None:
        """Why a run would disturb the table now (a game played: one with moves, not over, its
        last move within ``PLAYED_S`` as its journal was last written; a night open); None when
        idle. A game dealt and untouched is not played: its journal is written at the deal too. A
        table waiting for its set-up is not idle: the set-up's time zone and Wi-Fi go to the root
        helper first, which a run would hold for minutes (issue 75.6)."""
        if self.daemon.first_boot is not None and self.daemon.first_boot.waiting is not None:
            return Phrase.of(SETTING_UP)
        night, session = self.daemon.night, self.daemon.session
        if night is not None and night.book.night is not None and night.book.night.open:
            return Phrase.of(IN_A_NIGHT)
        journal = session.journal if session.record.moves and not session.state.is_over else None
        try:
            moved = None if journal is None else journal.path.stat().st_mtime
        except OSError:
            moved = None
        if moved is not None and self.clock() - moved < PLAYED_S:
            return Phrase.of(IN_A_GAME)
        return None

    def running(self) -> bool:
        """Whether a run is under way: noted begun by the helper, or asked lately and not yet begun."""
        note, now = self.note(), self.clock()
        if note.get("running") is True and now - float(note.get("began") or 0) < system.UPGRADE_S:
            return True
        return self.asked is not None and now - self.asked < system.ASKED_S and float(note.get("began") or 0) < self.asked

    def tick(self) -> bool:
        """The helper asked for a run when one is due and the table idle; whether it was asked."""
        schedule, now = self.daemon.config.security, self.clock()
        began = self.note().get("began")
        last = max(float(began) if isinstance(began, int | float) else 0.0, self.asked or 0.0) or None
        if not schedule.due(last, now) or self.running() or self.busy() is not None:
            return False
        problem = self._ask()
        if problem is not None and problem != self.said:  # a table with no helper says so once, not every tick
            log.warning("the security updates are due but cannot be asked for: %s", say(problem, "en"))
        self.said = problem
        return problem is None

    def run_now(self) -> Text | None:
        """The owner's run, now, whatever the schedule says; why not (one under way, no helper)."""
        if self.running():
            return Phrase.of(RUNNING)
        return self._ask()

    def _ask(self) -> Text | None:
        helper = self.daemon.helper
        if helper is None:
            return Phrase.of(N_("the table's phones' pages are off: nothing can ask the root helper"))
        problem = helper.ask("security")
        if problem is None:
            self.asked = self.clock()
            log.warning("the security updates asked of the root helper")
        return problem

    def view(self, lang: str) -> dict[str, Any]:
        """The section's: the schedule, whether a run is under way (``checking``: its updates
        ``applied``, the table's health asked on them) or would wait, and the last run (when, how
        it ended and why in ``lang``, what changed, whether a reboot is due)."""
        schedule, note = self.daemon.config.security, self.note()
        last = None
        if "outcome" in note:
            due = system.reboot_due(self.reboot_flag)  # as the system says now: the run's note is from before a reboot
            last = {key: note.get(key) for key in ("at", "outcome", "changed")} | {
                "reboot": due is not None, "reboot_for": due or [], "why": (said(note.get("why")) or {}).get(lang)}
        running = self.running()
        waits = None if running else self.busy()  # a run under way (the owner's) waits for nothing
        applied = note.get("applied") if running and note.get("running") is True else None
        return {"schedule": {"every": schedule.every, "hour": schedule.hour}, "running": running,
                "checking": applied is not None, "applied": applied or [],
                "waits": None if waits is None else say(waits, lang), "last": last}

    def attention(self, lang: str) -> list[dict[str, str]]:
        """What the staff page's headline says of the last run, in ``lang``: one that left the
        table unhealthy, or failed, and why (nothing once a later run ended well); and a reboot
        due, as the system says now, until the computer restarts."""
        note, found = self.note(), []
        what = {"unhealthy": UNHEALTHY, "failed": FAILED}.get(str(note.get("outcome")))
        if what is not None:
            found.append({"what": say(Phrase.of(what), lang), "advice": (said(note.get("why")) or {}).get(lang, "")})
        due = system.reboot_due(self.reboot_flag)
        if due is not None:
            reboot = Phrase.of(REBOOT_FOR, packages=", ".join(due)) if due else Phrase.of(REBOOT)
            found.append({"what": say(reboot, lang), "advice": say(Phrase.of(RESTART), lang)})
        return found
