"""Readable by everyone: the identities' colours stay apart for colour-blind players.

The threshold is 20 CAM02-UCS units between any two of red agent, blue agent, bystander and
assassin, under normal vision and simulated deuteranopia, protanopia and tritanopia
(colorspacious, "sRGB1+CVD" at severity 100). One CAM02-UCS unit is about one just-noticeable
difference for large patches side by side; Mokrzycki & Tatol (2011) put "an observer sees two
different colours" at 5. A card's light is a small patch seen at a glance in a dim café, so the
table asks four times that. The LEDs are checked on the sRGB their palette means, before the
output stage's brightness and gamma: the colour the player sees, not the PWM duty.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame
import pytest

from pi_table.engine import CELLS
from pi_table.ui.leds import REVEALED
from pi_table.ui.tools import colour_vision as cv


def test_every_identity_stays_apart_under_every_vision():
    assert cv.problems() == []


def test_the_check_sees_a_colour_blind_confusion():
    """A red and green a deuteranope cannot tell apart, yet far apart for normal vision: the
    check must catch it, or it passes vacuously."""
    palette = {"R": (200, 60, 40), "B": (0, 80, 255), "N": (110, 140, 40), "A": (255, 255, 255)}
    assert cv.differences(palette, "normal")[("R", "N")] > cv.THRESHOLD
    found = cv.problems({"test": palette})
    assert any("red agent" in line and "bystander" in line and "deuteranopia" in line for line in found), found


def test_the_simulation_is_colorspacious_and_leaves_greys_alone():
    grey = np.array([128.0, 128.0, 128.0])
    for vision in cv.VISIONS:
        assert np.allclose(cv.simulate(grey, vision), grey, atol=1.5)
    # a protanope sees a saturated red as a dark olive: much less red than green
    red, green, _ = cv.simulate((255, 0, 0), "protanopia")
    assert red < 120 and abs(red - green) < 40
    with pytest.raises(ValueError, match="vision is one of normal"):
        cv.simulate(grey, "achromatopsia")


def test_the_phones_colours_come_from_the_style_sheet():
    palette = cv.phone_palette(":root { --red: #ff0000; --blue: #0000ff; --neutral: #808080; --assassin: #102030; }")
    assert palette == {"R": (255, 0, 0), "B": (0, 0, 255), "N": (128, 128, 128), "A": (16, 32, 48)}
    with pytest.raises(ValueError, match="no --assassin"):
        cv.phone_palette(":root { --red: #ff0000; --blue: #0000ff; --neutral: #808080; }")


@pytest.mark.slow  # some 6 s of CPU by itself: out of ./dev test (issue 40)
def test_the_pictures_regenerate(tmp_path):
    written = cv.write_pictures(tmp_path)
    assert [path.name for path in written] == [f"{vision}.png" for vision in cv.VISIONS]
    sizes = {pygame.image.load(str(path)).get_size() for path in written}
    assert sizes == {pygame.image.load(str(cv.PICTURES / "normal.png")).get_size()}


@pytest.mark.parametrize("vision", list(cv.VISIONS))
def test_the_documented_pictures_show_the_current_palette(vision):
    """docs/colour-vision/ is regenerated whenever a palette changes
    (``python -m pi_table.ui.tools.colour_vision pictures``): each LED swatch there is the palette's
    colour as this vision sees it."""
    image = pygame.image.load(str(cv.PICTURES / f"{vision}.png"))
    for cell in range(CELLS):
        expected = cv.simulate(REVEALED[cv.SAMPLE_KEY[cell]], vision)
        shown = image.get_at(cv.swatch_centre(cell))[:3]
        assert np.allclose(shown, expected, atol=1), (vision, cell, shown, expected)


def test_the_report_names_each_palettes_closest_pair():
    text = cv.report()
    assert len(text.splitlines()) == 1 + len(cv.palettes()) * len(cv.VISIONS)
    assert "LEDs               protanopia" in text


@pytest.mark.parametrize(("value", "on"), [("true", True), ("false", False)])
def test_colour_blind_mode_is_a_checked_key_of_the_table(tmp_path, value, on):
    from pi_table import config

    path = tmp_path / "config.toml"
    path.write_text(f"[game]\ncolour_blind = {value}\n", encoding="utf-8")
    assert config.load_config(path).lights.colour_blind is on
    path.write_text('[game]\ncolour_blind = "yes"\n', encoding="utf-8")
    with pytest.raises(config.ConfigError) as refused:
        config.load_config(path)
    [problem] = refused.value.problems
    assert problem == f"{path}: game.colour_blind: expected true or false, found 'yes' (a string)"


def test_every_page_that_shows_the_board_uses_the_checked_colours():
    """The staff page draws the board too: its style sheet carries the same, checked, colours."""
    for sheet in sorted(cv.STYLE.parent.glob("*.css")):
        text = sheet.read_text(encoding="utf-8")
        if "--assassin" in text:
            assert cv.phone_palette(text) == cv.phone_palette(), sheet.name
