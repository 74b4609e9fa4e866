"""The computer's power on the staff page, the owner's: ``POST /staff/api/power`` ``{"act":
"reboot" | "poweroff"}``, asked of the root helper.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from ...engine.phrase import N_
from ...ui.i18n import say
from ..auth import Session
from ..roles import Route, owner
from ..staff import Section, log
from ..staff_answers import bad, language
from ..staff_table import Helper, StandIn

POWER_ACTS = ("reboot", "poweroff")

TEXTS: tuple[str, ...] = (
    N_("Power"),
    N_("Restart the computer"),
    N_("Restart the computer? The game resumes once it is back (about a minute)."),
    N_("Shut down"),
    N_("Shut the computer down? Someone must switch it on again at the table."),
    N_("The computer is restarting…"),
    N_("The computer is shutting down…"),
)


class PowerSection(Section[Helper], name="power", script="power.js", texts=TEXTS):
    """Restart the computer, or shut it down."""

    @classmethod
    def stand_in(cls, table: StandIn) -> Helper:
        return table.helper

    def routes(self) -> list[Route]:
        return [owner("POST", "/staff/api/power", self._power)]

    async def _power(self, request: web.Request, session: Session) -> web.StreamResponse:
        body = await self.page.read_json(request)
        act = body.get("act") if isinstance(body, dict) else None
        if act not in POWER_ACTS:
            return bad(f'expected {{"act": "{POWER_ACTS[0]}"}} or {{"act": "{POWER_ACTS[1]}"}}')
        log.warning("staff page: %s asked from %s", act, request.remote)
        problem = await asyncio.to_thread(self.table.ask, act)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, language(request))}, status=409)
        return web.json_response({"ok": True}, status=202)
