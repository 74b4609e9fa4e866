"""The control socket: a local UNIX socket the ``pi-table`` commands talk to.

One JSON object per line each way: a request ``{"command": "status"}`` and its answer
``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``. The socket is readable and
writable by its owner and the service's group only (0660). It never serves the key: the
spymaster view is not among its answers.
"""

from __future__ import annotations

import grp
import json
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("pi_table.control")
MAX_REQUEST = 4096
MAX_ANSWER = 4 * 1024 * 1024  # the history of every game kept is one answer


class ControlError(RuntimeError):
    """The daemon could not be reached or did not answer properly; the message says why."""


class Refused(ControlError):
    """The daemon answered, and refused: the message is its reason."""


class ControlServer:
    """Serves requests on ``path``; ``handle(request) -> answer`` runs in the server's thread
    and must itself hand anything that touches the game to the table loop."""

    def __init__(self, path: Path, handle: Callable[[dict], dict], group: str | None = None) -> None:
        self.path = Path(path)
        self.handle = handle
        self.group = group
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._bound = False  # only a socket this server made is removed by stop()

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_socket():
            if _answers(self.path):
                raise OSError(f"another table already answers on {self.path}")
            self.path.unlink()  # left by a daemon that was killed
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        old_umask = os.umask(0o117)  # born 0660: no moment in which others may connect
        try:
            server.bind(str(self.path))
        finally:
            os.umask(old_umask)
        if self.group:
            try:
                gid = grp.getgrnam(self.group).gr_gid
                if self.path.stat().st_gid != gid:  # under the unit it is already: chown is filtered there
                    os.chown(self.path, -1, gid)
            except (KeyError, PermissionError) as e:
                log.warning("control socket %s keeps its group: %s", self.path, e)
        server.listen(8)
        server.settimeout(0.5)
        self._socket = server
        self._bound = True
        self._thread = threading.Thread(target=self._serve, name="control-socket", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        server, self._socket = self._socket, None
        if server is not None:
            server.close()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._bound:
            self.path.unlink(missing_ok=True)
            self._bound = False

    def _serve(self) -> None:
        while self._socket is not None:
            try:
                connection, _ = self._socket.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return  # closed by stop()
            with connection:
                connection.settimeout(2.0)
                try:
                    answer = self._answer(_read_line(connection))
                    connection.sendall((json.dumps(answer) + "\n").encode())
                except OSError as e:
                    log.warning("control connection dropped: %s", e)

    def _answer(self, raw: bytes) -> dict:
        try:
            request = json.loads(raw)
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


def _read_line(connection: socket.socket, limit: int = MAX_REQUEST) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = connection.recv(1024)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise OSError(f"line over {limit} bytes")
    return data


def request(path: Path, command: str, timeout: float = 5.0, **fields) -> dict:
    """Ask the daemon at ``path``; raise ControlError saying what went wrong."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(timeout)
            client.connect(str(path))
            client.sendall((json.dumps({"command": command, **fields}) + "\n").encode())
            answer = json.loads(_read_line(client, MAX_ANSWER) or b"null")
    except FileNotFoundError:
        raise ControlError(f"no table is running: {path} does not exist") from None
    except ConnectionRefusedError:
        raise ControlError(f"no table is listening on {path} (a daemon that stopped left it behind)") from None
    except PermissionError:
        raise ControlError(f"not allowed to talk to the table on {path}: join the service's group") from None
    except (OSError, ValueError) as e:
        raise ControlError(f"the table on {path} did not answer properly: {e}") from None
    if not isinstance(answer, dict):
        raise ControlError(f"the table on {path} did not answer properly")
    if not answer.get("ok"):
        raise Refused(str(answer.get("error")))
    return answer
