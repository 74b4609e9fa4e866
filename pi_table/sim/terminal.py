"""The terminal simulator: the table and the key side by side, and a prompt for commands.

It needs no display. Colours are ANSI escapes, on when the output is a terminal and
``NO_COLOR`` is not set (https://no-color.org), or as ``--color`` says. It speaks the table's
language (``--lang``): every line, prompt and question is a catalogue msgid, and no line is
wider than 80 columns; the command words (``touch 7``) are those a script file takes, and in
Italian the terminal takes them in Italian too (``annulla``: ``SPOKEN``). The prompt has line
editing and history where Python has readline.

It plays every kind of game, each by its kind's terminal (the command line's registry,
``cli.games``, names them): the grid games' is here. ``new-game G`` deals a game of another kind
too: one loop ends, and that kind's terminal takes the session on.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..engine import (
    CELLS,
    COVER,
    GRID,
    OVER,
    UNLIMITED,
    EndTurn,
    Game,
    Guess,
    InvalidAction,
    Place,
    TableView,
    Team,
    Undo,
)
from ..engine.described import MASTERMINDS, SPYMASTERS, Nouns
from ..engine.games import described, grid_game, kind_of, names, title_of
from ..engine.keys import ASSASSIN, BLUE_AGENT, BYSTANDER, NO_CARD, RED_AGENT
from ..engine.phrase import N_
from ..engine.rules import SETUP
from ..hal import AnyModel, Command, MultiTouch, NewGame, ScreenModel, SimButtons, SimLedStrip, SimTouch, TouchSource
from ..table import Session, TableLoop, parse_command
from ..table.commands import COMMAND_WORDS, SPOKEN, as_spoken, as_written, in_words_spoken, spoken
from ..table.input import InputSettings, TouchPolicy
from ..table.loop import EventLoop
from ..table.timer import TimerSettings, TurnTimer
from ..ui.i18n import TeamWord, say, translation
from ..ui.orientation import OPERATIVES_SIDE, reading_order
from ..ui.words import Cards
from .harness import WordScreen

RESET = "\x1b[0m"
BACKGROUND = {RED_AGENT: "\x1b[1;97;41m", BLUE_AGENT: "\x1b[1;97;44m", BYSTANDER: "\x1b[30;43m", ASSASSIN: "\x1b[1;97;40m"}
FOREGROUND = {RED_AGENT: "\x1b[1;91m", BLUE_AGENT: "\x1b[1;94m", BYSTANDER: "\x1b[33m", ASSASSIN: "\x1b[1;95m"}
TEAM = {Team.RED: "\x1b[1;91m", Team.BLUE: "\x1b[1;94m"}
DIM, BOLD, WARN = "\x1b[2m", "\x1b[1m", "\x1b[1;33m"
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
WIDTH = 80
"""The widest line the terminal prints: a terminal's width unless its user changed it."""
ROWS = tuple(reading_order()[start:start + GRID] for start in range(0, CELLS, GRID))
"""The grid's rows as every picture of it lays them out (pi_table/ui/orientation.py): the
operatives' edge at the top, cell 0 at the top right."""
KEY_HEADINGS = {SPYMASTERS: N_("KEY (spymasters only)"), MASTERMINDS: N_("KEY (masterminds only)")}
"""The key's heading in each game's nouns: Alias 24's spymaster is its Mastermind."""
YES = ("y", "yes", "s", "si", "sì")  # the [y/N] question takes a yes in either language
QUIT = ("quit", "exit", "q")
HELP = ("help", "?", "h")
T = TypeVar("T")
C = TypeVar("C")
"""The commands a kind's terminal reads: the grid games' ``Command``, another kind's words of its own too."""

