"""A sentence for a person, carried by its meaning: an English template and its fields.

The engine refuses, the table warns and the drivers report in ``Phrase``s, so a screen shows
them in its own language by looking the template up in a catalogue (``pi_table.ui.i18n.say``);
``str(phrase)`` is the English sentence, for logs, tests and the scripted simulator's JSON.
Rewording an English template changes its catalogue entry with it, never silently the Italian.

A field is a number, a team (``Team``, which each language declines), another ``Phrase`` (a
sentence inside a sentence), a tuple of phrases (a list, shown joined by "; "), a ``Moment``
(written in each language's one form of a date), or a word shown as it is (a codename, a device
path). A sentence that says a number ("{count} agents left") is
made with ``Phrase.counting``: it carries a plural template too, and the catalogue gives each
language its own forms for that number (gettext's ``ngettext``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

MONTHS = {"en": ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
          "it": ("gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic")}
"""Each language's short month names, as Intl writes them (the pages' dates, web/static/kit.js)."""


@dataclass(frozen=True, slots=True)
class Moment:
    """A moment as a sentence's field, in the table's local time (``pi_table.ui.i18n.moment_at``
    makes one from Unix seconds), said in each language's one form of a date: the form the pages
    write with Intl's medium date and short time (``web/static/kit.js``), never an ISO date in an
    Italian sentence."""

    year: int
    month: int
    day: int
    hour: int
    minute: int

    def said(self, lang: str) -> str:
        """"Nov 29, 2026, 2:01 AM"; "29 nov 2026, 02:01"."""
        month = MONTHS.get(lang, MONTHS["en"])[self.month - 1]
        if lang == "it":
            return f"{self.day} {month} {self.year}, {self.hour:02d}:{self.minute:02d}"
        return f"{month} {self.day}, {self.year}, {(self.hour - 1) % 12 + 1}:{self.minute:02d} " \
               f"{'AM' if self.hour < 12 else 'PM'}"

    def __str__(self) -> str:
        return self.said("en")


@dataclass(frozen=True, slots=True)
class Phrase:
    """``template`` is the catalogue's msgid, ``{name}`` marking each field; a template
    without fields is shown as it is (so it needs no doubled braces). ``plural`` is the English
    template for a count other than one (the msgid_plural), and ``count`` names the field that
    holds the count."""

    template: str
    fields: tuple[tuple[str, object], ...] = ()
    plural: str | None = None
    count: str | None = None

    @classmethod
    def of(cls, template: str, /, **fields: object) -> Phrase:
        return cls(template, tuple(fields.items()))

    @classmethod
    def counting(cls, count: str, template: str, plural: str, /, **fields: object) -> Phrase:
        """A sentence that says the number in the field named ``count``: ``template`` for one,
        ``plural`` for any other number, in English; each language has its own forms."""
        if not isinstance(fields.get(count), int):
            # a programming error: a template's count is the code's
            raise TypeError(f"{template!r} counts its field {count!r}, which must be a whole number")
        return cls(template, tuple(fields.items()), plural, count)

    @property
    def number(self) -> int | None:
        """The count that picks a plural form, or None for a sentence that says no number."""
        value = dict(self.fields).get(self.count) if self.count is not None else None
        return value if isinstance(value, int) else None

    def __str__(self) -> str:
        template = self.plural if self.plural is not None and self.number != 1 else self.template
        if not self.fields:
            return template
        return template.format(**{name: "; ".join(map(str, value)) if isinstance(value, tuple) else value
                                  for name, value in self.fields})


Text: TypeAlias = Phrase | str
"""What a person is shown: a Phrase, or a plain string shown as it is in every language."""


def meaning(error: BaseException) -> Text:
    """What an error says, as a person is told it: the Phrase it carries (a refusal's
    ``phrase``, a device's ``detail``, the control socket's ``said``), else its own words (the
    system's, a library's), shown as they are in every language."""
    for name in ("phrase", "detail", "said"):
        carried = getattr(error, name, None)
        if isinstance(carried, (Phrase, str)) and carried:
            return carried
    return str(error)


def N_(msgid: str) -> str:
    """Mark a template for the catalogue where it waits in a table before a Phrase is made of
    it (tests/test_i18n_coverage.py finds these, as it finds every refusal's template)."""
    return msgid
