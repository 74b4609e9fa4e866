"""What devices tell the table loop. Drivers only ever put these on the loop's queue."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from ..engine import CELLS, Action
from ..engine.actions import Written
from ..engine.contract import Move
from ..engine.phrase import N_, Phrase, Text
from ..errors import PiTableError


class NotStarted(PiTableError, RuntimeError):
    """A device (or a part of the service) asked to deliver before its ``start`` gave it
    somewhere to, or after its ``stop``: the caller's order of calls, as gpiozero's
    ``DeviceClosed``."""


class AlreadyStarted(PiTableError, RuntimeError):
    """A device started a second time while it runs: one owner of its thread at a time."""


class BadEvent(PiTableError, ValueError):
    """An event that cannot be (a touch that neither presses nor releases, a button the table
    has not): a driver's or a script's, refused where it is made rather than in the loop."""


class OffTheGrid(BadEvent):
    """A cell that is not one of the grid's (0 to CELLS - 1)."""


BUTTONS = ("end_turn", "new_game", "enter_clue")
"""The physical buttons: END TURN on the operatives' side, NEW GAME (a long press), and the
rotary encoder's push, which enters the clue number it is set to."""


@dataclass(frozen=True, slots=True)
class TouchEvent:
    """One report of the touch grid, whole: the cells a finger arrived on (``pressed``) and the
    cells it left (``released``). A palm is one event with several cells pressed, so the input
    policy judges the hand at once: with one event per cell, the first finger could count as a
    guess before the others arrive. Any iterable of cells is taken; they are kept as frozensets.
    """

    pressed: frozenset[int] = frozenset()
    released: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        for name in ("pressed", "released"):
            given = getattr(self, name)
            if isinstance(given, (int, str)) or not hasattr(given, "__iter__"):
                raise BadEvent(f"{name} is a set of cells, not {given!r}")
            cells = frozenset(given)
            for cell in cells:
                if type(cell) is not int or not 0 <= cell < CELLS:
                    raise OffTheGrid(f"cell {cell!r} is off the grid: cells are 0 to {CELLS - 1}")
            object.__setattr__(self, name, cells)
        if not self.pressed and not self.released:
            raise BadEvent("a touch event presses or releases at least one cell")
        if self.pressed & self.released:
            raise BadEvent(f"cells {sorted(self.pressed & self.released)} are both pressed and released in one report")


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """A physical button was pushed (``name`` is one of ``BUTTONS``)."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in BUTTONS:
            raise BadEvent(f"button is one of {', '.join(BUTTONS)}, not {self.name!r}")


@dataclass(frozen=True, slots=True)
class DialEvent:
    """The clue-number encoder turned by ``steps`` detents (negative: anticlockwise)."""

    steps: int


@dataclass(frozen=True, slots=True)
class NewGame(Written):
    """Start a new game, of another kind when ``game`` is given."""

    WORD = "new-game"

    game: str | None = None


@dataclass(frozen=True, slots=True)
class ReleaseSeat(Written):
    """Give seat ``seat``'s phone page a new link and void the old one: the page was opened by
    the wrong phone (a game whose players have seats). The game itself is untouched."""

    WORD = "release-seat"

    seat: int


Command: TypeAlias = Action | Move | NewGame | ReleaseSeat
"""What the table may be asked to do: a game's action (a grid game's, or another kind's:
``engine.contract.Move``), or the table's own."""


@dataclass(frozen=True, slots=True)
class UiEvent:
    """The spymasters asked for something on their screen: a clue number, cover, undo..."""

    command: Command


@dataclass(frozen=True, slots=True)
class HealthEvent:
    """A device went up or down ("touch board disconnected"); ``detail`` says why."""

    device: str
    ok: bool
    detail: Text = ""  # what is wrong and what to do, or what came back


@dataclass(frozen=True, slots=True)
class DeafCards:
    """The cells whose pads the touch board cannot hear now (a touch chip that does not answer),
    and ``why`` in the board's words, one sentence a chip: the table marks those cards so players
    stop touching them, and says why. Told again whenever it changes; no cells: all hear again."""

    cells: frozenset[int] = frozenset()
    why: tuple[Text, ...] = ()

    def __post_init__(self) -> None:
        cells = frozenset(self.cells)
        for cell in cells:
            if type(cell) is not int or not 0 <= cell < CELLS:
                raise OffTheGrid(f"cell {cell!r} is off the grid: cells are 0 to {CELLS - 1}")
        object.__setattr__(self, "cells", cells)


NONE_DEAF = DeafCards()
DEVICE_NEWS = (HealthEvent, DeafCards)
"""What a device tells of itself rather than of the game: the loop notes it even while the game is paused."""


HEALTHY = frozenset({N_("ok"), N_("simulated"), N_("not fitted"), N_("off"), N_("starting"), N_("connecting")})
"""A device's health in the table's status when nothing is wrong with it; any other words are
a fault (with what to do), wherever they are shown: staff page, fleet, dashboard."""


NOT_WORKING = "not working: "
"""How a device's health begins when it failed: the error follows (``say_health`` translates it)."""


def is_fault(health: object) -> bool:
    return str(health) not in HEALTHY


DEVICE_NAMES = {"touch": N_("touch board"), "leds": N_("LED strip"), "screen": N_("spymaster screen"),
                "buttons": N_("buttons"), "sound": N_("sound"), "companion": N_("phones' pages"),
                "journal": N_("journal"), "fleet": N_("fleet broker")}
"""The devices by their names in the table's health (``touch``, ``leds``...), as a person
reads them in a list ("touch board: ok"): msgids, said in the reader's language."""

NOT_WORKING_ADVICE = {
    "touch": N_("the touch board is not working: check the USB cable from the touch board to the Pi; the game waits"),
    "leds": N_("the LED strip is not working: check its power supply and its data wire to the Pi; the game goes on "
               "without lights"),
    "screen": N_("the spymaster screen is not working: check its cable to the Pi; the game goes on without it"),
    "buttons": N_("the buttons are not working: check their wires to the Pi; the game goes on without them"),
    "sound": N_("the sound is not working: check the speaker or amplifier and its cable; the game goes on silent"),
}
"""What the table shows when a device says it stopped working without saying why: what, and what to do."""
UNKNOWN_DEVICE = N_("{device} is not working: look at the table's log (journalctl -u pi-table), then restart the service")
"""The same for a device this table does not know: its name, and where to look."""
FAULTS = (*NOT_WORKING_ADVICE.values(), UNKNOWN_DEVICE)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""


def not_working(device: str) -> Phrase:
    """A device's fault when it gave no detail: its own sentence with what to do, or for a
    device this table does not know, its name and where to look."""
    if device in NOT_WORKING_ADVICE:
        return Phrase.of(NOT_WORKING_ADVICE[device])
    return Phrase.of(UNKNOWN_DEVICE, device=device)


@dataclass(frozen=True, slots=True)
class PageOpened:
    """A phone opened the companion page of ``role`` ("spymaster", "seat-2"): the screen stops
    showing that page's QR code."""

    role: str


Event = TouchEvent | ButtonEvent | DialEvent | UiEvent | HealthEvent | DeafCards | PageOpened
Emit = Callable[[Event], None]
"""The loop's thread-safe ``post``: the only thing a device may call."""
