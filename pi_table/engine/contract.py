"""What a game of any kind gives the layers above: its rules, its engine, its states and its public
view, as protocols (OpenSpiel's ``Game`` and ``State`` are the model).

The session, the journal, the status, the history and the fleet hold a game through these alone,
so a game of a new kind is played by them without their learning its classes: its engine module
implements them, and the registries (``engine.games`` and each layer's ``games``) name it. What
only one kind's own rooms read (a grid game's key, another kind's agents) stays its own.
"""

from __future__ import annotations

from typing import Any, Protocol

from .described import Description
from .endings import Ending
from .phrase import Phrase


class GameRules(Protocol):
    """A game's options, chosen before the deal: the game's name, and the options as a journal's
    header keeps them (each kind's rules read them back: ``from_json``)."""

    @property
    def game(self) -> str: ...

    def to_json(self) -> dict[str, object]: ...


class GameState(Protocol):
    """One moment of a game, an immutable value."""

    @property
    def is_over(self) -> bool: ...


class Observed(Protocol):
    """What everyone at the table may see of a game (its public observer's view): the game's name,
    why it ended (None while it goes on), and the JSON the status, the fleet and the phones'
    boards carry."""

    @property
    def game(self) -> str: ...

    @property
    def reason(self) -> Phrase | None: ...

    def to_json(self) -> dict[str, object]: ...


class Move(Protocol):
    """An action of a game: a value its engine applies, written in the journal as its text form
    (``str``), which its engine reads back (``Rulebook.read_action``)."""

    def __str__(self) -> str: ...


class Rulebook(Protocol):
    """A game's engine: it holds its rules and no per-game data, names and describes itself,
    starts from what was dealt, applies an action to a state (or raises an error saying why not),
    reads an action from its text, and says what everyone may see and how a game ended. Its states
    and actions are its own; the layers above pass them back to it."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> Description: ...

    @property
    def rules(self) -> Any: ...

    def start(self, key: Any) -> Any: ...

    def apply(self, state: Any, action: Any) -> Any: ...

    def read_action(self, text: str) -> Move: ...

    def public_view(self, state: Any) -> Observed: ...

    def ending(self, state: Any) -> Ending | None: ...
