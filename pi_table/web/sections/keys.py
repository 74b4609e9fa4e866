"""The releases' keyring on the staff page (issue 50, 4): ``GET /staff/api/keys`` (the staff: each
key's name, fingerprint and whether it was revoked, and how the last key act ended) and ``POST
/staff/api/keys`` (the owner: ``{"act": "add", "name", "key"}``, the public key's line pasted or
read from its .pub file by the page, or ``{"act": "revoke", "name"}``). The keys are listed as the
keyring has them (its files are readable by all: a public key is public); a key added or revoked
is asked of the root helper, which alone may write /etc/pi-table-keys (``release.keys``, as
RAUC's: a revoked key is never accepted again). The request is checked here as the helper checks
it, so a key that is none is refused at once, in words.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from ...engine.phrase import N_, Phrase
from ...release import ReleaseError, last_act, requests
from ...ui.i18n import say
from ..auth import Session
from ..roles import Route, owner, staff
from ..staff import Section, StaffPage, log
from ..staff_answers import bad, language
from ..staff_table import Helper, StandIn

ACTS = ("keys-add", "keys-revoke")

TEXTS: tuple[str, ...] = (
    N_("Release keys"),
    N_("This table installs only updates signed with one of these keys."),
    N_("No key yet: this table installs no update until one is added."),
    N_("No key may sign an update: each one listed is revoked, and this table installs no update until a key is "
       "added."),
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


class KeysSection(Section[Helper], name="keys", script="keys.js", texts=TEXTS):
    """The keyring at ``keyring``, and the helper's notes in ``home`` (its last key act); of the
    table, the root helper alone, which changes the keyring."""

    @classmethod
    def stand_in(cls, table: StandIn) -> Helper:
        return table.helper

    def __init__(self, page: StaffPage, table: Helper) -> None:
        super().__init__(page, table)
        self.helper = table
        self.keyring, self.home = table.keyring, table.home

    def routes(self) -> list[Route]:
        return [staff("GET", "/staff/api/keys", self._view),  # names and fingerprints: public keys are public
                owner("POST", "/staff/api/keys", self._change)]  # which updates the table installs

    def view(self, lang: str) -> dict[str, Any]:
        """Each key (its name, fingerprint, whether revoked) and the last key act asked of the
        helper (its why in ``lang``); a keyring that cannot be read says so."""
        try:
            keys = [{"name": key.name, "fingerprint": key.fingerprint, "revoked": key.revoked}
                    for key in self.keyring.listed()]
            problem = None
        except ReleaseError as e:
            keys, problem = [], e.why
        last = last_act(self.home, ACTS)
        if last is not None:
            last = {key: last.get(key) for key in ("act", "name", "fingerprint", "outcome", "at")} | {
                "why": (last.get("why") or {}).get(lang)}
        else:
            last = None
        view: dict[str, Any] = {"keys": keys, "last": last}
        if problem is not None:
            view["problem"] = say(Phrase.of(problem["template"], **problem["fields"]), lang)
        return view

    async def _view(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.view, language(request)))

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
        args = {key: value for key, value in asked.items() if key != "act"}
        problem = await asyncio.to_thread(self.helper.ask, asked["act"], **args)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.warning("staff page: the release key %r asked to be %s from %s", asked["name"],
                    "added" if act == "add" else "revoked", request.remote)
        return web.json_response({"ok": True}, status=202)
