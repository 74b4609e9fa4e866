"""The grid games' command words: the engine's actions plus ``new-game``.

Scripts, the terminal simulator and (later) the control socket all speak this language. A
script writes the words in English; the terminal also takes them in the table's language, the
words its prompts and help say (``SPOKEN``).
"""

from __future__ import annotations

from ..engine import InvalidAction, parse_action
from ..engine.actions import ACTION_WORDS
from ..engine.games import names_of
from ..hal import Command, NewGame

COMMAND_WORDS = ACTION_WORDS + ("new-game",)
SPOKEN = {
    "it": {"indizio": "clue", "tocca": "touch", "fine-turno": "end-turn", "penalità": "penalty", "copri": "cover",
           "posiziona": "place", "tempo-scaduto": "time-up", "annulla": "undo", "nuova-partita": "new-game",
           "aiuto": "help", "esci": "quit"},
}
"""The command words in the table's other languages, as the terminal's prompts say them (the
new-game question's ``annulla``): each stands for the English word a script (or, for ``help`` and
``quit``, the terminal) takes."""


def as_written(text: str, lang: str) -> str:
    """``text`` with its command word as a script writes it (``annulla`` is ``undo`` in Italian)."""
    verb, _, rest = text.strip().partition(" ")
    word = SPOKEN.get(lang, {}).get(verb.lower())
    return text if word is None else f"{word} {rest}".strip()


def parse_command(text: str, games: tuple[str, ...] | None = None) -> Command:
    """Read one command; raise ``InvalidAction`` naming what was expected. ``games``: those
    ``new-game`` may name (the terminal's: every game, to change kinds); by default the games
    played on the grid, as registered now."""
    games = names_of("grid") if games is None else games
    words = text.split()
    verb = words[0].lower() if words else ""
    if verb == "new-game":
        if len(words) > 2:
            raise InvalidAction("'new-game' takes at most one argument, a game ({games})", games=", ".join(games))
        game = words[1].lower() if len(words) == 2 else None
        if game is not None and game not in games:
            raise InvalidAction("the games are {games}", games=", ".join(games), given=game)
        return NewGame(game)
    if verb and verb not in ACTION_WORDS:
        raise InvalidAction("the commands are {words}", words=", ".join(COMMAND_WORDS), given=verb)
    return parse_action(text)
