"""The session: the game on the table now, how new games are dealt, and its journal."""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..engine import (
    AnyRecord,
    Game,
    GameRecord,
    GridRecord,
    Guess,
    Key,
    Place,
    SpymasterView,
    TableView,
    Team,
    Undo,
)
from ..engine.contract import GameState, Move, Observed, Rulebook
from ..engine.games import AnyRules, entry, kind_of, make_game
from ..engine.phrase import N_, Phrase, meaning
from ..files import read_json
from ..ui.i18n import say
from . import games
from .journal import (
    STARTED,
    VERSION,
    Header,
    InPlay,
    Journal,
    JournalError,
    Replay,
    Unstarted,
    begun_last,
    entries_written,
    in_play,
    keep_private,
    load_game,
    name_in_play,
    read_game,
    set_aside,
)

log = logging.getLogger("pi_table.journal")
DAMAGED_BEYOND_USE = N_("the last game's journal is damaged beyond use: a new game was dealt (the damaged file is kept "
                        "in the journal folder); if it happens again, check the SD card and the power supply")
DAMAGED = N_("journal damaged at action {action}: {lost} of {written} actions lost; the game goes on as it stood then: "
             "play the lost moves again; if it happens again, check the SD card and the power supply")
NOT_WRITTEN = N_("the game journal cannot be written ({error}): a restart would lose this game; free space on the SD "
                 "card or check the journal folder")
FAULTS = (DAMAGED_BEYOND_USE, DAMAGED, NOT_WRITTEN)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""


def random_source(seed: int | None = None) -> random.Random:
    """The OS's secure random source, or a reproducible one from ``seed`` (tests, scripts)."""
    return random.SystemRandom() if seed is None else random.Random(seed)


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
    record: AnyRecord
    id: str
    began: float
    journal: Path | None
    chosen_key: Key | None


