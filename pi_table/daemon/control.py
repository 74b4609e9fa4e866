"""The control socket: a local UNIX socket the ``pi-table`` commands talk to.

One JSON object per line each way: a request ``{"command": "status"}`` and its answer
``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``. The socket is readable and
writable by its owner and the service's group only (0660). It never serves the key: the
spymaster view is not among its answers.

No client can take it away from the others. One thread reads every connection at once (a
selector), each within a deadline for its whole request line, and hands whole lines to a few
answering threads; a line too long, nested too deep, not JSON or simply late is refused in
words, on its own connection. Connections beyond ``max_connections`` are refused at once,
and a failing ``accept`` (no file descriptors left: ``EMFILE``) is retried with backoff. The
serving thread ends only by ``stop()``; ``sickness()`` tells the watchdog if it has not.
"""

from __future__ import annotations

import grp
import json
import logging
import os
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.phrase import Phrase, Text
from ..errors import PiTableError
from ..files import TooDeep, read_json
from ..hal.events import NotStarted
from ..worker import Worker
from .notify import STALL_S

if TYPE_CHECKING:  # made at the first request: its import is a millisecond of every start
    from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger("pi_table.control")
MAX_REQUEST = 4096  # bytes in a request line
MAX_NESTING = 8  # brackets inside brackets in a request; a command needs 1
MAX_ANSWER = 4 << 20  # bytes in an answer line, for the client: the history of every game kept is one answer
MAX_CONNECTIONS = 256  # open at once (a file descriptor each); more are refused in words
BACKLOG = 256  # connections the kernel holds until the server takes them (a burst of clients)
READ_DEADLINE_S = 2.0  # for a whole request line, however it trickles in
SEND_TIMEOUT_S = 2.0
ANSWERERS = 4  # threads answering whole requests (each waits on the table loop in turn)
WAKE_S = 0.5  # the serving thread comes round at least this often
ACCEPT_RETRY_S = 0.05  # the first wait after a failed accept; it doubles up to ACCEPT_RETRY_MAX_S
ACCEPT_RETRY_MAX_S = 1.0


class SocketTaken(PiTableError, OSError):
    """Another table answers on the control socket's path: this one leaves it to that one (the
    daemon plays on without its socket, saying why)."""


class ControlError(PiTableError, RuntimeError):
    """The daemon could not be reached or did not answer properly. ``said`` says why: a Phrase,
    said in the reader's language, or the daemon's own words (already in the language asked)."""

    def __init__(self, said: Text) -> None:
        self.said = said
        super().__init__(str(said))


class Refused(ControlError):
    """The daemon answered, and refused: the message is its reason."""


class NotAllowed(ControlError):
    """The socket is there but this user may not use it: not in the service's group."""


@dataclass
class _Reading:
    """A connection whose request line is still coming."""

    deadline: float
    data: bytes = b""


