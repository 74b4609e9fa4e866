"""What the command line does for the grid games (``games.KINDS``): their simulators, ``render``,
and their lines of ``pi-table status``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..engine import InvalidKey, Rules, make_game
from ..kinds import AUTO
from .output import EXIT_USAGE, flushed, said
from .script import read_script

if TYPE_CHECKING:  # the simulator is imported only by the commands that use it
    from ..sim.harness import SimTable
    from ..sim.script import ScriptLine


def sim(parser: argparse.ArgumentParser, args: argparse.Namespace, rules: Rules) -> int:
    """The grid games' simulators: the terminal, the window, a script, or ``render``."""
    from ..engine.errors import Refusal
    from ..sim.harness import SimTable
    from ..sim.script import play, run_script
    from ..sim.terminal import interactive
    from ..sim.terminals import terminal
    from ..table import Session, parse_command, random_source
    from ..table.input import InputSettings
    from ..table.timer import TimerSettings
    from ..ui.i18n import say
    from ..ui.words import Cards, WordListError, load_words
    from .window import in_a_window, painter_of

    rendering = args.command == "render"
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
    script = read_script(args, parse_command)
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
    painter = painter_of(args)
    if args.window and script is None and in_a_window(parser, args, painter, lambda run_window, screen: run_window(
            session, settings, timer, args.lang, screen_settings=screen, cards=cards, sound=not args.mute)):
        return 0
    if script is None:
        touch = None
        if args.touch_port:
            from dataclasses import replace

            from ..config import build, defaults
            from ..drivers.touchboard import TouchBoardSource

            port = None if args.touch_port == AUTO else args.touch_port
            # the reference build's wiring, as emulate-board's and a table's default configuration's
            touch = TouchBoardSource(replace(build(defaults(), None).touch, port=port))
        interactive(session, input, flushed(sys.stdout), painter, terminal, touch, settings, timer, cards)
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


def _render(parser: argparse.ArgumentParser, args: argparse.Namespace, table: SimTable, script: list[ScriptLine]) -> int:
    """Play the script on virtual time, then write what the screen and the grid show."""
    from ..sim.script import play
    from ..sim.window import render_pngs
    from ..ui.mounting import ScreenSettings

    try:
        screen_settings = ScreenSettings(args.rotation)
    except ValueError as e:
        parser.error(f"--rotation: {said(e, args.lang)}")
    try:
        for line in script:
            play(table, line)
        table.wait(1.0)  # let the reveal animation finish, as a photo taken a moment later
        frame = table.leds.last
        assert frame is not None  # the loop lights the grid as it opens
        for path in render_pngs(table.shown, frame, args.out, table.clock(), screen_settings, table.screen.words):
            print(path)
    finally:
        table.close()
    return 0


def status(state: dict[str, Any], lang: str) -> list[str]:
    """A grid game's lines of ``pi-table status``: the turn and the phase (or how it ended), the board."""
    from ..engine.games import described
    from ..ui.i18n import TeamWord, translation

    _ = translation(lang).gettext
    left = state["remaining"]  # None while Deep Undercover's codenames are placed: no key yet
    phases = described(state["game"]).phases
    return [_("over: {reason}").format(reason=state["reason"]) if state["phase"] == "over" else
            _("{team} to play, {phase} phase").format(team=TeamWord(state["turn"], lang), phase=_(phases[state["phase"]]))
            + ("" if left is None else "; " + _("red {red} left, blue {blue} left").format(**left)),
            _("board {board}").format(board=state["board"])]
