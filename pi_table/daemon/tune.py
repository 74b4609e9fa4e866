"""``pi-table tune``: the pads' numbers live, and thresholds from the maker's own touches.

The board streams its readings (filtered value and baseline per electrode). For the first
seconds the maker keeps hands off the table: that window gives each pad's noise at rest. Then
the maker touches each pad as a player would; the strongest delta of each gives its suggested
thresholds (the rule is in ``pi_table.hal.tuning``). The view is redrawn about once a second in
the terminal and on the spymaster screen; at the end (``--frames`` rounds, or Ctrl-C) the
verdicts are listed with what to do, and ``--write`` puts the suggestions in the configuration's
``[touch] thresholds``, which the daemon sends to the board each time it connects.

It speaks the table's language (``[game] language``): its lines are catalogue msgids, the
pads' verdicts Phrases. The table of numbers keeps its column names (the README's).
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from ..config import Config, ConfigError, trial
from ..drivers.touchboard import TouchBoardSource
from ..engine.phrase import N_, Phrase, Text, meaning
from ..errors import PiTableError
from ..hal import Event, HealthEvent, Screen
from ..hal.tuning import PadTuner, Pair, TuneModel, table_pads, tuned
from ..kinds import SerialDevice
from ..protocol import wire
from ..ui.i18n import say, translation
from ..ui.tune_lines import suggested, table_lines
from .devices import open_devices

CONNECT_S = 5.0  # the driver's hello, with its retries
SILENCE_S = 3.0  # no readings this long: the board's firmware does not stream
STOP_S = 0.2  # the longest a stop from the staff page waits for the gathering to notice
STREAM_ROUNDS = 0xFFFF  # the longest lease; stopped at the end, and by the next host's get-hello anyway
REST_MESSAGE = N_("hands off the table: measuring each pad at rest")
TOUCH_MESSAGE = N_("now touch each pad as a player would, one at a time, a second each")
CLEAR = "\x1b[H\x1b[J"  # cursor home, clear to the end: redraw in place on a terminal
EXIT_USAGE, EXIT_CONFIG = 2, 78  # as the other commands exit


def main(config: Config, hal: str, touch_port: SerialDevice | Literal["auto"] | None, frames: int, rest_s: float, period_ms: int,
         write_to: Path | None) -> int:
    """``pi-table tune``: open the board (and the screen unless ``hal`` is "sim"), tune, report,
    and with ``write_to`` keep the suggestions there; the exit status."""
    logging.basicConfig(level="ERROR", format="%(levelname)s %(name)s: %(message)s")
    lang = config.language
    _ = translation(lang).gettext
    painter = None
    if hal != "sim" and config.screen.enabled:
        from ..ui.tune import TunePainter

        painter = TunePainter(config.screen.settings, lang)
    devices = open_devices(config, hal, touch_port, painter)
    devices.leds.close()  # tuning lights nothing
    if not isinstance(devices.touch, TouchBoardSource):
        print("pi-table tune: " + _("with --hal sim there is no board to tune: give --touch-port"), file=sys.stderr)
        return EXIT_USAGE
    screen = devices.screen if devices.health["screen"] == "ok" else None
    touch = config.touch
    try:
        tune = Tune(devices.touch, table_pads(touch.cells, touch.end_turn), touch.thresholds, screen,
                    say=lambda text: print(text, flush=True), period_ms=period_ms, rest_s=rest_s,
                    clear=sys.stdout.isatty(), lang=lang)
        tune.run(frames)
    except (TuneError, ValueError) as e:  # the tuner's or the board's refusal (a Phrase), or a library's own words
        print(f"pi-table tune: {say(meaning(e), lang)}", file=sys.stderr)
        return 1
    print("\n".join(tune.report()))
    if write_to is None:
        return 0
    try:
        write_thresholds(write_to, tuned(tune.tuner.numbers(), touch.thresholds))
    except ConfigError as e:
        print("\n".join("pi-table tune: " + _("not written: {problem}").format(problem=problem)
                        for problem in e.said(lang)), file=sys.stderr)
        return EXIT_CONFIG
    except OSError as e:  # the system's own words
        print("pi-table tune: " + _("cannot write {path}: {error}").format(path=write_to, error=e.strerror or e),
              file=sys.stderr)
        return 1
    print(_("thresholds written to {path} ([touch] thresholds): the table sends them to the board when it "
            "connects").format(path=write_to))
    return 0


class TuneError(PiTableError):
    """Tuning cannot go on: no board, or a board that sends no readings; ``phrase`` says why."""

    def __init__(self, phrase: Phrase) -> None:
        self.phrase = phrase
        super().__init__(str(phrase))


class Tune:
    """One tuning session on a touch board: ``run`` gathers, ``report`` says what it found."""

    def __init__(
        self,
        source: TouchBoardSource,
        pads: dict[int, int | None],
        thresholds: tuple[Pair, ...],
        screen: Screen | None = None,
        say: Callable[[str], object] = print,
        clock: Callable[[], float] = time.monotonic,
        period_ms: int = 50,
        rest_s: float = 3.0,
        redraw_s: float = 1.0,
        clear: bool = False,
        lang: str = "en",
    ) -> None:
        if period_ms < wire.MIN_READINGS_PERIOD_MS:
            raise TuneError(Phrase.of("the readings period is at least {least} ms, not {period}",
                                      least=wire.MIN_READINGS_PERIOD_MS, period=period_ms))
        self.lang, self._ = lang, translation(lang).gettext
        self.source, self.screen, self.say, self.clock = source, screen, say, clock
        self.period_ms, self.rest_s, self.redraw_s, self.clear = period_ms, rest_s, redraw_s, clear
        self.tuner = PadTuner(pads, thresholds)
        self.readings: queue.SimpleQueue[wire.Readings] = queue.SimpleQueue()
        self.events: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self.message = REST_MESSAGE

    def run(self, rounds: int = 0) -> PadTuner:
        """Stream until ``rounds`` full rounds of readings have come (0: until Ctrl-C)."""
        self.source.start(self.events.put)
        try:
            self._connect()
            if self.screen is not None:
                self.screen.start(lambda event: None)
            self.watch(rounds)
        finally:
            self.source.stop()
            if self.screen is not None:
                self.screen.stop()
        return self.tuner

    def watch(self, rounds: int = 0, stopped: threading.Event | None = None) -> None:
        """Ask the connected board for readings and gather them until ``rounds`` full rounds have
        come (0: until Ctrl-C, or ``stopped`` is set: the staff page's tuning, in the running table)."""
        self.source.on_readings = self.readings.put
        try:
            if not self.source.stream_readings(self.period_ms, STREAM_ROUNDS):
                raise TuneError(Phrase.of("the touch board went away before it was asked for readings: check its USB "
                                          "cable, then run pi-table tune again"))
            self.say(f"{self._(REST_MESSAGE)} ({self.rest_s:g} s)")
            self._gather(rounds, stopped or threading.Event())
        finally:
            if self.source.connected:
                self.source.stream_readings(0, 0)
            self.source.on_readings = None

    def _connect(self) -> None:
        deadline = self.clock() + CONNECT_S
        why: Text = Phrase.of("no answer")
        while not self.source.connected:
            if self.clock() > deadline:
                raise TuneError(Phrase.of("no touch board within {seconds:g} s ({why}): check its USB cable, or give "
                                          "--touch-port", seconds=CONNECT_S, why=why))
            try:
                event = self.events.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(event, HealthEvent) and not event.ok:
                why = event.detail

    def _gather(self, rounds: int, stopped: threading.Event) -> None:
        started = self.clock()
        drawn_at = heard = started
        last_first = None
        done = 0
        try:
            while (not rounds or done < rounds) and not stopped.is_set():
                try:
                    readings = self.readings.get(timeout=min(SILENCE_S, STOP_S))
                except queue.Empty:
                    if self.clock() - heard < SILENCE_S:
                        continue
                    raise TuneError(Phrase.of("no readings from the touch board for {seconds:g} s: its firmware may be "
                                              "older than 0.2 (deploy firmware/ again)", seconds=SILENCE_S)) from None
                heard = self.clock()
                if last_first is not None and readings.first <= last_first:
                    done += 1  # a new round begins
                last_first = readings.first
                resting = self.clock() - started < self.rest_s
                if not resting and self.message == REST_MESSAGE:
                    self.message = TOUCH_MESSAGE
                    self.say(self._(TOUCH_MESSAGE))
                self.tuner.add(readings, resting)
                if self.clock() - drawn_at >= self.redraw_s:
                    drawn_at = self.clock()
                    self.show()
        except KeyboardInterrupt:  # how a maker ends an open-ended session
            pass

    def show(self) -> None:
        numbers = self.tuner.numbers()
        message = self._(self.message)
        self.say((CLEAR if self.clear else "") + "\n".join([message, *table_lines(numbers)]))
        if self.screen is not None:
            self.screen.show(TuneModel(frozenset(), (), message, numbers=numbers))

    def report(self) -> list[str]:
        """The final table, then what to do about every pad that is not ok."""
        _ = self._
        numbers = self.tuner.numbers()
        lines = table_lines(numbers)
        trouble = [say(pad.advice(), self.lang) for pad in numbers if pad.verdict not in ("ok", "untouched")]
        untouched = [say(pad.label, self.lang) for pad in numbers if pad.verdict == "untouched"]
        if untouched:
            trouble.append(_("no touch seen on {pads}: touch each once; a pad that a firm touch does not move has a "
                             "broken wire").format(pads=", ".join(untouched)))
        lines.append(say(suggested(sum(1 for pad in numbers if pad.suggested), len(numbers)), self.lang))
        return lines + trouble


def threshold_changes(pairs: tuple[Pair, ...]) -> dict[str, object]:
    """The configuration's change that keeps ``pairs`` (``[touch] thresholds``), as ``tune --write``
    and the staff page's tuning write it."""
    return {"touch.thresholds": [[touch, release] for touch, release in pairs]}


def write_thresholds(path: Path, pairs: tuple[Pair, ...]) -> None:
    """Put ``pairs`` in ``path``'s ``[touch] thresholds``, keeping everything else, as a trial:
    the table's next start keeps them if the board works on them, or puts the last good file back."""
    trial.change(path, threshold_changes(pairs), "tune", ("touch",),
                 machine=False)  # the thresholds alone change: the rest of the file is the table's as it was
