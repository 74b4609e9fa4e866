"""Codex on the grid: one cell per seat, lit from the public view alone.

The six seats sit round the table in a fixed layout (``SEAT_CELLS``, clockwise from the
operatives' left, row 0), so each player finds their own light. What the lights say:

- while the agents message, take their private turn or vote: a seat still to act glows
  faintly, a seat that has acted glows white (who acted is public, what they did is not);
- the discussion: every seat glows amber and the edge is the discussion's timer bar;
- the truth machine: the agent sent there pulses amber; the others glow as bright as the
  votes they received in that vote (the public tally);
- a seat whose faction was revealed at the truth machine keeps a faint glow of that colour
  (the faction its identikit shows: that is what the machine reveals);
- game over: the winning faction's seats (the identikits are public then) blink its colour.

In colour-blind mode a faction's colour also has its team's rhythm (``leds.COLOUR_BLIND_PATTERN``:
red steady, blue pulsing), on a revealed seat's glow and on the winner's edge.

Nothing here can know a secret: it is given the public view and nothing else.
"""

from __future__ import annotations

from ..engine import CELLS, Team
from ..engine.codex import DISCUSSION, OVER, TRUTH, PublicView
from ..engine.codex_setup import SEATS, Fact, Faction
from ..engine.keys import BLUE_AGENT, RED_AGENT
from ..hal import RGB, Cues, LedFrame
from .leds import (
    BLINK,
    DIM,
    OFF,
    PULSE,
    REVEALED,
    WARNING,
    WHITE,
    LightSettings,
    _scale,
    _team_colour,
    _timer_bar,
    _Wake,
)

SEAT_CELLS = (1, 3, 14, 23, 21, 10)
"""The cell that stands for each seat, 0 to 5: two along each long side, one at each end."""
FACTION_COLOUR: dict[str, RGB] = {Faction.RED.value: REVEALED[RED_AGENT], Faction.BLUE.value: REVEALED[BLUE_AGENT]}
TO_ACT: RGB = (40, 40, 40)
NEUTRAL_EDGE: RGB = (60, 50, 40)


def codex_lights(view: PublicView, cues: Cues, now: float, settings: LightSettings = LightSettings()
                 ) -> tuple[LedFrame, float | None]:
    """The frame and when it next changes by itself (None: it is still), from one pass."""
    wake = _Wake(now, settings.fps)
    cells = [OFF] * CELLS
    revealed = {r.seat: str(r.value) for r in view.revelations if r.fact is Fact.FACTION}  # a faction's name
    for seat in range(SEATS):
        cells[SEAT_CELLS[seat]] = _seat(view, seat, revealed.get(seat), wake, settings)
    edge = _edge(view, cues, wake, settings)
    return LedFrame(tuple(cells), tuple(edge)), wake.at


def _seat(view: PublicView, seat: int, faction: str | None, wake: _Wake, settings: LightSettings) -> RGB:
    if view.step == OVER:
        if view.identikits is not None and view.identikits[seat].faction.value == view.winner:
            return _scale(FACTION_COLOUR[view.winner], BLINK.level(wake))
        return OFF
    rest = _scale(_team_colour(Team(faction), wake, settings), 0.25) if faction in FACTION_COLOUR else TO_ACT
    if view.step == DISCUSSION:
        return _scale(WARNING, 0.5)
    if view.step == TRUTH:
        if seat == view.truth:
            return _scale(WARNING, PULSE.level(wake))
        tally = view.votes[-1].tally if view.votes else (0,) * SEATS
        most = max(tally) or 1
        return _scale(WHITE, DIM + (1 - DIM) * tally[seat] / most) if tally[seat] else rest
    return WHITE if seat in view.acted else rest


def _edge(view: PublicView, cues: Cues, wake: _Wake, settings: LightSettings) -> list[RGB]:
    n = settings.edge_pixels
    if cues.warnings:
        return [_scale(WARNING, BLINK.level(wake) if settings.colour_blind else 1.0)] * n
    if view.step == OVER and view.winner in FACTION_COLOUR:
        return [_team_colour(Team(view.winner), wake, settings)] * n
    timer = cues.timer
    if view.step == DISCUSSION and timer is not None and timer.running:
        return _timer_bar(WARNING, timer.remaining_s, timer.length_s, timer.warn_s, wake, n)
    return [NEUTRAL_EDGE] * n
