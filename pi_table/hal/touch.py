"""Touch sources: where presses and releases of the 25 cells come from."""

from __future__ import annotations

from abc import ABC, abstractmethod

from .events import Emit, NotStarted, TouchEvent


class TouchSource(ABC):
    """A backend implements ``start`` (begin delivering ``TouchEvent``s to ``emit``, from any
    thread) and ``stop``. It reports each press and release of a cell once, by cell number, and
    everything that changed in one reading of the pads in one event: a palm's cells arrive
    together, never one by one. Mapping electrodes to cells is the backend's business."""

    @abstractmethod
    def start(self, emit: Emit) -> None: ...

    def stop(self) -> None:
        """Stop delivering events and release the device."""

    def recalibrate(self, cells: list[int]) -> None:
        """Take a new untouched baseline for these cells' pads (after one was stuck)."""

    def ended(self) -> str | None:
        """Why this source delivers no more touches until the table restarts (the thread that
        reads it has died); None while it works, and for a source with nothing that can die."""
        return None


class SimTouch(TouchSource):
    """A touch grid driven by a test or the simulator: ``press(*cells)``, ``release(*cells)``;
    several cells in one call are one reading of the pads (a palm lands in one event)."""

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

    def press(self, *cells: int) -> None:
        self._send(TouchEvent(pressed=frozenset(cells)))
        self.pressed.update(cells)

    def release(self, *cells: int) -> None:
        self._send(TouchEvent(released=frozenset(cells)))
        self.pressed.difference_update(cells)

    def _send(self, event: TouchEvent) -> None:
        if self._emit is None:
            raise NotStarted("the simulated touch grid is not started")
        self._emit(event)


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

    def ended(self) -> str | None:
        return next((why for source in self.sources if (why := source.ended()) is not None), None)
