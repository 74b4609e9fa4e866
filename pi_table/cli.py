"""The ``pi-table`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from .engine import InvalidKey, InvalidRules, Rules, Team, make_game
from .engine.games import NAMES, AnyRules, entry, kind_of
from .engine.rules import NUKE_MODES, SETUPS
from .engine.views import LANGUAGES
from .table.timer import DISCUSSION_S

if TYPE_CHECKING:  # the simulator and Codex are imported only by the commands that use them
    from .engine import CodexRules
    from .sim.script import ScriptLine

EXIT_USAGE = 2
EXIT_CONFIG = 78  # EX_CONFIG: systemd and people both read it as "fix the configuration"
EXIT_UNAVAILABLE = 69  # EX_UNAVAILABLE: no table is running
EXIT_NOPERM = 77  # EX_NOPERM: a table runs, but this user is not in the group that may use its socket
EXIT_PIPE = 141  # 128 + SIGPIPE: the reader went away (| head), as the shell's own tools end then
DEFAULT_CONFIG = "/etc/pi-table/config.toml"


def _team(text: str) -> Team:
    try:
        return Team.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _game_options(parser: argparse.ArgumentParser, every_game: bool = False) -> None:
    """The options that choose a game and its rules; shared by every command that deals.
    ``every_game``: the command plays every game (``pi-table sim``), whose --setup is also
    Codex's six identikits; else those with keys (``KINDS``)."""
    games = NAMES if every_game else tuple(name for name in NAMES if KINDS[kind_of(name)].keys)
    parser.add_argument("--game", choices=games, default="codenames", help="the game (default: %(default)s)")
    parser.add_argument("--nuke", choices=NUKE_MODES, default="basic", help="Alias 24's nuke mode (default: basic)")
    parser.add_argument("--start", type=_team, help="the starting team (Codenames: must match --key)")
    parser.add_argument("--seed", type=int, help="deal reproducible keys from this seed")
    parser.add_argument("--clue-required", action="store_true", help="a clue number must be entered before a touch")
    parser.add_argument("--three-player", action="store_true", help="one operative guesses for both spymasters")
    if every_game:
        parser.add_argument(
            "--setup", metavar="key|place|TEXT",
            help="'place': Deep Undercover's deal-and-place setup; Codex: the six identikits, one "
                 "codename:faction:role:position:fragment per seat (default: a random deal)",
        )
    else:
        parser.add_argument(
            "--setup", choices=SETUPS, default="key", help="'place': Deep Undercover's deal-and-place setup"
        )
    parser.add_argument("--dark-cell", type=int, default=12, help="Alias 24's cell without a card (default: 12)")


def _table_options(parser: argparse.ArgumentParser) -> None:
    """How the table plays, beside the rules: the hold and the turn timer."""
    parser.add_argument("--hold", type=float, default=0.25, help="seconds a touch is held to count (default: 0.25)")
    parser.add_argument("--timer", type=float, default=0.0, metavar="SECONDS", help="turn timer length (default: off)")
    parser.add_argument("--timer-warn", type=float, default=10.0, metavar="SECONDS", help="warn this long before the end")
    parser.add_argument("--timer-enforce", action="store_true", help="end the turn when the timer runs out")


def _words_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--words", metavar="en|it|FILE",
                        help="words on the cards: a shipped list, or a deck file (UTF-8, one word a line)")


def _config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, help=f"the configuration file (default: {DEFAULT_CONFIG}); it names the socket and journal"
    )


def _rules(args: argparse.Namespace) -> AnyRules:
    """The rules ``--game`` is dealt with: its rules take the options they know (Codex's, its
    --roles; the grid games', the others)."""
    roles = getattr(args, "roles", None)  # ``pi-table sim``'s alone
    return entry(args.game).rules_from({
        "nuke": args.nuke, "clue_required": args.clue_required, "three_player": args.three_player,
        "setup": args.setup or "key", "dark_cell": args.dark_cell, "roles": None if roles is None else roles.lower().split(","),
    })


