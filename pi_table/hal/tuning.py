"""The numbers behind a touch, per pad: what ``pi-table tune`` shows and ``pi-table selftest`` judges.

The board streams each electrode's filtered value and baseline (``wire.Readings``). A pad's
*delta* is baseline - filtered: a finger through the card raises the pad's capacitance and
lowers the filtered value, and the chip calls it a touch when the delta is above the touch
threshold and a release when it falls below the release threshold. The baseline arrives as its
top 8 bits (a multiple of 4), so a delta here can read up to 3 counts below the chip's own;
the rule below works on the deltas as seen, on both sides of the threshold alike.

Two windows of readings give the numbers: at *rest* (hands off the table) the highest and lowest
delta, whose spread is the pad's noise; then while the maker touches each pad, the *peak*, the
strongest delta. The suggested touch threshold lies halfway between the highest delta at rest
and the peak, and the release threshold halfway between the highest delta at rest and that touch
threshold: a light touch still counts, and noise alone neither presses nor holds a pad.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.phrase import N_, Phrase
from ..firmware.touchboard import DEFAULT_THRESHOLDS
from ..protocol import wire
from .screen import SelfTestModel

MIN_SPAN = 3  # a peak less than this above the rest's highest delta is no touch at all
MAX_THRESHOLD = 0xFF
OVER_CURRENT = N_("{pad}: its chip reports over-current and has stopped: a pad or its wire touches ground or the chip's "
                  "REXT pin is shorted; check the wiring")
OUT_OF_RANGE = N_("{pad}: out of range: autoconfiguration found no charge that suits electrode {electrode}; its wire is "
                  "broken, shorted or far too long")
NOISY = N_("{pad}: noisy: at rest its delta reaches {rest} counts, against a release threshold of {release} and a touch "
           "threshold of {touch}; keep its wire short and away from the LED data and power wires, check the ground, or "
           "raise its thresholds (Tune the pads, then Keep the suggested thresholds)")
DEAF = N_("{pad}: deaf: a touch moves it only {peak} counts, not over its touch threshold of {touch}; lower its "
          "thresholds (Tune the pads, then Keep the suggested thresholds), or check the pad's wire and solder joint "
          "and that nothing thick lies between pad and card")
UNTOUCHED = N_("{pad}: no touch seen yet; if a firm touch does not move it, its wire is broken")
FAULTS = (OVER_CURRENT, OUT_OF_RANGE, NOISY, DEAF, UNTOUCHED)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""

Pair = tuple[int, int]


def suggest(rest_high: int, peak: int) -> Pair | None:
    """(touch, release) thresholds for a pad whose delta reached ``rest_high`` at rest and
    ``peak`` under a finger (the rule is in the module docstring); None when the peak is too
    close to the rest for any threshold to tell them apart."""
    floor = max(rest_high, 0)
    if peak - floor < MIN_SPAN:
        return None
    touch = min(floor + (peak - floor + 1) // 2, MAX_THRESHOLD)
    release = floor + max(1, (touch - floor) // 2)
    return touch, min(release, touch - 1)


@dataclass(frozen=True, slots=True)
class PadNumbers:
    """One pad's numbers at one moment; None where its window has no readings yet."""

    electrode: int
    cell: int | None  # the cell over the pad; None: an END TURN pad
    delta: int  # now
    touch: int  # the thresholds the board uses
    release: int
    rest_low: int | None = None  # the lowest and highest delta at rest
    rest_high: int | None = None
    peak: int | None = None  # the strongest delta since the rest
    out_of_range: bool = False
    over_current: bool = False
    value: int | None = None  # the filtered reading and its baseline now, which the delta is taken from
    baseline: int | None = None

    @property
    def name(self) -> str:
        return str(self.label)

    @property
    def noise(self) -> int | None:
        """The spread of the delta at rest, in counts."""
        return None if self.rest_low is None or self.rest_high is None else self.rest_high - self.rest_low

    @property
    def touched(self) -> bool:
        """Whether a finger seems to have come since the rest: a peak clear of the rest."""
        return self.peak is not None and self.rest_high is not None and self.peak - max(self.rest_high, 0) >= MIN_SPAN

    @property
    def suggested(self) -> Pair | None:
        if self.rest_high is None or self.peak is None or not self.touched:
            return None
        return suggest(self.rest_high, self.peak)

    @property
    def verdict(self) -> str:
        """One word for the pad: broken, out of range, noisy, deaf, ok, or waiting for a touch."""
        if self.over_current:
            return "over-current"
        if self.out_of_range:
            return "out of range"
        if self.rest_high is not None and self.rest_high >= self.release:
            return "noisy"
        if self.touched and self.peak is not None and self.peak <= self.touch:
            return "deaf"
        return "ok" if self.touched else "untouched"

    @property
    def label(self) -> Phrase:
        return Phrase.of("END TURN") if self.cell is None else Phrase.of("cell {cell}", cell=self.cell)

    def advice(self) -> Phrase:
        """What the verdict means and what to do about it, in a line."""
        verdict, pad = self.verdict, self.label
        if verdict == "over-current":
            return Phrase.of(OVER_CURRENT, pad=pad)
        if verdict == "out of range":
            return Phrase.of(OUT_OF_RANGE, pad=pad, electrode=self.electrode)
        if verdict == "noisy":
            return Phrase.of(NOISY, pad=pad, rest=self.rest_high, release=self.release, touch=self.touch)
        if verdict == "deaf":
            return Phrase.of(DEAF, pad=pad, peak=self.peak, touch=self.touch)
        if verdict == "untouched":
            return Phrase.of(UNTOUCHED, pad=pad)
        return Phrase.of("{pad}: ok", pad=pad)


