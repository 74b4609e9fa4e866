"""A table a person runs for themselves (``pi-table run --hal sim`` without ``--config``):
its games and socket in that user's own folders (XDG), never the service's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from helpers import wait_for


def test_the_simulated_table_keeps_its_state_in_the_users_folders(tmp_path):
    environ = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state"),
               "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    (tmp_path / "run").mkdir(mode=0o700)
    service = [Path("/var/lib/pi-table"), Path("/run/pi-table")]
    before = {path: path.exists() for path in service}
    table = subprocess.Popen([sys.executable, "-m", "pi_table", "run", "--hal", "sim"], cwd=tmp_path, env=environ,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        socket = tmp_path / "run" / "pi-table" / "control.sock"
        wait_for(socket.exists, "the table's socket in XDG_RUNTIME_DIR", 30)
        status = subprocess.run([sys.executable, "-m", "pi_table", "status", "--json"], cwd=tmp_path, env=environ,
                                capture_output=True, text=True, timeout=30)
        assert status.returncode == 0, status.stderr
        journals = list((tmp_path / "state" / "pi-table" / "journal").glob("*.jsonl"))
        assert [journal.stem for journal in journals] == [__import__("json").loads(status.stdout)["game_id"]]
    finally:
        table.send_signal(signal.SIGTERM)
        assert table.wait(timeout=20) == 0, table.stderr.read()
    assert {path: path.exists() for path in service} == before


def test_without_xdg_folders_the_state_goes_under_home(tmp_path):
    from pi_table.config import user_paths

    paths = user_paths({"HOME": str(tmp_path)})
    assert paths.journal_dir == tmp_path / ".local" / "state" / "pi-table" / "journal"
    assert paths.socket == tmp_path / ".local" / "state" / "pi-table" / "control.sock"
    assert paths.socket_group is None
    relative = user_paths({"HOME": str(tmp_path), "XDG_STATE_HOME": "state", "XDG_RUNTIME_DIR": "run"})
    assert relative == paths  # the XDG spec: relative paths are ignored
