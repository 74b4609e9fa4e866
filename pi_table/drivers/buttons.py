"""The table's physical buttons through gpiozero: END TURN, NEW GAME and the clue-number encoder.

Every button and the encoder's two contacts switch to ground, with the Pi's internal pull-ups on,
so the wiring is one wire per contact plus one to a ground pin. gpiozero picks the pin factory (lgpio
on a Pi, ``GPIOZERO_PIN_FACTORY=mock`` or ``Device.pin_factory = MockFactory()`` elsewhere) and
calls back from its own threads; the callbacks here only hand a ready-made event to ``emit``,
the table loop's thread-safe ``post``.

Default pins (BCM numbers) keep clear of what the rest of the table uses: I2C (GPIO 2, 3), SPI0
for the LEDs (GPIO 7-11), PWM0 for the LEDs as an option (GPIO 18) and the UART (GPIO 14, 15).
Each contact's wire to ground takes a ground pin of its own (hardware/pinout.toml's
``[pi.grounds]``): END TURN is GPIO 17 (header pin 11, ground pin 9), NEW GAME GPIO 27 (header
pin 13, ground pin 14). The encoder is optional and off by default; its A, B and push contacts
are GPIO 22 (header pin 15, ground pin 25), GPIO 23 (header pin 16, ground pin 30) and GPIO 24
(header pin 18, ground pin 34). Pins 20 and 6 are the LED shifter's and the display's. If the
dial counts the wrong way, swap ``encoder_a`` and ``encoder_b``. gpiozero counts one step per
full quadrature cycle, so the encoder should have one cycle per detent (as the common KY-040 and
Bourns PEC11R do).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine.errors import Refusal
from ..hal.buttons import Buttons
from ..hal.events import ButtonEvent, DialEvent, Emit, Event

log = logging.getLogger("pi_table.buttons")
HEADER_GPIO = range(2, 28)  # GPIO 0 and 1 are the HAT EEPROM's I2C; 28 and up are not on the header
ENCODER = ("encoder_a", "encoder_b", "encoder_push")
CONTACTS = ("end_turn", "new_game", *ENCODER)
LONGEST_HOLD_S = 10.0  # "2000" is a hold given in milliseconds; nobody holds a button for 10 s


@dataclass(frozen=True)
class ButtonPins:
    """Which BCM GPIO each button is wired to (None: not fitted), and how presses are read.

    ``new_game_hold_s`` is how long NEW GAME must be held: a brushed button never ends a game.
    ``bounce_s`` is the software debounce on the buttons. The encoder's contacts get none: its
    quadrature state machine already ignores contact jitter, and a debounce would drop the
    edges of a quick spin.
    """

    end_turn: int | None = 17
    new_game: int | None = 27
    encoder_a: int | None = None
    encoder_b: int | None = None
    encoder_push: int | None = None
    new_game_hold_s: float = 2.0
    bounce_s: float = 0.05

    def __post_init__(self) -> None:
        used: dict[int, str] = {}
        for name, pin in self.pins().items():
            if isinstance(pin, bool) or not isinstance(pin, int) or pin not in HEADER_GPIO:
                raise Refusal("{name} pin is a BCM GPIO number on the 40-pin header, {first} to {last}, not {pin!r}",
                              name=name, first=HEADER_GPIO.start, last=HEADER_GPIO.stop - 1, pin=pin)
            if pin in used:
                raise Refusal("{first} and {name} are both on GPIO {pin}: each pin takes one contact", first=used[pin],
                              name=name, pin=pin)
            used[pin] = name
        fitted = [name for name in ENCODER if getattr(self, name) is not None]
        if fitted and len(fitted) < len(ENCODER):
            raise Refusal("the encoder needs all of {names} or none of them, not only {fitted}", names=", ".join(ENCODER),
                          fitted=", ".join(fitted))
        for name in ("new_game_hold_s", "bounce_s"):
            seconds = getattr(self, name)
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
                # a ValueError all the same: the configuration names the key of any ValueError
                raise Refusal("{name} is a number of seconds, not {seconds!r}", name=name, seconds=seconds)
        if not 0 < self.new_game_hold_s <= LONGEST_HOLD_S:
            raise Refusal("new_game_hold_s is above 0 and at most {most:g} seconds, not {seconds!r}", most=LONGEST_HOLD_S,
                          seconds=self.new_game_hold_s)
        if not 0 < self.bounce_s < self.new_game_hold_s:
            raise Refusal("bounce_s is above 0 and shorter than new_game_hold_s ({hold:g} s), not {seconds!r}",
                          hold=self.new_game_hold_s, seconds=self.bounce_s)

    def pins(self) -> dict[str, int]:
        """The fitted contacts by field name."""
        return {name: getattr(self, name) for name in CONTACTS if getattr(self, name) is not None}


def _sends(emit: Emit, event: Event) -> Callable[[], None]:
    """A gpiozero callback that only hands ``event`` to the loop (it runs on gpiozero's threads)."""
    return lambda: emit(event)


class GpioButtons(Buttons):
    """The real buttons. ``start`` claims the pins; ``stop`` closes every device and frees them."""

    def __init__(self, pins: ButtonPins | None = None) -> None:
        self.pins = pins or ButtonPins()
        self._devices: list[Any] = []
        self._named: dict[str, Any] = {}  # END TURN and NEW GAME, by name, for held()

    def start(self, emit: Emit) -> None:
        # gpiozero warns once per pin library it tries and cannot load, with a source line each:
        # the log gets one plain line instead.
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            try:
                self._claim(emit)
            finally:
                if said:
                    log.warning("the buttons' pin library: %s", "; ".join(str(w.message) for w in said))

    def _claim(self, emit: Emit) -> None:
        from gpiozero import Button, RotaryEncoder

        pins = self.pins
        try:  # a pin already taken fails the start, and the pins claimed before it are freed
            if pins.end_turn is not None:
                end_turn = self._named["end_turn"] = self._keep(Button(pins.end_turn, pull_up=True,
                                                                       bounce_time=pins.bounce_s))
                end_turn.when_pressed = _sends(emit, ButtonEvent("end_turn"))
            if pins.new_game is not None:
                new_game = self._named["new_game"] = self._keep(
                    Button(pins.new_game, pull_up=True, bounce_time=pins.bounce_s, hold_time=pins.new_game_hold_s)
                )
                new_game.when_held = _sends(emit, ButtonEvent("new_game"))
            if pins.encoder_a is not None:
                dial = self._keep(RotaryEncoder(pins.encoder_a, pins.encoder_b))
                dial.when_rotated_clockwise = _sends(emit, DialEvent(1))
                dial.when_rotated_counter_clockwise = _sends(emit, DialEvent(-1))
                push = self._keep(Button(pins.encoder_push, pull_up=True, bounce_time=pins.bounce_s))
                push.when_pressed = _sends(emit, ButtonEvent("enter_clue"))
        except BaseException:
            self.stop()
            raise

    def _keep(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def held(self) -> frozenset[str]:
        return frozenset(name for name, button in self._named.items() if button.is_pressed)

    def stop(self) -> None:
        self._named.clear()
        while self._devices:
            self._devices.pop().close()
