"""The owner's passphrase on the staff page: changed, given the one it replaces (``POST
/staff/api/owner/passphrase`` ``{"old", "new"}``); forgotten, replaced by the owner with the
recovery code shown once at the set-up (``POST /staff/api/owner/recover`` ``{"recovery",
"passphrase"}``), or by someone at the table with the code its screen shows after both buttons
were held (``POST /staff/api/owner/reset`` ``{"code", "passphrase"}``), which first wipes
everything only the owner held (``daemon.owners_part``, issue 58): a factory reset of the
owner's part, never the owner's secrets handed to whoever stands at the table. Either way gives a
new recovery code, shown once, and leaves a notice (``GET /staff/api/owner/notice``) until the
owner acknowledges it (``POST`` there: a buttons' reset's a week after it at the soonest, never
from the session or a phone that made it, issue 74), and a line in the history the owner reads
(``GET /staff/api/owner/resets``). The owner makes a recovery code while unlocked (``POST
/staff/api/owner/recovery``). Giving the passphrase, to act as the owner for a while, is the
page's own (``/staff/api/owner``); its script (owner.js) asks for it wherever an owner's action
needs it. docs/cafe/roles.md is the contract.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from aiohttp import web

from ...engine.errors import Refusal
from ...engine.phrase import N_
from ...ui.i18n import say, translation
from ..auth import Session, Why, hashed
from ..roles import MIN_PASSPHRASE, OWNER_S, Route, new_recovery_code, owner, set_passphrase, staff
from ..staff import Section, StaffPage, log
from ..staff_answers import bad, language, owner_refused, refused
from ..staff_table import StandIn, TableCode
from ..staff_words import WRONG_CODE

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
    N_("Code on the table's screen"),
    N_("Set the new passphrase"),
    N_("New passphrase (10 characters or more)"),
    N_("New passphrase again"),
    N_("The two passphrases differ."),
    N_("The owner's passphrase is changed: this phone acts as the owner, every other gives the new one."),
    N_("Hold both buttons while the table starts: its screen shows a code for 10 minutes. This wipes everything "
       "only the owner set: the fleet's and the broker's passwords, the release keys the owner added, the nightly "
       "backups. The table restarts after."),
    N_("Forgot the passphrase? Use the recovery code"),
    N_("The recovery code you wrote down at the set-up"),
    N_("Make a recovery code"),
    N_("A recovery code resets the passphrase if you forget it. Each new one replaces the one before."),
    N_("No recovery code is kept: make one, and write it down."),
    N_("Write this recovery code down and keep it away from the table: it resets the owner's passphrase once, "
       "and is shown only now."),
    N_("The owner's passphrase was reset: the table restarts now, without the owner's secrets."),
    N_("Acknowledge"),
    N_("The notice is acknowledged."),
    N_("Resets of the owner's passphrase"),
    N_("{time}: with the recovery code, from {address}"),
    N_("{time}: with the table's buttons, from {address}; wiped: {wiped}"),
    N_("acknowledged {time}"),
    N_("not acknowledged yet"),
)


class OwnerSection(Section[TableCode], name="owner", script="owner.js", texts=TEXTS):
    """The owner's passphrase changed, recovered or reset, behind the staff page's checks (a staff
    session: the passphrase it replaces, the recovery code, or the code on the table's screen, is
    the proof); the notice a reset leaves, and the recovery code made anew."""

    @classmethod
    def stand_in(cls, table: StandIn) -> TableCode:
        return table.code

    def __init__(self, page: StaffPage, table: TableCode) -> None:
        super().__init__(page, table)
        self._one = asyncio.Lock()  # one way back at a time: a recovery code serves once

    def routes(self) -> list[Route]:
        return [staff("POST", "/staff/api/owner/passphrase", self._passphrase),  # with the passphrase it replaces
                staff("POST", "/staff/api/owner/recover", self._recover),  # with the owner's recovery code
                staff("POST", "/staff/api/owner/reset", self._reset_passphrase),  # with the code on the table's screen
                owner("POST", "/staff/api/owner/recovery", self._new_recovery),  # a new recovery code, shown once
                staff("GET", "/staff/api/owner/notice", self._notice),  # the last reset, until acknowledged
                owner("POST", "/staff/api/owner/notice", self._acknowledge),
                owner("GET", "/staff/api/owner/resets", self._resets)]  # every reset: when, from where, what was wiped

    async def _passphrase(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"old", "new"}``: the owner's passphrase changed, given the one it replaces (tried
        through the owner's door, counted as logins are); this session acts as the owner after it,
        and every other stops."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("old"), str) or not isinstance(body.get("new"), str):
            return bad('expected {"old": THE OWNER\'S PASSPHRASE NOW, "new": THE NEW ONE}')
        lang = language(request)
        checked = await self.page.owner.door.check(request, body["old"])
        if (refusal := owner_refused(checked, request, lang, " to change it")) is not None:
            return refusal
        answer = self._new_passphrase(session, body["new"], lang)
        log.warning("staff page: the owner's passphrase was changed from %s", request.remote)
        return answer

    async def _recover(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"recovery", "passphrase"}``: a forgotten owner's passphrase replaced by the owner with
        the recovery code (tried through the owner's door: its tries count as the passphrase's); the
        code serves once, a new one is given, and the reset's notice stands until acknowledged."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("recovery"), str) \
                or not isinstance(body.get("passphrase"), str):
            return bad('expected {"recovery": THE RECOVERY CODE, "passphrase": THE NEW PASSPHRASE}')
        lang = language(request)
        if (too_short := _too_short(body["passphrase"], lang)) is not None:
            return too_short
        async with self._one:
            checked = await self.page.owner.recover(request, body["recovery"])
            if checked is not None and checked.why is Why.WRONG:
                log.warning("staff page: a wrong recovery code for the owner's passphrase from %s", request.remote)
                return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_RECOVERY)}, status=403)
            if checked is not None:
                return refused(checked, lang)
            answer = self._new_passphrase(session, body["passphrase"], lang, recovery=True)
        await asyncio.to_thread(self.table.owner_reset, "recovery", request.remote, [], self._marks(request, session))
        log.warning("staff page: the owner's passphrase was reset with the recovery code, from %s", request.remote)
        return answer

    async def _reset_passphrase(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"code", "passphrase"}``: a forgotten owner's passphrase replaced by someone at the
        table, as the PIN's is: the code the table's screen shows (both buttons held at the start),
        from a staff session; the code serves once, and is not spent on a passphrase too short.
        Whoever stands at the table is not the owner: everything only the owner held is wiped first
        (a factory reset of the owner's part), the notice stands until the owner acknowledges it,
        and the table restarts, so nothing it holds in memory keeps the owner's passwords either."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) \
                or not isinstance(body.get("passphrase"), str):
            return bad('expected {"code": THE CODE ON THE TABLE\'S SCREEN, "passphrase": THE NEW PASSPHRASE}')
        lang = language(request)
        if (too_short := _too_short(body["passphrase"], lang)) is not None:  # before the code is spent
            return too_short
        async with self._one:
            checked = await self.page.gate.check(request, body["code"], self.table.recovery.redeem)
            if checked is not None and checked.why is Why.WRONG:
                log.warning("staff page: a wrong reset code for the owner's passphrase from %s", request.remote)
                return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_CODE)}, status=403)
            if checked is not None:
                return refused(checked, lang)
            await asyncio.to_thread(self.table.recovered)
            try:
                wiped = await asyncio.to_thread(self.table.wipe_owners_part, request.remote)
            except Refusal as e:
                log.error("staff page: the owner's passphrase was not reset from %s: %s", request.remote, e)
                return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=409)
            try:
                answer = self._keep(session, body["passphrase"], recovery=True)
            except Refusal as e:
                return bad(say(e.phrase, lang))
        await asyncio.to_thread(self.table.owner_reset, "buttons", request.remote, wiped, self._marks(request, session))
        log.warning("staff page: the owner's passphrase was reset with the code from the table's screen, from %s; "
                    "the owner's part was wiped first", request.remote)
        return await self.page.then_restart(request, {**answer, "restarting": True})

    async def _new_recovery(self, request: web.Request, session: Session) -> web.Response:
        """A new recovery code for the owner (the one before no longer serves), shown this once."""
        folder = self.page.folder
        assert folder is not None  # a session was open: the page keeps its secrets in the folder
        code = await asyncio.to_thread(new_recovery_code, folder)
        log.warning("staff page: the owner made a new recovery code from %s", request.remote)
        return web.json_response({"ok": True, "recovery_code": code}, headers=PRIVATE)

    async def _notice(self, request: web.Request, session: Session) -> web.Response:
        """The notice of the last reset of the owner's passphrase, said in the page's language, or null."""
        notice = await asyncio.to_thread(self.table.owner_notice)
        return web.json_response({"notice": None if notice is None else say(notice, language(request))})

    async def _acknowledge(self, request: web.Request, session: Session) -> web.Response:
        """The owner has seen the notice: it leaves the screen, the page and the reports; 403 and
        why while it stands (``owner_notice.acknowledge``)."""
        try:
            seen = await asyncio.to_thread(self.table.acknowledge_reset, self._marks(request, session))
        except Refusal as e:
            log.warning("staff page: the notice of the owner's reset not acknowledged from %s: %s", request.remote, e)
            return web.json_response({"ok": False, "error": say(e.phrase, language(request))}, status=403)
        log.warning("staff page: the owner acknowledged the reset of the passphrase from %s", request.remote)
        return web.json_response({"ok": True, "acknowledged": seen})

    async def _resets(self, request: web.Request, session: Session) -> web.Response:
        """Every reset of the owner's passphrase kept, the newest first, its wiped pieces in the page's language."""
        gettext = translation(language(request)).gettext
        kept = await asyncio.to_thread(self.table.owner_resets)
        return web.json_response({"resets": [
            {"how": str(entry.get("how")), "at": entry.get("at"), "from": str(entry.get("from", "?"))[:60],
             "wiped": [gettext(str(words)) for words in wiped] if isinstance(wiped := entry.get("wiped"), list) else [],
             "acknowledged": entry.get("acknowledged")} for entry in reversed(kept)]}, headers=PRIVATE)

    def _marks(self, request: web.Request, session: Session) -> list[str]:
        """The session and the phones (the staff's and the owner's device cookies) ``request``
        comes from, as a reset's notice knows them: hashes, never the cookies."""
        devices = (("staff", self.page.gate.door.device(request)), ("owner", self.page.owner.door.device(request)))
        return [hashed(f"session {session.csrf}"),
                *(hashed(f"{name} device {device}") for name, device in devices if device is not None)]

    def _new_passphrase(self, session: Session, passphrase: str, lang: str, recovery: bool = False) -> web.Response:
        """``_keep``'s answer, or why the passphrase will not do."""
        try:
            return web.json_response(self._keep(session, passphrase, recovery), headers=PRIVATE)
        except Refusal as e:
            return bad(say(e.phrase, lang))

    def _keep(self, session: Session, passphrase: str, recovery: bool) -> dict[str, Any]:
        """Keep ``passphrase`` as the owner's (a Refusal when it will not do): ``session`` acts as
        the owner, every other session stops; with ``recovery``, a new recovery code too, in the
        answer alone."""
        folder = self.page.folder
        assert folder is not None  # a session was open: the page keeps its secrets in the folder
        set_passphrase(folder, passphrase)
        self.page.gate.sessions.owners_only(session)
        session.owner = self.page.owner.clock() + OWNER_S
        more = {"recovery_code": new_recovery_code(folder)} if recovery else {}
        return {"ok": True, "set": True, "left_s": math.ceil(self.page.owner.left_s(session)), **more}


def _too_short(passphrase: str, lang: str) -> web.Response | None:
    if len(passphrase) < MIN_PASSPHRASE:
        return bad(say(Refusal("the owner's passphrase has at least {least} characters, not {length}",
                               least=MIN_PASSPHRASE, length=len(passphrase)).phrase, lang))
    return None


WRONG_RECOVERY = N_("wrong recovery code: type the one written down at the set-up, or the last one made since")
PRIVATE = {"Cache-Control": "no-store"}
