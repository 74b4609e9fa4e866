"""The staff page: ``/staff`` on the companion server, behind a PIN, for the café's staff.

The page itself (``/staff``, its script and style, its words ``/staff/words/LANG`` and the
cards' ``/staff/cards/LANG``) and the way in (``/staff/session``, ``/staff/login``) are open;
everything the staff can see or do is under ``/staff/api/`` and answers 401 without a session,
403 without the session's CSRF token in the ``X-Staff-Token`` header. What it shows of the game
is the public view, as the spectators' page: the daemon hands it nothing else (``Desk``).

The PIN is kept as a salted scrypt hash in ``staff.pin`` beside the journal (readable by the
service alone; ``pi-table set-staff-pin`` writes it). The way in is ``auth.Gate``, as the fleet
dashboard's: logins are counted per address and in all, and refused past either limit with the
wait (a phone that logged in before is counted on its own, so a flood of guesses cannot lock the
staff out, not even after a new PIN: its cookie is signed with a key kept in ``staff.device-key``;
while phones never seen wait in line, the table's screen shows a code that lets a new one skip
it, ``auth.LineCode``).
A session is a random cookie (HttpOnly, SameSite=Strict, Secure over https) that lasts ``[staff]
session_min`` minutes from its last use, and ends when the PIN is changed; sessions are kept,
hashed, in ``staff.sessions``, so the restart that applies a new configuration does not log the
staff out.

What needs the owner rather than the staff is said beside each route (``roles.staff``, ``owner``);
every action under ``/staff/api/`` is checked for it (``StaffPage.api``), and a session that gave
the owner's passphrase (``POST /staff/api/owner``) acts as the owner for a few minutes. The page's
own parts are the game, the history, the settings and the restart; the rest are its sections
(``Section``, ``web.sections``), each a module of its own.

Its rooms: ``web.staff_table`` (what it asks of the table, the stand-ins), ``web.staff_words``
(its words, the form, a refused setting), ``web.staff_answers`` (what its sections answer with),
``web.staff_way_in`` (the PIN, the sessions, the owner, the checks) and ``web.staff_actions`` (the
game, the history, the settings, the restart).
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Iterable
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar, cast

from aiohttp import web

from ..engine.errors import Refusal
from ..engine.views import LANGUAGES
from ..files import DEVICE_KEY
from ..ui.i18n import translation
from .acts import ActNotes
from .auth import (
    Gate,
    KeptSecret,
    LineCode,
    Session,
    hashed,
    keep_secret,
)
from .document import KIT_SCRIPT, document
from .roles import Checked, Open, Owner, Role, Route, owner, staff, unnamed
from .staff_actions import DeskActions
from .staff_answers import _PRIVATE
from .staff_table import Desk, StandIn
from .staff_words import words
from .texts import page_texts

log = logging.getLogger("pi_table.web.staff")
PIN_FILE = "staff.pin"
SESSIONS_FILE = "staff.sessions"
DEVICE_KEY_FILE = DEVICE_KEY  # signs the phones' device cookies: a new PIN keeps them known
MIN_PIN = 6  # characters: a café's PIN of six digits, or a password
COOKIE = "pt_staff"  # its device cookie, "pt_staff_device": a phone that has logged in before (auth.Gate)
CSRF_HEADER = "X-Staff-Token"
ATTEMPTS_PER_ADDRESS = 5  # logins from one address (or one known phone) a minute
ATTEMPTS_OVERALL = 20  # logins from everywhere a minute: many phones cannot guess faster
BODY_TIMEOUT_S = 10.0  # a request's body, from the end of its headers (the login's too: anyone may send one)
STYLES = {"staff.css": "text/css", "night.css": "text/css"}


# --- the PIN ------------------------------------------------------------------------------


def static_file(name: str) -> bytes:
    """A file of ``web/static/``: a page, its script or its style."""
    return resources.files(__package__).joinpath("static", name).read_bytes()


def set_pin(folder: Path, pin: str) -> Path:
    """Keep ``pin``'s hash in ``folder/staff.pin`` (0600); a Refusal when the PIN is too short."""
    if len(pin) < MIN_PIN:
        raise Refusal("the staff PIN has at least {least} characters, not {length}", least=MIN_PIN, length=len(pin))
    return keep_secret(folder / PIN_FILE, pin)


Part = TypeVar("Part")
"""The part of the table a section takes (its own small protocol, which the daemon's desk meets)."""


