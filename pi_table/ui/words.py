"""Words on the cards, for the simulators and the spectator page (the real table keeps its
physical cards): the lists the project ships, a café's own deck file, and each game's deal.

The shipped lists (``wordlists/en.txt``, ``wordlists/it.txt``) were written for this project:
common nouns, many with several meanings, as the games want. A deck file is UTF-8, one word a
line; blank lines and ``#`` comments are ignored.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine.errors import Refusal
from ..engine.phrase import Phrase
from ..files import NotAFile, TooBig, read_file

LISTS = ("en", "it")
WORDS_PER_GAME = 25
MAX_LETTERS = 20
MAX_DECK_BYTES = 1024 * 1024  # 50,000 words of 20 letters: more is no deck
"""Longer words do not fit a cell of the window's grid, nor a line of the terminal's list."""
KEPT_DEALS = 2
"""The game on the table and the one it replaced, which an undo can bring back."""


class WordListError(Refusal):
    """A word list that cannot deal a game; the message names the file (and line) and what was
    expected, never the line's words (the file may be one that is not for every reader)."""


def load_words(source: str) -> tuple[str, ...]:
    """The words of a shipped list (``en``, ``it``) or of a deck file at the path ``source``,
    in file order without repeats; raise ``WordListError`` when they cannot deal a game."""
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
    for number, line in enumerate(text.splitlines(), start=1):
        word = line.split("#", 1)[0].strip()
        if not word:
            continue
        if len(word.split()) != 1:
            raise WordListError("{name}: line {number}: one word a line is expected; this line has {count}", name=name,
                                number=number, count=len(word.split()))
        if len(word) > MAX_LETTERS:
            raise WordListError("{name}: line {number}: a card's word has at most {most} characters; this one has "
                                "{length}", name=name, number=number, length=len(word), most=MAX_LETTERS)
        words.setdefault(word)
    if len(words) < WORDS_PER_GAME:
        raise WordListError(Phrase.counting("count", "{name}: {count} distinct word; a game needs {needed}",
                                            "{name}: {count} distinct words; a game needs {needed}", name=name,
                                            count=len(words), needed=WORDS_PER_GAME))
    return tuple(words)


class Cards:
    """Deals each game its 25 words, one per cell in row-major order, from ``rng`` (the
    session's, so ``--seed`` reproduces them), the first time the game is shown; the same game
    keeps its words, so a new game undone shows its old words again."""

    def __init__(self, words: Sequence[str], rng: random.Random) -> None:
        self.words = tuple(words)
        self.rng = rng
        self._dealt: dict[str, tuple[str, ...]] = {}

    def deal(self, game_id: str) -> tuple[str, ...]:
        dealt = self._dealt.pop(game_id, None)
        if dealt is None:
            dealt = tuple(self.rng.sample(self.words, WORDS_PER_GAME))
        self._dealt[game_id] = dealt  # the newest last
        while len(self._dealt) > KEPT_DEALS:
            del self._dealt[next(iter(self._dealt))]
        return dealt
