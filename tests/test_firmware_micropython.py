"""The touch-board firmware on a real MicroPython, against the host's own codec.

MicroPython's WebAssembly port (the npm package MICROPYTHON) runs under Node.js. boot.py and
code.py run as firmware/deploy.py lays them out on a CIRCUITPY drive, over the adafruit_mpr121
driver the firmware is tested with and the bus helper it stands on (DRIVERS, their PyPI
sources), with stand-ins for CircuitPython's own modules (tests/micropython/) over the same fake
MPR121 the CPython tests use (pi_table/sim/mpr121.py). A scripted host, its frames encoded here,
says hello, sets thresholds, pings, streams readings, recalibrates, fills the USB buffer, and
resets the board, while a chip missing at start is plugged in and another unplugged for a while;
everything the board sends is decoded here. The heap the firmware keeps (its modules' code, the
driver's and the codec's included, and its objects) is printed and held under HEAP_LIMIT: an
RP2040 has 264 KB of RAM for CircuitPython and everything it runs.

The package and the drivers' sources are fetched once into the CI cache (/var/cache/pi-table-ci,
as tests/test_min_versions.py keeps its venv), keyed on their pinned versions. Skipped where
Node.js or npm is missing or the registries cannot be reached (failed under .ci/run, which
installs Node.js and runs this file as a stage of its own, printing the heap).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest
from pi_table.firmware import deploy, touchboard

import pi_table.sim.mpr121
from pi_table.protocol import wire

from helpers import ROOT, cache_dir, npm_packed, require_tools

MICROPYTHON = ("@micropython/micropython-webassembly-pyscript", "1.27.0")
DRIVERS = (("adafruit-circuitpython-mpr121", "2.1.27"), ("adafruit-circuitpython-busdevice", "5.2.17"))
"""The MPR121 driver the firmware is tested with (firmware/README.md's install steps name it: the
firmware uses its private methods), and the bus helper under it."""
HEAP_LIMIT = 64 * 1024
STANDS_IN = ROOT / "tests" / "micropython"
STEP_MS = 20
STEPS = 125  # the scenario's last command, reset, comes at step 120


def fetched(folder: Path) -> None:
    """MicroPython's package and the drivers' modules into ``folder``: package/ and lib/."""
    name, version = MICROPYTHON
    with tempfile.TemporaryDirectory() as download:
        with tarfile.open(npm_packed(name, version, Path(download))) as archive:
            archive.extractall(folder, filter="data")
        pins = [f"{project}=={version}" for project, version in DRIVERS]
        got = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q",
                              "-d", download, *pins], capture_output=True, text=True, timeout=300)
        if got.returncode != 0:
            require_tools(also_missing=(f"PyPI through pip (pip download {' '.join(pins)}: {got.stderr.strip()[-200:]})",))
        for wheel in Path(download).glob("*.whl"):
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(folder / "lib", [n for n in archive.namelist() if n.endswith(".py")])


@pytest.fixture(scope="module")
def micropython() -> Path:
    """The cached folder of MicroPython and the drivers: fetched once per set of pins."""
    require_tools("node", "npm")
    key = hashlib.sha256(json.dumps([MICROPYTHON, DRIVERS]).encode()).hexdigest()[:12]
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    folder = cache / f"micropython-{key}"
    with open(cache / "micropython.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "complete").exists():
            partial = folder.with_name(folder.name + ".part")
            shutil.rmtree(partial, ignore_errors=True)
            fetched(partial)
            (partial / "complete").touch()
            shutil.rmtree(folder, ignore_errors=True)
            partial.rename(folder)
            for old in cache.glob("micropython-*"):
                if old.is_dir() and old != folder:
                    shutil.rmtree(old, ignore_errors=True)
    return folder


def drive(folder: Path, micropython: Path, scenario: dict) -> Path:
    """A CIRCUITPY drive as deploy.py fills it, the drivers in lib/, and the bench: the stand-ins
    for CircuitPython's modules, the fake chip, the host's scenario."""
    for source, target in deploy.plan(folder):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    shutil.copytree(micropython / "lib", folder / "lib", dirs_exist_ok=True)
    for stand_in in STANDS_IN.glob("*.py"):
        shutil.copyfile(stand_in, folder / "lib" / stand_in.name)
    fake = Path(pi_table.sim.mpr121.__file__)
    (folder / "lib" / "pi_table" / "sim").mkdir()
    for name in ("__init__.py", "mpr121.py"):
        shutil.copyfile(fake.parent / name, folder / "lib" / "pi_table" / "sim" / name)
    (folder / "scenario.json").write_text(json.dumps(scenario))
    return folder


class Host:
    """The scenario the bench's host follows, its frames encoded by the host's codec."""

    def __init__(self) -> None:
        self.at: dict[str, list] = {}
        self.sent: list[wire.Message] = []

    def on(self, step: int, what: str, value) -> None:
        self.at.setdefault(str(step), []).append([what, value])

    def send(self, step: int, *messages: wire.Message) -> None:
        frames = b"".join(wire.encode(m, len(self.sent) + i) for i, m in enumerate(messages))
        self.sent += messages
        self.on(step, "send", frames.hex())


def play(host: Host) -> None:
    host.send(1, wire.GetHello())
    host.send(2, wire.SetThresholds(0, ((10, 5),) * 24))
    host.send(3, wire.Ping(0x1234))
    host.on(4, "touch", 3)
    host.on(8, "release", 3)
    host.on(10, "plug", 0x5C)  # missing at start: found at the next try, a second after it
    host.send(12, wire.StreamReadings(40, 3))
    host.on(20, "touch", 13)
    host.send(24, wire.Recalibrate(1 << 13))  # the touch goes into the baseline: released
    host.on(28, "release", 13)
    host.on(60, "touch", 30)
    host.send(62, wire.SetThresholds(24, ((12, 6),) * 12))
    host.on(64, "release", 30)
    host.on(66, "unplug", 0x5B)
    host.on(70, "plug", 0x5B)  # answering again at the next try, a second after it was lost
    host.on(90, "room", 6)  # the host stops reading: a full USB buffer takes 6 bytes of a frame
    host.on(90, "touch", 5)
    host.on(91, "release", 5)
    host.on(93, "room", None)
    host.send(120, wire.Reset())


@pytest.mark.tool
def test_the_firmware_runs_on_micropython_and_the_host_reads_every_message(micropython, tmp_path, capsys):
    host = Host()
    play(host)
    scenario = {"step_ms": STEP_MS, "steps": STEPS, "unplugged": [0x5C], "at": host.at}
    folder = drive(tmp_path / "CIRCUITPY", micropython, scenario)
    scripts = ["import rig\nrig.load()", "rig.measure('bench')", "rig.run('boot.py')", "rig.run('code.py')",
               "rig.report()", "rig.measure('firmware')", "rig.print_heap()"]
    done = subprocess.run(["node", str(STANDS_IN / "run.mjs"), str(micropython / "package" / "micropython.mjs"),
                           str(folder), *scripts], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report, heap = (json.loads(line) for line in done.stdout.splitlines() if line.startswith("{"))
    decoder = wire.Decoder()
    received = [message for _seq, message in decoder.feed(bytes.fromhex(report["received"]))]

    # boot.py and code.py, as the stand-ins saw them
    assert report["calls"][:5] == [["usb_cdc", True, True], ["pin", "GP22"], ["pull", "UP"], ["deinit"],
                                   ["drive hidden"]]
    assert report["calls"][5:] == [["I2C", "GP5", "GP4", 100_000]]
    assert report["autoreload"] is False and report["watchdog"] == [2.0, "RESET"] and report["port"] == [0, 0]
    assert report["stopped"] == "reset" and report["steps"] == 120  # restarted on the host's reset
    assert report["feeds"] == 2 + 119  # the two chips set up at start, then once a completed step

    # every message kind crossed: the host's decoded by the board, the board's by the host
    assert decoder.bad_frames == 0 and decoder.skipped_bytes == 0 and report["board"]["bad_frames"] == 0
    kinds = {type(m) for m in received} | {type(m) for m in host.sent}
    assert kinds == set(wire.MESSAGES.values())
    hello = wire.Hello((wire.PROTOCOL_MAJOR, wire.PROTOCOL_MINOR), touchboard.FIRMWARE_VERSION, "e6614103e7000001", 36)
    assert received[:3] == [hello, wire.Log("restart cause: POWER_ON"),
                            wire.Log("chip 0x5c missing: electrodes 24-35 read untouched")]
    assert received.count(hello) == 2  # at start, and for the host's get-hello
    acks = [(m.command, m.status) for m in received if isinstance(m, wire.Ack)]
    assert acks == [(kind.TYPE, wire.Ack.OK) for kind in (wire.SetThresholds, wire.StreamReadings, wire.Recalibrate,
                                                         wire.SetThresholds, wire.Reset)]
    assert received[-1] == wire.Ack(wire.Reset.TYPE, wire.Ack.OK) and wire.Pong(0x1234) in received
    assert [m.text for m in received if isinstance(m, wire.Log)] == [
        *["restart cause: POWER_ON", "chip 0x5c missing: electrodes 24-35 read untouched"] * 2,  # after each hello
        "chip 0x5c found: set up",
        "chip 0x5b not answering: electrodes 12-23 read untouched",
        "chip 0x5b answering again: reconfigured",
    ]
    masks = [m.mask for m in received if isinstance(m, wire.Touch)]
    changes = [mask for before, mask in zip([0, *masks], masks) if mask != before]
    # Electrode 5's touch went 6 bytes into a full buffer, and was finished when the host read
    # again; its release found the buffer full and was dropped, and the next heartbeat said it.
    assert changes == [1 << 3, 0, 1 << 13, 0, 1 << 30, 0, 1 << 5, 0]
    assert report["board"]["frames_dropped"] >= 1
    assert [m.first for m in received if isinstance(m, wire.Readings)] == [0, 12] * 3

    # The heap the firmware keeps: all that is in use after it ran, less what the bench held before
    # (the stand-ins, the fake chips and their module, the scenario).
    retained, bench = heap["heap"]["firmware"], heap["heap"]["bench"]
    with capsys.disabled():
        print(f"\nthe firmware on MicroPython {MICROPYTHON[1]} with {DRIVERS[0][0]} {DRIVERS[0][1]}, {report['steps']} "
              f"steps: heap retained {retained - bench} bytes (limit {HEAP_LIMIT}), and the bench's {bench}")
    assert retained - bench < HEAP_LIMIT


def test_the_readme_installs_the_driver_the_firmware_is_tested_with():
    readme = (ROOT / "firmware" / "README.md").read_text()
    for project, version in DRIVERS:
        assert f"{project}=={version}" in readme, f"firmware/README.md's install steps should pin {project}=={version}"
