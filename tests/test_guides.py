"""The guides' promises held by the suite (issue 77, 1): the game docs/dev/adding-a-game.md writes
(Codenames with timer tokens: its own rules class, option and way to end), added to a copy of this
tree as the guide says (its module, its import and its one line in ``GAMES``, its Italian), passes every fast
test that reads the games' registry, unedited. Before, put in ``GAMES``, it failed 12 of them in 8
files: five built the shared ``Rules(game=...)`` for every game, one compared a hand-kept list of
endings with every game's, and others kept lists by hand."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT

pytestmark = pytest.mark.slow
GUIDE = ROOT / "docs" / "dev" / "adding-a-game.md"
SECTION = "## An option and a way to end of its own\n"
LEFT_OUT = (".git", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "__pycache__", "*.egg-info")
"""What a copy of the checkout leaves out: history, the environment and the tools' caches."""
REGISTRY = re.compile(r"^from pi_table\.engine(\.games import| import .*\bgames\b)", re.MULTILINE)
"""How a test file reads the games' registry: the tests run on the copy are those that do."""


def the_guides_blocks() -> tuple[str, str, str]:
    """The guide's module, its registry's lines (the first two Python blocks of its section) and
    its catalogue entries (the section's first block of a .po)."""
    section = GUIDE.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = [block.split("```", 1)[0] for block in section.split("```python\n")[1:3]]
    return blocks[0], blocks[1], section.split("```po\n", 1)[1].split("```", 1)[0]


def registered(games: str, lines: str) -> str:
    """``engine/games.py``'s text with the guide's import among its imports and its line in ``GAMES``."""
    imports = [line for line in lines.splitlines() if line.startswith("from .")]
    entries = [line.strip() for line in lines.splitlines() if line.strip().startswith("GameEntry.")]
    assert imports and entries, f"the guide's registry block gives an import and a line in GAMES: {lines!r}"
    last_import = games.rindex("\nfrom .")
    end_of_line = games.index("\n", last_import + 1)
    games = games[:end_of_line + 1] + "\n".join(imports) + "\n" + games[end_of_line + 1:]
    last_entry = games.rindex("        GameEntry.grid(")
    end_of_line = games.index("\n", last_entry)
    return games[:end_of_line + 1] + "".join(f"        {entry}\n" for entry in entries) + games[end_of_line + 1:]


def readers_of_the_registry(tests: Path) -> list[str]:
    return sorted(path.name for path in tests.glob("test_*.py") if REGISTRY.search(path.read_text(encoding="utf-8")))


def test_the_guides_game_added_to_a_copy_of_the_tree_passes_every_test_that_reads_the_registry(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, symlinks=True, ignore=shutil.ignore_patterns(*LEFT_OUT))
    module, lines, italian = the_guides_blocks()
    (tree / "pi_table" / "engine" / "tokens.py").write_text(module, encoding="utf-8")
    games = tree / "pi_table" / "engine" / "games.py"
    games.write_text(registered(games.read_text(encoding="utf-8"), lines), encoding="utf-8")
    catalogue = tree / "pi_table" / "ui" / "locale" / "it" / "LC_MESSAGES" / "pi_table.po"
    catalogue.write_text(catalogue.read_text(encoding="utf-8") + "\n" + italian, encoding="utf-8")
    merged = subprocess.run([sys.executable, "-m", "pi_table.ui.messages"], cwd=tree, capture_output=True, text=True,
                            timeout=300)
    assert merged.returncode == 0 and "needs its translation" not in merged.stdout, merged.stdout + merged.stderr
    readers = readers_of_the_registry(tree / "tests")
    assert "test_games.py" in readers and "test_properties.py" in readers  # the walk finds them
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--fast", "-n", "2",
                          "--dist", "loadfile", *(f"tests/{name}" for name in readers)], cwd=tree,
                         capture_output=True, text=True, timeout=1200, env={**os.environ, "COLUMNS": "200"})
    assert "codenames-tokens" in subprocess.run(
        [sys.executable, "-c", "from pi_table.engine.games import names; print(names())"], cwd=tree,
        capture_output=True, text=True, check=True).stdout  # the copy's registry, not this checkout's
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
