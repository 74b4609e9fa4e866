"""Small helpers shared by several test files: the clock and the wait, the parsed sources, the tools a
test drives, the README's commands. The rest sit beside what they stand in for, a module each
(``helpers_*.py``)."""

from __future__ import annotations

import ast
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    """A clock the test moves by hand (``now``), for what takes one (``clock=``)."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def wait_for(condition, what: str, timeout: float = 5.0, every: float = 0.005, explain=None):
    """Poll ``condition`` every ``every`` s until it gives something true, and return that; fail
    the test, naming ``what`` (and adding ``explain()``: a unit's journal, say), after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}{explain() if explain else ''}")
        time.sleep(every)
    return found


def parsed(path: Path) -> ast.Module:
    """A Python file's syntax tree, read once per test file: a test file's tests (the layers, the
    kind questions, the faults...) walk the same three hundred files. Callers only read it."""
    return _parsed(path.resolve())


@functools.cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def forget_parsed() -> None:
    """Drop the kept trees (conftest does, after each test file). All of them are a million
    objects: kept for the whole run, every full pass of the garbage collector walked them, and
    the interpreter's exit too, about 13 s of a worker's 100 in the fast tier. A tree holds no
    cycle, so dropping it frees it at once, without a pass of the collector, which the tests
    leave as the table runs it."""
    _parsed.cache_clear()


@functools.cache
def defined_tests() -> frozenset[str]:
    """Every function of the suite's test files, as ``test_FILE.py::name``: what a document that
    names the test proving something (the threat model, the Italian audit) is checked against."""
    return frozenset(f"{path.name}::{node.name}" for path in (ROOT / "tests").glob("test_*.py")
                     for node in ast.walk(parsed(path)) if isinstance(node, ast.FunctionDef))


REQUIRE_TOOLS = os.environ.get("PI_TABLE_REQUIRE_TOOLS") == "1"
"""Set by .ci/run, which installs every tool: there a missing one fails the test, not skips it."""


def cache_dir() -> Path:
    """Where slow things built for tests are kept between runs: PI_TABLE_CI_CACHE, else
    /var/cache/pi-table-ci where it can be written (CI, as root), else ~/.cache/pi-table-ci."""
    chosen = os.environ.get("PI_TABLE_CI_CACHE")
    if chosen:
        return Path(chosen)
    shared = Path("/var/cache/pi-table-ci")
    try:
        shared.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    return shared if os.access(shared, os.W_OK) else Path.home() / ".cache" / "pi-table-ci"


def npm_packed(name: str, version: str, into: Path) -> Path:
    """The npm registry's tarball of ``name@version`` (``npm pack``), written in ``into``; a
    skip when npm cannot fetch it (a failure under PI_TABLE_REQUIRE_TOOLS, as in .ci/run)."""
    packed = subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(into), f"{name}@{version}"],
                            capture_output=True, text=True, timeout=300)
    if packed.returncode != 0:
        require_tools(also_missing=(f"the npm package {name}@{version} (npm pack: {packed.stderr.strip()[-200:]})",))
    return Path(into) / packed.stdout.split()[-1]


def require_tools(*commands: str, also_missing: tuple[str, ...] = ()) -> None:
    """Skip the test when a system command it drives is missing (under PI_TABLE_REQUIRE_TOOLS, as in
    .ci/run, tests/conftest.py makes that skip a failure).

    ``also_missing`` names other prerequisites the caller found missing (a Python module)."""
    missing = [name for name in commands if shutil.which(name) is None] + list(also_missing)
    if not missing:
        return
    pytest.skip(f"{', '.join(missing)} not installed")


def record_untranslated(monkeypatch, *targets: str) -> list[str]:
    """Make the Italian catalogue record every msgid it lacks, for code that looks up its
    translation through ``targets`` (dotted names of ``translation`` functions); the list fills
    as the code draws."""
    import gettext

    from pi_table.ui import i18n

    missed: list[str] = []

    class Recorder(gettext.NullTranslations):
        def gettext(self, message):
            missed.append(message)
            return message

    catalogue = gettext.translation(i18n.DOMAIN, localedir=i18n.LOCALE_DIR, languages=["it"])
    catalogue.add_fallback(Recorder())
    for target in targets:
        monkeypatch.setattr(target, lambda lang: catalogue)
    return missed


def pi_table(*args: str) -> subprocess.CompletedProcess:
    """The pi-table command line, run as a person runs it."""
    return subprocess.run([sys.executable, "-m", "pi_table", *args], capture_output=True, text=True, timeout=30)


JOURNAL_VERSION_1 = """\
{"format": "pi-table journal", "version": 1, "id": "20261118-110640.250000-f7396e", "started": "2026-11-18T11:06:40Z", "rules": {"game": "codenames", "nuke": "basic", "clue_required": false, "three_player": false, "setup": "key", "dark_cell": 12}, "key": "RRRRRRRRRBBBBBBBBNNNNNNNA", "start": "red"}
{"n": 1, "action": "clue 2", "at": 7.5}
{"n": 2, "action": "touch 0", "at": 15.0}
{"n": 3, "action": "touch 1", "at": 22.5}
{"n": 4, "action": "touch 2", "at": 30.0}
{"n": 5, "action": "clue 1", "at": 37.5}
{"n": 6, "action": "touch 9", "at": 45.0}
{"n": 7, "action": "undo", "at": 52.5}
{"n": 8, "action": "touch 10", "at": 60.0}
"""
"""A journal exactly as version 1 (before checksums) wrote it."""


# The README and the installer ------------------------------------------------------------

README = ROOT / "README.md"


def readme_commands() -> list[list[str]]:
    """Each command line of the README's fenced code blocks, as words, without a ``$`` prompt,
    comments or the block's indentation."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for block in re.finditer(r"^( *)```[^\n]*\n(.*?)^\1```", text, re.DOTALL | re.MULTILINE):
        for line in block.group(2).splitlines():
            line = line.strip().removeprefix("$ ")
            try:
                words = shlex.split(line, comments=True)
            except ValueError:  # an example's output, not a command
                continue
            if words:
                commands.append(words)
    return commands


def readme_scripts() -> dict[str, list[str]]:
    """The checkout's own scripts the README runs by their path (``sudo systemd/install.sh``,
    ``./dev test``): path -> the README's command line. Paths under .venv are made by ./dev."""
    scripts = {}
    for words in readme_commands():
        program = words[1] if words[0] == "sudo" and len(words) > 1 else words[0]
        if "/" in program.rstrip("/") and not program.startswith(("/", ".venv/")):
            scripts[os.path.normpath(program)] = words
    return scripts


def self_signed(folder: Path, name: str = "table") -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made by openssl in ``folder``."""
    require_tools("openssl")
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    done = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                           "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1", "-days", "1",
                           "-addext", "subjectAltName=IP:127.0.0.1"], capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return cert, key


PAST_THE_EDGE = """(width) => [...document.querySelectorAll('body *')].filter((node) => !node.closest('.scroll') && (
  node.getBoundingClientRect().right + scrollX > width || (getComputedStyle(node).overflowX === 'visible'
  && node.getBoundingClientRect().left + node.scrollWidth + scrollX > width)))
  .slice(-3).map((node) => `${node.tagName.toLowerCase()}${node.id ? '#' + node.id : ''}`).join(', ')"""
"""The innermost boxes, or words, past the screen's edge (outside a box that scrolls), to say which."""


def openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