class Section(Generic[Part]):
    """A part of the staff page, as a game is a description (docs/dev/adding-a-staff-section.md):
    one module of ``web/sections/``, a subclass with its ``name``, its words (``texts``, served with
    the page's at ``/staff/words/LANG``), its ``script`` (loaded by the page after ``staff.js``) and
    its ``routes``, each with the role it needs beside it (``roles.staff``, ``owner``,
    ``open_to_all``), registered by one line in ``web.sections.SECTIONS``. The page makes it with
    its part of the table (``table``), by its own small protocol (``Section[Part]``), which an
    object of the daemon's meets (paired with it by one line in ``daemon.staff_parts.PARTS``); it
    mounts its routes behind the page's checks and serves its words and its script. Nothing else
    names it; ``mount``, ``heeded`` and ``first`` are for the few that need more."""

    name: ClassVar[str]
    script: ClassVar[str | None] = None
    """Its script, a file of ``scripts``: a module that imports from ``staff.js`` alone."""
    scripts: ClassVar[Traversable] = resources.files(__package__).joinpath("static")
    """The folder its script is in: ``web/static/`` (a section from outside the package, a test's, names its own)."""
    texts: ClassVar[tuple[str, ...]] = ()
    """Its words on the page, by their English text (its script looks each up with ``t()``)."""

    def __init_subclass__(cls, name: str | None = None, script: str | None = None, texts: tuple[str, ...] = (),
                          **rest: Any) -> None:
        """A section's ``name``, ``script`` and ``texts`` given where it is declared, as its shape:
        ``class KeysSection(Section[Helper], name="keys", script="keys.js", texts=TEXTS)``."""
        super().__init_subclass__(**rest)
        if name is not None:
            cls.name, cls.script, cls.texts = name, script, texts

    def __init__(self, page: StaffPage, table: Part) -> None:
        self.page = page
        self.table = table

    @classmethod
    def made(cls, page: StaffPage, table: Any) -> Section[Any] | None:
        """The section on ``page``, given its part of the table; None when this table has none (a
        game night without a journal to keep it in)."""
        return cls(page, table)

    @classmethod
    def stand_in(cls, table: StandIn) -> Part | None:
        """Its part on a stand-in table (tests, the screenshots), declared beside its protocol; None
        when a stand-in table has none (no game night, no notifications, no set-up awaited)."""
        return None

    def routes(self) -> Iterable[Route]:
        """Its routes, each with the role it needs."""
        return ()

    def mount(self, app: web.Application) -> None:
        """What it needs beyond its routes while the pages are served (a task of its own)."""

    def heeded(self, lang: str) -> list[dict[str, str]]:
        """What it adds to the health's headline (``{"what", "advice"}``, said in ``lang``); called in a worker thread."""
        return []

    def first(self) -> str | None:
        """Where the staff page sends a phone instead, while this section says so (the set-up page)."""
        return None

    def restarting_run(self) -> float | None:
        """When the run this section's owner's act starts began, while this start is that run's
        restart of the table by the root helper's hand (``acts.ActNotes.carried``); else None."""
        return None


Parts = Callable[[type[Section[Any]]], object]
"""Each section's part of the table, by its class (the daemon's ``staff_parts.parts``)."""


