"""The phone pages' words, in the table's one gettext catalogue.

Every text the pages show is an English msgid: marked ``t("...")``, ``tn("...")`` or ``N_("...")`` in the page
script, ``data-i18n="..."`` in the page. ``page_msgids`` finds them all (so a test can check the
Italian catalogue leaves none out), and ``page_texts`` is what the server hands a page: each
msgid in the page's language, and the team words' forms for templates such as ``{team:m}``.
The engine's sentences inside a view (why a game ended) are translated on the server by
``say``, in ``localized``, as the spymaster screen translates them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import IO

from ..engine.games import names, title_of
from ..engine.phrase import Phrase
from ..engine.views import LANGUAGES
from ..files import read_json
from ..night.scoring import tiebreak_texts
from ..ui.i18n import EUPHONY, TeamWord, say, translation
from .document import document
from .games import scripts

_SCRIPT = re.compile(r'<script src="/static/([\w.-]+)"></script>')


def page_files() -> tuple[str, ...]:
    """The companion's page and the scripts it loads, from the static folder: its own (``app.js``,
    which the page lists) and each kind's that adds its pages (``games.scripts``)."""
    html = resources.files(__package__).joinpath("static", "page.html").read_text(encoding="utf-8")
    return ("page.html", *_SCRIPT.findall(html), *scripts())


_MARKED = re.compile(r'\b(?:(?:t|tn|N_)\(\s*|(?:label|formField|worded)\((?:"[^"]*"|`[^`]*`|\w+),\s*)("(?:[^"\\\n]|\\.)*")|\bdata-i18n="([^"]*)"')
"""A msgid marked: ``t("...")``, ``tn(...)``, ``N_(...)``, the words of staff.js's ``label(ID, "...")``,
``formField(ID, "...")`` and ``worded(TAG, "...")``, ``data-i18n``."""
_RENDERED = re.compile(r'(<[^>]*\bdata-i18n="([^"]*)"[^>]*>)[^<]*(<)')
SENTENCES = frozenset({"reason"})
"""The view fields that carry an engine sentence: a game's end (in every kind's public view)."""


def msgids_in_page(text: str) -> set[str]:
    """The msgids marked in a page's script or HTML: ``t("...")``, ``N_("...")``, ``data-i18n``."""
    return {msgid for _, msgid in _marked(text)}


def _marked(text: str) -> Iterator[tuple[int, str]]:
    for match in _MARKED.finditer(text):
        quoted, attribute = match.groups()
        yield text.count("\n", 0, match.start()) + 1, read_json(quoted) if quoted is not None else attribute


def extract_page(fileobj: IO[bytes], keywords: object, comment_tags: object,
                 options: object) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extraction method for the phone page and its script (babel.cfg): the msgids
    ``msgids_in_page`` finds, by line."""
    for line, msgid in _marked(fileobj.read().decode("utf-8")):
        yield line, "gettext", msgid, []


@cache
def page_msgids() -> frozenset[str]:
    """Every msgid the companion's pages show: their scripts' and the night's tie-breaks' (the
    spectators' standings name them, as the night's JSON gives them)."""
    static = resources.files(__package__).joinpath("static")
    return frozenset(tiebreak_texts()).union(
        *(msgids_in_page(static.joinpath(name).read_text(encoding="utf-8")) for name in page_files()))


def msgids() -> set[str]:
    """Every msgid of the companion: its pages' texts and the server's own sentences."""
    from ..ui.messages import msgids_in_source  # the catalogues' tooling: a checkout's, for the tests

    return set(page_msgids()) | msgids_in_source(sorted(Path(__file__).parent.glob("*.py")))


@cache
def page_texts(lang: str) -> dict[str, object]:
    """What a page needs to speak ``lang``: its texts by msgid, the team words' forms, the
    languages a phone may switch to and the games' titles by their names."""
    gettext = translation(lang).gettext
    return {
        "lang": lang,
        "languages": list(LANGUAGES),
        "texts": {msgid: gettext(msgid) for msgid in sorted(page_msgids())},
        "teams": TeamWord.FORMS.get(lang, {}),
        "games": {name: gettext(title_of(name)) for name in names()},
        # the language's sound rule over a sentence said ("ad Aleman"), as the page's t() applies it
        "euphony": [(rule := EUPHONY[lang])[0].pattern, rule[1].replace("\\", "$")] if lang in EUPHONY else None,
    }


def rendered_page(body: str, lang: str) -> str:
    """The page (its ``body``, ``page.html``) as served to a table speaking ``lang``: ``<html lang>``
    says it, for the script to start from, each kind's script is loaded after the page's own
    (``games.scripts``), and each ``data-i18n`` element's text is already in it, so a phone shows
    no English while the script loads."""
    gettext = translation(lang).gettext
    body += "".join(f'<script src="/static/{name}"></script>\n' for name in scripts())
    page = document(lang, "pi-table", body, head='<link rel="stylesheet" href="/static/style.css">\n')
    return _RENDERED.sub(lambda m: m.group(1) + gettext(m.group(2)) + m.group(3), page)


def refusal_page(text: str, lang: str) -> str:
    """A page that will not open here (a seat open on another phone, a link replaced): its one
    sentence, titled by it and its heading, in ``lang``, in the pages' own style (a sentence's size:
    it is a heading for a screen reader, not a headline)."""
    return document(lang, text, f'<main><h1 class="hide">{html.escape(text)}</h1></main>\n',
                    head='<link rel="stylesheet" href="/static/style.css">\n')


def localized(view: object, lang: str, sentences: Mapping[str, Phrase]) -> object:
    """``view`` with its engine sentences (the ``SENTENCES`` fields, at any depth) in ``lang``,
    said from their meaning (``sentences``: the English a view's JSON holds -> its Phrase)."""
    if isinstance(view, dict):
        return {name: say(sentences.get(value, value), lang) if name in SENTENCES and isinstance(value, str)
                else localized(value, lang, sentences) for name, value in view.items()}
    if isinstance(view, list):
        return [localized(item, lang, sentences) for item in view]
    return view
