"""What a picture of the laid-out cards gives: each card's word in its place, or why it could not
be read. The pages (web) call a ``CardReader``; they never see how it reads. Only the words are kept:
the picture is the reader's to look at and drop, never stored, logged or sent on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..engine.errors import Refusal

GRID = 5
CARDS = GRID * GRID


@dataclass(frozen=True)
class Reading:
    """The ``CARDS`` words, row by row from the top-left card of the picture turned so the words read
    upright; ``None`` where a card's word could not be read (the spymaster types it)."""

    words: tuple[str | None, ...]


class PictureRefused(Refusal):
    """A picture the reader cannot use, with why and what to do ("the grid is cut off: step back
    until all 25 cards are in the picture"): a sentence of the catalogue, said in the page's language."""


class CardReader(Protocol):
    """Reads a picture (the bytes the phone sent) in a language of ``ui.words.LISTS``, completing
    what it reads from ``deck`` (the words a card of that language can hold)."""

    def __call__(self, picture: bytes, lang: str, deck: Sequence[str]) -> Reading: ...


class FixedWords:
    """A stand-in ``CardReader`` for the tests and the simulators: every picture reads as
    ``words`` (``None`` where a card "could not be read"), or is refused with ``refusal``, a
    sentence of the catalogue. It records the language and deck it was asked with, never the picture."""

    def __init__(self, words: Sequence[str | None], refusal: str | None = None) -> None:
        if len(words) != CARDS:
            raise ValueError(f"a reading has {CARDS} words, not {len(words)}")  # a programming error
        self.words = tuple(words)
        self.refusal = refusal
        self.asked: list[tuple[str, int]] = []  # (the language, how many words its deck held)

    def __call__(self, picture: bytes, lang: str, deck: Sequence[str]) -> Reading:
        self.asked.append((lang, len(deck)))
        if self.refusal is not None:
            raise PictureRefused(self.refusal)
        return Reading(self.words)
