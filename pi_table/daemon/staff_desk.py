"""The staff page's desk: what the page itself asks of the running table (the game on it, a new
game, an undo, the history, the settings and their changes, a restart). Each section takes its
own part of the table from an object of its own (``staff_parts``), never from this desk. Never the
key: the game is the control socket's public status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..config import trial
from ..config.schema import GROUPS, OPTIONS, form_field
from ..config.settings import BROKER, broker_change, hide_password
from ..engine import InvalidRules
from ..engine.games import names
from ..engine.phrase import Phrase, Text
from ..table import history
from ..ui.i18n import say
from ..web.staff_table import FakeHelper, FakeTableCode

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..config import Config
    from ..table import Session
    from .restarts import Restarts


class Table(Protocol):
    """What the staff desk needs of the running table (``run.Daemon``)."""

    config: Config
    session: Session
    restarts: Restarts

    def answer(self, request: dict[str, Any]) -> dict[str, Any]: ...

    def in_loop(self, fn: Callable[[], object]) -> bool: ...

    def change_at_hand(self, key: str, value: object) -> list[Phrase]: ...

    def restart(self) -> float: ...


class StaffDesk:
    """What the staff page itself may do to this table (``pi_table.web.staff.Desk``): its control
    commands, the journal's history, the configuration's form and checker, a restart."""

    def __init__(self, daemon: Table) -> None:
        self.daemon = daemon

    def language(self) -> str:
        return self.daemon.config.language

    def table(self, lang: str) -> dict[str, Any]:
        status = self.daemon.answer({"command": "status", "lang": lang})
        settings = trial.state(self.daemon.config.source, lang)
        refused = self.daemon.config.refused
        if refused is not None and settings["refused"] is not None:  # its note says it, beside its Discard button
            said = say(refused, lang)
            status["warnings"] = [warning for warning in status["warnings"] if warning != said]
        return {**status, "settings": settings}

    def new_game(self, game: str, options: dict[str, object], lang: str) -> Text | None:
        daemon = self.daemon
        if game in names():
            try:
                rules = daemon.session.rules_for(game, options)
            except InvalidRules as e:
                return e.phrase
            if not daemon.in_loop(lambda: daemon.session.keep(rules)):
                return Phrase.of("the table is stopping")
        return self._done({"command": "new-game", "game": game}, lang)

    def undo(self, lang: str) -> Text | None:
        return self._done({"command": "undo"}, lang)

    def end_game(self, lang: str) -> Text | None:
        return self._done({"command": "new-game"}, lang)

    def _done(self, request: dict[str, Any], lang: str) -> Text | None:
        """The control command's answer, its refusal said in the staff page's language."""
        answer = self.daemon.answer({**request, "lang": lang})
        return None if answer["ok"] else answer["error"]

    def history(self, lang: str) -> list[dict[str, Any]]:
        return history(self.daemon.config.paths.journal_dir, lang)

    def settings(self) -> dict[str, Any]:
        config = self.daemon.config
        shown = {**config.values, BROKER: hide_password(str(config.values[BROKER]))}  # a staff phone never holds it
        return {"file": None if config.source is None else str(config.source), "groups": GROUPS,
                "options": [form_field(option, shown[option.key]) for option in OPTIONS]}

    def discard_refused(self) -> bool:
        """The settings file the table refused at its start replaced by the last good one (the
        owner's word); False when none is refused. The page restarts the table after."""
        source = self.daemon.config.source
        return source is not None and trial.discard(source)

    def change_settings(self, changes: dict[str, object], reached: str | None = None,
                        by: str = "staff") -> list[Phrase]:
        """The changes of ``by`` (the staff, the owner), the broker's password kept for the broker
        it was given for alone (``config.settings.broker_change``), checked and written as a trial
        that the page must still answer after at ``reached``, the address the staff reached it on."""
        return self.daemon.restarts.change(broker_change(changes, self.daemon.config.values), proven=False,
                                           reached=reached, by=by)

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        return self.daemon.change_at_hand(key, value)

    def restart(self) -> float:
        return self.daemon.restart()


class FakeDesk:
    """A stand-in for the table the page itself asks of (``Desk``), for tests and the screenshots:
    a game of Codenames with its touch board unplugged, the settings at their defaults; every call
    recorded in ``calls``, which its sections' stand-ins (each section's ``stand_in``) share. It holds
    the code on its screen and its root helper, which several sections share. It lives beside the
    desk it stands in for, not in the web layer: its form is the configuration's."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.lang = "en"
        self.code = FakeTableCode(self.calls)
        self.helper = FakeHelper(self.calls)

    def language(self) -> str:
        return self.lang

    def table(self, lang: str = "en") -> dict[str, Any]:
        self.calls.append("table")
        return {"game_id": "g1", "version": "0", "uptime_s": 1.0, "state": {"game": "codenames", "board": "?" * 25},
                "health": {"touch": "not working: unplugged", "leds": "ok"}, "warnings": ["touch board disconnected"],
                "journal": "ok"}

    def new_game(self, game: str, options: dict[str, object], lang: str) -> Text | None:
        self.calls.append(f"new-game {game} {options}")
        return None

    def undo(self, lang: str) -> Text | None:
        self.calls.append("undo")
        return Phrase.of("there is nothing to undo")  # the table's refusal, said in the page's language

    def end_game(self, lang: str) -> Text | None:
        self.calls.append("end-game")
        return None

    def history(self, lang: str) -> list[dict[str, Any]]:
        self.calls.append("history")
        return []

    def settings(self) -> dict[str, Any]:
        """The schema's form, every key at its default: a key's field says whether it is the owner's."""
        self.calls.append("settings")
        return {"file": None, "groups": GROUPS, "options": [form_field(option, option.default) for option in OPTIONS]}

    def discard_refused(self) -> bool:
        self.calls.append("discard")
        return False

    def change_settings(self, changes: dict[str, object], reached: str | None = None,
                        by: str = "staff") -> list[Phrase]:
        self.calls.append(f"change {changes}")
        return []

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        self.calls.append(f"at hand {key}={value}")
        return []

    def restart(self) -> float:
        self.calls.append("restart")
        return 0.0
