"""The night's book: one private file per night, written as the journal is, a line per event
(opened, a team joined, a phone's team approved or a team removed, a round proposed, swapped
or confirmed, a game begun at this table and the round it was dealt for, a game played, a
team withdrawn or back, a result the staff entered or corrected, closed; at a follower, the
host accepted, the host's plan as it was heard, the night left), each
line fsynced and sealed with its CRC-32, so a restart or a power cut in the middle of a night
loses nothing the staff or a table was told was kept. The night as it stands is the fold of
its lines (``night.state.Night``): pure, and what the standings and the pairings are computed
from. The book is the rest: its commands check a director's request and write its event, its
store writes, fsyncs and locks.

A night is hosted by the table whose staff page runs it; the café's other tables in it follow
it: they keep the host's plan (``plan``: its teams and confirmed rounds, heard over the fleet's
broker) in their own book, checked by ``Book.follow``, and record their round's games into it.
A table follows only a host its own staff accepted, with the code the host shows
(``night.code``), or one on the owner's list of the café's tables; any other plan that names it
is an offer on its staff page, and changes nothing here.

Which night is open here is what the book's pointer (``POINTER``) names, written as each night
opens, is accepted, closes or is left: a night's file is named by the clock that opened it (a
host's, for a night followed), so the file whose name sorts last may be any night.

What the staff decide at the desk, as a tournament's director does, is a line of the book with
who did it and when (``STAFF_EVENTS``: the night's history): a team withdrawn (it keeps its
results and leaves the pairings) or back, and a round's result entered or corrected at a table
(``RESULTS``: a win, a forfeit, a double loss, a void pair, a recorded game credited to this pair,
or back to the table's own game). The host's plan carries that history, so the tables that follow
and the dashboard count the same results.

A line's format is the journal's (pi_table/table/journal.py): JSON whose last field is ``"crc"``,
the CRC-32 of the line's bytes before it. Reading, a line that fails its checksum or does not
make sense is left out, and reported (``Night.damage``) naming the file and the line, never what
it holds; a torn last line (a crash mid-write, never acknowledged) is cut off.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from ..engine.games import NAMES
from ..engine.phrase import N_
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
from .code import new_code, proves
from .games import Game
from .names import Blocklist, NameRefused, Team, folded, team, tidy
from .pairing import MAX_TABLES, Pair, Round, swap
from .scoring import BYE_POINTS, FORFEIT, RATING, TIEBREAKS
from .state import (
    CREDIT,
    DRAW,
    LATE_CHOICES,
    LATE_POINTS,
    RATINGS,
    RESULTS,
    WON,
    Damage,
    DamagedLine,
    Event,
    Night,
    NightRefused,
    _bye,
    _late,
    _seeding,
    _tiebreak,
)

log = logging.getLogger("pi_table.night")
T = TypeVar("T")
FOLDER = "nights"  # beside the journal folder, never in it: that folder holds the table's files alone
MAX_NIGHT_NAME = 40
PLANLESS = ("game", "deal", "free")  # a table's games: no change of the host's plan (``changed`` does not hear of them)
MAX_ROUNDS = 1000  # a night's rounds, as a plan carries them: a bye is asked for one of them at most
SEED_NIGHTS = 20  # the nights kept here whose ratings seed a night's round 1: the café's last few weeks
FREE_VIEW = ("game", "termination", "winner", "remaining", "score")  # what a free-play game over keeps of its view
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
NIGHT_ID = re.compile(r"\d{8}-\d{6}")  # its file's name: the time it was opened, UTC
NEW_NIGHT_S = 12 * 3600  # a plan of a night opened longer ago than this is no new night to follow
CLOCK_SKEW_S = 300  # nor one opened further in the future than the tables' clocks may differ
POINTER = "open"  # the file naming the night open here (its id), empty when none is
MAX_TEAMS = 64  # teams a night takes from the phones: a café's room, not a flood from its Wi-Fi
MAX_WAITING = 16  # phones' teams waiting for the staff at once: a flood fills this list, never the night
MAX_OFFERS = 16  # nights offered to this table at once (each from another table's plan)
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
    """A Book's method under its lock: a check and the change it allows are one step."""
    def locked(self: Book, *args: object, **kwargs: object) -> T:
        with self.lock:
            return method(self, *args, **kwargs)

    return locked


