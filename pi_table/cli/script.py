"""The script ``--script`` names for ``pi-table sim`` and ``render``, read whole before anything runs."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from .output import EXIT_USAGE, said

if TYPE_CHECKING:  # the simulator is imported only by the commands that use it
    from ..sim.script import ScriptLine


def read_script(args: argparse.Namespace, parse_command) -> list[ScriptLine] | None:
    """The script --script names, read whole before anything runs; None without one."""
    return None if args.script is None else script_lines(args, parse_command)


def script_lines(args: argparse.Namespace, parse_command) -> list[ScriptLine]:
    """The script --script names, read whole. A script that cannot be read or is malformed
    exits 2, naming the file and line."""
    from ..sim.script import ScriptError, parse_script
    from ..ui.i18n import translation

    _ = translation(args.lang).gettext
    name = "<stdin>" if str(args.script) == "-" else str(args.script)
    try:
        text = sys.stdin.read() if name == "<stdin>" else args.script.read_text(encoding="utf-8")
        return parse_script(text.splitlines(), name, parse_command)
    except OSError as e:  # the system's own words
        print(f"pi-table {args.command}: " + _("cannot read the script {name}: {error}").format(
            name=name, error=e.strerror or e), file=sys.stderr)
    except ScriptError as e:
        print(f"pi-table {args.command}: " + _("malformed script: {problem}").format(problem=said(e, args.lang)),
              file=sys.stderr)
    raise SystemExit(EXIT_USAGE)
