"""The session: the game on the table now, how new games are dealt, and its journal."""

from __future__ import annotations

import json
import logging
import random
import secrets
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine import (
    CODEX,
    Action,
    Game,
    GameRecord,
    GridRecord,
    Key,
    Place,
    Rules,
    SpymasterView,
    State,
    TableView,
    Team,
    Undo,
    as_codex_record,
    as_grid_record,
    is_codex,
)
from ..engine.phrase import Phrase, meaning
from ..ui.i18n import say
from .journal import (
    STARTED,
    VERSION,
    AnyRules,
    Header,
    Journal,
    JournalError,
    Replay,
    Unstarted,
    entries_written,
    game_for,
    keep_private,
    load_game,
    read_game,
    set_aside,
)

if TYPE_CHECKING:
    from ..engine import Codex, CodexAction, CodexRecord, CodexState, Setup

log = logging.getLogger("pi_table.journal")


def random_source(seed: int | None = None) -> random.Random:
    """The OS's secure random source, or a reproducible one from ``seed`` (tests, scripts)."""
    return secrets.SystemRandom() if seed is None else random.Random(seed)


@dataclass(frozen=True, slots=True)
class Retention:
    """How many finished games the journal directory keeps, and how much room they may take."""

    keep_games: int = 200
    keep_bytes: int = 50 * 1024 * 1024


@dataclass(frozen=True)
class Replaced:
    """A game in progress that a new game of its kind was dealt over: ``undo`` brings it back,
    as it stood and journalled in its own file, until the new game's first action."""

    rules: AnyRules
    record: GridRecord | CodexRecord
    id: str
    began: float
    journal: Path | None
    chosen_key: Key | None


