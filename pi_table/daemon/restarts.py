"""The staff's restarts: a change of settings written as a trial, the restart that applies it
(the exit code systemd restarts the table on), at most a few in the unit's start-limit window,
and the watch that keeps the change once the table is healthy again or rolls it back.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..config import BY_KEY, ConfigError, trial
from ..engine.phrase import N_, Phrase
from ..files import read_json, write_private
from ..hal import events
from ..hal.events import NOT_WORKING
from ..table.loop import NotAnswering

if TYPE_CHECKING:
    from ..config import Config
    from ..table.loop import EventLoop
    from ..web import Companion
    from .devices import Devices
    from .trial import Health, TrialWatch

log = logging.getLogger("pi_table.daemon")
EXIT_RESTART = 3  # the staff asked for a restart: a failure to systemd (Restart=on-failure), which starts the table again
RESTART_WINDOW_S = 120.0  # the unit's StartLimitIntervalSec
STAFF_RESTARTS = 3  # the staff's restarts in a window at most: with a crash, still under the unit's StartLimitBurst
RESTARTS_FILE = "staff.restarts"  # their times, in the journal folder: they outlive the restarts they count
SHOWN_FILE = "rollback.shown"  # the time of the settings' rollback a healthy start has shown, in the journal folder


class Table(Protocol):
    """What the restarts need of the running table (``run.Daemon``)."""

    config: Config
    devices: Devices
    loop: EventLoop
    companion: Companion | None

    def health(self, lang: str = "en") -> dict[str, str]: ...

    def end_for_restart(self) -> None: ...


class Restarts:
    """The running table's changes of settings and the restarts that apply them. ``lock`` makes
    one change of the file (and of the table) at a time, and a restart waits for the change under
    way. ``watch`` is the trial's watch when the table started on settings under trial."""

    def __init__(self, daemon: Table, under_trial: trial.Trial | None, deadline_s: float,
                 restoring: trial.Trial | None = None) -> None:
        self.daemon = daemon
        self.lock = threading.RLock()
        self._later: threading.Timer | None = None  # a staff restart asked too soon after others
        self._due = 0.0  # when it happens, on the monotonic clock
        self.watch: TrialWatch | None = None
        self.stopping = threading.Event()  # the table is stopping: ``settle`` waits no more
        config, source = daemon.config, daemon.config.source
        if restoring is not None:  # a start on a restored backup: a restore waits for no change, and no change for it
            from . import backup  # the backups' code, loaded only for a restore
            from .trial import TrialWatch, steady_s

            def kept() -> None:  # the restored settings are good: a rollback of settings before them is over
                backup.keep(config)
                self._forget_rollback()

            self.watch = TrialWatch(backup.trial_path(config), restoring, self.health, self.restart, deadline_s,
                                    keep=kept,
                                    roll_back=lambda why: backup.roll_back_later(config, restoring, why),
                                    steady_s=steady_s(), paused=lambda: backup.paused(config, restoring))
        elif under_trial is not None and source is not None:
            from .trial import TrialWatch, steady_s  # a start on settings under trial only

            self.watch = TrialWatch(source, under_trial, self.health, self.restart, deadline_s, steady_s=steady_s())

    def settle(self) -> None:
        """On a start with no trial, once the table is healthy: the settings' rollback is noted for
        the staff page until a healthy start has shown it and another follows (or a change or a
        restore is kept), so it does not stay the page's headline through every restart after."""
        from .trial import PERIOD_S  # the watch's pace, after READY

        source = self.daemon.config.source
        note = None if source is None else trial.rolled_back(source)
        if note is None or self.watch is not None:
            return
        deadline = time.monotonic() + trial.DEADLINE_S
        while self.health().why is not None:
            if self.stopping.wait(PERIOD_S) or time.monotonic() > deadline:
                return
        shown = self.daemon.config.paths.journal_dir / SHOWN_FILE
        try:
            seen = read_json(shown.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            seen = None
        if seen == note.get("at"):
            self._forget_rollback()
            log.info("the settings' rollback was shown at a healthy start before this one: its note is let go")
            return
        try:
            write_private(shown, json.dumps(note.get("at")).encode())
        except OSError as e:
            log.warning("cannot note that the settings' rollback was shown (%s): it stays on the staff page", e)

    def _forget_rollback(self) -> None:
        """The settings' rollback is over for the staff page: its note, and the mark of it shown."""
        source = self.daemon.config.source
        if source is not None:
            trial.beside(source, trial.ROLLED_BACK).unlink(missing_ok=True)
        (self.daemon.config.paths.journal_dir / SHOWN_FILE).unlink(missing_ok=True)

    def restart(self) -> float:
        """Stop, and have ``serve`` exit with ``EXIT_RESTART`` for systemd to start the table again;
        the seconds until it does. At most ``STAFF_RESTARTS`` in ``RESTART_WINDOW_S``: more would
        trip the unit's start limit, and systemd would leave the table down until someone with
        SSH starts it, so a restart asked sooner waits its turn (settings saved meanwhile go with it)."""
        with self.lock:
            if self._later is not None:
                return max(0.0, self._due - time.monotonic())
            now = time.time()
            recent = self._recent(now)
            if len(recent) >= STAFF_RESTARTS:
                wait = recent[-STAFF_RESTARTS] + RESTART_WINDOW_S - now
                log.info("restart in %.0f s: the staff restarted the table %d times in %.0f s", wait, len(recent),
                         RESTART_WINDOW_S)
                self._due = time.monotonic() + wait
                self._later = threading.Timer(wait, self._when_due)
                self._later.daemon = True
                self._later.start()
                return wait
            self._keep([*recent, now])
        self.daemon.end_for_restart()
        return 0.0

    def _when_due(self) -> None:
        with self.lock:
            self._later = None
        self.restart()  # counted now that its turn has come

    def _recent(self, now: float) -> list[float]:
        """The times of the staff's restarts within the window, oldest first."""
        try:
            kept = read_json((self.daemon.config.paths.journal_dir / RESTARTS_FILE).read_text(encoding="utf-8"))
            return sorted(t for t in kept if isinstance(t, (int, float)) and 0 <= now - t < RESTART_WINDOW_S)
        except FileNotFoundError:
            return []
        except (OSError, ValueError, TypeError) as e:
            log.warning("cannot read the staff's restarts (%s): counting from now", e)
            return []

    def _keep(self, times: list[float]) -> None:
        try:
            write_private(self.daemon.config.paths.journal_dir / RESTARTS_FILE, json.dumps(times).encode())
        except OSError as e:
            log.warning("cannot keep the staff's restarts (%s): a hurried staff may trip systemd's start limit", e)

    def close(self, asked: bool = False) -> None:
        """The table is stopping: a restart waiting its turn is no longer due, and the trial is
        decided by the next start; a stop ``asked`` for (a Restart, systemd's stop) is no death of it."""
        self.stopping.set()
        if self._later is not None:
            self._later.cancel()
        if self.watch is not None:
            self.watch.stop(clean=asked)

    def change(self, changes: dict[str, object], proven: bool, reached: str | None = None,
               by: str = "staff") -> list[Phrase]:
        """Check and write ``changes``, only if ``check-config`` would pass the new file (on this
        machine, as the service's user, beside what this table holds): a trial, which the restart
        that applies it keeps only if the table comes back healthy (and answers on ``reached``,
        the address the staff page that made it was reached on; ``by``: who made it, the staff, the
        owner, the set-up); or ``proven`` (applied at once
        by the caller, and kept in the last good file too while a trial waits for its restart).
        The checker's problems, or [] once written."""
        daemon = self.daemon
        from . import backup

        def write(path: Path) -> list[Phrase]:
            running = backup.running_now(daemon)
            with self.lock:  # read, changed and written whole: two staff at once lose neither change
                if backup.pending(daemon.config) is not None:  # its rollback would take the change away
                    return [Phrase.of("a restored backup is being tried: change the settings once it is kept or "
                                      "rolled back")]
                if proven:
                    trial.change_proven(path, changes, running)
                else:
                    trial.change(path, changes, by, self.working(), running, reached=reached)
            return []

        return self._checked(changes, write, N_("{path}: cannot be written: {error}"))

    def problems(self, changes: dict[str, object]) -> list[Phrase]:
        """The checker's problems with ``changes``, found as ``change`` finds them and nothing
        written: a form names them beside its other fields' problems, all at once."""
        from ..config.writing import changed_text  # tomlkit: loaded for a change alone
        from . import backup

        def check(path: Path) -> list[Phrase]:
            changed_text(path, changes, True, backup.running_now(self.daemon))
            return []

        return self._checked(changes, check, N_("{path}: cannot be read: {error}"))

    def _checked(self, changes: dict[str, object], act: Callable[[Path], list[Phrase]], failing: str) -> list[Phrase]:
        """``act`` on the settings file, once ``changes`` can be made at all: what it says, the
        checker's problems, or the file's own (``failing``, its ``{path}`` and ``{error}``). One
        way for a change and its check, so a form is told the problems the change would meet."""
        path = self.daemon.config.source
        unfit = self._unfit(changes)
        if path is None or unfit:
            return unfit
        try:
            return act(path)
        except ConfigError as e:
            return e.phrases
        except OSError as e:
            return [Phrase.of(failing, path=str(path), error=e.strerror or str(e))]

    def _unfit(self, changes: dict[str, object]) -> list[Phrase]:
        """Why ``changes`` cannot be made at all, before the checker is asked: no file, unknown keys."""
        path = self.daemon.config.source
        if path is None:
            return [Phrase.of("no configuration file: the table runs on its defaults (start one with "
                              "pi-table check-config --defaults)")]
        return [Phrase.of("{path}: unknown key {key}: expected one of pi-table check-config --defaults",
                          path=str(path), key=key) for key in changes if key not in BY_KEY]

    def working(self) -> list[str]:
        """The devices working now, which a change must leave working, and "staff" when the
        staff can log in (a PIN is set): a change must not lock them out either."""
        daemon = self.daemon
        try:
            health = daemon.loop.call(daemon.health)
        except NotAnswering:
            return []
        return [name for name, state in health.items() if state == "ok"] + (["staff"] if self._pin_set() else [])

    def _pin_set(self) -> bool:
        from ..web.staff import PIN_FILE

        return os.path.exists(self.daemon.config.paths.journal_dir / PIN_FILE)

    def health(self) -> Health:
        """How a trial sees the table: its loop answering, its pages answering (where the staff
        page that made the change was reached too), and the devices that worked before the
        change working again."""
        from .trial import Health, pages_answer  # the watch's thread, after READY

        daemon = self.daemon
        try:
            health = daemon.loop.call(daemon.health, timeout=2)
        except NotAnswering:
            return Health(Phrase.of("the table's loop does not answer"))
        web = daemon.config.web
        reached = self.watch.trial.reached if self.watch is not None else ()
        if web.enabled:
            if health.get("companion", "").startswith(NOT_WORKING):
                return Health(Phrase.of("the phones' pages and the staff page cannot open: {why}",
                                        why=daemon.devices.why.get("companion", health["companion"])), final=True)
            if daemon.companion is None:
                return Health(Phrase.of("the phones' pages and the staff page are not open yet"))
            unanswered = pages_answer(daemon.companion.port, web.host, bool(web.tls_cert))
            if unanswered.why is not None:
                return Health(unanswered.why)
            for address in reached:
                unanswered = pages_answer(daemon.companion.port, address, bool(web.tls_cert))
                if unanswered.why is not None:
                    return Health(Phrase.of("the staff page was reached on {address}, which does not answer now: "
                                            "{why}", address=address, why=unanswered.why), final=unanswered.final)
        elif reached:
            return Health(Phrase.of("the staff page was reached on {address}, and the new settings turn the phones' "
                                    "pages and the staff page off", address=reached[0]), final=True)
        watched = self.watch.trial.working if self.watch is not None else ()
        if "staff" in watched and not self._pin_set():
            return Health(Phrase.of("the staff can no longer log in: no staff PIN in {folder} (the journal folder "
                                    "changed)", folder=str(daemon.config.paths.journal_dir)), final=True)
        for name in (name for name in watched if name != "staff"):
            if health.get(name, "ok") != "ok":
                return Health(Phrase.of("{device} worked before the change and does not now: {state}",
                                        device=Phrase(events.DEVICE_NAMES.get(name, name)),
                                        state=daemon.devices.why.get(name, health[name])))
        return Health()
