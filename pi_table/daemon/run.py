"""``pi-table run``: the table as a service.

It builds the devices the configuration names (or the simulators with ``--hal sim``), resumes
the last unfinished game from the journal, serves the control socket, tells systemd it is
ready, and runs the table loop until SIGTERM. A device that cannot be opened does not stop
the table: it is replaced by a stand-in, reported once in the log and shown on the screen
(or, without a screen, on the LEDs' warning edge), and the table plays on degraded.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import version
from ..config import Config
from ..config.machine import Running
from ..config.trial import DEADLINE_S, Trial
from ..engine import InvalidRules, Undo
from ..engine.errors import Refusal
from ..engine.games import NAMES, kind_of
from ..engine.phrase import N_, Phrase, Text, meaning
from ..errors import PiTableError
from ..files import write_private
from ..hal import (
    Buttons,
    LedStrip,
    NewGame,
    ReleaseSeat,
    Screen,
    SimButtons,
    SimLedStrip,
    SimScreen,
    SimTouch,
    TouchSource,
    events,
)
from ..hal.events import NOT_WORKING
from ..hal.sound import NoSound, SimSound, SoundDevice
from ..table import Session, history
from ..table.games import loop_class
from ..table.loop import REFUSALS, EventLoop, LoopSettings, Outcome
from ..ui.i18n import LANGUAGES, say
from ..ui.sound import Announcer
from . import logs
from .control import ControlServer
from .notify import LoopHeartbeat, Notifier, thread_ended
from .trial import Health, TrialWatch, pages_answer

if TYPE_CHECKING:  # loaded only once the table is up (the phones' pages open after READY)
    import ssl

    from ..fleet.reporter import Reporter
    from ..web import Companion

log = logging.getLogger("pi_table.daemon")
DEVICE_NAMES = {"touch": "the touch board", "leds": "the LED strip", "screen": "the spymaster screen",
                "buttons": "the buttons", "sound": "the sound"}
KNOWN_GAMES = NAMES
DEVICE_FAULTS = {
    "touch": N_("the touch board is not working ({error}): check the USB cable from the touch board to the Pi; "
                "the game waits"),
    "leds": N_("the LED strip is not working ({error}): check its power supply and its data wire to the Pi; "
               "the game goes on without lights"),
    "screen": N_("the spymaster screen is not working ({error}): check its cable to the Pi; the game goes on "
                 "without it"),
    "buttons": N_("the buttons are not working ({error}): check their wires to the Pi; the game goes on without them"),
}
"""What the table shows when a device cannot be opened: what is wrong, then what to do."""
CHANGING_GAMES = Phrase.of("the table is changing games: try again")
EXIT_RUNNING = 75  # EX_TEMPFAIL: another table holds this journal; systemd may try again later
# What the staff page and the fleet change while the table runs, by their names for it
AT_HAND = {"language": "game.language", "brightness": "leds.brightness", "volume": "sound.volume",
           "timer": "timer.length_s"}
EXIT_RESTART = 3  # the staff asked for a restart: a failure to systemd (Restart=on-failure), which starts the table again
RESTART_WINDOW_S = 120.0  # the unit's StartLimitIntervalSec
STAFF_RESTARTS = 3  # the staff's restarts in a window at most: with a crash, still under the unit's StartLimitBurst
RESTARTS_FILE = "staff.restarts"  # their times, in the journal folder: they outlive the restarts they count


class AlreadyRunning(PiTableError, RuntimeError):
    """Another daemon holds the journal directory: two writers would interleave one game."""


def lock_journal(journal_dir: Path):
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


@dataclass
class Devices:
    touch: TouchSource
    leds: LedStrip
    screen: Screen
    buttons: Buttons
    health: dict[str, str] = field(default_factory=dict)  # device -> "ok", "simulated" or what is wrong
    faults: dict[str, Text] = field(default_factory=dict)  # device -> the warning to show
    sound: SoundDevice = field(default_factory=NoSound)
    why: dict[str, Text] = field(default_factory=dict)  # device -> why it is not working, for ``status`` to say

    def not_working(self, name: str, why: Text) -> None:
        """``name``'s health is a fault: in the table's English words, and ``why`` kept for
        ``status`` to say in each reader's language (the staff page's, the fleet's)."""
        self.health[name] = NOT_WORKING + str(why)
        self.why[name] = why

    def working(self, name: str, state: str) -> None:
        """``name``'s health is ``state`` ("ok", "connecting"...), no longer a fault."""
        self.health[name] = state
        self.why.pop(name, None)