COMMANDS: tuple[tuple[str, str, Callable[[Game], bool]], ...] = (  # (the command, what it does, which games have it)
    ("clue N", N_("the {spymaster} enters the clue number: 0-9, 'unlimited' or 'infinity'"),
     lambda game: not game.description.table_clues),
    ("told WORD N", N_("the table's clue, a word and its number, which the table gives itself as each turn begins"),
     lambda game: game.description.table_clues),
    ("touch N", N_("an operative touches {noun} N (0-24, row-major from the operatives' left, row 0)"),
     lambda game: True),
    ("end-turn", N_("the END TURN button"), lambda game: True),
    ("penalty", N_("the current clue was ruled invalid: the turn ends at once"), lambda game: game.has_penalty),
    ("cover N", N_("a {spymaster} covers {noun} N (after a penalty; the opponent's move in coop)"),
     lambda game: game.has_penalty or game.cover_is_required),
    ("place N", N_("Deep Undercover setup (a game dealt with --setup place): the next codename is on cell N"),
     lambda game: game.rules.setup == "place" or SETUP in game.description.options),
    ("time-up", N_("the turn timer ran out: the turn ends (with --timer-enforce the table says it itself)"),
     lambda game: True),
    ("undo", N_("take back the last action (also a new game, until its first action)"), lambda game: True),
    ("words W0 ... W24", N_("a {spymaster} confirms the words on the cards, one a cell from cell 0"), lambda game: True),
    ("new-game [G]", N_("deal a new game (G: {games})"), lambda game: True),
)
USAGE = {command.split()[0]: command for command, _, _ in COMMANDS}


def visible(text: str) -> int:
    """How many columns ``text`` takes: its colour escapes take none."""
    return len(ESCAPE.sub("", text))


def fit(text: str, indent: int | None = None, width: int = WIDTH) -> str:
    """``text`` with each line wrapped at its spaces to ``width`` columns; a wrapped line goes on
    ``indent`` columns in (two more than its own indent, unless told)."""
    rows = []
    for line in text.split("\n"):
        lead = len(line) - len(line.lstrip(" "))
        words, row = line[lead:].split(" "), " " * lead
        first = True
        for word in words:
            if not first and visible(row) + 1 + visible(word) > width:
                rows.append(row)
                row = " " * (lead + 2 if indent is None else indent) + word
            else:
                row += word if first else " " + word
            first = False
        rows.append(row)
    return "\n".join(rows)


def spoken_words(lang: str, words: tuple[str, ...]) -> str | None:
    """The line of help that gives this game's command ``words`` in the table's language, if it
    has them (the grid's ``indizio`` is no word of Codex's)."""
    own = [word for word in (*words, "help", "quit") if word in SPOKEN.get(lang, {}).values()]
    if not own:
        return None
    return fit(translation(lang).gettext("Also in this language: {words}").format(words=spoken(tuple(own), lang)))


