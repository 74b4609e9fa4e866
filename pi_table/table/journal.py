"""The game journal: one JSON-lines file per game, so a game can be replayed exactly.

Line 1 is the header: ``{"format": "pi-table journal", "version": 3, "id", "started",
"rules", "key", "start", "crc"}`` for the grid games; a game of another kind has its own
fields in place of the key and the start (its kind's record, named by ``table.games``). A Deep Undercover game (version 3) has ``"key": null,
"start": null``: its key is drawn when the last codename is down and journalled in that entry
(``place 24 key RRRRRRRRRBBBBBBBBNNNNNNNA red``), which the log never quotes. One written before
version 3 dealt it in the header; its last placement brings that key when it replays. Every
further line is one accepted entry in its text form: ``{"n": 1, "action": "clue 3", "at": 12.5, "crc": "3f1c9a0e"}`` (``n`` counts from 1;
``undo`` is an entry too; ``at`` is seconds since the game began, for the history). Entries
are written and fsynced after the engine accepts them and before their effect is shown.

``crc`` (version 2) is the line's checksum: CRC-32 (``zlib.crc32``) of the line's UTF-8 bytes
before ``, "crc": "``, as 8 lowercase hex digits, always the last field. It finds a changed
byte exactly, even one that still parses and replays (``touch 17`` read as ``touch 16``).
Version 1 files (no checksums) load as they are; a resumed game's file is rewritten as
version 3.

Damage is the first line that fails its checksum, does not parse, or does not replay:
``read_game`` gives the game as it stood before it (``Replay.damage`` says where and how many
entries were lost); a header beyond use raises ``JournalError``. A torn last line (no newline:
a crash mid-write, the entry never shown) is dropped with a warning, not damage; but a last line
whose checksum holds is whole, its newline lost or changed (``whole_tail``), and is kept.
The reasons and warnings name the file, the line and what was expected there, never what a line
holds: they go to the log, which the staff read, and the header holds the key.

Every file here holds the key or a secret: the directory is 0700 and its files 0600 whatever
the umask (``keep_private``).

The game in play is the one the table names in ``in-play.json`` (``InPlay``), rewritten whole in
one rename when a game is dealt, resumed or brought back, and when a restore ends it: never the
file whose name sorts last, which a game restored from a backup or dealt while the clock ran
ahead would be. A pointer that is missing (a table from before it) or damaged names nothing;
the table then goes on with the game whose header says it began last (``begun_last``), and says so.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, TypeVar

from ..engine import AnyRecord, Game, GameRecord, InvalidAction, Key, Place, Team
from ..engine.contract import Move, Rulebook
from ..engine.errors import Refusal
from ..engine.games import AnyRules, kind_of, make_game, rules_from_json
from ..engine.phrase import N_, Phrase
from ..errors import PiTableError
from ..files import (
    CRC_FIELD,
    PRIVATE_DIR,
    PRIVATE_FILE,
    TooDeep,
    create_private,
    read_file,
    read_json,
    seal,
    sealed_line,
    sync_folder,
    write_private,
)
from . import games
from .records import Record

log = logging.getLogger("pi_table.journal")
T = TypeVar("T")  # what a header's field reads as
FORMAT = "pi-table journal"
VERSION = 3
VERSIONS = (1, 2, 3)  # 1: no checksums; 3: Deep Undercover's key in its last placement
STARTED = "%Y-%m-%dT%H:%M:%SZ"  # the header's "started", UTC
IN_PLAY = "in-play.json"  # the pointer to the game in play, beside the games
GAME_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,99}")  # a game's file is GAME_ID.jsonl
DEALT_AT = re.compile(r"(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)\.(\d{6})-[0-9a-f]{6}")  # the id the table gives a game


class JournalError(Refusal):
    """A journal file that cannot be replayed; the message names the file and line and what was
    expected there, never what the line holds."""


class NotAStartTime(PiTableError, ValueError):
    """A header's start time not written in ``STARTED``'s form: a damaged header."""


class Unstarted(JournalError):
    """The file ends before its header line does: a crash while the game was being dealt,
    before anything of it was shown."""


@dataclass(frozen=True, slots=True)
class Header:
    """``key`` is what was dealt, as text: the key string, or another kind's deal (``start`` None);
    None for Deep Undercover, whose key comes with its last placement. Its kind's record
    (``pi_table.table.records``) says which fields hold it."""

    id: str
    started: str
    rules: AnyRules
    key: str | None
    start: Team | None

    @property
    def record(self) -> Record:
        return games.record(kind_of(self.rules.game))

    def to_json(self) -> dict[str, object]:
        return {"format": FORMAT, "version": VERSION, "id": self.id, "started": self.started,
                "rules": self.rules.to_json(), **self.record.fields(self.key, self.start)}

    def deal(self, game: Rulebook) -> object:
        """What the header says was dealt, checked by the game (Deep Undercover: nothing)."""
        return self.record.dealt(game, self.key, self.start)

    def placed_key(self, game: Rulebook) -> Key | None:
        """The key a Deep Undercover header written before version 3 dealt: its last placement
        brings it on replay. None for every other header."""
        return self.record.placed_key(game, self.key, self.start)

    @property
    def began(self) -> float:
        """When the game began, in seconds since the epoch."""
        return epoch(self.started)


class Journal:
    """Appends one game's entries to its file; ``fsync`` makes each line survive a power cut."""

    def __init__(self, path: Path, file: IO[bytes], entries: int, fsync: bool) -> None:
        self.path = path
        self.fsync = fsync
        self.entries = entries
        self._file = file

    @classmethod
    def create(cls, path: Path, header: Header, fsync: bool = True) -> Journal:
        path.parent.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
        journal = cls(path, create_private(path), 0, fsync)
        journal._write(header.to_json())
        return journal

    @classmethod
    def resume(cls, path: Path, entries: int, fsync: bool = True) -> Journal:
        """Go on appending to a game's file, first cutting off a torn last line if any, or
        ending a whole one that lost its newline with a newline again."""
        data = path.read_bytes()
        complete = data.rfind(b"\n") + 1
        handle = open(path, "r+b")  # noqa: SIM115 - the Journal keeps it open, and closes it
        if complete < len(data):
            whole = whole_tail(data[complete:])
            handle.truncate(complete)
            handle.seek(complete)
            if whole is not None:
                handle.write(whole + b"\n")
                handle.flush()
                if fsync:
                    os.fsync(handle.fileno())
        handle.seek(0, os.SEEK_END)
        return cls(path, handle, entries, fsync)

    @classmethod
    def rewrite(cls, path: Path, header: Header, entries: list[dict[str, Any]], fsync: bool = True) -> Journal:
        """A fresh file for a resumed game: the header and ``entries`` checksummed, put in the
        place of ``path`` in one rename (a crash leaves the old file or the new, whole)."""
        fresh = path.with_name(path.name + ".new")
        fresh.unlink(missing_ok=True)  # left by a crash in an earlier rewrite
        file = create_private(fresh)
        try:
            file.write(b"".join(sealed_line(obj) for obj in [header.to_json(), *entries]))
            file.flush()
            if fsync:
                os.fsync(file.fileno())
            os.replace(fresh, path)
        except OSError:
            file.close()
            raise
        if fsync:
            sync_folder(path.parent)
        return cls(path, file, len(entries), fsync)

    def append(self, action: object, at: float) -> None:
        self.entries += 1
        self._write({"n": self.entries, "action": str(action), "at": round(at, 3)})

    def _write(self, obj: dict[str, object]) -> None:
        self._file.write(sealed_line(obj))
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        try:
            self._file.close()
        except OSError:  # the last flush failed (disk full): the entries before it are on disk
            pass