class _Version(argparse.Action):
    """``--version``, read from the package's metadata only when asked (it costs a start-up)."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from . import version

        print(f"pi-table {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pi-table", description="A Codenames-family game table on a Raspberry Pi.")
    parser.add_argument("--version", action=_Version, help="print the installed version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sim = commands.add_parser("sim", help="play the table in the terminal, or run a script")
    _game_options(sim, every_game=True)
    sim.add_argument("--roles", help="Codex: the three roles in play, the Leader among them (default: dealt)")
    sim.add_argument("--discussion", type=float, metavar="SECONDS",
                     help=f"Codex: the discussion's length, 0 for no timer (default: {DISCUSSION_S:g})")
    sim.add_argument("--key", help="the 25-character key (default: a random one)")
    sim.add_argument("--script", type=Path, help="run the commands in FILE ('-' for standard input)")
    sim.add_argument("--json", action="store_true", help="with --script: one JSON object per line")
    sim.add_argument(
        "--touch-port", help="play with a touch board on this serial port (from emulate-board), or 'auto' to find it"
    )
    _table_options(sim)
    sim.add_argument("--lang", choices=("en", "it"), default="en",
                     help="the language the simulator speaks: its screen, lines, prompts and help")
    sim.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    sim.add_argument("--window", action="store_true", help="a desktop window with the grid and the spymaster screen")
    _words_option(sim)
    sim.add_argument("--rotation", type=int, default=180, help="the spymaster screen's key rotation (default: 180)")
    sim.add_argument("--mute", action="store_true", help="the window plays no sound cues")

    render = commands.add_parser("render", help="write PNGs of the spymaster screen and the grid after a script")
    _game_options(render)
    render.add_argument("--key", help="the 25-character key (default: a random one)")
    render.add_argument("--script", type=Path, help="the commands to play first ('-' for standard input)")
    render.add_argument("--out", type=Path, required=True, help="the folder for screen.png, grid.png and table.png")
    render.add_argument("--lang", choices=("en", "it"), default="en")
    render.add_argument("--rotation", type=int, default=180, help="the key's rotation on the screen (default: 180)")
    _words_option(render)
    _table_options(render)

    key = commands.add_parser("key", help="print random keys as JSON lines")
    _game_options(key)
    key.add_argument("--count", type=int, default=1, help="how many keys (default: 1)")

    run = commands.add_parser("run", help="run the table as a service (the daemon)")
    _config_option(run)
    run.add_argument("--hal", choices=("hw", "sim"), default="hw", help="'sim': every device simulated, headless")
    run.add_argument("--touch-port", help="the touch board's serial port (overrides the configuration)")
    run.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")

    status = commands.add_parser("status", help="what the running table shows the operatives, and its health")
    _config_option(status)
    status.add_argument("--json", action="store_true")
    status.add_argument("--lang", choices=LANGUAGES, help="the language of its lines and warnings (default: [game] "
                        "language); --json keeps the table's English")
    new_game = commands.add_parser("new-game", help="start a new game on the running table")
    _config_option(new_game)
    new_game.add_argument("--game", choices=NAMES, help="another game than the current one")
    new_game.add_argument("--json", action="store_true", help="the table's status afterwards as JSON")
    undo = commands.add_parser("undo", help="take back the last action on the running table")
    _config_option(undo)
    release = commands.add_parser(
        "release-seat", help="Codex: give a seat's phone page a new link (the wrong phone opened it)",
        description="Codex: void seat SEAT's phone page link, so the phone that opened it (and anyone "
                    "holding its code) is refused, and show the seat's new link as a QR code on the "
                    "table's screen. The game itself is untouched.")
    _config_option(release)
    release.add_argument("seat", type=int, metavar="SEAT", help="the seat, 0 to 5")
    past = commands.add_parser("history", help="the games kept in the journal")
    _config_option(past)
    past.add_argument("--json", action="store_true")
    past.add_argument("--lang", choices=LANGUAGES, help="the language of how each game ended (default: [game] language)")
    staff_pin = commands.add_parser(
        "set-staff-pin", help="set the staff page's PIN (/staff on the phones' server)",
        description="Ask for the staff page's PIN (twice at a terminal, one line from a pipe) and keep its "
                    "salted scrypt hash in the journal's folder, readable by the service alone. Run it as "
                    "root (sudo) on an installed table.")
    _config_option(staff_pin)
    check = commands.add_parser("check-config", help="validate a configuration and print it in full")
    check.add_argument("file", nargs="?", type=Path, help=f"the file (default: {DEFAULT_CONFIG})")
    check.add_argument("--defaults", action="store_true", help="print the default configuration, to start a file from")

    selftest = commands.add_parser("selftest", help="installation day: LED walk, every pad, the buttons, the screen")
    _config_option(selftest)
    selftest.add_argument("--hal", choices=("hw", "sim"), default="hw", help="'sim': simulated devices (nothing to touch)")
    selftest.add_argument("--touch-port", help="the touch board's serial port (overrides the configuration)")
    selftest.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for every check (default: 300)")
    selftest.add_argument("--lang", choices=LANGUAGES, help="the language it speaks (default: [game] language)")

    tune = commands.add_parser("tune", help="each pad's numbers live, and thresholds from your touches (--write keeps them)")
    _config_option(tune)
    tune.add_argument("--hal", choices=("hw", "sim"), default="hw", help="'sim': no screen (give --touch-port)")
    tune.add_argument("--touch-port", help="the touch board's serial port (overrides the configuration)")
    tune.add_argument("--rest", type=float, default=3.0, help="seconds of hands off at the start, for the noise (default: 3)")
    tune.add_argument("--frames", type=int, default=0, help="stop after this many rounds of readings (default: at Ctrl-C)")
    tune.add_argument("--period-ms", type=int, default=50, help="milliseconds between rounds, 20 or more (default: 50)")
    tune.add_argument("--write", action="store_true", help="put the suggested thresholds in the configuration file")

    board = commands.add_parser("emulate-board", help="a touch board in software, on a pty (prints its path)")
    board.add_argument("--link", type=Path, help="the stable path to the board's pty (default: a temporary one)")
    board.add_argument("--board-id", default="emulator", help="the board id it says hello with")

    fleet = commands.add_parser("fleet", help="the fleet's dashboard: every table reporting to an MQTT broker, on one page")
    fleet.add_argument("--broker", help="mqtt[s]://USER[:PASSWORD]@HOST[:PORT]: a broker user that may read pi-table/#")
    fleet.add_argument("--broker-password-file", default="",
                       help="a file holding that user's password (kept off the command line, which ps shows)")
    fleet.add_argument("--password-file", type=Path, required=True,
                       help="the page's login: the password's hash, which --set-password writes")
    fleet.add_argument("--set-password", action="store_true",
                       help="ask for the page's password (or read it from stdin), write its hash to --password-file, exit")
    fleet.add_argument("--host", default="127.0.0.1", help="the address the page listens on (default: 127.0.0.1)")
    fleet.add_argument("--port", type=int, default=8025, help="its TCP port (default: 8025; 0: any free port)")
    fleet.add_argument("--lang", choices=("en", "it"), default="en", help="the page's language (default: en)")
    fleet.add_argument("--ca", default="", help="mqtts: the CA file the broker's certificate is checked against")
    fleet.add_argument("--cert", default="", help="mqtts: a client certificate, for a broker that asks for one")
    fleet.add_argument("--key", default="", help="mqtts: the client certificate's private key")
    fleet.add_argument("--client-id", default="pi-table-fleet",
                       help="its MQTT client id; the broker keeps its events under it while it is away")

    bench = commands.add_parser("bench", help="run a benchmark and print its figures")
    bench.add_argument("what", choices=("engine", "latency", "render", "daemon", "fleet"))
    bench.add_argument("--games", type=int, default=2000, help="engine: random games per variant (default: 2000)")
    bench.add_argument("--touches", type=int, default=200, help="latency: guesses to time (default: 200)")
    bench.add_argument("--phones", type=int, default=None,
                       help="latency: time again with this many phones on the companion's event stream, and compare")
    bench.add_argument("--idle", type=float, default=10.0, help="render: seconds of idle CPU measured (default: 10)")
    bench.add_argument("--starts", type=int, default=10, help="daemon: starts to READY timed (default: 10)")
    bench.add_argument("--tables", type=int, default=200, help="fleet: simulated tables reporting (default: 200)")
    bench.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    # pygame greets on stdout when first imported (by the self-test's, tune's and the simulators'
    # painters, before any device opens): no command of the table's wants that English line
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        return _command(argv)
    except BrokenPipeError:
        # stdout now leads to /dev/null, so the interpreter's last flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE


def _command(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "key":  # whose --game offers the games with keys alone
        try:
            keyed = cast(Rules, _rules(args))  # a game with keys: a grid game
        except InvalidRules as e:
            parser.error(str(e))
        return _key(parser, args, keyed)
    if args.command in ("sim", "render"):
        try:
            rules = _rules(args)
        except InvalidRules as e:
            parser.error(_said(e, args.lang))
        return _sim(parser, args, rules)
    if args.command == "emulate-board":
        return _emulate_board(args)
    if args.command == "bench":
        return _bench(parser, args)
    if args.command == "fleet":
        from .fleet import dashboard

        return dashboard.main(parser, args)
    return _service(args)


def _load(args: argparse.Namespace, path: Path | None, running=None):
    """The configuration, or None after saying what is wrong with it. ``check-config`` and
    ``run`` also refuse what cannot work on this machine, so the table never starts half-made."""
    from .config import ConfigError, load_config

    try:
        return load_config(path, machine=args.command in ("check-config", "run"), running=running)
    except ConfigError as e:  # in the language the file sets for its table
        for problem in e.said():
            print(f"pi-table {args.command}: {problem}", file=sys.stderr)
        return None


def _start(args: argparse.Namespace):
    """``run``'s configuration: a trial of settings changed from a page is rolled back when the
    table cannot start on them (or did not survive its last start on them), and the table
    starts on the last good file instead; a file edited by hand is refused as it is (78).
    The configuration and the trial under way, or None."""
    from .config import DEFAULT_PATH, ConfigError, load_config, trial
    from .engine.phrase import Phrase

    path = args.config or (DEFAULT_PATH if DEFAULT_PATH.exists() else None)
    under_trial = None if path is None else trial.starting(path)
    if path is not None and under_trial is not None:
        try:
            return load_config(path, machine=True), under_trial
        except ConfigError as e:
            for problem in e.said():
                print(f"pi-table {args.command}: {problem}", file=sys.stderr)
            trial.roll_back(path, under_trial, Phrase.of("the table could not start on the new settings: {problems}",
                                                         problems=tuple(e.phrases)))
    config = _load(args, args.config)
    return None if config is None else (config, None)


def _running(config_path: Path | None):
    """What the table this file configures holds while it runs (``check-config`` beside it):
    its companion's port, asked of its control socket; an empty ``Running`` when no table
    answers there."""
    import urllib.parse

    from .config import ConfigError, load_config
    from .config.machine import Running
    from .daemon.control import ControlError, request

    try:
        answer = request(load_config(config_path).paths.socket, "status", timeout=2)
    except (ConfigError, ControlError, OSError):
        return Running()
    companion = answer.get("companion")
    return Running(listening=urllib.parse.urlsplit(companion).port if isinstance(companion, str) else None)


def _own_table(args: argparse.Namespace, config):
    """Without ``--config``, the simulated table is the user's own: its games and socket in the
    user's folders. The commands that talk to a table find that one when no service runs."""
    from dataclasses import replace

    from .config import user_paths

    own = replace(config, paths=user_paths(os.environ, config.paths.retention))
    if args.command == "run":
        return own if args.hal == "sim" else config
    # os.path.exists, not Path.exists: a staff login may not look into the service's folder
    if args.command != "selftest" and not os.path.exists(config.paths.socket) and own.paths.socket.exists():
        return own
    return config


