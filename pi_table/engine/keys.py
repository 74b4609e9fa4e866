"""Teams, identities and the key: the secret that only the spymasters see.

The key string is a stable contract (see DESIGN.md): 25 characters, row-major from the
operatives' side, from their left on row 0. ``R`` red, ``B`` blue, ``N`` bystander (Alias 24: grey decoy),
``A`` assassin (Alias 24: the nuke), ``.`` a cell with no card.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from .errors import InvalidKey
from .phrase import Phrase

CELLS = 25
GRID = 5

RED_AGENT = "R"
BLUE_AGENT = "B"
BYSTANDER = "N"
ASSASSIN = "A"
NO_CARD = "."
IDENTITIES = RED_AGENT + BLUE_AGENT + BYSTANDER + ASSASSIN + NO_CARD


class Team(StrEnum):
    """A side of the table. A ``str`` so that it prints and serialises as ``"red"``/``"blue"``."""

    RED = "red"
    BLUE = "blue"

    @property
    def other(self) -> Team:
        return Team.BLUE if self is Team.RED else Team.RED

    @property
    def letter(self) -> str:
        """The key letter of this team's cards."""
        return RED_AGENT if self is Team.RED else BLUE_AGENT

    @classmethod
    def parse(cls, text: str) -> Team:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InvalidKey("a team is 'red' or 'blue'", given=text) from None


@dataclass(frozen=True, slots=True)
class Key:
    """The identities of the 25 cells and the team that gives the first clue."""

    cells: str
    start: Team

    def __post_init__(self) -> None:
        if len(self.cells) != CELLS:
            raise InvalidKey("a key has {cells} characters, not {length}", cells=CELLS, length=len(self.cells))
        bad = sorted(set(self.cells) - set(IDENTITIES))
        if bad:
            raise InvalidKey("a key uses only the letters {letters}", letters=" ".join(IDENTITIES), given="".join(bad))

    def __str__(self) -> str:
        return self.cells

    def __getitem__(self, cell: int) -> str:
        return self.cells[cell]

    def count(self, letter: str) -> int:
        return self.cells.count(letter)


@dataclass(frozen=True, slots=True)
class Layout:
    """How many cards of each kind a game's key holds.

    ``first``/``second`` are the agent (or asset) counts of the two teams; which team gets
    ``first`` is the game's business (Codenames: the starting team).
    """

    first: int
    second: int
    bystanders: int
    assassins: int
    dark_cell: int | None = None

    def check(self, cells: str) -> tuple[int, int]:
        """Raise ``InvalidKey`` naming what is off; return the (red, blue) counts."""
        counts = Counter(cells)
        red, blue = counts[RED_AGENT], counts[BLUE_AGENT]
        dark = [i for i, c in enumerate(cells) if c == NO_CARD]
        expected_dark = [] if self.dark_cell is None else [self.dark_cell]
        problems = []
        if sorted((red, blue)) != sorted((self.first, self.second)):
            problems.append(Phrase.of("{first} cards for one team and {second} for the other (found {red} R and {blue} B)",
                                      first=self.first, second=self.second, red=red, blue=blue))
        if counts[BYSTANDER] != self.bystanders:
            problems.append(Phrase.of("{wanted} N (found {found})", wanted=self.bystanders, found=counts[BYSTANDER]))
        if counts[ASSASSIN] != self.assassins:
            problems.append(Phrase.of("{wanted} A (found {found})", wanted=self.assassins, found=counts[ASSASSIN]))
        if dark != expected_dark:
            found = str(dark) if dark else Phrase.of("no cell")
            problems.append(Phrase.of("no '.' (found it at {found})", found=found) if not expected_dark else
                            Phrase.of("one '.' at cell {cell} (found it at {found})", cell=expected_dark[0], found=found))
        if problems:
            raise InvalidKey("this key is not valid here: it needs {problems}", problems=tuple(problems))
        return red, blue

    def deal(self, rng: random.Random, big_team: Team) -> str:
        """A uniformly random arrangement with ``first`` cards for ``big_team``."""
        cards = (
            [big_team.letter] * self.first
            + [big_team.other.letter] * self.second
            + [BYSTANDER] * self.bystanders
            + [ASSASSIN] * self.assassins
        )
        rng.shuffle(cards)
        if self.dark_cell is not None:
            cards.insert(self.dark_cell, NO_CARD)
        return "".join(cards)
