"""The grid games' command words: the engine's actions plus ``new-game``.

Scripts, the terminal simulator and (later) the control socket all speak this language.
"""

from __future__ import annotations

from ..engine import InvalidAction, parse_action
from ..engine.actions import ACTION_WORDS
from ..engine.games import names_of
from ..hal import Command, NewGame

COMMAND_WORDS = ACTION_WORDS + ("new-game",)
GAMES = names_of("grid")
"""The games ``new-game`` deals here: those played on the grid."""


def parse_command(text: str) -> Command:
    """Read one command; raise ``InvalidAction`` naming what was expected."""
    words = text.split()
    verb = words[0].lower() if words else ""
    if verb == "new-game":
        if len(words) > 2:
            raise InvalidAction("'new-game' takes at most one argument, a game ({games})", games=", ".join(GAMES))
        game = words[1].lower() if len(words) == 2 else None
        if game is not None and game not in GAMES:
            raise InvalidAction("the games are {games}", games=", ".join(GAMES), given=game)
        return NewGame(game)
    if verb and verb not in ACTION_WORDS:
        raise InvalidAction("the commands are {words}", words=", ".join(COMMAND_WORDS), given=verb)
    return parse_action(text)