def _service(args: argparse.Namespace) -> int:
    """The commands that run the table as a service or talk to it through its socket."""
    if args.command == "check-config":
        from .config import build, defaults
        from .config.writing import to_toml

        config = build(defaults(), None) if args.defaults else _load(args, args.file, _running(args.file))
        if config is None:
            return EXIT_CONFIG
        print(to_toml(config), end="")
        return 0
    if args.command == "run":
        return _run(args)
    config = _load(args, args.config)
    if config is None:
        return EXIT_CONFIG
    if args.config is None:
        config = _own_table(args, config)
    if args.command == "selftest":
        return _selftest(args, config)
    if args.command == "tune":
        return _tune(args, config)
    if args.command == "set-staff-pin":
        return _set_staff_pin(config)
    if args.command == "history":
        return _print_history(config, args.lang or config.language, args.json)
    from .daemon.control import ControlError, NotAllowed, Refused, request

    fields = {"game": args.game} if args.command == "new-game" and args.game else {}
    if args.command == "release-seat":
        fields = {"seat": args.seat}
    lang = getattr(args, "lang", None) or config.language
    if not getattr(args, "json", False):
        fields["lang"] = lang  # the table says its refusals, warnings and the game's end in this language
    try:
        answer = request(config.paths.socket, args.command, **fields)
    except ControlError as e:
        print(f"pi-table {args.command}: {_said(e, lang)}", file=sys.stderr)
        return 1 if isinstance(e, Refused) else EXIT_NOPERM if isinstance(e, NotAllowed) else EXIT_UNAVAILABLE
    if getattr(args, "json", False):
        print(json.dumps({k: v for k, v in answer.items() if k != "ok"}))
        return 0
    if args.command == "release-seat":
        from .ui.i18n import translation

        print(translation(lang).gettext("seat {seat}: its old link opens nothing now; the table's screen shows its new "
                                        "code").format(seat=args.seat))
    _print_status(answer, lang)
    return 0


