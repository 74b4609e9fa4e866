"""What the staff page asks of the table: the page's own ``Desk`` (the game and the settings),
the parts several sections share (the root helper, the code on the table's screen), and their
stand-ins on a stand-in table (tests, the screenshots).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from ..engine.phrase import Phrase, Text
from ..release.keys import Keyring
from ..release.layout import HOME
from .auth import (
    Recovery,
)


class Game(Protocol):
    """The game on the table, as the page's own parts show and change it."""

    def table(self, lang: str) -> dict[str, Any]:
        """The game as the operatives see it (the public view, never the key), each device's
        health, the warnings, version and uptime, and the settings' trial (``settings``: a change
        on trial, the last one rolled back); its sentences in ``lang``."""

    def new_game(self, game: str, options: dict[str, object], lang: str) -> Text | None:
        """Deal ``game`` with these options (``dealt_with``); None, or why not (in ``lang``)."""

    def undo(self, lang: str) -> Text | None:
        """Take back the last action; None, or why not (in ``lang``)."""

    def end_game(self, lang: str) -> Text | None:
        """Leave the game unfinished (it stays in the history) and deal the next; None, or why not."""

    def history(self, lang: str) -> list[dict[str, Any]]:
        """The games kept, newest first: id, game, started, moves, duration_s, over, winner, reason
        (said in ``lang``)."""




class Settings(Protocol):
    """The configuration, as the page's form shows and changes it."""

    def settings(self) -> dict[str, Any]:
        """``{"file": PATH or None, "groups": {GROUP: WORD}, "options": [{key, kind, label, group, help,
        value, default, unit, choices: [{value, label}], range: {min, max, off} or None}, ...]}``,
        its words msgids (``form_field`` says them in the page's language)."""

    def discard_refused(self) -> bool:
        """Replace the settings file the table refused at its start with its last good one; False
        when none is refused."""

    def change_settings(self, changes: dict[str, object], reached: str | None, by: str) -> list[Phrase]:
        """Check the file with ``changes`` as ``check-config`` does and, if it passes, write it
        (atomically) as a trial of ``by`` (``staff`` or ``owner``, the role the session acts in): the table keeps it only if it is healthy after the restart that
        applies it (``restart``), the page answering on ``reached`` (``reached_on``) too, and puts
        the last good file back by itself if not. The checker's problems, or [] when written."""

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        """One of ``LIVE`` changed as ``change_settings`` does, and applied at once (no restart)."""




class Desk(Game, Settings, Protocol):
    """What the page itself asks of the table (the daemon's ``StaffDesk``), beside what its
    sections take of it (each section's own ``Table``). Every call may wait on the table loop,
    so the page makes them in a worker thread. Refusals come back as the table's sentence
    (``say`` translates it)."""

    def language(self) -> str:
        """The table's language: the page's until the staff pick theirs on it."""

    def restart(self) -> float:
        """Restart the service (systemd starts it again); the game resumes from the journal. The
        seconds until it does: one asked soon after several others waits its turn."""




class Helper(Protocol):
    """The root helper, as the sections that ask it for something see it (``daemon.root_helper``)."""

    spool: Path  # where it takes its requests
    home: Path  # where it notes how its acts ended
    keyring: Keyring  # the release keys it checks an update against

    def ask(self, act: str, **args: str) -> Text | None:
        """Leave ``act`` for the helper; None, or why it could not be asked."""




class TableCode(Protocol):
    """The code on the table's own screen (both buttons held while it starts), by which someone at
    the table resets a forgotten PIN or owner's passphrase (``daemon.code_desk.CodeDesk.offer``)."""

    @property
    def recovery(self) -> Recovery: ...

    def recovered(self) -> None:
        """The code was used: the screen stops showing it."""

    def wipe_owners_part(self, address: str | None) -> list[str]:
        """The buttons' reset asked from ``address``: the owner told at their notifications'
        address, then everything only the owner held wiped (``daemon.owners_part``), the names of
        the pieces that held something; a Refusal saying why not (nothing reset then)."""

    def owner_reset(self, how: str, address: str | None, wiped: list[str], marks: list[str]) -> None:
        """The owner's passphrase was reset (``how``: "buttons" or "recovery") by the session and
        phones ``marks`` names: its lasting notice, and its line in the history."""

    def owner_notice(self) -> Text | None:
        """The notice of the last reset, until the owner acknowledges it."""

    def owner_resets(self) -> list[dict[str, object]]:
        """Every reset kept, oldest first: how, at, from, wiped (each piece's words, msgids), acknowledged."""

    def acknowledge_reset(self, marks: list[str]) -> bool:
        """The owner has seen the notice: it goes. Whether there was one; a Refusal when it may
        not go yet, or not from the session or phones ``marks`` names (they made the reset)."""




class FakeHelper:
    """A root helper that takes nothing, for tests and the screenshots: each act asked is recorded
    in ``calls`` (its arguments after it), and none is refused."""

    spool = Path("/nonexistent/pi-table-spool")  # where a root helper would take its requests: none here
    home = HOME  # where it would note its acts: a Pi's, absent here
    keyring = Keyring()

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def ask(self, act: str, **args: str) -> Text | None:
        self.calls.append(" ".join([act, *(str(value) for value in args.values())]))
        return None




class FakeTableCode:
    """The code on a stand-in table's screen (``TableCode``), made when a page first asks for it;
    its use and the owner's reset recorded in ``calls``, the reset's notice kept until acknowledged."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls
        self.notice: Phrase | None = None
        self._recovery: Recovery | None = None

    @property
    def recovery(self) -> Recovery:
        self._recovery = self._recovery or Recovery()
        return self._recovery

    def recovered(self) -> None:
        self.calls.append("recovered")

    def wipe_owners_part(self, address: str | None) -> list[str]:
        """The buttons' reset: nothing of the owner's here, recorded."""
        self.calls.append("wipe")
        return []

    def owner_reset(self, how: str, address: str | None, wiped: list[str], marks: list[str]) -> None:
        self.calls.append(f"owner reset {how}")
        self.notice = Phrase.of("the owner's passphrase was reset with the recovery code at {time} from {address}. "
                                "The owner acknowledges it on the staff page", time="now", address=address)

    def owner_notice(self) -> Text | None:
        return self.notice

    def owner_resets(self) -> list[dict[str, object]]:
        return []

    def acknowledge_reset(self, marks: list[str]) -> bool:
        seen, self.notice = self.notice is not None, None
        return seen




class StandIn(Protocol):
    """A stand-in table (``daemon.staff_desk.FakeDesk``): what its sections' stand-ins share."""

    calls: list[str]
    code: FakeTableCode
    helper: FakeHelper
