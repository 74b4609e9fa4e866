"""How a game ended: a ``Termination`` the engine returns, as python-chess's ``board.outcome()``.

A finished game's state holds its termination and the team whose action ended it; the sentence
a person reads ("red touched the assassin") is made from those two when it is shown, in the
reader's language, never stored. The history, the control socket's status and the fleet's MQTT
messages carry the code (``Termination``'s values, which never change), so a dashboard can
count the endings of every table and game alike; a termination's ``words`` name it for such a
reader.

The ways the table's games end (``SHARED``), from the engines' own game-end paths:

- Codenames, its cooperative variant and Deep Undercover: a team touches its last agent
  (``ALL_AGENTS_FOUND``), touches the other team's last agent, which wins it for the other
  (``OPPONENTS_LAST_AGENT``), touches the assassin (``ASSASSIN``), or has its last agent covered
  by its spymaster (``ALL_AGENTS_COVERED``: after the other team's penalty; in the cooperative
  variant, the simulated opponent's cover, which loses the game for the players). The players
  of the cooperative variant win only by ``ALL_AGENTS_FOUND``, with a score (``Ending.score``,
  the table view's): the other three lose it for them.
- Alias 24: a team eliminates the other's last asset (``LAST_ASSET_ELIMINATED``) or its own
  (``OWN_LAST_ASSET``), or targets the nuke (``NUKE``; ``ARMED_NUKE`` in mad mode once armed:
  both teams lose).
- Codex: an agent enters its faction's code (``CODE_ENTERED``).

No game ends on time: an enforced turn timer passes the turn, never the game. A game with a way to
end of its own carries it (``Description.endings``): docs/dev/adding-a-game.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar, Self

from ..errors import PiTableError
from .keys import Team
from .phrase import N_, Phrase


class Termination(str):
    """How a game ended: its code, which the history, the status and MQTT carry and which never
    changes, with ``words``, what a reader names it by (a dashboard's column: a msgid), and
    ``said``, a team game's sentence made from the team whose action ended it (None for a game
    that says its own, as Codex does with its agent). A code, as a string enum's member is: it is
    equal to its text, and JSON writes it as that text.

    The ways every game may end are ``Termination``'s own (``Termination.ASSASSIN``...,
    ``SHARED``); a game with a way to end of its own makes it in its module and lists it in its
    description's ``endings`` (docs/dev/adding-a-game.md), so this file is not edited for it.
    ``engine.games.terminations()`` gives them all, ``engine.games.termination(code)`` one."""

    words: str
    said: Callable[[Team], Phrase] | None

    ALL_AGENTS_FOUND: ClassVar[Termination]
    OPPONENTS_LAST_AGENT: ClassVar[Termination]
    ALL_AGENTS_COVERED: ClassVar[Termination]
    ASSASSIN: ClassVar[Termination]
    LAST_ASSET_ELIMINATED: ClassVar[Termination]
    OWN_LAST_ASSET: ClassVar[Termination]
    NUKE: ClassVar[Termination]
    ARMED_NUKE: ClassVar[Termination]
    CODE_ENTERED: ClassVar[Termination]

    def __new__(cls, code: str, words: str, said: Callable[[Team], Phrase] | None = None) -> Self:
        made = super().__new__(cls, code)
        made.words, made.said = words, said
        return made

    def __getnewargs__(self) -> tuple[str, str, Callable[[Team], Phrase] | None]:  # type: ignore[override]
        return str(self), self.words, self.said  # a copy is made as the original was

    def __repr__(self) -> str:
        return f"Termination({str(self)!r})"

    @property
    def value(self) -> str:
        """The code, as the readers of the JSON ask an enum's member for it."""
        return str(self)


class UnknownTermination(PiTableError, ValueError):
    """A code (a history's, another table's message) that no registered game ends with."""


Termination.ALL_AGENTS_FOUND = Termination(
    "all_agents_found", N_("all agents found"), lambda by: Phrase.of("{team} found all its agents", team=by))
Termination.OPPONENTS_LAST_AGENT = Termination(
    "opponents_last_agent", N_("the other team's last agent touched"),
    lambda by: Phrase.of("{team} touched {other}'s last agent", team=by, other=by.other))
Termination.ALL_AGENTS_COVERED = Termination(
    "all_agents_covered", N_("all agents covered"), lambda by: Phrase.of("{team} has all its agents covered", team=by))
Termination.ASSASSIN = Termination(
    "assassin", N_("the assassin touched"), lambda by: Phrase.of("{team} touched the assassin", team=by))
Termination.LAST_ASSET_ELIMINATED = Termination(  # said of the team that lost it
    "last_asset_eliminated", N_("the last asset eliminated"),
    lambda by: Phrase.of("{team} lost its last asset", team=by.other))
Termination.OWN_LAST_ASSET = Termination(
    "own_last_asset", N_("its own last asset eliminated"),
    lambda by: Phrase.of("{team} eliminated its own last asset", team=by))
Termination.NUKE = Termination("nuke", N_("the nuke set off"), lambda by: Phrase.of("{team} set off the nuke", team=by))
Termination.ARMED_NUKE = Termination(
    "armed_nuke", N_("the armed nuke set off: both teams lose"),
    lambda by: Phrase.of("{team} set off the armed nuke: both teams lose", team=by))
Termination.CODE_ENTERED = Termination("code_entered", N_("the right code entered"))

SHARED = (Termination.ALL_AGENTS_FOUND, Termination.OPPONENTS_LAST_AGENT, Termination.ALL_AGENTS_COVERED,
          Termination.ASSASSIN, Termination.LAST_ASSET_ELIMINATED, Termination.OWN_LAST_ASSET, Termination.NUKE,
          Termination.ARMED_NUKE, Termination.CODE_ENTERED)
"""The ways the games of pi-table end, each game's own included as it was written before a game
could carry its own; a new game's own way is in its module, not here."""


@dataclass(frozen=True, slots=True)
class Ending:
    """A finished game, as every game says it: its termination, the winner (a team, or another
    kind's side; None when nobody won), the losers, why in words, and the cooperative score."""

    termination: Termination
    winner: Enum | None
    losers: tuple[Enum, ...]
    reason: Phrase
    score: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"termination": self.termination.value, "winner": None if self.winner is None else self.winner.value,
                "losers": [loser.value for loser in self.losers], "score": self.score}