def open_devices(config: Config, hal: str, touch_port: str | None, painter=None) -> Devices:
    """The devices for this table: real ones, each falling back to a stand-in when it cannot
    be opened; or every one simulated with ``hal == "sim"`` (a touch port still counts).
    ``painter`` draws the screen: the game's ``ScreenPainter`` unless another is given."""
    devices = Devices(SimTouch(), SimLedStrip(keep=1), SimScreen(keep=1), SimButtons())
    devices.health = {name: "simulated" for name in ("touch", "leds", "screen", "buttons")}
    if touch_port is not None or hal != "sim":
        from ..drivers.touchboard import TouchBoardSource

        port = None if touch_port == "auto" else touch_port or config.touch.port
        devices.touch, devices.health["touch"] = TouchBoardSource(replace(config.touch, port=port)), "connecting"
    devices.sound, devices.health["sound"] = _sound(config, hal)
    if hal == "sim":
        return devices
    _try(devices, "leds", lambda: _leds(config))
    _try(devices, "buttons", lambda: _buttons(config))
    if config.screen.enabled:
        _try(devices, "screen", lambda: _screen(config, painter))
    else:
        devices.health["screen"] = "not fitted"
    return devices


def _try(devices: Devices, name: str, build) -> None:
    try:
        device = build()
    except Exception as e:  # noqa: BLE001 (a missing library, a device node, a permission: play on degraded)
        _failed(devices, name, e)
        return
    if device is None:
        devices.health[name] = "not fitted"
    else:
        setattr(devices, name, device)
        devices.health[name] = "ok"


def _failed(devices: Devices, name: str, error: Exception) -> None:
    """Say once, in the log and on whatever still shows, that a device is not working."""
    why = meaning(error)
    devices.not_working(name, why)
    devices.faults[name] = Phrase.of(DEVICE_FAULTS[name], error=why)
    log.error("%s could not be opened, the table plays without it: %s", DEVICE_NAMES[name], error)


def _leds(config: Config) -> LedStrip | None:
    leds = config.leds
    if leds.backend == "none":
        return None
    if leds.backend == "ws281x":
        from ..drivers.ws281x import Ws281xStrip

        return Ws281xStrip(leds.output(), leds.ws281x)
    from ..drivers.spi_leds import SpiLedStrip

    return SpiLedStrip(leds.output(), leds.spi)


def _sound(config: Config, hal: str) -> tuple[SoundDevice, str]:
    """The speaker: pygame's mixer on a real table (a missing audio device is reported by the
    driver's own thread, as a warning); a recorder in the simulator."""
    if not config.sound.enabled:
        return NoSound(), "off"
    if hal == "sim":
        return SimSound(keep=100), "simulated"
    from ..drivers.pygame_sound import PygameSound

    return PygameSound(), "ok"


def _buttons(config: Config) -> Buttons:
    from ..drivers.buttons import GpioButtons

    return GpioButtons(config.buttons)


def _screen(config: Config, painter=None) -> Screen:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no greeting in the service's log
    from ..drivers.pygame_screen import PygameScreen
    from ..ui.screen import ScreenPainter

    screen = config.screen
    painter = painter or ScreenPainter(screen.settings)
    return PygameScreen(painter, size=screen.size, video_driver=screen.video_driver,
                        panel_rotation=screen.mounting.rotation)


