"""``pi-table run``: the table as a service.

It builds the devices the configuration names (or the simulators with ``--hal sim``), resumes
the last unfinished game from the journal, serves the control socket, tells systemd it is
ready, and runs the table loop until SIGTERM. A device that cannot be opened does not stop
the table: it is replaced by a stand-in, reported once in the log and shown on the screen
(or, without a screen, on the LEDs' warning edge), and the table plays on degraded.

The ``Daemon`` wires the rooms that each do one job, and knows none of their insides:
``devices`` (which devices to build), ``commands`` (the control socket's, the phones' and the
status), ``phones`` (the companion, the staff page with each section given its part by
``staff_parts``, their https), ``fleet_reports`` (the broker's reports and commands),
``at_hand`` (a change applied while the table runs), ``notice_board`` (the screen's notice and
the night), ``code_desk`` (the reset code), ``checkup`` (its self-test and pads' tuning, the game
paused meanwhile), ``restarts`` (a change of settings, its trial and the restart that applies
it) and ``backup`` (a restore, tried as a change is, and the nightly backups). The phones' pages, the game nights' book and the nightly backups start after READY,
and the fleet's broker is connected to then; the staff desk is made with the phones' pages, and
the backups' code loads before READY only for a restore waiting for this start.
"""

from __future__ import annotations

import fcntl
import logging
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from ..config import Config, bound, trial
from ..config.trial import DEADLINE_S, Trial
from ..engine.phrase import N_, Phrase, Text
from ..errors import PiTableError
from ..files import SETUP_PENDING
from ..hal import DeafCards, Event
from ..hal.events import DEVICE_NEWS, NONE_DEAF
from ..host import STAND_INS
from ..table import Session
from ..table.loop import REFUSALS, EventLoop, LoopSettings, NotAnswering
from ..table.loops import loop_class
from ..ui.sound import Announcer
from . import at_hand
from .cards_desk import CardsDesk
from .checkup import Checkup
from .code_desk import OWNER_RESET, CodeDesk
from .commands import Commands
from .control import ControlServer
from .devices import open_devices, stand_in
from .fleet_reports import FleetReports
from .logs import RecentLines
from .notice_board import NoticeBoard
from .notify import LoopHeartbeat, Notifier
from .owner_notice import read_notice
from .phones import Phones
from .restarts import EXIT_RESTART, Restarts

if TYPE_CHECKING:  # loaded only once the table is up (the phones' pages open after READY)
    from collections.abc import Callable
    from types import FrameType

    from ..config import ConfigError
    from ..fleet.dashboard import Dashboard
    from ..kinds import SerialDevice
    from ..night.recorder import Recorder
    from ..web import Companion
    from ..web.auth import LineCode, Recovery
    from .backup import Nightly
    from .first_boot import FirstBoot
    from .notices import Watch
    from .root_helper import RootHelper
    from .security import SecurityUpdates

log = logging.getLogger("pi_table.daemon")
NO_CONTROL = N_("the control socket {path} cannot be opened ({error}): pi-table status cannot reach the table; restart "
                "it (Restart service, on the staff page); the game goes on")
REFUSED_FILE = N_("the settings file was refused ({problems}): the table runs on its last good settings; correct "
                  "the file, or discard it on the staff page")
REFUSED_HERE = N_("the settings file was refused ({problems}): the table runs on its last good settings; correct "
                  "the file, or press Discard the refused file, under Devices")
"""The same, as the staff page says it (``web/static/staff.html``: the note and its button are under Devices)."""
FAULTS = (NO_CONTROL, REFUSED_FILE)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""
RESET_BUTTONS = frozenset({"end_turn", "new_game"})  # held together while the table starts: a PIN reset code
EXIT_RUNNING = 75  # EX_TEMPFAIL: another table holds this journal; systemd may try again later


class AlreadyRunning(PiTableError, RuntimeError):
    """Another daemon holds the journal directory: two writers would interleave one game."""


def lock_journal(journal_dir: Path) -> IO[str] | None:
    """Hold ``journal_dir/.lock`` for as long as the returned file stays open (the kernel lets
    go of it when the process dies, however it dies); None when the directory cannot hold one,
    as when the disk is read-only and the game is kept in memory."""
    try:
        journal_dir.mkdir(parents=True, exist_ok=True)
        handle = open(journal_dir / ".lock", "a")  # noqa: SIM115 (held open: the lock lasts as long as the file)
    except OSError as e:
        log.warning("cannot lock the journal directory %s (%s): nothing stops a second table using it", journal_dir, e)
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise AlreadyRunning(f"another pi-table is already running on the journal {journal_dir}") from None
    return handle


