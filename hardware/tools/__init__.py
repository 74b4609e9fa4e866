"""The maker's build tools: the enclosure's fit rules and renders, the wiring diagram and its
netlist rules, the build guide's tables. They run from a checkout only (``python -m
pi_table.hardware.tools.wiring``); pyproject.toml leaves this folder out of the package, so a Pi
never installs them."""

from pathlib import Path

HARDWARE = Path(__file__).resolve().parent.parent
"""hardware/ in the checkout: the bill of materials, the build guide and the wiring diagram."""
