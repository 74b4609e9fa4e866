"""What the command line does for Codex (``games.KINDS``): its scripted simulator and its line
of ``pi-table status``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..table.timer import DISCUSSION_S
from .output import EXIT_USAGE, said
from .script import script_lines

if TYPE_CHECKING:  # Codex is imported only when it is played
    from ..engine import CodexRules


def sim(parser: argparse.ArgumentParser, args: argparse.Namespace, rules: CodexRules) -> int:
    """Codex's scripted simulator: the table's loop and the screen's own painter, on virtual time."""
    from ..engine import Codex, InvalidSetup
    from ..sim.script import play, run_script
    from ..table import Session, random_source
    from ..ui.i18n import say, translation

    _ = translation(args.lang).gettext
    if args.words is not None:
        parser.error(_("--words puts words on the grid games' cards; Codex has none"))
    if args.script is None:
        parser.error(_("--game codex plays a script: --script FILE ('-' for standard input)"))
    if args.key:
        parser.error(_("--key deals a grid game; Codex's agents come from --setup TEXT"))
    try:
        from ..sim.codex import CodexSimTable, parse_codex_command
    except ImportError as e:
        print("pi-table sim: " + _("Codex's simulator draws the table's screen with pygame ({error}): install "
                                   "pi-table[screen]").format(error=e), file=sys.stderr)
        return EXIT_USAGE
    script = script_lines(args, parse_codex_command)
    try:
        setup = Codex(rules).parse_setup(args.setup) if args.setup else None
    except InvalidSetup as e:
        parser.error(f"--setup: {said(e, args.lang)}")
    session = Session(rules, rng=random_source(args.seed), key=setup)
    try:
        table = CodexSimTable(session, DISCUSSION_S if args.discussion is None else args.discussion, args.lang)
    except ValueError as e:
        parser.error(f"--discussion: {said(e, args.lang)}")
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


def status(state: dict, lang: str) -> list[str]:
    """Codex's line of ``pi-table status``: the phase and the step, whom it waits for (or how it ended)."""
    from ..ui.i18n import STEPS, translation

    _ = translation(lang).gettext
    return [_("over: {reason}").format(reason=state["reason"]) if state["step"] == "over" else
            _("phase {phase}, {step} step; waiting for seats {seats}").format(
                phase=state["phase"], step=_(STEPS[state["step"]]), seats=", ".join(map(str, state["waiting_for"])) or _("none"))]
