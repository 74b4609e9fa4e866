"""What the table shows besides the game itself: shared by every output device's model."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import CELLS
from ..engine.phrase import Text


@dataclass(frozen=True, slots=True)
class TimerState:
    """The turn timer as it stands at one moment (the daemon runs it, not a screen)."""

    length_s: float
    remaining_s: float
    warn_s: float
    enforced: bool  # the turn ends when it runs out
    running: bool  # False while the game is over or not yet begun

    @property
    def warning(self) -> bool:
        return self.running and 0 < self.remaining_s <= self.warn_s

    @property
    def expired(self) -> bool:
        return self.running and self.remaining_s <= 0


@dataclass(frozen=True, slots=True)
class Cues:
    """The table's own signals for the outputs, all public: no key in here.

    ``revealed_at`` holds, per cell, the loop-clock time the card was shown (None while
    hidden), so renderers can play a short reveal animation; ``idle`` is True when nothing
    has happened for a while and the grid may play its attract animation; ``deaf`` holds the
    cells whose pads the touch board cannot hear now, marked so players stop touching them.
    """

    pending: frozenset[int] = frozenset()
    warnings: tuple[Text, ...] = ()  # each says what is wrong and what to do
    timer: TimerState | None = None
    revealed_at: tuple[float | None, ...] = (None,) * CELLS
    idle: bool = False
    deaf: frozenset[int] = frozenset()
