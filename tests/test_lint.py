"""The linters .ci/run holds the code to: ruff's rules and mypy's types, as pyproject.toml
configures them (the whole package strict)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import require_tools

pytestmark = pytest.mark.tool

ROOT = Path(__file__).resolve().parent.parent


def _run_module(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a linter from this Python's environment (the one the test extra installed it in)."""
    if importlib.util.find_spec(module) is None:
        require_tools(also_missing=(f"{module} (pip install -e '.[test]')",))
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_ruff_finds_nothing():
    result = _run_module("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, f"ruff check . found:\n{result.stdout}{result.stderr}"


def test_mypy_finds_nothing():
    result = _run_module("mypy")  # the packages and settings are pyproject.toml's [tool.mypy]
    assert result.returncode == 0, f"mypy found:\n{result.stdout}{result.stderr}"
