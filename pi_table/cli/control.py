"""The commands that speak to a table through its control socket or its files: ``status``,
``new-game``, ``undo``, ``release-seat``, ``history``, ``set-staff-pin``, ``set-owner-passphrase``,
and ``check-config`` for its configuration."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.games import NAMES, kind_of
from ..engine.phrase import N_
from ..engine.views import LANGUAGES
from .games import status
from .output import EXIT_NOPERM, EXIT_UNAVAILABLE, EXIT_USAGE, said
from .tables import DEFAULT_CONFIG, config_option, configured, load

if TYPE_CHECKING:
    from ..config import Config
    from ..config.machine import Running


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    status = commands.add_parser("status", help="what the running table shows the operatives, and its health")
    config_option(status)
    status.add_argument("--json", action="store_true")
    status.add_argument("--healthy", action="store_true",
                        help="also ask whether the table is healthy as a change on trial must be (its loop, its phones' "
                             "and staff pages answering); exit 1 when it is not")
    status.add_argument("--lang", choices=LANGUAGES, help="the language of its lines and warnings (default: [game] "
                        "language); --json keeps the table's English")
    status.set_defaults(func=_ask)
    new_game = commands.add_parser("new-game", help="start a new game on the running table")
    config_option(new_game)
    new_game.add_argument("--game", choices=NAMES, help="another game than the current one")
    new_game.add_argument("--json", action="store_true", help="the table's status afterwards as JSON")
    new_game.set_defaults(func=_ask)
    undo = commands.add_parser("undo", help="take back the last action on the running table")
    config_option(undo)
    undo.set_defaults(func=_ask)
    release = commands.add_parser(
        "release-seat", help="give a seat's phone page a new link (the wrong phone opened it)",
        description="In a game whose players have seats with phone pages of their own: void seat "
                    "SEAT's phone page link, so the phone that opened it (and anyone holding its code) "
                    "is refused, and show the seat's new link as a QR code on the table's screen. The "
                    "game itself is untouched.")
    config_option(release)
    release.add_argument("seat", type=int, metavar="SEAT", help="the seat, 0 to 5")
    release.set_defaults(func=_ask)
    past = commands.add_parser("history", help="the games kept in the journal")
    config_option(past)
    past.add_argument("--json", action="store_true")
    past.add_argument("--lang", choices=LANGUAGES, help="the language of how each game ended (default: [game] language)")
    past.set_defaults(func=_print_history)
    staff_pin = commands.add_parser(
        "set-staff-pin", help="set the staff page's PIN (/staff on the phones' server)",
        description="Ask for the staff page's PIN (twice at a terminal, one line from a pipe) and keep its "
                    "salted scrypt hash in the journal's folder, readable by the service alone. Run it as "
                    "root (sudo) on an installed table.")
    config_option(staff_pin)
    staff_pin.set_defaults(func=_set_secret, secret=STAFF_PIN)
    owner = commands.add_parser(
        "set-owner-passphrase", help="set the owner's passphrase, which the staff page asks for updates, backups, "
                                     "restores, power and the fleet's settings",
        description="Ask for the owner's passphrase (twice at a terminal, one line from a pipe) and keep its "
                    "salted scrypt hash beside the staff PIN, readable by the service alone. On the staff page, "
                    "Owner and this passphrase unlock what only the owner does (updates, restores, the PIN's "
                    "reset, power, the fleet's broker and credentials, the files the table reads) for "
                    "10 minutes. Run it as root (sudo) on an installed table.")
    config_option(owner)
    owner.set_defaults(func=_set_secret, secret=OWNER_PASSPHRASE)
    check = commands.add_parser("check-config", help="validate a configuration and print it in full")
    check.add_argument("file", nargs="?", type=Path, help=f"the file (default: {DEFAULT_CONFIG})")
    check.add_argument("--defaults", action="store_true", help="print the default configuration, to start a file from")
    check.set_defaults(func=_check_config)


def _check_config(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..config import build, defaults
    from ..config.writing import to_toml

    config = build(defaults(), None) if args.defaults else load(args, args.file, _running(args.file))
    print(to_toml(config), end="")
    return 0


def _running(config_path: Path | None) -> Running:
    """What the table this file configures holds while it runs (``check-config`` beside it):
    its companion's port, asked of its control socket; an empty ``Running`` when no table
    answers there."""
    import urllib.parse

    from ..config import ConfigError, load_config
    from ..config.machine import Running
    from ..daemon.control import ControlError, request

    try:
        answer = request(load_config(config_path).paths.socket, "status", timeout=2)
    except (ConfigError, ControlError, OSError):
        return Running()
    companion = answer.get("companion")
    return Running(listening=urllib.parse.urlsplit(companion).port if isinstance(companion, str) else None)


def _ask(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """The commands the running table answers through its socket, said in the table's language."""
    from ..daemon.control import ControlError, NotAllowed, Refused, request

    config = configured(args)
    fields = {"game": args.game} if args.command == "new-game" and args.game else {}
    if args.command == "release-seat":
        fields = {"seat": args.seat}
    if getattr(args, "healthy", False):
        fields["healthy"] = True
    lang = getattr(args, "lang", None) or config.language
    if not getattr(args, "json", False):
        fields["lang"] = lang  # the table says its refusals, warnings and the game's end in this language
    try:
        answer = request(config.paths.socket, args.command, **fields)
    except ControlError as e:
        print(f"pi-table {args.command}: {said(e, lang)}", file=sys.stderr)
        return 1 if isinstance(e, Refused) else EXIT_NOPERM if isinstance(e, NotAllowed) else EXIT_UNAVAILABLE
    unhealthy = "healthy" in answer and not answer["healthy"]["ok"]
    if getattr(args, "json", False):
        print(json.dumps({k: v for k, v in answer.items() if k != "ok"}))
        return 1 if unhealthy else 0
    if args.command == "release-seat":
        from ..ui.i18n import translation

        print(translation(lang).gettext("seat {seat}: its old link opens nothing now; the table's screen shows its new "
                                        "code").format(seat=args.seat))
    _print_status(answer, lang)
    return 1 if unhealthy else 0


