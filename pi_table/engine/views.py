"""Observers: what each kind of player may know, in the style of OpenSpiel.

``TableView`` is the public observation: the cards shown so far and the turn. Everything
public (remaining counts, guesses left, Alias 24's armed nuke, the cooperative score) is
computed from it alone (the last two by the game whose rules they are), so the LEDs and the
status output can never leak the key.
``SpymasterView`` adds the key, for the spymasters' hidden screen only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import ClueNumber
from .endings import Termination
from .errors import RuleError
from .keys import ASSASSIN, NO_CARD, Key, Team
from .phrase import Phrase
from .rules import Rules

HIDDEN = "?"
MAD_ARMED_AT = 13
"""Alias 24: the nuke is fully armed once 13 or more other aliases have been targeted."""

COOP_RATINGS = {
    8: ("I can hardly believe it.", "Mi riesce molto difficile crederci."),
    7: ("Mission impossible.", "Missione impossibile."),
    6: ("Wow!", "Wow!"),
    5: ("Expect a call from the CIA soon.", "Verrete presto contattati dalla CIA."),
    4: ("Top-secret operation accomplished.", "Operazione top secret riuscita."),
    3: ("Watches synchronised.", "Orologi sincronizzati."),
    2: ("Not bad, but you could have done better.", "Non c'è male, ma potevate fare di meglio."),
    1: ("Winning is what matters, right?", "L'importante è vincere, giusto?"),
}
"""The cooperative variant's rating line for each score (Nome in codice; English is ours)."""

LANGUAGES = ("en", "it")
"""The languages the table speaks: every surface's list (pi_table.ui.i18n, the configuration)."""


@dataclass(frozen=True, slots=True)
class TableView:
    """The public state of the table: hidden cards are ``?`` on the board. While Deep
    Undercover's codenames are placed there is no key yet, so no ``start`` and no ``totals``."""

    rules: Rules
    board: str
    covered: tuple[int, ...]
    start: Team | None
    totals: dict[Team, int] | None
    turn: Team | None
    phase: str
    clue: ClueNumber
    guesses: int
    winner: Team | None
    losers: tuple[Team, ...]
    reason: Phrase | None  # made from the termination
    termination: Termination | None
    placing: int | None
    armed: bool | None = None  # Alias 24's mad nuke: armed once MAD_ARMED_AT aliases are targeted (its game's)
    score: int | None = None  # the cooperative variant's, on a win: the opponent's agents still hidden (its game's)
    words: tuple[str, ...] | None = None  # the cards' words, once a spymaster confirmed them (they lie face up)
    told: str | None = None  # the clue's word the table gave, in a game where the table is the spymaster

    @property
    def game(self) -> str:
        return self.rules.game

    def remaining(self, team: Team) -> int:
        """That team's cards not yet revealed or covered (asked while placing, a bug: no key yet)."""
        if self.totals is None:
            raise RuleError("the key is drawn when the last codename is down: no counts while placing")
        return self.totals[team] - self.board.count(team.letter)

    @property
    def guesses_left(self) -> int | None:
        """None when the clue is unlimited, zero, or not entered (no limit then)."""
        if self.phase != "guess" or not isinstance(self.clue, int) or self.clue == 0:
            return None
        return self.clue + 1 - self.guesses

    @property
    def targeted(self) -> int:
        """Alias 24: aliases targeted so far, the nuke not counted."""
        return sum(1 for shown in self.board if shown not in (HIDDEN, NO_CARD, ASSASSIN))


    def rating(self, lang: str = "en") -> str | None:
        if self.score is None:
            return None
        return COOP_RATINGS[self.score][LANGUAGES.index(lang)]

    def to_json(self) -> dict[str, object]:
        """The STATE object of the scripted simulator's contract (README, "Script format")."""
        return {
            "game": self.game,
            "turn": _name(self.turn),
            "phase": self.phase,
            "clue": self.clue,
            "guesses_left": self.guesses_left,
            "remaining": None if self.totals is None else {team.value: self.remaining(team) for team in Team},
            "board": self.board,
            "winner": _name(self.winner),
            "losers": [team.value for team in self.losers],
            "reason": None if self.reason is None else str(self.reason),
            "score": self.score,
            "armed": self.armed,
            "start": _name(self.start),
            "guesses": self.guesses,
            "covered": list(self.covered),
            "placing": self.placing,
            "rating": None if self.score is None else {lang: self.rating(lang) for lang in LANGUAGES},
            "termination": None if self.termination is None else self.termination.value,
            **({} if self.words is None else {"words": list(self.words)}),  # only once confirmed: older readers see no change
            **({} if self.told is None else {"told": self.told}),  # only where the table gave a clue
        }


@dataclass(frozen=True, slots=True)
class SpymasterView:
    """The table view plus the key: for the spymasters' screen, never for the LEDs. No key
    while Deep Undercover's codenames are placed: it is drawn with the last one."""

    table: TableView
    key: Key | None

    def to_json(self) -> dict[str, object]:
        return {**self.table.to_json(), "key": None if self.key is None else self.key.cells}


def _name(team: Team | None) -> str | None:
    return None if team is None else team.value
