"""The service's log lines: under systemd each one carries its syslog priority.

systemd connects standard error to journald and sets ``JOURNAL_STREAM`` to that stream's
``DEVICE:INODE``; a line that starts with ``<N>`` is then filed at priority N (sd-daemon(3)),
so ``journalctl -u pi-table -p warning`` shows the warnings and errors alone. Anywhere else (a
terminal, a test, a pipe) the lines stay plain. The last lines are kept too, for the staff page
(``RecentLines``).
"""

from __future__ import annotations

import logging
import os
import sys
from collections import deque
from collections.abc import Mapping
from typing import TextIO

FORMAT = "%(levelname)s %(name)s: %(message)s"


def priority(level: int) -> int:
    """syslog's number for a logging level: 2 critical, 3 error, 4 warning, 6 info, 7 debug."""
    if level >= logging.CRITICAL:
        return 2
    if level >= logging.ERROR:
        return 3
    if level >= logging.WARNING:
        return 4
    return 6 if level >= logging.INFO else 7


class PrioritisedFormatter(logging.Formatter):
    """Every line of a record, a traceback's too, starts with the record's priority."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).split("\n"))


def to_journal(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``stream`` is the one systemd connected to journald (not one a child redirected)."""
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return environ.get("JOURNAL_STREAM") == f"{st.st_dev}:{st.st_ino}"


def setup(level: str) -> None:
    """Log to standard error at ``level``, with priorities when journald reads it."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(PrioritisedFormatter(FORMAT) if to_journal(sys.stderr) else logging.Formatter(FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler])


class RecentLines(logging.Handler):
    """The service's last log lines, each with its record's level, for the staff page to show
    by level and to download (journald keeps them all)."""

    def __init__(self, keep: int = 2000) -> None:
        super().__init__(logging.INFO)
        self.records: deque[tuple[int, str]] = deque(maxlen=keep)
        self.setFormatter(logging.Formatter("%(asctime)s " + FORMAT, "%H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        self.records.extend((record.levelno, line) for line in self.format(record).split("\n"))
