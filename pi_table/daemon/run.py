"""``pi-table run``: the table as a service.

It builds the devices the configuration names (or the simulators with ``--hal sim``), resumes
the last unfinished game from the journal, serves the control socket, tells systemd it is
ready, and runs the table loop until SIGTERM. A device that cannot be opened does not stop
the table: it is replaced by a stand-in, reported once in the log and shown on the screen
(or, without a screen, on the LEDs' warning edge), and the table plays on degraded.
"""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import version
from ..config import LANGUAGES, Config
from ..engine import CODEX, GAMES, TableView, Undo
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
)
from ..table import Session, TableLoop, history
from ..table.input import TouchPolicy
from ..table.loop import REFUSALS, EventLoop, Outcome
from ..table.timer import TurnTimer
from .control import ControlServer
from .notify import LoopHeartbeat, Notifier, thread_ended

if TYPE_CHECKING:  # loaded only once the table is up (the phones' pages open after READY), or Codex is played
    from ..engine import PublicView
    from ..fleet.reporter import Reporter
    from ..web import Companion

log = logging.getLogger("pi_table.daemon")
DEVICE_NAMES = {"touch": "the touch board", "leds": "the LED strip", "screen": "the spymaster screen",
                "buttons": "the buttons"}
KNOWN_GAMES = (*GAMES, CODEX)
EXIT_RUNNING = 75  # EX_TEMPFAIL: another table holds this journal; systemd may try again later


