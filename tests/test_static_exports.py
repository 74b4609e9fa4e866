"""The phones' and the staff page's scripts export what they mean to (issue 52.9): an ``export``
is followed on its line by the declaration it exports. A comment after it (``export // ...``)
exported whatever came next, by accident, as console.js's logQuery was."""

from __future__ import annotations

import re
from pathlib import Path

import pi_table

STATIC = Path(pi_table.__file__).parent / "web" / "static"
DECLARED = re.compile(r"^export\s+(default\s+)?(async\s+function|function\*?|class|const|let|var|\{)")


def stray_exports(text: str) -> list[int]:
    """The lines whose ``export`` is not followed by a declaration or a list of names."""
    return [number for number, line in enumerate(text.splitlines(), 1)
            if re.match(r"^\s*export\b", line) and not DECLARED.match(line.strip())]


def test_every_export_names_what_it_exports():
    found = [f"{path.name}:{line}" for path in sorted(STATIC.glob("*.js")) for line in stray_exports(path.read_text())]
    assert found == []


def test_the_export_checker_sees_a_stray_one():
    text = "export function a() {}\nexport // why\nfunction b() {}\nexport { c };\nexport const d = 1;\n"
    assert stray_exports(text) == [2]
