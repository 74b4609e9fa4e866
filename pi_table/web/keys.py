"""The releases' keyring on the staff page (issue 50, 4): ``GET /staff/api/keys`` (the staff: each
key's name, fingerprint and whether it was revoked, and how the last key act ended) and ``POST
/staff/api/keys`` (the owner: ``{"act": "add", "name", "key"}``, the public key's line pasted or
read from its .pub file by the page, or ``{"act": "revoke", "name"}``). The root helper changes
the keyring (``release.keys``, as RAUC's: a revoked key is never accepted again); the request is
checked here as the helper checks it, so a key that is none is refused at once, in words.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from aiohttp import web

from ..engine.phrase import N_, Phrase, Text
from ..release import ReleaseError, requests
from ..ui.i18n import say
from .auth import Session
from .staff import StaffPage, bad, language

log = logging.getLogger("pi_table.web.staff")

TEXTS: tuple[str, ...] = (
    N_("Release keys"),
    N_("This table installs only updates signed with one of these keys."),
    N_("No key yet: this table installs no update until one is added."),
    N_("revoked"),
    N_("Revoke"),
    N_("Revoke the key {name}? No update signed with it is installed again, even if it is added back."),
    N_("Add a key"),
    N_("Its name (the person or the maker)"),
    N_("Public key (the line of the .pub file, ssh-ed25519 AAAA...)"),
    N_("Or choose its .pub file"),
    N_("Add this key"),
    N_("Asked: the table changes its keyring in a moment."),
    N_("Key {name} added: {fingerprint}."),
    N_("Key {name} revoked: {fingerprint}."),
    N_("The key {name} could not be changed: {why}"),
)
"""The room's words on the page (keys.js looks each up by its English text)."""


class KeysDesk(Protocol):
    """What the section asks of the table (``daemon.release_keys.ReleaseKeys``)."""

    def view(self, lang: str) -> dict[str, Any]: ...

    def add(self, name: str, key: str) -> Text | None: ...

    def revoke(self, name: str) -> Text | None: ...


class KeysRoom:
    """The keyring's routes under ``/staff/api/``, behind the staff page's checks."""

    texts = TEXTS

    def __init__(self, page: StaffPage, desk: KeysDesk) -> None:
        self.page, self.desk = page, desk
        page.rooms.append(self)

    def mount(self, app: web.Application) -> None:
        api = self.page.api
        app.add_routes([web.get("/staff/api/keys", api(self._view)), web.post("/staff/api/keys", api(self._change))])

    async def _view(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.desk.view, language(request)))

    async def _change(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        act = body.get("act") if isinstance(body, dict) else None
        fields = {"add": {"act", "name", "key"}, "revoke": {"act", "name"}}.get(str(act))
        if not isinstance(body, dict) or fields is None or set(body) != fields:
            return bad('expected {"act": "add", "name": NAME, "key": "ssh-ed25519 AAAA..."} or '
                       '{"act": "revoke", "name": NAME}')
        lang = language(request)
        asked = {"act": f"keys-{act}", **{key: value.strip() if isinstance(value, str) else value
                                          for key, value in body.items() if key != "act"}}
        try:
            requests.check(asked)  # as the helper will: a key that is none is said now, not later
        except ReleaseError as e:
            return bad(say(Phrase.of(e.why["template"], **e.why["fields"]), lang))
        if act == "add":
            problem = await asyncio.to_thread(self.desk.add, asked["name"], asked["key"])
        else:
            problem = await asyncio.to_thread(self.desk.revoke, asked["name"])
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.warning("staff page: the release key %r asked to be %s from %s", asked["name"],
                    "added" if act == "add" else "revoked", request.remote)
        return web.json_response({"ok": True}, status=202)
