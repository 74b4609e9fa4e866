"""The table's colours as players with a colour-vision deficiency see them.

Every surface that tells the four identities apart by colour (the LEDs under the cards, the
spymaster screen's key, the phones' key page) is checked here: each palette is passed through
colorspacious's simulation of deuteranopia, protanopia and tritanopia ("sRGB1+CVD" at severity
100, Machado, Oliveira & Fernandes 2009) and every pair of red agent, blue agent, bystander and
assassin must stay at least ``THRESHOLD`` apart in CAM02-UCS (Luo, Cui & Li 2006).

Why 20: CAM02-UCS is scaled so that one unit is about one just-noticeable difference between
large patches seen side by side; Mokrzycki & Tatol's survey of colour difference (2011) puts
the point where an ordinary observer sees "two different colours" at 5 units. A card's light
is a small patch seen at a glance in a dim café, often next to no card of the other colour, so
the table asks four times that: 20 units, "clearly another colour". (The original palettes'
closest pair for normal vision was 30 apart; the simulated blue and violet of the LEDs were 0.4
apart for a protanope.)

The LEDs emit light, so they are simulated on the colours as the player sees them: the sRGB the
palette means (``leds.REVEALED``), before the output stage's brightness, gamma and current limit.

``python -m pi_table.ui.tools.colour_vision`` prints the closest pair of each palette under each
vision; ``python -m pi_table.ui.tools.colour_vision pictures`` writes docs/colour-vision/, one
picture per vision: the LED grid's colours as swatches and a spymaster screen.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pygame
from colorspacious import cspace_convert, deltaE

from ...engine import CELLS, GRID, Rules, make_game, parse_action
from ...engine.keys import ASSASSIN, BLUE_AGENT, BYSTANDER, RED_AGENT
from ...hal import RGB, ScreenModel
from ..canvas import CARD, DECOY, DESIGN
from ..leds import REVEALED
from ..screen import draw

THRESHOLD = 20.0
"""The least CAM02-UCS difference between any two identities under any vision (see above)."""
VISIONS = {"normal": None, "deuteranopia": "deuteranomaly", "protanopia": "protanomaly", "tritanopia": "tritanomaly"}
"""Each vision and colorspacious's name for the deficiency (at severity 100: the full dichromacy)."""
ROLES = {RED_AGENT: "red agent", BLUE_AGENT: "blue agent", BYSTANDER: "bystander", ASSASSIN: "assassin"}
STYLE = Path(__file__).resolve().parents[2] / "web" / "static" / "style.css"
"""The phones' style sheet, read as text: the web layer sits above this one."""
STYLE_VARIABLES = {RED_AGENT: "--red", BLUE_AGENT: "--blue", BYSTANDER: "--neutral", ASSASSIN: "--assassin"}
PICTURES = Path(__file__).resolve().parents[3] / "docs" / "colour-vision"
SAMPLE_KEY = "RBNRBNARBRNBRBNRBNBRNNRRB"
"""A key for the pictures: the grid's swatches and the screen's key show every identity."""
SAMPLE_PLAY = ("clue 2", "touch 0", "touch 3", "touch 2")
SWATCH = 56  # px: one LED cell in the pictures
GAP = 6


def phone_palette(css: str | None = None) -> dict[str, RGB]:
    """The phones' colour for each identity, from the style sheet's custom properties."""
    text = STYLE.read_text(encoding="utf-8") if css is None else css
    palette = {}
    for role, name in STYLE_VARIABLES.items():
        found = re.search(rf"{name}:\s*#([0-9a-fA-F]{{6}})\b", text)
        if found is None:  # a programming error: the style sheet is the project's own
            raise ValueError(f"{STYLE.name} defines no {name}: #rrggbb; the phones' key page needs it for the {ROLES[role]}")
        palette[role] = (int(found[1][0:2], 16), int(found[1][2:4], 16), int(found[1][4:6], 16))
    return palette


def palettes() -> dict[str, dict[str, RGB]]:
    """Every set of colours that must tell the identities apart, by where a player sees it.
    Alias 24's grey decoy stands where the bystander does, in a game of its own."""
    return {
        "LEDs": dict(REVEALED),
        "screen": {role: CARD[role] for role in ROLES},
        "screen, Alias 24": {**{role: CARD[role] for role in ROLES}, BYSTANDER: DECOY},
        "phones": phone_palette(),
    }


def simulate(colours: RGB | np.ndarray, vision: str) -> np.ndarray:
    """``colours`` (0-255 sRGB, last axis RGB) as someone with ``vision`` sees them, 0-255."""
    if vision not in VISIONS:
        # a programming error: the command offers only VISIONS
        raise ValueError(f"vision is one of {', '.join(VISIONS)}, not {vision!r}")
    srgb = np.asarray(colours, dtype=float) / 255
    deficiency = VISIONS[vision]
    if deficiency is not None:
        space = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
        srgb = np.clip(cspace_convert(srgb, space, "sRGB1"), 0, 1)
    return srgb * 255


