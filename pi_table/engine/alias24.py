"""Alias 24: 24 aliases on the 5x5 grid, one cell dark; teams eliminate the opponent's assets.

9 and 8 assets, 6 grey decoys, 1 black nuke. A team's mastermind clues the *opponent's*
assets. Eliminating a decoy or one of your own assets ends the turn; a team whose assets are
all eliminated loses, also on its own turn. The nuke: in ``basic`` mode the team that
targeted it loses; in ``mad`` mode (mutually assured destruction) it is armed once 13 or
more other aliases have been targeted, and exploding while armed makes both teams lose.

The rulebook does not say which team starts. We let the team with more to eliminate start
(its opponent holds 9 assets); ``--start`` overrides it.
"""

from __future__ import annotations

from .described import GRID_PHASES, MASTERMINDS, Cards, Description
from .endings import Termination
from .game import Game, State
from .keys import ASSASSIN, BLUE_AGENT, BYSTANDER, RED_AGENT, Team
from .phrase import N_, Phrase
from .rules import CLUE_REQUIRED, DARK_CELL, NUKE
from .views import MAD_ARMED_AT, TableView


class Alias24(Game):
    name = "alias24"
    description = Description(N_("Alias 24"), MASTERMINDS, (CLUE_REQUIRED, NUKE, DARK_CELL), legend={
        RED_AGENT: N_("red asset"), BLUE_AGENT: N_("blue asset"), BYSTANDER: N_("grey decoy"), ASSASSIN: N_("the nuke")},
                              phases=GRID_PHASES, cards=Cards(first=9, second=8, bystanders=6, assassins=1, dark=1))
    has_penalty = False
    start_follows_key = False
    seeks_own = False
    found_all, gave_all = Termination.LAST_ASSET_ELIMINATED, Termination.OWN_LAST_ASSET
    cover_refusal = Phrase.of("Alias 24 has no covers: only targeting eliminates an alias")

    def natural_start(self, red: int, blue: int) -> Team:
        return Team.RED if red < blue else Team.BLUE

    def _assassin(self, state: State, team: Team) -> State:
        """The nuke: in "mad", armed once enough aliases were targeted, it ends the game for both."""
        targeted = sum(1 for mark in state.marks if mark is not None) - 1
        if self.rules.nuke == "mad" and targeted >= MAD_ARMED_AT:
            return self._end(state, team, Termination.ARMED_NUKE, winner=None, losers=(Team.RED, Team.BLUE))
        return self._end(state, team, Termination.NUKE, winner=team.other)


    def _armed(self, view: TableView) -> bool | None:
        return view.targeted >= MAD_ARMED_AT if self.rules.nuke == "mad" else None
