"""Swiss-style pairings for the night's next round: teams with similar records meet, no pair
meets twice while that can be helped, one pair per table, and who sits out is chosen with the
pairs, as Swiss tournaments give their byes (FIDE C.04).

A round is one choice, made whole: the teams that sit it out and the pairs of the others. First,
no two teams the director keeps apart (friends who came together) are paired while another choice
avoids it; when none does (only those two left to play), as few such pairs as can be, each
one named by ``warnings``. Then it repeats the fewest earlier pairs any choice could (a third meeting is one rematch, two second
meetings are two), and of those the pairs that met the fewest times; among those, the teams that
sit out are the first in line for a bye (the fewest rounds without a game so far, its byes and
the rounds it was not in, then the lowest in the standings), reaching as little down that line as it can; among those, as few pairs as can be
must break FIDE's absolute colour rule (never a colour three times running, nor twice more often
than the other) whichever team is red, then as few as can be have two teams due the same colour
(each has had it less often, or the other twice running); then the teams' points are closest (the sum of the squared differences),
then their places in the standings (neighbours; in a round 1 seeded by ratings, places half the
teams that play apart: the top half meets the bottom half, seed 1 the first of it). So no rematch another choice of who sits out avoids is ever
made, and the bye goes to the lowest-ranked team without one yet whenever that costs no rematch.
The choice is a maximum-weight matching (Edmonds' blossom algorithm, networkx's) over the teams
and one stand-in a seat short, the order above written into whole-number weights, so it is
exact: a tenth of a second for 30 teams at 8 tables here, some 2 s for 64 (a staff page's tap,
once a round).

Each pair's red team, which plays first, alternates per team as Swiss systems balance colours:
the team that has been red less often (then blue last) is red; two teams alike take turns by
table, the higher-ranked red at the first table, blue at the second.

The host may swap two teams by hand (``swap``), a sitting-out team with a playing one too, or
pair a round by hand whole; a round so made is ``warnings``-checked (a rematch, a colour not due).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.errors import Refusal

MAX_TABLES = 8  # 16 players a round
RED, BLUE = "red", "blue"


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
    def from_json(cls, data: dict[str, Any]) -> Round:
        pairs = tuple(Pair(str(p["table"]), str(p["red"]), str(p["blue"])) for p in data["pairs"])
        return cls(int(data["number"]), pairs, tuple(str(name) for name in data.get("resting", ())))

    @property
    def names(self) -> set[str]:
        """Every team the round names: at a table or sitting out."""
        return {name for pair in self.pairs for name in pair.teams} | set(self.resting)

    def pair_at(self, table: str) -> Pair | None:
        return next((pair for pair in self.pairs if pair.table == table), None)

    def renamed(self, named: Callable[[str], str]) -> Round:
        """The round with each team as ``named`` names it (a team renamed, ``Night.rename``)."""
        return Round(self.number, tuple(Pair(pair.table, named(pair.red), named(pair.blue)) for pair in self.pairs),
                     tuple(map(named, self.resting)))


def key(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


def met(pairs: Iterable[tuple[str, str]]) -> Counter[frozenset[str]]:
    """How many times each pair of teams has met."""
    return Counter(key(a, b) for a, b in pairs)


def propose(number: int, ranked: Sequence[str], points: dict[str, float], byes: Counter[str],
            before: Counter[frozenset[str]], tables: Sequence[str], colours: dict[str, list[str]],
            seeded: bool = False, apart: Collection[frozenset[str]] = ()) -> Round:
    """Round ``number``: ``ranked`` the teams in it in the standings' order, ``points`` and ``byes``
    their records (``byes``: the rounds each played no game in, its byes and the rounds it missed:
    a team that joined late is not first in line to sit out), ``before`` the pairs that have met,
    ``colours`` each team's colours so far; ``seeded``: ``ranked`` is by seed, the top half of the
    teams that play meets the bottom half (seed 1 the first of the bottom half); ``apart``: the pairs
    of teams the director keeps apart."""
    if len(tables) > MAX_TABLES:
        raise PairingRefused("a night has at most {most} tables", most=MAX_TABLES)
    seats = min(len(tables), len(ranked) // 2) * 2
    if seats == 0:
        raise PairingRefused("a round needs two teams and a table")
    matched, resting = choose(ranked, {name: points.get(name, 0.0) for name in ranked}, byes, before, seats, colours,
                              seeded, apart)
    place = {name: n for n, name in enumerate(ranked)}
    matched.sort(key=lambda pair: min(map(place.__getitem__, pair)))
    pairs = tuple(Pair(table, *coloured(pair, colours, odd=n % 2 == 0))
                  for n, (table, pair) in enumerate(zip(tables, matched, strict=False)))
    return Round(number, pairs, tuple(name for name in ranked if name in resting))


def sitting_out_order(ranked: Sequence[str], byes: Counter[str]) -> list[str]:
    """Who sits out first: the fewest rounds without a game so far (``byes``), then the lowest in the standings."""
    place = {name: n for n, name in enumerate(ranked)}
    return sorted(ranked, key=lambda name: (byes[name], -place[name]))


def choose(ranked: Sequence[str], points: dict[str, float], byes: Counter[str], before: Counter[frozenset[str]],
           seats: int, colours: dict[str, list[str]] | None = None,
           seeded: bool = False, apart: Collection[frozenset[str]] = ()) -> tuple[list[tuple[str, str]], set[str]]:
    """The round's pairs (each in the standings' order) and the teams that sit out, as the
    module's docstring orders the choices; ``seeded``, places half the seats apart are closest;
    ``apart``, pairs kept apart while any pairing can."""
    from networkx import Graph, max_weight_matching  # loaded when a round is proposed, not at the table's start

    n, pairs = len(ranked), seats // 2
    place = {name: i for i, name in enumerate(ranked)}
    queue = {name: q for q, name in enumerate(sitting_out_order(ranked, byes))}
    due = {name: _due((colours or {}).get(name, [])) for name in ranked}
    gap = pairs if seeded else 0  # the places a pair is best apart: neighbours, or a half of the seats

    spread = {(a, b): round(4 * (points[a] - points[b]) ** 2) * (pairs * n + 1) + abs(abs(place[a] - place[b]) - gap)
              for i, a in enumerate(ranked) for b in ranked[i + 1:]}
    clash_unit = pairs * max(spread.values(), default=0) + 1  # more than any round's spread
    absolute = pairs + 1  # a pair that breaks FIDE's absolute colour rules either way: more than every other clash

    def clash(a: str, b: str) -> int:
        if min(colour_breaks(colours or {}, a, b), colour_breaks(colours or {}, b, a)):
            return absolute
        return int(due[a] is not None and due[a] == due[b])

    spread = {(a, b): cost + clash_unit * clash(a, b) for (a, b), cost in spread.items()}
    bye_unit = (pairs * absolute + 1) * clash_unit  # more than any round's clashes and spread
    meeting = bye_unit << (n + 1)  # more than any choice of byes: each team's weight is a power of two
    most_met = max(before.values(), default=0)
    rematch = meeting * (pairs * most_met + 1)  # more than any round's earlier meetings
    most = rematch + meeting * (most_met + 1)
    # every edge but a pair kept apart weighs this more: more than any round's sum of the rest (a
    # round matches n teams and stand-ins at most, each edge at most ``most``), so the fewest such pairs come first
    free = n * most + 1 if apart else 0
    graph = Graph()
    graph.add_nodes_from(ranked)
    graph.add_weighted_edges_from(
        (a, b, (key(a, b) not in apart) * free + most - (before[key(a, b)] > 0) * rematch - before[key(a, b)] * meeting
         - cost) for (a, b), cost in spread.items())
    stand_ins = [("sits out", i) for i in range(n - seats)]
    graph.add_weighted_edges_from((name, stand_in, free + most - (bye_unit << queue[name]))
                                  for stand_in in stand_ins for name in ranked)
    matched, resting = [], set()
    for a, b in max_weight_matching(graph, maxcardinality=True):
        if isinstance(a, tuple) or isinstance(b, tuple):
            resting.add(b if isinstance(a, tuple) else a)
        else:
            matched.append((a, b) if place[a] < place[b] else (b, a))
    assert len(matched) == pairs and len(resting) == n - seats
    return matched, resting


def coloured(pair: tuple[str, str], colours: dict[str, list[str]], odd: bool) -> tuple[str, str]:
    """The pair (the higher-ranked first) as red and blue: the way that breaks fewer of FIDE's
    absolute colour rules; then red to the team that has been red less often, then to the one
    blue last; else to the higher-ranked at an odd table."""
    def balance(name: str) -> tuple[int, int]:
        seen = colours.get(name, [])
        return seen.count(RED) - seen.count(BLUE), 1 if seen[-1:] == [RED] else -1 if seen[-1:] == [BLUE] else 0

    high, low = pair
    one_way, other_way = colour_breaks(colours, high, low), colour_breaks(colours, low, high)
    if one_way != other_way:  # the absolute rules first, wherever the pair allows
        return pair if one_way < other_way else (low, high)
    if balance(high) == balance(low):
        return pair if odd else (low, high)
    return pair if balance(high) < balance(low) else (low, high)


def colour_breaks(colours: dict[str, list[str]], red: str, blue: str) -> int:
    """How many of the two teams giving ``red`` red and ``blue`` blue would break FIDE's absolute
    colour rules: a colour three times running, or one had twice more often than the other."""
    broken = 0
    for name, colour in ((red, RED), (blue, BLUE)):
        seen = [*colours.get(name, []), colour]
        broken += seen[-3:] == [colour] * 3 or abs(seen.count(RED) - seen.count(BLUE)) > 2
    return broken


def _due(seen: list[str]) -> str | None:
    """The colour a team is due next (the one it has had less often, or the other twice
    running), or None when either will do."""
    difference = seen.count(RED) - seen.count(BLUE)
    if difference >= 1 or seen[-2:] == [RED, RED]:
        return BLUE
    if difference <= -1 or seen[-2:] == [BLUE, BLUE]:
        return RED
    return None


def warnings(made: Round, before: Counter[frozenset[str]], colours: dict[str, list[str]],
             apart: Collection[frozenset[str]] = ()) -> list[dict[str, object]]:
    """What a director is warned of in a round proposed (after a swap, or paired by hand), as
    Swiss-Manager warns: each pair the director keeps apart (no other pairing was possible, or
    it was paired by hand), each pair that has met before, and each team given the colour it is
    not due (it had it more often, or twice running)."""
    said: list[dict[str, object]] = []
    for pair in made.pairs:
        if key(*pair.teams) in apart:
            said.append({"kind": "apart", "table": pair.table, "teams": list(pair.teams)})
        if before[key(*pair.teams)]:
            said.append({"kind": "rematch", "table": pair.table, "teams": list(pair.teams)})
        for name, colour in ((pair.red, RED), (pair.blue, BLUE)):
            due = _due(colours.get(name, []))
            if due is not None and due != colour:
                said.append({"kind": "colour", "table": pair.table, "team": name, "due": due})
    return said


def repeats(pairs: Iterable[tuple[str, str]], before: Counter[frozenset[str]]) -> int:
    """How many of ``pairs`` have met before."""
    return sum(before[key(a, b)] > 0 for a, b in pairs)


def swap(round_: Round, one: str, other: str) -> Round:
    """The round with two teams' places exchanged (a pair's, or a playing team's with a resting one's)."""
    def place(name: str) -> str:
        return other if name == one else one if name == other else name

    missing = [name for name in (one, other) if name not in round_.names]
    if missing or one == other:
        raise PairingRefused("swap two different teams of the round")
    pairs = tuple(Pair(pair.table, place(pair.red), place(pair.blue)) for pair in round_.pairs)
    return Round(round_.number, pairs, tuple(place(name) for name in round_.resting))
