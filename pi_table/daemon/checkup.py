"""The staff page's self-test and pads' tuning in the running table: ``pi-table selftest`` and
``pi-table tune`` (``selftest.SelfTest``, ``tune.Tune``) without stopping the service.

Either one pauses the game (``EventLoop.pause``: the journal is untouched, and the devices'
events go to the check instead of the game), runs on a thread of its own, and gives the game
back where it was when it ends or is stopped. One at a time. What it has found stays for the
page to show until the next one starts.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from ..engine.phrase import Phrase
from ..ui.i18n import say, translation

if TYPE_CHECKING:  # the checks themselves load when the staff start one, not at the table's start
    from ..config import Config
    from ..drivers.touchboard import TouchBoardSource
    from ..hal import Event
    from ..table.loop import EventLoop
    from .devices import Devices
    from .restarts import Restarts
    from .selftest import SelfTest
    from .tune import Tune

log = logging.getLogger("pi_table.daemon")
CHECKLIST_S = 300.0  # as long as ``pi-table selftest`` waits for every check
TUNE_PERIOD_MS, TUNE_REST_S = 50, 3.0  # as ``pi-table tune`` reads by default
NO_BOARD = Phrase.of("this table has no touch board (simulated devices, --hal sim): there are no readings to show; "
                     "on the real table each pad's reading shows here")
NOT_CONNECTED = Phrase.of("the touch board is not connected: check its USB cable, then start again")
STOPPING = Phrase.of("the table is stopping")
NAMES = {"selftest": Phrase.of("the self-test is running: stop it first"),
         "tune": Phrase.of("the pads' tuning is running: stop it first")}


class Table(Protocol):
    """What the checkup needs of the running table (``run.Daemon``)."""

    config: Config
    devices: Devices
    loop: EventLoop
    restarts: Restarts

    def health(self, lang: str = "en") -> dict[str, str]: ...

    def in_loop(self, fn: Callable[[], object]) -> bool: ...


class Checkup:
    """The self-test or the tuning under way (``running``: "selftest", "tune" or None), and the
    last of each, for the staff page."""

    def __init__(self, daemon: Table) -> None:
        self.daemon = daemon
        self.lock = threading.Lock()  # one start or stop at a time
        self.selftest: SelfTest | None = None
        self.tune: Tune | None = None
        self.problem: Phrase | None = None  # why the last tuning ended by itself
        self.running: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def board(self) -> TouchBoardSource | None:
        """The table's touch board; None on a simulated table, whose start loads no driver."""
        from ..drivers.touchboard import TouchBoardSource

        touch = self.daemon.devices.touch
        return touch if isinstance(touch, TouchBoardSource) else None

    def start_selftest(self) -> Phrase | None:
        """The LED walk and the checklist, the game paused; why not, or None once started."""
        from .selftest import SelfTest

        daemon = self.daemon
        with self.lock:
            if self.running is not None:
                return NAMES[self.running]
            health = daemon.loop.call(daemon.health)  # each device's as the table sees it now
            config = daemon.config
            test = SelfTest(replace(daemon.devices, health=health), config.buttons, config.lights.edge_pixels,
                            say=lambda line: log.info("self-test: %s", line), lang=config.language)
            self.selftest, self._stop = test, test.stopped
            return self._begin("selftest", test.events.put, lambda: test.check(CHECKLIST_S), test.ended)

    def start_tune(self) -> Phrase | None:
        """The pads' readings streamed, the game paused (a touch goes to no game); why not, or None."""
        from ..hal.tuning import table_pads
        from .tune import Tune

        board = self.board
        with self.lock:
            if self.running is not None:
                return NAMES[self.running]
            if board is None:
                return NO_BOARD
            if not board.connected:
                return NOT_CONNECTED
            wiring = board.config
            tune = Tune(board, table_pads(wiring.cells, wiring.end_turn), wiring.thresholds, self.daemon.devices.screen,
                        say=lambda text: None, period_ms=TUNE_PERIOD_MS, rest_s=TUNE_REST_S,
                        lang=self.daemon.config.language)  # the page draws the numbers; the screen shows them
            stop = self._stop = threading.Event()
            self.tune = tune
            return self._begin("tune", lambda event: None, lambda: tune.watch(0, stop), lambda: None)

    def _begin(self, what: str, to: Callable[[Event], None], work: Callable[[], object], ended: Callable[[], None]) -> Phrase | None:
        """Pause the game, its events ``to`` the check, and run ``work`` on a thread of its own;
        ``ended`` once the game is given back."""
        daemon = self.daemon
        if not daemon.in_loop(lambda: daemon.loop.pause(to)):
            return STOPPING
        self.running, self.problem = what, None
        log.info("staff page: the %s starts; the game is paused", "self-test" if what == "selftest" else "pads' tuning")
        self._thread = threading.Thread(target=self._run, args=(work, ended), name=f"staff-{what}", daemon=True)
        self._thread.start()
        return None

    def _run(self, work: Callable[[], object], ended: Callable[[], None]) -> None:
        from .tune import TuneError  # loaded by the start of the check that runs

        try:
            work()
        except TuneError as e:  # the board stopped streaming: said on the page
            self.problem = e.phrase
            log.warning("staff page: the pads' tuning ended: %s", e)
        except Exception:  # a check's bug must not keep the game paused: logged, the game resumes
            log.exception("staff page: the %s failed", self.running)
        finally:
            daemon = self.daemon
            daemon.in_loop(daemon.loop.resume)
            log.info("staff page: the game resumes")
            self.running = None
            ended()  # what the page reads as the end: the table plays again

    def stop(self) -> None:
        """End what runs (nothing: nothing to do) and give the game back."""
        with self.lock:
            thread = self._thread
            self._stop.set()
            if thread is not None:
                thread.join(timeout=10)

    def selftest_state(self, lang: str) -> dict[str, Any]:
        test = self.selftest
        return {"running": self.running == "selftest", "busy": self.running is not None,
                "test": None if test is None else test.progress(lang)}

    def tune_state(self, lang: str) -> dict[str, Any]:
        """Each pad's numbers now, for the page's bars, in ``lang``."""
        board, tune = self.board, self.tune
        state: dict[str, Any] = {"running": self.running == "tune", "busy": self.running is not None, "board": board is not None,
                       "note": None if board is not None else say(NO_BOARD, lang), "pads": [],
                       "problem": None if self.problem is None else say(self.problem, lang), "message": None}
        if tune is None:
            return state
        state["message"] = translation(lang).gettext(tune.message)
        state["pads"] = [{"electrode": pad.electrode, "cell": pad.cell, "name": say(pad.label, lang),
                          "value": pad.value, "baseline": pad.baseline, "delta": pad.delta,
                          "touch": pad.touch, "release": pad.release, "peak": pad.peak, "noise": pad.noise,
                          "suggested": None if pad.suggested is None else list(pad.suggested),
                          "verdict": pad.verdict, "advice": say(pad.advice(), lang)}
                         for pad in tune.tuner.numbers()]
        return state

    def write(self) -> list[Phrase]:
        """The last tuning's suggestions into the configuration as a trial (the restart that
        follows keeps them only if the table comes back healthy); the problems, or []."""
        from ..hal.tuning import tuned
        from .tune import threshold_changes

        tune = self.tune
        numbers = () if tune is None else tune.tuner.numbers()
        if tune is None or not any(pad.suggested for pad in numbers):
            return [Phrase.of("no pad has a suggestion yet: start the tuning, keep hands off the table for "
                              "{seconds:g} s, then touch each pad as a player would", seconds=TUNE_REST_S)]
        self.stop()
        return self.daemon.restarts.change(threshold_changes(tuned(numbers, tune.tuner.thresholds)), proven=False)
