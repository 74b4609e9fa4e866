"""The options several commands share, and the ``type=`` checks that refuse a bad value while
the command line is read, naming the option and what it expects."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Literal

from ..engine.games import DEFAULT, NAMES, AnyRules, choices, described, entry, kind_of, names
from ..engine.rules import SETUP
from ..kinds import SerialDevice, serial_port
from .games import KINDS, deals_keys, setup_help
from .tables import config_option


def starting_team(parser: argparse.ArgumentParser, args: argparse.Namespace, lang: str = "en") -> None:
    """--start as the team it names in ``lang`` (``rossa`` where the simulator speaks Italian),
    read once the language is known; a usage error in that language otherwise."""
    from ..engine.errors import InvalidKey
    from ..ui.i18n import say, team_named

    if args.start is not None:
        try:
            args.start = team_named(args.start, lang)
        except InvalidKey as e:
            parser.error(f"--start: {say(e.phrase, lang)}")


def touch_port(text: str) -> SerialDevice | Literal["auto"]:
    """``--touch-port``: 'auto', or a serial device under /dev (never a pyserial URL)."""
    try:
        return serial_port(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"--touch-port is {e}") from None


TOUCH_PORT = "the touch board's serial port, a device under /dev, or 'auto' (overrides the configuration)"


def device_options(parser: argparse.ArgumentParser, sim: str) -> None:
    """A command on the table's devices: its configuration, the devices real or simulated (``sim``
    says what 'sim' leaves to touch), and the touch board's port."""
    config_option(parser)
    parser.add_argument("--hal", choices=("hw", "sim"), default="hw", help=f"'sim': {sim}")
    parser.add_argument("--touch-port", type=touch_port, help=TOUCH_PORT)


def whole_number(option: str, least: int, most: Callable[[], int] | None = None) -> Callable[[str], int]:
    """A ``type=`` for ``option``: a whole number of at least ``least``, and at most ``most()``
    when it is given (a limit read only when the option is, from the module that sets it)."""

    def parse(text: str) -> int:
        top = None if most is None else most()
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < least or (top is not None and value > top):
            span = f"of at least {least}" if top is None else f"from {least} to {top}"
            raise argparse.ArgumentTypeError(f"{option} is a whole number {span}, not {text}")
        return value

    return parse


def game_options(parser: argparse.ArgumentParser, every_game: bool = False) -> None:
    """The options that choose a game and its rules; shared by every command that deals.
    ``every_game``: the command plays every game (``pi-table sim``), whose --setup is also the
    deal of a game of another kind, as text; else those with keys (``KINDS``). Each rule a game's
    description offers (``described.Choice``) is an option named after it, so a game's own rule
    needs no line here; the rules check its value, as they check the configuration's."""
    games = NAMES if every_game else tuple(name for name in NAMES if deals_keys(kind_of(name)))
    parser.add_argument("--game", choices=games, default=DEFAULT, help="the game (default: %(default)s)")
    parser.add_argument("--start", metavar="TEAM",
                        help="the starting team, red or blue (with --lang it also rossa or blu; Codenames: must match --key)")
    parser.add_argument("--seed", type=int, help="deal reproducible keys from this seed")
    offered = {choice.name: choice for name in games for choice in described(name).options if choice.rule}
    for choice in offered.values():
        flag = "--" + choice.name.replace("_", "-")
        default = choice.words.get(str(choice.default), choice.default) if choice.kind != "bool" else None
        said = (choice.help if default is None else f"{choice.help} (default: {default})").replace("%", "%%")  # argparse's
        if choice.name == SETUP.name and every_game:  # also the deal of a game dealt from text
            parser.add_argument(flag, metavar="|".join((*choice.values, "TEXT")), help="; ".join(
                [said, *(told for kind in KINDS if (told := setup_help(kind)) is not None)]))
        elif choice.kind == "bool":
            parser.add_argument(flag, action="store_true", default=None, help=said)
        else:
            parser.add_argument(flag, choices=choice.values or None, type=VALUE_TYPES[choice.kind], help=said,
                                metavar=None if choice.values else choice.kind.upper())
    # the rules' options default to None, so that one given for a game that does not take it is
    # told from one left out (``refuse_other_games_options``); the rules' own defaults apply


VALUE_TYPES: dict[str, Callable[[str], object]] = {"str": str, "int": int, "number": float}
"""How the command line reads an option's value of each kind (``described.KINDS_OF_VALUE``,
a true-or-false one being a flag): the rules then check it, as they check the configuration's."""


def table_options(parser: argparse.ArgumentParser) -> None:
    """How the table plays, beside the rules: the hold and the turn timer."""
    parser.add_argument("--hold", type=float, default=0.25, help="seconds a touch is held to count (default: 0.25)")
    parser.add_argument("--timer", type=float, default=0.0, metavar="SECONDS", help="turn timer length (default: off)")
    parser.add_argument("--timer-warn", type=float, default=10.0, metavar="SECONDS", help="warn this long before the end")
    parser.add_argument("--timer-enforce", action="store_true", help="end the turn when the timer runs out")


def words_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--words", metavar="en|it|FILE",
                        help="words on the cards: a shipped list, or a deck file (UTF-8, one word a line)")


def rules_of(args: argparse.Namespace) -> AnyRules:
    """The rules ``--game`` is dealt with: its rules take the options given that they know, its
    kind's own among them (``games.Commands.options``), and leave the others'."""
    return entry(args.game).rules_from({name: value for name, value in vars(args).items() if value is not None})


def refuse_other_games_options(parser: argparse.ArgumentParser, args: argparse.Namespace, lang: str = "en") -> None:
    """A rule's option given for a game whose description does not offer it, another game's,
    which this one's rules would leave unread (Codenames with Alias 24's dark cell played with no
    dark cell): a usage error naming the games it is for and this game's own. A value that is
    none of the option's words is not that option (Codex's ``--setup TEXT`` is its deal)."""
    from ..ui.i18n import translation

    _ = translation(lang).gettext
    flags = {choice.name: "--" + choice.name.replace("_", "-") for choice in choices() if hasattr(args, choice.name)}
    offered = entry(args.game).description.options
    for choice in choices():
        value = getattr(args, choice.name, None)
        if value is None or choice in offered or choice.name not in flags or (choice.values and value not in choice.values):
            continue
        owners = [name for name in names() if choice in described(name).options]
        own = ", ".join(flags[mine.name] for mine in offered if mine.name in flags)
        parser.error(_("{option}: an option of {games}; {game} takes {own}").format(
            option=flags[choice.name], games=", ".join(owners), game=args.game, own=own or _("none of them")))
