"""requirements.lock: the exact versions of the table's dependencies that every release installs
(as pip's constraints), so two tables updated on different days run the same code. Made again,
after a change of pyproject.toml's dependencies, in a checkout with network:

    .venv/bin/python -m pi_table.release.lock

pip resolves the dependencies (and the leds-pi4 extra, which install.sh installs on a Pi 3 or 4)
as a fresh install would today, and the list is written sorted; tests/test_release.py checks it
against pyproject.toml's floors.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .layout import LOCK_FILE

CHECKOUT = Path(__file__).resolve().parents[2]
EXTRAS = "leds-pi4"
HEADER = ("# The exact versions every release of pi-table installs (pip's --constraint); made by\n"
          "#   .venv/bin/python -m pi_table.release.lock\n"
          "# from pyproject.toml's dependencies and the leds-pi4 extra. Do not edit by hand.\n")


def resolved(checkout: Path = CHECKOUT) -> dict[str, str]:
    """Each package a fresh install of the checkout would take today, and its version."""
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                           "--disable-pip-version-check", "--report", "-", f"{checkout}[{EXTRAS}]"],
                          capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    pins = {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in report["install"]}
    pins.pop("pi-table", None)
    return dict(sorted(pins.items()))


def main() -> None:
    pins = resolved()
    (CHECKOUT / LOCK_FILE).write_text(HEADER + "".join(f"{name}=={version}\n" for name, version in pins.items()),
                                      encoding="utf-8")
    print(f"{LOCK_FILE}: {len(pins)} packages")


if __name__ == "__main__":
    main()
