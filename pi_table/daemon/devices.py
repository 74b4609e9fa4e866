"""The daemon's devices: which touch source, LEDs, screen, sound and buttons to build from the
configuration and the ``--hal`` choice. Each driver is imported only for a device the
configuration names; a device that cannot be opened is replaced by a stand-in and reported once,
in the log and on whatever still shows, and the table plays on degraded.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from ..engine.phrase import N_, Phrase, Text, meaning
from ..hal import Buttons, LedStrip, Screen, SimButtons, SimLedStrip, SimScreen, SimTouch, TouchSource
from ..hal.events import NOT_WORKING
from ..hal.sound import NoSound, SimSound, SoundDevice
from ..kinds import SerialDevice

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..config import Config
    from ..drivers.pygame_screen import Painter

log = logging.getLogger("pi_table.daemon")
DEVICE_NAMES = {"touch": "the touch board", "leds": "the LED strip", "screen": "the spymaster screen",
                "buttons": "the buttons", "sound": "the sound"}
DEVICE_FAULTS = {
    "touch": N_("the touch board is not working ({error}): check the USB cable from the touch board to the Pi; "
                "the game waits"),
    "leds": N_("the LED strip is not working ({error}): check its power supply and its data wire to the Pi; "
               "the game goes on without lights"),
    "screen": N_("the spymaster screen is not working ({error}): check its cable to the Pi; the game goes on "
                 "without it"),
    "buttons": N_("the buttons are not working ({error}): check their wires to the Pi; the game goes on without them"),
}
"""What the table shows when a device cannot be opened: what is wrong, then what to do."""
FAULTS = tuple(DEVICE_FAULTS.values())
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""


@dataclass
class Devices:
    """The devices the table plays with (real or stand-ins), each one's health, and the warnings to show."""

    touch: TouchSource
    leds: LedStrip
    screen: Screen
    buttons: Buttons
    health: dict[str, str] = field(default_factory=dict)  # device -> "ok", "simulated" or what is wrong
    faults: dict[str, Text] = field(default_factory=dict)  # device -> the warning to show
    sound: SoundDevice = field(default_factory=NoSound)
    why: dict[str, Text] = field(default_factory=dict)  # device -> why it is not working, for ``status`` to say

    def not_working(self, name: str, why: Text) -> None:
        """``name``'s health is a fault: in the table's English words, and ``why`` kept for
        ``status`` to say in each reader's language (the staff page's, the fleet's)."""
        self.health[name] = NOT_WORKING + str(why)
        self.why[name] = why

    def working(self, name: str, state: str) -> None:
        """``name``'s health is ``state`` ("ok", "connecting"...), no longer a fault."""
        self.health[name] = state
        self.why.pop(name, None)


def open_devices(config: Config, hal: str, touch_port: SerialDevice | Literal["auto"] | None,
                 painter: Painter | None = None) -> Devices:
    """The devices for this table: real ones, each falling back to a stand-in when it cannot
    be opened; or every one simulated with ``hal == "sim"`` (a touch port still counts: a
    command line's ``touch_port``, over the configuration's).
    ``painter`` draws the screen: the game's ``ScreenPainter`` unless another is given."""
    devices = Devices(SimTouch(), SimLedStrip(keep=1), SimScreen(keep=1), SimButtons())
    devices.health = {name: "simulated" for name in ("touch", "leds", "screen", "buttons")}
    if touch_port is not None or hal != "sim":
        from ..drivers.touchboard import TouchBoardSource

        port = config.touch.port if touch_port is None else touch_port if isinstance(touch_port, SerialDevice) else None
        devices.touch, devices.health["touch"] = TouchBoardSource(replace(config.touch, port=port)), "connecting"
    devices.sound, devices.health["sound"] = _sound(config, hal)
    if hal == "sim":
        return devices
    _try(devices, "leds", lambda: _leds(config))
    _try(devices, "buttons", lambda: _buttons(config))
    if config.screen.enabled:
        _try(devices, "screen", lambda: _screen(config, painter))
    else:
        devices.health["screen"] = "not fitted"
    return devices


def stand_in(devices: Devices, name: str, error: Exception) -> TouchSource | Buttons | Screen:
    """A device that failed as it started ("touch", "buttons" or "screen"): its stand-in, put in
    its place in ``devices``, the failure reported as one that failed to open is."""
    stand_ins: dict[str, TouchSource | Buttons | Screen] = {
        "touch": SimTouch(), "buttons": SimButtons(), "screen": SimScreen(keep=1)}
    device = stand_ins[name]
    setattr(devices, name, device)
    _failed(devices, name, error)
    return device


def _try(devices: Devices, name: str, build: Callable[[], object]) -> None:
    try:
        device = build()
    except Exception as e:  # noqa: BLE001 (a missing library, a device node, a permission: play on degraded)
        _failed(devices, name, e)
        return
    if device is None:
        devices.health[name] = "not fitted"
    else:
        setattr(devices, name, device)
        devices.health[name] = "ok"


def _failed(devices: Devices, name: str, error: Exception) -> None:
    """Say once, in the log and on whatever still shows, that a device is not working."""
    why = meaning(error)
    devices.not_working(name, why)
    devices.faults[name] = Phrase.of(DEVICE_FAULTS[name], error=why)
    log.error("%s could not be opened, the table plays without it: %s", DEVICE_NAMES[name], error)


def _leds(config: Config) -> LedStrip | None:
    leds = config.leds
    if leds.backend == "none":
        return None
    if leds.backend == "ws281x":
        from ..drivers.ws281x import Ws281xStrip

        return Ws281xStrip(leds.output(), leds.ws281x)
    from ..drivers.spi_leds import SpiLedStrip

    return SpiLedStrip(leds.output(), leds.spi)


def _sound(config: Config, hal: str) -> tuple[SoundDevice, str]:
    """The speaker: pygame's mixer on a real table (a missing audio device is reported by the
    driver's own thread, as a warning); a recorder in the simulator."""
    if not config.sound.enabled:
        return NoSound(), "off"
    if hal == "sim":
        return SimSound(keep=100), "simulated"
    from ..drivers.pygame_sound import PygameSound

    return PygameSound(), "ok"


def _buttons(config: Config) -> Buttons | None:
    """The buttons, or None when every one is switched off: then gpiozero is never loaded."""
    if not config.buttons.pins():
        return None
    from ..drivers.buttons import GpioButtons

    return GpioButtons(config.buttons)


def _screen(config: Config, painter: Painter | None = None) -> Screen:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no greeting in the service's log
    from ..drivers.pygame_screen import PygameScreen
    from ..ui.screens import ScreenPainter

    screen = config.screen
    painter = painter or ScreenPainter(screen.settings)
    return PygameScreen(painter, size=screen.size, video_driver=screen.video_driver,
                        panel_rotation=screen.mounting.rotation)
