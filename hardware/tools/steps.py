"""The build, step by step with pictures: what each step puts in, drawn from the OpenSCAD model
(enclosure/build_steps.scad, ``-D step=N``), what to do, and the meter's checks before going on.

``STEPS`` says each step's work and checks in short lines a maker ticks off; the build guide
(hardware/README.md) says why. ``page()`` is docs/make/steps.md, one printable page a step;
``render()`` draws the pictures into enclosure/pictures/steps/ and notes beside them (``SOURCES``)
the fingerprint of the model they were drawn from; ``stale()`` is true when the model has
changed since (or a picture is missing). tools/docs.py (``./dev docs``) writes the page and draws
the pictures again when they are stale and OpenSCAD and xvfb-run are installed; its ``--check``,
which the tests run, fails on stale pictures, so a change to the model cannot leave them behind.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import enclosure

SCENE = enclosure.ENCLOSURE / "build_steps.scad"
PICTURES = enclosure.ENCLOSURE / "pictures" / "steps"
SOURCES = PICTURES / "SOURCES.sha256"
"""The fingerprint of the model the pictures were drawn from (``fingerprint``)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step: its scene in build_steps.scad, its title, the build guide's section, the work in
    short lines and the meter's checks before the next step (none where nothing is wired yet)."""

    scene: int
    title: str
    guide: str  # the anchor of its section in hardware/README.md
    work: tuple[str, ...]
    checks: tuple[str, ...]

    @property
    def picture(self) -> Path:
        return PICTURES / f"step-{self.scene}.png"


STEPS = (
    Step(1, "Print the enclosure and join the frame", "2-the-printed-enclosure", (
        "Print one tile of each kind first; try a card, the top sheet and a pad on it.",
        "Print the rest: 6 frame tiles, 6 carrier tiles, 6 grille tiles, the box, its lid, the hood.",
        "Press the heat-set inserts into the box's posts and standoffs with the iron.",
        "Slide the frame's tiles together at their dovetails (orange, drawn apart here).",
    ), ()),
    Step(2, "Lay the LED strip and the power bus", "3-the-leds", (
        "Wipe each cell's floor and the front rim with isopropyl alcohol.",
        "Cut the strip into pieces of the LEDs a cell at the marks; stick one in each cell's groove, serpentine "
        "from cell 0, every arrow following the data line.",
        "Join each row's pieces through the notches (+5 V, data, GND); from row to row the data only.",
        "Lay the bus in cell 20 (red here): +5 V connectors along the back wall, GND along the front, C2 on its side, "
        "stripe to ground.",
        "Run a red/black pair from the bus to the start of each row and of the edge; solder it; seal every joint "
        "on the strip's coat with neutral-cure silicone.",
    ), (
        "On the continuity range, at the bus, +5 V to GND: no steady beep (a chirp while C2 charges is right).",
        "The start of each row and of the edge: its +5 V pad to the bus's +5 V, and its GND pad to the bus's GND, "
        "under 1 Ω.",
    )),
    Step(3, "Fit the pads and the breakouts", "4-the-pads", (
        "Solder a header to each MPR121 breakout first.",
        "Check each breakout's ADDR, then solder its strap: 0x5A as it is, 0x5B to 3V3, 0x5C to SDA.",
        "Lay the copper pads on the carrier's tiles (orange, lifted here) and a short wire from each to its "
        "breakout's electrode.",
        "Hang each breakout (green) under its cell on the carrier's posts; chain the bus from breakout to breakout.",
    ), (
        "Before the strap, ADDR to GND: kilohms or open (a beep is a tied trace: cut it, measure again).",
        "After the strap: 0x5B ADDR to 3V3 under 1 Ω, 0x5C ADDR to SDA under 1 Ω, and neither ADDR beeps to GND.",
        "On the continuity range, at the first breakout, SDA to SCL and 3V3 to GND: no beep.",
    )),
    Step(4, "Wire the electronics box", "5-the-wiring-harness", (
        "Cut and drill the stripboard; cut its tracks and solder its links and parts as "
        "[the stripboard drawing](../../hardware/stripboard.svg) shows (print it at 100 %).",
        "Screw the Pi and the stripboard (green) to their standoffs; the cables from the frame in through the glands.",
        "Fit the DC jack and the fuse holder; measure the supply's polarity before the LED cable goes on.",
        "Solder the LED cable, F2 and the shifter's feed; plug the USB cable; wire the Pi's header by jumpers.",
        "Put the display in the hood, the hood on the lid, the lid on the box (orange, going on).",
    ), (
        "Before the shifter goes in: T33 to each of the board's ground-tied tracks under 1 Ω, T27 (1A) 10 kΩ, "
        "the outputs open (the table under the stripboard drawing).",
        "The LED supply in J1, DC volts: the fuse holder's out lead to the jack's ground lug reads +5 V "
        "(4.75-5.25 V), not -5 V.",
    )),
    Step(5, "Power on, test, tune, then seal", "6-first-power-on", (
        "Lay the top sheet dry on the frame (white here), the grille's tiles on it (orange), a card in each cell.",
        "Flash the touch board; install the software; run pi-table selftest, then pi-table tune.",
        "Only when every check passes: seal the top sheet to the rim with neutral-cure silicone; a day to cure.",
    ), (
        "Nothing plugged in: the jack's two lugs, no steady beep; the Pi's pin 20 to the bus's GND under 1 Ω.",
        "The Pico's GND, SDA and SCL to the far breakout's, each under 1 Ω; SDA to SCL and 3V3 to GND, no beep.",
        "The LED supply alone: the strip stays dark and the bus reads 5 V; with the Pi on, the far breakout's "
        "VIN reads 3.3 V.",
        "pi-table selftest ends with: self-test passed.",
    )),
)


