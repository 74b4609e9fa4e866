"""The table's files: its private ones readable by the service user alone, every one written
whole, and the files a setting names read no further than a setting's file can be long.

The journal, the companion's secret and seats, the staff's PIN, sessions and restarts, the
fleet's pending events and its dashboard's password: each is a file only the service reads
(0600, in a 0700 folder), and one rewritten is replaced in one rename, so a crash or a power
cut leaves the old or the new, never half of either. A file appended to a line at a time (the
journal, a game night's book) seals each line with its checksum (``sealed_line``), so a line a
crash cut short or a bit flip changed is known. Below every layer that keeps such a file: it
imports nothing of the table's but its errors' root.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import stat
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from .errors import PiTableError

log = logging.getLogger("pi_table.files")
PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600
SECRET_BYTES = 32
PHONES_SECRET = "companion.secret"  # the phones' links are signed with it (web.tokens)
DEVICE_KEY = "staff.device-key"  # signs the staff phones' device cookies (web.auth)
SETUP_PENDING, SETUP_DONE = "setup.pending", "setup.done"  # a table waiting for its set-up, one set up (release.first_boot)
CRC_FIELD = b', "crc": "'
"""What comes before a sealed line's checksum: its last field."""


class NotAFile(PiTableError, ValueError):
    """A path a setting names that is not a regular file (a folder, a device such as /dev/zero, a
    FIFO that would keep a reader waiting)."""


class TooBig(PiTableError, ValueError):
    """A file longer than what it holds can be: ``size`` bytes, at most ``most``."""

    def __init__(self, size: int, most: int) -> None:
        super().__init__(f"{size} bytes, at most {most}")
        self.size, self.most = size, most


class TooDeep(PiTableError, ValueError):
    """A JSON document nested deeper than ``deepest`` levels of [] and {}."""

    def __init__(self, deepest: int) -> None:
        super().__init__(f"a JSON document nested deeper than the table reads: expected at most {deepest} levels "
                         "of [] and {}")
        self.deepest = deepest


MAX_JSON_NESTING = 32
"""How deep [] and {} go in any JSON the table reads. Its real documents nest 6 at the most (a
night's book and a fleet message; ~10,500 read in the fast tests), lsblk's answer for LVM inside
LUKS inside a partition 10 by its shape: the rest is margin, far below where Python's parser, which
recurses once a level, stops (about 1,000 less the stack already in use)."""
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"?|[][{}]', re.DOTALL)  # a string never closed runs to the end
_NESTS = {"[": 1, "{": 1, "]": -1, "}": -1}


def read_json(document: str | bytes | bytearray, deepest: int = MAX_JSON_NESTING) -> Any:
    """``document`` as ``json.loads`` reads it, or ValueError (TooDeep when it nests deeper than
    ``deepest``). The depth is counted in one pass, strings aside, before the parser sees it: at
    Python's recursion limit the parser raised RecursionError, and whatever ran then failed too."""
    if not isinstance(document, str):
        document = bytes(document).decode(json.detect_encoding(document), "surrogatepass")  # as json.loads does
    depth = 0
    for token in _STRING_OR_BRACKET.findall(document):
        depth += _NESTS.get(token, 0)
        if depth > deepest:
            raise TooDeep(deepest)
    return json.loads(document)