@dataclass(frozen=True, slots=True)
class InPlay:
    """What ``IN_PLAY`` says: the id of the game on the table (finished or not: an undo can
    bring a finished game back), None when a restore ended it; and ``replaced``, the game a new
    one was dealt over while an undo may bring it back. Neither goes into a backup."""

    game: str | None
    replaced: str | None = None

    @property
    def ids(self) -> set[str]:
        return {game for game in (self.game, self.replaced) if game is not None}


def in_play(directory: Path) -> InPlay | None:
    """The game in play as the table named it; None when the pointer is missing, or damaged, or
    names a game that is not in ``directory`` (the last two logged: ``begun_last`` stands in)."""
    path = directory / IN_PLAY
    try:
        said = read_json(read_file(path, 1024).decode("utf-8"))
        game, replaced = said["game"], said.get("replaced")
        if not all(each is None or (isinstance(each, str) and GAME_ID.fullmatch(each)) for each in (game, replaced)):
            raise ValueError("not a game's id")
    except FileNotFoundError:
        return None
    except OSError as e:
        log.warning("%s cannot be read (%s)", path, e.strerror or e)
        return None
    except (ValueError, KeyError, TypeError):  # what it holds is not said: it is damaged
        log.warning('%s is damaged: expected {"game": ID or null, "replaced": ID or null}', path)
        return None
    if game is not None and not (directory / f"{game}.jsonl").is_file():
        log.warning("%s names a game that is not in %s", path, directory)
        return None
    return InPlay(game, replaced)


