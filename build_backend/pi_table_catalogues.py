"""The catalogues' compiling, for the build backend and for ``python -m pi_table.ui.messages``:
one function, importable without setuptools or pi_table (a build runs before either is there)."""
from __future__ import annotations

from pathlib import Path

LOCALES = Path("pi_table", "ui", "locale")
"""Where the catalogues are, from the checkout's top (a build runs there)."""


def compile_catalogues(locales: Path = LOCALES) -> list[Path]:
    """Each language's ``.po`` under ``locales`` compiled to the ``.mo`` beside it; the ``.mo``
    files written. Babel's own reader and writer: fuzzy and empty entries are left out."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po in sorted(locales.glob("*/LC_MESSAGES/*.po")):
        with open(po, "rb") as file:
            catalog = read_po(file, locale=po.parts[-3], abort_invalid=True)
        mo = po.with_suffix(".mo")
        with open(mo, "wb") as file:
            write_mo(file, catalog)
        written.append(mo)
    return written
