"""The book's file: where the nights are kept, how a line is written and read, and the night
open here (the rest of the book, ``night.book``, is its director's commands and its following).

Which night is open here is what the book's pointer (``POINTER``) names, written as each night
opens, is accepted, closes or is left: a night's file is named by the clock that opened it (a
host's, for a night followed), so the file whose name sorts last may be any night.

A line's format is the journal's (pi_table/table/journal.py): JSON whose last field is ``"crc"``,
the CRC-32 of the line's bytes before it. Reading, a line that fails its checksum or does not
make sense is left out, and reported (``Night.damage``) naming the file and the line, never what
it holds; a torn last line (a crash mid-write, never acknowledged) is cut off.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from ..files import (
    CRC_FIELD,
    PRIVATE_DIR,
    create_private,
    read_file,
    read_json,
    seal,
    sealed_line,
    sync_folder,
    write_private,
)
from .events import Damage, DamagedLine, Event, NightRefused
from .games import Game
from .names import Blocklist
from .state import Night

log = logging.getLogger("pi_table.night")
T = TypeVar("T")
FOLDER = "nights"  # beside the journal folder, never in it: that folder holds the table's files alone
PLANLESS = ("game", "deal", "free")  # a table's games: no change of the host's plan (``changed`` does not hear of them)
FREE_VIEW = ("game", "termination", "winner", "remaining", "score")  # what a free-play game over keeps of its view
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
NIGHT_ID = re.compile(r"\d{8}-\d{6}")  # its file's name: the time it was opened, UTC
POINTER = "open"  # the file naming the night open here (its id), empty when none is


def folder_of(journal_dir: Path) -> Path:
    """Where a table keeps its nights' books: beside its journal folder, as its backups are. In it,
    the start's check would take the journal folder for someone else's (one holding a folder)."""
    return journal_dir.parent / FOLDER


def settle(journal_dir: Path) -> bool:
    """Move the books an older version kept in the journal folder (``journal_dir/nights``) where
    they belong (``folder_of``); whether there were any. A book already there by the same name
    is kept, and the older one beside it as ``NAME.from-journal``."""
    old = journal_dir / FOLDER
    if old.is_symlink() or not old.is_dir():
        return False
    new = folder_of(journal_dir)
    new.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    for path in sorted(old.iterdir()):
        target = new / path.name
        if target.exists():
            target = new / f"{path.name}.from-journal"
        os.replace(path, target)
    old.rmdir()
    sync_folder(new)
    sync_folder(journal_dir)
    log.warning("the game nights kept in %s are moved to %s, beside the journal", old, new)
    return True


def decode_line(line: bytes) -> Event:
    """A line's event; ValueError saying what was expected when it fails its checksum or is no event."""
    body, found, rest = line.rpartition(CRC_FIELD)
    if not found:
        raise DamagedLine("a checksum as its last field")
    if rest != seal(body):
        raise DamagedLine("a line whose checksum holds")
    try:
        event = read_json(body + b"}")
    except ValueError:
        raise DamagedLine("a JSON object") from None
    if not isinstance(event, dict) or "event" not in event:
        raise DamagedLine("an event")
    return event


def read_night(path: Path) -> tuple[Night, int]:
    """The night ``path`` holds, and the length of its whole lines (a torn tail is past it)."""
    data = path.read_bytes()
    whole = data.rfind(b"\n") + 1
    night = Night(path.stem)
    for number, line in enumerate(data[:whole].split(b"\n")[:-1], start=1):
        try:
            event = decode_line(line)
        except DamagedLine as e:
            night.damage.append(Damage(str(path), number, f"expected {e.args[0]}"))
            log.error("%s", night.damage[-1].phrase)
            night.seq += night.host is None  # the host counted it: its plans' sequence runs on from it
            continue
        try:
            night.apply(event)
        except (KeyError, TypeError, ValueError):  # GameRefused is a ValueError
            night.damage.append(Damage(str(path), number, "expected an event of the night"))
            log.error("%s", night.damage[-1].phrase)
            night.seq += night.host is None
    if whole < len(data):
        log.warning("%s: its last line was cut off by a stop mid-write (never acknowledged): dropped", path)
    return night, whole


def _locked(method: Callable[..., T]) -> Callable[..., T]:
    """A book's method under its lock: a check and the change it allows are one step."""
    def locked(self: Store, *args: object, **kwargs: object) -> T:
        with self.lock:
            return method(self, *args, **kwargs)

    return locked


