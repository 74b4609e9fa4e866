"""How the spymaster screen is mounted: kept apart from the drawing code so the configuration
can check it where pygame is not installed.

Two different turns, not to be confused: the KEY's rotation (``ScreenSettings.rotation``) is
how the grid is turned in the picture so the spymasters see it as they see the table; the
PANEL's rotation (``PanelMounting.rotation``) is how the display itself sits in the hood, which
the screen backend undoes so the landscape picture stands upright whatever the panel's own
scan-out orientation.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase
from .orientation import SPYMASTERS_SIDE

ROTATIONS = (0, 90, 180, 270)
DEFAULT_PANEL_ROTATION = 90  # the hood holds the Touch Display 2 landscape, its native top edge to the right

PANELS = {
    # name: the shape of the panel's native mode (as it scans out); the picture is landscape
    "touch-display-2-7": "portrait",  # Raspberry Pi Touch Display 2, 7 inch (SC1635): 720 x 1280
    "touch-display-2-5": "portrait",  # Touch Display 2, 5 inch: 720 x 1280 too
    "touch-display-1": "landscape",  # the first 7 inch Touch Display: 800 x 480
    "hdmi": "landscape",  # an HDMI monitor, in the mode it asks for
}
"""The displays the installer sets up (systemd/install.sh) and the backend turns the picture onto."""
SHAPES = {"portrait": N_("portrait"), "landscape": N_("landscape")}


@dataclass(frozen=True, slots=True)
class ScreenSettings:
    """How the screen is mounted.

    ``rotation``: how far the key is turned, clockwise, from the operatives' view of the
    grid (``orientation``, the rule every picture of the grid follows). The spymasters sit
    opposite the operatives, so the default, 180, shows them the grid the way they see the
    table: the operatives' edge at the top, cell 0 at the top right. 0 is for a screen on the
    operatives' side (testing); 90 for spymasters on the operatives' right hand, 270 on their left.
    """

    rotation: int = SPYMASTERS_SIDE

    def __post_init__(self) -> None:
        if self.rotation not in ROTATIONS:
            raise Refusal("the key's rotation is one of {allowed} degrees, not {rotation!r}",
                          allowed=", ".join(map(str, ROTATIONS)), rotation=self.rotation)


@dataclass(frozen=True, slots=True)
class PanelMounting:
    """Which display is fitted and how it sits in the hood.

    ``rotation``: how far the panel is turned, clockwise as the spymasters face it, from its
    own upright position (its native mode's top edge at the top). The Touch Display 2 is
    natively portrait and the hood holds it landscape: at 90 its native top edge is on the
    spymasters' right, at 270 on their left. A landscape panel sits at 0 or 180 (upside down).
    The backend turns the landscape picture the other way by as much, so it stands upright.
    """

    panel: str = "touch-display-2-7"
    rotation: int = DEFAULT_PANEL_ROTATION

    def __post_init__(self) -> None:
        if self.panel not in PANELS:
            raise Refusal("the panel is one of {panels}, not {panel!r}", panels=", ".join(PANELS), panel=self.panel)
        upright = (90, 270) if PANELS[self.panel] == "portrait" else (0, 180)
        if self.rotation not in upright:
            default = Phrase.of(" (the default, the Touch Display 2's in the hood)")
            raise Refusal("the {panel} panel is natively {shape} and the picture landscape, so the panel_rotation is "
                          "{first} or {second} degrees, not {rotation!r}{default}", panel=self.panel,
                          shape=Phrase(SHAPES[PANELS[self.panel]]), first=upright[0], second=upright[1],
                          rotation=self.rotation, default=default if self.rotation == DEFAULT_PANEL_ROTATION else "")
