"""``pi-table run``: the table as a service (the daemon), imported when it runs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .options import device_options
from .tables import Unconfigured, load, own_table, tell

if TYPE_CHECKING:
    from ..config import Config
    from ..config.trial import Trial


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = commands.add_parser("run", help="run the table as a service (the daemon)")
    device_options(run, "every device simulated, headless")
    run.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    run.set_defaults(func=_run)
    stand_in = commands.add_parser("stand-in", help="run a table in a folder on a stand-in machine, its root "
                                                    "helper's acts on simulated programs (docs/cafe/try.md)")
    device_options(stand_in, "every device simulated, headless")
    stand_in.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    stand_in.set_defaults(func=_stand_in, hal="sim")  # a stand-in machine is never a Pi


EXIT_REFUSED = 77  # sysexits' EX_NOPERM: a stand-in machine is never run here


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..daemon import logs
    from ..daemon.run import serve

    logs.setup(args.log_level)  # a rollback at the start is logged as the service's own
    config, under_trial = _start(args)
    if args.config is None:
        config = own_table(args, config)
    return serve(config, args.hal, args.touch_port, under_trial)


def _stand_in(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    import sys

    from ..config import DEFAULT_PATH, ConfigError
    from ..daemon import logs
    from ..daemon.stand_in import Refused, main

    logs.setup(args.log_level)
    run = ["--hal", args.hal, "--log-level", args.log_level,
           *(["--touch-port", str(args.touch_port)] if args.touch_port is not None else [])]
    try:
        return main(args.config or DEFAULT_PATH, run)
    except ConfigError as e:
        tell(args, e)
        raise Unconfigured from e
    except Refused as e:
        print(f"pi-table {args.command}: {e}", file=sys.stderr)
        return EXIT_REFUSED


def _start(args: argparse.Namespace) -> tuple[Config, Trial | None]:
    """``run``'s configuration, after the service's start-up checks (``daemon.run.starting``): a
    trial of settings changed from a page is rolled back when the table cannot start on them (or
    did not survive its last start on them), and the table starts on the last good file instead;
    a file edited by hand that is refused is said, and the table starts on the last good file too
    (the staff page offers to discard it). The configuration and the trial under way (Unconfigured,
    78, when neither file will do)."""
    from ..config import DEFAULT_PATH, ConfigError
    from ..daemon.run import starting

    path = args.config or (DEFAULT_PATH if DEFAULT_PATH.exists() else None)
    if path is None:
        return load(args, None), None
    try:
        return starting(path, lambda error: tell(args, error))
    except ConfigError as e:
        tell(args, e)
        raise Unconfigured from e
