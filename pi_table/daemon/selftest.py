"""``pi-table selftest``: installation day, with the table's own devices and no game.

First a walk of the LEDs, one cell after another and then the edge, for the installer to
watch. Then a checklist the installer works through in any order: every pad touched once,
each fitted button, the clue dial, a tap on the screen. Each step is shown as it happens on
the screen, on the LEDs (a touched cell turns green) and in the terminal. A device that
could not be opened fails its checks at once; a simulated one has nothing to check.

With a touch board, a chip that does not answer fails the test, naming the chip, its cards and
what to check. The self-test also reads the pads' numbers as ``pi-table tune`` does:
while the table is at rest (the LED walk, and at least a second) each pad's noise, then each
touch's strength. A pad too noisy for its thresholds, or one whose touch stays under its
threshold (deaf), fails the test with what to do.

It speaks the table's language (``--lang``, by default ``[game] language``): each line is a
catalogue msgid; the checklist keeps its English names as keys and says them translated.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..drivers.settings import ButtonPins
from ..drivers.touchboard import TouchBoardSource
from ..engine import CELLS
from ..engine.phrase import N_, Text, meaning
from ..hal import ButtonEvent, DialEvent, Event, HealthEvent, LedFrame, SelfTestModel, TouchEvent, UiEvent
from ..hal.events import DEVICE_NAMES, NOT_WORKING
from ..hal.tuning import PadNumbers, PadTuner, table_pads
from ..protocol import wire
from ..ui.i18n import say, say_health, translation
from .devices import Devices

WHAT_TO_DO = {
    "touch": N_("check the touch board's USB cable; the board shows in ls /dev/serial/by-id/"),
    "leds": N_("turn SPI on (sudo raspi-config nonint do_spi 0, then reboot) and put the user in the spi group"),
    "screen": N_("put the user in the video, render and input groups; no desktop may hold the display"),
    "buttons": N_("on a Raspberry Pi install python3-lgpio and put the user in the gpio group; "
                  "set the [buttons] pins that are not fitted to false"),
    "sound": N_("check the speaker or amplifier and its cable, and [sound] in the configuration"),
}
"""What an installer can do about a device that did not open, said beside the failure."""
WALK_S = 0.15  # each cell's turn in the LED walk
REST_S = 1.0  # the least time the table is at rest while the pads' noise is measured
CONNECT_S = 3.0  # how long the touch board may take to say hello before the walk goes on without readings
READINGS_PERIOD_MS = 20  # a quick tap still leaves a reading or two
BAD_PAD = ("deaf", "noisy", "out of range", "over-current")
END_TURN, NEW_GAME, TURN_DIAL, PUSH_DIAL, TAP = (N_("END TURN"), N_("NEW GAME"), N_("turn the clue dial"),
                                                 N_("push the clue dial"), N_("tap the screen"))
"""The checklist's steps besides the pads, by their msgids."""
EVERY_CARD = N_("touch every card once")
WHITE, GREEN, DARK = (255, 255, 255), (0, 200, 60), (0, 0, 0)


@dataclass(frozen=True)
class Sample:
    """A readings frame from the board, and whether the table was at rest when it came."""

    readings: wire.Readings
    resting: bool


def checkable(health: str) -> bool:
    """A real device that opened (the touch board may still be connecting)."""
    return health in ("ok", "connecting")


