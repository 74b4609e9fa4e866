"""The night's standings: a pure function of its teams, its results and its byes, so the table,
the staff page and the fleet's dashboard, which gathers the games from every table, show the same.

A round's pair counts by its ``Result``: the game its table recorded, or what the staff entered
or corrected (a win, a forfeit, a double loss; a void pair counts for nothing). A team that sits
a round out has a bye, worth the night's ``bye`` points (a win's, 1, as FIDE C.04 scores a
pairing-allocated bye, unless the night says otherwise), so every team in the night from its
first round is compared on the same number of rounds. A team that joined late has, for each
round confirmed before it joined, what the night gives a round missed (``late``: a zero-point
bye, Z, or a half-point one, H, as FIDE's rules and tournament software give a late entrant).
Points: a win 1, a game both teams lost (Alias 24's nuke) half each, a double loss and a loss 0.

The rating is openskill's Plackett-Luce (a maintained library, not a home-made formula): it
rates a team whose players change from one game to the next as what it is, one side, and says
how sure it is (``sigma``). A team's ``ordinal`` (mu - 3 sigma) is what it has surely earned, so a
team that won its only game does not lead one that won three of four. Only games played at a
table are rated: a forfeit, a double loss and a bye say nothing of how well a team plays.

The order is points, then the night's tie-breaks in the order its director chose
(``scoring.tiebreak_order``): the rating (then the margin), or FIDE's (C.07, 2023) Buchholz,
Buchholz Cut-1, Median Buchholz, Sonneborn-Berger, direct encounter and wins. Teams still level
after the last share a place, listed in the order they joined: no alphabet decides. Buchholz is
the points of the teams it met, each as art. 16.3.2 counts an opponent's (its rounds away after
its last game are draws); every round it did not play (a bye, a forfeit, a double loss, a void
pair, a round it missed by joining late or while withdrawn) counts as one against a dummy
opponent with the team's own points (art. 16.4), and the cuts take its voluntarily unplayed
rounds (a forfeit lost, a round it asked out or was away) first (art. 16.5).

The rating depends on the order of the games: they are taken in ``game_order`` (round, then time
of the end, then id), which every reader can compute from the games alone. Games between
teams of different rounds' pairings never share a team within a round, so a game that arrives
late from a table that was offline changes nothing of a game that another table played meanwhile.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import groupby

from openskill.models import PlackettLuce

from .games import Game
from .pairing import Round
from .scoring import BYE_POINTS, DIRECT, PLAYED, RATING, TIEBREAKS, tiebreak_order

MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Result:
    """What a round's pair counts for: ``how`` the game was decided (``PLAYED`` at its table,
    rated; a ``FORFEIT`` won by ``winner``; a ``DOUBLE_LOSS``), its ``margin`` when played."""

    id: str
    round: int | None
    teams: tuple[str, str]
    winner: str | None
    how: str
    margin: int | None
    at: float

    @property
    def rated(self) -> bool:
        return self.how == PLAYED

    @classmethod
    def of(cls, game: Game) -> Result:
        first, second = game.teams
        return cls(game.id, game.round, (first, second), game.winner, PLAYED, game.margin, game.at)


@dataclass(frozen=True, slots=True)
class Standing:
    """A team's line: results (games, forfeits and double losses) played, won, lost and drawn
    (both teams lost), byes, points, margin (the agents left to the losers of its wins less those
    left to it in its losses), its rating, its Buchholz, whether it has withdrawn and the rounds it
    missed by joining late."""

    team: str
    played: int
    won: int
    lost: int
    drawn: int
    byes: int
    points: float
    margin: int
    mu: float
    sigma: float
    buchholz: float = 0.0
    withdrawn: bool = False
    missed: int = 0
    buchholz_cut1: float = 0.0
    median_buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    wins: int = 0  # FIDE's WIN: the rounds that scored a win's points, played or not
    place: int = 0
    shared: bool = False  # the place is shared with teams the tie-breaks leave level

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def rating(self, digits: int = 2) -> float:
        """The ordinal as shown, to ``digits`` places: never -0.0 (a newcomer's is -4e-15)."""
        return round(self.ordinal, digits) + 0.0

    def to_json(self) -> dict[str, object]:
        return {"team": self.team, "played": self.played, "won": self.won, "lost": self.lost, "drawn": self.drawn,
                "byes": self.byes, "points": self.points, "margin": self.margin, "rating": self.rating(),
                "mu": round(self.mu, 3), "sigma": round(self.sigma, 3), "buchholz": self.buchholz,
                "withdrawn": self.withdrawn, "missed": self.missed, "buchholz_cut1": self.buchholz_cut1,
                "median_buchholz": self.median_buchholz, "sonneborn_berger": self.sonneborn_berger, "wins": self.wins,
                "place": self.place, "shared": self.shared}


def game_order(game: Game | Result) -> tuple[int, float, str]:
    return (game.round if game.round is not None else 1 << 30, game.at, game.id)


def standings(teams: Iterable[str], results: Iterable[Game | Result], byes: Counter[str] | None = None,
              bye_points: float = BYE_POINTS, tiebreak: str = RATING, withdrawn: Iterable[str] = (),
              missed: Counter[str] | None = None, late_points: float = 0.0,
              absent: Counter[str] | None = None, rounds: Sequence[Round] = (),
              asked: Mapping[tuple[str, int], float] | None = None) -> list[Standing]:
    """Every team's line, the leader first, each with its ``place`` (shared by teams the
    tie-breaks leave level); a team that has not played yet is rated as a newcomer.
    ``missed``: the rounds each team that joined late missed, each worth ``late_points``;
    ``absent``: the rounds each team had neither a result nor a bye in (it joined late, was
    withdrawn then, or its pair was void), which its Buchholz counts as unplayed; ``rounds``: the
    rounds confirmed, and ``asked``: each (team, round) it missed at its asking or by joining late,
    with what it scores (the bye the director chose, H or Z), from which an opponent's rounds away
    after its last game are told (FIDE C.07, art. 16.3.2)."""
    byes, missed, absent, asked = byes or Counter(), missed or Counter(), absent or Counter(), asked or {}
    scores = {name: _missed_scores(name, missed[name], late_points, asked) for name in missed}
    ratings = {name: MODEL.rating(name=name) for name in teams}
    counts: dict[str, list[int]] = {name: [0, 0, 0, 0, 0] for name in ratings}  # played, won, lost, drawn, margin
    met: dict[str, list[Met]] = {name: [] for name in ratings}  # each result: opponent (None: not played), points
    ordered = sorted((Result.of(r) if isinstance(r, Game) else r for r in results if len(r.teams) == 2),
                     key=game_order)
    for result in ordered:
        for name in result.teams:
            ratings.setdefault(name, MODEL.rating(name=name))
            counts.setdefault(name, [0, 0, 0, 0, 0])
            met.setdefault(name, [])
        first, second = result.teams
        if result.rated:
            ranks = [1.0, 1.0] if result.winner is None else [1.0, 2.0] if result.winner == first else [2.0, 1.0]
            [[ratings[first]], [ratings[second]]] = MODEL.rate([[ratings[first]], [ratings[second]]], ranks=ranks)
        for name, other in ((first, second), (second, first)):
            line = counts[name]
            line[0] += 1
            scored = 0.5 if result.winner is None and result.rated else float(result.winner == name)
            met[name].append(Met(result.round, other if result.rated else None, scored,
                                 voluntary=not result.rated and result.winner != name))
            if result.winner is None:
                line[3 if result.rated else 2] += 1  # both lost: a draw's half when played, nothing in a double loss
            elif result.winner == name:
                line[1] += 1
                line[4] += result.margin or 0
            else:
                line[2] += 1
                line[4] -= result.margin or 0
    points = {name: line[1] + line[3] / 2 + byes[name] * bye_points + sum(scores.get(name, ()))
              for name, line in counts.items()}
    adjusted = _adjusted(points, met, rounds, asked)
    values = {name: _values(name, points[name], met[name], adjusted, byes[name], bye_points, scores.get(name, []),
                            absent[name], _away(name, rounds) if rounds else absent[name])
              for name in counts}
    gone = set(withdrawn)
    lines = [Standing(name, played, won, lost, drawn, byes[name], points[name], margin, ratings[name].mu,
                      ratings[name].sigma, sum(v.value for v in values[name]), name in gone, missed[name],
                      _cut(values[name], 1, 0), _cut(values[name], 1, 1),
                      sum(v.value * v.scored for v in values[name]),
                      won + (byes[name] if bye_points == 1.0 else 0))
             for name, (played, won, lost, drawn, margin) in counts.items()]
    return _placed(lines, tiebreak_order(tiebreak), met)


@dataclass(frozen=True, slots=True)
class Met:
    """A round a team had a result in: its ``opponent`` (None: not played at a table), the points
    it ``scored``, and whether it went unplayed by the team's own doing (a forfeit lost, a double loss)."""

    round: int | None
    opponent: str | None
    scored: float
    voluntary: bool


@dataclass(frozen=True, slots=True)
class Value:
    """One round's worth in the Buchholz family: the opponent's adjusted points (or a dummy's, the
    team's own, for a round not played), the points the team scored, whether it was voluntarily unplayed."""

    value: float
    scored: float
    voluntary: bool


def _away(name: str, rounds: Sequence[Round]) -> int:
    """The rounds confirmed that name no team ``name`` (it joined later, asked out, or was withdrawn)."""
    return sum(name not in made.names for made in rounds)


def _missed_scores(name: str, missed: int, late_points: float, asked: Mapping[tuple[str, int], float]) -> list[float]:
    """What each of the ``missed`` rounds of team ``name`` scores: a bye it asked for, what the
    director chose for it (``asked``); any other, the night's ``late_points``."""
    chosen = [points for (team, _), points in sorted(asked.items()) if team == name][:missed]
    return chosen + [late_points] * (missed - len(chosen))


def _adjusted(points: dict[str, float], met: dict[str, list[Met]], rounds: Sequence[Round],
              asked: Mapping[tuple[str, int], float]) -> dict[str, float]:
    """Each team's points as its opponents' Buchholz counts them (FIDE C.07, art. 16.3.2): every
    round after its last game played, won by forfeit or sat out for the pairing, in which it had
    no opponent (withdrawn, or asked out), is a draw's."""
    adjusted = dict(points)
    for name in points:
        last = max([m.round for m in met[name] if m.round is not None and not m.voluntary]
                   + [made.number for made in rounds if name in made.resting], default=0)
        for made in rounds[last:]:
            if name not in made.names:
                adjusted[name] += 0.5 - asked.get((name, made.number), 0.0)
    return adjusted


def _values(name: str, own: float, met: list[Met], adjusted: dict[str, float], byes: int, bye_points: float,
            missed: list[float], absent: int, away: int) -> list[Value]:
    """Each round's ``Value`` for team ``name``: a game's, its opponent's adjusted points; a round
    not played (a forfeit, a double loss, a bye, a round missed, away or voided), a dummy
    opponent's with the team's own points (FIDE C.07, art. 16.4)."""
    away = min(away, absent)
    return ([Value(own if m.opponent is None else adjusted[m.opponent], m.scored, m.voluntary) for m in met]
            + [Value(own, bye_points, False)] * byes
            + [Value(own, scored, True) for scored in missed[:away]]
            + [Value(own, 0.0, True)] * (away - min(len(missed), away))  # withdrawn then
            + [Value(own, 0.0, False)] * (absent - away))  # its pair voided by the staff


def _cut(values: list[Value], low: int, high: int) -> float:
    """The Buchholz less its ``low`` least significant values (the voluntarily unplayed rounds
    first, FIDE C.07 art. 16.5) and its ``high`` most significant."""
    kept = sorted(values, key=lambda v: (not v.voluntary, v.value))[low:]
    return sum(v.value for v in sorted(kept, key=lambda v: v.value)[:max(len(kept) - high, 0)])


def _key(name: str) -> Callable[[Standing], tuple[float, ...]]:
    """The order tie-break ``name`` puts lines in: its fields (``Tiebreak.compares``), the greater first."""
    fields = TIEBREAKS[name].compares
    return lambda s: tuple(-float(getattr(s, field)) for field in fields)


def _placed(lines: list[Standing], order: Sequence[str], met: dict[str, list[Met]]) -> list[Standing]:
    """The lines by points, then each tie-break of ``order`` among the teams still level, each
    with its place; teams level after them all share the place (listed in the order they joined)."""
    groups = _split([lines], lambda s: (-s.points,))
    for name in order:
        groups = [part for group in groups
                  for part in (_encounter(group, met) if name == DIRECT else _split([group], _key(name)))]
    placed: list[Standing] = []
    place = 1
    for group in groups:
        placed.extend(replace(line, place=place, shared=len(group) > 1) for line in group)
        place += len(group)
    return placed


def _split(groups: list[list[Standing]], key: Callable[[Standing], tuple[float, ...]]) -> list[list[Standing]]:
    """Each group sorted by ``key`` (stable) and cut where it changes."""
    parts: list[list[Standing]] = []
    for group in groups:
        for _, run in groupby(sorted(group, key=key), key=key):
            parts.append(list(run))
    return parts


def _encounter(group: list[Standing], met: dict[str, list[Met]]) -> list[list[Standing]]:
    """FIDE C.07's direct encounter among the teams of ``group``, level so far: the points each
    scored in the games played between them (the mean, where two met more than once). When every
    two of them have met, they are ordered by it; else a team goes ahead of those after it only
    while its points there are more than the next one could reach, winning every game it has not
    played against them. Each part that splits off is compared again among its own teams."""
    if len(group) < 2:
        return [group]
    names = {line.team for line in group}
    scored: dict[str, float] = {}
    unmet: dict[str, int] = {}
    for line in group:
        games: dict[str, list[float]] = {}
        for m in met.get(line.team, []):
            if m.opponent in names:
                games.setdefault(m.opponent, []).append(m.scored)
        scored[line.team] = sum(sum(points) / len(points) for points in games.values())
        unmet[line.team] = len(names) - 1 - len(games)
    ranked = sorted(group, key=lambda s: (-scored[s.team], -(scored[s.team] + unmet[s.team])))
    if not any(unmet.values()):
        parts = _split([ranked], lambda s: (-scored[s.team],))
    else:
        parts, rest = [], list(ranked)
        while len(rest) > 1 and scored[rest[0].team] > max(scored[s.team] + unmet[s.team] for s in rest[1:]):
            parts.append([rest.pop(0)])
        parts.append(rest)
    if len(parts) == 1:
        return parts
    return [sub for part in parts for sub in _encounter(part, met)]


@dataclass(frozen=True, slots=True)
class HighScore:
    """A cooperative game won: the team, its score (1-8: the opponent's agents still hidden) and the game."""

    team: str
    score: int
    game: str
    at: float

    def to_json(self) -> dict[str, object]:
        return {"team": self.team, "score": self.score, "game": self.game, "at": self.at}


def high_scores(games: Iterable[Game]) -> list[HighScore]:
    """The cooperative games won this night, the best score first (the earlier of two equal ones)."""
    won = [HighScore(game.teams[0], game.score, game.id, game.at) for game in games
           if not game.rated and game.score is not None]
    return sorted(won, key=lambda h: (-h.score, h.at, h.game))