def read_file(path: str | Path, most: int) -> bytes:
    """The bytes of the regular file ``path``, if it holds at most ``most``; NotAFile, TooBig, or
    the system's OSError. Opened without waiting (a FIFO) and read no further than ``most``: a
    setting pointed at /dev/zero or a pipe must not hold the table or fill its memory."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotAFile(str(path))
        if status.st_size > most:
            raise TooBig(status.st_size, most)
        chunks, length = [], 0
        while chunk := os.read(fd, most + 1 - length):
            chunks.append(chunk)
            length += len(chunk)
            if length > most:  # grew while read
                raise TooBig(length, most)
        return b"".join(chunks)
    finally:
        os.close(fd)


def create_private(path: Path) -> BinaryIO:
    """A new file for writing, 0600 whatever the umask (which can only take bits away)."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_FILE), "wb")


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (fsynced), 0600 from the moment it exists."""
    replace_file(path, data, PRIVATE_FILE)


def replace_file(path: Path, data: bytes, mode: int, like: Path | None = None) -> None:
    """Replace ``path`` with ``data`` in one rename, the new file ``mode`` whatever the umask, and
    its owner the old one's when root writes it (``pi-table tune --write`` by sudo on the service's
    configuration), or, for a file new there, ``like``'s (a note beside the configuration, which
    the service must read as it reads the file). The data and the rename are fsynced: a power
    cut leaves the old or the new."""
    temporary = path.with_name(path.name + ".new")
    temporary.unlink(missing_ok=True)  # left by a crash, perhaps with other rights
    with create_private(temporary) as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
        if mode != PRIVATE_FILE:
            os.fchmod(file.fileno(), mode)  # past the umask, which only takes bits away at creation
        _keep_owner(path, file.fileno(), like)
    os.replace(temporary, path)
    sync_folder(path.parent)


def _keep_owner(path: Path, fd: int, like: Path | None) -> None:
    if os.geteuid() != 0:
        return  # a file anyone else writes is theirs already: only root's would change hands
    for owned in (path, like):
        try:
            old = os.stat(owned) if owned is not None else None
        except FileNotFoundError:
            continue
        if old is not None:
            os.fchown(fd, old.st_uid, old.st_gid)
            return


def sync_folder(folder: Path) -> None:
    """Make a rename or a new name in ``folder`` survive a power cut."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sealed_line(obj: dict[str, Any]) -> bytes:
    """``obj`` as one JSON line, newline included, whose last field ``"crc"`` is the CRC-32 of
    the line's UTF-8 bytes before that field."""
    body = json.dumps(obj, ensure_ascii=False)[:-1].encode("utf-8")  # all but the closing brace
    return body + CRC_FIELD + seal(body) + b"\n"


def seal(body: bytes) -> bytes:
    """What follows ``CRC_FIELD`` on a sealed line whose bytes before it are ``body``."""
    return b'%08x"}' % zlib.crc32(body)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet run a cell's text as a formula."""


def csv_text(rows: Iterable[Iterable[object]], delimiter: str = ",", decimal: str = ".") -> str:
    """Rows as CSV for the café's spreadsheet. A text cell a spreadsheet would run as a formula
    (a team name a guest typed, a field a table sent) is kept as text by a leading apostrophe;
    numbers stay numbers, a fraction written with ``decimal`` (a spreadsheet in Italian reads
    ``;`` between fields and ``,`` in a number)."""
    import csv  # for an export: every module that reads files imports this one at every start

    def cell_text(cell: object) -> object:
        if isinstance(cell, float):
            return repr(cell).replace(".", decimal)
        return "'" + cell if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) else cell

    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)
    for row in rows:
        writer.writerow([cell_text(cell) for cell in row])
    return out.getvalue()


def kept_secret(path: Path, losing: str) -> bytes:
    """``SECRET_BYTES`` random bytes kept in ``path`` (made on first use, with its folder, mode
    0600); bytes for this run only when it cannot be read or written, and a warning that says what
    is ``losing`` then."""
    import secrets  # not at every start: the table's secrets are read once its pages open

    try:
        secret = path.read_bytes()
        if len(secret) == SECRET_BYTES:
            if path.stat().st_mode & 0o077:  # copied or restored with looser rights
                path.chmod(0o600)
            return secret
        log.warning("%s holds %d bytes, not %d: making a new secret", path, len(secret), SECRET_BYTES)
    except FileNotFoundError:
        pass
    except OSError as e:
        log.warning("cannot read %s (%s): %s", path, e, losing)
        return secrets.token_bytes(SECRET_BYTES)
    secret = secrets.token_bytes(SECRET_BYTES)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_private(path, secret)
    except OSError as e:
        log.warning("cannot keep a secret in %s (%s): %s", path, e, losing)
    return secret
