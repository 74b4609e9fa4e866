"""requirements.lock: the exact versions of the table's dependencies that every release installs,
each with the SHA-256 of every file the package index holds of it (pip's ``--require-hashes``),
so a release built from a checkout (an update from the repository, install.sh) takes no file the
signed commit does not name, on whatever machine it is built. Made again, after a change of
pyproject.toml's dependencies, in a checkout with network:

    .venv/bin/python -m pi_table.release.lock

pip resolves the dependencies as a fresh install would today, then with each extra a table
installs (``EXTRAS``: leds-pi4, which install.sh installs on a Pi 3 or 4); an extra's own pins
are a section of their own (``# [leds-pi4]``), so a table takes only what its extras need. Every
pin must have a file for each machine a table installs on (``MACHINES``: a wheel for Python
3.11 there, or its source to build); tests/test_release.py checks the lock against
pyproject.toml's floors. A release's build reads it with ``wheels.pinned``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from ..engine.phrase import N_
from ..files import read_json
from .layout import LOCK_FILE, ReleaseError
from .wheels import WHEEL, pinned, project

CHECKOUT = Path(__file__).resolve().parents[2]
EXTRAS = ("leds-pi4",)
MACHINES = ("x86_64", "aarch64")  # the tests' and CI's, the Pi's
PYTHON = ("py3", "py2.py3", "cp311")  # Debian 12's and Raspberry Pi OS bookworm's Python is 3.11
INDEX = "https://pypi.org/simple"
HEADER = ("# The exact versions every release of pi-table installs, each with the SHA-256 of every file the\n"
          "# index holds of it (pip's --require-hashes); made by\n"
          "#   .venv/bin/python -m pi_table.release.lock\n"
          "# from pyproject.toml's dependencies; an extra's own pins follow its name. Do not edit by hand.\n")


def resolved(checkout: Path = CHECKOUT, extras: tuple[str, ...] = ()) -> dict[str, str]:
    """Each package a fresh install of the checkout with ``extras`` would take today, and its version."""
    wanted = f"{checkout}[{','.join(extras)}]" if extras else str(checkout)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                           "--disable-pip-version-check", "--report", "-", wanted],
                          capture_output=True, text=True, check=True)
    report = read_json(done.stdout)
    pins = {project(item["metadata"]["name"]): item["metadata"]["version"] for item in report["install"]}
    pins.pop(project("pi-table"), None)
    return dict(sorted(pins.items()))


def files(name: str, version: str, index: str = INDEX) -> dict[str, str]:
    """Every file of ``name`` at ``version`` the index holds (not yanked), by file name, with its
    SHA-256: the index's JSON (PEP 691)."""
    ask = urllib.request.Request(f"{index.rstrip('/')}/{project(name)}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(ask, timeout=60) as answer:
        listed = read_json(answer.read())["files"]
    return {each["filename"]: each["hashes"]["sha256"] for each in listed
            if not each.get("yanked") and "sha256" in each.get("hashes", {})
            and _version_of(each["filename"]) == version}


def _version_of(filename: str) -> str | None:
    if (wheel := WHEEL.fullmatch(filename)) is not None:
        return wheel["version"]
    for ending in (".tar.gz", ".zip"):
        if filename.endswith(ending):
            return filename.removesuffix(ending).rpartition("-")[2]
    return None


def serves(filenames: list[str], machine: str) -> bool:
    """Whether one of ``filenames`` installs on ``machine`` (Linux, Python 3.11): its source, or a
    wheel for that Python (or any, or the stable ABI) on any machine or on that one."""
    for filename in filenames:
        if _version_of(filename) is not None and WHEEL.fullmatch(filename) is None:
            return True  # the source: built where no wheel serves
        tags = filename.removesuffix(".whl").split("-")[-3:]
        python, abi, platforms = tags[0].split("."), tags[1], tags[2].split(".")
        right_python = any(tag in PYTHON for tag in python) or (abi == "abi3" and any(
            tag.startswith("cp3") and int(tag[3:] or 0) <= 11 for tag in python))
        right_machine = "any" in platforms or any(tag.startswith(("manylinux", "linux")) and tag.endswith(machine)
                                                  for tag in platforms)
        if right_python and right_machine:
            return True
    return False


def entry(name: str, version: str, index: str = INDEX) -> str:
    """The lock's lines for one pin: every file's hash; ReleaseError when a machine has none to install."""
    found = files(name, version, index)
    for machine in MACHINES:
        if not serves(sorted(found), machine):
            raise ReleaseError(N_("the index has no file of {name} {version} for {machine}"), name=name,
                               version=version, machine=machine)
    hashes = sorted(set(found.values()))
    return f"{name}=={version} \\\n" + " \\\n".join(f"    --hash=sha256:{sha}" for sha in hashes) + "\n"


def main() -> None:
    index = os.environ.get("PIP_INDEX_URL", INDEX)
    every = resolved()
    text, count = HEADER, len(every)
    text += "".join(entry(name, version, index) for name, version in every.items())
    for extra in EXTRAS:
        more = {name: version for name, version in resolved(extras=(extra,)).items() if name not in every}
        text += f"# [{extra}]\n" + "".join(entry(name, version, index) for name, version in more.items())
        count += len(more)
    pinned(text)  # it reads back
    (CHECKOUT / LOCK_FILE).write_text(text, encoding="utf-8")
    print(f"{LOCK_FILE}: {count} packages, {text.count('--hash=')} files")


if __name__ == "__main__":
    main()
