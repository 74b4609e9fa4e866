"""The staff page's way in: its PIN, its sessions, the owner's passphrase and the checks every
staff action passes (``web.staff.StaffPage`` is built on it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from ..files import read_json
from ..ui.i18n import translation
from .acts import ActNotes
from .auth import (
    Gate,
    KeptSecret,
    Refused,
    Session,
    Why,
    hashed,
)
from .roles import STAFF, Owner, Role, role
from .staff_answers import _PRIVATE, bad, language, line_code, no_owner, owner_refused, refused
from .staff_table import Desk
from .staff_words import OWNER_NEEDED, OWNER_NEEDED_KEYS

log = logging.getLogger("pi_table.web.staff")
BACKGROUND_HEADER = "X-Staff-Background"  # the page refreshing itself: not a use that keeps a session alive
MAX_BODY = 64 * 1024  # a configuration change: a few keys, a map of LEDs at most


class WayIn:
    """The staff page's way in: the PIN, the sessions, the owner's passphrase, and the checks
    every action under ``/staff/api/`` passes (``api``); what a section reads of the request's body
    (``read_json``) and how it answers before a restart (``then_restart``)."""

    desk: Desk
    folder: Path | None
    body_timeout_s: float
    _pin: KeptSecret
    gate: Gate
    owner: Owner
    acts: ActNotes
    roles: dict[tuple[str, str], Role]

    async def _session_state(self, request: web.Request) -> web.Response:
        """Whether a PIN is set, and the caller's CSRF token when it has a live session."""
        session = self.gate.live(request)
        return web.json_response({"pin_set": self._pin() is not None,
                                  "csrf": None if session is None else session.csrf}, headers=_PRIVATE)

    async def _login(self, request: web.Request) -> web.Response:
        """``{"pin", "code"}``: the PIN, and the code on the table's screen if it shows one (a
        phone waiting in line is told so: ``"line": true``)."""
        body = await self.read_json(request)
        body = body if isinstance(body, dict) else {}
        entered = await self.gate.log_in(request, body.get("pin"), line_code(request, body))
        if isinstance(entered, Refused):
            if entered.why is Why.WRONG:
                log.warning("staff page: a wrong PIN from %s", request.remote)
            return refused(entered, language(request))
        log.info("staff page: logged in from %s", request.remote)
        response = web.json_response({"ok": True, "csrf": entered.session.csrf}, headers=_PRIVATE)
        self.gate.let_in(request, response, entered)
        return response

    def api(self, handler: Callable[[web.Request, Session], Awaitable[web.StreamResponse]]
            ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """``handler`` behind the checks every staff action passes: a live session (401), its
        CSRF token in the header (403), and the owner for the actions whose route needs
        one (403, or 409 when no passphrase is set). A session's use keeps it alive, and its
        phone known (its device cookie given again if it lacks one); the page refreshing itself
        does not, so a phone left open on the page is logged out all the same."""

        async def checked(request: web.Request) -> web.StreamResponse:
            session = self.gate.visit(request, use=BACKGROUND_HEADER not in request.headers)
            if isinstance(session, Refused):
                return refused(session, language(request))
            needed = role(self.roles, request.method, request.match_info.route)
            if needed is not STAFF and (refusal := self.not_owner(request, session)) is not None:
                return refusal
            response = await handler(request, session)
            response.headers.update(_PRIVATE)
            if not response.prepared and self.gate.door.device(request) is None:
                self.gate.door.remember(request, response)
            return response

        return checked

    def not_owner(self, request: web.Request, session: Session, keys: list[str] | None = None) -> web.Response | None:
        """None when ``session`` acts as the owner; else ``owner_needed`` (``keys``: the settings, by their labels)."""
        return None if self.owner.left_s(session) else self.owner_needed(request, keys)

    def owner_needed(self, request: web.Request, keys: list[str] | None = None) -> web.Response:
        """Why the request may not do what needs the owner (``keys``: the configuration's keys it
        changes): no passphrase is set (409, and how to set one), or it was not given lately (403)."""
        if self.owner.secret() is None:
            return no_owner(request)
        gettext = translation(language(request)).gettext
        said = gettext(OWNER_NEEDED_KEYS).format(keys=", ".join(keys)) if keys else gettext(OWNER_NEEDED)
        return web.json_response({"ok": False, "error": said, "owner": "needed"}, status=403, headers=_PRIVATE)

    def owners_act(self, session: Session, section: str, now: bool = True) -> None:
        """``session``'s act of ``section`` restarts the table, ``now`` or once it is done (the
        daemon says so then, ``acts.ActNotes.done``): its result (``acts.RESULTS``) is kept across
        the restart, and so is the session's unlock, when it acts as the owner."""
        stored = self.owner.secret()
        if stored is not None and self.owner.left_s(session):
            self.acts.asked(section, hashed(session.csrf), hashed(stored), session.owner, now)

    async def then_restart(self, request: web.Request, answer: dict[str, Any],
                           act: tuple[Session, str] | None = None) -> web.StreamResponse:
        """Answer first, then restart: the page hears that it worked before the server goes; an
        owner's ``act`` (its session, its section) is kept across the restart (``owners_act``)."""
        if act is not None:
            await asyncio.to_thread(self.owners_act, *act)
        response = web.json_response(answer, headers=_PRIVATE)
        await response.prepare(request)
        await response.write_eof()
        await asyncio.to_thread(self.desk.restart)
        return response

    async def _logout(self, request: web.Request, session: Session) -> web.Response:
        response = web.json_response({"ok": True})
        self.gate.log_out(request, response)
        return response

    async def _owner(self, request: web.Request, session: Session) -> web.Response:
        """Whether an owner's passphrase is set, how long this session still acts as the owner,
        whether the owner keeps a recovery code, and the results of the owner's acts that
        restarted the table (``acts``: to the staff too, the result and not the power)."""
        results = await asyncio.to_thread(self.acts.results, language(request))
        return web.json_response({"set": self.owner.secret() is not None, "left_s": math.ceil(self.owner.left_s(session)),
                                  "recovery": self.owner.recovery() is not None, "results": results})

    async def _step(self, request: web.Request, session: Session) -> web.Response:
        """``{"passphrase": TEXT}``: this session acts as the owner for ``roles.OWNER_S``, the
        phone is remembered by the owner's door; ``{"end": true}``: it stops."""
        body = await self.read_json(request)
        if not isinstance(body, dict) or not (isinstance(body.get("passphrase"), str) or body.get("end") is True):
            return bad('expected {"passphrase": THE OWNER\'S PASSPHRASE, "code": THE CODE ON THE TABLE\'S SCREEN '
                       'or none} or {"end": true}')
        if body.get("end") is True:
            self.owner.step_down(session)
            return await self._owner(request, session)
        lang = language(request)
        checked = await self.owner.step_up(request, session, body["passphrase"], line_code(request, body))
        if (refusal := owner_refused(checked, request, lang)) is not None:
            return refusal
        log.warning("staff page: the owner's passphrase given from %s", request.remote)
        response = await self._owner(request, session)
        self.owner.door.remember(request, response)
        return response

    async def read_json(self, request: web.Request) -> object:
        """The request's body as JSON, at most ``MAX_BODY`` bytes within the body deadline; None
        when it is not JSON (or nests too deep to read)."""
        data = b""
        try:
            async with asyncio.timeout(self.body_timeout_s):
                while len(data) <= MAX_BODY:
                    more = await request.content.read(MAX_BODY + 1 - len(data))
                    if not more:
                        break
                    data += more
        except TimeoutError:
            raise web.HTTPRequestTimeout(text=json.dumps({"ok": False, "error": (
                f"the request's body did not arrive within {self.body_timeout_s:g} s")}),
                content_type="application/json") from None
        if len(data) > MAX_BODY:
            raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=len(data))
        try:
            return read_json(data or b"{}")
        except ValueError:
            return None
