"""Codenames (also Nome in codice and Deep Undercover) and its cooperative variant.

Rules from the rulebooks in shared/seeds: 9 agents for the starting team (the double agent),
8 for the other, 7 bystanders, 1 assassin. A right guess lets the team guess again, up to
the clue number plus one; a bystander or an opponent's card ends the turn; the assassin
loses the game for the team that touched it; a team whose agents are all covered wins, even
on the other team's turn. The 3-player variant and Deep Undercover's deal-and-place setup
are options (``Rules.three_player``, ``Rules.setup``), not games of their own: they change
only wording and setup.
"""

from __future__ import annotations

from dataclasses import replace

from .described import GRID_LEGEND, GRID_PHASES, SPYMASTERS, Cards, Description, Score
from .endings import Termination
from .game import CLUE, COVER, Game, State
from .keys import Team
from .phrase import N_, Phrase
from .rules import CLUE_REQUIRED, SETUP, THREE_PLAYER
from .views import TableView

CARDS = Cards(first=9, second=8, bystanders=7, assassins=1)
"""Codenames' key: 9 agents for the starting team, 8 for the other, 7 bystanders, 1 assassin."""


class Codenames(Game):
    name = "codenames"
    description = Description(N_("Codenames"), SPYMASTERS, (CLUE_REQUIRED, THREE_PLAYER, SETUP), legend=GRID_LEGEND,
                              phases=GRID_PHASES, cards=CARDS)

    found_all, gave_all = Termination.ALL_AGENTS_FOUND, Termination.OPPONENTS_LAST_AGENT

    def _assassin(self, state: State, team: Team) -> State:
        return self._end(state, team, Termination.ASSASSIN, winner=team.other)


class CodenamesCoop(Codenames):
    """The 2-player cooperative variant (Nome in codice): the table against a simulated team.

    The players are the starting team. After each of their turns, their spymaster covers one
    agent of the simulated opponent (its turn is only that cover). The players lose on the
    assassin or when the opponent's agents are all covered; on a win, the score is the
    number of opponent agents still hidden (``TableView.score``). An invalid-clue penalty
    simply ends the team's turn, and the opponent covers as after any turn.
    """

    name = "codenames-coop"
    description = replace(Codenames.description, title=N_("Codenames (cooperative)"), options=(CLUE_REQUIRED,),
                          teams=1, cooperative=True, rated=False,
                          score=Score(N_("the opponent's agents still hidden"), 1, CARDS.second))
    cover_is_required = True

    def _next_turn(self, state: State) -> State:
        if state.turn == state.key.start:
            return replace(state, turn=state.team.other, phase=COVER, clue=None, guesses=0)
        return replace(state, turn=state.team.other, phase=CLUE, clue=None, guesses=0)

    _after_penalty = _next_turn
    _after_cover = _next_turn

    def waiting_for(self, state: State) -> Phrase:
        if state.phase == COVER:
            return Phrase.of("the spymaster must first cover one {team} agent for the simulated opponent", team=state.team)
        return super().waiting_for(state)

    cover_refusal = Phrase.of("the spymaster covers an opponent agent only after each of the team's turns")

    def _score(self, view: TableView) -> int | None:
        """On a win, the opponent's agents still hidden (1 to 8)."""
        if view.start is None or view.winner != view.start:
            return None
        return view.remaining(view.start.other)
