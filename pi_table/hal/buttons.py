"""Buttons: END TURN and NEW GAME (and later the rotary encoder for the clue number)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from .events import ButtonEvent, Emit, NotStarted


class Buttons(ABC):
    """A backend implements ``start`` (deliver a ``ButtonEvent`` to ``emit`` for each push,
    from any thread; a long press for NEW GAME is the backend's to detect) and ``stop``."""

    @abstractmethod
    def start(self, emit: Emit) -> None: ...

    def stop(self) -> None:
        """Stop delivering events and release the pins."""

    def held(self) -> frozenset[str]:
        """The buttons held down now, by name ("end_turn", "new_game"): both held while the
        table starts is how the staff show they are at it (a PIN reset code on its screen)."""
        return frozenset()


class SimButtons(Buttons):
    """Buttons a test or the simulator pushes, ``push("end_turn")``, or holds down, ``down.add("new_game")``."""

    def __init__(self) -> None:
        self._emit: Emit | None = None
        self.down: set[str] = set()

    def start(self, emit: Emit) -> None:
        self._emit = emit

    def stop(self) -> None:
        self._emit = None

    def held(self) -> frozenset[str]:
        return frozenset(self.down)

    def push(self, name: str) -> None:
        if self._emit is None:
            raise NotStarted("the simulated buttons are not started")
        self._emit(ButtonEvent(name))
