"""A part's own thread, and the event that asks it to stop.

The touch board's link, the control socket, the board's emulator, the set-up's watch and the
table's rounds each run
one loop on a thread of their own: ``start`` begins it, the loop looks at ``stopping`` (or waits
on it, which wakes at once on ``stop``), and ``stop`` sets it and waits a bounded time for the loop
to end. The thread is a daemon's, so a loop that does not end never holds the table's exit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


def thread_ended(thread: threading.Thread | None, what: str) -> str | None:
    """Says that ``what`` has died when its thread has ended; a thread not started says nothing."""
    if thread is not None and thread.ident is not None and not thread.is_alive():
        return f"{what}'s thread has ended"
    return None


class Worker:
    """One loop on a named daemon thread: ``start(loop)``, then ``stop()`` waits ``join_s`` at most."""

    def __init__(self, name: str, join_s: float = 2.0) -> None:
        self.name = name
        self.join_s = join_s
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, loop: Callable[[], object]) -> None:
        self.thread = threading.Thread(target=loop, name=self.name, daemon=True)
        self.thread.start()

    def ended(self, what: str) -> str | None:
        """Says that ``what`` no longer works when the loop's thread, once started, has ended."""
        return thread_ended(self.thread, what)

    def stop(self) -> None:
        """Ask the loop to end and wait for it; from the loop's own thread, only ask."""
        self.stopping.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(timeout=self.join_s)
