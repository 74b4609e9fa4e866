"""One list per concept (docs/dev/contributing.md, DESIGN.md's "Lists"; issue 77, item 2): a
registry's names are written once, where it is kept, and every other source (Python, the pages'
scripts and HTML) reads it. A second copy kept by hand is found here: a run of a few lines of a
source file that names most of a registry's keys as literals (quoted, or a script's object keys).
The night's tie-breaks were kept in four places; one added to ``night.scoring.TIEBREAKS`` broke the
standings' heading with a KeyError while the night's tests passed."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from pathlib import Path

import pytest

from pi_table.engine.games import GAMES
from pi_table.night import scoring
from pi_table.night.events import HOSTED
from pi_table.ui.tell import NOTICE_EVENTS

PACKAGE = Path(scoring.__file__).resolve().parents[1]
WINDOW = 6  # lines: a literal list written over a few lines, as a dict or an array is
REGISTRIES: dict[str, tuple[Callable[[], Collection[str]], str]] = {
    "tie-breaks": (lambda: scoring.TIEBREAKS, "night/scoring.py"),
    "games": (lambda: GAMES, "engine/games.py"),
    "the night's hosted events": (lambda: HOSTED, "night/events.py"),
    "the owner's notifications' events": (lambda: NOTICE_EVENTS, "ui/tell.py"),
}
"""Each registry: its keys, and the file that keeps them (the one place they are written)."""
CHOSEN = {"bench/engine.py": "the variants the engine's bench times, each with its options: a choice, not the games"}
"""Sources that name most of a registry's keys for a reason of their own, each with it."""

_QUOTED = re.compile(r"""(["'`])((?:(?!\1)[^\\\n])*)\1""")
_OBJECT_KEY = re.compile(r"[{,]\s*([A-Za-z_$][\w$]*)\s*:")  # a script's ``{rating: ...}``


def named(text: str, keys: Collection[str], script: bool) -> list[tuple[int, str]]:
    """The keys ``text`` names as literals, each with its line."""
    found = [(text.count("\n", 0, m.start()) + 1, m.group(2)) for m in _QUOTED.finditer(text) if m.group(2) in keys]
    if script:
        found += [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _OBJECT_KEY.finditer(text)
                  if m.group(1) in keys]
    return found


def copies(root: Path, keys: Collection[str], home: str) -> list[str]:
    """Where a source under ``root`` other than ``home`` names most of ``keys`` (half of them and
    one more, at least 3) within ``WINDOW`` lines: each a file and its line."""
    least = min(len(keys), max(3, len(keys) // 2 + 1))
    found = []
    for path in sorted(p for suffix in ("py", "js", "html") for p in root.rglob(f"*.{suffix}")):
        if path.relative_to(root).as_posix() in (home, *CHOSEN):
            continue
        lines = named(path.read_text(encoding="utf-8"), keys, path.suffix != ".py")
        for line, _ in lines:
            near = {key for at, key in lines if line <= at < line + WINDOW}
            if len(near) >= least:
                found.append(f"{path.relative_to(root)}:{line} names {sorted(near)}")
                break
    return found


@pytest.mark.parametrize("registry", REGISTRIES)
def test_a_registry_s_names_are_written_once(registry: str) -> None:
    keys, home = REGISTRIES[registry]
    assert copies(PACKAGE, set(keys()), home) == [], f"{registry}: read them from {home}, not a copy kept by hand"


def test_the_check_finds_a_copy_kept_by_hand(tmp_path: Path) -> None:
    """The check above can fail: a script's table of the tie-breaks, as night.js kept one, is found."""
    (tmp_path / "page.js").write_text('const T = { rating: ["rating"], buchholz: [],\n  "buchholz-cut1": [],\n'
                                      '  "median-buchholz": [], wins: [] };\n', encoding="utf-8")
    (tmp_path / "other.py").write_text('WORDS = "rating"\n' + "\n" * WINDOW + 'MORE = ("buchholz", "wins")\n',
                                       encoding="utf-8")
    assert copies(tmp_path, set(scoring.TIEBREAKS), "night/scoring.py") == [
        "page.js:1 names ['buchholz', 'buchholz-cut1', 'median-buchholz', 'rating', 'wins']"]
