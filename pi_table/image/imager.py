"""Raspberry Pi Imager's OS list: the entry that lists the image in Imager, with its customisation.

Imager reads a JSON file whose ``os_list`` holds one object per image (its schema:
rpi-imager's doc/json-schema/os-list-schema.json; Imager 2 opens a local one from "App Options",
"Content repository", and ``rpi-imager --repo FILE``). Imager checks the image it writes against
``extract_sha256``, and shows its customisation settings (user, SSH, Wi-Fi, host name, time
zone) only when ``init_format`` says how the image takes them: ``systemd``, Raspberry Pi OS
Bookworm's way, a ``firstrun.sh`` on the boot partition that the kernel's command line runs once.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import TypedDict

DEVICES = ["pi5-64bit", "pi4-64bit", "pi3-64bit"]
"""Imager's tags of the boards the image runs on: a 64-bit Raspberry Pi OS on a Pi 3, 4 or 5."""
INIT_FORMAT = "systemd"

_CELLS = "RBNRB" "NRBAN" "BNRBR" "RNBNB" "BRNRN"
_COLOURS = {"R": "#d8453a", "B": "#3a6fd8", "N": "#e9dcc0", "A": "#2b2b2b"}
ICON = ("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 40 40' width='40' height='40'>"
        "<rect width='40' height='40' rx='4' fill='#5b3a24'/>"
        + "".join(f"<rect x='{3 + 7 * (i % 5)}' y='{3 + 7 * (i // 5)}' width='6' height='6' rx='1' "
                  f"fill='{_COLOURS[cell]}'/>" for i, cell in enumerate(_CELLS))
        + "</svg>\n")
"""The list's icon: a table's grid of cards, drawn (an SVG, as Imager shows the Ubuntu list's)."""


class Entry(TypedDict):
    """An image's entry in the OS list, its fields as Imager's schema names them."""

    name: str
    description: str
    icon: str
    url: str
    extract_size: int
    extract_sha256: str
    image_download_size: int
    image_download_sha256: str
    release_date: str
    init_format: str
    devices: list[str]
    architecture: str


def entry(version: str, url: str, icon: str, extract_size: int, extract_sha256: str, download_size: int,
          download_sha256: str, day: datetime.date) -> Entry:
    """The OS list's entry for the image at ``url``."""
    return {
        "name": f"pi-table {version}",
        "description": "A café's game table: Raspberry Pi OS Lite (64-bit) with pi-table. Boot it and open "
                       "the set-up page its screen shows.",
        "icon": icon,
        "url": url,
        "extract_size": extract_size,
        "extract_sha256": extract_sha256,
        "image_download_size": download_size,
        "image_download_sha256": download_sha256,
        "release_date": day.isoformat(),
        "init_format": INIT_FORMAT,
        "devices": DEVICES,
        "architecture": "armv8",
    }


def write(path: Path, item: Entry) -> None:
    """The OS list of one image, as Imager opens it."""
    path.write_text(json.dumps({"os_list": [item]}, indent=2) + "\n", encoding="utf-8")