def _run(args: argparse.Namespace) -> int:
    from .daemon import logs
    from .daemon.run import serve

    logs.setup(args.log_level)  # a rollback at the start is logged as the service's own
    started = _start(args)
    if started is None:
        return EXIT_CONFIG
    config, under_trial = started
    if args.config is None:
        config = _own_table(args, config)
    return serve(config, args.hal, args.touch_port, under_trial)


def _said(error: Exception, lang: str) -> str:
    """An error in ``lang``: a refusal's (or the control socket's) sentence said from its meaning,
    any other error in its own words (the system's, a library's)."""
    from .engine.phrase import meaning
    from .ui.i18n import say

    return say(meaning(error), lang)


def _print_status(answer: dict, lang: str) -> None:
    """``pi-table status`` in the table's language: the game and the devices by their names in it."""
    from .hal.events import DEVICE_NAMES
    from .ui.i18n import GAME_TITLES, say_health, translation

    _ = translation(lang).gettext
    state = answer["state"]
    print(_("pi-table {version}: game {id} ({game}), up {uptime} s").format(
        version=answer.get("version", "?"), id=answer["game_id"], game=_(GAME_TITLES.get(state["game"], state["game"])),
        uptime=answer["uptime_s"]))
    for line in KINDS[kind_of(state["game"])].status(state, lang):
        print(line)
    print(_("health {devices}").format(devices=", ".join(f"{_(DEVICE_NAMES.get(name, name))}: {say_health(health, lang)}"
                                                         for name, health in answer["health"].items())))
    for warning in answer["warnings"]:
        print(f"! {warning}")


