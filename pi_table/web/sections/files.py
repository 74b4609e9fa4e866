"""The owner's files on the staff page: the HTTPS certificate and its key (uploaded, or made on the
table self-signed), the fleet broker's address and password, and the words a game night's team
names may not use, so no terminal is needed for them (issue 39). Each is the owner's, and each is
a change of settings tried as every other one is: the table restarts on it and goes back by
itself if it is not healthy (``daemon.owner_files``).

``GET /staff/api/files``: what is set (never a password or a key); ``POST
/staff/api/files/{kind}``, ``kind`` one of ``tls`` (``{"cert", "key"}`` as PEM text, or
``{"self_signed": true}``), ``broker`` (``{"broker": "mqtts://USER@HOST:PORT", "table_id",
"password", "ca"}``, the password left as it is when empty, the CA's PEM text optional),
``blocked-words`` (``{"words": one a line}``) or ``dashboard`` (the fleet dashboard's section's).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from aiohttp import web

from ...engine.phrase import N_, Phrase
from ...ui.i18n import translation
from ..auth import Session
from ..roles import Route, owner
from ..staff import Section, log
from ..staff_answers import bad, language, reached_on
from ..staff_words import refusal

SAVED = N_("Saved: the table restarts to try it, and goes back by itself if it is not healthy.")

TEXTS: tuple[str, ...] = (
    N_("HTTPS certificate"),
    N_("Certificate (PEM)"),
    N_("Private key (PEM)"),
    N_("Use this certificate"),
    N_("Choose the certificate and its key first."),
    N_("Make a self-signed certificate"),
    N_("Make a self-signed certificate? Phones warn about it once, until it is trusted; the table restarts on it."),
    N_("This table answers over https with {file}."),
    N_("This table answers over http: the staff PIN crosses the Wi-Fi in clear."),
    N_("Fleet broker"),
    N_("Broker address (mqtts://USER@HOST:PORT)"),
    N_("This table's name in the fleet"),
    N_("Broker password (empty: keep the one set)"),
    N_("Save the broker"),
    N_("The CA that signed the broker's certificate (empty: the system's, or the one set)"),
    N_("A password is set."),
    N_("Words not allowed in team names (one a line)"),
    N_("Save the words"),
    SAVED,
)


class Table(Protocol):
    """What the section takes of the table: the files set, a file given (the settings' form, for
    its labels, is the page's desk's)."""

    def owner_files(self) -> dict[str, Any]:
        """What the owner set of the files the staff page gives the table (``daemon.owner_files.state``)."""

    def give_file(self, kind: str, given: dict[str, Any], reached: str | None) -> list[Phrase]:
        """The owner's file of ``kind`` written and the settings naming it changed as
        ``change_settings`` does (a trial, the page answering on ``reached`` after it); [] or why not."""


class FilesSection(Section[Table], name="files", script="files.js", texts=TEXTS):
    """The owner's files' routes under ``/staff/api/``, behind the staff page's checks."""

    def routes(self) -> list[Route]:
        return [owner("GET", "/staff/api/files", self._state),  # the certificate, the broker, blocked words
                owner("POST", "/staff/api/files/{kind}", self._give)]

    async def _state(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.table.owner_files))

    async def _give(self, request: web.Request, session: Session) -> web.StreamResponse:
        body = await self.page.read_json(request)
        if not isinstance(body, dict):
            return bad("expected a JSON object: the file's fields")
        kind, lang = request.match_info["kind"], language(request)
        problems = await asyncio.to_thread(self.table.give_file, kind, body, reached_on(request))
        if problems:
            options = {option["key"]: option for option in (await asyncio.to_thread(self.page.desk.settings))["options"]}
            found = [refusal(problem, {}, options, lang) for problem in problems]
            return web.json_response({"ok": False, "error": "\n".join(each["error"] for each in found),
                                      "said": "\n".join(each["whole"] for each in found)}, status=400)
        log.warning("staff page: the owner's %s file given from %s: restarting to try it", kind, request.remote)
        return await self.page.then_restart(request, {"ok": True, "restarting": True,
                                                      "said": translation(lang).gettext(SAVED)},
                                            (session, kind if kind in ("dashboard", "notify") else "files"))
