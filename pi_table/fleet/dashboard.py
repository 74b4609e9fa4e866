"""``pi-table fleet``: one page with every table that reports to a broker.

It subscribes to every table's status, online, events, night and plan topics (QoS 1, in a
session the broker keeps, so events made while the dashboard was away reach it when it returns),
and ``tables.Fleet`` keeps each table's row and the nights' standings from them (the café's tables
are ``--cafe-tables``). paho's thread only reads the messages; a thread of the dashboard's own
makes what changed into rows and standings for the live page (Server-Sent Events), so a table
that floods delays no other. The day's games export as CSV.

Its login is the staff page's way in (``web.auth.Gate``) with a password whose scrypt hash is
kept in a file (``pi-table fleet --set-password``): a session cookie (HttpOnly,
SameSite=Strict), tries limited per address, and a browser that has signed in before counted on
its own (a flood from the owner's own address, behind a shared router or a proxy, does not lock
the owner out). What it knows lives in memory (its sessions too): restarted, it learns the
tables again from their retained status, online, night and plan topics; the day's games come
back only as far as the broker kept its session's events.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import html
import ipaddress
import json
import logging
import ssl
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn, TypeAlias

import paho.mqtt.client as mqtt
from aiohttp import web

from .. import config
from ..config import FleetConfig
from ..config.machine import server_tls
from ..config.settings import shown_url
from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase
from ..engine.views import LANGUAGES
from ..errors import PiTableError
from ..files import write_private
from ..night.scoring import TIEBREAKS
from ..ui.i18n import say, translation
from ..web.auth import Gate, Refused, Throttle, Why, behind, hash_secret, password_may_cross
from ..web.document import KIT_SCRIPT, kit_page
from ..web.runner import ServerThread
from . import link, schema
from .tables import Fleet

log = logging.getLogger("pi_table.fleet")
COOKIE = "pi_table_fleet"  # and "pi_table_fleet_device": a browser that has signed in before
SESSION_S = 12 * 3600  # a session's life, in the browser and unused
ATTEMPTS = 5  # logins an address (or a known browser) may try a minute
ATTEMPTS_OVERALL = 20  # from browsers never seen, all addresses together, a minute (on a table: the staff page's count)
NIGHTS_EVERY_S = 0.2  # the nights' standings are made at most this often, for however many messages came
# What a live page's stream is told: ("", a table's row), or ("nights", the nights' standings)
News: TypeAlias = tuple[str, dict[str, object] | list[dict[str, object]]]
IN_CLEAR = N_("The password is taken over https only, never in clear: open this page at its https address, or on "
              "the machine it runs on.")
FAILED = Phrase.of("the dashboard failed on a message (its own fault: see its log)")
WORDS = {  # the page's words, translated once for the page's language
    "title": N_("The fleet"), "table": N_("Table"), "connection": N_("Online"), "online": N_("online"), "offline": N_("offline"),
    "playing": N_("in a game"), "idle": N_("idle"), "over": N_("game over"), "faults": N_("Faults"),
    "games_today": N_("Games today"), "endings": N_("How they ended"), "average": N_("Average length"), "game": N_("Game"), "seen": N_("Last report"),
    "export": N_("The day's games (CSV)"), "password": N_("Password"), "sign_in": N_("Sign in"),
    "sign_out": N_("Sign out"), "wrong": N_("Wrong password."), "wait": N_("Too many tries: wait a minute."),
    "busy": N_("Too many logins at once: try again in a moment."),
    "in_clear": IN_CLEAR,
    "none": N_("none"),
    "unheard": N_("never reported"),
    "dropped": N_("messages dropped: {count} (the last: {why})"),
    "standings": N_("Standings of {night}"), "hosted": N_("run from table {host}"), "closed": N_("closed"),
    "apart": N_("from elsewhere: not a night of the café's tables"),
    "team": N_("Team"), "played": N_("played"), "won": N_("won"),
    "lost": N_("lost"), "points": N_("points"), "margin": N_("margin"), "rating": N_("rating"),
    "byes": N_("byes"), "buchholz": N_("Buchholz"), "withdrawn": N_("withdrawn"), "tiebreak": N_("Tie-break: {tiebreak}"),
    **{field: words for tiebreak in TIEBREAKS.values() for words, field in tiebreak.columns},  # the tie-breaks' columns
}
FAULTS = (FAILED.template, WORDS["dropped"])
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""


# --- the password ---------------------------------------------------------------------------

class PasswordError(PiTableError, ValueError):
    """The fleet page's password cannot be set or read: the message says how to make one."""