class SelfTest:
    def __init__(
        self,
        devices: Devices,
        buttons: ButtonPins,
        edge_pixels: int,
        say: Callable[[str], object] = print,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] = time.sleep,
        lang: str = "en",
    ) -> None:
        self.lang = lang
        self._ = translation(lang).gettext
        self.devices = devices
        self.edge_pixels = edge_pixels
        self.say, self.clock, self.sleep = say, clock, sleep
        self.events: queue.SimpleQueue[Event | Sample] = queue.SimpleQueue()
        self.pads: set[int] = set()
        self.buttons = buttons
        self.tuner: PadTuner | None = None
        if isinstance(devices.touch, TouchBoardSource):
            wiring = devices.touch.config
            self.tuner = PadTuner(table_pads(wiring.cells, wiring.end_turn), wiring.thresholds)
        self.rest_until = float("inf")  # readings before this are of the table at rest
        self.stopped = threading.Event()  # the staff page's stop: the checklist ends where it is
        self.stage = "walk"  # then "rest", "checklist" and "done" (``ended``), for the staff page to follow
        self.passed: bool | None = None  # once done
        self._plan()

    def _plan(self) -> None:
        """What can be checked, and what has failed already, from the devices' health."""
        health, buttons = self.devices.health, self.buttons
        wanted = {
            END_TURN: checkable(health["touch"]) or (checkable(health["buttons"]) and buttons.end_turn is not None),
            NEW_GAME: checkable(health["buttons"]) and buttons.new_game is not None,
            TURN_DIAL: checkable(health["buttons"]) and buttons.encoder_a is not None,
            PUSH_DIAL: checkable(health["buttons"]) and buttons.encoder_push is not None,
            TAP: checkable(health["screen"]),
        }
        self.checks = {what: False for what, fitted in wanted.items() if fitted}
        self.pads_wanted = checkable(health["touch"])
        self.broken = {name: state for name, state in health.items() if state.startswith(NOT_WORKING)}

    def failures(self, lang: str) -> list[str]:
        """Each device that did not open, with what to do, in ``lang``."""
        _ = translation(lang).gettext
        return [_("{device}: {state}; what to do: {what}").format(
            device=self.device(name, lang), state=say_health(state, lang), what=_(WHAT_TO_DO[name]))
            for name, state in self.broken.items()]

    def deaf(self) -> tuple[Text, ...]:
        """What the touch board says of its chips that do not answer: which, their cards, what to check."""
        touch = self.devices.touch
        return touch.deaf_cards().why if isinstance(touch, TouchBoardSource) and touch.connected else ()

    def bad_pads(self) -> list[PadNumbers]:
        """The pads whose readings fail the test (deaf, noisy, broken)."""
        return [pad for pad in self.tuner.numbers() if pad.verdict in BAD_PAD] if self.tuner else []

    def device(self, name: str, lang: str | None = None) -> str:
        """A device by its name in the table's health ("leds"), as the installer reads it."""
        return translation(lang or self.lang).gettext(DEVICE_NAMES[name]) if name in DEVICE_NAMES else name

    def run(self, timeout_s: float = 300.0) -> bool:
        """The walk, then the checklist until it is complete or ``timeout_s`` passes; True
        when everything that could be checked was."""
        devices = self.devices
        started = []
        for name in ("touch", "buttons", "screen"):
            device = getattr(devices, name)
            try:
                device.start(self.events.put)
            except Exception as e:  # noqa: BLE001 - a pin library or a device node missing: a failed check, not a traceback
                devices.health[name] = NOT_WORKING + say(meaning(e), self.lang)  # a driver's own words (a Phrase)
                self._plan()
            else:
                started.append(device)
        try:
            return self.check(timeout_s)
        finally:
            for device in started:
                device.stop()
            self.ended()

    def check(self, timeout_s: float) -> bool:
        """The walk and the checklist on devices already started, whose events come to
        ``events`` (the terminal's own, or the running table's while its game is paused); True
        when everything that could be checked was."""
        devices = self.devices
        try:
            listening_since = self.listen()
            self.walk()
            if listening_since is not None and not self.stopped.is_set():
                self.stage = "rest"
                self.rest_until = max(listening_since + REST_S, self.clock())
                if self.rest_until > self.clock():
                    self.say(self._("hands off the table for {seconds:g} s: measuring each pad at rest").format(
                        seconds=REST_S))
                    self.sleep(self.rest_until - self.clock())
            self.stage = "checklist"
            if self.pads_wanted or self.checks:
                self.say(self._("now, in any order: {steps}").format(steps=", ".join(self.todo())))
            deadline = self.clock() + timeout_s
            self.show(EVERY_CARD)
            while not self.complete() and self.clock() < deadline and not self.stopped.is_set():
                try:
                    self.handle(self.events.get(timeout=min(0.5, max(0.0, deadline - self.clock()))))
                except queue.Empty:
                    continue
        finally:
            if isinstance(devices.touch, TouchBoardSource):
                devices.touch.on_readings = None
                if devices.touch.connected:
                    devices.touch.stream_readings(0, 0)
        self.passed = self.report()
        return self.passed

    def ended(self) -> None:
        """The test is over and its devices given back (the running table's game resumed): only
        now does the staff page read done, so done means the table plays again."""
        self.stage = "done"

    def listen(self) -> float | None:
        """Ask the touch board for its readings, once it has said hello; when they started
        (None: no board to ask)."""
        source = self.devices.touch
        if self.tuner is None or not isinstance(source, TouchBoardSource) or not self.pads_wanted:
            return None  # no board, or one that could not be opened
        deadline = self.clock() + CONNECT_S
        while not source.connected and self.clock() < deadline:
            self.sleep(0.05)
        source.on_readings = lambda readings: self.events.put(Sample(readings, self.clock() < self.rest_until))
        return self.clock() if source.stream_readings(READINGS_PERIOD_MS, 0xFFFF) else None

    def walk(self) -> None:
        if not checkable(self.devices.health["leds"]):
            return
        self.say(self._("LED walk: each cell lights white in turn, from cell 0 (the operatives' left, row 0), "
                        "then the edge"))
        for cell in range(CELLS):
            if self.stopped.is_set():
                return
            self.devices.leds.show(self.frame({cell: WHITE}))
            self.sleep(WALK_S)
        self.devices.leds.show(LedFrame((DARK,) * CELLS, (WHITE,) * self.edge_pixels))
        self.sleep(WALK_S * 4)
        self.devices.leds.show(self.frame({}))

    def frame(self, lit: dict[int, tuple[int, int, int]]) -> LedFrame:
        return LedFrame(tuple(lit.get(cell, DARK) for cell in range(CELLS)), (DARK,) * self.edge_pixels)

    def handle(self, event: Event | Sample) -> None:
        if isinstance(event, Sample):
            if self.tuner is not None:
                self.tuner.add(event.readings, event.resting)
            return
        if isinstance(event, TouchEvent):
            for cell in sorted(event.pressed - self.pads):
                self.pads.add(cell)
                self.say(self._("pad {cell} ok ({count}/{cells})").format(cell=cell, count=len(self.pads), cells=CELLS))
        elif isinstance(event, ButtonEvent):
            names = {"end_turn": END_TURN, "new_game": NEW_GAME, "enter_clue": PUSH_DIAL}
            self.tick(names[event.name])
        elif isinstance(event, DialEvent):
            self.tick(TURN_DIAL)
        elif isinstance(event, UiEvent):
            self.tick(TAP)
        elif isinstance(event, HealthEvent):
            self.say(self._("{device}: {state}").format(device=self.device(event.device), state=say(event.detail, self.lang)))
        self.show(N_("all done") if self.complete() else EVERY_CARD)

    def tick(self, what: str) -> None:
        if what in self.checks and not self.checks[what]:
            self.checks[what] = True
            self.say(self._("{what} ok").format(what=self._(what)))

    def todo(self, lang: str | None = None) -> list[str]:
        """What is still to do, in ``lang`` (by default the table's language)."""
        words = translation(lang or self.lang)
        _ = words.gettext
        pads = [cell for cell in range(CELLS) if self.pads_wanted and cell not in self.pads]
        return ([words.ngettext("touch each card once ({count} to go)", "touch each card once ({count} to go)",
                                len(pads)).format(count=len(pads))] if pads else []) + [
            _(what) for what, done in self.checks.items() if not done
        ]

    def complete(self) -> bool:
        return not self.todo()

    def show(self, message: str) -> None:
        """The checklist on the LEDs and the screen; ``message`` is a msgid, said translated."""
        _ = self._
        self.devices.leds.show(self.frame({cell: GREEN for cell in self.pads}))
        checks = tuple((_(what), done) for what, done in self.checks.items())
        self.devices.screen.show(SelfTestModel(frozenset(self.pads), checks, _(message), _("pads {done}/{cells}")))

    def report(self) -> bool:
        _ = self._
        missing = [_("pad {cell}").format(cell=cell) for cell in range(CELLS) if self.pads_wanted and cell not in self.pads]
        missing += [_(what) for what, done in self.checks.items() if not done]
        failed = _("FAILED {what}")
        failures = self.failures(self.lang) + [say(why, self.lang) for why in self.deaf()]
        for failure in failures:
            self.say(failed.format(what=failure))
        bad_pads = self.bad_pads()
        for pad in bad_pads:
            self.say(failed.format(what=say(pad.advice(), self.lang)))
        if missing:
            self.say(_("not seen: {steps}").format(steps=", ".join(missing)))
        if not self.pads_wanted and not self.checks:
            self.say(_("nothing to check by touch: every input device is simulated or not working"))
        ok = not missing and not failures and not bad_pads
        self.say(_("self-test passed") if ok else _("self-test FAILED"))
        return ok

    def progress(self, lang: str) -> dict[str, Any]:
        """Where the test is, for the staff page, in ``lang``: the stage, each pad touched or not,
        each fitted button and the screen's tap done or not, what failed with what to do, and
        the result once done."""
        _ = translation(lang).gettext
        failures = self.failures(lang) + [say(why, lang) for why in (*self.deaf(), *(pad.advice() for pad in self.bad_pads()))]
        return {"stage": self.stage, "passed": self.passed, "failures": failures,
                "pads": [{"cell": cell, "touched": cell in self.pads} for cell in range(CELLS)] if self.pads_wanted else [],
                "checks": [{"what": _(what), "done": done} for what, done in self.checks.items()],
                "todo": [] if self.stage == "done" else self.todo(lang)}

