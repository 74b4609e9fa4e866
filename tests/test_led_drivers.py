"""The LED backends against fake libraries: what each would write to the strip.

rpi_ws281x's PixelStrip crashes the interpreter off a Pi, so the real library is never used
here: a fake module stands in for it (and for spidev) in ``sys.modules``.
"""

from __future__ import annotations

import atexit
import subprocess
import sys
import types
from typing import ClassVar

import pytest

from pi_table.drivers.settings import SpiLedConfig, Ws281xConfig
from pi_table.drivers.spi_leds import BIT0, BIT1, SpiLedStrip
from pi_table.drivers.ws281x import Ws281xStrip
from pi_table.engine import CELLS
from pi_table.hal import LedFrame
from pi_table.ui.pixels import LedMap, PixelOutput, PowerLimit

OFF = (0, 0, 0)


def output(leds_per_cell: int = 1, edge_leds: int = 4) -> PixelOutput:
    """An output stage that changes no value, so what the driver writes is easy to read."""
    return PixelOutput(LedMap.grid(leds_per_cell=leds_per_cell, edge_leds=edge_leds), brightness=1.0, gamma=1.0,
                       power=PowerLimit(budget_ma=100_000, cell_ma=float("inf")))


def picture() -> LedFrame:
    cells = [OFF] * CELLS
    cells[0], cells[1], cells[24] = (255, 0, 0), (0, 0, 255), (1, 2, 3)
    return LedFrame(tuple(cells), ((0, 255, 0), OFF, OFF, (16, 32, 64)))


# --- rpi-ws281x -------------------------------------------------------------------------------


class FakePixelStrip:
    made: ClassVar[list[FakePixelStrip]] = []

    def __init__(self, num, pin, freq_hz, dma, invert, brightness, channel, strip_type, gamma):
        self.args = dict(num=num, pin=pin, freq_hz=freq_hz, dma=dma, invert=invert, brightness=brightness,
                         channel=channel, strip_type=strip_type, gamma=gamma)
        self.leds = [None] * num
        self.begun = False
        self.shown: list[list[int]] = []
        self.cleaned = 0
        FakePixelStrip.made.append(self)
        atexit.register(self._cleanup)  # as the library does

    def begin(self):
        self.begun = True

    def setPixelColor(self, n, color):
        self.leds[n] = color

    def show(self):
        self.shown.append(list(self.leds))

    def _cleanup(self):
        self.cleaned += 1


@pytest.fixture
def ws281x(monkeypatch):
    fake = types.ModuleType("rpi_ws281x")
    fake.PixelStrip = FakePixelStrip
    fake.WS2811_STRIP_GRB = 0x081000
    fake.WS2811_STRIP_RGB = 0x100800
    FakePixelStrip.made = []
    monkeypatch.setitem(sys.modules, "rpi_ws281x", fake)
    return fake


def test_ws281x_opens_the_strip_on_spi_with_our_brightness_and_gamma(ws281x):
    strip = Ws281xStrip(output())
    made = FakePixelStrip.made[0]
    assert made.begun
    assert made.args == dict(num=29, pin=10, freq_hz=800_000, dma=10, invert=False, brightness=255, channel=0,
                             strip_type=ws281x.WS2811_STRIP_GRB, gamma=list(range(256)))
    strip.close()


def test_ws281x_writes_every_led_of_the_frame_then_shows_once(ws281x):
    strip = Ws281xStrip(output())
    strip.show(picture())
    made = FakePixelStrip.made[0]
    assert made.shown == [[0xFF0000, 0x0000FF] + [0] * 22 + [0x010203, 0x00FF00, 0, 0, 0x102040]]
    strip.show(LedFrame((OFF,) * CELLS, (OFF,) * 4))
    assert len(made.shown) == 2 and made.shown[-1] == [0] * 29


def test_ws281x_turns_everything_off_on_close_and_releases_the_library_once(ws281x):
    strip = Ws281xStrip(output())
    strip.show(picture())
    strip.close()
    strip.close()
    made = FakePixelStrip.made[0]
    assert made.shown[-1] == [0] * 29 and len(made.shown) == 2
    assert made.cleaned == 1


