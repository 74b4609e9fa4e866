"""A game night's words: its events as a line of the book or a host's plan holds them
(``Event``, ``STAFF_EVENTS``, ``HOSTED``), a round's results the staff enter (``RESULTS``), what
is refused (``DamagedLine``, ``EventRefused``, ``NightRefused``) and the checks each option of a
night is read through, so the night's state (``night.state``), its rooms and the book share one
list of each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias, TypedDict

from ..engine.errors import Refusal
from ..engine.phrase import Phrase
from ..errors import PiTableError
from .scoring import DOUBLE_LOSS, FORFEIT, tiebreak_order

MAX_HISTORY = 2000  # the staff's withdrawals and results in a night: far past a week of rounds
STAFF_EVENTS = ("withdraw", "reinstate", "result", "unconfirm", "rest", "unrest", "apart", "unapart", "rename")  # the night's history: each with who ("by") and when ("at")
HOSTED = ("open", "join", "approve", "remove", *STAFF_EVENTS, "proposal", "round", "close")  # the host's events a follower folds
WON, VOID, CREDIT, TABLE = "won", "void", "game", "table"  # with scoring's FORFEIT and DOUBLE_LOSS
RESULTS = (WON, FORFEIT, DOUBLE_LOSS, VOID, CREDIT, TABLE)
MAX_BYE_POINTS = 1.0
DRAW, RATINGS = "draw", "ratings"  # how round 1 orders the teams, all level: by lot, or by earlier nights' ratings
LATE_POINTS, LATE_CHOICES = 0.0, (0.0, 0.5)  # a round missed by joining late: Z (zero-point bye) or H (half-point)
# A line of the book, or a host's plan, as JSON decodes it: each field is checked as it is read
# (``Night.apply``), so its values are whatever the file or the broker held.
Event: TypeAlias = dict[str, Any]


class StaffResult(TypedDict):
    """The staff's latest result for a round's pair (``Night.results``)."""

    result: str  # one of RESULTS but TABLE
    winner: str | None  # a win's or a forfeit's
    game: str | None  # CREDIT's: the game recorded in the night credited to this pair
    at: float


class FreeGame(TypedDict):
    """This table's free-play game over (``Night.ended``): what it keeps of its view, and when."""

    view: dict[str, Any]  # FREE_VIEW's fields of its public view's JSON
    at: float


class DamagedLine(PiTableError, ValueError):
    """A line that fails its checksum or holds no event: its argument says what was expected."""


class EventRefused(PiTableError, ValueError):
    """An event, or a value in one, that does not fit the night where it comes (no such team, no
    round to undo, a bye's points out of range): from a request, the night's file or the host."""


class NightRefused(Refusal):
    """What the night cannot do now (no night open, a round of a closed night...)."""


@dataclass(frozen=True, slots=True)
class Damage:
    """A line of a night's file left out: the file, the line, and what was expected there."""

    path: str
    line: int
    why: str

    @property
    def phrase(self) -> Phrase:
        return Phrase.of("{path}: line {line} is damaged ({why}) and was left out", path=self.path, line=self.line,
                         why=self.why)


def _bye(points: object) -> float:
    """A night's points for a bye: 0 to a win's; EventRefused for anything else."""
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 <= points <= MAX_BYE_POINTS:
        raise EventRefused("a bye's points are a number from 0 to 1")
    return float(points)


def _late(points: object) -> float:
    """A night's points for a round a team missed by joining late: Z (0) or H (½); EventRefused for anything else."""
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points not in LATE_CHOICES:
        raise EventRefused("a round missed by a late team scores 0 or 0.5")
    return float(points)


def _since(rounds: object, confirmed: int) -> int:
    """A late team's rounds missed: a whole number from 1 to the rounds confirmed; EventRefused otherwise."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 0 < rounds <= confirmed:
        raise EventRefused("a late team missed some of the rounds confirmed")
    return rounds


def _seeding(name: object) -> str:
    if name not in (DRAW, RATINGS):
        raise EventRefused("round 1 is drawn or seeded by ratings")
    return str(name)


def _tiebreak(name: object) -> str:
    tiebreak_order(name if isinstance(name, str) else "")  # ValueError unless it names an order
    return str(name)

