"""The staff page's backup and updates, the owner's: a backup downloaded (``GET
/staff/api/backup``), the nightly backups listed (``GET backups``), a backup restored from the
phone or one of those (``POST restore``, ``?check`` first: what it would replace), and the
releases: the running one, what an update could install, an update asked for (``GET``/``POST
update``, a bundle uploaded with ``?bundle=NAME``, ``&check`` first). docs/cafe/backup.md and
docs/cafe/updates.md are the contract.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web

from ...engine.errors import Refusal
from ...engine.phrase import N_, Phrase, Text
from ...errors import PiTableError
from ...release.bundle import MAX_BUNDLE
from ...ui.i18n import say
from ..auth import Session
from ..roles import Route, owner
from ..staff import Section, log
from ..staff_answers import bad, language, reached_on

UPLOAD_MOST = 64 << 20  # a backup, packed: no more than it may hold unpacked (the daemon's backup.MOST_BYTES)
UPLOAD_S = 300.0  # a phone on a slow Wi-Fi sends 200 MB in this long at 5 Mbit/s
KEY_HEADER = "X-Backup-Key"  # the owner's backup key typed for a sealed upload (the body is the file)
KEY_MOST = 100  # a key is 24 characters as written down; spaces besides

RESTORING = N_("Restored: the table restarts to try it, and deals a new game: the game in play has ended.")
"""A restore ends the game in play (``daemon.backup``): the page says so, never that the game resumes."""

TEXTS: tuple[str, ...] = (
    N_("Backup and updates"),
    N_("Download a backup"),
    N_("Restore a backup"),
    N_("The backup key, written down when the copy was sealed"),
    N_("Or one of the nightly backups the table keeps:"),
    N_("Check it to restore"),
    N_("Restoring it replaces:"),
    N_("Restore it"),
    N_("Restore this backup? The table restarts on it, and goes back by itself if it is not healthy."),
    N_("Version {version} runs"),
    N_("before it: {version}"),
    N_("A new version is on trial: it is kept once the table is healthy on it."),
    N_("An update was rolled back: {why}"),
    N_("Look for an update"),
    N_("No newer version."),
    N_("Install {version}"),
    N_("Install a release bundle"),
    N_("Install it?"),
    N_("Install the update? The table restarts on it, and goes back by itself if it is not healthy."),
    N_("The update is installing: the table restarts on it in a few minutes."),
)


class Backups(Protocol):
    """The table's backups (``daemon.backup``, through the staff desk)."""

    def backup(self) -> tuple[str, bytes]:
        """A backup of this table: its file name and bytes (a PiTableError or OSError: why not)."""

    def nightly_backups(self, lang: str) -> list[dict[str, Any]]:
        """The nightly backups kept, newest first: ``{"name", "made", "size", "holds"}`` (``made`` in Unix
        seconds, which the page writes in its language), their words in ``lang``."""

    def nightly_backup(self, name: str) -> bytes:
        """The nightly backup ``name`` of that list, to check or restore (a Refusal: no such one)."""

    def check_restore(self, data: bytes, key: str | None) -> list[Text]:
        """What restoring ``data`` would replace, in words (a Refusal: why it cannot be restored,
        KeyAsked for a sealed copy); sealed, it is opened with the owner's backup ``key`` as typed,
        else with the table's own."""

    def restore(self, data: bytes, reached: str | None, key: str | None) -> list[Phrase]:
        """Stage ``data`` (opened as ``check_restore`` opens it) to be tried at the next start (as a
        change of settings, the page must answer on ``reached`` after it); [] or why not (KeyAsked
        for a sealed copy). The page asks for the restart."""


class KeyAsked(Refusal):
    """A sealed copy refused (no key, a wrong one, a copy cut or changed): why, and the page shows
    the field for the owner's backup key."""


