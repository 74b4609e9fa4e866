"""The night's standings: a pure function of its teams and its games, so the table, the staff
page and the fleet's dashboard, which gathers the games from every table, show the same.

The rating is openskill's Plackett-Luce (a maintained library, not a home-made formula): it
rates a team whose players change from one game to the next as what it is, one side, and says
how sure it is (``sigma``). A team's ``ordinal`` (mu - 3 sigma) is what it has surely earned, so a
team that won its only game does not lead one that won three of four. The order is points (a win
1, both teams losing half each), then the rating's ordinal, then the margin, then the name.

The rating depends on the order of the games: they are taken in ``game_order`` (round, then time
of the end, then id), which every reader can compute from the games alone. Games between
teams of different rounds' pairings never share a team within a round, so a game that arrives
late from a table that was offline changes nothing of a game that another table played meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .games import Game

MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Standing:
    """A team's line: games played, won, lost and drawn (both teams lost), points, margin (the
    agents left to the losers of its wins less those left to it in its losses), and its rating."""

    team: str
    played: int
    won: int
    lost: int
    drawn: int
    margin: int
    mu: float
    sigma: float

    @property
    def points(self) -> float:
        return self.won + self.drawn / 2

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, object]:
        return {"team": self.team, "played": self.played, "won": self.won, "lost": self.lost, "drawn": self.drawn,
                "points": self.points, "margin": self.margin, "rating": round(self.ordinal, 2),
                "mu": round(self.mu, 3), "sigma": round(self.sigma, 3)}


def game_order(game: Game) -> tuple:
    return (game.round if game.round is not None else 1 << 30, game.at, game.id)


def standings(teams: Iterable[str], games: Iterable[Game]) -> list[Standing]:
    """Every team's line, the leader first; a team that has not played yet is rated as a newcomer."""
    ratings = {name: MODEL.rating(name=name) for name in teams}
    counts: dict[str, list[int]] = {name: [0, 0, 0, 0, 0] for name in ratings}  # played, won, lost, drawn, margin
    for game in sorted(games, key=game_order):
        if not game.rated:
            continue
        for name in game.teams:
            ratings.setdefault(name, MODEL.rating(name=name))
            counts.setdefault(name, [0, 0, 0, 0, 0])
        first, second = game.teams
        ranks = [1.0, 1.0] if game.winner is None else [1.0, 2.0] if game.winner == first else [2.0, 1.0]
        [[ratings[first]], [ratings[second]]] = MODEL.rate([[ratings[first]], [ratings[second]]], ranks=ranks)
        for name in game.teams:
            line = counts[name]
            line[0] += 1
            if game.winner is None:
                line[3] += 1
            elif game.winner == name:
                line[1] += 1
                line[4] += game.margin or 0
            else:
                line[2] += 1
                line[4] -= game.margin or 0
    lines = [Standing(name, *counts[name], mu=ratings[name].mu, sigma=ratings[name].sigma)  # type: ignore[misc]
             for name in ratings]
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
