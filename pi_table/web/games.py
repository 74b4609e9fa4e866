"""What the phones' pages add to each kind of game (``pi_table.engine.games``): how a model the
table's screen shows is published to the pages, which links the screen then shows as QR codes,
how many seats of their own its players have, and how an action sent from a seat's page is read.
The grid games publish the board for spectators and the key behind the spymaster's token, whose
link the spymaster screen shows; Codex publishes each seat's page (``codex_pages``), whose link the
table's screen shows until a phone has opened it. A kind of game is one line in ``KINDS``, a typed
loader function that imports its pages when a game of the kind is first shown;
tests/test_games.py checks every kind has one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any

from ..engine.contract import Move
from ..hal import GameModel
from ..ui.words import words_of
from .pages import Pages
from .snapshot import codenames_snapshot

if TYPE_CHECKING:
    from ..hal import ScreenModel


def publish_grid(model: ScreenModel, pages: Pages) -> ScreenModel:
    """The board for spectators and the key behind the spymaster's token, made again only when
    the game or its view changed; the screen shows the spymaster's link. The cards' words are
    those every picture shows (``ui.words.words_of``)."""
    words = words_of(model.view.table, model.game_id, pages.cards)
    snapshot = pages.published.made((model.game_id, model.view, words),
                                    lambda: codenames_snapshot(model.game_id, model.view, pages.tokens, words))
    pages.companion.publish(snapshot)
    (spymaster,) = snapshot.private  # the key's token, the snapshot's one private page
    return replace(model, join=pages.companion.link(spymaster))


def no_seats(model: GameModel) -> int:
    """A game whose players have no seats of their own: the grid games'."""
    return 0


@dataclass(frozen=True, slots=True)
class PagesOf:
    """A kind's pages: how its model is published, how many seats of their own its players have,
    and how an action sent from a seat's page is read (none for a kind without seats: the page
    only shows the game). Each function takes its kind's own model (hence ``Any``)."""

    publish: Callable[[Any, Pages], GameModel]
    seats: Callable[[Any], int]
    act: Callable[[int, str], Move] | None = None


@dataclass(frozen=True, slots=True)
class PagesKind:
    """A kind's ``pages``, a typed loader called when a game of the kind is first shown; and its
    ``script`` in ``static/``, which draws its pages on the phones (every companion page loads it
    after ``app.js``: ``texts.rendered_page``; none for a kind whose pages ``app.js`` draws)."""

    pages: Callable[[], PagesOf]
    script: str | None = None


def _grid() -> PagesOf:
    return PagesOf(publish_grid, no_seats)


def _codex() -> PagesOf:
    from . import codex_pages  # Codex's engine loads when Codex is shown

    return PagesOf(codex_pages.publish, codex_pages.seats, codex_pages.seat_action)


KINDS: dict[str, PagesKind] = {"grid": PagesKind(_grid), "codex": PagesKind(_codex, "codex.js")}


@cache
def pages_of(kind: str) -> PagesOf:
    """``kind``'s pages, imported the first time."""
    return KINDS[kind].pages()


def scripts() -> tuple[str, ...]:
    """Each kind's script of its own for the phones' pages, in the registry's order."""
    return tuple(kind.script for kind in KINDS.values() if kind.script is not None)


def publish(model: GameModel, pages: Pages) -> GameModel:
    """Publish ``model`` as its kind publishes it; the model the screen then shows (its links)."""
    return pages_of(model.kind).publish(model, pages)


def seats(model: GameModel) -> int:
    """How many seats the players of ``model``'s game have (0: none of their own)."""
    return pages_of(model.kind).seats(model)


def seat_action(kind: str, seat: int, text: str) -> Move | None:
    """The action sent from seat ``seat``'s page of a game of ``kind``, read as its kind reads it
    (refused if not that seat's own: ``InvalidAction``); None for a kind whose pages take none."""
    act = pages_of(kind).act
    return None if act is None else act(seat, text)
