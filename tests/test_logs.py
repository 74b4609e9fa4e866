"""The service's log as journald files it: each line with its syslog priority, the stop said."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys

from pi_table.daemon.logs import PrioritisedFormatter, to_journal

from helpers import wait_for
from helpers_machine import SYSTEMD_JOURNAL, fake_journalctl


def test_under_systemd_each_line_carries_its_priority_and_the_stop_is_logged(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[web]\nenabled = false\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                      'socket_group = ""\n[touch]\nport = "/dev/pi-table-no-ttyACM7"\n')
    with open(tmp_path / "stderr", "w+b") as log:
        st = os.fstat(log.fileno())  # systemd names the stream it connected, as DEVICE:INODE
        environ = {**os.environ, "JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}
        daemon = subprocess.Popen([sys.executable, "-m", "pi_table", "run", "--hal", "sim", "--touch-port",
                                   "/dev/pi-table-no-ttyACM7", "--config", str(config)],
                                  stdout=subprocess.DEVNULL, stderr=log, env=environ)
        try:
            wait_for(lambda: b"table up" in (tmp_path / "stderr").read_bytes(), "the daemon's start line", 20)
            daemon.send_signal(signal.SIGTERM)
            assert daemon.wait(timeout=10) == 0
        finally:
            daemon.kill()
        lines = (tmp_path / "stderr").read_text().splitlines()
    assert lines and all(line[:3] in ("<3>", "<4>", "<6>", "<7>") for line in lines), lines
    assert any(line.startswith("<3>") and "touch board not found" in line for line in lines)
    assert any(line.startswith("<6>") and "table up" in line for line in lines)
    assert lines[-1].startswith("<6>") and "stopped" in lines[-1]


def test_plain_lines_anywhere_else():
    record = logging.LogRecord("pi_table.x", logging.WARNING, __file__, 1, "two\nlines", None, None)
    assert PrioritisedFormatter("%(message)s").format(record) == "<4>two\n<4>lines"
    with open(os.devnull, "w") as stream:
        assert not to_journal(stream, {})
        assert not to_journal(stream, {"JOURNAL_STREAM": "1:2"})
        st = os.fstat(stream.fileno())
        assert to_journal(stream, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"})


# --- the journal read back for the staff page, across starts ---------------------------------------

def test_the_journal_is_read_by_time_range_across_starts(tmp_path):
    import json
    import time

    from pi_table.daemon import logs

    command = fake_journalctl(tmp_path, SYSTEMD_JOURNAL)
    lines = logs.journal(1767225000.4, 1767230000, "pi-table.service", command=str(command))
    assert json.loads((tmp_path / "args").read_text()) == [
        "--unit", "pi-table.service", "--output", "json", "--no-pager", "--quiet", "--lines", str(logs.JOURNAL_MOST),
        "--since=@1767225000", "--until=@1767230000"]
    stamp = lambda seconds: time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
    assert lines == [
        (logging.INFO, f"{stamp(1767225600)} ---- the service started ----"),
        (logging.INFO, f"{stamp(1767225600)} INFO pi_table.daemon: table up"),
        (logging.ERROR, f"{stamp(1767225660)} ERROR pi_table.daemon: it broke"),
        (logging.ERROR, f"{stamp(1767225660)} Traceback"),
        (logging.INFO, f"{stamp(1767229200)} ---- the service started ----"),
        (logging.WARNING, f"{stamp(1767229200)} WARN\ufffd"),
    ]
    assert json.loads((tmp_path / "args").read_text())[-1] == "--until=@1767230000"
    logs.journal(None, None, "pi-table.service", command=str(command))
    assert not [arg for arg in json.loads((tmp_path / "args").read_text()) if arg.startswith(("--since", "--until"))]
    refused = fake_journalctl(tmp_path, [], status=1)
    try:
        logs.journal(None, None, "pi-table.service", command=str(refused))
    except OSError as e:
        assert "permission denied" in str(e)
    else:
        raise AssertionError("a journal that cannot be read is said")


def test_the_unit_is_the_one_this_process_runs_in(tmp_path):
    from pi_table.daemon import logs

    cgroup = tmp_path / "cgroup"
    cgroup.write_text("0::/system.slice/pi-table.service\n")
    assert logs.own_unit(str(cgroup)) == "pi-table.service"
    cgroup.write_text("0::/user.slice/user-1000.slice/session-2.scope\n")
    assert logs.own_unit(str(cgroup)) == logs.UNIT
    assert logs.own_unit(str(tmp_path / "none")) == logs.UNIT
