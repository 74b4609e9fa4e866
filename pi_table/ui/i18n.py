"""The screen's languages: English msgids, an Italian gettext catalogue, and the engine's words.

The screen's own strings are English msgids marked ``_("...")`` (looked up as drawn) or
``N_("...")`` (a table entry, looked up later); ``pi_table.ui.messages`` finds both, so a test
can check that the Italian catalogue leaves none out. The engine's refusals, the table's warnings
and the devices' health come as ``Phrase``s (pi_table/engine/phrase.py): their template is the
msgid, so ``say`` translates them by meaning, never by matching the English sentence, and a
sentence that says a number (``Phrase.counting``) takes the language's plural form (``ngettext``).

This is what the table runs: it reads the ``.mo`` files with the standard library's gettext.
Making them is a build's job (build_backend/, with Babel: every wheel and install compiles them,
git keeps only the ``.po``), and ``python -m pi_table.ui.messages`` does it in a checkout.
"""
from __future__ import annotations

import gettext
import re
import time
from enum import Enum
from functools import cache
from pathlib import Path
from typing import ClassVar

from ..engine.errors import InvalidKey
from ..engine.keys import Team
from ..engine.phrase import N_, Moment, Phrase, Text
from ..engine.views import LANGUAGES
from ..errors import PiTableError
from ..hal.events import HEALTHY, NOT_WORKING

DOMAIN = "pi_table"
LOCALE_DIR = Path(__file__).parent / "locale"


EUPHONY = {"it": (re.compile(r"\b([Aa]) (?=[Aa])"), r"\1d ")}
"""A language's sound rules over a sentence as said, once its fields are filled in: Italian's
"ad" before a word that begins with "a" ("ad Aleman", but "a Moon"), which the name decides."""


class Said(str):
    """A catalogue's template: formatted, it follows its language's sound rules (``EUPHONY``)."""

    rule: tuple[re.Pattern[str], str]

    def format(self, *args: object, **fields: object) -> str:
        pattern, replacement = self.rule
        return pattern.sub(replacement, super().format(*args, **fields))


class _Catalogue(gettext.GNUTranslations):
    """A ``.mo`` catalogue whose templates follow their language's sound rules when formatted."""

    rule: tuple[re.Pattern[str], str] | None = None

    def _said(self, text: str) -> str:
        if self.rule is None:
            return text
        said = Said(text)
        said.rule = self.rule
        return said

    def gettext(self, message: str) -> str:
        return self._said(super().gettext(message))

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self._said(super().ngettext(msgid1, msgid2, n))


class UnknownLanguage(PiTableError, ValueError):
    """A language the table does not speak (one of ``LANGUAGES``), asked by a setting or a page."""


class UncompiledCatalogue(PiTableError, FileNotFoundError):
    """A language's ``.mo`` that no build made: the package was copied from a checkout, not installed."""


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalogue for ``lang``; English is the msgids themselves."""
    if lang not in LANGUAGES:
        raise UnknownLanguage(f"the screen speaks {' or '.join(LANGUAGES)}, not {lang!r}")
    if lang == "en":
        return gettext.NullTranslations()
    try:
        catalogue = gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang], class_=_Catalogue)
    except FileNotFoundError:
        raise UncompiledCatalogue(
            f"the {lang} catalogue ({DOMAIN}.mo) was never compiled from its .po: install pi-table with pip, "
            "which compiles it (build_backend/), or in a checkout run python -m pi_table.ui.messages") from None
    assert isinstance(catalogue, _Catalogue)  # for the type checker: class_ made it
    catalogue.rule = EUPHONY.get(lang)
    return catalogue


class TeamWord:
    """A team's name inside a sentence. Italian adjectives agree with their noun, so a
    template picks the form: ``{team}`` la squadra rossa, ``{team:m}`` l'agente rosso,
    ``{team:mp}`` gli agenti rossi. English has one form."""

    FORMS: ClassVar[dict[str, dict[str, dict[str, str]]]] = {"it": {"red": {"": "rossa", "m": "rosso", "mp": "rossi"}, "blue": {"": "blu", "m": "blu", "mp": "blu"}}}

    def __init__(self, team: str, lang: str) -> None:
        self.team = str(team)
        self.lang = lang

    def __format__(self, spec: str) -> str:
        forms = self.FORMS.get(self.lang)
        return forms[self.team][spec] if forms else self.team

    def __str__(self) -> str:
        return format(self, "")


def team_named(text: str, lang: str) -> Team:
    """The team a person typed in ``lang``: its name in any of the language's forms (``rossa``,
    ``rossi``), or as a script writes it (``red``); else a refusal naming the language's names."""
    word = text.strip().lower()
    for team, forms in TeamWord.FORMS.get(lang, {}).items():
        if word in forms.values():
            return Team(team)
    try:
        return Team.parse(word)
    except InvalidKey:
        raise InvalidKey("a team is '{red}' or '{blue}'", red=Team.RED, blue=Team.BLUE, given=text) from None


# --- the table's sentences ------------------------------------------------------------------


def say(message: Text, lang: str) -> str:
    """A table message in ``lang``: a ``Phrase`` looked up by its template, each field in the
    same language (a team declined, a nested sentence said); a plain string is shown as it is."""
    if isinstance(message, str):
        return message
    catalogue = translation(lang)
    if message.plural is None or message.number is None:
        text = catalogue.gettext(message.template)
    else:
        text = catalogue.ngettext(message.template, message.plural, message.number)
    if not message.fields:
        return text
    return text.format(**{name: _field(value, lang) for name, value in message.fields})


def say_health(state: str, lang: str) -> str:
    """A device's health from the table's status in ``lang``: a healthy word ("ok", "not
    fitted"...) translated, "not working: ERROR" with its (system's) error kept as it is."""
    _ = translation(lang).gettext
    if state in HEALTHY:
        return _(state)
    if state.startswith(NOT_WORKING):
        return _(N_("not working: {error}")).format(error=state.removeprefix(NOT_WORKING))
    return state


def moment_at(seconds: float) -> Moment | str:
    """``seconds`` (Unix) as a sentence's ``Moment`` in the table's local time; "?" for a moment no
    calendar holds (a damaged note's)."""
    try:
        at = time.localtime(seconds)
    except (OverflowError, OSError, ValueError):
        return "?"
    return Moment(at.tm_year, at.tm_mon, at.tm_mday, at.tm_hour, at.tm_min)


def _field(value: object, lang: str) -> object:
    if isinstance(value, Phrase):
        return say(value, lang)
    if isinstance(value, Moment):
        return value.said(lang)
    if isinstance(value, tuple):
        return "; ".join(say(item, lang) if isinstance(item, Phrase) else str(item) for item in value)
    if isinstance(value, Enum) and value.value in ("red", "blue"):  # a team, or a side of another kind of game
        return TeamWord(value.value, lang)
    return value
