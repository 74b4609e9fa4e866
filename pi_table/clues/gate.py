"""When the table may be the spymaster in a language: the figures of ``pi-table bench clues`` its
clue-giver must reach against an independent guesser, set from what players accept of a human
spymaster (docs/dev/clues.md). A language whose figures fall short is not offered: the last
figures measured are kept with the package (``data/figures.json``), so what a table offers
follows what was measured, not a switch."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

from ..engine.phrase import N_, Phrase
from ..files import read_json


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


FIGURES = Path(__file__).parent / "data" / "figures.json"
"""The last figures ``pi-table bench clues`` measured, by language (``languages``), as
docs/dev/benchmarks.md gives them: written again from the benchmark's ``--json`` when it is run again."""


@cache
def _kept(path: Path) -> dict[str, dict[str, float]]:
    """The figures kept in ``path``, by language: read once, as the package's file does not change
    while the table runs (the loop asks at each step of a game whose clues the table gives)."""
    languages: dict[str, dict[str, float]] = read_json(path.read_text(encoding="utf-8"))["languages"]
    return languages


def measured(lang: str) -> Figures | None:
    """``lang``'s last measured figures (``FIGURES``), None for a language never measured."""
    kept = _kept(FIGURES).get(lang)
    if kept is None:
        return None
    return Figures(**{field.name: float(kept[field.name]) for field in fields(Figures)})


def offered(lang: str) -> bool:
    """Whether the table gives clues in ``lang``: its last measured figures pass the gate."""
    figures = measured(lang)
    return figures is not None and passes(figures)


NOT_OFFERED = N_("{game} is not yet offered in this language: the table's clues do not yet pass their gate")
"""Why a game whose clues the table gives is not started in a language."""


def refusal(title: str, lang: str) -> Phrase | None:
    """Why the game titled ``title`` (one whose clues the table gives) is not offered in ``lang``;
    None where it is."""
    return None if offered(lang) else Phrase.of(NOT_OFFERED, game=Phrase(title))
