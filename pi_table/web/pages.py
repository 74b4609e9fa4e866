"""Where a kind's model is published for the phones (``games``): the companion server, the
game's tokens, the seats' links and a simulated table's words on the cards. Apart from the
registry, so each kind's pages (``codex_pages``) name it without importing the registry that
names them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..ui.words import Cards
from .seats import SeatLinks
from .snapshot import Snapshot
from .tokens import Tokens


class Site(Protocol):
    """What publishing needs of the companion server (``server.Companion``), named here so that
    the pages do not import the server that imports them."""

    def publish(self, snapshot: Snapshot) -> None: ...
    def link(self, token: str) -> str: ...
    def was_opened(self, token: str) -> bool: ...


@dataclass(slots=True)
class Published:
    """The snapshot last published and what it was made from, so that a show that changes nothing
    a page shows (a touch, a release: two shows in three) makes none again in the table's thread,
    whose time a touch waits for (issue 61)."""

    made_from: object = None
    snapshot: Snapshot | None = None

    def made(self, made_from: object, make: Callable[[], Snapshot]) -> Snapshot:
        """The snapshot of ``made_from``: the last one when it was made from the same, else ``make()``."""
        if self.snapshot is None or made_from != self.made_from:
            self.made_from, self.snapshot = made_from, make()
        return self.snapshot


@dataclass(frozen=True, slots=True)
class Pages:
    """Where a model is published: the companion, its tokens, the seats' links, a simulated
    table's words on the cards, and what was ``published`` last."""

    companion: Site
    tokens: Tokens
    seats: SeatLinks
    cards: Cards | None = None
    published: Published = field(default_factory=Published)
