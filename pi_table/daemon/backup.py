"""What makes this table this table, in one file: a backup, its strict check, its restore as a
trial, and the nightly backups kept on the SD card (docs/cafe/backup.md).

A backup is a ``.tar.gz`` of regular files alone:

- ``manifest.json``: ``{"format": "pi-table backup", "version": 1, "pi_table", "table", "host",
  "made", "files": {name: {"size", "sha256"}}}``;
- ``config.toml``: the configuration file as it is, comments and all (the touch thresholds are in it),
  when the table has one;
- ``journal/NAME``: the staff PIN's hash (``TRAVELS``), every finished game kept (``*.jsonl``:
  the history) and the owner's files (``owners``, the one list of them): each
  but its secrets, which no backup holds (the network place goes without its password);
- ``nights/NAME``: the game nights' books (``night.store``), the one open then too.

Never in a backup, which the staff download and take away: the game in play (its key; nor any
game not finished, nor a finished one still on the table, which an undo brings back), the phones'
secret and links (``PHONES``: every seat's token and a phone's cookie are made from them), the
staff's sessions (a restored cookie would let in whoever held it), the staff's restart times,
the fleet's pending reports (old news to its broker), damaged journals set aside, and the lock.
At most ``MOST_BYTES`` unpacked: the journal bounds itself ([paths] keep_mb). A backup made
before these rules (its format is the same) may hold the phones' files and unfinished games: a
restore leaves them out, and its check says so.

A restore is a trial, as a change of settings is (``pi_table.config.trial``): the upload is checked
and staged in the backups folder with a note; at the next start, before anything opens the
journal, the state as it is is kept whole as the last good backup (the game in play and the
phones' files too: it never leaves the table) and the backup's files replace the current ones
(each in one rename). A restore ends the game in play: it stays in the history as End game
leaves a game, and the start deals a new one, with a new phones' secret. The table is then
watched as a change of settings is
(``trial.TrialWatch``, with the health ``restarts.Restarts.health``): healthy by the deadline, the
restore is kept; not healthy, or dead before it is healthy (a second start), the last good backup
comes back by itself, with a note of what was rolled back and why in every language the table
speaks. The backups folder is beside the journal (``folder``), never in it.

A nightly backup is kept sealed with the owner's backup key once there is one (``sealed``): it is
what leaves the card, to a USB stick or the network place. A restore opens a sealed backup with
the key the owner types, or the one this table keeps.
"""

from __future__ import annotations

import functools
import io
import json
import logging
import os
import re
import socket
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .. import version
from ..config import ConfigError, bound, load_config, parse_config, trial
from ..config.machine import Running
from ..config.schema import MAX_BYTES as CONFIG_MOST
from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase, Text
from ..engine.views import LANGUAGES
from ..files import PRIVATE_DIR, TooBig, read_file, read_json, write_private
from ..kinds import SecretFile
from ..night.store import NIGHT_ID, POINTER, folder_of
from ..table.journal import IN_PLAY, begun_last, end_play, finished, in_play
from ..ui.i18n import moment_at, say
from . import sealed
from .rounds import Rounds

if TYPE_CHECKING:
    import datetime
    import tarfile
    from contextlib import AbstractContextManager

    from ..config import Config
    from ..web import Companion

log = logging.getLogger("pi_table.backup")
FORMAT, VERSION = "pi-table backup", 1
MANIFEST, CONFIG, JOURNAL, NIGHTS = "manifest.json", "config.toml", "journal/", "nights/"
PLACE = "offsite.place"
"""The journal folder's file of the network place the nightly backups are copied to (``offsite``),
with its password, which a backup leaves behind (``owners``): a restore names it."""
HANDOUT = "broker.handout"
"""The journal folder's file of the passwords the owner has still to give the café's tables, and a
change asked (``broker_desk``): a secret of the owner's list (``owners``)."""
HOST_KEY, PLACE_CA = "offsite.hostkey", "offsite.ca"
"""The journal folder's files of the place's trust: its SSH host keys pinned, its own CA (``offsite``)."""
LEFT_OUT = "restore.left-out.json"
"""In the backups folder: what the owner had set that the last restore could not bring back (a
secret), for Health to say until each is given again (``left_out``)."""
TRAVELS = ("staff.pin",)
"""The journal folder's files that travel besides the finished games (``web.staff.PIN_FILE``)."""
PHONES = ("companion.secret", "companion.released", "companion.opened")
"""The phones' secret and links, which never travel: a backup made before held them."""
GAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,99}\.jsonl")
MOST_BYTES = 64 << 20  # a backup unpacked: the default journal (keep_mb = 50) and room to spare
MOST_FILE = 16 << 20  # one game's file: a game is a few kilobytes
SEALED_MOST = MOST_BYTES + (MOST_BYTES >> 12) + 32  # sealed (``sealed``): 16 bytes a 64 KiB block, and a header
MOST_RATIO = 200  # unpacked over packed: a journal packs ten times smaller, a bomb thousands
FOLDER = trial.BACKUPS  # beside the journal folder
STAGED, UPLOAD, LAST_GOOD = "restore.tar.gz", "upload.tar.gz", "last-good.tar.gz"
NIGHTLY = re.compile(r"nightly-(\d{8}-\d{6})\.tar\.gz")
NIGHTLY_KEEP = 7  # a week of nights
NIGHTLY_MOST = 256 << 20  # all of them together on the SD card; the newest is always kept
QUIET_HOUR = 4  # local time: a café is closed
NIGHTLY_FIRST_S = 60.0  # after a start: a table that keeps restarting does not back up each time
NIGHTLY_EVERY_S = 600.0


class BadBackup(Refusal):
    """A backup that cannot be made or restored: what was wrong and what was expected, never what
    a file in it holds."""


class Holding(Protocol):
    """What the running table holds that a restored configuration may keep (``run.Daemon``)."""

    config: Config
    companion: Companion | None


class Restarting(Protocol):
    """What a restore needs of the table's restarts (``restarts.Restarts``)."""

    @property
    def lock(self) -> AbstractContextManager[object]: ...

    def working(self) -> list[str]: ...