def name_in_play(directory: Path, playing: InPlay) -> None:
    """Name the game in play, in one rename (OSError: not named; the last pointer stays)."""
    write_private(directory / IN_PLAY, json.dumps({"game": playing.game, "replaced": playing.replaced}).encode())


def end_play(directory: Path) -> None:
    """No game is in play any more (a restore ended it): the next start deals a new one, and
    the game that was in play stays in the history as it was left."""
    name_in_play(directory, InPlay(None))


def begun_last(directory: Path) -> Path | None:
    """The game that began last, by its header (or, when the header is damaged, by its name,
    which the table makes of the time it dealt the game: the damage is then found and said when
    it is resumed): what a table goes on with when no pointer names its game."""
    latest: tuple[float, str] | None = None
    for path in directory.glob("*.jsonl") if directory.is_dir() else ():
        began = _began(path)
        if began is not None and (latest is None or (began, path.name) > latest):
            latest = (began, path.name)
    return None if latest is None else directory / latest[1]


def _began(path: Path) -> float | None:
    """When the game in ``path`` began: its header's time, else its name's; None when neither says."""
    try:
        with open(path, "rb") as file:
            return _header(path, file.readline(1 << 20).rstrip(b"\n"))[0].began
    except (OSError, JournalError, ValueError):
        named = DEALT_AT.fullmatch(path.stem)
        if named is None:
            return None
        try:
            year, month, day, hour, minute, second, micros = map(int, named.groups())
            return datetime.datetime(year, month, day, hour, minute, second, micros, datetime.UTC).timestamp()
        except ValueError:  # no such day
            return None


def foreign_folder(directory: Path) -> str | None:
    """The name of a folder in ``directory``, if any. A journal directory holds the table's files
    alone, never a folder: one that holds a folder is someone else's (/, /tmp, a home), and the
    table makes nothing of it private (``keep_private``) nor keeps its games there."""
    try:
        with os.scandir(directory) as entries:
            return next((entry.name for entry in entries if entry.is_dir(follow_symlinks=False)), None)
    except OSError:
        return None


def keep_private(directory: Path) -> None:
    """The journal directory for the service user alone: 0700, and every file in it no more
    than 0600 (a file restored from a backup, or left by a version that let the group read)."""
    try:
        directory.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
        entries = [directory, *directory.iterdir()]
    except OSError as e:
        log.warning("cannot make the journal directory %s private: %s", directory, e)
        return
    other = foreign_folder(directory)
    if other is not None:
        log.warning("the journal directory %s holds a folder (%s), so it is not the table's own: no file's rights "
                    "are changed in it", directory, other)
        return
    for path in entries:
        try:
            mode = os.lstat(path).st_mode  # a symbolic link is left alone, and so is its target
            if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
                allowed = PRIVATE_DIR if stat.S_ISDIR(mode) else PRIVATE_FILE
                if stat.S_IMODE(mode) & ~allowed:
                    path.chmod(stat.S_IMODE(mode) & allowed)
        except OSError as e:
            log.warning("cannot make %s private: %s", path, e)


def set_aside(path: Path, move: bool) -> Path:
    """Keep a damaged journal as ``<name>.damaged-<n>`` beside it (the first n free), where
    neither resume nor the retention's pruning looks: only ``*.jsonl`` are games. ``move``
    takes the original name away too."""
    number = 1
    while True:
        aside = path.with_name(f"{path.name}.damaged-{number}")
        try:
            os.link(path, aside)  # one more name for the same bytes: no copy, no window
        except FileExistsError:
            number += 1
            continue
        if move:
            path.unlink()
        return aside


@dataclass(frozen=True, slots=True)
class Damage:
    """Where a journal stops being what was written: ``line`` (1 is the header) is the first
    that fails its checksum, does not parse or does not replay. The file held ``written``
    entries; the ``kept`` before the damage replay."""

    line: int
    reason: Phrase
    written: int
    kept: int

    @property
    def lost(self) -> int:
        return self.written - self.kept


