"""An aiohttp server on an asyncio loop in a thread of its own: the companion's, the fleet
dashboard's.

The table's threads (and the dashboard's MQTT client) never touch the loop but through ``call``.
``start`` opens the server on its loop and raises, in the caller's thread, what opening it
raised (a port that is taken); ``stop`` ends what is under way, closes the server and waits a
bounded time for its thread. ``serving()`` hands a watchdog the loop and its thread, to find a
thread that has ended or a loop that no longer runs its callbacks.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable

from aiohttp import web

log = logging.getLogger("pi_table.web")
SHUTDOWN_S = 1.0  # what the handlers still running at a stop are given to finish
STOP_S = 5.0  # how long a stop waits for the server's thread


class ServerThread:
    """A subclass opens its application in ``_open`` (on the loop; ``_set_up`` sets it up) and
    closes what it started besides in ``_close``; ``name`` names the thread."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    def start(self) -> None:
        """Serve from a thread of its own; raises what ``_open`` raised (OSError: the port is
        taken) before returning, and the server stays stopped."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            try:
                loop.run_until_complete(self._open())
            except BaseException as e:  # noqa: BLE001 (handed to start()'s caller)
                failure.append(e)
                loop.run_until_complete(self._clean_up())
                loop.close()
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._close())
            loop.run_until_complete(self._clean_up())
            loop.close()

        self._loop = loop
        self._thread = threading.Thread(target=serve, name=self._name, daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._loop = self._thread = None
            raise failure[0]

    def stop(self) -> None:
        """Stop serving: ``_close``, then the application's shutdown (its handlers given
        ``SHUTDOWN_S``), waited for ``STOP_S`` at most. Nothing when it is not serving."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._loop = self._thread = None  # from now on, ``call`` does nothing
        try:
            loop.call_soon_threadsafe(loop.stop)
        except RuntimeError:  # its loop has closed: the thread has ended
            return
        thread.join(timeout=STOP_S)
        if thread.is_alive():
            log.warning("%s did not stop within %g s: left to end with the process", self._name, STOP_S)

    def serve_until_signalled(self) -> None:
        """A command's own server (``pi-table fleet``, ``pi-table league``), already started:
        served until SIGTERM or SIGINT, then stopped, the signals' handlers as they were before."""
        stop = threading.Event()
        previous = {sig: signal.signal(sig, lambda number, frame: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            stop.wait()
        finally:
            self.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def call(self, fn: Callable[..., object], *args: object) -> bool:
        """Have the server's loop call ``fn(*args)`` soon; safe from any thread. False when it
        is not serving (``fn`` is not called)."""
        loop = self._loop
        if loop is None:
            return False
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # closed meanwhile
            return False
        return True

    def serving(self) -> tuple[asyncio.AbstractEventLoop | None, threading.Thread | None]:
        """The loop and its thread while it serves, else (None, None): what a watchdog's
        heartbeat (``daemon.notify.LoopHeartbeat.check``) looks at."""
        return self._loop, self._thread

    async def _set_up(self, app: web.Application) -> web.AppRunner:
        """``app``, set up to be served as every server here is: no signal handlers (the
        process has its own), no access log, and a bounded shutdown. The caller listens."""
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=SHUTDOWN_S, access_log=None)
        await self._runner.setup()
        return self._runner

    async def _open(self) -> None:
        raise NotImplementedError

    async def _close(self) -> None:
        """What the subclass started besides its application (tasks, its own listener)."""

    async def _clean_up(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

