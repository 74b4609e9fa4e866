"""The spymaster screen of a table nobody has set up yet (``SetupModel``): instead of a game, the
set-up page's QR code and address, and the one-time code it asks for, big enough to read and type
at arm's length; while the table's own Wi-Fi is open, a second QR code that joins it, with its name
and password in words; what the network is doing along the foot. Taps mean nothing here."""

from __future__ import annotations

from collections.abc import Callable

import pygame

from ..engine.phrase import N_
from ..hal import Command, SetupModel
from ..hal.screen import grouped
from .canvas import AMBER, BACKGROUND, DESIGN, MUTED, PANEL, TEXT, Canvas, Frame, qr_image
from .i18n import say
from .orientation import Area

WORDS = (N_("Set up this table"), N_("1. Scan the code, or open:"), N_("2. Type this code on the page:"),
         N_("Join the table's Wi-Fi first:"), N_("Wi-Fi"), N_("Password"), N_("The set-up page opens once the table "
                                                                               "has a network."),
         N_("The page's certificate (SHA-256):"))
"""The screen's words, in the table's language."""


def wifi_join(ssid: str, password: str) -> str:
    """What a phone's camera reads as "join this Wi-Fi" (the ZXing convention every phone follows),
    its special characters escaped."""
    def escaped(text: str) -> str:
        return "".join("\\" + char if char in '\\;,":' else char for char in text)

    return f"WIFI:T:WPA;S:{escaped(ssid)};P:{escaped(password)};;"


class SetupPainter:
    """Draws a SetupModel (``ScreenPainter`` hands it one); the settings are the screen's, unused:
    the set-up is read the right way up from the spymasters' side as any picture."""

    def __init__(self, settings: object = None) -> None:
        self.frame = Frame((), (), ())

    def draw(self, surface: pygame.Surface, model: SetupModel, now: float, since: float | None = None) -> Frame:
        if not pygame.font.get_init():
            pygame.font.init()
        canvas = Canvas(surface, model.lang)
        _ = canvas.gettext
        surface.fill(BACKGROUND)
        canvas.text(_("Set up this table"), (24, 8, DESIGN[0] - 48, 52), 44, TEXT, align="left", smallest=28)
        if model.hotspot is not None:  # two QR codes side by side: the Wi-Fi first, then the page
            ssid, password = model.hotspot
            half = (DESIGN[0] - 48 - 16) / 2
            _qr(canvas, (24, 68, half, 250), _("Join the table's Wi-Fi first:"), wifi_join(ssid, password),
                (f"{_('Wi-Fi')}: {ssid}", f"{_('Password')}: {password}"))
            _page(canvas, (24 + half + 16, 68, half, 250), model.link, _)
            code = (24, 330, DESIGN[0] - 48, 80)
        else:  # one big QR code at the left, the address and the code beside it
            _page(canvas, (24, 68, 340, 340), model.link, _, words=False)
            x = 24 + 340 + 24
            if model.link is not None:
                canvas.text(_("1. Scan the code, or open:"), (x, 76, DESIGN[0] - x - 24, 34), 28, MUTED, align="left",
                            smallest=18)
                canvas.text(model.link, (x, 112, DESIGN[0] - x - 24, 80), 30, TEXT, align="left", smallest=16, lines=2)
            code = (x, 210, DESIGN[0] - x - 24, 150)
        x, y, w, h = code
        canvas.text(_("2. Type this code on the page:"), (x, y, w, 34), 28, MUTED, align="left", smallest=18)
        canvas.text(model.code, (x, y + 36, w, h - 36), 88, AMBER, align="left", smallest=40)
        foot = 418 if model.fingerprint is None else 410
        if model.network is not None:
            canvas.text(say(model.network, model.lang), (24, foot, DESIGN[0] - 48, 56 if foot == 418 else 30), 26,
                        MUTED, align="left", smallest=16, lines=2 if foot == 418 else 1)
        if model.fingerprint is not None:  # what the phone's warning shows, to compare
            said = _("The page's certificate (SHA-256):")
            canvas.text(f"{said} {grouped(model.fingerprint)}", (24, 442, DESIGN[0] - 48, 34), 16, MUTED, align="left",
                        smallest=10, lines=2)
        self.frame = Frame((), (), tuple(canvas.texts))
        return self.frame

    def tap(self, pos: tuple[int, int]) -> Command | None:
        return None


def _page(canvas: Canvas, area: Area, link: str | None, _: Callable[[str], str], words: bool = True) -> None:
    """The set-up page's QR code (with its address under it, if ``words``), or, with no address
    yet, the note that it comes with a network."""
    if link is None:
        x, y, w, h = area
        canvas.box(area, PANEL, radius=12)
        canvas.text(_("The set-up page opens once the table has a network."), (x + 16, y + 12, w - 32, h - 24), 30,
                    TEXT, smallest=18, lines=4)
        return
    _qr(canvas, area, _("1. Scan the code, or open:") if words else None, link, (link,) if words else ())


def _qr(canvas: Canvas, area: Area, title: str | None, link: str, lines: tuple[str, ...]) -> None:
    """A QR code of ``link`` on a panel, under ``title``, with ``lines`` of words under it."""
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    top = y + 8
    if title is not None:
        canvas.text(title, (x + 12, top, w - 24, 28), 24, TEXT, align="left", smallest=14)
        top += 32
    side = min(h - (top - y) - 8 - 24 * len(lines), w - 24)
    rect = canvas.rect(x + (w - side) / 2, top, side, side)
    image = qr_image(link, rect.width)
    canvas.surface.blit(image, image.get_rect(center=rect.center))
    for n, line in enumerate(lines):
        canvas.text(line, (x + 12, top + side + 2 + 24 * n, w - 24, 22), 22, TEXT, align="left", smallest=12)
