"""The health section's part of the table (``web.sections.health.Table``): the service's log,
from the systemd journal or the lines this start keeps, the machine's readings, and the secrets
the last restore could not bring back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..engine.phrase import Phrase
from . import backup, logs

if TYPE_CHECKING:
    from ..config import Config
    from ..web import Companion

NOT_SYSTEMD = Phrase.of("systemd does not run this table (a simulated table, or one started in a terminal): the log "
                        "shows the lines since this start, which the table keeps in its memory, whatever the time range")


class Table(Protocol):
    """What the health reads of the running table (``run.Daemon``)."""

    config: Config
    recent_log: logs.RecentLines
    companion: Companion | None


class HealthDesk:
    """The log and the machine's readings of ``table``."""

    def __init__(self, table: Table) -> None:
        self.daemon = table

    def log_records(self) -> list[tuple[int, str]]:
        return list(self.daemon.recent_log.records)

    def log(self, since: float | None, until: float | None) -> dict[str, Any]:
        """The systemd journal's lines of this service from ``since`` to ``until``, across its
        starts; on a table systemd does not run (a simulated one, a terminal's), the lines of this
        start the table keeps in memory, and a note that says so."""
        import subprocess

        if not logs.under_journald():
            return {"source": "memory", "records": self.log_records(), "note": NOT_SYSTEMD}
        try:
            return {"source": "journal", "records": logs.journal(since, until), "note": None}
        except (OSError, subprocess.SubprocessError) as e:
            return {"source": "memory", "records": self.log_records(),
                    "note": Phrase.of("the systemd journal cannot be read ({error}): the log shows the lines since "
                                      "this start, which the table keeps in its memory", error=str(e))}

    def left_out(self) -> list[Phrase]:
        return backup.left_out(self.daemon.config)

    def machine(self) -> dict[str, Any]:
        from .. import host  # the page's health view, not the table's start

        companion = self.daemon.companion
        return {"readings": host.read(self.daemon.config.paths.journal_dir),
                "address": None if companion is None else companion.base_url}