class Daemon:
    """The running table: devices, session, loop, control socket, systemd notification."""

    def __init__(self, config: Config, hal: str = "hw", touch_port: SerialDevice | Literal["auto"] | None = None, notifier: Notifier | None = None,
                 under_trial: Trial | None = None, trial_deadline_s: float = DEADLINE_S):
        self.config = config
        self.hal = hal
        self.started = time.monotonic()
        self.notifier = notifier or Notifier()
        self.lock = lock_journal(config.paths.journal_dir)
        restoring = None
        if self.lock is not None:  # on the settings the owner set, before a restore's could name a secret first
            bound.begin(config.source, config.values)
        if self.lock is not None and trial.pending_trial(trial.restore_notes(config.paths.journal_dir)) is not None:
            from . import backup  # a restore staged for this start is applied before the journal opens

            try:
                config, restoring = backup.starting(config)
            except OSError as e:  # a full card: the table plays on its files as they are, and tries again next start
                log.error("the restored backup in %s cannot be applied or rolled back: %s", backup.folder(config), e)
            self.config = config
        if self.lock is not None:  # a change rolled back (at this start or before it) says so in its section
            _rolled_back_acts(config)
        paths = config.paths
        self.recent_log = RecentLines()  # the last lines, for the staff page, from here on
        logging.getLogger().addHandler(self.recent_log)
        self.session = Session.resume(config.rules, paths.journal_dir, retention=paths.retention, options=config.options)
        if self.session.resumed:
            log.info("resumed game %s from %s", self.session.id, self.session.resumed)
        self.devices = open_devices(config, hal, touch_port)
        self.night: Recorder | None = None  # a game night's games, recorded as they end: read once the table is up
        self.fleet_reports = FleetReports(self)
        self.fleet = self.fleet_reports.opened()
        self.companion: Companion | None = None  # the phones' pages: opened once the table is up
        self.faults = dict(self.devices.faults)  # shared by every loop this daemon runs
        if config.refused is not None:  # on the screen and the staff page's health until it is corrected or discarded
            self.faults["settings"] = config.refused
        if (reset := read_notice(paths.journal_dir)) is not None:  # until the owner acknowledges it
            self.faults[OWNER_RESET] = reset
        self.announcer = Announcer(self.devices.sound, config.sound, config.language)  # shared by every loop too
        self.helper: RootHelper | None = None  # the root helper, as the table's parts ask it: from READY on
        self.dashboard: Dashboard | None = None  # the fleet's dashboard this table shows ([fleet] dashboard_port)
        self.fingerprint: str | None = None  # the SHA-256 of the staff pages' certificate, once they have one
        self.line_code: LineCode | None = None  # the staff page's code for a new phone during a flood, once it opens
        self.first_boot: FirstBoot | None = None  # a table waiting for its set-up: its screen shows it instead
        if self.lock is not None and (paths.journal_dir / SETUP_PENDING).exists():
            from .first_boot import FirstBoot  # a table set up never loads it

            self.first_boot = FirstBoot.of(self)
        self.loop = self._make_loop()
        self._stopping = False
        self.commands = Commands(self)  # the control socket's, the staff page's and the phones'
        self.control = ControlServer(paths.socket, self.answer, paths.socket_group)
        self.restarting = False  # the staff asked for a restart: run() ends, serve() exits with EXIT_RESTART
        self.restarts = Restarts(self, under_trial, trial_deadline_s, restoring)
        self.checkup = Checkup(self)  # the staff page's self-test and pads' tuning, the game paused
        self.nightly: Nightly | None = None  # the nightly backups, from READY on (a journal kept in memory has none)
        self.security: SecurityUpdates | None = None  # Debian's security updates on the owner's schedule, from READY on
        self.notices: Watch | None = None  # the owner's notifications, from READY on
        self.recovery: Recovery | None = None  # a forgotten staff PIN's reset code, once asked for at the table
        self.companion_beat = LoopHeartbeat("the companion server")
        self.notice_board = NoticeBoard(self)
        self.code = CodeDesk(self)  # the code on the screen for a forgotten PIN or passphrase, and the reset it allows
        self.cards = CardsDesk(self)  # the cards read from a phone's picture, for the spymasters' and the staff page
        self.phones = Phones(self)  # the phones' pages, opened after READY

    def _make_loop(self, deaf: DeafCards = NONE_DEAF) -> EventLoop:
        """The loop for the game on the table: its kind's (``pi_table.table.loops``), loaded when
        a game of that kind is first played here; ``deaf``, the cards the last loop knew deaf."""
        d, config = self.devices, self.config
        settings = LoopSettings(config.input, config.timer, config.lights, config.language, config.options)
        loop: EventLoop = loop_class(self.session.kind).made(self.session, d.touch, d.leds, d.screen, d.buttons, settings)
        loop.faults = self.faults
        loop.deaf = deaf
        loop.sound = self.announcer
        return loop

    def post(self, event: Event) -> None:
        """Where the devices deliver: the loop of the moment (it changes with the game's kind); a
        table waiting for its set-up, which shows no game, takes no touch, button or tap but a
        device's health."""
        if self.first_boot is not None and self.first_boot.waiting is not None and not isinstance(event, DEVICE_NEWS):
            return
        self.loop.post(event)

    def start(self) -> None:
        for name in ("touch", "buttons", "screen"):
            device = getattr(self.devices, name)
            try:
                device.start(self.post)
            except Exception as e:  # noqa: BLE001 (whatever a device raises, the table plays on without it)
                self._replace_failed(name, e)
        self.devices.sound.start(self.post)  # it reports a missing audio device itself, as a warning
        if RESET_BUTTONS <= self.devices.buttons.held():
            self.code.offer()
        self.loop.show()
        try:
            self.control.start()
        except OSError as e:  # the game matters more than the staff's commands: play on
            self.loop.faults["control"] = Phrase.of(NO_CONTROL, path=str(self.config.paths.socket), error=str(e))
            log.error("%s", self.loop.faults["control"])
            self.loop.show()
        degraded = [name for name, health in self.devices.health.items() if health.startswith("not working")]
        state = f"degraded: {', '.join(degraded)} not working" if degraded else "up"
        self.notifier.ready(f"table {state}; game {self.session.id}")
        from .root_helper import Machine, RootHelper
        from .security import SecurityUpdates  # after READY: it reads the releases' notes

        # the helper before what reads its notes: the notifications' first look (which holds back
        # the runs before it as old news) and the schedule, and before the pages that ask it
        self.helper = RootHelper(Machine.of(self.config))
        machine = self.helper.machine
        if machine.stand_in:  # every page says so, until the table closes
            STAND_INS.add(self)
        self.security = SecurityUpdates(self, machine.home, reboot_flag=machine.reboot_flag)
        if self.lock is not None:  # before the pages: their section sends its tests through it
            from .notices import Watch

            self.notices = Watch(self)
        log.info("table %s; game %s; control socket %s", state, self.session.id, self.config.paths.socket)
        if self.lock is not None:  # the nights' book is read after READY, before the pages and the fleet use it
            self.night = _night(self.config)
        self.phones.start(f"table {state}; game {self.session.id}")
        if self.first_boot is not None:
            self.first_boot.start()
        if self.fleet is not None:
            if self.night is not None:  # the night's games and plan, the other tables' heard
                self.fleet.take_night(self.night)
            self.fleet.start()
        watch = self.restarts.watch
        if watch is not None:
            log.info("trying the settings changed by %s (%s)", watch.trial.by, ", ".join(watch.trial.keys))
            watch.start()
        else:
            threading.Thread(target=self.restarts.settle, name="settle", daemon=True).start()
        if self.lock is not None:
            from . import offsite
            from .backup import Nightly

            self.nightly = Nightly(self.config, copies=(offsite.send, self._to_stick))
            self.nightly.start()
            self.security.start()
            if self.notices is not None:
                self.notices.start()

    def _to_stick(self, config: Config, made: Path) -> None:
        """The night's backup written to a USB stick too, by the root helper, which finds the stick
        itself (``release.stick``): asked when this table has a helper and the backup is sealed
        (``sealed``), and a failure to ask told."""
        helper = self.helper
        if helper is None or helper.helper_missing() is not None:
            return
        from ..release.stick import ACT
        from .backup import failed
        from .sealed import NOT_SEALED, leaves

        if not leaves(made):  # the helper copies the card's newest backup as it is: sealed, or not at all
            failed("stick", Phrase.of(NOT_SEALED))
        elif (problem := helper.ask(ACT)) is not None:
            failed("stick", problem)

    def in_loop(self, fn: Callable[[], object]) -> bool:
        """Run ``fn`` in the thread of the loop of the moment (a switch between game kinds
        replaces it, so a call its loop ended before running is made again on the next);
        False when the table stops first. ``fn`` must be harmless to run twice."""
        while not self._stopping:
            try:
                self.loop.call(fn, timeout=0.5)
                return True
            except NotAnswering:
                continue
        return False

    def note_fault(self, name: str, fault: Phrase) -> None:
        self.loop.faults[name] = fault
        self.loop.show()

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.commands.answer(request)

    def act(self, game_id: str, role: str, text: str) -> Text | None:
        return self.commands.act(game_id, role, text)

    def status(self, lang: str = "en") -> dict[str, Any]:
        return self.commands.status(lang)

    def health(self, lang: str = "en") -> dict[str, str]:
        return self.commands.health(lang)

    def device_faults(self) -> dict[str, Text]:
        return self.commands.device_faults()

    def wait_for_phones(self, timeout: float = 10.0) -> bool:
        """Whether the companion has come up, failed or is off (tests and tools that need it)."""
        return self.phones.wait(timeout)

    def _replace_failed(self, name: str, error: Exception) -> None:
        device = stand_in(self.devices, name, error)  # before the companion: it stands beside the stand-in
        setattr(self.loop, name, device)
        device.start(self.post)
        self.loop.faults[name] = self.devices.faults[name]

    def run(self) -> None:
        """Run the table until stopped; when a new game of another kind was dealt, go on with
        the loop that plays it."""
        while True:
            self.loop.run(alive=self._alive)
            if self._stopping:
                return
            try:  # no loop runs now: this thread owns the game
                self.session.new_game(self.commands.next_game)
            except REFUSALS as refusal:
                self.commands.switch_refused = refusal.phrase  # the same loop goes on with the same game
            else:
                self.commands.switch_refused = None
                self.loop = self._make_loop(self.loop.deaf)
                if self._stopping:  # SIGTERM came while the loops changed: it stopped the old one
                    return
            self.loop.show()
            self.commands.switched.set()

    def _alive(self) -> None:
        """On each wake of the loop, in its thread: the night and the screen's notice kept up, the watchdog pinged."""
        self.notice_board.tick()
        self.notifier.watchdog(self.sickness)

    def sickness(self) -> str | None:
        """What keeps the watchdog from being pinged: a thread the table needs besides the
        loop's that has died or stuck (systemd then restarts the table, which resumes its game
        from the journal); None while all of them are well."""
        sick = self.control.sickness() or self.devices.touch.ended()
        if sick is None and self.companion is not None:  # an asyncio loop in a thread of its own
            sick = self.companion_beat.check(*self.companion.serving())
        return sick

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        """One of ``at_hand.AT_HAND`` changed and applied now (the staff page's ``LIVE``, the fleet's)."""
        return at_hand.change(self, key, value)

    def restart(self) -> float:
        """The staff's restart (``Restarts.restart``): the seconds until the table stops for it."""
        return self.restarts.restart()

    def end_for_restart(self) -> None:
        """Stop, for ``serve`` to exit with ``EXIT_RESTART`` and systemd to start the table again."""
        self.restarting = True
        self.stop()

    def stop(self) -> None:
        """Ask the loop to finish what is queued and end; safe from a signal handler."""
        self._stopping = True
        self.loop.stop_soon()

    def close(self) -> None:
        asked = self._stopping  # a stop asked for (a Restart, a signal), not a crash of the loop
        self._stopping = True  # the companion, if it is still opening, gives up waiting for the loop
        self.checkup.stop()  # the game's outputs come back to it as the loop closes
        self.restarts.close(asked)
        if self.first_boot is not None:
            self.first_boot.stop()
        if self.nightly is not None:
            self.nightly.stop()
        if self.security is not None:
            self.security.stop()
        if self.notices is not None:
            self.notices.stop()
        self.notifier.stopping()
        STAND_INS.discard(self)
        self.control.stop()
        if self.phones.starting is not None:
            self.phones.starting.join(timeout=5)
        if self.companion is not None:
            self.companion.stop()
        logging.getLogger().removeHandler(self.recent_log)
        if self.fleet is not None:
            self.fleet.stop()
        if self.dashboard is not None:
            self.dashboard.stop()
        self.loop.close()
        self.devices.sound.close()
        self.notifier.close()
        if self.lock is not None:
            self.lock.close()



