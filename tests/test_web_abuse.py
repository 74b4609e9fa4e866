"""The companion under abuse: clients that dawdle, more connections than a table can hold, floods
of bad requests, and the headers every answer carries. All on loopback: Linux routes the whole of
127.0.0.0/8 to this machine, so 127.0.0.N stands for a phone of its own address."""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import re
import resource
import select
import socket
import ssl
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from pi_table.daemon.control import request
from pi_table.engine.codex_setup import SEATS
from pi_table.sim.systemd import FakeSystemd
from pi_table.web import Companion
from pi_table.web.doors import MAX_CONNECTIONS, RESERVED, WAITING_PER_ADDRESS
from pi_table.web.snapshot import Snapshot
from pi_table.web.staff import CSRF_HEADER, StaffPage, set_pin
from pi_table.web.streams import MAX_STREAMS, STREAMS_PER_PAGE

from helpers import require_tools, self_signed, wait_for
from helpers_phones import CHROMIUM, CHROMIUM_ARGS
from helpers_tables import service_daemon

HALF_SENT = b"GET / HTTP/1.1\r\nHost: table\r\nUser-Agent: slow"  # no blank line: the headers never end
POLICY = "default-src 'self'; frame-ancestors 'none'"
TOKEN = "seat0token_0123456789"
UNIT = Path(__file__).resolve().parents[1] / "systemd" / "pi-table.service"


def phone(companion: Companion, address: str = "127.0.0.1", timeout: float = 5.0) -> socket.socket:
    """A raw TCP connection to the companion from ``address``."""
    return socket.create_connection(("127.0.0.1", companion.port), timeout=timeout, source_address=(address, 0))


def answer_of(connection: socket.socket, deadline_s: float = 5.0) -> bytes:
    """Everything the server sends until it closes the connection (fails the test after
    ``deadline_s``: a server that holds a connection it should have dropped)."""
    connection.settimeout(deadline_s)
    data = b""
    try:
        while chunk := connection.recv(4096):
            data += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the server still held the connection after {deadline_s} s (got {data[:80]!r})")
    return data


def held(port: int, host: str = "127.0.0.1") -> int:
    """Connections a process holds open on the server's side of ``host``:``port``: ESTABLISHED,
    that local address, and owned by a file descriptor (inode 0 is one the kernel still queues
    for ``accept``). The address as well as the port: a client on another address may have the
    same port."""
    local = f"{int.from_bytes(socket.inet_aton(host), sys.byteorder):08X}:{port:04X}"  # /proc/net/tcp's form
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == local and fields[3] == "01" and fields[9] != "0":
            count += 1
    return count


def test_a_client_given_the_servers_port_on_another_address_is_not_counted_as_held():
    """A flood's socket bound to 127.0.0.10 with port 0 may be given the listener's own port (the
    addresses differ, so the kernel allows it). Counted among the server's, the flood's count is
    one too many and the wait for it never ends (the likeliest cause of a fresh clone's 60 s wait
    for 488 that never ended)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        with socket.socket() as client:
            client.bind(("127.0.0.10", port))
            client.connect(("127.0.0.1", port))
            accepted, _ = listener.accept()
            with accepted:
                assert held(port) == 1


def get(companion: Companion, path: str, address: str = "127.0.0.1") -> http.client.HTTPResponse:
    return ask(companion, "GET", path, address)[0]


def ask(companion: Companion, method: str, path: str, address: str, body: dict | None = None,
        headers: dict | None = None) -> tuple[http.client.HTTPResponse, bytes]:
    """One request from ``address`` (a JSON ``body``, the page's ``headers``): its answer, and its body."""
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5, source_address=(address, 0))
    if body is None:
        connection.request(method, path, headers=headers or {})
    else:
        connection.request(method, path, body=json.dumps(body), headers={"Content-Type": "application/json",
                                                                         **(headers or {})})
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer, data


@pytest.fixture
def start():
    """Start companions with the given settings; each is stopped after the test."""
    started = []

    def start(**settings) -> Companion:
        companion = Companion("127.0.0.1", 0, **settings)
        companion.start()
        started.append(companion)
        return companion

    yield start
    for companion in started:
        companion.stop()


@pytest.fixture
def many_files():
    """File descriptors enough in this process for a thousand and more client sockets."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if wanted < 2048:
        pytest.skip(f"this process may open only {hard} files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# Slow clients --------------------------------------------------------------------------------

def test_a_client_that_never_finishes_its_headers_is_dropped(start):
    companion = start(header_timeout_s=0.5)
    with phone(companion) as slow:
        slow.sendall(HALF_SENT)
        began = time.monotonic()
        assert answer_of(slow) == b""  # closed, without an answer: there was no request
        assert time.monotonic() - began < 3


def test_a_client_that_trickles_its_headers_is_dropped_all_the_same(start):
    """The deadline is for the whole of the headers: a byte now and then does not renew it."""
    companion = start(header_timeout_s=0.5)
    with phone(companion) as slow:
        began = time.monotonic()
        with pytest.raises(OSError):  # reset, or a broken pipe, once the server has dropped it
            for byte in b"GET / HTTP/1.1\r\nHost: table\r\nX-Slow: " + b"a" * 400:  # 20 s of valid bytes
                slow.sendall(bytes([byte]))
                time.sleep(0.05)
                if time.monotonic() - began > 10:
                    pytest.fail("a trickling client was held for 10 s")
                slow.settimeout(0)
                with contextlib.suppress(BlockingIOError):
                    if slow.recv(1) == b"":
                        raise ConnectionResetError("closed by the server")
                slow.settimeout(5)
        assert time.monotonic() - began < 3


def test_a_client_that_never_finishes_its_body_is_answered_and_dropped(start):
    companion = start(header_timeout_s=0.5, body_timeout_s=0.5, act=lambda game, role, text: None)
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    with phone(companion) as slow:
        slow.sendall(f"POST /api/p/{TOKEN}/act HTTP/1.1\r\nHost: table\r\nContent-Type: application/json\r\n"
                     f"Content-Length: 100\r\n\r\n{{\"action\": ".encode())
        began = time.monotonic()
        answer = answer_of(slow)
        assert time.monotonic() - began < 3
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408")
    assert "0.5 s" in json.loads(body)["error"]


def test_an_event_stream_outlives_the_timeouts(start):
    """A phone's event stream is long by design: once its request is read, no deadline ends it."""
    companion = start(header_timeout_s=0.2, body_timeout_s=0.2)
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5)
    connection.request("GET", "/api/public/events")
    stream = connection.getresponse()
    assert stream.readline() == b'data: {"kind": "waiting"}\n'
    time.sleep(1.0)  # five times the deadlines
    companion.publish(Snapshot("g2", {"kind": "board", "game_id": "g2"}))
    stream.readline()
    assert json.loads(stream.readline().decode()[6:]) == {"kind": "board", "game_id": "g2"}
    connection.close()


