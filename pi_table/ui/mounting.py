"""How the spymaster screen is mounted: kept apart from the drawing code so the configuration
can check it where pygame is not installed."""

from __future__ import annotations

from dataclasses import dataclass

ROTATIONS = (0, 90, 180, 270)


@dataclass(frozen=True, slots=True)
class ScreenSettings:
    """How the screen is mounted.

    ``rotation``: how far the key is turned, clockwise, from the operatives' view of the
    grid. The key string runs row-major from the operatives' side, and the spymasters sit
    opposite them, so from where the spymasters sit the operatives' top-left card is at their
    bottom-right: the default, 180, shows them the grid the way they see the table. 0 is for
    a screen on the operatives' side (testing); 90 for spymasters on the operatives' right
    hand, 270 on their left.
    """

    rotation: int = 180

    def __post_init__(self) -> None:
        if self.rotation not in ROTATIONS:
            allowed = ", ".join(map(str, ROTATIONS))
            raise ValueError(f"the key's rotation is one of {allowed} degrees, not {self.rotation!r}")
