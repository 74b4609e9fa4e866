"""Write the clue words' vectors the table ships (pi_table/clues/data/vectors.LANG.npz), so a Pi
gives its first clue without embedding hundreds of words first (minutes on a Pi 4's core).

    .venv/bin/python tools/clue_vectors.py

Run it after changing a language's clue words (data/vocabulary.LANG.txt, or the deck) or the
model's version: tests/test_clues.py fails until the files match both."""

from __future__ import annotations

from pi_table.clues.e5 import E5Embedder, vectors_file, write_vectors
from pi_table.clues.vocabulary import vocabulary
from pi_table.ui.words import LISTS


def main() -> None:
    embed = E5Embedder()
    for lang in LISTS:
        words = vocabulary(lang)
        write_vectors(vectors_file(lang), words, embed.passages(list(words)), embed.model_name)
        print(f"{lang}: {len(words)} words written to {vectors_file(lang)}")


if __name__ == "__main__":
    main()
