"""Every route of every server, found from its router rather than a list kept by hand: the walk
that tests/test_every_page.py (the kit's head on every page) and tests/test_every_page_browser.py
(axe, Lighthouse and the English-leak check on every page) share."""

from __future__ import annotations

import http.client
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from urllib.parse import urlencode

from aiohttp import web

from pi_table.web.runner import ServerThread

VARIABLE = re.compile(r"\{([^}:]*)[^}]*\}")
UNKNOWN = ("x",)
"""A route's variable part filled with a value no route knows (its refusal is a page too)."""


def paths(server: ServerThread, filled: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """Every GET route of ``server``'s router, each variable part filled in with each of its values
    in ``filled`` (by the variable's name), and with a value no route knows."""
    assert server._runner is not None  # it serves
    app: web.Application = server._runner.app
    found = set()
    for resource in app.router.resources():
        if any(route.method in ("GET", "*") for route in resource):
            info = resource.get_info()
            path = info.get("path") or info.get("formatter", "")
            names = VARIABLE.findall(path)
            choices = [(*(filled or {}).get(name, ()), *UNKNOWN) for name in names]
            for values in itertools.product(*choices):
                parts = VARIABLE.split(path)[::2]  # the path around its variables (their names left out)
                found.add("".join(itertools.chain.from_iterable(zip(parts, (*values, ""), strict=True))))
    assert found, "a server with no page"
    return sorted(found)


def asked(port: int, path: str, cookie: str = "") -> tuple[int, str, str]:
    """``path`` asked for on this machine: its status, its Refresh header and, for a page, its HTML
    ('' for anything else, a stream's left unread)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        answer = connection.getresponse()
        kind = (answer.getheader("Content-Type") or "").split(";")[0]
        return answer.status, answer.getheader("Refresh") or "", answer.read().decode() if kind == "text/html" else ""
    finally:
        connection.close()


def pages_of(server: ServerThread, port: int, cookies: Sequence[str] = ("",),
             filled: Mapping[str, Sequence[str]] | None = None) -> Iterator[tuple[str, str, int, str, str]]:
    """Every route of ``server`` asked for with each of ``cookies`` that answers a page: its path,
    the cookie, its status, its Refresh header and its HTML."""
    for path in paths(server, filled):
        for cookie in cookies:
            status, refresh, page = asked(port, path, cookie)
            if page:
                yield path, cookie, status, refresh, page


def signed_in(port: int, password: str) -> str:
    """A session of a fleet page's (the dashboard's, the league's), signed in from this machine."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", "/login", body=urlencode({"password": password}),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        answer = connection.getresponse()
        assert answer.status == 303, answer.status
        return "; ".join(cookie.split(";", 1)[0] for cookie in answer.headers.get_all("Set-Cookie"))
    finally:
        connection.close()


@contextmanager
def running(server: ServerThread) -> Iterator[ServerThread]:
    server.start()
    try:
        yield server
    finally:
        server.stop()