@dataclass(frozen=True, slots=True)
class Replay:
    """A journal read back: the game as its good entries leave it (``entries`` as they were
    written, for a rewrite), the file's version, warnings, and the damage if any."""

    header: Header
    record: AnyRecord
    entries: list[dict[str, Any]]
    version: int
    warnings: list[str]
    damage: Damage | None


def read_game(path: Path, data: bytes | None = None) -> Replay:
    """Replay a journal file (its bytes ``data`` when they are read already: a backup's) up to
    its first damaged line. A torn last line (a crash mid-write) is dropped with a warning; a
    header beyond use raises ``JournalError``, and a file that ends before its header does
    raises ``Unstarted``."""
    path = Path(path)
    warnings: list[str] = []
    lines = _complete_lines(path, path.read_bytes() if data is None else data, warnings)
    if not lines:
        raise Unstarted("{path}: no whole header line: the game was never dealt", path=path)
    header, version = _header(path, lines[0])
    game = make_game(header.rules)
    try:
        record: AnyRecord = GameRecord(game, header.deal(game))
        placed_key = header.placed_key(game)
    except ValueError:  # the engine's reason quotes the key: not for the log
        raise JournalError("{path}:1: what the header says was dealt is not a deal of {game}", path=path,
                           game=header.rules.game) from None
    entries: list[dict[str, Any]] = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = _entry(path, number, line, version)
            record.apply(_with_placed_key(record, _action(path, number, game, entry["action"]), placed_key))
        except JournalError as e:
            reason = e.phrase
        except ValueError:  # the rules' reason names what the entry did (its cell, its key)
            reason = Phrase.of("{path}:{number}: expected an action the {game} rules allow at that point of the game",
                               path=path, number=number, game=header.rules.game)
        else:
            entries.append(entry)
            continue
        damage = Damage(number, reason, _written(path, lines, version), len(entries))
        return Replay(header, record, entries, version, warnings, damage)
    return Replay(header, record, entries, version, warnings, None)


def _action(path: Path, number: int, game: Rulebook, text: str) -> Move:
    """An entry's action; JournalError saying what the parser expected, without the entry's words."""
    try:
        return game.read_action(text)
    except InvalidAction as e:
        raise JournalError("{path}:{number}: not an action of {game}: {expected}", path=path, number=number,
                           game=game.name, expected=e.expected) from None


def _with_placed_key(record: AnyRecord, action: Move, key: Key | None) -> Move:
    """A journal from before version 3: its last placement brings the key its header dealt."""
    game = record.game
    if (key is None or not isinstance(action, Place) or action.key is not None or not isinstance(game, Game)
            or not game.draws_key(record.state)):
        return action
    return replace(action, key=key)


def load_game(path: Path) -> tuple[Header, AnyRecord, list[str]]:
    """Replay a whole journal file (the history): damage raises ``JournalError`` naming the
    line; a torn last line is dropped with a warning."""
    replay = read_game(path)
    if replay.damage is not None:
        raise JournalError(replay.damage.reason)
    return replay.header, replay.record, replay.warnings


def finished(path: Path, data: bytes) -> bool:
    """Whether the journal ``data`` (of ``path``) replays whole to the end of its game."""
    try:
        replay = read_game(path, data)
    except (JournalError, ValueError):  # a header beyond use
        return False
    return replay.damage is None and replay.record.state.is_over


def entries_written(path: Path) -> int:
    """How many entries a journal file held, as far as can be told (its header may be gone)."""
    lines = _complete_lines(path, Path(path).read_bytes(), [])
    return _written(path, lines, 1) if lines else 0


def _complete_lines(path: Path, data: bytes, warnings: list[str]) -> list[bytes]:
    lines = data.split(b"\n")
    torn = lines.pop()  # empty when the file ends with a newline, as a whole file does
    whole = whole_tail(torn) if torn else None
    if whole is not None:
        lines.append(whole)
        warnings.append(f"{path}: line {len(lines)} had lost its newline; its checksum holds, so its entry is kept")
    elif torn:
        warnings.append(f"{path}:{len(lines) + 1}: ignored a torn last line (no newline: a write cut short)")
    return lines


def whole_tail(tail: bytes) -> bytes | None:
    """The whole line in what follows a file's last newline, if its checksum holds as it is or
    without its last byte (the newline changed into another byte); None for a torn line, which
    a crash mid-write leaves, and which no checksum can vouch for."""
    for line in (tail, tail[:-1]):
        body, found, rest = line.rpartition(CRC_FIELD)
        if found and rest == seal(body):
            return line
    return None