class Table(Holding, Protocol):
    """What a restore needs of the running table (``run.Daemon``)."""

    @property
    def restarts(self) -> Restarting: ...

    def restart(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Contents:
    """A checked backup: its manifest and files, what restoring it replaces in words, and the
    names of what it replaces (the trial's keys: the settings' keys that differ, the PIN, the journal)."""

    manifest: dict[str, Any]
    files: dict[str, bytes]
    replaces: tuple[Phrase, ...]
    keys: tuple[str, ...]
    left_out: tuple[str, ...] = ()  # what the owner had set that it cannot bring: a secret's key, or "offsite"


# --- making one -----------------------------------------------------------------------------------


def new_key(config: Config) -> str:
    """A new backup key for this table, the nightly backups the card keeps sealed with it: the key,
    to be shown once (``sealed.new_key``)."""
    return sealed.new_key(config, kept(folder(config)), SEALED_MOST)


def opened(data: bytes, key: str | None) -> bytes:
    """The backup inside ``data``, sealed or not (``sealed.opened``); BadBackup saying why not."""
    try:
        return sealed.opened(data, key)
    except sealed.Unopened as e:
        raise BadBackup(e.phrase) from None


def _opened_here(data: bytes, config: Config) -> bytes:
    """The backup inside ``data``, opened with the key this table keeps: a sealed copy that key
    does not open (the old table's, restored on a new card) asks for the owner's (``sealed.NO_KEY``),
    never says a key was wrong that nobody typed; BadBackup."""
    try:
        return sealed.opened(data, sealed.kept_key(config))
    except sealed.Unopened as e:
        raise BadBackup(sealed.NO_KEY if e.phrase.template == sealed.WRONG_KEY else e.phrase) from None


def typed_key(typed: str | None) -> str | None:
    """The backup key the owner typed (any case, spaces or dashes), as ``check`` takes it, or None
    when none was; BadBackup naming the form a key has."""
    try:
        return None if typed is None else sealed.key_given(typed)
    except sealed.Unopened as e:
        raise BadBackup(e.phrase) from None


def folder(config: Config) -> Path:
    """Where the backups are kept: beside the journal folder, which holds no folder of its own."""
    return config.paths.journal_dir.parent / FOLDER


def make(config: Config, now: float | None = None, whole: bool = False) -> bytes:
    """This table as a backup; BadBackup when it would be bigger than ``MOST_BYTES``, OSError
    when its files cannot be read (the journal is the service's alone: root or the service).
    ``whole``: the last good state a restore keeps, which never leaves the table: the game in
    play, the unfinished games and the phones' files too."""
    files = _gather(config, whole)
    size = sum(len(data) for data in files.values())
    if size > MOST_BYTES:
        raise BadBackup("the backup would hold {size} MB, more than {most} MB: keep fewer games ([paths] keep_mb)",
                        size=_mb(size), most=_mb(MOST_BYTES))
    made = time.time() if now is None else now
    return _packed({"format": FORMAT, "version": VERSION, "pi_table": version(), "table": name_of(config),
                    "host": socket.gethostname(), "made": _when(made)}, files, made)


def name_of(config: Config) -> str:
    """The table's name: its name in the fleet, else its host's."""
    return config.fleet.table_id or socket.gethostname()


def file_name(config: Config, now: float | None = None) -> str:
    """A download's name: the table and the day, as a café keeps them in a folder."""
    day = time.strftime("%Y-%m-%d", time.localtime(time.time() if now is None else now))
    return f"pi-table-{re.sub(r'[^0-9A-Za-z._-]', '-', name_of(config))}-{day}.tar.gz"


def _gather(config: Config, whole: bool) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    if config.source is not None:
        files[CONFIG] = read_file(config.source, CONFIG_MOST)
    journal = config.paths.journal_dir
    on_table = set() if whole else on_the_table(journal)
    for name in (name for name in _entries(journal) if held(name, whole) and name not in on_table):
        data = _read_held(journal / name)
        if data is not None and (whole or not GAME.fullmatch(name) or finished(journal / name, data)):
            files[JOURNAL + name] = data if whole else without_secret(name, data)
    books = folder_of(journal)
    for name in (name for name in _entries(books) if book(name)):
        if (data := _read_held(books / name)) is not None:
            files[NIGHTS + name] = data
    return files


def _entries(where: Path) -> list[str]:
    """The names of the files in ``where``, sorted (none when it is not there)."""
    try:
        return sorted(entry.name for entry in os.scandir(where) if entry.is_file(follow_symlinks=False))
    except FileNotFoundError:
        return []


def _read_held(path: Path) -> bytes | None:
    """A file a backup holds, or None when it went meanwhile (a game the retention pruned);
    BadBackup when it is bigger than a backup holds of one file."""
    try:
        return read_file(path, MOST_FILE)
    except FileNotFoundError:
        return None
    except TooBig as e:
        raise BadBackup("{path}: {size} bytes, more than a backup holds of one file ({most})",
                        path=str(path), size=e.size, most=MOST_FILE) from None


def book(name: str) -> bool:
    """Whether the nights' folder's file ``name`` is one a backup holds: a night's book, or the
    pointer to the night open (``night.store``)."""
    return name == POINTER or name.endswith(".jsonl") and NIGHT_ID.fullmatch(name.removesuffix(".jsonl")) is not None


@dataclass(frozen=True, slots=True)
class Owned:
    """One of the owner's files in the journal folder: the ``piece`` of the owner's part it is (the
    reset's words, ``owner_notice.PART``), and what of it a backup holds: all of it, all but its
    secret ``field`` (a restore names it until it is given again), or, a ``secret`` (why), none."""

    piece: str
    field: str | None = None
    secret: str | None = None


@functools.cache
def owners() -> dict[str, Owned]:
    """The owner's files in the journal folder, the one list: the buttons' reset wipes each
    (``owners_part``), and a backup holds each but as its entry says, so a new file of the owner's
    is in every backup unless it is declared a secret here."""
    from ..web.roles import BACKUP_KEY_FILE, RECOVERY_FILE  # the pages' names: loaded by a backup's work alone

    return {
        RECOVERY_FILE: Owned("recovery", secret="the recovery code's hash opens the owner's door of the card it was "
                             "made on, whose passphrase no backup holds either"),
        HANDOUT: Owned("handout", secret="the café's tables' broker passwords still to hand out: each goes to its "
                       "table once, never elsewhere"),
        PLACE: Owned("offsite", field="password"),
        HOST_KEY: Owned("offsite"),
        PLACE_CA: Owned("offsite"),
        BACKUP_KEY_FILE: Owned("backup_key", secret="the key the copies off the card are sealed with: never beside "
                               "what it opens"),
    }


def _travelling() -> set[str]:
    """The owner's files a backup holds (``owners``)."""
    return {name for name, owned in owners().items() if owned.secret is None}


def _field(name: str) -> str | None:
    """The secret field a backup holds the owner's file ``name`` without, if any (``owners``)."""
    owned = owners().get(name)
    return None if owned is None else owned.field


def without_secret(name: str, data: bytes) -> bytes:
    """The owner's file ``name`` as a backup holds it: its secret field emptied (``owners``)."""
    field = _field(name)
    kept = _json(data) if field is not None else None
    return data if kept is None else json.dumps({**kept, field: ""}).encode()


def _json(data: bytes | None) -> dict[str, Any] | None:
    try:
        found = read_json(b"" if data is None else data)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def secret_given(journal: Path, name: str) -> bool | None:
    """Whether the owner's file ``name`` holds its secret (None when there is no such file): a
    restore brings it without (``owners``), and the owner gives it again."""
    return _given(name, _read_or_none(journal / name))


def _given(name: str, data: bytes | None) -> bool | None:
    """Whether ``data``, the owner's file ``name``, holds its secret field (None: no such file, or field)."""
    field, kept = _field(name), _json(data)
    return None if kept is None or field is None else bool(kept.get(field))


def _own_secret(journal: Path, name: str, data: bytes) -> bytes:
    """A restored owner's ``data`` for ``name``, with the secret this table holds for the same
    place already (all else alike), else as it came: a secret goes only where it was given."""
    field = _field(name)
    ours, theirs = _json(_read_or_none(journal / name)), _json(data)
    if field is None or ours is None or theirs is None or not ours.get(field):
        return data
    return json.dumps(ours).encode() if {**ours, field: ""} == {**theirs, field: ""} else data


def held(name: str, whole: bool = False) -> bool:
    """Whether the journal folder's file ``name`` is one a backup holds (``whole``: one the
    last good state holds, the phones' files and the pointer to the game in play too)."""
    return name in TRAVELS or GAME.fullmatch(name) is not None or name in _travelling() \
        or (whole and (name in PHONES or name == IN_PLAY))


def on_the_table(journal: Path) -> set[str]:
    """The files of the game in play and of the one an undo may bring back, as the table named
    them (``journal.in_play``), or the game begun last when no pointer names them."""
    playing = in_play(journal)
    if playing is not None:
        return {f"{game}.jsonl" for game in playing.ids}
    last = begun_last(journal)
    return set() if last is None else {last.name}


def _packed(manifest: dict[str, Any], files: dict[str, bytes], made: float) -> bytes:
    """``files`` in a .tar.gz after their manifest: ``manifest`` with each file's size and sha256."""
    import hashlib  # making or reading a backup only
    import tarfile

    listed = {name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()} for name, data in files.items()}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, data in {MANIFEST: json.dumps({**manifest, "files": listed}, indent=1).encode(), **files}.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), int(made), 0o600
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _mb(size: int) -> str:
    return f"{size / (1 << 20):.1f}"


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def made_at(manifest: dict[str, Any]) -> float | None:
    """When a backup was made, in Unix seconds, from its manifest's ``made`` (``_when``: the local
    time of the table that made it), for a page to write in its language; None when it says none."""
    try:
        return time.mktime(time.strptime(str(manifest.get("made")), "%Y-%m-%d %H:%M"))
    except (ValueError, OverflowError):
        return None


