"""The table's private files: readable by the service user alone, and written whole.

The journal, the companion's secret and seats, the staff's PIN, sessions and restarts, the
fleet's pending events and its dashboard's password: each is a file only the service reads
(0600, in a 0700 folder), and one rewritten is replaced in one rename, so a crash or a power
cut leaves the old or the new, never half of either. Below every layer that keeps such a file:
it imports nothing of the table's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


def create_private(path: Path) -> BinaryIO:
    """A new file for writing, 0600 whatever the umask (which can only take bits away)."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_FILE), "wb")


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (fsynced), 0600 from the moment it exists."""
    temporary = path.with_name(path.name + ".new")
    temporary.unlink(missing_ok=True)  # left by a crash, perhaps with other rights
    with create_private(temporary) as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