def help_text(game: Game, lang: str = "en") -> str:
    """The commands this game has, as a script file takes them."""
    _ = translation(lang).gettext
    words = {"spymaster": _(game.spymaster_word), "noun": _(game.noun), "games": ", ".join(names())}
    lines = [f"  {as_spoken(command, lang):<15} {_(what).format(**words)}" for command, what, has in COMMANDS if has(game)]
    lines += [f"  {as_spoken('help', lang):<15} {_('this text')}", f"  {as_spoken('quit', lang):<15} {_('leave the simulator')}"]
    said = spoken_words(lang, tuple(command.split()[0] for command, _, has in COMMANDS if has(game)))
    return "\n".join([_("Commands (the same as in a script file):"), *(fit(line, 18) for line in lines),
                      fit(_("Entering a clue number is optional: a touch without one starts an unlimited turn.")),
                      *([said] if said else [])])


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
        """The whole screen: the table, the key and, after them, the last refusal."""
        body, refusal = self.parts(model, words)
        return body if refusal is None else f"{body}\n{refusal}"

    def parts(self, model: ScreenModel, words: tuple[str, ...] | None = None) -> tuple[str, str | None]:
        """The screen without its refusal, and the refusal's line (None without one): a refused
        command prints that line alone."""
        _ = self._
        view = model.view.table
        key = view.board if model.view.key is None else model.view.key.cells  # no key while placing
        game = described(view.game)
        lines = [fit(self.headline(view)), fit(self.counts(view)), ""]
        lines.append(f"  {_('TABLE (operatives)'):<20}    {_(KEY_HEADINGS[nouns_of(view)])}")
        lines.append("  " + f" {_(OPERATIVES_SIDE)} ".center(44, "─"))  # both grids' top edge, by the rule
        for cells in ROWS:
            table = "".join(self.table_cell(cell, view.board[cell]) for cell in cells)
            secret = "".join(self.key_cell(key[cell], view.board[cell]) for cell in cells)
            lines.append(f"  {table}    {secret}")
        if words is not None:
            lines += ["", "  " + _("WORDS (operatives)"), *self.words(view.board, words)]
        legend = "  ".join(self.paint(f"{letter}={_(name)}", FOREGROUND[letter])
                           for letter, name in game.legend.items())
        lines += ["", fit(f"  {legend}   [x]={_('shown')}")]
        for warning in model.warnings:
            lines.append(fit(self.paint(f"  ! {say(warning, self.lang)}", WARN)))
        refusal = None if model.message is None else self.refusal(say(model.message, self.lang))
        return "\n".join(lines), refusal

    def refusal(self, reason: str) -> str:
        return fit(self.paint("  " + self._("refused: {reason}").format(reason=reason), WARN))

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
        widths = [max((len(words[row[column]]) for row in ROWS if board[row[column]] != NO_CARD), default=0)
                  for column in range(GRID)]
        lines = []
        for row in ROWS:
            cells = []
            for column, width in enumerate(widths):
                cell = row[column]
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
        title = self.paint(_(title_of(view.game)), BOLD)
        side = self.team(view.turn)
        mastermind = _(nouns_of(view).clue_giver)
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
        elif view.phase == "cover" and grid_game(view.game).description.cooperative:
            what = _("spymaster: cover one {side} agent for the simulated opponent ({command})").format(
                side=side, command=as_spoken("cover N", self.lang))
        elif view.phase == "cover":
            what = _("{side} {mastermind} may cover one of its agents ({command}), then gives a clue").format(
                side=side, mastermind=mastermind, command=as_spoken("cover N", self.lang))
        else:
            winner = _("both teams lose") if view.winner is None else _("{side} wins").format(side=self.team(view.winner))
            reason = "" if view.reason is None else say(view.reason, self.lang)
            what = _("game over: {winner} ({reason})").format(winner=winner, reason=reason)
            if view.score is not None:
                what += "; " + _("score {score}: {rating}").format(score=view.score, rating=view.rating(self.lang))
        return f"{title} · {what}"

    def counts(self, view: TableView) -> str:
        """What each team has left, as the spymaster screen's chips count it: a Codenames team's
        agents still to find, an Alias 24 team's own assets not yet eliminated (the book: a team
        whose assets are all eliminated loses; its opponent's targets are those assets)."""
        _ = self._
        if view.totals is None:
            return "  " + _("the key is drawn when the last codename is down")
        parts = [self.left(view, team) for team in Team]
        parts.append(_("{side} started").format(side=self.team(view.start)))
        if view.armed is not None:
            parts.append(self.paint(_("NUKE ARMED"), WARN) if view.armed else
                         self.ngettext("nuke armed at 13 ({count} targeted)", "nuke armed at 13 ({count} targeted)",
                                       view.targeted).format(count=view.targeted))
        return "  " + " · ".join(parts)

    def left(self, view: TableView, team: Team) -> str:
        """What ``team`` has left, in the game's nouns."""
        count = view.remaining(team)
        said = (self.ngettext("{side} {count} asset left", "{side} {count} assets left", count)
                if nouns_of(view) == MASTERMINDS else
                self.ngettext("{side} {count} agent left", "{side} {count} agents left", count))
        return said.format(side=self.team(team), count=count)

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
        wanted = (before.turn if grid_game(after.game).seeks_own else before.turn.other).letter
        _ = self._
        if identity == wanted:
            why = _("touch {cell} used the clue's number and one more").format(cell=cell)
        else:
            why = _(WAS[nouns_of(after)][identity]).format(cell=cell)
        return _("{why}: the turn passes to {side}").format(why=why, side=self.team(after.turn))