# --- checking one ---------------------------------------------------------------------------------


def check(data: bytes, config: Config, running: Running | None = None, key: str | None = None) -> Contents:
    """``data`` checked strictly as a backup to restore on this table: BadBackup naming what was
    wrong and what was expected. A sealed one is opened with ``key`` (the owner's, typed), else with
    the key this table keeps (``sealed``). Its configuration must pass ``check-config``'s checker on
    this machine (``running``: beside the table that runs now), and keep its games where this one does."""
    manifest, files = read(opened(data, key) if key is not None else _opened_here(data, config))
    files, left_out = restorable(files)
    keys: list[str] = []
    made = made_at(manifest)
    replaces = [Phrase.of("a backup of {table} made {made} by pi-table {version}", table=str(manifest.get("table")),
                          made="?" if made is None else moment_at(made), version=str(manifest.get("pi_table")))]
    missing: list[str] = []
    if CONFIG in files:
        files[CONFIG], dropped = secrets_bound(files[CONFIG], config)
        left_out, missing = [*left_out, *dropped.values()], [key for key in dropped if key in bound.WHAT]
        changed = _config_changes(files[CONFIG], config, running)
        keys += changed
        replaces.append(Phrase.of("the settings: {keys} change", keys=", ".join(changed)) if changed else
                        Phrase.of("the settings: the same as now"))
    else:
        replaces.append(Phrase.of("the settings: kept as they are (the backup holds none)"))
    journal = config.paths.journal_dir
    place = files.get(JOURNAL + PLACE)
    if place is not None and not _given(PLACE, _own_secret(journal, PLACE, place)):
        missing.append("offsite")  # its address comes back, its password only where this table holds it already
        left_out.append(Phrase.of("left out of the restore: {why}; give it again on the staff page", why=Phrase.of(
            "{what}, which is not on this table (a backup holds no secret)", what=Phrase.of(NETWORK_PLACE))))
    pin = JOURNAL + TRAVELS[0]
    if pin in files and (why := _ill_formed(files[pin])) is not None:
        raise BadBackup("the backup's staff PIN is not a hash this table checks ({why}): expected one pi-table "
                        "set-staff-pin makes", why=why)
    if pin not in files:
        replaces.append(Phrase.of("the staff PIN: kept as it is (the backup holds none)"))
    elif _read_or_none(journal / TRAVELS[0]) == files[pin]:
        replaces.append(Phrase.of("the staff PIN: the same as now"))
    else:
        keys.append(TRAVELS[0])
        replaces.append(Phrase.of("the staff PIN: the backup's (log in with the PIN the table had then)"))
    games = sum(1 for name in files if GAME.fullmatch(name.removeprefix(JOURNAL)))
    now = len({path.name for path in journal.glob("*.jsonl")} - on_the_table(journal)) if journal.is_dir() else 0
    replaces.append(Phrase.counting("games", "the games' history: {games} game in place of the {now} kept now",
                                    "the games' history: {games} games in place of the {now} kept now",
                                    games=games, now=now))
    nights = sum(1 for name in files if name.startswith(NIGHTS) and name.endswith(".jsonl"))
    now = sum(1 for name in _entries(folder_of(journal)) if name.endswith(".jsonl") and book(name))
    if nights or now:  # a café that holds no game nights is not told of them
        replaces.append(Phrase.counting("nights", "the game nights: {nights} night in place of the {now} kept now",
                                        "the game nights: {nights} nights in place of the {now} kept now",
                                        nights=nights, now=now))
    replaces.append(Phrase.of("the game in play ends, as End game ends it: it stays in the history and a new one is "
                              "dealt; phones scan the codes again"))
    return Contents(manifest, files, (*replaces, *left_out), (*keys, "journal"), tuple(missing))


