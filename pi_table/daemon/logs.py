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
import time
from collections import deque
from collections.abc import Mapping
from typing import TextIO

from ..errors import PiTableError
from ..files import read_json

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


# --- the journal, across starts --------------------------------------------------------------

JOURNAL_MOST = 20_000  # lines read from the journal for one request: a busy day's, and a bounded answer
JOURNAL_S = 20.0  # journalctl's time for it, on an SD card
UNIT = "pi-table.service"


def under_journald() -> bool:
    """Whether systemd gave this service's standard error to journald (a table installed as a service)."""
    return to_journal(sys.stderr)


def own_unit(cgroup: str = "/proc/self/cgroup") -> str:
    """The systemd unit this process runs in (its cgroup's last part), ``UNIT`` when it cannot be read."""
    try:
        with open(cgroup, encoding="utf-8") as file:
            path = file.read().strip().splitlines()[-1].rpartition(":")[2]
    except (OSError, IndexError):
        return UNIT
    name = path.rstrip("/").rpartition("/")[2]
    return name if name.endswith(".service") else UNIT


class JournalUnreadable(PiTableError, OSError):
    """journalctl could not read the service's journal; its own words say why."""


def journal(since: float | None, until: float | None, unit: str | None = None,
            command: str = "journalctl") -> list[tuple[int, str]]:
    """The service's lines in the systemd journal from ``since`` to ``until`` (seconds since the
    epoch; None: open), across its starts, oldest first and at most ``JOURNAL_MOST``, each with
    its level; a line marks each start. OSError (journalctl missing, or refused) or
    subprocess.SubprocessError when the journal cannot be read."""
    import subprocess

    args = [command, "--unit", unit or own_unit(), "--output", "json", "--no-pager", "--quiet",
            "--lines", str(JOURNAL_MOST)]
    if since is not None:
        args.append(f"--since=@{since:.0f}")
    if until is not None:
        args.append(f"--until=@{until:.0f}")
    done = subprocess.run(args, capture_output=True, timeout=JOURNAL_S, check=False)
    if done.returncode != 0:
        raise JournalUnreadable(done.stderr.decode("utf-8", "replace").strip()[:300] or f"journalctl exited {done.returncode}")
    lines: list[tuple[int, str]] = []
    start = None
    for raw in done.stdout.splitlines():
        try:
            entry = read_json(raw)
            when = int(entry["__REALTIME_TIMESTAMP"]) / 1e6
            priority = int(entry.get("PRIORITY", 6))
        except (ValueError, KeyError, TypeError):
            continue
        text = entry.get("MESSAGE")
        if isinstance(text, list):  # journald's bytes for a line that is not UTF-8
            text = bytes(b for b in text if isinstance(b, int) and 0 <= b < 256).decode("utf-8", "replace")
        if not isinstance(text, str):
            continue
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))
        started = entry.get("_SYSTEMD_INVOCATION_ID")
        if started != start:
            lines.append((logging.INFO, f"{stamp} ---- the service started ----"))
            start = started
        lines.extend((LEVELS.get(priority, logging.INFO), f"{stamp} {line}") for line in text.split("\n"))
    return lines


LEVELS = {0: logging.CRITICAL, 1: logging.CRITICAL, 2: logging.CRITICAL, 3: logging.ERROR, 4: logging.WARNING,
          5: logging.INFO, 6: logging.INFO, 7: logging.DEBUG}
"""A logging level for each syslog priority (``priority`` the other way)."""
