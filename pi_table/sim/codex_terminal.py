"""Codex in the terminal simulator, as a group at one laptop plays it: pass-and-play.

The terminal is the table's screen as text, with the same turns and the same words
(``pi_table.ui.codex_turns``): the public side (the step, the six agents and who has acted,
the roles in play, the truth machine, the discussion's clock) and its buttons, numbered: type
``1`` for PASS AND PLAY. The terminal then names the agent whose turn it is ("Pass the screen to
Viper (seat 2)") and shows nothing private until that agent presses I AM VIPER; its identikit,
inbox and choices follow, each choice a number. Once it has acted (or pressed HIDE) its turn is
wiped off a real terminal, scrollback too, before NEXT AGENT calls the next agent.

The script's words work too (codex_commands.py): an agent's action as its phone sends it
(``send 0 3 role``, seen by everyone at the laptop), END TURN, NEW GAME, ``undo``, and the
screen's buttons by name (``at-screen 2``, ``tap vote 2 4``, ``hide``, ``next``). Enter alone
shows the screen again, with the discussion's clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..engine import EndTurn, Team, Undo
from ..engine.codex import DISCUSSION
from ..engine.codex_actions import USAGE as ACTION_USAGE
from ..engine.codex_actions import CodexAction
from ..engine.games import names, title_of
from ..engine.phrase import N_, Phrase, Text
from ..hal import AnyModel, Command, NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch, UiEvent
from ..hal.codex_model import CodexModel
from ..table import Outcome, Session, parse_command
from ..table.codex_loop import CodexLoop
from ..table.commands import as_spoken
from ..table.loop import LoopSettings
from ..table.timer import TimerSettings
from ..ui.codex_turns import (
    Panel,
    Passing,
    Speech,
    Stage,
    agent_name,
    agent_notes,
    agent_title,
    call_words,
    choice_prompt,
    code_so_far,
    control_label,
    controls,
    headline,
    identikit_notes,
    identikit_rows,
    menu,
    option_label,
    options,
    panel,
    public_refusal,
    roles_in_play,
    route,
    seat_lines,
    step_words,
    truth_machine,
    winner_title,
    winning_code,
)
from ..ui.i18n import say
from ..ui.leds import LightSettings
from .codex_commands import SCREEN_TAPS, WORDS, ScreenTap, TapAction, parse_codex_command, screen_button
from .terminal import BOLD, TEAM, WARN, WIDTH, Painter, Playing, Terminal, fit, spoken_words, visible

CLEAR = "\x1b[H\x1b[2J\x1b[3J"
"""Home, clear the screen, and clear the scrollback: an agent's turn leaves no trace to scroll back to."""

COMMANDS = (  # (the command, what it does)
    ("N", N_("press the screen's button N: PASS AND PLAY, I AM, an agent's choices, HIDE, NEXT AGENT")),
    ("Enter", N_("show the screen again, with the discussion's clock")),
    (ACTION_USAGE["send"], N_("an agent sends another its fragment and one fact (an Informatore may add its role)")),
    (ACTION_USAGE["code"], N_("an agent enters a code")),
    (ACTION_USAGE["block"], N_("a Hacker blocks an agent from entering a code this phase")),
    (ACTION_USAGE["profile"], N_("a Profiler asks about the sender of a message")),
    (ACTION_USAGE["done"], N_("an agent ends its private turn")),
    (ACTION_USAGE["vote"], N_("an agent votes (an Inquisitore may extort a fact)")),
    (ACTION_USAGE["reveal"], N_("the agent at the truth machine reveals one fact")),
    (ACTION_USAGE["end-discussion"], N_("the vote begins (VOTE NOW)")),
    ("end-turn", N_("the END TURN button: the discussion ends early")),
    ("pass-and-play on|off, at-screen N, tap ACTION, hide, next", N_("the screen's buttons by name, as a script taps them")),
    ("undo", N_("take back the last action (also a new game, until its first action)")),
    ("new-game [G]", N_("deal a new game (G: {games})")),
)
USAGE = {**ACTION_USAGE, "end-turn": "end-turn", "new-game": "new-game [G]", "undo": "undo", "tap": "tap ACTION",
         "pass-and-play": "pass-and-play on|off", "at-screen": "at-screen N", "hide": "hide", "next": "next"}


