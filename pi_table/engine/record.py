"""A game as its key plus the list of accepted actions (event sourcing).

Replaying the list gives the state exactly, which is what makes undo, a restart and the
journal exact. Undo is an entry of its own, so the list only ever grows.
"""

from __future__ import annotations

from collections.abc import Iterable

from .actions import Action, Undo
from .errors import RuleError
from .game import Game, State
from .keys import Key


class GameRecord:
    """The accepted actions of one game and the states they led to. The game is a grid game
    with its key, or Codex with its setup: both start from what was dealt and apply actions."""

    def __init__(self, game: Game, key: Key) -> None:
        self.game = game
        self.key = key
        self.entries: list[Action] = []  # every accepted entry, undos included, as journalled
        self._states: list[State] = [game.start(key)]

    @property
    def state(self) -> State:
        return self._states[-1]

    @property
    def moves(self) -> int:
        """Actions in effect now (undone ones not counted)."""
        return len(self._states) - 1

    def apply(self, action: Action) -> State:
        """Apply ``action`` (or undo the last one); on refusal nothing changes."""
        if isinstance(action, Undo):
            if len(self._states) == 1:
                raise RuleError("there is nothing to undo")
            self._states.pop()
        else:
            self._states.append(self.game.apply(self.state, action))
        self.entries.append(action)
        return self.state

    @classmethod
    def replay(cls, game: Game, key: Key, entries: Iterable[Action]) -> GameRecord:
        record = cls(game, key)
        for action in entries:
            record.apply(action)
        return record