class Daemon:
    """The running table: devices, session, loop, control socket, systemd notification."""

    def __init__(self, config: Config, hal: str = "hw", touch_port: str | None = None, notifier: Notifier | None = None,
                 under_trial: Trial | None = None, trial_deadline_s: float = DEADLINE_S):
        self.config = config
        self.hal = hal
        self.started = time.monotonic()
        self.notifier = notifier or Notifier()
        paths = config.paths
        self.lock = lock_journal(paths.journal_dir)
        self.recent_log = RecentLines()  # the last lines, for the staff page, from here on
        logging.getLogger().addHandler(self.recent_log)
        self.session = Session.resume(config.rules, paths.journal_dir, retention=paths.retention, options=config.options)
        if self.session.resumed:
            log.info("resumed game %s from %s", self.session.id, self.session.resumed)
        self.devices = open_devices(config, hal, touch_port)
        self.fleet = self._open_fleet()
        self.companion: Companion | None = None  # the phones' pages: opened once the table is up
        self._phones = threading.Event()  # set once the companion is up, failed or off
        self._companion_start: threading.Thread | None = None
        self.faults = dict(self.devices.faults)  # shared by every loop this daemon runs
        self.announcer = Announcer(self.devices.sound, config.sound, config.language)  # shared by every loop too
        self.loop = self._make_loop()
        self._stopping = False
        self._switched = threading.Event()
        self._next_game: str | None = None  # what _switch asked run() to deal
        self._switch_refused: Phrase | None = None
        self.control = ControlServer(paths.socket, self.answer, paths.socket_group)
        self.restarting = False  # the staff asked for a restart: run() ends, serve() exits with EXIT_RESTART
        self.staff_desk: StaffDesk | None = None  # the staff page's way to the table, with the companion
        self._settings = threading.RLock()  # one change of the file (and of the table) at a time
        self._restart_later: threading.Timer | None = None  # a staff restart asked too soon after others
        self._restart_due = 0.0  # when it happens, on the monotonic clock
        self.companion_beat = LoopHeartbeat("the companion server")
        self.trial_watch = None if under_trial is None or config.source is None else TrialWatch(
            config.source, under_trial, self.trial_health, self.restart, trial_deadline_s)

    def _make_loop(self) -> EventLoop:
        """The loop for the game on the table: its kind's (``pi_table.table.games``), loaded when
        a game of that kind is first played here."""
        d, config = self.devices, self.config
        settings = LoopSettings(config.input, config.timer, config.discussion_s, config.lights, config.language)
        loop: EventLoop = loop_class(self.session.kind).made(self.session, d.touch, d.leds, d.screen, d.buttons, settings)
        loop.faults = self.faults
        loop.sound = self.announcer
        return loop

    def post(self, event) -> None:
        """Where the devices deliver: the loop of the moment (it changes with the game's kind)."""
        self.loop.post(event)

    def start(self) -> None:
        for name in ("touch", "buttons", "screen"):
            device = getattr(self.devices, name)
            try:
                device.start(self.post)
            except Exception as e:  # noqa: BLE001 (whatever a device raises, the table plays on without it)
                self._replace_failed(name, e)
        self.devices.sound.start(self.post)  # it reports a missing audio device itself, as a warning
        self.loop.show()
        try:
            self.control.start()
        except OSError as e:  # the game matters more than the staff's commands: play on
            self.loop.faults["control"] = Phrase.of(
                "the control socket {path} cannot be opened ({error}): pi-table status cannot reach the table; "
                "restart it (systemctl restart pi-table); the game goes on", path=str(self.config.paths.socket), error=str(e))
            log.error("%s", self.loop.faults["control"])
            self.loop.show()
        degraded = [name for name, health in self.devices.health.items() if health.startswith("not working")]
        state = f"degraded: {', '.join(degraded)} not working" if degraded else "up"
        self.notifier.ready(f"table {state}; game {self.session.id}")
        log.info("table %s; game %s; control socket %s", state, self.session.id, self.config.paths.socket)
        self._start_companion(f"table {state}; game {self.session.id}")
        if self.fleet is not None:
            self.fleet.start()
        if self.trial_watch is not None:
            log.info("trying the settings changed by %s (%s)", self.trial_watch.trial.by,
                     ", ".join(self.trial_watch.trial.keys))
            self.trial_watch.start()

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
            why = Phrase.of("the broker's password file cannot be used ({error}): check [fleet] password_file",
                            error=meaning(e) if isinstance(e, Refusal) else e.strerror or str(e))
            self.devices.not_working("fleet", why)
            log.error("%s; the table plays on unreported", why)
            return None
        self.devices.screen = ReportingScreen(self.devices.screen, lambda: reporter.offer(self._fleet_status()))
        return reporter

    def _fleet_status(self) -> dict:
        """The status the fleet sees (in the loop's thread), with when the game began; its
        warnings and a game's end in the table's language, as its screen shows them."""
        return {**self.status(self.config.language), "began": self.session.began, "language": self.config.language}

    def _fleet_link(self, state: Text) -> None:
        """What the reporter says of its link, from paho's thread: a state ("ok", "connecting"),
        or a Phrase saying why it is not working."""
        if isinstance(state, Phrase):
            self.devices.not_working("fleet", state)
        else:
            self.devices.working("fleet", state)

    def _fleet_command(self, request: dict) -> dict:
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

    def _open_companion(self, state: str) -> None:
        web, journal_dir = self.config.web, self.config.paths.journal_dir
        try:
            from ..ui.words import Cards
            from ..web import Companion, CompanionScreen, Tokens
            from ..web.seats import SeatLinks
            from ..web.staff import StaffPage

            tokens = Tokens.kept_in(journal_dir)
            self.staff_desk = StaffDesk(self)
            staff = StaffPage(self.staff_desk, journal_dir, self.config.staff_session_s)
            tls = _tls(web.tls_cert, web.tls_key) if web.tls_cert else None
            companion = Companion(web.host, web.port, act=self._act, base_url=web.url,
                                  advertise=lambda: _reachable_address(web.host), proof=tokens.proof,
                                  opened_file=journal_dir / "companion.opened", language=self.config.language,
                                  staff=staff, tls=tls)
            companion.start()
        except Exception as e:  # noqa: BLE001 (a taken port, a broken install: the table plays without phones)
            why = e.strerror if isinstance(e, OSError) and e.strerror else e
            fault = (Phrase.of("the companion's certificate cannot be used ({error}): phones cannot join; check [web] "
                               "tls_cert and tls_key, then restart the table", error=str(why))
                     if isinstance(e, _TlsError) else
                     Phrase.of("the companion cannot listen on port {port} ({error}): phones cannot join; free the port "
                               "or choose another ([web] port), then restart the table", port=web.port, error=str(why)))
            self.devices.not_working("companion", str(why))
            log.error("%s", fault)
            self._phones_settled(state, "not working")
            self._in_loop(lambda: self._note_fault("companion", fault))
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
            self.loop.show()

        if not self._in_loop(attach):  # the table stopped first
            companion.stop()
            self._phones.set()
            return
        log.info("companion pages at %s", companion.base_url)
        self._phones_settled(state, f"at {companion.base_url}")

    def _in_loop(self, fn) -> bool:
        """Run ``fn`` in the thread of the loop of the moment (a switch between game kinds
        replaces it, so a call its loop ended before running is made again on the next);
        False when the table stops first. ``fn`` must be harmless to run twice."""
        while not self._stopping:
            try:
                self.loop.call(fn, timeout=0.5)
                return True
            except TimeoutError:
                continue
        return False

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
        stand_ins: dict[str, TouchSource | Buttons | Screen] = {
            "touch": SimTouch(), "buttons": SimButtons(), "screen": SimScreen(keep=1)}
        stand_in = stand_ins[name]
        setattr(self.devices, name, stand_in)  # before the companion: it stands beside the stand-in
        setattr(self.loop, name, stand_in)
        stand_in.start(self.post)
        _failed(self.devices, name, error)
        self.loop.faults[name] = self.devices.faults[name]

    def run(self) -> None:
        """Run the table until stopped; when a new game of the other kind was dealt (Codex
        after a grid game, or back), go on with the loop that plays it."""
        while True:
            self.loop.run(alive=lambda: self.notifier.watchdog(self.sickness))
            if self._stopping:
                return
            try:  # no loop runs now: this thread owns the game
                self.session.new_game(self._next_game)
            except REFUSALS as refusal:
                self._switch_refused = refusal.phrase  # the same loop goes on with the same game
            else:
                self._switch_refused = None
                self.loop = self._make_loop()
                if self._stopping:  # SIGTERM came while the loops changed: it stopped the old one
                    return
            self.loop.show()
            self._switched.set()

    def sickness(self) -> str | None:
        """What keeps the watchdog from being pinged: a thread the table needs besides the
        loop's that has died or stuck (systemd then restarts the table, which resumes its game
        from the journal); None while all of them are well."""
        touch_thread = getattr(self.devices.touch, "_thread", None)  # the board's driver reads on one thread
        sick = self.control.sickness() or thread_ended(touch_thread, "the touch board")
        if sick is None and self.companion is not None:  # an asyncio loop in a thread of its own
            sick = self.companion_beat.check(*self.companion.serving())
        return sick

    def change_settings(self, changes: dict[str, object]) -> list[Phrase]:
        """Written only if ``check-config`` would pass the new file (on this machine, as the
        service's user, beside what this table holds), as a trial: the restart that applies it
        keeps it only if the table comes back healthy (``pi_table.config.trial``). The checker's
        problems, or [] once written."""
        return self._change(changes, proven=False)

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        """The language, the LEDs' brightness, the volume or the turn timer's length (``AT_HAND``;
        the staff page's ``LIVE``), written like any change and applied at once: nobody should
        have to restart a table to dim it, quieten it, hurry it or hear it in Italian."""
        if key not in AT_HAND.values():
            return [Phrase.of("{key} is not changed while the table runs: expected one of {keys}", key=key,
                              keys=", ".join(AT_HAND.values()))]
        with self._settings:  # the table applies the changes in the order the file took them
            problems = self._change({key: value}, proven=True)
            if not problems:  # written: a table stopping meanwhile takes it up when it next starts
                self._in_loop(lambda: self._apply_at_hand(key, value))
        return problems

    def _change(self, changes: dict[str, object], proven: bool) -> list[Phrase]:
        """Check and write ``changes``: a trial, or ``proven`` (applied at once, and kept in the
        last good file too while a trial waits for its restart)."""
        from ..config import BY_KEY, ConfigError, trial

        path = self.config.source
        if path is None:
            return [Phrase.of("no configuration file: the table runs on its defaults (start one with "
                              "pi-table check-config --defaults)")]
        unknown = [key for key in changes if key not in BY_KEY]
        if unknown:
            return [Phrase.of("{path}: unknown key {key}: expected one of pi-table check-config --defaults",
                              path=str(path), key=key) for key in unknown]
        running = Running((str(self.config.paths.journal_dir),),
                          None if self.companion is None else self.companion.port)
        try:
            with self._settings:  # read, changed and written whole: two staff at once lose neither change
                if proven:
                    trial.change_proven(path, changes, running)
                else:
                    trial.change(path, changes, "staff", self._working(), running)
        except ConfigError as e:
            return e.phrases
        except OSError as e:
            return [Phrase.of("{path}: cannot be written: {error}", path=str(path), error=e.strerror or str(e))]
        return []

    def settings_state(self, lang: str) -> dict:
        """The settings' trial for the staff page: a change waiting to be proven healthy, and the
        last one rolled back (which keys, by whom, when, and why in ``lang``) until one is kept."""
        from ..config import trial

        path = self.config.source
        pending = None if path is None else trial.pending_trial(path)
        note = None if path is None else trial.rolled_back(path)
        rolled_back = None
        if note is not None:
            why, keys = note.get("why"), note.get("keys")
            rolled_back = {"at": note.get("at") if isinstance(note.get("at"), int | float) else None,
                           "keys": [key for key in keys if isinstance(key, str)] if isinstance(keys, list) else [],
                           "by": str(note.get("by", "")),
                           "why": str(why.get(lang) or why.get("en") or "") if isinstance(why, dict) else ""}
        return {"trial": None if pending is None else {"keys": list(pending.keys), "by": pending.by,
                                                        "since": pending.since},
                "rolled_back": rolled_back}

    def _working(self) -> list[str]:
        """The devices working now, which a change must leave working, and "staff" when the
        staff can log in (a PIN is set): a change must not lock them out either."""
        try:
            health = self.loop.call(lambda: self.status())["health"]
        except TimeoutError:
            return []
        return [name for name, state in health.items() if state == "ok"] + (["staff"] if self._pin_set() else [])

    def _pin_set(self) -> bool:
        from ..web.staff import PIN_FILE  # the staff page's own: loaded with it, after READY

        return os.path.exists(self.config.paths.journal_dir / PIN_FILE)

    def trial_health(self) -> Health:
        """How a trial sees the table: its loop answering, its pages answering, and the devices
        that worked before the change working again."""
        try:
            health = self.loop.call(lambda: self.status(), timeout=2)["health"]
        except TimeoutError:
            return Health(Phrase.of("the table's loop does not answer"))
        web = self.config.web
        if web.enabled:
            if health.get("companion", "").startswith(NOT_WORKING):
                return Health(Phrase.of("the phones' pages and the staff page cannot open: {why}",
                                        why=self.devices.why.get("companion", health["companion"])), final=True)
            if self.companion is None:
                return Health(Phrase.of("the phones' pages and the staff page are not open yet"))
            unanswered = pages_answer(self.companion.port, web.host, bool(web.tls_cert))
            if unanswered is not None:
                return Health(unanswered)
        watched = self.trial_watch.trial.working if self.trial_watch is not None else ()
        if "staff" in watched and not self._pin_set():
            return Health(Phrase.of("the staff can no longer log in: no staff PIN in {folder} (the journal folder "
                                    "changed)", folder=str(self.config.paths.journal_dir)), final=True)
        for name in (name for name in watched if name != "staff"):
            if health.get(name, "ok") != "ok":
                return Health(Phrase.of("{device} worked before the change and does not now: {state}",
                                        device=Phrase(events.DEVICE_NAMES.get(name, name)),
                                        state=self.devices.why.get(name, health[name])))
        return Health()

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
        elif key == "timer.length_s":  # the turn under way runs to the new length; Codex's discussion keeps its own
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
        """Stop, and have ``serve`` exit with ``EXIT_RESTART`` for systemd to start the table again;
        the seconds until it does. At most ``STAFF_RESTARTS`` in ``RESTART_WINDOW_S``: more would
        trip the unit's start limit, and systemd would leave the table down until someone with
        SSH starts it, so a restart asked sooner waits its turn (settings saved meanwhile go with it)."""
        with self._settings:
            if self._restart_later is not None:
                return max(0.0, self._restart_due - time.monotonic())
            now = time.time()
            recent = self._staff_restarts(now)
            if len(recent) >= STAFF_RESTARTS:
                wait = recent[-STAFF_RESTARTS] + RESTART_WINDOW_S - now
                log.info("restart in %.0f s: the staff restarted the table %d times in %.0f s", wait, len(recent),
                         RESTART_WINDOW_S)
                self._restart_due = time.monotonic() + wait
                self._restart_later = threading.Timer(wait, self._restart_when_due)
                self._restart_later.daemon = True
                self._restart_later.start()
                return wait
            self._keep_staff_restarts([*recent, now])
        self._restart_now()
        return 0.0

    def _restart_when_due(self) -> None:
        with self._settings:
            self._restart_later = None
        self.restart()  # counted now that its turn has come

    def _restart_now(self) -> None:
        self.restarting = True
        self.stop()

    def _staff_restarts(self, now: float) -> list[float]:
        """The times of the staff's restarts within the window, oldest first."""
        try:
            kept = json.loads((self.config.paths.journal_dir / RESTARTS_FILE).read_text(encoding="utf-8"))
            return sorted(t for t in kept if isinstance(t, (int, float)) and 0 <= now - t < RESTART_WINDOW_S)
        except FileNotFoundError:
            return []
        except (OSError, ValueError, TypeError) as e:
            log.warning("cannot read the staff's restarts (%s): counting from now", e)
            return []

    def _keep_staff_restarts(self, times: list[float]) -> None:
        try:
            write_private(self.config.paths.journal_dir / RESTARTS_FILE, json.dumps(times).encode())
        except OSError as e:
            log.warning("cannot keep the staff's restarts (%s): a hurried staff may trip systemd's start limit", e)

    def stop(self) -> None:
        """Ask the loop to finish what is queued and end; safe from a signal handler."""
        self._stopping = True
        self.loop.stop_soon()

    def close(self) -> None:
        self._stopping = True  # the companion, if it is still opening, gives up waiting for the loop
        if self._restart_later is not None:
            self._restart_later.cancel()
        if self.trial_watch is not None:
            self.trial_watch.stop()
        self.notifier.stopping()
        self.control.stop()
        if self._companion_start is not None:
            self._companion_start.join(timeout=5)
        if self.companion is not None:
            self.companion.stop()
        logging.getLogger().removeHandler(self.recent_log)
        if self.fleet is not None:
            self.fleet.stop()
        self.loop.close()
        self.devices.sound.close()
        self.notifier.close()
        if self.lock is not None:
            self.lock.close()

    # --- the control socket's commands (in the socket's thread; game work in the loop's) ---

    def answer(self, request: dict) -> dict:
        command, lang = request["command"], request.get("lang", "en")
        if lang not in LANGUAGES:
            return {"ok": False, "error": str(Phrase.of(N_("the language is one of {languages}, not {lang!r}"),
                                                        languages=", ".join(LANGUAGES), lang=lang))}
        if command == "status":
            return {"ok": True, **self.loop.call(lambda: self.status(lang))}
        if command == "new-game":
            game = request.get("game")
            if game is not None and game not in KNOWN_GAMES:
                return {"ok": False, "error": say(Phrase.of(N_("the game is one of {games}, not {game!r}"),
                                                            games=", ".join(KNOWN_GAMES), game=game), lang)}
            if game is not None and kind_of(game) != self.session.kind:
                return self._switch(game, lang)
            outcome = self.loop.call(lambda: self.loop.submit(NewGame(game)))
        elif command == "undo":
            outcome = self.loop.call(lambda: self.loop.submit(Undo()))
        elif command == "history":  # the staff's way to it: the journal's files are the service's alone
            return {"ok": True, "games": history(self.config.paths.journal_dir, lang)}
        elif command == "release-seat":
            outcome = self._release_seat(request.get("seat"))
        else:
            expected = "status, new-game, undo, history or release-seat"
            return {"ok": False, "error": say(Phrase.of(N_("unknown command {command!r}: expected {expected}"),
                                                        command=command, expected=expected), lang)}
        if not outcome.ok:
            return {"ok": False, "error": say(outcome.reason or "", lang)}
        return {"ok": True, **self.loop.call(lambda: self.status(lang))}

    def _release_seat(self, seat) -> Outcome:
        """``release-seat``: give a Codex seat's phone page a new link, in the loop's thread (as
        a tap on the screen does); its refusals go back to the staff, not to the screen."""
        command = ReleaseSeat(seat)
        if not isinstance(seat, int) or isinstance(seat, bool):
            example = '{"command": "release-seat", "seat": 2}'
            return Outcome(command, False, Phrase.of("expected a seat number, such as {example}, not {seat!r}", example=example,
                                                     seat=seat))
        loop = self.loop
        try:
            return loop.call(lambda: loop.release_seat(seat, public=False))
        except TimeoutError:  # the loop ended in between: a new game of another kind
            return Outcome(command, False, CHANGING_GAMES)

    def _switch(self, game: str, lang: str) -> dict:
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
        from ..web import seat_action  # the companion's own thread: the web layer is loaded by now
        from ..web.tokens import role_seat

        seat = role_seat(role)
        if seat is None:
            return Phrase.of("this page only shows the game; it takes no actions")
        try:
            action = seat_action(seat, text)
        except REFUSALS as refusal:
            return refusal.phrase
        loop = self.loop
        try:
            outcome = loop.call(lambda: loop.from_phone(game_id, action))
        except TimeoutError:  # the loop ended in between: a new game of another kind
            return CHANGING_GAMES
        return None if outcome.ok else outcome.reason

    def status(self, lang: str = "en") -> dict:
        """What the operatives may see, and the table's health: never the key. The warnings and
        a finished game's reason in ``lang`` (the rest is the table's own words)."""
        health = dict(self.devices.health)
        for name, why in list(self.devices.why.items()):  # a copy: paho's thread may change it meanwhile
            health[name] = NOT_WORKING + say(why, lang)
        touch = self.devices.touch
        if hasattr(touch, "connected"):  # the board's driver: what it last said of the link
            health["touch"] = "ok" if touch.connected else say(self.loop.faults.get("touch", "connecting"), lang)
        if "sound" in self.loop.faults:  # the audio output went missing after the start
            health["sound"] = f"not working: {say(self.loop.faults['sound'], lang)}"
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
            "warnings": [say(warning, lang) for warning in self.loop.cues(self.loop.clock()).warnings],
            "journal": say(self.session.journal_problem or "ok", lang),
            "journal_damage": self.session.journal_damage,  # what a damaged journal lost, until the next game
            "companion": None if self.companion is None else self.companion.base_url,
        }


