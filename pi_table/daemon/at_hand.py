"""What the staff page and the fleet change while the table runs (the language, the LEDs'
brightness, the volume, the turn timer's length): written like any change of settings, and applied
at once, in the loop's thread."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from ..engine.phrase import Phrase

if TYPE_CHECKING:
    from ..config import Config
    from ..table.loop import EventLoop
    from ..ui.sound import Announcer
    from ..web import Companion
    from .devices import Devices
    from .restarts import Restarts

AT_HAND = {"language": "game.language", "brightness": "leds.brightness", "volume": "sound.volume",
           "timer": "timer.length_s"}
"""What the staff page and the fleet change while the table runs, by their names for it."""


class Table(Protocol):
    """What a change at hand needs of the running table (``run.Daemon``)."""

    config: Config
    restarts: Restarts
    loop: EventLoop
    announcer: Announcer
    companion: Companion | None
    devices: Devices

    def in_loop(self, fn: Callable[[], object]) -> bool: ...


def change(daemon: Table, key: str, value: object) -> list[Phrase]:
    """The language, the LEDs' brightness, the volume or the turn timer's length (``AT_HAND``;
    the staff page's ``LIVE``), written like any change and applied at once: nobody should
    have to restart a table to dim it, quieten it, hurry it or hear it in Italian."""
    if key not in AT_HAND.values():
        return [Phrase.of("{key} is not changed while the table runs: expected one of {keys}", key=key,
                          keys=", ".join(AT_HAND.values()))]
    with daemon.restarts.lock:  # the table applies the changes in the order the file took them
        problems = daemon.restarts.change({key: value}, proven=True)
        if not problems:  # written: a table stopping meanwhile takes it up when it next starts
            daemon.in_loop(lambda: _apply(daemon, key, value))
    return problems


def _apply(daemon: Table, key: str, value: object) -> None:
    """In the loop's thread: the value the checker passed, shown from the next frame."""
    config = replace(daemon.config, values={**daemon.config.values, key: value})  # as the staff page's form shows it
    daemon.config = config
    if key == "game.language":
        daemon.config = replace(config, language=str(value))  # a later loop speaks it too
        daemon.loop.lang = daemon.announcer.lang = str(value)
        if daemon.companion is not None:
            daemon.companion.speak(str(value))
    elif key == "sound.volume":
        volume = float(value)  # type: ignore[arg-type]  # the checker passed a number
        daemon.config = replace(config, sound=replace(config.sound, volume=volume))
        daemon.announcer.settings = daemon.config.sound
    elif key == "timer.length_s":  # the turn under way runs to the new length; a game's own timer keeps its own
        timer = replace(config.timer, length_s=float(value))  # type: ignore[arg-type]  # the checker passed a number
        daemon.config = replace(config, timer=timer)
        daemon.loop.retime(timer)
    else:
        brightness = float(value)  # type: ignore[arg-type]  # the checker passed a number
        daemon.config = replace(config, leds=replace(config.leds, brightness=brightness))
        output = getattr(daemon.devices.leds, "output", None)  # the real strips' output stage
        if output is not None:
            output.brightness = brightness
    daemon.loop.show()
