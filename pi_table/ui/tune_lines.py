"""The tuning view in the terminal: one line a pad, its delta as a bar against its thresholds.
Plain text, so ``pi-table tune`` works where pygame is not installed."""

from __future__ import annotations

from ..engine.phrase import Phrase
from ..hal.tuning import PadNumbers

BAR = 20  # characters in a terminal bar


def scale(pad: PadNumbers) -> int:
    """Counts a full bar stands for: twice the touch threshold, or the peak if stronger."""
    return max(2 * pad.touch, pad.peak or 0, 1)


def bar(pad: PadNumbers) -> str:
    """``#`` up to the delta, ``|`` at the touch threshold, ``:`` at the release threshold."""
    full = scale(pad)
    cells = [" "] * BAR
    for at, mark in ((pad.release, ":"), (pad.touch, "|")):
        cells[min(BAR - 1, at * BAR // full)] = mark
    for at in range(min(BAR, max(0, pad.delta) * BAR // full)):
        cells[at] = "#"
    return "[" + "".join(cells) + "]"


def suggested(count: int, pads: int) -> Phrase:
    """The tuning's last line: how many of the pads have a suggestion, and how it is made."""
    return Phrase.counting("suggested", "{suggested} of {pads} pads has a suggestion (touch = halfway from the rest's "
                           "highest delta to the strongest touch, release = halfway from that delta to touch)",
                           "{suggested} of {pads} pads have a suggestion (touch = halfway from the rest's highest "
                           "delta to the strongest touch, release = halfway from that delta to touch)",
                           suggested=count, pads=pads)


def _span(low: int | None, high: int | None) -> str:
    return "-" if low is None or high is None else f"{low}..{high}"


def table_lines(numbers: tuple[PadNumbers, ...]) -> list[str]:
    """One line a pad: its delta now as a bar against its thresholds, the rest's range and
    spread, the strongest touch, the suggested thresholds and the verdict."""
    lines = [f"{'pad':9} {'el':>3} {'delta':>5} {'':{BAR + 2}} {'now':>5}  {'at rest':>9} {'noise':>5} "
             f"{'touch':>5}  {'suggest':>7}  verdict"]
    for pad in numbers:
        suggested = "{}/{}".format(*pad.suggested) if pad.suggested else "-"
        lines.append(
            f"{pad.name:9} {pad.electrode:>3} {pad.delta:>5} {bar(pad)} {pad.touch:>2}/{pad.release:<2}  "
            f"{_span(pad.rest_low, pad.rest_high):>9} {'-' if pad.noise is None else pad.noise:>5} "
            f"{'-' if pad.peak is None else pad.peak:>5}  {suggested:>7}  {pad.verdict}"
        )
    return lines
