"""The gpiozero buttons, driven through gpiozero's own MockFactory: a pin driven low is a contact
closed to ground, as on the table."""

from __future__ import annotations

import dataclasses
import queue
import time
import warnings

import pytest
from gpiozero import Button, Device
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockFactory

from pi_table.drivers.buttons import GpioButtons
from pi_table.drivers.settings import ButtonPins
from pi_table.hal.events import ButtonEvent, DialEvent

pytestmark = pytest.mark.arm64

HOLD_S = 0.1  # NEW GAME's hold in these tests, so the file stays fast
END_TURN, NEW_GAME, ENCODER_A, ENCODER_B, ENCODER_PUSH = 17, 27, 22, 23, 24
WITH_ENCODER = ButtonPins(
    encoder_a=ENCODER_A, encoder_b=ENCODER_B, encoder_push=ENCODER_PUSH, new_game_hold_s=HOLD_S
)


@pytest.fixture
def factory():
    """A fresh MockFactory for the test, its pins and reservations cleared after."""
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


class Table:
    """Stands in for the table loop: ``post`` queues what the buttons emit, from any thread."""

    def __init__(self) -> None:
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        self.post = self.events.put

    def heard(self) -> list:
        """Everything emitted so far."""
        found = []
        while not self.events.empty():
            found.append(self.events.get_nowait())
        return found


@pytest.fixture
def started(factory):
    """Start GpioButtons on the given pins; every one started is stopped after the test."""
    made: list[GpioButtons] = []

    def start(pins: ButtonPins = WITH_ENCODER) -> tuple[GpioButtons, Table]:
        buttons, table = GpioButtons(pins), Table()
        buttons.start(table.post)
        made.append(buttons)
        return buttons, table

    yield start
    for buttons in made:
        buttons.stop()


def push(pin) -> None:
    pin.drive_low()
    pin.drive_high()


def turn(factory, clockwise: bool) -> None:
    """One detent: a full quadrature cycle. Clockwise, A closes first and opens first."""
    first, second = (factory.pin(ENCODER_A), factory.pin(ENCODER_B))[:: 1 if clockwise else -1]
    first.drive_low()
    second.drive_low()
    first.drive_high()
    second.drive_high()


def test_end_turn_emits_once_when_pressed(started, factory):
    _, table = started()
    factory.pin(END_TURN).drive_low()
    assert table.heard() == [ButtonEvent("end_turn")]
    factory.pin(END_TURN).drive_high()
    assert table.heard() == []


def test_buttons_are_debounced_by_bounce_s(started, factory):
    """MockPin records the bounce time but does not filter edges by it (gpiozero 2.0), so a
    bouncing contact cannot be replayed here: what is checked is that each button asks
    gpiozero for ``bounce_s``, and the encoder's contacts for none."""
    started(ButtonPins(encoder_a=ENCODER_A, encoder_b=ENCODER_B, encoder_push=ENCODER_PUSH, bounce_s=0.03))
    assert [factory.pin(pin).bounce for pin in (END_TURN, NEW_GAME, ENCODER_PUSH)] == [0.03] * 3
    assert [factory.pin(pin).bounce for pin in (ENCODER_A, ENCODER_B)] == [None, None]


def test_a_brushed_new_game_does_nothing(started, factory):
    # a hold of 1 s here: the brush is two calls of this thread, which a loaded machine may
    # hold apart for longer than the file's short hold
    _, table = started(dataclasses.replace(WITH_ENCODER, new_game_hold_s=1.0))
    push(factory.pin(NEW_GAME))
    factory.pin(NEW_GAME).drive_low()  # then a real hold, past the moment the brush's would end
    assert table.events.get(timeout=5) == ButtonEvent("new_game")
    factory.pin(NEW_GAME).drive_high()
    assert table.heard() == []  # the hold's alone


def test_new_game_held_emits_once_after_the_hold(started, factory):
    _, table = started()
    began = time.monotonic()
    factory.pin(NEW_GAME).drive_low()
    assert table.events.get(timeout=5) == ButtonEvent("new_game")
    assert time.monotonic() - began >= HOLD_S * 0.9  # not on the press: only after the hold
    time.sleep(HOLD_S * 3)  # still held: no second new game
    factory.pin(NEW_GAME).drive_high()
    assert table.heard() == []


def test_a_clockwise_detent_steps_the_dial_up(started, factory):
    _, table = started()
    turn(factory, clockwise=True)
    assert table.heard() == [DialEvent(1)]


def test_an_anticlockwise_detent_steps_the_dial_down(started, factory):
    _, table = started()
    turn(factory, clockwise=False)
    assert table.heard() == [DialEvent(-1)]


def test_a_long_spin_steps_once_per_detent_without_a_limit(started, factory):
    """One event per detent, however far: gpiozero's own step count stops at max_steps (16)."""
    _, table = started()
    for _ in range(20):
        turn(factory, clockwise=True)
    assert table.heard() == [DialEvent(1)] * 20


