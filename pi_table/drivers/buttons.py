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
from typing import Any

from ..hal.buttons import Buttons
from ..hal.events import ButtonEvent, DialEvent, Emit, Event
from .settings import ButtonPins

log = logging.getLogger("pi_table.buttons")


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