# The caps ------------------------------------------------------------------------------------

def test_one_address_gets_its_share_and_no_more_while_others_are_served(start):
    """Past its share an address's new connections wait on the reserve, two at most: a newer one
    lets the oldest go (closed unanswered), and a request on one without a credential is told to
    come back."""
    companion = start(header_timeout_s=60, max_connections=40, max_per_address=10)
    flood = [phone(companion, "127.0.0.2") for _ in range(25)]
    try:
        for connection in flood:
            with contextlib.suppress(OSError):
                connection.sendall(HALF_SENT)
        share = 10 + WAITING_PER_ADDRESS
        wait_for(lambda: held(companion.port) == share, f"the server to hold {share} connections from 127.0.0.2, "
                 f"not {held(companion.port)}")
        wait_for(lambda: len(select.select(flood, [], [], 0)[0]) == 25 - share, f"{25 - share} connections to be closed")
        for connection in select.select(flood, [], [], 0)[0]:  # let go unanswered (or 503, if its request came first)
            answer = answer_of(connection)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 503"), answer
        assert get(companion, "/api/public", "127.0.0.3").status == 200
        waiting = flood[-1]
        waiting.sendall(b"\r\n\r\n")  # its request ends: it carries no credential
        answer = answer_of(waiting)
        assert answer.startswith(b"HTTP/1.1 503") and b"\r\nRetry-After: " in answer, answer
        wait_for(lambda: held(companion.port) == share - 1, "the refused one to be closed")
    finally:
        for connection in flood:
            connection.close()


def test_with_every_connection_busy_a_new_one_is_refused_at_once_until_one_closes(start):
    """Spectators' streams fill the guests' share and a seat's the reserve: no connection is idle
    to give up its place, so a new one is answered 503 before a byte of it is read."""
    companion = start(max_connections=30, max_per_address=20, max_streams=27, max_streams_per_address=20)
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    cookie = claimed(companion, "127.0.0.5")
    streams = [open_stream(companion, PUBLIC_EVENTS, f"127.0.0.{2 + n % 3}") for n in range(27)]
    try:
        for stream in streams:
            assert read_until(stream, b"\r\n\r\n").startswith(b"HTTP/1.1 200 ")
        for _ in range(3):
            streams.append(open_stream(companion, f"/api/p/{TOKEN}/events", "127.0.0.5", cookie))
            assert b'"kind": "seat"' in read_until(streams[-1], b'"kind": "seat"')
        wait_for(lambda: held(companion.port) == 30, f"the server to hold 30 connections, not {held(companion.port)}")
        with phone(companion, "127.0.0.9") as newcomer:
            head = answer_of(newcomer, 2.0)
        assert head.startswith(b"HTTP/1.1 503") and b"Retry-After:" in head
        streams.pop(0).close()
        wait_for(lambda: held(companion.port) == 29, "the closed stream to be let go")
        assert get(companion, "/", "127.0.0.9").status == 200
    finally:
        for connection in streams:
            connection.close()


def test_a_place_for_a_trusted_phone_is_freed_by_closing_the_least_recently_used_idle_guest(start, tmp_path):
    """With the guests' share full and the reserve held by the staff, a seated phone gets in:
    the guest's keep-alive connection used least recently is closed for it; the spectators'
    streams, older but busy, and the staff's own connections are kept."""
    set_pin(tmp_path, PIN)
    companion = start(max_connections=16, max_per_address=20, header_timeout_s=60, staff=StaffPage(Desk(), tmp_path))
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    seat = {"Cookie": claimed(companion, "127.0.0.5")}
    login, _ = ask(companion, "POST", "/staff/login", "127.0.0.6", {"pin": PIN})
    staff = {"Cookie": next(cookie.split(";")[0] for cookie in login.headers.get_all("Set-Cookie") if "_device=" in cookie)}
    streams = [open_stream(companion, PUBLIC_EVENTS, "127.0.0.2") for _ in range(4)]
    guests: list = []
    try:
        for stream in streams:
            assert read_until(stream, b"\r\n\r\n").startswith(b"HTTP/1.1 200 ")
        guests = [keep_alive(companion, "127.0.0.3") for _ in range(10)]  # the guests' share: 16 less 2
        staff_phone = [keep_alive(companion, "127.0.0.6", "/staff", staff) for _ in range(2)]  # the reserve
        assert None not in guests + staff_phone
        assert get(companion, "/", "127.0.0.4").status == 503  # no place for a guest more
        assert ask(companion, "GET", f"/p/{TOKEN}", "127.0.0.5", headers=seat)[0].status == 200
        assert [still_served(guest) for guest in guests] == [False] + [True] * 9
        assert all(still_served(connection, "/staff", staff) for connection in staff_phone)
        companion.publish(Snapshot("g2", {"kind": "waiting", "n": 2}))
        assert all(b'"n": 2' in read_until(stream, b'"n": 2') for stream in streams)  # the streams were kept
    finally:
        for connection in streams + [guest for guest in guests if guest is not None]:
            connection.close()


