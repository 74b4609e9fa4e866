"""The table loop: the one thread that owns the game.

Devices put events on its queue (``post`` is thread-safe and is all a driver may call). The
loop turns each event into an engine action, applies it through the session, and shows the
result: an LED frame computed from the table view alone, and a screen model for the
spymasters. A refused action changes nothing and its reason goes to the screen.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass

from ..engine import PLACE, EndTurn, Guess, InvalidAction, InvalidRules, Place, RuleError
from ..hal import (
    Buttons,
    ButtonEvent,
    Command,
    Event,
    HealthEvent,
    LedStrip,
    NewGame,
    Screen,
    ScreenModel,
    TouchEvent,
    TouchSource,
    UiEvent,
)
from ..ui.leds import render_frame
from .session import Session

REFUSALS = (RuleError, InvalidAction, InvalidRules)
BUTTON_COMMANDS = {"end_turn": EndTurn(), "new_game": NewGame()}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one command: accepted, or refused with the reason in plain words."""

    command: Command
    ok: bool
    error: str | None = None


class TableLoop:
    def __init__(self, session: Session, touch: TouchSource, leds: LedStrip, screen: Screen, buttons: Buttons) -> None:
        self.session = session
        self.touch, self.leds, self.screen, self.buttons = touch, leds, screen, buttons
        self._events: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self.pressed: set[int] = set()
        self.message: str | None = None
        self.faults: dict[str, str] = {}  # device -> what is wrong with it

    def post(self, event: Event) -> None:
        """Queue an event for the loop; safe from any thread."""
        self._events.put(event)

    def open(self) -> None:
        for device in (self.touch, self.buttons, self.screen):
            device.start(self.post)
        self.show()

    def close(self) -> None:
        for device in (self.touch, self.buttons, self.screen):
            device.stop()
        self.leds.close()
        self.session.close()

    def run_pending(self) -> list[Outcome]:
        """Handle every queued event now, in the calling thread; for scripts and tests."""
        outcomes = []
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return outcomes
            outcome = self.handle(event)
            if outcome is not None:
                outcomes.append(outcome)

    def run(self, stop: threading.Event, poll_s: float = 0.5) -> None:
        """Handle events as they come until ``stop`` is set; sleeps while nothing happens."""
        while not stop.is_set():
            try:
                event = self._events.get(timeout=poll_s)
            except queue.Empty:
                continue
            self.handle(event)

    def handle(self, event: Event) -> Outcome | None:
        """One event in, the table shown again; an Outcome when it asked for a command."""
        outcome = None
        if isinstance(event, TouchEvent):
            outcome = self._touch(event)
        elif isinstance(event, ButtonEvent):
            outcome = self.submit(BUTTON_COMMANDS[event.name])
        elif isinstance(event, UiEvent):
            outcome = self.submit(event.command)
        elif isinstance(event, HealthEvent):
            if event.ok:
                self.faults.pop(event.device, None)
            else:
                self.faults[event.device] = event.detail or f"{event.device} is not working"
        self.show()
        return outcome

    def _touch(self, event: TouchEvent) -> Outcome | None:
        """A single finger on one card is a guess (a placement while Deep Undercover sets up);
        several cards at once count as nothing."""
        if not event.pressed:
            self.pressed.discard(event.cell)
            return None
        self.pressed.add(event.cell)
        if len(self.pressed) > 1:
            self.message = "several cards are touched at once: lift your hands (wipe the table if it is wet)"
            return None
        place = self.session.state.phase == PLACE
        return self.submit(Place(event.cell) if place else Guess(event.cell))

    def submit(self, command: Command) -> Outcome:
        try:
            if isinstance(command, NewGame):
                self.session.new_game(command.game)
            else:
                self.session.submit(command)
        except REFUSALS as refusal:
            self.message = str(refusal)
            return Outcome(command, False, str(refusal))
        self.message = None
        return Outcome(command, True)

    def show(self) -> None:
        view = self.session.spymaster_view()
        warnings = tuple(self.faults.values())
        pending = frozenset(self.pressed)
        self.leds.show(render_frame(view.table, pending=pending, warnings=warnings))
        self.screen.show(ScreenModel(view, self.session.id, self.message, warnings, pending))
