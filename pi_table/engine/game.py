"""The turn machinery shared by the team games on the grid: Codenames and its variants, Alias 24.

A game object holds the rules and no per-game data; a ``State`` is an immutable value. So
``apply(state, action)`` either returns a new state or raises an error that says why, and the
old state is untouched whatever happens. Subclasses decide what touching a card means.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar

from .actions import (
    MAX_CLUE,
    UNLIMITED,
    Action,
    Clue,
    ClueNumber,
    Cover,
    EndTurn,
    Guess,
    Penalty,
    Place,
    TimeUp,
    Words,
    parse_action,
)
from .described import Description
from .endings import Ending, Termination
from .errors import GameOver, InvalidAction, InvalidKey, InvalidRules, RuleError
from .keys import ASSASSIN, BYSTANDER, CELLS, NO_CARD, Key, Layout, Team
from .phrase import N_, Phrase
from .rules import Rules
from .views import SpymasterView, TableView


class Phase(StrEnum):
    """Where a grid game stands; the value is its name in the table's JSON."""

    PLACE = "place"  # Deep Undercover's setup: the teams lay the codenames
    CLUE = "clue"
    GUESS = "guess"
    COVER = "cover"  # a spymaster may (after a penalty) or must (the cooperative variant) cover an agent
    OVER = "over"


PLACE, CLUE, GUESS, COVER, OVER = Phase.PLACE, Phase.CLUE, Phase.GUESS, Phase.COVER, Phase.OVER
PHASES = tuple(Phase)


class Mark(StrEnum):
    """How a card came to be shown: an operative touched it, or a spymaster covered it."""

    TOUCHED = "touched"
    COVERED = "covered"


TOUCHED, COVERED = Mark.TOUCHED, Mark.COVERED

ALL_CLUES = tuple(Clue(n) for n in range(MAX_CLUE + 1)) + (Clue(UNLIMITED),)
_GUESSES = tuple(Guess(cell) for cell in range(CELLS))
_COVERS = tuple(Cover(cell) for cell in range(CELLS))


@dataclass(frozen=True, slots=True)
class State:
    """One moment of a game. ``marks[cell]`` is None while the card is hidden.

    ``drawn`` is the key, None only while Deep Undercover's codenames are being placed: the
    book chooses the key after the 25th is down, so nothing may depend on it before. ``words``
    are the cards' words, None until a spymaster confirms them (the cards are physical: the
    table knows them only when told).
    """

    drawn: Key | None
    marks: tuple[Mark | None, ...]
    turn: Team | None
    phase: Phase
    clue: ClueNumber = None
    guesses: int = 0
    placed: int = 0
    winner: Team | None = None
    losers: tuple[Team, ...] = ()
    termination: Termination | None = None
    ended_by: Team | None = None  # the team whose action ended the game
    words: tuple[str, ...] | None = None  # the cards' words, once a spymaster confirmed them
    told: str | None = None  # the clue's word, in a game where the table gives the clues (its ``Told``)

    @property
    def reason(self) -> Phrase | None:
        """Why the game ended, in words made from its termination (None while it goes on)."""
        if self.termination is None or self.ended_by is None:  # the two are set together
            return None
        said = self.termination.said
        assert said is not None, "a grid game ends in a way said of a team"
        return said(self.ended_by)

    @property
    def key(self) -> Key:
        """The key, once there is one: asking for it while placing is a bug, not a rule."""
        if self.drawn is None:
            raise RuleError("the key is drawn when the last codename is down: there is none while placing")
        return self.drawn

    def left(self, letter: str) -> int:
        """How many cards with this key letter are still hidden."""
        marks = self.marks
        return sum(1 for cell, identity in enumerate(self.key.cells) if identity == letter and marks[cell] is None)

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def team(self) -> Team:
        """The team to play. Only a finished game has none, and ``apply`` refuses every action
        on it before any rule asks."""
        if self.turn is None:
            raise GameOver("the game is over ({reason}): no team is to play", reason=self.reason)
        return self.turn


