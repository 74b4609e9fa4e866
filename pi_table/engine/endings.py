"""How a game ended: a ``Termination`` the engine returns, as python-chess's ``board.outcome()``.

A finished game's state holds its termination and the team whose action ended it; the sentence
a person reads ("red touched the assassin") is made from those two when it is shown, in the
reader's language, never stored. The history, the control socket's status and the fleet's MQTT
messages carry the code (``Termination``'s values, which never change), so a dashboard can
count the endings of every table and game alike; ``WORDS`` names each for such a reader.

Every way a game of the table ends, from the engines' own game-end paths:

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

No game ends on time: an enforced turn timer passes the turn, never the game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, StrEnum

from .keys import Team
from .phrase import N_, Phrase


class Termination(StrEnum):
    """How a game ended; the value is what the history, the status and MQTT carry."""

    ALL_AGENTS_FOUND = "all_agents_found"
    OPPONENTS_LAST_AGENT = "opponents_last_agent"
    ALL_AGENTS_COVERED = "all_agents_covered"
    ASSASSIN = "assassin"
    LAST_ASSET_ELIMINATED = "last_asset_eliminated"
    OWN_LAST_ASSET = "own_last_asset"
    NUKE = "nuke"
    ARMED_NUKE = "armed_nuke"
    CODE_ENTERED = "code_entered"


WORDS = {
    Termination.ALL_AGENTS_FOUND: N_("all agents found"),
    Termination.OPPONENTS_LAST_AGENT: N_("the other team's last agent touched"),
    Termination.ALL_AGENTS_COVERED: N_("all agents covered"),
    Termination.ASSASSIN: N_("the assassin touched"),
    Termination.LAST_ASSET_ELIMINATED: N_("the last asset eliminated"),
    Termination.OWN_LAST_ASSET: N_("its own last asset eliminated"),
    Termination.NUKE: N_("the nuke set off"),
    Termination.ARMED_NUKE: N_("the armed nuke set off: both teams lose"),
    Termination.CODE_ENTERED: N_("the right code entered"),
}
"""Each termination as a reader names it (a dashboard's column, a count of the day's endings):
a msgid, said in the reader's language."""

TEAM_SENTENCES: dict[Termination, Callable[[Team], Phrase]] = {
    Termination.ALL_AGENTS_FOUND: lambda by: Phrase.of("{team} found all its agents", team=by),
    Termination.OPPONENTS_LAST_AGENT: lambda by: Phrase.of("{team} touched {other}'s last agent", team=by,
                                                           other=by.other),
    Termination.ALL_AGENTS_COVERED: lambda by: Phrase.of("{team} has all its agents covered", team=by),
    Termination.ASSASSIN: lambda by: Phrase.of("{team} touched the assassin", team=by),
    Termination.LAST_ASSET_ELIMINATED: lambda by: Phrase.of("{team} lost its last asset", team=by.other),
    Termination.OWN_LAST_ASSET: lambda by: Phrase.of("{team} eliminated its own last asset", team=by),
    Termination.NUKE: lambda by: Phrase.of("{team} set off the nuke", team=by),
    Termination.ARMED_NUKE: lambda by: Phrase.of("{team} set off the armed nuke: both teams lose", team=by),
}
"""The team games' endings as sentences, from the team whose action ended the game (Alias 24's
last asset is said of the team that lost it)."""


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