WAS = {
    SPYMASTERS: {RED_AGENT: N_("touch {cell} was a red agent"), BLUE_AGENT: N_("touch {cell} was a blue agent"),
                 BYSTANDER: N_("touch {cell} was a bystander"), ASSASSIN: N_("touch {cell} was the assassin")},
    MASTERMINDS: {RED_AGENT: N_("touch {cell} was a red asset"), BLUE_AGENT: N_("touch {cell} was a blue asset"),
                  BYSTANDER: N_("touch {cell} was a grey decoy"), ASSASSIN: N_("touch {cell} was the nuke")},
}
"""What a touched card was, when it passed the turn, in each grid game's nouns."""


def nouns_of(view: TableView) -> Nouns:
    nouns = described(view.game).nouns
    assert nouns is not None, "a grid game names its people and its cards"
    return nouns


class TerminalScreen(WordScreen):
    """The spymaster screen as text: prints the table whenever what it shows changes (a
    touch being held changes nothing printed), with a line when a card passed the turn; a
    refusal that changes nothing else prints its own line alone, not the table again (the loop
    makes each refusal anew: one typed twice is said twice, one shown again is not)."""

    def __init__(self, painter: Painter, write: Callable[[str], object], cards: Cards | None = None) -> None:
        super().__init__(cards, keep=1)
        self.painter = painter
        self.write = write
        self.printed = ""
        self.refused: object = None  # the refusal last said: each refusal is a new one, typed twice or not

    def show(self, model: AnyModel) -> None:
        if not isinstance(model, ScreenModel):
            # a programming error: the kinds' registry pairs them
            raise TypeError(f"the terminal draws the grid games' screen, not a {type(model).__name__}")
        before = self.last
        body, refusal = self.painter.parts(model, self.deal(model))
        if body != self.printed:
            self.printed = body
            text = body if refusal is None else f"{body}\n{refusal}"
            if isinstance(before, ScreenModel) and before.game_id == model.game_id:
                why = self.painter.turn_passed(before.view.table, model.view.table)
                if why is not None:
                    text += "\n" + fit(self.painter.paint(f"  {why}", WARN))
            self.write("\n" + text + "\n")
        elif refusal is not None and model.message is not self.refused:
            self.write(refusal + "\n")
        self.refused = model.message
        super().show(model)


def line_editing() -> None:
    """Line editing and history at the prompt (the arrows move in the line, Up brings back the
    last command), where Python has readline: importing it gives ``input`` both."""
    try:
        import readline  # noqa: F401
    except ImportError:  # Python without readline: the prompt reads whole lines all the same
        pass


@dataclass(frozen=True)
class Playing:
    """What every kind's terminal plays with: the prompt's ``read`` and the screen's ``write``,
    the painter (its colours and language), a real touch board, the grid games' touch and
    timer settings and words, the games' options (``LoopSettings.options``: a kind's table takes
    its own), and whether a player's private turn is wiped off the terminal once it is over
    (``clear``: a real terminal)."""

    read: Callable[[str], str]
    write: Callable[[str], object]
    painter: Painter
    touch: TouchSource | None = None
    settings: InputSettings = field(default_factory=InputSettings)
    timer: TimerSettings | None = None
    cards: Cards | None = None
    options: Mapping[str, object] = field(default_factory=dict)
    clear: bool = False


def interactive(
    session: Session,
    read: Callable[[str], str],
    write: Callable[[str], object],
    painter: Painter,
    terminal_of: Callable[[str], Callable[[Session, Playing], Terminal[Any]]],
    touch: TouchSource | None = None,
    settings: InputSettings | None = None,
    timer: TimerSettings | None = None,
    cards: Cards | None = None,
    options: Mapping[str, object] | None = None,
    clear: bool | None = None,
) -> None:
    """The table in real time with a prompt (``cards``: words on the cards) until ``quit``, the
    game of the session's kind and then of whichever kind ``new-game`` deals, each played by its
    kind's terminal (``terminal_of(kind)``, imported when first played). ``clear``: wipe a
    player's private turn off the terminal once it is over (None: when standard output is one)."""
    line_editing()
    wipe = sys.stdout.isatty() if clear is None else clear
    playing = Playing(read, write, painter, touch, settings or InputSettings(), timer, cards, options or {}, wipe)
    while True:
        switch = terminal_of(session.kind)(session, playing).play()
        if switch is None:
            return
        session.new_game(switch)  # no loop runs now: this thread has the session


