"""Hardware abstraction: one small interface per device kind, and simulator backends.

Like gpiozero: each abstract base's docstring lists what a backend implements; real
backends live in ``pi_table.drivers``; the simulators here can be driven by a test
(``press(*cells)``, ``push("end_turn")``, ``tap(command)``) and record what was shown.
"""

from .buttons import Buttons, SimButtons
from .cues import Cues, TimerState
from .events import (
    BUTTONS,
    AlreadyStarted,
    ButtonEvent,
    Command,
    DeafCards,
    DialEvent,
    Emit,
    Event,
    HealthEvent,
    NewGame,
    NotStarted,
    PageOpened,
    ReleaseSeat,
    TouchEvent,
    UiEvent,
)
from .leds import RGB, LedFrame, LedStrip, SimLedStrip
from .screen import AnyModel, GameModel, Screen, ScreenModel, SelfTestModel, SetupModel, SimScreen
from .touch import MultiTouch, SimTouch, TouchSource

__all__ = [
    "Buttons", "SimButtons", "Cues", "TimerState", "BUTTONS", "AlreadyStarted", "ButtonEvent", "Command", "DeafCards", "DialEvent", "Emit", "Event", "HealthEvent", "NewGame", "NotStarted", "PageOpened",
    "ReleaseSeat",
    "TouchEvent", "UiEvent", "RGB", "LedFrame", "LedStrip", "SimLedStrip", "AnyModel", "GameModel", "ScreenModel", "Screen", "SelfTestModel", "SetupModel", "SimScreen",
    "MultiTouch", "SimTouch", "TouchSource",
]
