"""The staff page's network beyond Wi-Fi (issue 50, 7): ``GET /staff/api/network`` (the staff:
the host name, the cable's and the Wi-Fi's connections and addresses, a change on trial and how
the last one ended) and ``POST /staff/api/network`` (the owner: ``{"act": "ipv4", "device",
"method", "address", "gateway", "dns"}`` or ``{"act": "hostname", "name"}``). Each change is a
trial the root helper makes through NetworkManager: kept once this page is reached again at the
new address (or NAME.local), which any request of the page's there says (``NetworkDesk.reached``);
put back by itself otherwise. Every value is parsed into its kind here, as the helper parses it.
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
from .staff import StaffPage, bad, language, reached_on

log = logging.getLogger("pi_table.web.staff")

TEXTS: tuple[str, ...] = (
    N_("Network"),
    N_("Host name"),
    N_("Cable"),
    N_("not connected"),
    N_("Address"),
    N_("Automatic (from the café's router)"),
    N_("Fixed"),
    N_("Fixed address (such as 192.168.1.50/24)"),
    N_("Gateway (the router's address)"),
    N_("DNS server"),
    N_("Use this address"),
    N_("Change the host name"),
    N_("Open this page at {link} within {minutes} min: the change is kept once it is reached there, and goes back "
       "by itself otherwise."),
    N_("Trying a change: open this page at {at} to keep it."),
    N_("Last change: {why}"),
    N_("Kept: this page was reached at {at}."),
)
"""The room's words on the page (network.js looks each up by its English text)."""


class NetworkDesk(Protocol):
    """What the section asks of the table (``daemon.network_desk.NetworkDesk``)."""

    def view(self, lang: str) -> dict[str, Any]: ...

    def reached(self, address: str | None, host: str) -> bool: ...

    def ask(self, request: dict[str, str]) -> Text | None: ...


FIELDS = {"ipv4": {"act", "device", "method", "address", "gateway", "dns"}, "hostname": {"act", "name"}}


class NetworkRoom:
    """The network's routes under ``/staff/api/``, behind the staff page's checks."""

    texts = TEXTS

    def __init__(self, page: StaffPage, desk: NetworkDesk) -> None:
        self.page, self.desk = page, desk
        page.rooms.append(self)

    def mount(self, app: web.Application) -> None:
        api = self.page.api
        app.add_routes([web.get("/staff/api/network", api(self._view)),
                        web.post("/staff/api/network", api(self._change))])

    async def _view(self, request: web.Request, session: Session) -> web.Response:
        """The network, and a change on trial kept when this request reached the page where it said."""
        host = (request.host or "").rsplit(":", 1)[0].strip("[]")
        kept = await asyncio.to_thread(self.desk.reached, reached_on(request), host)
        return web.json_response({**await asyncio.to_thread(self.desk.view, language(request)), "kept": kept})

    async def _change(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        act = body.get("act") if isinstance(body, dict) else None
        if not isinstance(body, dict) or set(body) != FIELDS.get(str(act)):
            return bad('expected {"act": "ipv4", "device", "method", "address", "gateway", "dns"} or '
                       '{"act": "hostname", "name"}')
        lang = language(request)
        try:
            requests.check(body)  # each value parsed into its kind, as the helper will
        except ReleaseError as e:
            return bad(say(Phrase.of(e.why["template"], **e.why["fields"]), lang))
        problem = await asyncio.to_thread(self.desk.ask, body)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.warning("staff page: the network change %s asked from %s", act, request.remote)
        return web.json_response({"ok": True}, status=202)
