"""The engine's errors: each one says in plain words what was refused and why.

All are ``ValueError`` subclasses (as in python-chess) so a caller can catch them together.
Each is raised with its meaning, a catalogue template and its fields
(``RuleError("card {cell} is already revealed", cell=7)``), kept as ``error.phrase`` for the
screens to translate; ``str(error)`` is the English sentence.

A refusal of something read (a command, a key) says what was expected in its template and gives
the words it was given apart, as ``given``: ``error.phrase`` ends with them ("the cell must be a
whole number, not 'x'") for the person who just typed them, and ``error.expected`` is the
sentence without them, for a reader of a file (a script, the journal), which names the line
instead: a file may be a secret one, and no message repeats what a file holds.
"""

from __future__ import annotations

from ..errors import PiTableError
from .phrase import Phrase


class Refusal(PiTableError, ValueError):
    """An error that carries its sentence as a ``Phrase`` (given whole, or as template and fields),
    and ``given``, the words it refuses, if any, kept out of ``expected``."""

    def __init__(self, template: str | Phrase, /, *, given: object = None, **fields: object) -> None:
        self.expected = template if isinstance(template, Phrase) else Phrase.of(template, **fields)
        self.given = given
        self.phrase = self.expected if given is None else Phrase.of("{expected}, not {given!r}", expected=self.expected,
                                                                     given=given)
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
