"""Every fault the table can report has an entry in the café's troubleshooting pages, in English
and in Italian (docs/cafe/troubleshooting.md and troubleshooting.it.md).

The faults are not listed here: each module of pi_table that reports faults (a device's, a screen
banner, a line of the staff page's health, the fleet's) declares the templates of its fault
sentences in a module-level ``FAULTS``, and this test finds every such declaration by reading the
package. The English page must carry each template's sentence (a ``{field}`` standing for any
words, as an example fills it in) under a heading with an anchor of its own (``{#touch-disconnected}``);
the Italian page the catalogue's translation of it, the words an Italian table shows, under the
same anchor.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import pi_table
from pi_table.hal.events import DEVICE_NAMES
from pi_table.ui.i18n import translation

PACKAGE = Path(pi_table.__file__).parent
PAGES = Path(__file__).resolve().parent.parent / "docs" / "cafe"
LANGS = {"en": PAGES / "troubleshooting.md", "it": PAGES / "troubleshooting.it.md"}


DECLARES = re.compile(r"^FAULTS\s*[:=]", re.MULTILINE)
"""A top-level assignment of ``FAULTS``: a line that begins with it. Read as text, not parsed:
this runs as every worker collects the suite, and parsing the package there took 2 s of each."""


def declaring_modules() -> list[str]:
    """The modules that assign ``FAULTS`` at their top level, by their dotted names (``faults``
    then imports each: a line that only looked like one fails there, loudly)."""
    return [".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            for path in sorted(PACKAGE.rglob("*.py")) if DECLARES.search(path.read_text(encoding="utf-8"))]


def faults() -> dict[str, str]:
    """Every declared fault template, by template, with the module that declares it."""
    found = {}
    for name in declaring_modules():
        for template in importlib.import_module(name).FAULTS:
            found[template] = name
    return found


ANCHOR = re.compile(r"\s*\{#([\w-]+)\}\s*$")


@dataclass(frozen=True)
class Section:
    heading: str  # "" before the first heading
    anchor: str | None  # the heading's own {#anchor}, the same in both languages
    text: str  # what is under it up to the next heading, a quote's ">" and every run of white space one space


def sections(text: str) -> list[Section]:
    """The page heading by heading (headings in fenced code are none)."""
    found: list[tuple[str, list[str]]] = [("", [])]
    fenced = False
    for line in text.splitlines():
        fenced ^= line.startswith("```")
        if not fenced and re.match(r"#{2,6} ", line):
            found.append((line.lstrip("#").strip(), []))
        else:
            found[-1][1].append(re.sub(r"^\s*(>\s*)+", "", line))
    return [Section(ANCHOR.sub("", heading), m.group(1) if (m := ANCHOR.search(heading)) else None,
                    " ".join(" ".join(lines).split())) for heading, lines in found]


def page(lang: str) -> list[Section]:
    return sections(LANGS[lang].read_text(encoding="utf-8"))


def pieces(template: str) -> list[str]:
    """A template's words between its ``{field}``s, each run of white space one space."""
    return re.split(r"\{[^{}]*\}", " ".join(template.split()))


def pattern(template: str) -> re.Pattern[str]:
    """A template as the page may show it: each ``{field}`` any words (an example), its spaces
    any white space."""
    return re.compile(".+?".join(r"\s+".join(map(re.escape, piece.split(" "))) for piece in pieces(template)))


def shows(section: Section, template: str) -> bool:
    """Whether an entry's text shows the template. A section's text is one line with single
    spaces, so every piece of the template is in it as it is, or the pattern cannot match:
    looked for first, as the pattern's fields would try every place in every section."""
    return all(piece in section.text for piece in pieces(template)) and bool(pattern(template).search(section.text))


def said(template: str, lang: str) -> str:
    return template if lang == "en" else translation(lang).gettext(template)


FAULTS = faults()


def test_the_faults_are_declared_where_they_are_reported():
    """The declarations are there to find (the devices, the journal, the screen, the staff page's
    readings, the fleet), each a sentence the catalogue translates."""
    assert len(FAULTS) >= 40, sorted(set(FAULTS.values()))
    for template, module in FAULTS.items():
        assert isinstance(template, str) and template.strip(), module
        assert said(template, "it") != template, f"{module}: no Italian for {template!r}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_fault_has_an_entry_under_a_heading_with_its_anchor(lang):
    missing = []
    entries = [section for section in page(lang) if section.anchor]
    for template, module in FAULTS.items():
        if not any(shows(section, said(template, lang)) for section in entries):
            missing.append(f"{module}: {said(template, lang)}")
    assert missing == [], f"{LANGS[lang].name} has no entry for these faults"


def test_both_languages_have_the_same_entries_by_the_same_anchors():
    """A link to an entry (``troubleshooting.md#touch-disconnected``) works in either language,
    and each fault is under the same anchor in both."""
    english, italian = page("en"), page("it")
    anchors = [section.anchor for section in english if section.anchor]
    assert anchors == [section.anchor for section in italian if section.anchor]
    assert len(set(anchors)) == len(anchors), [anchor for anchor in anchors if anchors.count(anchor) > 1]
    for template in FAULTS:
        where = [{section.anchor for section in entries if section.anchor and shows(section, said(template, lang))}
                 for lang, entries in (("en", english), ("it", italian))]
        assert where[0] == where[1], template


@pytest.mark.parametrize("lang", LANGS)
def test_each_device_has_its_section_named_as_the_table_names_it(lang):
    """A reader finds a device by its name as the table says it ("touch board", "scheda touch")."""
    headings = [section.heading.casefold() for section in page(lang)]
    for device, name in DEVICE_NAMES.items():
        assert said(name, lang).casefold() in headings, f"no section named {said(name, lang)!r} for {device}"


def test_a_fault_reworded_in_the_code_is_missed():
    """The check reads the words, not the gist: a template changed by one word has no entry."""
    template = next(iter(FAULTS))
    reworded = template.replace(":", ": please", 1) if ":" in template else template + " please"
    assert pattern(template).search(" ".join(section.text for section in page("en")))
    assert not any(pattern(reworded).search(section.text) for section in page("en"))
