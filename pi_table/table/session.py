"""The session: the game on the table now, how new games are dealt, and its journal."""

from __future__ import annotations

import calendar
import json
import logging
import random
import secrets
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine import Action, Codex, CodexRules, GameRecord, Key, Rules, SpymasterView, State, TableView, Team
from .journal import AnyRules, Header, Journal, JournalError, game_for, load_game

log = logging.getLogger("pi_table.journal")


def random_source(seed: int | None = None) -> random.Random:
    """The OS's secure random source, or a reproducible one from ``seed`` (tests, scripts)."""
    return secrets.SystemRandom() if seed is None else random.Random(seed)


@dataclass(frozen=True, slots=True)
class Retention:
    """How many finished games the journal directory keeps, and how much room they may take."""

    keep_games: int = 200
    keep_bytes: int = 50 * 1024 * 1024


class Session:
    """Holds the current game's record and writes its journal (one file per game).

    The game is a grid game (``rules`` a ``Rules``) or Codex (a ``CodexRules``); ``codex``
    says which. ``start`` overrides the starting team of every key dealt; ``journal_dir`` None
    keeps the games in memory only (the simulators). When the journal cannot be written (a
    full disk, a read-only directory) the game goes on in memory and ``journal_problem`` says
    why.
    """

    def __init__(
        self,
        rules: AnyRules,
        rng: random.Random | None = None,
        key: Key | None = None,
        start: Team | None = None,
        journal_dir: Path | None = None,
        fsync: bool = True,
        clock=time.time,
        retention: Retention | None = None,
    ) -> None:
        self._configure(rng, start, journal_dir, fsync, clock, retention)
        self._begin(rules, key)

    def _configure(self, rng, start, journal_dir, fsync, clock, retention) -> None:
        self.rng = rng or random_source()
        self.start = start
        self.journal_dir = journal_dir
        self.fsync = fsync
        self.clock = clock
        self.retention = retention or Retention()
        self.journal: Journal | None = None
        self.journal_problem: str | None = None
        self.resumed: str | None = None  # the file a resumed game came from
        self.grid_rules = Rules()  # the grid game's options, kept while Codex is played

    @classmethod
    def resume(
        cls,
        rules: AnyRules,
        journal_dir: Path,
        rng: random.Random | None = None,
        start: Team | None = None,
        fsync: bool = True,
        clock=time.time,
        retention: Retention | None = None,
    ) -> Session:
        """The last game in ``journal_dir`` exactly as it stood, if it is unfinished; else a
        new game with ``rules``. A journal that does not replay is left in place, not lost."""
        session = cls.__new__(cls)
        session._configure(rng, start, journal_dir, fsync, clock, retention)
        newest = max(journal_dir.glob("*.jsonl"), default=None) if journal_dir.is_dir() else None
        if newest is not None:
            try:
                header, record, warnings = load_game(newest)
            except (JournalError, OSError, UnicodeError) as e:
                log.error("the last game's journal does not replay, starting a new game: %s", e)
            else:
                if not record.state.is_over:
                    for warning in warnings:
                        log.warning("%s", warning)
                    session._adopt(header, record, newest)
                    return session
        session._begin(rules, None)
        return session

    def _adopt(self, header: Header, record: GameRecord, path: Path) -> None:
        self._set_rules(header.rules)
        self.game, self.record = record.game, record
        self.id, self.began = header.id, _parse_time(header.started)
        self.resumed = str(path)
        try:
            self.journal = Journal.resume(path, len(record.entries), self.fsync)
        except OSError as e:
            self._journal_failed(e)

    def _set_rules(self, rules: AnyRules) -> None:
        self.rules = rules
        if isinstance(rules, Rules):
            self.grid_rules = rules

    @property
    def codex(self) -> bool:
        return isinstance(self.rules, CodexRules)

    def _begin(self, rules: AnyRules, key=None) -> None:
        """A new game: ``key`` is what to deal (a Key, or Codex's Setup), else a random deal."""
        self._set_rules(rules)
        self.game = game_for(rules)
        if key is None:
            key = self.game.deal(self.rng) if self.codex else self.game.deal(self.rng, self.start)
        self.record = GameRecord(self.game, key)
        self.began = self.clock()
        # ids sort by time, to the microsecond, as resume and history need: two games can begin
        # within one second (NEW GAME right after a game ends)
        micros = int(self.began * 1e6) % 1_000_000
        self.id = f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime(self.began))}.{micros:06d}-{secrets.token_hex(3)}"
        if self.journal is not None:
            self.journal.close()
            self.journal = None
        if self.journal_dir is None:
            return
        dealt = self.record.key
        header = Header(
            id=self.id,
            started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.began)),
            rules=rules,
            key=str(dealt) if self.codex else dealt.cells,
            start=None if self.codex else dealt.start,
        )
        try:
            self.journal = Journal.create(self.journal_dir / f"{self.id}.jsonl", header, fsync=self.fsync)
        except OSError as e:
            self._journal_failed(e)
        else:
            self.journal_problem = None
            self._prune()

    def new_game(self, game: str | None = None) -> None:
        """Deal a new game with the same options (another game when ``game`` is given; from
        Codex back to a grid game with the grid game's options as they were)."""
        if game is None:
            rules = self.rules
        elif game == Codex.name:
            rules = self.rules if self.codex else CodexRules()
        else:
            rules = replace(self.grid_rules, game=game)
        self._begin(rules, None)

    def submit(self, action: Action) -> State:
        """Apply ``action`` and journal it; on refusal (an engine error) nothing changes."""
        state = self.record.apply(action)
        if self.journal is not None:
            try:
                self.journal.append(action, self.clock() - self.began)
            except OSError as e:
                self._journal_failed(e)
        return state

    def _journal_failed(self, error: OSError) -> None:
        """Keep playing in memory; a half-written line would only be dropped as torn on replay."""
        self.journal_problem = f"the game journal cannot be written ({error.strerror or error}): a restart would lose this game"
        log.error("%s", self.journal_problem)
        if self.journal is not None:
            self.journal.close()
        self.journal = None

    def _prune(self) -> None:
        """Drop the oldest finished games beyond the retention's count or size."""
        files = sorted(self.journal_dir.glob("*.jsonl"), reverse=True)  # newest first: ids sort by time
        kept = total = 0
        for path in files:
            if self.journal is not None and path == self.journal.path:
                continue
            try:
                size = path.stat().st_size
            except OSError:
                continue
            kept, total = kept + 1, total + size
            if kept > self.retention.keep_games or total > self.retention.keep_bytes:
                path.unlink(missing_ok=True)

    @property
    def state(self) -> State:
        return self.record.state

    def table_view(self) -> TableView:
        return self.game.table_view(self.record.state)

    def spymaster_view(self) -> SpymasterView:
        return self.game.spymaster_view(self.record.state)

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()


def _parse_time(text: str) -> float:
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


def history(journal_dir: Path) -> list[dict]:
    """Every game kept in ``journal_dir``, newest first: result, moves, duration."""
    games = []
    for path in sorted(journal_dir.glob("*.jsonl"), reverse=True):
        try:
            header, record, _ = load_game(path)
            last = path.read_text(encoding="utf-8").rstrip("\n").rsplit("\n", 1)[-1]
        except (JournalError, OSError, UnicodeError) as e:
            games.append({"id": path.stem, "error": str(e)})
            continue
        state = record.state
        if isinstance(header.rules, CodexRules):  # a faction wins, the other loses
            losers = [] if state.winner is None else [state.winner.other.value]
            reason = record.game.reason(state)
        else:
            losers, reason = [team.value for team in state.losers], state.reason
        games.append({
            "id": header.id,
            "game": header.rules.to_json()["game"],
            "started": header.started,
            "moves": record.moves,
            "duration_s": _duration(last),
            "over": state.is_over,
            "winner": None if state.winner is None else state.winner.value,
            "losers": losers,
            "reason": reason,
        })
    return games


def _duration(last_line: str) -> float | None:
    try:
        return json.loads(last_line).get("at")
    except (ValueError, AttributeError):
        return None