class Store:
    """The nights kept in ``folder`` and the open one, if any; each change is written (fsynced)
    before it is applied, so what a caller is told was kept survives a power cut. A change and a
    look (``snapshot``) take its lock: the table's loop records games while the staff page reads.
    ``version`` counts the changes applied, for a reader that must not wait on the lock (the loop's
    every wake) to tell that nothing changed. ``cafe_tables`` is the owner's list of the café's
    tables (``[fleet] cafe_tables``): a night one of them hosts is followed without a code."""

    def __init__(self, folder: Path, blocked: Blocklist | None = None, clock: Callable[[], float] = time.time,
                 cafe_tables: Iterable[str] = ()) -> None:
        self.folder, self.blocked, self.clock = folder, blocked or Blocklist(), clock
        self.cafe_tables = frozenset(cafe_tables)
        self.night: Night | None = None
        self.changed: Callable[[], None] | None = None  # hears of each change of the plan kept (the fleet's), under the lock
        self.followed: Callable[[], None] | None = None  # hears of a night accepted here (the games heard, gathered)
        self.corrected: Callable[[Night], None] | None = None  # hears of each closed night changed (the league's), under the lock
        self.offers: dict[str, Event] = {}  # by host: the plan of a night that names this table, not accepted here
        self._names: dict[str, tuple[int, str]] = {}  # a night kept's name, by its id, as of its file's size
        self.version = 0
        self._file: BinaryIO | None = None
        self.lock = threading.RLock()
        self._reopen()

    def _reopen(self) -> None:
        """Take up the night open here when the table stopped: the one the pointer names. A
        folder from before the pointer (or with a pointer that names no night) is looked through
        once for it: the table's own open night first, else one it accepted to follow."""
        pointer, broken = self.folder / POINTER, False
        try:
            named: str | None = read_file(pointer, 64).decode("ascii").strip()
        except FileNotFoundError:
            named = None
        except (OSError, ValueError) as e:  # NotAFile, TooBig and UnicodeError are ValueErrors
            log.error("%s cannot be read (%s): the nights kept are looked through for the open one", pointer, e)
            named, broken = None, True  # left as it is: the next night's start says why it cannot be written
        if named == "":
            return
        path = self.folder / f"{named}.jsonl" if named is not None and NIGHT_ID.fullmatch(named) else None
        if path is not None and path.is_file():
            night, whole = read_night(path)
            if night.ours:
                self._take_up(path, night, whole)
            return
        if named is not None:
            log.error("%s names no night kept here: the nights kept are looked through for the open one", pointer)
        found = [(night, whole, path) for path in self.kept() for night, whole in [read_night(path)] if night.ours]
        if found:
            night, whole, path = max(found, key=lambda one: (one[0].host is None, one[0].opened))
            self._take_up(path, night, whole)
        if self.folder.is_dir() and not broken:
            self._point("" if self.night is None else self.night.id)

    def _take_up(self, path: Path, night: Night, whole: int) -> None:
        """``night``, read from ``path`` (its whole lines ``whole`` bytes), as the night open here."""
        self.stop()
        self.night = night
        self._file = open(path, "r+b")  # noqa: SIM115 - kept open for the night's appends
        self._file.truncate(whole)
        self._file.seek(whole)

    def _point(self, night_id: str) -> None:
        """The pointer names ``night_id`` as the night open here ('': none), in one step."""
        write_private(self.folder / POINTER, f"{night_id}\n".encode())

    def kept(self) -> list[Path]:
        return sorted(self.folder.glob("*.jsonl")) if self.folder.is_dir() else []

    def _write(self, event: Event) -> None:
        assert self._file is not None
        self._file.write(sealed_line(event))
        self._file.flush()
        os.fsync(self._file.fileno())

    def _change(self, event: Event, night: Night | None = None) -> Night:
        """Write ``event`` and apply it to the open night (or to ``night``: a followed one left,
        accepted again)."""
        with self.lock:
            night = self.current() if night is None else night
            self._write(event)
            night.apply(event)
            self.version += 1
            if self.changed is not None and event["event"] not in PLANLESS:
                self.changed()
            return night

    def _start(self, night_id: str) -> None:
        """A new night's file, ``night_id``'s."""
        self.folder.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
        self.stop()
        self._file = create_private(self.folder / f"{night_id}.jsonl")
        sync_folder(self.folder)
        self.night = Night(night_id)

    def _new_id(self, at: float) -> str:
        """A new night's id: the second it opened (UTC), or the next one no night kept here has
        (a night followed from a host whose clock named it so, or one closed a moment ago)."""
        second = int(at)
        while True:
            night_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime(second))
            if not (self.folder / f"{night_id}.jsonl").exists():
                return night_id
            second += 1

    def _ended(self) -> None:
        """The night open here has closed or was left: no night is."""
        self._point("")
        self.stop()

    def _hosted(self) -> Night:
        """The open night, if this table's staff page runs it (the host's)."""
        night = self.current()
        if night.host is not None:
            raise NightRefused("the night {name} is run from table {host}'s staff page", name=night.name,
                               host=night.host)
        return night

    def _free(self) -> None:
        """NightRefused while a night is open here: one at a time."""
        night = self.night
        if night is None or not night.open:
            return
        if night.host is None:
            raise NightRefused("the night {name} is open: close it first", name=night.name)
        raise NightRefused("this table follows the night {name} of table {host}: leave it first", name=night.name,
                           host=night.host)

    def snapshot(self) -> dict[str, object] | None:
        """The open night as JSON (its standings too), or None."""
        with self.lock:
            return None if self.night is None or not self.night.open else self.night.to_json()

    def current(self) -> Night:
        if self.night is None or not self.night.open:
            raise NightRefused("no night is open: open one first")
        return self.night


    def _closed_change(self, night: Night, event: Event) -> None:
        """Write ``event`` at the end of the closed ``night``'s file and apply it: a correction
        after the close, at its host or heard from it."""
        path = self.folder / f"{night.id}.jsonl"
        data = path.read_bytes()
        with open(path, "r+b") as file:
            file.truncate(data.rfind(b"\n") + 1)  # a torn tail is no line
            file.seek(0, os.SEEK_END)
            file.write(sealed_line(event))
            file.flush()
            os.fsync(file.fileno())
        night.apply(event)
        if self.corrected is not None:
            self.corrected(night)  # any night closed, not only the last: the league replaces its version
        if self.night is None:
            self.night = night  # corrected after a restart: the night the plan tells of again
        if night is self.night:
            self.version += 1
            if self.changed is not None:
                self.changed()  # the plan, closed, tells the dashboard of the correction


    @_locked
    def deal(self, game_id: str, number: int | None, at: float | None = None) -> None:
        """This table's game ``game_id`` has begun: for round ``number`` (None: free play), ``at``
        its first move when a wake saw it; for good, but for ``reconcile``. The line keeps the
        history's length then: a round undone since is told by the history's later lines."""
        known = len(self.current().history)
        self._change({"event": "deal", "game": game_id, "round": number, "known": known,
                      **({} if at is None else {"at": at})})

    @_locked
    def free(self, game_id: str, view: dict[str, Any]) -> None:
        """This table's free-play game ``game_id``, begun when a wake saw it, is over (``view``:
        its public view's JSON): kept, in case the host's plan shows that a round it had not
        heard of was confirmed before it (``reconcile``)."""
        kept = {key: view.get(key) for key in FREE_VIEW}
        self._change({"event": "free", "game": game_id, "view": kept, "at": self.clock()})


    @_locked
    def record(self, game: Game) -> bool:
        """Keep a finished game; False when it was kept already (its id), or is not the night's."""
        night = self.current()
        if game.id in night.ids() or any(name not in night.teams for name in game.teams):
            return False
        self._change({"event": "game", "game": game.to_json()})
        return True


    def stop(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def name_of(self, night_id: str) -> str:
        """A night kept's name (for the desk's list of nights kept), read once for each version of its file."""
        path = self.folder / f"{night_id}.jsonl"
        try:
            size = path.stat().st_size
        except OSError:
            return ""
        known = self._names.get(night_id)
        if known is None or known[0] != size:
            known = (size, self.night_of(night_id).name)
            self._names[night_id] = known
        return known[1]

    def night_of(self, night_id: str) -> Night:
        """A night kept, open or closed, by its id (its file's name)."""
        path = self.folder / f"{night_id}.jsonl"
        if not NIGHT_ID.fullmatch(night_id) or not path.is_file():
            raise NightRefused("no night {id} is kept here", id=night_id)
        return self.night if self.night is not None and self.night.id == night_id else read_night(path)[0]


