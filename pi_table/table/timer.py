"""The turn timer, run by the daemon (not by a screen), so every output shows the same time.

Off by default. When on, each turn gets ``length_s``; the last ``warn_s`` seconds are a
warning; with ``enforce`` the loop ends the turn when it runs out (the engine's ``TimeUp``).
A turn starts whenever the turn passes to the other side, or a new game begins; the timer
does not run while Deep Undercover's cards are placed or once the game is over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..engine import OVER, PLACE, State
from ..engine.errors import Refusal
from ..hal import TimerState

TURN_S = (10, 3600)
"""A turn timer's shortest and longest length, in seconds (0 is no timer): the schema's range too."""


@dataclass(frozen=True, slots=True)
class TimerSettings:
    """[timer] of the configuration: a turn's length (0: no timer), its warning, and whether time up ends the turn."""

    length_s: float = 0.0  # 0: no timer
    warn_s: float = 10.0
    enforce: bool = False

    def __post_init__(self) -> None:
        if not (self.length_s == 0 or TURN_S[0] <= self.length_s <= TURN_S[1]):
            raise Refusal("turn timer length is 0 (off) or {least} to {most} seconds, not {seconds}",
                          least=TURN_S[0], most=TURN_S[1], seconds=self.length_s)
        if self.warn_s < 0 or (self.length_s and self.warn_s >= self.length_s):
            raise Refusal("timer warning is 0 seconds or more and less than the timer's length, not {seconds}",
                          seconds=self.warn_s)


class TurnTimer:
    def __init__(self, settings: TimerSettings | None = None) -> None:
        self.settings = settings or TimerSettings()
        self._turn: object = None
        self._game: object = None
        self.started_at = 0.0
        self.running = False
        self._expired_handled = False

    @property
    def on(self) -> bool:
        return self.settings.length_s > 0

    def follow(self, game_id: object, state: State, now: float) -> None:
        """Restart on a new turn or a new game; stop while placing or once over."""
        self.follow_turn(game_id, state.turn, state.phase not in (PLACE, OVER), now)

    def follow_turn(self, game_id: object, turn: object, running: bool, now: float) -> None:
        """Restart when ``turn`` (whatever marks one: a team, another kind's discussion) or the game
        changes, or when the timer starts running again; ``running`` False stops it."""
        if game_id != self._game or turn != self._turn or (running and not self.running):
            self.started_at = now
            self._expired_handled = False
        self._game, self._turn, self.running = game_id, turn, running

    def remaining(self, now: float) -> float:
        return max(0.0, self.settings.length_s - (now - self.started_at))

    def state(self, now: float) -> TimerState | None:
        if not self.on:
            return None
        return TimerState(
            length_s=self.settings.length_s,
            remaining_s=self.remaining(now) if self.running else self.settings.length_s,
            warn_s=self.settings.warn_s,
            enforced=self.settings.enforce,
            running=self.running,
        )

    def time_is_up(self, now: float) -> bool:
        """True once per turn, when an enforced timer has run out."""
        if not (self.on and self.settings.enforce and self.running) or self._expired_handled:
            return False
        if self.remaining(now) > 0:
            return False
        self._expired_handled = True
        return True

    def next_change(self, now: float) -> float | None:
        """When what the timer shows next changes: the next whole second, or its end."""
        if not (self.on and self.running):
            return None
        elapsed = now - self.started_at
        if elapsed >= self.settings.length_s:
            return None if self._expired_handled or not self.settings.enforce else now
        return self.started_at + min(math.floor(elapsed) + 1, self.settings.length_s)