def _night(config: Config) -> Recorder | None:
    """The table's part in a game night: the nights' book beside the journal (None when it cannot be read)."""
    from ..night.book import Book
    from ..night.recorder import Recorder
    from ..night.store import folder_of

    folder = folder_of(config.paths.journal_dir)
    try:
        return Recorder(Book(folder, config.blocked, cafe_tables=config.fleet.cafe_tables), config.fleet.table_id or "1")
    except OSError as e:
        log.error("the game nights in %s cannot be read (%s): this table records no night's games", folder, e)
        return None


def _rolled_back_acts(config: Config) -> None:
    """The owner's acts whose change the settings' or the restore's last rollback undid, marked so
    in their results (``web.acts.ActNotes.rolled_back``): each note says when its trial began."""
    notes = (None if config.source is None else trial.rolled_back(config.source),
             trial.rolled_back(trial.restore_notes(config.paths.journal_dir)))
    since = [note["since"] for note in notes if note is not None and isinstance(note.get("since"), int | float)]
    if since:  # the pages' rooms only after a rollback: a start loads no web code before READY (test_startup)
        from ..web.acts import ActNotes

        ActNotes(config.paths.journal_dir).rolled_back(since)


def starting(path: Path, told: Callable[[ConfigError], None] = lambda error: None) -> tuple[Config, Trial | None]:
    """The configuration ``pi-table run --config PATH`` starts on, and its trial, after every
    start-up check the service makes: a trial of settings counted, and rolled back (``told``
    why) when the table cannot start on them; the file checked against this machine, game
    nights an older version kept in the journal folder moved out of it first (that check
    refuses a journal folder holding a folder). ConfigError when neither file will do. The
    tests start in-process tables through this too (tests/helpers_tables.py)."""
    from ..config import ConfigError

    under_trial = trial.starting(path)
    if under_trial is not None:
        try:
            return _checked(path), under_trial
        except ConfigError as e:
            told(e)
            trial.roll_back(path, under_trial, Phrase.of("the table could not start on the new settings: {problems}",
                                                         problems=tuple(e.phrases)))
    try:
        config = _checked(path)
    except ConfigError as refused:  # a hand edit: the last good settings, if the table has some
        why = Phrase.of(REFUSED_FILE, problems=tuple(refused.phrases))
        config = replace(_last_good(path, refused), refused=why)
        trial.refuse(path, why, Phrase.of(REFUSED_HERE, problems=tuple(refused.phrases)))
        told(refused)
        return config, None
    if trial.beside(path, trial.TRIAL).exists() is False and path.exists():
        return config, trial.remember(path)
    return config, None