def _print_status(answer: dict[str, Any], lang: str) -> None:
    """``pi-table status`` in the table's language: the game and the devices by their names in it."""
    from ..engine.games import title_of
    from ..hal.events import DEVICE_NAMES
    from ..hal.screen import grouped
    from ..ui.i18n import say_health, translation

    _ = translation(lang).gettext
    state = answer["state"]
    print(_("pi-table {version}: game {id} ({game}), up {uptime} s").format(
        version=answer.get("version", "?"), id=answer["game_id"], game=_(title_of(state["game"])),
        uptime=answer["uptime_s"]))
    for line in status(kind_of(state["game"]))(state, lang):
        print(line)
    print(_("health {devices}").format(devices=", ".join(f"{_(DEVICE_NAMES.get(name, name))}: {say_health(health, lang)}"
                                                         for name, health in answer["health"].items())))
    if answer.get("certificate"):  # grouped as the screen and the pages show it, to compare with a phone's warning
        print(_("The page's certificate (SHA-256)") + f": {grouped(answer['certificate'])}")
    for warning in answer["warnings"]:
        print(f"! {warning}")
    if "healthy" in answer:
        print(_("healthy") if answer["healthy"]["ok"] else _("not healthy: {why}").format(why=answer["healthy"]["why"]))


def _print_history(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pi-table history``: a line a game, its name and how it ended in ``--lang``."""
    from ..engine.games import title_of
    from ..ui.i18n import translation

    config = configured(args)
    lang = args.lang or config.language
    games = _history(config, lang)
    if isinstance(games, int):
        return games
    if args.json:
        print(json.dumps(games))
        return 0
    _ = translation(lang).gettext
    titles = [_(title_of(game.get("game", "?"))) for game in games]
    width = max(map(len, titles), default=0)
    for game, title in zip(games, titles):
        result = game.get("error") or (game["reason"] if game["over"] else _("unfinished"))
        moves = _("moves: {moves}").format(moves=f"{game.get('moves', 0):<3}")
        print(f"{game['id']}  {title:{width}} {moves}  {game.get('duration_s') or 0:7.0f} s  {result}")
    return 0


def _history(config: Config, lang: str) -> list[dict[str, Any]] | int:
    """The games kept: asked of the running table (the staff cannot read the journal's
    files), else read from the files (as root or the service's user, the table stopped);
    an exit status when neither can be had."""
    from ..daemon.control import ControlError, NotAllowed, request
    from ..table import history
    from ..ui.i18n import translation

    try:
        games: list[dict[str, Any]] = request(config.paths.socket, "history", lang=lang)["games"]  # the daemon's JSON
        return games
    except NotAllowed as e:
        print(f"pi-table history: {said(e, lang)}", file=sys.stderr)
        return EXIT_NOPERM
    except ControlError:  # no table running, or one from before it answered this
        pass
    folder = config.paths.journal_dir
    try:
        os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except PermissionError:
        print("pi-table history: " + translation(lang).gettext(
            "no table is running to ask, and the journal {folder} is the service's alone: run it as root (sudo)").format(
            folder=folder), file=sys.stderr)
        return EXIT_UNAVAILABLE
    return history(folder, lang)


@dataclass(frozen=True)
class _Secret:
    """A secret ``set-staff-pin`` or ``set-owner-passphrase`` keeps, and its words."""

    command: str
    ask: str
    again: str
    differ: str
    done: str


STAFF_PIN = _Secret("set-staff-pin", N_("staff PIN ({least} characters or more): "), N_("the same PIN again: "),
                    N_("the two PINs differ: nothing was changed"),
                    N_("staff PIN set ({path}): log in at the companion's address followed by /staff"))
OWNER_PASSPHRASE = _Secret(
    "set-owner-passphrase", N_("owner's passphrase ({least} characters or more): "), N_("the same passphrase again: "),
    N_("the two passphrases differ: nothing was changed"),
    N_("owner's passphrase set ({path}): on the staff page, Owner and the passphrase unlock the owner's actions"))


def _set_secret(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Keep the staff page's PIN, or the owner's passphrase, where the service reads it; as
    root, the file (and any folder made for it) goes to the owner of the folder it is made in:
    the service's user. It speaks the table's language."""
    import getpass

    from ..engine.errors import Refusal
    from ..ui.i18n import say, translation
    from ..web.roles import MIN_PASSPHRASE, set_passphrase
    from ..web.staff import MIN_PIN, set_pin

    secret: _Secret = args.secret
    least, keep = (MIN_PIN, set_pin) if secret is STAFF_PIN else (MIN_PASSPHRASE, set_passphrase)
    config = configured(args)
    _ = translation(config.language).gettext
    if sys.stdin.isatty():
        given = getpass.getpass(_(secret.ask).format(least=least))
        if getpass.getpass(_(secret.again)) != given:
            print(f"pi-table {secret.command}: " + _(secret.differ), file=sys.stderr)
            return 1
    else:
        given = sys.stdin.readline().rstrip("\r\n")
    folder = config.paths.journal_dir
    owner = folder
    while not owner.exists() and owner != owner.parent:
        owner = owner.parent
    made = [folder, *folder.parents[: len(folder.parents) - len(owner.parents) - 1]] if owner != folder else []
    try:
        path = keep(folder, given)
        st = owner.stat()
        if os.geteuid() == 0 and st.st_uid != 0:
            for each in [path, *made]:
                os.chown(each, st.st_uid, st.st_gid)
    except Refusal as e:
        print(f"pi-table {secret.command}: " + _("{problem}: nothing was changed").format(
            problem=say(e.phrase, config.language)), file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print(f"pi-table {secret.command}: " + _("cannot write in {folder} ({error}): run it as root (sudo)").format(
            folder=folder, error=e.strerror or e), file=sys.stderr)
        return EXIT_NOPERM
    print(_(secret.done).format(path=path))
    return 0
