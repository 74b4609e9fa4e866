"""The staff page's backups off the SD card (issue 62), the owner's: the network place the nightly
backup is copied to (``GET``/``POST /staff/api/offsite``: an SFTP or WebDAV place and its password,
never shown back; ``daemon.offsite``), how its last copy went, and the USB stick's last backup as
the root helper noted it (``release.stick``). docs/cafe/backup.md is the contract.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from aiohttp import web

from ...engine.errors import Refusal
from ...engine.phrase import N_
from ...ui.i18n import say
from ..auth import Session
from ..roles import Route, owner
from ..staff import Section, log
from ..staff_answers import bad, language

TEXTS: tuple[str, ...] = (
    N_("Copies off the SD card"),
    N_("A network place (SFTP or WebDAV) the nightly backup is copied to"),
    N_("sftp://USER@HOST:22/FOLDER"),
    N_("Its password"),
    N_("(set: empty keeps it)"),
    N_("Keep it and copy the newest backup now"),
    N_("No copy made yet."),
    N_("Last copy: {backup} at {time}"),
    N_("The last copy failed at {time}: {why}"),
    N_("Kept."),
    N_("The place's SSH key, pinned at its first copy: {fingerprint}"),
    N_("The place now answers with another SSH key: {fingerprint}. No copy is sent there. Compare it with the one "
       "the place's owner gives you; accept it only if it is theirs."),
    N_("Accept the new key and copy the newest backup now"),
    N_("The CA that signed the place's certificate, for a WebDAV place with its own (a NAS's)"),
    N_("Use this CA and copy the newest backup now"),
    N_("Choose the CA's file first."),
    N_("The place's own CA is set."),
    N_("No backup on a USB stick yet: one plugged into the table gets each night's backup."),
    N_("Last on a USB stick ({stick}): {backup} at {time}"),
    N_("The last backup to a USB stick failed at {time}: {why}"),
    N_("Make a backup key"),
    N_("A backup key seals the backups copied off the table. A new one replaces the one before."),
    N_("No backup key is kept: no backup is copied off the table. Make one, and write it down."),
    N_("Write this backup key down with the recovery code and keep it away from the table: the backups copie"
       "d to a USB stick or to the network place are sealed with it from now on, and a new SD card is set up"
       " from one of them only with it. It is shown only now; the copies sealed before still need the key be"
       "fore."),
)


class Table(Protocol):
    """The table's copies off the SD card (``daemon.offsite``, through the staff desk)."""

    def offsite(self, lang: str) -> dict[str, Any]:
        """The network place the nightly backup is copied to (``place``, its password never,
        ``password_set``) and how the last copy went (``last``: ``at``, ``backup``, ``ok``, ``why`` in ``lang``),
        and the USB stick's last backup as the root helper noted it (``stick``: the same, and the stick's label);
        whether a backup key is kept (``backup_key``), without which no copy leaves the card."""

    def give_offsite(self, address: str, password: str) -> bool | None:
        """Keep the place (an empty ``address``: none; an empty ``password``: the one kept, for the
        same host and user) and copy the newest backup there now: whether it went, None when not
        tried (a Refusal: what is wrong with the place)."""

    def give_offsite_ca(self, pem: str) -> bool | None:
        """The CA that signed the kept WebDAV place's certificate trusted for its address, and the
        newest backup copied there now (a Refusal: no such place, or not a CA's PEM)."""

    def new_backup_key(self) -> str:
        """A new backup key kept, the nightly backups sealed with it (``daemon.sealed``): the key,
        to be shown once."""

    def accept_offsite_key(self, compared: list[str]) -> bool | None:
        """The SFTP place's new host keys, whose fingerprints the owner ``compared``, pinned, and the
        newest backup copied there now (a Refusal: it answered with no other key, or with others since)."""


class OffsiteSection(Section[Table], name="offsite", script="offsite.js", texts=TEXTS):
    """The network place's routes under ``/staff/api/``, behind the staff page's checks."""

    def routes(self) -> list[Route]:
        return [
                owner("GET", "/staff/api/offsite", self._offsite),  # the network place: its password never
                owner("POST", "/staff/api/offsite", self._give_offsite),
                owner("POST", "/staff/api/offsite/key", self._accept_key),  # the SFTP place's new host key
                owner("POST", "/staff/api/offsite/ca", self._give_ca),  # a WebDAV place's own CA
                owner("POST", "/staff/api/offsite/backup-key", self._new_backup_key),  # shown once
        ]

    async def _new_backup_key(self, request: web.Request, session: Session) -> web.Response:
        """A new backup key, which the nightly backups are sealed with from now on (``daemon.sealed``),
        shown this once: a table set up before there were keys, or whose owner lost theirs."""
        key = await asyncio.to_thread(self.table.new_backup_key)
        log.warning("staff page: the owner made a new backup key from %s", request.remote)
        return web.json_response({"ok": True, "backup_key": key}, headers={"Cache-Control": "no-store"})

    async def _offsite(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.table.offsite, language(request)))

    async def _give_offsite(self, request: web.Request, session: Session) -> web.Response:
        """``{"place": ADDRESS, "password": PASSWORD}`` kept (an empty place: none), and the newest
        backup copied there at once, so the owner learns now whether the place takes it."""
        body = await self.page.read_json(request)
        address = body.get("place") if isinstance(body, dict) else None
        password = body.get("password", "") if isinstance(body, dict) else None
        if not isinstance(address, str) or not isinstance(password, str):
            return bad('expected {"place": "sftp://USER@HOST:PORT/FOLDER", "password": PASSWORD}')
        lang = language(request)
        try:
            await asyncio.to_thread(self.table.give_offsite, address, password)
        except Refusal as e:
            return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=400)
        log.warning("staff page: the backups' network place %s from %s", "given" if address.strip() else "forgotten",
                    request.remote)
        return web.json_response({"ok": True, **await asyncio.to_thread(self.table.offsite, lang)})

    async def _accept_key(self, request: web.Request, session: Session) -> web.Response:
        """``{"fingerprint": [FINGERPRINT, ...]}``: the SFTP place's new host keys, as the page showed
        them and the owner compared them, pinned in place of the old ones."""
        body = await self.page.read_json(request)
        compared = body.get("fingerprint") if isinstance(body, dict) else None
        if not isinstance(compared, list) or not all(isinstance(one, str) for one in compared) or len(compared) > 10:
            return bad('expected {"fingerprint": ["ED25519 SHA256:...", ...]}, as the page shows them')
        lang = language(request)
        try:
            await asyncio.to_thread(self.table.accept_offsite_key, compared)
        except Refusal as e:
            return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=400)
        log.warning("staff page: the backups' network place's new SSH key accepted from %s", request.remote)
        return web.json_response({"ok": True, **await asyncio.to_thread(self.table.offsite, lang)})

    async def _give_ca(self, request: web.Request, session: Session) -> web.Response:
        """``{"ca": PEM}``: the CA that signed the kept WebDAV place's certificate (the owner's file),
        trusted for that place's address alone, and the newest backup copied there at once."""
        body = await self.page.read_json(request)
        pem = body.get("ca") if isinstance(body, dict) else None
        if not isinstance(pem, str):
            return bad('expected {"ca": "-----BEGIN CERTIFICATE-----..."}, the CA\'s file as text')
        lang = language(request)
        try:
            await asyncio.to_thread(self.table.give_offsite_ca, pem)
        except Refusal as e:
            return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=400)
        log.warning("staff page: the backups' network place's own CA given from %s", request.remote)
        return web.json_response({"ok": True, **await asyncio.to_thread(self.table.offsite, lang)})
