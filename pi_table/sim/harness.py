"""A table built from simulator devices, driven the way players would drive the real one."""

from __future__ import annotations

from ..engine import EndTurn, Guess
from ..hal import AnyModel, Command, NewGame, ScreenModel, SimButtons, SimLedStrip, SimScreen, SimTouch, TimerState
from ..table import Outcome, Session, TableLoop
from ..table.input import InputSettings, TouchPolicy
from ..table.loop import EventLoop
from ..table.timer import TimerSettings, TurnTimer
from ..ui.words import Cards, words_of


class WordScreen(SimScreen):
    """A simulated spymaster screen whose table has words on its cards: each game is dealt its
    words when first shown, in the loop's thread, so the deal follows the session's rng in the
    order the keys do (``--seed`` reproduces both); words a spymaster confirmed take their place
    (``ui.words.words_of``). ``words`` are those of the game shown last; None without either."""

    def __init__(self, cards: Cards | None = None, keep: int = 10_000) -> None:
        super().__init__(keep=keep)
        self.cards = cards
        self.words: tuple[str, ...] | None = None

    def deal(self, model: AnyModel) -> tuple[str, ...] | None:
        """The words of the game ``model`` shows (dealt once per game: asking again is harmless)."""
        if isinstance(model, ScreenModel):
            self.words = words_of(model.view.table, model.game_id, self.cards)
        return self.words

    def show(self, model: AnyModel) -> None:
        self.deal(model)
        super().show(model)


class ManualClock:
    """Virtual time for scripts and tests: it moves only when told to."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class VirtualTable:
    """A table loop on virtual time, run in the caller's thread: each call is complete when it
    returns, so a script replays identically. A game's table sets ``loop`` and says which
    deadlines ``wait`` must stop at."""

    loop: EventLoop

    def __init__(self) -> None:
        self.clock = ManualClock()

    def deadlines(self) -> list[float | None]:
        raise NotImplementedError

    def wait(self, seconds: float) -> list[Outcome]:
        """Let virtual time pass, stopping at each deadline on the way, so an enforced timer
        ends its turn exactly when it runs out."""
        end = self.clock.now + seconds
        outcomes = []
        while True:
            due = min((t for t in self.deadlines() if t is not None), default=None)
            if due is None or due > end:
                break
            self.clock.now = max(self.clock.now, due)
            outcomes += self.loop.run_pending()
        self.clock.now = end
        return outcomes + self.loop.run_pending()

    def timer_json(self) -> dict[str, object] | None:
        """The turn timer (or a kind's own, a discussion's) as scripts report it; None when it is off."""
        timer: TimerState | None = self.loop.timer.state(self.clock())
        return None if timer is None else {
            "length": timer.length_s, "remaining": round(timer.remaining_s, 3), "running": timer.running,
            "warning": timer.warning, "enforced": timer.enforced,
        }

    def sounds(self) -> list[str]:
        """The cues played since last asked: the loop's announcer keeps them as it plays."""
        return self.loop.sound.take_played()

    def close(self) -> None:
        self.loop.close()


class SimTable(VirtualTable):
    """A session and a grid game's table loop on simulated devices.

    ``do(command)`` plays a command through the device a player would use: a touch on the
    grid held for the hold time, the END TURN and NEW GAME buttons, a tap on the spymaster
    screen for everything else.
    """

    def __init__(
        self, session: Session, settings: InputSettings | None = None, timer: TimerSettings | None = None,
        lang: str = "en", cards: Cards | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.settings = settings or InputSettings()
        self.touch = SimTouch()
        self.leds = SimLedStrip()
        self.screen = WordScreen(cards)
        self.buttons = SimButtons()
        self.loop: TableLoop = TableLoop(
            session, self.touch, self.leds, self.screen, self.buttons, TouchPolicy(self.settings), self.clock,
            TurnTimer(timer), lang=lang,
        )
        self.loop.open()

    @property
    def shown(self) -> ScreenModel:
        """The spymaster screen's newest model: a grid game's loop shows one from its start."""
        model = self.screen.last
        if not isinstance(model, ScreenModel):
            # a programming error: the grid's loop shows nothing else
            raise TypeError(f"a grid game's loop shows a ScreenModel, not {model!r}")
        return model

    def deadlines(self) -> list[float | None]:
        return [self.loop.policy.next_deadline(), self.loop.timer.next_change(self.clock.now)]

    def report(self) -> dict[str, object]:
        """The contract's STATE: the table view, plus the turn timer (null when it is off); with
        words on the cards, ``words`` (one per cell, row-major) beside it."""
        report: dict[str, object] = {"state": {**self.session.table_view().to_json(), "timer": self.timer_json()}}
        if self.screen.words is not None:
            report["words"] = list(self.screen.words)
        return report

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
