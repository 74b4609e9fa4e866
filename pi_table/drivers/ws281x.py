"""WS2812B LEDs on a Raspberry Pi 3 or 4 through the rpi-ws281x library (pip: rpi-ws281x).

The default pin is GPIO10, SPI0's MOSI: the library then drives the strip through the kernel's
spidev and needs no root, only a user in the ``spi`` and ``gpio`` groups, ``dtparam=spi=on``
and a fixed core clock so the SPI rate holds (Pi 3: ``core_freq=250``; Pi 4:
``core_freq=500`` and ``core_freq_min=500`` in config.txt). GPIO18 uses PWM with DMA
instead: it needs root and takes the analogue audio's PWM. The library does not support the
Pi 5; use ``pi_table.drivers.spi_leds`` there.

Brightness, gamma and the current limit are ours (``pi_table.ui.pixels.PixelOutput``): the
library gets brightness 255 and an identity gamma table so it changes nothing. It is
imported only when a strip is opened: constructing its ``PixelStrip`` off a Pi crashes the
interpreter, so tests put a fake module in its place.
"""

from __future__ import annotations

import atexit
import importlib
from typing import Protocol

from ..hal import LedFrame, LedStrip
from .settings import Ws281xConfig


class PixelSource(Protocol):
    """What an LED driver needs from the output stage (``pi_table.ui.pixels.PixelOutput``,
    which the drivers, a layer below, do not import)."""

    brightness: float  # 0 to 1: set while the table runs, shown from the next frame

    @property
    def length(self) -> int: ...

    def pixels(self, frame: LedFrame) -> list[int]: ...


class Ws281xStrip(LedStrip):
    """The LED strip through rpi-ws281x; ``show`` hands the frame to its DMA and returns."""

    def __init__(self, output: PixelSource, config: Ws281xConfig | None = None) -> None:
        self.config = config or Ws281xConfig()
        self.output = output
        library = importlib.import_module("rpi_ws281x")
        c = self.config
        self._strip = library.PixelStrip(
            output.length, c.pin, c.freq_hz, c.dma, c.invert, 255, c.channel,
            getattr(library, f"WS2811_STRIP_{c.order}"), list(range(256)),
        )
        try:
            self._strip.begin()
        except Exception:
            # the library registered its clean-up for the exit; on a controller that never began it
            # crashes the interpreter (SIGABRT) at every stop, as the emulated Pi, with no SPI or PWM, showed
            atexit.unregister(self._strip._cleanup)
            raise

    def show(self, frame: LedFrame) -> None:
        self._write(self.output.pixels(frame))

    def close(self) -> None:
        """All LEDs off, then the library's DMA and SPI released (its own clean-up, which
        it also runs at exit; it is safe to run twice)."""
        if self._strip is None:
            return
        self._write([0] * self.output.length)
        self._strip._cleanup()
        self._strip = None

    def _write(self, pixels: list[int]) -> None:
        strip = self._strip
        for index, value in enumerate(pixels):
            strip.setPixelColor(index, value)
        strip.show()
