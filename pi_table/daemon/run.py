"""``pi-table run``: the table as a service.

It builds the devices the configuration names (or the simulators with ``--hal sim``), resumes
the last unfinished game from the journal, serves the control socket, tells systemd it is
ready, and runs the table loop until SIGTERM. A device that cannot be opened does not stop
the table: it is replaced by a stand-in, reported once in the log and shown on the screen
(or, without a screen, on the LEDs' warning edge), and the table plays on degraded.

The ``Daemon`` wires the rooms that each do one job: ``devices`` (which devices to build),
``staff_desk`` and ``staff_parts`` (what the staff page and each of its sections take of the table), ``checkup`` (its self-test and pads'
tuning, the game paused meanwhile), ``restarts`` (a change of settings, its trial and the
restart that applies it) and ``backup`` (a restore, tried as a change is, and the nightly
backups). The phones' pages, the game nights' book and the nightly backups start after READY,
and the fleet's broker is connected to then; the staff desk is made with the phones' pages, and
the backups' code loads before READY only for a restore waiting for this start.
"""

from __future__ import annotations

import fcntl
import ipaddress
import logging
import signal
import socket
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from .. import version
from ..config import Config, trial
from ..config.trial import DEADLINE_S, Trial
from ..engine import Undo
from ..engine.errors import Refusal
from ..engine.games import kind_of, names
from ..engine.keys import Team
from ..engine.phrase import N_, Phrase, Text, meaning
from ..engine.views import LANGUAGES
from ..errors import PiTableError
from ..files import SETUP_PENDING, read_file
from ..hal import DeafCards, Event, NewGame, ReleaseSeat
from ..hal.events import DEVICE_NEWS, NONE_DEAF, NOT_WORKING
from ..table import Session, history
from ..table.loop import NO_PHONE_ACTIONS, PAUSED, REFUSALS, EventLoop, LoopSettings, NotAnswering, Outcome
from ..table.loops import loop_class
from ..ui.i18n import say
from ..ui.sound import Announcer
from .checkup import Checkup
from .control import ControlServer
from .devices import open_devices, stand_in
from .logs import RecentLines
from .notify import LoopHeartbeat, Notifier, thread_ended
from .owner_notice import acknowledge, note_reset, read_notice
from .restarts import EXIT_RESTART, Restarts

if TYPE_CHECKING:  # loaded only once the table is up (the phones' pages open after READY)
    import ssl
    from collections.abc import Callable
    from types import FrameType

    from ..config import ConfigError
    from ..fleet.dashboard import Dashboard
    from ..fleet.reporter import Reporter
    from ..kinds import SerialDevice
    from ..night.recorder import Recorder
    from ..web import Companion
    from ..web.auth import LineCode, Recovery, Throttle
    from .backup import Nightly
    from .first_boot import FirstBoot
    from .notices import Watch
    from .root_helper import RootHelper
    from .security import SecurityUpdates

log = logging.getLogger("pi_table.daemon")
CHANGING_GAMES = Phrase.of("the table is changing games: try again")
NO_CONTROL = N_("the control socket {path} cannot be opened ({error}): pi-table status cannot reach the table; restart "
                "it (Restart service, on the staff page); the game goes on")
NO_PASSWORD = N_("the broker's password file cannot be used ({error}): check [fleet] password_file")
NO_CERTIFICATE = N_("the companion's certificate cannot be used ({error}): phones cannot join; check [web] tls_cert and "
                    "tls_key, then restart the table")
NO_OWN_CERTIFICATE = N_("the table's own certificate in {folder} cannot be made or used ({error}): the staff and "
                        "set-up pages answer this machine alone until it can; check that openssl is installed and the "
                        "folder is the service's, or move the damaged table.key and table.crt aside for new ones, then "
                        "restart the table")
REFUSED_FILE = N_("the settings file was refused ({problems}): the table runs on its last good settings; correct "
                  "the file, or discard it on the staff page")
REFUSED_HERE = N_("the settings file was refused ({problems}): the table runs on its last good settings; correct "
                  "the file, or press Discard the refused file, under Devices")
"""The same, as the staff page says it (``web/static/staff.html``: the note and its button are under Devices)."""
NO_PORT = N_("the companion cannot listen on port {port} ({error}): phones cannot join; free the port or choose another "
             "([web] port), then restart the table")
