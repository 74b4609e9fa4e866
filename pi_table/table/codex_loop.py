"""The table's loop for Codex, where the table is the Master.

The agents act from their phones (the companion hands each action to ``submit`` in this
thread) or, passing and playing, on the side screen; the table relays nothing itself, the
engine does. The loop runs the discussion's timer (``end-discussion`` when it runs out, or
END TURN to close the discussion early), journals every accepted action through the session,
and shows the public side: the screen turned to the table, and one light per seat.
Touches on the grid do nothing in Codex. A seat's phone page given a new link
(``release_seat``) is the screen's business, where the links show; the game is untouched.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..engine.codex import DISCUSSION, Codex, CodexRecord
from ..engine.codex_actions import EndDiscussion
from ..engine.codex_rules import DISCUSSION_LENGTH, DISCUSSION_S
from ..hal import (
    ButtonEvent,
    Buttons,
    Command,
    Cues,
    Event,
    LedStrip,
    NewGame,
    ReleaseSeat,
    Screen,
    TouchSource,
    UiEvent,
)
from ..hal.codex_model import CodexModel
from ..hal.events import DEVICE_NEWS
from ..ui.leds import LightSettings
from ..ui.sound import Moment
from .loop import ENDED, REFUSALS, EventLoop, LoopSettings, Outcome, most_serious_first
from .session import Session
from .timer import TimerSettings, TurnTimer


class CodexLoop(EventLoop):
    def __init__(
        self,
        session: Session,
        touch: TouchSource,
        leds: LedStrip,
        screen: Screen,
        buttons: Buttons,
        clock: Callable[[], float] = time.monotonic,
        discussion_s: float = DISCUSSION_S,
        lights: LightSettings | None = None,
        lang: str = "en",
    ) -> None:
        super().__init__(session, touch, leds, screen, buttons, clock)
        warn = min(10.0, discussion_s / 4)
        self.timer = TurnTimer(TimerSettings(length_s=discussion_s, warn_s=warn, enforce=True))
        self.lights = lights or LightSettings()
        self.lang = lang
        self._follow_game()

    @classmethod
    def made(cls, session: Session, touch: TouchSource, leds: LedStrip, screen: Screen, buttons: Buttons,
             settings: LoopSettings) -> CodexLoop:
        discussion_s = settings.options.get(DISCUSSION_LENGTH.name, DISCUSSION_S)
        assert isinstance(discussion_s, (int, float)), "the configuration reads a number"
        return cls(session, touch, leds, screen, buttons, discussion_s=discussion_s, lights=settings.lights,
                   lang=settings.lang)

    @property
    def record(self) -> CodexRecord:
        return self.session.record.of(Codex)

    def handle(self, event: Event, came: float) -> Outcome | None:
        outcome = None
        if isinstance(event, DEVICE_NEWS):
            self.note_health(event)
        elif isinstance(event, ButtonEvent) and event.name == "new_game":
            outcome = self.submit(NewGame())
        elif isinstance(event, ButtonEvent) and event.name == "end_turn":
            if self.record.state.step == DISCUSSION:  # the table agrees to vote before time is up
                outcome = self.submit(EndDiscussion())
        elif isinstance(event, UiEvent) and isinstance(event.command, ReleaseSeat):
            outcome = self.release_seat(event.command.seat)
        elif isinstance(event, UiEvent):
            outcome = self.submit(event.command)
        self.show()
        return outcome

    def release_seat(self, seat: int, public: bool = True) -> Outcome:
        """Give seat ``seat``'s phone page a new link (a tap on the screen, or the control
        socket's ``release-seat``): the next ``show`` puts its code on the screen. A refusal
        becomes the screen's message, unless it is not ``public``."""
        command = ReleaseSeat(seat)
        try:
            self.screen.release_seat(seat)
        except REFUSALS as refusal:
            return self.refuse(command, refusal.phrase, public)
        self.message = None
        return Outcome(command, True)

    def from_phone(self, game_id: str, action: Command) -> Outcome:
        if self.session.id != game_id:
            return Outcome(action, False, ENDED)
        return self.submit(action, public=False)

    def _follow_game(self) -> None:
        state = self.record.state
        self.timer.follow_turn(self.session.id, (state.phase, state.step), state.step == DISCUSSION, self.clock())

    def tick(self) -> Outcome | None:
        """The discussion's end when its time is up; the screen and the phones again when the
        clock's second changed; else it was an animation frame, which only the LEDs need."""
        now = self.clock()
        outcome = self.submit(EndDiscussion()) if self.timer.time_is_up(now) else None
        return self._shown_after(outcome, now)

    def next_due(self) -> float | None:
        return min((t for t in (self.timer.next_change(self.clock()), self.lights_due) if t is not None), default=None)

    def cues(self, now: float) -> Cues:
        problem = self.session.journal_problem
        warnings = most_serious_first(self.faults, self.deaf.why + (() if problem is None else (problem,)))
        return Cues(warnings=warnings, timer=self.timer.state(now))

    def model(self, now: float) -> CodexModel:
        record = self.record
        return CodexModel(record.game, record.state, self.session.id, self.message, self.cues(now), self.lang,
                          notice=self.notice)

    def show(self) -> None:
        now = self.clock()
        model = self.model(now)
        public = model.game.public_view(model.state)
        self.leds.show(self.light(public, model.cues, now))
        self.screen.show(model)
        self.sound.hear(Moment(self.session.id, public, model.cues.timer, now))
        self._screen_next = self.timer.next_change(now)