# Event streams --------------------------------------------------------------------------------

PIN = "482916"
PUBLIC_EVENTS = "/api/public/events"


class Desk:
    """The table as the staff page asks for it: its language, and a table with nothing to say."""

    def language(self) -> str:
        return "en"

    def table(self, lang: str) -> dict:
        return {"game_id": "g1", "health": {}}


def open_stream(companion: Companion, path: str, address: str, cookie: str = "") -> socket.socket:
    """An event stream asked for from ``address`` (with the page's ``cookie``), its answer unread."""
    connection = phone(companion, address)
    headers = f"Cookie: {cookie}\r\n" if cookie else ""
    with contextlib.suppress(OSError):  # turned away at the connection cap before its request went
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: table\r\n{headers}\r\n".encode())
    return connection


def read_until(connection: socket.socket, marker: bytes) -> bytes:
    """What the server sends until ``marker`` (or until it closes the connection, or a reset)."""
    connection.settimeout(5)
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while marker not in data and (chunk := connection.recv(4096)):
            data += chunk
    return data


def claimed(companion: Companion, address: str) -> str:
    """The seat's page opened first from ``address``: the cookie that proves it is that phone."""
    answer = get(companion, f"/p/{TOKEN}", address)
    assert answer.status == 200
    return answer.getheader("Set-Cookie").split(";")[0]


def test_held_event_streams_leave_places_for_the_staff_and_the_seated_phones(start, tmp_path):
    """Public event streams need no token and no deadline ends them: 64 from each of 9 addresses
    (a laptop on a few addresses) filled the connection cap, and /staff, its login and a seated
    phone were answered 503 from anywhere else for as long as they were held. The spectators'
    streams have caps of their own (in all, and one an address) below the connection cap."""
    set_pin(tmp_path, PIN)
    companion = start(max_connections=60, max_per_address=10, max_streams=24, max_streams_per_address=4,
                      staff=StaffPage(Desk(), tmp_path))
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    seat_cookie = claimed(companion, "127.0.0.21")  # the seated phone, before the flood
    addresses = [f"127.0.0.{2 + n % 9}" for n in range(90)]  # 10 from each of nine: their share of connections
    flood = [open_stream(companion, PUBLIC_EVENTS, address) for address in addresses]
    try:
        wait_for(lambda: len(select.select(flood, [], [], 0)[0]) == len(flood), "every stream asked for to be answered")

        assert get(companion, "/staff", "127.0.0.20").status == 200
        login, body = ask(companion, "POST", "/staff/login", "127.0.0.20", {"pin": PIN})
        assert login.status == 200, login.status
        session = {"Cookie": login.getheader("Set-Cookie").split(";")[0], CSRF_HEADER: json.loads(body)["csrf"]}
        table, body = ask(companion, "GET", "/staff/api/table", "127.0.0.20", headers=session)
        assert table.status == 200 and json.loads(body)["game_id"] == "g1"

        assert ask(companion, "GET", f"/p/{TOKEN}", "127.0.0.21", headers={"Cookie": seat_cookie})[0].status == 200
        with open_stream(companion, f"/api/p/{TOKEN}/events", "127.0.0.21", seat_cookie) as seat:
            view = read_until(seat, b'"kind": "seat"')
            assert view.startswith(b"HTTP/1.1 200 ") and b'"kind": "seat"' in view, view

        heads = [read_until(connection, b"\r\n\r\n") for connection in flood]
        held_streams = Counter(address for address, head in zip(addresses, heads) if head.startswith(b"HTTP/1.1 200 "))
        assert held_streams.total() == 24 and max(held_streams.values()) <= 4, held_streams
        for head in heads:  # the rest told to come back (or reset, turned away before their request was read)
            assert head.startswith(b"HTTP/1.1 200 ") or head == b"" or (
                head.startswith(b"HTTP/1.1 503 ") and b"\r\nRetry-After: " in head), head
    finally:
        for connection in flood:
            connection.close()
    wait_for(lambda: not companion._watchers, "the closed streams to be let go (with no keep-alive to tell)")
    with open_stream(companion, PUBLIC_EVENTS, "127.0.0.22") as newcomer:
        assert read_until(newcomer, b"\r\n\r\n").startswith(b"HTTP/1.1 200 ")


def keep_alive(companion: Companion, address: str, path: str = "/api/public",
               headers: dict | None = None) -> http.client.HTTPConnection | None:
    """A phone's keep-alive connection from ``address`` that has had ``path`` answered 200 (asked
    with ``headers``) and stays open, as a page that asks every few seconds keeps it; None when it
    was turned away."""
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5, source_address=(address, 0))
    try:
        connection.request("GET", path, headers=headers or {})
        answer = connection.getresponse()
        answer.read()
    except (OSError, http.client.HTTPException):
        connection.close()
        return None
    if answer.status != 200:
        connection.close()
        return None
    return connection


