"""Rules: the options a game is played with, chosen before the key is dealt."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import InvalidRules
from .keys import CELLS, GRID

NUKE_MODES = ("basic", "mad")
SETUPS = ("key", "place")
CENTRE = (GRID * GRID) // 2


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything that changes how a game plays, apart from its key.

    - ``game``: ``codenames`` (also Nome in codice and Deep Undercover), ``codenames-coop``
      (the 2-player cooperative variant) or ``alias24``: a grid game's name, which the game
      registry (``pi_table.engine.games``) checks as it makes the game.
    - ``nuke``: Alias 24's nuke mode, ``basic`` or ``mad`` (mutually assured destruction).
    - ``clue_required``: the spymaster must enter the clue number before the first touch.
    - ``three_player``: one operative guesses for both spymasters; only the wording changes.
    - ``setup``: ``key`` (the cards are laid out, then play) or ``place`` (Deep Undercover:
      the teams take turns placing one codename each on the cell the table lights).
    - ``dark_cell``: the cell Alias 24 leaves without a card (24 aliases on 25 cells).
    """

    game: str = "codenames"
    nuke: str = "basic"
    clue_required: bool = False
    three_player: bool = False
    setup: str = "key"
    dark_cell: int = CENTRE

    def __post_init__(self) -> None:
        _one_of("nuke", self.nuke, NUKE_MODES)
        _one_of("setup", self.setup, SETUPS)
        for name in ("clue_required", "three_player"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidRules("{name} is true or false, not {value!r}", name=name, value=getattr(self, name))
        cell = self.dark_cell
        if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < CELLS:
            raise InvalidRules("dark_cell is a cell number 0 to {last}, not {cell!r}", last=CELLS - 1, cell=cell)

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidRules("unknown rule option(s) {unknown}: expected {known}", unknown=", ".join(unknown),
                               known=", ".join(sorted(known)))
        return cls(**data)


def _one_of(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidRules("{name} is one of {allowed}, not {value!r}", name=name, allowed=", ".join(allowed), value=value)
