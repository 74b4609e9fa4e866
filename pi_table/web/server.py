"""The companion's web server: aiohttp in a thread of its own, fed snapshots by the table.

Routes (``TOKEN`` is a page's per-game token):

- ``/``: the public page (spectators; never the key or anyone's secrets);
- ``/p/TOKEN``: a private page; an unknown or old token gets 404 and nothing else, a token
  the table replaced (a Codex seat taken back from the wrong phone) 410 and ``REPLACED``;
- ``/api/public``, ``/api/p/TOKEN``: the page's view as JSON;
- ``/api/public/events``, ``/api/p/TOKEN/events``: the view again on every change, as
  server-sent events; ``event: gone`` when the token stops opening anything (a new game;
  its data ``{"replaced": true}`` when the table gave the page a new link);
- ``POST /api/p/TOKEN/act`` with ``{"action": TEXT}``: a private action, handed to the
  table; the answer is ``{"ok": true}`` or ``{"ok": false, "error": WHY}``.

The server keeps no game state: it serves the newest snapshot, and actions go to the table's
own thread through the ``act`` callback, so a phone is just another input device.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from importlib import resources
from pathlib import Path

from aiohttp import web

from ..engine import InvalidAction
from ..hal import CodexModel, Emit, PageOpened, Screen, ScreenModel
from .seats import SeatLinks
from .snapshot import Snapshot, codenames_snapshot, codex_snapshot
from .tokens import SPYMASTER, Tokens, seat_role, write_private

log = logging.getLogger("pi_table.web")
Act = Callable[[str, str, str], "str | None"]
"""``act(game_id, role, text)``: None when the table accepted the action for that game, else why
it refused it (a page of a game that has just ended must not act in the next one)."""
MAX_BODY = 4096  # an action is a line of text
ADVERTISE_S = 10.0
KEEPALIVE_S = 15.0
STATIC = ("page.html", "app.js", "style.css")


class Companion:
    """``act`` takes the private pages' actions; ``opened(role)`` is told, once per token,
    when a phone first opens a private page (so the screen can stop showing its QR code).
    Links are ``base_url``, else ``http://ADDRESS:PORT`` with the port it listens on, where
    ADDRESS is what ``advertise()`` says (how phones reach this machine; asked again every
    ``ADVERTISE_S``, as a table that booted before its Wi-Fi gets its address later), else
    ``host``."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, act: Act | None = None, base_url: str = "",
        opened: Callable[[str], None] | None = None, advertise: Callable[[], str] | None = None,
        proof: Callable[[str], str] | None = None, opened_file: Path | None = None,
    ) -> None:
        self.host, self.port, self.advertise = host, port, advertise
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
        self._files = {name: resources.files(__package__).joinpath("static", name).read_bytes() for name in STATIC}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._closing = False

    # -- the table's side (any thread) ------------------------------------------------------

    def start(self) -> None:
        """Serve from a thread of its own; raises OSError (port taken) before returning."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._open())
            except BaseException as e:  # handed to start()'s caller; the companion stays stopped
                failure.append(e)
                loop.close()
                self._loop = None
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, name="companion", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]

    def stop(self) -> None:
        loop = self._loop
        if loop is None or self._thread is None:
            return
        self._closing = True
        loop.call_soon_threadsafe(self._wake)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(timeout=5)
        self._thread = None

    def publish(self, snapshot: Snapshot) -> None:
        """Serve ``snapshot`` from now on and tell every open page; safe from any thread."""
        if self._loop is None:
            self._snapshot = snapshot
            return
        self._loop.call_soon_threadsafe(self._set, snapshot)

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
        return f"http://{address}:{self.port}"

    def link(self, token: str) -> str:
        return f"{self.base_url}/p/{token}"

    # -- the server's side (its own thread) -------------------------------------------------

    async def _open(self) -> None:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[_give_proof])
        app.add_routes([
            web.get("/", self._page_public),
            web.get("/p/{token}", self._page_private),
            web.get("/static/{name}", self._static),
            web.get("/api/public", self._view_public),
            web.get("/api/p/{token}", self._view_private),
            web.get("/api/public/events", self._events_public),
            web.get("/api/p/{token}/events", self._events_private),
            web.post("/api/p/{token}/act", self._act),
        ])
        self._changed = asyncio.Event()
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
        await site.start()
        if self.port == 0:
            self.port = site._server.sockets[0].getsockname()[1]

    def _set(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        kept = self._opened & set(snapshot.private)
        if kept != self._opened:  # a new game, or a seat's new link: the old tokens open nothing now
            self._opened = kept
            self._keep_opened()
        self._wake()

    def _wake(self) -> None:
        """Tell every waiting event stream to look again."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def _private(self, request: web.Request) -> tuple[str, dict]:
        """The (role, view) behind the request's token, for the phone that opened it first.

        The first phone to open a token's page keeps it: it gets a cookie that proves it (an
        HMAC of the token under the companion's secret, so it survives a restart), and any
        other phone is refused. A code photographed over someone's shoulder then shows up as
        a refusal on the rightful phone, not as a silent spy."""
        token = request.match_info["token"]
        entry = self._snapshot.private.get(token)
        if entry is None:
            if token in self._snapshot.replaced:  # its holder may have been the rightful phone: say so
                raise _refusal(request, web.HTTPGone, REPLACED)
            raise web.HTTPNotFound(text="")  # nothing at all for a wrong or old token
        name, proof = _cookie_name(token), self.proof(token)
        if token in self._opened:
            if not hmac.compare_digest(request.cookies.get(name, ""), proof):
                raise _refusal(request, web.HTTPForbidden, ANOTHER_PHONE)
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

    async def _view_public(self, request: web.Request) -> web.Response:
        return web.json_response(self._snapshot.public, headers=NO_STORE)

    async def _view_private(self, request: web.Request) -> web.Response:
        return web.json_response(self._private(request)[1], headers=NO_STORE)

    async def _events_public(self, request: web.Request) -> web.StreamResponse:
        return await self._stream(request, lambda snapshot: snapshot.public)

    async def _events_private(self, request: web.Request) -> web.StreamResponse:
        self._private(request)
        token = request.match_info["token"]
        return await self._stream(request, lambda snapshot: snapshot.private.get(token, (None, None))[1],
                                  lambda snapshot: {"replaced": True} if token in snapshot.replaced else {})

    async def _stream(self, request: web.Request, view_of: Callable[[Snapshot], dict | None],
                      gone: Callable[[Snapshot], dict] = lambda snapshot: {}) -> web.StreamResponse:
        """The view on every change; once there is none, ``event: gone`` with ``gone``'s why."""
        response = web.StreamResponse(headers={**NO_STORE, "Content-Type": "text/event-stream"})
        _set_proof(request, response)  # sent with the headers, before the middleware could
        await response.prepare(request)
        sent = None
        try:
            while not self._closing:
                view = view_of(self._snapshot)
                if view is None:
                    await response.write(f"event: gone\ndata: {json.dumps(gone(self._snapshot))}\n\n".encode())
                    break
                text = json.dumps(view, ensure_ascii=False)
                if text != sent:
                    await response.write(f"data: {text}\n\n".encode())
                    sent = text
                changed = self._changed
                try:
                    await asyncio.wait_for(changed.wait(), KEEPALIVE_S)
                except asyncio.TimeoutError:
                    await response.write(b": still here\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return response

    async def _act(self, request: web.Request) -> web.Response:
        role = self._private(request)[0]
        if self.act is None:
            return web.json_response({"ok": False, "error": "this page only shows; it takes no actions"}, status=405)
        try:
            body = await request.json()
        except web.HTTPRequestEntityTooLarge:
            return web.json_response({"ok": False, "error": f"an action is at most {MAX_BODY} bytes"}, status=413)
        except ValueError:
            body = None
        try:
            text = body["action"]
            if not isinstance(text, str) or not text.strip() or "\n" in text:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            return web.json_response(
                {"ok": False, "error": 'expected a JSON object {"action": "<one line of text>"}'}, status=400)
        error = await asyncio.to_thread(self.act, self._snapshot.game_id, role, text.strip())
        return web.json_response({"ok": error is None, "error": error}, status=200 if error is None else 409)


ANOTHER_PHONE = "This page is already open on another phone. If that was not you, tell the table's staff."
REPLACED = "This seat's link was replaced: scan the new code on the table's screen."
BIND = web.RequestKey("bind", tuple)  # the cookie to give the phone that has just opened a page
COOKIE_S = 24 * 3600


def _set_proof(request: web.Request, response: web.StreamResponse) -> None:
    """Give the phone that has just opened a page its proof."""
    if BIND in request:
        name, proof = request[BIND]
        response.set_cookie(name, proof, path="/", httponly=True, samesite="Strict", max_age=COOKIE_S)


@web.middleware
async def _give_proof(request: web.Request, handler) -> web.StreamResponse:
    response = await handler(request)
    if not response.prepared:
        _set_proof(request, response)
    return response


def _refusal(request: web.Request, kind: type[web.HTTPException], text: str) -> web.HTTPException:
    """A refusal in the form its asker reads: JSON for the page's own requests, else words."""
    if request.path.startswith("/api/"):
        return kind(text=json.dumps({"ok": False, "error": text}), content_type="application/json")
    return kind(text=text)


def _cookie_name(token: str) -> str:
    """One cookie a page, so one browser may hold two seats' pages (a test, a host's phone)."""
    return f"pt_{token[:12]}"


NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
"""Private pages must not linger in a phone's cache, nor leak their token to another site."""


class CompanionScreen(Screen):
    """The table's screen with the companion beside it: every model the table shows is also
    published, and the screen gets the links to show as QR codes. For the grid games: the
    board for spectators and the key behind the spymaster's token, whose link the spymaster
    screen shows (only the spymasters see it). For Codex: each seat's page, whose link the
    table's screen shows until a phone has opened it, and which the table may give a new link
    (``release_seat``) when the wrong phone opened it; ``seats`` keeps those releases."""

    def __init__(self, screen: Screen, companion: Companion, tokens: Tokens, seats: SeatLinks | None = None) -> None:
        self.screen, self.companion, self.tokens = screen, companion, tokens
        self.seats = seats or SeatLinks()
        self._emit: Emit | None = None
        self._codex: CodexModel | None = None  # the Codex game shown last, whose seats may be released
        companion.opened = self._opened

    def show(self, model) -> None:
        self._codex = model if isinstance(model, CodexModel) else None
        if isinstance(model, ScreenModel):
            self.companion.publish(codenames_snapshot(model.game_id, model.view, self.tokens))
            model = replace(model, join=self.companion.link(self.tokens.token(model.game_id, SPYMASTER)))
        elif isinstance(model, CodexModel):
            generations = self.seats.generations(model.game_id, len(model.state.setup.agents))
            snapshot = codex_snapshot(model.game_id, model.game, model.state, self.tokens, model.cues.timer,
                                      generations)
            self.companion.publish(snapshot)
            token_of = {role: token for token, (role, _) in snapshot.private.items()}
            seats = (token_of[seat_role(seat)] for seat in range(len(model.state.setup.agents)))
            model = replace(model, joins=tuple(
                None if self.companion.was_opened(token) else self.companion.link(token) for token in seats))
        self.screen.show(model)

    def release_seat(self, seat: int) -> None:
        """Void seat ``seat``'s link and give it a new one, which the next model shown publishes
        and puts on the screen as a QR code (no phone has opened it yet); the phone that held
        the old one is told its link was replaced. The game is untouched."""
        model = self._codex
        if model is None:
            raise InvalidAction("seats are released in Codex only, and no Codex game is on the table")
        seats = len(model.state.setup.agents)
        if not 0 <= seat < seats:
            raise InvalidAction(f"seat {seat} is not at this table: a seat is a number from 0 to {seats - 1}")
        generation = self.seats.release(model.game_id, seat)
        log.info("seat %d of game %s has a new link (generation %d)", seat, model.game_id, generation)

    def _opened(self, role: str) -> None:
        """A phone opened a page: the loop shows again, without that page's QR code."""
        if self._emit is not None:
            self._emit(PageOpened(role))

    def start(self, emit: Emit) -> None:
        self._emit = emit
        self.screen.start(emit)

    def stop(self) -> None:
        self.screen.stop()