def hash_password(password: str) -> str:
    """The line kept in the password file: the salted scrypt hash the staff PIN's is too."""
    if not password:
        raise PasswordError("the password is empty: choose one of at least 8 characters")
    if len(password) < 8:
        raise PasswordError(f"the password has {len(password)} characters: choose one of at least 8")
    return hash_secret(password)


def read_password_file(path: Path) -> str:
    """The stored hash; PasswordError saying how to make one when the file is missing or wrong."""
    try:
        stored = path.read_text(encoding="utf-8").strip()
    except OSError as e:
        raise PasswordError(f"cannot read the password file {path} ({e.strerror or e}): make it with "
                         f"pi-table fleet --set-password --password-file {path}") from None
    if not stored.startswith("scrypt$") or stored.count("$") != 5:
        raise PasswordError(f"{path} holds no password hash: make it with pi-table fleet --set-password --password-file {path}")
    return stored


def write_password_file(path: Path, password: str) -> None:
    """Write the hash, readable by its owner alone, in place of any before (atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, (hash_password(password) + "\n").encode())


# --- the web page ---------------------------------------------------------------------------

def asked_language(accepted: str, otherwise: str) -> str:
    """The first language of an Accept-Language header (``it-IT,it;q=0.9,en;q=0.8``), by its
    weights, that the table speaks; ``otherwise`` when it names none (or refuses them, ``q=0``)."""
    asked = []
    for order, part in enumerate(accepted.split(",")):
        tag, _, weight = part.strip().partition(";")
        try:
            q = float(weight.strip().removeprefix("q=")) if weight.strip().startswith("q=") else 1.0
        except ValueError:
            continue
        primary = tag.strip().split("-")[0].lower()
        if q > 0 and primary in LANGUAGES:
            asked.append((-q, order, primary))
    return min(asked)[2] if asked else otherwise



class Dashboard(ServerThread):
    """The MQTT subscriber, the web server and the news for the pages, each in a thread of its
    own: paho's reads the tables' messages, the news thread (``_news``) makes what changed into
    rows and standings for the live pages, so no night's standings hold up another table's row."""

    roll_check_s = 30.0  # how often the page looks whether the day turned (and sends every row again)

    def __init__(self, broker: FleetConfig, host: str, port: int, password_hash: str | Callable[[], str | None],
                 lang: str = "en", client_id: str = "pi-table-fleet", clock: Callable[[], float] = time.time,
                 cafe_tables: Iterable[str] = (), tls: ssl.SSLContext | None = None, tries: Throttle | None = None,
                 proxy: str | None = None) -> None:
        """``password_hash``: the login's hash, or where it is read each time (on a table: the
        owner's passphrase, ``KeptSecret``, and ``tries`` the staff page's count of its tries);
        ``tls``: the page over https (a table's own certificate); ``proxy``: the address of the
        reverse proxy whose https it is served through (``web.auth.behind``). Its login follows
        every server's policy (``web.auth.password_may_cross``): from another machine, over TLS alone."""
        super().__init__("fleet-dashboard")
        self.broker, self.host, self.port, self.lang, self.tls = broker, host, port, lang, tls
        self.proxy = proxy
        self.fleet = Fleet(clock=clock, lang=lang, cafe_tables=cafe_tables)
        self._newsroom: threading.Thread | None = None
        self._stopping = False
        secret: Callable[[], str | None] = password_hash if callable(password_hash) else lambda: password_hash
        self.gate = Gate("fleet", secret, COOKIE, "/", ATTEMPTS, ATTEMPTS_OVERALL, SESSION_S, time.monotonic,
                         cookie_s=SESSION_S, tries=tries)
        self.client = link.client(broker, client_id)
        self.client.on_connect = self._connected
        self.client.on_connect_fail = self._connect_failed
        self.client.on_message = self._message
        self._unreachable_said = False  # the broker's absence is in the log, once until it connects
        self.connected = threading.Event()
        self._queues: dict[asyncio.Queue[News | None], str] = {}  # each live page's, and its language (None: it stops)
        self._roller: asyncio.Task[None] | None = None
        self.words = {each: {key: translation(each).gettext(text) for key, text in WORDS.items()} for each in LANGUAGES}
        # counted in the page: the forms for one table online and for any other number, as both the
        # table's languages count
        self.tables_online = {each: [translation(each).ngettext("{online} of {count} tables online",
                                                                "{online} of {count} tables online", n) for n in (1, 2)]
                              for each in LANGUAGES}

    # MQTT

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("the broker %s refused the dashboard: %s", self.broker.host, reason)
            return
        client.subscribe([(link.topic("+", name), 1) for name in schema.TOPICS])
        self._unreachable_said = False
        self.connected.set()

    def _connect_failed(self, client: mqtt.Client, userdata: Any) -> None:
        """paho could not reach the broker (it tries again, less and less often): said once."""
        if not self._unreachable_said:
            self._unreachable_said = True
            error = sys.exc_info()[1]
            log.warning("cannot reach the broker %s:%d (%s): check --broker and the network; trying again",
                        self.broker.host, self.broker.port, getattr(error, "strerror", None) or error or "no connection")

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """A table's message. The schema drops what a table may not send; anything else that
        goes wrong is counted against the table here, never left to end paho's thread and, with
        it, every table's updates."""
        try:
            self.fleet.take(message.topic, message.payload)
        except Exception:  # noqa: BLE001 (the last line of defence)
            self.fleet.drop(message.topic.split("/")[1], FAILED, failure=True)

    # the news for the pages

    def _news(self) -> None:
        """The news thread: each row that changed to the live pages as it comes (one for however
        many messages its table sent meanwhile), and the nights' standings at most every
        ``NIGHTS_EVERY_S``, once for however many plans and games came meanwhile."""
        nights_due, next_nights = False, 0.0
        while True:
            self.fleet.due.wait(None if not nights_due else max(0.0, next_nights - time.monotonic()))
            if self._stopping:
                return
            self.fleet.due.clear()
            try:
                rows, due = self.fleet.news(LANGUAGES)  # each row in every language a page may speak
                for row in rows:
                    self.call(self._fan_out, row)
                nights_due = nights_due or due
                if nights_due and time.monotonic() >= next_nights:
                    nights_due, next_nights = False, time.monotonic() + NIGHTS_EVERY_S
                    self.call(self._fan_out, self.fleet.nights(), "nights")
            except Exception:  # a bug of the dashboard's must not end the pages' news for good
                log.exception("the dashboard could not tell the pages of a change: the next change tries again")

    def _fan_out(self, row: dict[str, object] | list[dict[str, object]], kind: str = "") -> None:
        """A table's row (or, ``kind`` "nights", the nights' standings) to every live page (a row
        to those in its language)."""
        for queue, lang in list(self._queues.items()):
            if queue.qsize() < 1000 and (isinstance(row, list) or row["lang"] == lang):  # a page that stopped
                queue.put_nowait((kind, row))  # reading misses rows, never holds memory

    # the server

    def start(self) -> None:
        """Serve the page (raises OSError when its port is taken), then tell it the news and
        connect to the broker."""
        super().start()
        self._newsroom = threading.Thread(target=self._news, name="fleet-news", daemon=True)
        self._newsroom.start()
        try:
            link.connect(self.client, self.broker)
        except BaseException:
            self.stop()
            raise

    async def _roll_over(self) -> None:
        """At the day's turn, every row again to the live pages: their games today start at 0
        though no table has said anything since."""
        day = self.fleet.today()
        while True:
            await asyncio.sleep(self.roll_check_s)
            if (today := self.fleet.today()) != day:
                day = today
                for row in self.fleet.rows():
                    self._fan_out(row)

    async def _open(self) -> None:
        app = web.Application(middlewares=[behind(self.proxy)])
        app.router.add_get("/", self._page)
        app.router.add_get("/login", self._login_page)
        app.router.add_post("/login", self._login)
        app.router.add_post("/logout", self._logout)
        app.router.add_get("/api/tables", self._tables)
        app.router.add_get("/api/night", self._night)
        app.router.add_get("/api/nights", self._nights)
        app.router.add_get("/events", self._events)
        app.router.add_get("/export.csv", self._export)
        for name in PAGE_FILES:  # the page's style and script, the same for anyone: no secret in them
            app.router.add_get(f"/{name}", self._page_file)
        app.on_shutdown.append(self._end_streams)
        runner = await self._set_up(app)
        await web.TCPSite(runner, self.host, self.port, ssl_context=self.tls).start()
        if self.port == 0:
            self.port = runner.addresses[0][1]
        self._roller = asyncio.create_task(self._roll_over())

    async def _close(self) -> None:
        assert self._roller is not None  # _open ran
        self._roller.cancel()
        await asyncio.gather(self._roller, return_exceptions=True)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self._stopping = True
        self.fleet.due.set()
        if self._newsroom is not None:
            self._newsroom.join(timeout=5)
        super().stop()

    # login

    def _over_tls(self, request: web.Request) -> None:
        """A login over plain http from another machine is refused before its password is read
        (nor counted): a password never crosses the network in clear."""
        if not password_may_cross(request):
            self._in_clear(request)

    def _in_clear(self, request: web.Request) -> NoReturn:
        lang = self._language(request)
        raise web.HTTPForbidden(text=self._html(f'<p class=error>{html.escape(self.words[lang]["in_clear"])}</p>',
                                                lang), content_type="text/html")

    async def _login_page(self, request: web.Request, message: str = "", status: int = 200) -> web.Response:
        self._over_tls(request)
        lang = self._language(request)
        w = self.words[lang]
        body = (f'<form method="post" action="/login"><label>{w["password"]} <input type="password" name="password" '
                f'autocomplete="current-password" autofocus></label> <button>{w["sign_in"]}</button>'
                f'{f"<p class=error>{html.escape(message)}</p>" if message else ""}</form>')
        return web.Response(text=self._html(body, lang), content_type="text/html", status=status)

    async def _login(self, request: web.Request) -> web.Response:
        def refused(said: str, status: int) -> Awaitable[web.Response]:
            return self._login_page(request, self.words[self._language(request)][said], status)

        return await signed_in(request, self.gate, refused, self._in_clear)

    async def _logout(self, request: web.Request) -> web.Response:
        signed_out(request, self.gate, "/login")

    def _require(self, request: web.Request) -> None:
        if isinstance(self.gate.visit(request), Refused):
            raise web.HTTPUnauthorized(text="sign in first: /login")

    # pages

    async def _page(self, request: web.Request) -> web.Response:
        if isinstance(self.gate.visit(request), Refused):
            raise web.HTTPSeeOther("/login")
        lang = self._language(request)
        w = self.words[lang]
        heads = "".join(f"<th>{w[key]}</th>" for key in ("table", "connection", "game", "faults", "games_today", "endings",
                                                          "average", "seen"))
        page_data = json.dumps({"words": {**w, "tables": self.tables_online[lang]}, "standing": STANDING}).replace("<", "\\u003c")
        header = (f'<h1>{w["title"]}</h1><p id="count"></p><a href="/export.csv">{w["export"]}</a>'
                  f'<form method="post" action="/logout"><button>{w["sign_out"]}</button></form>')
        body = (f'<div class="scroll" tabindex="0" role="region" aria-label="{w["title"]}">'
                f'<table><thead><tr>{heads}</tr></thead><tbody id="rows"></tbody></table></div><div id="nights"></div>'
                f'<script type="application/json" id="fleet-words">{page_data}</script>'
                f'<script src="/fleet.js"></script>')
        return web.Response(text=self._html(body, lang, header), content_type="text/html")

    def _language(self, request: web.Request) -> str:
        """The pages' language for ``request``: the first the phone asks for (Accept-Language, by
        its weights) that the table speaks, else the table's own (issue 62, 4: English under an
        Italian phone, with no way to another)."""
        return asked_language(request.headers.get("Accept-Language", ""), self.lang)

    async def _page_file(self, request: web.Request) -> web.Response:
        name = request.path.lstrip("/")
        return web.Response(text=page_file(name), content_type=PAGE_FILES[name])

    def _html(self, main: str, lang: str, header: str = "") -> str:
        """A page of the dashboard's, from the page kit: ``header`` (else the page's title) and ``main``."""
        title = self.words[lang]["title"]
        return kit_page(lang, f"pi-table: {title}", header or f"<h1>{title}</h1>", main,
                        head='<link rel="stylesheet" href="/fleet.css">\n')

    async def _tables(self, request: web.Request) -> web.Response:
        self._require(request)
        return web.json_response(self.fleet.rows(self._language(request)))

    async def _night(self, request: web.Request) -> web.Response:
        """The night the page shows first (``Fleet.night``), or null."""
        self._require(request)
        return web.json_response(await asyncio.to_thread(self.fleet.night))

    async def _nights(self, request: web.Request) -> web.Response:
        """Every night the page shows (``Fleet.nights``)."""
        self._require(request)
        return web.json_response(await asyncio.to_thread(self.fleet.nights))

    async def _export(self, request: web.Request) -> web.Response:
        self._require(request)
        day = self.fleet.today().isoformat()
        return web.Response(text=self.fleet.csv(), content_type="text/csv",
                            headers={"Content-Disposition": f'attachment; filename="pi-table-fleet-{day}.csv"'})

    async def _end_streams(self, app: web.Application) -> None:
        """At a stop, every page's stream ends: none holds the stop until its next write fails."""
        for queue in self._queues:
            queue.put_nowait(None)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """Every row now and the nights' standings, then each again as it changes (the
        standings as the SSE event ``nights``, a list)."""
        self._require(request)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
        await response.prepare(request)
        queue: asyncio.Queue[News | None] = asyncio.Queue()
        lang = self._language(request)
        self._queues[queue] = lang
        try:
            for row in self.fleet.rows(lang):
                await response.write(f"data: {json.dumps(row)}\n\n".encode())
            if nights := await asyncio.to_thread(self.fleet.nights):
                await response.write(f"event: nights\ndata: {json.dumps(nights)}\n\n".encode())
            while True:
                try:
                    news = await asyncio.wait_for(queue.get(), 15)
                except TimeoutError:
                    await response.write(b": still here\n\n")  # a proxy keeps the stream open
                    continue
                if news is None:  # the dashboard stops
                    break
                kind, told = news
                head = f"event: {kind}\n" if kind else ""
                await response.write(f"{head}data: {json.dumps(told)}\n\n".encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self._queues.pop(queue, None)
        return response


PAGE_FILES = {"fleet.css": "text/css", "fleet.js": "text/javascript", KIT_SCRIPT: "text/javascript"}
"""The page's style and scripts (its own, the page kit's), in web/static/ beside the staff page's (under the
same checks); the league's page serves them too."""


def same_origin(request: web.Request) -> bool:
    """A form posted from this page, not another site's (the cookie's SameSite=Strict already
    keeps it off cross-site requests; this says so for old browsers too): compared with the scheme
    and host the page was served on, a trusted proxy's (``web.auth.behind``) when it is behind one."""
    origin = request.headers.get("Origin")
    return origin is None or origin == f"{request.scheme}://{request.host}"


REFUSED = {Why.TOO_MANY: "wait", Why.BUSY: "busy", Why.WRONG: "wrong"}
"""The login page's word for a password its gate refused (any other refusal: ``wrong``)."""


async def signed_in(request: web.Request, gate: Gate, refused: Callable[[str, int], Awaitable[web.Response]],
                    in_clear: Callable[[web.Request], NoReturn]) -> web.Response:
    """A fleet page's sign-in form sent (the dashboard's, the league's organiser's: one way in
    through their ``Gate``): a password that may cross (``web.auth.password_may_cross``, else
    ``in_clear`` refuses it before it is read), from the page's own origin, a form in UTF-8 whose
    password the gate tries; the page's ``/`` with the session's cookie, or ``refused(word,
    status)`` says why not (``REFUSED``)."""
    if not password_may_cross(request):
        in_clear(request)
    if not same_origin(request):
        raise web.HTTPForbidden(text="a login from another site's page")
    try:
        form = await request.post()
    except ValueError:  # a body that is not a form in UTF-8 (UnicodeDecodeError among them)
        raise web.HTTPBadRequest(text="the login is a form with a password field, in UTF-8") from None
    entered = await gate.log_in(request, form.get("password"))
    if isinstance(entered, Refused):
        return await refused(REFUSED.get(entered.why, "wrong"), entered.status)
    response = web.HTTPSeeOther("/")
    gate.let_in(request, response, entered)
    raise response


def signed_out(request: web.Request, gate: Gate, then: str) -> NoReturn:
    """A fleet page's sign-out form sent from its own origin: the session ended, and on to ``then``."""
    if not same_origin(request):
        raise web.HTTPForbidden(text="a logout from another site's page")
    response = web.HTTPSeeOther(then)
    gate.log_out(request, response)
    raise response


@cache
def page_file(name: str) -> str:
    """One of ``PAGE_FILES``, read once."""
    return resources.files("pi_table.web").joinpath("static", name).read_text(encoding="utf-8")


STANDING = ("played", "won", "lost", "byes", "points", "margin", "rating", "buchholz")  # a team's line's columns, after its name


def main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pi-table fleet``: set the page's password, or serve the page until SIGTERM or SIGINT."""
    if args.set_password:
        return set_password(parser, args.password_file)
    if not args.broker:
        parser.error("--broker is needed: the broker's URL, mqtt[s]://USER:PASSWORD@HOST[:PORT]")
    try:
        if bool(args.cert) != bool(args.key):
            raise ValueError("--cert and --key go together: a client certificate needs its private key")
        broker = config.broker(args.broker, password_file=args.broker_password_file, ca=args.ca, cert=args.cert,
                               key=args.key)
        if broker.in_clear and not args.password_in_clear:
            raise ValueError(f"the broker's password would cross the network in clear to {shown_url(args.broker)}: "
                             "use mqtts:// (TLS), or --password-in-clear for a broker on a network you trust")
        stored = read_password_file(args.password_file)
    except ValueError as e:
        parser.error(str(e))
    cafe = [name.strip() for name in args.cafe_tables.split(",") if name.strip()]
    tls, proxy = page_policy(parser, args)
    try:
        dashboard = Dashboard(broker, args.host, args.port, stored, args.lang, args.client_id, cafe_tables=cafe,
                              tls=tls, proxy=proxy)
        dashboard.start()
    except OSError as e:  # the broker's password file, or the page's port
        print(f"pi-table fleet: {e.strerror or e}: {e.filename or f'{args.host}:{args.port}'}", file=sys.stderr)
        return 1
    except Refusal as e:  # the broker's password file holds no password (config.machine.read_password)
        print(f"pi-table fleet: --broker-password-file: {say(e.phrase, args.lang)}", file=sys.stderr)
        return 1
    print(f"pi-table fleet: {dashboard.url}, tables from {broker.host}:{broker.port}", flush=True)
    dashboard.serve_until_signalled()
    return 0


def page_policy(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[ssl.SSLContext | None, str | None]:
    """The page's own https (``--tls-cert`` and ``--tls-key``) and the proxy it trusts (``--proxy``,
    an address), each None when not given; the parser's error when they will not do."""
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together: the page's certificate and its private key")
    if args.proxy:
        try:
            ipaddress.ip_address(args.proxy)
        except ValueError:
            parser.error("--proxy is the reverse proxy's address, as 127.0.0.1 or ::1 (an IP address, not a name)")
    if not args.tls_cert:
        return None, args.proxy or None
    try:
        return server_tls(args.tls_cert, args.tls_key), args.proxy or None
    except (OSError, ssl.SSLError) as e:
        parser.error(f"--tls-cert, --tls-key: the page's certificate and key do not load ({getattr(e, 'strerror', None) or e})")


def set_password(parser: argparse.ArgumentParser, path: Path, command: str = "fleet") -> int:
    """``pi-table fleet --set-password`` (or ``league``'s): the page's password, asked or read from stdin, hashed into ``path``."""
    if sys.stdin.isatty():
        password = getpass.getpass(f"the {command} page's password: ")
        if getpass.getpass("again: ") != password:
            parser.error("the two passwords differ: nothing was written")
    else:
        password = sys.stdin.readline().rstrip("\n")
    try:
        write_password_file(path, password)
    except PasswordError as e:
        parser.error(str(e))
    except OSError as e:
        print(f"pi-table {command}: cannot write {path} ({e.strerror or e})", file=sys.stderr)
        return 1
    print(f"pi-table {command}: the password's hash is in {path}")
    return 0
