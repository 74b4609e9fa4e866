"""The installation-day screen: the pads as a grid that fills in as each is touched, and a
checklist of the buttons. It plugs into the screen backend in place of the game's painter."""

from __future__ import annotations

import pygame

from ..engine import CELLS, GRID, EndTurn
from ..hal import Command, SelfTestModel
from .canvas import BACKGROUND, DESIGN, MUTED, PANEL, TEXT, typeface
from .mounting import ScreenSettings
from .screen import slot_of

DONE = (40, 170, 80)


class SelfTestPainter:
    """Draws a SelfTestModel at the screen's design size, turned as the key is."""

    def __init__(self, settings: ScreenSettings = ScreenSettings()) -> None:
        self.settings = settings

    def draw(self, surface: pygame.Surface, model: SelfTestModel, now: float, since: float | None = None) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        surface.fill(BACKGROUND)
        surface.blit(typeface(30).render(model.message, True, TEXT), (16, 12))
        side = DESIGN[1] - 70
        size = side // GRID
        for cell in range(CELLS):
            row, col = slot_of(cell, self.settings.rotation)
            rect = pygame.Rect(16 + col * size, 60 + row * size, size - 6, size - 6)
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