class Book:
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

    @_locked
    def open(self, name: str, games: Iterable[str], tables: Iterable[str], bye: float = BYE_POINTS,
             tiebreak: str = RATING, late: float = LATE_POINTS, seeding: str = DRAW) -> Night:
        """A new night here, hosted: its games, tables, the points of a bye, its tie-break, the
        points of a round a team missed by joining late, and how round 1 is ordered (``DRAW``, by
        lot from a seed written now, or ``RATINGS``, the ratings of the café's earlier nights,
        written now too): what the book holds, it pairs the same again."""
        self._free()
        try:
            name = tidy(name, MAX_NIGHT_NAME, N_("night's name"))
        except NameRefused as e:
            raise NightRefused(e.phrase) from None
        games, tables = tuple(dict.fromkeys(games)), tuple(dict.fromkeys(tables))
        unknown = [game for game in games if game not in NAMES]
        if not games or unknown:
            raise NightRefused("the night's games are some of {names}", names=", ".join(NAMES))
        if not tables or len(tables) > MAX_TABLES or not all(TABLE_ID.fullmatch(t) for t in tables):
            raise NightRefused("a night has 1 to {most} tables, each named with letters, digits, - or _",
                               most=MAX_TABLES)
        try:
            bye, tiebreak, late = _bye(bye), _tiebreak(tiebreak), _late(late)
        except ValueError:
            raise NightRefused("a bye scores 0 to 1 point, a round missed by a late team 0 or ½, and the tie-break "
                               "order names some of {names}", names=", ".join(TIEBREAKS)) from None
        try:
            seeding = _seeding(seeding)
        except ValueError:
            raise NightRefused("round 1 is drawn by lot or seeded by the ratings of earlier nights: {names}",
                               names=f"{DRAW}, {RATINGS}") from None
        seeds = self._seeds() if seeding == RATINGS else {}
        at = self.clock()
        self._start(self._new_id(at))
        night = self._change({"event": "open", "name": name, "games": list(games), "tables": list(tables), "at": at,
                              "code": new_code(), "bye": bye, "tiebreak": tiebreak, "late": late,
                              "draw": secrets.token_hex(8), "seeding": seeding, "seeds": seeds})
        self._point(night.id)
        return night

    def _seeds(self) -> dict[str, float]:
        """Each team's rating (its ordinal) at the last of the café's nights hosted here, closed, it
        played in (the last ``SEED_NIGHTS``), by its folded name: a team types its name again."""
        seeds: dict[str, float] = {}
        for path in self.kept()[-SEED_NIGHTS:]:
            night = read_night(path)[0]
            if night.open or night.host is not None:
                continue
            seeds.update((folded(line.team), line.rating(3)) for line in night.standings() if line.played)
        return seeds

    @_locked
    def join(self, name: str, nicknames: Iterable[str] = (), waiting: bool = False, code: str = "") -> Team:
        """A team joins: at once from the staff page, ``waiting`` for the staff's approval from a
        phone; ``code``: its league code, as typed (``names.code``)."""
        night = self._hosted()
        if waiting and len(night.waiting) >= MAX_WAITING:
            raise NightRefused("{count} teams are waiting for the staff to confirm them: ask the staff",
                               count=MAX_WAITING)
        if waiting and len(night.teams) + len(night.waiting) >= MAX_TEAMS:
            raise NightRefused("the night has all the teams it takes: ask the staff")
        joined = team(name, nicknames, [*night.teams, *night.waiting], self.blocked, code)
        self._change({"event": "join", "team": joined.name, "nicknames": list(joined.nicknames),
                      **({"team_code": joined.code} if joined.code else {}),
                      **({"waiting": True} if waiting else {})})
        return joined

    @_locked
    def approve(self, name: str) -> Team:
        """A team that joined from a phone, confirmed by the staff: from now on it is paired."""
        night = self._hosted()
        if name not in night.waiting:
            raise NightRefused("no team {team} is waiting for the staff", team=name)
        self._change({"event": "approve", "team": name})
        return night.teams[name]

    @_locked
    def remove(self, name: str) -> None:
        """A team gone from the night (a phone's junk, a team that went home), while no confirmed
        round has paired it; a team that has been paired is in the night's games and standings."""
        night = self._hosted()
        if name not in night.teams and name not in night.waiting:
            raise NightRefused("no team {team} is in the night", team=name)
        number = night.first_round(name)
        if number is not None:
            raise NightRefused("the team {team} is paired in round {number}: a team is removed only before its "
                               "first round", team=name, number=number)
        self._change({"event": "remove", "team": name})

    @_locked
    def withdraw(self, name: str, by: str) -> None:
        """A team that leaves the night (``by``: who at the desk): it keeps its results and is
        paired no more, until it is back (``reinstate``)."""
        night = self._hosted()
        if name not in night.teams or name in night.withdrawn:
            raise NightRefused("no team {team} is playing in the night", team=name)
        self._change({"event": "withdraw", "team": name, "by": by, "at": self.clock()})

    @_locked
    def rest(self, name: str, by: str, rounds: Iterable[int] = (), points: float | None = None) -> list[int]:
        """The team ``name`` sits out ``rounds`` (none: the next one) at its own asking (``by``: who
        at the desk), keeping its place: it is paired again after them, and each scores what the
        director chose (``points``: ½, H, or 0, Z; None: what a round missed scores, ``late``).
        The rounds asked for, each a line of the book."""
        night = self._hosted()
        if name not in night.teams or name in night.withdrawn:
            raise NightRefused("no team {team} is playing in the night", team=name)
        asked = sorted(set(rounds)) or [len(night.rounds) + 1]
        if points is not None and points not in LATE_CHOICES:
            raise NightRefused("a bye asked for scores 0 or ½")
        for number in asked:
            if not len(night.rounds) < number <= MAX_ROUNDS:
                raise NightRefused("a bye is asked for a round to come, from {next} to {most}",
                                   next=len(night.rounds) + 1, most=MAX_ROUNDS)
            if name in night.rests.get(number, ()):
                raise NightRefused("the team {team} has asked for a bye in round {number} already", team=name,
                                   number=number)
        for number in asked:
            self._change({"event": "rest", "team": name, "round": number,
                          **({} if points is None else {"points": points}), "by": by, "at": self.clock()})
        return asked

    @_locked
    def unrest(self, name: str, by: str, number: int | None = None) -> None:
        """The team ``name``'s bye asked for round ``number`` (None: the next one), taken back: it is paired in it."""
        night = self._hosted()
        number = len(night.rounds) + 1 if number is None else number
        if number <= len(night.rounds) or name not in night.rests.get(number, ()):
            raise NightRefused("the team {team} has not asked for a bye in round {number}", team=name, number=number)
        self._change({"event": "unrest", "team": name, "round": number, "by": by, "at": self.clock()})

    @_locked
    def reinstate(self, name: str, by: str) -> None:
        """A team withdrawn, back in the night: it is paired again from the next round."""
        night = self._hosted()
        if name not in night.withdrawn:
            raise NightRefused("no team {team} has withdrawn", team=name)
        self._change({"event": "reinstate", "team": name, "by": by, "at": self.clock()})

    @_locked
    def result(self, number: int, table: str, result: str, by: str, winner: str | None = None,
               game: str | None = None) -> None:
        """The staff's result for round ``number``'s pair at ``table`` (``RESULTS``): ``winner``
        one of the pair for a win or a forfeit, ``game`` a game recorded in the night to credit
        to this pair; ``TABLE`` goes back to what the table recorded."""
        night = self._hosted()
        self._change(self._result(night, number, table, result, by, winner, game))

    def _result(self, night: Night, number: int, table: str, result: str, by: str, winner: str | None,
                game: str | None) -> Event:
        """The line of a result for ``night``; NightRefused saying what is wrong with it."""
        made = night.rounds[number - 1] if 0 < number <= len(night.rounds) else None
        pair = None if made is None else made.pair_at(table)
        if pair is None:
            raise NightRefused("round {number} has no pair at table {table}", number=number, table=table)
        if result not in RESULTS:
            raise NightRefused("a result is one of {results}", results=", ".join(RESULTS))
        if (result in (WON, FORFEIT)) != (winner in pair.teams):
            raise NightRefused("a win or a forfeit names its winner, {red} or {blue}, and no other result does",
                               red=pair.red, blue=pair.blue)
        if result == CREDIT and not any(g.id == game and g.rated for g in night.recorded()):
            raise NightRefused("no game {game} between two teams is recorded in the night", game=str(game))
        return {"event": "result", "round": number, "table": table, "result": result, "winner": winner,
                "game": game if result == CREDIT else None, "by": by, "at": self.clock()}

    @_locked
    def correct(self, night_id: str, number: int, table: str, result: str, by: str, winner: str | None = None,
                game: str | None = None) -> Night:
        """A result of a night this table hosted, entered after it closed (as ``result``): a line
        of its book and its history with who and when; the night as it is now."""
        night = self.night_of(night_id)
        if night.open:
            raise NightRefused("the night {name} is open: correct it at the desk", name=night.name)
        if night.host is not None:
            raise NightRefused("the night {name} is run from table {host}'s staff page", name=night.name,
                               host=night.host)
        self._closed_change(night, self._result(night, number, table, result, by, winner, game))
        log.info("night %s: round %d at table %s corrected after the night closed (%s)", night.name, number, table,
                 result)
        return night

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

    def _corrected(self, host: str, plan: Event) -> bool:
        """The plan of a night over, from its host: kept when this table followed that night to its
        close and the plan is newer (a result corrected after the close, issue 59)."""
        night = self.night if self.night is not None and self.night.id == plan["night"] else None
        if night is None:
            kept = self._kept(plan["night"]) if NIGHT_ID.fullmatch(plan["night"]) else None
            night = None if kept is None else kept[0]
        if night is None or night.open or night.host != host or not night.accepted or night.left \
                or plan["seq"] <= night.seq:
            return False
        _holds(plan, night)
        self._closed_change(night, {"event": "plan", "host": host, "plan": plan})
        log.info("night %s: a correction of table %s after the close, kept", night.name, host)
        return True

    @_locked
    def unconfirm(self, by: str) -> Round:
        """The last round confirmed, back to a proposal (``by``: who at the desk), with its results:
        the staff's go, and its games, on every table, count no more (their pairing is undone,
        ``Night.paired``), nor does one of them told of later. The tables that follow fold it
        with the plan. The round undone: its proposal goes too when a team due to play it joined
        since (a walk-in after the confirm), to be proposed again with it."""
        night = self._hosted()
        if not night.rounds:
            raise NightRefused("no round is confirmed")
        number = len(night.rounds)
        made = night.rounds[-1]
        self._change({"event": "unconfirm", "round": number, "by": by, "at": self.clock()})
        return made

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
    def reconcile(self, table: str) -> list[Game]:
        """At a table that follows (``table``), once a plan is kept: a game begun for a round the
        host has undone since is free play; a round it had not heard of
        when it was confirmed (its broker down) takes the first game this table began as free play
        after that, before the next round was confirmed, while the round's pair here has no game:
        that game is dealt again for the round, and recorded if it is over. What it recorded."""
        from .games import from_view

        night, kept = self.current(), list[Game]()
        ids = night.ids()
        for game_id, number in list(night.dealt.items()):  # a round the host undid since: free play here
            known = night.dealt_known.get(game_id, len(night.history))
            if number is not None and game_id not in ids and (number > len(night.rounds) or any(
                    e["event"] == "unconfirm" and e["round"] <= number for e in night.history[known:])):
                self._change({"event": "deal", "game": game_id, "round": None, "known": len(night.history)})
                log.info("night %s: game %s at table %s is free play: the host undid round %d", night.name, game_id,
                         table, number)
        for number, at in enumerate(night.confirmed, start=1):
            made = night.rounds[number - 1]
            pair = night.unplayed(made, table)
            if at is None or pair is None or number in night.dealt.values():
                continue
            until = night.confirmed[number] if number < len(night.confirmed) else None
            begun = sorted((when, game_id) for game_id, when in night.dealt_at.items()
                           if night.dealt.get(game_id) is None and at <= when and (until is None or when < until))
            if not begun:
                continue
            when, game_id = begun[0]
            self._change({"event": "deal", "game": game_id, "round": number, "at": when})
            ended = night.ended.get(game_id)
            game = None if ended is None or ended["view"].get("game") not in night.games else \
                from_view(game_id, table, pair.teams, ended["view"], number, ended["at"])
            if game is not None and self.record(game):
                kept.append(game)
            log.info("night %s: game %s at table %s, begun as free play, is round %d's", night.name, game_id, table,
                     number)
        return kept

    @_locked
    def propose(self) -> Round:
        made = self._hosted().next_round()
        self._change({"event": "proposal", "round": made.to_json()})
        return made

    @_locked
    def swap(self, one: str, other: str) -> Round:
        night = self._hosted()
        if night.proposal is None:
            raise NightRefused("propose the next round first")
        made = swap(night.proposal, one, other)
        self._change({"event": "proposal", "round": made.to_json()})
        return made

    @_locked
    def pair(self, pairs: Iterable[dict[str, Any]], resting: Iterable[str]) -> Round:
        """The next round paired by hand (``pairs``: each ``{"table", "red", "blue"}``), as its
        proposal: every team of the night not withdrawn once, at a table of the night or sitting out,
        but those that asked to sit the round out: left out, they score what they asked (issue 59, item 3)."""
        night = self._hosted()
        try:
            made = Round(len(night.rounds) + 1, tuple(Pair(str(p["table"]), str(p["red"]), str(p["blue"])) for p in pairs),
                         tuple(map(str, resting)))
        except (KeyError, TypeError):
            made = Round(0, ())
        names = [name for pair in made.pairs for name in pair.teams] + list(made.resting)
        tables = [pair.table for pair in made.pairs]
        if not made.pairs or sorted(names) != sorted(night.due(made.number)) \
                or len(set(tables)) != len(tables) or not set(tables) <= set(night.tables):
            raise NightRefused("a round by hand pairs every team of the night once, one pair a table of the night, "
                               "and names the others as sitting out, but those that asked to sit it out")
        self._change({"event": "proposal", "round": made.to_json()})
        return made

    @_locked
    def confirm(self, over: bool = False) -> Round:
        """The round proposed, confirmed; while a table still plays the round before, only when
        told to go ``over`` it (those games still count for their own round)."""
        night = self._hosted()
        if night.proposal is None:
            raise NightRefused("propose the next round first")
        playing = [] if night.round is None else night.still_played(night.round)
        if playing and not over:
            raise NightRefused("round {number} is still played at table {tables}: confirm round {next} anyway? "
                               "Those games count for round {number} when they end", number=len(night.rounds),
                               tables=", ".join(playing), next=len(night.rounds) + 1)
        made = night.proposal
        self._change({"event": "round", "round": made.to_json(), "at": self.clock()})
        return made

    @_locked
    def record(self, game: Game) -> bool:
        """Keep a finished game; False when it was kept already (its id), or is not the night's."""
        night = self.current()
        if game.id in night.ids() or any(name not in night.teams for name in game.teams):
            return False
        self._change({"event": "game", "game": game.to_json()})
        return True

    @_locked
    def close(self, over: bool = False) -> Night:
        """The night closed; while a table still plays (or has not begun) a round's game, only
        when told to go ``over`` it: a game ending at a table that has heard of the close is not
        recorded, and one from a table offline then is taken once it reports (``gather``)."""
        night = self._hosted()
        playing = sorted({table for made in night.rounds for table in night.still_played(made)})
        if playing and not over:
            raise NightRefused("Still played at table {tables}: close the night anyway? A game there that ends after "
                               "the close counts for nothing, unless its table was offline and had not heard of the "
                               "close: it then counts once the table reports it", tables=", ".join(playing))
        night = self._change({"event": "close", "at": self.clock()})
        self._ended()
        return night

    @_locked
    def leave(self) -> Night:
        """This table's staff leave the night it follows: it is closed here (its games stay kept),
        and the table is free to open its own or accept another host."""
        night = self.current()
        if night.host is None:
            raise NightRefused("this table hosts the night {name}: close it instead", name=night.name)
        self._change({"event": "leave", "at": self.clock()})
        self._ended()
        log.info("night: left the night %s of table %s", night.name, night.host)
        return night

    @_locked
    def follow(self, host: str, table: str, plan: Event) -> bool:
        """The plan ``host`` published (the fleet's schema read it) for this table (``table``):
        True when kept, as the night followed here or a night now followed (its host on the
        owner's list of the café's tables); False when it is no newer than the one kept, of a
        night over, or an offer (``offers``: this table's staff accept it with its host's code);
        NightRefused when it is no plan for this table (see docs/cafe/night.md, "Hosts and followers")."""
        if host == table or table not in plan["tables"]:
            self.offers.pop(host, None)
            raise NightRefused("the plan of table {host} is no night this table plays in", host=host)
        if not NIGHT_ID.fullmatch(plan["night"]):
            raise NightRefused("the plan of table {host} is of no night opened now", host=host)
        night = self.night
        if night is not None and night.open and night.host == host:
            if night.id == plan["night"]:
                if plan["seq"] <= night.seq:
                    return False
                _holds(plan, night)
                self._plan(host, plan)
                return True
            if plan["opened"] > night.opened:  # a host runs one night at a time: the one followed here is over there
                self.leave()
        if plan["closed"] is not None:  # a night over (its plan stays at the broker): a correction, or nothing
            if self.offers.get(host, {}).get("night") == plan["night"]:
                del self.offers[host]  # the night on offer is over; an earlier night's correction leaves it on offer
            return self._corrected(host, plan)
        offered = self.offers.pop(host, None)
        if not -CLOCK_SKEW_S <= self.clock() - plan["opened"] <= NEW_NIGHT_S:
            raise NightRefused("the plan of table {host} is of no night opened now", host=host)
        _holds(plan, None)
        if host in self.cafe_tables and (self.night is None or not self.night.open):
            kept = self._kept(plan["night"])
            if kept is None or not kept[0].left:  # a night its staff left is not taken up again unasked
                self._accept(host, plan, kept, "list")
                return True
        if offered is None and len(self.offers) >= MAX_OFFERS:
            log.warning("night: %d nights are on offer to this table already: table %s's is not", MAX_OFFERS, host)
            return False
        self.offers[host] = plan
        if offered is None or offered["night"] != plan["night"]:
            log.warning("night: table %s offers its night %s to this table: it is followed once this table's staff "
                        "accept it with the code on that table's screen", host, plan["name"])
        return False

    def offered(self) -> list[dict[str, object]]:
        """The nights on offer to this table, for its staff page: each host and its night's name."""
        with self.lock:
            now = self.clock()
            return [{"host": host, "night": plan["night"], "name": plan["name"], "tables": plan["tables"],
                     "opened": plan["opened"]} for host, plan in self.offers.items()
                    if now - plan["opened"] <= NEW_NIGHT_S]

    def accept(self, host: str, code: str) -> Night:
        """Follow the night table ``host`` offers, its code typed by this table's staff (the host
        shows it); NightRefused saying why not. The code's proof is made outside the lock: it
        takes a tenth of a second, and the table's loop records games meanwhile."""
        with self.lock:
            self._free()
            plan = self.offers.get(host)
        if plan is None:
            raise NightRefused("table {host} offers no night to this table now", host=host)
        if not proves(code, host, plan["night"], plan.get("proof") or ""):
            raise NightRefused("that is not the code of table {host}'s night {name}: it is on that table's screen "
                               "and its staff page", host=host, name=plan["name"])
        with self.lock:
            self._free()
            newest = self.offers.get(host)
            if newest is None or newest["night"] != plan["night"]:
                raise NightRefused("table {host} offers no night to this table now", host=host)
            return self._accept(host, newest, self._kept(plan["night"]), "code")

    def _accept(self, host: str, plan: Event, kept: tuple[Night, int] | None, by: str) -> Night:
        """Follow ``host``'s night from ``plan``: a new file, or the one kept (a night left, or
        followed before the codes), taken up again."""
        if kept is None:
            self._start(plan["night"])
        else:
            _holds(plan, kept[0])
            self._take_up(self.folder / f"{plan['night']}.jsonl", *kept)
        self._change({"event": "accept", "host": host, "by": by, "at": self.clock()}, self.night)
        night = self._change({"event": "plan", "host": host, "plan": plan})
        self._point(night.id)
        self.offers.pop(host, None)
        log.info("night: following the night %s of table %s (accepted %s)", night.name, host,
                 "from the owner's list of the café's tables" if by == "list" else "with its code")
        if self.followed is not None:
            self.followed()
        return night

    def _kept(self, night_id: str) -> tuple[Night, int] | None:
        """The night ``night_id`` as kept here, and its whole lines' length; None when none is."""
        path = self.folder / f"{night_id}.jsonl"
        return read_night(path) if path.is_file() else None

    def _plan(self, host: str, plan: Event) -> None:
        night = self._change({"event": "plan", "host": host, "plan": plan})
        if not night.open:
            self._ended()

    @_locked
    def gather(self, night_id: str, table: str, games: Iterable[Game]) -> list[Game]:
        """The games another table of the night ``night_id`` (``table``, the topic's) told of, kept
        when they are the ones the night waits for there: each once, and never one it says was
        played elsewhere or by teams the round did not put there. A closed night kept here takes
        them too, at the end of its file (``_closed_change``): a game of a round paired before the
        close, told of after it by a table that was offline then, counts as the correction it is.
        A game told again (a retained report, a table back) is one the night holds: nothing is
        written. A night open in its file but not here (its close line damaged) keeps none: a
        game is written into the night it was checked against, never into the one open here."""
        kept = list[Game]()
        night = self.night if self.night is not None and self.night.id == night_id else None
        if night is None and NIGHT_ID.fullmatch(night_id) and (self.folder / f"{night_id}.jsonl").is_file():
            night = self.night_of(night_id)
        if night is None or night.left:
            return kept
        if night.open and night is not self.night:
            log.warning("night: table %s told of games of the night %s, which is neither open here nor closed (its "
                        "file is damaged): none is kept", table, night_id)
            return kept
        for game in games:
            if game.table == table and night.awaits(game):
                event = {"event": "game", "game": game.to_json()}
                if night.open:
                    self._change(event)
                else:
                    self._closed_change(night, event)
                kept.append(game)
        return kept

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


