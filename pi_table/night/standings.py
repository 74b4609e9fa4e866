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

The order is points, then the night's tie-break (``scoring.RATING``): the rating, then the margin;
or Buchholz, then the rating, then the margin; then the name. Buchholz is the points of the teams
it met; every round it did not play (a bye, a forfeit, a double loss, a void pair, a round it
missed by joining late or while withdrawn) counts as one against a dummy opponent with the team's
own points, as FIDE's tie-break regulations (C.07, from 2023) count a participant's unplayed
round.

The rating depends on the order of the games: they are taken in ``game_order`` (round, then time
of the end, then id), which every reader can compute from the games alone. Games between
teams of different rounds' pairings never share a team within a round, so a game that arrives
late from a table that was offline changes nothing of a game that another table played meanwhile.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .games import Game
from .scoring import BUCHHOLZ, BYE_POINTS, PLAYED, RATING

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
                "withdrawn": self.withdrawn, "missed": self.missed}


def game_order(game: Game | Result) -> tuple[int, float, str]:
    return (game.round if game.round is not None else 1 << 30, game.at, game.id)


def standings(teams: Iterable[str], results: Iterable[Game | Result], byes: Counter[str] | None = None,
              bye_points: float = BYE_POINTS, tiebreak: str = RATING, withdrawn: Iterable[str] = (),
              missed: Counter[str] | None = None, late_points: float = 0.0,
              absent: Counter[str] | None = None) -> list[Standing]:
    """Every team's line, the leader first; a team that has not played yet is rated as a newcomer.
    ``missed``: the rounds each team that joined late missed, each worth ``late_points``;
    ``absent``: the rounds each team had neither a result nor a bye in (it joined late, was
    withdrawn then, or its pair was void), which its Buchholz counts as unplayed."""
    byes, missed, absent = byes or Counter(), missed or Counter(), absent or Counter()
    ratings = {name: MODEL.rating(name=name) for name in teams}
    counts: dict[str, list[int]] = {name: [0, 0, 0, 0, 0] for name in ratings}  # played, won, lost, drawn, margin
    met: dict[str, list[str | None]] = {name: [] for name in ratings}  # each result's opponent, None: not played
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
            met[name].append(other if result.rated else None)
            if result.winner is None:
                line[3 if result.rated else 2] += 1  # both lost: a draw's half when played, nothing in a double loss
            elif result.winner == name:
                line[1] += 1
                line[4] += result.margin or 0
            else:
                line[2] += 1
                line[4] -= result.margin or 0
    points = {name: line[1] + line[3] / 2 + byes[name] * bye_points + missed[name] * late_points
              for name, line in counts.items()}
    buchholz = {name: sum(points[other] if other is not None else points[name] for other in met[name])
                + (byes[name] + absent[name]) * points[name] for name in counts}  # unplayed: its own points
    gone = set(withdrawn)
    lines = [Standing(name, played, won, lost, drawn, byes[name], points[name], margin, ratings[name].mu,
                      ratings[name].sigma, buchholz[name], name in gone, missed[name])
             for name, (played, won, lost, drawn, margin) in counts.items()]
    if tiebreak == BUCHHOLZ:
        return sorted(lines, key=lambda s: (-s.points, -s.buchholz, -s.ordinal, -s.margin, s.team))
    return sorted(lines, key=lambda s: (-s.points, -s.ordinal, -s.margin, s.team))


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
