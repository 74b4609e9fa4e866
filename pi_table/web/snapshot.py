"""What the companion may show, fixed by the table: one public view and one view per token.

The server looks a token up here and serves that entry and nothing else, so a page can never
carry more than the table chose to give its holder. The public entry is built from the
table view alone, like the LED frame: it cannot contain the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import SpymasterView
from .tokens import Tokens

SPYMASTER = "spymaster"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """``private`` maps a token to (role, view); ``public`` is for anyone on the network."""

    game_id: str
    public: dict
    private: dict[str, tuple[str, dict]] = field(default_factory=dict)

    def role_of(self, token: str) -> str | None:
        entry = self.private.get(token)
        return None if entry is None else entry[0]


def codenames_snapshot(game_id: str, view: SpymasterView, tokens: Tokens) -> Snapshot:
    """The grid games: the board for spectators, the key for whoever scanned the spymaster
    screen's code."""
    public = {"kind": "board", "game_id": game_id, "view": view.table.to_json()}
    spymaster = {"kind": "spymaster", "game_id": game_id, "view": view.to_json()}
    return Snapshot(game_id, public, {tokens.token(game_id, SPYMASTER): (SPYMASTER, spymaster)})
