"""The installation day's commands, on the table's devices with the service stopped: ``selftest``
and ``tune``; and ``emulate-board``, a touch board in software for a table without one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.views import LANGUAGES
from .options import device_options
from .output import EXIT_UNAVAILABLE, flushed
from .tables import configured, load

if TYPE_CHECKING:
    from ..config import Config


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    selftest = commands.add_parser("selftest", help="installation day: LED walk, every pad, the buttons, the screen")
    device_options(selftest, "simulated devices (nothing to touch)")
    selftest.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for every check (default: 300)")
    selftest.add_argument("--lang", choices=LANGUAGES, help="the language it speaks (default: [game] language)")
    selftest.set_defaults(func=_selftest)

    tune = commands.add_parser("tune", help="each pad's numbers live, and thresholds from your touches (--write keeps them)")
    device_options(tune, "no screen (give --touch-port)")
    tune.add_argument("--rest", type=float, default=3.0, help="seconds of hands off at the start, for the noise (default: 3)")
    tune.add_argument("--frames", type=int, default=0, help="stop after this many rounds of readings (default: at Ctrl-C)")
    tune.add_argument("--period-ms", type=int, default=50, help="milliseconds between rounds, 20 or more (default: 50)")
    tune.add_argument("--write", action="store_true", help="put the suggested thresholds in the configuration file")
    tune.set_defaults(func=_tune)

    board = commands.add_parser("emulate-board", help="a touch board in software, on a pty (prints its path)")
    board.add_argument("--config", type=Path,
                       help="the table's configuration, for where its pads are wired (default: the reference build's)")
    board.add_argument("--link", type=Path, help="the stable path to the board's pty (default: a temporary one)")
    board.add_argument("--board-id", default="emulator", help="the board id it says hello with")
    board.add_argument("--lang", choices=LANGUAGES,
                       help="the language of its commands and refusals (default: [game] language of --config, else en)")
    board.set_defaults(func=_emulate_board)


def _table_running(args: argparse.Namespace, config: Config, lang: str) -> bool:
    """Whether the service runs and holds the devices, said to the user (in ``lang``) when it does."""
    from ..daemon.control import ControlError, request
    from ..ui.i18n import translation

    try:
        request(config.paths.socket, "status", timeout=1.0)
    except ControlError:
        return False
    print(f"pi-table {args.command}: " + translation(lang).gettext(
        "the table is running and holds the devices: stop it first (sudo systemctl stop pi-table)"), file=sys.stderr)
    return True


def _selftest(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Run the self-test on the table's devices, which the service must have let go of."""
    import logging

    from ..daemon.devices import open_devices
    from ..daemon.selftest import SelfTest

    config = configured(args)
    if _table_running(args, config, args.lang or config.language):
        return 1
    logging.basicConfig(level="WARNING", format="%(levelname)s %(name)s: %(message)s")
    painter = None
    if args.hal != "sim" and config.screen.enabled:
        try:
            from ..ui.selftest import SelfTestPainter

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


def _tune(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Tune the pads against the board, which the service must have let go of."""
    from ..config import DEFAULT_PATH
    from ..daemon.tune import main

    config = configured(args)
    if _table_running(args, config, config.language):
        return 1
    return main(config, args.hal, args.touch_port, args.frames, args.rest, args.period_ms,
                (args.config or DEFAULT_PATH) if args.write else None)


def _emulate_board(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """The board, its pads named as on the table the configuration describes (the cards by number),
    speaking the table's language as the table's other commands do."""
    from ..config import build, defaults
    from ..ui.i18n import translation

    config = load(args, args.config) if args.config else build(defaults(), None)
    lang = args.lang or (config.language if args.config else "en")
    _ = translation(lang).gettext
    try:
        from ..sim.emulator import COMMANDS, BoardEmulator, run_commands
    except ModuleNotFoundError as e:  # a table's own install leaves the emulator's driver out
        checkout = Path(__file__).resolve().parents[2]
        if Path(sys.prefix).resolve() == (checkout / ".venv").resolve() and (checkout / "dev").is_file():
            how = _("./dev play installs it into .venv (once, from {checkout})").format(checkout=checkout)
        else:
            how = _("the emulator's extra: {command}").format(
                command=f"{sys.executable} -m pip install 'pi-table[emulator]'")
        print("pi-table emulate-board: " + _("needs {module}; {how}").format(module=e.name, how=how), file=sys.stderr)
        return EXIT_UNAVAILABLE

    emulator = BoardEmulator(link=args.link, board_id=args.board_id)
    emulator.start()
    try:
        print(emulator.path, flush=True)
        print(_("commands: {commands}").format(commands=_(COMMANDS)), file=sys.stderr, flush=True)
        run_commands(emulator, sys.stdin, flushed(sys.stderr), config.touch, lang)
    except KeyboardInterrupt:  # Ctrl+C, as docs/cafe/try.md ends it: the board unplugged, as by quit
        pass
    finally:
        emulator.stop()
    return 0
