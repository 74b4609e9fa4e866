"""The ``pi-table`` command. Each command group's module adds its commands to the parser and
sets the handler each runs (``set_defaults(func=...)``); a handler imports what its command
runs when it runs, so ``pi-table run`` loads the daemon and not the simulators or the fleet."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from . import frame
from .output import EXIT_CONFIG, EXIT_NOPERM, EXIT_PIPE, Handler
from .tables import DEFAULT_CONFIG, NotInTheGroup, Unconfigured


class _Version(argparse.Action):
    """``--version``, read from the package's metadata only when asked (it costs a start-up)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        from .. import version

        print(f"pi-table {version()}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its help as wide as the terminal: argparse asks shutil, whose import
    (with the compressors shutil loads) was 2 ms of every start, for the width of every argument
    it adds; this asks the terminal as shutil does. The commands' parsers are of this class too."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        # every argparse formatter takes a width; typeshed knows only prog. Minus 2: argparse's own margin
        return self.formatter_class(prog=self.prog, width=_columns() - 2)  # type: ignore[call-arg]


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` gives it: $COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


GROUPS = {
    "play": ("sim", "render", "key"),
    "service": ("run", "stand-in"),
    "control": ("status", "new-game", "undo", "release-seat", "history", "set-staff-pin", "set-owner-passphrase",
                "check-config"),
    "board": ("selftest", "tune", "emulate-board"),
    "fleet": ("fleet", "league"),
    "backup": ("backup", "restore"),
    "release": ("bundle",),
    "image": ("image", "pi-wheels"),
    "bench": ("bench",),
}
"""Each command group's module and the commands it adds, in the order ``--help`` lists them."""

_ALL = frozenset(name for names in GROUPS.values() for name in names)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command's, or only the group's whose command ``argv``
    names first (``pi-table run`` then builds one group's parsers, not nineteen, at every start)."""
    parser = _Parser(prog="pi-table", description="A Codenames-family game table on a Raspberry Pi.")
    parser.add_argument("--version", action=_Version, help="print the installed version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = argv[0] if argv else None
    for group, names in GROUPS.items():
        if named is None or named not in _ALL or named in names:
            # imported here, and only the groups this command line needs
            importlib.import_module(f".{group}", __package__).add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    # pygame greets on stdout when first imported (by the self-test's, tune's and the simulators'
    # painters, before any device opens): no command of the table's wants that English line
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        argv = sys.argv[1:] if argv is None else argv
        with frame.speaking(frame.language(argv, DEFAULT_CONFIG)):
            parser = build_parser(argv)
            args = parser.parse_args(argv)
            handler: Handler = args.func
            return handler(parser, args)
    except Unconfigured:
        return EXIT_CONFIG
    except NotInTheGroup:
        return EXIT_NOPERM
    except BrokenPipeError:
        # stdout now leads to /dev/null, so the interpreter's last flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
