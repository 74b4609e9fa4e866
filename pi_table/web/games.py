"""What the phones' pages add to each kind of game (``pi_table.engine.games``): how a model the
table's screen shows is published to the pages, and which links the screen then shows as QR
codes. The grid games publish the board for spectators and the key behind the spymaster's token,
whose link the spymaster screen shows; Codex publishes each seat's page, whose link the table's
screen shows until a phone has opened it. A kind of game is one line in ``KINDS`` (its model
found by ``ui.games.SHOWN``); tests/test_games.py checks every kind has one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from ..ui.words import Cards
from .seats import SeatLinks
from .snapshot import codenames_snapshot, codex_snapshot
from .tokens import SPYMASTER, Tokens, seat_role

if TYPE_CHECKING:
    from ..hal import CodexModel, ScreenModel
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


def publish_codex(model: CodexModel, pages: Pages) -> CodexModel:
    agents = len(model.state.setup.agents)
    snapshot = codex_snapshot(model.game_id, model.game, model.state, pages.tokens, model.cues.timer,
                              pages.seats.generations(model.game_id, agents))
    pages.companion.publish(snapshot)
    token_of = {role: token for token, (role, _) in snapshot.private.items()}
    seats = (token_of[seat_role(seat)] for seat in range(agents))
    return replace(model, joins=tuple(
        None if pages.companion.was_opened(token) else pages.companion.link(token) for token in seats))


@dataclass(frozen=True, slots=True)
class PagesOf:
    """A kind's pages: how its model is published, and how many seats of their own it has."""

    publish: Callable[[Any, Pages], Any]
    seats: Callable[[Any], int]


KINDS: dict[str, PagesOf] = {
    "grid": PagesOf(publish_grid, lambda model: 0),
    "codex": PagesOf(publish_codex, lambda model: len(model.state.setup.agents)),
}
