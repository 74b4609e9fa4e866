"""The table loop: the one thread that owns the game.

Devices put events on its queue (``post`` is thread-safe and is all a driver may call). The
loop turns each event into an engine action, applies it through the session, and shows the
result: an LED frame computed from the table view alone, and a screen model for the
spymasters. A refused action changes nothing and its reason goes to the screen.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..engine import PLACE, EndTurn, Guess, InvalidAction, InvalidRules, Place, RuleError
from ..hal import (
    Buttons,
    ButtonEvent,
    Command,
    Cues,
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
from .input import TouchPolicy
from .session import Session

REFUSALS = (RuleError, InvalidAction, InvalidRules)
_STOP = object()  # queued by stop_soon(): the loop ends once the events before it are handled
BUTTON_COMMANDS = {"end_turn": EndTurn(), "new_game": NewGame()}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one command: accepted, or refused with the reason in plain words."""

    command: Command
    ok: bool
    error: str | None = None


class TableLoop:
    def __init__(
        self,
        session: Session,
        touch: TouchSource,
        leds: LedStrip,
        screen: Screen,
        buttons: Buttons,
        policy: TouchPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = session
        self.touch, self.leds, self.screen, self.buttons = touch, leds, screen, buttons
        self.policy = policy or TouchPolicy()
        self.clock = clock
        self._events: queue.SimpleQueue[Event] = queue.SimpleQueue()
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
        """Handle every queued event and every hold that is due, in the calling thread."""
        outcomes = []
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                break
            outcomes.append(self.handle(event))
        outcomes.append(self.tick())
        return [outcome for outcome in outcomes if outcome is not None]

    def run(self, stop: threading.Event | None = None, poll_s: float = 0.5) -> None:
        """Handle events as they come until ``stop`` is set or ``stop_soon`` is reached.
        Between events it sleeps until the next event or the next hold deadline, whichever
        comes first: no busy polling."""
        stop = stop or threading.Event()
        while not stop.is_set():
            deadline = self.policy.next_deadline()
            wait = poll_s if deadline is None else min(poll_s, max(0.0, deadline - self.clock()))
            try:
                event = self._events.get(timeout=wait)
            except queue.Empty:
                self.tick()
                continue
            if event is _STOP:
                return
            self.handle(event)

    def stop_soon(self) -> None:
        """Make ``run`` return after the events already queued; safe from any thread."""
        self._events.put(_STOP)

    def tick(self) -> Outcome | None:
        """Act on a hold that has completed, or a pad gone stuck, and show it if anything did."""
        stuck = len(self.policy.stuck)
        outcome = self._hold_completed()
        if outcome is not None or len(self.policy.stuck) != stuck:
            self.show()
        return outcome

    def handle(self, event: Event) -> Outcome | None:
        """One event in, the table shown again; an Outcome when it asked for a command."""
        outcome = None
        if isinstance(event, TouchEvent):
            if event.pressed:
                self.policy.press(event.cell, self.clock())
            elif self.policy.release(event.cell):
                self.touch.recalibrate([event.cell])  # a stuck pad counts again once re-baselined
            outcome = self._hold_completed()
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

    def _hold_completed(self) -> Outcome | None:
        """A guess (a placement while Deep Undercover sets up) when a lone touch has been held."""
        cell = self.policy.due(self.clock())
        if cell is None:
            return None
        return self.submit(Place(cell) if self.session.state.phase == PLACE else Guess(cell))

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
        cues = Cues(pending=self.policy.pending, warnings=tuple(self.faults.values()) + self.policy.warnings)
        self.leds.show(render_frame(view.table, cues, self.clock()))
        self.screen.show(ScreenModel(view, self.session.id, self.message, cues))