# --- the staff page's desk -----------------------------------------------------------------


class RecentLines(logging.Handler):
    """The service's last log lines, for the staff page (journald keeps them all)."""

    def __init__(self, keep: int = 200) -> None:
        super().__init__(logging.INFO)
        self.lines: deque[str] = deque(maxlen=keep)
        self.setFormatter(logging.Formatter("%(asctime)s " + logs.FORMAT, "%H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.extend(self.format(record).split("\n"))


class StaffDesk:
    """What the staff page may do to this table (``pi_table.web.staff.Desk``), made of what the
    daemon already has: its control commands, the journal's history, the configuration's
    checker, and the log. Never the key: the game is the control socket's public status."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    def language(self) -> str:
        return self.daemon.config.language

    def table(self, lang: str) -> dict:
        return {**self.daemon.answer({"command": "status", "lang": lang}), "settings": self.daemon.settings_state(lang)}

    def new_game(self, game: str, options: dict[str, object], lang: str) -> Text | None:
        daemon = self.daemon
        if game in KNOWN_GAMES:
            try:
                rules = daemon.session.rules_for(game, options)
            except InvalidRules as e:
                return e.phrase
            if not daemon._in_loop(lambda: daemon.session.keep(rules)):
                return Phrase.of("the table is stopping")
        return self._done({"command": "new-game", "game": game}, lang)

    def undo(self, lang: str) -> Text | None:
        return self._done({"command": "undo"}, lang)

    def end_game(self, lang: str) -> Text | None:
        return self._done({"command": "new-game"}, lang)

    def _done(self, request: dict, lang: str) -> Text | None:
        """The control command's answer, its refusal said in the staff page's language."""
        answer = self.daemon.answer({**request, "lang": lang})
        return None if answer["ok"] else answer["error"]

    def history(self, lang: str) -> list[dict]:
        return history(self.daemon.config.paths.journal_dir, lang)

    def settings(self) -> dict:
        from ..config import OPTIONS

        config = self.daemon.config
        return {"file": None if config.source is None else str(config.source),
                "options": [{"key": o.key, "kind": o.kind, "help": o.help, "default": o.default,
                             "value": config.values[o.key]} for o in OPTIONS]}

    def change_settings(self, changes: dict[str, object]) -> list[Phrase]:
        return self.daemon.change_settings(changes)

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        return self.daemon.change_at_hand(key, value)

    def log_lines(self) -> list[str]:
        return list(self.daemon.recent_log.lines)

    def restart(self) -> float:
        return self.daemon.restart()


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


def _reachable_address(host: str) -> str:
    """How phones reach this machine: its address on the network the default route leaves by
    (a UDP socket's connect sends nothing, it only picks the route), or the host it listens on."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
        address = probe.getsockname()[0]
    except OSError:
        address = "127.0.0.1"
    finally:
        probe.close()
    return address


def serve(config: Config, hal: str = "hw", touch_port: str | None = None, under_trial: Trial | None = None) -> int:
    """Run the daemon in this process until SIGTERM or SIGINT; the exit status. A table started
    on settings under trial keeps them once healthy, or rolls them back (``trial.TrialWatch``)."""
    try:
        daemon = Daemon(config, hal, touch_port, under_trial=under_trial)
    except AlreadyRunning as e:
        print(f"pi-table run: {e}", file=sys.stderr)
        return EXIT_RUNNING
    stopped_by: list[str] = []

    def stop(number, frame) -> None:  # a signal handler: note it, log it once out of the handler
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
