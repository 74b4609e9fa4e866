"""Codex's setup: the six agents' identikits, dealt from a seed or read from one line of text.

The setup plays the part of the grid games' key: a Codex game is its setup plus the accepted
actions, so the setup has a text form that parses back, one ``codename:faction:role:position:fragment``
word per seat, e.g. ``Moon:red:leader:1:X53T``. The faction written there is the one the agent
belongs to; an Infiltrato's identikit shows the other one, which follows from its role.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import TypeVar

from .codex_rules import InvalidSetup, Role, check_roles
from .keys import Team
from .phrase import N_, Phrase

SEATS = 6
FRAGMENT_LENGTH = 4
FRAGMENT_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
DEALT_CHARACTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""The deal leaves out I, O, 0 and 1, which read alike on a phone; a written setup may use them."""

CODENAMES = (
    "Moon", "Aleman", "Viper", "Falco", "Nebbia", "Orso", "Volpe", "Lince", "Corvo", "Ombra", "Raven", "Ghost",
    "Echo", "Cobra", "Jade", "Onyx", "Sparrow", "Mantis", "Nova", "Cipher", "Drago", "Fenice", "Gufo", "Tigre",
)
"""The nicknames the table deals; codenames are public, so the codename fact names its agent."""


Faction = Team
"""Codex calls a side of the table a faction: the same red and blue as the grid games' teams."""


class Fact(StrEnum):
    """The facts of an identikit an agent may tell or be made to tell."""

    CODENAME = "codename"
    FACTION = "faction"
    ROLE = "role"
    POSITION = "position"
    FRAGMENT = "fragment"


MESSAGE_FACTS = (Fact.CODENAME, Fact.FACTION, Fact.ROLE, Fact.POSITION)
"""What a message (or the Profiler's question) may add to the fragment, which it always carries."""

TRUTH_FACTS = (Fact.FACTION, Fact.ROLE, Fact.POSITION, Fact.FRAGMENT)
"""What the truth machine (or an Inquisitore) may draw out: anything but the public codename."""

OPTIONAL_ROLES = tuple(role for role in Role if role is not Role.LEADER)


def check_fragment(text: str) -> str:
    if len(text) != FRAGMENT_LENGTH or not set(text) <= FRAGMENT_CHARACTERS:
        raise InvalidSetup("a code fragment is {length} capital letters or digits, not {text!r}", length=FRAGMENT_LENGTH,
                           text=text)
    return text


@dataclass(frozen=True, slots=True)
class Identikit:
    """One agent. ``faction`` is the one it belongs to, holds the fragment of and wins with."""

    codename: str
    faction: Faction
    role: Role
    position: int
    fragment: str

    def __post_init__(self) -> None:
        if not self.codename or any(c.isspace() or c == ":" for c in self.codename):
            raise InvalidSetup("a codename is one word without ':', not {codename!r}", codename=self.codename)
        if self.position not in (1, 2, 3):
            raise InvalidSetup("a fragment's position is 1, 2 or 3, not {position!r}", position=self.position)
        check_fragment(self.fragment)

    @property
    def shown_faction(self) -> Faction:
        """The faction the identikit shows: the other one for an Infiltrato."""
        return self.faction.other if self.role is Role.INFILTRATO else self.faction

    def fact(self, fact: Fact) -> str | int:
        """The true value of a fact as the identikit states it (an Infiltrato's shown faction)."""
        if fact is Fact.FACTION:
            return self.shown_faction.value
        if fact is Fact.POSITION:
            return self.position
        if fact is Fact.ROLE:
            return self.role.value
        return self.codename if fact is Fact.CODENAME else self.fragment

    def to_json(self) -> dict[str, object]:
        """The identikit as its agent sees it; ``true_faction`` differs only for an Infiltrato."""
        return {
            "codename": self.codename,
            "faction": self.shown_faction.value,
            "role": self.role.value,
            "position": self.position,
            "fragment": self.fragment,
            "true_faction": self.faction.value,
        }

    def __str__(self) -> str:
        return f"{self.codename}:{self.faction}:{self.role}:{self.position}:{self.fragment}"


