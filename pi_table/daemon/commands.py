"""The table's commands: the control socket's (``pi-table status``, ``new-game``, ``undo``,
``history``, ``release-seat``, ``restore``), which the staff page and the fleet send too, an
action from a phone's page, and the status and health they answer with. Each is answered in the
caller's thread; the game's work is done in the loop's.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Protocol

from .. import version
from ..engine import Undo
from ..engine.games import kind_of, names
from ..engine.phrase import N_, Phrase, Text
from ..engine.views import LANGUAGES
from ..files import read_file
from ..hal import NewGame, ReleaseSeat
from ..hal.events import NOT_WORKING
from ..table import history
from ..table.loop import NO_PHONE_ACTIONS, PAUSED, REFUSALS, NotAnswering, Outcome
from ..ui.i18n import say

if TYPE_CHECKING:  # the backups load only for a restore
    from ..config import Config
    from ..table import Session
    from ..table.loop import EventLoop
    from ..web import Companion
    from .backup import Table as Restoring
    from .checkup import Checkup
    from .devices import Devices
    from .first_boot import FirstBoot
    from .restarts import Restarts

    class Table(Restoring, Protocol):
        """What the commands read and ask of the running table (``run.Daemon``)."""

        config: Config
        session: Session
        loop: EventLoop
        devices: Devices
        restarts: Restarts
        checkup: Checkup
        companion: Companion | None
        first_boot: FirstBoot | None
        fingerprint: str | None
        started: float

CHANGING_GAMES = Phrase.of("the table is changing games: try again")


class Commands:
    """The commands to ``daemon``'s table. A new game of another kind is dealt by the table's
    own thread (``run.Daemon.run``): ``next_game`` is what it is asked to deal, ``switched`` set
    once it did or refused (``switch_refused``, why)."""

    def __init__(self, daemon: Table) -> None:
        self.daemon = daemon
        self.switched = threading.Event()
        self.next_game: str | None = None
        self.switch_refused: Phrase | None = None

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        command, lang = request["command"], request.get("lang", "en")
        if lang not in LANGUAGES:
            return {"ok": False, "error": str(Phrase.of(N_("the language is one of {languages}, not {lang!r}"),
                                                        languages=", ".join(LANGUAGES), lang=lang))}
        if command == "status":
            answer = {"ok": True, **self.daemon.loop.call(lambda: self.status(lang))}
            if request.get("healthy") is True:  # asked by the root helper before it keeps a new release
                health = self.daemon.restarts.health()
                answer["healthy"] = {"ok": health.why is None, "why": None if health.why is None else say(health.why, lang)}
            return answer
        if command == "new-game":
            game = request.get("game")
            if game is not None and game not in names():
                return {"ok": False, "error": say(Phrase.of(N_("the game is one of {games}, not {game!r}"),
                                                            games=", ".join(names()), game=game), lang)}
            if game is not None and kind_of(game) != self.daemon.session.kind:
                if self.daemon.checkup.running is not None:  # the game is paused: another loop would not be
                    return {"ok": False, "error": say(PAUSED, lang)}
                return self._switch(game, lang)
            outcome = self.daemon.loop.call(lambda: self.daemon.loop.submit(NewGame(game)))
        elif command == "undo":
            outcome = self.daemon.loop.call(lambda: self.daemon.loop.submit(Undo()))
        elif command == "history":  # the staff's way to it: the journal's files are the service's alone
            return {"ok": True, "games": history(self.daemon.config.paths.journal_dir, lang)}
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
        return {"ok": True, **self.daemon.loop.call(lambda: self.status(lang))}

    def _release_seat(self, request: dict[str, Any]) -> Outcome:
        """``release-seat``: give a seat's phone page a new link, in the loop's thread (as
        a tap on the screen does); its refusals go back to the staff, not to the screen."""
        seat = request.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            example = '{"command": "release-seat", "seat": 2}'
            return Outcome(request, False, Phrase.of("expected a seat number, such as {example}, not {seat!r}", example=example,
                                                     seat=seat))
        loop = self.daemon.loop
        try:
            return loop.call(lambda: loop.release_seat(seat, public=False))
        except NotAnswering:  # the loop ended in between: a new game of another kind
            return Outcome(ReleaseSeat(seat), False, CHANGING_GAMES)

    def _restore(self, lang: str) -> dict[str, Any]:
        """``restore``: the backup ``pi-table restore`` put in the backups folder (as root: the
        service's own folder), checked and staged as the staff page's upload is; what it replaces."""
        from . import backup

        upload = backup.folder(self.daemon.config) / backup.UPLOAD
        try:
            contents = backup.restore(read_file(upload, backup.MOST_BYTES), self.daemon, "pi-table restore")
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
        self.next_game = game
        self.switched.clear()
        self.daemon.loop.stop_soon()
        if not self.switched.wait(5):
            return {"ok": False, "error": say(Phrase.of(N_("the table did not take up {game} within 5 s"), game=game),
                                              lang)}
        if self.switch_refused is not None:
            return {"ok": False, "error": say(self.switch_refused, lang)}
        return {"ok": True, **self.daemon.loop.call(lambda: self.status(lang))}

    def act(self, game_id: str, role: str, text: str) -> Text | None:
        """An action from a phone's page (the companion's thread): None if the table took it,
        else why not (said in the page's language there). A page acts only for its own seat, in its own game (the
        spymasters' page confirms the cards' words); its refusal goes back to that phone alone, never to the table's
        screen."""
        from ..web.games import seat_action  # the companion's own thread: the web layer is loaded by now
        from ..web.reading import key_holders_action
        from ..web.tokens import SPYMASTER, role_seat

        seat = role_seat(role)
        if seat is None and role != SPYMASTER:
            return Phrase.of("this page only shows the game; it takes no actions")
        try:
            # the key page's one action, or a seat's as the game on the table reads its seats' actions
            action = key_holders_action(text) if seat is None else seat_action(self.daemon.session.kind, seat, text)
        except REFUSALS as refusal:
            return refusal.phrase
        if action is None:
            return NO_PHONE_ACTIONS
        loop = self.daemon.loop
        try:
            outcome = loop.call(lambda: loop.from_phone(game_id, action))
        except NotAnswering:  # the loop ended in between: a new game of another kind
            return CHANGING_GAMES
        return None if outcome.ok else outcome.reason

    def _board_trouble(self, board: Any) -> Text | None:
        """The board's fault as the table shows it: the loop's word while it still warns (a board
        that answers again before the loop has heard so is not "ok" beside the warning that it is
        gone), else the board's own trouble once it has said hello, else that it is connecting."""
        fault = self.daemon.loop.faults.get("touch")
        if fault is not None:
            return fault
        return board.trouble() if board.connected else "connecting"

    def health(self, lang: str = "en") -> dict[str, str]:
        """Each device's health: "ok", a healthy word, or "not working: " and why in ``lang``
        (a change on trial watches these alone, without the rest of the status)."""
        health = dict(self.daemon.devices.health)
        board = self._board()
        if board is not None:
            health["touch"] = "ok"
        for name, why in self.device_faults().items():
            health[name] = say(why, lang) if board is not None and name == "touch" else NOT_WORKING + say(why, lang)
        return health

    def device_faults(self) -> dict[str, Text]:
        """Each device not working and why, as the table's words say it (``health`` in a
        language; the owner's notifications, which say it their own way)."""
        faults = dict(self.daemon.devices.why)  # a copy: paho's thread may change it meanwhile
        board = self._board()
        if board is not None:
            faults.pop("touch", None)
            trouble = self._board_trouble(board)
            if trouble is not None:
                faults["touch"] = trouble
        if "sound" in self.daemon.loop.faults:  # the audio output went missing after the start
            faults["sound"] = self.daemon.loop.faults["sound"]
        return faults

    def advice(self, lang: str = "en") -> dict[str, str]:
        """What to do about a device's fault where the fault says it better than the device's
        name can (a silent chip: its joints and its cards, not the board's USB cable), in ``lang``."""
        faults = self.device_faults()
        if not faults:
            return {}
        from ..drivers.touchboard import advice_for  # the board's words: loaded only once there is a fault

        return {name: say(advice, lang) for name, fault in faults.items() if (advice := advice_for(fault)) is not None}

    def _board(self) -> Any:
        """The touch board's driver (its link, its chips' bus) when the table reads a board, else
        None: known by what it does, so a table of another touch source never loads the driver."""
        touch = self.daemon.devices.touch
        return touch if hasattr(touch, "connected") and hasattr(touch, "trouble") else None

    def status(self, lang: str = "en") -> dict[str, Any]:
        """What the operatives may see, and the table's health: never the key. The warnings and
        a finished game's reason in ``lang`` (the rest is the table's own words)."""
        health = self.health(lang)
        view = self.daemon.session.public_view()
        state = view.to_json()
        if view.reason is not None:
            state["reason"] = say(view.reason, lang)
        return {
            "version": version(),
            "game_id": self.daemon.session.id,
            "uptime_s": round(time.monotonic() - self.daemon.started, 1),
            "state": state,
            "health": health,
            "advice": self.advice(lang),
            "warnings": [say(warning, lang) for warning in self.daemon.loop.cues(self.daemon.loop.clock()).warnings],
            "journal": say(self.daemon.session.journal_problem or "ok", lang),
            "journal_damage": self.daemon.session.journal_damage,  # what a damaged journal lost, until the next game
            "companion": None if self.daemon.companion is None else self.daemon.companion.base_url,
            "staff": None if self.daemon.companion is None else f"{self.daemon.companion.staff_url}/staff",  # https but from here
            "certificate": self.daemon.fingerprint,  # the staff pages' certificate's SHA-256
            "set_up": self.daemon.first_boot is None or self.daemon.first_boot.waiting is None,
        }
