"""Which table a command speaks to: the configuration it names, or, without ``--config``, the
user's own simulated table."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import PiTableError

if TYPE_CHECKING:
    from ..config import Config, ConfigError
    from ..config.machine import Running

DEFAULT_CONFIG = "/etc/pi-table/config.toml"


class Unconfigured(PiTableError):
    """The configuration was refused, and what is wrong with it said: ``main`` ends the command
    with EXIT_CONFIG."""


class NotInTheGroup(PiTableError):
    """The configuration is the service's and its group's (0640: it may hold the broker's
    password) and this login is in neither, which was said: ``main`` ends the command with EXIT_NOPERM."""


def config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, help=f"the configuration file (default: {DEFAULT_CONFIG}); it names the socket and journal"
    )


def tell(args: argparse.Namespace, error: ConfigError) -> None:
    """Say each of a configuration's problems, in the language the file sets for its table."""
    for problem in error.said():
        print(f"pi-table {args.command}: {problem}", file=sys.stderr)


def load(args: argparse.Namespace, path: Path | None, running: Running | None = None) -> Config:
    """The configuration (Unconfigured after saying what is wrong with it). ``check-config`` and
    ``run`` also refuse what cannot work on this machine, so the table never starts half-made.
    The commands that talk to a running table read a file it refused as it did: its last good
    one, which the table runs on (``config.trial.refused``)."""
    from ..config import ConfigError, load_config, parse_config, trial

    named = Path(DEFAULT_CONFIG) if path is None else path
    if named.exists() and not os.access(named, os.R_OK):
        from ..daemon.control import group_of
        from ..engine.phrase import Phrase
        from ..ui.i18n import say

        group = group_of(named)
        print(f"pi-table {args.command}: " + say(Phrase.of(
            "{path} is the table's and its group's alone: join the service's group {group} (sudo usermod -aG {group} "
            "$USER), then log in again", path=str(named), group=group), "en"), file=sys.stderr)
        raise NotInTheGroup
    try:
        return load_config(path, machine=args.command in ("check-config", "run"), running=running)
    except ConfigError as e:
        if args.command not in ("check-config", "run") and trial.refused(named) is not None:  # the file read
            try:
                return parse_config(trial.beside(named, trial.GOOD).read_text(encoding="utf-8"), named)
            except (OSError, UnicodeDecodeError, ConfigError):
                pass
        tell(args, e)
        raise Unconfigured from e


def own_table(args: argparse.Namespace, config: Config) -> Config:
    """Without ``--config``, the simulated table is the user's own: its games and socket in the
    user's folders. The commands that talk to a table find that one when no service runs."""
    from dataclasses import replace

    from ..config import user_paths

    own = replace(config, paths=user_paths(os.environ, config.paths.retention))
    if args.command == "run":
        return own if args.hal == "sim" else config
    # os.path.exists, not Path.exists: a staff login may not look into the service's folder
    if args.command != "selftest" and not os.path.exists(config.paths.socket) and own.paths.socket.exists():
        return own
    return config


def configured(args: argparse.Namespace) -> Config:
    """The configuration of the table ``args`` names (``own_table`` without ``--config``);
    Unconfigured after saying what is wrong with it."""
    config = load(args, args.config)
    return own_table(args, config) if args.config is None else config
