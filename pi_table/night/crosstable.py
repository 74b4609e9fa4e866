"""A night's rounds team by team, as a chess cross-table and FIDE's TRF write them: each team's
round its opponent, its colour and its result's TRF-16 code, from the pairs as they count
(``Night.slots``, what the standings count), so the printed page, the TV and the TRF export never
compute a result of their own (issue 76, item 11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from .events import VOID
from .pairing import Round
from .scoring import PLAYED
from .standings import Result
from .state import Night

SCORED = {"1": 1.0, "0": 0.0, "=": 0.5, "+": 1.0, "-": 0.0, "H": 0.5, "Z": 0.0}
"""What each TRF-16 code scores (``U``, the pairing's bye, scores the night's ``bye``; blank, still played, nothing yet)."""


class CrossedRound(TypedDict):
    """A round of a cross-table's row: the opponent's row (None: no game), the points scored (None:
    still played), and whether it was a forfeit won or lost, or a double loss (never played)."""

    opponent: int | None
    scored: float | None
    forfeit: bool


class CrossedRow(TypedDict):
    team: str
    rounds: list[CrossedRound]


@dataclass(frozen=True, slots=True)
class Crossed:
    """A team's round: its ``opponent`` (None: no game), whether it was red (it played first),
    and TRF-16's ``code`` of its result: ``1`` ``0`` ``=`` (both lost) ``+`` ``-`` (a forfeit, or
    both in a double loss), blank while played; without a game ``U`` (sat out for the pairing),
    ``H`` or ``Z`` (a round missed, at the team's asking or by joining late, as the night scores
    it), ``Z`` too away (withdrawn). A pair the staff ``void``-ed is the pair with ``-`` each:
    TRF-16 has no code for a pair paired and counting nothing, and this one FIDE's TieBreakServer
    reads as the table counts it but for the cuts (issue 76, item 9); the cross-table shows no
    opponent for it."""

    opponent: str | None
    red: bool
    code: str
    void: bool = False

    def scored(self, bye: float) -> float | None:
        """The points the round scored (``bye``: a pairing's bye's), None while it is played."""
        return bye if self.code == "U" else SCORED.get(self.code)


def crossed(night: Night, slots: dict[tuple[int, str], Result], made: Round, name: str) -> Crossed:
    """Team ``name``'s round ``made``, from ``slots`` (``Night.slots``: each pair as it counts)."""
    if name in made.resting:
        return Crossed(None, False, "U")  # the pairing's bye, each time: never one the team asked for
    pair = next((pair for pair in made.pairs if name in pair.teams), None)
    if pair is None:
        half = night.asked_out(name, made.number) and night.missed_points(name, made.number) == 0.5
        return Crossed(None, False, "H" if half else "Z")
    other = pair.blue if name == pair.red else pair.red
    if night.staff_result(made.number, pair.table) == VOID:
        return Crossed(other, name == pair.red, "-", void=True)
    counted = slots.get((made.number, pair.table))
    if counted is None:
        code = " "
    elif counted.how == PLAYED:
        code = "=" if counted.winner is None else "1" if counted.winner == name else "0"
    else:
        code = "+" if counted.winner == name else "-"
    return Crossed(other, name == pair.red, code)


def cross_table(night: Night, order: Sequence[str]) -> list[CrossedRow]:
    """The cross-table of the teams in ``order`` (the standings' lines, as shown), each its row of rounds."""
    slots, row = night.slots(), {name: n for n, name in enumerate(order, start=1)}
    table: list[CrossedRow] = []
    for name in order:
        rounds = [crossed(night, slots, made, name) for made in night.rounds]
        table.append({"team": name, "rounds": [
            {"opponent": None if each.opponent is None or each.void else row[each.opponent],
             "scored": each.scored(night.bye),
             "forfeit": each.opponent is not None and not each.void and each.code in ("+", "-")} for each in rounds]})
    return table
