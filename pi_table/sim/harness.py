"""A table built from simulator devices, driven the way players would drive the real one."""

from __future__ import annotations

from ..engine import EndTurn, Guess
from ..hal import Command, NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch
from ..table import Outcome, Session, TableLoop


class SimTable:
    """A session and a table loop on simulated devices.

    ``do(command)`` plays a command through the device a player would use: a touch on the
    grid for a guess, the END TURN and NEW GAME buttons, a tap on the spymaster screen for
    everything else. The loop runs in the caller's thread, so each call is complete when it
    returns.
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self.touch = SimTouch()
        self.leds = SimLedStrip()
        self.screen = SimScreen()
        self.buttons = SimButtons()
        self.loop = TableLoop(session, self.touch, self.leds, self.screen, self.buttons)
        self.loop.open()

    def do(self, command: Command) -> Outcome:
        if isinstance(command, Guess):
            self.touch.press(command.cell)
            outcomes = self.loop.run_pending()
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