def restorable(files: dict[str, bytes]) -> tuple[dict[str, bytes], list[Phrase]]:
    """What of a backup's ``files`` a restore brings, and what it leaves out, said: the phones'
    files and the games not finished, which a backup made before these rules held."""
    kept: dict[str, bytes] = {}
    phones, unfinished = False, 0
    for name, data in files.items():
        inside = name.removeprefix(JOURNAL) if name.startswith(JOURNAL) else None
        if inside in PHONES:
            phones = True
        elif inside is not None and GAME.fullmatch(inside) and not finished(Path(name), data):
            unfinished += 1
        else:
            kept[name] = data
    left_out = [Phrase.of("left out of the backup: the phones' secret and links (the table makes a new secret)")] \
        if phones else []
    if unfinished:
        left_out.append(Phrase.counting(
            "count", "left out of the backup: {count} game that is not finished (a backup brings finished games only)",
            "left out of the backup: {count} games that are not finished (a backup brings finished games only)",
            count=unfinished))
    return kept, left_out


def _ill_formed(data: bytes) -> str | None:
    """Why a staff PIN's file from a backup holds no hash the table would check (its scrypt work
    bounded, as the staff page bounds the file it reads: a restored p = 20000 held the check an hour)."""
    from ..web.auth import well_formed  # a restore's check: the staff page's, whose aiohttp is loaded

    try:
        return well_formed(data.decode("ascii"))
    except UnicodeDecodeError:
        return "expected ASCII text"


def read(data: bytes, whole: bool = False) -> tuple[dict[str, Any], dict[str, bytes]]:
    """A backup's manifest and files (``whole``: the last good state's), each file checked
    against the manifest; BadBackup saying what is wrong. Unpacked no further than
    ``MOST_BYTES`` (and ``MOST_RATIO`` times its size)."""
    import hashlib
    import tarfile

    unpacked = _unpacked(data)
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(unpacked), mode="r:") as archive:
            for member in archive.getmembers():
                name = _member_name(member, whole)
                if name in files:
                    raise BadBackup("the backup holds {member!r} twice: expected each file once", member=name)
                most = CONFIG_MOST if name == CONFIG else MOST_FILE
                if member.size > most:
                    raise BadBackup("the backup's {member!r} is {size} bytes: expected at most {most}", member=name,
                                    size=member.size, most=most)
                extracted = archive.extractfile(member)
                files[name] = b"" if extracted is None else extracted.read()
    except (tarfile.TarError, OSError) as e:  # tarfile's own words stay in the log: the staff read what to do
        log.warning("a backup's tar archive cannot be read: %s", e)
        raise BadBackup("the backup is damaged: the files packed in it cannot be read (was it changed after it was "
                        "made?): choose another backup") from None
    if MANIFEST not in files:
        raise BadBackup("the backup has no manifest.json: expected one, as pi-table backup makes")
    manifest = _manifest(files.pop(MANIFEST))
    listed = manifest["files"]
    missing = sorted(listed.keys() - files.keys())
    if missing:
        raise BadBackup("the backup's manifest lists {member!r}, which the backup does not hold", member=missing[0][:100])
    for name, body in files.items():
        entry = listed.get(name)
        if entry is None:
            raise BadBackup("the backup holds {member!r}, which its manifest does not list", member=name)
        if entry.get("size") != len(body) or entry.get("sha256") != hashlib.sha256(body).hexdigest():
            raise BadBackup("the backup's {member!r} does not match its manifest's size and sha256: the file was "
                            "damaged or changed after the backup was made", member=name)
    return manifest, files


def _unpacked(data: bytes) -> bytes:
    """The tar inside the gzip ``data``, unpacked a piece at a time and no further than the caps."""
    import zlib

    if not data.startswith(b"\x1f\x8b"):
        raise BadBackup("the backup is not a .tar.gz file: expected one made by pi-table backup or the staff page")
    most = min(MOST_BYTES + (MOST_BYTES >> 4), len(data) * MOST_RATIO)  # the tar's headers besides the files
    unpacker = zlib.decompressobj(wbits=31)
    pieces, size = [], 0
    try:
        for start in range(0, len(data), 1 << 16):
            pending = data[start:start + (1 << 16)]
            while pending and not unpacker.eof:
                piece = unpacker.decompress(pending, most + 1 - size)
                pieces.append(piece)
                size += len(piece)
                if size > most:
                    raise BadBackup("the backup unpacks to more than {most} MB, or {ratio} times its own size: "
                                    "expected a backup pi-table makes (at most {cap} MB)", most=_mb(most),
                                    ratio=MOST_RATIO, cap=_mb(MOST_BYTES))
                pending = unpacker.unconsumed_tail
            if unpacker.eof:
                break
    except zlib.error as e:  # zlib's "Error -3 while decompressing data" stays in the log
        log.warning("a backup's gzip data cannot be unpacked: %s", e)
        raise BadBackup("the backup is damaged: its packed data cannot be unpacked (was it changed or cut short "
                        "on the way?): choose another backup") from None
    if not unpacker.eof:
        raise BadBackup("the backup is cut short: expected a whole .tar.gz (was the download finished?)")
    if unpacker.unused_data or start + (1 << 16) < len(data):
        raise BadBackup("the backup has more data after its end: expected one .tar.gz alone")
    return b"".join(pieces)


