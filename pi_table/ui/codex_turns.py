"""Codex's screen as turns, with no drawing: where pass-and-play stands, which agent it calls,
what the agent at the screen may choose, and what the public side offers and may say.

**Pass-and-play**, for a table without phones, takes the agents to the screen one at a time
(``Stage``): it names the next agent the step waits for (``next_call``); only that agent comes to
the screen, and once it has acted or hidden its turn the screen hides everything private until
the next one is called. While nobody has to act (the discussion, the game's end) it waits, and
it takes up again when the next step waits for agents (``follow``).

An action is a few taps, built from the agent's legal actions (``choice_path``): the recipient
and then the facts of a message; the three fragments of a code in order; the target of a block;
the message and the fact a Profiler asks about; the agent voted for and then, for an
Inquisitore, the fact to extort or none; the fact to reveal. A choice with one option (the only
verb of the step) is made for the agent (``settle``); BACK goes up one choice (``menu``).

codex_screen.py draws all this; it imports no pygame here, so the rules of the screen's turns
are tested on their own (tests/test_codex_turns.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum, StrEnum

from ..engine import CodexAction, PublicView
from ..engine.codex import DISCUSSION, OVER, VOTE, VoteResult
from ..engine.codex_actions import EndDiscussion, EnterCode, Send, Vote
from ..engine.phrase import Phrase, Text
from ..hal import Command, NewGame

PUBLIC_REFUSALS = frozenset({
    "the game is over ({reason}): start a new game",
    "{what} only in the messages step: {words}", "{what} only in the private step: {words}",
    "{what} only in the discussion step: {words}", "{what} only in the vote step: {words}",
    "{what} only in the truth step: {words}",
    "{agent} has already sent its message this phase",
    "an agent sends its message to another agent, not to itself",
    "the fragment goes with every message: add the codename, faction, role or position",
    "{agent} has already ended its private turn this phase",
    "{agent} has already voted this phase",
    "an agent votes for another agent, not for itself",
    "{agent} is at the truth machine, not {target}",
    "the codename is public: reveal the faction, role, position or fragment",
    "{agent} already revealed its faction here: reveal another fact",
    "{agent} already revealed its role here: reveal another fact",
    "{agent} already revealed its position here: reveal another fact",
    "{agent} already revealed its fragment here: reveal another fact",
})
"""Codex's refusals that tell nobody's secret: the step, what every agent may do, public facts.
One that would give an agent's role, a Hacker's block or a code's result away is the phone's to
say, so the table's screen leaves it out."""


def public_refusal(message: Text | None) -> Phrase | None:
    """``message`` if anyone at the table may read it, else None (it tells an agent's secret)."""
    return message if isinstance(message, Phrase) and message.template in PUBLIC_REFUSALS else None


def shown_vote(view: PublicView) -> VoteResult | None:
    """The last closed vote, until the next vote begins."""
    return view.votes[-1] if view.votes and view.step != VOTE else None


class Stage(str, Enum):
    """Where pass-and-play stands."""

    TABLE = "table"  # the public side; pass-and-play is off
    WAIT = "wait"  # pass-and-play is on, and nobody has to act now (the discussion, the end)
    PASS = "pass"  # "pass the screen to X": only X's "I am X" goes on
    AGENT = "agent"  # X's own view and its actions
    HIDDEN = "hidden"  # X has acted: nothing private shows until the next agent is called


@dataclass(frozen=True, slots=True)
class Turn:
    """The painter's memory: the stage, the seat it concerns, the step the agent came to the
    screen in (its turn ends when the step moves on), the choices tapped so far, and the seat
    whose card was tapped to give it a new code (``releasing``), until NEW CODE or CANCEL."""

    stage: Stage = Stage.TABLE
    seat: int | None = None
    scene: tuple[int, str] | None = None
    choice: tuple[str, ...] = ()
    releasing: int | None = None

    @property
    def agent(self) -> int:
        """The seat of the agent a PASS, AGENT or HIDDEN stage is about."""
        if self.seat is None:
            raise ValueError(f"pass-and-play's {self.stage.value} stage names no seat")
        return self.seat


