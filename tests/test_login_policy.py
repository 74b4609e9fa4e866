"""One login policy for every pi-table server that takes a password (issue 74, 4): the fleet's
dashboard and the league's page take it from another machine over TLS alone, their own or that of
a reverse proxy they are told to trust (an explicit option naming the proxy's address: a header
from anyone else is not believed), and their cookies are ``Secure`` then; the check that a form
came from the page's own origin compares with the scheme the page was really served on. (The
table's own pages: tests/test_staff_tls.py; the same predicate, ``web.auth.password_may_cross``.)"""

from __future__ import annotations

import http.client
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlencode

import pytest

from pi_table.config import broker as broker_config
from pi_table.config.machine import server_tls
from pi_table.fleet.dashboard import Dashboard, hash_password
from pi_table.fleet.league import League
from pi_table.fleet.league_page import LeaguePage
from pi_table.web.runner import ServerThread

from helpers import self_signed
from helpers_phones import this_machines_address

PASSWORD = "organiser-secret-26"
HASH = hash_password(PASSWORD)
NO_BROKER = broker_config("mqtt://127.0.0.1:1")  # the pages answer while their broker is away
KINDS = ("fleet", "league")
SITE = "league.example.org"


@contextmanager
def served(kind: str, **options: object) -> Iterator[ServerThread]:
    """The fleet's dashboard or the league's page on every address, with ``options`` (proxy, tls)."""
    server: ServerThread
    if kind == "fleet":
        server = Dashboard(NO_BROKER, "0.0.0.0", 0, HASH, client_id="policy-fleet", **options)  # type: ignore[arg-type]
    else:
        server = LeaguePage(NO_BROKER, League("spring"), "0.0.0.0", 0, client_id="policy-league", password_hash=HASH,
                            roster=None, **options)  # type: ignore[arg-type]
    server.start()
    try:
        yield server
    finally:
        server.stop()


def sign_in(address: str, port: int, headers: dict[str, str] | None = None,
            context: ssl.SSLContext | None = None) -> tuple[int, list[str], str]:
    """The sign-in form sent from ``address``: the status, the cookies set, the page's words."""
    connection = (http.client.HTTPSConnection(address, port, timeout=10, context=context) if context
                  else http.client.HTTPConnection(address, port, timeout=10))
    connection.request("POST", "/login", body=urlencode({"password": PASSWORD}),
                       headers={"Content-Type": "application/x-www-form-urlencoded", **(headers or {})})
    answer = connection.getresponse()
    return answer.status, answer.headers.get_all("Set-Cookie") or [], answer.read().decode()


def forwarded(scheme: str, client: str = "203.0.113.7") -> dict[str, str]:
    """What a reverse proxy adds to a browser's request it passes on, and the browser's own Origin."""
    return {"X-Forwarded-Proto": scheme, "X-Forwarded-Host": SITE, "X-Forwarded-For": client,
            "Origin": f"{scheme}://{SITE}"}


@pytest.mark.parametrize("kind", KINDS)
def test_behind_a_proxy_it_is_told_to_trust_the_sign_in_is_taken_over_https_with_secure_cookies(kind):
    with served(kind, proxy="127.0.0.1") as server:
        status, cookies, _ = sign_in("127.0.0.1", server.port, forwarded("https"))
        assert status == 303, status  # the origin compared with https, the scheme the page was served on
        assert cookies and all("Secure" in cookie for cookie in cookies), cookies
        status, cookies, said = sign_in("127.0.0.1", server.port, forwarded("http"))  # the proxy passing plain http on
        assert (status, cookies) == (403, []) and "https" in said


@pytest.mark.parametrize("kind", KINDS)
def test_over_plain_http_from_another_machine_no_password_is_taken_whatever_its_headers_say(kind):
    address = this_machines_address()
    with served(kind) as server:
        for headers in ({}, forwarded("https"), {"Origin": f"http://{address}:{server.port}"}):
            for _ in range(7):  # past an address's tries: none is counted
                status, cookies, said = sign_in(address, server.port, headers)
                assert (status, cookies) == (403, []) and "https" in said, headers
        status, cookies, _ = sign_in("127.0.0.1", server.port)  # this machine: no network crossed
        assert status == 303 and cookies and not any("Secure" in cookie for cookie in cookies)
    with served(kind, proxy="192.0.2.1") as server:  # a proxy elsewhere: this machine's headers are not its
        status, cookies, _ = sign_in(address, server.port, forwarded("https"))
        assert (status, cookies) == (403, [])


@pytest.mark.parametrize("kind", KINDS)
def test_over_its_own_tls_the_sign_in_is_taken_from_another_machine_with_secure_cookies(kind, tmp_path):
    cert, key = self_signed(tmp_path)
    context = ssl.create_default_context(cafile=str(cert))
    context.check_hostname = False
    with served(kind, tls=server_tls(str(cert), str(key))) as server:
        address = this_machines_address()
        status, cookies, _ = sign_in(address, server.port, {"Origin": f"https://{address}:{server.port}"}, context)
        assert status == 303 and cookies and all("Secure" in cookie for cookie in cookies)
        status, _, _ = sign_in(address, server.port, {"Origin": f"http://{address}:{server.port}"}, context)
        assert status == 403  # a form from the http origin of the same address is another site's
