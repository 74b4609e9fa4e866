"""The table loop: the one thread that owns the game.

Devices put events on its queue (``post`` is thread-safe and is all a driver may call).
``EventLoop`` is that machinery, for any game; ``TableLoop`` plays the grid games on it (each
kind of game has its own loop: ``pi_table.table.loops``). The grid games' loop turns each event into an
engine action, applies it through the session, and shows the
result: an LED frame computed from the table view alone, and a screen model for the
spymasters. A refused action changes nothing and its reason goes to the screen. Between
events it sleeps until the next thing that is due: a hold completing, the timer's next
second, the next animation frame. Nothing is polled.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from ..clues.gate import refusal as not_offered
from ..engine import (
    CELLS,
    CLUE,
    GUESS,
    PLACE,
    UNLIMITED,
    Clue,
    EndTurn,
    Guess,
    InvalidAction,
    InvalidRules,
    Place,
    RuleError,
    TimeUp,
    Undo,
    Words,
)
from ..engine.actions import MAX_CLUE, ClueNumber
from ..engine.errors import Refusal
from ..engine.games import described, kind_of, names, title_of
from ..engine.phrase import Phrase, Text
from ..errors import PiTableError
from ..hal import (
    AnyModel,
    ButtonEvent,
    Buttons,
    Command,
    Cues,
    DeafCards,
    DialEvent,
    Event,
    HealthEvent,
    LedFrame,
    LedStrip,
    NewGame,
    ReleaseSeat,
    Screen,
    ScreenModel,
    TouchEvent,
    TouchSource,
    UiEvent,
)
from ..hal.events import DEVICE_NEWS, Emit, not_working
from ..ui.games import lights
from ..ui.leds import LightSettings
from ..ui.sound import Announcer, Moment
from .input import InputSettings, TouchPolicy
from .session import Session
from .timer import TimerSettings, TurnTimer

if TYPE_CHECKING:
    from ..clues.giver import ClueGiver

T = TypeVar("T")  # what a function run in the loop's thread returns to the caller's
REFUSALS = (RuleError, InvalidAction, InvalidRules)
BUTTON_COMMANDS: dict[str, Command] = {"end_turn": EndTurn(), "new_game": NewGame()}
DIAL = tuple(range(MAX_CLUE + 1)) + (UNLIMITED,)
"""What the clue-number encoder steps through: 0 to 9, then unlimited."""
PAUSED = Phrase.of("the game is paused for the self-test or the pads' tuning: stop it on the staff page first")
NEEDED = ("touch", "leds", "screen")
"""The devices a game is played with, the most needed first: without the touch board the game
waits, without the lights nobody sees a card revealed, without the screen the spymasters lose the key."""


def most_serious_first(faults: dict[str, Text], own: tuple[Text, ...] = ()) -> tuple[Text, ...]:
    """The warnings as the banner says them, the first the one to act on: the faults of the
    devices a game is played with (``NEEDED``), then the table's ``own`` (a spill, a stuck pad,
    the journal), then every other device's in the order they came (the buttons, the sound,
    the phones' pages: each only takes a convenience away)."""
    needed = tuple(faults[device] for device in NEEDED if device in faults)
    return needed + own + tuple(fault for device, fault in faults.items() if device not in NEEDED)


class _Aside(LedStrip, Screen):
    """Where a paused game's pictures go: nowhere (the self-test or the tuning has the real outputs)."""

    def show(self, shown: LedFrame | AnyModel) -> None:
        pass


NO_PHONE_ACTIONS = Phrase.of("the game on the table now takes no actions from the phones")
"""A seat's page sent an action, and the game on the table takes none from phones."""
ENDED = Phrase.of("this page belonged to a game that has ended")
"""A page's action for a game that is no longer on the table."""


def refuse_other_kind(command: NewGame, session: Session) -> None:
    """A loop plays the games of one kind: a new game of another kind needs another loop,
    which the daemon builds when asked on its control socket."""
    if command.game is not None and kind_of(command.game) != session.kind:
        raise InvalidRules("{game} is played on the table after: pi-table new-game --game {game}", game=command.game)


