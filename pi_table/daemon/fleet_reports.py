"""The table in a fleet ([fleet]): its reports to the café's MQTT broker (``fleet.reporter``), which
hears of every model the screen shows, the state of its link, and the commands the broker sends
(a new game, an undo, the language, the brightness, as the staff page changes them)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase, Text, meaning
from ..engine.views import LANGUAGES
from ..ui.i18n import say
from .at_hand import AT_HAND

if TYPE_CHECKING:
    from ..config import Config
    from ..fleet.reporter import Reporter
    from ..table import Session
    from ..table.loop import EventLoop
    from .devices import Devices

log = logging.getLogger("pi_table.daemon")
NO_PASSWORD = N_("the broker's password file cannot be used ({error}): check [fleet] password_file")
FAULTS = (NO_PASSWORD,)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each."""


class Table(Protocol):
    """What the fleet's reports read and ask of the running table (``run.Daemon``)."""

    config: Config
    devices: Devices
    loop: EventLoop
    session: Session

    @property
    def lock(self) -> object:
        """The journal folder's lock: None when the journal is kept in memory."""

    def status(self, lang: str = "en") -> dict[str, Any]: ...

    def answer(self, request: dict[str, Any]) -> dict[str, Any]: ...

    def change_at_hand(self, key: str, value: object) -> list[Phrase]: ...


class FleetReports:
    """``daemon``'s table as its fleet's broker hears of it, and commands it."""

    def __init__(self, daemon: Table) -> None:
        self.daemon = daemon

    def opened(self) -> Reporter | None:
        """The reporter when [fleet] names a broker: it hears of every model the screen shows."""
        if not self.daemon.config.fleet.enabled:
            return None
        from ..fleet.reporter import Reporter, ReportingScreen  # paho loads only for a table in a fleet

        self.daemon.devices.health["fleet"] = "connecting"
        try:
            reporter = Reporter(self.daemon.config.fleet, self.command, link_state=self.link,
                                pending=None if self.daemon.lock is None else self.daemon.config.paths.journal_dir / "fleet.pending")
        except (OSError, Refusal) as e:  # its password file went missing or bad since the check: play on unreported
            why = Phrase.of(NO_PASSWORD, error=meaning(e) if isinstance(e, Refusal) else e.strerror or str(e))
            self.daemon.devices.not_working("fleet", why)
            log.error("%s; the table plays on unreported", why)
            return None
        self.daemon.devices.screen = ReportingScreen(self.daemon.devices.screen, lambda: reporter.offer(self.status()))
        return reporter

    def status(self) -> dict[str, Any]:
        """The status the fleet sees (in the loop's thread), with when the game began; its
        warnings and a game's end in the table's language, as its screen shows them, and the
        warnings in every language too, for a dashboard that speaks another."""
        warnings = self.daemon.loop.cues(self.daemon.loop.clock()).warnings
        return {**self.daemon.status(self.daemon.config.language), "began": self.daemon.session.began, "language": self.daemon.config.language,
                "warnings_in": fleet_warnings(warnings)}

    def link(self, state: Text) -> None:
        """What the reporter says of its link, from paho's thread: a state ("ok", "connecting"),
        or a Phrase saying why it is not working."""
        if isinstance(state, Phrase):
            self.daemon.devices.not_working("fleet", state)
        else:
            self.daemon.devices.working("fleet", state)

    def command(self, request: dict[str, Any]) -> dict[str, Any]:
        """A command from the fleet's broker: new game and undo as on the control socket; the
        language and the brightness as the staff page changes them (written, and applied now)."""
        command = request["command"]
        if command in ("new-game", "undo"):
            return self.daemon.answer({"command": command, "game": request.get("game")})
        problems = self.daemon.change_at_hand(AT_HAND[command], request.get(command))
        return {"ok": not problems, "error": "; ".join(say(problem, self.daemon.config.language) for problem in problems) or None}


def fleet_warnings(warnings: tuple[Text, ...]) -> dict[str, list[str]]:
    """The table's warnings said in each language it speaks, by language."""
    return {lang: [say(warning, lang) for warning in warnings] for lang in LANGUAGES}