def test_a_wiggle_that_returns_does_not_step(started, factory):
    _, table = started()
    a, b = factory.pin(ENCODER_A), factory.pin(ENCODER_B)
    a.drive_low()
    b.drive_low()
    b.drive_high()
    a.drive_high()
    assert table.heard() == []


def test_pushing_the_encoder_enters_the_clue(started, factory):
    _, table = started()
    push(factory.pin(ENCODER_PUSH))
    assert table.heard() == [ButtonEvent("enter_clue")]


def test_no_encoder_leaves_its_pins_alone(started, factory):
    started(ButtonPins())
    for pin in (ENCODER_A, ENCODER_B, ENCODER_PUSH):
        Button(pin).close()  # raises GPIOPinInUse if the buttons had claimed it


def test_stop_frees_the_pins_and_silences_the_buttons(started, factory):
    first, old_table = started()
    first.stop()
    first.stop()  # a second stop is harmless
    _, table = started()  # the same pins again
    push(factory.pin(END_TURN))
    turn(factory, clockwise=True)
    assert table.heard() == [ButtonEvent("end_turn"), DialEvent(1)]
    assert old_table.heard() == []


def test_a_failed_start_frees_the_pins_it_had_taken(started, factory):
    taken = Button(ENCODER_PUSH)  # something else holds the encoder's push pin
    failed = GpioButtons(WITH_ENCODER)
    with pytest.raises(GPIOPinInUse):
        failed.start(Table().post)
    taken.close()
    _, table = started()
    push(factory.pin(END_TURN))
    assert table.heard() == [ButtonEvent("end_turn")]


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"new_game": 17}, r"end_turn and new_game are both on GPIO 17"),
        ({"end_turn": 28}, r"end_turn pin is a BCM GPIO number on the 40-pin header, 2 to 27, not 28"),
        ({"new_game": 1}, r"new_game pin .* 2 to 27, not 1"),
        ({"end_turn": "17"}, r"end_turn pin .* not '17'"),
        ({"encoder_a": 22, "encoder_b": 23}, r"all of encoder_a, .* or none of them, not only encoder_a, encoder_b$"),
        ({"encoder_push": 24}, r"not only encoder_push"),
        ({"new_game_hold_s": 0}, r"new_game_hold_s is above 0 and at most 10 seconds, not 0"),
        ({"new_game_hold_s": 2000}, r"new_game_hold_s .* not 2000"),
        ({"new_game_hold_s": "2"}, r"new_game_hold_s is a number of seconds, not '2'"),
        ({"bounce_s": 0}, r"bounce_s is above 0 .* not 0"),
        ({"bounce_s": 0.2, "new_game_hold_s": 0.1}, r"shorter than new_game_hold_s \(0.1 s\), not 0.2"),
    ],
)
def test_bad_pins_are_refused_saying_what_is_wrong(settings, message):
    with pytest.raises(ValueError, match=message):
        ButtonPins(**settings)


def test_the_defaults_keep_clear_of_the_rest_of_the_table():
    """I2C (2, 3), SPI0 for the LEDs (7-11), the UART (14, 15) and PWM0 for the LEDs (18)."""
    assert ButtonPins().pins() == {"end_turn": 17, "new_game": 27}


def test_no_pin_library_is_said_once_in_plain_words(monkeypatch, caplog):
    """Off a Pi, gpiozero tries each pin library in turn and warns for each with a source
    line; the service's log gets one plain line and the start fails with gpiozero's reason."""
    from gpiozero.exc import BadPinFactory

    previous = Device.pin_factory
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    Device.pin_factory = None
    try:
        with warnings.catch_warnings(record=True) as leaked:
            warnings.simplefilter("always")
            with pytest.raises(BadPinFactory):
                GpioButtons(ButtonPins()).start(lambda event: None)
    finally:
        Device.pin_factory = previous
    assert leaked == []
    (line,) = [r.getMessage() for r in caplog.records if r.name == "pi_table.buttons"]
    # gpiozero 2.0 tries lgpio first; 1.6 (plain Debian 12's) RPi.GPIO, then lgpio
    assert line.startswith("the buttons' pin library: Falling back from ") and "Falling back from lgpio" in line


def test_the_buttons_held_down_are_told_by_name(started, factory):
    """How the staff show they are at the table: both held while it starts (a PIN reset code)."""
    buttons, _ = started()
    assert buttons.held() == frozenset()
    factory.pin(END_TURN).drive_low()
    assert buttons.held() == {"end_turn"}
    factory.pin(NEW_GAME).drive_low()
    assert buttons.held() == {"end_turn", "new_game"}
    factory.pin(END_TURN).drive_high()
    assert buttons.held() == {"new_game"}
    buttons.stop()
    assert buttons.held() == frozenset()  # stopped: nothing is read
