"""The LED frame: a pure function of the table view, so no hidden card can reach the grid."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import OVER, Team, TableView
from ..engine.keys import ASSASSIN, BLUE_AGENT, BYSTANDER, NO_CARD, RED_AGENT
from ..hal import RGB, Cues, LedFrame

OFF: RGB = (0, 0, 0)
HIDDEN_CARD: RGB = (24, 20, 14)  # a faint warm glow so the grid reads as "in play"
PENDING: RGB = (255, 255, 255)
WARNING: RGB = (255, 120, 0)
REVEALED: dict[str, RGB] = {
    RED_AGENT: (255, 0, 0),
    BLUE_AGENT: (0, 70, 255),
    BYSTANDER: (170, 120, 50),  # Alias 24: the grey decoy
    ASSASSIN: (120, 0, 170),  # Alias 24: the nuke; black cannot glow, so a deep violet
}
TEAM_COLOUR: dict[Team, RGB] = {Team.RED: REVEALED[RED_AGENT], Team.BLUE: REVEALED[BLUE_AGENT]}
EDGE_PIXELS = 12


@dataclass(frozen=True, slots=True)
class LightSettings:
    edge_pixels: int = EDGE_PIXELS


def render_frame(view: TableView, cues: Cues, now: float, settings: LightSettings = LightSettings()) -> LedFrame:
    """The grid lights for this table view; ``cues.pending`` cells are touched, not yet guesses."""
    cells = tuple(
        PENDING if cell in cues.pending and shown == "?" else _cell_colour(shown)
        for cell, shown in enumerate(view.board)
    )
    return LedFrame(cells=cells, edge=(_edge_colour(view, cues.warnings),) * settings.edge_pixels)


def next_change(view: TableView, cues: Cues, now: float, settings: LightSettings = LightSettings()) -> float | None:
    """When the frame will next differ with nothing else happening (None: it is still)."""
    return None


def _cell_colour(shown: str) -> RGB:
    if shown == "?":
        return HIDDEN_CARD
    if shown == NO_CARD:
        return OFF
    return REVEALED[shown]


def _edge_colour(view: TableView, warnings: tuple[str, ...]) -> RGB:
    """Whose turn it is; the winner's colour once over; amber while staff must act."""
    if warnings:
        return WARNING
    team = view.winner if view.phase == OVER else view.turn
    return TEAM_COLOUR[team] if team is not None else PENDING
