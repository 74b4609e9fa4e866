"""How each kind of game is dealt and what its journal's header keeps of the deal.

A game is what was dealt plus the accepted actions. The grid games deal a key and a starting
team (Deep Undercover nothing: its key comes with the last codename down, in that entry);
a game of another kind deals what its kind deals (its record is in its own room). A ``Record``
does the dealing for its kind, writes the header's fields for it, reads them back and gives the
game what they say was dealt; the journal and the session ask the kind's record
(``pi_table.table.games``) and never which game it is. Each record says what each header field
it reads holds (``fields_held``), as a damaged header is told.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from ..engine import Game, InvalidKey, InvalidRules, Key, Team
from ..engine.contract import Rulebook
from ..engine.phrase import N_

Field = Callable[[str, Callable[[Any], Any]], Any]
"""A header's field read (its name, how to read it), refused with the journal's own words."""


@dataclass(frozen=True, slots=True)
class Dealt:
    """A new game's deal: what its record starts from (a Key, another kind's deal, or None), what the header
    keeps of it as text (``key``, ``start``), and a key chosen for Deep Undercover's last placement."""

    start_from: object
    key: str | None
    start: Team | None
    chosen_key: Key | None = None


class Record(Protocol):
    """A kind's deal and its header fields."""

    @property
    def fields_held(self) -> Mapping[str, str]:
        """Each header field it reads, and what the field holds (a msgid)."""

    def deal(self, game: Rulebook, rng: random.Random, start: Team | None, given: object) -> Dealt:
        """Deal a new game (``given``: what to deal instead of a random deal; ``start``: the
        starting team every key dealt must have, where the kind has one)."""

    def fields(self, key: str | None, start: Team | None) -> dict[str, object]:
        """The header's fields for what was dealt."""

    def read(self, field: Field) -> tuple[str | None, Team | None]:
        """Those fields read back: what was dealt as text, and the starting team."""

    def dealt(self, game: Rulebook, key: str | None, start: Team | None) -> object:
        """What the header says was dealt, checked by the game (a ValueError if it is not a deal of it)."""

    def placed_key(self, game: Rulebook, key: str | None, start: Team | None) -> Key | None:
        """A key the header dealt that the last placement brings on replay (Deep Undercover before version 3)."""


class KeyRecord:
    """The grid games: ``"key"`` and ``"start"``, both null for Deep Undercover, whose key is
    drawn when the last codename is down (a version 2 header dealt it here)."""

    fields_held: ClassVar[Mapping[str, str]] = {"key": N_("the key, or null"),
                                                "start": N_("the starting team, 'red', 'blue' or null")}

    def deal(self, game: Rulebook, rng: random.Random, start: Team | None, given: object) -> Dealt:
        grid = _grid(game)
        if given is not None and not isinstance(given, Key):
            raise TypeError(f"a {grid.name} game is dealt a Key, not a {type(given).__name__}")  # a programming error
        if grid.rules.setup == "place":  # Deep Undercover: the key comes with the last codename down
            return Dealt(None, None, None, chosen_key=given)
        key = grid.deal(rng, start) if given is None else given
        return Dealt(key, key.cells, key.start)

    def fields(self, key: str | None, start: Team | None) -> dict[str, object]:
        return {"key": key, "start": None if start is None else start.value}

    def read(self, field: Field) -> tuple[str | None, Team | None]:
        key = field("key", lambda key: None if key is None else str(key))
        return key, field("start", lambda team: None if team is None else Team.parse(team))

    def dealt(self, game: Rulebook, key: str | None, start: Team | None) -> Key | None:
        grid = _grid(game)
        if grid.rules.setup == "place":
            return None
        if key is None or start is None:
            raise InvalidKey("a {game} header holds the key and the starting team", game=grid.name)
        return grid.parse_key(key, start)

    def placed_key(self, game: Rulebook, key: str | None, start: Team | None) -> Key | None:
        grid = _grid(game)
        if grid.rules.setup != "place" or key is None:
            return None
        return grid.parse_key(key, start)


def _grid(game: Rulebook) -> Game:
    """The grid game a grid record is given (the journal and the session give each record its
    kind's games)."""
    if not isinstance(game, Game):
        raise InvalidRules("{game} is not played on the grid", game=game.name)
    return game