def test_a_strip_that_cannot_begin_leaves_the_library_no_clean_up_to_crash_at_exit(ws281x, monkeypatch):
    """Issue 39, seen on the emulated Pi (no SPI, no PWM): begin() failed, the table played on without
    LEDs, and at every stop the library's clean-up, registered at exit, finalised a controller that
    never began and crashed the interpreter (SIGABRT: systemd counted each stop a failure)."""
    registered: list = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(atexit, "unregister", registered.remove)

    def fails(self):
        raise RuntimeError("ws2811_init failed with code -3 (Hardware revision is not supported)")

    monkeypatch.setattr(FakePixelStrip, "begin", fails)
    with pytest.raises(RuntimeError, match="ws2811_init failed"):
        Ws281xStrip(output())
    assert len(FakePixelStrip.made) == 1 and registered == []


def test_ws281x_pwm_on_gpio18_and_the_chip_order_are_options(ws281x):
    Ws281xStrip(output(), Ws281xConfig(pin=18, dma=11, order="RGB", invert=True))
    args = FakePixelStrip.made[0].args
    assert (args["pin"], args["dma"], args["strip_type"], args["invert"]) == (18, 11, ws281x.WS2811_STRIP_RGB, True)


@pytest.mark.parametrize(
    "bad, message",
    [
        (dict(pin=4), "not GPIO4"),
        (dict(pin=13), "GPIO13 is on channel 1"),
        (dict(dma=5), "5 corrupts the SD card"),
        (dict(freq_hz=1_000_000), "freq_hz"),
        (dict(order="RGBW"), "order"),
    ],
)
def test_ws281x_settings_are_checked(bad, message):
    with pytest.raises(ValueError, match=message):
        Ws281xConfig(**bad)