PUBLIC_SIDE = Turn()
"""Pass-and-play off: the screen shows the public side to the whole table."""


def choice_path(action: CodexAction) -> tuple[str, ...]:
    """The taps that lead to ``action``, as words: the verb, then one word per choice."""
    verb, *words = str(action).split()
    words = words[1:]  # the seat is the agent at the screen
    if isinstance(action, EnterCode):
        return (verb, *action.code.split("-"))
    if isinstance(action, Send) or (isinstance(action, Vote) and action.extort is not None):
        return (verb, words[0], " ".join(words[1:]))  # the facts told, or "extort FACT": one choice
    return (verb, *words)


def next_call(view: PublicView, after: int | None = None) -> Turn:
    """Who is called to the screen next: the first seat the step waits for, going round the
    table from ``after``; WAIT when nobody has to act."""
    waiting = sorted(view.waiting_for)
    if not waiting:
        return Turn(Stage.WAIT)
    later = [seat for seat in waiting if after is not None and seat > after]
    return Turn(Stage.PASS, (later or waiting)[0])


def follow(turn: Turn, view: PublicView) -> Turn:
    """``turn`` brought up to date with the game: an agent whose step is over is hidden, a
    called agent that has acted elsewhere (its phone) is passed over. A seat's release still
    waits for its answer, unless the game is over."""
    waiting = view.waiting_for
    if turn.stage is Stage.AGENT and (turn.seat not in waiting or turn.scene != (view.phase, view.step)):
        return Turn(Stage.HIDDEN, turn.seat)
    if turn.stage is Stage.PASS and turn.seat not in waiting:
        moved = next_call(view, turn.seat)
    elif turn.stage is Stage.WAIT and waiting:
        moved = next_call(view)
    else:
        moved = turn
    return replace(moved, releasing=None if view.step == OVER else turn.releasing)


# --- what the public side offers ------------------------------------------------------------------


class Control(StrEnum):
    """A button under the public side."""

    I_AM = "i am"  # the called agent comes to the screen
    NEXT_AGENT = "next agent"  # after a hidden turn: call the next one
    NEW_GAME = "new game"
    PASS_AND_PLAY = "pass and play"
    STOP = "stop"  # leave pass-and-play
    VOTE_NOW = "vote now"  # end the discussion


@dataclass(frozen=True, slots=True)
class Offer:
    """One button of the public side: the command it sends, or the ``Turn`` it moves to."""

    control: Control
    command: Command | None = None
    turn: Turn | None = None


def controls(view: PublicView, turn: Turn) -> list[Offer]:
    """The buttons under the public side, in order: pass-and-play's next move, NEW GAME at the
    end or else pass-and-play on or off, and VOTE NOW while the agents discuss."""
    offers: list[Offer] = []
    if turn.stage is Stage.PASS:
        offers.append(Offer(Control.I_AM, turn=Turn(Stage.AGENT, turn.seat, (view.phase, view.step))))
    elif turn.stage is Stage.HIDDEN:
        offers.append(Offer(Control.NEXT_AGENT, turn=next_call(view, turn.seat)))
    if view.step == OVER:
        offers.append(Offer(Control.NEW_GAME, NewGame()))
    elif turn.stage is Stage.TABLE:
        offers.append(Offer(Control.PASS_AND_PLAY, turn=next_call(view)))
    else:
        offers.append(Offer(Control.STOP, turn=PUBLIC_SIDE))
    if view.step == DISCUSSION:
        offers.append(Offer(Control.VOTE_NOW, EndDiscussion()))
    return offers


class Panel(StrEnum):
    """What the public side shows beside the seats."""

    RELEASE = "release"  # NEW CODE or CANCEL for the seat whose card was tapped
    CALL = "call"  # whom to pass the screen to, or that all is hidden
    TRUTH_MACHINE = "truth machine"  # who is there, or the last fact it revealed
    JOIN = "join"  # the QR code of the next seat whose phone has not opened its page


