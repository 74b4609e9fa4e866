"""The terminal simulator: the table and the key side by side, and a prompt for commands.

It needs no display. Colours are ANSI escapes, on when the output is a terminal and
``NO_COLOR`` is not set (https://no-color.org), or as ``--color`` says. It speaks the table's
language (``--lang``): every line, prompt and question is a catalogue msgid; the command words
themselves (``touch 7``) stay as a script file takes them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..engine import COVER, GRID, OVER, UNLIMITED, EndTurn, Game, Guess, InvalidAction, TableView, Team
from ..engine.keys import ASSASSIN, BLUE_AGENT, BYSTANDER, NO_CARD, RED_AGENT
from ..engine.phrase import N_
from ..hal import AnyModel, MultiTouch, NewGame, ScreenModel, SimButtons, SimLedStrip, SimTouch, TouchSource
from ..table import Session, TableLoop, parse_command
from ..table.input import InputSettings, TouchPolicy
from ..table.timer import TimerSettings, TurnTimer
from ..ui.i18n import GAME_TITLES, TeamWord, say, translation
from ..ui.words import Cards
from .harness import WordScreen

RESET = "\x1b[0m"
BACKGROUND = {RED_AGENT: "\x1b[1;97;41m", BLUE_AGENT: "\x1b[1;97;44m", BYSTANDER: "\x1b[30;43m", ASSASSIN: "\x1b[1;97;40m"}
FOREGROUND = {RED_AGENT: "\x1b[1;91m", BLUE_AGENT: "\x1b[1;94m", BYSTANDER: "\x1b[33m", ASSASSIN: "\x1b[1;95m"}
TEAM = {Team.RED: "\x1b[1;91m", Team.BLUE: "\x1b[1;94m"}
DIM, BOLD, WARN = "\x1b[2m", "\x1b[1m", "\x1b[1;33m"
NAMES = {
    "codenames": {RED_AGENT: N_("red agent"), BLUE_AGENT: N_("blue agent"), BYSTANDER: N_("bystander"),
                  ASSASSIN: N_("assassin")},
    "alias24": {RED_AGENT: N_("red asset"), BLUE_AGENT: N_("blue asset"), BYSTANDER: N_("grey decoy"),
                ASSASSIN: N_("the nuke")},
}
GAME_WORDS = {"card": N_("card"), "alias": N_("alias"), "spymaster": N_("spymaster"), "mastermind": N_("mastermind")}
YES = ("y", "yes", "s", "si", "sì")  # the [y/N] question takes a yes in either language

COMMANDS = (  # (the command, what it does, which games have it)
    ("clue N", N_("the {spymaster} enters the clue number: 0-9, 'unlimited' or 'infinity'"), lambda game: True),
    ("touch N", N_("an operative touches {noun} N (0-24, row-major from the operatives' left, row 0)"),
     lambda game: True),
    ("end-turn", N_("the END TURN button"), lambda game: True),
    ("penalty", N_("the current clue was ruled invalid: the turn ends at once"), lambda game: game.has_penalty),
    ("cover N", N_("a {spymaster} covers {noun} N (after a penalty; the opponent's move in coop)"),
     lambda game: game.has_penalty or game.cover_is_required),
    ("place N", N_("Deep Undercover setup: the next codename is on cell N"), lambda game: game.rules.setup == "place"),
    ("undo", N_("take back the last action (also a new game, until its first action)"), lambda game: True),
    ("new-game [G]", N_("deal a new key (G: codenames, codenames-coop, alias24)"), lambda game: True),
)


def help_text(game: Game, lang: str = "en") -> str:
    """The commands this game has, as a script file takes them."""
    _ = translation(lang).gettext
    words = {"spymaster": _(GAME_WORDS[game.spymaster_word]), "noun": _(GAME_WORDS[game.noun])}
    lines = [f"  {command:<15} {_(what).format(**words)}" for command, what, has in COMMANDS if has(game)]
    return "\n".join([_("Commands (the same as in a script file):"), *lines,
                      f"  {'help':<15} {_('this text')}",
                      f"  {'quit':<15} {_('leave the simulator')}",
                      _("Entering a clue number is optional: a touch without one starts an unlimited turn.")])


class Painter:
    """Turns a screen model into text, with or without colour."""

    def __init__(self, color: bool, lang: str = "en") -> None:
        self.color = color
        self.lang = lang
        self._ = translation(lang).gettext
        self.ngettext = translation(lang).ngettext

    def paint(self, text: str, style: str) -> str:
        return f"{style}{text}{RESET}" if self.color and style else text

    def team(self, team: Team | None) -> str:
        return self._("nobody") if team is None else self.paint(str(TeamWord(team.value, self.lang)).upper(), TEAM[team])

    def screen(self, model: ScreenModel, words: tuple[str, ...] | None = None) -> str:
        _ = self._
        view = model.view.table
        key = view.board if model.view.key is None else model.view.key.cells  # no key while placing
        names = NAMES["alias24" if view.game == "alias24" else "codenames"]
        lines = [self.headline(view), self.counts(view), ""]
        lines.append(f"  {_('TABLE (operatives)'):<20}    {_('KEY (spymasters only)')}")
        for row in range(GRID):
            cells = range(row * GRID, (row + 1) * GRID)
            table = "".join(self.table_cell(cell, view.board[cell]) for cell in cells)
            secret = "".join(self.key_cell(key[cell], view.board[cell]) for cell in cells)
            lines.append(f"  {table}    {secret}")
        if words is not None:
            lines += ["", "  " + _("WORDS (operatives)"), *self.words(view.board, words)]
        legend = "  ".join(self.paint(f"{letter}={_(name)}", FOREGROUND[letter]) for letter, name in names.items())
        lines += ["", f"  {legend}   [x]={_('shown')}"]
        if model.message:
            lines.append(self.paint("  " + _("refused: {reason}").format(reason=say(model.message, self.lang)), WARN))
        for warning in model.warnings:
            lines.append(self.paint(f"  ! {say(warning, self.lang)}", WARN))
        return "\n".join(lines)

    def table_cell(self, cell: int, shown: str) -> str:
        if shown == NO_CARD:
            return "    "
        if shown == "?":
            return self.paint(f" {cell:02d} ", DIM)
        return self.paint(f" {shown}{shown} ", BACKGROUND[shown]) if self.color else f"[{shown}{shown}]"

    def words(self, board: str, words: tuple[str, ...]) -> list[str]:
        """The cards' words, a line per row of the grid, each after its cell's number (or, once
        shown, what it was): a list under the grid keeps the grid itself 4 columns a cell, and
        the lines within 80 columns for words of up to 10 letters."""
        widths = [max((len(words[cell]) for cell in range(column, len(words), GRID) if board[cell] != NO_CARD), default=0)
                  for column in range(GRID)]
        lines = []
        for row in range(GRID):
            cells = []
            for column, width in enumerate(widths):
                cell = row * GRID + column
                shown = board[cell]
                if shown == NO_CARD:
                    cells.append(" " * (width + 3))
                    continue
                tag = self.paint(f"{cell:02d}", DIM) if shown == "?" else self.paint(shown * 2, BACKGROUND[shown])
                cells.append(f"{tag} {words[cell]:<{width}}")
            lines.append(("  " + "  ".join(cells)).rstrip())
        return lines

    def key_cell(self, identity: str, shown: str) -> str:
        if identity == NO_CARD:
            return "    "
        if identity == "?":  # Deep Undercover: the key is drawn when the last codename is down
            return self.paint(" ?  ", DIM)
        if shown != "?":
            return self.paint(f"[{identity}] ", BACKGROUND[identity]) if self.color else f"[{identity}] "
        return self.paint(f" {identity}  ", FOREGROUND[identity])

    def headline(self, view: TableView) -> str:
        _ = self._
        title = self.paint(_(GAME_TITLES[view.game]), BOLD)
        side = self.team(view.turn)
        mastermind = _("mastermind") if view.game == "alias24" else _("spymaster")
        guessers = _("the operative") if view.rules.three_player else _("{side} operatives").format(side=side)
        if view.phase == "place":
            what = _("setup: {side} places the next codename on cell {cell}").format(side=side, cell=view.placing)
        elif view.phase == "clue":
            what = _("{side} {mastermind}: say a clue and enter its number, or {guessers} touch a card").format(
                side=side, mastermind=mastermind, guessers=guessers)
        elif view.phase == "guess":
            left = view.guesses_left
            limit = _("no limit") if left is None else self.ngettext(
                "{count} guess left", "{count} guesses left", left).format(count=left)
            clue = _("no number") if view.clue is None else _("unlimited") if view.clue == UNLIMITED else view.clue
            what = _("{guessers} guess (clue: {clue}, {limit}, {made} made)").format(
                guessers=guessers, clue=clue, limit=limit, made=view.guesses)
        elif view.phase == "cover" and view.game == "codenames-coop":
            what = _("spymaster: cover one {side} agent for the simulated opponent (cover N)").format(side=side)
        elif view.phase == "cover":
            what = _("{side} {mastermind} may cover one of its agents (cover N), then gives a clue").format(
                side=side, mastermind=mastermind)
        else:
            winner = _("both teams lose") if view.winner is None else _("{side} wins").format(side=self.team(view.winner))
            reason = "" if view.reason is None else say(view.reason, self.lang)
            what = _("game over: {winner} ({reason})").format(winner=winner, reason=reason)
            if view.score is not None:
                what += "; " + _("score {score}: {rating}").format(score=view.score, rating=view.rating(self.lang))
        return f"{title} · {what}"

    def counts(self, view: TableView) -> str:
        _ = self._
        if view.totals is None:
            return "  " + _("the key is drawn when the last codename is down")
        if view.game == "alias24":  # each team eliminates the other's assets
            parts = [self.ngettext("{side} eliminates {other}'s assets: {count} left",
                                   "{side} eliminates {other}'s assets: {count} left", view.remaining(team.other)).format(
                side=self.team(team), other=self.team(team.other), count=view.remaining(team.other)) for team in Team]
        else:
            parts = [self.ngettext("{side} {count} agent left", "{side} {count} agents left", view.remaining(team)).format(
                side=self.team(team), count=view.remaining(team)) for team in Team]
        parts.append(_("{side} started").format(side=self.team(view.start)))
        if view.armed is not None:
            parts.append(self.paint(_("NUKE ARMED"), WARN) if view.armed else
                         self.ngettext("nuke armed at 13 ({count} targeted)", "nuke armed at 13 ({count} targeted)",
                                       view.targeted).format(count=view.targeted))
        return "  " + " · ".join(parts)


    def turn_passed(self, before: TableView, after: TableView) -> str | None:
        """Why the turn passed, when a touched card did it: the screen shows only whose turn it is
        now. A card a spymaster covered is no touch, and its cover says itself."""
        if (after.turn is None or before.turn is None or after.turn == before.turn or after.phase == OVER
                or before.phase == COVER):
            return None
        shown = [cell for cell, (old, new) in enumerate(zip(before.board, after.board)) if old == "?" and new != "?"]
        if len(shown) != 1:
            return None  # END TURN, a penalty, the timer: the buttons say so themselves
        cell, identity = shown[0], after.board[shown[0]]
        wanted = (before.turn.other if after.game == "alias24" else before.turn).letter
        _ = self._
        if identity == wanted:
            why = _("touch {cell} used the clue's number and one more").format(cell=cell)
        else:
            why = _(WAS[after.game == "alias24"][identity]).format(cell=cell)
        return _("{why}: the turn passes to {side}").format(why=why, side=self.team(after.turn))


WAS = {
    False: {RED_AGENT: N_("touch {cell} was a red agent"), BLUE_AGENT: N_("touch {cell} was a blue agent"),
            BYSTANDER: N_("touch {cell} was a bystander"), ASSASSIN: N_("touch {cell} was the assassin")},
    True: {RED_AGENT: N_("touch {cell} was a red asset"), BLUE_AGENT: N_("touch {cell} was a blue asset"),
           BYSTANDER: N_("touch {cell} was a grey decoy"), ASSASSIN: N_("touch {cell} was the nuke")},
}
"""What a touched card was, when it passed the turn (grid games; Alias 24 is True)."""


class TerminalScreen(WordScreen):
    """The spymaster screen as text: prints the table whenever what it shows changes (a
    touch being held changes nothing printed), with a line when a card passed the turn."""

    def __init__(self, painter: Painter, write: Callable[[str], object], cards: Cards | None = None) -> None:
        super().__init__(cards, keep=1)
        self.painter = painter
        self.write = write
        self.printed = ""

    def show(self, model: AnyModel) -> None:
        if not isinstance(model, ScreenModel):
            raise TypeError(f"the terminal draws the grid games' screen, not a {type(model).__name__}")
        before = self.last
        text = self.painter.screen(model, self.deal(model))
        if text != self.printed:
            self.printed = text
            if isinstance(before, ScreenModel) and before.game_id == model.game_id:
                why = self.painter.turn_passed(before.view.table, model.view.table)
                if why is not None:
                    text += "\n" + self.painter.paint(f"  {why}", WARN)
            self.write("\n" + text + "\n")
        super().show(model)


def interactive(
    session: Session,
    read: Callable[[str], str],
    write: Callable[[str], object],
    painter: Painter,
    touch: TouchSource | None = None,
    settings: InputSettings | None = None,
    timer: TimerSettings | None = None,
    cards: Cards | None = None,
) -> None:
    """The table in real time with a prompt (``cards``: words on the cards). The loop owns the game in this thread; a reader
    thread plays typed commands through the simulated devices, exactly as scripts do, while a
    real touch board (``touch``) may deliver guesses at the same time."""
    settings = settings or InputSettings()
    grid = SimTouch()
    screen, buttons = TerminalScreen(painter, write, cards), SimButtons()
    sources = MultiTouch(grid, touch) if touch is not None else grid
    loop = TableLoop(
        session, sources, SimLedStrip(keep=1), screen, buttons, TouchPolicy(settings), timer=TurnTimer(timer),
        lang=painter.lang,
    )
    loop.open()
    write(painter._("Type 'help' for the commands.") + "\n")
    reader = threading.Thread(target=_prompt, args=(loop, grid, buttons, screen, settings, read, write), daemon=True)
    reader.start()
    try:
        loop.run()
    finally:
        loop.close()


def _prompt(loop, grid, buttons, screen, settings, read, write) -> None:
    _ = screen.painter._
    try:
        while True:
            try:
                line = read("> ").split("#", 1)[0].strip()
            except (EOFError, KeyboardInterrupt):
                write("\n")
                return
            if not line:
                continue
            word = line.split()[0].lower()
            if word in ("quit", "exit", "q"):
                return
            if word in ("help", "?", "h"):
                write(help_text(loop.call(lambda: loop.session.grid.game), screen.painter.lang) + "\n")
                continue
            try:
                command = parse_command(line)
            except InvalidAction as e:
                said = _("not a command: {reason}").format(reason=say(e.phrase, screen.painter.lang))
                write(screen.painter.paint(said, WARN) + "\n")
                continue
            if isinstance(command, NewGame) and not loop.call(lambda: loop.session.state.is_over):
                write(_("a game is in progress: deal a new one over it? (undo brings it back) [y/N] "))
                try:
                    answer = read("")
                except (EOFError, KeyboardInterrupt):
                    answer = ""
                if answer.strip().lower() not in YES:
                    write(_("the game goes on") + "\n")
                    continue
            if isinstance(command, Guess):  # held from the moment the loop saw it, however busy the machine
                grid.press(command.cell)
                loop.call(lambda: None)
                time.sleep(settings.hold_s + 0.05)
                grid.release(command.cell)
            elif isinstance(command, EndTurn):
                buttons.push("end_turn")
            else:
                screen.tap(command)
            loop.call(lambda: None)  # the command shown before the next prompt: the loop takes events in order
    finally:
        loop.stop_soon()
