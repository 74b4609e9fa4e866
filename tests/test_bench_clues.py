"""``pi-table bench clues``'s games and figures, played with word vectors made from the words'
letters (the shipped model's run is the benchmark's own: docs/dev/benchmarks.md)."""

from __future__ import annotations

import hashlib

import numpy as np

from pi_table.bench import clues
from pi_table.clues.gate import GATE, Figures, passes


def lettered(words, lang):
    """A unit vector per word, the same for the same word, from its letters' hash."""
    rows = [np.random.default_rng(int.from_bytes(hashlib.sha256(w.encode()).digest()[:8])).normal(size=16)
            for w in words]
    return np.array([row / np.linalg.norm(row) for row in rows], dtype=np.float32).reshape(len(words), 16)


def test_each_language_plays_its_boards_to_an_end_and_says_whether_it_passes():
    for lang in ("en", "it"):
        figures = clues.language(lang, boards=6, seed=3, giver_embed=lettered, guesser=lettered,
                                 board_time=lambda words: 0.0)
        assert 0 <= figures["assassin_rate"] <= 1 - figures["win_rate"] <= 1
        assert 0 < figures["cards_per_clue"] <= 4
        assert 0 <= figures["top1"] <= 1 and figures["gate"] in ("passed", "not passed")
        assert figures["clue_p50_ms"] <= figures["clue_p99_ms"]


def test_letters_alone_guess_the_association_set_by_chance():
    # a clue's card among ten: random vectors find it about one time in ten
    assert 0.02 < clues.top1(lettered, "en") < 0.25


def test_the_gate_holds_every_bar():
    assert passes(GATE)
    for bar, worse in (("win_rate", 0.49), ("assassin_rate", 0.11), ("cards_per_clue", 1.4), ("top1", 0.69)):
        assert not passes(Figures(**{**GATE.__dict__, bar: worse}))
