"""The installation-day screen: the pads as a grid that fills in as each is touched, and a
checklist of the buttons. It plugs into the screen backend in place of the game's painter."""

from __future__ import annotations

import pygame

from ..engine import CELLS, GRID, EndTurn
from ..hal import Command, SelfTestModel
from .canvas import BACKGROUND, DESIGN, MUTED, PANEL, TEXT, edge_bar, typeface
from .i18n import translation
from .mounting import ScreenSettings
from .orientation import OPERATIVES_SIDE, grid_and_bar, operatives_edge, slot_of

DONE = (40, 170, 80)


class SelfTestPainter:
    """Draws a SelfTestModel at the screen's design size, turned as the key is, the operatives'
    edge named in ``lang``."""

    def __init__(self, settings: ScreenSettings = ScreenSettings(), lang: str = "en") -> None:
        self.settings = settings
        self._ = translation(lang).gettext

    def cells(self, surface: pygame.Surface, top: int, side: int) -> list[pygame.Rect]:
        """The pads' grid in a square ``side`` wide at (16, ``top``), by cell number, as every
        picture of the grid is laid out (``orientation``), its operatives' edge marked."""
        edge = operatives_edge(self.settings.rotation)
        (x, y, inner, _), bar = grid_and_bar(16, top, side, edge, 18)
        edge_bar(surface, pygame.Rect(*(round(v) for v in bar)), edge, self._(OPERATIVES_SIDE), 16)
        size = round(inner) // GRID
        return [pygame.Rect(round(x) + col * size, round(y) + row * size, size - 6, size - 6)
                for row, col in (slot_of(cell, self.settings.rotation) for cell in range(CELLS))]

    def draw(self, surface: pygame.Surface, model: SelfTestModel, now: float, since: float | None = None) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        surface.fill(BACKGROUND)
        surface.blit(typeface(30).render(model.message, True, TEXT), (16, 12))
        side = DESIGN[1] - 70
        for cell, rect in enumerate(self.cells(surface, 60, side)):
            pygame.draw.rect(surface, DONE if cell in model.pads else PANEL, rect, border_radius=6)
            label = typeface(24).render(str(cell), True, TEXT)
            surface.blit(label, label.get_rect(center=rect.center))
        x = 16 + side + 20
        surface.blit(typeface(24).render(model.pads_line.format(done=len(model.pads), cells=CELLS), True, TEXT), (x, 60))
        for line, (what, done) in enumerate(model.checks):
            colour = DONE if done else MUTED
            surface.blit(typeface(22).render(("[x] " if done else "[ ] ") + what, True, colour), (x, 100 + 34 * line))

    def tap(self, pos: tuple[int, int]) -> Command | None:
        """Any tap proves the touch panel works; it arrives as the command the game screen's
        END TURN button sends, which the self-test takes as "the screen was tapped"."""
        return EndTurn()
