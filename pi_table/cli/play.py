"""The commands that play without a table: ``sim`` (the terminal, a window or a script),
``render`` (PNGs of the screen and the grid) and ``key`` (random keys as JSON lines)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import cast

from ..engine import InvalidRules, Rules, make_game
from ..engine.games import kind_of
from ..table.timer import DISCUSSION_S
from .games import KINDS
from .options import game_options, rules_of, table_options, whole_number, words_option
from .output import said


def add_commands(commands) -> None:
    sim = commands.add_parser("sim", help="play the table in the terminal, or run a script")
    game_options(sim, every_game=True)
    sim.add_argument("--roles", help="Codex: the three roles in play, the Leader among them (default: dealt)")
    sim.add_argument("--discussion", type=float, metavar="SECONDS",
                     help=f"Codex: the discussion's length, 0 for no timer (default: {DISCUSSION_S:g})")
    sim.add_argument("--key", help="the 25-character key (default: a random one)")
    sim.add_argument("--script", type=Path, help="run the commands in FILE ('-' for standard input)")
    sim.add_argument("--json", action="store_true", help="with --script: one JSON object per line")
    sim.add_argument(
        "--touch-port", help="play with a touch board on this serial port (from emulate-board), or 'auto' to find it"
    )
    table_options(sim)
    sim.add_argument("--lang", choices=("en", "it"), default="en",
                     help="the language the simulator speaks: its screen, lines, prompts and help")
    sim.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    sim.add_argument("--window", action="store_true", help="a desktop window with the grid and the spymaster screen")
    words_option(sim)
    sim.add_argument("--rotation", type=int, default=180, help="the spymaster screen's key rotation (default: 180)")
    sim.add_argument("--mute", action="store_true", help="the window plays no sound cues")
    sim.set_defaults(func=_sim)

    render = commands.add_parser("render", help="write PNGs of the spymaster screen and the grid after a script")
    game_options(render)
    render.add_argument("--key", help="the 25-character key (default: a random one)")
    render.add_argument("--script", type=Path, help="the commands to play first ('-' for standard input)")
    render.add_argument("--out", type=Path, required=True, help="the folder for screen.png, grid.png and table.png")
    render.add_argument("--lang", choices=("en", "it"), default="en")
    render.add_argument("--rotation", type=int, default=180, help="the key's rotation on the screen (default: 180)")
    words_option(render)
    table_options(render)
    render.set_defaults(func=_sim)

    key = commands.add_parser("key", help="print random keys as JSON lines")
    game_options(key)
    key.add_argument("--count", type=whole_number("--count", 1), default=1, help="how many keys (default: 1)")
    key.set_defaults(func=_key)


def _sim(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pi-table sim`` and ``render``: the simulator of the game's kind (``KINDS``)."""
    from ..ui.i18n import translation

    try:
        rules = rules_of(args)
    except InvalidRules as e:
        parser.error(said(e, args.lang))
    _ = translation(args.lang).gettext  # the game's words in the simulator's language; argparse's own stay English
    if args.command != "render" and args.json and args.script is None:
        parser.error(_("--json goes with --script FILE"))
    return KINDS[kind_of(rules.game)].sim(parser, args, rules)


def _key(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..table import random_source

    try:
        rules = cast(Rules, rules_of(args))  # whose --game offers the games with keys alone: a grid game
    except InvalidRules as e:
        parser.error(str(e))
    game = make_game(rules)
    rng = random_source(args.seed)
    for _ in range(args.count):
        key = game.deal(rng, args.start)
        print(json.dumps({"game": rules.game, "key": key.cells, "start": key.start.value}))
    return 0
