"""Phones on the companion's pages: their requests, cookies and event streams, Chromium's arguments, a
phone for each seat."""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import re
import socket
import urllib.error
import urllib.request

from helpers import wait_for
from helpers_games import known_fragments, pick, submit


def next_event(response) -> tuple[str, dict]:
    """The next server-sent event on ``response`` (its kind and data), read line by line as a
    browser's EventSource reads it."""
    kind, data = "message", None
    while True:
        line = response.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            return kind, data

# The companion's pages, over HTTP and in a browser ----------------------------------------

PHONE = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
"""One phone for these tests' requests: it keeps the cookie each page gives the phone that opens it."""


def get(url: str, phone=PHONE) -> tuple[int, bytes]:
    try:
        with phone.open(url, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def post(url: str, body: bytes, phone=PHONE) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with phone.open(request, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def another_phone():
    """A phone of its own: its own cookies, so a page another phone opened is not its."""
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


class Phones:
    """A phone for each of ``seats``, on its seat's link, and one on the public page; each action
    is tapped on a page, then the test waits for the table to take it. ``table`` has each
    seat's ``link``, the ``companion``'s base_url, the game's ``state`` and the ``accepted`` actions."""

    def __init__(self, browser, table, seats=range(6)) -> None:
        self.table = table
        self.contexts = [browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
                         for _ in range(len(seats) + 1)]  # a phone each: its own connections
        self.pages = {seat: context.new_page() for seat, context in zip(seats, self.contexts)}
        for seat, page in self.pages.items():
            page.goto(table.link(seat))
        self.public = self.contexts[-1].new_page()
        self.public.goto(table.companion.base_url + "/")

    def close(self) -> None:
        for context in self.contexts:
            context.close()

    def taken(self, *taps) -> None:
        """Run ``taps`` (callables), then wait until the table has accepted one more action."""
        before = len(self.table.accepted)
        for tap in taps:
            tap()
        wait_for(lambda: len(self.table.accepted) == before + 1, "the table to take the page's action",
                 explain=self.status_lines)

    def status_lines(self) -> str:
        """What each page's status line says (a refusal, "sent"), for a test that timed out."""
        return "".join(f"\nseat {seat}: {page.inner_text('#status')!r}" for seat, page in self.pages.items())

    def send(self, seat: int, to: int, fact: str) -> None:
        page, codename = self.pages[seat], self.table.state.setup.agents[to].codename
        # the chip that reads "FACT: value" and no more: "position" is not the Informatore's
        # "role: informatore + position: 2", which is asked for in full
        chip = re.compile("^" + re.escape(fact) + r":[^+]*$")
        self.taken(lambda: pick(page, "send", f"{codename} (seat {to})"), lambda: pick(page, "send", chip),
                   lambda: submit(page, "send"))

    def code(self, seat: int, *fragments: str) -> None:
        """Tap each fragment the page offers; type the others, key by key, into their box."""
        page = self.pages[seat]

        def enter(position: int, fragment: str) -> None:
            chip = page.locator('form[data-form="code"] button.fragment', has_text=fragment)
            if chip.count():
                chip.click()
            else:
                page.locator(f'[data-draft="code-{position}"]').press_sequentially(fragment.lower())

        self.taken(*[lambda n=n, f=f: enter(n, f) for n, f in enumerate(fragments, start=1)], lambda: submit(page, "code"))

    def done(self, seat: int) -> None:
        self.taken(lambda: submit(self.pages[seat], "done"))

    def vote(self, seat: int, target: int) -> None:
        page, codename = self.pages[seat], self.table.state.setup.agents[target].codename
        self.taken(lambda: pick(page, "vote", f"{codename} (seat {target})"), lambda: submit(page, "vote"))

    def check_privacy(self) -> None:
        """No page's HTML, attributes included, holds a fragment its agent has not seen."""
        for seat, page in self.pages.items():
            html = page.content()
            seen = {agent.fragment for agent in self.table.state.setup.agents if agent.fragment in html}
            assert seen <= known_fragments(self.table.state, seat), f"seat {seat}'s page shows {seen}"


def this_machines_address() -> str:
    """An address of this machine on a network (not loopback), which a request from it comes from
    as a phone's would: the one the default route leaves by."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))
        address = probe.getsockname()[0]
    finally:
        probe.close()
    assert not address.startswith("127."), "this machine has no address on a network to play a phone from"
    return address


def plain(address: str, port: int, method: str, path: str, body: object = None) -> tuple[int, dict, bytes]:
    """A request over plain http, as a phone on the café's Wi-Fi sends it: redirects not followed."""
    connection = http.client.HTTPConnection(address, port, timeout=10)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        answer = connection.getresponse()
        return answer.status, dict(answer.headers), answer.read()
    finally:
        connection.close()


# --- the set-up page's phones and a fresh table in this process (test_setup_page, test_setup_from_stick) ---


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def call(base: str, method: str, path: str, body: object = None, headers: dict | None = None) -> tuple[int, object, dict]:
    """A phone's request, redirects not followed: its status, JSON (or text) and headers."""
    request = urllib.request.Request(base + path, method=method, headers={"Content-Type": "application/json",
                                                                           **(headers or {})},
                                     data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=20) as answer:
            status, raw, got = answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as e:
        status, raw, got = e.code, e.read(), dict(e.headers)
    try:
        return status, json.loads(raw), got
    except ValueError:
        return status, raw.decode(errors="replace"), got


def looked_on_stick(base: str, code: str, name: str = "newest") -> dict:
    """The set-up page's look on the USB stick for ``name``, with the ``code``, as the owner's phone
    asks it: what the root helper's copy from the stick answered."""
    status, answer, _ = call(base, "POST", "/setup/api/stick", {"code": code, "backup": name})
    assert status == 200 and answer["ok"] and answer["asked"] == name, answer
    found: dict = {}

    def answered() -> bool:
        found.update(call(base, "GET", "/setup/api/stick?lang=en", headers={"X-Stick-Ticket": answer["ticket"]})[1])
        return found.get("outcome") is not None

    wait_for(answered, "the stick's copy answered", 20)
    return found
