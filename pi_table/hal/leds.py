"""LED strips: the light under each cell and the edge strip."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass

RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class LedFrame:
    """One picture for the grid: a colour per cell (row-major, 25) and the edge strip's pixels.

    Colours are linear 0-255 before brightness and gamma; mapping cells to LED indices
    (serpentine strips, several LEDs per cell) is the backend's business.
    """

    cells: tuple[RGB, ...]
    edge: tuple[RGB, ...]


class LedStrip(ABC):
    """A backend implements ``show`` (put this frame on the LEDs now, without blocking the
    loop for long) and ``close`` (turn the LEDs off and release the device)."""

    @abstractmethod
    def show(self, frame: LedFrame) -> None: ...

    def close(self) -> None:
        """Turn the LEDs off and release the device."""


class SimLedStrip(LedStrip):
    """Records every frame it is shown, for tests and the simulators."""

    def __init__(self, keep: int = 10_000) -> None:
        self.frames: deque[LedFrame] = deque(maxlen=keep)

    def show(self, frame: LedFrame) -> None:
        self.frames.append(frame)

    @property
    def last(self) -> LedFrame | None:
        return self.frames[-1] if self.frames else None