KINDS = (("issym", N_("a symbolic link")), ("islnk", N_("a hard link")), ("ischr", N_("a device")),
         ("isblk", N_("a device")), ("isfifo", N_("a pipe")), ("isdir", N_("a folder")), ("issparse", N_("a sparse file")))
"""What a member that is no regular file is, as a refusal names it."""


def _member_name(member: tarfile.TarInfo, whole: bool) -> str:
    """A member's name once it is known to be a file a backup holds; BadBackup otherwise."""
    name = member.name
    if name.startswith("/"):
        raise BadBackup("the backup's {member!r} has an absolute path: expected a name inside the backup",
                        member=name[:100])
    if ".." in name.split("/"):
        raise BadBackup("the backup's {member!r} leads out of its folder (..): expected a name inside the backup",
                        member=name[:100])
    for test, kind in KINDS:
        if getattr(member, test)():
            raise BadBackup("the backup's {member!r} is {kind}: expected regular files only", member=name[:100],
                            kind=Phrase.of(kind))
    if not member.isreg():
        raise BadBackup("the backup's {member!r} is not a regular file: expected regular files only", member=name[:100])
    inside = name.removeprefix(JOURNAL)
    if name not in (MANIFEST, CONFIG) and not (name.startswith(JOURNAL) and (held(inside, whole) or inside in PHONES)) \
            and not (name.startswith(NIGHTS) and book(name.removeprefix(NIGHTS))):
        raise BadBackup("the backup's {member!r} is not a file a backup holds: expected manifest.json, config.toml, "
                        "journal/ with the games (.jsonl), staff.pin, the owner's and the companion's files, and "
                        "nights/ with the game nights' books", member=name[:100])
    return name