@dataclass(frozen=True, slots=True)
class LoopSettings:
    """How a table plays, beside the rules: what each kind's loop takes of it (``EventLoop.made``)."""

    input: InputSettings
    timer: TimerSettings  # the grid games' turn timer
    lights: LightSettings
    lang: str
    options: Mapping[str, object] = field(default_factory=dict)
    """The games' options by name (``engine.games.choices``), their tables' settings among them:
    a kind's loop takes its own (a discussion's length), its default where none is given."""


class NotAnswering(PiTableError, TimeoutError):
    """The loop did not run a call in time: it is busy, or it ended (a new game of another kind
    replaces it). A TimeoutError raised by the function it ran is that function's own."""


class _Stop:
    """Queued by ``stop_soon()``: the loop ends once the events before it are handled."""


class _Call:
    """A function another thread asked the loop to run (the control socket's commands)."""

    def __init__(self, fn: Callable[[], object]) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.result: object = None
        self.error: BaseException | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one command: accepted, or refused with the reason in plain words."""

    command: object  # a Command, or a simulator's own step (a tap on a kind's own screen)
    ok: bool
    reason: Phrase | None = None  # why it was refused, for ``i18n.say``

    @property
    def error(self) -> str | None:
        """The refusal in English (the scripted simulator's JSON, the control socket's answer)."""
        return None if self.reason is None else str(self.reason)


class EventLoop:
    """The queue and the thread that own a game, with the session and the devices. A kind's
    loop implements ``made`` (the loop for a table's devices and settings), ``handle(event)``
    (an Outcome when the event asked for a command), ``tick()`` (do what is due now),
    ``next_due()`` (when something next changes with no event), ``show()`` and
    ``_follow_game()`` (keep up with an accepted command); and, where its game has them, seats
    to release and actions from the phones."""

    timer: TurnTimer  # the turn's (or a kind's own: a discussion's), which each game's loop sets up
    lang: str  # the language its screen speaks, which each game's loop sets up too
    lights: LightSettings  # and how it lights the grid

    def __init__(
        self, session: Session, touch: TouchSource, leds: LedStrip, screen: Screen, buttons: Buttons,
        clock: Callable[[], float],
    ) -> None:
        self.session = session
        self.touch, self.leds, self.screen, self.buttons = touch, leds, screen, buttons
        self.clock = clock
        self.faults: dict[str, Text] = {}  # device -> what is wrong with it, and what to do
        self.deaf = DeafCards()  # the cards the touch board cannot hear now, and why
        self.message: Phrase | None = None  # the last refusal
        self.notice: Text | None = None  # shown on the screen alone, over the game, until taken away
        self.sound = Announcer()  # hears every moment shown; the daemon and simulators give it a device
        self._events: queue.SimpleQueue[tuple[float, Event] | _Call | _Stop] = queue.SimpleQueue()
        self._paused: tuple[Emit, float, LedStrip, Screen] | None = None  # (where events go, since, the outputs)
        self._lights = lights(session.kind)  # a loop plays one kind (refuse_other_kind)
        self.lights_due: float | None = None  # when the frame last lit next changes by itself (None: still)
        self._screen_next: float | None = None  # when the screen next changes with no event (its show sets it)

    @classmethod
    def made(cls, session: Session, touch: TouchSource, leds: LedStrip, screen: Screen, buttons: Buttons,
             settings: LoopSettings) -> EventLoop:
        """The loop for a table's devices and settings (the daemon's way to any kind's loop)."""
        raise NotImplementedError

    def open(self) -> None:
        for device in (self.touch, self.buttons, self.screen):
            device.start(self.post)
        self.show()

    def close(self) -> None:
        self._outputs_back()
        for device in (self.touch, self.buttons, self.screen):
            device.stop()
        self.leds.close()
        self.session.close()

    def handle(self, event: Event, came: float) -> Outcome | None:
        """``came``: when it was posted, on the loop's clock (a busy loop takes it later)."""
        raise NotImplementedError

    def tick(self) -> Outcome | None:
        raise NotImplementedError

    def next_due(self) -> float | None:
        raise NotImplementedError

    def cues(self, now: float) -> Cues:
        """What the outputs signal now besides the game: touches, warnings, the timer."""
        raise NotImplementedError

    def show(self) -> None:
        raise NotImplementedError

    def _follow_game(self) -> None:
        raise NotImplementedError

    def _shown_after(self, outcome: Outcome | None, now: float) -> Outcome | None:
        """A tick's end, every kind's: the table shown again when the tick changed the game or the
        screen's next change is due; else the tick was an animation frame, which only the LEDs need."""
        if outcome is not None or (self._screen_next is not None and now >= self._screen_next):
            self.show()
        else:
            self.leds.show(self.light(self.session.public_view(), self.cues(now), now))
        return outcome

    def light(self, view: object, cues: Cues, now: float) -> LedFrame:
        """The grid's LED frame for the game's public view: its kind's lights (``pi_table.ui.games``).
        When it next changes by itself (an animation's next frame) is kept for ``next_due``
        (``lights_due``): the loop lights the grid on every wake, so the frame last lit is the one
        standing, and composing it again to ask would double the loop's largest cost."""
        frame, self.lights_due = self._lights(view, cues, now, self.lights)
        return frame

    def retime(self, settings: TimerSettings) -> None:
        """The turn timer's new length (the staff's), for the turn under way and the next; a game
        without turns to time (one whose timer is a setting of its own) lets it be."""

    def release_seat(self, seat: int, public: bool = True) -> Outcome:
        """Give seat ``seat``'s phone page a new link (a tap on the screen, or the control
        socket's ``release-seat``), where the game has seats; a refusal becomes the screen's
        message unless it is not ``public``."""
        playing = self.session.rules.game
        return self.refuse(ReleaseSeat(seat), Phrase.of("the table is playing {game}, whose players have no seats",
                                                        game=Phrase(title_of(playing))), public)

    def from_phone(self, game_id: str, action: Command) -> Outcome:
        """An action from a seat's phone page for the game ``game_id``, where the game takes them;
        its refusal goes back to that phone alone."""
        return Outcome(action, False, NO_PHONE_ACTIONS)

    def submit(self, command: Command, public: bool = True) -> Outcome:
        """Apply a command through the session (journalled); a refusal changes nothing and
        its reason becomes the message the screen shows, unless it is not ``public`` (a phone's
        refusal, which goes back to that phone alone). A paused game takes none."""
        if self._paused is not None:
            return self.refuse(command, PAUSED, public=False)
        try:
            if isinstance(command, NewGame):
                refuse_other_kind(command, self.session)
                self.session.new_game(command.game)
            elif isinstance(command, ReleaseSeat):
                return self.release_seat(command.seat, public)
            else:
                self.session.submit(command)
        except REFUSALS as refusal:
            return self.refuse(command, refusal.phrase, public)
        self.message = None
        self._follow_game()
        return Outcome(command, True)

    def refuse(self, command: object, reason: Phrase, public: bool = True) -> Outcome:
        """A command refused: nothing changes, and ``reason`` becomes the screen's message
        unless it is not ``public`` (a phone's, or the staff's, which goes back to them alone)."""
        if public:
            self.message = reason
        return Outcome(command, False, reason)

    def note_health(self, event: HealthEvent | DeafCards) -> None:
        """A device went down (its warning shows) or came back; or the cards it cannot hear changed."""
        if isinstance(event, DeafCards):
            self.deaf = event
        elif event.ok:
            self.faults.pop(event.device, None)
        else:
            self.faults[event.device] = event.detail or not_working(event.device)

    def post(self, event: Event) -> None:
        """Queue an event for the loop, stamped with when it came; safe from any thread. While the
        game is paused, every event but a device's health goes where ``pause`` said instead."""
        paused = self._paused
        if paused is not None and not isinstance(event, DEVICE_NEWS):
            paused[0](event)
            return
        self._events.put((self.clock(), event))

    @property
    def paused(self) -> bool:
        return self._paused is not None

    def pause(self, to: Emit) -> None:
        """Set the game aside, in the loop's thread, for the staff's self-test or pads' tuning: the
        devices' events go ``to`` them, the game shows nothing, nothing falls due and it takes no
        command; its journal is untouched. ``resume`` gives it all back as it was."""
        if self._paused is None:
            self._paused = (to, self.clock(), self.leds, self.screen)
            self.leds = self.screen = _Aside()

    def resume(self) -> None:
        """The game where it was, in the loop's thread: its outputs back, its turn timer's time
        as it stood when paused (harmless when not paused)."""
        since = self._outputs_back()
        if since is not None:
            self.timer.started_at += self.clock() - since
            self.show()

    def _outputs_back(self) -> float | None:
        """The real outputs back from a pause; when it began (None: there was none)."""
        if self._paused is None:
            return None
        _, since, self.leds, self.screen = self._paused
        self._paused = None
        return since

    def run_pending(self) -> list[Outcome]:
        """Handle every queued event and whatever is due now, in the calling thread."""
        outcomes = []
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                break
            if isinstance(event, _Call):
                self._run_call(event)
            elif not isinstance(event, _Stop):
                came, posted = event
                outcomes += self._take(came, posted, None if self.paused else self.next_due())
        if not self.paused:
            outcomes.append(self.tick())
        return [outcome for outcome in outcomes if outcome is not None]

    def call(self, fn: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``fn`` in the loop's thread, between events, and return what it returns; for
        other threads that must act on the game (the control socket, the phones)."""
        call = _Call(fn)
        self._events.put(call)
        if not call.done.wait(timeout):
            raise NotAnswering(f"the table loop did not answer within {timeout} s")
        if call.error is not None:
            raise call.error
        return call.result  # type: ignore[return-value]  # what fn returned, kept as object between threads

    def run(
        self, stop: threading.Event | None = None, poll_s: float = 0.5, alive: Callable[[], None] | None = None
    ) -> None:
        """Handle events as they come until ``stop`` is set or ``stop_soon`` is reached,
        sleeping in between until the next event or the next thing due. ``alive`` is called
        on every wake (at least every ``poll_s``): the service watchdog's proof of life."""
        stop = stop or threading.Event()
        while not stop.is_set():
            if alive is not None:
                alive()
            due = None if self.paused else self.next_due()
            wait = poll_s if due is None else min(poll_s, max(0.0, due - self.clock()))
            try:
                event = self._events.get(timeout=wait)
            except queue.Empty:
                if due is not None and self.clock() >= due:
                    self.tick()
                continue
            if isinstance(event, _Stop):
                return
            if isinstance(event, _Call):
                self._run_call(event)
                continue
            came, posted = event
            self._take(came, posted, due)

    def _take(self, came: float, event: Event, due: float | None) -> list[Outcome | None]:
        """Handle a posted event, after all that fell ``due`` before it came, in turn: a loop woken
        late (a busy night) finds a touch's release queued, and a hold completed before it is a
        guess, though the turn timer ran out first. A tick that leaves the same thing due ends
        the catching up. One queued before a pause goes where the pause sends the others (a
        device's health: noted)."""
        if self._paused is not None:
            if isinstance(event, DEVICE_NEWS):
                self.note_health(event)
            else:
                self._paused[0](event)
            return []
        before: list[Outcome | None] = []
        while due is not None and came >= due:
            before.append(self.tick())
            due, was = self.next_due(), due
            if due == was:
                break
        return [*before, self.handle(event, came)]

    def _run_call(self, call: _Call) -> None:
        try:
            call.result = call.fn()
        except Exception as error:  # noqa: BLE001 - handed to the caller's thread, which raises it
            call.error = error
        finally:
            call.done.set()
        self.show()

    def stop_soon(self) -> None:
        """Make ``run`` return after the events already queued; safe from any thread."""
        self._events.put(_Stop())


class TableLoop(EventLoop):
    def __init__(
        self,
        session: Session,
        touch: TouchSource,
        leds: LedStrip,
        screen: Screen,
        buttons: Buttons,
        policy: TouchPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
        timer: TurnTimer | None = None,
        lights: LightSettings | None = None,
        lang: str = "en",
        idle_after_s: float = 300.0,
        clue_giver: ClueGiver | None = None,
    ) -> None:
        super().__init__(session, touch, leds, screen, buttons, clock)
        self.clue_giver = clue_giver  # in a game where the table is spymaster: the table's own when None
        self._holding_clue = False  # an undo taking back the table's clue: none given again meanwhile
        self.policy = policy or TouchPolicy()
        self.timer = timer or TurnTimer()
        self.lights = lights or LightSettings()
        self.lang = lang
        self.idle_after_s = idle_after_s
        self.dial: ClueNumber = None  # the encoder's clue number, until it is entered
        self.last_activity = clock()
        self.revealed_at: list[float | None] = [None] * CELLS
        self._seen: tuple[str, str] = ("", "")  # (game id, board) when reveal times were last taken
        self._follow_game()

    @classmethod
    def made(cls, session: Session, touch: TouchSource, leds: LedStrip, screen: Screen, buttons: Buttons,
             settings: LoopSettings) -> TableLoop:
        return cls(session, touch, leds, screen, buttons, TouchPolicy(settings.input), timer=TurnTimer(settings.timer),
                   lights=settings.lights, lang=settings.lang)

    def retime(self, settings: TimerSettings) -> None:
        self.timer.settings = settings

    def from_phone(self, game_id: str, action: Command) -> Outcome:
        """The spymasters' page confirms the cards' words (``Words``) of its own game; a grid game
        takes no other action from a phone."""
        if not isinstance(action, Words):
            return super().from_phone(game_id, action)
        if self.session.id != game_id:
            return Outcome(action, False, ENDED)
        return self.submit(action, public=False)

    def submit(self, command: Command, public: bool = True) -> Outcome:
        """As the base loop's, and where the table is spymaster: a new game of it is refused in a
        language its clues are not offered in, and an undo that takes back the table's clue takes
        back the action before it too (the clue would only be given again)."""
        if isinstance(command, NewGame):
            game = self.session.rules.game if command.game is None else command.game
            why = not_offered(title_of(game), self.lang) if game in names() and described(game).table_clues else None
            if why is not None:
                return self.refuse(command, why, public)
        if not (isinstance(command, Undo) and self._clue_just_given()):
            return super().submit(command, public)
        self._holding_clue = True
        try:
            outcome = super().submit(command, public)
        finally:
            self._holding_clue = False
        return super().submit(command, public) if outcome.ok else outcome

    def _clue_just_given(self) -> bool:
        state = self.session.grid.state
        return state.phase == GUESS and state.guesses == 0 and state.told is not None

    def _give_clue(self) -> None:
        """The table's clue, in a game where it is spymaster, once its players' turn needs one and
        the cards' words are known: asked of the clue-giver, then played and journalled as any
        action. A clue it cannot give (no model, a language not offered) is the screen's message."""
        if self._holding_clue or not described(self.session.rules.game).table_clues:
            return
        state = self.session.grid.state
        if state.phase != CLUE or state.words is None:
            return
        from ..clues import table as clues  # numpy and the model load when the table first gives a clue

        try:
            why = not_offered(title_of(self.session.rules.game), self.lang)
            if why is not None:
                raise RuleError(why)
            if self.clue_giver is None:
                self.clue_giver = clues.table_giver()
            told = clues.clue_for(self.clue_giver, state, self.lang)
        except Refusal as refusal:
            self.message = refusal.phrase
            return
        self.submit(told)

    def pause(self, to: Emit) -> None:
        """As the base loop's, and the touches under way forgotten: their releases go to the
        check, so a pad held as the game was set aside would stay pressed for it, and the next
        card touched would be a wipe of two. A hand still resting there when play resumes
        makes no guess until it is lifted and touched again."""
        if not self.paused:
            self.policy = TouchPolicy(self.policy.settings)
        super().pause(to)

    def next_due(self) -> float | None:
        """The earliest time something changes with no event: a hold, the timer, going idle,
        or the next animation frame."""
        return min((t for t in (self._screen_due(self.clock()), self.lights_due) if t is not None), default=None)

    def _screen_due(self, now: float) -> float | None:
        """When the table's state or the screen next change by themselves (animations aside)."""
        times = [
            self.policy.next_deadline(),
            self.timer.next_change(now),
            None if self.idle(now) else self.last_activity + self.idle_after_s,
        ]
        return min((t for t in times if t is not None), default=None)

    def tick(self) -> Outcome | None:
        """Do what is due, the earlier first: a hold that completed, an enforced timer that ran
        out, the timer's next second; otherwise it was an animation frame, which only the LEDs
        need. A loop woken late (a busy night) may find a hold and the timer both due: a turn
        that ran out before the hold completed ends first, and the touch is the next turn's."""
        now = self.clock()
        held = self.policy.next_deadline()
        outcome = self.submit(TimeUp()) if held is not None and held <= now and self.timer.time_is_up(held) else None
        if outcome is None:
            outcome = self._hold_completed(now)
        if outcome is None and self.timer.time_is_up(now):
            outcome = self.submit(TimeUp())
        return self._shown_after(outcome, now)

    def handle(self, event: Event, came: float) -> Outcome | None:
        """One event in, the table shown again; an Outcome when it asked for a command. A
        touch is judged at the time it came."""
        outcome = None
        if isinstance(event, DEVICE_NEWS):
            self.note_health(event)
        else:
            self.last_activity = came
        if isinstance(event, TouchEvent):
            freed = self.policy.report(event.pressed, event.released, came)
            if freed:
                self.touch.recalibrate(freed)  # a stuck pad counts again once re-baselined
            outcome = self._hold_completed(came)
        elif isinstance(event, ButtonEvent) and event.name == "enter_clue":
            outcome = self._enter_dial()
        elif isinstance(event, ButtonEvent):
            outcome = self.submit(BUTTON_COMMANDS[event.name])
        elif isinstance(event, DialEvent):
            at = DIAL.index(self.dial) if self.dial is not None else 0
            self.dial = DIAL[min(max(at + event.steps, 0), len(DIAL) - 1)]
        elif isinstance(event, UiEvent) and isinstance(event.command, TimeUp):
            outcome = self._not_the_timer(event.command, came)
        elif isinstance(event, UiEvent):
            outcome = self.submit(event.command)
        self.show()
        return outcome

    def _not_the_timer(self, command: TimeUp, now: float) -> Outcome:
        """Time-up asked for by anyone: refused. The books want a guess every turn, and only an
        enforced timer that has run out may end a turn without one; the table's own timer
        submits that itself, in ``tick``."""
        timer = self.timer.state(now)
        why = (Phrase.of("no turn timer is on") if timer is None else
               Phrase.of("the turn timer is not enforced") if not timer.enforced else
               Phrase.of("the turn timer has {seconds} s left", seconds=round(timer.remaining_s)))
        return self.refuse(command, Phrase.of("time-up ends a turn only when an enforced turn timer runs out: {why}", why=why))

    def _hold_completed(self, now: float) -> Outcome | None:
        """A guess (a placement while Deep Undercover sets up) when a lone touch has been held."""
        cell = self.policy.due(now)
        if cell is None:
            return None
        return self.submit(Place(cell) if self.session.grid.state.phase == PLACE else Guess(cell))

    def _enter_dial(self) -> Outcome:
        if self.dial is None:
            return self.refuse(Clue(0), Phrase.of("turn the dial to the clue number first, then push it"))
        outcome = self.submit(Clue(self.dial))
        if outcome.ok:
            self.dial = None
        return outcome

    def _follow_game(self) -> None:
        """Note when each card came to be shown (for the reveal animation) and keep the
        timer on the current turn."""
        now = self.clock()
        board = self.session.table_view().board
        game_id, before = self._seen
        if game_id != self.session.id:
            before = "?" * CELLS
        for cell, (old, new) in enumerate(zip(before, board)):
            if new in "?.":
                self.revealed_at[cell] = None
            elif old == "?":
                self.revealed_at[cell] = now
        self._seen = (self.session.id, board)
        self.timer.follow(self.session.id, self.session.grid.state, now)
        self._give_clue()

    def idle(self, now: float) -> bool:
        return now - self.last_activity >= self.idle_after_s

    def cues(self, now: float) -> Cues:
        return Cues(
            pending=self.policy.pending,
            warnings=most_serious_first(self.faults, self.deaf.why + self.policy.warnings + self._journal_warning()),
            timer=self.timer.state(now),
            revealed_at=tuple(self.revealed_at),
            idle=self.idle(now),
            deaf=self.deaf.cells,
        )

    def _journal_warning(self) -> tuple[Text, ...]:
        problem = self.session.journal_problem
        return () if problem is None else (problem,)

    def show(self) -> None:
        now = self.clock()
        view = self.session.spymaster_view()
        cues = self.cues(now)
        self.leds.show(self.light(view.table, cues, now))
        self.screen.show(ScreenModel(view, self.session.id, self.message, cues, self.lang, self.dial,
                                     notice=self.notice, words=view.table.words))
        self.sound.hear(Moment(self.session.id, view.table, cues.timer, now))
        self._screen_next = self._screen_due(now)
