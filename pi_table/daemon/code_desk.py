"""The owner's and the PIN's sections' part of the table (``web.staff.TableCode``): the code on the
table's own screen by which someone at it resets a forgotten PIN or owner's passphrase, the reset's
wipe of the owner's part, and its lasting notice until the owner acknowledges it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..config import Config
    from ..engine.phrase import Phrase
    from ..web.auth import Recovery
    from .root_helper import RootHelper


class Table(Protocol):
    """What the code and the reset need of the running table (``run.Daemon``)."""

    config: Config
    recovery: Recovery | None

    def recovered(self) -> None: ...

    def owner_reset(self, how: str, address: str | None, wiped: list[str]) -> None: ...

    def reset_acknowledged(self) -> bool: ...


class CodeDesk:
    """The code on ``table``'s screen; ``helper``, the root helper that wipes root's part of the owner's."""

    def __init__(self, table: Table, helper: RootHelper) -> None:
        self.daemon, self.helper = table, helper

    @property
    def recovery(self) -> Recovery:
        recovery = self.daemon.recovery
        assert recovery is not None  # made with the phones' pages, before the staff page
        return recovery

    def recovered(self) -> None:
        self.daemon.recovered()

    def wipe_owners_part(self) -> list[str]:
        from .owners_part import wipe  # a reset's alone

        return wipe(self.daemon.config, self.helper)

    def owner_reset(self, how: str, address: str | None, wiped: list[str]) -> None:
        self.daemon.owner_reset(how, address, wiped)

    def owner_notice(self) -> Phrase | None:
        from .owner_notice import read_notice

        return read_notice(self.daemon.config.paths.journal_dir)

    def acknowledge_reset(self) -> bool:
        return self.daemon.reset_acknowledged()
