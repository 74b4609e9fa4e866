"""systemd's notify protocol, spoken directly: a datagram to ``$NOTIFY_SOCKET``.

``READY=1`` once the table is up (or up degraded), ``WATCHDOG=1`` from the table loop itself
(so a stuck loop, not just a dead process, gets the service restarted), ``STOPPING=1`` on the
way out. Without ``NOTIFY_SOCKET`` (not under systemd) every call does nothing.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping


class Notifier:
    def __init__(self, environ: Mapping[str, str] = os.environ, clock: Callable[[], float] = time.monotonic) -> None:
        path = environ.get("NOTIFY_SOCKET", "")
        self.address = "\0" + path[1:] if path.startswith("@") else path  # "@name": the abstract namespace
        usec = environ.get("WATCHDOG_USEC", "")
        self.watchdog_every = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 else None
        self.clock = clock
        self._last_ping = float("-inf")
        self._socket: socket.socket | None = None

    @property
    def active(self) -> bool:
        return bool(self.address)

    def send(self, *fields: str) -> None:
        if not self.address:
            return
        if self._socket is None:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        try:
            self._socket.sendto("\n".join(fields).encode(), self.address)
        except OSError:  # systemd went away or the socket is gone: nothing to tell
            pass

    def ready(self, status: str) -> None:
        self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def watchdog(self) -> None:
        """Ping at half the watchdog interval systemd asked for; cheap to call more often."""
        if self.watchdog_every is None:
            return
        now = self.clock()
        if now - self._last_ping >= self.watchdog_every:
            self._last_ping = now
            self.send("WATCHDOG=1")

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
