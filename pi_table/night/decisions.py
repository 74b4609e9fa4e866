"""The staff's decisions on a game night (``STAFF_EVENTS``: the night's history), each checked
as it is read and applied to the night's fields: a team withdrawn or back, a bye asked for or taken
back, a round's result entered or corrected, the last round undone, two teams kept apart, a
mistyped team renamed.
"""

from __future__ import annotations

from dataclasses import replace

from .events import CREDIT, MAX_HISTORY, RESULTS, TABLE, WON, Event, EventRefused, _late
from .fields import NightFields
from .games import Game
from .pairing import key
from .scoring import FORFEIT


class Decisions(NightFields):
    """The staff's events of a night, applied (``Night.apply`` hands them here)."""

    __slots__ = ()

    def _decided(self, event: Event, replay: bool = False) -> None:
        """A staff's event (``STAFF_EVENTS``), checked: ValueError (or KeyError, TypeError) when
        it names no team, round, table or result of the night. ``replay``: the history of a
        host's plan, whose rounds are already as the history left them."""
        kind, by, at = str(event["event"]), str(event["by"]), float(event["at"])
        if len(self.history) >= MAX_HISTORY:
            raise EventRefused("a night's history is full")
        if kind in ("rest", "unrest"):  # a team asked to sit out a round to come, keeping its place (or not now)
            name, number = str(event["team"]), int(event["round"])
            asked = self.rests.setdefault(number, set())
            if name not in self.teams or number < 1 or (name in asked) != (kind == "unrest") \
                    or (not replay and (number <= len(self.rounds) or name in self.withdrawn)):
                raise EventRefused(f"no team to {kind}")
            # the director's choice for this bye, H or Z; a bye asked before the choice: the night's ``late``
            chosen = {"points": _late(event["points"])} if kind == "rest" and event.get("points") is not None else {}
            if kind == "rest":
                asked.add(name)
                self.rest_points[(number, name)] = chosen.get("points", self.late)
            else:
                asked.discard(name)
            self.history.append({"event": kind, "team": name, "round": number, **chosen, "by": by, "at": at})
            return
        if kind == "rename":  # a mistyped team named anew: every part of the night names it so
            name, to = str(event["team"]), str(event["to"])
            if name not in self.teams or not to.strip() or to in self.teams or to in self.waiting:
                raise EventRefused("no team to rename")
            self._rename(name, to)
            self.history.append({"event": kind, "team": name, "to": to, "by": by, "at": at})
            return
        if kind in ("apart", "unapart"):  # two teams the pairing keeps apart (friends who came together), or no more
            names = [str(name) for name in event["teams"]]
            if len(names) != 2 or len(set(names)) != 2 or not set(names) <= set(self.teams) \
                    or (key(*names) in self.apart) != (kind == "unapart"):
                raise EventRefused(f"no two teams to {kind}")
            (self.apart.add if kind == "apart" else self.apart.discard)(key(*names))
            self.history.append({"event": kind, "teams": sorted(names), "by": by, "at": at})
            return
        if kind == "unconfirm":  # the last round back to a proposal, with its results (Swiss-Manager's "delete round")
            number = int(event["round"])
            if not replay:
                if number != len(self.rounds) or number < 1:
                    raise EventRefused("no round to undo")
                self.proposal = self.rounds.pop()
                del self.confirmed[number - 1:]
                # its games no longer count (``paired``: their pairing is an undone one), its results go
                self.results = {key: entry for key, entry in self.results.items() if key[0] != number}
                # a team that joined after it missed only the rounds before it (issue 59, item 2)
                self.since = {name: before for name, rounds in self.since.items()
                              if (before := min(rounds, number - 1)) > 0}
            elif number < 1:
                raise EventRefused("no round to undo")
            self.history.append({"event": kind, "round": number, "by": by, "at": at})
            return
        if kind in ("withdraw", "reinstate"):
            name = str(event["team"])
            if name not in self.teams or (name in self.withdrawn) != (kind == "reinstate"):
                raise EventRefused(f"no team to {kind}")
            if kind == "withdraw":
                self.withdrawn.add(name)
                if not replay:  # gone: the byes it asked for the rounds to come are too
                    for number, asked in self.rests.items():
                        if number > len(self.rounds):
                            asked.discard(name)
            else:
                self.withdrawn.discard(name)
            self.history.append({"event": kind, "team": name, "by": by, "at": at})
            return
        number, table, result = int(event["round"]), str(event["table"]), str(event["result"])
        pair = self.rounds[number - 1].pair_at(table) if 0 < number <= len(self.rounds) else None
        winner, game = event.get("winner"), event.get("game")
        if pair is None or result not in RESULTS or (result in (WON, FORFEIT)) != (winner in pair.teams) \
                or (result == CREDIT) != isinstance(game, str):
            raise EventRefused("no result of a round's pair")
        if result == TABLE:
            self.results.pop((number, table), None)
        else:
            self.results[(number, table)] = {"result": result, "winner": winner, "game": game, "at": at}
        self.history.append({"event": kind, "round": number, "table": table, "result": result, "winner": winner,
                             "game": game, "by": by, "at": at})

    def _rename(self, old: str, new: str) -> None:
        """The team ``old`` named ``new`` in every part of the night (its place in the order the
        teams joined kept); the history keeps the name each event was written with."""
        def named(name: str) -> str:
            return new if name == old else name

        self.teams = {named(name): replace(kept, name=named(name)) for name, kept in self.teams.items()}
        self.rounds = [made.renamed(named) for made in self.rounds]
        self.proposal = None if self.proposal is None else self.proposal.renamed(named)
        self.withdrawn = {named(name) for name in self.withdrawn}
        self.rests = {number: {named(name) for name in names} for number, names in self.rests.items()}
        self.rest_points = {(number, named(name)): points for (number, name), points in self.rest_points.items()}
        self.since = {named(name): rounds for name, rounds in self.since.items()}
        self.apart = {frozenset(map(named, pair)) for pair in self.apart}
        self.results = {place: {**entry, "winner": None if entry["winner"] is None else named(entry["winner"])}
                        for place, entry in self.results.items()}
        # an old name taken again is the new team's own now: a game under it is that team's
        self.renamed = {**{was: named(now) for was, now in self.renamed.items() if was != new}, old: new}
        self.played = [self.as_named(game) for game in self.played]

    def as_named(self, game: Game) -> Game:
        """``game`` with its teams as they are named now: one played, or told, under a name since corrected."""
        if not any(name in self.renamed for name in game.teams):
            return game
        return replace(game, teams=tuple(self.renamed.get(name, name) for name in game.teams),
                       winner=None if game.winner is None else self.renamed.get(game.winner, game.winner))
