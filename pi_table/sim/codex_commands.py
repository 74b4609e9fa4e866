"""Codex's command words in the simulators (a script's lines, the terminal's commands), and which
of the screen's buttons a pass-and-play word stands for. No pygame here: the terminal plays
Codex without it; the scripted simulator (codex.py) draws the real screen.

    send, code, block, profile, done, vote, reveal, end-discussion
                          an agent's action as a phone sends it (the engine's text forms)
    end-turn              the END TURN button: the table ends the discussion early
    new-game              the NEW GAME button: a new Codex game
    undo                  take back the last accepted action
    pass-and-play on|off  the screen's PASS AND PLAY button (on), or STOP (off)
    at-screen N           the "I am" button of seat N, which the screen must be calling
    tap ACTION            on the screen, the buttons that lead to ACTION and send it, one tap
                          at a time (VOTE NOW is ``tap end-discussion``)
    hide                  the HIDE button of the agent at the screen
    next                  NEXT AGENT, on the hidden screen
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar, get_args

from ..engine import EndTurn, InvalidAction, Undo
from ..engine.actions import Written
from ..engine.codex_actions import USAGE, CodexAction, parse_codex_action
from ..engine.codex_setup import SEATS
from ..hal import Command, NewGame
from ..ui.codex_turns import Pressable, Stage, Turn


@dataclass(frozen=True, slots=True)
class PassAndPlay(Written):
    """The screen's PASS AND PLAY button (on), or STOP (off)."""

    WORD = "pass-and-play"

    on: bool

    def __str__(self) -> str:
        return f"{self.WORD} {'on' if self.on else 'off'}"


@dataclass(frozen=True, slots=True)
class AtScreen(Written):
    """The "I am" button of ``seat``, which the screen must be calling."""

    WORD = "at-screen"

    seat: int


@dataclass(frozen=True, slots=True)
class TapAction(Written):
    """On the screen, the buttons that lead to ``action`` and send it, one tap at a time."""

    WORD = "tap"

    action: CodexAction


@dataclass(frozen=True, slots=True)
class Hide(Written):
    """The HIDE button of the agent at the screen."""

    WORD = "hide"


@dataclass(frozen=True, slots=True)
class NextAgent(Written):
    """NEXT AGENT, on the hidden screen."""

    WORD = "next"


ScreenTap = PassAndPlay | AtScreen | TapAction | Hide | NextAgent
SCREEN_TAPS = get_args(ScreenTap)
WORDS = (*USAGE, EndTurn.WORD, NewGame.WORD, Undo.WORD, *(tap.WORD for tap in SCREEN_TAPS))


def parse_codex_command(text: str) -> CodexAction | Command | ScreenTap:
    """One line of a Codex script; raise ``InvalidAction`` saying what was expected."""
    verb, *args = text.lower().split()
    if verb in USAGE:
        return parse_codex_action(text)
    if verb not in WORDS:
        raise InvalidAction("the commands are {words}", words=", ".join((*WORDS, "wait")), given=verb)
    if verb == TapAction.WORD:
        if not args:
            raise InvalidAction("'tap' is followed by the action its buttons send, e.g. tap vote 2 4")
        return TapAction(parse_codex_action(" ".join(args)))
    if verb == PassAndPlay.WORD:
        if args not in (["on"], ["off"]):
            raise InvalidAction("'pass-and-play' is followed by on or off")
        return PassAndPlay(args == ["on"])
    if verb == AtScreen.WORD:
        if len(args) != 1 or not args[0].isdigit() or not 0 <= int(args[0]) < SEATS:
            raise InvalidAction("'at-screen' takes a seat number 0 to {last}", last=SEATS - 1)
        return AtScreen(int(args[0]))
    if args:
        raise InvalidAction("'{verb}' takes no argument" if verb != NewGame.WORD else "'{verb}' takes no argument (a new Codex game)",
                            verb=verb)
    plain: dict[str, Callable[[], Command | ScreenTap]] = {
        command.WORD: command for command in (EndTurn, NewGame, Undo, Hide, NextAgent)}
    return plain[verb]()


P = TypeVar("P", bound=Pressable)


def screen_button(turn: Turn, command: ScreenTap, buttons: Iterable[P]) -> P | None:
    """The one button a pass-and-play word (not ``tap``) stands for among those the screen
    shows at ``turn``, if it is there."""
    stage = turn.stage
    seat = command.seat if isinstance(command, AtScreen) else None
    chosen: dict[ScreenTap, Callable[[Turn], bool]] = {  # what the word asks of the button's turn
        PassAndPlay(True): lambda to: stage is Stage.TABLE and to.stage in (Stage.PASS, Stage.WAIT),
        PassAndPlay(False): lambda to: stage is not Stage.TABLE and to == Turn(),
        Hide(): lambda to: stage is Stage.AGENT and to.stage is Stage.HIDDEN,
        NextAgent(): lambda to: stage is Stage.HIDDEN and to.stage in (Stage.PASS, Stage.WAIT),
    }
    wanted: Callable[[Turn], bool] = chosen.get(
        command, lambda to: to.stage is Stage.AGENT and stage is Stage.PASS and to.seat == seat)
    return next((button for button in buttons if isinstance(button.mode, Turn) and wanted(button.mode)), None)
