"""A finished game of the night, as the table records it: its teams, the winner, how it ended
(the engine's ``Termination``, never a sentence) and its margin.

The margin is the agents (Alias 24: assets) the losing team still had to find when the game
ended: 0 for a photo finish, 8 for a rout. What a game is comes from its description
(``engine.games.described``), never its name: how many teams play it, whether it is cooperative,
scored or rated. A cooperative game has one team and no loser: its score goes on the night's own
high-score list (``standings.high_scores``), not in the standings. A game's ``id`` is the journal's: the table, the night's file and the fleet's
dashboard each count a game once whatever number of times they are told of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.endings import Termination
from ..engine.errors import Refusal
from ..engine.games import described, termination
from ..engine.keys import NO_CARD
from ..engine.views import HIDDEN

COLOURS = ("red", "blue")  # the public view's names of the teams' colours, the first team red
CARDS = 25  # a grid game's words, cell 0 first, as a spymaster confirmed them


class GameRefused(Refusal):
    """A game record that does not hold together (a winner who did not play, an unknown ending)."""


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game: ``teams`` the night's teams in colour order (red, blue; one for the
    cooperative game), ``winner`` one of them or None (both lost), ``round`` the night's round it
    was paired in (None: a game outside the pairings), ``at`` when it ended (seconds since the epoch)."""

    id: str
    table: str
    game: str
    teams: tuple[str, ...]
    winner: str | None
    termination: Termination
    margin: int | None
    score: int | None
    round: int | None
    at: float
    pairing: int | None = None  # the round's pairing it was dealt for (its undos before then); None: a game before them
    words: tuple[str, ...] = ()  # the cards' words a spymaster confirmed, cell 0 first; none: not confirmed
    board: str = ""  # the grid as it ended (the public view's: a hidden card ``?``), for the words guessed

    def __post_init__(self) -> None:
        count = described(self.game).teams
        if len(self.teams) != count or len(set(self.teams)) != len(self.teams):
            raise GameRefused("a game of {game} is played by {count} different teams", game=self.game, count=count)
        if self.winner is not None and self.winner not in self.teams:
            raise GameRefused("the winner is one of the game's teams")

    @property
    def rated(self) -> bool:
        """Whether the game counts in the standings, as its description says."""
        return described(self.game).rated

    @property
    def guessed(self) -> tuple[str, ...]:
        """The words of the cards turned over when the game ended, in the cards' order."""
        return tuple(word for word, shown in zip(self.words, self.board, strict=False) if shown not in (HIDDEN, NO_CARD))

    @property
    def drawn(self) -> bool:
        """Both teams lost (Alias 24's armed nuke)."""
        return self.rated and self.winner is None

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "table": self.table, "game": self.game, "teams": list(self.teams), "winner": self.winner,
                "termination": self.termination.value, "margin": self.margin, "score": self.score, "round": self.round,
                "at": self.at, **({} if self.pairing is None else {"pairing": self.pairing}),
                **({"words": list(self.words), "board": self.board} if self.words else {})}

    @classmethod
    def from_json(cls, data: object) -> Game:
        """A game as ``to_json`` wrote it; GameRefused (or KeyError, TypeError, ValueError) when it is not one."""
        if not isinstance(data, dict):
            raise GameRefused("a game is a JSON object")
        teams = data["teams"]
        if not isinstance(teams, list) or not all(isinstance(name, str) for name in teams):
            raise GameRefused("a game's teams are a list of names")
        fields = {name: data[name] for name in ("id", "table", "game")}
        if not all(isinstance(value, str) for value in fields.values()) or not isinstance(data["at"], (int, float)):
            raise GameRefused("a game's id, table and game are strings, its time a number")
        numbers = [data[name] for name in ("margin", "score", "round")] + [data.get("pairing")]
        if not all(value is None or (isinstance(value, int) and not isinstance(value, bool)) for value in numbers):
            raise GameRefused("a game's margin, score, round and pairing are whole numbers or null")
        if data["winner"] is not None and not isinstance(data["winner"], str):
            raise GameRefused("a game's winner is a team's name or null")
        words, board = data.get("words", []), data.get("board", "")
        if not isinstance(words, list) or len(words) not in (0, CARDS) or not all(isinstance(word, str) for word in words) \
                or not isinstance(board, str) or len(board) != (CARDS if words else 0):
            raise GameRefused("a game's words are its 25 words, with its board of 25 cards")
        return cls(**fields, teams=tuple(teams), winner=data["winner"], termination=termination(data["termination"]),
                   margin=data["margin"], score=data["score"], round=data["round"], at=float(data["at"]),
                   pairing=data.get("pairing"), words=tuple(words), board=board)


def from_view(game_id: str, table: str, teams: tuple[str, ...], state: dict[str, Any], round_number: int | None,
              at: float, pairing: int | None = None) -> Game | None:
    """The game a finished public view (``TableView.to_json()``) records, its colours the night's
    ``teams`` in colour order (red first); None while the game goes on."""
    code = state.get("termination")
    if code is None:
        return None
    ended = termination(code)
    kind = str(state.get("game"))
    confirmed = state.get("words")
    words = tuple(str(word) for word in confirmed) if isinstance(confirmed, list) else ()
    board = str(state.get("board")) if words else ""
    winner_colour = state.get("winner")
    game = described(kind)
    if game.cooperative:  # the players are the team of the key's starting colour; their win is scored
        winner = teams[0] if state.get("winner") is not None and state.get("winner") == state.get("start") else None
        return Game(game_id, table, kind, teams[:game.teams], winner, ended, None,
                    state.get("score") if game.score is not None else None, round_number, at, pairing, words, board)
    by_colour = dict(zip(COLOURS, teams, strict=True))
    remaining = state.get("remaining") or {}
    losers = [colour for colour in COLOURS if colour != winner_colour]
    margin = None if winner_colour is None else remaining.get(losers[0])
    return Game(game_id, table, kind, teams, by_colour.get(str(winner_colour)), ended, margin,
                None, round_number, at, pairing, words, board)
