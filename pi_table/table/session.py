"""The session: the game on the table now, how new games are dealt, and its journal."""

from __future__ import annotations

import random
import secrets
import time
from dataclasses import replace
from pathlib import Path

from ..engine import Action, GameRecord, Key, Rules, SpymasterView, State, TableView, Team, make_game
from .journal import Header, Journal


def random_source(seed: int | None = None) -> random.Random:
    """The OS's secure random source, or a reproducible one from ``seed`` (tests, scripts)."""
    return secrets.SystemRandom() if seed is None else random.Random(seed)


class Session:
    """Holds the current game's record and writes its journal (one file per game).

    ``start`` overrides the starting team of every key dealt; ``journal_dir`` None keeps the
    games in memory only (the simulators).
    """

    def __init__(
        self,
        rules: Rules,
        rng: random.Random | None = None,
        key: Key | None = None,
        start: Team | None = None,
        journal_dir: Path | None = None,
        fsync: bool = True,
        clock=time.time,
    ) -> None:
        self.rng = rng or random_source()
        self.start = start
        self.journal_dir = journal_dir
        self.fsync = fsync
        self.clock = clock
        self.journal: Journal | None = None
        self._begin(rules, key)

    def _begin(self, rules: Rules, key: Key | None) -> None:
        self.rules = rules
        self.game = make_game(rules)
        self.record = GameRecord(self.game, key or self.game.deal(self.rng, self.start))
        now = self.clock()
        self.id = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now)) + "-" + secrets.token_hex(3)
        if self.journal is not None:
            self.journal.close()
            self.journal = None
        if self.journal_dir is not None:
            header = Header(
                id=self.id,
                started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
                rules=rules,
                key=self.record.key.cells,
                start=self.record.key.start,
            )
            self.journal = Journal(self.journal_dir / f"{self.id}.jsonl", header, fsync=self.fsync)

    def new_game(self, game: str | None = None) -> None:
        """Deal a new key with the same options (another game when ``game`` is given)."""
        self._begin(replace(self.rules, game=game) if game else self.rules, None)

    def submit(self, action: Action) -> State:
        """Apply ``action`` and journal it; on refusal (an engine error) nothing changes."""
        state = self.record.apply(action)
        if self.journal is not None:
            self.journal.append(action)
        return state

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
