"""dev.lock: the exact versions of everything the dev extra installs (the test tools, Babel, ruff,
mypy and what they need), as pip's constraints, so that ``./dev`` sets up the same tools on every
checkout: a catalogue made again then changes only in its messages, and a linter's new release
does not fail a clean clone.

    .venv/bin/python tools/dev_lock.py           write dev.lock from this environment
    .venv/bin/python tools/dev_lock.py --check   exit 1, saying what differs, if it is not that

It writes what this environment holds (``./dev`` made it, under the lock), each package that
pi-table's dependencies and its dev extra reach; to move a tool on, install the version wanted
(``.venv/bin/python -m pip install babel==X``), run this, and make the catalogues again
(``python -m pi_table.ui.messages``). tests/test_dev_lock.py checks the lock against
pyproject.toml's floors, requirements.lock and the catalogues' headers. A checkout's tool: a Pi
never installs it.
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

CHECKOUT = Path(__file__).resolve().parent.parent
LOCK = CHECKOUT / "dev.lock"
HEADER = ("# The exact versions ./dev installs with the dev extra (pip's --constraint); made by\n"
          "#   .venv/bin/python tools/dev_lock.py\n"
          "# from the environment ./dev made. Do not edit by hand.\n")


def _applies(marker: Marker | None, extras: frozenset[str]) -> bool:
    return marker is None or any(marker.evaluate({"extra": extra}) for extra in extras | {""})


def reached(name: str = "pi-table", extras: frozenset[str] = frozenset({"dev"})) -> dict[str, str]:
    """Each installed package that ``name`` with ``extras`` requires, directly or through
    another, by its canonical name, with its version (``name`` itself left out)."""
    found: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(canonicalize_name(name), extras)]
    while todo:
        package, wanted = todo.pop()
        if (package, wanted) in seen:
            continue
        seen.add((package, wanted))
        dist = metadata.distribution(package)
        found[package] = dist.version
        for requirement in map(Requirement, dist.requires or []):
            if _applies(requirement.marker, wanted):
                todo.append((canonicalize_name(requirement.name), frozenset(requirement.extras)))
    found.pop(canonicalize_name(name))
    return dict(sorted(found.items()))


def written(pins: dict[str, str]) -> str:
    return HEADER + "".join(f"{name}=={version}\n" for name, version in pins.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write dev.lock from this environment (or --check it).")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if dev.lock is not this")
    args = parser.parse_args(argv)
    text = written(reached())
    if not args.check:
        LOCK.write_text(text, encoding="utf-8")
        print(f"{LOCK.name}: {text.count('==')} packages")
        return 0
    old = set(LOCK.read_text(encoding="utf-8").splitlines()) if LOCK.exists() else set()
    new = set(text.splitlines())
    if old == new:
        return 0
    print(f"{LOCK.name} is not this environment's: only in the lock {sorted(old - new)}, only here "
          f"{sorted(new - old)}; ./dev installs the lock, tools/dev_lock.py writes it")
    return 1


if __name__ == "__main__":
    sys.exit(main())