def still_served(connection: http.client.HTTPConnection, path: str = "/api/public", headers: dict | None = None) -> bool:
    """Whether a held keep-alive connection still has its next request answered 200."""
    try:
        connection.request("GET", path, headers=headers or {})
        answer = connection.getresponse()
        answer.read()
        return answer.status == 200
    except (OSError, http.client.HTTPException):
        return False


def test_guests_holding_every_connection_leave_a_place_for_a_known_staff_phone_and_a_seated_phone(start, tmp_path):
    """9 addresses x 64 keep-alive connections, each asking again every 5 s, filled the 512
    connections, and /staff and its login answered 503 to every staff phone. Guests hold at most
    the connections less a reserve; past that a new connection waits on the reserve for its first
    request, which must carry a credential (a staff phone's device cookie or session, a seat's
    proof), else it is told to come back and closed. Connections that send nothing are let go
    for newer ones, oldest first; the guests' own keep their connections."""
    set_pin(tmp_path, PIN)
    companion = start(max_connections=60, max_per_address=10, header_timeout_s=60,
                      staff=StaffPage(Desk(), tmp_path))
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    seat_cookie = claimed(companion, "127.0.0.21")  # the seated phone, and the staff's, before the flood
    login, _ = ask(companion, "POST", "/staff/login", "127.0.0.20", {"pin": PIN})
    device = next(cookie.split(";")[0] for cookie in login.headers.get_all("Set-Cookie") if "_device=" in cookie)
    flood = [keep_alive(companion, f"127.0.0.{2 + n % 9}") for n in range(90)]
    held_flood = [connection for connection in flood if connection is not None]
    silent = [phone(companion, f"127.0.0.{2 + n % 9}") for n in range(27)]  # connections that never send a byte
    try:
        staff = {"Cookie": device}
        assert ask(companion, "GET", "/staff", "127.0.0.20", headers=staff)[0].status == 200
        assert ask(companion, "GET", "/staff/static/staff.js", "127.0.0.20", headers=staff)[0].status == 200
        login, body = ask(companion, "POST", "/staff/login", "127.0.0.20", {"pin": PIN}, headers=staff)
        assert login.status == 200, login.status
        session = {"Cookie": "; ".join([device, login.getheader("Set-Cookie").split(";")[0]]),
                   CSRF_HEADER: json.loads(body)["csrf"]}
        table, body = ask(companion, "GET", "/staff/api/table", "127.0.0.20", headers=session)
        assert table.status == 200 and json.loads(body)["game_id"] == "g1"

        seat = {"Cookie": seat_cookie}
        assert ask(companion, "GET", f"/p/{TOKEN}", "127.0.0.21", headers=seat)[0].status == 200
        assert ask(companion, "GET", "/static/app.js", "127.0.0.21", headers=seat)[0].status == 200
        assert ask(companion, "GET", "/api/texts", "127.0.0.21", headers=seat)[0].status == 200

        assert 40 <= len(held_flood) < 60, len(held_flood)  # the guests' share, less the reserve
        assert get(companion, "/staff", "127.0.0.30").status == 503  # a phone never logged in waits, as a guest does
        busy = get(companion, "/", "127.0.0.22")  # a guest more, or one without the seat's proof
        assert busy.status == 503 and busy.getheader("Retry-After")
        assert ask(companion, "GET", f"/p/{TOKEN}", "127.0.0.22")[0].status == 503
        assert all(still_served(connection) for connection in held_flood)  # the guests kept theirs
    finally:
        for connection in held_flood + silent:
            connection.close()


def test_guests_holding_every_connection_of_the_pages_leave_a_new_staff_phone_the_https_pages(start, tmp_path):
    """Issue 48, 6: while 9 addresses held the guests' share of keep-alive connections, a staff
    phone that had never logged in got 503 on /staff and the login (no credential to show the
    reserve). The staff and set-up pages listen on their own https port, with a pool of their own:
    the guests' flood on the pages' port leaves it whole."""
    from pi_table.daemon.phones import _tls

    set_pin(tmp_path, PIN)
    cert, key = self_signed(tmp_path)
    companion = start(max_connections=60, max_per_address=10, header_timeout_s=60,
                      staff=StaffPage(Desk(), tmp_path), staff_tls=_tls(str(cert), str(key)))
    flood = [keep_alive(companion, f"127.0.0.{2 + n % 9}") for n in range(90)]
    held = [connection for connection in flood if connection is not None]
    try:
        assert 40 <= len(held) < 60 and get(companion, "/staff", "127.0.0.30").status == 503  # the pages' port is full
        context = ssl.create_default_context(cafile=str(cert))
        phone = http.client.HTTPSConnection("127.0.0.1", companion.staff_port, timeout=5,
                                            source_address=("127.0.0.30", 0), context=context)
        phone.request("GET", "/staff")
        page = phone.getresponse()
        assert page.status == 200 and page.read()
        phone.request("POST", "/staff/login", body=json.dumps({"pin": PIN}), headers={"Content-Type": "application/json"})
        answer = phone.getresponse()
        assert answer.status == 200 and "Secure" in answer.getheader("Set-Cookie"), answer.getheader("Set-Cookie")
        answer.read()
        phone.close()
        assert all(still_served(connection) for connection in held)  # the guests kept theirs
    finally:
        for connection in held:
            connection.close()


