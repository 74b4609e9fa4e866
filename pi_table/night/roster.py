"""The director's commands on the teams of the night this table hosts once they joined, each a
line of the book with who did it and when (``STAFF_EVENTS``): a mistyped team renamed, and two
teams the pairing keeps apart (friends who came together) or no more (issue 76, item 11).
"""

from __future__ import annotations

from .events import NightRefused
from .names import Team, team
from .pairing import key
from .state import Night
from .store import Store, _locked


class Roster(Store):
    """The teams' commands of a night hosted here, each under the book's lock."""

    @_locked
    def rename(self, name: str, to: str, by: str) -> Team:
        """A mistyped team named anew (``by``: who at the desk), its name checked as a new team's:
        every part of the night, the tables that follow and the league name it so."""
        night = self._hosted()
        if name not in night.teams:
            raise NightRefused("no team {team} is in the night", team=name)
        kept = night.teams[name]
        named = team(to, kept.nicknames, [other for other in (*night.teams, *night.waiting) if other != name],
                     self.blocked)
        if named.name == name:
            raise NightRefused("the team {team} has that name already", team=name)
        self._change({"event": "rename", "team": name, "to": named.name, "by": by, "at": self.clock()})
        return named

    @_locked
    def apart(self, one: str, other: str, by: str) -> None:
        """Two teams the pairing keeps apart from now on (friends who came together; ``by``: who
        at the desk): never paired while another pairing exists, and named when none does."""
        night = self._hosted()
        self._two(night, one, other)
        if key(one, other) in night.apart:
            raise NightRefused("{one} and {other} are kept apart already", one=one, other=other)
        self._change({"event": "apart", "teams": sorted((one, other)), "by": by, "at": self.clock()})

    @_locked
    def unapart(self, one: str, other: str, by: str) -> None:
        """Two teams kept apart, paired as any others again."""
        night = self._hosted()
        self._two(night, one, other)
        if key(one, other) not in night.apart:
            raise NightRefused("{one} and {other} are not kept apart", one=one, other=other)
        self._change({"event": "unapart", "teams": sorted((one, other)), "by": by, "at": self.clock()})

    @staticmethod
    def _two(night: Night, one: str, other: str) -> None:
        """NightRefused unless ``one`` and ``other`` are two different teams of ``night``."""
        if one == other:
            raise NightRefused("keep two different teams apart")
        for name in (one, other):
            if name not in night.teams:
                raise NightRefused("no team {team} is in the night", team=name)
