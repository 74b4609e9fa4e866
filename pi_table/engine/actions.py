"""Actions: small frozen dataclasses with a one-line text form.

The text form ("clue 3", "touch 7", "end-turn") is what the journal stores and what the
scripted simulator reads, so a game on disk is readable by a person.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar, get_args

from .errors import InvalidAction, InvalidKey
from .keys import CELLS, Key, Team
from .phrase import Phrase

UNLIMITED = "unlimited"
"""The clue number that lifts the guess limit ("tiny: infinity")."""
UNLIMITED_WORDS = (UNLIMITED, "infinity", "∞", "senza-limiti")
"""How a text form may write it: the English words, the symbol, and the Italian book's "senza limiti"
(which the Italian terminal's help and refusals teach)."""

MAX_CLUE = 9
"""No team holds more than 9 cards, so no honest clue number is larger."""

MAX_LETTERS = 20
"""The most characters a card's word has: longer ones fit no cell of the grid's pictures."""

ClueNumber = int | str | None
"""A whole number 0..9, ``UNLIMITED``, or ``None`` when the spymaster said a clue aloud but
entered no number (the table then lets the operatives guess until a miss or END TURN)."""


@dataclass(frozen=True, slots=True)
class Written:
    """An action's text form from its declaration: its ``WORD``, then its fields' values in order
    (a tuple's one by one, ``None`` left out). The word is written once, on the class, and the
    parsers' word lists are made from the classes."""

    WORD: ClassVar[str]

    def __str__(self) -> str:
        words = [self.WORD]
        for field in fields(self):
            value = getattr(self, field.name)
            words.extend(str(part) for part in (value if isinstance(value, tuple) else (value,)) if part is not None)
        return " ".join(words)


def check_cell(cell: int) -> int:
    if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < CELLS:
        raise InvalidAction("the grid's cells are 0 to {last}", last=CELLS - 1, given=cell)
    return cell


@dataclass(frozen=True, slots=True)
class Clue(Written):
    """The spymaster (Alias 24: mastermind) enters the number of the clue just said aloud."""

    WORD = "clue"

    number: int | str

    def __post_init__(self) -> None:
        n = self.number
        if n != UNLIMITED and not (isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_CLUE):
            raise InvalidAction("a clue number is 0 to {most} or unlimited", most=MAX_CLUE, given=n)


@dataclass(frozen=True, slots=True)
class Guess(Written):
    """An operative touches a card (Alias 24: targets an alias)."""

    WORD = "touch"

    cell: int

    def __post_init__(self) -> None:
        check_cell(self.cell)


@dataclass(frozen=True, slots=True)
class EndTurn(Written):
    """The operatives stop guessing (the END TURN button)."""

    WORD = "end-turn"


@dataclass(frozen=True, slots=True)
class Penalty(Written):
    """The current clue was ruled invalid: the turn ends at once, with no guesses."""

    WORD = "penalty"


@dataclass(frozen=True, slots=True)
class Cover(Written):
    """A spymaster covers a card without a guess: after a penalty, or the simulated opponent."""

    WORD = "cover"

    cell: int

    def __post_init__(self) -> None:
        check_cell(self.cell)


@dataclass(frozen=True, slots=True)
class Place(Written):
    """Deep Undercover's setup: a team has laid its next codename on the lit cell.

    The last one carries the key, drawn as it goes down (the book chooses the key after the
    cards are placed), so that a replay of the journal or a script is exact: its text form is
    ``place CELL key CELLS TEAM``."""

    WORD = "place"

    cell: int
    key: Key | None = None

    def __post_init__(self) -> None:
        check_cell(self.cell)

    def __str__(self) -> str:
        placed = f"{self.WORD} {self.cell}"
        return placed if self.key is None else f"{placed} key {self.key.cells} {self.key.start}"


@dataclass(frozen=True, slots=True)
class TimeUp(Written):
    """The turn timer ran out and is enforced: the turn ends, even before a guess."""

    WORD = "time-up"


@dataclass(frozen=True, slots=True)
class Undo(Written):
    """Take back the last accepted action (a mis-touch both spymasters agree to undo)."""

    WORD = "undo"


def one_word(word: object) -> bool:
    """Whether ``word`` is one word (no space) of printable letters: a card's, or the table's clue."""
    return isinstance(word, str) and bool(word) and word.isprintable() and len(word.split()) == 1


@dataclass(frozen=True, slots=True)
class Words(Written):
    """A spymaster confirms the words on the cards, one per cell in the key's order (cell 0
    first): from then on every screen shows them. Each is one word (no space) of printable
    letters, at most ``MAX_LETTERS``; confirming again replaces them, an undo takes them back."""

    WORD = "words"

    words: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.words, tuple) or len(self.words) != CELLS:
            raise InvalidAction("'words' takes the {count} words on the cards, cell 0 first; got {got}", count=CELLS,
                                got=len(self.words) if isinstance(self.words, tuple | list) else 0)
        for cell, word in enumerate(self.words):
            if not one_word(word):
                raise InvalidAction("the word of cell {cell} is one word of printable letters, with no space", cell=cell)
            if len(word) > MAX_LETTERS:
                raise InvalidAction("the word of cell {cell} has {length} characters; a card's word has at most {most}",
                                    cell=cell, length=len(word), most=MAX_LETTERS)