def test_addresses_holding_slow_connections_on_the_https_port_leave_a_new_phone_its_share(start, tmp_path):
    """Issue 58, 5a: 12 addresses holding 96 slow TLS connections (a request's first bytes, then
    nothing more) took the https pages' every guest place, and a phone that never logged in (a
    table awaiting its set-up has no other) got 503 on /staff and the login. The https pool is
    shared by address: the phone takes the place of the slowest connection of an address holding
    the most, and the flood's own addresses cannot take the phone's back."""
    from pi_table.daemon.phones import _tls

    set_pin(tmp_path, PIN)
    cert, key = self_signed(tmp_path)
    companion = start(header_timeout_s=60, staff=StaffPage(Desk(), tmp_path), staff_tls=_tls(str(cert), str(key)))
    context = ssl.create_default_context(cafile=str(cert))
    slow: list[ssl.SSLSocket] = []

    def dawdle(address: str) -> None:  # a connection that began a request and sends nothing more
        raw = socket.create_connection(("127.0.0.1", companion.staff_port), timeout=5, source_address=(address, 0))
        try:
            held = context.wrap_socket(raw, server_hostname="127.0.0.1")
            held.sendall(b"GET /staff HTTP/1.1\r\nHo")
            slow.append(held)
        except OSError:
            raw.close()

    try:
        for n in range(96):
            dawdle(f"127.0.0.{2 + n % 12}")
        wait_for(lambda: len(companion._secret_pool._open) >= 56, "the flood to hold the guests' places",
                 explain=lambda: (len(slow), dict(companion._secret_pool._count["guest"]), len(companion._secret_pool._open)))
        phone = http.client.HTTPSConnection("127.0.0.1", companion.staff_port, timeout=5,
                                            source_address=("127.0.0.30", 0), context=context)
        phone.request("GET", "/staff")
        page = phone.getresponse()
        assert page.status == 200 and page.read()
        for n in range(24):  # the flood goes on: its addresses come back for their places
            dawdle(f"127.0.0.{2 + n % 12}")
        phone.request("POST", "/staff/login", body=json.dumps({"pin": PIN}), headers={"Content-Type": "application/json"})
        answer = phone.getresponse()
        assert answer.status == 200, answer.status
        answer.read()
        phone.close()
        guests = companion._secret_pool._count["guest"]
        assert max(guests.values()) <= 8 and guests.total() <= 56, guests
    finally:
        for connection in slow:
            connection.close()


@pytest.mark.parametrize("value", ["\u00e9t\u00e9".encode("latin-1"), "\u00e9t\u00e9".encode(), b"\xff\xfe"])
def test_a_cookie_or_token_that_is_not_ascii_is_a_wrong_one_not_a_500(start, tmp_path, value, caplog):
    """The checks compared the cookies and the CSRF header as text, which Python refuses to do
    in constant time for anything but ASCII: a guest's cookie of é answered 500 with a traceback."""
    set_pin(tmp_path, PIN)
    companion = start(staff=StaffPage(Desk(), tmp_path))
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    claimed(companion, "127.0.0.2")
    session = ask(companion, "POST", "/staff/login", "127.0.0.3", {"pin": PIN})[0].getheader("Set-Cookie").split(";")[0]
    statuses = []
    for path, headers in ((f"/p/{TOKEN}", b"Cookie: " + _cookie(TOKEN) + b"=" + value),
                          ("/staff", b"Cookie: pt_staff_device=" + value),
                          ("/staff/api/table", b"Cookie: pt_staff=" + value),
                          ("/staff/api/table", b"Cookie: " + session.encode() + b"\r\nX-Staff-Token: " + value)):
        with phone(companion, "127.0.0.4") as connection:
            connection.sendall(f"GET {path} HTTP/1.1\r\nHost: table\r\nConnection: close\r\n".encode() + headers + b"\r\n\r\n")
            statuses.append(int(answer_of(connection).split(b" ")[1]))
    assert statuses == [403, 200, 401, 403]
    assert "Traceback" not in caplog.text


def _cookie(token: str) -> bytes:
    return f"pt_{token[:12]}".encode()


def test_the_staff_page_asks_for_nothing_outside_staff():
    """The staff's cookies are sent under /staff alone, so a request of the page's elsewhere (it
    asked /api/texts for the cards' words) would carry no credential through a flood."""
    from pi_table.web.sections import SECTIONS

    static = Path(__file__).resolve().parents[1] / "pi_table" / "web" / "static"
    scripts = [section.script for section in SECTIONS.values() if section.script]
    asked = {path for name in ("staff.html", "staff.js", *scripts)
             for path in re.findall(r"""["'`](/[a-z][^"'`$?]*)""", (static / name).read_text())}
    assert asked and all(path.startswith("/staff/") for path in asked), sorted(asked)


def test_a_seated_phone_keeps_its_newest_streams_however_many_spectators_watch(start):
    """A seat's streams are not held to the spectators' caps, and a page keeps its newest
    STREAMS_PER_PAGE (a second tab, the streams a dropped Wi-Fi left behind): past them the
    oldest goes, so the phone that holds the token always has its own."""
    companion = start(max_streams=3, max_streams_per_address=1)
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    cookie = claimed(companion, "127.0.0.2")
    spectators = []
    seat = []
    try:
        for address in ("127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"):
            spectators.append(open_stream(companion, PUBLIC_EVENTS, address))
            wait_for(lambda: select.select(spectators[-1:], [], [], 0)[0], "the stream to be answered")
        heads = [read_until(connection, b"\r\n\r\n") for connection in spectators]
        assert [head.split(b"\r\n")[0] for head in heads] == [
            b"HTTP/1.1 200 OK", b"HTTP/1.1 503 Service Unavailable", b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK",
            b"HTTP/1.1 503 Service Unavailable"]  # one an address, three in all
        for refused in (1, 4):
            assert b"\r\nRetry-After: " in heads[refused]
            assert answer_of(spectators[refused]) == b""  # told, then closed
        for _ in range(STREAMS_PER_PAGE + 2):
            seat.append(open_stream(companion, f"/api/p/{TOKEN}/events", "127.0.0.2", cookie))
            assert b'"kind": "seat"' in read_until(seat[-1], b'"kind": "seat"')
        for oldest in seat[:2]:
            answer_of(oldest)  # let go: the server closes it
        companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat", "n": 1})}))
        for newest in seat[2:]:
            assert b'"n": 1' in read_until(newest, b'"n": 1')
    finally:
        for connection in spectators + seat:
            connection.close()


