"""Words on the cards: the lists the project ships, a café's own deck file, each simulated
game's deal, and the one rule every picture of a game follows for its words (``words_of``): those
a spymaster confirmed, the game's own (journalled), else a simulated table's deal.

The shipped lists (``wordlists/en.txt``, ``wordlists/it.txt``) were written for this project:
common nouns, many with several meanings, as the games want, and none of the games' own words
(squadra, carta, key). A deck file is UTF-8, one word a line; blank lines and ``#`` comments are
ignored. Words a clue cannot tell apart (nube and nuvola, rock and stone) are written on one line
joined by `` = ``: a grid holds at most one of them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Self

from ..engine.actions import MAX_LETTERS
from ..engine.errors import Refusal
from ..engine.phrase import Phrase
from ..engine.views import TableView
from ..files import NotAFile, TooBig, read_file

LISTS = ("en", "it")
WORDS_PER_GAME = 25
MAX_DECK_BYTES = 1024 * 1024  # 50,000 words of 20 letters: more is no deck
KEPT_DEALS = 2
"""The game on the table and the one it replaced, which an undo can bring back."""


class Deck(tuple[str, ...]):
    """A deck's words in file order, and ``alike``: the groups of them a clue cannot tell apart.
    A tuple of the words, so whatever takes a list of words takes a deck."""

    alike: tuple[frozenset[str], ...]

    def __new__(cls, words: Sequence[str], alike: Sequence[frozenset[str]] = ()) -> Self:
        deck = super().__new__(cls, words)
        deck.alike = tuple(alike)
        return deck


class WordListError(Refusal):
    """A word list that cannot deal a game; the message names the file (and line) and what was
    expected, never the line's words (the file may be one that is not for every reader)."""


def load_words(source: str) -> Deck:
    """The words of a shipped list (``en``, ``it``) or of a deck file at the path ``source``,
    in file order without repeats, with the groups a clue cannot tell apart; raise
    ``WordListError`` when they cannot deal a game (the words of a group count as one distinct
    word)."""
    if source in LISTS:
        from importlib import resources  # here: the daemon starts without it (tests/test_startup.py)

        name = f"wordlists/{source}.txt"
        text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    else:
        name = source
        try:
            text = read_file(source, MAX_DECK_BYTES).decode("utf-8")
        except NotAFile:
            raise WordListError("{source}: not a file (a folder, a device or a pipe); --words takes 'en', 'it' or a "
                                "file", source=source) from None
        except TooBig as e:
            raise WordListError("{source}: {size} bytes is too long for a deck of words (at most {most})",
                                source=source, size=e.size, most=MAX_DECK_BYTES) from None
        except UnicodeDecodeError as e:
            raise WordListError("{source}: not UTF-8 text (byte {byte}); a deck file is UTF-8, one word a line",
                                source=source, byte=e.start) from None
        except OSError as e:
            raise WordListError("{source}: cannot be read ({error}); --words takes 'en', 'it' or a file", source=source,
                                error=e.strerror) from None
    words: dict[str, None] = {}
    alike: list[frozenset[str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        said = line.split("#", 1)[0].strip()
        if not said:
            continue
        group = [word.strip() for word in said.split("=")]
        if len(group) > 1 and not all(group):
            raise WordListError("{name}: line {number}: words a clue cannot tell apart are two or more, joined by ' = '",
                                name=name, number=number)
        for word in group:
            if len(word.split()) != 1:
                raise WordListError("{name}: line {number}: one word a line is expected (or words a clue cannot tell "
                                    "apart, joined by ' = '); this line has {count}", name=name, number=number,
                                    count=len(word.split()))
            if len(word) > MAX_LETTERS:
                raise WordListError("{name}: line {number}: a card's word has at most {most} characters; this one has "
                                    "{length}", name=name, number=number, length=len(word), most=MAX_LETTERS)
            words.setdefault(word)
        if len(set(group)) > 1:  # a group sharing a word with another is one group with it
            joined = frozenset(group).union(*(other for other in alike if other & set(group)))
            alike = [other for other in alike if not other & joined] + [joined]
    told_apart = len(words) - sum(len(group) - 1 for group in alike)
    if told_apart < WORDS_PER_GAME:
        raise WordListError(Phrase.counting("count", "{name}: {count} distinct word; a game needs {needed}",
                                            "{name}: {count} distinct words; a game needs {needed}", name=name,
                                            count=told_apart, needed=WORDS_PER_GAME))
    return Deck(tuple(words), alike)


class Cards:
    """Deals each game its 25 words, one per cell in row-major order, from ``rng`` (the
    session's, so ``--seed`` reproduces them), the first time the game is shown; the same game
    keeps its words, so a new game undone shows its old words again."""

    def __init__(self, words: Sequence[str], rng: random.Random) -> None:
        self.words = tuple(words)
        self.rng = rng
        self.group = {word: group for group in (words.alike if isinstance(words, Deck) else ()) for word in group}
        self._dealt: dict[str, tuple[str, ...]] = {}

    def deal(self, game_id: str) -> tuple[str, ...]:
        dealt = self._dealt.pop(game_id, None)
        if dealt is None:
            dealt = self._told_apart(self.rng.sample(self.words, WORDS_PER_GAME))
        self._dealt[game_id] = dealt  # the newest last
        while len(self._dealt) > KEPT_DEALS:
            del self._dealt[next(iter(self._dealt))]
        return dealt

    def _told_apart(self, dealt: list[str]) -> tuple[str, ...]:
        """``dealt`` with each word alike an earlier one replaced by a word of the deck alike none
        of those before it, drawn from ``rng``: a grid never holds two words a clue cannot tell
        apart. A deal without such words is left as it was drawn."""
        for index, word in enumerate(dealt):
            before = dealt[:index]
            if self._alike(word, before):
                dealt[index] = self.rng.choice([other for other in self.words
                                                if other not in dealt and not self._alike(other, before)])
        return tuple(dealt)

    def _alike(self, word: str, others: list[str]) -> bool:
        group = self.group.get(word)
        return group is not None and any(other in group for other in others)


def words_of(view: TableView, game_id: str, cards: Cards | None) -> tuple[str, ...] | None:
    """The words the pictures of game ``game_id`` show: those a spymaster confirmed (the game's,
    in its view), else a simulated table's deal (``cards``); None for a real table's game whose
    words nobody confirmed yet (its cards are physical)."""
    if view.words is not None:
        return view.words
    return None if cards is None else cards.deal(game_id)