class Updates(Protocol):
    """The table's releases, and updates asked of the root helper."""

    def releases(self, lang: str, repository: bool) -> dict[str, Any]:
        """The running release, the previous, a trial, the last rollback and act (their why in
        ``lang``), what is ``offered`` (the repository's too, with ``repository``), and the
        restore's trial (``restore``, as the table's ``settings``)."""

    def receiving(self, checking: bool = False) -> Path:
        """A new private file for an uploaded bundle to be written into, where ``update`` keeps
        it; Refusal when no root helper would take it (the upload is then not read). ``checking``:
        a file of the service's own, for ``check_update``, on any table."""

    def check_update(self, bundle: str, received: Path) -> tuple[bool, Text]:
        """Whether installing the bundle uploaded into ``received`` would go ahead, and what it would
        do, in words, checked as the root helper checks it (its name, its signature against the
        table's keyring, its contents); a Refusal saying why it would be refused."""

    def update(self, source: str, bundle: str | None, received: Path | None) -> Text | None:
        """Ask the root helper to install from the ``repository`` or a ``bundle`` (uploaded into
        ``received``, which ``receiving`` gave, or one already offered); None, or why not."""


class Table(Backups, Updates, Protocol):
    """What the section takes of the table."""


class CareSection(Section[Table], name="care", script="care.js", texts=TEXTS):
    """The backups' and the updates' routes under ``/staff/api/``, behind the staff page's checks."""

    def routes(self) -> list[Route]:
        return [owner("GET", "/staff/api/backup", self._backup),  # the settings whole: a broker's password in its URL too
                owner("GET", "/staff/api/backups", self._backups),  # the nightly backups, to restore: what each holds
                owner("POST", "/staff/api/restore", self._restore),
                owner("GET", "/staff/api/update", self._releases),
                owner("POST", "/staff/api/update", self._update)]

    async def _backup(self, request: web.Request, session: Session) -> web.Response:
        try:
            name, data = await asyncio.to_thread(self.table.backup)
        except (PiTableError, OSError) as e:
            why = e.phrase if isinstance(e, Refusal) else getattr(e, "strerror", None) or str(e)
            return web.json_response({"ok": False, "error": say(why, language(request))}, status=409)
        log.info("staff page: a backup downloaded from %s", request.remote)
        return web.Response(body=data, content_type="application/gzip",
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def _backups(self, request: web.Request, session: Session) -> web.Response:
        """The nightly backups the table keeps, to restore one as an upload is."""
        return web.json_response({"nightly": await asyncio.to_thread(self.table.nightly_backups,
                                                                     language(request))})

    async def _restore(self, request: web.Request, session: Session) -> web.StreamResponse:
        """The uploaded backup as the body, or ``?nightly=NAME`` one the table keeps: ``?check``
        says what it would replace; without, it is staged and the table restarts to try it. A
        sealed one is opened with the backup key typed (``X-Backup-Key``: never in the address,
        which logs keep), else the table's own; refused, the answer says whether it is sealed
        (``key``: the page shows the key's field)."""
        lang = language(request)
        key = request.headers.get(KEY_HEADER, "").strip()[:KEY_MOST] or None
        if "nightly" in request.query:
            try:
                data = await asyncio.to_thread(self.table.nightly_backup, request.query["nightly"])
            except Refusal as e:
                return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=400)
        else:
            data = await self._upload(request, UPLOAD_MOST)
        if "check" in request.query:
            try:
                replaces = await asyncio.to_thread(self.table.check_restore, data, key)
            except Refusal as e:
                return web.json_response({"ok": False, "error": say(e.phrase, lang), "key": isinstance(e, KeyAsked)},
                                         status=400)
            return web.json_response({"ok": True, "replaces": [say(each, lang) for each in replaces]})
        try:
            problems, sealed = await asyncio.to_thread(self.table.restore, data, reached_on(request), key), False
        except KeyAsked as e:
            problems, sealed = [e.phrase], True
        if problems:
            return web.json_response({"ok": False, "error": "\n".join(say(each, lang) for each in problems),
                                      "key": sealed}, status=400)
        log.warning("staff page: a backup restored from %s: the table restarts to try it", request.remote)
        return await self.page.then_restart(request, {"ok": True, "restarting": True,
                                                      "said": say(Phrase.of(RESTORING), lang)}, (session, "care"))

    async def _releases(self, request: web.Request, session: Session) -> web.Response:
        """The running version, the one before, a rollback and why, and what an update could
        install (``?repository`` asks the repository too, which needs the network)."""
        found = await asyncio.to_thread(self.table.releases, language(request), "repository" in request.query)
        return web.json_response(found)

    async def _update(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``?bundle=NAME.tar.gz`` with the bundle as the body (an upload from the phone), or
        ``{"from": "repository"}`` or ``{"from": "bundle", "bundle": NAME}`` (one already offered)."""
        source: object
        name: str | None
        desk = self.table
        if "bundle" in request.query and "check" in request.query:
            return await self._check_update(request, request.query["bundle"])
        if "bundle" in request.query:
            source, name = "bundle", request.query["bundle"]
            try:
                received = await asyncio.to_thread(desk.receiving)
            except Refusal as e:
                return web.json_response({"ok": False, "error": say(e.phrase, language(request))}, status=409)
            try:
                await self._receive(request, MAX_BUNDLE, received)
                problem = await asyncio.to_thread(desk.update, source, name, received)
            finally:
                received.unlink(missing_ok=True)  # kept under its own name by then, when it is kept
        else:
            body = await self.page.read_json(request)
            source = body.get("from") if isinstance(body, dict) else None
            name = body.get("bundle") if isinstance(body, dict) else None
            if not (source == "repository" and name is None or source == "bundle" and isinstance(name, str)):
                return bad('expected {"from": "repository"} or {"from": "bundle", "bundle": NAME}')
            problem = await asyncio.to_thread(desk.update, source, name, None)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, language(request))}, status=409)
        log.warning("staff page: an update from the %s asked from %s", source, request.remote)
        return web.json_response({"ok": True}, status=202)

    async def _check_update(self, request: web.Request, name: str) -> web.Response:
        """``?bundle=NAME&check``: what installing the uploaded bundle would do, on any table (one
        without the root helper too), before the owner confirms; nothing is kept or asked."""
        desk, lang = self.table, language(request)
        received = await asyncio.to_thread(desk.receiving, True)
        try:
            await self._receive(request, MAX_BUNDLE, received)
            installs, would = await asyncio.to_thread(desk.check_update, name, received)
        except Refusal as e:
            return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=400)
        finally:
            received.unlink(missing_ok=True)
        return web.json_response({"ok": True, "installs": installs, "would": say(would, lang)})

    async def _receive(self, request: web.Request, most: int, into: Path) -> None:
        """The request's body, a file from the phone of at most ``most`` bytes (413 past it),
        written into the file ``into`` as it comes: a bundle of 100 MB is never held whole."""
        if request.content_length is not None and request.content_length > most:
            raise web.HTTPRequestEntityTooLarge(max_size=most, actual_size=request.content_length)
        received = 0
        file = await asyncio.to_thread(open, into, "wb")
        try:
            async with asyncio.timeout(UPLOAD_S):
                while chunk := await request.content.read(1 << 16):
                    received += len(chunk)
                    if received > most:
                        raise web.HTTPRequestEntityTooLarge(max_size=most, actual_size=received)
                    await asyncio.to_thread(file.write, chunk)
        finally:
            await asyncio.to_thread(file.close)

    async def _upload(self, request: web.Request, most: int) -> bytes:
        """The request's body, a file from the phone, at most ``most`` bytes (413 past it)."""
        if request.content_length is not None and request.content_length > most:
            raise web.HTTPRequestEntityTooLarge(max_size=most, actual_size=request.content_length)
        data = bytearray()
        async with asyncio.timeout(UPLOAD_S):
            while chunk := await request.content.read(1 << 16):
                data += chunk
                if len(data) > most:
                    raise web.HTTPRequestEntityTooLarge(max_size=most, actual_size=len(data))
        return bytes(data)
