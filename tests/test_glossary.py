"""The Italian catalogue speaks as the rulebooks do: docs/dev/glossary.md's table gives each
term's Italian, the forms it replaces and whether its use is checked; here every msgstr is read
against it (issue 31)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_table.ui.messages import parse_po, po_path

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "dev" / "glossary.md"


def forms(cell: str) -> list[str]:
    """A cell's forms, longest first, without a note in brackets: "unlimited (clue)" is "unlimited"."""
    return sorted((form.strip() for form in re.sub(r"\([^)]*\)", "", cell).split(" / ") if form.strip()),
                  key=len, reverse=True)


def terms() -> list[dict[str, list[str] | bool]]:
    rows = []
    table = GLOSSARY.read_text(encoding="utf-8").split("## The terms", 1)[1]
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("English", "---"):
            continue
        rows.append({"english": forms(cells[0]), "italian": forms(cells[1]), "not": forms(cells[2]),
                     "checked": cells[3] == "yes"})
    return rows


def word(form: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(form)}(?!\w)", re.IGNORECASE)


def count(forms: list[str], text: str) -> int:
    """How often any of ``forms`` stands in ``text`` as whole words, each place counted once."""
    found = 0
    for form in forms:  # longest first: "agenti operativi" before "operativi"
        text, n = word(form).subn("\0", text)
        found += n
    return found


def prose(text: str) -> str:
    """A message without what stays as it is in every language: its fields ({fact}) and the
    words typed at a prompt ('unlimited')."""
    return re.sub(r"\{[^{}]*\}|'[a-z-]+'", " ", text)


ENTRIES = {prose(msgid): prose(msgstr) for msgid, msgstr in parse_po(po_path("it").read_text(encoding="utf-8")).items()}


def test_the_glossary_has_every_kind_of_term():
    english = {form for row in terms() for form in row["english"]}
    assert {"bystander", "operative", "unlimited", "faction", "fact", "clue dial", "nuke", "truth machine"} <= english


@pytest.mark.parametrize("row", terms(), ids=lambda row: row["english"][0])
def test_no_msgstr_says_a_form_the_glossary_replaces(row):
    said = []
    for msgid, msgstr in ENTRIES.items():
        text = msgstr
        for form in row["italian"]:
            text = word(form).sub("\0", text)
        said += [f"{msgid!r}: {msgstr!r}" for form in row["not"] if word(form).search(text)]
    assert said == []


@pytest.mark.parametrize("row", [row for row in terms() if row["checked"]], ids=lambda row: row["english"][0])
def test_the_books_term_is_said_where_the_english_one_is(row):
    missing = [f"{msgid!r}: {msgstr!r}" for msgid, msgstr in ENTRIES.items()
               if count(row["english"], msgid) > count(row["italian"], msgstr)]
    assert missing == []
