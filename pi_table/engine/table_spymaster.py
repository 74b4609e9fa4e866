"""Codenames with the table as spymaster: one to three players and no spymaster among them.

The cooperative variant's rules (``CodenamesCoop``): the players are the starting team against a
simulated opponent; a wrong touch ends their turn, the assassin loses, their last agent found wins;
after each of their turns one opponent agent is covered, so they have as many turns as the opponent
has agents (8), and lose when its last one is covered. Here the table plays the spymaster's two
parts. It gives each clue (``Told``: a word and a number, which its clue-giver chooses from the
cards' words, so a game has no clue before a ``words`` action confirmed them), and it covers the
opponent's agent itself, the first hidden one in the key's order, lit for the players to lay an
opponent's card on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from .actions import Action, Clue, Guess, Told
from .codenames import CodenamesCoop
from .endings import Termination
from .errors import RuleError
from .game import CLUE, COVERED, GUESS, Game, State
from .keys import CELLS
from .phrase import N_, Phrase

NO_WORDS = Phrase.of("the table gives its clues from the cards' words, which it does not know yet: "
                     "read the cards on the staff page, or confirm them with 'words' and the 25 words, cell 0 first")
"""Why a game with the table as spymaster cannot be played on: a board without its words."""


class TableSpymaster(CodenamesCoop):
    """The cooperative variant whose clues the table gives and whose opponent the table covers."""

    name = "codenames-table"
    description = replace(CodenamesCoop.description, title=N_("Codenames with the table as spymaster"), options=(),
                          table_clues=True)
    has_penalty = False  # nobody to rule the table's clue invalid
    cover_refusal = Phrase.of("the table covers the opponent's agent itself after each of the players' turns")

    def _told(self, state: State, action: Told) -> State:
        if state.words is None:
            raise RuleError(NO_WORDS)
        if state.phase != CLUE:
            raise RuleError("{side} already has its clue: touch a card or end the turn", side=self.side(state.team))
        return replace(state, phase=GUESS, clue=action.number, guesses=0, told=action.word)

    def _no_clue(self, state: State, action: Clue) -> State:
        raise RuleError("the table gives the clues in this game: nobody enters a clue number")

    def _guess_after_clue(self, state: State, action: Guess) -> State:
        if state.phase == CLUE:
            raise RuleError(NO_WORDS if state.words is None else Phrase.of("touch a card once the table has given its clue"))
        return self._guess(state, action)

    _handlers: ClassVar[dict[type, Callable[[Game, State, Any], State]]] = {
        **Game._handlers, Clue: _no_clue, Guess: _guess_after_clue, Told: _told,  # type: ignore[dict-item]
    }

    def _next_turn(self, state: State) -> State:
        """The players' turn over: the table covers the opponent's first hidden agent, and the
        players lose when it was its last (their turns are up); else the table's next clue."""
        opponent = state.team.other
        cell = next(cell for cell in range(CELLS) if state.key[cell] == opponent.letter and state.marks[cell] is None)
        marks = state.marks[:cell] + (COVERED,) + state.marks[cell + 1 :]
        state = replace(state, marks=marks, phase=CLUE, clue=None, guesses=0, told=None)
        if state.left(opponent.letter) == 0:
            return self._end(state, opponent, Termination.ALL_AGENTS_COVERED, winner=opponent)
        return state

    _after_penalty = _next_turn
    _after_cover = _next_turn

    def legal_actions(self, state: State) -> list[Action]:
        """The variant's, without a clue number (the table's clue is any word: not listed) and
        with a touch only once the table has given its clue."""
        return [action for action in super().legal_actions(state)
                if not isinstance(action, Clue) and (state.phase == GUESS or not isinstance(action, Guess))]
