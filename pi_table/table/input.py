"""The input policy: what counts as a guess on a busy night, with wet fingers and spilled drinks.

- A touch lights its cell at once as pending feedback.
- It becomes a guess only after it has been held for ``hold_s`` and only while it is the only
  card touched; it fires once per press.
- Several cards at once (a palm, a spill) count as nothing, and the table asks to wipe it until
  every card is free again: lifting one finger of a palm never leaves a guess behind.
- A report of the board is judged whole: every cell it presses and releases is applied before
  anything is decided, so several cells in one report are a palm whatever the hold.
- The hold is at least ``HOLD_MIN_S`` (0.05 s). The fingers of one hand land a few
  milliseconds apart and the board reports every change at once (a scan takes 4-6 ms; a chip
  settles a touch in 7-12 ms: hardware/tools/latency.py), so a palm may arrive as two or three reports; with a shorter
  hold its first finger would count as a guess before the rest of the hand is seen. The pending
  light still shows on the first report, so the floor costs no feedback.
- A pad held without pause for ``stuck_s`` is quarantined as stuck: it no longer counts, so the
  game goes on around it, until it releases and the loop has it recalibrated.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase

WIPE_WARNING = Phrase.of("wipe the table: several cards are touched at once")
STUCK = N_("the pad under card {cell} is stuck: wipe it; it counts again once released")
FAULTS = (WIPE_WARNING.template, STUCK)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""
HOLD_MIN_S = 0.05
"""The shortest hold: the time a palm's fingers take to land, over the board's reports."""
HOLD_MAX_S = 5
"""The longest hold: past it a touch feels lost."""


@dataclass(frozen=True, slots=True)
class InputSettings:
    """How long a finger must rest on a card to count as a touch, and how long before a pad is taken for stuck."""

    hold_s: float = 0.25
    stuck_s: float = 10.0

    def __post_init__(self) -> None:
        if not HOLD_MIN_S <= self.hold_s <= HOLD_MAX_S:
            raise Refusal("hold time is {least} to {most} seconds (a shorter hold takes the first finger of a palm for a "
                          "guess before the rest of the hand lands), not {seconds}", least=HOLD_MIN_S, most=HOLD_MAX_S,
                          seconds=self.hold_s)
        if not self.hold_s < self.stuck_s <= 600:
            raise Refusal("stuck time is over the hold time and at most 600 seconds, not {seconds}", seconds=self.stuck_s)


class TouchPolicy:
    """Turns presses and releases of cells, with their times, into guesses (cell numbers)."""

    def __init__(self, settings: InputSettings | None = None) -> None:
        self.settings = settings or InputSettings()
        self.pressed: dict[int, float] = {}  # cell -> when its press began
        self.stuck: set[int] = set()
        self.fired: set[int] = set()  # cells whose press already became a guess
        self.spilled = False

    def report(self, pressed: frozenset[int], released: frozenset[int], now: float) -> list[int]:
        """Apply one report's presses and releases together, then judge the cells it leaves
        touched; returns the released cells that were stuck and now need recalibrating."""
        for cell in released:
            self.pressed.pop(cell, None)
            self.fired.discard(cell)
        for cell in pressed:
            self.pressed.setdefault(cell, now)
        live = self.live
        if len(live) > 1:
            self.spilled = True
        elif not live:
            self.spilled = False
        freed = sorted(self.stuck & released)
        self.stuck -= released
        return freed

    def due(self, now: float) -> int | None:
        """The cell whose hold has just completed, if it is a guess now; quarantines stuck pads.
        Times are compared as ``next_deadline`` computes them (``since + hold``), so a loop woken
        at the deadline finds the hold complete whatever the rounding of ``now - since``."""
        for cell, since in self.pressed.items():
            if cell not in self.stuck and now >= since + self.settings.stuck_s:
                self.stuck.add(cell)
                self.fired.discard(cell)
        live = self.live
        if self.spilled or len(live) != 1:
            return None
        (cell,) = live
        if cell in self.fired or now < self.pressed[cell] + self.settings.hold_s:
            return None
        self.fired.add(cell)
        return cell

    def next_deadline(self) -> float | None:
        """When ``due`` may next have something to do: a hold completing or a pad going stuck."""
        times = [since + self.settings.stuck_s for cell, since in self.pressed.items() if cell not in self.stuck]
        live = self.live
        if len(live) == 1 and not self.spilled:
            (cell,) = live
            if cell not in self.fired:
                times.append(self.pressed[cell] + self.settings.hold_s)
        return min(times, default=None)

    @property
    def live(self) -> list[int]:
        """Pressed cells that count: every press except the quarantined ones."""
        return [cell for cell in self.pressed if cell not in self.stuck]

    @property
    def pending(self) -> frozenset[int]:
        """Cells to light as touched-but-not-yet-a-guess."""
        return frozenset(cell for cell in self.live if cell not in self.fired)

    @property
    def warnings(self) -> tuple[Phrase, ...]:
        warnings = [WIPE_WARNING] if self.spilled else []
        warnings += [Phrase.of(STUCK, cell=cell) for cell in sorted(self.stuck)]
        return tuple(warnings)