def _grid_status(state: dict, lang: str) -> list[str]:
    """A grid game's lines of ``pi-table status``: the turn and the phase (or how it ended), the board."""
    from .ui.i18n import STEPS, TeamWord, translation

    _ = translation(lang).gettext
    left = state["remaining"]  # None while Deep Undercover's codenames are placed: no key yet
    return [_("over: {reason}").format(reason=state["reason"]) if state["phase"] == "over" else
            _("{team} to play, {phase} phase").format(team=TeamWord(state["turn"], lang), phase=_(STEPS[state["phase"]]))
            + ("" if left is None else "; " + _("red {red} left, blue {blue} left").format(**left)),
            _("board {board}").format(board=state["board"])]


def _codex_status(state: dict, lang: str) -> list[str]:
    """Codex's line of ``pi-table status``: the phase and the step, whom it waits for (or how it ended)."""
    from .ui.i18n import STEPS, translation

    _ = translation(lang).gettext
    return [_("over: {reason}").format(reason=state["reason"]) if state["step"] == "over" else
            _("phase {phase}, {step} step; waiting for seats {seats}").format(
                phase=state["phase"], step=_(STEPS[state["step"]]), seats=", ".join(map(str, state["waiting_for"])) or _("none"))]


def _print_history(config, lang: str, as_json: bool) -> int:
    """``pi-table history``: a line a game, its name and how it ended in ``lang``."""
    from .ui.i18n import GAME_TITLES, translation

    games = _history(config, lang)
    if isinstance(games, int):
        return games
    if as_json:
        print(json.dumps(games))
        return 0
    _ = translation(lang).gettext
    titles = [_(GAME_TITLES.get(game.get("game", "?"), game.get("game", "?"))) for game in games]
    width = max(map(len, titles), default=0)
    for game, title in zip(games, titles):
        result = game.get("error") or (game["reason"] if game["over"] else _("unfinished"))
        moves = _("moves: {moves}").format(moves=f"{game.get('moves', 0):<3}")
        print(f"{game['id']}  {title:{width}} {moves}  {game.get('duration_s') or 0:7.0f} s  {result}")
    return 0


def _history(config, lang: str) -> list[dict] | int:
    """The games kept: asked of the running table (the staff cannot read the journal's
    files), else read from the files (as root or the service's user, the table stopped);
    an exit status when neither can be had."""
    from .daemon.control import ControlError, NotAllowed, request
    from .table import history
    from .ui.i18n import translation

    try:
        return request(config.paths.socket, "history", lang=lang)["games"]
    except NotAllowed as e:
        print(f"pi-table history: {_said(e, lang)}", file=sys.stderr)
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


