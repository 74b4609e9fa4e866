"""Copy the touch-board firmware onto a mounted CIRCUITPY drive.

    python firmware/deploy.py /media/$USER/CIRCUITPY            # install
    python firmware/deploy.py /media/$USER/CIRCUITPY --dry-run  # show what it would do

Libraries first (``circup --path DRIVE install adafruit_mpr121``, which brings
adafruit_bus_device along), then the protocol package into lib/pi_table/, then touchboard.py,
boot.py and code.py last: every write makes CircuitPython reload code.py, and the last reload
should find everything in place. Files already identical on the drive are left alone.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent
# The protocol package the board runs: pi_table/ beside this folder in a checkout; once installed,
# this folder is pi_table.firmware, inside that very package.
PACKAGE = FIRMWARE.parent / "pi_table" if (FIRMWARE.parent / "pi_table" / "protocol").is_dir() else FIRMWARE.parent
LIBRARIES = ("adafruit_mpr121",)


def plan(drive: Path) -> list[tuple[Path, Path]]:
    """(source, destination) of every file, in the order they are copied."""
    package = ["__init__.py", "protocol/__init__.py", "protocol/wire.py"]
    copies = [(PACKAGE / name, drive / "lib" / "pi_table" / name) for name in package]
    copies += [(FIRMWARE / name, drive / name) for name in ("touchboard.py", "boot.py", "code.py")]
    return copies


def circup_command(drive: Path) -> list[str]:
    return ["circup", "--path", str(drive), "install", *LIBRARIES]


def deploy(drive: Path, dry_run: bool = False, which=shutil.which, run=subprocess.run, out=print) -> int:
    """Install onto ``drive``; the exit status: 0 done, 2 not a CIRCUITPY drive, 1 circup failed."""
    if not (drive / "boot_out.txt").is_file():
        out(f"{drive} is not a CIRCUITPY drive (no boot_out.txt there): mount the board and give its "
            "drive, e.g. /media/$USER/CIRCUITPY", file=sys.stderr)
        return 2
    command = circup_command(drive)
    if which("circup") is None:
        out("circup is not installed (pip install circup); install the libraries with:\n  " + shlex.join(command))
    elif dry_run:
        out("would run: " + shlex.join(command))
    else:
        out("running: " + shlex.join(command))
        if run(command).returncode != 0:
            out("circup failed; the firmware files were not copied", file=sys.stderr)
            return 1
    copied = []
    for source, target in plan(drive):
        if target.is_file() and target.read_bytes() == source.read_bytes():
            out(f"unchanged {target}")
            continue
        out(f"{'would copy' if dry_run else 'copy'} {source} -> {target}")
        if not dry_run:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            copied.append(target.name)
    if not dry_run:
        os.sync()  # the board may reset at any moment: get the FAT writes out of the page cache
        if "boot.py" in copied:
            out("boot.py is new: it takes effect at the next reset (code.py finds no data port until then "
                "and lets the watchdog restart the board within 2 s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Copy the touch-board firmware onto a CIRCUITPY drive.")
    parser.add_argument("drive", type=Path, help="the mounted CIRCUITPY drive, e.g. /media/$USER/CIRCUITPY")
    parser.add_argument("--dry-run", action="store_true", help="print what would be copied and run, change nothing")
    args = parser.parse_args(argv)
    return deploy(args.drive, args.dry_run)


if __name__ == "__main__":
    sys.exit(main())