def help_text(lang: str) -> str:
    """Codex's commands in the terminal: the screen's buttons by number, and a script's words."""
    _ = Speech(lang).gettext
    lines = []
    for written, what in COMMANDS:
        command = ", ".join(as_spoken(each, lang) for each in written.split(", "))  # the Italian verbs first
        said = _(what).format(games=", ".join(names()))
        lines.append(fit(f"  {command:<15} {said}", 18) if len(command) <= 15 else
                     f"  {command}\n" + fit(f"{'':<17} {said}", 18))
    lines += [f"  {as_spoken('help', lang):<15} {_('this text')}", f"  {as_spoken('quit', lang):<15} {_('leave the simulator')}"]
    spoken = spoken_words(lang, WORDS)
    return "\n".join([_("Commands (the same as in a script file):"), *lines,
                      fit(_("An agent's action typed here is seen by everyone at the screen: pass the screen "
                            "round instead.")), *([spoken] if spoken else [])])


@dataclass(frozen=True, slots=True)
class Button:
    """A button of the text screen: its words, and the command it sends or the ``Turn`` it moves to."""

    label: str
    command: Command | None = None
    mode: object = None


@dataclass(frozen=True, slots=True)
class Page:
    """What the terminal shows of the screen at one moment: the stage, the text (its first line
    without the clock, which ``clock`` adds), the refusal's line apart, and the buttons."""

    stage: Stage
    seat: int | None
    body: str
    clock: str
    refusal: str | None
    buttons: tuple[Button, ...]
    numbers: tuple[int, ...]  # each button's number, to type

    def numbered(self, number: int) -> Button | None:
        return next((button for n, button in zip(self.numbers, self.buttons) if n == number), None)

    def text(self) -> str:
        title, _, rest = self.body.partition("\n")
        lines = [fit(title + self.clock), rest] if rest else [fit(title + self.clock)]
        if self.refusal is not None:
            lines.append(self.refusal)
        return "\n".join(lines)


class CodexText(Passing):
    """Codex's screen as text, remembering where pass-and-play stands as its painter does."""

    def __init__(self, painter: Painter) -> None:
        super().__init__()
        self.painter = painter
        self.words = Speech(painter.lang)

    def page(self, model: CodexModel) -> Page:
        own = self.see(model)
        turn = self.turn
        if turn.stage is Stage.AGENT:
            return self._agent(model, own)
        return self._public(model)

    def _buttons(self, buttons: list[Button], numbers: tuple[int, ...]) -> str:
        """The buttons, numbered, as many a line as fit: a button's words are never split."""
        rows: list[str] = []
        for number, button in zip(numbers, buttons):
            said = f"[{number}] {button.label}"
            if rows and visible(rows[-1]) + 3 + len(said) <= WIDTH:
                rows[-1] += "   " + said
            else:
                rows.append("  " + said)
        return "\n".join(rows)

    def _public(self, model: CodexModel) -> Page:
        _, words, paint = self.words.gettext, self.words, self.painter.paint
        view = model.game.public_view(model.state)
        turn = self.turn
        title = winner_title(words, view)
        ink = BOLD if view.winner is None else TEAM[Team(view.winner.value)]
        lines = [paint(f"{_(title_of(view.game))} · {title or headline(words, view)}", ink),
                 fit(f"  {step_words(model)}"), ""]
        width = max(len(codename) for codename in view.codenames)
        for seat, codename in enumerate(view.codenames):
            said = " · ".join(text for _kind, text in seat_lines(words, view, seat))
            lines.append(fit(f"  {seat} {codename:<{width}}  {said}".rstrip(), 6 + width))
        lines += ["", fit(f"  {_('ROLES IN PLAY')}: {roles_in_play(words, view)}")]
        shown = panel(view, turn, model.joins)
        code = winning_code(view)
        if shown is Panel.CODE and code is not None:
            lines.append(fit(f"  {_('WINNING CODE')}: {'-'.join(code)}"))
        else:
            lines.append(fit(f"  {_('TRUTH MACHINE')}: {' · '.join(truth_machine(words, view)[1])}"))
        lines += [fit(paint(f"  ! {say(warning, model.lang)}", WARN)) for warning in model.warnings]
        if shown is Panel.CALL:
            lines += ["", fit(paint(f"  >> {call_words(words, view, turn)}", WARN))]
        buttons = [Button(control_label(words, view, turn, offer.control), offer.command, offer.turn)
                   for offer in controls(view, turn)]
        numbers = tuple(range(1, len(buttons) + 1))
        lines.append(self._buttons(buttons, numbers))
        refusal = public_refusal(model.message)
        timer = model.cues.timer
        clock = "" if timer is None or not timer.running else " · " + _("{time} to discuss").format(
            time=f"{math.ceil(timer.remaining_s) // 60}:{math.ceil(timer.remaining_s) % 60:02d}")
        return Page(turn.stage, turn.seat, "\n".join(lines), clock,
                    None if refusal is None else self.painter.refusal(say(refusal, model.lang)), tuple(buttons), numbers)

    def _agent(self, model: CodexModel, own: Text | None) -> Page:
        _, words, paint = self.words.gettext, self.words, self.painter.paint
        turn = self.turn
        view = model.game.agent_view(model.state, turn.agent)
        actions = model.game.legal_actions(model.state, turn.agent)
        me = view.identikit
        choices = menu(turn, actions)
        lines = [paint(f"{agent_title(words, view)} · {headline(words, view.public)}", TEAM[Team(me.shown_faction.value)])]
        identikit = " · ".join(f"{name}: {value}" for _fact, name, value in identikit_rows(words, me))
        lines.append(fit(f"  {_('IDENTIKIT')}: {identikit}"))
        lines += [fit(f"  {note}") for note in identikit_notes(words, view, actions)]
        lines.append(f"  {_('INBOX AND RESULTS')}:")
        notes = agent_notes(words, view)
        lines += [fit(f"    {_('phase {phase}').format(phase=phase)}  {text}", 6) for phase, text in notes] or [
            f"    {_('nothing yet')}"]
        lines.append(fit(f"  {choice_prompt(words, view.public, choices.choice, bool(actions))}"))
        so_far = code_so_far(words, choices.choice)
        if so_far is not None:
            lines.append(fit(f"  {so_far}"))
        buttons = [Button(option_label(words, view.public, choices.choice, option), option.action,
                          None if option.action is not None else choices.opens(option)) for option in choices.options]
        if choices.back is not None:
            buttons.append(Button(_("BACK"), mode=choices.back))
        buttons.append(Button(_("HIDE"), mode=choices.hide))
        numbers = _steady(choices.choice, [option.word for option in choices.options], actions, len(buttons))
        lines.append(self._buttons(buttons, numbers))
        return Page(turn.stage, turn.seat, "\n".join(lines), "",
                    None if own is None else self.painter.refusal(say(own, model.lang)), tuple(buttons), numbers)


