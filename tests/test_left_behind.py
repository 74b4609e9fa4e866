"""The suite's check that no test leaves a process behind (tests/left_behind.py), run on tests of
its own in a pytest of their own: a child left running, a daemon in a session of its own that its
parent left, and a module's fixture that does not end its process each fail the test they began
in, named, and are ended; what ends in time, and a module's process ended with its module, pass."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from left_behind import GRACE_VARIABLE, _running

from helpers import ROOT

LEAKS = '''
import subprocess, time
import pytest

def test_ends_its_child():
    child = subprocess.Popen(["sleep", "61"])
    child.terminate()

def test_leaves_a_child():
    subprocess.Popen(["sleep", "62"])

def test_leaves_a_daemon_of_another_session():
    subprocess.run(["sh", "-c", "setsid sleep 63 >/dev/null 2>&1 &"], check=True)

@pytest.fixture(scope="module")
def served():
    server = subprocess.Popen(["sleep", "64"])
    yield server
    server.terminate()

@pytest.fixture(scope="module")
def forgotten():
    yield subprocess.Popen(["sleep", "65"])

def test_uses_the_modules_server(served):
    assert served.poll() is None

def test_uses_a_modules_forgotten_process(forgotten):
    assert forgotten.poll() is None

def test_the_module_goes_on(served):
    assert served.poll() is None
'''


def test_a_process_left_running_fails_the_test_it_began_in_and_is_ended(tmp_path):
    (tmp_path / "test_leaks.py").write_text(LEAKS)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "left_behind",
                          "-p", "no:randomly", "test_leaks.py"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "tests"), "COLUMNS": "1000",
                              GRACE_VARIABLE: "0.2"})
    said = run.stdout
    assert run.returncode == 1 and "6 passed, 3 errors" in said, said
    errors = [line for line in said.splitlines() if line.startswith("ERROR ")]
    assert len(errors) == 3, said
    assert "test_leaves_a_child - Failed: 1 process(es) left running" in errors[0] and "sleep 62" in errors[0]
    assert "test_leaves_a_daemon_of_another_session" in errors[1] and "sleep 63" in errors[1]
    assert "test_the_module_goes_on" in errors[2] and "sleep 65" in errors[2] \
        and "begun in test_leaks.py::test_uses_a_modules_forgotten_process" in errors[2] and "sleep 64" not in errors[2]
    leaked = [int(pid) for line in errors for pid in [line.split("now killed: ")[1].split(" ")[0]]]
    time.sleep(0.2)
    assert not any(map(_running, leaked)), leaked
