"""Every page's head, written once: the phones' page, the staff and set-up pages (their bodies are
``web/static/*.html``), the night's printed standings and slips, a team's form, a refusal, and
the league's and the fleet's pages.

Each page says its language (``<html lang>``, which its script starts from), is UTF-8 and fits a
phone's width. The table's pages send no address of the table's to another site (``no-referrer``:
their responses say it in a header too, and a page a phone keeps still says it); the fleet's keep
the browser's own policy, as they check where a form was sent from by its ``Origin``, which a
no-referrer page sends as ``null``. What follows is the page's own: its title, its styles and
scripts (``head``), its body.
"""

from __future__ import annotations

import html

NO_REFERRER = '<meta name="referrer" content="no-referrer">\n'


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
            f"<body>\n{body}</body>\n"
            "</html>\n")
