"""Codex: six agents in two factions of three, and the table as the Master.

A pure state machine in the OpenSpiel style: ``Codex.start(setup)``, ``legal_actions``, ``apply``,
``waiting_for``, ``returns``, and one observer per agent (``agent_view``) plus a public one
(``public_view``). A game is its setup (``codex_setup``) plus the accepted actions
(``codex_actions``), as the grid games are a key plus actions.

A phase (the rulebook's "fase") runs through these steps:

1. ``messages``: every agent sends exactly one message to another agent: its fragment and one
   fact of its identikit. The messages are delivered together when the sixth is in, each inbox
   sorted by the message's text, so neither timing nor order gives a sender away.
2. ``private``: an agent may enter a code, a Hacker may block, a Profiler may ask; each agent
   ends its turn with ``done``. Codes are sealed until all six are done, then checked in the
   order they were entered, so a Hacker's block counts whenever in the step it came.
3. ``discussion``: public talk, ended by ``end-discussion`` from the table's timer.
4. ``vote``: every agent votes for another agent; an Inquisitore names the fact to extort with
   its vote. When the sixth vote is in, the most voted agent goes to the truth machine.
5. ``truth``: that agent chooses a fact to reveal; then the next phase begins.

The game ends (``over``) when a code is right; the agent's faction wins.

Where the rulebook leaves room, we chose:

- Codenames are public (the rulebook's codename is a player's nickname): the public view names
  every seat's codename, so telling the codename fact names the sender.
- The faction fact is the faction the identikit shows. An Infiltrato's identikit shows the
  other faction, and its messages, its truth machine reveals, an Inquisitore's extortion and a
  Profiler's question all say that shown faction: "true to the identikit". It holds the
  fragment of the faction it belongs to, its position is in that faction's code, it enters that
  code and wins with it. Its own view gives both (``faction`` and ``true_faction``).
- An Informatore may send one fact like anyone or two different facts, one of them its role
  (the rulebook's "può"). No message names the fragment as its fact: the fragment always goes.
- An agent enters its own faction's code. One attempt per game, except the Leader, who may try
  once in every phase. A wrong code, or the right fragments in the wrong order, ends a
  non-Leader's chances. An attempt a Hacker blocks is void: it does not count as the one try.
- The Hacker blocks any other agent, once per phase, never the agent it blocked in the phase
  just before (after a phase without a block, any target is allowed again). Its code of this
  phase, entered before the block or after, is void. The rulebook tells the target "un Hacker
  ti ha impedito di inserire il codice" but not when; told at the Hacker's action, the moment
  would point at the agent who was busy on their phone just then. So the target is told when
  the private step ends for everyone (``blocked_in``, with the step's code results), and until
  then nothing changes for it: it may still enter a code, which is sealed like any other (a
  refusal would tell as much as the notice) and void when the step ends.
- If two right codes come in the same phase, the first entered counts: the table serialises
  inputs, so the order of acceptance is the order.
- The Profiler asks about a message in the phase it arrives, for a fact the message did not
  carry (codename, faction, role or position), once per game.
- The Inquisitore's power is spent when it takes effect: its agent goes to the truth machine
  and reveals the fact it named. The book says a second Inquisitore naming the same agent "non
  sprecherà il proprio potere"; read the same way, an extortion whose agent escapes the truth
  machine (``missed``) is not spent either, and it may extort in a later vote. When both name
  the same agent in one vote, the first counts and the second keeps its power (and is told
  so). The fact must not be one the agent already revealed, and cannot be the codename.
- Agents vote for another agent, never for themselves.
- The truth machine takes the most voted agent. Ties go to the agent that has revealed fewer
  facts there; then to the one that first received its deciding vote, the vote that brought it
  to the winning count, in the order the votes were accepted.
- The truth machine reveals faction, role, position or fragment, never the codename and never
  a fact that agent already revealed there. An extortion leaves the agent no choice: its view
  says which fact (``extorting``) and that is the one reveal it may make; the public sees only
  the fact revealed. An agent with nothing left to reveal is sent back with
  no reveal and the next phase begins.
- When the game is over, the public view shows every identikit.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

from .actions import Undo
from .codex_actions import (
    Block,
    CodexAction,
    Done,
    EndDiscussion,
    EnterCode,
    Profile,
    Reveal,
    Send,
    Vote,
    parse_codex_action,
)
from .codex_rules import DESCRIPTION, NAME, CodexRules, InvalidSetup, Role
from .codex_setup import (
    MESSAGE_FACTS,
    SEATS,
    TRUTH_FACTS,
    Fact,
    Faction,
    Identikit,
    Setup,
    deal_setup,
    parse_setup,
)
from .described import Description
from .endings import Ending, Termination
from .errors import GameOver, InvalidAction, RuleError
from .phrase import N_, Phrase
from .record import GameRecord


class Step(StrEnum):
    """Where a Codex phase stands (the module's docstring tells each); the value is its name in
    the table's JSON."""

    MESSAGES = "messages"
    PRIVATE = "private"
    DISCUSSION = "discussion"
    VOTE = "vote"
    TRUTH = "truth"
    OVER = "over"


MESSAGES, PRIVATE, DISCUSSION, VOTE, TRUTH, OVER = (
    Step.MESSAGES, Step.PRIVATE, Step.DISCUSSION, Step.VOTE, Step.TRUTH, Step.OVER)
STEPS = tuple(Step)


class Result(StrEnum):
    """A code attempt's result: sealed until the private step ends, then checked (or void if blocked)."""

    PENDING = "pending"
    WRONG = "wrong"
    RIGHT = "right"
    BLOCKED = "blocked"


PENDING, WRONG, RIGHT, BLOCKED = Result.PENDING, Result.WRONG, Result.RIGHT, Result.BLOCKED


class Extorted(StrEnum):
    """An extortion's outcome: named during the vote; kept (another Inquisitore named that agent
    first); missed (its agent did not go to the truth machine); extorted, the only one that spends
    the power."""

    NAMED = "named"
    KEPT = "kept"
    MISSED = "missed"
    EXTORTED = "extorted"


NAMED, KEPT, MISSED, EXTORTED = Extorted.NAMED, Extorted.KEPT, Extorted.MISSED, Extorted.EXTORTED

ALL_SEATS = tuple(range(SEATS))

STEP_WORDS = {
    MESSAGES: Phrase.of("the agents are sending their messages"),
    PRIVATE: Phrase.of("the agents are in their private turn"),
    DISCUSSION: Phrase.of("the discussion is on"),
    VOTE: Phrase.of("the agents are voting"),
    OVER: Phrase.of("the game is over"),
}
"""Where each step stands, in words (the truth step names its agent: ``Codex.step_words``)."""

ONLY_IN_STEP = {
    MESSAGES: N_("{what} only in the messages step: {words}"),
    PRIVATE: N_("{what} only in the private step: {words}"),
    DISCUSSION: N_("{what} only in the discussion step: {words}"),
    VOTE: N_("{what} only in the vote step: {words}"),
    TRUTH: N_("{what} only in the truth step: {words}"),
}
"""A step's refusal of what belongs to another, one sentence per step."""

REVEALED_HERE = {
    Fact.FACTION: N_("{agent} already revealed its faction here: reveal another fact"),
    Fact.ROLE: N_("{agent} already revealed its role here: reveal another fact"),
    Fact.POSITION: N_("{agent} already revealed its position here: reveal another fact"),
    Fact.FRAGMENT: N_("{agent} already revealed its fragment here: reveal another fact"),
}
"""The truth machine's refusal of a fact already told, one sentence per fact."""


# --- what happened: the records a state keeps ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Message:
    """A message as the table relays it; ``sender`` stays with the table (the Profiler aside)."""

    phase: int
    sender: int
    recipient: int
    fragment: str
    facts: tuple[tuple[Fact, str | int], ...]

    @property
    def text(self) -> str:
        """How the table shows it, e.g. ``X53T - position 3`` (the rulebook's "codice 3 - X53T")."""
        return f"{self.fragment} - " + ", ".join(f"{fact} {value}" for fact, value in self.facts)

    def tells(self, fact: Fact) -> bool:
        return any(told == fact for told, _ in self.facts)


@dataclass(frozen=True, slots=True)
class Attempt:
    phase: int
    seat: int
    code: str
    result: Result = PENDING


@dataclass(frozen=True, slots=True)
class HackerBlock:
    phase: int
    hacker: int
    target: int


@dataclass(frozen=True, slots=True)
class ProfilerQuestion:
    """The Profiler's one question: about the sender of inbox message ``message``."""

    phase: int
    profiler: int
    message: int
    fact: Fact
    value: str | int


@dataclass(frozen=True, slots=True)
class Extortion:
    phase: int
    inquisitore: int
    target: int
    fact: Fact
    outcome: Extorted = NAMED


def tally(ballots: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """The votes each seat received, from (voter, target) ballots."""
    return tuple(sum(1 for _, target in ballots if target == seat) for seat in ALL_SEATS)


@dataclass(frozen=True, slots=True)
class VoteResult:
    """A closed vote: the ballots (voter, target) in the order accepted, and who went to the truth machine."""

    phase: int
    ballots: tuple[tuple[int, int], ...]
    chosen: int

    @property
    def tally(self) -> tuple[int, ...]:
        return tally(self.ballots)

    def to_json(self) -> dict[str, object]:
        return {
            "phase": self.phase,
            "ballots": [{"voter": voter, "target": target} for voter, target in self.ballots],
            "tally": list(self.tally),
            "chosen": self.chosen,
        }


@dataclass(frozen=True, slots=True)
class Revelation:
    """A fact the truth machine made public."""

    phase: int
    seat: int
    fact: Fact
    value: str | int

    def to_json(self) -> dict[str, object]:
        return {"phase": self.phase, "seat": self.seat, "fact": self.fact.value, "value": self.value}


@dataclass(frozen=True, slots=True)
class CodexState:
    """One moment of a Codex game; ``acted`` holds the seats done with the current step."""

    setup: Setup
    phase: int = 1
    step: Step = MESSAGES
    acted: tuple[int, ...] = ()
    messages: tuple[Message, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    blocks: tuple[HackerBlock, ...] = ()
    questions: tuple[ProfilerQuestion, ...] = ()
    extortions: tuple[Extortion, ...] = ()
    ballots: tuple[tuple[int, int], ...] = ()
    votes: tuple[VoteResult, ...] = ()
    revelations: tuple[Revelation, ...] = ()
    truth: int | None = None
    winner: Faction | None = None
    winning_seat: int | None = None
    termination: Termination | None = None

    @property
    def is_over(self) -> bool:
        return self.step == OVER

    @property
    def at_truth(self) -> int:
        """The agent at the truth machine; only the truth step has one."""
        if self.truth is None:
            raise RuleError("nobody is at the truth machine in the {step} step", step=self.step)
        return self.truth

    def revealed(self, seat: int) -> tuple[Fact, ...]:
        """The facts ``seat`` has revealed at the truth machine, in order."""
        return tuple(revelation.fact for revelation in self.revelations if revelation.seat == seat)


# --- the observers ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PublicView:
    """What everyone at the table may know: the step, who has acted (not what), the open vote's
    ballots as they are cast (none with sealed voting), the closed votes, truth machine reveals,
    and the winner. At the end, every identikit."""

    phase: int
    step: Step
    codenames: tuple[str, ...]
    roles: tuple[Role, ...]
    acted: tuple[int, ...]
    waiting_for: tuple[int, ...]
    truth: int | None
    ballots: tuple[tuple[int, int], ...]
    votes: tuple[VoteResult, ...]
    revelations: tuple[Revelation, ...]
    winner: Faction | None
    winning_seat: int | None
    reason: Phrase | None  # made from the termination
    termination: Termination | None
    identikits: tuple[Identikit, ...] | None

    @property
    def game(self) -> str:
        """The game's name, as ``TableView.game`` gives it for the grid games."""
        return NAME

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "phase": self.phase,
            "step": self.step,
            "codenames": list(self.codenames),
            "roles": [role.value for role in self.roles],
            "acted": list(self.acted),
            "waiting_for": list(self.waiting_for),
            "truth": self.truth,
            "ballots": [{"voter": voter, "target": target} for voter, target in self.ballots],
            "votes": [vote.to_json() for vote in self.votes],
            "revelations": [revelation.to_json() for revelation in self.revelations],
            "revealed": [[r.fact.value for r in self.revelations if r.seat == seat] for seat in ALL_SEATS],
            "winner": None if self.winner is None else self.winner.value,
            "winning_seat": self.winning_seat,
            "reason": None if self.reason is None else str(self.reason),
            "identikits": None if self.identikits is None else [agent.to_json() for agent in self.identikits],
            "termination": None if self.termination is None else self.termination.value,
        }


@dataclass(frozen=True, slots=True)
class Received:
    """A message in an agent's inbox: no sender, only what the table relays (and the Profiler's answer)."""

    number: int
    phase: int
    fragment: str
    facts: tuple[tuple[Fact, str | int], ...]
    text: str
    profiled: tuple[Fact, str | int] | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "number": self.number,
            "phase": self.phase,
            "fragment": self.fragment,
            "facts": {fact.value: value for fact, value in self.facts},
            "text": self.text,
            "profiled": None if self.profiled is None else {self.profiled[0].value: self.profiled[1]},
        }


@dataclass(frozen=True, slots=True)
class AgentView:
    """Exactly what one agent may know: its identikit, its inbox, its own messages, attempts and
    powers, the notices addressed to it, and the public view."""

    seat: int
    identikit: Identikit
    inbox: tuple[Received, ...]
    sent: tuple[Message, ...]
    attempts: tuple[Attempt, ...]
    may_enter_code: bool
    blocked_in: tuple[int, ...]  # the phases a Hacker blocked it, each told once its private step is over
    extorted: tuple[Revelation, ...]
    extorting: Fact | None  # at the truth machine now, the fact an Inquisitore makes it reveal
    blocks: tuple[HackerBlock, ...]
    may_not_block: int | None
    questions: tuple[ProfilerQuestion, ...]
    extortions: tuple[Extortion, ...]
    public: PublicView

    def to_json(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "identikit": self.identikit.to_json(),
            "inbox": [message.to_json() for message in self.inbox],
            "sent": [
                {"phase": m.phase, "to": m.recipient, "facts": {f.value: value for f, value in m.facts}, "text": m.text}
                for m in self.sent
            ],
            "attempts": [{"phase": a.phase, "code": a.code, "result": a.result} for a in self.attempts],
            "may_enter_code": self.may_enter_code,
            "blocked_in": list(self.blocked_in),
            "extorted": [{"phase": r.phase, "fact": r.fact.value} for r in self.extorted],
            "extorting": None if self.extorting is None else self.extorting.value,
            "powers": self.powers(),
            "public": self.public.to_json(),
        }

    def powers(self) -> dict[str, object]:
        """The agent's own power, its uses and their results; empty for a role without one to use."""
        role = self.identikit.role
        if role is Role.HACKER:
            blocks = [{"phase": b.phase, "target": b.target} for b in self.blocks]
            return {"hacker": {"blocks": blocks, "may_not_block": self.may_not_block}}
        if role is Role.PROFILER:
            questions = [
                {"phase": q.phase, "message": q.message, "fact": q.fact.value, "value": q.value} for q in self.questions
            ]
            return {"profiler": {"spent": bool(questions), "questions": questions}}
        if role is Role.INQUISITORE:
            extortions = [
                {"phase": e.phase, "target": e.target, "fact": e.fact.value, "outcome": e.outcome}
                for e in self.extortions
            ]
            return {"inquisitore": {"spent": any(e.outcome == EXTORTED for e in self.extortions),
                                    "extortions": extortions}}
        return {}


# --- the game -----------------------------------------------------------------------------------


class Codex:
    """The rules of Codex; holds no per-game data. See the module docstring for the steps."""

    name: ClassVar[str] = NAME
    description: ClassVar[Description] = DESCRIPTION

    def __init__(self, rules: CodexRules | None = None) -> None:
        self.rules = rules or CodexRules()

    # --- setup --------------------------------------------------------------------------

    def deal(self, rng: random.Random) -> Setup:
        """A random setup, with the rules' roles if they force them."""
        return deal_setup(rng, self.rules.roles)

    def parse_setup(self, text: str) -> Setup:
        setup = parse_setup(text)
        self.check_setup(setup)
        return setup

    def check_setup(self, setup: Setup) -> None:
        if self.rules.roles is not None and setup.roles != self.rules.roles:
            wanted = ", ".join(role.value for role in self.rules.roles)
            found = ", ".join(role.value for role in setup.roles)
            raise InvalidSetup("the rules put {wanted} in play; this setup has {found}", wanted=wanted, found=found)

    def start(self, setup: Setup) -> CodexState:
        self.check_setup(setup)
        return CodexState(setup=setup)

    # --- play ---------------------------------------------------------------------------

    def apply(self, state: CodexState, action: CodexAction) -> CodexState:
        """The state after ``action``; raise ``RuleError``/``InvalidAction`` to refuse it."""
        if state.is_over:
            raise GameOver("the game is over ({reason}): start a new game", reason=self.reason(state))
        handler = self._handlers.get(type(action))
        if handler is None:
            raise InvalidAction("{action} is not a Codex action", action=str(action))
        return handler(self, state, action)

    def read_action(self, text: str) -> CodexAction | Undo:
        """An action of Codex (or ``undo``) from its text form, as the journal keeps it."""
        return Undo() if text.strip() == "undo" else parse_codex_action(text)

    def _send(self, state: CodexState, action: Send) -> CodexState:
        seat, agent = action.seat, state.setup.agents[action.seat]
        self._in_step(state, MESSAGES, Phrase.of("messages are sent"))
        if seat in state.acted:
            raise RuleError("{agent} has already sent its message this phase", agent=self.who(state, seat))
        if action.to == seat:
            raise RuleError("an agent sends its message to another agent, not to itself")
        if Fact.FRAGMENT in action.facts:
            raise RuleError("the fragment goes with every message: add the codename, faction, role or position")
        if len(action.facts) == 2:
            if agent.role is not Role.INFORMATORE:
                raise RuleError("{agent} is not an Informatore: one fact goes with the fragment", agent=self.who(state, seat))
            if Fact.ROLE not in action.facts:
                raise RuleError("an Informatore sending two facts must make its role one of them")
        message = Message(state.phase, seat, action.to, agent.fragment, tuple((f, agent.fact(f)) for f in action.facts))
        state = replace(state, messages=state.messages + (message,), acted=state.acted + (seat,))
        if len(state.acted) == SEATS:
            state = replace(state, step=PRIVATE, acted=())
        return state

    def _enter_code(self, state: CodexState, action: EnterCode) -> CodexState:
        self._private_turn(state, action.seat, Phrase.of("a code is entered"))
        refusal = self._code_refusal(state, action.seat)
        if refusal:
            raise RuleError(refusal)
        return replace(state, attempts=state.attempts + (Attempt(state.phase, action.seat, action.code),))

    def _block(self, state: CodexState, action: Block) -> CodexState:
        seat, target = action.seat, action.target
        self._private_turn(state, seat, Phrase.of("a Hacker blocks"))
        if not self._is(state, seat, Role.HACKER):
            raise RuleError("{agent} is not a Hacker: only a Hacker blocks", agent=self.who(state, seat))
        done = [block for block in state.blocks if block.hacker == seat and block.phase == state.phase]
        if done:
            raise RuleError("{agent} has already blocked {target} this phase", agent=self.who(state, seat),
                            target=self.who(state, done[0].target))
        if target == seat:
            raise RuleError("a Hacker blocks another agent, not itself")
        if target == self.last_target(state, seat):
            raise RuleError("a Hacker never blocks the same agent two phases in a row: {target} was blocked last phase",
                            target=self.who(state, target))
        return replace(state, blocks=state.blocks + (HackerBlock(state.phase, seat, target),))

    def _profile(self, state: CodexState, action: Profile) -> CodexState:
        seat, number, fact = action.seat, action.message, action.fact
        self._private_turn(state, seat, Phrase.of("the Profiler asks"))
        if not self._is(state, seat, Role.PROFILER):
            raise RuleError("{agent} is not a Profiler: only a Profiler asks about a sender", agent=self.who(state, seat))
        asked = [question for question in state.questions if question.profiler == seat]
        if asked:
            raise RuleError("{agent} asked its one question in phase {phase}: once per game", agent=self.who(state, seat),
                            phase=asked[0].phase)
        inbox = self.inbox(state, seat)
        if number > len(inbox):
            raise RuleError(Phrase.counting("count", "{agent} has no message {number}: its inbox holds {count}",
                                            "{agent} has no message {number}: its inbox holds {count}",
                                            agent=self.who(state, seat), number=number, count=len(inbox)))
        message = inbox[number - 1]
        if message.phase != state.phase:
            raise RuleError("the Profiler asks as a message arrives: message {number} came in phase {phase}", number=number,
                            phase=message.phase)
        if fact not in MESSAGE_FACTS:
            raise RuleError("the fragment came with the message: ask for the codename, faction, role or position")
        if message.tells(fact):
            raise RuleError("message {number} already says the sender's {fact}: ask for another fact", number=number,
                            fact=Phrase.of(fact.value))
        value = state.setup.agents[message.sender].fact(fact)
        return replace(state, questions=state.questions + (ProfilerQuestion(state.phase, seat, number, fact, value),))

    def _done(self, state: CodexState, action: Done) -> CodexState:
        self._private_turn(state, action.seat, Phrase.of("an agent ends its private turn"))
        state = replace(state, acted=state.acted + (action.seat,))
        return self._check_codes(state) if len(state.acted) == SEATS else state

    def _check_codes(self, state: CodexState) -> CodexState:
        """The private step is over: check this phase's codes in the order entered; the first right one wins."""
        blocked = self.blocked(state)
        attempts, winner = [], None
        for attempt in state.attempts:
            if attempt.phase == state.phase:
                if attempt.seat in blocked:
                    attempt = replace(attempt, result=BLOCKED)
                elif attempt.code == state.setup.code(state.setup.agents[attempt.seat].faction):
                    attempt = replace(attempt, result=RIGHT)
                    winner = attempt.seat if winner is None else winner
                else:
                    attempt = replace(attempt, result=WRONG)
            attempts.append(attempt)
        state = replace(state, attempts=tuple(attempts), acted=())
        if winner is None:
            return replace(state, step=DISCUSSION)
        return replace(state, step=OVER, winner=state.setup.agents[winner].faction, winning_seat=winner,
                       termination=Termination.CODE_ENTERED)

    def _end_discussion(self, state: CodexState, action: EndDiscussion) -> CodexState:
        self._in_step(state, DISCUSSION, Phrase.of("the discussion ends"))
        return replace(state, step=VOTE)

    def _vote(self, state: CodexState, action: Vote) -> CodexState:
        seat, target = action.seat, action.target
        self._in_step(state, VOTE, Phrase.of("agents vote"))
        if seat in state.acted:
            raise RuleError("{agent} has already voted this phase", agent=self.who(state, seat))
        if target == seat:
            raise RuleError("an agent votes for another agent, not for itself")
        if action.extort is not None:
            state = replace(state, extortions=state.extortions + (self._extortion(state, action),))
        state = replace(state, ballots=state.ballots + ((seat, target),), acted=state.acted + (seat,))
        return self._close_vote(state) if len(state.acted) == SEATS else state

    def _extortion(self, state: CodexState, action: Vote) -> Extortion:
        seat, target, fact = action.seat, action.target, action.extort
        if not self._is(state, seat, Role.INQUISITORE):
            raise RuleError("{agent} is not an Inquisitore: only an Inquisitore extorts", agent=self.who(state, seat))
        spent = self.power_spent(state, seat)
        if spent:
            raise RuleError("{agent} used its power in phase {phase}: once per game", agent=self.who(state, seat), phase=spent)
        if fact not in TRUTH_FACTS:
            raise RuleError("the truth machine never reveals the codename: extort the faction, role, position or fragment")
        if fact in state.revealed(target):
            raise RuleError("{agent} already revealed its {fact} at the truth machine: extort another fact",
                            agent=self.who(state, target), fact=Phrase.of(fact.value))
        first = any(e.phase == state.phase and e.target == target and e.outcome == NAMED for e in state.extortions)
        return Extortion(state.phase, seat, target, fact, KEPT if first else NAMED)

    def _close_vote(self, state: CodexState) -> CodexState:
        chosen = self.truth_machine_choice(state)
        extortions = tuple(
            replace(e, outcome=EXTORTED if e.target == chosen else MISSED)
            if e.phase == state.phase and e.outcome == NAMED
            else e
            for e in state.extortions
        )
        result = VoteResult(state.phase, state.ballots, chosen)
        state = replace(state, votes=state.votes + (result,), extortions=extortions, ballots=(), acted=())
        if len(state.revealed(chosen)) == len(TRUTH_FACTS):
            return self._next_phase(state)
        return replace(state, step=TRUTH, truth=chosen)

    def truth_machine_choice(self, state: CodexState) -> int:
        """The most voted agent; ties to fewer facts revealed, then to the first to get its deciding vote."""
        tally = [0] * SEATS
        deciding = [0] * SEATS  # when each agent's count last grew, in the order votes were accepted
        for order, (_, target) in enumerate(state.ballots):
            tally[target] += 1
            deciding[target] = order
        top = max(tally)
        tied = [seat for seat in ALL_SEATS if tally[seat] == top]
        return min(tied, key=lambda seat: (len(state.revealed(seat)), deciding[seat]))

    def _reveal(self, state: CodexState, action: Reveal) -> CodexState:
        seat, fact = action.seat, action.fact
        self._in_step(state, TRUTH, Phrase.of("a fact is revealed"))
        if seat != state.truth:
            raise RuleError("{agent} is at the truth machine, not {target}", agent=self.who(state, state.at_truth),
                            target=self.who(state, seat))
        if fact not in TRUTH_FACTS:
            raise RuleError("the codename is public: reveal the faction, role, position or fragment")
        if fact in state.revealed(seat):
            raise RuleError(REVEALED_HERE[fact], agent=self.who(state, seat))
        extorting = self.extorting(state, seat)
        if extorting is not None and fact != extorting:
            raise RuleError("an Inquisitore extorts {agent}'s {fact}: the truth machine reveals that", agent=self.who(state, seat),
                            fact=Phrase.of(extorting.value))
        revelation = Revelation(state.phase, seat, fact, state.setup.agents[seat].fact(fact))
        return self._next_phase(replace(state, revelations=state.revelations + (revelation,)))

    def _next_phase(self, state: CodexState) -> CodexState:
        return replace(state, phase=state.phase + 1, step=MESSAGES, acted=(), truth=None)

    _handlers: ClassVar[dict[type, Callable[[Codex, CodexState, Any], CodexState]]] = {
        Send: _send, EnterCode: _enter_code, Block: _block, Profile: _profile, Done: _done,
        EndDiscussion: _end_discussion, Vote: _vote, Reveal: _reveal,
    }

    # --- checks shared by the steps -------------------------------------------------------

    def _in_step(self, state: CodexState, step: Step, what: Phrase) -> None:
        if state.step != step:
            raise RuleError(ONLY_IN_STEP[step], what=what, words=self.step_words(state))

    def _private_turn(self, state: CodexState, seat: int, what: Phrase) -> None:
        self._in_step(state, PRIVATE, what)
        if seat in state.acted:
            raise RuleError("{agent} has already ended its private turn this phase", agent=self.who(state, seat))

    def _is(self, state: CodexState, seat: int, role: Role) -> bool:
        return state.setup.agents[seat].role is role

    def _code_refusal(self, state: CodexState, seat: int) -> Phrase | None:
        """Why ``seat`` may not enter a code in this private step, or None if it may."""
        who = self.who(state, seat)
        leader = state.setup.agents[seat].role is Role.LEADER
        for attempt in state.attempts:
            if attempt.seat != seat:
                continue
            if attempt.phase == state.phase:
                return Phrase.of("{agent} has already entered a code this phase" if leader else
                                 "{agent} has already entered a code this phase: one attempt per game", agent=who)
            if attempt.result == WRONG and not leader:
                return Phrase.of("{agent}'s code was wrong in phase {phase}: only the Leader may try again", agent=who,
                                 phase=attempt.phase)
        return None

    # --- queries --------------------------------------------------------------------------

    def who(self, state: CodexState, seat: int) -> Phrase:
        return Phrase.of("{codename} (seat {seat})", codename=state.setup.agents[seat].codename, seat=seat)

    def step_words(self, state: CodexState) -> Phrase:
        if state.step == TRUTH:
            return Phrase.of("{agent} is at the truth machine", agent=self.who(state, state.at_truth))
        return STEP_WORDS[state.step]

    def reason(self, state: CodexState) -> Phrase | None:
        """Why the game ended, in words made from its termination (None while it goes on)."""
        if state.termination is None or state.winner is None or state.winning_seat is None:  # set together
            return None
        return Phrase.of("{agent} entered {team}'s code: {team} wins", agent=self.who(state, state.winning_seat),
                         team=state.winner)

    def ending(self, state: CodexState) -> Ending | None:
        """How the game ended: a faction wins, the other loses; None while it goes on."""
        reason = self.reason(state)
        if state.termination is None or state.winner is None or reason is None:
            return None
        return Ending(state.termination, state.winner, (state.winner.other,), reason)

    def is_over(self, state: CodexState) -> bool:
        return state.is_over

    def returns(self, state: CodexState) -> tuple[int, ...]:
        """Per seat: +1 if its faction won, -1 if it lost, 0 while playing (OpenSpiel's returns)."""
        if state.winner is None:
            return (0,) * SEATS
        return tuple(1 if agent.faction is state.winner else -1 for agent in state.setup.agents)

    def waiting_for(self, state: CodexState) -> tuple[int, ...]:
        """The seats whose input the step waits for; empty in the discussion (the table's timer ends it)."""
        if state.step in (MESSAGES, PRIVATE, VOTE):
            return tuple(seat for seat in ALL_SEATS if seat not in state.acted)
        if state.step == TRUTH:
            return (state.at_truth,)
        return ()

    def inbox(self, state: CodexState, seat: int) -> tuple[Message, ...]:
        """The messages delivered to ``seat``, by phase, each phase's sorted by text (not by sender)."""
        delivered = [
            m for m in state.messages
            if m.recipient == seat and not (m.phase == state.phase and state.step == MESSAGES)
        ]
        return tuple(sorted(delivered, key=lambda m: (m.phase, m.text)))

    def blocked(self, state: CodexState) -> frozenset[int]:
        """The agents a Hacker blocked in the current phase (the table's to know: a target is
        told when the private step is over, ``private_over``)."""
        return frozenset(block.target for block in state.blocks if block.phase == state.phase)

    def private_over(self, state: CodexState, phase: int) -> bool:
        """Whether the private step of ``phase`` has ended for every agent: what was done to an
        agent in private (a Hacker's block) is told to it from then on."""
        return phase < state.phase or STEPS.index(state.step) > STEPS.index(PRIVATE)

    def last_target(self, state: CodexState, hacker: int) -> int | None:
        """The agent ``hacker`` blocked in the phase before this one, which it may not block now."""
        for block in state.blocks:
            if block.hacker == hacker and block.phase == state.phase - 1:
                return block.target
        return None

    def extorting(self, state: CodexState, seat: int) -> Fact | None:
        """The fact an Inquisitore makes ``seat`` reveal at the truth machine now, if any: it
        replaces the agent's own choice, and the agent is told before it chooses."""
        if state.step != TRUTH or state.truth != seat:
            return None
        return next((e.fact for e in state.extortions
                     if e.phase == state.phase and e.target == seat and e.outcome == EXTORTED), None)

    def power_spent(self, state: CodexState, inquisitore: int) -> int | None:
        """The phase in which the Inquisitore spent its power, or None."""
        for extortion in state.extortions:
            if extortion.inquisitore == inquisitore and extortion.outcome == EXTORTED:
                return extortion.phase
        return None

    def may_enter_code(self, state: CodexState, seat: int) -> bool:
        return state.step == PRIVATE and seat not in state.acted and self._code_refusal(state, seat) is None

    def known_fragments(self, state: CodexState, seat: int) -> tuple[str, ...]:
        """The fragments ``seat`` has seen: its own, its inbox's, and those the truth machine revealed."""
        known = {state.setup.agents[seat].fragment}
        known.update(message.fragment for message in self.inbox(state, seat))
        known.update(str(r.value) for r in state.revelations if r.fact is Fact.FRAGMENT)
        return tuple(sorted(known))

    def legal_actions(self, state: CodexState, seat: int | None = None) -> list[CodexAction]:
        """What ``seat`` may do now; with no seat, what anyone may do, the table's ``end-discussion`` included.

        Codes are listed as the orderings of three fragments the agent has seen; ``apply`` takes
        any well-formed code from an agent that ``may_enter_code``.
        """
        if seat is None:
            actions: list[CodexAction] = [EndDiscussion()] if state.step == DISCUSSION else []
            for each in ALL_SEATS:
                actions += self.legal_actions(state, each)
            return actions
        if seat not in self.waiting_for(state):
            return []
        agent = state.setup.agents[seat]
        others = [other for other in ALL_SEATS if other != seat]
        if state.step == MESSAGES:
            return self._legal_messages(seat, agent, others)
        if state.step == PRIVATE:
            return self._legal_private(state, seat, agent, others)
        if state.step == VOTE:
            actions = [Vote(seat, target) for target in others]
            if agent.role is Role.INQUISITORE and not self.power_spent(state, seat):
                for target in others:
                    actions += [Vote(seat, target, fact) for fact in TRUTH_FACTS if fact not in state.revealed(target)]
            return actions
        extorting = self.extorting(state, seat)
        if extorting is not None:  # nothing to choose: the Inquisitore chose
            return [Reveal(seat, extorting)]
        return [Reveal(seat, fact) for fact in TRUTH_FACTS if fact not in state.revealed(seat)]

    def _legal_messages(self, seat: int, agent: Identikit, others: list[int]) -> list[CodexAction]:
        choices: list[tuple[Fact, ...]] = [(fact,) for fact in MESSAGE_FACTS]
        if agent.role is Role.INFORMATORE:
            choices += [(Fact.ROLE, fact) for fact in MESSAGE_FACTS if fact is not Fact.ROLE]
        return [Send(seat, to, facts) for to in others for facts in choices]

    def _legal_private(self, state: CodexState, seat: int, agent: Identikit, others: list[int]) -> list[CodexAction]:
        actions: list[CodexAction] = [Done(seat)]
        if self.may_enter_code(state, seat):
            fragments = self.known_fragments(state, seat)
            actions += [
                EnterCode(seat, f"{a}-{b}-{c}")
                for a in fragments for b in fragments for c in fragments
                if len({a, b, c}) == 3
            ]
        if agent.role is Role.HACKER and not any(b.hacker == seat and b.phase == state.phase for b in state.blocks):
            last = self.last_target(state, seat)
            actions += [Block(seat, target) for target in others if target != last]
        if agent.role is Role.PROFILER and not any(q.profiler == seat for q in state.questions):
            for number, message in enumerate(self.inbox(state, seat), start=1):
                if message.phase == state.phase:
                    actions += [Profile(seat, number, fact) for fact in MESSAGE_FACTS if not message.tells(fact)]
        return actions

    # --- observers ------------------------------------------------------------------------

    def public_view(self, state: CodexState) -> PublicView:
        return PublicView(
            phase=state.phase,
            step=state.step,
            codenames=state.setup.codenames,
            roles=state.setup.roles,
            acted=tuple(sorted(state.acted)),
            waiting_for=self.waiting_for(state),
            truth=state.truth,
            ballots=() if self.rules.sealed_votes else state.ballots,
            votes=state.votes,
            revelations=state.revelations,
            winner=state.winner,
            winning_seat=state.winning_seat,
            reason=self.reason(state),
            termination=state.termination,
            identikits=state.setup.agents if state.is_over else None,
        )

    def agent_view(self, state: CodexState, seat: int) -> AgentView:
        """What agent ``seat`` may know, and nothing more."""
        agent = state.setup.agents[seat]
        answers = {q.message: (q.fact, q.value) for q in state.questions if q.profiler == seat}
        inbox = tuple(
            Received(number, m.phase, m.fragment, m.facts, m.text, answers.get(number))
            for number, m in enumerate(self.inbox(state, seat), start=1)
        )
        extorted_phases = {e.phase for e in state.extortions if e.target == seat and e.outcome == EXTORTED}
        return AgentView(
            seat=seat,
            identikit=agent,
            inbox=inbox,
            sent=tuple(m for m in state.messages if m.sender == seat),
            attempts=tuple(a for a in state.attempts if a.seat == seat),
            may_enter_code=self.may_enter_code(state, seat),
            blocked_in=tuple(sorted(
                {b.phase for b in state.blocks if b.target == seat and self.private_over(state, b.phase)})),
            extorted=tuple(r for r in state.revelations if r.seat == seat and r.phase in extorted_phases),
            extorting=self.extorting(state, seat),
            blocks=tuple(b for b in state.blocks if b.hacker == seat),
            may_not_block=self.last_target(state, seat) if agent.role is Role.HACKER else None,
            questions=tuple(q for q in state.questions if q.profiler == seat),
            extortions=tuple(e for e in state.extortions if e.inquisitore == seat),
            public=self.public_view(state),
        )


def replay(game: Codex, setup: Setup, texts: list[str]) -> CodexState:
    """Start on ``setup`` and apply each action text in turn: the journal's replay."""
    state = game.start(setup)
    for text in texts:
        state = game.apply(state, parse_codex_action(text))
    return state


CodexRecord: TypeAlias = GameRecord[Codex, Setup, CodexAction | Undo, CodexState]
"""A Codex game's record: its setup, its actions and states."""