def _steady(choice: tuple[str, ...], words: list[str], actions: list[CodexAction], count: int) -> tuple[int, ...]:
    """The buttons' numbers: in order, but while a code is typed, each fragment keeps the number
    it had at the code's first choice, and BACK and HIDE theirs after them, so a number typed
    from the page before still means the same fragment."""
    if choice[:1] != ("code",) or len(choice) < 2:
        return tuple(range(1, count + 1))
    first = [option.word for option in options(actions, choice[:1])[1]]
    if not set(words) <= set(first):
        return tuple(range(1, count + 1))
    numbers = [first.index(word) + 1 for word in words]
    return (*numbers, *range(len(first) + 1, len(first) + 1 + count - len(numbers)))


class CodexTerminalScreen(SimScreen):
    """The table's screen in the terminal: prints the page whenever it changes (the clock alone
    changes nothing printed), a refusal alone on its own line, and wipes an agent's turn off a
    real terminal once it is over."""

    def __init__(self, text: CodexText, playing: Playing) -> None:
        super().__init__(keep=1)
        self.text = text
        self.playing = playing
        self.page: Page | None = None
        self.printed: Page | None = None
        self.refused: object = None  # the table's refusal last said: each is a new one, typed twice or not

    def show(self, model: AnyModel) -> None:
        if not isinstance(model, CodexModel):
            # a programming error: the kinds' registry pairs them
            raise TypeError(f"Codex's terminal draws Codex's screen, not a {type(model).__name__}")
        super().show(model)
        self.render()

    def render(self, again: bool = False) -> None:
        """The page as the newest model and the turn stand, printed if it changed (or ``again``)."""
        model = self.last
        if not isinstance(model, CodexModel):
            return
        page = self.page = self.text.page(model)
        printed, write = self.printed, self.playing.write
        if again or printed is None or page.body != printed.body:
            if (printed is not None and printed.stage is Stage.AGENT and self.playing.clear
                    and (page.stage, page.seat) != (printed.stage, printed.seat)):
                write(CLEAR)
            write("\n" + page.text() + "\n")
        elif page.refusal is not None and (page.refusal != printed.refusal or model.message is not self.refused):
            write(page.refusal + "\n")
        self.printed, self.refused = page, model.message


