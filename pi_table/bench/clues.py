"""``pi-table bench clues``: the table as spymaster against an independent guesser.

Each language plays ``boards`` games of the cooperative variant's rules through the engine
(``CodenamesCoop``: the players are the starting team; after each of their turns one of the
simulated opponent's agents is covered, so eight turns at most; the assassin loses), with the
deck's words dealt as the simulators deal them. The clue-giver (``clues.giver.VectorGiver`` over
multilingual-e5-small) gives each clue; the guesser, another model (``enpt``: a fine-tune of the
same small model kept to English and Portuguese tokens, whose scores the giver never sees), touches
the hidden cards closest to the clue word, as many as the number, and stops at the first wrong one.
The association sets (``clues/data/associations.LANG.txt``) give each model's top-1: the clue's
card among nine others of the deck. The time a clue takes is the giver's (its clue words' vectors
kept, as the table keeps them), and ``board_ms`` embedding a board's 25 words, which a table does
once a game."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext

import numpy as np

from ..clues.e5 import E5Embedder
from ..clues.gate import Figures, passes
from ..clues.giver import Board, ClueGiver, Embedder, VectorGiver
from ..clues.vocabulary import vocabulary, written
from ..engine import COVER, GUESS, Clue, CodenamesCoop, Cover, EndTurn, Guess, State, Termination
from ..ui.words import LISTS, Cards, load_words
from . import percentiles
from .held import held

DISTRACTORS = 9
TIMED_BOARDS = 10
"""Boards whose 25 words are embedded afresh and timed (the model is the same each time)."""


def guessed(embed: Embedder, words: Sequence[str], hidden: Sequence[int], clue: str, lang: str) -> list[int]:
    """The hidden cells in the order the guesser would touch them for ``clue``: closest first."""
    vectors = embed([clue, *(words[cell] for cell in hidden)], lang)
    closeness = vectors[1:] @ vectors[0]
    return [hidden[int(i)] for i in np.argsort(-closeness, kind="stable")]


def play(giver: ClueGiver, guesser: Embedder, words: Sequence[str], state: State, lang: str,
         timed: list[float]) -> tuple[State, int]:
    """One game to its end; the final state and the clues given (each clue's time added to ``timed``)."""
    game = CodenamesCoop()
    players = state.key.start
    clues = 0
    while not state.is_over:
        if state.phase == COVER:  # the simulated opponent's agent, as its spymaster covers it
            state = game.apply(state, Cover(next(cell for cell in range(len(words)) if state.marks[cell] is None
                                                 and state.key[cell] == players.other.letter)))
            continue
        revealed = frozenset(cell for cell, mark in enumerate(state.marks) if mark is not None)
        started = time.perf_counter()
        clue = giver(Board(tuple(words), str(state.key), revealed, players.letter, lang))
        timed.append(time.perf_counter() - started)
        clues += 1
        state = game.apply(state, Clue(clue.number))
        hidden = [cell for cell in range(len(words)) if cell not in revealed]
        for cell in guessed(guesser, words, hidden, clue.word, lang)[:clue.number]:
            state = game.apply(state, Guess(cell))
            if state.phase != GUESS or state.is_over:
                break
        else:
            state = game.apply(state, EndTurn())
    return state, clues


def top1(embed: Embedder, lang: str, seed: int = 1) -> float:
    """The share of the association set's clues whose card is the closest of ten to the clue."""
    said = written(f"associations.{lang}.txt")
    pairs = list(zip(said[::2], said[1::2], strict=True))
    deck = load_words(lang)
    alike = {word: group for group in deck.alike for word in group}
    rng = random.Random(seed)
    right = 0
    for clue, card in pairs:
        others = rng.sample([w for w in deck if w != clue and w not in alike.get(card, {card})], DISTRACTORS)
        right += guessed(embed, [card, *others], range(DISTRACTORS + 1), clue, lang)[0] == 0
    return right / len(pairs)


def language(lang: str, boards: int, seed: int, giver_embed: Embedder, guesser: Embedder,
             board_time: Callable[[Sequence[str]], float]) -> dict[str, object]:
    """One language's figures and whether they pass the gate."""
    giver = VectorGiver(giver_embed, {lang: vocabulary(lang)})
    rng = random.Random(seed)
    cards = Cards(load_words(lang), rng)
    won = assassin = found = clues = 0
    timed: list[float] = []
    fresh: list[float] = []
    game = CodenamesCoop()
    for number in range(boards):
        words = cards.deal(str(number))
        if number < TIMED_BOARDS:
            fresh.append(board_time(words))
        state, given = play(giver, guesser, words, game.start(game.deal(rng)), lang, timed)
        players = state.key.start
        won += state.winner == players
        assassin += state.termination == Termination.ASSASSIN
        found += sum(1 for cell, mark in enumerate(state.marks) if mark is not None and state.key[cell] == players.letter)
        clues += given
    figures = Figures(win_rate=won / boards, assassin_rate=assassin / boards, cards_per_clue=found / clues,
                      top1=top1(giver_embed, lang))
    clue_ms = percentiles(timed)
    return {"win_rate": round(figures.win_rate, 3), "assassin_rate": round(figures.assassin_rate, 3),
            "cards_per_clue": round(figures.cards_per_clue, 2), "top1": round(figures.top1, 3),
            "guesser_top1": round(top1(guesser, lang), 3),
            "clue_p50_ms": clue_ms["p50_ms"], "clue_p99_ms": clue_ms["p99_ms"],
            "board_ms": round(1000 * max(fresh, default=0.0), 1), "gate": "passed" if passes(figures) else "not passed"}


def run(boards: int = 200, seed: int = 1, langs: Sequence[str] = LISTS, cpu: float | None = None
        ) -> dict[str, dict[str, object]]:
    """Each language's figures; with ``cpu``, the whole run held to that percentage of one core."""
    giver_embed, guesser = E5Embedder("original"), E5Embedder("enpt")

    def board_time(words: Sequence[str]) -> float:
        started = time.perf_counter()
        giver_embed.passages(list(words))
        return time.perf_counter() - started

    with held(cpu) if cpu is not None else nullcontext():
        return {lang: language(lang, boards, seed, giver_embed, guesser, board_time) for lang in langs}
