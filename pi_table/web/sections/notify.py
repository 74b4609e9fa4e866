"""The owner's notifications on the staff page (issue 62): the Apprise URL the table sends to and
the events chosen, saved as one of the owner's files (``POST /staff/api/files/notify``, the files
section's route: a change tried as every other), ``GET /staff/api/notify`` (what is set, the URL's
service only, and how the last message went) and ``POST /staff/api/notify/test`` (``{"url"}``, or
``{}`` for the one set: a test message now). All the owner's: the URL holds a service's token or a
mail password, and names a host the table sends to. ``daemon.notices`` does the work.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from aiohttp import web

from ...engine.errors import Refusal
from ...engine.phrase import N_
from ...ui.i18n import say
from ...ui.tell import NOTICE_EVENTS
from ..auth import Session
from ..roles import Route, owner
from ..staff import Section, log
from ..staff_answers import bad, language

OFF = N_("the owner's notifications are off on this table: it does not hold the journal")

TEXTS: tuple[str, ...] = (
    N_("Notifications"),
    N_("The table sends you a message when something needs you, through Apprise: e-mail, Telegram, ntfy and more."),
    N_("Apprise URL (empty: keep the one set)"),
    N_("Tell me when"),
    N_("Save the notifications"),
    N_("Send a test"),
    N_("Forget the address"),
    N_("Sent to {service}"),
    N_("No address set: nothing is sent."),
    N_("Last message {when}: sent."),
    N_("Last message {when} failed: {why}"),
    N_("Test sent: look for it where the messages arrive."),
    *NOTICE_EVENTS.values(),
)


class Notices(Protocol):
    """The owner's notifications (``daemon.notices.Watch``)."""

    def view(self, lang: str) -> dict[str, Any]: ...

    def test(self, url: str = "") -> dict[str, Any]: ...


class NotifySection(Section[Notices | None], name="notify", script="notify.js", texts=TEXTS):
    """The notifications' routes under ``/staff/api/``, behind the staff page's checks."""

    def routes(self) -> list[Route]:
        return [owner("GET", "/staff/api/notify", self._view),  # what is set: the URL's service only
                owner("POST", "/staff/api/notify/test", self._test)]  # a message now, to a host the owner named

    async def _view(self, request: web.Request, session: Session) -> web.Response:
        notices, lang = self.table, language(request)
        if notices is None:
            return web.json_response({"ok": False, "error": say(OFF, lang)}, status=409)
        return web.json_response({"ok": True, **await asyncio.to_thread(notices.view, lang),
                                  "offered": NOTICE_EVENTS})  # the page's boxes, in its words: the page keeps no list

    async def _test(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        url = body.get("url", "") if isinstance(body, dict) else None
        if not isinstance(url, str):
            return bad('expected {"url": "an Apprise URL"}, or {} for the one set')
        notices, lang = self.table, language(request)
        if notices is None:
            return web.json_response({"ok": False, "error": say(OFF, lang)}, status=409)
        try:
            await asyncio.to_thread(notices.test, url)  # waits on the sender's thread, a bounded time
        except Refusal as refused:
            return web.json_response({"ok": False, "error": say(refused.phrase, lang)}, status=400)
        log.warning("staff page: a test notification sent from %s", request.remote)
        return web.json_response({"ok": True, **await asyncio.to_thread(notices.view, lang),
                                  "offered": NOTICE_EVENTS})  # the page's boxes, in its words: the page keeps no list
