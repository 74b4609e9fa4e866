"""The staff page's network beyond Wi-Fi (issue 50, 7): ``GET /staff/api/network`` (the staff:
the host name, the cable's and the Wi-Fi's connections and addresses, as nmcli reads them, which
needs no root; a change on trial and how the last one ended) and ``POST /staff/api/network`` (the
owner: ``{"act": "ipv4", "device", "method", "address", "gateway", "dns"}`` or ``{"act":
"hostname", "name"}``). Each change is a trial the root helper makes through NetworkManager: kept
once this page is reached again at the new address (or NAME.local), which any request of the
page's there says (``NetworkSection.reached``); put back by itself otherwise. Every value is
parsed into its kind here, as the helper parses it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from ...engine.phrase import N_, Phrase
from ...release import ReleaseError, last_act, network, requests
from ...release.layout import Releases
from ...ui.i18n import say
from ..auth import Session
from ..roles import Route, owner, staff
from ..staff import Section, StaffPage, log
from ..staff_answers import bad, language, reached_on
from ..staff_table import Helper, StandIn

ACTS = ("ipv4", "hostname")
FIELDS = {"ipv4": {"act", "device", "method", "address", "gateway", "dns"}, "hostname": {"act", "name"}}

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


class NetworkSection(Section[Helper], name="network", script="network.js", texts=TEXTS):
    """The network, and the helper's notes in ``home`` (a change on trial, its last act); of the
    table, the root helper alone, which makes each change and holds its spool folder."""

    @classmethod
    def stand_in(cls, table: StandIn) -> Helper:
        return table.helper

    def __init__(self, page: StaffPage, table: Helper) -> None:
        super().__init__(page, table)
        self.helper, self.home = table, table.home

    def routes(self) -> list[Route]:
        return [staff("GET", "/staff/api/network", self._view),  # the host name and addresses; a trial kept when reached
                owner("POST", "/staff/api/network", self._change)]  # the table may leave the staff's reach

    def view(self, lang: str) -> dict[str, Any]:
        """The host name, each device's connection and address, the change on trial and the last
        address or host name act (its why in ``lang``); ``known`` False without NetworkManager."""
        if not network.available():
            return {"known": False, "host_name": None, "devices": [], "trial": None, "last": None}
        try:
            name = network.host_name()
        except ReleaseError:
            name = None
        devices = []
        for device in network.DEVICES:
            try:
                connection: str | None = network.connection_on(device)
            except ReleaseError:
                connection = None
            devices.append({"device": device, "connection": connection,
                            "address": None if connection is None else network.address(device)})
        trial = network.trial_of(Releases(self.home))
        last = last_act(self.home, ACTS)
        if last is not None:
            last = {key: last.get(key) for key in ("act", "device", "address", "name", "outcome", "at")} | {
                "why": (last.get("why") or {}).get(lang)}
        else:
            last = None
        return {"known": True, "host_name": name, "devices": devices, "last": last,
                "trial": None if trial is None else {key: trial.get(key) for key in ("act", "at", "until")}}

    def reached(self, address: str | None, host: str) -> bool:
        """The staff page was reached on ``address`` (this machine's, the request came in on) by the
        name ``host``: the change on trial is kept if that is where it said the page must be reached."""
        trial = network.trial_of(Releases(self.home))
        if trial is None or trial.get("at") not in (address, host):
            return False
        network.keep(self.helper.spool, trial["id"])
        log.warning("the staff page reached at %s: the %s change is kept", trial["at"], trial["act"])
        return True

    async def _view(self, request: web.Request, session: Session) -> web.Response:
        """The network, and a change on trial kept when this request reached the page where it said."""
        host = (request.host or "").rsplit(":", 1)[0].strip("[]")
        kept = await asyncio.to_thread(self.reached, reached_on(request), host)
        return web.json_response({**await asyncio.to_thread(self.view, language(request)), "kept": kept})

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
        asked = {key: value for key, value in body.items() if key != "act"}
        problem = await asyncio.to_thread(self.helper.ask, str(act), **asked)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.warning("staff page: the network change %s asked from %s", act, request.remote)
        return web.json_response({"ok": True}, status=202)
