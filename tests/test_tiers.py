"""The test suite's own rules (tests/conftest.py), on a sample file run by a pytest of its own:
the fast tier leaves out what a mark says is heavy, pytest refuses a mark it does not know, the
Hypothesis profile sets how many examples a property tries, and under PI_TABLE_REQUIRE_TOOLS a
skip of any kind fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, parsed

SAMPLE = """
import pytest
from hypothesis import given, settings, strategies as st

tried = []


def test_runs():
    pass


@pytest.mark.daemon
def test_starts_a_daemon():
    pass


def test_skips():
    pytest.skip("no such tool here")


@settings(settings.get_profile("games"))
@given(st.integers())
def test_a_property(n):
    tried.append(n)


def test_zz_says_how_many_examples_were_tried():
    print(f"tried {len(tried)} examples")
"""


def pytest_on(folder: Path, files: dict[str, str], *args: str, **env: str) -> subprocess.CompletedProcess:
    """pytest in a process of its own, with this suite's configuration and its conftest as a plugin."""
    for name, text in files.items():
        (folder / name).write_text(text)
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PI_TABLE_", "PYTEST_"))}
    environment |= {"PYTHONPATH": str(ROOT / "tests"), **env}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(folder), "-p", "conftest",
         "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "-s", "-rA", *args, *files],
        cwd=folder, env=environment, capture_output=True, text=True, timeout=120)


def tried(run: subprocess.CompletedProcess) -> int:
    return int(re.search(r"tried (\d+) examples", run.stdout).group(1))


@pytest.mark.slow  # some 4 s of CPU by itself: out of ./dev test (issue 40)
def test_the_fast_tier_leaves_out_the_marked_tests_and_a_skip_is_a_skip(tmp_path):
    run = pytest_on(tmp_path, {"test_sample.py": SAMPLE}, "--fast")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed, 1 skipped, 1 deselected" in run.stdout
    assert "SKIPPED [1] test_sample.py:18: no such tool here" in run.stdout
    assert tried(run) <= 10  # the quick profile: ./dev test's


@pytest.mark.slow  # some 4 s of CPU by itself: out of ./dev test (issue 40)
def test_every_skip_fails_under_require_tools_and_an_unknown_mark_is_refused(tmp_path):
    files = {
        "test_sample.py": SAMPLE,
        "test_without.py": 'import pytest\npytest.importorskip("no_module_of_that_name")\n\n\ndef test_never():\n    pass\n',
        "test_typo.py": "import pytest\n\n\n@pytest.mark.slwo\ndef test_typo():\n    pass\n",
    }
    run = pytest_on(tmp_path, files, "--continue-on-collection-errors", PI_TABLE_REQUIRE_TOOLS="1")
    assert run.returncode == 1, run.stdout + run.stderr
    said = "skipped where every test must run (PI_TABLE_REQUIRE_TOOLS=1)"
    assert f"{said}: no such tool here" in run.stdout
    assert f"{said}: could not import 'no_module_of_that_name'" in run.stdout
    assert "'slwo' not found in `markers` configuration option" in run.stdout
    assert "1 failed, 4 passed, 2 errors" in run.stdout


@pytest.mark.slow  # some 10 s of CPU by itself: out of ./dev test (issue 40)
def test_the_profile_sets_the_examples_a_property_tries(tmp_path):
    thorough = tried(pytest_on(tmp_path, {"test_sample.py": SAMPLE}, PI_TABLE_HYPOTHESIS="thorough"))
    emulated = tried(pytest_on(tmp_path, {"test_sample.py": SAMPLE}, PI_TABLE_HYPOTHESIS="emulated"))
    assert 10 < emulated <= 12 and 100 < thorough <= 120, (emulated, thorough)  # the kind "games": 120, a tenth
    wrong = pytest_on(tmp_path, {"test_sample.py": SAMPLE}, PI_TABLE_HYPOTHESIS="thorugh")
    assert wrong.returncode != 0
    assert "PI_TABLE_HYPOTHESIS is one of quick, thorough, emulated, not 'thorugh'" in wrong.stdout + wrong.stderr


def budgets_set_by_tests(tree) -> list[int]:
    """The lines whose ``settings(...)`` names a number of examples itself, not a profile's."""
    import ast

    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "settings"
            and any(keyword.arg == "max_examples" for keyword in node.keywords)]


def test_no_test_sets_its_own_budget():
    """Issue 40: the examples a property tries are the profile's, by what one example costs
    (conftest.EXAMPLES): a test's own number beats every profile, the quick tier's too."""
    import ast

    tests = Path(__file__).parent
    found = [f"{path.name}:{line}" for path in sorted(tests.rglob("test_*.py"))
             for line in budgets_set_by_tests(parsed(path))]
    assert found == []
    assert budgets_set_by_tests(ast.parse("@settings(max_examples=5)\ndef test(): pass\n")) == [1]
