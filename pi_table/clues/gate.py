"""When the table may be the spymaster in a language: the figures of ``pi-table bench clues`` its
clue-giver must reach against an independent guesser, set from what players accept of a human
spymaster (docs/dev/clues.md). A language whose figures fall short is not offered."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figures:
    """What the benchmark measures of a language: the games won, lost on the assassin, the agents
    found per clue, and the association set's top-1 (the clue-giver's model)."""

    win_rate: float
    assassin_rate: float
    cards_per_clue: float
    top1: float


GATE = Figures(win_rate=0.5, assassin_rate=0.1, cards_per_clue=1.5, top1=0.7)
"""A group playing with a beginner human spymaster wins the cooperative game about half the time,
finds one or two agents a clue, and loses on the assassin in about one game in ten; and a player
gets a simple association (honey, bee) nearly always."""


def passes(figures: Figures, gate: Figures = GATE) -> bool:
    """Whether ``figures`` reach every bar of ``gate``."""
    return (figures.win_rate >= gate.win_rate and figures.assassin_rate <= gate.assassin_rate
            and figures.cards_per_clue >= gate.cards_per_clue and figures.top1 >= gate.top1)
