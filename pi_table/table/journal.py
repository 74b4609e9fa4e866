"""The game journal: one JSON-lines file per game, so a game can be replayed exactly.

Line 1 is the header: ``{"format": "pi-table journal", "version": 1, "id", "started",
"rules", "key", "start"}`` for the grid games, with ``"setup"`` (the six identikits) in place
of the key and the start for Codex. Every further line is one accepted entry in its text form:
``{"n": 1, "action": "clue 3", "at": 12.5}`` (``n`` counts from 1; ``undo`` is an entry too;
``at`` is seconds since the game began, for the history). Entries are written and fsynced
after the engine accepts them and before their effect is shown.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..engine import Codex, CodexRules, GameRecord, Rules, Team, Undo, make_game, parse_action, parse_codex_action

FORMAT = "pi-table journal"
VERSION = 1


class JournalError(ValueError):
    """A journal file that cannot be replayed; the message names the file and line."""


AnyRules = Rules | CodexRules
"""The options of a grid game, or of Codex."""


def game_for(rules: AnyRules):
    """The engine's game object for these rules: a grid game, or Codex."""
    return Codex(rules) if isinstance(rules, CodexRules) else make_game(rules)


def parse_entry(rules: AnyRules, text: str):
    """A journal entry's action, in the text form of its game (``undo`` is one in both)."""
    if isinstance(rules, CodexRules):
        return Undo() if text.strip() == "undo" else parse_codex_action(text)
    return parse_action(text)


@dataclass(frozen=True, slots=True)
class Header:
    """``key`` is what was dealt, as text: the key string, or Codex's setup (``start`` None)."""

    id: str
    started: str
    rules: AnyRules
    key: str
    start: Team | None

    def to_json(self) -> dict:
        dealt = {"setup": self.key} if self.start is None else {"key": self.key, "start": self.start.value}
        return {"format": FORMAT, "version": VERSION, "id": self.id, "started": self.started,
                "rules": self.rules.to_json(), **dealt}

    def deal(self, game):
        """What the header says was dealt, checked by the game."""
        return game.parse_setup(self.key) if self.start is None else game.parse_key(self.key, self.start)


class Journal:
    """Appends one game's entries to its file; ``fsync`` makes each line survive a power cut."""

    def __init__(self, path: Path, file, entries: int, fsync: bool) -> None:
        self.path = path
        self.fsync = fsync
        self.entries = entries
        self._file = file

    @classmethod
    def create(cls, path: Path, header: Header, fsync: bool = True) -> Journal:
        path.parent.mkdir(parents=True, exist_ok=True)
        journal = cls(path, open(path, "x", encoding="utf-8"), 0, fsync)
        journal._write(header.to_json())
        return journal

    @classmethod
    def resume(cls, path: Path, entries: int, fsync: bool = True) -> Journal:
        """Go on appending to a game's file, first cutting off a torn last line if any."""
        data = path.read_bytes()
        complete = data.rfind(b"\n") + 1
        handle = open(path, "r+", encoding="utf-8")
        if complete < len(data):
            handle.truncate(complete)
        handle.seek(complete)
        return cls(path, handle, entries, fsync)

    def append(self, action: object, at: float) -> None:
        self.entries += 1
        self._write({"n": self.entries, "action": str(action), "at": round(at, 3)})

    def _write(self, obj: dict) -> None:
        self._file.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        try:
            self._file.close()
        except OSError:  # the last flush failed (disk full): the entries before it are on disk
            pass


def load_game(path: Path) -> tuple[Header, GameRecord, list[str]]:
    """Replay a journal file. A torn last line (a crash mid-write) is dropped with a warning;
    anything else that does not fit raises ``JournalError`` naming the line."""
    warnings: list[str] = []
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        warnings.append(f"{path}: ignored a torn last line {len(lines)} (no newline): {lines[-1][:40]!r}")
        lines.pop()
    if not lines:
        raise JournalError(f"{path}: empty journal, expected a header line")
    header = _header(path, _json(path, 1, lines[0]))
    game = game_for(header.rules)
    try:
        record = GameRecord(game, header.deal(game))
    except ValueError as e:
        raise JournalError(f"{path}:1: {e}") from None
    for number, line in enumerate(lines[1:], start=2):
        entry = _json(path, number, line)
        if entry.get("n") != number - 1 or not isinstance(entry.get("action"), str):
            raise JournalError(f"{path}:{number}: expected {{\"n\": {number - 1}, \"action\": ...}}, found {line[:60]!r}")
        try:
            record.apply(parse_entry(header.rules, entry["action"]))
        except ValueError as e:
            raise JournalError(f"{path}:{number}: entry {entry['action']!r} does not replay: {e}") from None
    return header, record, warnings


def _json(path: Path, number: int, line: str) -> dict:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise JournalError(f"{path}:{number}: not JSON ({e.msg})") from None
    if not isinstance(obj, dict):
        raise JournalError(f"{path}:{number}: expected a JSON object, found {line[:60]!r}")
    return obj


def _header(path: Path, obj: dict) -> Header:
    if obj.get("format") != FORMAT or obj.get("version") != VERSION:
        raise JournalError(
            f"{path}:1: not a {FORMAT} version {VERSION} (format {obj.get('format')!r}, version {obj.get('version')!r})"
        )
    try:
        if obj["rules"].get("game") == Codex.name:
            return Header(str(obj["id"]), str(obj["started"]), CodexRules.from_json(obj["rules"]), str(obj["setup"]), None)
        return Header(
            id=str(obj["id"]),
            started=str(obj["started"]),
            rules=Rules.from_json(obj["rules"]),
            key=str(obj["key"]),
            start=Team.parse(obj["start"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise JournalError(f"{path}:1: bad header: {e}") from None
