"""A Mosquitto of one's own on loopback: for the tests, the fleet benchmark, and trying the
dashboard on a laptop. Debian's ``mosquitto`` package; nothing here is used on a table."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

from ..errors import PiTableError
from ..sim.systemd import stop_as_systemd

MOSQUITTO = ("mosquitto", "/usr/sbin/mosquitto")  # Debian puts it in sbin, off a user's PATH


def mosquitto() -> str | None:
    """The broker's program, or None when Mosquitto is not installed."""
    return next((found for name in MOSQUITTO if (found := shutil.which(name))), None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]  # an IPv4 socket's address is (host, port)
        return port


class BrokerFailed(PiTableError, RuntimeError):
    """Mosquitto could not be started here: not installed, exited, or took no connection."""


class LocalBroker:
    """Mosquitto on 127.0.0.1:``port`` with ``settings`` (mosquitto.conf lines) after the
    listener; anonymous clients allowed unless the settings say otherwise. It keeps its
    sessions in ``folder`` across a ``stop`` and ``start``, as a café's broker does."""

    def __init__(self, folder: Path, settings: str = "", port: int | None = None) -> None:
        program = mosquitto()
        if program is None:
            raise BrokerFailed("mosquitto is not installed (Debian: apt install mosquitto)")
        self.program, self.folder, self.port = program, folder, port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.conf = folder / "mosquitto.conf"
        anonymous = "" if "allow_anonymous" in settings else "allow_anonymous true\n"
        user = pwd.getpwuid(os.getuid()).pw_name  # started by root, it would become user mosquitto, barred from folder
        self.conf.write_text(
            f"user {user}\nlistener {self.port} 127.0.0.1\n{anonymous}persistence true\n"
            f"persistence_location {folder}/\nlog_dest file {folder}/mosquitto.log\n{settings}")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        """Start it and wait until it takes connections."""
        self.process = subprocess.Popen([self.program, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                raise BrokerFailed(f"mosquitto exited with {self.process.returncode}: {error.strip()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise BrokerFailed(f"mosquitto took no connection on port {self.port} within {timeout} s") from None
                time.sleep(0.02)

    def stop(self) -> None:
        """Stop it as systemd does (SIGTERM: it saves its sessions first)."""
        if self.process is not None:
            stop_as_systemd(self.process, 10)
        self.process = None

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""