def in_effect(entries: Iterable[T]) -> list[T]:
    """A record's entries that are in effect now: those its undos took back left out."""
    kept: list[T] = []
    for entry in entries:
        if isinstance(entry, Undo):
            kept.pop()
        else:
            kept.append(entry)
    return kept


class Terminal(Generic[C]):
    """A kind's terminal: its loop runs in the caller's thread, as in the daemon; a reader
    thread reads the prompt and plays each command through the simulated devices, exactly as
    scripts do. ``play`` ends with ``quit`` (None) or a new game of another kind (its name).
    A kind reads its command ``words`` (written as ``usage`` says) with ``parse`` and plays them
    with ``act``; NEW GAME and UNDO are every kind's, pressed with ``push``."""

    loop: EventLoop
    words: tuple[str, ...]
    usage: Mapping[str, str]

    def __init__(self, session: Session, playing: Playing) -> None:
        self.session = session
        self.playing = playing
        self.painter = playing.painter
        self._ = playing.painter._
        self.switch: str | None = None

    def play(self) -> str | None:
        self.loop.open()
        self.say(self._("Type '{help}' for the commands.").format(help=as_spoken("help", self.painter.lang)))
        threading.Thread(target=self.prompt, name="prompt", daemon=True).start()
        try:
            self.loop.run()
        finally:
            self.loop.close()
        return self.switch

    def say(self, line: str, style: str = "") -> None:
        self.playing.write(fit(self.painter.paint(line, style)) + "\n")

    def prompt(self) -> None:
        try:
            while True:
                try:
                    line = self.playing.read("> ")
                except (EOFError, KeyboardInterrupt):
                    self.playing.write("\n")
                    return
                if not self.enter(as_written(line.split("#", 1)[0].strip(), self.painter.lang)):
                    return
        finally:
            self.loop.stop_soon()

    def enter(self, line: str) -> bool:
        """Play one line; False to leave the terminal (``quit``, or a game of another kind)."""
        word = line.split()[0].lower() if line else ""
        if word in QUIT:
            return False
        if word in HELP:
            self.playing.write(self.help() + "\n")
            return True
        return self.command(line)

    def help(self) -> str:
        raise NotImplementedError

    def command(self, line: str) -> bool:
        """One command, read as every kind's terminal reads it; False to leave the terminal."""
        word = line.split()[0].lower()
        try:
            command = self.parse(line)
        except InvalidAction as e:
            self.not_a_command(word, e)
            return True
        if isinstance(command, NewGame):
            return self.new_game(command)
        if isinstance(command, Undo):
            self.undo()
        else:
            self.act(command)
        return True

    def parse(self, line: str) -> C:
        """The kind's command ``line`` is; ``InvalidAction`` saying what was expected."""
        raise NotImplementedError

    def act(self, command: C) -> None:
        """Play a command of the kind's own (not NEW GAME nor UNDO), and wait until it is shown."""
        raise NotImplementedError

    def push(self, command: NewGame | Undo) -> None:
        """Press the table's NEW GAME or UNDO, and wait until it is shown."""
        raise NotImplementedError

    def said(self, action: object) -> str:
        """An action that an undo took back, as a script writes it."""
        return str(action)

    def not_a_command(self, word: str, error: InvalidAction) -> None:
        """A line the command words refuse: a known command with a wrong number (or the wrong
        argument) says what it takes; anything else is no command, and is told this terminal's
        command ``words`` as its prompts and help say them (in Italian, ``annulla (undo)``)."""
        lang = self.painter.lang
        if word in self.words and word in self.usage:
            reason = say(in_words_spoken(error.phrase, lang), lang)
            self.say(self._("{usage}: {reason}").format(usage=as_spoken(self.usage[word], lang), reason=reason), WARN)
        else:
            if SPOKEN.get(lang):
                error = InvalidAction("the commands are {words}", words=spoken(self.words, lang),
                                      given=as_spoken(word, lang))
            self.say(self._("not a command: {reason}").format(reason=say(error.phrase, lang)), WARN)

    def new_game(self, command: NewGame) -> bool:
        """NEW GAME, asked first over a game in progress; a game of another kind ends this
        terminal for that kind's (False)."""
        other = command.game is not None and kind_of(command.game) != self.session.kind
        if not self.loop.call(lambda: self.session.state.is_over):
            question = (N_("a game is in progress: deal {game} over it? (it cannot be brought back) [y/N] ") if other
                        else N_("a game is in progress: deal a new one over it? (undo brings it back) [y/N] "))
            game = self._(title_of(command.game)) if command.game is not None else ""
            self.playing.write(fit(self._(question).format(game=game)))
            try:
                answer = self.playing.read("")
            except (EOFError, KeyboardInterrupt):
                answer = ""
            if answer.strip().lower() not in YES:
                self.say(self._("the game goes on"))
                return True
        if other:
            self.switch = command.game
            return False
        self.push(command)
        return True

    def undo(self) -> None:
        """UNDO, then what it took back: the last action in effect (``said`` says it, as a
        script writes it; said here as the terminal takes it), or the new game, whose undo brings
        back the game it was dealt over."""
        def in_play() -> tuple[str, list[object]]:
            return self.session.id, in_effect(self.session.record.entries)

        game, before = self.loop.call(in_play)
        self.push(Undo())
        now, after = self.loop.call(in_play)
        if now != game:
            self.say(self._("undo brought back the game the new one was dealt over"))
        elif len(after) < len(before):
            self.say(self._("undo took back: {action}").format(action=as_spoken(self.said(before[-1]), self.painter.lang)))