def test_the_spectators_streams_leave_places_for_the_seats_and_the_pages():
    """The connection cap is the ceiling: the spectators' streams and every seat's own leave a
    quarter of it for requests (the staff's, the pages', the views)."""
    assert MAX_CONNECTIONS - MAX_STREAMS - SEATS * STREAMS_PER_PAGE >= MAX_CONNECTIONS // 4


# What every answer carries -------------------------------------------------------------------

def test_an_action_nested_past_the_json_parser_is_a_bad_action_not_a_500(start):
    companion = start(act=lambda game, role, text: None)
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5)
    connection.request("POST", f"/api/p/{TOKEN}/act", body=b"[" * 3000, headers={"Content-Type": "application/json"})
    assert connection.getresponse().status == 400
    connection.close()


def test_every_answer_carries_the_policy_and_no_version(start):
    companion = start(act=lambda game, role, text: None)
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    answers = [get(companion, path) for path in ("/", "/static/app.js", "/static/style.css", "/api/public",
                                                  "/nowhere", "/p/not-a-token", "/api/p/not-a-token")]
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5)
    connection.request("POST", f"/api/p/{TOKEN}/act", body=b"{not json", headers={"Content-Type": "application/json"})
    answers.append(connection.getresponse())
    connection.close()
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5)
    connection.request("GET", "/api/public/events")
    answers.append(connection.getresponse())
    connection.close()
    assert sorted({answer.status for answer in answers}) == [200, 400, 404]
    for answer in answers:
        assert answer.getheader("Content-Security-Policy") == POLICY
        assert answer.getheader("Server", "pi-table") == "pi-table"
    with phone(companion) as garbage:  # not HTTP at all: aiohttp answers 400 by itself
        garbage.sendall(b"GET / HTTP/1.1\r\nHost: table\r\nno colon here\r\n\r\n")
        head = answer_of(garbage).partition(b"\r\n\r\n")[0].decode()
    assert re.match(r"HTTP/1\.[01] 400 ", head)
    assert f"Content-Security-Policy: {POLICY}" in head.splitlines()
    assert not re.search(r"(?im)^Server: .*(aiohttp|python|\d)", head)


@pytest.mark.browser
def test_the_pages_work_in_a_browser_under_the_policy(start):
    """The pages have no inline script or style that the policy would block."""
    require_tools(CHROMIUM)
    playwright_api = pytest.importorskip("playwright.sync_api")
    companion = start()
    from pi_table.ui.orientation import page_layout

    companion.publish(Snapshot("g1", {"kind": "board", "game_id": "g1", "view": _board_view(), "grid": page_layout()}))
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            complaints = []
            page.on("console", lambda message: complaints.append(message.text) if message.type == "error" else None)
            answer = page.goto(companion.base_url + "/")
            assert answer.headers["content-security-policy"] == POLICY
            page.wait_for_selector(".grid .cell.R")
            assert page.locator(".cell.hidden").count() == 24
            assert [text for text in complaints if "Content Security Policy" in text] == []
        finally:
            browser.close()


def _board_view() -> dict:
    from pi_table.engine import Rules, make_game, parse_action

    game = make_game(Rules())
    state = game.apply(game.start(game.parse_key("RRRRRRRRRBBBBBBBBNNNNNNNA")), parse_action("clue 1"))
    return game.table_view(game.apply(state, parse_action("touch 0"))).to_json()


# Floods of bad requests ----------------------------------------------------------------------

MALFORMED = (
    b"GET / HTTP/1.1\r\nHost: table\r\nno colon here\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: table\r\n\r\n",
    b"GET /\x01\x02 HTTP/1.1\r\nHost: table\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: table\r\nContent-Length: -5\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS hello on the plain port
)


def test_a_flood_of_bad_requests_is_a_count_not_a_traceback_each(start, caplog):
    caplog.set_level(logging.DEBUG)
    companion = start(act=lambda game, role, text: None)
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    for n in range(400):
        with phone(companion) as bad:
            bad.sendall(MALFORMED[n % len(MALFORMED)])
            answer_of(bad)
    for n in range(50):
        assert get(companion, f"/nowhere/{n}").status == 404
    cookie = get(companion, f"/p/{TOKEN}").getheader("Set-Cookie").split(";")[0]  # this phone's page
    for n in range(50):
        connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5)
        connection.request("POST", f"/api/p/{TOKEN}/act", body=b"[", headers={"Content-Type": "application/json",
                                                                               "Cookie": cookie})
        assert connection.getresponse().status == 400
        connection.close()
    companion.stop()  # says what it has counted so far
    lines = [r for r in caplog.records if r.name.startswith(("aiohttp", "asyncio", "pi_table.web"))]
    assert len(lines) <= 2, [r.getMessage() for r in lines[:5]]
    assert not any(r.exc_info or r.exc_text for r in lines)
    assert re.search(r"\b500 bad requests\b", " ".join(r.getMessage() for r in lines))
    assert "400 malformed" in lines[-1].getMessage() and "50 unknown pages" in lines[-1].getMessage()


