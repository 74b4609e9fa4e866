"""The service's log as journald files it: each line with its syslog priority, the stop said."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys

from pi_table.daemon.logs import PrioritisedFormatter, to_journal

from helpers import wait_for


def test_under_systemd_each_line_carries_its_priority_and_the_stop_is_logged(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[web]\nenabled = false\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                      'socket_group = ""\n[touch]\nport = "/nonexistent/ttyACM7"\n')
    with open(tmp_path / "stderr", "w+b") as log:
        st = os.fstat(log.fileno())  # systemd names the stream it connected, as DEVICE:INODE
        environ = {**os.environ, "JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}
        daemon = subprocess.Popen([sys.executable, "-m", "pi_table", "run", "--hal", "sim", "--touch-port",
                                   "/nonexistent/ttyACM7", "--config", str(config)],
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