def releasable(view: PublicView, joins: tuple[str | None, ...]) -> bool:
    """Whether a tap on a seat's card may give it a new code: the phones' pages are on, and the
    game goes on."""
    return bool(joins) and view.step != OVER


def next_join(joins: tuple[str | None, ...]) -> tuple[int, str] | None:
    """The first seat whose page no phone has opened yet, and its link: one code at a time."""
    return next(((seat, link) for seat, link in enumerate(joins) if link is not None), None)


def panel(view: PublicView, turn: Turn, joins: tuple[str | None, ...]) -> Panel:
    """What shows beside the seats: a release waiting for its answer first, then pass-and-play's
    call, then the join codes until every phone has its page (never once the game is over)."""
    if releasable(view, joins) and turn.releasing is not None:
        return Panel.RELEASE
    if turn.stage in (Stage.PASS, Stage.HIDDEN):
        return Panel.CALL
    if next_join(joins) is None or view.step == OVER:
        return Panel.TRUTH_MACHINE
    return Panel.JOIN


# --- the menu of choices -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Option:
    """One button of the menu: the word it chooses, and the action it sends if that completes one."""

    word: str
    action: CodexAction | None


def _below(actions: list[CodexAction], choice: tuple[str, ...]) -> list[tuple[tuple[str, ...], CodexAction]]:
    return [(path, action) for action in actions if (path := choice_path(action))[: len(choice)] == choice]


def options(actions: list[CodexAction], choice: tuple[str, ...]) -> tuple[CodexAction | None, list[Option]]:
    """What ``choice`` already completes (an Inquisitore's plain vote), and the next words:
    each sends its action at once when nothing longer starts with it."""
    complete, words = None, {}
    for path, action in _below(actions, choice):
        if len(path) == len(choice):
            complete = action
            continue
        word = path[len(choice)]
        ends_here = len(path) == len(choice) + 1
        if word not in words:
            words[word] = action if ends_here else None
        elif words[word] is not None and not ends_here:
            words[word] = None  # it also leads further: choosing it opens the next menu
    return complete, [Option(word, action) for word, action in words.items()]


def settle(actions: list[CodexAction], choice: tuple[str, ...]) -> tuple[str, ...]:
    """``choice`` as the menu stands: back to the top if it leads nowhere now, and down through
    every choice that has one option only."""
    complete, next_words = options(actions, choice)
    if choice and complete is None and not next_words:
        return settle(actions, ())
    if complete is None and len(next_words) == 1 and next_words[0].action is None:
        return settle(actions, choice + (next_words[0].word,))
    return choice


@dataclass(frozen=True, slots=True)
class Menu:
    """The agent's buttons as its turn stands: the choices made (settled), where BACK goes
    (None at the top), and the options: first what the choices already complete (an
    Inquisitore's vote without extortion, word ""), then each next word."""

    turn: Turn
    choice: tuple[str, ...]
    back: Turn | None
    options: tuple[Option, ...]

    @property
    def hide(self) -> Turn:
        """Where HIDE goes: the agent's turn hidden, the screen to be passed on."""
        return Turn(Stage.HIDDEN, self.turn.seat)

    def opens(self, option: Option) -> Turn:
        """The turn an option that sends nothing yet leads to: its word chosen."""
        return replace(self.turn, choice=self.choice + (option.word,))


def menu(turn: Turn, actions: list[CodexAction]) -> Menu:
    """The menu of the agent at the screen, from its legal ``actions``."""
    choice = settle(actions, turn.choice)
    complete, next_words = options(actions, choice)
    back = replace(turn, choice=choice[:-1]) if choice != settle(actions, ()) else None
    return Menu(turn, choice, back, (*([Option("", complete)] if complete is not None else []), *next_words))


def after_command(turn: Turn) -> Turn:
    """``turn`` once a button has sent its command: a release is answered (NEW CODE) or left
    (another button), and the agent at the screen starts its next choice from the top."""
    return replace(turn, releasing=None, choice=() if turn.stage is Stage.AGENT else turn.choice)
