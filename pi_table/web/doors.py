"""It is open to anyone on the café's network, so it holds what a guest can make it hold: a
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

The companion's doors: its connections, counted and capped, and the checks every request
passes before it is answered (``web.server.Companion`` is built on them).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections import Counter
from typing import TYPE_CHECKING

from aiohttp import web
from aiohttp.http import HttpProcessingError
from aiohttp.typedefs import Handler
from aiohttp.web_request import BaseRequest

from ..engine.phrase import N_, Phrase
from ..engine.views import LANGUAGES
from ..ui.i18n import say
from .auth import password_may_cross, same
from .phones import NO_STORE, Phones, _cookie_name
from .texts import refusal_page

if TYPE_CHECKING:
    from .staff import StaffPage


log = logging.getLogger("pi_table.web")
HEADER_TIMEOUT_S = 10.0  # a request's line and headers, from the connection's start or the last answer
BODY_TIMEOUT_S = 10.0  # an action's body, from the end of its headers
MAX_CONNECTIONS = 512  # open at once, whatever for: the ceiling over the streams' caps and the requests' places
MAX_PER_ADDRESS = 64  # a guest's from one address: a phone needs a handful
SECRET_CONNECTIONS = 64  # open at once on the secret pages' https port: a few staff phones and the owner's
SECRET_PER_ADDRESS = 8  # from one address there: a phone's handful, so one flooding address leaves the rest places
RESERVED = 8  # an eighth of the connections are kept for requests that carry a credential
WAITING_PER_ADDRESS = 2  # connections from one address waiting on the reserve for their first request
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


class Doors(Phones):
    """Each connection counted in (or turned away), each request judged at the door: its
    credential, and a secret page asked for in clear."""

    staff: StaffPage | None
    staff_tls: ssl.SSLContext | None
    staff_port: int
    header_timeout_s: float
    body_timeout_s: float
    report_s: float
    _bad: _BadRequests

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


class _Connection(web.RequestHandler):
    """One connection to the companion: aiohttp's own handler, counted against the companion's
    caps from the moment it is accepted. Past a cap it is answered 503 and closed before a
    byte of it is read. aiohttp's keep-alive deadline, which runs while the connection waits
    for a request and is not renewed by bytes that do not complete one, is the header deadline;
    its lingering (reading a body the answer did not need) is bounded by the body deadline.
    An event stream on it ends when it closes, which aiohttp does not tell the stream's handler."""

    def __init__(self, companion: Doors, server: web.Server, loop: asyncio.AbstractEventLoop,
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


def _framed(data: bytes, chunked: bool) -> bytes:
    """``data`` as a stream carries it: one chunk of HTTP/1.1's chunked encoding, or as it is."""
    return b"%x\r\n%s\r\n" % (len(data), data) if chunked else data
