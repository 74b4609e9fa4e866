"""Touch sources: where presses and releases of the 25 cells come from."""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..engine import CELLS
from .events import Emit, TouchEvent


class TouchSource(ABC):
    """A backend implements ``start`` (begin delivering ``TouchEvent``s to ``emit``, from any
    thread) and ``stop``. It reports each press and release of a cell once, by cell number;
    mapping electrodes to cells is the backend's business."""

    @abstractmethod
    def start(self, emit: Emit) -> None: ...

    def stop(self) -> None:
        """Stop delivering events and release the device."""

    def recalibrate(self, cells: list[int]) -> None:
        """Take a new untouched baseline for these cells' pads (after one was stuck)."""


class SimTouch(TouchSource):
    """A touch grid driven by a test or the simulator: ``press(cell)``, ``release(cell)``."""

    def __init__(self) -> None:
        self._emit: Emit | None = None
        self.pressed: set[int] = set()
        self.recalibrated: list[int] = []

    def start(self, emit: Emit) -> None:
        self._emit = emit

    def stop(self) -> None:
        self._emit = None

    def recalibrate(self, cells: list[int]) -> None:
        self.recalibrated += cells

    def press(self, cell: int) -> None:
        self._send(cell, True)

    def release(self, cell: int) -> None:
        self._send(cell, False)

    def _send(self, cell: int, pressed: bool) -> None:
        if not 0 <= cell < CELLS:
            raise ValueError(f"cell {cell} is off the grid: cells are 0 to {CELLS - 1}")
        if self._emit is None:
            raise RuntimeError("the simulated touch grid is not started")
        (self.pressed.add if pressed else self.pressed.discard)(cell)
        self._emit(TouchEvent(cell, pressed))


class MultiTouch(TouchSource):
    """Several touch sources as one: the simulator's typed touches beside a real board."""

    def __init__(self, *sources: TouchSource) -> None:
        self.sources = sources

    def start(self, emit: Emit) -> None:
        for source in self.sources:
            source.start(emit)

    def stop(self) -> None:
        for source in self.sources:
            source.stop()

    def recalibrate(self, cells: list[int]) -> None:
        for source in self.sources:
            source.recalibrate(cells)
