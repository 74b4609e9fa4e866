"""Every command a person may run answers ``--help`` with what it does, and touches nothing.

An owner tries ``--help`` first; a helper module that took it for a folder name (as
``python -m pi_table.hardware.wiring --help`` once did) leaves junk where it was run.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from pi_table.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("pi_table", "pi_table.hardware.tools.wiring", "pi_table.hardware.tools.guide",
           "pi_table.hardware.tools.enclosure", "pi_table.firmware.deploy", "pi_table.ui.messages")
SUBCOMMANDS = sorted(next(a for a in build_parser()._actions if a.dest == "command").choices)


def _tree(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if ".git" not in p.parts
            and "__pycache__" not in p.parts and ".venv" not in p.parts and ".pytest_cache" not in p.parts}


def _help(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args, "--help"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("module", MODULES)
def test_a_module_answers_help_and_changes_nothing(tmp_path, module):
    hardware = _tree(ROOT / "hardware")
    done = _help(tmp_path, module)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout
    assert len(done.stdout.splitlines()) >= 3, "a usage line alone does not say what the command does"
    assert list(tmp_path.iterdir()) == []
    assert _tree(ROOT / "hardware") == hardware


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_pi_table_command_says_what_it_does(tmp_path, command):
    done = _help(tmp_path, "pi_table", command)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: pi-table {command}")
    assert list(tmp_path.iterdir()) == []


def test_version_comes_from_the_package_metadata():
    done = subprocess.run([sys.executable, "-m", "pi_table", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.strip() == f"pi-table {metadata.version('pi-table')}"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {metadata.version('pi-table')}" in changelog, "the CHANGELOG names the version that is installed"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_commands_that_need_a_checkout_say_so_from_an_installed_package(tmp_path, monkeypatch, capsys):
    from pi_table.hardware.tools import enclosure, guide

    monkeypatch.setattr(enclosure, "PARAMS", tmp_path / "enclosure" / "params.scad")
    assert enclosure.main(["check"]) == 2
    assert "needs a checkout of pi-table" in capsys.readouterr().err
    monkeypatch.setattr(guide, "GUIDES", (tmp_path / "README.md",))
    assert guide.main([]) == 2
    assert "needs a checkout of pi-table" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def _commands_of(parser) -> dict:
    return next(a for a in parser._actions if a.dest == "command").choices


def test_the_groups_name_every_command_their_modules_add_in_help_order():
    """``GROUPS`` is how ``pi-table run`` builds only its own group's parser: a command a module
    adds that the table does not name would be missing from that short build."""
    from pi_table.cli import GROUPS

    assert list(_commands_of(build_parser())) == [name for names in GROUPS.values() for name in names]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_a_command_line_builds_its_own_groups_parser_only_and_reads_as_the_full_one(command):
    alone = _commands_of(build_parser([command, "--help"]))
    assert command in alone and len(alone) < len(SUBCOMMANDS)
    assert alone[command].format_help() == _commands_of(build_parser())[command].format_help()


@pytest.mark.parametrize("argv", [[], ["--help"], ["--version"], ["no-such-command"]])
def test_a_command_line_naming_no_command_builds_every_parser(argv):
    """The top-level help and the 'invalid choice' error list every command."""
    assert sorted(_commands_of(build_parser(argv))) == SUBCOMMANDS


@pytest.mark.parametrize("columns", [None, "0", "-3", "wide", "50", "132"])
def test_help_is_as_wide_as_shutil_would_make_it(monkeypatch, columns):
    """The parser asks the terminal's width itself (shutil's import was 2 ms of every start):
    the same width shutil gives, whatever $COLUMNS says, and so the same help."""
    import argparse
    import shutil

    from pi_table.cli import _columns, _Parser

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _columns() == shutil.get_terminal_size().columns
    ours, theirs = _Parser(prog="pi-table"), argparse.ArgumentParser(prog="pi-table")
    for parser in (ours, theirs):
        parser.add_argument("--config", help="the configuration file; it names the socket and the journal " * 3)
    assert ours.format_help() == theirs.format_help()
