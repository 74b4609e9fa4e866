"""Codex's actions: small frozen dataclasses, each naming the seat (0-5) that acts.

Six agents act privately from their phones, so every action says who acts; only the end of the
discussion is the table's own (its timer). The text forms are what a script and the journal hold:

    send SEAT TO FACT [FACT]     the message: the fragment plus one fact (an Informatore may add its role)
    code SEAT XXXX-YYYY-ZZZZ     a code attempt (the dashes may be left out)
    block SEAT TARGET            the Hacker stops TARGET entering the code this phase
    profile SEAT MESSAGE FACT    the Profiler asks one more fact about the sender of inbox message MESSAGE
    done SEAT                    the agent has finished its private turn
    end-discussion               the discussion timer ran out
    vote SEAT TARGET [extort FACT]   the public vote; an Inquisitore may name the fact to extort
    reveal SEAT FACT             the agent at the truth machine chooses what to reveal
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from .actions import Written, whole_number
from .codex_setup import FRAGMENT_CHARACTERS, FRAGMENT_LENGTH, SEATS, Fact
from .errors import InvalidAction
from .phrase import Phrase

A_SEAT = Phrase.of("the seat")


def check_seat(seat: int, what: Phrase = A_SEAT) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < SEATS:
        raise InvalidAction("{what} must be one of the seats in play, numbered 0 to {last} (one an agent)",
                            what=what, last=SEATS - 1, given=seat)
    return seat


def check_fact(fact: Fact | str) -> Fact:
    try:
        return Fact(fact)
    except ValueError:
        names = ", ".join(member.value for member in Fact)
        raise InvalidAction("a fact is one of {names}", names=names, given=fact) from None


@dataclass(frozen=True, slots=True)
class Send(Written):
    """An agent's message of the phase: its fragment and one fact (an Informatore: up to two)."""

    WORD = "send"
    ARGUMENTS = "SEAT TO FACT [FACT]"

    seat: int
    to: int
    facts: tuple[Fact, ...]

    def __post_init__(self) -> None:
        check_seat(self.seat)
        check_seat(self.to, Phrase.of("the recipient"))
        facts = tuple(check_fact(fact) for fact in self.facts)
        if not 1 <= len(facts) <= 2 or len(set(facts)) != len(facts):
            raise InvalidAction("a message carries one fact, or two different ones from an Informatore, not {count}",
                                count=len(facts))
        object.__setattr__(self, "facts", tuple(sorted(facts, key=list(Fact).index)))


@dataclass(frozen=True, slots=True)
class EnterCode(Written):
    """A code attempt, three fragments in order: ``XXXX-YYYY-ZZZZ``."""

    WORD = "code"
    ARGUMENTS = "SEAT XXXX-YYYY-ZZZZ"

    seat: int
    code: str

    def __post_init__(self) -> None:
        check_seat(self.seat)
        text = self.code.upper() if isinstance(self.code, str) else ""
        if "-" in text:
            parts = text.split("-")
        else:
            parts = [text[i : i + FRAGMENT_LENGTH] for i in range(0, len(text), FRAGMENT_LENGTH)]
        well_formed = all(len(part) == FRAGMENT_LENGTH and set(part) <= FRAGMENT_CHARACTERS for part in parts)
        if len(parts) != 3 or not well_formed:
            raise InvalidAction("a code is three fragments of {length} letters or digits, XXXX-YYYY-ZZZZ",
                                length=FRAGMENT_LENGTH, given=self.code)
        object.__setattr__(self, "code", "-".join(parts))


@dataclass(frozen=True, slots=True)
class Block(Written):
    """The Hacker stops ``target`` entering the code for the rest of this phase."""

    WORD = "block"
    ARGUMENTS = "SEAT TARGET"

    seat: int
    target: int

    def __post_init__(self) -> None:
        check_seat(self.seat)
        check_seat(self.target, Phrase.of("the target"))


