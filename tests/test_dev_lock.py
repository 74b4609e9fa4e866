"""The development tools at exact versions (issue 52.10): ``./dev`` installs the test and dev
extras under dev.lock's pins, so Babel, ruff and mypy are the same on every checkout and a
catalogue made again changes only in its messages (its header names the Babel that wrote it)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def pins(name: str) -> dict[str, Version]:
    """A lock's pins by package; a pin's hashes (requirements.lock's ``--hash=`` lines) are not pins."""
    found = {}
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.lstrip().startswith(("#", "--")):
            package, _, version = line.partition("==")
            found[package.lower().replace("_", "-")] = Version(version.split()[0].rstrip("\\"))
    return found


def extra(name: str) -> list[Requirement]:
    """An extra's requirements, the extras it names of pi-table itself followed."""
    wanted = []
    for requirement in map(Requirement, PROJECT["project"]["optional-dependencies"][name]):
        if requirement.name == "pi-table":
            wanted += [found for named in sorted(requirement.extras) for found in extra(named)]
        else:
            wanted.append(requirement)
    return wanted


def test_the_lock_pins_every_tool_of_the_dev_extra_at_or_above_its_floor():
    locked = pins("dev.lock")
    for requirement in [*map(Requirement, PROJECT["project"]["dependencies"]), *extra("dev")]:
        name = requirement.name.lower().replace("_", "-")
        assert name in locked, f"dev.lock pins no {name}: .venv/bin/python tools/dev_lock.py"
        assert requirement.specifier.contains(locked[name]), f"{name} {locked[name]} is not {requirement}"


def test_the_dev_lock_agrees_with_what_releases_install():
    locked, released = pins("dev.lock"), pins("requirements.lock")
    assert {name: version for name, version in released.items() if locked.get(name, version) != version} == {}


def test_the_catalogues_name_the_babel_the_lock_pins():
    babel = pins("dev.lock")["babel"]
    for path in (ROOT / "pi_table" / "ui" / "locale").rglob("*.po*"):
        assert re.findall(r'"Generated-By: Babel (\S+)\\n"', path.read_text(encoding="utf-8")) == [str(babel)], path


def test_dev_installs_under_the_lock_and_this_environment_has_its_tools():
    """``./dev`` passes the lock to pip (and installs again when it changes); the environment the
    tests run in holds the versions it pins of the tools that write files (Babel) or judge them
    (ruff, mypy)."""
    script = (ROOT / "dev").read_text(encoding="utf-8")
    assert '--constraint dev.lock' in script and "dev.lock -nt" in script
    locked = pins("dev.lock")
    for tool in ("babel", "ruff", "mypy"):
        assert Version(metadata.version(tool)) == locked[tool], f"{tool}: ./dev installs the lock's"


def test_the_lock_is_what_the_tool_makes_of_this_environment():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "dev_lock.py"), "--check"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
