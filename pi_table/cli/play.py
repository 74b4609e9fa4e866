"""The commands that play without a table: ``sim`` (the terminal, a window or a script),
``render`` (PNGs of the screen and the grid) and ``key`` (random keys as JSON lines)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import NoReturn, cast

from ..engine import InvalidRules, Rules, make_game
from ..engine.games import kind_of, names_of
from .games import KINDS, deals_keys, options, sim
from .options import (
    game_options,
    refuse_other_games_options,
    rules_of,
    starting_team,
    table_options,
    touch_port,
    whole_number,
    words_option,
)
from .output import said

NO_WORDS = "none"
"""--words none: the cards carry their numbers alone."""


def played_options(parser: argparse.ArgumentParser, command: str) -> None:
    """What is played and how (the game and its rules, each kind's own options, the key, the
    table's hold and timer, the words): the options a script's header may carry too."""
    game_options(parser, every_game=command == "sim")
    if command == "sim":
        for kind in KINDS:
            for flag, keywords in options(kind):
                parser.add_argument(flag, **keywords)
    parser.add_argument("--key", help="the 25-character key (default: a random one)")
    table_options(parser)
    words_option(parser)


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sim = commands.add_parser("sim", help="play the table in the terminal, or run a script")
    played_options(sim, "sim")
    sim.add_argument("--script", type=Path, help="run the commands in FILE ('-' for standard input); its header "
                                                 "may carry its options: '# options: --game alias24 --seed 3'")
    sim.add_argument("--json", action="store_true", help="with --script: one JSON object per line")
    sim.add_argument(
        "--touch-port", type=touch_port,
        help="play with a touch board on this serial port (from emulate-board), or 'auto' to find it"
    )
    sim.add_argument("--lang", choices=("en", "it"), default="en",
                     help="the language the simulator speaks: its screen, lines, prompts and help")
    sim.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    sim.add_argument("--window", action="store_true", help="a desktop window with the grid and the spymaster screen")
    sim.add_argument("--rotation", type=int, default=180, help="the spymaster screen's key rotation (default: 180)")
    sim.add_argument("--mute", action="store_true", help="the window plays no sound cues")
    sim.set_defaults(func=_sim)

    render = commands.add_parser("render", help="write PNGs of the spymaster screen and the grid after a script")
    played_options(render, "render")
    render.add_argument("--script", type=Path, help="the commands to play first ('-' for standard input); its header "
                                                    "may carry its options")
    render.add_argument("--out", type=Path, required=True, help="the folder for screen.png, grid.png and table.png")
    render.add_argument("--lang", choices=("en", "it"), default="en")
    render.add_argument("--rotation", type=int, default=180, help="the key's rotation on the screen (default: 180)")
    render.set_defaults(func=_sim)

    key = commands.add_parser("key", help="print random keys as JSON lines")
    game_options(key)
    key.add_argument("--count", type=whole_number("--count", 1), default=1, help="how many keys (default: 1)")
    key.set_defaults(func=_key)


def _sim(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pi-table sim`` and ``render``: the simulator of the game's kind (``KINDS``), with the
    options the script's header carries."""
    from ..ui.i18n import translation

    if args.script is not None:
        _script_options(args)
    starting_team(parser, args, args.lang)
    refuse_other_games_options(parser, args, args.lang)
    try:
        rules = rules_of(args)
    except InvalidRules as e:
        parser.error(said(e, args.lang))
    _ = translation(args.lang).gettext  # the game's words in the simulator's language; argparse's own stay English
    if args.command != "render" and args.json and args.script is None:
        parser.error(_("--json goes with --script FILE"))
    kind = kind_of(rules.game)
    if args.command == "sim":
        _refuse_others_options(parser, args, kind)
    args.words = _deck(args, deals_keys(kind))
    return sim(kind)(parser, args, rules)


def _refuse_others_options(parser: argparse.ArgumentParser, args: argparse.Namespace, kind: str) -> None:
    """An option of another kind's games alone, given for this kind's: a usage error naming its games."""
    from ..ui.i18n import translation

    _ = translation(args.lang).gettext
    for other in KINDS:
        given = [flag for flag, _keywords in options(other) if getattr(args, flag.lstrip("-").replace("-", "_")) is not None]
        if given and other != kind:
            games = names_of(other)
            parser.error(_("{options}: options of {games} only (--game {game})").format(
                options=", ".join(given), games=", ".join(games), game=games[0]))


def _deck(args: argparse.Namespace, cards: bool) -> str | None:
    """The deck dealt on the cards (--words; ``none``: numbers alone). A person playing a game with
    cards, in the terminal or the window, is dealt the list in the simulator's language by default:
    something to give a clue about. A script and ``render`` keep numbers unless asked: their output
    is compared line by line, and a deal draws on --seed's random source, which would change the
    keys of the games after the first."""
    if args.words == NO_WORDS:
        return None
    deck: str | None = args.lang if args.words is None and cards and args.command == "sim" and args.script is None \
        else args.words
    return deck


def _script_options(args: argparse.Namespace) -> None:
    """Take the options the script's header carries (``# options: ...`` lines, before its first
    command), so a script plays the same however it is started. Each is one ``played_options``
    takes, once; one the command line gives too must have the same value there (the command
    line's default is no value: the header's applies). Anything else exits 2 naming the line."""
    from ..engine.phrase import N_, Phrase
    from ..sim.script import ScriptError, header_options
    from .script import malformed, script_text

    try:
        name, text = script_text(args)
    except OSError:  # reading its lines says why, once the options it can say are checked
        return
    try:
        lines = header_options(text.splitlines(), name)
    except ScriptError as e:
        malformed(args, e)
    header = argparse.ArgumentParser(prog=f"pi-table {args.command}", add_help=False, allow_abbrev=False,
                                     exit_on_error=False)
    played_options(header, args.command)
    defaults = vars(header.parse_args([]))
    unset = object()
    named: dict[str, int] = {}  # each option the header gives, by its destination: its line
    options = ", ".join("--" + dest.replace("_", "-") for dest in defaults)
    for number, words in lines:
        def refuse(template: str, at: int = number, **fields: object) -> NoReturn:
            malformed(args, ScriptError("{name}:{number}: {problem}", name=name, number=at,
                                        problem=Phrase.of(template, **fields)))

        given = argparse.Namespace(**dict.fromkeys(defaults, unset))  # what the line does not name stays unset
        try:
            _, extra = header.parse_known_args(words, given)
        except argparse.ArgumentError as e:
            refuse(N_("{option} does not take that value: pi-table {command} --help says what it takes"),
                   option=e.argument_name, command=args.command)
        if extra and extra[0].startswith("-"):  # not repeated: the file's own word
            refuse(N_("a script's header takes only the options of what is played: {options}"), options=options)
        if extra:  # a word of the file's own, not repeated
            refuse(N_("an options line holds options and their values only"))
        for dest, value in vars(given).items():
            if value is unset:
                continue
            option = "--" + dest.replace("_", "-")
            if dest in named:
                refuse(N_("{option} is given twice (line {line} gives it too)"), option=option, line=named[dest])
            if getattr(args, dest) not in (defaults[dest], value):
                refuse(N_("{option} differs on the command line: give it in one place"), option=option)
            named[dest] = number
            setattr(args, dest, value)


def _key(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..table import random_source

    refuse_other_games_options(parser, args)
    try:
        rules = cast(Rules, rules_of(args))  # whose --game offers the games with keys alone: a grid game
    except InvalidRules as e:
        parser.error(str(e))
    starting_team(parser, args)
    game = make_game(rules)
    rng = random_source(args.seed)
    for _ in range(args.count):
        key = game.deal(rng, args.start)
        print(json.dumps({"game": rules.game, "key": key.cells, "start": key.start.value}))
    return 0
