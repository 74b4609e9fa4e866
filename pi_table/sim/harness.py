"""A table built from simulator devices, driven the way players would drive the real one."""

from __future__ import annotations

from ..engine import EndTurn, Guess
from ..hal import Command, NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch
from ..table import Outcome, Session, TableLoop
from ..table.input import InputSettings, TouchPolicy
from ..table.timer import TimerSettings, TurnTimer


class ManualClock:
    """Virtual time for scripts and tests: it moves only when told to."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class SimTable:
    """A session and a table loop on simulated devices.

    ``do(command)`` plays a command through the device a player would use: a touch on the
    grid held for the hold time, the END TURN and NEW GAME buttons, a tap on the spymaster
    screen for everything else. The loop runs in the caller's thread on virtual time, so each
    call is complete when it returns and a script replays identically.
    """

    def __init__(
        self, session: Session, settings: InputSettings | None = None, timer: TimerSettings | None = None,
        lang: str = "en",
    ) -> None:
        self.session = session
        self.clock = ManualClock()
        self.settings = settings or InputSettings()
        self.touch = SimTouch()
        self.leds = SimLedStrip()
        self.screen = SimScreen()
        self.buttons = SimButtons()
        self.loop = TableLoop(
            session, self.touch, self.leds, self.screen, self.buttons, TouchPolicy(self.settings), self.clock,
            TurnTimer(timer), lang=lang,
        )
        self.loop.open()

    def wait(self, seconds: float) -> list[Outcome]:
        """Let virtual time pass, stopping at each hold or timer deadline on the way, so an
        enforced timer ends each turn exactly when it runs out."""
        end = self.clock.now + seconds
        outcomes = []
        while True:
            dues = [self.loop.policy.next_deadline(), self.loop.timer.next_change(self.clock.now)]
            due = min((t for t in dues if t is not None), default=None)
            if due is None or due > end:
                break
            self.clock.now = max(self.clock.now, due)
            outcomes += self.loop.run_pending()
        self.clock.now = end
        return outcomes + self.loop.run_pending()

    def do(self, command: Command) -> Outcome:
        if isinstance(command, Guess):
            self.touch.press(command.cell)
            outcomes = self.loop.run_pending()
            self.clock.advance(self.settings.hold_s)
            outcomes += self.loop.run_pending()
            self.touch.release(command.cell)
            self.loop.run_pending()
        else:
            if isinstance(command, EndTurn):
                self.buttons.push("end_turn")
            elif isinstance(command, NewGame) and command.game is None:
                self.buttons.push("new_game")
            else:
                self.screen.tap(command)
            outcomes = self.loop.run_pending()
        (outcome,) = outcomes
        return outcome

    def close(self) -> None:
        self.loop.close()