class Game:
    """Rules of one game. Subclasses set the class attributes (the endings ``found_all`` and
    ``gave_all`` among them) and implement ``_assassin``.

    The public API follows OpenSpiel: ``start``, ``legal_actions``, ``apply``,
    ``current_team``, ``returns``, and two observers, ``table_view`` (what the operatives
    and the LEDs may know) and ``spymaster_view`` (the whole key).
    """

    name: ClassVar[str]
    description: ClassVar[Description]  # its title, nouns, options, teams and cards, for the layers above (described.py)
    has_penalty: ClassVar[bool] = True
    start_follows_key: ClassVar[bool] = True  # Codenames: the team with 9 agents starts
    seeks_own: ClassVar[bool] = True  # a team is after its own cards (Alias 24's eliminates the other's)
    found_all: ClassVar[Termination]  # a team touched the last card of the side it seeks: it wins
    gave_all: ClassVar[Termination]  # a team touched the last card of the other side: it loses

    @property
    def title(self) -> str:
        """A msgid: said in the table's language inside a refusal."""
        return self.description.title

    @property
    def noun(self) -> str:
        """What a cell holds, in the game's words (each refusal has a sentence per noun)."""
        nouns = self.description.nouns
        assert nouns is not None, "a grid game names its cards"
        return nouns.card

    @property
    def spymaster_word(self) -> str:
        nouns = self.description.nouns
        assert nouns is not None, "a grid game names its clue-givers"
        return nouns.clue_giver

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules or Rules(game=self.name)
        if self.rules.game != self.name:
            raise InvalidRules("rules for {game!r} given to the {name!r} game", game=self.rules.game, name=self.name)
        cards = self.description.cards
        assert cards is not None, "a grid game's description counts its cards"
        # the cards its description counts, a dark cell where the rules put it (Alias 24's)
        self.layout = Layout(cards.first, cards.second, cards.bystanders, cards.assassins,
                             dark_cell=self.rules.dark_cell if cards.dark else None)

    # --- setup --------------------------------------------------------------------------

    def natural_start(self, red: int, blue: int) -> Team:
        """The starting team for a key with these agent counts."""
        return Team.RED if red > blue else Team.BLUE

    def deal(self, rng: random.Random, start: Team | None = None) -> Key:
        """A random key: every layout and starting team equally likely for a uniform ``rng``."""
        big = rng.choice((Team.RED, Team.BLUE))
        if self.start_follows_key and start is not None:
            big = start
        cells = self.layout.deal(rng, big)
        return Key(cells, start or self.natural_start(cells.count("R"), cells.count("B")))

    def parse_key(self, text: str, start: Team | None = None) -> Key:
        """Read a key string; ``start`` overrides the starting team where the game allows it."""
        cells = text.strip().upper()
        key = Key(cells, Team.RED)  # checks length and letters before the counts
        natural = self.natural_start(*self.layout.check(cells))
        if start is not None and start != natural and self.start_follows_key:
            raise InvalidKey("this key gives {team} {first} cards, so {team} starts, not {start}", team=natural,
                             first=self.layout.first, start=start)
        return replace(key, start=start or natural)

    def check_key(self, key: Key) -> None:
        natural = self.natural_start(*self.layout.check(key.cells))
        if self.start_follows_key and key.start != natural:
            raise InvalidKey("in {game} the team with {first} cards starts: {team}, not {other}", game=self.name,
                             first=self.layout.first, team=natural, other=key.start)

    FIRST_TO_PLACE: ClassVar[Team] = Team.RED
    """Deep Undercover: the book names no team to place first, and who gives the first clue
    follows the key, which is not drawn yet; so red places first, a fixed rule that tells
    nothing of the key (the placing itself gives no team an edge: the words go to cells whose
    identities nobody knows)."""

    def start(self, key: Key | None = None) -> State:
        """A game on ``key``; Deep Undercover (``setup == "place"``) starts with none, its key
        coming with the last placement."""
        if self.rules.setup == "place":
            if key is not None:
                raise InvalidKey("Deep Undercover draws its key when the last codename is down: a game starts without one")
            return State(drawn=None, marks=(None,) * CELLS, turn=self.FIRST_TO_PLACE, phase=PLACE)
        if key is None:
            raise InvalidKey("a {title} game starts on a key", title=Phrase(self.title))
        self.check_key(key)
        return State(drawn=key, marks=(None,) * CELLS, turn=key.start, phase=CLUE)

    def placing_order(self) -> tuple[int, ...]:
        """Deep Undercover: the cells in the order the teams lay their codenames, from the
        rules alone (every cell but Alias 24's dark one, which is a rule)."""
        dark = self.layout.dark_cell
        return tuple(cell for cell in range(CELLS) if cell != dark)

    def draws_key(self, state: State) -> bool:
        """Whether the next action is the last placement, which brings the key: a chance node in
        OpenSpiel's words, whose outcome the caller draws (the session, from its random source)."""
        return state.phase == PLACE and state.placed == len(self.placing_order()) - 1

    # --- play ---------------------------------------------------------------------------

    def apply(self, state: State, action: Action) -> State:
        """The state after ``action``; raise ``RuleError``/``InvalidAction`` to refuse it."""
        if state.phase == OVER:
            raise GameOver("the game is over ({reason}): undo or start a new game", reason=state.reason)
        handler = self._handlers.get(type(action))
        if handler is None:
            raise InvalidAction("{action} is not something the {game} rules act on", action=str(action), game=self.name)
        return handler(self, state, action)

    def _clue(self, state: State, action: Clue) -> State:
        if state.phase == GUESS:
            raise RuleError("{side} already has its clue: touch a card or end the turn" if self.noun == "card" else
                            "{side} already has its clue: touch an alias or end the turn", side=self.side(state.team))
        self._refuse_unless_open(state)
        return replace(state, phase=GUESS, clue=action.number, guesses=0)

    def _guess(self, state: State, action: Guess) -> State:
        if state.phase != GUESS:
            self._refuse_unless_open(state)
            if self.rules.clue_required:
                raise RuleError("the {team} spymaster must enter the clue number before the first touch"
                                if self.spymaster_word == "spymaster" else
                                "the {team} mastermind must enter the clue number before the first touch", team=state.team)
            state = replace(state, phase=GUESS, clue=None, guesses=0)
        cell = action.cell
        identity = state.key[cell]
        if identity == NO_CARD:
            raise RuleError("cell {cell} has no card" if self.noun == "card" else "cell {cell} has no alias", cell=cell)
        if state.marks[cell] is not None:
            raise RuleError("card {cell} is already revealed" if self.noun == "card" else "alias {cell} is already targeted",
                            cell=cell)
        marks = state.marks[:cell] + (TOUCHED,) + state.marks[cell + 1 :]
        return self._touched(replace(state, marks=marks), state.team, identity)

    def _end_turn(self, state: State, action: EndTurn) -> State:
        if state.phase == GUESS and state.guesses > 0:
            return self._next_turn(state)
        if state.phase in (PLACE, COVER):
            raise RuleError(self.waiting_for(state))
        raise RuleError("{side} must guess at least once before ending its turn", side=self.side(state.team))

    def _penalty(self, state: State, action: Penalty) -> State:
        if not self.has_penalty:
            raise RuleError("{title} has no invalid-clue penalty", title=Phrase(self.title))
        if state.phase == GUESS and state.guesses > 0:
            raise RuleError("a clue can be ruled invalid only before the first guess; now it stands")
        if state.phase not in (CLUE, GUESS):
            raise RuleError("there is no clue to rule invalid now ({state})", state=self.phase_words(state))
        return self._after_penalty(state)

    def _cover(self, state: State, action: Cover) -> State:
        if state.phase != COVER:
            raise RuleError(self.cover_refusal)
        owner = state.team
        cell = action.cell
        if state.key[cell] != owner.letter or state.marks[cell] is not None:
            raise RuleError("card {cell} is not a hidden {owner} agent: cover one of {owner}'s", cell=cell, owner=owner)
        marks = state.marks[:cell] + (COVERED,) + state.marks[cell + 1 :]
        state = replace(state, marks=marks)
        if state.left(owner.letter) == 0:
            return self._end(state, owner, Termination.ALL_AGENTS_COVERED, winner=owner)
        return self._after_cover(state)

    def _time_up(self, state: State, action: TimeUp) -> State:
        """The enforced turn timer: the turn passes whatever was guessed (also before the clue)."""
        if state.phase == PLACE or (state.phase == COVER and self.cover_is_required):
            raise RuleError("the turn timer does not run now: {waiting}", waiting=self.waiting_for(state))
        return self._next_turn(state)

    def _place(self, state: State, action: Place) -> State:
        if state.phase != PLACE:
            raise RuleError("all the cards are already on the table" if self.noun == "card" else
                            "all the aliases are already on the table")
        order = self.placing_order()
        expected = order[state.placed]
        if action.cell != expected:
            raise RuleError("{side} places the next card on cell {expected}, not {cell}" if self.noun == "card" else
                            "{side} places the next alias on cell {expected}, not {cell}",
                            side=self.side(state.team), expected=expected, cell=action.cell)
        placed = state.placed + 1
        if placed < len(order):
            if action.key is not None:
                raise RuleError("the key is drawn when the last card is down, not with cell {cell}" if self.noun == "card" else
                                "the key is drawn when the last alias is down, not with cell {cell}", cell=action.cell)
            return replace(state, placed=placed, turn=state.team.other)
        if action.key is None:
            raise RuleError("the last card down brings the key: 'place {cell} key CELLS TEAM'" if self.noun == "card" else
                            "the last alias down brings the key: 'place {cell} key CELLS TEAM'", cell=action.cell)
        self.check_key(action.key)
        return replace(state, drawn=action.key, placed=placed, phase=CLUE, turn=action.key.start)

    def _words(self, state: State, action: Words) -> State:
        """The cards' words, told in any phase of a game going on: they change no turn."""
        return replace(state, words=action.words)

    def read_action(self, text: str) -> Action:
        """An action of this game (``undo`` among them) from its text form, as the journal keeps it."""
        return parse_action(text)

    _handlers: ClassVar[dict[type, Callable[[Game, State, Any], State]]] = {
        Clue: _clue, Guess: _guess, EndTurn: _end_turn, Penalty: _penalty, Cover: _cover, Place: _place,
        TimeUp: _time_up, Words: _words,
    }

    # --- hooks and helpers for the games ------------------------------------------------

    cover_refusal: ClassVar[Phrase] = Phrase.of("a spymaster may cover a card only right after the other team's penalty")

    def _refuse_unless_open(self, state: State) -> None:
        """Refuse a clue or a first touch while placing, or before a required cover."""
        if state.phase == PLACE or (state.phase == COVER and self.cover_is_required):
            raise RuleError(self.waiting_for(state))

    cover_is_required: ClassVar[bool] = False

    def waiting_for(self, state: State) -> Phrase:
        """What the table waits for in the placing and cover phases, as a sentence."""
        if state.phase == PLACE:
            cell = self.placing_order()[state.placed]
            return Phrase.of("the cards are still being placed: {side} places the next one on cell {cell}"
                             if self.noun == "card" else
                             "the aliases are still being placed: {side} places the next one on cell {cell}",
                             side=self.side(state.team), cell=cell)
        return Phrase.of("the {team} spymaster may cover one of {team}'s agents, then gives the clue", team=state.team)

    def _touched(self, state: State, team: Team, identity: str) -> State:
        """A card touched: the side the team seeks (``seeks_own``) counts, and wins on its last
        card (``found_all``); the other side's ends the turn, and loses on its last card
        (``gave_all``); a bystander ends the turn; the assassin is the game's own."""
        sought = team if self.seeks_own else team.other
        if identity == sought.letter:
            if state.left(sought.letter) == 0:
                return self._end(state, team, self.found_all, winner=team)
            return self._correct(state)
        if identity == sought.other.letter:
            if state.left(sought.other.letter) == 0:
                return self._end(state, team, self.gave_all, winner=team.other)
            return self._next_turn(state)
        if identity == BYSTANDER:
            return self._next_turn(state)
        assert identity == ASSASSIN
        return self._assassin(state, team)

    def _assassin(self, state: State, team: Team) -> State:
        raise NotImplementedError

    def _correct(self, state: State) -> State:
        """A right guess: count it, and end the turn after the plus-one guess."""
        guesses = state.guesses + 1
        clue = state.clue
        if isinstance(clue, int) and clue > 0 and guesses > clue:
            return self._next_turn(state)
        return replace(state, guesses=guesses)

    def _next_turn(self, state: State) -> State:
        return replace(state, turn=state.team.other, phase=CLUE, clue=None, guesses=0)

    def _after_penalty(self, state: State) -> State:
        """The other team may first cover one of its own cards (Codenames' penalty)."""
        return replace(state, turn=state.team.other, phase=COVER, clue=None, guesses=0)

    def _after_cover(self, state: State) -> State:
        return replace(state, phase=CLUE)

    def _end(self, state: State, by: Team, termination: Termination, winner: Team | None,
             losers: tuple[Team, ...] | None = None) -> State:
        """The game over by ``by``'s action: ``losers`` by default the winner's opponent (a game
        without a winner names them)."""
        if losers is None:
            assert winner is not None, "a game that ends without a winner names its losers"
            losers = (winner.other,)
        return replace(state, phase=OVER, turn=None, winner=winner, losers=losers, termination=termination,
                       ended_by=by, clue=None)

    # --- words ----------------------------------------------------------------------------

    def side(self, team: Team) -> Phrase:
        """Who guesses for ``team``, in the words players use."""
        if self.rules.three_player:
            return Phrase.of("the operative (guessing for {team})", team=team)
        return Phrase.of("the {team} team", team=team)

    PHASE_WORDS: ClassVar[dict[Phase, str]] = {
        CLUE: N_("{team} is in its clue phase"), GUESS: N_("{team} is in its guess phase"),
        COVER: N_("{team} is in its cover phase"), PLACE: N_("{team} is in its place phase"),
    }

    def phase_words(self, state: State) -> Phrase:
        if state.phase == OVER:
            return Phrase.of("the game is over")
        return Phrase.of(self.PHASE_WORDS[state.phase], team=state.team)

    # --- OpenSpiel-style queries --------------------------------------------------------

    def current_team(self, state: State) -> Team | None:
        return state.turn

    def ending(self, state: State) -> Ending | None:
        """How the game ended, or None while it goes on."""
        reason = state.reason
        if state.termination is None or reason is None:
            return None
        return Ending(state.termination, state.winner, state.losers, reason, self.table_view(state).score)

    def returns(self, state: State) -> dict[Team, int]:
        """+1 for the winner, -1 for each loser, 0 otherwise (also while playing)."""
        return {team: 1 if state.winner == team else -1 if team in state.losers else 0 for team in Team}

    def legal_actions(self, state: State) -> list[Action]:
        """Every action ``apply`` accepts now (undo aside, which the game record handles)."""
        phase = state.phase
        if phase == OVER:
            return []
        if phase == PLACE:  # the last one also carries the key, the caller's draw (``draws_key``)
            return [Place(self.placing_order()[state.placed])]
        hidden = [cell for cell, mark in enumerate(state.marks) if mark is None and state.key[cell] != NO_CARD]
        if phase == COVER:
            own: list[Action] = [_COVERS[cell] for cell in hidden if state.key[cell] == state.team.letter]
            if self.cover_is_required:
                return own
            actions = own + list(ALL_CLUES)
        elif phase == CLUE:
            actions = list(ALL_CLUES)
        else:
            actions = [EndTurn()] if state.guesses else []
        if phase == GUESS or not self.rules.clue_required:
            actions += [_GUESSES[cell] for cell in hidden]
        if self.has_penalty and phase in (CLUE, GUESS) and state.guesses == 0:
            actions.append(Penalty())
        actions.append(TimeUp())
        return actions

    # --- observers ------------------------------------------------------------------------

    def table_view(self, state: State) -> TableView:
        """What everyone at the table may know: only the cards shown so far (while placing, the
        rules' dark cell and nothing of the key, which is not drawn yet)."""
        key = state.drawn
        if key is None:
            dark = self.layout.dark_cell
            board = "".join(NO_CARD if cell == dark else "?" for cell in range(CELLS))
        else:
            board = "".join(
                "?" if mark is None and identity != NO_CARD else identity for identity, mark in zip(key.cells, state.marks)
            )
        placing = self.placing_order()[state.placed] if state.phase == PLACE else None
        view = TableView(
            rules=self.rules,
            board=board,
            covered=tuple(cell for cell, mark in enumerate(state.marks) if mark == COVERED),
            start=None if key is None else key.start,
            totals=None if key is None else {Team.RED: key.count("R"), Team.BLUE: key.count("B")},
            turn=state.turn,
            phase=state.phase,
            clue=state.clue,
            guesses=state.guesses,
            winner=state.winner,
            losers=state.losers,
            reason=state.reason,
            termination=state.termination,
            placing=placing,
            words=state.words,
            told=state.told,
        )
        armed, score = self._armed(view), self._score(view)
        return view if armed is None and score is None else replace(view, armed=armed, score=score)

    def _armed(self, view: TableView) -> bool | None:
        """Whether a nuke is armed, for a game whose nuke arms (Alias 24's mad mode); None for others."""
        return None

    def _score(self, view: TableView) -> int | None:
        """A won game's score, for a game that keeps one (the cooperative variant); None for others."""
        return None

    def public_view(self, state: State) -> TableView:
        """What everyone may see of the game, as every game names its public observer: the table view."""
        return self.table_view(state)

    def spymaster_view(self, state: State) -> SpymasterView:
        """What the spymasters' hidden screen may show: the table view plus the whole key
        (none while Deep Undercover's codenames are placed)."""
        return SpymasterView(table=self.table_view(state), key=state.drawn)
