"""The scripted simulator for Codex: the table's loop on simulated devices and virtual time, its
screen drawn by the real painter, so pass-and-play is played by that painter's taps.

Script lines, besides ``wait SECONDS`` (which the grid games' scripts share), are Codex's
command words (codex_commands.py): an agent's action as its phone sends it, the buttons (END
TURN, NEW GAME), ``undo``, and the pass-and-play taps on the screen. A tap the screen does not
offer is refused (``ok`` false, and what the screen shows instead), as a refused action is; the
script goes on.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # stdout carries the JSON lines
import pygame  # after the prompt is hidden

from ..engine import EndTurn
from ..engine.codex_rules import DISCUSSION_S
from ..engine.codex_setup import SEATS
from ..engine.phrase import Phrase
from ..hal import Command, NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch, UiEvent
from ..hal.codex_model import CodexModel
from ..table import Outcome, Session
from ..table.codex_loop import CodexLoop
from ..ui.canvas import DESIGN, Frame, Tap
from ..ui.codex_screen import CodexPainter
from ..ui.codex_turns import Stage, Turn, standing
from ..ui.i18n import say, translation
from .codex_commands import (
    SCREEN_TAPS,
    ScreenTap,
    TapAction,
    parse_codex_command,  # noqa: F401 - a script's words, beside the table that plays them
    screen_button,
)
from .harness import VirtualTable


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

    def draw(self) -> Frame:
        """What the screen shows now: the newest model, drawn as the backend would."""
        shown = self.screen.last
        if not isinstance(shown, CodexModel):
            # a programming error: Codex's loop shows nothing else
            raise TypeError(f"Codex's loop shows a CodexModel from its start, not {shown!r}")
        return self.painter.draw(self.surface, shown, self.clock())

    @property
    def turn(self) -> Turn:
        return self.painter.turn

    def do(self, command: Command) -> Outcome:
        if isinstance(command, SCREEN_TAPS):
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
        tap = screen_button(self.turn, command, self.painter.frame.taps)
        if tap is None:
            return Outcome(command, False, Phrase.of("the screen has no button for {command}: it shows {where}",
                                                     command=str(command), where=self._where()))
        return self._press(command, tap)

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

    def report(self) -> dict[str, object]:
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
        frame = self.draw()
        view = record.game.public_view(record.state)
        if view.step == "over":
            line = _("over: {reason}").format(reason=say(record.game.reason(record.state) or "", lang))
        else:
            line = standing(view.phase, view.step, list(view.waiting_for), lang)
        return f"{line}\n  " + _("screen ({stage}): {texts}").format(stage=say(self._where(), lang),
                                                                     texts=" | ".join(frame.texts))

