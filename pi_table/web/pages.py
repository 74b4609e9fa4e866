"""Where a kind's model is published for the phones (``games``): the companion server, the
game's tokens, the seats' links and a simulated table's words on the cards. Apart from the
registry, so each kind's pages (``codex_pages``) name it without importing the registry that
names them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..ui.words import Cards
from .seats import SeatLinks
from .tokens import Tokens

if TYPE_CHECKING:
    from .snapshot import Snapshot


class Site(Protocol):
    """What publishing needs of the companion server (``server.Companion``), named here so that
    the pages do not import the server that imports them."""

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
