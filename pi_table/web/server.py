"""The companion's web server: aiohttp in a thread of its own, fed snapshots by the table.

Routes (``TOKEN`` is a page's per-game token):

- ``/``: the public page (spectators; never the key or anyone's secrets);
- ``/p/TOKEN``: a private page; an unknown or old token gets 404 and nothing else, a token
  the table replaced (a seat taken back from the wrong phone) 410 and ``REPLACED``;
- ``/api/public``, ``/api/p/TOKEN``: the page's view as JSON;
- ``/api/public/events``, ``/api/p/TOKEN/events``: the view again on every change, as
  server-sent events; ``event: gone`` when the token stops opening anything (a new game;
  its data ``{"replaced": true}`` when the table gave the page a new link);
- ``POST /api/p/TOKEN/act`` with ``{"action": TEXT}``: a private action, handed to the
  table; the answer is ``{"ok": true}`` or ``{"ok": false, "error": WHY}``;
- ``/api/texts``: the pages' words (``texts.page_texts``).

Every page speaks the table's ``language`` unless its phone chose another: the API's ``?lang=``,
which the views' engine sentences, the refusals and the texts follow. The page itself carries
the table's language in ``<html lang>``, for the script to start from.

The server keeps no game state: it serves the newest snapshot, and actions go to the table's
own thread through the ``act`` callback, so a phone is just another input device.

It is open to anyone on the café's network, so it holds what a guest can make it hold: a
connection is counted from the moment it is accepted. Guests hold at most the connections less a
reserve (an eighth), and a share of them from one address; past that a new connection waits on the
reserve for its first request, which must carry a credential (a staff phone's device cookie or
session, a seat's token or the proof of the phone that opened it), or it is answered 503 and
closed: a flood of guests, however they hold their connections, leaves the staff and the seated
phones their way in. When no place is free even so, the least recently used idle connection gives
up its own (one still waiting for its first request, then a guest's, then another), and past that a new one
is answered 503 and closed before a byte of it is read; a request's headers must
arrive within a deadline from the connection's start (or from the end of the last answer), and
an action's body within another, so a client that dawdles is dropped. An event stream, once its
request is read, is long by design and no deadline ends it, and it needs no token: so the
spectators' streams have caps of their own (in all, and per address, a laptop being a few
addresses on a café's Wi-Fi), well below the connection cap, and one past them is answered 503.
The rest of the connections stay free for requests (the staff page's, the pages', the views) and
for the seats' own streams, which only the phone holding the seat's token opens and which are
kept to a few a seat, the oldest let go. Requests that phones get wrong (malformed HTTP, unknown
pages, bad actions) are counted and told as one line a period, not a line and a traceback each.

No secret crosses the network in clear: the staff page and the set-up page (``SECRET_PAGES``),
where PINs, passphrases and passwords are typed, are served over https with the table's own
certificate on a port of their own (``staff_tls``, ``staff_port``) while the guests' pages stay
http, so a guest never meets a certificate warning. Over plain http, from anywhere but this
machine, those pages lead to their https address and their actions are refused unread
(``_over_tls``); a table given a certificate of the owner's own serves every page over https. A
table with neither (its certificate damaged, openssl missing) fails closed: those pages answer this
machine alone. The https port's pool is shared fairly by address, as a phone that never logged in
has no credential for the reserve: a new connection takes the place of the slowest of an address
holding more than its own.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import threading
import time
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.http import HttpProcessingError, HttpVersion11
from aiohttp.typedefs import Handler
from aiohttp.web_request import BaseRequest

from ..engine import InvalidAction
from ..engine.phrase import N_, Phrase, Text
from ..engine.views import LANGUAGES
from ..files import read_json, write_private
from ..hal import AnyModel, Emit, PageOpened, Screen, SelfTestModel, SetupModel
from ..ui.i18n import UnknownLanguage, say, translation
from ..ui.words import Cards
from .auth import password_may_cross, same
from .games import publish, seats
from .pages import Pages
from .runner import ServerThread
from .seats import SeatLinks
from .snapshot import Snapshot
from .texts import localized, page_files, page_texts, refusal_page, rendered_page
from .tokens import Tokens

if TYPE_CHECKING:
    from .staff import StaffPage

log = logging.getLogger("pi_table.web")
Act = Callable[[str, str, str], "Text | None"]  # a refusal, said in each page's language
"""``act(game_id, role, text)``: None when the table accepted the action for that game, else why
it refused it (a page of a game that has just ended must not act in the next one)."""
MAX_BODY = 4096  # an action is a line of text
ADVERTISE_S = 10.0
KEEPALIVE_S = 15.0
PUSH_GAP_S = 0.25
"""The phones are sent the newest view at most this often: a change that comes sooner after
the last push waits for the gap and goes with whatever follows it. However fast the guesses
come, the phones' sends then cost the table at most four pushes a second; at a table's pace (a
reveal every few seconds) every change still goes at once."""
PUSH_BATCH = 10
BATCH_GAP_S = 0.005
"""A push is written to ten phones at a time, 5 ms apart: 300 phones in about 150 ms, within
the push gap. Between two batches the companion's thread sleeps, so a touch that comes during a
push waits for the interpreter's lock behind ten writes, not 300 (a thread that holds the lock
and keeps running does not hand it over), and a table held to a share of a core (systemd's
quota, counted in periods of 100 ms) spends a push's sends across periods, not in the one a
touch comes in (docs/dev/benchmarks.md)."""
BEHIND_BYTES = 256 * 1024  # unsent to one phone: it has stopped reading, so it is let go (its page reconnects)
STATIC = (*page_files(), "style.css")
HEADER_TIMEOUT_S = 10.0  # a request's line and headers, from the connection's start or the last answer
BODY_TIMEOUT_S = 10.0  # an action's body, from the end of its headers
MAX_CONNECTIONS = 512  # open at once, whatever for: the ceiling over the streams' caps and the requests' places
MAX_PER_ADDRESS = 64  # a guest's from one address: a phone needs a handful
SECRET_CONNECTIONS = 64  # open at once on the secret pages' https port: a few staff phones and the owner's
SECRET_PER_ADDRESS = 8  # from one address there: a phone's handful, so one flooding address leaves the rest places
RESERVED = 8  # an eighth of the connections are kept for requests that carry a credential
WAITING_PER_ADDRESS = 2  # connections from one address waiting on the reserve for their first request
MAX_STREAMS = 320  # the public page's event streams: 300 spectators' fit; the other 192 are the seats' and the requests'
MAX_STREAMS_PER_ADDRESS = 8  # a spectator's phone: a tab or two, and the streams a dropped Wi-Fi left behind
STREAMS_PER_PAGE = 4  # a seat's own streams (its token's): past them the oldest is let go
REPORT_S = 60.0  # how often the count of bad requests is told
RETRY_S = 10  # what a connection or stream turned away at a cap is told: try again after the header deadline
POLICY = "default-src 'self'; frame-ancestors 'none'"
EVERY_ANSWER = {"Content-Security-Policy": POLICY, "Server": "pi-table"}
SECRET_PAGES = ("/staff", "/setup")
"""The pages where the staff and the owner type secrets, and everything under them: https only,
but from this machine."""
HTTPS_ONLY = N_("the staff and set-up pages take PINs and passwords over https only, never in clear: open {url}")
"""On every answer: the pages load nothing from elsewhere and run in no one else's frame; the
server names itself without a version for anyone to look up."""
HERE_ONLY = N_("the staff and set-up pages answer this machine alone while the table has no certificate for https, "
               "never in clear: the table's screen says why and what to do")


class Companion(ServerThread):
    """``act`` takes the private pages' actions; ``opened(role)`` is told, once per token,
    when a phone first opens a private page (so the screen can stop showing its QR code).
    Links are ``base_url``, else ``http://ADDRESS:PORT`` with the port it listens on, where
    ADDRESS is what ``advertise()`` says (how phones reach this machine; asked again every
    ``ADVERTISE_S``, as a table that booted before its Wi-Fi gets its address later), else
    ``host``. ``language`` is the pages' own until a phone picks another. The deadlines, the
    caps (connections, and the public page's event streams) and how often bad requests are told
    are the module's defaults; tests make them small."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, act: Act | None = None, base_url: str = "",
        opened: Callable[[str], None] | None = None, advertise: Callable[[], str] | None = None,
        proof: Callable[[str], str] | None = None, opened_file: Path | None = None,
        header_timeout_s: float = HEADER_TIMEOUT_S, body_timeout_s: float = BODY_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS, max_per_address: int = MAX_PER_ADDRESS,
        max_streams: int = MAX_STREAMS, max_streams_per_address: int = MAX_STREAMS_PER_ADDRESS,
        report_s: float = REPORT_S, language: str = LANGUAGES[0],
        staff: StaffPage | None = None, tls: ssl.SSLContext | None = None,
        staff_tls: ssl.SSLContext | None = None, staff_port: int = 0,
    ) -> None:
        super().__init__("companion")
        self.staff = staff  # the staff page (/staff), when the table has one
        self.tls = tls  # every page over https with this context (the owner's certificate); None for http
        self.staff_tls, self.staff_port = staff_tls, staff_port  # the secret pages' https beside http's pages
        self.host, self.port, self.advertise = host, port, advertise
        self.header_timeout_s, self.body_timeout_s = header_timeout_s, body_timeout_s
        self.report_s = report_s
        self._pool = _Pool(max_connections, max_per_address, max_connections // RESERVED)  # every open connection
        # the secret pages' https has a pool of its own: guests who hold every connection of the
        # pages' port leave a phone that never logged in its way to the staff and set-up pages
        self._secret_pool = _Pool(SECRET_CONNECTIONS, SECRET_PER_ADDRESS, SECRET_CONNECTIONS // RESERVED, fair=True)
        self._spectators = _Held(max_streams, max_streams_per_address)  # the public page's event streams
        self._bad = _BadRequests()
        self.proof = proof or Tokens.kept_in(None).proof  # what a phone's cookie must say, by token
        self.opened_file = opened_file
        self._address: tuple[float, str] | None = None  # (when, what advertise said)
        self.act = act
        self.opened = opened
        self._opened: set[str] = set()  # tokens some phone has opened: that phone keeps them
        if opened_file is not None and opened_file.exists():
            try:
                self._opened = set(opened_file.read_text(encoding="ascii").split())
            except (OSError, UnicodeError) as e:
                log.warning("cannot read %s (%s): every seat's code shows again", opened_file, e)
        self._base_url = base_url.rstrip("/")
        self._snapshot = Snapshot("", {"kind": "waiting"})
        self._published = self._snapshot  # the last snapshot handed over by the table (``publish``)
        self._publishing = threading.Lock()
        self._frames: dict[tuple[str | None, str, bool], bytes | None] = {}  # the views as sent, by (page, language, chunked)
        self._files = {name: resources.files(__package__).joinpath("static", name).read_bytes() for name in STATIC}
        self._template = self._files["page.html"].decode()
        self.speak(language)
        self._watchers: dict[_Watcher, None] = {}  # the open event streams, oldest first
        self._pushed_at = -PUSH_GAP_S  # when the phones were last sent a change (the server loop's clock)
        self._push_due: asyncio.TimerHandle | None = None  # a push waiting out the gap
        self._listener: asyncio.Server | None = None
        self._secure: asyncio.Server | None = None  # the secret pages' https listener
        self._reporter: asyncio.Task[None] | None = None
        self._closing = False

    # -- the table's side (any thread) ------------------------------------------------------

    def publish(self, snapshot: Snapshot) -> None:
        """Serve ``snapshot`` from now on and tell every open page; safe from any thread.

        The table shows itself again on every event (a touch, a tick of its timer), and most
        change nothing a page shows: those are let go here, in the table's thread, so the
        server's thread is not woken for them (a wake is a write to its loop, and a wait for
        the interpreter while that thread pushes the last change to the phones)."""
        with self._publishing:  # handed over in the order they are compared
            if snapshot == self._published:
                return
            self._published = snapshot
            if not self.call(self._set, snapshot):
                self._snapshot = snapshot

    @property
    def base_url(self) -> str:
        if self._base_url:
            return self._base_url
        address = self.host
        if self.advertise is not None:
            now = time.monotonic()
            if self._address is None or now - self._address[0] > ADVERTISE_S:
                self._address = (now, self.advertise())
            address = self._address[1]
        return f"{'https' if self.tls else 'http'}://{address}:{self.port}"

    @property
    def staff_url(self) -> str:
        """Where the staff and set-up pages are: the https address beside the pages' own, or the
        pages' own address when it is https already (or when nothing leaves this machine)."""
        if self.staff_tls is None:
            return self.base_url
        host = self.base_url.split("://", 1)[1].rsplit(":", 1)[0]
        return f"https://{host}:{self.staff_port}"

    def link(self, token: str) -> str:
        return f"{self.base_url}/p/{token}"

    # -- the server's side (its own thread) -------------------------------------------------

    async def _open(self) -> None:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._door, self._over_tls, _give_proof])
        app.on_response_prepare.append(self._answering)
        app.add_routes([
            web.get("/", self._page_public),
            web.get("/p/{token}", self._page_private),
            web.get("/static/{name}", self._static),
            web.get("/api/public", self._view_public),
            web.get("/api/p/{token}", self._view_private),
            web.get("/api/texts", self._page_texts),
            web.get("/api/public/events", self._events_public),
            web.get("/api/p/{token}/events", self._events_private),
            web.post("/api/p/{token}/act", self._act),
            web.get("/favicon.ico", self._no_icon),
        ])
        if self.staff is not None:
            self.staff.mount(app)
        runner = await self._set_up(app)
        loop = asyncio.get_running_loop()
        server = runner.server
        assert server is not None  # made by setup()
        self._listener = await loop.create_server(
            lambda: _Connection(self, server, loop, self._pool), self.host, self.port, reuse_address=True, backlog=128,
            ssl=self.tls, ssl_handshake_timeout=self.header_timeout_s if self.tls else None)
        if self.port == 0:
            self.port = self._listener.sockets[0].getsockname()[1]
        if self.staff_tls is not None:
            self._secure = await loop.create_server(
                lambda: _Connection(self, server, loop, self._secret_pool), self.host, self.staff_port, reuse_address=True, backlog=128,
                ssl=self.staff_tls, ssl_handshake_timeout=self.header_timeout_s)
            if self.staff_port == 0:
                self.staff_port = self._secure.sockets[0].getsockname()[1]
        self._reporter = asyncio.create_task(self._report_every_period())

    async def _close(self) -> None:
        """Every event stream ends, no connection is taken any more, and what was counted since
        the last report is told; the application's shutdown follows."""
        assert self._reporter is not None and self._listener is not None  # _open ran
        self._closing = True
        self._wake()
        self._reporter.cancel()
        self._listener.close()
        if self._secure is not None:
            self._secure.close()
        self._bad.report()

    async def _report_every_period(self) -> None:
        while True:
            await asyncio.sleep(self.report_s)
            self._bad.report()

    def _admit(self, connection: _Connection, address: str) -> bool:
        """Count a new connection from ``address`` in, closing idle ones to free a place if need be,
        unless none can be freed."""
        let_go = connection.pool.admit(connection, address)
        if let_go is None:
            self._bad.turned_away[address] += 1
            return False
        for idle in let_go:
            self._bad.let_go[idle.address or "?"] += 1
            idle.force_close()
        return True

    @web.middleware
    async def _door(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Every request: one that carries a credential makes its connection trusted; one on a
        connection waiting on the reserve that carries none is told to come back, and its
        connection closed. The connection is busy (not to be closed to free a place) while it is answered."""
        connection = request.protocol
        assert isinstance(connection, _Connection)  # the companion's every connection is one
        if connection.standing != TRUSTED and self._credential(request):
            connection.pool.trust(connection)
        elif connection.standing == WAITING:
            self._bad.turned_away[request.remote or "?"] += 1
            busy = web.Response(status=503, headers={**NO_STORE, "Retry-After": str(RETRY_S)})
            busy.force_close()
            return busy
        connection.busy += 1
        try:
            return await handler(request)
        finally:
            connection.busy -= 1
            connection.pool.used(connection)

    @web.middleware
    async def _over_tls(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """A secret page over plain http from another machine: a page's address leads to its
        https one (308, which keeps the method); an action is refused before its body is read,
        so a PIN or a password sent in clear is never checked (nor logged) and the phone is told
        where to go. With no https to lead to (the table's certificate damaged, or none to be
        made), the page is refused: it answers this machine alone, never the network in clear.
        This machine's own requests (the table's commands, its tests) cross no network."""
        if not request.path.startswith(SECRET_PAGES) or password_may_cross(request):  # every server's policy
            return await handler(request)
        asked = request.headers.get("X-Staff-Lang", "")
        lang = asked if asked in LANGUAGES else self._lang(request)
        if self.staff_tls is None:  # no https to lead to
            said = say(Phrase.of(HERE_ONLY), lang)
            if request.method in ("GET", "HEAD"):
                raise web.HTTPForbidden(text=refusal_page(said, lang), content_type="text/html", headers=NO_STORE)
            return web.json_response({"ok": False, "error": said}, status=403, headers=NO_STORE)
        url = request.url.with_scheme("https").with_port(self.staff_port)
        if request.method in ("GET", "HEAD"):
            raise web.HTTPPermanentRedirect(url, headers=NO_STORE)
        said = say(Phrase.of(HTTPS_ONLY, url=str(url.with_path(request.path.split("/api")[0]).with_query(None))), lang)
        return web.json_response({"ok": False, "error": said, "https": str(url)}, status=403, headers=NO_STORE)

    def _credential(self, request: web.Request) -> bool:
        """Whether the request comes from a staff phone that has logged in here (its device
        cookie, or a live session), or from a seat's phone: a token of the game on the table
        that no phone has opened yet, or the proof of the phone that did."""
        if self.staff is not None and self.staff.gate.known(request):
            return True
        private = self._snapshot.private
        token = request.match_info.get("token")
        if token in private and token not in self._opened:
            return True
        return any(same(request.cookies[name], self.proof(token))
                   for token in private if (name := _cookie_name(token)) in request.cookies)

    async def _answering(self, request: web.Request, response: web.StreamResponse) -> None:
        """Every answer the app gives: the headers all carry, and a count of the bad requests
        (not of the table's refusals: another phone's page, an action out of turn; nor of the
        staff's actions, which the staff page answers and logs itself)."""
        response.headers.update(EVERY_ANSWER)
        if response.status in BAD_REQUESTS and not request.path.startswith(STAFF_ACTIONS):
            self._bad.answered[BAD_REQUESTS[response.status]] += 1

    def _set(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        self._frames = {}
        kept = self._opened & set(snapshot.private)
        if kept != self._opened:  # a new game, or a seat's new link: the old tokens open nothing now
            self._opened = kept
            self._keep_opened()
        self._wake_soon()

    def announce(self, event: str) -> None:
        """Tell every spectator's page of ``event`` (``event: NAME`` on the public stream, no data:
        the page fetches what changed, as it fetches the night's standings); safe from any thread."""
        self.call(self._announce, event)

    def _announce(self, event: str) -> None:
        for watcher in list(self._watchers):
            if watcher.page is None and not watcher.done.is_set() and not watcher.transport.is_closing():
                watcher.send(f"event: {event}\ndata: {{}}\n\n".encode())

    def _wake_soon(self) -> None:
        """Send the phones the change now, or once ``PUSH_GAP_S`` has passed since the last
        push (a push already waiting will send the newest view: nothing more is asked)."""
        if self._push_due is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._pushed_at + PUSH_GAP_S - loop.time()
        if wait <= 0:
            self._wake()
        else:
            self._push_due = loop.call_later(wait, self._wake)

    def _wake(self) -> None:
        """Send every open event stream its page's view, if it changed (or that it is gone).

        One write a phone straight to its connection, of bytes made once for all the phones of
        a page (``_frame``), in batches (``PUSH_BATCH``): no coroutine is woken, so 300 phones
        cost the companion's thread a few short bursts, and the table's threads, which share the
        interpreter with it, wait behind one of them at most. A phone in a later batch is
        written the view as it is then, the newest."""
        if self._push_due is not None:  # the table stops while a push waits: this one is the last
            self._push_due.cancel()
            self._push_due = None
        self._pushed_at = asyncio.get_running_loop().time()
        self._push_batches(list(self._watchers))

    def _push_batches(self, watchers: list[_Watcher]) -> None:
        """Write ``watchers`` their views ``PUSH_BATCH`` at a time, ``BATCH_GAP_S`` apart; all
        at once when the table stops (nothing is written then: each stream is ended)."""
        batch = len(watchers) if self._closing else PUSH_BATCH
        for watcher in watchers[:batch]:
            self._push(watcher)
        if rest := watchers[batch:]:
            asyncio.get_running_loop().call_later(BATCH_GAP_S, self._push_batches, rest)

    def _push(self, watcher: _Watcher) -> None:
        if self._closing or watcher.transport.is_closing():  # the table stops, or the phone left
            watcher.done.set()
            return
        frame = self._frame(watcher.page, watcher.lang, watcher.chunked)
        if frame is None:
            why = {"replaced": True} if watcher.page in self._snapshot.replaced else {}
            watcher.send(f"event: gone\ndata: {json.dumps(why)}\n\n".encode())
            watcher.done.set()
        elif frame != watcher.sent:
            if watcher.transport.get_write_buffer_size() > BEHIND_BYTES:
                watcher.drop()
                return
            watcher.transport.write(frame)
            watcher.sent = frame

    def _private(self, request: web.Request) -> tuple[str, dict[str, Any]]:
        """The (role, view) behind the request's token, for the phone that opened it first.

        The first phone to open a token's page keeps it: it gets a cookie that proves it (an
        HMAC of the token under the companion's secret, so it survives a restart), and any
        other phone is refused. A code photographed over someone's shoulder then shows up as
        a refusal on the rightful phone, not as a silent spy."""
        token = request.match_info["token"]
        entry = self._snapshot.private.get(token)
        if entry is None:
            if token in self._snapshot.replaced:  # its holder may have been the rightful phone: say so
                raise _refusal(request, web.HTTPGone, self._words(request, REPLACED), self._lang(request))
            raise web.HTTPNotFound(text="")  # nothing at all for a wrong or old token
        name, proof = _cookie_name(token), self.proof(token)
        if token in self._opened:
            if not same(request.cookies.get(name, ""), proof):
                raise _refusal(request, web.HTTPForbidden, self._words(request, ANOTHER_PHONE), self._lang(request))
        else:
            self._opened.add(token)
            self._keep_opened()
            request[BIND] = (name, proof)
            if self.opened is not None:
                self.opened(entry[0])
        return entry

    def _keep_opened(self) -> None:
        """Write down the opened tokens of the game on the table, so a restart keeps them."""
        if self.opened_file is None:
            return
        kept = sorted(self._opened & set(self._snapshot.private))
        try:
            write_private(self.opened_file, "".join(f"{token}\n" for token in kept).encode("ascii"))
        except OSError as e:
            log.warning("cannot keep the opened pages in %s (%s): after a restart their codes show again", self.opened_file, e)

    def was_opened(self, token: str) -> bool:
        """Whether a phone has opened this token's page (a phone that reconnects after a
        restart opens it again by itself); safe from any thread."""
        return token in self._opened

    def speak(self, language: str) -> None:
        """The pages' language for a phone that has not chosen its own: the table's, which the
        staff page or the fleet may change while the table runs."""
        if language not in LANGUAGES:
            raise UnknownLanguage(f"the pages speak {' or '.join(LANGUAGES)}, not {language!r}")
        self.language = language
        self._files["page.html"] = rendered_page(self._template, language).encode()

    def _lang(self, request: web.Request) -> str:
        """The language the page asked for (``?lang=``), else the table's."""
        asked = request.query.get("lang", "")
        return asked if asked in LANGUAGES else self.language

    def _words(self, request: web.Request, msgid: str) -> str:
        """One of the companion's own sentences in the asking page's language."""
        return translation(self._lang(request)).gettext(msgid)

    def _file(self, name: str, content_type: str) -> web.Response:
        return web.Response(body=self._files[name], content_type=content_type, headers=NO_STORE)

    async def _page_public(self, request: web.Request) -> web.Response:
        return self._file("page.html", "text/html")

    async def _page_private(self, request: web.Request) -> web.Response:
        self._private(request)
        return self._file("page.html", "text/html")

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC or name == "page.html":
            raise web.HTTPNotFound(text="")
        return self._file(name, "text/css" if name.endswith(".css") else "application/javascript")

    async def _no_icon(self, request: web.Request) -> web.Response:
        """What a browser asks of every site on its own: no icon, and no bad request to count."""
        return web.Response(status=204, headers={"Cache-Control": "max-age=86400"})

    async def _page_texts(self, request: web.Request) -> web.Response:
        return web.json_response(page_texts(self._lang(request)), headers=NO_STORE)

    async def _view_public(self, request: web.Request) -> web.Response:
        return web.json_response(localized(self._snapshot.public, self._lang(request), self._snapshot.sentences), headers=NO_STORE)

    async def _view_private(self, request: web.Request) -> web.Response:
        return web.json_response(localized(self._private(request)[1], self._lang(request), self._snapshot.sentences), headers=NO_STORE)

    async def _events_public(self, request: web.Request) -> web.StreamResponse:
        """A spectator's stream, within the spectators' caps: the rest of the connections are
        kept for requests and the seats' streams, which a flood of these must not take."""
        address = request.remote or "?"
        if not self._spectators.admit(address):
            self._bad.streams_refused[address] += 1
            busy = web.Response(status=503, headers={**NO_STORE, "Retry-After": str(RETRY_S)})
            busy.force_close()
            return busy
        try:
            return await self._stream(request, None)
        finally:
            self._spectators.let_go(address)

    async def _events_private(self, request: web.Request) -> web.StreamResponse:
        self._private(request)
        return await self._stream(request, request.match_info["token"])

    def _frame(self, page: str | None, lang: str, chunked: bool) -> bytes | None:
        """The view of ``page`` (a token, or None for the public page) in ``lang`` as its event
        stream sends it, framed as the stream is (``chunked`` or not), or None when the token
        opens nothing now; made once a snapshot, page, language and framing, however many
        phones watch the page."""
        key = (page, lang, chunked)
        if key not in self._frames:
            view = self._snapshot.public if page is None else self._snapshot.private.get(page, (None, None))[1]
            said = None if view is None else localized(view, lang, self._snapshot.sentences)
            self._frames[key] = None if said is None else _framed(
                f"data: {json.dumps(said, ensure_ascii=False)}\n\n".encode(), chunked)
        return self._frames[key]

    async def _stream(self, request: web.Request, page: str | None) -> web.StreamResponse:
        """The page's view now and on every change (``_wake`` sends them), a comment now and
        then so proxies and phones know the line is alive, and ``event: gone`` once the page
        opens nothing any more."""
        response = web.StreamResponse(headers={**NO_STORE, "Content-Type": "text/event-stream"})
        chunked = request.version >= HttpVersion11
        if chunked:
            response.enable_chunked_encoding()
        _set_proof(request, response)  # sent with the headers, before the middleware could
        await response.prepare(request)
        transport = request.transport
        if transport is None:  # the phone left before its headers went out
            return response
        watcher = _Watcher(page, self._lang(request), transport, chunked)
        if page is not None:  # a seat's: only its phone opens it, so its oldest streams are that phone's too
            own = [other for other in self._watchers if other.page == page and not other.done.is_set()]
            for oldest in own[:max(0, len(own) + 1 - STREAMS_PER_PAGE)]:
                oldest.drop()
        self._watchers[watcher] = None
        connection = request.protocol
        assert isinstance(connection, _Connection)  # the companion's every connection is one
        connection.stream = watcher
        try:
            self._push(watcher)
            while not watcher.done.is_set():
                try:
                    async with asyncio.timeout(KEEPALIVE_S):
                        await watcher.done.wait()
                except TimeoutError:
                    if watcher.transport.is_closing():  # the phone left: nothing will end this stream else
                        break
                    watcher.send(b": still here\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self._watchers.pop(watcher, None)
        return response

    async def _act(self, request: web.Request) -> web.Response:
        role = self._private(request)[0]
        if self.act is None:
            return web.json_response({"ok": False, "error": self._words(request, SHOWS_ONLY)}, status=405)
        try:
            async with asyncio.timeout(self.body_timeout_s):
                body = await request.json(loads=read_json)
        except web.HTTPRequestEntityTooLarge:
            too_long = self._words(request, N_("an action is at most {bytes} bytes")).format(bytes=MAX_BODY)
            return web.json_response({"ok": False, "error": too_long}, status=413)
        except TimeoutError:
            why = self._words(request, N_("the action did not arrive within {seconds} s")).format(
                seconds=f"{self.body_timeout_s:g}")
            late = web.json_response({"ok": False, "error": why}, status=408)
            late.force_close()
            return late
        except ValueError:
            body = None
        try:
            text = body["action"]
            if not isinstance(text, str) or not text.strip() or "\n" in text:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            return web.json_response({"ok": False, "error": self._words(request, MALFORMED_ACTION)}, status=400)
        error = await asyncio.to_thread(self.act, self._snapshot.game_id, role, text.strip())
        if error is None:
            return web.json_response({"ok": True, "error": None})
        return web.json_response({"ok": False, "error": say(error, self._lang(request))}, status=409)


class _Connection(web.RequestHandler):
    """One connection to the companion: aiohttp's own handler, counted against the companion's
    caps from the moment it is accepted. Past a cap it is answered 503 and closed before a
    byte of it is read. aiohttp's keep-alive deadline, which runs while the connection waits
    for a request and is not renewed by bytes that do not complete one, is the header deadline;
    its lingering (reading a body the answer did not need) is bounded by the body deadline.
    An event stream on it ends when it closes, which aiohttp does not tell the stream's handler."""

    def __init__(self, companion: Companion, server: web.Server, loop: asyncio.AbstractEventLoop,
                 pool: _Pool) -> None:
        super().__init__(server, loop=loop, keepalive_timeout=companion.header_timeout_s,
                         lingering_time=companion.body_timeout_s, logger=companion._bad.logger,
                         access_log=None)  # type: ignore[arg-type]  # aiohttp takes None: no access log
        self.companion = companion
        self.pool = pool  # the listener's: the guests' pages', or the secret pages' https
        self.address: str | None = None  # where it comes from, once counted in
        self.standing: str | None = None  # GUEST, WAITING or TRUSTED while counted in (``_Pool``)
        self.busy = 0  # requests being answered on it: while any is, it is not closed to free a place
        self.opened = False  # counted in and handed to aiohttp
        self.stream: _Watcher | None = None  # the event stream it carries (or carried last)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # a TCP server's
        peer = transport.get_extra_info("peername")
        if not self.companion._admit(self, peer[0] if peer else "?"):
            transport.write(BUSY)
            transport.close()
            return
        self.opened = True
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if not self.opened:  # turned away: aiohttp never had it
            return
        self.pool.let_go(self)
        if self.stream is not None:
            self.stream.done.set()
        super().connection_lost(exc)

    def handle_error(self, request: BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """aiohttp's own answer to a request it could not parse (or a handler that failed),
        with the headers every answer carries."""
        response = super().handle_error(request, status, exc, message)
        response.headers.update(EVERY_ANSWER)
        return response


BUSY = (
    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n"
    f"Retry-After: {RETRY_S}\r\n" + "".join(f"{name}: {value}\r\n" for name, value in EVERY_ANSWER.items()) + "\r\n"
).encode()
STAFF_ACTIONS = "/staff/api/"
MALFORMED, UNKNOWN_PAGES, BAD_ACTIONS = "malformed", "unknown pages", "bad actions"
BAD_REQUESTS = {400: BAD_ACTIONS, 404: UNKNOWN_PAGES, 405: UNKNOWN_PAGES, 408: BAD_ACTIONS, 413: BAD_ACTIONS}
"""The app's answers that count as a bad request, by kind (the only bodies it reads are actions)."""


class _BadRequests(logging.Handler):
    """What phones got wrong, counted to be told as one line a period.

    It is also the log of aiohttp's connections (a logger of its own, outside the logging tree),
    which logs every request it cannot parse with a traceback: those are counted instead. Any
    other record (a handler that failed: a bug) goes on to this module's log as it is."""

    def __init__(self) -> None:
        super().__init__()
        self.logger = logging.Logger("pi_table.web.connections")  # noqa: LOG001 (outside the tree, as said)
        self.logger.addHandler(self)
        self.answered: Counter[str] = Counter()  # bad requests, by kind
        self.turned_away: Counter[str] = Counter()  # connections refused at a cap, by address
        self.let_go: Counter[str] = Counter()  # idle connections closed to free a place for new ones, by address
        self.streams_refused: Counter[str] = Counter()  # public event streams refused at a cap, by address

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            self.answered[MALFORMED] += 1
        elif log.isEnabledFor(record.levelno):
            log.handle(record)

    def report(self) -> None:
        parts = []
        if self.answered:
            kinds = ", ".join(f"{count} {kind}" for kind, count in self.answered.most_common())
            parts.append(f"{self.answered.total()} bad requests ({kinds})")
        for refused, what in ((self.turned_away, "connections turned away at the cap"),
                              (self.let_go, "idle connections closed to free a place"),
                              (self.streams_refused, "event streams refused at their cap")):
            if refused:
                address, most = refused.most_common(1)[0]
                parts.append(f"{refused.total()} {what} ({most} from {address})")
        if parts:
            log.warning("phones since the last report: %s", "; ".join(parts))
        self.answered.clear()
        self.turned_away.clear()
        self.let_go.clear()
        self.streams_refused.clear()


GUEST, WAITING, TRUSTED = "guest", "waiting", "trusted"
"""A connection's standing: a guest's (it may ask for anything anyone may), one waiting on the
reserve for its first request (which must carry a credential), one whose request carried one."""


class _Pool:
    """A listener's pool of places: every open connection, by standing and address, least recently
    used first. Guests hold at most ``total - reserve`` places in all and ``per_address`` from one
    address; past that a new one waits on the reserve, ``WAITING_PER_ADDRESS`` from one address at
    most, for its first request (the companion's ``_door`` judges it). When a new one finds no place
    free, an idle connection gives up its own, the least recently used of those still waiting, else
    of the guests', else of the trusted. A ``fair`` pool (the secret pages': a phone that never
    logged in has no credential for the reserve) shares the guests' places by address: a new one
    from an address holding fewer than another takes the place of that address's least recently
    used idle one (the slowest, one that never finished a request first), so no number of
    addresses holding slow connections keeps another from its share (issue 58, 5a)."""

    def __init__(self, total: int, per_address: int, reserve: int, fair: bool = False) -> None:
        self.total, self.per_address, self.guests, self.fair = total, per_address, total - reserve, fair
        self._open: dict[_Connection, None] = {}  # least recently used first
        self._count = {standing: Counter[str]() for standing in (GUEST, WAITING, TRUSTED)}  # by address

    def admit(self, connection: _Connection, address: str) -> list[_Connection] | None:
        """Count ``connection`` from ``address`` in: the idle connections let go to free a place for
        it (to be closed), or None when none can be freed."""
        guests = self._count[GUEST]
        shared = self._shared(address) if self.fair and guests.total() >= self.guests else None
        if guests.total() < self.guests and guests[address] < self.per_address:
            let_go = []
            standing = GUEST
        elif shared is not None:
            let_go = [shared]
            standing = GUEST
        else:
            standing = WAITING
            if self._count[WAITING][address] >= WAITING_PER_ADDRESS:
                idle = self._idle(WAITING, address)
            elif len(self._open) >= self.total:
                idle = self._idle(WAITING) or self._idle(GUEST) or self._idle(TRUSTED)
            else:
                idle = connection  # places enough: none to let go
            if idle is None:
                return None
            let_go = [] if idle is connection else [idle]
        for each in let_go:
            self.let_go(each)
        connection.address, connection.standing = address, standing
        self._count[standing][address] += 1
        self._open[connection] = None
        return let_go

    def _shared(self, address: str) -> _Connection | None:
        """The guest's place a new connection from ``address`` takes in a full fair pool: the least
        recently used idle one of the addresses holding the most, when they hold more than
        ``address``; None when ``address`` holds as many (or none of theirs is idle)."""
        guests = self._count[GUEST]
        most = max(guests.values(), default=0)
        if most <= guests[address] or guests[address] >= self.per_address:
            return None
        return next((each for each in self._open if each.standing == GUEST and not each.busy
                     and each.address is not None and guests[each.address] == most), None)

    def trust(self, connection: _Connection) -> None:
        """Its request carried a credential: it holds a trusted place from now on (unless it was
        let go as its request arrived: it closes)."""
        if connection.standing is not None:
            self._move(connection, TRUSTED)

    def used(self, connection: _Connection) -> None:
        """A request on it was answered: it is the most recently used."""
        if self._open.pop(connection, False) is None:
            self._open[connection] = None

    def let_go(self, connection: _Connection) -> None:
        """It is counted out (closed, or about to be); once is enough."""
        if self._open.pop(connection, False) is None:
            self._move(connection, None)

    def _move(self, connection: _Connection, standing: str | None) -> None:
        assert connection.standing is not None and connection.address is not None  # counted in
        count = self._count[connection.standing]
        count[connection.address] -= 1
        if not count[connection.address]:
            del count[connection.address]
        connection.standing = standing
        if standing is not None:
            self._count[standing][connection.address] += 1

    def _idle(self, standing: str, address: str | None = None) -> _Connection | None:
        """The least recently used connection of ``standing`` (from ``address``) that is not being
        answered, if any."""
        return next((each for each in self._open if each.standing == standing and not each.busy
                     and address in (None, each.address)), None)


class _Held:
    """What is held open (connections, or event streams) by address, under a cap in all and
    one an address."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total, self.per_address = total, per_address
        self._by_address: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        """Count one more from ``address`` in, unless a cap is reached."""
        if self._by_address.total() >= self.total or self._by_address[address] >= self.per_address:
            return False
        self._by_address[address] += 1
        return True

    def let_go(self, address: str) -> None:
        self._by_address[address] -= 1
        if not self._by_address[address]:
            del self._by_address[address]


class _Watcher:
    """One phone's open event stream: its page (a token, None for the public one) and language,
    the view it was last sent (as framed), and its connection, written to directly with the
    stream's chunk framing."""

    def __init__(self, page: str | None, lang: str, transport: asyncio.Transport, chunked: bool) -> None:
        self.page, self.lang, self.transport, self.chunked = page, lang, transport, chunked
        self.sent: bytes | None = None
        self.done = asyncio.Event()

    def send(self, data: bytes) -> None:
        self.transport.write(_framed(data, self.chunked))  # its callers have looked that the phone is still there

    def drop(self) -> None:
        """Close its connection at once and end it (a page that is still alive reconnects): what
        was not sent is thrown away, as a phone that reads nothing would never take it and its
        connection, closed politely, would wait for it for ever."""
        self.transport.abort()
        self.done.set()


ANOTHER_PHONE = N_("This page is already open on another phone. If that was not you, tell the table's staff.")
REPLACED = N_("This seat's link was replaced: scan the new code on the table's screen.")
SHOWS_ONLY = N_("this page only shows; it takes no actions")
MALFORMED_ACTION = N_('expected a JSON object {"action": "<one line of text>"}')
BIND = web.RequestKey("bind", tuple)  # the cookie to give the phone that has just opened a page
COOKIE_S = 24 * 3600


def _framed(data: bytes, chunked: bool) -> bytes:
    """``data`` as a stream carries it: one chunk of HTTP/1.1's chunked encoding, or as it is."""
    return b"%x\r\n%s\r\n" % (len(data), data) if chunked else data


def _set_proof(request: web.Request, response: web.StreamResponse) -> None:
    """Give the phone that has just opened a page its proof."""
    if BIND in request:
        name, proof = request[BIND]
        response.set_cookie(name, proof, path="/", httponly=True, samesite="Strict", max_age=COOKIE_S)


@web.middleware
async def _give_proof(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await handler(request)
    if not response.prepared:
        _set_proof(request, response)
    return response


def _refusal(request: web.Request, kind: type[web.HTTPException], text: str, lang: str) -> web.HTTPException:
    """A refusal in the form its asker reads: JSON for the page's own requests, else a page in
    ``lang`` (a screen reader says it in that language's voice)."""
    if request.path.startswith("/api/"):
        return kind(text=json.dumps({"ok": False, "error": text}), content_type="application/json")
    return kind(text=refusal_page(text, lang), content_type="text/html")


def _cookie_name(token: str) -> str:
    """One cookie a page, so one browser may hold two seats' pages (a test, a host's phone)."""
    return f"pt_{token[:12]}"


NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
"""Private pages must not linger in a phone's cache, nor leak their token to another site."""


class CompanionScreen(Screen):
    """The table's screen with the companion beside it: every model the table shows is also
    published as its kind publishes it (``web.games``), and the screen gets the links to show as
    QR codes: for the grid games, the board for spectators and the key behind the spymaster's
    token, whose link the spymaster screen shows (only the spymasters see it); for a game whose
    players have seats, each seat's page, whose link the table's screen shows until a phone has
    opened it, and which the table may give a new link (``release_seat``) when the wrong phone
    opened it; ``seats`` keeps those releases."""

    def __init__(self, screen: Screen, companion: Companion, tokens: Tokens, seats: SeatLinks | None = None,
                 cards: Cards | None = None) -> None:
        self.screen, self.companion, self.tokens = screen, companion, tokens
        self.seats = seats or SeatLinks()
        self.pages = Pages(companion, tokens, self.seats, cards)  # cards: a simulated table's words, dealt per game
        self._emit: Emit | None = None
        self._shown: tuple[str, int] = ("", 0)  # the game shown last and its seats, which may be released
        companion.opened = self._opened

    def show(self, model: AnyModel) -> None:
        if not isinstance(model, SelfTestModel | SetupModel):  # a game's model (not the self-test's checklist, nor
            # a table's set-up): its pages follow it
            self._shown = (model.game_id, seats(model))
            model = publish(model, self.pages)
        self.screen.show(model)

    def release_seat(self, seat: int) -> None:
        """Void seat ``seat``'s link and give it a new one, which the next model shown publishes
        and puts on the screen as a QR code (no phone has opened it yet); the phone that held
        the old one is told its link was replaced. The game is untouched."""
        game_id, seats = self._shown
        if not seats:
            raise InvalidAction("no seat is released now: the game on the table has no seats")
        if not 0 <= seat < seats:
            raise InvalidAction("seat {seat} is not at this table: a seat is a number from 0 to {last}", seat=seat,
                                last=seats - 1)
        generation = self.seats.release(game_id, seat)
        log.info("seat %d of game %s has a new link (generation %d)", seat, game_id, generation)

    def _opened(self, role: str) -> None:
        """A phone opened a page: the loop shows again, without that page's QR code."""
        if self._emit is not None:
            self._emit(PageOpened(role))

    def start(self, emit: Emit) -> None:
        self._emit = emit
        self.screen.start(emit)

    def join(self, emit: Emit) -> None:
        """Stand beside a screen that is already showing (the daemon opens the companion once
        the table is up): take its events' way in without starting it again."""
        self._emit = emit

    def stop(self) -> None:
        self.screen.stop()