@dataclass(frozen=True, slots=True)
class Told(Written):
    """The table, as spymaster, gives its clue: a word and how many cards it points to (a game
    whose description says the table gives the clues). Journalled as ``told WORD NUMBER``, so a
    resumed or replayed game has the clue the table gave, not one asked for again."""

    WORD = "told"

    word: str
    number: int

    def __post_init__(self) -> None:
        word, n = self.word, self.number
        if not one_word(word) or len(word) > MAX_LETTERS:
            raise InvalidAction("the table's clue is one word of printable letters, at most {most}", most=MAX_LETTERS,
                                given=word)
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_CLUE:
            raise InvalidAction("the table's clue number is 1 to {most}", most=MAX_CLUE, given=n)


Action = Clue | Guess | EndTurn | Penalty | Cover | Place | TimeUp | Undo | Words | Told

_CELL_ACTIONS: dict[str, Callable[[int], Action]] = {action.WORD: action for action in (Guess, Cover, Place)}
_PLAIN_ACTIONS: dict[str, Callable[[], Action]] = {action.WORD: action for action in (EndTurn, Penalty, TimeUp, Undo)}
THE_CELL = Phrase.of("the cell")
ACTION_WORDS = tuple(action.WORD for action in get_args(Action))


def whole_number(word: str, what: Phrase) -> int:
    if not word.isdigit() or not word.isascii():
        raise InvalidAction("{what} must be a whole number", what=what, given=word)
    return int(word)


def parse_action(text: str) -> Action:
    """Read an action's text form; raise ``InvalidAction`` saying what was expected."""
    words = text.split()
    if not words:
        raise InvalidAction("an empty line is not an action")
    verb, args = words[0].lower(), words[1:]
    if verb in _PLAIN_ACTIONS:
        if args:
            raise InvalidAction("'{verb}' takes no argument", verb=verb, given=" ".join(args))
        return _PLAIN_ACTIONS[verb]()
    if verb == Words.WORD:
        return Words(tuple(args))
    if verb == Told.WORD:
        if len(args) != 2:
            raise InvalidAction("'{verb}' takes the clue word and its number; got {count} words", verb=verb, count=len(args))
        return Told(args[0], whole_number(args[1], Phrase.of("the clue number")))
    if verb not in _CELL_ACTIONS and verb != Clue.WORD:
        raise InvalidAction("the commands are {words}", words=", ".join(ACTION_WORDS), given=verb)
    if verb == Place.WORD and len(args) == 4 and args[1].lower() == "key":
        return _place_with_key(args)
    if len(args) != 1:
        expected = Phrase.of("a number, 'unlimited' or 'infinity'" if verb == Clue.WORD else
                             "a cell number 0-24 (the last one also 'key CELLS TEAM')" if verb == Place.WORD else
                             "a cell number 0-24")
        raise InvalidAction("'{verb}' takes one argument, {expected}; got {count}", verb=verb, expected=expected, count=len(args))
    arg = args[0].lower()
    if verb == Clue.WORD:
        if arg in UNLIMITED_WORDS:
            return Clue(UNLIMITED)
        if not arg.isdigit() or not arg.isascii():
            raise InvalidAction("the clue number is a whole number or 'unlimited'", given=arg)
        return Clue(int(arg))
    return _CELL_ACTIONS[verb](whole_number(arg, THE_CELL))


def _place_with_key(args: list[str]) -> Place:
    """``place CELL key CELLS TEAM``: the last codename down and the key drawn with it."""
    cell = whole_number(args[0], THE_CELL)
    try:
        key = Key(args[2].upper(), Team.parse(args[3]))
    except InvalidKey as error:  # the key's own words, or the team's
        raise InvalidAction("'place CELL key CELLS TEAM' needs a key and the starting team: {error}",
                            error=error.expected, given=error.given) from None
    return Place(cell, key)