def test_the_count_of_bad_requests_is_told_once_a_period(start, caplog):
    caplog.set_level(logging.INFO)
    companion = start(report_s=0.3)
    for _ in range(3):
        with phone(companion) as bad:
            bad.sendall(MALFORMED[0])
            answer_of(bad)
    wait_for(lambda: any("3 bad requests" in r.getMessage() for r in caplog.records), "the count to be told")
    assert [r.levelno for r in caplog.records if "bad requests" in r.getMessage()] == [logging.WARNING]


def test_a_browsers_own_icon_request_is_answered_and_not_counted(start, caplog):
    """Every browser asks for /favicon.ico of every site: that is no phone's mistake to warn of."""
    companion = start()
    for _ in range(3):
        answer = get(companion, "/favicon.ico")
        assert answer.status == 204 and answer.getheader("Content-Security-Policy") == POLICY
    get(companion, "/nowhere")
    companion.stop()  # says what it has counted
    told = [r.getMessage() for r in caplog.records if "bad requests" in r.getMessage()]
    assert told and "1 bad requests (1 unknown pages)" in told[-1]


# The daemon and the unit ---------------------------------------------------------------------

DAEMON_OWN_FILES = 200
"""What the daemon holds besides the companion's connections, generously: the interpreter, the
journal, the control socket and its clients, the serial port, the LED and GPIO devices, SDL. The
sim daemon holds about 40 (measured in the test below)."""


def test_the_units_file_limit_holds_every_connection_the_companion_allows():
    limit = int(re.search(r"(?m)^LimitNOFILE=(\d+)$", UNIT.read_text()).group(1))
    assert limit > MAX_CONNECTIONS + DAEMON_OWN_FILES


@pytest.mark.slow
def test_the_table_plays_on_while_its_port_is_flooded(tmp_path, many_files):
    """1,100 half-sent requests from 20 addresses, against a daemon with systemd's default
    1,024 files: the companion holds the guests' share and the reserve's waiting connections
    and no more, the control socket answers, the loop deals a new game and publishes it, and a
    new phone's request is told to come back (503), not left hanging. (No watchdog here: FakeSystemd reads its messages only when asked, and a
    full notify queue would block the loop's pings, which is not what is tried here. The request
    deadline is the longest there is, so that none of the flood is dropped before the cap is
    counted, however slowly a busy machine sends it.)"""
    (tmp_path / "config.toml").write_text('[web]\nhost = "127.0.0.1"\nport = 0\nrequest_s = 120\n'
                                          '[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                                          'socket_group = ""\n')
    systemd = FakeSystemd(["--hal", "sim", "--config", str(tmp_path / "config.toml")])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))  # systemd's default, for the daemon to inherit
    try:
        systemd.start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    flood = []
    try:
        status = request(tmp_path / "control.sock", "status")
        port = int(status["companion"].rsplit(":", 1)[1])
        own = len(os.listdir(f"/proc/{systemd.process.pid}/fd"))
        assert own < DAEMON_OWN_FILES
        for n in range(1100):
            connection = socket.socket()
            connection.settimeout(5)
            connection.bind((f"127.0.0.{10 + n % 20}", 0))
            with contextlib.suppress(OSError):  # past the cap the server may close it before we send
                connection.connect(("127.0.0.1", port))
                connection.sendall(HALF_SENT)
            flood.append(connection)
        # On a busy machine the kernel's accept queue overflows and some of the flood reaches the
        # daemon only seconds later, at the SYN-ACK's retries (1, 2, 4, 8 s...); each is accepted, then
        # counted in or turned away. What the test holds the daemon to is the settled count.
        share = MAX_CONNECTIONS - MAX_CONNECTIONS // RESERVED + 20 * WAITING_PER_ADDRESS  # the guests', and the reserve's waiting
        wait_for(lambda: held(port) == share, f"the daemon to hold {share} connections", timeout=60)
        wait_for(lambda: len(os.listdir(f"/proc/{systemd.process.pid}/fd")) <= own + share + 8,
                 "the daemon's files to be its own and the connections it holds", timeout=10)
        answer = request(tmp_path / "control.sock", "new-game")
        assert answer["ok"] and answer["game_id"] != status["game_id"]
        assert request(tmp_path / "control.sock", "status")["game_id"] == answer["game_id"]
        with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.99", 0)) as newcomer:
            newcomer.sendall(b"GET / HTTP/1.1\r\nHost: table\r\n\r\n")  # a guest's request, on the reserve
            assert answer_of(newcomer, 2.0).startswith(b"HTTP/1.1 503")
        for connection in flood:
            connection.close()
        wait_for(lambda: held(port) == 0, "the flood's connections to be let go", timeout=10)
        public = json.loads(urlopen_text(f"http://127.0.0.1:{port}/api/public"))
        assert public["game_id"] == answer["game_id"]
        assert systemd.stop() == 0
    finally:
        for connection in flood:
            connection.close()
        systemd.close()