class StaffPage(DeskActions):
    """The staff page of the companion at ``folder`` (the journal's: the PIN and the sessions
    are kept there) on ``desk``, with ``sections`` (``web.sections.SECTIONS``), each given its part
    of the table by ``parts``; ``session_s`` is how long a session lasts unused; ``clock`` the wall clock
    (sessions outlive a restart), which tests replace."""

    def __init__(self, desk: Desk, folder: Path | None, session_s: float = 3600.0,
                 clock: Callable[[], float] = time.time, body_timeout_s: float = BODY_TIMEOUT_S,
                 sections: Iterable[type[Section[Any]]] = (), parts: Parts = lambda section: None) -> None:
        self.desk, self.folder, self.body_timeout_s = desk, folder, body_timeout_s
        self._pin = KeptSecret(None if folder is None else folder / PIN_FILE, "the staff PIN")
        self.line_code = LineCode(clock)
        """The code the table's screen shows while new phones wait in line to log in (the daemon shows it)."""
        self.gate = Gate("staff", self._pin, COOKIE, "/staff", ATTEMPTS_PER_ADDRESS, ATTEMPTS_OVERALL, session_s, clock,
                         None if folder is None else folder / SESSIONS_FILE, CSRF_HEADER,
                         keys=None if folder is None else folder / DEVICE_KEY_FILE, code=self.line_code)
        self.owner = Owner(folder, self.gate, ATTEMPTS_PER_ADDRESS, ATTEMPTS_OVERALL, clock)
        self.acts = ActNotes(folder, clock)
        self.announce: Callable[[str], None] = lambda what: None
        """Tells the spectators' pages that ``what`` changed (the companion's, once it is made)."""
        self.roles: dict[tuple[str, str], Role] = {}  # every staff action mounted, by method and path: the role it needs
        self.sections = [made for kind in sections if (made := kind.made(self, parts(kind))) is not None]
        self._carry_unlock()
        self.scripts = {"staff.js": static_file("staff.js"), **{
            section.script: section.scripts.joinpath(section.script).read_bytes()
            for section in self.sections if section.script}}
        """The page's scripts: its own, then its sections'."""
        self._files = {name: static_file(name) for name in STYLES}
        self._kit = static_file(KIT_SCRIPT)
        self._body = static_file("staff.html").decode()
        self._head = '<link rel="stylesheet" href="/staff/static/staff.css">\n' + "".join(
            f'<script type="module" src="/staff/static/{name}"></script>\n' for name in self.scripts)
        """The page's style, then its scripts: ``staff.js``, then each section's."""

    def routes(self) -> list[Route]:
        """The page's own actions: the game, the history, the settings, the restart, the owner."""
        return [
            staff("GET", "/staff/api/table", self._table),
            staff("POST", "/staff/api/new-game", self._new_game),
            staff("POST", "/staff/api/undo", self._undo),
            staff("POST", "/staff/api/end-game", self._end_game),
            staff("GET", "/staff/api/history", self._history),
            staff("GET", "/staff/api/history.csv", self._history_csv),
            staff("GET", "/staff/api/config", self._config),
            staff("POST", "/staff/api/config", self._change_config),  # but the owner's keys (``owners_keys``)
            owner("POST", "/staff/api/config/discard", self._discard_refused),  # a refused file replaced by the last good
            staff("POST", "/staff/api/restart", self._restart),
            staff("POST", "/staff/api/logout", self._logout),
            staff("GET", "/staff/api/owner", self._owner),  # whether this session acts as the owner
            staff("POST", "/staff/api/owner", self._step),  # give the passphrase, or stop acting as the owner
        ]

    def mount(self, app: web.Application) -> None:
        """The page, its own actions, then each section's routes and whatever else it needs; a
        route under ``/staff/api/`` with no role stops the page from starting (``unnamed``)."""
        app.add_routes([
            web.get("/staff", self._page),
            web.get("/staff/static/{name}", self._static),
            web.get("/staff/words/{lang}", self._words),
            web.get("/staff/cards/{lang}", self._cards),
            web.get("/staff/session", self._session_state),
            web.post("/staff/login", self._login),
        ])
        for route in (*self.routes(), *(route for section in self.sections for route in section.routes())):
            self._add(app, route)
        for section in self.sections:
            section.mount(app)
        self._add(app, staff("*", "/staff/api/{rest:.*}", self._unknown))  # any other path: 404, after every route
        if missing := unnamed(app, self.roles):
            # a programming error: a section registered without its role, met at start
            raise RuntimeError(f"staff actions with no role: {', '.join(missing)}")

    def _add(self, app: web.Application, route: Route) -> None:
        """``route`` in ``app``, behind the page's checks when it is one of theirs; its role noted (a GET's HEAD too)."""
        # ``checked`` says which of the two a handler is: one given the session, or one that takes the request alone
        handler = self.api(cast(Checked, route.handler)) if route.checked else cast(Open, route.handler)
        if route.method == "GET":
            added = app.router.add_get(route.path, handler)  # HEAD beside it, as web.get
        else:
            added = app.router.add_route(route.method, route.path, handler)
        if route.role is not None and added.resource is not None:
            self.roles[(route.method, added.resource.canonical)] = route.role

    # -- the way in -------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.Response:
        """The page, in ``<html lang>`` the table's language for the script to start from; the
        set-up page instead while the table awaits it, which sets the PIN this page asks for."""
        for section in self.sections:
            if (first := section.first()) is not None:
                raise web.HTTPSeeOther(first)
        lang = self.desk.language()
        page = document(lang, f"pi-table: {translation(lang).gettext('Staff')}", self._body, self._head)
        return web.Response(text=page, content_type="text/html", headers=_PRIVATE)

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name in self.scripts or name == KIT_SCRIPT:  # the kit's, which staff.js (and setup.js) imports
            return web.Response(body=self.scripts.get(name) or self._kit, content_type="application/javascript")
        if name not in STYLES:
            raise web.HTTPNotFound(text="")
        return web.Response(body=self._files[name], content_type=STYLES[name])

    async def _words(self, request: web.Request) -> web.Response:
        lang = request.match_info["lang"]
        if lang not in LANGUAGES:
            raise web.HTTPNotFound(text="")
        return web.json_response(words(lang, (text for section in self.sections for text in section.texts)))

    async def _cards(self, request: web.Request) -> web.Response:
        """The phones' words for the cards, which the board in words says alike: under /staff,
        so a staff phone's device cookie takes it through the companion's reserve in a flood."""
        lang = request.match_info["lang"]
        if lang not in LANGUAGES:
            raise web.HTTPNotFound(text="")
        return web.json_response(page_texts(lang)["texts"])

    def _carry_unlock(self) -> None:
        """The unlock an owner's act carried across the restart it asked for (``acts``), back on
        its session, if the owner's passphrase is the one it was given with."""
        carried = self.acts.carried({section.name: began for section in self.sections
                                     if (began := section.restarting_run()) is not None})
        stored = self.owner.secret()
        if carried is None or stored is None:
            return
        token, passphrase, until = carried
        if hmac.compare_digest(hashed(stored), passphrase) and self.gate.sessions.owner_again(token, until):
            log.warning("staff page: the owner's unlock carried across the restart the owner's act asked for")

    async def _unknown(self, request: web.Request, session: Session) -> web.Response:
        raise web.HTTPNotFound(text="")