class ControlServer:
    """Serves requests on ``path``; ``handle(request) -> answer`` runs in an answering thread
    and must itself hand anything that touches the game to the table loop. ``clock`` times the
    deadlines and the backoff (tests move it by hand); the waits themselves are at most WAKE_S."""

    def __init__(
        self, path: Path, handle: Callable[[dict[str, Any]], dict[str, Any]], group: str | None = None,
        max_connections: int = MAX_CONNECTIONS, deadline_s: float = READ_DEADLINE_S, stall_s: float = STALL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self.handle = handle
        self.group = group
        self.max_connections = max_connections
        self.deadline_s = deadline_s
        self.stall_s = stall_s
        self._socket: socket.socket | None = None
        self._selector: selectors.BaseSelector | None = None
        self._answerers: ThreadPoolExecutor | None = None
        self._worker = Worker("control-socket")
        self._stopping = self._worker.stopping
        self._bound = False  # only a socket this server made is removed by stop()
        self._reading: dict[socket.socket, _Reading] = {}  # the serving thread's alone
        self._open = 0  # connections not yet closed, reading or being answered
        self._open_lock = threading.Lock()
        self._came_round = 0.0  # when the serving thread last came round
        self._accept_failures = 0
        self._accept_again: float | None = None  # when to listen again after a failed accept

    def _give_group(self, path: Path) -> None:
        """The staff's group on the socket, where the configuration names one."""
        if self.group:
            try:
                gid = grp.getgrnam(self.group).gr_gid
                if path.stat().st_gid != gid:  # under the unit it is already: chown is filtered there
                    os.chown(path, -1, gid)
            except (KeyError, PermissionError) as e:
                log.warning("control socket %s keeps its group: %s", self.path, e)

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_socket():
            if _answers(self.path):
                raise SocketTaken(f"another table already answers on {self.path}")
            self.path.unlink()  # left by a daemon that was killed
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        # bound under a name of its own, and renamed into place once it listens: a client that
        # finds the socket is never refused as though the table had stopped
        binding = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        binding.unlink(missing_ok=True)
        old_umask = os.umask(0o117)  # born 0660: no moment in which others may connect
        try:
            server.bind(str(binding))
            self._give_group(binding)
            server.listen(BACKLOG)
            os.replace(binding, self.path)
        except OSError:
            server.close()
            binding.unlink(missing_ok=True)
            raise
        finally:
            os.umask(old_umask)
        server.setblocking(False)
        self._socket = server
        self._bound = True
        self._selector = selectors.DefaultSelector()
        self._selector.register(server, selectors.EVENT_READ)
        self._came_round = self._clock()
        self._worker.start(self._serve)

    def stop(self) -> None:
        self._stopping.set()
        if self._socket is not None:
            try:
                self._socket.shutdown(socket.SHUT_RDWR)  # wakes the serving thread's select
            except OSError:
                pass
        self._worker.stop()
        for connection in list(self._reading):
            self._stop_reading(connection)
            self._close(connection)
        if self._selector is not None:
            self._selector.close()
        server, self._socket = self._socket, None
        if server is not None:
            server.close()
        if self._answerers is not None:
            self._answerers.shutdown(wait=False)
        if self._bound:
            self.path.unlink(missing_ok=True)
            self._bound = False

    def sickness(self) -> str | None:
        """Why the socket is not being served (its thread ended or stuck); None while it is,
        and when it was never started or has been stopped."""
        if self._worker.thread is None or self._stopping.is_set():
            return None
        ended = self._worker.ended("the control socket")
        if ended:
            return ended
        late = self._clock() - self._came_round
        if late > self.stall_s:
            return f"the control socket's thread has been stuck for {late:.0f} s"
        return None

    # --- the serving thread

    def _started(self) -> tuple[socket.socket, selectors.BaseSelector]:
        """The socket and selector start() made, which the serving thread uses until stop()
        closes them."""
        if self._socket is None or self._selector is None:
            raise NotStarted(f"the control socket {self.path} is not started")
        return self._socket, self._selector

    def _answering(self) -> ThreadPoolExecutor:
        """The threads that answer whole requests, made by the serving thread at the first."""
        if self._answerers is None:
            from concurrent.futures import ThreadPoolExecutor

            self._answerers = ThreadPoolExecutor(ANSWERERS, thread_name_prefix="control-answer")
        return self._answerers

    def _serve(self) -> None:
        while not self._stopping.is_set():
            self._came_round = self._clock()
            try:
                self._turn()
            except Exception:  # a fault of this code must not take the socket away: said, and served on
                log.exception("the control socket met an unexpected error; it serves on")
                self._stopping.wait(WAKE_S)

    def _turn(self) -> None:
        """Wait for what comes (at most until the next deadline), serve it, drop the late."""
        server, selector = self._started()
        now = self._clock()
        if self._accept_again is not None and now >= self._accept_again:
            self._accept_again = None
            selector.register(server, selectors.EVENT_READ)
        wakes = [now + WAKE_S, *(reading.deadline for reading in self._reading.values())]
        if self._accept_again is not None:
            wakes.append(self._accept_again)
        for key, _ in selector.select(max(0.0, min(wakes) - now)):
            if self._stopping.is_set():
                return
            if key.fileobj is server:
                self._accept()
            elif isinstance(key.fileobj, socket.socket):  # a connection: only sockets are registered
                self._read(key.fileobj)
        now = self._clock()
        for connection, reading in list(self._reading.items()):
            if now >= reading.deadline:
                self._refuse(connection, f"no whole request within {self.deadline_s:g} s: a request is one JSON "
                                         "object on one line, such as {\"command\": \"status\"}")

    def _accept(self) -> None:
        """Take the connections waiting, each refused at once when too many are open."""
        server, selector = self._started()
        for _ in range(BACKLOG):
            try:
                connection, _ = server.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:  # EMFILE, ENFILE, ENOBUFS...: the connection waits in the queue
                self._back_off(e)
                return
            if self._accept_failures:
                log.warning("the control socket accepts connections again, after %d failed attempts",
                            self._accept_failures)
                self._accept_failures = 0
            connection.setblocking(False)
            with self._open_lock:
                full = self._open >= self.max_connections
                self._open += 1
            if full:
                self._refuse(connection, f"the table is answering {self.max_connections} requests at once: "
                                         "try again in a moment")
                continue
            self._reading[connection] = _Reading(self._clock() + self.deadline_s)
            selector.register(connection, selectors.EVENT_READ)

    def _back_off(self, error: OSError) -> None:
        """Stop listening for a while (the waiting connection would wake us at once, again and
        again); the wait doubles while accept keeps failing."""
        self._accept_failures += 1
        wait = min(ACCEPT_RETRY_S * 2 ** (self._accept_failures - 1), ACCEPT_RETRY_MAX_S)
        if self._accept_failures == 1:
            log.warning("the control socket cannot accept a connection (%s): trying again every %g s at most",
                        error.strerror or error, ACCEPT_RETRY_MAX_S)
        server, selector = self._started()
        selector.unregister(server)
        self._accept_again = self._clock() + wait

    def _read(self, connection: socket.socket) -> None:
        """What has come of a request; a whole line (or the client's end) goes to be answered."""
        reading = self._reading[connection]
        try:
            chunk = connection.recv(MAX_REQUEST + 1 - len(reading.data))
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            log.info("control client went away: %s", e)
            self._stop_reading(connection)
            self._close(connection)
            return
        reading.data += chunk
        line, newline, _ = reading.data.partition(b"\n")
        if len(line) > MAX_REQUEST:
            self._refuse(connection, f"a request is one line of at most {MAX_REQUEST} bytes")
        elif newline or not chunk:
            self._stop_reading(connection)
            if line.strip() and not self._stopping.is_set():  # stopping: no pool made that stop() would not see
                self._answering().submit(self._answer_on, connection, line)
            else:  # connected and left (a probe for a running table), or the table is stopping
                self._close(connection)

    def _refuse(self, connection: socket.socket, why: str) -> None:
        """Say no in one line, if the client can take it now, and hang up."""
        self._stop_reading(connection)
        try:
            connection.send((json.dumps({"ok": False, "error": why}) + "\n").encode())
        except OSError:
            pass
        self._close(connection)

    def _stop_reading(self, connection: socket.socket) -> None:
        if self._reading.pop(connection, None) is not None:
            self._started()[1].unregister(connection)

    def _close(self, connection: socket.socket) -> None:
        """Close a connection and free its place; from any thread."""
        connection.close()
        with self._open_lock:
            self._open -= 1

    # --- the answering threads

    def _answer_on(self, connection: socket.socket, line: bytes) -> None:
        try:
            data = (json.dumps(self._answer(line)) + "\n").encode()
        except Exception as e:  # an answer that cannot be written as JSON
            log.exception("control answer to %r failed", line[:200])
            data = (json.dumps({"ok": False, "error": f"the table could not answer: {e}"}) + "\n").encode()
        try:
            connection.settimeout(SEND_TIMEOUT_S)
            connection.sendall(data)
        except OSError as e:
            log.info("control client went before its answer: %s", e)
        finally:
            self._close(connection)

    def _answer(self, raw: bytes) -> dict[str, Any]:
        try:
            request = read_json(raw, deepest=MAX_NESTING)
        except TooDeep:
            return {"ok": False, "error": f"a request nests at most {MAX_NESTING} levels of [] and {{}}"}
        except (ValueError, UnicodeError):
            return {"ok": False, "error": "expected one JSON object per line, such as {\"command\": \"status\"}"}
        if not isinstance(request, dict) or not isinstance(request.get("command"), str):
            return {"ok": False, "error": "expected a JSON object with a \"command\" string"}
        try:
            return self.handle(request)
        except Exception as e:  # the daemon answers and lives on; the log has the details
            log.exception("control request %r failed", request)
            return {"ok": False, "error": f"the table could not do that: {e}"}


def _answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def _read_line(connection: socket.socket, limit: int, deadline: float) -> bytes:
    """One line of at most ``limit`` bytes, all of it before ``deadline``."""
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no whole answer in time")  # caught by request(), which says it as a ControlError
        connection.settimeout(left)
        chunk = connection.recv(65536)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise OSError(f"an answer over {limit} bytes")  # caught by request(), which says it as a ControlError
    return data


def group_of(path: Path) -> str:
    """The group of the file or socket at ``path`` (the service's, by default pi-table)."""
    try:
        return grp.getgrgid(os.stat(path).st_gid).gr_name
    except (OSError, KeyError):
        return "pi-table"


def request(path: Path, command: str, timeout: float = 5.0, **fields: object) -> dict[str, Any]:
    """Ask the daemon at ``path``; raise ControlError saying what went wrong."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(timeout)
            client.connect(str(path))
            try:
                client.sendall((json.dumps({"command": command, **fields}) + "\n").encode())
            except BrokenPipeError:  # refused (too many at once) and hung up: its words are still to read
                pass
            answer = read_json(_read_line(client, MAX_ANSWER, time.monotonic() + timeout) or b"null")
    except FileNotFoundError:
        raise ControlError(Phrase.of("no table is running: {path} does not exist; start it (sudo systemctl start "
                                     "pi-table) or give the --config of the table you mean", path=str(path))) from None
    except ConnectionRefusedError:
        raise ControlError(Phrase.of("no table is listening on {path} (a table that stopped left it behind): start it "
                                     "(sudo systemctl start pi-table)", path=str(path))) from None
    except BlockingIOError:  # its listen queue is full
        raise ControlError(Phrase.of("the table on {path} is too busy to take a request: try again",
                                     path=str(path))) from None
    except PermissionError:
        raise NotAllowed(Phrase.of("not allowed to talk to the table on {path}: join the service's group {group} "
                                   "(sudo usermod -aG {group} $USER), then log in again", path=str(path),
                                   group=group_of(path))) from None
    except (OSError, ValueError) as e:  # the system's or the JSON parser's own words
        raise ControlError(Phrase.of("the table on {path} did not answer properly ({error}): try again, and if it "
                                     "goes on, restart it", path=str(path), error=str(e))) from None
    if not isinstance(answer, dict):
        raise ControlError(Phrase.of("the table on {path} did not answer properly: try again, and if it goes on, "
                                     "restart it", path=str(path)))
    if not answer.get("ok"):
        raise Refused(str(answer.get("error")))
    return answer
