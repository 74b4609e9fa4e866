"""Swiss-style pairings for the night's next round: teams with similar records meet, no pair
meets twice while that can be helped, one pair per table.

With more teams than seats, those who have played least play first (and, among them, the
higher in the standings); the others sit the round out. The players are then paired by the
matching that repeats the fewest earlier pairs and, among those, keeps the teams' points
closest (the sum of the squared differences): an exact search over the round's players, which
are two per table (``MAX_TABLES`` bounds it to a fraction of a second on a Pi).

The host may swap two teams by hand (``swap``), a sitting-out team with a playing one too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from ..engine.errors import Refusal

MAX_TABLES = 8  # 16 players a round: the exact search stays under a second


class PairingRefused(Refusal):
    """A round that cannot be made as asked (too few teams, a swap of a team not in the round)."""


@dataclass(frozen=True, slots=True)
class Pair:
    """Two teams at a table, the first red."""

    table: str
    red: str
    blue: str

    @property
    def teams(self) -> tuple[str, str]:
        return (self.red, self.blue)

    def to_json(self) -> dict[str, str]:
        return {"table": self.table, "red": self.red, "blue": self.blue}


@dataclass(frozen=True, slots=True)
class Round:
    """A round's pairs, by table, and the teams that sit it out."""

    number: int
    pairs: tuple[Pair, ...]
    resting: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"number": self.number, "pairs": [pair.to_json() for pair in self.pairs], "resting": list(self.resting)}

    @classmethod
    def from_json(cls, data: dict) -> Round:
        pairs = tuple(Pair(str(p["table"]), str(p["red"]), str(p["blue"])) for p in data["pairs"])
        return cls(int(data["number"]), pairs, tuple(str(name) for name in data.get("resting", ())))

    @property
    def names(self) -> set[str]:
        """Every team the round names: at a table or sitting out."""
        return {name for pair in self.pairs for name in pair.teams} | set(self.resting)

    def pair_at(self, table: str) -> Pair | None:
        return next((pair for pair in self.pairs if pair.table == table), None)


def key(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def met(pairs: Iterable[tuple[str, str]]) -> Counter[frozenset[str]]:
    """How many times each pair of teams has met."""
    return Counter(key(a, b) for a, b in pairs)


def propose(number: int, ranked: Sequence[str], points: dict[str, float], played: dict[str, int],
            before: Counter[frozenset[str]], tables: Sequence[str]) -> Round:
    """Round ``number``: ``ranked`` the teams in the standings' order, ``points`` and ``played``
    their records, ``before`` the pairs that have met."""
    if len(tables) > MAX_TABLES:
        raise PairingRefused("a night has at most {most} tables", most=MAX_TABLES)
    seats = min(len(tables), len(ranked) // 2) * 2
    if seats == 0:
        raise PairingRefused("a round needs two teams and a table")
    order = {name: place for place, name in enumerate(ranked)}
    players = sorted(ranked, key=lambda name: (played.get(name, 0), order[name]))[:seats]
    players.sort(key=order.__getitem__)
    matched = best_matching(tuple(players), {n: points.get(n, 0.0) for n in players}, before)
    pairs = tuple(Pair(table, a, b) for table, (a, b) in zip(tables, matched, strict=False))
    resting = tuple(name for name in ranked if name not in players)
    return Round(number, pairs, resting)


def best_matching(players: tuple[str, ...], points: dict[str, float],
                  before: Counter[frozenset[str]]) -> list[tuple[str, str]]:
    """The pairing of ``players`` (an even number, in the standings' order) with the fewest repeats,
    then the closest points, then the earliest partners in the order: the top pair first."""

    def cost(a: str, b: str) -> tuple[int, float]:
        return before[key(a, b)], (points[a] - points[b]) ** 2

    @cache
    def search(left: frozenset[int]) -> tuple[tuple[int, float], tuple[tuple[int, int], ...]]:
        if not left:
            return (0, 0.0), ()
        first = min(left)
        best: tuple[tuple[int, float], tuple[tuple[int, int], ...]] | None = None
        for other in sorted(left - {first}):
            (repeats, spread), rest = search(left - {first, other})
            here = cost(players[first], players[other])
            total = (repeats + here[0], spread + here[1])
            if best is None or total < best[0]:
                best = (total, ((first, other), *rest))
        assert best is not None
        return best

    _, chosen = search(frozenset(range(len(players))))
    return [(players[a], players[b]) for a, b in chosen]


def repeats_needed(players: Iterable[str], before: Counter[frozenset[str]]) -> int:
    """The fewest repeated pairs any pairing of ``players`` must have (for checks and tests)."""
    names = tuple(players)
    return sum(before[key(a, b)] > 0 for a, b in best_matching(names, dict.fromkeys(names, 0.0), before))


def swap(round_: Round, one: str, other: str) -> Round:
    """The round with two teams' places exchanged (a pair's, or a playing team's with a resting one's)."""
    def place(name: str) -> str:
        return other if name == one else one if name == other else name

    missing = [name for name in (one, other) if name not in round_.names]
    if missing or one == other:
        raise PairingRefused("swap two different teams of the round")
    pairs = tuple(Pair(pair.table, place(pair.red), place(pair.blue)) for pair in round_.pairs)
    return Round(round_.number, pairs, tuple(place(name) for name in round_.resting))
