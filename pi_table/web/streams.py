"""The pages' views sent to the phones: each page's event stream, the spectators' capped, every
change pushed in batches at most every ``PUSH_GAP_S`` (``web.server.Companion`` is built on it).
"""

from __future__ import annotations

import asyncio
import json
import logging

from aiohttp import web
from aiohttp.http import HttpVersion11

from .doors import RETRY_S, Doors, _Connection, _framed, _Held, _Watcher
from .phones import NO_STORE, _set_proof
from .snapshot import Snapshot
from .texts import localized

log = logging.getLogger("pi_table.web")
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
MAX_STREAMS = 320  # the public page's event streams: 300 spectators' fit; the other 192 are the seats' and the requests'
MAX_STREAMS_PER_ADDRESS = 8  # a spectator's phone: a tab or two, and the streams a dropped Wi-Fi left behind
STREAMS_PER_PAGE = 4  # a seat's own streams (its token's): past them the oldest is let go


class Streams(Doors):
    """The open event streams, and the pushes that send them each change."""

    _frames: dict[tuple[str | None, str, bool], bytes | None]  # the views as sent, by (page, language, chunked)
    _watchers: dict[_Watcher, None]  # the open event streams, oldest first
    _pushed_at: float
    _push_due: asyncio.TimerHandle | None
    _closing: bool
    _spectators: _Held

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
