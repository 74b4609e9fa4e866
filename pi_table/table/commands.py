"""The grid games' command words: the engine's actions plus ``new-game``.

Scripts, the terminal simulator and (later) the control socket all speak this language. A
script writes the words in English; the terminal also takes them in the table's language, the
words its prompts and help say (``SPOKEN``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..engine import InvalidAction, parse_action
from ..engine.actions import ACTION_WORDS
from ..engine.games import names_of
from ..engine.phrase import Phrase
from ..hal import Command, NewGame

COMMAND_WORDS = (*ACTION_WORDS, NewGame.WORD)
SPOKEN = {
    "it": {"indizio": "clue", "tocca": "touch", "fine-turno": "end-turn", "penalità": "penalty", "copri": "cover",
           "posiziona": "place", "tempo-scaduto": "time-up", "annulla": "undo", "parole": "words",
           "nuova-partita": "new-game",
           "aiuto": "help", "esci": "quit",
           "invia": "send", "codice": "code", "blocca": "block", "profila": "profile", "fatto": "done", "vota": "vote",
           "rivela": "reveal", "fine-discussione": "end-discussion"},
}
"""The command words in the table's other languages, as the terminal's prompts and the screen's
buttons say them (the new-game question's ``annulla``, an agent's INVIA and FATTO): each stands
for the English word a script (or, for ``help`` and ``quit``, the terminal) takes."""
VALUES = {
    "it": {"senza limiti": "unlimited", "fazione": "faction", "ruolo": "role", "posizione": "position",
           "frammento": "fragment", "nome-in-codice": "codename", "estorci": "extort"},
}
"""The words a command takes after its verb, as the table's other languages say them: the book's
"indizio senza limiti" (two words, as the screen writes it), an agent's facts as the screen names
them."""
PLACEHOLDERS = {
    "it": {"SEAT": "POSTO", "TO": "A", "FACT": "INFO", "TARGET": "BERSAGLIO", "MESSAGE": "MESSAGGIO"},
}
"""A usage's placeholders in the table's other languages: ``invia POSTO A INFO`` teaches what the
Italian terminal takes, as ``send SEAT TO FACT`` does a script."""


def spoken(words: tuple[str, ...], lang: str) -> str:
    """``words``, command words as a script writes them, as the terminal in ``lang`` also takes
    them: ``annulla (undo)``; a word the language says no other way, as it is."""
    own = {written: said for said, written in SPOKEN.get(lang, {}).items()}
    return ", ".join(f"{own[word]} ({word})" if word in own else word for word in words)


def words_spoken(text: str, lang: str) -> str:
    """The words after a command's verb as the terminal in ``lang`` says them: a usage's
    placeholders (``POSTO``), a fact or a value (``nome-in-codice``, ``estorci``)."""
    own = {**{written: said for said, written in VALUES.get(lang, {}).items()}, **PLACEHOLDERS.get(lang, {})}
    return re.sub(r"[A-Za-z][A-Za-z-]*", lambda word: own.get(word[0], word[0]), text)


def as_spoken(usage: str, lang: str) -> str:
    """A command (``clue N``, ``send SEAT TO FACT``) with its words as the terminal in ``lang``
    says them (``indizio N``, ``invia POSTO A INFO``)."""
    verb, _, rest = usage.partition(" ")
    own = {written: said for said, written in SPOKEN.get(lang, {}).items()}
    return f"{own.get(verb, verb)} {words_spoken(rest, lang)}".strip()


def as_written(text: str, lang: str) -> str:
    """``text`` as a script writes it: its command word (``annulla`` is ``undo`` in Italian; the
    buttons' ``fine turno``, with its space, is ``end-turn`` as ``fine-turno`` is) and the words
    after it (``senza limiti`` is ``unlimited``)."""
    text = text.strip()
    verb, _, rest = text.partition(" ")
    for said in sorted(SPOKEN.get(lang, {}), key=len, reverse=True):  # the longest first: fine-discussione
        spaced = re.match(r"[-\s]+".join(map(re.escape, said.split("-"))) + r"(?!\S)", text, re.IGNORECASE)
        if "-" in said and spaced:
            verb, rest = said, text[spaced.end():].strip()
            break
    word = SPOKEN.get(lang, {}).get(verb.lower(), verb)
    for said, written in sorted(VALUES.get(lang, {}).items(), key=lambda pair: -len(pair[0])):
        rest = re.sub(rf"(?<!\S){re.escape(said)}(?!\S)", written, rest, flags=re.IGNORECASE)
    return f"{word} {rest}".strip()


def in_words_spoken(phrase: Phrase, lang: str) -> Phrase:
    """A refusal of a command, naming the command as the terminal in ``lang`` takes it: its
    ``verb`` field (``'tocca' richiede un argomento``), its ``usage`` and what was ``given``, in
    the sentences inside it too."""
    def field(name: str, value: object) -> object:
        if isinstance(value, Phrase):
            return in_words_spoken(value, lang)
        if name in ("verb", "usage", "given") and isinstance(value, str):
            return as_spoken(value, lang)
        if name == "names" and isinstance(value, str):  # the facts a fact may be
            return words_spoken(value, lang)
        return value

    return replace(phrase, fields=tuple((name, field(name, value)) for name, value in phrase.fields))


def parse_command(text: str, games: tuple[str, ...] | None = None) -> Command:
    """Read one command; raise ``InvalidAction`` naming what was expected. ``games``: those
    ``new-game`` may name (the terminal's: every game, to change kinds); by default the games
    played on the grid, as registered now."""
    games = names_of("grid") if games is None else games
    words = text.split()
    verb = words[0].lower() if words else ""
    if verb == NewGame.WORD:
        if len(words) > 2:
            raise InvalidAction("'{verb}' takes at most one argument, a game ({games})", verb=verb, games=", ".join(games))
        game = words[1].lower() if len(words) == 2 else None
        if game is not None and game not in games:
            raise InvalidAction("the games are {games}", games=", ".join(games), given=game)
        return NewGame(game)
    if verb and verb not in ACTION_WORDS:
        raise InvalidAction("the commands are {words}", words=", ".join(COMMAND_WORDS), given=verb)
    return parse_action(text)
