"""The spymaster screen's panel: which display the configuration names, how the hood holds it,
and the backend's mapping of a point on the panel back to the landscape picture."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from pi_table.config import ConfigError, build, defaults, parse_config
from pi_table.drivers.pygame_screen import PygameScreen, on_picture
from pi_table.ui.mounting import PANELS, ROTATIONS, PanelMounting

pytestmark = pytest.mark.arm64

FILE = Path("/etc/pi-table/config.toml")


def problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, FILE)
    return caught.value.problems


def test_the_default_is_the_touch_display_2_as_the_hood_holds_it():
    screen = build(defaults(), None).screen
    assert screen.mounting == PanelMounting("touch-display-2-7", 90)
    assert screen.settings.rotation == 180  # the key's turn for the spymasters: another thing


@pytest.mark.parametrize("panel, rotation", [("touch-display-2-7", 270), ("touch-display-2-5", 90),
                                             ("touch-display-1", 180), ("hdmi", 0)])
def test_each_panel_in_a_position_the_hood_allows_is_taken(panel, rotation):
    config = parse_config(f'[screen]\npanel = "{panel}"\npanel_rotation = {rotation}\n', FILE)
    assert config.screen.mounting == PanelMounting(panel, rotation)


def test_an_unknown_panel_is_refused_naming_the_key_and_the_panels_known():
    [problem] = problems('[screen]\npanel = "touch-display-3"\n')
    assert problem.startswith(f"{FILE}: screen.panel: ")
    assert all(name in problem for name in PANELS) and "'touch-display-3'" in problem


@pytest.mark.parametrize("text, key, expected", [
    ("panel_rotation = 45", "screen.panel_rotation", "90 or 270 degrees, not 45"),
    ("panel_rotation = 0", "screen.panel_rotation", "natively portrait and the picture landscape"),
    ('panel = "hdmi"', "screen.panel", "panel_rotation is 0 or 180 degrees, not 90"),  # the default 90 does not fit
    # the panel alone already fails on the default rotation, and is named for it
    ('panel = "touch-display-1"\npanel_rotation = 270', "screen.panel", "0 or 180 degrees, not 90 (the default"),
    ('panel_rotation = "left"', "screen.panel_rotation", "expected a whole number"),
])
def test_a_rotation_that_would_stand_the_picture_on_end_is_refused(text, key, expected):
    [problem] = problems(f"[screen]\n{text}\n")
    assert problem.startswith(f"{FILE}: {key}: ") and expected in problem, problem


def test_the_daemon_hands_the_panels_rotation_to_the_backend_and_the_keys_to_the_painter():
    from pi_table.daemon.devices import _screen

    config = parse_config('[screen]\npanel_rotation = 270\nrotation = 90\n', FILE)
    screen = _screen(config)
    assert isinstance(screen, PygameScreen) and screen.panel_rotation == 270
    assert screen.painter.settings.rotation == 90


def test_the_backend_refuses_a_rotation_it_cannot_undo():
    with pytest.raises(ValueError, match="45"):
        PygameScreen(painter=None, panel_rotation=45)  # type: ignore[arg-type]  # no painter needed to refuse


def shown_at(pixel: tuple[int, int], rotation: int, picture: tuple[int, int]) -> tuple[int, int]:
    """The panel pixel showing a picture pixel: the picture turned anticlockwise by ``rotation``."""
    x, y = pixel
    width, height = picture
    return {0: (x, y), 90: (y, width - 1 - x), 180: (width - 1 - x, height - 1 - y), 270: (height - 1 - y, x)}[rotation]


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_every_pixel_of_the_panel_leads_back_to_the_picture_pixel_it_shows(rotation):
    panel = (6, 10) if rotation in (90, 270) else (10, 6)  # a small portrait or landscape panel
    picture = (10, 6)
    seen = set()
    for pixel in itertools.product(range(picture[0]), range(picture[1])):
        x, y = shown_at(pixel, rotation, picture)
        assert 0 <= x < panel[0] and 0 <= y < panel[1]
        assert on_picture((x + 0.5, y + 0.5), rotation, panel) == pixel
        seen.add((x, y))
    assert len(seen) == panel[0] * panel[1]
    # a finger's fraction reaches 1.0 at the far edges: still a pixel of the picture
    for corner in itertools.product((0.0, panel[0]), (0.0, panel[1])):
        x, y = on_picture(corner, rotation, panel)
        assert 0 <= x < picture[0] and 0 <= y < picture[1]
