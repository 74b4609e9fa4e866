"""Codex's deal and its journal's header: the six identikits (its setup), as ``records`` has
the grid games' key; ``table.games`` names it."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from ..engine import Key, Team
from ..engine.phrase import N_
from .records import Dealt, Field


class SetupRecord:
    """Codex: ``"setup"``, the six identikits as text, in place of the key and the start."""

    fields_held: ClassVar[Mapping[str, str]] = {"setup": N_("Codex's setup")}

    def deal(self, game: Any, rng: random.Random, start: Team | None, given: Any) -> Dealt:
        setup = game.deal(rng) if given is None else given
        return Dealt(setup, str(setup), None)

    def fields(self, key: str | None, start: Team | None) -> dict[str, object]:
        return {"setup": key}

    def read(self, field: Field) -> tuple[str | None, Team | None]:
        return field("setup", str), None

    def dealt(self, game: Any, key: str | None, start: Team | None) -> Any:
        return game.parse_setup(key)

    def placed_key(self, game: Any, key: str | None, start: Team | None) -> Key | None:
        return None