def test_the_owners_request_deadline_is_the_one_phones_get(tmp_path):
    """[web] request_s reaches the daemon's companion: a half-sent request is dropped after it."""

    (tmp_path / "config.toml").write_text('[web]\nhost = "127.0.0.1"\nport = 0\nrequest_s = 2\n[paths]\n'
                                          'journal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
    daemon = service_daemon(tmp_path / "config.toml")
    daemon.start()
    runner = threading.Thread(target=daemon.run, daemon=True)  # the companion opens once the table is ready
    runner.start()
    try:
        assert daemon.wait_for_phones() and daemon.companion is not None
        with phone(daemon.companion) as slow:
            slow.sendall(HALF_SENT)
            assert answer_of(slow, deadline_s=8.0) == b""  # dropped without an answer, well before the 10 s default
    finally:
        daemon.stop()
        runner.join(timeout=5)
        daemon.close()


def urlopen_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.read().decode()


def test_a_failing_handler_is_still_logged_with_its_traceback(start, caplog):
    """Only what phones get wrong is counted; a bug of ours keeps its traceback."""
    def act(game, role, text):
        raise RuntimeError("a bug in the table's act")

    companion = start(act=act)
    companion.publish(Snapshot("g1", {"kind": "waiting"}, {TOKEN: ("seat-0", {"kind": "seat"})}))
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5)
    connection.request("POST", f"/api/p/{TOKEN}/act", body=b'{"action": "vote 1"}',
                       headers={"Content-Type": "application/json"})
    answer = connection.getresponse()
    connection.close()
    assert answer.status == 500 and answer.getheader("Content-Security-Policy") == POLICY
    wait_for(lambda: any(r.exc_info and "a bug in the table's act" in str(r.exc_info[1]) for r in caplog.records),
             "the bug's traceback in the log")


def test_a_phone_that_stops_reading_its_stream_is_let_go_and_the_others_keep_theirs(start, monkeypatch):
    """Views are written straight to each phone's connection; one that reads nothing would
    hold them all in the table's memory, so past BEHIND_BYTES unsent it is closed (a page that
    is alive reconnects), while a phone that reads gets every view."""
    from pi_table.web import streams

    monkeypatch.setattr(streams, "BEHIND_BYTES", 64 * 1024)
    monkeypatch.setattr(streams, "PUSH_GAP_S", 0)  # every view written, so the stuck phone's fall behind fast
    companion = start()
    stuck = socket.socket()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
    stuck.connect(("127.0.0.1", companion.port))
    stuck.sendall(b"GET /api/public/events HTTP/1.1\r\nHost: table\r\n\r\n")
    reader = urllib.request.urlopen(f"http://127.0.0.1:{companion.port}/api/public/events", timeout=10)
    wait_for(lambda: len(companion._watchers) == 2, "both streams open")
    filler = "x" * 20_000
    for n in range(400):
        companion.publish(Snapshot("g1", {"kind": "waiting", "n": n, "filler": filler}))
        if n % 20 == 0:
            while reader.fp.peek(1) and f'"n": {n}'.encode() not in reader.readline():
                pass  # the reading phone keeps up
    wait_for(lambda: len(companion._watchers) == 1, "the phone that reads nothing to be let go", 10)
    # and its connection with it, what it had not taken thrown away, not kept while it reads nothing
    wait_for(lambda: held(companion.port) == 1, "the connection of the phone that reads nothing to be closed")
    stuck.close()
    reader.close()


def test_every_phone_that_reads_gets_every_view_in_order_and_none_waits_for_another(start, monkeypatch):
    """Each push is written to every phone's connection, none waiting for another to read:
    the phones that read have the last view while others have left the last 50 unread, and
    those get their views, in order, when they read (one that never reads is let go: the test
    above). Changes closer than the push gap go as the newest of them, and a phone in a later
    batch of a push is written the newest view there is then."""
    companion = start()

    def stream(address: str) -> socket.socket:
        connection = socket.create_connection(("127.0.0.1", companion.port), source_address=(address, 0))
        connection.sendall(b"GET /api/public/events HTTP/1.0\r\nHost: table\r\n\r\n")  # 1.0: no chunks
        connection.setblocking(False)
        return connection

    fast = [stream(f"127.0.1.{n}") for n in range(1, 201)]
    slow = [stream(f"127.0.2.{n}") for n in range(1, 101)]
    got = {connection: bytearray() for connection in fast + slow}
    wait_for(lambda: len(companion._watchers) == 300, "300 streams open")

    def read(connections: list[socket.socket]) -> None:
        for connection in connections:
            with contextlib.suppress(BlockingIOError):
                while chunk := connection.recv(65536):
                    got[connection] += chunk

    views, last = 200, b'"n": 199,'
    for n in range(views):
        companion.publish(Snapshot("g1", {"kind": "waiting", "n": n, "filler": "x" * 500}))
        read(fast)
        if n % 50 == 49 and n < views - 50:  # the slow phones read now and then, not the last 50
            read(slow)
    wait_for(lambda: read(fast) or all(last in got[connection] for connection in fast), "the fast phones' last view")
    assert not any(last in got[connection] for connection in slow)
    wait_for(lambda: read(slow) or all(last in got[connection] for connection in slow), "the slow phones' last view")
    for connection in fast + slow:
        sent = [json.loads(line[6:]) for line in bytes(got[connection]).split(b"\n") if line.startswith(b"data: ")]
        numbers = [view["n"] for view in sent if "n" in view]
        connection.close()
        assert numbers[-1] == views - 1 and numbers == sorted(set(numbers)), numbers  # in order, none twice


def test_a_phone_that_leaves_its_stream_is_forgotten(start, monkeypatch):
    """A page closed (a phone locked, a tab gone) leaves no stream behind to write to."""
    from pi_table.web import streams

    monkeypatch.setattr(streams, "KEEPALIVE_S", 0.2)
    companion = start()
    phones = [urllib.request.urlopen(f"http://127.0.0.1:{companion.port}/api/public/events", timeout=10)
              for _ in range(5)]
    wait_for(lambda: len(companion._watchers) == 5, "five streams open")
    for phone_page in phones:
        phone_page.close()
    wait_for(lambda: not companion._watchers, "the streams of the phones that left to be forgotten", 5)