@dataclass(frozen=True, slots=True)
class Profile(Written):
    """The Profiler asks one more fact about the anonymous sender of its inbox message ``message``."""

    WORD = "profile"
    ARGUMENTS = "SEAT MESSAGE FACT"

    seat: int
    message: int
    fact: Fact

    def __post_init__(self) -> None:
        check_seat(self.seat)
        if not isinstance(self.message, int) or isinstance(self.message, bool) or self.message < 1:
            raise InvalidAction("a message is named by its inbox number, 1 or more", given=self.message)
        object.__setattr__(self, "fact", check_fact(self.fact))


@dataclass(frozen=True, slots=True)
class Done(Written):
    """The agent has finished its private turn (code attempt and powers) for this phase."""

    WORD = "done"
    ARGUMENTS = "SEAT"

    seat: int

    def __post_init__(self) -> None:
        check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class EndDiscussion(Written):
    """The discussion timer ran out (the table's clock, not the engine's): time to vote."""

    WORD = "end-discussion"
    ARGUMENTS = ""


@dataclass(frozen=True, slots=True)
class Vote(Written):
    """A public vote for ``target``; an Inquisitore may add, privately, the fact it extorts."""

    WORD = "vote"
    ARGUMENTS = "SEAT TARGET [extort FACT]"

    seat: int
    target: int
    extort: Fact | None = None

    def __post_init__(self) -> None:
        check_seat(self.seat)
        check_seat(self.target, Phrase.of("the agent voted for"))
        if self.extort is not None:
            object.__setattr__(self, "extort", check_fact(self.extort))

    def __str__(self) -> str:
        extort = "" if self.extort is None else f" extort {self.extort}"
        return f"{self.WORD} {self.seat} {self.target}{extort}"


@dataclass(frozen=True, slots=True)
class Reveal(Written):
    """The agent at the truth machine chooses the fact to reveal (an extortion overrides it)."""

    WORD = "reveal"
    ARGUMENTS = "SEAT FACT"

    seat: int
    fact: Fact

    def __post_init__(self) -> None:
        check_seat(self.seat)
        object.__setattr__(self, "fact", check_fact(self.fact))


CodexAction = Send | EnterCode | Block | Profile | Done | EndDiscussion | Vote | Reveal

ACTIONS: dict[str, type[CodexAction]] = {action.WORD: action for action in get_args(CodexAction)}
USAGE = {word: f"{word} {action.ARGUMENTS}".rstrip() for word, action in ACTIONS.items()}


def word_counts(arguments: str) -> tuple[int, ...]:
    """How many words may follow an action's word, read from its usage: ``SEAT TO FACT [FACT]``, 3 or 4."""
    needed, _, optional = arguments.partition("[")
    least = len(needed.split())
    return (least, least + len(optional.strip("]").split())) if optional else (least,)


def parse_codex_action(text: str) -> CodexAction:
    """Read a Codex action's text form; raise ``InvalidAction`` saying what was expected."""
    words = text.split()
    if not words:
        raise InvalidAction("an empty line is not an action")
    verb, args = words[0].lower(), [word.lower() for word in words[1:]]
    if verb not in USAGE:
        raise InvalidAction("Codex's commands are {words}", words=", ".join(USAGE), given=verb)
    action = ACTIONS[verb]
    if len(args) not in word_counts(action.ARGUMENTS) or (action is Vote and len(args) == 4 and args[2] != "extort"):
        raise InvalidAction("'{verb}' is written {usage}", verb=verb, usage=USAGE[verb], given=text.strip())
    if action is EndDiscussion:
        return EndDiscussion()
    seat = whole_number(args[0], Phrase.of("the seat"))
    if action is Done:
        return Done(seat)
    if action is EnterCode:
        return EnterCode(seat, args[1])
    if action is Reveal:
        return Reveal(seat, check_fact(args[1]))
    if action is Profile:
        return Profile(seat, whole_number(args[1], Phrase.of("the message number")), check_fact(args[2]))
    other = whole_number(args[1], Phrase.of("the other seat"))
    if action is Send:
        return Send(seat, other, tuple(check_fact(word) for word in args[2:]))
    if action is Block:
        return Block(seat, other)
    return Vote(seat, other, check_fact(args[3]) if len(args) == 4 else None)
