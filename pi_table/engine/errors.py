"""The engine's errors: each one says in plain words what was refused and why.

All are ``ValueError`` subclasses (as in python-chess) so a caller can catch them together.
Each is raised with its meaning, a catalogue template and its fields
(``RuleError("card {cell} is already revealed", cell=7)``), kept as ``error.phrase`` for the
screens to translate; ``str(error)`` is the English sentence.
"""

from __future__ import annotations

from .phrase import Phrase


class Refusal(ValueError):
    """An error that carries its sentence as a ``Phrase`` (given whole, or as template and fields)."""

    def __init__(self, template: str | Phrase, /, **fields: object) -> None:
        self.phrase = template if isinstance(template, Phrase) else Phrase.of(template, **fields)
        super().__init__(str(self.phrase))


class RuleError(Refusal):
    """The rules do not allow this action now ("card 7 is already revealed")."""


class GameOver(RuleError):
    """The game has ended; only undo or a new game can follow."""


class InvalidAction(Refusal):
    """The action itself is malformed: a cell off the grid, a clue number out of range."""


class InvalidKey(Refusal):
    """A key string that is not a valid key for the game (length, letters or counts)."""


class InvalidRules(Refusal):
    """An option value that no game understands (unknown game, nuke mode, dark cell...)."""
