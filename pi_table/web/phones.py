"""Which phone holds which page: the first phone to open a seat's page (its token) keeps it,
by a cookie that proves it, and every page speaks the language its phone asked for (the
companion's lowest room: ``web.server.Companion`` is built on it).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from ..engine.phrase import N_
from ..engine.views import LANGUAGES
from ..files import write_private
from ..ui.i18n import UnknownLanguage, translation
from .auth import same
from .runner import ServerThread
from .snapshot import Snapshot
from .texts import refusal_page, rendered_page

log = logging.getLogger("pi_table.web")
ANOTHER_PHONE = N_("This page is already open on another phone. If that was not you, tell the table's staff.")
REPLACED = N_("This seat's link was replaced: scan the new code on the table's screen.")
BIND = web.RequestKey("bind", tuple)  # the cookie to give the phone that has just opened a page
COOKIE_S = 24 * 3600
NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
"""Private pages must not linger in a phone's cache, nor leak their token to another site."""


class Phones(ServerThread):
    """The private pages' tokens, the phones that opened them, and the pages' language."""

    _snapshot: Snapshot
    _opened: set[str]  # tokens some phone has opened: that phone keeps them
    opened_file: Path | None
    opened: Callable[[str], None] | None
    proof: Callable[[str], str]
    language: str
    _files: dict[str, bytes]
    _template: str

    def _private(self, request: web.Request) -> tuple[str, dict[str, Any]]:
        """The (role, view) behind the request's token, for the phone that opened it first.

        The first phone to open a token's page keeps it: it gets a cookie that proves it (an
        HMAC of the token under the companion's secret, so it survives a restart), and any
        other phone is refused. A code photographed over someone's shoulder then shows up as
        a refusal on the rightful phone, not as a silent spy."""
        token = request.match_info["token"]
        entry = self._snapshot.private.get(token)
        if entry is None:
            if token in self._snapshot.replaced:  # its holder may have been the rightful phone: say so
                raise _refusal(request, web.HTTPGone, self._words(request, REPLACED), self._lang(request))
            raise web.HTTPNotFound(text="")  # nothing at all for a wrong or old token
        name, proof = _cookie_name(token), self.proof(token)
        if token in self._opened:
            if not same(request.cookies.get(name, ""), proof):
                raise _refusal(request, web.HTTPForbidden, self._words(request, ANOTHER_PHONE), self._lang(request))
        else:
            self._opened.add(token)
            self._keep_opened()
            request[BIND] = (name, proof)
            if self.opened is not None:
                self.opened(entry[0])
        return entry

    def _keep_opened(self) -> None:
        """Write down the opened tokens of the game on the table, so a restart keeps them."""
        if self.opened_file is None:
            return
        kept = sorted(self._opened & set(self._snapshot.private))
        try:
            write_private(self.opened_file, "".join(f"{token}\n" for token in kept).encode("ascii"))
        except OSError as e:
            log.warning("cannot keep the opened pages in %s (%s): after a restart their codes show again", self.opened_file, e)

    def was_opened(self, token: str) -> bool:
        """Whether a phone has opened this token's page (a phone that reconnects after a
        restart opens it again by itself); safe from any thread."""
        return token in self._opened

    def speak(self, language: str) -> None:
        """The pages' language for a phone that has not chosen its own: the table's, which the
        staff page or the fleet may change while the table runs."""
        if language not in LANGUAGES:
            raise UnknownLanguage(f"the pages speak {' or '.join(LANGUAGES)}, not {language!r}")
        self.language = language
        self._files["page.html"] = rendered_page(self._template, language).encode()

    def _lang(self, request: web.Request) -> str:
        """The language the page asked for (``?lang=``), else the table's."""
        asked = request.query.get("lang", "")
        return asked if asked in LANGUAGES else self.language

    def _words(self, request: web.Request, msgid: str) -> str:
        """One of the companion's own sentences in the asking page's language."""
        return translation(self._lang(request)).gettext(msgid)


def _set_proof(request: web.Request, response: web.StreamResponse) -> None:
    """Give the phone that has just opened a page its proof."""
    if BIND in request:
        name, proof = request[BIND]
        response.set_cookie(name, proof, path="/", httponly=True, samesite="Strict", max_age=COOKIE_S)


@web.middleware
async def _give_proof(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await handler(request)
    if not response.prepared:
        _set_proof(request, response)
    return response


def _refusal(request: web.Request, kind: type[web.HTTPException], text: str, lang: str) -> web.HTTPException:
    """A refusal in the form its asker reads: JSON for the page's own requests, else a page in
    ``lang`` (a screen reader says it in that language's voice)."""
    if request.path.startswith("/api/"):
        return kind(text=json.dumps({"ok": False, "error": text}), content_type="application/json")
    return kind(text=refusal_page(text, lang), content_type="text/html")


def _cookie_name(token: str) -> str:
    """One cookie a page, so one browser may hold two seats' pages (a test, a host's phone)."""
    return f"pt_{token[:12]}"
