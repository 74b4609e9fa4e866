"""What a game night holds (``NightFields``): the fields its events set, each the host's but for
a follower's own (``night.state.OWN``). The night's rooms (``night.decisions``, ``night.counts``)
read and change them; ``night.state.Night`` joins them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .events import DRAW, LATE_POINTS, Damage, Event, FreeGame, StaffResult
from .games import Game
from .names import Team
from .pairing import Round
from .scoring import BYE_POINTS, RATING


@dataclass(slots=True)
class NightFields:
    """A night's fields as its lines leave them: pure state, changed only by ``Night.apply``."""

    id: str
    name: str = ""
    games: tuple[str, ...] = ()  # the games allowed
    tables: tuple[str, ...] = ()
    opened: float = 0.0
    closed: float | None = None
    teams: dict[str, Team] = field(default_factory=dict)
    waiting: dict[str, Team] = field(default_factory=dict)  # joined from a phone, not yet approved by the staff
    played: list[Game] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)  # confirmed
    proposal: Round | None = None
    damage: list[Damage] = field(default_factory=list)
    host: str | None = None  # the table whose staff page runs the night; None: this one
    seq: int = 0  # the host's count of the night's changes: a follower keeps the newest plan
    code: str = ""  # the host's: what its staff and screen show to the staff of the tables that follow
    accepted: bool = False  # a night followed: its host accepted here (a night followed before the codes was not)
    left: bool = False  # a night followed: left by this table's staff
    bye: float = BYE_POINTS  # the points of a bye (a round sat out)
    late: float = LATE_POINTS  # the points of a round a team missed because it joined after it (Z 0, or H ½)
    draw: str = ""  # the seed of round 1's draw by lot, written when the night opened ('': a night from before it)
    seeding: str = DRAW  # round 1 by lot, or by the ratings of earlier nights (``seeds``) first
    seeds: dict[str, float] = field(default_factory=dict)  # a team's rating at the café's earlier nights, by its folded name
    since: dict[str, int] = field(default_factory=dict)  # a team that joined late: the rounds confirmed before it
    tiebreak: str = RATING  # after points: the rating, or Buchholz
    withdrawn: set[str] = field(default_factory=set)
    rests: dict[int, set[str]] = field(default_factory=dict)  # a round: the teams that asked to sit it out
    rest_points: dict[tuple[int, str], float] = field(default_factory=dict)  # what each bye asked for scores (H or Z)
    apart: set[frozenset[str]] = field(default_factory=set)  # pairs of teams the director keeps apart (friends)
    renamed: dict[str, str] = field(default_factory=dict)  # a team's mistyped name: what it is named now
    results: dict[tuple[int, str], StaffResult] = field(default_factory=dict)  # a round's table: the staff's latest result
    history: list[Event] = field(default_factory=list)  # the staff's events (STAFF_EVENTS), in order
    dealt: dict[str, int | None] = field(default_factory=dict)  # this table's games: the round each began in
    dealt_at: dict[str, float] = field(default_factory=dict)  # and when, for a game whose first move a wake saw
    dealt_known: dict[str, int] = field(default_factory=dict)  # and the history's length then (a round undone since)
    ended: dict[str, FreeGame] = field(default_factory=dict)  # this table's free-play games over: their view and end
    confirmed: list[float | None] = field(default_factory=list)  # when each round was confirmed (the host's clock)
    events: list[Event] = field(default_factory=list)  # the host's events (HOSTED) in order: what a follower folds

