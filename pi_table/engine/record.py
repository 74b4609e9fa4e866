"""A game as its key plus the list of accepted actions (event sourcing).

Replaying the list gives the state exactly, which is what makes undo, a restart and the
journal exact. Undo is an entry of its own, so the list only ever grows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, TypeAlias, TypeVar

from .actions import Action, Undo
from .contract import Rulebook
from .errors import RuleError
from .game import Game, State
from .keys import Key

G = TypeVar("G", bound=Rulebook)  # the game's engine
H = TypeVar("H", bound=Rulebook)  # the game a caller asks the record to be
K = TypeVar("K")  # what was dealt: a grid game's Key, another kind's deal
A = TypeVar("A")  # its actions (an Undo is one for every kind)
S = TypeVar("S")  # its states


class GameRecord(Generic[G, K, A, S]):
    """The accepted actions of one game and the states they led to: a game of any kind starts
    from what was dealt and applies actions (``contract.Rulebook``). ``GridRecord`` names a grid
    game's; a kind of its own names its own in its room."""

    def __init__(self, game: G, key: K) -> None:
        self.game: G = game
        self.key: K = key
        self.entries: list[A] = []  # every accepted entry, undos included, as journalled
        self._states: list[S] = [game.start(key)]

    @property
    def state(self) -> S:
        return self._states[-1]

    @property
    def moves(self) -> int:
        """Actions in effect now (undone ones not counted)."""
        return len(self._states) - 1

    def apply(self, action: A) -> S:
        """Apply ``action`` (or undo the last one); on refusal nothing changes."""
        if isinstance(action, Undo):
            if len(self._states) == 1:
                raise RuleError("there is nothing to undo")
            self._states.pop()
        else:
            self._states.append(self.game.apply(self.state, action))
        self.entries.append(action)
        return self.state

    def of(self, game: type[H]) -> GameRecord[H, Any, Any, Any]:
        """This record, checked to be a game of class ``game`` (``Game``: any grid game): for
        what plays or shows that game only (its loop, its screen, its simulator)."""
        if not isinstance(self.game, game):
            raise RuleError("{game} is not the game asked for here", game=self.game.name)
        return self  # type: ignore[return-value]  # the check above is the game's type

    @classmethod
    def replay(cls, game: Game, key: Key | None, entries: Iterable[Action]) -> GridRecord:
        """A grid game played again from its key and entries (the tests' and tools' way)."""
        record: GridRecord = GameRecord(game, key)
        for action in entries:
            record.apply(action)
        return record


GridRecord: TypeAlias = "GameRecord[Game, Key | None, Action, State]"
"""A grid game's record; its key is None for Deep Undercover, whose key comes with an entry."""
AnyRecord: TypeAlias = "GameRecord[Rulebook, Any, Any, Any]"
"""A game's record of any kind, as the session and the journal hold it: its engine reads its
own deal, actions and states."""
