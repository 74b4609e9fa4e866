"""Codex's rules: the options chosen before the deal, in a room apart from its engine.

A table reads and checks every game's options when it starts (its configuration, a journal's
header), Codex's too, without loading Codex's engine: that loads when Codex is played. The roles
an option may force are named and checked here, as a setup's are.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .described import Choice, Description
from .errors import InvalidKey, InvalidRules
from .phrase import N_, Phrase

NAME = "codex"
"""Codex's name (``Codex.name``), here so that naming it does not load its engine."""
DISCUSSION_S = 180.0
"""The discussion's length when the configuration does not give one: three minutes."""
SEALED_VOTES = Choice("sealed_votes", "bool", False, N_("Codex: sealed votes"),
                      N_("Codex: hide each ballot until the sixth is in (the book votes in public)"))
DISCUSSION_LENGTH = Choice("discussion_s", "number", DISCUSSION_S, N_("Codex: discussion time"),
                           N_("Codex: seconds of public discussion each phase"), span=(10, 3600), unit=N_("seconds"),
                           rule=False)
DESCRIPTION = Description(N_("Codex"), options=(SEALED_VOTES, DISCUSSION_LENGTH), phases={
    "messages": N_("messages"), "private": N_("private"), "discussion": N_("discussion"), "vote": N_("vote"),
    "truth": N_("truth")})
"""Codex for the layers above (``described``): its options, its discussion's length a setting of
its table; its agents and identikits have words of its own rooms'."""


class Role(StrEnum):
    """The six roles, in the rulebook's order; three of them are in play in a game."""

    HACKER = "hacker"
    INFILTRATO = "infiltrato"
    INFORMATORE = "informatore"
    INQUISITORE = "inquisitore"
    LEADER = "leader"
    PROFILER = "profiler"


class InvalidSetup(InvalidKey):
    """A setup that breaks Codex's deal: the counts, the roles, the positions or the fragments."""


def check_roles(roles: tuple[Role, ...], what: Phrase) -> tuple[Role, ...]:
    """Three distinct roles, the Leader among them, in the rulebook's order."""
    if len(set(roles)) != 3 or len(roles) != 3 or Role.LEADER not in roles:
        named = ", ".join(str(role) for role in roles) if roles else Phrase.of("none")
        raise InvalidSetup("{what} must be three different roles, the Leader among them, not {named}", what=what, named=named)
    return tuple(sorted(roles, key=list(Role).index))


@dataclass(frozen=True, slots=True)
class CodexRules:
    """Options chosen before the deal. ``roles`` forces the three roles in play (the Leader among
    them). ``sealed_votes`` keeps each ballot hidden until the sixth is in; the book votes in
    public ("pubblicamente si deve votare"), so by default each shows as it is cast."""

    roles: tuple[Role, ...] | None = None
    sealed_votes: bool = False

    def __post_init__(self) -> None:
        if self.roles is None:
            return
        roles = []
        for role in self.roles:
            try:
                roles.append(Role(role))
            except ValueError:
                raise InvalidRules("a role is one of {roles}, not {role!r}", roles=", ".join(r.value for r in Role),
                                   role=role) from None
        try:
            object.__setattr__(self, "roles", check_roles(tuple(roles), Phrase.of("the roles in play")))
        except InvalidSetup as error:  # the same words, said of the rules rather than of a deal
            raise InvalidRules(error.phrase) from None

    @property
    def game(self) -> str:
        """The game's name, as ``Rules.game`` gives it for the grid games."""
        return NAME

    def to_json(self) -> dict[str, object]:
        """The options as a journal header keeps them; the book's open vote is left out, so
        the headers written before the option existed read the same."""
        options: dict[str, object] = {"game": self.game,
                                      "roles": None if self.roles is None else [role.value for role in self.roles]}
        if self.sealed_votes:
            options["sealed_votes"] = True
        return options

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CodexRules:
        unknown = sorted(set(data) - {"game", "roles", "sealed_votes"})
        if unknown:
            raise InvalidRules("unknown Codex rule option(s) {unknown}: expected game, roles, sealed_votes",
                               unknown=", ".join(unknown))
        if data.get("game", NAME) != NAME:
            raise InvalidRules("these are rules for {game!r}, not {codex!r}", game=data["game"], codex=NAME)
        roles, sealed = data.get("roles"), data.get("sealed_votes", False)
        if not isinstance(sealed, bool):
            raise InvalidRules("sealed_votes is true or false, not {value!r}", value=sealed)
        return cls(roles=None if roles is None else tuple(roles), sealed_votes=sealed)
