"""The cards read from a phone's picture, for the spymasters' page and the staff page
(``web.reading.CardsTable``): the table's one choice of reader (``card_reader``), the words a
card may hold, and the confirmed words handed to the game on the table."""

from __future__ import annotations

import importlib
import logging
import threading
from typing import TYPE_CHECKING, Protocol

from ..engine import Words
from ..engine.phrase import Text
from ..table.loop import REFUSALS, NotAnswering
from .commands import CHANGING_GAMES

if TYPE_CHECKING:
    from ..cards.reading import CardReader, Reading
    from ..config import Config
    from ..table.loop import EventLoop

log = logging.getLogger("pi_table.daemon")
READER = "pi_table.cards.tesseract"
"""The module of the table's reader of the cards, whose ``read_cards`` is a ``cards.reading.CardReader``."""


def card_reader() -> CardReader | None:
    """The table's reader of the cards, loaded when first asked for (its OCR is heavy); None, told
    in the log, when it cannot be loaded: the pages then say reading is not available."""
    try:
        module = importlib.import_module(READER)
    except ImportError as e:
        log.warning("reading the cards is not available: %s cannot be loaded (%s)", READER, e)
        return None
    reader: CardReader = module.read_cards
    return reader


class Table(Protocol):
    """What the cards' desk takes of the running table."""

    config: Config
    loop: EventLoop


class CardsDesk:
    """The table's part in reading the cards: ``reader`` (``card_reader`` when not given: loaded
    once, at the first page that asks)."""

    def __init__(self, table: Table, reader: CardReader | None = None) -> None:
        self.table = table
        self._reader = reader
        self._asked = reader is not None
        self._loading = threading.Lock()

    def reader(self) -> CardReader | None:
        with self._loading:
            if not self._asked:
                self._reader, self._asked = card_reader(), True
            return self._reader

    def available(self) -> bool:
        return self.reader() is not None

    def read(self, picture: bytes, lang: str) -> Reading:
        from ..web.reading import UNAVAILABLE, ReadingUnavailable  # asked by the pages: the web layer is loaded by now

        reader = self.reader()
        if reader is None:
            raise ReadingUnavailable(UNAVAILABLE)
        return reader(picture, lang, self.deck(lang))

    def deck(self, lang: str) -> tuple[str, ...]:
        """The shipped list of ``lang``, then a café's own deck (a file named by ``[sim] words``)."""
        from ..ui.words import LISTS, load_words  # here: the daemon starts without it (tests/test_startup.py)

        words = dict.fromkeys(load_words(lang) if lang in LISTS else ())
        if self.table.config.values.get("sim.words") not in (*LISTS, "", "none"):
            words.update(dict.fromkeys(self.table.config.words or ()))
        return tuple(words)

    def confirm(self, words: tuple[str, ...], lang: str) -> Text | None:
        """The words confirmed from the staff page, for the game on the table now."""
        try:
            action = Words(words)
        except REFUSALS as refusal:  # a word that cannot be on a card
            return refusal.phrase
        loop = self.table.loop
        try:
            outcome = loop.call(lambda: loop.submit(action, public=False))
        except NotAnswering:  # the loop ended in between: a new game of another kind
            return CHANGING_GAMES
        return None if outcome.ok else outcome.reason