class CodexTerminal(Terminal[CodexAction | Command | ScreenTap]):
    """Codex's loop on simulated devices, in real time (the discussion's clock runs), its screen
    the terminal."""

    words = WORDS
    usage = USAGE

    def __init__(self, session: Session, playing: Playing) -> None:
        super().__init__(session, playing)
        self.text = CodexText(playing.painter)
        self.screen = CodexTerminalScreen(self.text, playing)
        self.buttons = SimButtons()
        played = LoopSettings(playing.settings, TimerSettings(), LightSettings(), playing.painter.lang, playing.options)
        self.loop: CodexLoop = CodexLoop.made(session, SimTouch(), SimLedStrip(keep=1), self.screen, self.buttons, played)

    def help(self) -> str:
        return help_text(self.painter.lang)

    def command(self, line: str) -> bool:
        if not line.split():
            self.loop.call(lambda: self.screen.render(again=True))
            return True
        if line.isdigit():
            self.press_number(int(line))
            return True
        return super().command(line)

    def parse(self, line: str) -> CodexAction | Command | ScreenTap:
        return parse_command(line, names()) if line.split()[0].lower() == "new-game" else parse_codex_command(line)

    def act(self, command: CodexAction | Command | ScreenTap) -> None:
        if isinstance(command, EndTurn):
            self.end_turn()
        elif isinstance(command, SCREEN_TAPS):
            self.on_screen(command)
        else:
            outcome = self.loop.call(lambda: self.shown(self.loop.from_phone(self.session.id, command)))
            if not outcome.ok and outcome.reason is not None:
                self.playing.write(self.painter.refusal(say(outcome.reason, self.painter.lang)) + "\n")

    def shown(self, outcome: Outcome) -> Outcome:
        """``outcome``, once the screen shows what it changed (before the next prompt)."""
        self.loop.show()
        return outcome

    def said(self, action: object) -> str:
        """What an undo took back, in words that keep an agent's secrets: whose action it was."""
        seat = getattr(action, "seat", None)
        if seat is None:
            return str(action)
        codenames = self.loop.call(lambda: self.loop.record.state.setup.codenames)
        return self._("an action of {agent}").format(agent=agent_name(self.text.words, codenames, seat))

    def push(self, command: NewGame | Undo) -> None:
        """A button of the table (NEW GAME, UNDO), and wait until it is shown."""
        self.loop.post(UiEvent(command))
        self.loop.call(lambda: None)

    def end_turn(self) -> None:
        step = self.loop.call(lambda: self.loop.record.state.step)
        self.buttons.push("end_turn")
        self.loop.call(lambda: None)
        if step != DISCUSSION:  # the loop lets it be
            record = self.loop.call(lambda: self.loop.record)
            reason = Phrase.of("END TURN ends the discussion only: {words}", words=record.game.step_words(record.state))
            self.playing.write(self.painter.refusal(say(reason, self.painter.lang)) + "\n")

    def press_number(self, number: int) -> None:
        page = self.screen.page
        button = None if page is None else page.numbered(number)
        if button is None:
            numbers = ", ".join(map(str, () if page is None else page.numbers))
            self.say(self._("the screen has the buttons {numbers}, not {number}").format(numbers=numbers, number=number),
                     WARN)
            return
        self.press(button)

    def press(self, button: Button) -> None:
        """Press a button of the page shown: a move of pass-and-play shows at once; a command
        goes to the loop as the screen's tap does."""
        def pressed() -> None:
            command = self.text.press(button.command, button.mode)
            if command is None:
                self.screen.render()
            else:  # at once, in the loop's thread: the turn moved on shows only with what it sent
                self.loop.handle(UiEvent(command), self.loop.clock())

        self.loop.call(pressed)

    def on_screen(self, command: ScreenTap) -> None:
        """The screen's buttons by name, as a script taps them."""
        if isinstance(command, TapAction):
            for _ in range(8):
                page = self.screen.page
                button = None if page is None else route(self.text.turn, page.buttons, command.action)
                if button is None:
                    break
                self.press(button)
                if button.command == command.action:
                    return
        else:
            page = self.screen.page
            button = None if page is None else screen_button(self.text.turn, command, page.buttons)
            if button is not None:
                self.press(button)
                return
        self.say(self._("the screen has no button for {command} now").format(command=str(command)), WARN)
