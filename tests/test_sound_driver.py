"""The pygame mixer driver, on SDL's disk and dummy audio drivers: what it plays is really
written out and not silent, and a missing audio device is a warning, never a stall or a crash.
Each runs in its own interpreter: the mixer is process-wide, and another test's pygame.init()
may have opened it already."""

from __future__ import annotations

import json
import subprocess
import sys
from array import array

import pytest

pytestmark = pytest.mark.arm64

pytest.importorskip("pygame")

PLAY = """
import json, os, sys
from pi_table.drivers.pygame_sound import PygameSound
from pi_table.ui.cues import cue_file

events = []
device = PygameSound(driver=sys.argv[1], retry_s=3600)
device.start(events.append)
for name in sys.argv[2:]:
    device.play((cue_file(name, "en"),), 1.0)
idle = device.wait_idle(timeout=10)
device.close()
print(json.dumps({"idle": idle, "dropped": device.dropped, "healthy": device.healthy,
                  "events": [[e.device, e.ok, str(e.detail)] for e in events]}))
"""


def play(tmp_path, driver: str, *names: str) -> dict:
    env = {"SDL_DISKAUDIOFILE": str(tmp_path / "out.raw"), "PYGAME_HIDE_SUPPORT_PROMPT": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", PLAY, driver, *names], capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_disk_driver_writes_what_was_played_and_it_is_not_silent(tmp_path):
    result = play(tmp_path, "disk", "turn", "reveal-red")
    assert result["idle"] and result["healthy"] and result["dropped"] == 0
    assert result["events"] == [["sound", True, ""]]
    samples = array("h", (tmp_path / "out.raw").read_bytes())  # the mixer's format: signed 16-bit, stereo
    assert len(samples) > 22_050  # at least half a second of stereo
    assert max(abs(x) for x in samples) > 8000, "the mixer wrote silence"


def test_a_missing_audio_device_is_a_warning_and_play_goes_on_at_once(tmp_path):
    result = play(tmp_path, "no-such-audio-driver", *["turn"] * 20)
    assert result["healthy"] is False
    [(device, ok, detail)] = result["events"]
    assert (device, ok) == ("sound", False) and "check the speaker" in detail.lower()
    assert result["idle"]  # every cue dropped or let go; that play never waits: tests/test_sound.py
