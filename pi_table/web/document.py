"""Every page's head, written once: the phones' page, the staff and set-up pages (their bodies are
``web/static/*.html``), the night's printed standings and slips, a team's form, a refusal, and
the league's and the fleet's pages.

A page a server makes whole (the league's, the fleet's) is ``kit_page``: the same head, a
``header`` and a ``main`` landmark, and the kit's script (``static/kit.js``, which the staff page's
script imports too): its numbers and dates through ``Intl`` in the reader's language, the time
zone said once, and, for a page that changes, its parts fetched again into a polite live region,
never a reload (issue 73).

Each page says its language (``<html lang>``, which its script starts from), is UTF-8 and fits a
phone's width. The table's pages send no address of the table's to another site (``no-referrer``:
their responses say it in a header too, and a page a phone keeps still says it); the fleet's keep
the browser's own policy, as they check where a form was sent from by its ``Origin``, which a
no-referrer page sends as ``null``. What follows is the page's own: its title, its styles and
scripts (``head``), its body.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from .. import host
from ..engine.phrase import N_
from ..ui.i18n import translation

NO_REFERRER = '<meta name="referrer" content="no-referrer">\n'
SIMULATED = N_("Simulated table: its computer is a stand-in machine, so its Wi-Fi, updates, power and USB stick "
               "are simulated, and nothing here changes a real table.")


def simulated(lang: str) -> str:
    """The mark every page of a table on a stand-in machine carries, in ``lang``; '' for any other."""
    if not host.STAND_INS:
        return ""
    return f'<p class="simulated" role="note">{html.escape(translation(lang).gettext(SIMULATED))}</p>\n'


def document(lang: str, title: str, body: str, head: str = "", referrer: bool = False) -> str:
    """A whole page in ``lang`` titled ``title`` (plain text); ``head`` and ``body`` are HTML;
    ``referrer``: the browser's own referrer policy (the fleet's pages), not ``no-referrer``."""
    return ("<!doctype html>\n"
            f'<html lang="{html.escape(lang)}">\n'
            "<head>\n"
            '<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"{'' if referrer else NO_REFERRER}"
            f"<title>{html.escape(title)}</title>\n"
            f"{head}"
            "</head>\n"
            f"<body>\n{simulated(lang)}{body}</body>\n"
            "</html>\n")


KIT_SCRIPT = "kit.js"
"""The kit's script, in ``web/static/``: each server that makes a ``kit_page`` serves it at ``/kit.js``."""
LOCALTIME = Path("/etc/localtime")


def zone_now(localtime: Path = LOCALTIME) -> str | None:
    """The system's time zone, as /etc/localtime names it (a link into the zone files); None if it does not."""
    try:
        target = os.readlink(localtime)
    except OSError:
        return None
    _, found, zone = target.partition("zoneinfo/")
    return zone if found and zone else None


def kit_page(lang: str, title: str, header: str, main: str, head: str = "", zone: str | None = None,
             every_s: int = 0, said: str = "") -> str:
    """A server's whole page: ``header`` and ``main`` (HTML) in their landmarks, the kit's script
    after them; ``zone``: the time zone the page's dates are written in; ``every_s``: how often the
    page fetches itself again into its parts (``data-part``), ``said`` (plain text) in its polite
    live region when one changed. The fleet's pages, which check a form's ``Origin``, keep the
    browser's own referrer policy."""
    live = (f' data-every="{every_s}"' if every_s else "") + (f' data-zone="{html.escape(zone)}"' if zone else "")
    region = (f'<p id="kit-said" class="visually-hidden" aria-live="polite" data-said="{html.escape(said)}"></p>\n'
              if every_s else "")
    return document(lang, title, f"<header>{header}</header>\n<main data-kit{live}>{main}</main>\n{region}"
                    f'<script type="module" src="/{KIT_SCRIPT}"></script>\n',
                    head='<link rel="icon" href="data:,">\n' + head, referrer=True)
