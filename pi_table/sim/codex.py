"""The scripted simulator for Codex: the table's loop on simulated devices and virtual time, its
screen drawn by the real painter, so pass-and-play is played by that painter's taps.

Script lines (besides ``wait SECONDS``, which the grid games' scripts share):

    send, code, block, profile, done, vote, reveal, end-discussion
                          an agent's action as a phone sends it (the engine's text forms)
    end-turn              the END TURN button: the table ends the discussion early
    new-game              the NEW GAME button: a new Codex game
    undo                  take back the last accepted action
    pass-and-play on|off  the screen's PASS AND PLAY button (on), or STOP (off)
    at-screen N           the "I am" button of seat N, which the screen must be calling
    tap ACTION            on the screen, the buttons that lead to ACTION and send it, one tap
                          at a time on the frame as drawn (VOTE NOW is ``tap end-discussion``)
    hide                  the HIDE button of the agent at the screen
    next                  NEXT AGENT, on the hidden screen

A tap the screen does not offer is refused (``ok`` false, and what the screen shows instead),
as a refused action is; the script goes on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # stdout carries the JSON lines
import pygame  # after the prompt is hidden

from ..engine import CodexAction, EndTurn, InvalidAction, Undo, parse_codex_action
from ..engine.codex_actions import USAGE
from ..engine.codex_setup import SEATS
from ..engine.phrase import Phrase
from ..hal import CodexModel, Command, NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch, UiEvent
from ..table import Outcome, Session
from ..table.codex_loop import CodexLoop
from ..table.timer import DISCUSSION_S
from ..ui.canvas import DESIGN, Tap
from ..ui.codex_screen import CodexPainter
from ..ui.codex_turns import Stage, Turn
from ..ui.i18n import STEPS, say, translation
from .harness import VirtualTable


@dataclass(frozen=True, slots=True)
class PassAndPlay:
    on: bool

    def __str__(self) -> str:
        return f"pass-and-play {'on' if self.on else 'off'}"


@dataclass(frozen=True, slots=True)
class AtScreen:
    seat: int

    def __str__(self) -> str:
        return f"at-screen {self.seat}"


@dataclass(frozen=True, slots=True)
class TapAction:
    action: CodexAction

    def __str__(self) -> str:
        return f"tap {self.action}"


@dataclass(frozen=True, slots=True)
class Hide:
    def __str__(self) -> str:
        return "hide"


@dataclass(frozen=True, slots=True)
class NextAgent:
    def __str__(self) -> str:
        return "next"


ScreenTap = PassAndPlay | AtScreen | TapAction | Hide | NextAgent
WORDS = (*USAGE, "end-turn", "new-game", "undo", "pass-and-play", "at-screen", "tap", "hide", "next")


def parse_codex_command(text: str) -> CodexAction | Command | ScreenTap:
    """One line of a Codex script; raise ``InvalidAction`` saying what was expected."""
    verb, *args = text.lower().split()
    if verb in USAGE:
        return parse_codex_action(text)
    if verb not in WORDS:
        raise InvalidAction("the commands are {words}", words=", ".join((*WORDS, "wait")), given=verb)
    if verb == "tap":
        if not args:
            raise InvalidAction("'tap' is followed by the action its buttons send, e.g. tap vote 2 4")
        return TapAction(parse_codex_action(" ".join(args)))
    if verb == "pass-and-play":
        if args not in (["on"], ["off"]):
            raise InvalidAction("'pass-and-play' is followed by on or off")
        return PassAndPlay(args == ["on"])
    if verb == "at-screen":
        if len(args) != 1 or not args[0].isdigit() or not 0 <= int(args[0]) < SEATS:
            raise InvalidAction("'at-screen' takes a seat number 0 to {last}", last=SEATS - 1)
        return AtScreen(int(args[0]))
    if args:
        raise InvalidAction("'{verb}' takes no argument" if verb != "new-game" else "'{verb}' takes no argument (a new Codex game)",
                            verb=verb)
    plain: dict[str, Command | ScreenTap] = {"end-turn": EndTurn(), "new-game": NewGame(), "undo": Undo(), "hide": Hide(),
                                             "next": NextAgent()}
    return plain[verb]


class CodexSimTable(VirtualTable):
    """A Codex session and its loop on simulated devices, on virtual time. The screen's models
    are drawn offscreen by the table's own painter, whose taps play pass-and-play; an agent's
    action line is its phone's."""

    def __init__(self, session: Session, discussion_s: float = DISCUSSION_S, lang: str = "en") -> None:
        super().__init__()
        self.session = session
        self.screen = SimScreen()
        self.buttons = SimButtons()
        self.loop: CodexLoop = CodexLoop(session, SimTouch(), SimLedStrip(), self.screen, self.buttons, self.clock,
                              discussion_s, lang=lang)
        self.loop.open()
        self.painter = CodexPainter()
        self.surface = pygame.Surface(DESIGN)

    def deadlines(self) -> list[float | None]:
        return [self.loop.timer.next_change(self.clock.now)]

    def draw(self):
        """What the screen shows now: the newest model, drawn as the backend would."""
        shown = self.screen.last
        if not isinstance(shown, CodexModel):
            raise TypeError(f"Codex's loop shows a CodexModel from its start, not {shown!r}")
        return self.painter.draw(self.surface, shown, self.clock())

    @property
    def turn(self) -> Turn:
        return self.painter.turn

    def do(self, command) -> Outcome:
        if isinstance(command, (PassAndPlay, AtScreen, TapAction, Hide, NextAgent)):
            return self._on_screen(command)
        if isinstance(command, EndTurn):
            self.buttons.push("end_turn")
        elif isinstance(command, NewGame):
            self.buttons.push("new_game")
        else:
            self.loop.post(UiEvent(command))
        outcomes = self.loop.run_pending()
        if not outcomes:  # END TURN outside the discussion: the loop lets it be
            return Outcome(command, False, Phrase.of("END TURN ends the discussion only: {words}", words=self._step_words()))
        (outcome,) = outcomes
        return outcome

    def _step_words(self) -> Phrase:
        record = self.loop.record
        return record.game.step_words(record.state)

    # --- the screen's taps ---------------------------------------------------------------------

    def _on_screen(self, command: ScreenTap) -> Outcome:
        self.draw()
        if isinstance(command, TapAction):
            return self._tap_through(command)
        tap = self._find(command)
        if tap is None:
            return Outcome(command, False, Phrase.of("the screen has no button for {command}: it shows {where}",
                                                     command=str(command), where=self._where()))
        return self._press(command, tap)

    def _find(self, command: ScreenTap) -> Tap | None:
        """The one button ``command`` stands for on the frame drawn, if it is there."""
        stage = self.turn.stage
        seat = command.seat if isinstance(command, AtScreen) else None
        wanted = {
            PassAndPlay(True): lambda to: stage is Stage.TABLE and to.stage in (Stage.PASS, Stage.WAIT),
            PassAndPlay(False): lambda to: stage is not Stage.TABLE and to == Turn(),
            Hide(): lambda to: stage is Stage.AGENT and to.stage is Stage.HIDDEN,
            NextAgent(): lambda to: stage is Stage.HIDDEN and to.stage in (Stage.PASS, Stage.WAIT),
        }.get(command, lambda to: to.stage is Stage.AGENT and stage is Stage.PASS and to.seat == seat)
        return next((tap for tap in self.painter.frame.taps if isinstance(tap.mode, Turn) and wanted(tap.mode)), None)

    def _tap_through(self, command: TapAction) -> Outcome:
        """Tap the buttons on the way to the action, one frame at a time, then the one that sends it."""
        for _ in range(8):
            tap = self.painter.route(command.action)
            if tap is None:
                break
            sends = tap.command == command.action
            outcome = self._press(command, tap)
            if sends:
                return outcome
        return Outcome(command, False, Phrase.of("no button on the screen sends {action}: it shows {where}",
                                                 action=str(command.action), where=self._where()))

    def _press(self, command: ScreenTap, tap: Tap) -> Outcome:
        x, y, w, h = tap.rect
        sent = self.painter.tap((x + w // 2, y + h // 2))
        if sent is None:
            self.draw()
            return Outcome(command, True)
        self.loop.post(UiEvent(sent))
        (outcome,) = self.loop.run_pending()
        self.draw()
        return Outcome(command, outcome.ok, outcome.reason)

    def _where(self) -> Phrase:
        """The screen's stage in words, for a refused tap and the text output."""
        turn, codenames = self.turn, self.loop.record.state.setup.codenames
        who = None if turn.seat is None else Phrase.of("{codename} (seat {seat})", codename=codenames[turn.seat], seat=turn.seat)
        return {
            Stage.TABLE: Phrase.of("the public side, pass-and-play off"),
            Stage.WAIT: Phrase.of("the public side, pass-and-play waiting for a step that needs the agents"),
            Stage.PASS: Phrase.of("'pass the screen to {who}'", who=who),
            Stage.AGENT: Phrase.of("the turn of {who}", who=who),
            Stage.HIDDEN: Phrase.of("the hidden screen, after {who}", who=who),
        }[turn.stage]

    # --- the output --------------------------------------------------------------------------------

    def report(self) -> dict:
        """The public view and the timer, each agent's own view (its ``public`` part is the
        state), and what the screen shows."""
        record = self.loop.record
        game, state = record.game, record.state
        frame = self.draw()
        turn = self.turn
        agents = []
        for seat in range(SEATS):
            view = game.agent_view(state, seat).to_json()
            del view["public"]
            agents.append(view)
        return {
            "state": {**game.public_view(state).to_json(), "timer": self.timer_json()},
            "agents": agents,
            "screen": {"stage": turn.stage.value, "seat": turn.seat, "choice": list(turn.choice),
                       "texts": list(frame.texts)},
        }

    def describe(self) -> str:
        """The step as text in the table's language, for ``pi-table sim --game codex`` without ``--json``."""
        lang = self.loop.lang
        _ = translation(lang).gettext
        record = self.loop.record
        report = self.report()
        state, screen = report["state"], report["screen"]
        if state["step"] == "over":
            line = _("over: {reason}").format(reason=say(record.game.reason(record.state) or "", lang))
        else:
            line = _("phase {phase}, {step} step; waiting for seats {seats}").format(
                phase=state["phase"], step=_(STEPS[state["step"]]), seats=", ".join(map(str, state["waiting_for"])) or _("none"))
        return f"{line}\n  " + _("screen ({stage}): {texts}").format(stage=say(self._where(), lang),
                                                                     texts=" | ".join(screen["texts"]))