def _written(path: Path, lines: list[bytes], version: int) -> int:
    """The entries the file held: the count of its last entry when that entry is whole (even
    run into the line before it by a changed newline), else its entry lines."""
    tail = lines[-1][max(lines[-1].rfind(b'{"n": '), 0):]
    try:
        last = _checked(path, len(lines), tail, version).get("n")
    except JournalError:
        last = None
    return last if isinstance(last, int) and not isinstance(last, bool) else len(lines) - 1


def _checked(path: Path, number: int, line: bytes, version: int) -> dict[str, Any]:
    """A line's JSON object once its checksum is found right (the field left out). Version 2
    lines must carry one; any line that carries one must match it."""
    body, found, rest = line.rpartition(CRC_FIELD)
    if (found or version != 1) and rest != seal(body):
        what = Phrase.of("its checksum does not match" if found else "it has no checksum")
        raise JournalError("{path}:{number}: damaged ({what})", path=path, number=number, what=what)
    try:
        obj = read_json(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise JournalError("{path}:{number}: not UTF-8 text", path=path, number=number) from None
    except TooDeep as e:
        raise JournalError("{path}:{number}: not JSON ({error})", path=path, number=number, error=str(e)) from None
    except json.JSONDecodeError as e:  # json's words say where, never what
        raise JournalError("{path}:{number}: not JSON ({error})", path=path, number=number, error=e.msg) from None
    if not isinstance(obj, dict):
        raise JournalError("{path}:{number}: expected a JSON object", path=path, number=number)
    obj.pop("crc", None)
    return obj


def _entry(path: Path, number: int, line: bytes, version: int) -> dict[str, Any]:
    entry = _checked(path, number, line, version)
    if entry.get("n") != number - 1 or not isinstance(entry.get("action"), str):
        raise JournalError('{path}:{number}: expected {{"n": {n}, "action": "..."}}', path=path, number=number,
                           n=number - 1)
    return entry


HEADER_FIELDS = {
    "id": N_("the game's id"),
    "started": N_("the time the game began, YYYY-MM-DDTHH:MM:SSZ"),
    "rules": N_("the rules of a game this version plays"),
}
"""What each field of every header holds, as a damaged header is told; its kind's record says
what its own fields hold (``records.Record.fields_held``)."""


def _header(path: Path, line: bytes) -> tuple[Header, int]:
    obj = _checked(path, 1, line, 1)  # its version says whether it must carry a checksum
    version = obj.get("version")
    if obj.get("format") != FORMAT or version not in VERSIONS or (version != 1 and CRC_FIELD not in line):
        raise JournalError("{path}:1: not a {format} header: expected version {first} to {last}, with a checksum from "
                           "version 2", path=path, format=FORMAT, first=VERSIONS[0], last=VERSIONS[-1])
    rules = _field(path, obj, "rules", rules_from_json)
    record = games.record(kind_of(rules.game))
    key, start = record.read(lambda name, read: _field(path, obj, name, read, record.fields_held[name]))
    return Header(_field(path, obj, "id", str), _field(path, obj, "started", _started), rules, key, start), version


def _field(path: Path, header: dict[str, Any], name: str, read: Callable[[Any], T], held: str | None = None) -> T:
    """A header's field, read; JournalError naming it and what it holds (``held``, or
    ``HEADER_FIELDS``'), never what it held."""
    try:
        return read(header[name])
    except (KeyError, TypeError, ValueError, AttributeError):
        raise JournalError('{path}:1: the header\'s "{field}" field must hold {expected}', path=path, field=name,
                           expected=Phrase.of(held or HEADER_FIELDS[name])) from None


def epoch(started: str) -> float:
    """Seconds since the epoch of a header's start time, written in STARTED's form (UTC);
    NotAStartTime (a ValueError) for any other text. Not strptime: its module, and the patterns it builds from the
    locale at first use, cost every start of the table a few milliseconds."""
    moment = datetime.datetime.fromisoformat(started)
    seconds = moment.timestamp()
    if moment.tzinfo is None or time.strftime(STARTED, time.gmtime(seconds)) != started:
        raise NotAStartTime(f"not in the form {STARTED}")
    return seconds


def _started(started: object) -> str:
    """The header's start time, which must read (one that does not is a damaged header too)."""
    text = str(started)
    epoch(text)
    return text