def test_the_hardware_libraries_are_imported_only_when_a_strip_is_opened():
    code = (
        "import sys, pi_table.drivers.ws281x, pi_table.drivers.spi_leds; "
        "print('rpi_ws281x' in sys.modules, 'spidev' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


# --- SPI (Pi 5) ---------------------------------------------------------------------------


class FakeSpiDev:
    made: ClassVar[list[FakeSpiDev]] = []

    def __init__(self):
        self.opened = None
        self.mode = None
        self.max_speed_hz = None
        self.writes: list[bytes] = []
        self.closed = False
        FakeSpiDev.made.append(self)

    def open(self, bus, device):
        self.opened = (bus, device)

    def writebytes2(self, data):
        self.writes.append(bytes(data))

    def close(self):
        self.closed = True


@pytest.fixture
def spidev(monkeypatch, tmp_path):
    fake = types.ModuleType("spidev")
    fake.SpiDev = FakeSpiDev
    FakeSpiDev.made = []
    monkeypatch.setitem(sys.modules, "spidev", fake)
    bufsiz = tmp_path / "bufsiz"
    bufsiz.write_text("4096\n")
    return bufsiz


def decode(wire: bytes, order: str = "GRB", speed_hz: int = 6_400_000) -> list[int]:
    """Read the WS2812B data back out of the SPI bytes, checking the latch on both sides."""
    latch = len(wire) - len(wire.lstrip(b"\0"))
    assert latch * 8 / speed_hz >= 280e-6 and wire.endswith(bytes(latch))
    body = wire[latch : len(wire) - latch]
    assert set(body) <= {BIT0, BIT1} and len(body) % 24 == 0
    bits = [1 if byte == BIT1 else 0 for byte in body]
    values = []
    for led in range(len(bits) // 24):
        channels = {}
        for index, channel in enumerate(order):
            chunk = bits[led * 24 + index * 8 : led * 24 + index * 8 + 8]
            channels[channel] = int("".join(map(str, chunk)), 2)
        values.append(channels["R"] << 16 | channels["G"] << 8 | channels["B"])
    return values


def test_spi_opens_spidev0_in_mode_0_at_6_4_mhz(spidev):
    SpiLedStrip(output(), bufsiz_file=spidev)
    spi = FakeSpiDev.made[0]
    assert (spi.opened, spi.mode, spi.max_speed_hz) == ((0, 0), 0, 6_400_000)


def test_spi_sends_each_led_green_red_blue_one_byte_per_bit(spidev):
    strip = SpiLedStrip(output(), bufsiz_file=spidev)
    strip.show(picture())
    wire = FakeSpiDev.made[0].writes[0]
    assert decode(wire) == [0xFF0000, 0x0000FF] + [0] * 22 + [0x010203, 0x00FF00, 0, 0, 0x102040]
    latch = len(wire) - len(wire.lstrip(b"\0"))
    assert wire[latch : latch + 24] == bytes([BIT0] * 8 + [BIT1] * 8 + [BIT0] * 8)  # red: green 0, red 255, blue 0


def test_spi_channel_order_is_configurable(spidev):
    strip = SpiLedStrip(output(), SpiLedConfig(order="RGB"), bufsiz_file=spidev)
    strip.show(picture())
    assert decode(FakeSpiDev.made[0].writes[0], order="RGB")[:2] == [0xFF0000, 0x0000FF]


@pytest.mark.parametrize("speed_hz", [6_400_000, 6_250_000])
def test_spi_bit_patterns_keep_the_ws2812b_timing(speed_hz):
    """High time of a 0: 220-380 ns, of a 1: 580-1000 ns; a bit lasts about 1.25 µs. 6.25 MHz is
    what the Pi 5 gives when 6.4 MHz is asked for."""
    spi_bit_ns = 1e9 / speed_hz

    def high_ns(pattern):
        text = f"{pattern:08b}"
        assert "01" not in text  # one pulse, high first
        return text.count("1") * spi_bit_ns

    assert 220 <= high_ns(BIT0) <= 380
    assert 580 <= high_ns(BIT1) <= 1000
    assert 1150 <= 8 * spi_bit_ns <= 1300


def test_spi_writes_each_frame_in_one_transfer_and_turns_off_on_close(spidev):
    strip = SpiLedStrip(output(), bufsiz_file=spidev)
    strip.show(picture())
    strip.show(picture())
    strip.close()
    strip.close()
    spi = FakeSpiDev.made[0]
    assert len(spi.writes) == 3
    assert decode(spi.writes[-1]) == [0] * 29
    assert spi.closed


def test_spi_refuses_a_strip_too_long_for_one_transfer_and_says_how_to_fix_it(spidev):
    long_strip = output(leds_per_cell=6, edge_leds=60)  # 210 LEDs: 5040 bytes of data
    from pi_table.drivers.spi_leds import StripTooLong
    from pi_table.errors import PiTableError

    with pytest.raises(StripTooLong, match=r"210 LEDs need one SPI transfer of 5520 bytes.*spidev.bufsiz=8192") as raised:
        SpiLedStrip(long_strip, bufsiz_file=spidev)
    assert isinstance(raised.value, (PiTableError, ValueError))
    assert FakeSpiDev.made == []  # refused before the device is opened
    spidev.write_text("65536\n")
    SpiLedStrip(long_strip, bufsiz_file=spidev).show(picture_for(long_strip))
    assert decode(FakeSpiDev.made[0].writes[0])[:6] == [0xFF0000] * 6


def picture_for(out: PixelOutput) -> LedFrame:
    cells = [OFF] * CELLS
    cells[0] = (255, 0, 0)
    return LedFrame(tuple(cells), (OFF,) * len(out.map.edge))


@pytest.mark.parametrize(
    "bad, message",
    [(dict(speed_hz=8_000_000), "speed_hz"), (dict(order="GRBW"), "order"), (dict(latch_us=10), "latch_us")],
)
def test_spi_settings_are_checked(bad, message):
    with pytest.raises(ValueError, match=message):
        SpiLedConfig(**bad)
