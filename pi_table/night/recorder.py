"""The table's side of a night: each game that ends at this table is recorded into the open
night with the pair the round put at this table, once (its journal id), and the table's screen
can say who plays here next.

The daemon calls ``seen`` on every wake of its loop, in the loop's thread: cheap while the game
goes on (one look at the public view) and a no-op for a game already recorded or outside the
night. A game is the round's when it ends after the round was confirmed and its pair at this
table has not played yet; any other game at the table is free play, and not the night's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ..engine.phrase import Phrase
from .book import Book
from .games import Game, from_view

log = logging.getLogger("pi_table.night")


class Recorder:
    """Records this table's (``table``) finished games into ``book``'s open night; ``published``
    hears of each one recorded (the fleet's reporter, when the table is in a fleet)."""

    def __init__(self, book: Book, table: str, clock: Callable[[], float] = time.time) -> None:
        self.book, self.table, self.clock = book, table, clock
        self.published: Callable[[Game], None] | None = None
        self._done: str | None = None  # the last game id looked at once over

    def seen(self, game_id: str, state: Callable[[], dict]) -> Game | None:
        """The game ``game_id`` as it stands (``state``: its public view's JSON), recorded if it has just ended."""
        if game_id == self._done or self.book.night is None:
            return None
        view = state()
        if view.get("termination") is None:
            return None
        self._done = game_id
        with self.book.lock:
            night = self.book.night
            if night is None or not night.open or game_id in night.ids():
                return None
            made = night.round
            pair = None if made is None else made.pair_at(self.table)
            if made is None or pair is None or view.get("game") not in night.games or any(
                    g.round == made.number and g.table == self.table for g in night.played):
                return None
            game = from_view(game_id, self.table, pair.teams, view, made.number, self.clock())
            if game is None or not self.book.record(game):
                return None
        log.info("night %s: game %s of round %d recorded at table %s", night.name, game_id, made.number, self.table)
        if self.published is not None:
            self.published(game)
        return game

    def report(self) -> dict | None:
        """What the fleet hears of the table's night (``pi-table/<table>/night``, retained): the
        night, its teams and every game recorded at this table, whole each time, so a message
        sent again after an outage, a restart or a power cut (the book is on disk) is the same
        and the dashboard counts each game once; None before the table's first night."""
        with self.book.lock:
            night = self.book.night
            if night is None:
                return None
            return {"night": night.id, "name": night.name, "open": night.open, "teams": list(night.teams),
                    "games": [game.to_json() for game in night.played if game.table == self.table]}

    def next_up(self) -> Phrase | None:
        """What the table's screen says of the night: the pair the round puts here, if it has not played yet."""
        with self.book.lock:
            night = self.book.night
            made = None if night is None or not night.open else night.round
            pair = None if made is None else made.pair_at(self.table)
            if night is None or made is None or pair is None or any(
                    g.round == made.number and g.table == self.table for g in night.played):
                return None
        return Phrase.of("next: {red} vs {blue} at table {table}", red=pair.red, blue=pair.blue, table=self.table)
