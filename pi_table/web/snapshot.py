"""What the companion may show, fixed by the table: one public view and one view per token.

The server looks a token up here and serves that entry and nothing else, so a page can never
carry more than the table chose to give its holder. The public entry is built from the
table view alone, like the LED frame: it cannot contain the key. A kind whose players have
seats builds each seat's entry from its engine's observer for that player alone, in its own
room (``web.games`` names it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine import SpymasterView
from ..engine.phrase import Phrase
from ..ui.orientation import page_layout
from .tokens import SPYMASTER, Tokens


@dataclass(frozen=True, slots=True)
class Snapshot:
    """``private`` maps a token to (role, view); ``public`` is for anyone on the network;
    ``replaced`` holds this game's tokens whose page the table gave a new link (a page opened
    by the wrong phone), so their holders can be told so rather than shown nothing."""

    game_id: str
    public: dict[str, Any]
    private: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict[str, Any])
    replaced: frozenset[str] = frozenset()
    sentences: dict[str, Phrase] = field(default_factory=dict)  # the views' English sentence -> its meaning


def sentences(reason: Phrase | None) -> dict[str, Phrase]:
    """The game's end as the views' JSON says it (English) and as a page says it in its language."""
    return {} if reason is None else {str(reason): reason}


def codenames_snapshot(
    game_id: str, view: SpymasterView, tokens: Tokens, words: tuple[str, ...] | None = None
) -> Snapshot:
    """The grid games: the board for spectators, the key for whoever scanned the spymaster
    screen's code, each with the grid's layout (``page_layout``: which way up, as every picture
    of the grid). A simulated table's cards carry ``words`` (one per cell), which both pages
    show; they say nothing of the key."""
    public = {"kind": "board", "game_id": game_id, "view": view.table.to_json(), "grid": page_layout()}
    spymaster = {"kind": "spymaster", "game_id": game_id, "view": view.to_json(), "grid": page_layout()}
    if words is not None:
        public["words"] = spymaster["words"] = list(words)
    return Snapshot(game_id, public, {tokens.token(game_id, SPYMASTER): (SPYMASTER, spymaster)},
                    sentences=sentences(view.table.reason))