def _holds(plan: Event, kept: Night | None) -> None:
    """NightRefused unless the plan holds together and, against the night ``kept`` (a follower's,
    from the same host), changes only what a host can: teams join or are removed before their
    first round, rounds are added (or the last ones undone, as its history says: a game of theirs
    recorded here then counts no more, ``Night.paired``, unless it was written before pairings were
    counted), the night closes. A confirmed round is never otherwise rewritten, and
    every team of a game played here stays, so no plan can move a game played here."""
    teams = [t["name"] for t in plan["teams"]]
    rounds = [Round.from_json(made) for made in plan["rounds"]]
    tables = set(plan["tables"])
    for number, made in enumerate(rounds, start=1):
        names = [name for pair in made.pairs for name in pair.teams]
        places = [pair.table for pair in made.pairs]
        if made.number != number or len(set(names)) != len(names) or not set(names) <= set(teams) \
                or len(set(places)) != len(places) or not set(places) <= tables:
            raise NightRefused("round {number} of the plan does not hold together", number=number)
    if len(set(teams)) != len(teams) or not all(TABLE_ID.fullmatch(t) for t in tables) \
            or not set(plan["games"]) <= set(NAMES):
        raise NightRefused("the plan's teams, tables or games do not hold together")
    try:
        Night(str(plan["night"]))._follow("", plan)  # its bye, tie-break and history, as a follower replays them
    except (KeyError, TypeError, ValueError):
        raise NightRefused("the plan's results do not hold together") from None
    if kept is None:
        return
    undone = [int(e["round"]) for e in (plan.get("history") or ())[len(kept.history):] if e["event"] == "unconfirm"]
    fixed = min([len(kept.rounds) + 1, *undone]) - 1  # the rounds it keeps as they are: up to the first one undone
    if (kept.name, kept.games, kept.tables, kept.opened) != (
            plan["name"], tuple(plan["games"]), tuple(plan["tables"]), plan["opened"]) \
            or not {name for game in kept.played for name in game.teams} <= set(teams) \
            or rounds[:fixed] != kept.rounds[:fixed] or any(g.round is not None and g.round > fixed and g.pairing is None for g in kept.played):
        raise NightRefused("a plan changes only the night's teams, its next rounds and its close")
