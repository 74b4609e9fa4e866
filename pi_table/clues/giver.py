"""The seam a clue is asked through (``ClueGiver``), and the clue-giver that weighs word vectors.

A clue-giver sees what a spymaster sees: the 25 words, the key and what is revealed. The one here
scores each word of its vocabulary against the unrevealed cards through an ``Embedder`` (any model
that turns words into unit vectors: ``e5.E5Embedder`` on the table), and gives the word that points
to the most of its own agents with a clear lead over every other card, the assassin's lead kept
wider. A better model replaces the embedder; a better method, the whole giver."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ..engine.errors import Refusal
from ..engine.keys import ASSASSIN, CELLS
from .forms import one_word

Vectors = npt.NDArray[np.float32]

MOST = 4
"""The most cards one clue points to: past four, word vectors point by chance."""
LEAD = 0.01
"""How much closer to the clue than any other unrevealed card each card a clue points to must be
(cosine similarity; set from the benchmark: ``pi-table bench clues``)."""
ASSASSIN_LEAD = 0.03
"""The lead kept over the assassin, wider: touching it loses the game."""


class NoClue(Refusal):
    """What a clue cannot be given for: a board that is not one, a team with no agent left, a
    language or a model the giver does not have."""


@dataclass(frozen=True)
class Board:
    """What the spymaster sees: the ``CELLS`` words row by row, the key (``engine.keys``' letters),
    the cells revealed, the letter of the team the clue is for and the language of the words."""

    words: tuple[str, ...]
    key: str
    revealed: frozenset[int]
    team: str
    lang: str

    def __post_init__(self) -> None:
        if len(self.words) != CELLS or len(self.key) != CELLS:
            raise NoClue("a board has {cells} words and a key of {cells} letters, not {words} and {letters}",
                         cells=CELLS, words=len(self.words), letters=len(self.key))

    def hidden(self, letter: str | None = None) -> list[int]:
        """The unrevealed cells (of ``letter`` only, when given)."""
        return [cell for cell in range(CELLS)
                if cell not in self.revealed and (letter is None or self.key[cell] == letter)]


@dataclass(frozen=True)
class Clue:
    """A clue word and its number; ``meant``, the cells the giver had in mind (for the benchmark
    and a game's record, never shown while the game is on)."""

    word: str
    number: int
    meant: tuple[int, ...]


class ClueGiver(Protocol):
    """Gives the clue for ``board``'s team: a word that is no board word, part of one or one of its
    forms (``forms.one_word``), and how many cards it points to (at least 1)."""

    def __call__(self, board: Board) -> Clue: ...


class Embedder(Protocol):
    """Turns words of a language into unit vectors, one row a word, the same word the same row."""

    def __call__(self, words: Sequence[str], lang: str) -> Vectors: ...


class VectorGiver:
    """The clue-giver over word vectors: for each allowed word of ``vocabulary[lang]``, its own
    agents ranked by closeness; it may point to the first ``n`` when each is ahead of every other
    unrevealed card by ``LEAD`` (of the assassin by ``ASSASSIN_LEAD``). Of those it gives the most
    cards, then the widest lead; with none, the single agent with the widest lead."""

    def __init__(self, embed: Embedder, vocabulary: dict[str, tuple[str, ...]]) -> None:
        self.embed = embed
        self.vocabulary = vocabulary
        self._vectors: dict[str, Vectors] = {}

    def _clue_vectors(self, lang: str) -> Vectors:
        if lang not in self._vectors:
            self._vectors[lang] = self.embed(self.vocabulary[lang], lang)
        return self._vectors[lang]

    def __call__(self, board: Board) -> Clue:
        vocabulary = self.vocabulary[board.lang]
        hidden = board.hidden()
        own = board.hidden(board.team)
        if not own:
            raise NoClue("team {team} has no agent left to give a clue for", team=board.team)
        allowed = [index for index, word in enumerate(vocabulary)
                   if not any(one_word(word, card, board.lang) for card in board.words)]
        if not allowed:
            raise NoClue("every clue word of {lang} is a board word or one of its forms", lang=board.lang)
        similar = self._clue_vectors(board.lang)[allowed] @ self.embed([board.words[c] for c in hidden], board.lang).T
        mine = np.array([board.key[c] == board.team for c in hidden])
        assassin = np.array([board.key[c] == ASSASSIN for c in hidden])
        threat = np.where(assassin, ASSASSIN_LEAD, LEAD)[None, :] + similar
        worst = np.where(mine[None, :], -np.inf, threat).max(axis=1)  # the most dangerous other card
        own_sim = similar[:, mine]
        order = np.argsort(-own_sim, axis=1)[:, :MOST]
        ranked = np.take_along_axis(own_sim, order, axis=1)
        leads = ranked - worst[:, None]
        counts = (np.cumprod(leads > 0, axis=1)).sum(axis=1)
        if counts.max() == 0:
            best = int(np.argmax(leads[:, 0]))
            number = 1
        else:
            top = counts == counts.max()
            lead_at = leads[np.arange(len(allowed)), np.maximum(counts - 1, 0)]
            best = int(np.argmax(np.where(top, lead_at, -np.inf)))
            number = int(counts[best])
        own_cells = [c for c, is_mine in zip(hidden, mine, strict=True) if is_mine]
        meant = tuple(own_cells[int(i)] for i in order[best, :number])
        return Clue(vocabulary[allowed[best]], number, meant)
