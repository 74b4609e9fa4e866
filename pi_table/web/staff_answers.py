"""The staff page's answers its sections share: the page's language and address, a bad request,
a refused login or owner said with the wait, downloads' headers.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from aiohttp import web

from ..engine.phrase import N_
from ..engine.views import LANGUAGES
from ..ui.i18n import translation
from .auth import (
    CODE_DIGITS,
    Refused,
    Why,
    code_given,
)
from .staff_words import OWNER_UNSET, WRONG_PASSPHRASE

log = logging.getLogger("pi_table.web.staff")
LANG_HEADER = "X-Staff-Lang"
_PRIVATE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def reached_on(request: web.Request) -> str | None:
    """The address of this machine ``request`` came in on (an IPv4 one as such, not mapped into
    IPv6): where the staff page must answer again after a change it makes. None without one."""
    import ipaddress  # a change of the settings only

    sockname = None if request.transport is None else request.transport.get_extra_info("sockname")
    if not isinstance(sockname, tuple) or not isinstance(sockname[0], str):
        return None
    host = sockname[0]
    try:
        mapped = ipaddress.IPv6Address(host.partition("%")[0]).ipv4_mapped
    except ValueError:  # an IPv4 address already
        return host
    return host if mapped is None else str(mapped)




def language(request: web.Request) -> str:
    lang = request.headers.get(LANG_HEADER, "en")
    return lang if lang in LANGUAGES else "en"


REFUSALS = {
    Why.NO_SESSION: N_("log in first"),
    Why.EXPIRED: N_("your session has expired: log in again"),
    Why.NO_TOKEN: N_("the page's security token is missing or wrong: reload the page"),
    Why.NO_SECRET: N_("no staff PIN is set: sudo pi-table set-staff-pin"),
    Why.TOO_MANY: N_("too many attempts: wait {seconds} s"),
    Why.BUSY: N_("too many logins at once: try again in a moment"),
    Why.WRONG: N_("wrong PIN"),
}
"""What the page says to each refusal of the way in."""


def line_code(request: web.Request, body: dict[str, Any]) -> str | None:
    """The code on the table's screen a login's ``body`` carries (``auth.code_given``), or None;
    a 400 saying what it is, in the page's language, for anything else."""
    try:
        return code_given(body.get("code"))
    except ValueError as e:
        said = translation(language(request)).gettext(str(e)).format(digits=CODE_DIGITS)
        raise web.HTTPBadRequest(text=json.dumps({"ok": False, "error": said}), content_type="application/json") from None


IN_LINE = N_("many phones are logging in: wait {seconds} s, or type the code on the table's screen")
"""A phone waiting in line for the budget of phones never seen: the table's code skips the line."""


def refused(refused: Refused, lang: str) -> web.Response:
    """A refusal of the way in, in the page's language; one that waits in line says so (``line``)."""
    said = IN_LINE if refused.line else REFUSALS[refused.why]
    text = translation(lang).gettext(said).format(seconds=refused.wait_s)
    answer = {"ok": False, "error": text, **({"line": True} if refused.line else {})}
    return web.json_response(answer, status=refused.status, headers={**_PRIVATE, **refused.headers})




def owner_refused(checked: Refused | None, request: web.Request, lang: str, given: str = "") -> web.Response | None:
    """The answer to an owner's passphrase the owner's door did not take, None when it did: 409 with
    none set; 403 for a wrong one, not the login's 401, so the session goes on (logged with what it
    was ``given`` for); else the door's own refusal."""
    if checked is None:
        return None
    if checked.why is Why.NO_SECRET:
        return no_owner(request)
    if checked.why is Why.WRONG:
        log.warning("staff page: a wrong owner's passphrase%s from %s", given, request.remote)
        return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_PASSPHRASE)}, status=403)
    return refused(checked, lang)




def no_owner(request: web.Request) -> web.Response:
    """What needs the owner, on a table with no owner's passphrase: 409, and how to set one."""
    said = translation(language(request)).gettext(OWNER_UNSET)
    return web.json_response({"ok": False, "error": said, "owner": "unset"}, status=409, headers=_PRIVATE)




def bad(text: str) -> web.Response:
    return web.json_response({"ok": False, "error": text}, status=400)




def _cell(value: object) -> str:
    return "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)




def _download(kind: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="pi-table-history.{kind}"'}
