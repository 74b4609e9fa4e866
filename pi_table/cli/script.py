"""The script ``--script`` names for ``pi-table sim`` and ``render``, read whole before anything runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from .output import EXIT_USAGE, said

if TYPE_CHECKING:  # the simulator is imported only by the commands that use it
    from ..hal import Command
    from ..sim.script import ScriptLine


def read_script(args: argparse.Namespace, parse_command: Callable[[str], Command]) -> list[ScriptLine] | None:
    """The script --script names, read whole before anything runs; None without one."""
    return None if args.script is None else script_lines(args, parse_command)


def script_name(args: argparse.Namespace) -> str:
    """How a message names the script: its path, or <stdin>."""
    return "<stdin>" if str(args.script) == "-" else str(args.script)


def script_text(args: argparse.Namespace) -> tuple[str, str]:
    """The script --script names: its name and its text, read once (standard input cannot be
    read twice, and its header's options are read before its lines); OSError when it cannot be."""
    name = script_name(args)
    read = vars(args)
    if "script_text" not in read:
        read["script_text"] = sys.stdin.read() if name == "<stdin>" else args.script.read_text(encoding="utf-8")
    return name, read["script_text"]


def malformed(args: argparse.Namespace, problem: Exception) -> NoReturn:
    """A malformed script (its lines, its header's options) exits 2, naming the file and line."""
    from ..ui.i18n import translation

    _ = translation(args.lang).gettext
    print(f"pi-table {args.command}: " + _("malformed script: {problem}").format(problem=said(problem, args.lang)),
          file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


def script_lines(args: argparse.Namespace, parse_command: Callable[[str], Command]) -> list[ScriptLine]:
    """The script --script names, read whole. A script that cannot be read or is malformed
    exits 2, naming the file and line."""
    from ..sim.script import ScriptError, parse_script
    from ..ui.i18n import translation

    try:
        name, text = script_text(args)
    except OSError as e:  # the system's own words
        _ = translation(args.lang).gettext
        print(f"pi-table {args.command}: " + _("cannot read the script {name}: {error}").format(
            name=script_name(args), error=e.strerror or e), file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
    try:
        return parse_script(text.splitlines(), name, parse_command)
    except ScriptError as e:
        malformed(args, e)
