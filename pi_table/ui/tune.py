"""The tuning view on the spymaster screen, the self-test painter's approach: the grid turned as
the key is, each pad with its delta as a bar against its touch threshold."""

from __future__ import annotations

import pygame

from ..engine import GRID
from ..engine.phrase import N_
from ..hal import Command, SelfTestModel
from ..hal.tuning import PadNumbers, TuneModel
from .canvas import ALARM, AMBER, BACKGROUND, DESIGN, MUTED, PANEL, TEXT, typeface
from .mounting import ScreenSettings
from .selftest import DONE, SelfTestPainter
from .tune_lines import scale

VERDICT_COLOURS = {"ok": DONE, "untouched": MUTED, "deaf": AMBER, "noisy": AMBER, "out of range": ALARM,
                   "over-current": ALARM}


LEGEND = (N_("bar: delta now"), N_("tick: touch threshold"), N_("n: noise at rest"), N_("s: suggested"))
"""What the marks on each pad mean, in the screen's language (the letters are drawn as they are)."""


class TunePainter(SelfTestPainter):
    """Draws a TuneModel: each cell of the grid with its delta as a bar up to its touch
    threshold (a tick), its noise and suggestion; the END TURN pads beside the grid. Its
    legend speaks ``lang``; the model's message comes said already."""

    def __init__(self, settings: ScreenSettings = ScreenSettings(), lang: str = "en") -> None:
        super().__init__(settings, lang)

    def draw(self, surface: pygame.Surface, model: SelfTestModel, now: float, since: float | None = None) -> None:
        if not isinstance(model, TuneModel):
            super().draw(surface, model, now, since)
            return
        if not pygame.font.get_init():
            pygame.font.init()
        surface.fill(BACKGROUND)
        surface.blit(typeface(26).render(model.message, True, TEXT), (16, 10))
        by_cell = {pad.cell: pad for pad in model.numbers if pad.cell is not None}
        side = DESIGN[1] - 60
        size = side // GRID
        for cell, rect in enumerate(self.cells(surface, 50, side)):
            self._pad(surface, rect, str(cell), by_cell.get(cell))
        x = 16 + side + 20
        others = [pad for pad in model.numbers if pad.cell is None]
        for line, pad in enumerate(others):
            self._pad(surface, pygame.Rect(x, 50 + line * (size + 4), DESIGN[0] - x - 16, size - 6), pad.name, pad)
        legend = [self._(text) for text in LEGEND]
        for line, text in enumerate(legend):
            surface.blit(typeface(18).render(text, True, MUTED), (x, DESIGN[1] - 24 * (len(legend) - line) - 8))

    @staticmethod
    def _pad(surface: pygame.Surface, rect: pygame.Rect, label: str, pad: PadNumbers | None) -> None:
        pygame.draw.rect(surface, PANEL, rect, border_radius=6)
        surface.blit(typeface(18).render(label, True, TEXT), (rect.x + 4, rect.y + 2))
        if pad is None:
            return
        colour = VERDICT_COLOURS.get(pad.verdict, MUTED)
        inner = pygame.Rect(rect.x + 4, rect.bottom - 18, rect.width - 8, 12)
        pygame.draw.rect(surface, BACKGROUND, inner)
        full = scale(pad)
        filled = inner.width * min(max(pad.delta, 0), full) // full
        pygame.draw.rect(surface, colour, pygame.Rect(inner.x, inner.y, filled, inner.height))
        tick = inner.x + inner.width * min(pad.touch, full) // full
        pygame.draw.line(surface, TEXT, (tick, inner.y - 3), (tick, inner.bottom + 2), 2)
        noise = "-" if pad.noise is None else str(pad.noise)
        suggested = "{}/{}".format(*pad.suggested) if pad.suggested else "-"
        surface.blit(typeface(16).render(f"n{noise} s{suggested}", True, colour), (rect.x + 4, rect.y + 20))

    def tap(self, pos: tuple[int, int]) -> Command | None:
        """Taps mean nothing while tuning."""
        return None
