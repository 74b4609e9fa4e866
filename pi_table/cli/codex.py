"""What the command line does for Codex (``games.KINDS``): its simulators (the window, the
terminal, a script) and its line of ``pi-table status``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..engine.codex_rules import DISCUSSION_LENGTH, DISCUSSION_S
from ..engine.phrase import N_
from .output import EXIT_USAGE, flushed, said
from .script import script_lines

if TYPE_CHECKING:  # Codex is imported only when it is played
    from ..engine.codex_rules import CodexRules
    from ..sim.codex import CodexSimTable
    from ..sim.script import ScriptLine
    from ..table import Session


def roles(text: str) -> list[str]:
    """--roles: the roles' names, separated by commas (CodexRules checks each)."""
    return text.lower().split(",")


OPTIONS = (
    ("--roles", {"type": roles,
                 "help": "Codex: the three roles in play, the Leader among them (default: dealt)"}),
    ("--discussion", {"type": float, "metavar": "SECONDS",
                      "help": f"Codex: the discussion's length, 0 for no timer (default: {DISCUSSION_S:g})"}),
)
"""``pi-table sim``'s options that are Codex's alone (``games.Commands.options``)."""
SETUP_HELP = "Codex: the six identikits, one codename:faction:role:position:fragment per seat"
"""What ``--setup TEXT`` deals for Codex (``games.Commands.setup``)."""
WINDOW_KEYS = N_("mouse: tap the screen (PASS AND PLAY, then each agent's turn)   E: END TURN   N: NEW GAME   Q: quit")
"""The window's help bar: Codex is played on its screen alone."""


def sim(parser: argparse.ArgumentParser, args: argparse.Namespace, rules: CodexRules) -> int:
    """Codex's simulators: a script on virtual time, drawn by the screen's own painter; else the
    window where there is a display (``--window``), or the terminal, both by pass-and-play."""
    from ..engine.codex import Codex
    from ..engine.codex_rules import InvalidSetup
    from ..table import Session, random_source
    from ..table.timer import TimerSettings
    from ..ui.i18n import translation

    _ = translation(args.lang).gettext
    if args.words is not None:
        parser.error(_("--words puts words on the grid games' cards; Codex has none"))
    if args.key:
        parser.error(_("--key deals a grid game; Codex's agents come from --setup TEXT"))
    if args.script is not None:
        try:
            from ..sim.codex import CodexSimTable
            from ..sim.codex_commands import parse_codex_command
        except ImportError as e:
            print("pi-table sim: " + _("Codex's simulator draws the table's screen with pygame ({error}): install "
                                       "pi-table[screen]").format(error=e), file=sys.stderr)
            return EXIT_USAGE
        script = script_lines(args, parse_codex_command)
    try:
        setup = Codex(rules).parse_setup(args.setup) if args.setup else None
    except InvalidSetup as e:
        parser.error(f"--setup: {said(e, args.lang)}")
    discussion = DISCUSSION_S if args.discussion is None else args.discussion
    try:
        TimerSettings(length_s=discussion, warn_s=0)  # the length the discussion's timer takes
    except ValueError as e:
        parser.error(f"--discussion: {said(e, args.lang)}")
    session = Session(rules, rng=random_source(args.seed), key=setup)
    if args.script is None:
        return _play(parser, args, session, discussion)
    table = CodexSimTable(session, discussion, args.lang)
    try:
        _script(args, table, script)
    finally:
        table.close()
    return 0


def _script(args: argparse.Namespace, table: CodexSimTable, script: list[ScriptLine]) -> None:
    from ..sim.script import play, run_script
    from ..ui.i18n import say, translation

    if args.json:
        run_script(table, script, sys.stdout.write)
        return
    _ = translation(args.lang).gettext
    print(table.describe())
    for line in script:
        outcome = play(table, line)
        verdict = _("ok") if outcome.ok else _("refused: {reason}").format(reason=say(outcome.reason or "", args.lang))
        print(f"\n> {line.text}   ({verdict})\n{table.describe()}")


def _play(parser: argparse.ArgumentParser, args: argparse.Namespace, session: Session, discussion: float) -> int:
    """A group at one screen, by pass-and-play: the window where it can open, else the terminal."""
    from ..sim.terminal import interactive
    from ..sim.terminals import terminal
    from ..table.input import InputSettings
    from .window import in_a_window, painter_of

    painter = painter_of(args)
    if args.window and in_a_window(parser, args, painter, lambda run_window, screen: run_window(
            session, InputSettings(hold_s=args.hold), None, args.lang, screen, sound=not args.mute,
            options={DISCUSSION_LENGTH.name: discussion}, keys_help=WINDOW_KEYS)):
        return 0
    interactive(session, input, flushed(sys.stdout), painter, terminal, options={DISCUSSION_LENGTH.name: discussion})
    return 0


def status(state: dict[str, Any], lang: str) -> list[str]:
    """Codex's line of ``pi-table status``: the phase and the step, whom it waits for (or how it ended)."""
    from ..ui.codex_turns import standing
    from ..ui.i18n import translation

    if state["step"] == "over":
        return [translation(lang).gettext("over: {reason}").format(reason=state["reason"])]
    return [standing(state["phase"], state["step"], state["waiting_for"], lang)]
