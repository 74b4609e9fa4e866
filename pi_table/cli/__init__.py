"""The ``pi-table`` command. Each command group's module adds its commands to the parser and
sets the handler each runs (``set_defaults(func=...)``); a handler imports what its command
runs when it runs, so ``pi-table run`` loads the daemon and not the simulators or the fleet."""

from __future__ import annotations

import argparse
import os
import sys

from .. import codecache
from .output import EXIT_CONFIG, EXIT_PIPE
from .tables import Unconfigured


class _Version(argparse.Action):
    """``--version``, read from the package's metadata only when asked (it costs a start-up)."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .. import version

        print(f"pi-table {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pi-table", description="A Codenames-family game table on a Raspberry Pi.")
    parser.add_argument("--version", action=_Version, help="print the installed version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from . import backup, bench, board, control, fleet, play, release, service  # after codecache.install()

    for group in (play, service, control, board, fleet, backup, release, bench):  # the order --help lists them in
        group.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    # pygame greets on stdout when first imported (by the self-test's, tune's and the simulators'
    # painters, before any device opens): no command of the table's wants that English line
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    codecache.install()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return args.func(parser, args)
    except Unconfigured:
        return EXIT_CONFIG
    except BrokenPipeError:
        # stdout now leads to /dev/null, so the interpreter's last flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
