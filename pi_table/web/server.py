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
- ``/api/texts``: the pages' words (``texts.page_texts``);
- ``GET /api/p/TOKEN/cards``, ``POST /api/p/TOKEN/cards`` with a picture: the spymasters' page
  alone reads the cards (``web.reading``): whether it can, the words a card may hold, and the 25
  words a picture gives; a confirmation is an action, ``words W0 ... W24``.

Every page speaks the table's ``language`` unless its phone chose another: the API's ``?lang=``,
which the views' engine sentences, the refusals and the texts follow. The page itself carries
the table's language in ``<html lang>``, for the script to start from.

The server keeps no game state: it serves the newest snapshot, and actions go to the table's
own thread through the ``act`` callback, so a phone is just another input device.

Its rooms, each built on the one before: ``web.phones`` (which phone holds which page),
``web.doors`` (the connections and the checks at the door) and ``web.streams`` (the views pushed).
"""
from __future__ import annotations

import asyncio
import logging
import ssl
import threading
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from ..engine import InvalidAction
from ..engine.phrase import N_, Text
from ..engine.views import LANGUAGES
from ..files import read_json
from ..hal import AnyModel, Emit, PageOpened, Screen, SelfTestModel, SetupModel
from ..ui.i18n import say
from ..ui.words import Cards
from .doors import (
    BODY_TIMEOUT_S,
    HEADER_TIMEOUT_S,
    MAX_CONNECTIONS,
    MAX_PER_ADDRESS,
    REPORT_S,
    RESERVED,
    SECRET_CONNECTIONS,
    SECRET_PER_ADDRESS,
    _BadRequests,
    _Connection,
    _Held,
    _Pool,
    _Watcher,
)
from .games import publish, seats
from .pages import Pages
from .phones import NO_STORE, _give_proof, _refusal
from .reading import NOT_THE_KEY, UNAVAILABLE, CardsTable, offered, reading
from .seats import SeatLinks
from .snapshot import Snapshot
from .streams import MAX_STREAMS, MAX_STREAMS_PER_ADDRESS, PUSH_GAP_S, Streams
from .texts import localized, page_files, page_texts
from .tokens import SPYMASTER, Tokens

if TYPE_CHECKING:
    from .staff import StaffPage


log = logging.getLogger("pi_table.web")
Act = Callable[[str, str, str], "Text | None"]  # a refusal, said in each page's language
"""``act(game_id, role, text)``: None when the table accepted the action for that game, else why
it refused it (a page of a game that has just ended must not act in the next one)."""
MAX_BODY = 4096  # an action is a line of text
ADVERTISE_S = 10.0
STATIC = (*page_files(), "style.css")


class Companion(Streams):
    """``act`` takes the private pages' actions; ``opened(role)`` is told, once per token,
    when a phone first opens a private page (so the screen can stop showing its QR code).
    Links are ``base_url``, else ``http://ADDRESS:PORT`` with the port it listens on, where
    ADDRESS is what ``advertise()`` says (how phones reach this machine; asked again every
    ``ADVERTISE_S``, as a table that booted before its Wi-Fi gets its address later), else
    ``host``. ``language`` is the pages' own until a phone picks another; ``cards`` reads the cards
    from the spymasters' page's pictures (None: not on this table). The deadlines, the
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
        staff_tls: ssl.SSLContext | None = None, staff_port: int = 0, cards: CardsTable | None = None,
    ) -> None:
        super().__init__("companion")
        self.cards = cards
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
            web.get("/api/p/{token}/cards", self._cards_offered),
            web.post("/api/p/{token}/cards", self._cards_read),
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

    def _key_holder(self, request: web.Request) -> CardsTable | None:
        """The table's reader of the cards for the spymasters' page behind the request's token
        (404 for a wrong token, 403 for another page); None where the table reads none."""
        if self._private(request)[0] != SPYMASTER:
            raise _refusal(request, web.HTTPForbidden, self._words(request, NOT_THE_KEY), self._lang(request))
        return self.cards

    async def _cards_offered(self, request: web.Request) -> web.Response:
        cards = self._key_holder(request)
        if cards is None:
            return web.json_response({"available": False, "unavailable": self._words(request, UNAVAILABLE), "deck": []},
                                     headers=NO_STORE)
        return await offered(cards, self._lang(request))

    async def _cards_read(self, request: web.Request) -> web.Response:
        cards = self._key_holder(request)
        if cards is None:
            return web.json_response({"ok": False, "error": self._words(request, UNAVAILABLE)}, status=503)
        return await reading(request, cards, self._lang(request))


SHOWS_ONLY = N_("this page only shows; it takes no actions")
MALFORMED_ACTION = N_('expected a JSON object {"action": "<one line of text>"}')


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
