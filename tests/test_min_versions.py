"""The floors pyproject.toml declares are true: in a fresh venv with exactly the oldest release
each dependency allows (and each extra the table's own modules use), every module of pi_table
imports, and the table runs: a scripted game, a render, a QR code, the daemon with the phones'
pages and a setting changed from the staff page.

Slow the first time: it makes the venv, fetching from PyPI and compiling rpi-ws281x and spidev
(half a minute here); the venv is kept under /var/cache/pi-table-ci (PI_TABLE_CI_CACHE, or ~/.cache/pi-table-ci
where that cannot be written), keyed on the pinned versions, so later runs only put this
checkout's pi-table into it (a few seconds). Skipped where pip cannot reach PyPI or Python cannot
make a venv (failed under .ci/run).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import tomllib
import urllib.request
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from helpers import ROOT, cache_dir, require_tools, wait_for
from helpers_phones import next_event
from helpers_staff import STAFF_CONFIG, STAFF_PIN, Staff

pytestmark = [pytest.mark.tool, pytest.mark.slow]

# The extras of libraries the table's own modules use, whose floors are pinned too; the tools'
# extras are not the table's. An extra in neither list fails the test until it is placed.
EXTRAS = ("screen", "gpio", "leds-pi4", "leds-pi5", "cards", "clues")
TOOLS = ("emulator", "test", "dev", "docs")
BUILD = ("setuptools>=70.1", "babel>=2.12")  # builds this checkout in the venv without fetching a build environment
# Modules not imported: each needs what no table has. Any other module that imported one of
# them at its top would fail to import itself (the table's own load them lazily).
SKIP = {
    "pi_table.__main__": "the command line, which the smoke runs",
    "pi_table.firmware.boot": "the touch board's CircuitPython program (board, storage, usb_cdc)",
    "pi_table.firmware.code": "the touch board's CircuitPython program (board, busio, usb_cdc)",
    "pi_table.sim.emulator": "the touch board in software: the emulator extra (adafruit_mpr121)",
}
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
LINK = "http://192.0.2.7:8080/p/a-spymasters-token"


def floors() -> list[str]:
    """``name==floor`` for every dependency and every extra in EXTRAS, from pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    unplaced = sorted(set(extras) - set(EXTRAS) - set(TOOLS))
    assert not unplaced, f"pyproject.toml's extras {unplaced} are in neither EXTRAS nor TOOLS of {__file__}"
    pins = []
    for line in [*project["dependencies"], *(line for extra in EXTRAS for line in extras[extra])]:
        requirement = Requirement(line)
        lowest = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert len(lowest) == 1, f"pyproject.toml: {line!r} should declare one floor, as name>=version"
        pins.append(f"{requirement.name}=={lowest[0]}")
    return pins


def run(*command, what: str, **options) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, **options)
    if done.returncode != 0:
        pytest.fail(f"{what} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def make_venv(venv: Path, pins: list[str]) -> None:
    """The venv with exactly ``pins`` (and what they need, at pip's choice): once per set of pins."""
    if importlib.util.find_spec("ensurepip") is None:
        require_tools(also_missing=("python3-venv",))
    with tempfile.TemporaryDirectory() as folder:
        probe = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", folder, pins[0]],
                               capture_output=True, text=True, timeout=300)
    if probe.returncode != 0:
        require_tools(also_missing=(f"PyPI through pip (pip download {pins[0]}: {probe.stderr.strip()[-200:]})",))
    shutil.rmtree(venv, ignore_errors=True)
    run(sys.executable, "-m", "venv", str(venv), what="python -m venv")
    run(venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", *BUILD, *pins,
        what=f"pip install {' '.join(pins)} (each floor must be a release on PyPI)")
    (venv / "complete").touch()