class PadTuner:
    """Gathers readings per pad: ``add`` each frame, saying whether the table is at rest;
    ``numbers()`` gives every pad's PadNumbers. ``pads`` maps the electrodes to follow to their
    cell (None: END TURN, see ``table_pads``); ``thresholds`` are the board's (electrode-indexed,
    the firmware's default past the end)."""

    def __init__(self, pads: dict[int, int | None], thresholds: tuple[Pair, ...] = ()) -> None:
        self.pads = dict(pads)
        self.thresholds = tuple(thresholds)
        self.rounds = 0  # readings frames taken
        self._delta: dict[int, int] = {}
        self._reading: dict[int, tuple[int, int]] = {}  # (filtered, baseline) now
        self._rest: dict[int, tuple[int, int]] = {}
        self._peak: dict[int, int] = {}
        self._out_of_range: set[int] = set()
        self._over_current: set[int] = set()

    def threshold(self, electrode: int) -> Pair:
        return self.thresholds[electrode] if electrode < len(self.thresholds) else DEFAULT_THRESHOLDS

    def add(self, readings: wire.Readings, resting: bool) -> None:
        self.rounds += 1
        for offset, (filtered, baseline) in enumerate(readings.pads):
            electrode = readings.first + offset
            if electrode not in self.pads:
                continue
            delta = baseline - filtered
            self._delta[electrode] = delta
            self._reading[electrode] = (filtered, baseline)
            (self._out_of_range.add if readings.out_of_range >> offset & 1 else self._out_of_range.discard)(electrode)
            (self._over_current.add if readings.flags & wire.Readings.OVER_CURRENT else
             self._over_current.discard)(electrode)
            if resting:
                low, high = self._rest.get(electrode, (delta, delta))
                self._rest[electrode] = (min(low, delta), max(high, delta))
            else:
                self._peak[electrode] = max(self._peak.get(electrode, delta), delta)

    def numbers(self) -> tuple[PadNumbers, ...]:
        """Every followed pad that has had a reading: the cells in the order the maker counts them
        (cell 0 first), then the END TURN pads."""
        out = []
        order = sorted(self.pads, key=lambda e: (self.pads[e] is None, self.pads[e] if self.pads[e] is not None else e))
        for electrode in order:
            if electrode not in self._delta:
                continue
            touch, release = self.threshold(electrode)
            low, high = self._rest.get(electrode, (None, None))
            out.append(PadNumbers(electrode, self.pads[electrode], self._delta[electrode], touch, release, low, high,
                                  self._peak.get(electrode), electrode in self._out_of_range,
                                  electrode in self._over_current, *self._reading[electrode]))
        return tuple(out)


def tuned(numbers: tuple[PadNumbers, ...], current: tuple[Pair, ...]) -> tuple[Pair, ...]:
    """The thresholds to keep, electrode-indexed: each suggestion in place of the current pair;
    pads without one (not touched, or too weak to tell) keep theirs (the firmware's default
    where none was set)."""
    count = max([len(current)] + [pad.electrode + 1 for pad in numbers if pad.suggested])
    pairs = [current[e] if e < len(current) else DEFAULT_THRESHOLDS for e in range(count)]
    for pad in numbers:
        if pad.suggested:
            pairs[pad.electrode] = pad.suggested
    return tuple(pairs)


def table_pads(cells: tuple[int | None, ...], end_turn: tuple[int, ...]) -> dict[int, int | None]:
    """Electrode -> its cell, for every pad on the table (the END TURN pads: None)."""
    pads: dict[int, int | None] = {electrode: cell for electrode, cell in enumerate(cells) if cell is not None}
    pads.update(dict.fromkeys(end_turn))
    return pads


@dataclass(frozen=True, slots=True)
class TuneModel(SelfTestModel):
    """The tuning view on the spymaster screen: a self-test screen (so the screen backend
    treats it as one: no game, no timer) with every pad's numbers."""

    numbers: tuple[PadNumbers, ...] = ()
