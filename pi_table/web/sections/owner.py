"""The owner's passphrase on the staff page: changed, given the one it replaces (``POST
/staff/api/owner/passphrase`` ``{"old", "new"}``), or, forgotten, replaced by someone at the
table with the code its screen shows (``POST /staff/api/owner/reset`` ``{"code", "passphrase"}``).
Giving it, to act as the owner for a while, is the page's own (``/staff/api/owner``); its script
(owner.js) asks for it wherever an owner's action needs it. docs/cafe/roles.md is the contract.
"""

from __future__ import annotations

import asyncio
import logging
import math

from aiohttp import web

from ...engine.errors import Refusal
from ...engine.phrase import N_
from ...ui.i18n import say, translation
from ..auth import Session, Why
from ..roles import MIN_PASSPHRASE, OWNER_S, Route, set_passphrase, staff
from ..staff import WRONG_CODE, WRONG_PASSPHRASE, Section, StaffPage, TableCode, bad, language, no_owner, refused

log = logging.getLogger("pi_table.web.staff")

TEXTS: tuple[str, ...] = (
    N_("Owner"),
    N_("Owner's passphrase"),
    N_("Unlock the owner's actions"),
    N_("Lock them again"),
    N_("The owner's actions are unlocked for {minutes} min."),
    N_("Updates, backups, restores, power and the fleet's settings need the owner's passphrase."),
    N_("No owner's passphrase is set: updates, backups, restores, power and the fleet's settings stay locked. "
       "Set one on the table's computer with: sudo pi-table set-owner-passphrase"),
    N_("Change the owner's passphrase"),
    N_("Current passphrase"),
    N_("Change the passphrase"),
    N_("Forgot the owner's passphrase?"),
    N_("Hold both buttons while the table starts: its screen shows a code for 10 minutes."),
    N_("Code on the table's screen"),
    N_("Set the new passphrase"),
    N_("New passphrase (10 characters or more)"),
    N_("New passphrase again"),
    N_("The two passphrases differ."),
    N_("The owner's passphrase is changed: this phone acts as the owner, every other gives the new one."),
)


class OwnerSection(Section):
    """The owner's passphrase changed or reset, behind the staff page's checks (a staff session:
    the passphrase it replaces, or the code on the table's screen, is the proof)."""

    name = "owner"
    script = "owner.js"
    texts = TEXTS

    def __init__(self, page: StaffPage, table: TableCode) -> None:
        super().__init__(page, table)
        self.table = table

    def routes(self) -> list[Route]:
        return [staff("POST", "/staff/api/owner/passphrase", self._passphrase),  # with the passphrase it replaces
                staff("POST", "/staff/api/owner/reset", self._reset_passphrase)]  # with the code on the table's screen

    async def _passphrase(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"old", "new"}``: the owner's passphrase changed, given the one it replaces (tried
        through the owner's door, counted as logins are); this session acts as the owner after it,
        and every other stops."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("old"), str) or not isinstance(body.get("new"), str):
            return bad('expected {"old": THE OWNER\'S PASSPHRASE NOW, "new": THE NEW ONE}')
        lang = language(request)
        checked = await self.page.owner.door.check(request, body["old"])
        if checked is not None and checked.why is Why.NO_SECRET:
            return no_owner(request)
        if checked is not None and checked.why is Why.WRONG:
            log.warning("staff page: a wrong owner's passphrase to change it from %s", request.remote)
            return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_PASSPHRASE)}, status=403)
        if checked is not None:
            return refused(checked, lang)
        answer = self._new_passphrase(session, body["new"], lang)
        log.warning("staff page: the owner's passphrase was changed from %s", request.remote)
        return answer

    async def _reset_passphrase(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"code", "passphrase"}``: a forgotten owner's passphrase replaced by someone at the
        table, as the PIN's is: the code the table's screen shows (both buttons held at the start),
        from a staff session; the code serves once, and is not spent on a passphrase too short."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) \
                or not isinstance(body.get("passphrase"), str):
            return bad('expected {"code": THE CODE ON THE TABLE\'S SCREEN, "passphrase": THE NEW PASSPHRASE}')
        lang = language(request)
        if len(body["passphrase"]) < MIN_PASSPHRASE:  # before the code is spent
            return bad(say(Refusal("the owner's passphrase has at least {least} characters, not {length}",
                                   least=MIN_PASSPHRASE, length=len(body["passphrase"])).phrase, lang))
        checked = await self.page.gate.check(request, body["code"], self.table.recovery.redeem)
        if checked is not None and checked.why is Why.WRONG:
            log.warning("staff page: a wrong reset code for the owner's passphrase from %s", request.remote)
            return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_CODE)}, status=403)
        if checked is not None:
            return refused(checked, lang)
        answer = self._new_passphrase(session, body["passphrase"], lang)
        await asyncio.to_thread(self.table.recovered)
        log.warning("staff page: the owner's passphrase was reset with the code from the table's screen, from %s",
                    request.remote)
        return answer

    def _new_passphrase(self, session: Session, passphrase: str, lang: str) -> web.Response:
        """Keep ``passphrase`` as the owner's: ``session`` acts as the owner, every other session stops."""
        folder = self.page.folder
        assert folder is not None  # a session was open: the page keeps its secrets in the folder
        try:
            set_passphrase(folder, passphrase)
        except Refusal as e:
            return bad(say(e.phrase, lang))
        self.page.gate.sessions.owners_only(session)
        session.owner = self.page.owner.clock() + OWNER_S
        return web.json_response({"ok": True, "set": True, "left_s": math.ceil(self.page.owner.left_s(session))})
