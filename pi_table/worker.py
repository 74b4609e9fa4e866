"""A part's own thread, and the event that asks it to stop.

The touch board's link, the board's emulator, the set-up's watch and the table's rounds each run
one loop on a thread of their own: ``start`` begins it, the loop looks at ``stopping`` (or waits
on it, which wakes at once on ``stop``), and ``stop`` sets it and waits a bounded time for the loop
to end. The thread is a daemon's, so a loop that does not end never holds the table's exit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


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

    def ended(self) -> bool:
        """Whether the loop's thread, once started, has ended: the part no longer works."""
        return self.thread is not None and self.thread.ident is not None and not self.thread.is_alive()

    def stop(self) -> None:
        """Ask the loop to end and wait for it; from the loop's own thread, only ask."""
        self.stopping.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(timeout=self.join_s)