def fingerprint(model: Path = enclosure.ENCLOSURE) -> str:
    """What the pictures depend on: every .scad file of the model (in ``model``), how the pictures
    are taken and the steps drawn, as a SHA-256."""
    digest = hashlib.sha256()
    for path in sorted(model.glob("*.scad")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(repr((enclosure.VIEW, [step.scene for step in STEPS])).encode())
    return digest.hexdigest()


def stale() -> bool:
    """Whether the pictures are missing or older than the model."""
    current = SOURCES.is_file() and SOURCES.read_text(encoding="utf-8").strip() == fingerprint()
    return not current or not all(step.picture.is_file() for step in STEPS)


def can_render() -> bool:
    return shutil.which("openscad") is not None and (bool(os.environ.get("DISPLAY")) or shutil.which("xvfb-run") is not None)


def render(folder: Path = PICTURES, model: Path = enclosure.ENCLOSURE) -> list[str]:
    """Draw each step's picture from the model in ``model`` into ``folder``, then note the model's
    fingerprint there; the warnings OpenSCAD printed (none: the fingerprint is written)."""
    folder.mkdir(parents=True, exist_ok=True)
    under_x = not os.environ.get("DISPLAY")
    warnings = []
    for step in STEPS:
        picture = folder / step.picture.name
        made = enclosure._openscad([*enclosure.VIEW, "-D", f"step={step.scene}", "-o", str(picture),
                                    str(model / SCENE.name)], picture, under_x)
        warnings += [f"{picture.name}: {warning}" for warning in made.warnings]
    if not warnings:
        (folder / SOURCES.name).write_text(fingerprint(model) + "\n", encoding="utf-8")
    return warnings


def page() -> str:
    """docs/make/steps.md: the build a step a page, each with its picture, its work and its checks to tick."""
    lines = [
        "# The build, step by step", "",
        "*Generated by `tools/docs.py` from `hardware/tools/steps.py`, its pictures drawn from the OpenSCAD model "
        "(`enclosure/build_steps.scad`): do not edit it by hand (`./dev docs` writes it again).*", "",
        "Print this page: each step starts a sheet of its own. In each picture, what the step puts in is in "
        "colour, lifted apart where its parts go together; what the steps before it built is grey. Tick each line as "
        "you go, and do not start a step before every check of the one before it holds. "
        "[The build guide](guide.md) says why each thing is done as it is; each step links to its section.", ""]
    for number, step in enumerate(STEPS, 1):
        lines += [f"## Step {number}: {step.title}", "",
                  f"![Step {number}: {step.title}](../../enclosure/pictures/steps/{step.picture.name})", "",
                  "What to do:", "", *(f"- ☐ {line}" for line in step.work), ""]
        lines += ["Check with the meter before going on:", "", *(f"- ☐ {line}" for line in step.checks), ""] if step.checks \
            else ["Nothing to measure yet: nothing is wired.", ""]
        lines += [f"The guide: [{step.title}](guide.md#{step.guide}).", ""]
        if number < len(STEPS):
            lines += ['<div style="break-after: page"></div>', ""]
    return "\n".join(lines)
