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

The screen's words are here too (``Speaker``: a canvas, or the terminal's ``Speech``): what each
seat's card, the truth machine, the call and the agent's own turn say, so the table's screen and
the terminal simulator say the same. ``Passing`` is what the screen remembers between frames.

codex_screen.py draws all this; it imports no pygame here, so the rules of the screen's turns
are tested on their own (tests/test_codex_turns.py), and the terminal plays them without pygame.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import Enum, StrEnum
from typing import Protocol, TypeVar

from ..engine.codex import DISCUSSION, MESSAGES, OVER, PRIVATE, TRUTH, VOTE, AgentView, PublicView, VoteResult, tally
from ..engine.codex_actions import CodexAction, EndDiscussion, EnterCode, Send, Vote
from ..engine.codex_rules import DESCRIPTION, Role
from ..engine.codex_setup import Fact, Identikit
from ..engine.phrase import N_, Phrase, Text
from ..hal import Command, NewGame
from ..hal.codex_model import CodexModel
from .i18n import TeamWord, say, translation

PUBLIC_REFUSALS = frozenset({
    "there is nothing to undo",
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


def standing(phase: int, step: str, waiting: list[int], lang: str) -> str:
    """Where a Codex game in play stands, as a line of text says it (``pi-table status``, the
    scripted simulator): its phase, its step and the seats it waits for, in ``lang``."""
    said = {"phase": phase, "step": Phrase.of(DESCRIPTION.phases[step])}
    if not waiting:
        return say(Phrase.of("phase {phase}, {step} step; waiting for no one", **said), lang)
    return say(Phrase.counting("count", "phase {phase}, {step} step; waiting for seat {seats}",
                               "phase {phase}, {step} step; waiting for seats {seats}", count=len(waiting),
                               seats=", ".join(map(str, waiting)), **said), lang)


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
            # a programming error: those stages always name a seat
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
    """The buttons under the public side, in order: pass-and-play's next move (none once the
    game is over: nobody has a turn left), NEW GAME at the end or else pass-and-play on or off,
    and VOTE NOW while the agents discuss."""
    offers: list[Offer] = []
    if turn.stage is Stage.PASS and view.step != OVER:
        offers.append(Offer(Control.I_AM, turn=Turn(Stage.AGENT, turn.seat, (view.phase, view.step))))
    elif turn.stage is Stage.HIDDEN and view.step != OVER:
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
    CODE = "code"  # at the end: the winning faction's code, under its own heading


def releasable(view: PublicView, joins: tuple[str | None, ...]) -> bool:
    """Whether a tap on a seat's card may give it a new code: the phones' pages are on, and the
    game goes on."""
    return bool(joins) and view.step != OVER


def next_join(joins: tuple[str | None, ...]) -> tuple[int, str] | None:
    """The first seat whose page no phone has opened yet, and its link: one code at a time."""
    return next(((seat, link) for seat, link in enumerate(joins) if link is not None), None)


def panel(view: PublicView, turn: Turn, joins: tuple[str | None, ...]) -> Panel:
    """What shows beside the seats: a release waiting for its answer first, then pass-and-play's
    call, then the join codes until every phone has its page; once the game is over, nobody is
    called and the winning code shows (the truth machine, if nobody won by a code)."""
    if view.step == OVER:
        return Panel.CODE if winning_code(view) is not None else Panel.TRUTH_MACHINE
    if releasable(view, joins) and turn.releasing is not None:
        return Panel.RELEASE
    if turn.stage in (Stage.PASS, Stage.HIDDEN):
        return Panel.CALL
    if next_join(joins) is None:
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


class Pressable(Protocol):
    """A button as the screen shows it: the command it sends, or the ``Turn`` it moves to."""

    @property
    def command(self) -> Command | None: ...

    @property
    def mode(self) -> object: ...


B = TypeVar("B", bound=Pressable)


def route(turn: Turn, buttons: Iterable[B], action: CodexAction) -> B | None:
    """The button among those shown at ``turn`` that sends ``action``, or else makes the next
    choice on its way (BACK, when the choices so far lead elsewhere); None when there is neither."""
    shown = list(buttons)
    path = choice_path(action)
    sends = [button for button in shown if button.command == action]
    if sends or turn.stage is not Stage.AGENT:
        return next(iter(sends), None)
    toward = [
        button for button in shown
        if isinstance(button.mode, Turn) and button.mode.stage is Stage.AGENT and button.mode.seat == turn.seat
        and path[: len(button.mode.choice)] == button.mode.choice
    ]
    return max(toward, key=lambda button: len(button.mode.choice) if isinstance(button.mode, Turn) else 0, default=None)


# --- what the screen remembers ---------------------------------------------------------------------


class Passing:
    """Where pass-and-play stands (``turn``) and the refusal of the agent's own last tap, kept
    between frames by whatever shows Codex's screen (its painter, the terminal simulator)."""

    def __init__(self) -> None:
        self.turn = Turn()
        self._game_id: str | None = None
        self._drawn: CodexModel | None = None
        self._sent_from: CodexModel | None = None  # the model an agent's action was tapped on
        self._refusal: Text | None = None  # why the table refused that action

    def see(self, model: CodexModel) -> Text | None:
        """Bring the turn up to date with ``model``, about to be shown; the refusal of the agent's
        own last tap, which only that agent may see (None when another stage shows)."""
        if model.game_id != self._game_id:
            self.turn, self._game_id = Turn(), model.game_id
        if self._sent_from is not None and model is not self._sent_from:
            # the first model after an agent's tap: the loop clears its message on every
            # accepted command, so a message here is that action's refusal
            self._refusal, self._sent_from = model.message, None
        self.turn = follow(self.turn, model.game.public_view(model.state))
        self._drawn = model
        return self._refusal if self.turn.stage is Stage.AGENT else None

    def press(self, command: Command | None, mode: object) -> Command | None:
        """A button of the frame shown was pressed: the command it sends, or None when it only
        moves pass-and-play on (its ``mode`` is a ``Turn``)."""
        self._refusal = None
        if isinstance(mode, Turn):
            self.turn = mode
            return None
        if self.turn.stage is Stage.AGENT:
            self._sent_from = self._drawn
        self.turn = after_command(self.turn)
        return command


# --- the screen's words ------------------------------------------------------------------------------


class Speaker(Protocol):
    """Whatever speaks the screen's words: a language and its catalogue (a canvas has both)."""

    @property
    def lang(self) -> str: ...

    @property
    def gettext(self) -> Callable[[str], str]: ...


@dataclass(frozen=True, slots=True)
class Speech:
    """A ``Speaker`` with nothing to draw on: the terminal simulator's."""

    lang: str

    @property
    def gettext(self) -> Callable[[str], str]:
        return translation(self.lang).gettext


FACT_WORDS = {
    Fact.CODENAME: N_("codename"), Fact.FACTION: N_("faction"), Fact.ROLE: N_("role"),
    Fact.POSITION: N_("position"), Fact.FRAGMENT: N_("fragment"),
}
ROLE_TITLES = {
    Role.HACKER: N_("Hacker"), Role.INFILTRATO: N_("Infiltrato"), Role.INFORMATORE: N_("Informatore"),
    Role.INQUISITORE: N_("Inquisitore"), Role.LEADER: N_("Leader"), Role.PROFILER: N_("Profiler"),
}
STEP_TITLES = {
    MESSAGES: N_("Messages"), PRIVATE: N_("Private turn"), DISCUSSION: N_("Discussion"), VOTE: N_("Vote"),
    TRUTH: N_("Truth machine"), OVER: N_("Game over"),
}
CONTROL_WORDS = {
    Control.I_AM: N_("I AM {codename}"), Control.NEXT_AGENT: N_("NEXT AGENT"), Control.NEW_GAME: N_("NEW GAME"),
    Control.PASS_AND_PLAY: N_("PASS AND PLAY"), Control.STOP: N_("STOP"), Control.VOTE_NOW: N_("VOTE NOW"),
}
RESULTS = {"pending": N_("sealed till the step ends"), "wrong": N_("wrong"), "right": N_("right"),
           "blocked": N_("void: blocked by a Hacker")}
OUTCOMES = {"named": N_("named"), "kept": N_("another Inquisitore was first: power kept"),
            "missed": N_("not sent to the truth machine: power kept"), "extorted": N_("extorted")}


def agent_name(words: Speaker, codenames: tuple[str, ...], seat: int) -> str:
    return words.gettext("{codename} (seat {seat})").format(codename=codenames[seat], seat=seat)


def fact_value(words: Speaker, fact: Fact, value: str | int) -> str:
    """A fact's value in words: the faction as its colour, the role by its title."""
    if fact is Fact.FACTION:
        return str(TeamWord(str(value), words.lang))
    if fact is Fact.ROLE:
        return words.gettext(ROLE_TITLES[Role(str(value))])
    return str(value)


def fact_said(words: Speaker, fact: Fact, value: str | int) -> str:
    return f"{words.gettext(FACT_WORDS[fact])}: {fact_value(words, fact, value)}"


def facts_said(words: Speaker, facts: tuple[tuple[Fact, str | int], ...]) -> str:
    return ", ".join(fact_said(words, fact, value) for fact, value in facts)


def headline(words: Speaker, view: PublicView) -> str:
    _ = words.gettext
    return _("Phase {phase} · {step}").format(phase=view.phase, step=_(STEP_TITLES[view.step]))


def step_words(model: CodexModel) -> str:
    """What the step asks of the agents, or how the game ended."""
    state = model.state
    reason = model.game.reason(state) if state.is_over else None  # a game is over when a faction won
    return say(model.game.step_words(state) if reason is None else reason, model.lang)


def winner_title(words: Speaker, view: PublicView) -> str | None:
    if view.winner is None:
        return None
    return words.gettext("{team} faction wins").format(team=TeamWord(view.winner.value, words.lang)).upper()


def roles_in_play(words: Speaker, view: PublicView) -> str:
    return " · ".join(words.gettext(ROLE_TITLES[role]) for role in view.roles)


class SeatLine(StrEnum):
    """What a line on a seat's card says, for its look."""

    TRUTH = "truth"  # at the truth machine now
    BALLOT = "ballot"  # whom it votes for, as the ballots are cast
    DONE = "done"
    WAITING = "waiting"  # still to act this step
    VOTES = "votes"  # the votes it has
    FACTION = "faction"  # at the end: its faction
    ROLE = "role"  # at the end: its role
    SHOWS = "shows"  # an Infiltrato's faction shown
    CODE = "code"  # at the end: its position and fragment
    FACT = "fact"  # a fact the truth machine revealed
    LATEST = "latest"  # the last one


def seat_lines(words: Speaker, view: PublicView, seat: int) -> list[tuple[SeatLine, str]]:
    """Under a seat's codename: whether it has acted, its votes, what it revealed (at the end,
    its identikit)."""
    _ = words.gettext
    vote = shown_vote(view)
    chose = dict(view.ballots)  # the vote going on, public as each ballot is cast (unless sealed)
    lines: list[tuple[SeatLine, str]] = []
    if seat == view.truth:
        lines.append((SeatLine.TRUTH, _("at the truth machine")))
    elif seat in chose:
        lines.append((SeatLine.BALLOT, _("votes for {agent}").format(agent=view.codenames[chose[seat]])))
    elif view.step in (MESSAGES, PRIVATE, VOTE):
        lines.append((SeatLine.DONE, _("done")) if seat in view.acted else (SeatLine.WAITING, _("to act")))
    count = vote.tally[seat] if vote is not None else tally(view.ballots)[seat]
    if vote is not None or count:
        lines.append((SeatLine.VOTES, translation(words.lang).ngettext("{count} vote", "{count} votes", count).format(
            count=count)))
    identikit = view.identikits[seat] if view.identikits is not None else None
    if identikit is not None:
        lines.append((SeatLine.FACTION, _("{team} faction").format(team=TeamWord(identikit.faction.value, words.lang))))
        lines.append((SeatLine.ROLE, fact_value(words, Fact.ROLE, identikit.role.value)))
        if identikit.role is Role.INFILTRATO:  # the faction it shows, as its own identikit says
            lines.append((SeatLine.SHOWS, _("shows {team}").format(team=TeamWord(identikit.shown_faction.value,
                                                                                 words.lang))))
        lines.append((SeatLine.CODE, f"{identikit.position} · {identikit.fragment}"))
    else:
        latest = view.revelations[-1] if view.revelations else None
        lines += [(SeatLine.LATEST if r is latest else SeatLine.FACT, fact_said(words, r.fact, r.value))
                  for r in view.revelations if r.seat == seat]
    return lines


class Truth(StrEnum):
    """What the truth machine's panel shows."""

    AT = "at"  # who is there now, to reveal a fact
    LAST = "last"  # the last fact it revealed: the phase, who, the fact
    NOBODY = "nobody"


def winning_code(view: PublicView) -> tuple[str, ...] | None:
    """The winning faction's code, its fragments in order, once the game is over and won."""
    if view.identikits is None or view.winner is None:
        return None
    members = sorted((a for a in view.identikits if a.faction is view.winner), key=lambda a: a.position)
    return tuple(agent.fragment for agent in members)


def truth_machine(words: Speaker, view: PublicView) -> tuple[Truth, tuple[str, ...]]:
    """Who is at the truth machine, or the last fact it revealed."""
    _ = words.gettext
    if view.truth is not None:
        return Truth.AT, (view.codenames[view.truth], _("reveals one fact of its identikit, truthfully"))
    if view.revelations:
        last = view.revelations[-1]
        return Truth.LAST, (_("phase {phase}").format(phase=last.phase), view.codenames[last.seat],
                            fact_said(words, last.fact, last.value))
    return Truth.NOBODY, (_("nobody yet"),)


def call_words(words: Speaker, view: PublicView, turn: Turn) -> str:
    """Pass-and-play's word to the table: whom to pass the screen to, or that all is hidden."""
    if turn.stage is Stage.PASS:
        return words.gettext("Pass the screen to {agent}").format(agent=agent_name(words, view.codenames, turn.agent))
    return words.gettext("Hidden. Pass the screen to the next agent")


def control_label(words: Speaker, view: PublicView, turn: Turn, control: Control) -> str:
    label = words.gettext(CONTROL_WORDS[control])
    if control is Control.I_AM:
        label = label.format(codename=view.codenames[turn.agent].upper())
    return label


def agent_title(words: Speaker, view: AgentView) -> str:
    return words.gettext("{agent}: your turn").format(agent=agent_name(words, view.public.codenames, view.seat))


def identikit_rows(words: Speaker, me: Identikit) -> list[tuple[Fact, str, str]]:
    """The agent's identikit as the screen lists it: each fact, its name and its value."""
    rows = [(Fact.FACTION, me.shown_faction.value), (Fact.ROLE, me.role.value), (Fact.POSITION, me.position),
            (Fact.FRAGMENT, me.fragment)]
    return [(fact, words.gettext(FACT_WORDS[fact]), fact_value(words, fact, value)) for fact, value in rows]


def identikit_notes(words: Speaker, view: AgentView, actions: list[CodexAction]) -> list[str]:
    """What the agent's identikit adds: an Infiltrato's real faction, how its code stands."""
    _ = words.gettext
    me = view.identikit
    lines = []
    if me.role is Role.INFILTRATO:
        lines.append(_("you belong to the {team} faction and win with it").format(
            team=TeamWord(me.faction.value, words.lang)))
    if view.may_enter_code:
        can_code = any(isinstance(action, EnterCode) for action in actions)  # it has seen three fragments
        lines.append(_("you may enter a code now") if can_code else _("a code needs three fragments you have seen"))
    elif me.role is not Role.LEADER and any(a.result == "wrong" for a in view.attempts):
        lines.append(_("your one try at the code is spent"))
    return lines


def agent_notes(words: Speaker, view: AgentView) -> list[tuple[int, str]]:
    """The inbox and every result the agent has had, each with its phase, the newest first."""
    _ = words.gettext
    codenames = view.public.codenames
    notes: list[tuple[int, str]] = []
    for message in view.inbox:
        text = _("message {number}: {fragment} - {facts}").format(
            number=message.number, fragment=message.fragment, facts=facts_said(words, message.facts))
        if message.profiled is not None:
            text += " (" + _("sender's {fact}").format(fact=fact_said(words, *message.profiled)) + ")"
        notes.append((message.phase, text))
    for sent in view.sent:
        notes.append((sent.phase, _("you told {agent}: {facts}").format(
            agent=agent_name(words, codenames, sent.recipient), facts=facts_said(words, sent.facts))))
    for attempt in view.attempts:
        notes.append((attempt.phase, _("code {code}: {result}").format(
            code=attempt.code, result=_(RESULTS[attempt.result]))))
    for phase in view.blocked_in:
        notes.append((phase, _("a Hacker blocked you: no code this phase")))
    for revelation in view.extorted:
        notes.append((revelation.phase, _("an Inquisitore made the truth machine reveal your {fact}").format(
            fact=_(FACT_WORDS[revelation.fact]))))
    for block in view.blocks:
        notes.append((block.phase, _("you blocked {agent}").format(agent=agent_name(words, codenames, block.target))))
    for extortion in view.extortions:
        notes.append((extortion.phase, _("you extort the {fact} of {agent}: {outcome}").format(
            fact=_(FACT_WORDS[extortion.fact]), agent=agent_name(words, codenames, extortion.target),
            outcome=_(OUTCOMES[extortion.outcome]))))
    return sorted(notes, key=lambda note: -note[0])


def choice_prompt(words: Speaker, public: PublicView, choice: tuple[str, ...], can_act: bool) -> str:
    """What the agent's buttons are choosing."""
    _ = words.gettext
    if not can_act:
        return _("Nothing to do now: tap HIDE")
    verb, depth = (choice[0] if choice else None), len(choice)
    if verb is None:
        return _("Enter a code, use your power, or end your private turn")
    if verb == "send":
        if depth == 1:
            return _("Send your fragment and one fact to")
        return _("With your fragment, tell {agent}").format(agent=agent_name(words, public.codenames, int(choice[1])))
    if verb == "code":
        return _("Your faction's code: the fragment in position {position}").format(position=depth)
    if verb == "block":
        return _("Block an agent from entering a code this phase")
    if verb == "profile":
        return _("Ask about the sender of a message") if depth == 1 else _("Which fact of its sender?")
    if verb == "vote":
        if depth == 1:
            return _("Vote: who goes to the truth machine?")
        return _("Extort a fact from {agent}, if it goes there?").format(
            agent=agent_name(words, public.codenames, int(choice[1])))
    return _("Reveal one fact of your identikit, truthfully")


def code_so_far(words: Speaker, choice: tuple[str, ...]) -> str | None:
    """The fragments of a code tapped so far, said apart from the prompt for the next one (beside
    it, "position 2  AAAA" read as position 2 being AAAA)."""
    if len(choice) < 2 or choice[0] != "code":
        return None
    return words.gettext("the code so far: {code}").format(code="-".join(choice[1:]))


def option_label(words: Speaker, public: PublicView, choice: tuple[str, ...], option: Option) -> str:
    """A button's words for choosing ``option.word`` after ``choice``."""
    _ = words.gettext
    word, depth = option.word, len(choice)
    if not word:  # what the choice already completes: an Inquisitore's vote without extortion
        return _("no extortion")
    if depth == 0:
        verbs = {"done": N_("END MY TURN"), "code": N_("ENTER A CODE"), "block": N_("BLOCK AN AGENT"),
                 "profile": N_("ASK ABOUT A SENDER"), "send": N_("SEND"), "vote": N_("VOTE"),
                 "reveal": N_("REVEAL")}
        return _(verbs[word])
    verb = choice[0]
    if (verb in ("send", "block", "vote")) and depth == 1:
        return agent_name(words, public.codenames, int(word))
    if verb == "profile" and depth == 1:
        return _("message {number}").format(number=word)
    if verb == "code":
        return word
    facts = word.removeprefix("extort ").split()
    names = " + ".join(_(FACT_WORDS[Fact(fact)]) for fact in facts)
    return _("extort: {fact}").format(fact=names) if word.startswith("extort") else names