class Session:
    """Holds the current game's record and writes its journal (one file per game).

    The game is any registered game (``pi_table.engine.games``), held through its engine's
    contract (``engine.contract``); ``kind`` says which kind of table plays it, and ``key`` is
    what to deal (a grid game's key, another kind's deal), else a random deal. ``start`` overrides the starting team of every key dealt; ``options`` are
    the table's options (its configuration's), for the games of a kind not played yet;
    ``journal_dir`` None keeps the games in memory only (the simulators). When the journal
    cannot be written (a full disk, a read-only directory) the game goes on in memory and
    ``journal_problem`` says why; when the last game's journal was found damaged at start, it
    says what was lost (and ``journal_damage`` gives the figures) until the next game is dealt.
    """

    record: AnyRecord

    def __init__(
        self,
        rules: AnyRules,
        rng: random.Random | None = None,
        key: object = None,
        start: Team | None = None,
        journal_dir: Path | None = None,
        fsync: bool = True,
        clock: Callable[[], float] = time.time,
        retention: Retention | None = None,
        options: Mapping[str, object] | None = None,
    ) -> None:
        self._configure(rng, start, journal_dir, fsync, clock, retention, options)
        self._begin(rules, key)

    def _configure(self, rng: random.Random | None, start: Team | None, journal_dir: Path | None, fsync: bool,
                   clock: Callable[[], float], retention: Retention | None, options: Mapping[str, object] | None) -> None:
        self.rng = rng or random_source()
        self.start = start
        self.journal_dir = journal_dir
        self.fsync = fsync
        self.clock = clock
        self.retention = retention or Retention()
        self.journal: Journal | None = None
        self.write_problem: Phrase | None = None  # why the journal cannot be written now
        self.journal_damage: dict[str, Any] | None = None  # what a damaged journal lost, found at start
        self.resumed: str | None = None  # the file a resumed game came from
        self.options: Mapping[str, object] = options or {}  # the table's, for a kind not played yet
        self.kept: dict[str, AnyRules] = {}  # each kind's rules as last dealt, kept while another kind is played
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
        clock: Callable[[], float] = time.time,
        retention: Retention | None = None,
        options: Mapping[str, object] | None = None,
    ) -> Session:
        """The game in play in ``journal_dir`` (``journal.in_play``) as it stood, if it is
        unfinished; else a new game with ``rules``. A damaged journal resumes the game as it
        stood before the damage, the file kept beside it; one beyond use deals a new game. Either
        is said out loud, never a silent new game. Makes the directory the service user's alone first."""
        session = cls.__new__(cls)
        session._configure(rng, start, journal_dir, fsync, clock, retention, options)
        keep_private(journal_dir)
        playing = in_play(journal_dir)
        path = session._in_play(playing)
        if path is not None:
            try:
                replay = read_game(path)
            except Unstarted as e:  # a crash as the game was dealt: nothing of it was shown
                log.warning("%s; dealing a new game", e)
            except (JournalError, OSError) as e:
                session._deal_over_lost(rules, path, e)
                return session
            else:
                if replay.damage is not None or not replay.record.state.is_over:
                    session._adopt(replay, path)
                    if playing != InPlay(session.id):  # named as it is now, for the next start
                        session._name_in_play()
                    return session
        session._begin(rules, None)
        return session

    def _in_play(self, playing: InPlay | None) -> Path | None:
        """The file of the game ``playing`` names; when no pointer can name it, the game begun
        last (a table from before the pointer, or a damaged one: what loses least)."""
        assert self.journal_dir is not None
        if playing is not None:
            return None if playing.game is None else self.journal_dir / f"{playing.game}.jsonl"
        path = begun_last(self.journal_dir)
        if path is not None:
            log.warning("no game is named in play in %s: resuming the game begun last, %s, if it is unfinished",
                        self.journal_dir, path.stem)
        return path

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
            return Phrase.of(DAMAGED_BEYOND_USE)
        return Phrase.of(DAMAGED, action=damage["line"] - 1, lost=damage["lost_actions"], written=damage["written_actions"])

    def _set_rules(self, rules: AnyRules) -> None:
        self.rules = rules
        self.keep(rules)

    @property
    def kind(self) -> str:
        """The kind of table the game is played on (``pi_table.engine.games``)."""
        return kind_of(self.rules.game)

    def rules_for(self, game: str, changes: Mapping[str, object] | None = None) -> AnyRules:
        """The rules a new game of ``game`` is dealt with: its kind's options as last dealt (the
        table's before that), with ``changes``; InvalidRules for an option its rules refuse."""
        found = entry(game)
        kept = self.kept.get(found.kind)
        base = found.rules_from(self.options if kept is None else kept.to_json())
        return found.rules().from_json({**base.to_json(), **(changes or {}), "game": game})

    def keep(self, rules: AnyRules) -> None:
        """Deal the next game of this rules' kind with them (the staff's choice of options)."""
        self.kept[kind_of(rules.game)] = rules

    def _begin(self, rules: AnyRules, key: object = None, replacing: Replaced | None = None) -> None:
        """A new game: ``key`` is what to deal (its kind's deal), else a random deal;
        ``replacing`` the game in progress an undo may bring back."""
        self._set_rules(rules)
        game = make_game(rules)
        dealt = games.record(self.kind).deal(game, self.rng, self.start, key)
        self.record = GameRecord(game, dealt.start_from)
        self.replaced, self.chosen_key = replacing, dealt.chosen_key
        self.journal_damage = None  # a damaged game's notice ends with it
        self.began = self.clock()
        # ids sort by time, to the microsecond, as resume and history need: two games can begin
        # within one second (NEW GAME right after a game ends)
        micros = int(self.began * 1e6) % 1_000_000
        self.id = f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime(self.began))}.{micros:06d}-{os.urandom(3).hex()}"
        if self.journal is not None:
            self.journal.close()
            self.journal = None
        if self.journal_dir is None:
            return
        header = Header(id=self.id, started=time.strftime(STARTED, time.gmtime(self.began)), rules=rules, key=dealt.key,
                        start=dealt.start)
        try:
            self.journal = Journal.create(self.journal_dir / f"{self.id}.jsonl", header, fsync=self.fsync)
        except OSError as e:
            self._journal_failed(e)
        else:
            self.write_problem = None
            self._name_in_play()
            self._prune()

    def _name_in_play(self) -> None:
        """Name this game in play (and the one it replaced, while an undo may bring it back)."""
        assert self.journal_dir is not None
        try:
            name_in_play(self.journal_dir, InPlay(self.id, None if self.replaced is None else self.replaced.id))
        except OSError as e:  # the journal's own writes say so to the staff; the pointer before stays
            log.warning("cannot name the game in play in %s (%s): a restart may resume the game before",
                        self.journal_dir, e.strerror or e)

    def new_game(self, game: str | None = None) -> None:
        """Deal a new game with the same options (another game when ``game`` is given, with its
        kind's options as they were: ``rules_for``)."""
        rules = self.rules if game is None else self.rules_for(game)
        going_on = None
        if not self.state.is_over and kind_of(rules.game) == self.kind:  # another kind needs another loop
            going_on = Replaced(self.rules, self.record, self.id, self.began,
                                None if self.journal is None else self.journal.path, self.chosen_key)
        self._begin(rules, None, going_on)

    def submit(self, action: Move) -> GameState:
        """Apply ``action`` and journal it; on refusal (an engine error) nothing changes, and
        an action of another kind of game is one (``InvalidAction``)."""
        if isinstance(action, Undo) and not self.record.entries and self.replaced is not None:
            return self._bring_back(self.replaced)
        if isinstance(action, Place) and action.key is None:
            action = self._with_drawn_key(action)
        state: GameState = self.record.apply(action)  # the engine checks the action's kind
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

    def _bring_back(self, replaced: Replaced) -> GameState:
        """Undo a new game: the game it replaced goes on, in its own file, named in play again;
        the new game's file, which holds its header only, is removed."""
        dealt = self.journal
        log.info("new game %s undone: game %s goes on", self.id, replaced.id)
        self._set_rules(replaced.rules)
        self.record, self.id, self.began, self.replaced = replaced.record, replaced.id, replaced.began, None
        self.chosen_key = replaced.chosen_key
        self.journal = None
        if dealt is not None:
            dealt.close()
            if replaced.journal is not None:
                self._name_in_play()
            dealt.path.unlink(missing_ok=True)
        if replaced.journal is not None:
            try:
                self.journal = Journal.resume(replaced.journal, len(self.record.entries), self.fsync)
            except OSError as e:
                self._journal_failed(e)
        return self.state

    def _journal_failed(self, error: OSError) -> None:
        """Keep playing in memory; a half-written line would only be dropped as torn on replay."""
        self.write_problem = Phrase.of(NOT_WRITTEN, error=str(error.strerror or error))
        log.error("%s", self.write_problem)
        if self.journal is not None:
            self.journal.close()
        self.journal = None

    def _prune(self) -> None:
        """Drop the oldest finished games beyond the retention's count or size."""
        assert self.journal_dir is not None  # a journal was just made in it
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
    def game(self) -> Rulebook:
        return self.record.game

    @property
    def state(self) -> GameState:
        state: GameState = self.record.state
        return state

    @property
    def grid(self) -> GridRecord:
        """The game as a grid game's record, for what plays or shows only those (RuleError
        while another kind is played)."""
        return self.record.of(Game)

    def public_view(self) -> Observed:
        """What everyone at the table may see of the game, whatever its kind."""
        return self.record.game.public_view(self.record.state)

    def table_view(self) -> TableView:
        grid = self.grid
        return grid.game.table_view(grid.state)

    def spymaster_view(self) -> SpymasterView:
        grid = self.grid
        return grid.game.spymaster_view(grid.state)

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()


