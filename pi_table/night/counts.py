"""What a game night counts, read from its fields: each round's pair as it counts (the staff's
result, else the game recorded), the games that are the night's, the rounds each team sat out,
missed or was away, its colours, the pairs that met, and the standings all of it makes.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .events import CREDIT, VOID, WON
from .fields import NightFields
from .games import Game
from .pairing import BLUE, RED, Pair, Round, met
from .scoring import DOUBLE_LOSS, FORFEIT, PLAYED

if TYPE_CHECKING:
    from .standings import Result, Standing


class Counts(NightFields):
    """The night's counts, each computed from its fields as they stand."""

    __slots__ = ()

    def staff_result(self, number: int, table: str) -> str | None:
        """The staff's result for round ``number``'s pair at ``table`` (``RESULTS``), if they entered one."""
        entry = self.results.get((number, table))
        return None if entry is None else entry["result"]

    def first_round(self, name: str) -> int | None:
        """The first confirmed round that pairs the team ``name`` at a table, if any: from then on
        its games are the night's, and it stays in the standings."""
        return next((made.number for made in self.rounds if any(name in pair.teams for pair in made.pairs)), None)

    def pairing(self, number: int, known: int | None = None) -> int:
        """Round ``number``'s pairing: the times it was undone (in the first ``known`` lines of the
        history), so a game dealt for a pairing undone since is told from the round's new one."""
        return sum(e["event"] == "unconfirm" and e["round"] == number for e in self.history[:known])

    def paired(self, game: Game) -> bool:
        """Whether ``game`` is of a round confirmed, as it is paired now: not one of an undone
        pairing (a game from before pairings were counted is taken as the round's)."""
        return game.round is not None and 0 < game.round <= len(self.rounds) \
            and (game.pairing is None or game.pairing == self.pairing(game.round))

    def ids(self) -> set[str]:
        return {game.id for game in self.played}

    def recorded(self) -> list[Game]:
        """The games recorded that are the night's, for its lists and exports: each of a round as it
        is paired now. A game of a pairing undone since stays in the file (so it is refused if told
        again) but counts for nothing, so no list shows it and no result credits it."""
        return [game for game in self.played if game.round is None or self.paired(game)]

    def unplayed(self, made: Round | None, table: str) -> Pair | None:
        """The pair round ``made`` puts at ``table``, while its game there is not recorded."""
        pair = None if made is None else made.pair_at(table)
        if made is None or pair is None \
                or any(g.round == made.number and g.table == table and self.paired(g) for g in self.played):
            return None
        return pair

    def still_played(self, made: Round) -> list[str]:
        """The tables of round ``made`` whose game is neither recorded nor entered by the staff:
        still played, or not begun."""
        return [pair.table for pair in made.pairs if (made.number, pair.table) not in self.results
                and not any(g.round == made.number and g.table == pair.table and self.paired(g) for g in self.played)]

    def awaits(self, game: Game) -> bool:
        """Whether ``game`` is one the night waits for: its round's game at its table, by the pair
        the round put there, of a game the night allows."""
        made = self.rounds[game.round - 1] if game.round is not None and 0 < game.round <= len(self.rounds) else None
        pair = self.unplayed(made, game.table)
        return pair is not None and pair.teams == game.teams and game.game in self.games \
            and game.id not in self.ids() and self.paired(game)
    def counted(self) -> list[Result]:
        return list(self.slots().values())

    def slots(self) -> dict[tuple[int, str], Result]:
        """Each round's pair (by its round and table) as it counts: the staff's result for it,
        else the game its table recorded (unless the staff credited that game to another pair);
        a void pair or one still played, none."""
        from .standings import Result

        by_id = {game.id: game for game in self.played}
        credited = {entry["game"] for entry in self.results.values() if entry["result"] == CREDIT}
        slots = {(game.round, game.table): Result.of(game) for game in self.played
                 if game.rated and game.round is not None and self.paired(game) and game.id not in credited}
        for (number, table), entry in self.results.items():
            pair = self.rounds[number - 1].pair_at(table)
            assert pair is not None  # _decided checked it
            slots.pop((number, table), None)
            result, place = entry["result"], f"{number}/{table}"
            if result in (WON, FORFEIT, DOUBLE_LOSS):
                how = PLAYED if result == WON else result
                slots[(number, table)] = Result(place, number, pair.teams, entry["winner"], how, None, entry["at"])
            elif result == CREDIT and entry["game"] is not None and (game := by_id.get(entry["game"])) is not None \
                    and game.rated:
                winner = None if game.winner is None else pair.teams[game.teams.index(game.winner)]
                slots[(number, table)] = Result(game.id, number, pair.teams, winner, PLAYED, game.margin, game.at)
        return slots

    def byes(self) -> Counter[str]:
        """The rounds each team sat out."""
        return Counter(name for made in self.rounds for name in made.resting)

    def missed(self) -> Counter[str]:
        """The rounds each team missed as the night scores them (``late``): those confirmed before
        it joined, and those it asked to sit out."""
        asked = Counter(name for number, names in self.rests.items() if number <= len(self.rounds)
                        for name in names if name not in self.rounds[number - 1].names)
        return Counter(self.since) + asked

    def missed_points(self, name: str, number: int) -> float:
        """What round ``number``, missed by the team ``name``, scores: the bye's the director chose
        when it asked out (H or Z), else the night's ``late``."""
        if name in self.rests.get(number, ()):
            return self.rest_points.get((number, name), self.late)
        return self.late

    def asked_out(self, name: str, number: int) -> bool:
        """Whether the team ``name`` missed round ``number`` as the night scores it: it joined
        after the round, or asked to sit it out."""
        return number <= self.since.get(name, 0) or name in self.rests.get(number, ())

    def away(self) -> Counter[str]:
        """The rounds each team had neither a pair nor a bye in: it joined late, or was withdrawn then."""
        named = Counter(name for made in self.rounds for name in made.names)
        return Counter({name: len(self.rounds) - named[name] for name in self.teams})

    def absent(self) -> Counter[str]:
        """The rounds each team was away, and those whose pair the staff voided: unplayed rounds,
        for its Buchholz."""
        void = Counter(name for (number, table), entry in self.results.items() if entry["result"] == VOID
                       for name in self.rounds[number - 1].pair_at(table).teams)  # type: ignore[union-attr]
        return self.away() + void

    def unpaired(self) -> Counter[str]:
        """The rounds each team played no game in: its byes, and the rounds it was away: the
        sit-out queue's count, so a team that came late or was away is not sent to sit out first."""
        return self.away() + self.byes()

    def colours(self) -> dict[str, list[str]]:
        """Each team's colours (red plays first), round by round."""
        seen: dict[str, list[str]] = {}
        for made in self.rounds:
            for pair in made.pairs:
                seen.setdefault(pair.red, []).append(RED)
                seen.setdefault(pair.blue, []).append(BLUE)
        return seen

    def standings(self) -> list[Standing]:
        from .standings import standings  # openskill: loaded once a night is looked at, not at the table's start

        return standings(self.teams, self.counted(), self.byes(), self.bye, self.tiebreak, self.withdrawn,
                         self.missed(), self.late, self.absent(), self.rounds,
                         {(name, made.number): self.missed_points(name, made.number) for made in self.rounds
                          for name in self.teams if name not in made.names and self.asked_out(name, made.number)})

    def met(self) -> Counter[frozenset[str]]:
        """The pairs of teams that have met: paired in a round (a pair paired counts as met), or in a game recorded."""
        paired = met(pair.teams for made in self.rounds for pair in made.pairs)
        return paired | met((game.teams[0], game.teams[1]) for game in self.recorded() if game.rated)