class HeldClock:
    """The terminal's table clock: the real one, ahead by every hold a typed touch stood for. A
    typed touch is held for the hold time on the table's clock (the turn timer counts it, as a
    real hold), and the person who typed it does not wait for it."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.ahead

    def hold(self, seconds: float) -> None:
        self.ahead += seconds


class GridTerminal(Terminal[Command]):
    """The grid games: the table and the key as text, touches held for the hold time."""

    words = COMMAND_WORDS
    usage = USAGE

    def __init__(self, session: Session, playing: Playing) -> None:
        super().__init__(session, playing)
        self.grid = SimTouch()
        self.screen = TerminalScreen(playing.painter, playing.write, playing.cards)
        self.buttons = SimButtons()
        self.clock = HeldClock()
        sources = MultiTouch(self.grid, playing.touch) if playing.touch is not None else self.grid
        self.loop = TableLoop(session, sources, SimLedStrip(keep=1), self.screen, self.buttons,
                              TouchPolicy(playing.settings), self.clock, TurnTimer(playing.timer),
                              lang=playing.painter.lang)

    def help(self) -> str:
        loop = self.loop
        return help_text(loop.call(lambda: loop.session.grid.game), self.painter.lang)

    def parse(self, line: str) -> Command:
        return parse_command(line, names())

    def act(self, command: Command) -> None:
        self.press(command)

    def push(self, command: NewGame | Undo) -> None:
        self.press(command)

    def said(self, action: object) -> str:
        """What an undo took back; a placement without the key drawn with it."""
        return f"place {action.cell}" if isinstance(action, Place) else str(action)

    def press(self, command: Command) -> None:
        """Play a command through the device a player would use, and wait until it is shown."""
        if isinstance(command, Guess):  # held from the moment the loop saw it, however busy the machine
            self.grid.press(command.cell)
            self.loop.call(lambda: None)
            self.clock.hold(self.playing.settings.hold_s)
            self.grid.release(command.cell)  # came after the hold: the loop finds the guess first
        elif isinstance(command, EndTurn):
            self.buttons.push("end_turn")
        else:
            self.screen.tap(command)
        self.loop.call(lambda: None)  # the command shown before the next prompt: the loop takes events in order
