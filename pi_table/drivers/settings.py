"""What each driver is set up with (pins, ports, channel orders, limits) and the checks on it:
the configuration builds and checks these without loading a driver, as a simulated table runs
none (``pi-table run --hal sim`` starts without them), and each driver takes its own from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import CELLS
from ..engine.errors import Refusal
from ..kinds import SerialDevice

# --- [leds.ws281x]: rpi-ws281x (pi_table.drivers.ws281x) ---------------------------------------

PINS = {10: (0,), 18: (0,), 12: (0,), 21: (0,), 13: (1,), 19: (1,)}
"""The header pins rpi-ws281x can drive and the channel each needs: SPI (10), PWM0 (12, 18),
PCM (21), PWM1 (13, 19)."""
ORDERS = ("GRB", "RGB", "BRG", "BGR", "RBG", "GBR")


@dataclass(frozen=True, slots=True)
class Ws281xConfig:
    """[leds.ws281x] of the configuration: how rpi-ws281x drives the strip (pin, PWM channel, DMA, order)."""

    pin: int = 10
    channel: int = 0
    freq_hz: int = 800_000
    dma: int = 10
    invert: bool = False  # True behind an inverting level shifter (a single NPN transistor)
    order: str = "GRB"  # the chips' channel order: WS2812B take green, red, blue

    def __post_init__(self) -> None:
        if self.pin not in PINS:
            raise Refusal("rpi-ws281x drives GPIO {pins}, not GPIO{pin}", pins=", ".join(map(str, sorted(PINS))),
                          pin=self.pin)
        if self.channel not in PINS[self.pin]:
            raise Refusal("GPIO{pin} is on channel {right}, not {channel}", pin=self.pin, right=PINS[self.pin][0],
                          channel=self.channel)
        if self.freq_hz not in (400_000, 800_000):
            raise Refusal("freq_hz is 800000 (WS2812B) or 400000 (old WS2811), not {hz}", hz=self.freq_hz)
        if self.dma == 5 or not 0 <= self.dma <= 14:
            raise Refusal("dma is a DMA channel 0-14 the system leaves free, such as 10 (5 corrupts the SD card), "
                          "not {dma}", dma=self.dma)
        if self.order not in ORDERS:
            raise Refusal("order is one of {orders}, not {order!r}", orders=", ".join(ORDERS), order=self.order)


# --- [leds.spi]: the Pi 5's spidev (pi_table.drivers.spi_leds) ----------------------------------


@dataclass(frozen=True, slots=True)
class SpiLedConfig:
    """[leds.spi] of the configuration: the SPI device and bit rate that carry the WS2812B waveform on a Pi 5."""

    bus: int = 0  # /dev/spidev0.0: MOSI on GPIO10
    device: int = 0
    speed_hz: int = 6_400_000
    order: str = "GRB"  # the chips' channel order: WS2812B take green, red, blue
    latch_us: float = 300.0

    def __post_init__(self) -> None:
        if not 5_600_000 <= self.speed_hz <= 7_200_000:
            raise Refusal("speed_hz is about 6400000 (5.6 to 7.2 MHz keep the WS2812B's bit timing), not {hz}",
                          hz=self.speed_hz)
        if self.order not in ORDERS:
            raise Refusal("order is one of {orders}, not {order!r}", orders=", ".join(ORDERS), order=self.order)
        if not 50 <= self.latch_us <= 1000:
            raise Refusal("latch_us is 50 to 1000 microseconds (WS2812B: 280 or more), not {us}", us=self.latch_us)


# --- [buttons]: gpiozero (pi_table.drivers.buttons) ---------------------------------------------

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


# --- [touch]: the touch board (pi_table.drivers.touchboard) --------------------------------------

ELECTRODE_LIMIT = 64  # a touch mask's bits: protocol.wire's MASK_BYTES * 8 (tests/test_touch_driver.py holds them equal)


def _default_cells() -> tuple[int | None, ...]:
    return tuple(range(CELLS)) + (None,) * 11  # 3 chips x 12 electrodes; 25-35 are spares


@dataclass(frozen=True)
class TouchBoardConfig:
    """Where the board is and how its electrodes map to the grid.

    ``cells[e]`` is the cell under electrode ``e`` (None: not a cell); ``end_turn`` lists the
    spare electrodes wired to END TURN pads. ``port`` (a /dev/serial/by-id path) wins over
    finding the board by ``usb_id``. ``thresholds[e]`` is electrode ``e``'s (touch, release)
    pair, sent to the board each time it connects (none: the firmware's own, 8/4).
    """

    port: SerialDevice | None = None  # None: found by usb_id
    usb_id: tuple[int, int] = (0x239A, 0x80F4)  # Raspberry Pi Pico running CircuitPython
    cells: tuple[int | None, ...] = field(default_factory=_default_cells)
    end_turn: tuple[int, ...] = (25, 26)
    thresholds: tuple[tuple[int, int], ...] = ()
    baudrate: int = 115200
    hello_timeout_s: float = 1.0
    silence_timeout_s: float = 1.0
    backoff_s: float = 0.1
    backoff_max_s: float = 2.0

    def __post_init__(self) -> None:
        if self.port is not None and not isinstance(self.port, SerialDevice):
            # a programming error: the configuration parses the port into its kind
            raise TypeError(f"the touch board's port is a SerialDevice (pi_table.kinds), not {self.port!r}")
        if len(self.usb_id) != 2 or not all(isinstance(n, int) and 0 <= n <= 0xFFFF for n in self.usb_id):
            raise Refusal("usb_id is (vendor, product), two numbers 0 to 0xFFFF, not {usb_id}", usb_id=repr(self.usb_id))
        if len(self.cells) > ELECTRODE_LIMIT:
            raise Refusal("cells maps at most {most} electrodes, not {count}", most=ELECTRODE_LIMIT, count=len(self.cells))
        seen: dict[int, int] = {}
        for electrode, cell in enumerate(self.cells):
            if cell is None:
                continue
            if not isinstance(cell, int) or not 0 <= cell < CELLS:
                raise Refusal("electrode {electrode} is mapped to cell {cell!r}, off the grid: cells are 0 to {last}",
                              electrode=electrode, cell=cell, last=CELLS - 1)
            if cell in seen:
                raise Refusal("cell {cell} is mapped twice: to electrodes {first} and {electrode}", cell=cell,
                              first=seen[cell], electrode=electrode)
            seen[cell] = electrode
        if len(set(self.end_turn)) != len(self.end_turn):
            raise Refusal("end_turn lists an electrode twice: {electrodes}", electrodes=str(self.end_turn))
        for electrode in self.end_turn:
            if not isinstance(electrode, int) or not 0 <= electrode < ELECTRODE_LIMIT:
                raise Refusal("END TURN electrode {electrode!r} does not exist: electrodes are 0 to {last}",
                              electrode=electrode, last=ELECTRODE_LIMIT - 1)
            if electrode < len(self.cells) and self.cells[electrode] is not None:
                raise Refusal("electrode {electrode} is both END TURN and cell {cell}", electrode=electrode,
                              cell=self.cells[electrode])
        if len(self.thresholds) > ELECTRODE_LIMIT:
            raise Refusal("thresholds lists at most {most} electrodes, not {count}", most=ELECTRODE_LIMIT,
                          count=len(self.thresholds))
        for electrode, pair in enumerate(self.thresholds):
            if len(pair) != 2 or not 0 < pair[1] < pair[0] <= 255:
                raise Refusal("electrode {electrode}'s thresholds are [touch, release] with 0 < release < touch <= 255, "
                              "not {pair}", electrode=electrode, pair=str(list(pair)))
        if self.baudrate <= 0:
            raise Refusal("baudrate must be positive, not {baudrate}", baudrate=self.baudrate)
        for name in ("hello_timeout_s", "silence_timeout_s", "backoff_s"):
            if not getattr(self, name) > 0:
                raise Refusal("{name} must be above 0 seconds, not {seconds}", name=name, seconds=getattr(self, name))
        if not self.backoff_max_s >= self.backoff_s:
            raise Refusal("backoff_max_s ({most}) must be at least backoff_s ({least})", most=self.backoff_max_s,
                          least=self.backoff_s)
