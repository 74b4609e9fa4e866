"""What the phones' pages add to each kind of game (``pi_table.engine.games``): how a model the
table's screen shows is published to the pages, which links the screen then shows as QR codes,
how many seats of their own its players have, and how an action sent from a seat's page is read.
The grid games publish the board for spectators and the key behind the spymaster's token, whose
link the spymaster screen shows; Codex publishes each seat's page (``codex_pages``), whose link the
table's screen shows until a phone has opened it. A kind of game is one line in ``KINDS``, each
function named by its module here and imported when a game of the kind is first shown;
tests/test_games.py checks every kind has one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from ..ui.words import Cards
from .seats import SeatLinks
from .snapshot import codenames_snapshot
from .tokens import SPYMASTER, Tokens

if TYPE_CHECKING:
    from ..engine.contract import Move
    from ..hal import GameModel, ScreenModel
    from .snapshot import Snapshot


class Site(Protocol):
    """What publishing needs of the companion server (``server.Companion``), named here so that
    this module does not import the server that imports it."""

    def publish(self, snapshot: Snapshot) -> None: ...
    def link(self, token: str) -> str: ...
    def was_opened(self, token: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class Pages:
    """Where a model is published: the companion, its tokens, the seats' links and a simulated
    table's words on the cards."""

    companion: Site
    tokens: Tokens
    seats: SeatLinks
    cards: Cards | None = None


def publish_grid(model: ScreenModel, pages: Pages) -> ScreenModel:
    words = None if pages.cards is None else pages.cards.deal(model.game_id)
    pages.companion.publish(codenames_snapshot(model.game_id, model.view, pages.tokens, words))
    return replace(model, join=pages.companion.link(pages.tokens.token(model.game_id, SPYMASTER)))


def no_seats(model: GameModel) -> int:
    """A game whose players have no seats of their own: the grid games'."""
    return 0


@dataclass(frozen=True, slots=True)
class PagesOf:
    """A kind's pages, each a ``module:name`` in this package: how its model is published, how
    many seats of their own its players have, and how an action sent from a seat's page is read
    (none for a kind without seats: the page only shows the game); and its ``script`` in
    ``static/``, which draws its pages on the phones (the companion's page loads it after
    ``app.js``: ``texts.rendered_page``; none for a kind whose pages ``app.js`` draws)."""

    publish: str
    seats: str
    act: str | None = None
    script: str | None = None


KINDS: dict[str, PagesOf] = {
    "grid": PagesOf("games:publish_grid", "games:no_seats"),
    "codex": PagesOf("codex_pages:publish", "codex_pages:seats", "codex_pages:seat_action", "codex.js"),
}


def scripts() -> tuple[str, ...]:
    """Each kind's script of its own for the phones' pages, in the registry's order."""
    return tuple(pages.script for pages in KINDS.values() if pages.script is not None)


def _named(where: str) -> Any:
    module, name = where.split(":")
    return getattr(importlib.import_module(f".{module}", __package__), name)


def publish(model: GameModel, pages: Pages) -> GameModel:
    """Publish ``model`` as its kind publishes it; the model the screen then shows (its links)."""
    shown: GameModel = _named(KINDS[model.kind].publish)(model, pages)
    return shown


def seats(model: GameModel) -> int:
    """How many seats the players of ``model``'s game have (0: none of their own)."""
    count: int = _named(KINDS[model.kind].seats)(model)
    return count


def seat_action(kind: str, seat: int, text: str) -> Move | None:
    """The action sent from seat ``seat``'s page of a game of ``kind``, read as its kind reads it
    (refused if not that seat's own: ``InvalidAction``); None for a kind whose pages take none."""
    act = KINDS[kind].act
    if act is None:
        return None
    action: Move = _named(act)(seat, text)
    return action