@pytest.fixture(scope="module")
def oldest(tmp_path_factory) -> Path:
    """The venv's folder, with this checkout's pi-table in it over the pinned floors."""
    pins = floors()
    key = hashlib.sha256(json.dumps([sys.version, platform.machine(), BUILD, pins]).encode()).hexdigest()[:12]
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    venv = cache / f"min-versions-{key}"
    with open(cache / "min-versions.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one run at a time builds or installs into it
        if not ((venv / "complete").exists() and (venv / "bin" / "python").exists()):  # (a Python gone: anew)
            make_venv(venv, pins)
            for old in cache.glob("min-versions-*"):
                if old.is_dir() and old != venv:
                    shutil.rmtree(old, ignore_errors=True)
        # Built from a copy, as install.sh does: no build/ or egg-info left in the checkout.
        copy = tmp_path_factory.mktemp("checkout")
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, copy / name)
        for name in ("pi_table", "firmware", "hardware", "build_backend"):
            shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        run(venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
            "--no-build-isolation", "--force-reinstall", str(copy), what="pip install of this checkout")
        names = [Requirement(pin).name for pin in pins]
        found = json.loads(run(venv / "bin" / "python", "-c", "import importlib.metadata as m, json, sys; "
                               "print(json.dumps([m.version(name) for name in sys.argv[1:]]))", *names,
                               what="reading the venv's versions").stdout)
        wrong = [f"{pin} (found {version})" for pin, version in zip(pins, found)
                 if Version(version) != Version(pin.split("==")[1])]
        assert not wrong, f"the cached venv {venv} is not at the floors: {', '.join(wrong)}; remove it"
        yield venv


