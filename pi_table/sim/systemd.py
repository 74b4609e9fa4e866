"""A stand-in for systemd's side of a ``Type=notify`` service, for tests and benchmarks.

It starts ``pi-table run`` in a child process with ``NOTIFY_SOCKET`` pointing at a datagram
socket of its own, and hears what the daemon tells systemd (``READY=1``, ``WATCHDOG=1``,
``STOPPING=1``), so the real notification path runs exactly as under systemd. As journald
does, it takes the daemon's output through a pipe; ``limit_fsize`` is the unit's
``LimitFSIZE=``, the largest file the daemon may write (a disk that fills up, for tests).
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ..errors import PiTableError


class ServiceFailed(PiTableError, RuntimeError):
    """The daemon exited, or said nothing in time; the message has the end of its log."""


def stop_as_systemd(process: subprocess.Popen[Any], timeout: float) -> None:
    """Stop ``process`` as ``systemctl stop`` does: SIGTERM (it saves what it must first), and
    SIGKILL if it has not ended ``timeout`` seconds later."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class FakeSystemd:
    def __init__(
        self, args: list[str], watchdog_s: float = 0.0, log: Path | None = None, limit_fsize: int | None = None
    ) -> None:
        self.args = args
        self.watchdog_s = watchdog_s
        self.limit_fsize = limit_fsize
        self._folder = tempfile.TemporaryDirectory(prefix="pi-table-notify-")
        self.address = os.path.join(self._folder.name, "notify")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.listener.bind(self.address)
        self.log = log or Path(self._folder.name) / "daemon.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.messages: list[tuple[float, dict[str, str]]] = []  # (when, fields) as they came

    def start(self, timeout: float = 10.0, phones: bool = True) -> float:
        """Start the daemon and wait for READY; the seconds it took. With ``phones``, wait too
        for the status that says how the phones' pages fared (they open after READY)."""
        env = dict(os.environ, NOTIFY_SOCKET=self.address, PYGAME_HIDE_SUPPORT_PROMPT="1")
        if self.watchdog_s:
            env["WATCHDOG_USEC"] = str(int(self.watchdog_s * 1e6))
        began = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pi_table", "run", *self.args], env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=self._limits if self.limit_fsize else None,
        )
        threading.Thread(target=self._keep_log, args=(self.process.stdout,), daemon=True).start()
        self.wait_for("READY", timeout)
        ready = time.monotonic() - began
        if phones:
            self.wait_for("STATUS", timeout, lambda status: "phones:" in status)
        return ready

    def _limits(self) -> None:
        """In the child, before it runs the daemon: the unit's LimitFSIZE=, when one is given."""
        if self.limit_fsize:
            resource.setrlimit(resource.RLIMIT_FSIZE, (self.limit_fsize, self.limit_fsize))

    def _keep_log(self, pipe: IO[bytes]) -> None:
        with pipe, open(self.log, "ab") as log:
            for line in pipe:
                log.write(line)
                log.flush()

    def wait_for(self, field: str, timeout: float, where: Callable[[str], bool] = lambda value: True) -> dict[str, str]:
        """The next message with ``field`` (READY, WATCHDOG, STOPPING...) whose value ``where`` accepts."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ServiceFailed(f"no {field}=1 from the daemon within {timeout} s\n{self.log_tail()}")
            self.listener.settimeout(min(left, 0.1))
            try:
                data = self.listener.recv(4096)
            except TimeoutError:
                if self.process is not None and self.process.poll() is not None:
                    raise ServiceFailed(
                        f"the daemon exited with status {self.process.returncode} before {field}=1\n{self.log_tail()}"
                    ) from None
                continue
            fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
            self.messages.append((time.monotonic(), fields))
            if field in fields and where(fields[field]):
                return fields

    def kill(self) -> None:
        """``kill -9``: no clean-up of any kind in the daemon."""
        process = self._started()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM, as ``systemctl stop`` sends; the exit status."""
        process = self._started()
        if process.poll() is None:
            process.terminate()
        return process.wait(timeout=timeout)

    def _started(self) -> subprocess.Popen[bytes]:
        if self.process is None:
            raise ServiceFailed("the daemon was never started (FakeSystemd.start)")
        return self.process

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()
        self.listener.close()
        self._folder.cleanup()
