"""The staff page's security updates (issue 50, 8): ``GET /staff/api/security`` (the staff: the
schedule, the last run, what it changed, whether a reboot is due, a run under way (being applied,
or applied and the table's health checked on them), whether a run waits for the table to be
idle) and ``POST /staff/api/security`` (the owner: ``{"act": "run"}``, a run now).
The schedule itself is two settings, ``[system] security_updates`` and ``security_hour``, changed
on the configuration's form as every setting is. A run that left the table unhealthy, or failed,
is in the console's headline (``SecuritySection.heeded``). ``daemon.security`` does the work.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from aiohttp import web

from ...engine.phrase import N_, Text
from ...ui.i18n import say
from ..auth import Session
from ..roles import Route, owner, staff
from ..staff import Section, log
from ..staff_answers import bad, language
from ..staff_table import StandIn

TEXTS: tuple[str, ...] = (
    N_("Security updates"),
    N_("Debian's security updates are applied by the table every day at {hour}:00, or at the first idle moment after it."),
    N_("Debian's security updates are applied by the table every Monday at {hour}:00, or at the first idle moment after it."),
    N_("The table applies no security updates by itself (Configuration, Advanced: Security updates)."),
    N_("Being applied now…"),
    N_("Applied ({count} packages): the table checks it is healthy on them…"),
    N_("Last run {when}: nothing to update."),
    N_("Last run {when}: {count} packages updated."),
    N_("Last run {when}: failed."),
    N_("Last run {when}: the table was not healthy after it."),
    N_("No run yet."),
    N_("A reboot is due to finish them ({packages}): Restart the computer under Power."),
    N_("A reboot is due to finish them: Restart the computer under Power."),
    N_("What changed"),
    N_("Apply them now"),
    N_("Apply Debian's security updates now? If any is applied, the table restarts on it and the game resumes."),
    N_("Asked: the table applies them in the next minutes."),
)


class Updates(Protocol):
    """The security updates' schedule (``daemon.security.SecurityUpdates``)."""

    def view(self, lang: str) -> dict[str, Any]: ...

    def run_now(self) -> Text | None: ...

    def attention(self, lang: str) -> list[dict[str, str]]: ...

    def restarting_run(self) -> float | None: ...


class FakeSecurity:
    """The security updates of a stand-in table, on a schedule that never ran: a run asked now
    recorded in ``calls``."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def view(self, lang: str) -> dict[str, Any]:
        return {"schedule": {"every": "daily", "hour": 4}, "running": False, "waits": None, "last": None}

    def run_now(self) -> Text | None:
        self.calls.append("security")
        return None

    def attention(self, lang: str) -> list[dict[str, str]]:
        return []

    def restarting_run(self) -> float | None:
        return None  # no run: no start is one's restart


class SecuritySection(Section[Updates], name="security", script="security.js", texts=TEXTS):
    """The security updates' routes under ``/staff/api/``, behind the staff page's checks."""

    @classmethod
    def stand_in(cls, table: StandIn) -> Updates:
        return FakeSecurity(table.calls)

    def routes(self) -> list[Route]:
        return [staff("GET", "/staff/api/security", self._view),  # the last run, what changed, a reboot due
                owner("POST", "/staff/api/security", self._run)]  # a run now: the table may restart on it

    def heeded(self, lang: str) -> list[dict[str, str]]:
        return self.table.attention(lang)

    def restarting_run(self) -> float | None:
        return self.table.restarting_run()

    async def _view(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.table.view, language(request)))

    async def _run(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or body != {"act": "run"}:
            return bad('expected {"act": "run"}')
        problem = await asyncio.to_thread(self.table.run_now)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, language(request))}, status=409)
        log.warning("staff page: the security updates asked from %s", request.remote)
        await asyncio.to_thread(self.page.owners_act, session, "security", False)  # its restart, minutes later
        return web.json_response({"ok": True, "asked": time.time()}, status=202)  # the run's note is newer once done
