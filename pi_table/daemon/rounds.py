"""A job the table comes back to by itself on a thread of its own: a while after its start (a
table that keeps restarting does not do it each time), then every ``every_s`` until it stops.
The nightly backup (``backup.Nightly``) and the security updates' schedule (``security``)."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import ClassVar

from ..worker import Worker

log = logging.getLogger("pi_table.daemon")


class Rounds(ABC):
    """``tick`` a first time ``first_s`` after ``start``, then every ``every_s``, until ``stop``;
    a tick that fails is logged, and the next round comes all the same: a round is never worth
    the table's play, nor the rounds after it."""

    thread: ClassVar[str]  # the thread's name
    what: ClassVar[str]  # the job, as the log names it
    first_s: ClassVar[float]

    def __init__(self, every_s: float) -> None:
        self.every_s = every_s
        self._worker = Worker(self.thread)
        self.stopped = self._worker.stopping

    @abstractmethod
    def tick(self) -> object:
        """Do what is due now, if anything."""

    def start(self) -> None:
        self._worker.start(self.run)

    def run(self) -> None:
        self.stopped.wait(self.first_s)
        while not self.stopped.is_set():
            try:
                self.tick()
            except Exception:
                log.exception("%s failed; it looks again in %.0f s", self.what, self.every_s)
            self.stopped.wait(self.every_s)

    def stop(self) -> None:
        self._worker.stop()