def difference(a: RGB | np.ndarray, b: RGB | np.ndarray) -> float:
    """The CAM02-UCS colour difference of two 0-255 sRGB colours."""
    return float(deltaE(np.asarray(a, dtype=float), np.asarray(b, dtype=float), input_space="sRGB255",
                        uniform_space="CAM02-UCS"))


def differences(palette: dict[str, RGB], vision: str) -> dict[tuple[str, str], float]:
    """Each pair of identities' colour difference as ``vision`` sees the palette."""
    seen = {role: simulate(colour, vision) for role, colour in palette.items()}
    return {(a, b): difference(seen[a], seen[b]) for a, b in itertools.combinations(palette, 2)}


def problems(found: dict[str, dict[str, RGB]] | None = None) -> list[str]:
    """Every pair of identities some vision cannot tell apart, in words; empty when all can."""
    found = palettes() if found is None else found
    out = []
    for where, palette in found.items():
        for vision in VISIONS:
            for (a, b), apart in differences(palette, vision).items():
                if apart < THRESHOLD:
                    out.append(f"{where}: the {ROLES[a]} {palette[a]} and the {ROLES[b]} {palette[b]} are "
                               f"{apart:.1f} apart in {vision}, less than {THRESHOLD:g} (CAM02-UCS)")
    return out


def report() -> str:
    """The closest pair of each palette under each vision, a line each."""
    lines = [f"closest pairs, CAM02-UCS colour difference (at least {THRESHOLD:g} required)"]
    for where, palette in palettes().items():
        for vision in VISIONS:
            (a, b), apart = min(differences(palette, vision).items(), key=lambda item: item[1])
            lines.append(f"{where:18} {vision:13} {apart:5.1f}  {ROLES[a]} / {ROLES[b]}")
    return "\n".join(lines)


# --- the pictures ---------------------------------------------------------------------------


def _sample_screen() -> ScreenModel:
    game = make_game(Rules())
    state = game.start(game.parse_key(SAMPLE_KEY))
    for text in SAMPLE_PLAY:
        state = game.apply(state, parse_action(text))
    return ScreenModel(game.spymaster_view(state), "colour-vision")


def swatch_centre(cell: int) -> tuple[int, int]:
    """Where in a picture the middle of cell ``cell``'s LED swatch is."""
    row, col = divmod(cell, GRID)
    return SWATCH // 2 + col * (SWATCH + GAP) + 24, DESIGN[1] - 24 - SWATCH // 2 - row * (SWATCH + GAP)


def picture(vision: str) -> pygame.Surface:
    """The LED grid's colours (the sample key, every card shown, row 0 at the bottom as the
    operatives see it) beside the spymaster screen, as someone with ``vision`` sees them."""
    pygame.font.init()
    width = 24 * 2 + GRID * SWATCH + (GRID - 1) * GAP
    surface = pygame.Surface((width + DESIGN[0], DESIGN[1]))
    surface.fill((0, 0, 0))
    title = pygame.font.Font(None, 30).render(f"{vision}: LEDs", True, (230, 230, 230))
    surface.blit(title, (24, 20))
    legend = pygame.font.Font(None, 22)
    for line, role in enumerate(ROLES):
        surface.blit(legend.render(f"{role}: {ROLES[role]}", True, (200, 200, 200)), (24, 52 + 20 * line))
    for cell in range(CELLS):
        x, y = swatch_centre(cell)
        rect = pygame.Rect(0, 0, SWATCH, SWATCH)
        rect.center = (x, y)
        pygame.draw.rect(surface, REVEALED[SAMPLE_KEY[cell]], rect, border_radius=6)
        surface.blit(legend.render(SAMPLE_KEY[cell], True, (0, 0, 0)), (rect.left + 4, rect.top + 3))
    draw(surface.subsurface((width, 0, *DESIGN)), _sample_screen(), 0.0)
    pixels = pygame.surfarray.pixels3d(surface)
    colours, where = np.unique(pixels.reshape(-1, 3), axis=0, return_inverse=True)
    seen = np.rint(simulate(colours, vision)).astype(np.uint8)
    pixels[...] = seen[where.reshape(-1)].reshape(pixels.shape)
    del pixels  # unlocks the surface
    return surface


def write_pictures(folder: Path = PICTURES) -> list[Path]:
    """docs/colour-vision/: one PNG per vision."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for vision in VISIONS:
        path = folder / f"{vision}.png"
        pygame.image.save(picture(vision), str(path))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.ui.tools.colour_vision", description=__doc__.split("\n")[0])
    parser.add_argument("what", nargs="?", choices=("report", "pictures"), default="report")
    parser.add_argument("--out", type=Path, default=PICTURES, help="the pictures' folder (default: docs/colour-vision)")
    args = parser.parse_args(argv)
    if args.what == "pictures":
        for path in write_pictures(args.out):
            print(path)
        return 0
    print(report())
    found = problems()
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
