"""The running table's side of a trial (``pi_table.config.trial``): after a start on changed
settings, it is watched until it is healthy, then the settings are kept; if it is not healthy
by the deadline, or fails in a way that waiting cannot mend, they are rolled back and the table
restarts on the last good file.

Healthy is what a café needs of it: the table loop answering, the phones' pages and the staff
page answering over the network (when [web] serves them), on every address the staff page was
reached on to make the change too (not only over loopback: a table that listens on 127.0.0.1
alone answers there and nowhere else), and every device that worked before the change working
again (a board that was already unplugged does not count against it).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import trial
from ..engine.phrase import Phrase, Text

if TYPE_CHECKING:
    import http.client

log = logging.getLogger("pi_table.daemon")
PERIOD_S = 0.5
PAGES = ("/", "/staff")  # a phone's way in, and the staff's
ASK_S = 5.0  # one page asked of the companion at most this long
STEADY_VARIABLE = "PI_TABLE_TRIAL_STEADY_S"


@dataclass(frozen=True, slots=True)
class Health:
    """The table as a trial sees it: healthy (no ``why``), or why not, and whether waiting may mend it."""

    why: Text | None = None
    final: bool = False


def steady_s(environ: Mapping[str, str] = os.environ) -> float:
    """How long a trial must stay healthy to be kept: ``trial.STEADY_S``, or the seconds
    ``PI_TABLE_TRIAL_STEADY_S`` names (the tests' table, restarted many times, waits less)."""
    given = environ.get(STEADY_VARIABLE)
    if given is None:
        return trial.STEADY_S
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        log.warning("%s is %r, expected a number of seconds: a trial is kept once healthy for %g s",
                    STEADY_VARIABLE, given, trial.STEADY_S)
        return trial.STEADY_S
    return seconds


class TrialWatch:
    """Watches ``check`` every ``period_s`` from the start: keeps the trial of the file ``path``
    once healthy without a break for ``steady_s`` (a start that dies just after its first good
    check proves nothing); rolls it back and calls ``restart`` when a check is final, or is not
    healthy once ``deadline_s`` has passed. A stop asked for before then (``stop(clean=True)``)
    gives the trial its start back (``paused``). ``keep``, ``roll_back`` (with why) and ``paused``
    are the configuration file's by default; a restored backup brings its own (``backup.keep``,
    ``backup.roll_back_later``, ``backup.paused``). ``clock`` is the monotonic clock, which tests replace."""

    def __init__(self, path: Path, under_trial: trial.Trial, check: Callable[[], Health], restart: Callable[[], object],
                 deadline_s: float = trial.DEADLINE_S, period_s: float = PERIOD_S,
                 clock: Callable[[], float] = time.monotonic, keep: Callable[[], object] | None = None,
                 roll_back: Callable[[Text], object] | None = None, steady_s: float = trial.STEADY_S,
                 paused: Callable[[], object] | None = None) -> None:
        self.path, self.trial, self.check, self.restart = path, under_trial, check, restart
        self.deadline_s, self.period_s, self.clock, self.steady_s = deadline_s, period_s, clock, steady_s
        self.keep = keep or (lambda: trial.keep(path))
        self.roll_back = roll_back or (lambda why: trial.roll_back(path, under_trial, why))
        self.paused = paused or (lambda: trial.paused(path))
        self.stopped = threading.Event()
        self.outcome: str | None = None  # "kept", "rolled back" or "paused", once decided
        self._deciding = threading.Lock()  # one verdict: the watch's, or a clean stop's before it
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="trial", daemon=True)
        self._thread.start()

    def run(self) -> None:
        deadline = self.clock() + self.deadline_s
        healthy_since: float | None = None
        while not self.stopped.is_set():
            health = self.check()
            if health.why is None:
                now = self.clock()
                healthy_since = now if healthy_since is None else healthy_since
                if now - healthy_since >= self.steady_s:
                    self._decide("kept", self.keep)
                    return
                self.stopped.wait(self.period_s)
                continue
            healthy_since = None
            if health.final or self.clock() >= deadline:
                why = health.why if health.final else Phrase.of("not healthy {seconds} s after the start: {why}",
                                                               seconds=round(self.deadline_s), why=health.why)
                if self._decide("rolled back", functools.partial(self.roll_back, why)):
                    self.restart()
                return
            self.stopped.wait(self.period_s)

    def _decide(self, outcome: str, act: Callable[[], object]) -> bool:
        """``act`` and note ``outcome``, unless the trial has its verdict already."""
        with self._deciding:
            if self.outcome is not None:
                return False
            act()
            self.outcome = outcome
            return True

    def stop(self, clean: bool = False) -> None:
        """The table is stopping: the trial is decided by the next start (a second start that is
        not kept rolls it back), not by a check of a table half closed. A ``clean`` stop, asked
        for, is no death: the trial gets its start back, and waits for its verdict across it."""
        self.stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=ASK_S * len(PAGES) + 1)
        if clean:
            self._decide("paused", self.paused)


def pages_answer(port: int, host: str, tls: bool) -> Health:
    """Whether the companion's pages answer on this machine at ``host`` (each of ``PAGES`` with
    a page, not an error), or why not: final when the address refuses the connection (the
    companion is open, and does not listen there). The wildcard addresses are asked over
    loopback, as a phone asks over the Wi-Fi."""
    import http.client  # once the table is up: a start does without them
    import ssl

    address = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    for page in PAGES:
        connection: http.client.HTTPConnection
        if tls:  # its own certificate, for a name phones use: whether it answers is the question here
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
            connection = http.client.HTTPSConnection(address, port, timeout=ASK_S, context=context)
        else:
            connection = http.client.HTTPConnection(address, port, timeout=ASK_S)
        try:
            connection.request("GET", page)
            status = connection.getresponse().status
        except (OSError, http.client.HTTPException) as e:
            return Health(Phrase.of("{page} does not answer on port {port} ({error})", page=page, port=port,
                                    error=getattr(e, "strerror", None) or str(e) or type(e).__name__),
                          final=isinstance(e, ConnectionRefusedError))
        finally:
            connection.close()
        if status != 200:
            return Health(Phrase.of("{page} answers {status} on port {port}", page=page, status=status, port=port))
    return Health()
