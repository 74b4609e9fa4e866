"""What a Pi installs runs there: every module of the packages pyproject.toml lists imports, at its
top, only the standard library, the table itself and what the table's dependencies and extras
declare. A checkout's tool that needs more (the colour-vision check's numpy and colorspacious)
lives in a tools folder the package leaves out (hardware/tools/, pi_table/ui/tools/)."""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

import pi_table

from helpers import parsed

ROOT = Path(pi_table.__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TOOLCHAINS = ("test", "dev", "docs")
"""The extras of a checkout (the tests, the documentation site), which no table installs."""
ON_THE_BOARD = "pi_table.firmware"
"""Shipped, but run by the touch board's CircuitPython (board, busio, usb_cdc), never by the Pi."""


def folder_of(package: str) -> Path:
    mapped = PYPROJECT["tool"]["setuptools"]["package-dir"]
    parts = package.split(".")
    for length in range(len(parts), 0, -1):
        prefix = ".".join(parts[:length])
        if prefix in mapped:
            return ROOT / mapped[prefix] / Path(*parts[length:])
    return ROOT / Path(*parts)


def shipped_modules() -> list[tuple[str, Path]]:
    """(name, file) of every module in the packages a Pi installs, the board's own left out."""
    found = []
    for package in PYPROJECT["tool"]["setuptools"]["packages"]:
        if package == ON_THE_BOARD:
            continue
        for path in sorted(folder_of(package).glob("*.py")):
            found.append((f"{package}.{path.stem}", path))
    return found


def declared() -> set[str]:
    """The distributions a table may have: its dependencies and every extra but the checkout's."""
    project = PYPROJECT["project"]
    lines = list(project["dependencies"])
    for extra, requirements in project["optional-dependencies"].items():
        if extra not in TOOLCHAINS:
            lines += requirements
    return {Requirement(line).name.lower() for line in lines}


def top_imports(path: Path) -> set[str]:
    """The top-level names a module imports when it loads (a function's lazy import waits for its call)."""
    names = set()
    for node in parsed(path).body:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - {"pi_table", "__future__"} - set(sys.stdlib_module_names)


def undeclared(modules: list[tuple[str, Path]]) -> list[str]:
    allowed = declared()
    distributions = importlib.metadata.packages_distributions()
    offences = []
    for name, path in modules:
        for imported in sorted(top_imports(path)):
            owners = {owner.lower() for owner in distributions.get(imported, [])}
            if not owners & allowed:
                offences.append(f"{name} imports {imported} ({', '.join(sorted(owners)) or 'not installed here'}), "
                                "which no dependency or extra of the table declares")
    return offences


def test_every_module_a_pi_installs_imports_only_what_the_table_declares():
    modules = shipped_modules()
    assert len(modules) > 100  # the walk found the package
    assert undeclared(modules) == []


def test_the_check_sees_a_module_that_needs_the_test_extra(tmp_path):
    """Guard against a check that passes vacuously: colorspacious (the colour-vision check's, the test
    extra's alone; numpy is the cards and clues extras' now) at a module's top is reported."""
    tool = tmp_path / "tool.py"
    tool.write_text("import colorspacious\nimport json\nfrom pi_table.ui import leds\n\ndef later():\n    import yaml\n")
    assert undeclared([("pi_table.ui.tool", tool)]) == [
        "pi_table.ui.tool imports colorspacious (colorspacious), which no dependency or extra of the table declares"]
