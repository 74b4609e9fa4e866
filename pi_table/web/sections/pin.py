"""The staff PIN on the staff page: changed by the staff, given the one it replaces (``POST
/staff/api/pin`` ``{"old", "new"}``), or, forgotten, reset by the owner at the table with no
session: the code the table's screen shows and the owner's passphrase (``POST /staff/recover``
``{"code", "pin", "passphrase"}``). docs/cafe/console.md is the contract.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from ...engine.errors import Refusal
from ...engine.phrase import N_
from ...ui.i18n import say, translation
from ..auth import Session, Why
from ..roles import OWNER, Route, open_to_all, staff
from ..staff import MIN_PIN, Section, log, set_pin
from ..staff_answers import REFUSALS, bad, language, owner_refused, refused
from ..staff_table import StandIn, TableCode
from ..staff_words import WRONG_CODE

TEXTS: tuple[str, ...] = (
    N_("Staff PIN"),
    N_("Current PIN"),
    N_("New PIN (6 characters or more)"),
    N_("New PIN again"),
    N_("Change the PIN"),
    N_("the two new PINs differ"),
    N_("The PIN is changed: every other phone logs in again with the new one."),
    N_("Forgot the PIN?"),
    N_("Hold END TURN and NEW GAME while the table starts (switch it off and on, or restart the service): "
       "the spymaster screen shows a code for 10 minutes."),
    N_("Code on the table's screen"),
    N_("Owner's passphrase"),
    N_("Set the new PIN"),
)


class PinSection(Section[TableCode], name="pin", script="pin.js", texts=TEXTS):
    """The PIN's change, behind the staff page's checks, and its reset with no session."""

    @classmethod
    def stand_in(cls, table: StandIn) -> TableCode:
        return table.code

    def routes(self) -> list[Route]:
        return [staff("POST", "/staff/api/pin", self._pin),  # with the PIN it replaces
                open_to_all("POST", "/staff/recover", self._recover, OWNER)]  # the code and the owner's passphrase

    async def _pin(self, request: web.Request, session: Session) -> web.StreamResponse:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("old"), str) or not isinstance(body.get("new"), str):
            return bad('expected {"old": THE PIN NOW, "new": THE NEW PIN}')
        checked = await self.page.gate.check(request, body["old"])
        if checked is not None and checked.why is Why.WRONG:  # 403, not the login's 401: the session goes on
            return web.json_response({"ok": False, "error": translation(language(request)).gettext(REFUSALS[Why.WRONG])},
                                     status=403)
        if checked is not None:
            return refused(checked, language(request))
        folder = self.page.folder
        assert folder is not None  # a session was open: a PIN is kept in the folder
        try:
            set_pin(folder, body["new"])
        except Refusal as e:
            return bad(say(e.phrase, language(request)))
        stored = self.page.gate.secret()
        assert stored is not None  # just written
        self.page.gate.sessions.carry(session, stored)  # at once: a request of this phone's in flight stays in
        log.warning("staff page: the staff PIN was changed from %s; every other session is ended", request.remote)
        return web.json_response({"ok": True, "csrf": session.csrf})

    async def _recover(self, request: web.Request) -> web.StreamResponse:
        """A new PIN for the owner at the table: the code the table's screen shows (``Recovery``)
        and the owner's passphrase (``roles``: the PIN's reset is the owner's); no session needed,
        guesses of either limited as logins are. With no code live, nothing is checked and every
        request gets the same answer, so the route tells nothing of the passphrase."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) or not isinstance(body.get("pin"), str):
            return bad('expected {"code": THE CODE ON THE TABLE\'S SCREEN, "pin": THE NEW PIN, '
                       '"passphrase": THE OWNER\'S PASSPHRASE}')
        lang = language(request)
        if len(body["pin"]) < MIN_PIN:  # before the code is spent
            return bad(say(Refusal("the staff PIN has at least {least} characters, not {length}", least=MIN_PIN,
                                   length=len(body["pin"])).phrase, lang))
        if not isinstance(body.get("passphrase"), str):
            return self.page.owner_needed(request)
        if not self.table.recovery.active:  # no passphrase is tried without a code that could be spent
            return _wrong_code(lang)
        owner = await self.page.owner.door.check(request, body["passphrase"])
        if (refusal := owner_refused(owner, request, lang, " with a PIN reset code")) is not None:
            return refusal
        checked = await self.page.gate.check(request, body["code"], self.table.recovery.redeem)
        if checked is not None and checked.why is Why.WRONG:
            log.warning("staff page: a wrong PIN reset code from %s", request.remote)
            return _wrong_code(lang)
        if checked is not None:
            return refused(checked, lang)
        folder = self.page.folder
        assert folder is not None  # the daemon gives the page its journal folder
        set_pin(folder, body["pin"])
        await asyncio.to_thread(self.table.recovered)
        log.warning("staff page: the staff PIN was reset with the code from the table's screen and the owner's "
                    "passphrase, from %s", request.remote)
        entered = self.page.gate.enter()
        response = web.json_response({"ok": True, "csrf": entered.session.csrf})
        self.page.gate.let_in(request, response, entered)
        return response


def _wrong_code(lang: str) -> web.Response:
    """A PIN reset's code that is not the live one, or none is live: the same answer for both."""
    return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_CODE)}, status=403)