@dataclass(frozen=True, slots=True)
class Setup:
    """The six identikits, seat by seat; checked against the rulebook's deal on creation."""

    agents: tuple[Identikit, ...]

    def __post_init__(self) -> None:
        if len(self.agents) != SEATS:
            raise InvalidSetup("Codex is played by {seats} agents, not {count}", seats=SEATS, count=len(self.agents))
        codenames = [agent.codename for agent in self.agents]
        fragments = [agent.fragment for agent in self.agents]
        for what, values in ((N_("each agent has its own codename: {twice} is dealt twice"), codenames),
                             (N_("each agent has its own fragment: {twice} is dealt twice"), fragments)):
            twice = sorted({value for value in values if values.count(value) > 1})
            if twice:
                raise InvalidSetup(what, twice=", ".join(twice))
        per_faction = {}
        for faction in Faction:
            members = [agent for agent in self.agents if agent.faction is faction]
            if len(members) != 3:
                raise InvalidSetup("each faction has 3 agents; {team} has {count}", team=faction, count=len(members))
            check_roles(tuple(agent.role for agent in members), Phrase.of("{team}'s roles", team=faction))
            if sorted(agent.position for agent in members) != [1, 2, 3]:
                raise InvalidSetup("{team}'s fragments must take the positions 1, 2 and 3 once each", team=faction)
            per_faction[faction] = {agent.role for agent in members}
        if per_faction[Faction.RED] != per_faction[Faction.BLUE]:
            raise InvalidSetup("both factions have one agent of each role in play: their roles differ")

    @property
    def roles(self) -> tuple[Role, ...]:
        """The three roles in play, revealed to everyone at the start."""
        return check_roles(tuple(agent.role for agent in self.agents if agent.faction is Faction.RED), Phrase.of("roles"))

    @property
    def codenames(self) -> tuple[str, ...]:
        return tuple(agent.codename for agent in self.agents)

    def code(self, faction: Faction) -> str:
        """The faction's code: its agents' fragments in position order, joined by dashes."""
        members = sorted((agent for agent in self.agents if agent.faction is faction), key=lambda a: a.position)
        return "-".join(agent.fragment for agent in members)

    def __str__(self) -> str:
        return " ".join(str(agent) for agent in self.agents)


def deal_setup(rng: random.Random, roles: tuple[Role, ...] | None = None) -> Setup:
    """A random setup; ``roles`` forces the three roles in play (the Leader among them).

    The draws come in a fixed order (roles, codenames, seats, positions, fragments), so one seed
    always deals the same game.
    """
    if roles is None:
        roles = (Role.LEADER, *rng.sample(OPTIONAL_ROLES, 2))
    roles = check_roles(tuple(roles), Phrase.of("the roles in play"))
    codenames = rng.sample(CODENAMES, SEATS)
    places = [(faction, role) for faction in Faction for role in roles]
    rng.shuffle(places)
    positions = {faction: rng.sample((1, 2, 3), 3) for faction in Faction}
    fragments: list[str] = []
    while len(fragments) < SEATS:
        fragment = "".join(rng.choice(DEALT_CHARACTERS) for _ in range(FRAGMENT_LENGTH))
        if fragment not in fragments:
            fragments.append(fragment)
    agents = []
    for seat, (faction, role) in enumerate(places):
        position = positions[faction].pop()
        agents.append(Identikit(codenames[seat], faction, role, position, fragments[seat]))
    return Setup(tuple(agents))


def parse_setup(text: str) -> Setup:
    """Read a setup's text form; raise ``InvalidSetup`` naming the seat and what is wrong."""
    words = text.split()
    if len(words) != SEATS:
        raise InvalidSetup("a setup is {seats} words, one per seat, codename:faction:role:position:fragment; got {count}",
                           seats=SEATS, count=len(words))
    agents = []
    for seat, word in enumerate(words):
        parts = word.split(":")
        if len(parts) != 5:
            raise InvalidSetup("seat {seat}: {word!r} is not codename:faction:role:position:fragment", seat=seat, word=word)
        codename, faction, role, position, fragment = parts
        try:
            if not position.isdigit():
                raise InvalidSetup("a fragment's position is 1, 2 or 3, not {position!r}", position=position)
            agents.append(Identikit(codename, _word(Faction, faction), _word(Role, role), int(position),
                                    fragment.upper()))
        except InvalidSetup as error:
            raise InvalidSetup("seat {seat}: {error}", seat=seat, error=error.phrase) from None
    return Setup(tuple(agents))


E = TypeVar("E", bound=Enum)


def _word(kind: type[E], word: str) -> E:
    try:
        return kind(word.lower())
    except ValueError:
        names = ", ".join(member.value for member in kind)
        raise InvalidSetup("a faction is one of {names}, not {word!r}" if kind is Faction else
                           "a role is one of {names}, not {word!r}", names=names, word=word) from None