class AlreadyRunning(RuntimeError):
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
    faults: dict[str, str] = field(default_factory=dict)  # device -> the warning to show


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
    devices.health[name] = f"not working: {error}"
    devices.faults[name] = f"{DEVICE_NAMES[name]}: not working ({error})"
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

    def __init__(self, config: Config, hal: str = "hw", touch_port: str | None = None, notifier: Notifier | None = None):
        self.config = config
        self.hal = hal
        self.started = time.monotonic()
        self.notifier = notifier or Notifier()
        paths = config.paths
        self.lock = lock_journal(paths.journal_dir)
        self.session = Session.resume(config.rules, paths.journal_dir, retention=paths.retention)
        if self.session.codex:
            self.session.grid_rules = config.grid_rules
        if self.session.resumed:
            log.info("resumed game %s from %s", self.session.id, self.session.resumed)
        self.devices = open_devices(config, hal, touch_port)
        self.fleet = self._open_fleet()
        self.companion: Companion | None = None  # the phones' pages: opened once the table is up
        self._phones = threading.Event()  # set once the companion is up, failed or off
        self._companion_start: threading.Thread | None = None
        self.faults = dict(self.devices.faults)  # shared by every loop this daemon runs
        self.loop = self._make_loop()
        self._stopping = False
        self._switched = threading.Event()
        self._next_game: str | None = None  # what _switch asked run() to deal
        self._switch_refused: str | None = None
        self.control = ControlServer(paths.socket, self.answer, paths.socket_group)
        self.companion_beat = LoopHeartbeat("the companion server")

    def _make_loop(self) -> EventLoop:
        """The loop for the game on the table: the grid games' or Codex's."""
        d, config = self.devices, self.config
        loop: EventLoop
        if self.session.codex:
            from ..table.codex_loop import CodexLoop  # Codex's engine loads when Codex is played

            loop = CodexLoop(self.session, d.touch, d.leds, d.screen, d.buttons, discussion_s=config.discussion_s,
                             lights=config.lights, lang=config.language)
        else:
            loop = TableLoop(
                self.session, d.touch, d.leds, d.screen, d.buttons, TouchPolicy(config.input),
                timer=TurnTimer(config.timer), lights=config.lights, lang=config.language,
            )
        loop.faults = self.faults
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
        self.loop.show()
        try:
            self.control.start()
        except OSError as e:  # the game matters more than the staff's commands: play on
            self.loop.faults["control"] = f"the control socket {self.config.paths.socket} cannot be opened ({e})"
            log.error("%s; pi-table status and its kin will not reach this table", self.loop.faults["control"])
            self.loop.show()
        degraded = [name for name, health in self.devices.health.items() if health.startswith("not working")]
        state = f"degraded: {', '.join(degraded)} not working" if degraded else "up"
        self.notifier.ready(f"table {state}; game {self.session.id}")
        log.info("table %s; game %s; control socket %s", state, self.session.id, self.config.paths.socket)
        self._start_companion(f"table {state}; game {self.session.id}")
        if self.fleet is not None:
            self.fleet.start()

    # --- [fleet]: the table's reports to an MQTT broker (pi_table/fleet/reporter.py) ---

    def _open_fleet(self) -> Reporter | None:
        """The reporter when [fleet] names a broker: it hears of every model the screen shows."""
        if not self.config.fleet.enabled:
            return None
        from ..fleet.reporter import Reporter, ReportingScreen  # paho loads only for a table in a fleet

        self.devices.health["fleet"] = "connecting"
        try:
            reporter = Reporter(self.config.fleet, self._fleet_command,
                                link_state=lambda state: self.devices.health.__setitem__("fleet", state))
        except OSError as e:  # its password file went missing since check-config: play on unreported
            self.devices.health["fleet"] = f"not working: {e}"
            log.error("the fleet's broker cannot be reached without its password file (%s); the table plays on", e)
            return None
        self.devices.screen = ReportingScreen(self.devices.screen, lambda: reporter.offer(self._fleet_status()))
        return reporter

    def _fleet_status(self) -> dict:
        """The status the fleet sees (in the loop's thread), with when the game began."""
        return {**self.status(), "began": self.session.began}

    def _fleet_command(self, request: dict) -> dict:
        """A command from the fleet's broker: new game and undo as on the control socket, the
        screen's language; brightness is the configuration's ([leds] brightness) here."""
        command = request["command"]
        if command in ("new-game", "undo"):
            return self.answer({"command": command, "game": request.get("game")})
        if command == "language":
            language = request.get("language")
            if language not in LANGUAGES:
                return {"ok": False, "error": f"the language is one of {', '.join(LANGUAGES)}, not {language!r}"}
            self.loop.call(lambda: setattr(self.loop, "lang", language))
            return {"ok": True}
        return {"ok": False, "error": "brightness is set in the configuration ([leds] brightness) on this table, "
                                      "whose LED drivers take it when they start"}

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

            tokens = Tokens.kept_in(journal_dir)
            companion = Companion(web.host, web.port, act=self._act, base_url=web.url,
                                  advertise=lambda: _reachable_address(web.host), proof=tokens.proof,
                                  opened_file=journal_dir / "companion.opened")
            companion.start()
        except Exception as e:  # noqa: BLE001 (a taken port, a broken install: the table plays without phones)
            why = e.strerror if isinstance(e, OSError) and e.strerror else e
            fault = f"the companion cannot listen on port {web.port} ({why})"
            self.devices.health["companion"] = f"not working: {e}"
            log.error("%s; phones cannot join this table", fault)
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

    def _note_fault(self, name: str, fault: str) -> None:
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
                self._switch_refused = str(refusal)  # the same loop goes on with the same game
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
            sick = self.companion_beat.check(self.companion._loop, self.companion._thread)
        return sick

    def stop(self) -> None:
        """Ask the loop to finish what is queued and end; safe from a signal handler."""
        self._stopping = True
        self.loop.stop_soon()

    def close(self) -> None:
        self._stopping = True  # the companion, if it is still opening, gives up waiting for the loop
        self.notifier.stopping()
        self.control.stop()
        if self._companion_start is not None:
            self._companion_start.join(timeout=5)
        if self.companion is not None:
            self.companion.stop()
        if self.fleet is not None:
            self.fleet.stop()
        self.loop.close()
        self.notifier.close()
        if self.lock is not None:
            self.lock.close()

    # --- the control socket's commands (in the socket's thread; game work in the loop's) ---

    def answer(self, request: dict) -> dict:
        command = request["command"]
        if command == "status":
            return {"ok": True, **self.loop.call(self.status)}
        if command == "new-game":
            game = request.get("game")
            if game is not None and game not in KNOWN_GAMES:
                return {"ok": False, "error": f"the game is one of {', '.join(KNOWN_GAMES)}, not {game!r}"}
            if game is not None and (game == CODEX) != self.session.codex:
                return self._switch(game)
            outcome = self.loop.call(lambda: self.loop.submit(NewGame(game)))
        elif command == "undo":
            outcome = self.loop.call(lambda: self.loop.submit(Undo()))
        elif command == "history":  # the staff's way to it: the journal's files are the service's alone
            return {"ok": True, "games": history(self.config.paths.journal_dir)}
        elif command == "release-seat":
            outcome = self._release_seat(request.get("seat"))
        else:
            expected = "status, new-game, undo, history or release-seat"
            return {"ok": False, "error": f"unknown command {command!r}: expected {expected}"}
        if not outcome.ok:
            return {"ok": False, "error": outcome.error}
        return {"ok": True, **self.loop.call(self.status)}

    def _release_seat(self, seat) -> Outcome:
        """``release-seat``: give a Codex seat's phone page a new link, in the loop's thread (as
        a tap on the screen does); its refusals go back to the staff, not to the screen."""
        command = ReleaseSeat(seat)
        if not isinstance(seat, int) or isinstance(seat, bool):
            example = '{"command": "release-seat", "seat": 2}'
            return Outcome(command, False, f"expected a seat number, such as {example}, not {seat!r}")
        from ..table.codex_loop import CodexLoop

        loop = self.loop
        if not isinstance(loop, CodexLoop):
            playing = self.session.rules.game
            return Outcome(command, False, f"seats are released in Codex only: the table is playing {playing}")
        try:
            return loop.call(lambda: loop.release_seat(seat, public=False))
        except TimeoutError:  # the loop ended in between: a new game of another kind
            return Outcome(command, False, "the table is changing games: try again")

    def _switch(self, game: str) -> dict:
        """A new game of the other kind: the loop ends, ``run`` deals the game and goes on
        with the loop that plays it."""
        self._next_game = game
        self._switched.clear()
        self.loop.stop_soon()
        if not self._switched.wait(5):
            return {"ok": False, "error": f"the table did not take up {game} within 5 s"}
        if self._switch_refused is not None:
            return {"ok": False, "error": self._switch_refused}
        return {"ok": True, **self.loop.call(self.status)}

    def _act(self, game_id: str, role: str, text: str) -> str | None:
        """An action from a phone's page (the companion's thread): None if the table took it,
        else why not. A page acts only for its own seat, in its own game; its refusal goes back
        to that phone alone, never to the table's screen."""
        from ..table.codex_loop import CodexLoop
        from ..web import seat_action  # the companion's own thread: the web layer is loaded by now
        from ..web.tokens import role_seat

        seat = role_seat(role)
        if seat is None:
            return "this page only shows the game; it takes no actions"
        try:
            action = seat_action(seat, text)
        except REFUSALS as refusal:
            return str(refusal)
        loop = self.loop
        if not isinstance(loop, CodexLoop):
            return "no Codex game is on the table now"
        def submit():
            if self.session.id != game_id:
                return Outcome(action, False, "this page belonged to a game that has ended")
            return loop.submit(action, public=False)

        try:
            outcome = loop.call(submit)
        except TimeoutError:  # the loop ended in between: a new game of another kind
            return "the table is changing games: try again"
        return None if outcome.ok else outcome.error

    def _public_view(self) -> PublicView | TableView:
        """What everyone at the table may see of the game: Codex's public side, or the grid."""
        if self.session.codex:
            record = self.session.codex_record
            return record.game.public_view(record.state)
        return self.session.table_view()

    def status(self) -> dict:
        """What the operatives may see, and the table's health: never the key."""
        health = dict(self.devices.health)
        touch = self.devices.touch
        if hasattr(touch, "connected"):  # the board's driver: what it last said of the link
            health["touch"] = "ok" if touch.connected else self.loop.faults.get("touch", "connecting")
        return {
            "version": version(),
            "game_id": self.session.id,
            "uptime_s": round(time.monotonic() - self.started, 1),
            "state": self._public_view().to_json(),
            "health": health,
            "warnings": list(self.loop.cues(self.loop.clock()).warnings),
            "journal": self.session.journal_problem or "ok",
            "journal_damage": self.session.journal_damage,  # what a damaged journal lost, until the next game
            "companion": None if self.companion is None else self.companion.base_url,
        }


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


def serve(config: Config, hal: str = "hw", touch_port: str | None = None) -> int:
    """Run the daemon in this process until SIGTERM or SIGINT; the exit status."""
    try:
        daemon = Daemon(config, hal, touch_port)
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
    return 0
