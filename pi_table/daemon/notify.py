"""systemd's notify protocol, spoken directly: a datagram to ``$NOTIFY_SOCKET``.

``READY=1`` once the table is up (or up degraded), ``WATCHDOG=1`` from the table loop itself
(so a stuck loop, not just a dead process, gets the service restarted), ``STOPPING=1`` on the
way out. Without ``NOTIFY_SOCKET`` (not under systemd) every call does nothing.

A table whose loop runs is not yet a well table: the threads it needs besides (the control
socket's, the companion's, the touch reader's) may have died or stuck. ``watchdog(sickness)``
pings only while ``sickness()`` names nothing, so systemd restarts a sick table (which resumes
its game from the journal); ``worker.thread_ended`` and ``LoopHeartbeat`` are the checks it is made of.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..worker import thread_ended

if TYPE_CHECKING:  # the companion's loop is asyncio's; the table itself never loads asyncio
    import asyncio

log = logging.getLogger("pi_table.daemon")
STALL_S = 5.0  # a thread that has not come round (or a loop that has not run a callback) for this long is stuck
Sickness = Callable[[], "str | None"]
"""``sickness()``: None while all is well, else what is wrong, in words."""


class Notifier:
    def __init__(self, environ: Mapping[str, str] = os.environ, clock: Callable[[], float] = time.monotonic) -> None:
        path = environ.get("NOTIFY_SOCKET", "")
        self.address = "\0" + path[1:] if path.startswith("@") else path  # "@name": the abstract namespace
        usec = environ.get("WATCHDOG_USEC", "")
        self.watchdog_every = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 else None
        self.clock = clock
        self._last_ping = float("-inf")
        self._socket: socket.socket | None = None
        self._sick: str | None = None  # what was last found wrong, said once

    @property
    def active(self) -> bool:
        return bool(self.address)

    def send(self, *fields: str) -> None:
        if not self.address:
            return
        if self._socket is None:
            # non-blocking: a notify queue nobody reads must not hold up the table loop
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK)
        try:
            self._socket.sendto("\n".join(fields).encode(), self.address)
        except OSError:  # systemd went away, the socket is gone or its queue is full: nothing to tell
            pass

    def ready(self, status: str) -> None:
        self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def watchdog(self, sickness: Sickness | None = None) -> None:
        """Ping at half the watchdog interval systemd asked for, unless ``sickness()`` (asked
        only when a ping is due) names something wrong: then no ping until it is well again,
        said once in the log and systemd's status. Cheap to call more often."""
        if self.watchdog_every is None:
            return
        now = self.clock()
        if now - self._last_ping < self.watchdog_every:
            return
        sick = sickness() if sickness is not None else None
        if sick != self._sick:
            if sick:
                log.error("%s: no more watchdog pings, so systemd restarts the table", sick)
                self.status(f"sick: {sick}")
            else:
                log.warning("well again (%s no longer): the watchdog pings resume", self._sick)
            self._sick = sick
        if sick:
            return
        self._last_ping = now
        self.send("WATCHDOG=1")

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


class LoopHeartbeat:
    """Whether an asyncio loop in another thread still runs its callbacks: ``check`` sends it a
    beat (a callback) and finds it stuck when a beat stays unanswered for ``stall_s``."""

    def __init__(self, what: str, stall_s: float = STALL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.stall_s = stall_s
        self.clock = clock
        self._asked: float | None = None  # when the unanswered beat was sent

    def check(self, loop: asyncio.AbstractEventLoop | None, thread: threading.Thread | None) -> str | None:
        ended = thread_ended(thread, self.what)
        if ended or loop is None:
            return ended
        now = self.clock()
        asked = self._asked
        if asked is None:
            self._asked = now
            try:
                loop.call_soon_threadsafe(self._answered)
            except RuntimeError:  # closed
                return f"{self.what}'s event loop is closed"
        elif now - asked > self.stall_s:
            return f"{self.what} has not run for {now - asked:.0f} s"
        return None

    def _answered(self) -> None:
        self._asked = None
