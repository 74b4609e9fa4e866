"""Rules: the options a game is played with, chosen before the key is dealt."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .described import Choice
from .errors import InvalidRules
from .keys import CELLS, GRID
from .phrase import N_

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


NUKE = Choice("nuke", "str", "basic", N_("Alias 24: nuke mode"), N_("Alias 24's nuke mode: basic, mad"), NUKE_MODES,
               {"basic": N_("basic"), "mad": N_("mad")})
CLUE_REQUIRED = Choice("clue_required", "bool", False, N_("Clue number before the first touch"),
                       N_("the clue number must be entered before the first touch"))
THREE_PLAYER = Choice("three_player", "bool", False, N_("Three players"), N_("one operative guesses for both spymasters"))
SETUP = Choice("setup", "str", "key", N_("Card layout"), N_("key, place: 'place' is Deep Undercover's deal-and-place"),
               SETUPS, {"key": N_("a key card"), "place": N_("placed (Deep Undercover)")})
DARK_CELL = Choice("dark_cell", "int", CENTRE, N_("Alias 24: cell without a card"),
                   N_("Alias 24's cell without a card, 0 to 24"), span=(0, CELLS - 1))
"""The grid games' options as a game's description offers them (``described.Choice``): each game
offers those that change it (Alias 24 its nuke and dark cell, Codenames its three players and
Deep Undercover's setup, every grid game the clue number first)."""


def _one_of(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidRules("{name} is one of {allowed}, not {value!r}", name=name, allowed=", ".join(allowed), value=value)
