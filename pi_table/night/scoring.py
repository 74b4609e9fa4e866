"""The night's scoring words, shared by the book (what a night is opened with, what the staff
enter) and the standings (what each counts for): what a bye scores unless the night says
otherwise, the tie-breaks a night may use, and how a round's result was decided.

A night's ``tiebreak`` is the tie-breaks after points, in the order the director chose, their
names joined by commas (``"buchholz-cut1,buchholz,direct-encounter"``): so the book's line, the
host's plan and the fleet's schema carry it as the one name they always did. ``rating`` is the
openskill rating, then the margin; a lone ``buchholz``, as nights opened before the choice of an
order wrote it, is Buchholz then the rating. Teams still level after the last share a place.

``TIEBREAKS`` is the one list of them: the standings compare by it, the exports, the printed page
and the pages (served it as JSON by the staff page and the spectators' page) show it, and a test
fails on a second list of its names kept by hand (issue 77, item 2)."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.phrase import N_
from ..errors import PiTableError

BYE_POINTS = 1.0  # FIDE C.04: a pairing-allocated bye scores a win's points
RATING, BUCHHOLZ = "rating", "buchholz"  # the tie-breaks after points
CUT1, MEDIAN, SONNEBORN_BERGER = "buchholz-cut1", "median-buchholz", "sonneborn-berger"  # FIDE C.07's BH-C1, BH-M1, SB
DIRECT, WINS = "direct-encounter", "wins"  # FIDE C.07's DE and WIN


@dataclass(frozen=True, slots=True)
class Tiebreak:
    """A tie-break a director may order: its ``words``; the ``Standing`` fields it compares, the
    greater first (none: the direct encounter, which compares the games between the teams level);
    the ``columns`` it adds to the standings, each its heading's words and the field shown (a
    ``Standing.to_json`` key)."""

    words: str
    compares: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]


TIEBREAKS: dict[str, Tiebreak] = {  # what a director orders, in the order the staff page offers them
    RATING: Tiebreak(N_("rating, then margin"), ("ordinal", "margin"), ((N_("rating"), "rating"), (N_("margin"), "margin"))),
    BUCHHOLZ: Tiebreak(N_("Buchholz"), ("buchholz",), ((N_("Buchholz"), "buchholz"),)),
    CUT1: Tiebreak(N_("Buchholz Cut-1"), ("buchholz_cut1",), ((N_("Buchholz Cut-1"), "buchholz_cut1"),)),
    MEDIAN: Tiebreak(N_("Median Buchholz"), ("median_buchholz",), ((N_("Median Buchholz"), "median_buchholz"),)),
    SONNEBORN_BERGER: Tiebreak(N_("Sonneborn-Berger"), ("sonneborn_berger",), ((N_("Sonneborn-Berger"), "sonneborn_berger"),)),
    DIRECT: Tiebreak(N_("direct encounter"), (), ()),
    WINS: Tiebreak(N_("wins"), ("wins",), ((N_("wins"), "wins"),)),
}
OLD_BUCHHOLZ = N_("Buchholz (the points of the teams met), then rating")  # the words of a night's lone "buchholz"
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


def tiebreak_said(tiebreak: str) -> tuple[str, ...]:
    """A night's tie-breaks in words (untranslated), in its order: each page says them joined by commas."""
    return (OLD_BUCHHOLZ,) if tiebreak == BUCHHOLZ else tuple(TIEBREAKS[name].words for name in tiebreak_order(tiebreak))


def columns_of(tiebreak: str, shown: tuple[str, ...] = ()) -> dict[str, str]:
    """The columns a night's tie-breaks add to its standings beyond the fields ``shown`` always,
    in its order, each with the words that head it (untranslated)."""
    return {field: words for name in tiebreak_order(tiebreak) for words, field in TIEBREAKS[name].columns
            if field not in shown}


def tiebreak_texts() -> tuple[str, ...]:
    """Every word the tie-breaks put on a page: the pages' catalogues carry them."""
    return tuple(dict.fromkeys((OLD_BUCHHOLZ, *(words for tiebreak in TIEBREAKS.values()
                                                for words in (tiebreak.words, *(heading for heading, _ in tiebreak.columns))))))