def _set_staff_pin(config) -> int:
    """Keep the staff page's PIN where the service reads it; as root, the file (and any folder
    made for it) goes to the owner of the folder it is made in: the service's user. It speaks
    the table's language."""
    import getpass

    from .engine.errors import Refusal
    from .ui.i18n import say, translation
    from .web.staff import MIN_PIN, set_pin

    _ = translation(config.language).gettext
    if sys.stdin.isatty():
        pin = getpass.getpass(_("staff PIN ({least} characters or more): ").format(least=MIN_PIN))
        if getpass.getpass(_("the same PIN again: ")) != pin:
            print("pi-table set-staff-pin: " + _("the two PINs differ: nothing was changed"), file=sys.stderr)
            return 1
    else:
        pin = sys.stdin.readline().rstrip("\r\n")
    folder = config.paths.journal_dir
    owner = folder
    while not owner.exists() and owner != owner.parent:
        owner = owner.parent
    made = [folder, *folder.parents[: len(folder.parents) - len(owner.parents) - 1]] if owner != folder else []
    try:
        path = set_pin(folder, pin)
        st = owner.stat()
        if os.geteuid() == 0 and st.st_uid != 0:
            for each in [path, *made]:
                os.chown(each, st.st_uid, st.st_gid)
    except Refusal as e:
        print("pi-table set-staff-pin: " + _("{problem}: nothing was changed").format(problem=say(e.phrase, config.language)),
              file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print("pi-table set-staff-pin: " + _("cannot write in {folder} ({error}): run it as root (sudo)").format(
            folder=folder, error=e.strerror or e), file=sys.stderr)
        return EXIT_NOPERM
    print(_("staff PIN set ({path}): log in at the companion's address followed by /staff").format(path=path))
    return 0


def _selftest(args: argparse.Namespace, config) -> int:
    """Run the self-test on the table's devices, which the service must have let go of."""
    import logging

    from .daemon.run import open_devices
    from .daemon.selftest import SelfTest

    if _table_running(args, config, args.lang or config.language):
        return 1
    logging.basicConfig(level="WARNING", format="%(levelname)s %(name)s: %(message)s")
    painter = None
    if args.hal != "sim" and config.screen.enabled:
        try:
            from .ui.selftest import SelfTestPainter

            painter = SelfTestPainter(config.screen.settings)
        except ImportError:
            pass  # no pygame: the screen cannot open either, and the self-test says so
    devices = open_devices(config, args.hal, args.touch_port, painter)
    test = SelfTest(devices, config.buttons, config.lights.edge_pixels, say=lambda line: print(line, flush=True),
                    lang=args.lang or config.language)
    try:
        return 0 if test.run(args.timeout) else 1
    finally:
        devices.leds.close()


def _table_running(args: argparse.Namespace, config, lang: str) -> bool:
    """Whether the service runs and holds the devices, said to the user (in ``lang``) when it does."""
    from .daemon.control import ControlError, request
    from .ui.i18n import translation

    try:
        request(config.paths.socket, "status", timeout=1.0)
    except ControlError:
        return False
    print(f"pi-table {args.command}: " + translation(lang).gettext(
        "the table is running and holds the devices: stop it first (sudo systemctl stop pi-table)"), file=sys.stderr)
    return True


def _tune(args: argparse.Namespace, config) -> int:
    """Tune the pads against the board, which the service must have let go of."""
    from .config import DEFAULT_PATH
    from .daemon.tune import main

    if _table_running(args, config, config.language):
        return 1
    return main(config, args.hal, args.touch_port, args.frames, args.rest, args.period_ms,
                (args.config or DEFAULT_PATH) if args.write else None)


def _key(parser: argparse.ArgumentParser, args: argparse.Namespace, rules: Rules) -> int:
    from .table import random_source

    if args.count < 1:
        parser.error(f"--count is a whole number of at least 1, not {args.count}")
    game = make_game(rules)
    rng = random_source(args.seed)
    for _ in range(args.count):
        key = game.deal(rng, args.start)
        print(json.dumps({"game": rules.game, "key": key.cells, "start": key.start.value}))
    return 0


def _read_script(args: argparse.Namespace, parse_command) -> list[ScriptLine] | None:
    """The script --script names, read whole before anything runs; None without one."""
    return None if args.script is None else _script_lines(args, parse_command)


def _script_lines(args: argparse.Namespace, parse_command) -> list[ScriptLine]:
    """The script --script names, read whole. A script that cannot be read or is malformed
    exits 2, naming the file and line."""
    from .sim.script import ScriptError, parse_script
    from .ui.i18n import translation

    _ = translation(args.lang).gettext
    name = "<stdin>" if str(args.script) == "-" else str(args.script)
    try:
        text = sys.stdin.read() if name == "<stdin>" else args.script.read_text(encoding="utf-8")
        return parse_script(text.splitlines(), name, parse_command)
    except OSError as e:  # the system's own words
        print(f"pi-table {args.command}: " + _("cannot read the script {name}: {error}").format(
            name=name, error=e.strerror or e), file=sys.stderr)
    except ScriptError as e:
        print(f"pi-table {args.command}: " + _("malformed script: {problem}").format(problem=_said(e, args.lang)),
              file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


def _sim(parser: argparse.ArgumentParser, args: argparse.Namespace, rules: AnyRules) -> int:
    """``pi-table sim`` and ``render``: the simulator of the game's kind (``KINDS``)."""
    from .ui.i18n import translation

    _ = translation(args.lang).gettext  # the game's words in the simulator's language; argparse's own stay English
    if args.command != "render" and args.json and args.script is None:
        parser.error(_("--json goes with --script FILE"))
    return KINDS[kind_of(rules.game)].sim(parser, args, rules)


def _grid_sim(parser: argparse.ArgumentParser, args: argparse.Namespace, rules: Rules) -> int:
    """The grid games' simulators: the terminal, the window, a script, or ``render``."""
    from .engine.errors import Refusal
    from .sim.harness import SimTable
    from .sim.script import play, run_script
    from .sim.terminal import Painter, interactive
    from .table import Session, parse_command, random_source
    from .table.input import InputSettings
    from .table.timer import TimerSettings
    from .ui.i18n import say, translation
    from .ui.words import Cards, WordListError, load_words

    _ = translation(args.lang).gettext
    rendering = args.command == "render"
    if not rendering and (args.roles is not None or args.discussion is not None):
        parser.error(_("--roles and --discussion are Codex's options: --game codex"))
    try:
        words = None if args.words is None else load_words(args.words)
    except WordListError as e:
        print(f"pi-table {args.command}: --words: {say(e.phrase, args.lang)}", file=sys.stderr)
        return EXIT_USAGE
    game = make_game(rules)
    try:
        key = game.parse_key(args.key, args.start) if args.key else None
    except InvalidKey as e:
        parser.error(f"--key: {say(e.phrase, args.lang)}")
    script = _read_script(args, parse_command)
    try:
        settings = InputSettings(hold_s=args.hold)
    except Refusal as e:
        parser.error(f"--hold: {say(e.phrase, args.lang)}")
    try:
        timer = TimerSettings(length_s=args.timer, warn_s=args.timer_warn, enforce=args.timer_enforce)
    except Refusal as e:
        parser.error(f"--timer: {say(e.phrase, args.lang)}")
    session = Session(rules, rng=random_source(args.seed), key=key, start=args.start)
    cards = None if words is None else Cards(words, session.rng)  # the session's rng: --seed deals the words too
    if rendering:
        return _render(parser, args, SimTable(session, settings, timer, args.lang, cards), script or [])
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    painter = Painter(color, args.lang)
    if args.window and script is None:
        try:
            from .sim.window import NoDisplay, run_window
            from .ui.screen import ScreenSettings

            run_window(session, settings, timer, args.lang, screen_settings=ScreenSettings(args.rotation), cards=cards,
                       sound=not args.mute)
            return 0
        except ImportError as e:
            reason = painter._("pygame is not installed ({error}); install pi-table[screen]").format(error=e)
        except NoDisplay as e:
            reason = painter._(str(e))
        except ValueError as e:
            parser.error(f"--rotation: {_said(e, args.lang)}")
        print(painter._("pi-table sim: no window ({reason}): the terminal simulator instead").format(reason=reason),
              file=sys.stderr, flush=True)
    if script is None:
        touch = None
        if args.touch_port:
            from .drivers.touchboard import TouchBoardConfig, TouchBoardSource

            port = None if args.touch_port == "auto" else args.touch_port
            touch = TouchBoardSource(TouchBoardConfig(port=port))
        interactive(session, input, _flushed(sys.stdout), painter, touch, settings, timer, cards)
        return 0
    table = SimTable(session, settings, timer, args.lang, cards)
    try:
        if args.json:
            run_script(table, script, sys.stdout.write)
        else:
            for line in script:
                verdict = painter._("ok") if play(table, line).ok else painter._("refused")
                print(f"\n> {line.text}   ({verdict})\n{painter.screen(table.shown, table.screen.words)}")
    finally:
        table.close()
    return 0


def _codex_sim(parser: argparse.ArgumentParser, args: argparse.Namespace, rules: CodexRules) -> int:
    """Codex's scripted simulator: the table's loop and the screen's own painter, on virtual time."""
    from .engine import Codex, InvalidSetup
    from .sim.script import play, run_script
    from .table import Session, random_source
    from .ui.i18n import say, translation

    _ = translation(args.lang).gettext
    if args.words is not None:
        parser.error(_("--words puts words on the grid games' cards; Codex has none"))
    if args.script is None:
        parser.error(_("--game codex plays a script: --script FILE ('-' for standard input)"))
    if args.key:
        parser.error(_("--key deals a grid game; Codex's agents come from --setup TEXT"))
    try:
        from .sim.codex import CodexSimTable, parse_codex_command
    except ImportError as e:
        print("pi-table sim: " + _("Codex's simulator draws the table's screen with pygame ({error}): install "
                                   "pi-table[screen]").format(error=e), file=sys.stderr)
        return EXIT_USAGE
    script = _script_lines(args, parse_codex_command)
    try:
        setup = Codex(rules).parse_setup(args.setup) if args.setup else None
    except InvalidSetup as e:
        parser.error(f"--setup: {_said(e, args.lang)}")
    session = Session(rules, rng=random_source(args.seed), key=setup)
    try:
        table = CodexSimTable(session, DISCUSSION_S if args.discussion is None else args.discussion, args.lang)
    except ValueError as e:
        parser.error(f"--discussion: {_said(e, args.lang)}")
    try:
        if args.json:
            run_script(table, script, sys.stdout.write)
        else:
            print(table.describe())
            for line in script:
                outcome = play(table, line)
                verdict = _("ok") if outcome.ok else _("refused: {reason}").format(reason=say(outcome.reason or "", args.lang))
                print(f"\n> {line.text}   ({verdict})\n{table.describe()}")
    finally:
        table.close()
    return 0


def _render(parser: argparse.ArgumentParser, args: argparse.Namespace, table, script) -> int:
    """Play the script on virtual time, then write what the screen and the grid show."""
    from .sim.script import play
    from .sim.window import render_pngs
    from .ui.screen import ScreenSettings

    try:
        screen_settings = ScreenSettings(args.rotation)
    except ValueError as e:
        parser.error(f"--rotation: {_said(e, args.lang)}")
    try:
        for line in script:
            play(table, line)
        table.wait(1.0)  # let the reveal animation finish, as a photo taken a moment later
        for path in render_pngs(table.shown, table.leds.last, args.out, table.clock(), screen_settings,
                                table.screen.words):
            print(path)
    finally:
        table.close()
    return 0


def _flushed(stream):
    """A write function that flushes, so a person or a pipe sees each screen at once."""

    def write(text: str) -> None:
        stream.write(text)
        stream.flush()

    return write


def _emulate_board(args: argparse.Namespace) -> int:
    try:
        from .sim.emulator import COMMANDS, BoardEmulator, run_commands
    except ModuleNotFoundError as e:  # a table's own install leaves the emulator's driver out
        print(f"pi-table emulate-board: needs {e.name}: pip install 'pi-table[emulator]'", file=sys.stderr)
        return EXIT_UNAVAILABLE

    emulator = BoardEmulator(link=args.link, board_id=args.board_id)
    emulator.start()
    try:
        print(emulator.path, flush=True)
        print(f"commands: {COMMANDS}", file=sys.stderr, flush=True)
        run_commands(emulator, sys.stdin, _flushed(sys.stderr))
    finally:
        emulator.stop()
    return 0


def _bench(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.what == "engine":
        from .bench import engine

        results = engine.run(games=args.games)
    elif args.what == "render":
        from .bench import render

        results = render.run(idle_s=args.idle)
    elif args.what == "daemon":
        from .bench import daemon

        if args.starts < 2:
            parser.error(f"--starts is a whole number of at least 2, not {args.starts}")
        results = daemon.run(starts=args.starts)
    elif args.what == "fleet":
        from .bench import fleet

        if not 1 <= args.tables <= fleet.MAX_TABLES:
            parser.error(f"--tables is a whole number from 1 to {fleet.MAX_TABLES}, not {args.tables}")
        results = fleet.run(tables=args.tables)
    else:
        from .bench import latency

        if args.touches < 2:
            parser.error(f"--touches is a whole number of at least 2, not {args.touches}")
        if args.phones is None:
            results = latency.run(touches=args.touches)
        elif not 1 <= args.phones <= latency.MAX_PHONES:
            parser.error(f"--phones is a whole number from 1 to {latency.MAX_PHONES}, not {args.phones}")
        else:
            results = latency.compare(touches=args.touches, phones=args.phones)
    if args.json:
        print(json.dumps(results))
        return 0
    plain = {name: value for name, value in results.items() if not isinstance(value, dict)}
    if plain:
        print("  ".join(f"{name}={value}" for name, value in plain.items()))
    for name, figures in results.items():
        if isinstance(figures, dict):
            print(f"{name:16} " + "  ".join(f"{k}={v}" for k, v in figures.items()))
    return 0


@dataclass(frozen=True, slots=True)
class Commands:
    """What the command line does for a kind of game (``pi_table.engine.games``): ``sim`` runs
    its simulator (``pi-table sim``, and ``render`` where it draws); ``status`` gives its game's
    lines of ``pi-table status``; ``keys``: its games deal keys (``pi-table key`` and ``render``)."""

    sim: Callable[[argparse.ArgumentParser, argparse.Namespace, AnyRules], int]
    status: Callable[[dict, str], list[str]]
    keys: bool


KINDS: dict[str, Commands] = {
    "grid": Commands(_grid_sim, _grid_status, keys=True),  # type: ignore[arg-type]  # each is given its kind's rules
    "codex": Commands(_codex_sim, _codex_status, keys=False),  # type: ignore[arg-type]
}
"""Each kind of game's commands; tests/test_games.py checks every kind is here."""


if __name__ == "__main__":
    sys.exit(main())