def venv_env() -> dict[str, str]:
    """Headless, and nothing of this process's Python settings (a PYTHONPATH to the checkout)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
               GPIOZERO_PIN_FACTORY="mock")
    return env


def in_venv(venv: Path, *command: str, cwd: Path, what: str, stdin: str | None = None) -> str:
    """``command`` (a program of the venv's bin/) run from ``cwd``, never the checkout: its
    pi_table/ would stand in for the installed one."""
    return run(str(venv / "bin" / command[0]), *command[1:], what=what, cwd=cwd, env=venv_env(), input=stdin).stdout


IMPORT_ALL = """
import importlib, json, pkgutil, sys
import pi_table
names, failed = [], {}
def failed_package(name):
    failed[name] = repr(sys.exc_info()[1])
for module in pkgutil.walk_packages(pi_table.__path__, "pi_table.", onerror=failed_package):
    names.append(module.name)
    if module.name not in sys.argv[1:]:
        try:
            importlib.import_module(module.name)
        except Exception as e:
            failed[module.name] = f"{type(e).__name__}: {e}"
print(json.dumps({"file": pi_table.__file__, "names": names, "failed": failed}))
"""


def test_every_module_imports_at_the_floors(oldest, tmp_path):
    found = json.loads(in_venv(oldest, "python", "-c", IMPORT_ALL, *SKIP, cwd=tmp_path, what="importing pi_table"))
    assert Path(found["file"]).is_relative_to(oldest)
    assert set(SKIP) <= set(found["names"]), "a module SKIP names is gone: take it out of SKIP"
    assert found["failed"] == {}


HARDWARE = """
import inspect, rpi_ws281x, spidev
from pi_table.drivers.settings import ORDERS
missing = [name for name in ("begin", "show", "setPixelColor", "_cleanup") if not hasattr(rpi_ws281x.PixelStrip, name)]
missing += [f"WS2811_STRIP_{order}" for order in ORDERS if not hasattr(rpi_ws281x, f"WS2811_STRIP_{order}")]
missing += [f"SpiDev.{name}" for name in ("open", "close", "writebytes2", "mode", "max_speed_hz")
            if not hasattr(spidev.SpiDev, name)]
inspect.signature(rpi_ws281x.PixelStrip).bind(*range(9))  # ... strip type, gamma: as the driver makes it
print(missing)
"""


def test_the_led_libraries_at_their_floors_have_what_the_drivers_call(oldest, tmp_path):
    """They cannot run here (PixelStrip crashes off a Pi, spidev needs the device): what the
    drivers call is looked up instead."""
    assert in_venv(oldest, "python", "-c", HARDWARE, cwd=tmp_path, what="the LED libraries").split() == ["[]"]


def test_a_scripted_game_and_its_pictures_at_the_floors(oldest, tmp_path):
    out = in_venv(oldest, "pi-table", "sim", "--key", KEY, "--script", "-", "--json", cwd=tmp_path,
                  stdin="clue 2\ntouch 0\nend-turn\n", what="pi-table sim")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["ok"] for line in lines[1:]] == [True, True, True]
    assert lines[2]["state"]["board"] == "R" + "?" * 24 and lines[3]["state"]["turn"] == "blue"
    in_venv(oldest, "pi-table", "render", "--key", KEY, "--script", "-", "--out", "pictures", cwd=tmp_path,
            stdin="clue 2\ntouch 0\n", what="pi-table render")
    for name in ("screen.png", "grid.png", "table.png"):
        assert (tmp_path / "pictures" / name).read_bytes().startswith(b"\x89PNG"), name


def test_the_qr_code_drawn_at_the_floors_reads_as_its_link(oldest, tmp_path):
    """segno's matrix drawn by pygame, both at their floors, read back by zxing-cpp here."""
    in_venv(oldest, "python", "-c", "import sys, pygame; from pi_table.ui.canvas import qr_image; "
            "pygame.image.save(qr_image(sys.argv[1], 300), 'qr.png')", LINK, cwd=tmp_path, what="drawing a QR code")
    try:
        import pygame
        import zxingcpp
    except ImportError as e:
        require_tools(also_missing=(f"{e.name} (pip install -e '.[test]')",))
    pixels = pygame.surfarray.array3d(pygame.image.load(str(tmp_path / "qr.png"))).swapaxes(0, 1).copy()
    assert [code.text for code in zxingcpp.read_barcodes(pixels)] == [LINK]


def test_the_table_serves_the_phones_and_takes_a_setting_at_the_floors(oldest, tmp_path):
    """The daemon on simulated devices; the phones' pages, their event stream, and a setting
    changed from the staff page, written into the file with its comment kept."""
    from pi_table.daemon.control import ControlError, request

    defaults = in_venv(oldest, "pi-table", "check-config", "--defaults", cwd=tmp_path, what="check-config --defaults")
    assert tomllib.loads(defaults)["leds"]["brightness"] == 0.5
    config = tmp_path / "config.toml"
    config.write_text(STAFF_CONFIG)
    in_venv(oldest, "pi-table", "set-staff-pin", "--config", str(config), cwd=tmp_path, stdin=f"{STAFF_PIN}\n",
            what="pi-table set-staff-pin")
    daemon = subprocess.Popen([str(oldest / "bin" / "pi-table"), "run", "--hal", "sim", "--config", str(config)],
                              cwd=tmp_path, env=venv_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        def companion() -> str | None:
            assert daemon.poll() is None, f"the daemon exited with {daemon.returncode}:\n{daemon.stdout.read()}"
            try:
                return request(tmp_path / "control.sock", "status").get("companion")
            except (ControlError, OSError):
                return None

        wait_for(lambda: companion() is not None, "the daemon's phones' pages", timeout=60)
        base = companion()
        with urllib.request.urlopen(base + "/", timeout=10) as page:
            assert page.status == 200 and b"<html" in page.read()
        with urllib.request.urlopen(base + "/api/public", timeout=10) as answer:
            assert json.loads(answer.read())["view"]["board"] == "?" * 25
        with urllib.request.urlopen(base + "/api/public/events", timeout=10) as stream:
            assert next_event(stream)[1]["view"]["board"] == "?" * 25
        staff = Staff(base)
        assert staff.login()[0] == 200
        assert staff.call("POST", "/staff/api/config", {"changes": {"leds.brightness": 0.2}}) == (
            200, {"ok": True, "restarting": False})
        text = config.read_text()
        assert "brightness = 0.2\n" in text and "# the café likes a slow game\n" in text
    finally:
        daemon.terminate()
        log = daemon.communicate(timeout=30)[0]
    assert daemon.returncode == 0, log
