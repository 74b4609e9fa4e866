"""The screen the pygame backend drives (``drivers.pygame_screen``): each model the table shows,
a game's, its set-up's or a check's, is handed to the painter of its kind (``games``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..hal import Command, SelfTestModel, SetupModel
from .canvas import Frame
from .games import Painter, check_painter, screen_painter, setup_painter
from .mounting import ScreenSettings

if TYPE_CHECKING:
    import pygame

    from ..hal import AnyModel


class ScreenPainter:
    """What the pygame backend drives: each model is drawn by the painter of its kind
    (``pi_table.ui.games``), made when a game of that kind is first
    shown and kept, with what it remembers, while the table plays other kinds; a tap goes to
    the painter that drew the frame (``current``)."""

    def __init__(self, settings: ScreenSettings = ScreenSettings()) -> None:
        self.settings = settings
        self.painters: dict[str, Painter] = {}
        self.current: Painter | None = None
        self.frame = Frame((), (), ())
        self.lang = "en"  # the last game's

    def draw(self, surface: pygame.Surface, model: AnyModel, now: float, since: float | None = None) -> Frame:
        if isinstance(model, SetupModel):  # a table nobody has set up yet: the set-up instead of a game
            if "setup" not in self.painters:
                self.painters["setup"] = setup_painter()(self.settings)
            self.current = self.painters["setup"]
            self.frame = self.current.draw(surface, model, now, since) or Frame((), (), ())
            return self.frame
        if isinstance(model, SelfTestModel):  # a check from the staff page: the game waits, paused
            if "check" not in self.painters:
                self.painters["check"] = check_painter()(self.settings, self.lang)
            self.current = self.painters["check"]
            self.current.draw(surface, model, now, since)  # its tap regions are its own
            self.frame = Frame((), (), ())
            return self.frame
        self.lang = model.lang  # the checks' legend speaks the table's language
        kind = model.kind
        if kind not in self.painters:
            self.painters[kind] = screen_painter(kind)(self.settings)
        self.current = self.painters[kind]
        self.frame = self.current.draw(surface, model, now, since) or Frame((), (), ())
        return self.frame

    def tap(self, pos: tuple[int, int]) -> Command | None:
        """The command a tap at ``pos`` (pixels) asks for; None for a tap that only changes what
        the screen shows (or before anything was drawn)."""
        return None if self.current is None else self.current.tap(pos)