def _manifest(data: bytes) -> dict[str, Any]:
    try:
        manifest = read_json(data.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError among them
        manifest = None
    if (not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("version") != VERSION
            or not isinstance(manifest.get("files"), dict)
            or not all(isinstance(entry, dict) for entry in manifest["files"].values())):
        raise BadBackup("the backup's manifest.json is not a pi-table backup's: expected {format} version {version}, "
                        "with the size and sha256 of each file", format=FORMAT, version=VERSION)
    return manifest


def secrets_bound(data: bytes, config: Config) -> tuple[bytes, dict[str, Phrase]]:
    """The backup's configuration ``data`` with each secret it names that this table's owner did
    not give for the destination it names there left out (``config.bound``: a backup holds no
    secret, and names another broker's or a file given as another one), and ``password_in_clear``
    never turned on by it; what was left out, said, for the restore's check and for Health until
    the owner gives it again (``left_out``), by the key left out."""
    from ..config.writing import changed_text  # tomlkit: a restore's check alone

    if config.source is None:
        return data, {}
    try:
        text = data.decode("utf-8")
        document = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return data, {}  # the checker says what is wrong with it
    if not all(isinstance(document.get(section, {}), dict) for section in ("fleet", "notify")):
        return data, {}
    bound.begin(config.source, config.values)  # the owner's own secrets bound before the backup's names any
    changes: dict[str, object] = {}
    said: dict[str, Phrase] = {}
    for key in bound.WHAT:
        section, _, name = key.partition(".")
        named = document.get(section, {}).get(name)
        try:
            file = SecretFile.parse(named, str(config.source.parent)).path if isinstance(named, str) and named else ""
        except Refusal:
            continue  # the checker refuses it, saying why
        if file:
            why = _not_given_for(file, key, document)
            if why is not None:
                changes[key] = ""
                said[key] = Phrase.of("left out of the restore: {why}; give it again on the staff page", why=why)
    if document.get("fleet", {}).get("password_in_clear") is True and not config.values["fleet.password_in_clear"]:
        changes["fleet.password_in_clear"] = False
        said["fleet.password_in_clear"] = Phrase.of(
            "left out of the restore: the broker's password without TLS stays off (a restore never turns it on; the "
            "owner may, in the settings)")
    if not changes:
        return data, said
    try:
        return changed_text(config.source, changes, text=text).encode("utf-8"), said
    except ConfigError:
        return data, said  # the checker refuses it as it is, saying why


def _not_given_for(file: str, key: str, document: dict[str, Any]) -> Phrase | None:
    """Why the secret ``file`` the backup's settings name as ``key`` may not go where they send it."""
    what = Phrase.of(bound.WHAT[key])
    if not os.path.isfile(file):
        return Phrase.of("{what}, which is not on this table (a backup holds no secret)", what=what)
    if key == bound.NOTIFY:
        try:
            now = bound.address_destination(Path(file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            return Phrase.of("{what}, which cannot be read", what=what)
    else:
        now = bound.broker_destination(str(document.get("fleet", {}).get("broker", "")))
    return bound.why_not(file, key, now)


def _config_changes(data: bytes, config: Config, running: Running | None) -> list[str]:
    """The keys the backup's configuration changes, once it passes ``check-config``'s checker as
    this table's file; BadBackup saying what it found wrong."""
    if config.source is None:
        raise BadBackup("this table runs on its defaults, with no configuration file to replace: start one with "
                        "pi-table check-config --defaults, then restore")
    try:
        restored = parse_config(data.decode("utf-8"), config.source, machine=True, running=running)
    except UnicodeDecodeError:
        raise BadBackup("the backup's config.toml is not UTF-8 text: expected a TOML file") from None
    except ConfigError as e:
        raise BadBackup("the backup's configuration does not pass check-config: {problems}",
                        problems=tuple(e.phrases)) from None
    if restored.paths.journal_dir != config.paths.journal_dir:
        raise BadBackup("the backup's configuration keeps the games in {theirs}, this table in {ours}: expected the "
                        "same [paths] journal_dir", theirs=str(restored.paths.journal_dir),
                        ours=str(config.paths.journal_dir))
    return [key for key, value in restored.values.items() if config.values.get(key) != value]


def _read_or_none(path: Path) -> bytes | None:
    try:
        return read_file(path, MOST_FILE)
    except OSError:
        return None


# --- restoring one, as a trial --------------------------------------------------------------------

STAGED_PHASE, APPLYING, APPLIED, ROLLING_BACK = "staged", "applying", "applied", "rolling back"
STOPPED = "stopped"  # applied, and the table stopped as asked before its verdict: tried again, not applied again


def trial_path(config: Config) -> Path:
    """The name the restore's notes are beside (``restore.trial``, ``restore.rolled-back``), as
    a change of settings has its notes beside the configuration file: the staff page shows them
    with ``trial.state(trial_path(config), lang)``."""
    return trial.restore_notes(config.paths.journal_dir)


def pending(config: Config) -> trial.Trial | None:
    """The restore under way (staged, or applied and not yet kept), or None."""
    return trial.pending_trial(trial_path(config))


def running_now(table: Holding) -> Running:
    """What the running table holds, which a restored configuration may keep (as a change does)."""
    return Running((str(table.config.paths.journal_dir),), None if table.companion is None else table.companion.port)


def restore(data: bytes, table: Table, by: str = "staff", restart: bool = True, reached: str | None = None,
            key: str | None = None) -> Contents:
    """Check ``data`` (BadBackup; sealed, opened with ``key`` or the table's), stage it for the next
    start and, with ``restart``, ask for the restart that applies it as a trial, watching the devices
    working now and the address the staff page was ``reached`` on (the staff page asks for the
    restart itself, once its answer is sent)."""
    with table.restarts.lock:
        contents = stage(data, table.config, running_now(table), by, table.restarts.working(), reached, key)
    log.info("restoring the backup of %s made %s: the table restarts on it", contents.manifest.get("table"),
             contents.manifest.get("made"))
    if restart:
        table.restart()
    return contents


def stage(data: bytes, config: Config, running: Running, by: str, working: Iterable[str],
          reached: str | None = None, key: str | None = None) -> Contents:
    """Check ``data`` and keep it with its trial's note, for the next start to apply (``starting``);
    BadBackup (nothing kept) while a change of settings or another restore is on trial, or when
    the backup does not pass its check."""
    if config.source is not None and trial.pending_trial(config.source) is not None:
        raise BadBackup("a change of the settings waits to be proven after its restart: restore once it is kept "
                        "or rolled back")
    if pending(config) is not None:
        raise BadBackup("a restored backup is being tried: wait until it is kept or rolled back")
    contents = check(data, config, running, key)
    where = folder(config)
    try:
        where.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)  # what it restores alone: the start replays no game
        write_private(where / STAGED, _packed(contents.manifest, contents.files, time.time()))
        if contents.left_out:
            write_private(where / LEFT_OUT, json.dumps(list(contents.left_out)).encode())
        else:
            (where / LEFT_OUT).unlink(missing_ok=True)
        _note(config, trial.Trial(contents.keys, by, tuple(working), time.time(),
                                  reached=() if reached is None else (reached,)), STAGED_PHASE)
    except OSError as e:
        raise BadBackup("{path}: cannot be written: {error}", path=str(where), error=e.strerror or str(e)) from None
    return contents


def starting(config: Config) -> tuple[Config, trial.Trial | None]:
    """At a start, before anything opens the journal: a staged restore applied (the state as it
    is kept first as the last good backup) and counted one start; a restore whose start died
    before it was healthy, or that its watch found unhealthy, rolled back. The configuration
    to start on (read again when a restore changed its file) and the restore on trial, or None."""
    path = trial_path(config)
    under = trial.pending_trial(path)
    if under is None:
        return config, None
    note = _read_note(path)
    phase = note.get("phase")
    if phase not in (STAGED_PHASE, APPLYING, STOPPED):  # its watch found it unhealthy, or its start died first
        why = note.get("why")
        return _rolled_back(config, under, why if isinstance(why, dict) else said(
            Phrase.of("the table stopped before it was healthy on the restored backup"))), None
    where = folder(config)
    try:
        if phase == STAGED_PHASE:
            write_private(where / LAST_GOOD, make(config, whole=True))
            _note(config, under, APPLYING)
        staged = read_file(where / STAGED, MOST_BYTES)
        manifest, files = read(staged)
    except (OSError, BadBackup) as e:  # nothing replaced yet, or the last good state is kept
        why = Phrase.of("the restored backup could not be applied: {error}",
                        error=e.phrase if isinstance(e, BadBackup) else e.strerror or str(e))
        return _rolled_back(config, under, said(why)), None
    if phase != STOPPED:  # the files the table played on since stay: the restore is in them already
        _apply(config, files)
    under = replace(under, starts=under.starts + 1)
    _note(config, under, APPLIED)
    log.info("restored the backup of %s made %s; trying it", manifest.get("table"), manifest.get("made"))
    if CONFIG not in files or config.source is None:
        return config, under
    try:
        return load_config(config.source, machine=True), under
    except ConfigError as e:
        why = Phrase.of("the table could not start on the restored settings: {problems}", problems=tuple(e.phrases))
        return _rolled_back(config, under, said(why)), None


def keep(config: Config) -> None:
    """The table is healthy on the restored backup: the trial is over, the old state let go."""
    where = folder(config)
    for name in (STAGED, LAST_GOOD, "restore" + trial.ROLLED_BACK, "restore" + trial.TRIAL):
        (where / name).unlink(missing_ok=True)
    log.info("the restored backup is kept: the table is healthy on it")


def roll_back_later(config: Config, under: trial.Trial, why: Text) -> None:
    """The watch found the table unhealthy on the restored backup: the next start (the restart
    that follows) puts the last good state back, before anything opens the journal."""
    _note(config, under, ROLLING_BACK, said(why))


def paused(config: Config, under: trial.Trial) -> None:
    """The table stopped as asked (a staff Restart, systemd's stop) before the restored backup was
    proven: no death, so the next start tries it again (issue 74)."""
    _note(config, under, STOPPED)
    log.info("the table stopped as asked before the restored backup was proven: the next start tries it again")


def _rolled_back(config: Config, under: trial.Trial, why: dict[str, str]) -> Config:
    """Put the last good state back (when one was made), note what was rolled back and why, and
    the configuration to start on."""
    where = folder(config)
    files: dict[str, bytes] = {}
    try:
        files = read(read_file(where / LAST_GOOD, MOST_BYTES), whole=True)[1]
    except FileNotFoundError:  # cut short before it was made: nothing was replaced
        pass
    except (OSError, BadBackup) as e:
        log.error("the last good backup %s cannot be read (%s): the restored files stay", where / LAST_GOOD, e)
    if files:
        _apply(config, files, whole=True)
    write_private(where / ("restore" + trial.ROLLED_BACK), json.dumps(
        {"at": time.time(), "since": under.since, "keys": list(under.keys), "by": under.by, "why": why}).encode())
    for name in (STAGED, LAST_GOOD, LEFT_OUT, "restore" + trial.TRIAL):
        (where / name).unlink(missing_ok=True)
    log.error("the restored backup is rolled back: %s", why.get("en", ""))
    return load_config(config.source, machine=True) if CONFIG in files and config.source is not None else config


def _apply(config: Config, files: dict[str, bytes], whole: bool = False) -> None:
    """Make the table's files the backup's, each in one rename: the configuration file, and the
    journal folder's files a backup or the last good state holds (those ``files`` has not go,
    but for the staff PIN, which a backup without one leaves in place: nobody would be able to
    log in). A backup ends the game in play, whose file stays (the history), and takes the
    phones' files away: the start makes a new secret. ``whole``: the last good state put back
    as it was, the game in play and the phones' files included."""
    if CONFIG in files and config.source is not None:  # the restore's trial answers for it, not the settings'
        trial.replace_tried_elsewhere(config.source, files[CONFIG])
    journal = config.paths.journal_dir
    journal.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    coming = {name.removeprefix(JOURNAL) for name in files if name.startswith(JOURNAL)} - (set() if whole else {*PHONES})
    stays = {TRAVELS[0], *(() if whole else (*on_the_table(journal), *_travelling()))}
    for name in _entries(journal):
        if held(name, whole=True) and name not in coming and name not in stays:
            os.unlink(journal / name)
    for name in sorted(coming):
        write_private(journal / name, files[JOURNAL + name] if whole else _own_secret(journal, name, files[JOURNAL + name]))
    books = folder_of(journal)
    coming = {name.removeprefix(NIGHTS) for name in files if name.startswith(NIGHTS)}
    for name in (name for name in _entries(books) if book(name) and name not in coming):
        os.unlink(books / name)
    if coming:
        books.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    for name in sorted(coming):
        write_private(books / name, files[NIGHTS + name])
    if not whole:
        end_play(journal)


def _note(config: Config, under: trial.Trial, phase: str, why: dict[str, str] | None = None) -> None:
    write_private(folder(config) / ("restore" + trial.TRIAL),
                  json.dumps({**under.to_json(), "phase": phase, **({"why": why} if why else {})}).encode())


def _read_note(path: Path) -> dict[str, Any]:
    """The restore's note as written (``trial.pending_trial`` has read its trial already)."""
    try:
        note = read_json(trial.beside(path, trial.TRIAL).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return note if isinstance(note, dict) else {}


NETWORK_PLACE = N_("the password of the network place the nightly backups are copied to")


def left_out(config: Config) -> list[Phrase]:
    """What the owner had set that the last restore could not bring back and is still not given
    again (each a secret: a backup holds none), as Health says it; the note let go once all are."""
    path = folder(config) / LEFT_OUT
    try:
        keys = read_json(read_file(path, MOST_FILE).decode("utf-8"))
    except (OSError, ValueError):
        return []
    missing = [key for key in keys if key in bound.WHAT and not config.values.get(key)
               or key == "offsite" and secret_given(config.paths.journal_dir, PLACE) is False] \
        if isinstance(keys, list) else []
    if not missing and pending(config) is None:  # given again (not a restore still to be applied)
        path.unlink(missing_ok=True)
    return [Phrase.of("{what} did not come back with the restored backup",
                      what=Phrase.of(NETWORK_PLACE if key == "offsite" else bound.WHAT[key]))
            for key in missing]


def said(why: Text) -> dict[str, str]:
    """``why`` in every language the table speaks, for a note a page reads later."""
    return {lang: say(why, lang) for lang in LANGUAGES}


# --- what the staff page calls --------------------------------------------------------------------


def backup_bytes(config: Config) -> tuple[str, bytes]:
    """``GET /staff/api/backup``: the download's name and bytes (BadBackup, OSError)."""
    return file_name(config), make(config)


def check_upload(data: bytes, table: Table, typed: str | None = None) -> Contents:
    """What an upload would replace (``Contents.replaces``), checked as a restore checks it (a
    sealed one opened with the key the owner ``typed``, else the table's own)."""
    return check(data, table.config, running_now(table), typed_key(typed))


def restore_upload(data: bytes, table: Table, reached: str | None = None, typed: str | None = None) -> list[Phrase]:
    """``POST /staff/api/restore``, from a page ``reached`` on that address: [] once staged (the
    page then asks for the restart that tries it); else why not. The route is the owner's alone.
    A sealed one is opened with the key the owner ``typed``, else the table's own."""
    try:
        restore(data, table, by="owner", restart=False, reached=reached, key=typed_key(typed))
    except BadBackup as e:
        return [e.phrase]
    return []


# --- the nightly backups --------------------------------------------------------------------------


class Nightly(Rounds):
    """A backup a night in ``folder``, made at ``QUIET_HOUR`` or at the first chance after it (a
    table off at night makes it once it is on), at most ``keep`` of them and ``most`` bytes in
    all. ``clock`` is the wall clock, which tests replace; ``run`` comes round every ``every_s``."""

    thread, what, first_s = "nightly-backup", "the nightly backup", NIGHTLY_FIRST_S

    def __init__(self, config: Config, clock: Callable[[], float] = time.time, keep: int = NIGHTLY_KEEP,
                 most: int = NIGHTLY_MOST, every_s: float = NIGHTLY_EVERY_S,
                 copies: Iterable[Callable[[Config, Path], object]] = ()) -> None:
        super().__init__(every_s)
        self.config, self.clock, self.keep, self.most = config, clock, keep, most
        self.copies = tuple(copies)  # where else each night's backup goes, off the SD card (``offsite``)
        self.failed: Exception | None = None  # why the last night's backup could not be made, until one is (``notices``)

    def as_kept(self, data: bytes) -> bytes:
        """The night's backup as the card keeps it: sealed with the owner's key, which a copy off the
        card needs (``sealed``); one that cannot be sealed is kept as it is, and leaves the card nowhere."""
        try:
            return sealed.for_the_card(self.config, data)
        except sealed.Unopened as e:
            log.warning("the nightly backup is kept unsealed: %s", say(e.phrase, "en"))
            return data

    def due(self) -> bool:
        """Whether no backup was made since the last quiet hour."""
        import datetime  # the nightly thread's, not the table's start

        now = datetime.datetime.fromtimestamp(self.clock())
        quiet = now.replace(hour=QUIET_HOUR, minute=0, second=0, microsecond=0)
        if now < quiet:
            quiet -= datetime.timedelta(days=1)
        newest = next(iter(kept(folder(self.config))), None)
        return newest is None or _made(newest) < quiet

    def tick(self) -> Path | None:
        """Make the night's backup when it is due (not while a restore is on trial), and prune;
        the new backup, or None. A failure is logged: the table plays on."""
        if not self.due() or pending(self.config) is not None:
            return None
        now = self.clock()
        where = folder(self.config)
        path = where / f"nightly-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}.tar.gz"
        try:
            data = self.as_kept(make(self.config, now))
            where.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
            write_private(path, data)
        except (OSError, BadBackup) as e:
            why = e.phrase if isinstance(e, BadBackup) else Phrase.of(
                "the nightly backup cannot be made in {path}: {error}", path=str(where), error=e.strerror or str(e))
            self.failed = e  # until one is made: the owner is told (``notices``), in words of its own
            failed("nightly", why)
            return None
        self.failed = None
        prune(where, self.keep, self.most)
        log.info("nightly backup %s (%s MB)", path, _mb(len(data)))
        for copy in self.copies:
            copy(self.config, path)
        return path


def failed(where: str, why: Text) -> None:
    """A backup did not reach ``where`` it goes (``nightly``: the SD card, ``offsite``: the network
    place, ``stick``: a USB stick): the one place every such failure passes, for a notification to
    hook. Each keeps its own note the staff page shows."""
    log.warning("the %s backup failed: %s", where, say(why, "en"))


def kept(where: Path) -> list[Path]:
    """The nightly backups in ``where``, newest first."""
    try:
        names = [entry.name for entry in os.scandir(where) if NIGHTLY.fullmatch(entry.name)]
    except FileNotFoundError:
        return []
    return [where / name for name in sorted(names, reverse=True)]


def nightly(config: Config) -> list[dict[str, Any]]:
    """The nightly backups kept, newest first, as the staff page lists them: ``name``, ``made``
    (local time, to the minute), ``size`` in bytes, and what each ``holds`` (its parts, or why it
    cannot be read), each read and checked as a restore reads it."""
    listed, key = [], sealed.kept_key(config)
    for path in kept(folder(config)):
        try:
            holds = _holds(read(opened(read_file(path, SEALED_MOST), key))[1])
        except (OSError, TooBig, BadBackup) as e:
            why = e.phrase if isinstance(e, BadBackup) else getattr(e, "strerror", None) or str(e)
            holds = [Phrase.of("it cannot be read: {why}", why=why)]
        listed.append({"name": path.name, "made": _made(path).timestamp(), "size": path.stat().st_size,
                       "holds": holds})
    return listed


def _holds(files: dict[str, bytes]) -> list[Text]:
    """What a backup's ``files`` hold, in the owner's words, each part apart."""
    parts: list[Text] = []
    if CONFIG in files:
        parts.append(Phrase.of("the settings"))
    if any(f"{JOURNAL}{name}" in files for name in TRAVELS):
        parts.append(Phrase.of("the staff PIN"))
    games = sum(1 for name in files if name.startswith(JOURNAL) and name.endswith(".jsonl"))
    if games:
        parts.append(Phrase.counting("count", "{count} finished game", "{count} finished games", count=games))
    nights = sum(1 for name in files if name.startswith(NIGHTS) and name.endswith(".jsonl"))
    if nights:
        parts.append(Phrase.counting("count", "{count} game night", "{count} game nights", count=nights))
    return parts


def nightly_data(config: Config, name: str) -> bytes:
    """The nightly backup ``name`` (as ``nightly`` lists it), to restore; BadBackup when this
    table keeps no such one (the name is one of the list's, never a path)."""
    where = folder(config)
    if name not in {path.name for path in kept(where)}:
        raise BadBackup("no nightly backup {name} is kept on this table: choose one of the list", name=name[:80])
    try:
        return read_file(where / name, SEALED_MOST)  # sealed or not: its restore opens it
    except (OSError, TooBig) as e:
        raise BadBackup("the nightly backup {name} cannot be read: {why}", name=name,
                        why=getattr(e, "strerror", None) or str(e)) from None


def prune(where: Path, keep: int, most: int) -> list[Path]:
    """Remove the oldest nightly backups beyond ``keep`` or ``most`` bytes in all (the newest
    stays whatever its size); those removed."""
    total, gone = 0, []
    for number, path in enumerate(kept(where)):
        total += path.stat().st_size
        if number and (number >= keep or total > most):
            path.unlink()
            gone.append(path)
    return gone


def _made(path: Path) -> datetime.datetime:
    import datetime

    match = NIGHTLY.fullmatch(path.name)
    assert match is not None  # kept() lists only these
    return datetime.datetime.strptime(match.group(1), "%Y%m%d-%H%M%S")

