"""The engine's errors: each one says in plain words what was refused and why.

All are ``ValueError`` subclasses (as in python-chess) so a caller can catch them together;
the table shows the message to the players as it is.
"""


class RuleError(ValueError):
    """The rules do not allow this action now ("card 7 is already revealed")."""


class GameOver(RuleError):
    """The game has ended; only undo or a new game can follow."""


class InvalidAction(ValueError):
    """The action itself is malformed: a cell off the grid, a clue number out of range."""


class InvalidKey(ValueError):
    """A key string that is not a valid key for the game (length, letters or counts)."""


class InvalidRules(ValueError):
    """An option value that no game understands (unknown game, nuke mode, dark cell...)."""
