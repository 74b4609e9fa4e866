"""The staff page's Wi-Fi section: ``GET /staff/api/wifi`` (staff: the network, the networks in
reach, the last Wi-Fi act, as the set-up page shows them) and ``POST /staff/api/wifi`` (the owner:
``{"ssid", "password"}``, joined by the root helper as a trial that goes back to the connection
before when it fails).
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from ...engine.phrase import N_
from ...release.desk import network_view
from ...release.network import password_problem, ssid_problem
from ...ui.i18n import say, translation
from ..auth import Session
from ..roles import Route, owner, staff
from ..staff import Section, StaffPage, log
from ..staff_answers import bad, language
from ..staff_table import Helper, StandIn

TEXTS: tuple[str, ...] = (
    N_("Wi-Fi"),
    N_("On the network {network}."),
    N_("No network: the table opened its own Wi-Fi."),
    N_("No network."),
    N_("NetworkManager does not run on this computer: its network is set up elsewhere."),
    N_("Network"),
    N_("Wi-Fi password"),
    N_("Join this Wi-Fi"),
    N_("Join {ssid}? The table leaves its network for it; if it cannot join, it goes back by itself."),
    N_("The table joins {ssid}: if this phone loses the page, connect it to {ssid} and scan the table's code again."),
    N_("Last change: {why}"),
    N_("(open network)"),
)


class WifiSection(Section[Helper], name="wifi", script="wifi.js", texts=TEXTS):
    """The network for the staff, a Wi-Fi joined by the owner; the helper's notes in ``home``. Of
    the table, the root helper alone, which joins the Wi-Fi."""

    @classmethod
    def stand_in(cls, table: StandIn) -> Helper:
        return table.helper

    def __init__(self, page: StaffPage, table: Helper) -> None:
        super().__init__(page, table)
        self.helper, self.home = table, table.home

    def routes(self) -> list[Route]:
        return [staff("GET", "/staff/api/wifi", self._view),  # the network, the networks in reach, the last Wi-Fi act
                owner("POST", "/staff/api/wifi", self._join)]  # the table may leave the network the staff reach it on

    async def _view(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(network_view, language(request), self.home))

    async def _join(self, request: web.Request, session: Session) -> web.StreamResponse:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("ssid"), str) \
                or not isinstance(body.get("password", ""), str):
            return bad('expected {"ssid": THE NETWORK\'S NAME, "password": ITS PASSWORD ("" for an open one)}')
        ssid, password, lang = body["ssid"], body.get("password", ""), language(request)
        if (problem := ssid_problem(ssid) or password_problem(password)) is not None:
            return bad(translation(lang).gettext(problem))
        asked = await asyncio.to_thread(self.helper.ask, "wifi", ssid=ssid, password=password)
        if asked is not None:
            return web.json_response({"ok": False, "error": say(asked, lang)}, status=409)
        log.warning("staff page: the Wi-Fi %r asked from %s", ssid, request.remote)
        return web.json_response({"ok": True}, status=202)
