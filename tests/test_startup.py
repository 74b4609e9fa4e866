"""What the daemon loads before it tells systemd READY=1 (issue 13: start-up on a slow Pi).

A restart leaves the table dark until READY, so the start imports only what the configured game
and devices need: the companion's aiohttp opens after READY, Codex's engine loads only on a table
that deals Codex, the version is read from the package metadata when first asked for, and the
game nights' book and the control socket's answering threads open once the table is up. The
figures are in ``pi-table bench daemon``; this checks the mechanism, not the clock.
"""

import json
import subprocess
import sys

import pytest

LATER = ("aiohttp", "pi_table.web", "pi_table.engine.codex", "pi_table.table.codex_loop", "importlib.metadata",
         "importlib.resources", "pi_table.ui.words",
         # issue 26: the nights' book, the control socket's answerers (at its first request), the
         # other commands' parsers, shutil (argparse's width), csv (exports), the IDNA codec
         "pi_table.night.book", "pi_table.night.store", "pi_table.night.director", "pi_table.night.follower",
         "pi_table.night.recorder", "concurrent.futures", "pi_table.cli.play",
         "pi_table.cli.backup", "pi_table.cli.control", "shutil", "csv", "encodings.idna",
         # the catalogues' making (pi_table.ui.messages)
         "pi_table.ui.messages",
         "pi_table.daemon.staff_desk", "pi_table.daemon.staff_parts", "pi_table.daemon.root_helper",
         # the drivers and the board's protocol: a simulated table's configuration reads their
         # settings alone (pi_table.drivers.settings)
         "pi_table.drivers.touchboard", "pi_table.drivers.buttons", "pi_table.drivers.ws281x",
         "pi_table.drivers.spi_leds", "pi_table.protocol.wire",
         # the backups: a restore waiting for the start loads them (tests/test_backup.py)
         "pi_table.daemon.backup",
         # what names the user in a refusal, and what compares names (a table without blocked words)
         "pwd", "unicodedata")
"""Modules a grid game's start does without until READY."""

CHILD = """
import json, os, signal, sys
from pi_table.cli import main  # first, as pi-table imports it
from pi_table.daemon import notify

def ready(self, status):
    names = [name for name in {later!r} if name in sys.modules]
    with open({out!r}, "w") as out:
        json.dump(names, out)
    os.kill(os.getpid(), signal.SIGTERM)

notify.Notifier.ready = ready
sys.exit(main(["run", "--hal", "sim", "--config", {config!r}]))
"""


def loaded_at_ready(tmp_path, game: str) -> list[str]:
    config = tmp_path / "config.toml"
    config.write_text(f'[game]\ngame = "{game}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      f'[paths]\njournal_dir = "{tmp_path / "journal"}"\nsocket = "{tmp_path / "control.sock"}"\n'
                      'socket_group = ""\n')
    out = tmp_path / "loaded.json"
    child = CHILD.format(later=LATER, out=str(out), config=str(config))
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("game", ["codenames", "alias24"])
def test_a_grid_game_starts_without_the_companion_codex_or_the_metadata(tmp_path, game):
    assert loaded_at_ready(tmp_path, game) == []


def test_a_codex_table_loads_codex_before_ready(tmp_path):
    """The other side of the first test: the check sees a module the start does load."""
    loaded = loaded_at_ready(tmp_path, "codex")
    assert "pi_table.engine.codex" in loaded and "pi_table.table.codex_loop" in loaded
    assert "aiohttp" not in loaded and "importlib.metadata" not in loaded


@pytest.mark.slow  # some 4 s of CPU by itself: out of ./dev test (issue 40)
def test_the_tests_start_a_table_as_the_service_does_or_say_what_they_leave_out():
    """Issue 37: the tests made their tables in-process with the start's machine check off, and so
    missed a table that could not start again. A table is made (``Daemon(...)``) only by the
    helpers ``helpers_tables.SHORTCUTS`` lists, each saying what of the service's start it leaves out and
    why; every other test goes through them or runs ``pi-table run --config FILE``."""
    import ast
    from pathlib import Path

    from helpers import parsed
    from helpers_tables import SHORTCUTS

    tests = Path(__file__).parent
    makers = set()
    for path in tests.rglob("*.py"):
        for function in ast.walk(parsed(path)):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for call in ast.walk(function):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Daemon":
                    makers.add(f"{path.relative_to(tests)}:{function.name}")
    assert makers == {f"helpers_tables.py:{name}" for name in SHORTCUTS}
    assert all(len(why) > 40 for why in SHORTCUTS.values())


# Issue 40, 3: what pi-table's start does to the process is nothing another program would notice.
BEFORE_A_COMMAND = """
import dataclasses, inspect, json, sys, typing
from pi_table import cli
try:
    cli.main(["--version"])  # pi-table's own start, up to a command
except SystemExit:
    pass

@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int = 0

print(json.dumps({"signature": str(inspect.signature(Point)),
                  "hints": sorted(typing.get_type_hints(Point.__init__))}))
"""


def test_a_dataclass_made_after_pi_tables_start_keeps_its_annotations():
    """The dataclasses' code cache (pi_table.codecache) compiled every dataclass's methods in the
    process under ``from __future__ import annotations``: ``inspect.signature`` showed ``'_type_x'``
    and ``typing.get_type_hints`` of an ``__init__`` raised NameError."""
    done = subprocess.run([sys.executable, "-c", BEFORE_A_COMMAND], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"signature": "(x: int, y: int = 0) -> None", "hints": ["return", "x", "y"]}


FROZEN = """
import gc, os, signal, sys
from pi_table.cli import main
from pi_table.daemon import notify

def ready(self, status):
    with open({out!r}, "w") as out:
        out.write(f"{{gc.isenabled()}} {{gc.get_freeze_count()}}")
    os.kill(os.getpid(), signal.SIGTERM)

notify.Notifier.ready = ready
sys.exit(main(["run", "--hal", "sim", "--config", {config!r}]))
"""


def test_the_daemon_leaves_the_collector_on_and_freezes_nothing(tmp_path):
    """The start froze what it made while loading the configuration (``later.lasting``), so the
    cycles made there were never collected; the collector's pause bought nothing measurable."""
    config = tmp_path / "config.toml"
    config.write_text(f'[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "{tmp_path / "journal"}"\n'
                      f'socket = "{tmp_path / "control.sock"}"\nsocket_group = ""\n')
    out = tmp_path / "collector.txt"
    done = subprocess.run([sys.executable, "-c", FROZEN.format(out=str(out), config=str(config))],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == "True 0"
