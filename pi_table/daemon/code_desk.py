"""The owner's and the PIN's sections' part of the table (``web.staff.TableCode``): the code on the
table's own screen by which someone at it resets a forgotten PIN or owner's passphrase (offered when
both buttons are held at the start), the reset's wipe of the owner's part, and its lasting notice
until the owner acknowledges it."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Protocol

from ..engine.phrase import Phrase
from .owner_notice import PART, acknowledge, history, note_reset, read_notice

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..config import Config
    from ..table.loop import EventLoop
    from ..web.auth import Recovery
    from .notices import Watch
    from .root_helper import RootHelper

log = logging.getLogger("pi_table.daemon")
OWNER_RESET = "owner reset"  # the fault that shows a reset of the owner's passphrase until the owner acknowledges it


class Table(Protocol):
    """What the code and the reset need of the running table (``run.Daemon``)."""

    config: Config
    recovery: Recovery | None
    loop: EventLoop
    helper: RootHelper | None
    notices: Watch | None

    def in_loop(self, fn: Callable[[], object]) -> bool: ...

    def note_fault(self, name: str, fault: Phrase) -> None: ...


class CodeDesk:
    """The code on ``daemon``'s screen, offered when both buttons are held at the start, and the
    owner's reset it lets someone at the table make; the owner's and the PIN's part of the table."""

    def __init__(self, daemon: Table) -> None:
        self.daemon = daemon

    @property
    def recovery(self) -> Recovery:
        recovery = self.daemon.recovery
        assert recovery is not None  # made with the phones' pages, before the staff page
        return recovery

    def offer(self) -> None:
        """Both buttons held while the table starts: someone at it has forgotten the staff PIN or
        the owner's passphrase (or there is none yet). A one-time code on the table's own screen lets the staff page set
        a new one, for ``RECOVERY_S``; no page, report or log line carries it."""
        from ..web.auth import RECOVERY_S, Recovery  # only when asked for: the web loads after READY

        self.daemon.recovery = self.daemon.recovery or Recovery()
        code = self.daemon.recovery.issue()
        self.daemon.loop.notice = Phrase.of("reset code {code}: on the staff page, Forgot the PIN? or Forgot the "
                                            "owner's passphrase? ({minutes} minutes)", code=code,
                                            minutes=round(RECOVERY_S / 60))
        log.warning("both buttons were held at the start: a staff PIN reset code is on the table's screen")
        timer = threading.Timer(RECOVERY_S, self.recovered)
        timer.daemon = True
        timer.start()

    def recovered(self) -> None:
        """The reset code was used, or its time is up: the screen stops showing it."""
        if self.daemon.recovery is not None:
            self.daemon.recovery.void()

        def forget() -> None:
            self.daemon.loop.notice = None
            self.daemon.loop.show()

        self.daemon.in_loop(forget)

    def owner_reset(self, how: str, address: str | None, wiped: list[str], marks: list[str]) -> None:
        """The owner's passphrase was reset (``owners_part.HOWS``): its notice kept and shown, on
        the screen, the staff page, the status and the fleet's reports, until the owner acknowledges it."""
        notice = note_reset(self.daemon.config.paths.journal_dir, how, address, wiped, marks)
        self.daemon.in_loop(lambda: self.daemon.note_fault(OWNER_RESET, notice))

    def owner_resets(self) -> list[dict[str, object]]:
        return [{**entry, "wiped": [PART[piece] for piece in wiped if piece in PART]
                 if isinstance(wiped := entry.get("wiped"), list) else []}
                for entry in history(self.daemon.config.paths.journal_dir)]

    def acknowledge_reset(self, marks: list[str]) -> bool:
        """The owner has seen the notice of a reset: it goes. Whether there was one; a Refusal
        when it may not go yet, or not from the phone that asks (``owner_notice.acknowledge``)."""
        seen = acknowledge(self.daemon.config.paths.journal_dir, marks)

        def forget() -> None:
            self.daemon.loop.faults.pop(OWNER_RESET, None)
            self.daemon.loop.show()

        self.daemon.in_loop(forget)
        return seen

    def wipe_owners_part(self, address: str | None) -> list[str]:
        from .owners_part import wipe  # a reset's alone

        assert self.daemon.helper is not None  # made at READY, before the staff page
        return wipe(self.daemon.config, self.daemon.helper, before=lambda: self._tell_owner(address))

    def _tell_owner(self, address: str | None) -> None:
        """The owner told of the buttons' reset at ``address``, at their notifications' address,
        before the wipe erases it (issue 75): waited for, as a test message is."""
        notices = self.daemon.notices
        if notices is not None and notices.tell_reset(address) is False:
            log.warning("the owner could not be told of the buttons' reset: their notifications' address is wiped now")

    def owner_notice(self) -> Phrase | None:
        return read_notice(self.daemon.config.paths.journal_dir)
