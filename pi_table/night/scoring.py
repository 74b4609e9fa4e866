"""The night's scoring words, shared by the book (what a night is opened with, what the staff
enter) and the standings (what each counts for): what a bye scores unless the night says
otherwise, the tie-breaks a night may use, and how a round's result was decided.

A night's ``tiebreak`` is the tie-breaks after points, in the order the director chose, their
names joined by commas (``"buchholz-cut1,buchholz,direct-encounter"``): so the book's line, the
host's plan and the fleet's schema carry it as the one name they always did. ``rating`` is the
openskill rating, then the margin; a lone ``buchholz``, as nights opened before the choice of an
order wrote it, is Buchholz then the rating. Teams still level after the last share a place."""

from __future__ import annotations

from ..errors import PiTableError

BYE_POINTS = 1.0  # FIDE C.04: a pairing-allocated bye scores a win's points
RATING, BUCHHOLZ = "rating", "buchholz"  # the tie-breaks after points
CUT1, MEDIAN, SONNEBORN_BERGER = "buchholz-cut1", "median-buchholz", "sonneborn-berger"  # FIDE C.07's BH-C1, BH-M1, SB
DIRECT, WINS = "direct-encounter", "wins"  # FIDE C.07's DE and WIN
TIEBREAKS = (RATING, BUCHHOLZ, CUT1, MEDIAN, SONNEBORN_BERGER, DIRECT, WINS)  # what a director orders
PLAYED, FORFEIT, DOUBLE_LOSS = "played", "forfeit", "double-loss"  # how a round's result was decided


class UnknownTiebreak(PiTableError, ValueError):
    """A tie-break order (from the staff page, a night's file or the host) that names other than
    ``TIEBREAKS``, or one twice."""


def tiebreak_order(tiebreak: str) -> tuple[str, ...]:
    """The tie-breaks a night's ``tiebreak`` names, in order; UnknownTiebreak (a ValueError)
    unless each is one of ``TIEBREAKS``, once."""
    if tiebreak == BUCHHOLZ:
        return (BUCHHOLZ, RATING)  # the night's Buchholz before a director ordered them
    names = tuple(tiebreak.split(","))
    if not all(name in TIEBREAKS for name in names) or len(set(names)) != len(names):
        raise UnknownTiebreak("a tie-break order names some of " + ", ".join(TIEBREAKS) + ", each once")
    return names