def history(journal_dir: Path, lang: str = "en") -> list[dict[str, Any]]:
    """Every game kept in ``journal_dir``, newest first: result, moves, duration, the cards' words
    and those guessed (once a spymaster confirmed them); how each ended said in ``lang`` (the staff page and ``pi-table history`` speak the table's language), and as
    its termination's code (``pi_table.engine.endings``), the same in every language."""
    played: list[dict[str, object]] = []
    for path in sorted(journal_dir.glob("*.jsonl"), reverse=True):
        try:
            header, record, _ = load_game(path)
            last = path.read_text(encoding="utf-8").rstrip("\n").rsplit("\n", 1)[-1]
        except (JournalError, OSError, UnicodeError) as e:
            played.append({"id": path.stem, "error": say(meaning(e), lang)})
            continue
        ending = record.game.ending(record.state)
        said = {"winner": None, "losers": [], "termination": None, "score": None} if ending is None else ending.to_json()
        played.append({
            "id": header.id,
            "game": header.rules.game,
            "started": header.started,
            "moves": record.moves,
            "duration_s": _duration(last),
            "over": record.state.is_over,
            "winner": said["winner"],
            "losers": said["losers"],
            "reason": None if ending is None else say(ending.reason, lang),
            "termination": said["termination"],
            "score": said["score"],
            **_words_played(record),
        })
    return played


def _words_played(record: AnyRecord) -> dict[str, list[str] | None]:
    """The words a spymaster confirmed for the game (None: none confirmed, or a game without
    cards' words), and those its operatives touched, in the order touched (undone touches left out)."""
    words = record.game.public_view(record.state).to_json().get("words")
    if not isinstance(words, list):
        return {"words": None, "guessed": None}
    kept: list[object] = []  # the entries in effect, in order
    for action in record.entries:
        if isinstance(action, Undo):
            kept.pop()
        else:
            kept.append(action)
    return {"words": words, "guessed": [words[action.cell] for action in kept if isinstance(action, Guess)]}


def _duration(last_line: str) -> float | None:
    try:
        at = read_json(last_line).get("at")
    except (ValueError, AttributeError):
        return None
    return at if isinstance(at, (int, float)) and not isinstance(at, bool) else None