FAULTS = (NO_CONTROL, NO_PASSWORD, NO_CERTIFICATE, NO_OWN_CERTIFICATE, NO_PORT, REFUSED_FILE)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""
RESET_BUTTONS = frozenset({"end_turn", "new_game"})  # held together while the table starts: a PIN reset code
OWNER_RESET = "owner reset"  # the fault that shows a reset of the owner's passphrase until the owner acknowledges it
EXIT_RUNNING = 75  # EX_TEMPFAIL: another table holds this journal; systemd may try again later
# What the staff page and the fleet change while the table runs, by their names for it
AT_HAND = {"language": "game.language", "brightness": "leds.brightness", "volume": "sound.volume",
           "timer": "timer.length_s"}


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
        if self.lock is not None and trial.pending_trial(trial.restore_notes(config.paths.journal_dir)) is not None:
            from . import backup  # a restore staged for this start is applied before the journal opens

            try:
                config, restoring = backup.starting(config)
            except OSError as e:  # a full card: the table plays on its files as they are, and tries again next start
                log.error("the restored backup in %s cannot be applied or rolled back: %s", backup.folder(config), e)
            self.config = config
        paths = config.paths
        self.recent_log = RecentLines()  # the last lines, for the staff page, from here on
        logging.getLogger().addHandler(self.recent_log)
        self.session = Session.resume(config.rules, paths.journal_dir, retention=paths.retention, options=config.options)
        if self.session.resumed:
            log.info("resumed game %s from %s", self.session.id, self.session.resumed)
        self.devices = open_devices(config, hal, touch_port)
        self.night: Recorder | None = None  # a game night's games, recorded as they end: read once the table is up
        self.fleet = self._open_fleet()
        self.companion: Companion | None = None  # the phones' pages: opened once the table is up
        self._phones = threading.Event()  # set once the companion is up, failed or off
        self._companion_start: threading.Thread | None = None
        self.faults = dict(self.devices.faults)  # shared by every loop this daemon runs
        if config.refused is not None:  # on the screen and the staff page's health until it is corrected or discarded
            self.faults["settings"] = config.refused
        if (reset := read_notice(paths.journal_dir)) is not None:  # until the owner acknowledges it
            self.faults[OWNER_RESET] = reset
        self.announcer = Announcer(self.devices.sound, config.sound, config.language)  # shared by every loop too
        self.helper: RootHelper | None = None  # the root helper, as the table's parts ask it: with the companion
        self.dashboard: Dashboard | None = None  # the fleet's dashboard this table shows ([fleet] dashboard_port)
        self.fingerprint: str | None = None  # the SHA-256 of the staff pages' certificate, once they have one
        self._own_tls_context: ssl.SSLContext | None = None  # the staff pages' https on the table's own certificate
        self._certified = ""  # the address the table's own certificate was last made for
        self._renewal = threading.Lock()  # one renewal at a time
        self.first_boot: FirstBoot | None = None  # a table waiting for its set-up: its screen shows it instead
        if self.lock is not None and (paths.journal_dir / SETUP_PENDING).exists():
            from .first_boot import FirstBoot  # a table set up never loads it

            self.first_boot = FirstBoot.of(self)
        self.loop = self._make_loop()
        self._stopping = False
        self._switched = threading.Event()
        self._next_game: str | None = None  # what _switch asked run() to deal
        self._switch_refused: Phrase | None = None
        self.control = ControlServer(paths.socket, self.answer, paths.socket_group)
        self.restarting = False  # the staff asked for a restart: run() ends, serve() exits with EXIT_RESTART
        self.restarts = Restarts(self, under_trial, trial_deadline_s, restoring)
        self.checkup = Checkup(self)  # the staff page's self-test and pads' tuning, the game paused
        self.nightly: Nightly | None = None  # the nightly backups, from READY on (a journal kept in memory has none)
        self.security: SecurityUpdates | None = None  # Debian's security updates on the owner's schedule, from READY on
        self.notices: Watch | None = None  # the owner's notifications, from READY on
        self.recovery: Recovery | None = None  # a forgotten staff PIN's reset code, once asked for at the table
        self.line_code: LineCode | None = None  # the staff page's code for a new phone during a flood, once it opens
        self.companion_beat = LoopHeartbeat("the companion server")

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
            self._offer_pin_reset()
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
        from .security import SecurityUpdates  # after READY: it reads the releases' notes

        self.security = SecurityUpdates(self)
        if self.lock is not None:  # before the pages: their section sends its tests through it
            from .notices import Watch

            self.notices = Watch(self)
        log.info("table %s; game %s; control socket %s", state, self.session.id, self.config.paths.socket)
        if self.lock is not None:  # the nights' book is read after READY, before the pages and the fleet use it
            self.night = _night(self.config)
        self._start_companion(f"table {state}; game {self.session.id}")
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
        itself (``release.stick``): asked when this table has a helper, and a failure to ask told."""
        helper = self.helper
        if helper is None or helper.helper_missing() is not None:
            return
        from ..release.stick import ACT
        from .backup import failed

        if (problem := helper.ask(ACT)) is not None:
            failed("stick", problem)

    # --- [fleet]: the table's reports to an MQTT broker (pi_table/fleet/reporter.py) ---

    def _open_fleet(self) -> Reporter | None:
        """The reporter when [fleet] names a broker: it hears of every model the screen shows."""
        if not self.config.fleet.enabled:
            return None
        from ..fleet.reporter import Reporter, ReportingScreen  # paho loads only for a table in a fleet

        self.devices.health["fleet"] = "connecting"
        try:
            reporter = Reporter(self.config.fleet, self._fleet_command, link_state=self._fleet_link,
                                pending=None if self.lock is None else self.config.paths.journal_dir / "fleet.pending")
        except (OSError, Refusal) as e:  # its password file went missing or bad since the check: play on unreported
            why = Phrase.of(NO_PASSWORD, error=meaning(e) if isinstance(e, Refusal) else e.strerror or str(e))
            self.devices.not_working("fleet", why)
            log.error("%s; the table plays on unreported", why)
            return None
        self.devices.screen = ReportingScreen(self.devices.screen, lambda: reporter.offer(self._fleet_status()))
        return reporter

    def _fleet_status(self) -> dict[str, Any]:
        """The status the fleet sees (in the loop's thread), with when the game began; its
        warnings and a game's end in the table's language, as its screen shows them, and the
        warnings in every language too, for a dashboard that speaks another."""
        warnings = self.loop.cues(self.loop.clock()).warnings
        return {**self.status(self.config.language), "began": self.session.began, "language": self.config.language,
                "warnings_in": fleet_warnings(warnings)}

    def _fleet_link(self, state: Text) -> None:
        """What the reporter says of its link, from paho's thread: a state ("ok", "connecting"),
        or a Phrase saying why it is not working."""
        if isinstance(state, Phrase):
            self.devices.not_working("fleet", state)
        else:
            self.devices.working("fleet", state)

    def _fleet_command(self, request: dict[str, Any]) -> dict[str, Any]:
        """A command from the fleet's broker: new game and undo as on the control socket; the
        language and the brightness as the staff page changes them (written, and applied now)."""
        command = request["command"]
        if command in ("new-game", "undo"):
            return self.answer({"command": command, "game": request.get("game")})
        problems = self.change_at_hand(AT_HAND[command], request.get(command))
        return {"ok": not problems, "error": "; ".join(say(problem, self.config.language) for problem in problems) or None}

    def _start_companion(self, state: str) -> None:
        """The phones' pages, once the table has said it is ready: loading the web server takes
        longer than all the rest of the start, and the table plays without phones meanwhile.
        systemd's status then says how the phones fared."""
        if not self.config.web.enabled:
            self.devices.health["companion"] = "off"
            self._phones_settled(state, "off")
            return
        self.devices.health["companion"] = "starting"
        self._companion_start = threading.Thread(target=self._open_companion, args=(state,), name="companion-start",
                                                 daemon=True)
        self._companion_start.start()

    def _offer_pin_reset(self) -> None:
        """Both buttons held while the table starts: someone at it has forgotten the staff PIN or
        the owner's passphrase (or there is none yet). A one-time code on the table's own screen lets the staff page set
        a new one, for ``RECOVERY_S``; no page, report or log line carries it."""
        from ..web.auth import RECOVERY_S, Recovery  # only when asked for: the web loads after READY

        self.recovery = self.recovery or Recovery()
        code = self.recovery.issue()
        self.loop.notice = Phrase.of("reset code {code}: on the staff page, Forgot the PIN? or Forgot the owner's "
                                     "passphrase? ({minutes} minutes)", code=code, minutes=round(RECOVERY_S / 60))
        log.warning("both buttons were held at the start: a staff PIN reset code is on the table's screen")
        timer = threading.Timer(RECOVERY_S, self.recovered)
        timer.daemon = True
        timer.start()

    def recovered(self) -> None:
        """The reset code was used, or its time is up: the screen stops showing it."""
        if self.recovery is not None:
            self.recovery.void()

        def forget() -> None:
            self.loop.notice = None
            self.loop.show()

        self.in_loop(forget)

    def owner_reset(self, how: str, address: str | None, wiped: list[str]) -> None:
        """The owner's passphrase was reset (``owners_part.HOWS``): its notice kept and shown, on
        the screen, the staff page, the status and the fleet's reports, until the owner acknowledges it."""
        notice = note_reset(self.config.paths.journal_dir, how, address, wiped)
        self.in_loop(lambda: self._note_fault(OWNER_RESET, notice))

    def reset_acknowledged(self) -> bool:
        """The owner has seen the notice of a reset: it goes. Whether there was one."""
        seen = acknowledge(self.config.paths.journal_dir)

        def forget() -> None:
            self.loop.faults.pop(OWNER_RESET, None)
            self.loop.show()

        self.in_loop(forget)
        return seen

    def _open_companion(self, state: str) -> None:
        web, journal_dir = self.config.web, self.config.paths.journal_dir
        try:
            from ..ui.words import Cards
            from ..web import Companion, CompanionScreen, Tokens
            from ..web.auth import Recovery
            from ..web.seats import SeatLinks
            from ..web.sections import staff_page
            from .root_helper import RootHelper
            from .staff_desk import StaffDesk
            from .staff_parts import parts

            tokens = Tokens.kept_in(journal_dir)
            self.recovery = self.recovery or Recovery()
            self.helper = RootHelper()
            staff = staff_page(StaffDesk(self), parts(self, self.helper), journal_dir,
                               self.config.staff_session_s)  # every section, given its part
            self.line_code = staff.line_code  # the screen shows it while new phones wait in line (_show_notice)
            tls = _tls(web.tls_cert, web.tls_key) if web.tls_cert else None
            if tls is not None:
                from ..release.first_boot import fingerprint

                self.fingerprint = fingerprint(Path(web.tls_cert))
            staff_tls = None if tls is not None or _only_here(web.host) else self._own_tls()
            companion = Companion(web.host, web.port, act=self._act, base_url=web.url,
                                  advertise=self._advertised, proof=tokens.proof,
                                  opened_file=journal_dir / "companion.opened", language=self.config.language,
                                  staff=staff, tls=tls, staff_tls=staff_tls, staff_port=web.tls_port,
                                  header_timeout_s=web.request_s, body_timeout_s=web.request_s)
            staff.announce = companion.announce  # the spectators' pages hear of a section's changes (the night's)
            companion.start()
        except Exception as e:  # noqa: BLE001 (a taken port, a broken install: the table plays without phones)
            why = e.strerror if isinstance(e, OSError) and e.strerror else e
            fault = (Phrase.of(NO_CERTIFICATE, error=str(why)) if isinstance(e, _TlsError) else
                     Phrase.of(NO_PORT, port=web.port, error=str(why)))
            self.devices.not_working("companion", str(why))
            log.error("%s", fault)
            self._phones_settled(state, "not working")
            self.in_loop(lambda: self._note_fault("companion", fault))
            return

        def attach() -> None:  # in the loop's thread, which owns the screen; once only
            if self.companion is not None:
                return
            seats = SeatLinks(journal_dir / "companion.released")
            words = self.config.words if self.hal == "sim" else None  # the real table has physical cards
            cards = None if words is None else Cards(words, self.session.rng)
            screen = CompanionScreen(self.devices.screen, companion, tokens, seats, cards)
            screen.join(self.post)
            self.devices.screen = self.loop.screen = screen
            self.companion = companion
            self.devices.health["companion"] = "ok"
            if self.first_boot is not None:  # the set-up page's address, now that it has one
                self.first_boot.refresh()
            self.loop.show()

        if not self.in_loop(attach):  # the table stopped first
            companion.stop()
            self._phones.set()
            return
        log.info("companion pages at %s", companion.base_url)
        self._phones_settled(state, f"at {companion.base_url}")
        self._open_dashboard(tls or staff_tls, staff.owner.door.throttle)  # one budget for the owner's passphrase

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

    def _own_tls(self) -> ssl.SSLContext | None:
        """The staff and set-up pages' https, with the table's own certificate (``tls`` beside
        the configuration: the first boot makes it, and the service makes it for a table that
        has none); None, told as a fault, when it cannot be had: the staff page then answers this
        machine alone, for no secret goes over the network in clear."""
        from ..release.first_boot import TLS, TLS_CERT, TLS_KEY, fingerprint

        source = self.config.source
        if source is None:  # a developer's table with no file: nowhere of its own to keep a key
            log.warning("no configuration file, so no certificate of the table's own: the staff page answers this "
                        "machine alone")
            return None
        folder = source.parent / TLS
        self._certified = address = _reachable_address(self.config.web.host)
        self._certify(folder, address)
        try:
            context = _tls(str(folder / TLS_CERT), str(folder / TLS_KEY))
            self.fingerprint = fingerprint(folder / TLS_CERT)
        except (_TlsError, OSError, ValueError) as e:
            fault = Phrase.of(NO_OWN_CERTIFICATE, folder=str(folder), error=str(e))
            log.error("%s", fault)
            self.in_loop(lambda: self._note_fault("https", fault))
            return None
        log.info("the staff pages over https, the table's certificate's SHA-256 %s", self.fingerprint)
        self._own_tls_context = context
        return context

    @staticmethod
    def _certify(folder: Path, address: str) -> None:
        """The table's own certificate in ``folder`` made, or renewed, for ``address``."""
        from ..release.first_boot import own_certificate

        phones = () if ipaddress.ip_address(address).is_loopback else (address,)  # where phones are led to
        for made in own_certificate(folder, addresses=phones):
            log.info("the table's own certificate: %s", made)

    def _advertised(self) -> str:
        """How phones reach the table now (the pages ask every few seconds, for their links and
        the https address they lead to). When it changed while the table runs (a new lease, a
        cable plugged in), the table's own certificate is renewed for it, away from the pages'
        loop, and the https pages take it without a restart (issue 58, 8)."""
        address = _reachable_address(self.config.web.host)
        if self._own_tls_context is not None and address != self._certified:
            self._certified = address
            threading.Thread(target=self._renew_certificate, args=(address,), name="certificate", daemon=True).start()
        return address

    def _renew_certificate(self, address: str) -> None:
        import ssl

        from ..release.first_boot import TLS, TLS_CERT, TLS_KEY, fingerprint

        assert self.config.source is not None and self._own_tls_context is not None  # as _own_tls made it
        folder = self.config.source.parent / TLS
        with self._renewal:
            self._certify(folder, address)
            try:  # new handshakes get it; the old certificate serves on if it cannot be had
                self._own_tls_context.load_cert_chain(str(folder / TLS_CERT), str(folder / TLS_KEY))
                self.fingerprint = fingerprint(folder / TLS_CERT)
            except (ssl.SSLError, OSError, ValueError) as e:
                log.error("the table's own certificate for %s cannot be used (%s): the one before serves on", address, e)
                return
        log.info("the staff pages' certificate renewed for %s: SHA-256 %s", address, self.fingerprint)

    def _open_dashboard(self, tls: ssl.SSLContext | None, owner_tries: Throttle) -> None:
        """The fleet's dashboard on this table, when the owner asked for one (``fleet_dashboard``);
        its login's tries counted in ``owner_tries``, with the staff page's of the owner's passphrase."""
        from .fleet_dashboard import NO_DASHBOARD, open_dashboard

        try:
            self.dashboard = open_dashboard(self.config, tls, owner_tries)
        except Exception as e:  # noqa: BLE001 (a taken port, an unreadable password: the table plays on)
            shown = self.config.dashboard
            fault = Phrase.of(NO_DASHBOARD, port=0 if shown is None else shown.port,
                              error=e.strerror if isinstance(e, OSError) and e.strerror else str(e))
            log.error("%s", fault)
            self.in_loop(lambda: self._note_fault("dashboard", fault))

    def _note_fault(self, name: str, fault: Phrase) -> None:
        self.loop.faults[name] = fault
        self.loop.show()

    def _phones_settled(self, state: str, how: str) -> None:
        self.notifier.status(f"{state}; phones: {how}")
        self._phones.set()

    def wait_for_phones(self, timeout: float = 10.0) -> bool:
        """Whether the companion has come up, failed or is off (tests and tools that need it)."""
        return self._phones.wait(timeout)

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
                self.session.new_game(self._next_game)
            except REFUSALS as refusal:
                self._switch_refused = refusal.phrase  # the same loop goes on with the same game
            else:
                self._switch_refused = None
                self.loop = self._make_loop(self.loop.deaf)
                if self._stopping:  # SIGTERM came while the loops changed: it stopped the old one
                    return
            self.loop.show()
            self._switched.set()

    def _alive(self) -> None:
        """On each wake of the loop, in its thread: a game that has just ended goes into the open night,
        and the screen's notice says who plays here next ("next: The Owls vs Quiz Club at table 2")."""
        next_up = None
        if self.night is not None:
            if self.session.state.is_over:
                self.night.seen(self.session.id, lambda: self.session.public_view().to_json())
            elif self.session.record.moves:  # a game under way: the round it is played for, looked up once
                self.night.begun(self.session.id)
            else:  # dealt, untouched: its first move, in a round, makes it the round's
                self.night.untouched(self.session.id)
                self._deal_red_first(self.night)
            next_up = self.night.next_up()
        self._show_notice(next_up)
        self.notifier.watchdog(self.sickness)

    def _deal_red_first(self, night: Recorder) -> None:
        """While a round's pair is up here, the table deals games its red team starts, as the
        pairing says ("Foxes (red, plays first)"), and deals again the untouched game dealt
        otherwise (no move is lost): the slips and the TRF's white are then the team that began."""
        pair_up = night.pair_up()
        self.session.start = Team.RED if pair_up else None
        if pair_up and self.session.public_view().to_json().get("start") not in (None, Team.RED.value):
            self.loop.submit(NewGame(), public=False)
            night.untouched(self.session.id)  # dealt now, untouched: the round's at its first move

    def _show_notice(self, next_up: Phrase | None) -> None:
        """The screen's notice, shown when it changes: a staff PIN reset code first, then the code
        a new staff phone types while others' logins wait in line (``web.auth.LineCode``), then
        the night's next pair (``next_up``)."""
        if self.recovery is not None and self.recovery.active:
            return
        code = None if self.line_code is None else self.line_code.shown()
        if code is not None:
            from ..web.auth import code_notice  # loaded with the staff page that made the code

            said: Phrase | None = code_notice(code)
        else:
            said = next_up
        if said == self.loop.notice:
            return
        self.loop.notice = said
        self.loop.show()

    def sickness(self) -> str | None:
        """What keeps the watchdog from being pinged: a thread the table needs besides the
        loop's that has died or stuck (systemd then restarts the table, which resumes its game
        from the journal); None while all of them are well."""
        touch_thread = getattr(self.devices.touch, "_thread", None)  # the board's driver reads on one thread
        sick = self.control.sickness() or thread_ended(touch_thread, "the touch board")
        if sick is None and self.companion is not None:  # an asyncio loop in a thread of its own
            sick = self.companion_beat.check(*self.companion.serving())
        return sick

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        """The language, the LEDs' brightness, the volume or the turn timer's length (``AT_HAND``;
        the staff page's ``LIVE``), written like any change and applied at once: nobody should
        have to restart a table to dim it, quieten it, hurry it or hear it in Italian."""
        if key not in AT_HAND.values():
            return [Phrase.of("{key} is not changed while the table runs: expected one of {keys}", key=key,
                              keys=", ".join(AT_HAND.values()))]
        with self.restarts.lock:  # the table applies the changes in the order the file took them
            problems = self.restarts.change({key: value}, proven=True)
            if not problems:  # written: a table stopping meanwhile takes it up when it next starts
                self.in_loop(lambda: self._apply_at_hand(key, value))
        return problems

    def _apply_at_hand(self, key: str, value: object) -> None:
        """In the loop's thread: the value the checker passed, shown from the next frame."""
        config = replace(self.config, values={**self.config.values, key: value})  # as the staff page's form shows it
        self.config = config
        if key == "game.language":
            self.config = replace(config, language=str(value))  # a later loop speaks it too
            self.loop.lang = self.announcer.lang = str(value)
            if self.companion is not None:
                self.companion.speak(str(value))
        elif key == "sound.volume":
            volume = float(value)  # type: ignore[arg-type]  # the checker passed a number
            self.config = replace(config, sound=replace(config.sound, volume=volume))
            self.announcer.settings = self.config.sound
        elif key == "timer.length_s":  # the turn under way runs to the new length; a game's own timer keeps its own
            timer = replace(config.timer, length_s=float(value))  # type: ignore[arg-type]  # the checker passed a number
            self.config = replace(config, timer=timer)
            self.loop.retime(timer)
        else:
            brightness = float(value)  # type: ignore[arg-type]  # the checker passed a number
            self.config = replace(config, leds=replace(config.leds, brightness=brightness))
            output = getattr(self.devices.leds, "output", None)  # the real strips' output stage
            if output is not None:
                output.brightness = brightness
        self.loop.show()

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
        self._stopping = True  # the companion, if it is still opening, gives up waiting for the loop
        self.checkup.stop()  # the game's outputs come back to it as the loop closes
        self.restarts.close()
        if self.first_boot is not None:
            self.first_boot.stop()
        if self.nightly is not None:
            self.nightly.stop()
        if self.security is not None:
            self.security.stop()
        if self.notices is not None:
            self.notices.stop()
        self.notifier.stopping()
        self.control.stop()
        if self._companion_start is not None:
            self._companion_start.join(timeout=5)
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

    # --- the control socket's commands (in the socket's thread; game work in the loop's) ---

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        command, lang = request["command"], request.get("lang", "en")
        if lang not in LANGUAGES:
            return {"ok": False, "error": str(Phrase.of(N_("the language is one of {languages}, not {lang!r}"),
                                                        languages=", ".join(LANGUAGES), lang=lang))}
        if command == "status":
            answer = {"ok": True, **self.loop.call(lambda: self.status(lang))}
            if request.get("healthy") is True:  # asked by the root helper before it keeps a new release
                health = self.restarts.health()
                answer["healthy"] = {"ok": health.why is None, "why": None if health.why is None else say(health.why, lang)}
            return answer
        if command == "new-game":
            game = request.get("game")
            if game is not None and game not in names():
                return {"ok": False, "error": say(Phrase.of(N_("the game is one of {games}, not {game!r}"),
                                                            games=", ".join(names()), game=game), lang)}
            if game is not None and kind_of(game) != self.session.kind:
                if self.checkup.running is not None:  # the game is paused: another loop would not be
                    return {"ok": False, "error": say(PAUSED, lang)}
                return self._switch(game, lang)
            outcome = self.loop.call(lambda: self.loop.submit(NewGame(game)))
        elif command == "undo":
            outcome = self.loop.call(lambda: self.loop.submit(Undo()))
        elif command == "history":  # the staff's way to it: the journal's files are the service's alone
            return {"ok": True, "games": history(self.config.paths.journal_dir, lang)}
        elif command == "release-seat":
            outcome = self._release_seat(request)
        elif command == "restore":
            return self._restore(lang)
        else:
            expected = "status, new-game, undo, history, release-seat or restore"
            return {"ok": False, "error": say(Phrase.of(N_("unknown command {command!r}: expected {expected}"),
                                                        command=command, expected=expected), lang)}
        if not outcome.ok:
            return {"ok": False, "error": say(outcome.reason or "", lang)}
        return {"ok": True, **self.loop.call(lambda: self.status(lang))}

    def _release_seat(self, request: dict[str, Any]) -> Outcome:
        """``release-seat``: give a seat's phone page a new link, in the loop's thread (as
        a tap on the screen does); its refusals go back to the staff, not to the screen."""
        seat = request.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            example = '{"command": "release-seat", "seat": 2}'
            return Outcome(request, False, Phrase.of("expected a seat number, such as {example}, not {seat!r}", example=example,
                                                     seat=seat))
        loop = self.loop
        try:
            return loop.call(lambda: loop.release_seat(seat, public=False))
        except NotAnswering:  # the loop ended in between: a new game of another kind
            return Outcome(ReleaseSeat(seat), False, CHANGING_GAMES)

    def _restore(self, lang: str) -> dict[str, Any]:
        """``restore``: the backup ``pi-table restore`` put in the backups folder (as root: the
        service's own folder), checked and staged as the staff page's upload is; what it replaces."""
        from . import backup

        upload = backup.folder(self.config) / backup.UPLOAD
        try:
            contents = backup.restore(read_file(upload, backup.MOST_BYTES), self, "pi-table restore")
        except (OSError, backup.BadBackup) as e:
            why = e.phrase if isinstance(e, backup.BadBackup) else Phrase.of(
                "{path}: cannot be read: {error}", path=str(upload), error=e.strerror or str(e))
            return {"ok": False, "error": say(why, lang)}
        finally:
            upload.unlink(missing_ok=True)
        return {"ok": True, "replaces": [say(phrase, lang) for phrase in contents.replaces]}

    def _switch(self, game: str, lang: str) -> dict[str, Any]:
        """A new game of the other kind: the loop ends, ``run`` deals the game and goes on
        with the loop that plays it."""
        self._next_game = game
        self._switched.clear()
        self.loop.stop_soon()
        if not self._switched.wait(5):
            return {"ok": False, "error": say(Phrase.of(N_("the table did not take up {game} within 5 s"), game=game),
                                              lang)}
        if self._switch_refused is not None:
            return {"ok": False, "error": say(self._switch_refused, lang)}
        return {"ok": True, **self.loop.call(lambda: self.status(lang))}

    def _act(self, game_id: str, role: str, text: str) -> Text | None:
        """An action from a phone's page (the companion's thread): None if the table took it,
        else why not (said in the page's language there). A page acts only for its own seat, in its own game; its refusal goes back
        to that phone alone, never to the table's screen."""
        from ..web.games import seat_action  # the companion's own thread: the web layer is loaded by now
        from ..web.tokens import role_seat

        seat = role_seat(role)
        if seat is None:
            return Phrase.of("this page only shows the game; it takes no actions")
        try:
            action = seat_action(self.session.kind, seat, text)  # as the game on the table reads its seats' actions
        except REFUSALS as refusal:
            return refusal.phrase
        if action is None:
            return NO_PHONE_ACTIONS
        loop = self.loop
        try:
            outcome = loop.call(lambda: loop.from_phone(game_id, action))
        except NotAnswering:  # the loop ended in between: a new game of another kind
            return CHANGING_GAMES
        return None if outcome.ok else outcome.reason

    def health(self, lang: str = "en") -> dict[str, str]:
        """Each device's health: "ok", a healthy word, or "not working: " and why in ``lang``
        (a change on trial watches these alone, without the rest of the status)."""
        health = dict(self.devices.health)
        for name, why in list(self.devices.why.items()):  # a copy: paho's thread may change it meanwhile
            health[name] = NOT_WORKING + say(why, lang)
        board = self._board()
        if board is not None:
            trouble = board.trouble() if board.connected else self.loop.faults.get("touch", "connecting")
            health["touch"] = "ok" if trouble is None else say(trouble, lang)
        if "sound" in self.loop.faults:  # the audio output went missing after the start
            health["sound"] = f"not working: {say(self.loop.faults['sound'], lang)}"
        return health

    def advice(self, lang: str = "en") -> dict[str, str]:
        """What to do about a device's fault where the fault says it better than the device's
        name can (a silent chip: its joints and its cards, not the board's USB cable), in ``lang``."""
        faults: dict[str, Text] = dict(self.devices.why)
        board = self._board()
        if board is not None:
            faults.pop("touch", None)
            fault = board.trouble() if board.connected else self.loop.faults.get("touch")
            if fault is not None:
                faults["touch"] = fault
        if not faults:
            return {}
        from ..drivers.touchboard import advice_for  # the board's words: loaded only once there is a fault

        return {name: say(advice, lang) for name, fault in faults.items() if (advice := advice_for(fault)) is not None}

    def _board(self) -> Any:
        """The touch board's driver (its link, its chips' bus) when the table reads a board, else
        None: known by what it does, so a table of another touch source never loads the driver."""
        touch = self.devices.touch
        return touch if hasattr(touch, "connected") and hasattr(touch, "trouble") else None

    def status(self, lang: str = "en") -> dict[str, Any]:
        """What the operatives may see, and the table's health: never the key. The warnings and
        a finished game's reason in ``lang`` (the rest is the table's own words)."""
        health = self.health(lang)
        view = self.session.public_view()
        state = view.to_json()
        if view.reason is not None:
            state["reason"] = say(view.reason, lang)
        return {
            "version": version(),
            "game_id": self.session.id,
            "uptime_s": round(time.monotonic() - self.started, 1),
            "state": state,
            "health": health,
            "advice": self.advice(lang),
            "warnings": [say(warning, lang) for warning in self.loop.cues(self.loop.clock()).warnings],
            "journal": say(self.session.journal_problem or "ok", lang),
            "journal_damage": self.session.journal_damage,  # what a damaged journal lost, until the next game
            "companion": None if self.companion is None else self.companion.base_url,
            "staff": None if self.companion is None else f"{self.companion.staff_url}/staff",  # https but from here
            "certificate": self.fingerprint,  # the staff pages' certificate's SHA-256
            "set_up": self.first_boot is None or self.first_boot.waiting is None,
        }


def fleet_warnings(warnings: tuple[Text, ...]) -> dict[str, list[str]]:
    """The table's warnings said in each language it speaks, by language."""
    return {lang: [say(warning, lang) for warning in warnings] for lang in LANGUAGES}


def _night(config: Config) -> Recorder | None:
    """The table's part in a game night: the nights' book beside the journal (None when it cannot be read)."""
    from ..night.book import Book, folder_of
    from ..night.recorder import Recorder

    folder = folder_of(config.paths.journal_dir)
    try:
        return Recorder(Book(folder, config.blocked, cafe_tables=config.fleet.cafe_tables), config.fleet.table_id or "1")
    except OSError as e:
        log.error("the game nights in %s cannot be read (%s): this table records no night's games", folder, e)
        return None


class _TlsError(PiTableError):
    """The companion's certificate or key would not load."""


def _tls(cert: str, key: str) -> ssl.SSLContext:
    """A server context for https with this certificate (and chain) and key; _TlsError saying why not."""
    import ssl

    from ..config.machine import server_tls  # as the checker tried them

    try:
        return server_tls(cert, key)
    except (OSError, ssl.SSLError, ValueError) as e:
        raise _TlsError(getattr(e, "strerror", None) or getattr(e, "reason", None) or str(e)) from None


def _only_here(host: str) -> bool:
    """Whether the pages listen on this machine alone (``localhost``, a loopback address): then
    no secret typed on them crosses a network, and they need no https of their own."""
    try:
        return ipaddress.ip_address("127.0.0.1" if host == "localhost" else host).is_loopback
    except ValueError:
        return False


def _reachable_address(host: str) -> str:
    """How phones reach this machine: its address on the network the default route leaves by
    (a UDP socket's connect sends nothing, it only picks the route), or, with no route, on the
    table's own Wi-Fi while it is open, or the host it listens on."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
        address: str = probe.getsockname()[0]
    except OSError:
        from ..release.network import hotspot_address  # a table with no route: perhaps its own Wi-Fi

        address = hotspot_address() or "127.0.0.1"
    finally:
        probe.close()
    return address


def starting(path: Path, told: Callable[[ConfigError], None] = lambda error: None) -> tuple[Config, Trial | None]:
    """The configuration ``pi-table run --config PATH`` starts on, and its trial, after every
    start-up check the service makes: a trial of settings counted, and rolled back (``told``
    why) when the table cannot start on them; the file checked against this machine, game
    nights an older version kept in the journal folder moved out of it first (that check
    refuses a journal folder holding a folder). ConfigError when neither file will do. The
    tests start in-process tables through this too (tests/helpers.py)."""
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
        from ..night.book import settle

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
