"""WS2812B LEDs on a Raspberry Pi 5 over SPI, through the kernel's spidev (pip: spidev;
Debian: python3-spidev).

The released rpi-ws281x refuses the Pi 5 ("Hardware revision is not supported": its GPIO,
PWM and SPI sit behind the RP1 chip, which the library does not program). We send the WS2812B
waveform on SPI0's MOSI (GPIO10) instead, encoding it ourselves: each data bit becomes one SPI
byte at 6.4 MHz, ``11000000`` for a 0 (high 312 ns) and ``11111000`` for a 1 (high 781 ns),
within the WS2812B's 220-380 ns and 580-1000 ns windows. Why this rather than a NeoPixel
library:

- spidev is the one maintained dependency (a thin binding to the kernel's /dev/spidev, packaged
  by Debian); Adafruit's neopixel_spi does the same encoding but pulls in Blinka and its board
  detection, and its brightness and gamma would be a second set on top of ours;
- one byte per bit means every byte ends low, so a pause between bytes only stretches a low
  level, which the LEDs ignore until it reaches the latch time;
- the RP1 divides a 200 MHz clock by an even number, so 6.4 MHz may come out as 6.25 MHz: the
  bits become 320 and 800 ns, still inside both windows;
- a run of zero bytes before the data (MOSI may rest high, which corrupts the first LED on
  several SPI controllers) and after it (the latch: 300 µs, over the WS2812B's 280 µs);
- the whole frame goes in one transfer: spidev splits larger writes into pieces, and a pause
  between pieces can latch half a frame. A strip too long for the buffer is refused at start
  with the kernel parameter that raises it.

Needs ``dtparam=spi=on`` in config.txt and a user in the ``spi`` group; no root.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path

from ..errors import PiTableError
from ..hal import LedFrame, LedStrip
from .settings import SpiLedConfig
from .ws281x import PixelSource

BIT0 = 0b11000000
BIT1 = 0b11111000
_NIBBLES = [bytes(BIT1 if nibble >> bit & 1 else BIT0 for bit in (3, 2, 1, 0)) for nibble in range(16)]
ENCODED = [high + low for high in _NIBBLES for low in _NIBBLES]
"""Each data byte as the 8 SPI bytes that carry it, most significant bit first (built from its
two halves' 4: a tenth of the work of 256 bytes bit by bit, at every start of the table)."""
BUFSIZ_FILE = Path("/sys/module/spidev/parameters/bufsiz")
DEFAULT_BUFSIZ = 4096  # the kernel's, when the parameter cannot be read


class StripTooLong(PiTableError, ValueError):
    """More LEDs than one SPI transfer of spidev's buffer holds: the message says the boot
    option that makes room."""


class SpiLedStrip(LedStrip):
    """The LED strip on a spidev device; ``show`` writes one transfer of the whole frame."""

    def __init__(
        self, output: PixelSource, config: SpiLedConfig | None = None, bufsiz_file: Path = BUFSIZ_FILE
    ) -> None:
        self.config = c = config or SpiLedConfig()
        self.output = output
        self._latch = bytes(math.ceil(c.speed_hz * c.latch_us / 8e6))
        self._shifts = tuple(16 - 8 * "RGB".index(channel) for channel in c.order)
        size = 2 * len(self._latch) + 24 * output.length
        limit = _bufsiz(bufsiz_file)
        if size > limit:
            raise StripTooLong(
                f"{output.length} LEDs need one SPI transfer of {size} bytes, more than spidev's buffer of "
                f"{limit}: add spidev.bufsiz={1 << (size - 1).bit_length()} to /boot/firmware/cmdline.txt and reboot"
            )
        spidev = importlib.import_module("spidev")
        self._spi = spidev.SpiDev()
        self._spi.open(c.bus, c.device)
        self._spi.mode = 0
        self._spi.max_speed_hz = c.speed_hz

    def show(self, frame: LedFrame) -> None:
        self._spi.writebytes2(self.encode(self.output.pixels(frame)))

    def close(self) -> None:
        """All LEDs off, then the device released."""
        if self._spi is None:
            return
        self._spi.writebytes2(self.encode([0] * self.output.length))
        self._spi.close()
        self._spi = None

    def encode(self, pixels: list[int]) -> bytes:
        """The SPI bytes for these ``0xRRGGBB`` values: latch, each LED's channels in the
        chips' order, latch."""
        first, second, third = self._shifts
        parts = [self._latch]
        for value in pixels:
            parts += (ENCODED[value >> first & 255], ENCODED[value >> second & 255], ENCODED[value >> third & 255])
        parts.append(self._latch)
        return b"".join(parts)


def _bufsiz(path: Path) -> int:
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return DEFAULT_BUFSIZ