class Session:
    """Holds the current game's record and writes its journal (one file per game).

    The game is a grid game (``rules`` a ``Rules``) or Codex (a ``CodexRules``); ``codex``
    says which. ``start`` overrides the starting team of every key dealt; ``journal_dir`` None
    keeps the games in memory only (the simulators). When the journal cannot be written (a
    full disk, a read-only directory) the game goes on in memory and ``journal_problem`` says
    why; when the last game's journal was found damaged at start, it says what was lost (and
    ``journal_damage`` gives the figures) until the next game is dealt.
    """

    def __init__(
        self,
        rules: AnyRules,
        rng: random.Random | None = None,
        key: Key | Setup | None = None,
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
        self.write_problem: Phrase | None = None  # why the journal cannot be written now
        self.journal_damage: dict | None = None  # what a damaged journal lost, found at start
        self.resumed: str | None = None  # the file a resumed game came from
        self.grid_rules = Rules()  # the grid game's options, kept while Codex is played
        self.codex_rules: AnyRules | None = None  # Codex's, kept while a grid game is played (None: the book's)
        self.replaced: Replaced | None = None  # the game a new one was dealt over, while undo may bring it back
        self.chosen_key: Key | None = None  # Deep Undercover: a key given for the game, drawn at the last placement

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
        """The last game in ``journal_dir`` as it stood, if it is unfinished; else a new game
        with ``rules``. A damaged journal resumes the game as it stood before the damage, the
        file kept beside it; one beyond use deals a new game. Either is said out loud, never
        a silent new game. Makes the directory the service user's alone first."""
        session = cls.__new__(cls)
        session._configure(rng, start, journal_dir, fsync, clock, retention)
        keep_private(journal_dir)
        newest = max(journal_dir.glob("*.jsonl"), default=None) if journal_dir.is_dir() else None
        if newest is not None:
            try:
                replay = read_game(newest)
            except Unstarted as e:  # a crash as the game was dealt: nothing of it was shown
                log.warning("%s; dealing a new game", e)
            except (JournalError, OSError) as e:
                session._deal_over_lost(rules, newest, e)
                return session
            else:
                if replay.damage is not None or not replay.record.state.is_over:
                    session._adopt(replay, newest)
                    return session
        session._begin(rules, None)
        return session

    def _adopt(self, replay: Replay, path: Path) -> None:
        """Go on with a journal's game; a damaged file is set aside and the game's good
        entries written afresh (so is a version 1 file, to give its lines checksums)."""
        header, record, damage = replay.header, replay.record, replay.damage
        self._set_rules(header.rules)
        self.record = record
        self.chosen_key = header.placed_key(record.game)  # a key drawn since is in the entries
        self.id, self.began = header.id, header.began
        self.resumed = str(path)
        for warning in replay.warnings:
            log.warning("%s", warning)
        aside = None
        try:
            if damage is not None:
                aside = set_aside(path, move=False)
            if damage is None and replay.version == VERSION:
                self.journal = Journal.resume(path, len(record.entries), self.fsync)
            else:
                self.journal = Journal.rewrite(path, header, replay.entries, self.fsync)
        except OSError as e:
            self._journal_failed(e)
        if damage is not None:
            kept = aside or path  # not set aside: the damaged file was left as it was
            log.warning("%s; %d of %d actions lost: the game goes on as it stood after action %d; "
                        "the damaged file is kept as %s", damage.reason, damage.lost, damage.written, damage.kept, kept)
            self._damaged(damage.line, damage.lost, damage.written, kept, new_game=False)

    def _deal_over_lost(self, rules: AnyRules, path: Path, error: Exception) -> None:
        """The last game cannot be resumed at all (its header is damaged, or the file cannot be
        read): deal a new game, and keep the file aside, where resume never looks again."""
        try:
            written = entries_written(path)
        except OSError:
            written = None
        try:
            kept = set_aside(path, move=True)
        except OSError as e:
            log.error("cannot set %s aside (%s): it stays where it is", path, e)
            kept = path
        log.error("the last game's journal is beyond use (%s): dealing a new game; %s actions lost; "
                  "the damaged file is kept as %s", error, "?" if written is None else written, kept)
        self._begin(rules, None)
        self._damaged(1, written, written, kept, new_game=True)

    def _damaged(self, line: int, lost: int | None, written: int | None, kept: Path, new_game: bool) -> None:
        """Note the loss for the screen and ``status`` until the next game is dealt."""
        self.journal_damage = {"line": line, "lost_actions": lost, "written_actions": written,
                               "damaged_file": str(kept), "new_game": new_game}

    @property
    def journal_problem(self) -> Phrase | None:
        """What the staff must know of the journal, the most urgent first: it cannot be
        written now (a restart would lose the game), or it was found damaged at start."""
        damage = self.journal_damage
        if self.write_problem or damage is None:
            return self.write_problem
        if damage["new_game"]:
            return Phrase.of("the last game's journal is damaged beyond use: a new game was dealt (the damaged file is "
                             "kept in the journal folder); if it happens again, check the SD card and the power supply")
        return Phrase.of("journal damaged at action {action}: {lost} of {written} actions lost; the game goes on as it "
                         "stood then: play the lost moves again; if it happens again, check the SD card and the power "
                         "supply", action=damage["line"] - 1, lost=damage["lost_actions"], written=damage["written_actions"])

    def _set_rules(self, rules: AnyRules) -> None:
        self.rules = rules
        if isinstance(rules, Rules):
            self.grid_rules = rules
        else:
            self.codex_rules = rules

    @property
    def codex(self) -> bool:
        return is_codex(self.rules)

    def _begin(self, rules: AnyRules, key: Any = None) -> None:
        """A new game: ``key`` is what to deal (a Key, or Codex's Setup), else a random deal."""
        self._set_rules(rules)
        self.replaced, self.chosen_key = None, None
        if is_codex(rules):
            codex = game_for(rules)
            self.record = GameRecord(codex, codex.deal(self.rng) if key is None else key)
            dealt, start = str(self.record.key), None
        elif rules.setup == "place":  # Deep Undercover: the key comes with the last codename down
            self.record = GameRecord(game_for(rules), None)
            self.chosen_key, dealt, start = key, None, None
        else:
            game = game_for(rules)
            dealt_key = game.deal(self.rng, self.start) if key is None else key
            self.record = GameRecord(game, dealt_key)
            dealt, start = dealt_key.cells, dealt_key.start
        self.journal_damage = None  # a damaged game's notice ends with it
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
        header = Header(id=self.id, started=time.strftime(STARTED, time.gmtime(self.began)), rules=rules, key=dealt,
                        start=start)
        try:
            self.journal = Journal.create(self.journal_dir / f"{self.id}.jsonl", header, fsync=self.fsync)
        except OSError as e:
            self._journal_failed(e)
        else:
            self.write_problem = None
            self._prune()

    def new_game(self, game: str | None = None) -> None:
        """Deal a new game with the same options (another game when ``game`` is given, with that
        kind's options as they were: ``grid_rules``, ``codex_rules``)."""
        if game is None:
            rules = self.rules
        elif game == CODEX:
            from ..engine import CodexRules

            rules = self.codex_rules or CodexRules()
        else:
            rules = replace(self.grid_rules, game=game)
        going_on = None
        if not self.state.is_over:
            going_on = Replaced(self.rules, self.record, self.id, self.began,
                                None if self.journal is None else self.journal.path, self.chosen_key)
        self._begin(rules, None)
        if going_on is not None and is_codex(going_on.rules) == self.codex:  # another kind needs another loop
            self.replaced = going_on

    def submit(self, action: Action | CodexAction) -> State | CodexState:
        """Apply ``action`` and journal it; on refusal (an engine error) nothing changes, and
        an action of the other kind of game is one (``InvalidAction``)."""
        if isinstance(action, Undo) and not self.record.entries and self.replaced is not None:
            return self._bring_back(self.replaced)
        if isinstance(action, Place) and action.key is None:
            action = self._with_drawn_key(action)
        record: GameRecord[Any, Any, Any, Any] = self.record  # the engine checks the action's kind
        state = record.apply(action)
        self.replaced = None  # the new game's first action: the one it replaced stays replaced
        if self.journal is not None:
            try:
                self.journal.append(action, self.clock() - self.began)
            except OSError as e:
                self._journal_failed(e)
        return state

    def _with_drawn_key(self, action: Place) -> Place:
        """Deep Undercover's last codename down: the key is drawn now, as the book has it. Drawn
        once per game: after an undo of the last placement the same key comes again (found in
        the entries, so also after a restart), or a spymaster could re-roll a key they dislike."""
        record = self.grid
        if not record.game.draws_key(record.state):
            return action  # not the last placement: the engine says what is wrong, if anything
        if self.chosen_key is None:
            self.chosen_key = next(
                (entry.key for entry in reversed(record.entries) if isinstance(entry, Place) and entry.key is not None),
                None,
            ) or record.game.deal(self.rng, self.start)
        return replace(action, key=self.chosen_key)

    def _bring_back(self, replaced: Replaced) -> State | CodexState:
        """Undo a new game: the game it replaced goes on, in its own file; the new game's file,
        which holds its header only, is removed so that a restart resumes the game brought back."""
        if self.journal is not None:
            self.journal.close()
            self.journal.path.unlink(missing_ok=True)
            self.journal = None
        log.info("new game %s undone: game %s goes on", self.id, replaced.id)
        self._set_rules(replaced.rules)
        self.record, self.id, self.began, self.replaced = replaced.record, replaced.id, replaced.began, None
        self.chosen_key = replaced.chosen_key
        if replaced.journal is not None:
            try:
                self.journal = Journal.resume(replaced.journal, len(self.record.entries), self.fsync)
            except OSError as e:
                self._journal_failed(e)
        return self.state

    def _journal_failed(self, error: OSError) -> None:
        """Keep playing in memory; a half-written line would only be dropped as torn on replay."""
        self.write_problem = Phrase.of("the game journal cannot be written ({error}): a restart would lose this game; free "
                                       "space on the SD card or check the journal folder", error=str(error.strerror or error))
        log.error("%s", self.write_problem)
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
    def game(self) -> Game | Codex:
        return self.record.game

    @property
    def state(self) -> State | CodexState:
        return self.record.state

    @property
    def grid(self) -> GridRecord:
        """The game as a grid game's record, for what plays or shows only those (RuleError
        while Codex is played)."""
        return as_grid_record(self.record)

    @property
    def codex_record(self) -> CodexRecord:
        """The game as Codex's record, for Codex's own loop, screen and simulator (RuleError
        while a grid game is played)."""
        return as_codex_record(self.record)

    def table_view(self) -> TableView:
        grid = self.grid
        return grid.game.table_view(grid.state)

    def spymaster_view(self) -> SpymasterView:
        grid = self.grid
        return grid.game.spymaster_view(grid.state)

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()


def history(journal_dir: Path, lang: str = "en") -> list[dict]:
    """Every game kept in ``journal_dir``, newest first: result, moves, duration; how each
    ended said in ``lang`` (the staff page and ``pi-table history`` speak the table's language)."""
    games: list[dict[str, object]] = []
    for path in sorted(journal_dir.glob("*.jsonl"), reverse=True):
        try:
            header, record, _ = load_game(path)
            last = path.read_text(encoding="utf-8").rstrip("\n").rsplit("\n", 1)[-1]
        except (JournalError, OSError, UnicodeError) as e:
            games.append({"id": path.stem, "error": say(meaning(e), lang)})
            continue
        state = record.state
        if is_codex(header.rules):  # a faction wins, the other loses
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
            "reason": None if reason is None else say(reason, lang),
        })
    return games


def _duration(last_line: str) -> float | None:
    try:
        return json.loads(last_line).get("at")
    except (ValueError, AttributeError):
        return None
