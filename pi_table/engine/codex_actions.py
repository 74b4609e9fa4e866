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

from .actions import whole_number
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
class Send:
    """An agent's message of the phase: its fragment and one fact (an Informatore: up to two)."""

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

    def __str__(self) -> str:
        return f"send {self.seat} {self.to} {' '.join(fact.value for fact in self.facts)}"


@dataclass(frozen=True, slots=True)
class EnterCode:
    """A code attempt, three fragments in order: ``XXXX-YYYY-ZZZZ``."""

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

    def __str__(self) -> str:
        return f"code {self.seat} {self.code}"


@dataclass(frozen=True, slots=True)
class Block:
    """The Hacker stops ``target`` entering the code for the rest of this phase."""

    seat: int
    target: int

    def __post_init__(self) -> None:
        check_seat(self.seat)
        check_seat(self.target, Phrase.of("the target"))

    def __str__(self) -> str:
        return f"block {self.seat} {self.target}"


@dataclass(frozen=True, slots=True)
class Profile:
    """The Profiler asks one more fact about the anonymous sender of its inbox message ``message``."""

    seat: int
    message: int
    fact: Fact

    def __post_init__(self) -> None:
        check_seat(self.seat)
        if not isinstance(self.message, int) or isinstance(self.message, bool) or self.message < 1:
            raise InvalidAction("a message is named by its inbox number, 1 or more", given=self.message)
        object.__setattr__(self, "fact", check_fact(self.fact))

    def __str__(self) -> str:
        return f"profile {self.seat} {self.message} {self.fact}"


@dataclass(frozen=True, slots=True)
class Done:
    """The agent has finished its private turn (code attempt and powers) for this phase."""

    seat: int

    def __post_init__(self) -> None:
        check_seat(self.seat)

    def __str__(self) -> str:
        return f"done {self.seat}"


@dataclass(frozen=True, slots=True)
class EndDiscussion:
    """The discussion timer ran out (the table's clock, not the engine's): time to vote."""

    def __str__(self) -> str:
        return "end-discussion"


@dataclass(frozen=True, slots=True)
class Vote:
    """A public vote for ``target``; an Inquisitore may add, privately, the fact it extorts."""

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
        return f"vote {self.seat} {self.target}{extort}"


@dataclass(frozen=True, slots=True)
class Reveal:
    """The agent at the truth machine chooses the fact to reveal (an extortion overrides it)."""

    seat: int
    fact: Fact

    def __post_init__(self) -> None:
        check_seat(self.seat)
        object.__setattr__(self, "fact", check_fact(self.fact))

    def __str__(self) -> str:
        return f"reveal {self.seat} {self.fact}"


CodexAction = Send | EnterCode | Block | Profile | Done | EndDiscussion | Vote | Reveal

USAGE = {
    "send": "send SEAT TO FACT [FACT]",
    "code": "code SEAT XXXX-YYYY-ZZZZ",
    "block": "block SEAT TARGET",
    "profile": "profile SEAT MESSAGE FACT",
    "done": "done SEAT",
    "end-discussion": "end-discussion",
    "vote": "vote SEAT TARGET [extort FACT]",
    "reveal": "reveal SEAT FACT",
}


def parse_codex_action(text: str) -> CodexAction:
    """Read a Codex action's text form; raise ``InvalidAction`` saying what was expected."""
    words = text.split()
    if not words:
        raise InvalidAction("an empty line is not an action")
    verb, args = words[0].lower(), [word.lower() for word in words[1:]]
    if verb not in USAGE:
        raise InvalidAction("Codex's commands are {words}", words=", ".join(USAGE), given=verb)
    counts = {"send": (3, 4), "vote": (2, 4), "profile": (3,), "end-discussion": (0,), "done": (1,)}.get(verb, (2,))
    if len(args) not in counts or (verb == "vote" and len(args) == 4 and args[2] != "extort"):
        raise InvalidAction("'{verb}' is written {usage}", verb=verb, usage=USAGE[verb], given=text.strip())
    if verb == "end-discussion":
        return EndDiscussion()
    seat = whole_number(args[0], Phrase.of("the seat"))
    if verb == "done":
        return Done(seat)
    if verb == "code":
        return EnterCode(seat, args[1])
    if verb == "reveal":
        return Reveal(seat, check_fact(args[1]))
    if verb == "profile":
        return Profile(seat, whole_number(args[1], Phrase.of("the message number")), check_fact(args[2]))
    other = whole_number(args[1], Phrase.of("the other seat"))
    if verb == "send":
        return Send(seat, other, tuple(check_fact(word) for word in args[2:]))
    if verb == "block":
        return Block(seat, other)
    return Vote(seat, other, check_fact(args[3]) if len(args) == 4 else None)