def _last_good(path: Path, refused: ConfigError) -> Config:
    """The last good file's settings, read as if they were ``path``'s (their relative names from
    its folder), checked as a start checks; ``refused`` itself when there is none or it will not do."""
    from ..config import ConfigError, parse_config

    good = trial.beside(path, trial.GOOD)
    try:
        return parse_config(good.read_text(encoding="utf-8"), path, machine=True)
    except (OSError, UnicodeDecodeError, ConfigError):
        raise refused from None


def _checked(path: Path) -> Config:
    """The file, checked against this machine; a second time only when an older version's game
    nights in its journal folder were moved out of it (its first look is the one a start pays)."""
    from ..config import ConfigError, load_config

    try:
        return load_config(path, machine=True)
    except ConfigError as refused:
        try:
            journal = load_config(path).paths.journal_dir
        except ConfigError:
            raise refused from None
        from ..night.store import settle

        if not settle(journal):
            raise
        return load_config(path, machine=True)


def serve(config: Config, hal: str = "hw", touch_port: SerialDevice | Literal["auto"] | None = None, under_trial: Trial | None = None) -> int:
    """Run the daemon in this process until SIGTERM or SIGINT; the exit status. A table started
    on settings under trial, or on a restored backup, keeps them once healthy, or rolls them back (``trial.TrialWatch``)."""
    try:
        daemon = Daemon(config, hal, touch_port, under_trial=under_trial)
    except AlreadyRunning as e:
        print(f"pi-table run: {e}", file=sys.stderr)
        return EXIT_RUNNING
    stopped_by: list[str] = []

    def stop(number: int, frame: FrameType | None) -> None:  # a signal handler: note it, log it once out of the handler
        stopped_by.append(signal.Signals(number).name)
        daemon.stop()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        daemon.start()
        daemon.run()
    finally:
        daemon.close()
        if threading.current_thread() is threading.main_thread():
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    log.info("stopped by %s (game %s)", stopped_by[0] if stopped_by else "request", daemon.session.id)
    return EXIT_RESTART if daemon.restarting and not stopped_by else 0
