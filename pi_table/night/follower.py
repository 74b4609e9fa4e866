"""A table that follows another's night: the host's plan heard, checked and kept, offers and
their codes, the games of the night gathered from the other tables (``night.book``).

A night is hosted by the table whose staff page runs it; the café's other tables in it follow
it: they keep the host's plan (``plan``: its teams and confirmed rounds, heard over the fleet's
broker) in their own book, checked by ``Book.follow``, and record their round's games into it.
A table follows only a host its own staff accepted, with the code the host shows
(``night.code``), or one on the owner's list of the café's tables; any other plan that names it
is an offer on its staff page, and changes nothing here.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from ..engine.games import NAMES
from .code import proves
from .events import Event, NightRefused
from .games import Game
from .pairing import Round
from .state import Night
from .store import NIGHT_ID, TABLE_ID, Store, _locked, read_night

log = logging.getLogger("pi_table.night")
NEW_NIGHT_S = 12 * 3600  # a plan of a night opened longer ago than this is no new night to follow
CLOCK_SKEW_S = 300  # nor one opened further in the future than the tables' clocks may differ
MAX_OFFERS = 16  # nights offered to this table at once (each from another table's plan)


class Follower(Store):
    """A night another table hosts, followed here: its plan, its offers and its games."""

    def _corrected(self, host: str, plan: Event) -> bool:
        """The plan of a night over, from its host: kept when this table followed that night to its
        close and the plan is newer (a result corrected after the close, issue 59)."""
        night = self.night if self.night is not None and self.night.id == plan["night"] else None
        if night is None:
            kept = self._kept(plan["night"]) if NIGHT_ID.fullmatch(plan["night"]) else None
            night = None if kept is None else kept[0]
        if night is None or night.open or night.host != host or not night.accepted or night.left \
                or plan["seq"] <= night.seq:
            return False
        _holds(plan, night)
        self._closed_change(night, {"event": "plan", "host": host, "plan": plan})
        log.info("night %s: a correction of table %s after the close, kept", night.name, host)
        return True


    @_locked
    def reconcile(self, table: str) -> list[Game]:
        """At a table that follows (``table``), once a plan is kept: a game begun for a round the
        host has undone since is free play; a round it had not heard of
        when it was confirmed (its broker down) takes the first game this table began as free play
        after that, before the next round was confirmed, while the round's pair here has no game:
        that game is dealt again for the round, and recorded if it is over. What it recorded."""
        from .games import from_view

        night, kept = self.current(), list[Game]()
        ids = night.ids()
        for game_id, number in list(night.dealt.items()):  # a round the host undid since: free play here
            known = night.dealt_known.get(game_id, len(night.history))
            if number is not None and game_id not in ids and (number > len(night.rounds) or any(
                    e["event"] == "unconfirm" and e["round"] <= number for e in night.history[known:])):
                self._change({"event": "deal", "game": game_id, "round": None, "known": len(night.history)})
                log.info("night %s: game %s at table %s is free play: the host undid round %d", night.name, game_id,
                         table, number)
        for number, at in enumerate(night.confirmed, start=1):
            made = night.rounds[number - 1]
            pair = night.unplayed(made, table)
            if at is None or pair is None or number in night.dealt.values():
                continue
            until = night.confirmed[number] if number < len(night.confirmed) else None
            begun = sorted((when, game_id) for game_id, when in night.dealt_at.items()
                           if night.dealt.get(game_id) is None and at <= when and (until is None or when < until))
            if not begun:
                continue
            when, game_id = begun[0]
            self._change({"event": "deal", "game": game_id, "round": number, "at": when})
            ended = night.ended.get(game_id)
            game = None if ended is None or ended["view"].get("game") not in night.games else \
                from_view(game_id, table, pair.teams, ended["view"], number, ended["at"])
            if game is not None and self.record(game):
                kept.append(game)
            log.info("night %s: game %s at table %s, begun as free play, is round %d's", night.name, game_id, table,
                     number)
        return kept


    @_locked
    def leave(self) -> Night:
        """This table's staff leave the night it follows: it is closed here (its games stay kept),
        and the table is free to open its own or accept another host."""
        night = self.current()
        if night.host is None:
            raise NightRefused("this table hosts the night {name}: close it instead", name=night.name)
        self._change({"event": "leave", "at": self.clock()})
        self._ended()
        log.info("night: left the night %s of table %s", night.name, night.host)
        return night

    @_locked
    def follow(self, host: str, table: str, plan: Event) -> bool:
        """The plan ``host`` published (the fleet's schema read it) for this table (``table``):
        True when kept, as the night followed here or a night now followed (its host on the
        owner's list of the café's tables); False when it is no newer than the one kept, of a
        night over, or an offer (``offers``: this table's staff accept it with its host's code);
        NightRefused when it is no plan for this table (see docs/cafe/night.md, "Hosts and followers")."""
        if host == table or table not in plan["tables"]:
            self.offers.pop(host, None)
            raise NightRefused("the plan of table {host} is no night this table plays in", host=host)
        if not NIGHT_ID.fullmatch(plan["night"]):
            raise NightRefused("the plan of table {host} is of no night opened now", host=host)
        night = self.night
        if night is not None and night.open and night.host == host:
            if night.id == plan["night"]:
                if plan["seq"] <= night.seq:
                    return False
                _holds(plan, night)
                self._plan(host, plan)
                return True
            if plan["opened"] > night.opened:  # a host runs one night at a time: the one followed here is over there
                self.leave()
        if plan["closed"] is not None:  # a night over (its plan stays at the broker): a correction, or nothing
            if self.offers.get(host, {}).get("night") == plan["night"]:
                del self.offers[host]  # the night on offer is over; an earlier night's correction leaves it on offer
            return self._corrected(host, plan)
        offered = self.offers.pop(host, None)
        if not -CLOCK_SKEW_S <= self.clock() - plan["opened"] <= NEW_NIGHT_S:
            raise NightRefused("the plan of table {host} is of no night opened now", host=host)
        _holds(plan, None)
        if host in self.cafe_tables and (self.night is None or not self.night.open):
            kept = self._kept(plan["night"])
            if kept is None or not kept[0].left:  # a night its staff left is not taken up again unasked
                self._accept(host, plan, kept, "list")
                return True
        if offered is None and len(self.offers) >= MAX_OFFERS:
            log.warning("night: %d nights are on offer to this table already: table %s's is not", MAX_OFFERS, host)
            return False
        self.offers[host] = plan
        if offered is None or offered["night"] != plan["night"]:
            log.warning("night: table %s offers its night %s to this table: it is followed once this table's staff "
                        "accept it with the code on that table's screen", host, plan["name"])
        return False

    def offered(self) -> list[dict[str, object]]:
        """The nights on offer to this table, for its staff page: each host and its night's name."""
        with self.lock:
            now = self.clock()
            return [{"host": host, "night": plan["night"], "name": plan["name"], "tables": plan["tables"],
                     "opened": plan["opened"]} for host, plan in self.offers.items()
                    if now - plan["opened"] <= NEW_NIGHT_S]

    def accept(self, host: str, code: str) -> Night:
        """Follow the night table ``host`` offers, its code typed by this table's staff (the host
        shows it); NightRefused saying why not. The code's proof is made outside the lock: it
        takes a tenth of a second, and the table's loop records games meanwhile."""
        with self.lock:
            self._free()
            plan = self.offers.get(host)
        if plan is None:
            raise NightRefused("table {host} offers no night to this table now", host=host)
        if not proves(code, host, plan["night"], plan.get("proof") or ""):
            raise NightRefused("that is not the code of table {host}'s night {name}: it is on that table's screen "
                               "and its staff page", host=host, name=plan["name"])
        with self.lock:
            self._free()
            newest = self.offers.get(host)
            if newest is None or newest["night"] != plan["night"]:
                raise NightRefused("table {host} offers no night to this table now", host=host)
            return self._accept(host, newest, self._kept(plan["night"]), "code")

    def _accept(self, host: str, plan: Event, kept: tuple[Night, int] | None, by: str) -> Night:
        """Follow ``host``'s night from ``plan``: a new file, or the one kept (a night left, or
        followed before the codes), taken up again."""
        if kept is None:
            self._start(plan["night"])
        else:
            _holds(plan, kept[0])
            self._take_up(self.folder / f"{plan['night']}.jsonl", *kept)
        self._change({"event": "accept", "host": host, "by": by, "at": self.clock()}, self.night)
        night = self._change({"event": "plan", "host": host, "plan": plan})
        self._point(night.id)
        self.offers.pop(host, None)
        log.info("night: following the night %s of table %s (accepted %s)", night.name, host,
                 "from the owner's list of the café's tables" if by == "list" else "with its code")
        if self.followed is not None:
            self.followed()
        return night

    def _kept(self, night_id: str) -> tuple[Night, int] | None:
        """The night ``night_id`` as kept here, and its whole lines' length; None when none is."""
        path = self.folder / f"{night_id}.jsonl"
        return read_night(path) if path.is_file() else None

    def _plan(self, host: str, plan: Event) -> None:
        night = self._change({"event": "plan", "host": host, "plan": plan})
        if not night.open:
            self._ended()

    @_locked
    def gather(self, night_id: str, table: str, games: Iterable[Game]) -> list[Game]:
        """The games another table of the night ``night_id`` (``table``, the topic's) told of, kept
        when they are the ones the night waits for there: each once, and never one it says was
        played elsewhere or by teams the round did not put there. A closed night kept here takes
        them too, at the end of its file (``_closed_change``): a game of a round paired before the
        close, told of after it by a table that was offline then, counts as the correction it is.
        A game told again (a retained report, a table back) is one the night holds: nothing is
        written. A night open in its file but not here (its close line damaged) keeps none: a
        game is written into the night it was checked against, never into the one open here."""
        kept = list[Game]()
        night = self.night if self.night is not None and self.night.id == night_id else None
        if night is None and NIGHT_ID.fullmatch(night_id) and (self.folder / f"{night_id}.jsonl").is_file():
            night = self.night_of(night_id)
        if night is None or night.left:
            return kept
        if night.open and night is not self.night:
            log.warning("night: table %s told of games of the night %s, which is neither open here nor closed (its "
                        "file is damaged): none is kept", table, night_id)
            return kept
        for game in map(night.as_named, games):  # a game played under a team's name since corrected counts
            if game.table == table and night.awaits(game):
                event = {"event": "game", "game": game.to_json()}
                if night.open:
                    self._change(event)
                else:
                    self._closed_change(night, event)
                kept.append(game)
        return kept



def _holds(plan: Event, kept: Night | None) -> None:
    """NightRefused unless the plan holds together and, against the night ``kept`` (a follower's,
    from the same host), changes only what a host can: teams join or are removed before their
    first round, rounds are added (or the last ones undone, as its history says: a game of theirs
    recorded here then counts no more, ``Night.paired``, unless it was written before pairings were
    counted), a team is renamed (its rounds and games here the same, named anew), the night closes.
    A confirmed round is never otherwise rewritten, and every team of a game played here stays,
    so no plan can move a game played here."""
    teams = [t["name"] for t in plan["teams"]]
    rounds = [Round.from_json(made) for made in plan["rounds"]]
    tables = set(plan["tables"])
    for number, made in enumerate(rounds, start=1):
        names = [name for pair in made.pairs for name in pair.teams]
        places = [pair.table for pair in made.pairs]
        if made.number != number or len(set(names)) != len(names) or not set(names) <= set(teams) \
                or len(set(places)) != len(places) or not set(places) <= tables:
            raise NightRefused("round {number} of the plan does not hold together", number=number)
    if len(set(teams)) != len(teams) or not all(TABLE_ID.fullmatch(t) for t in tables) \
            or not set(plan["games"]) <= set(NAMES):
        raise NightRefused("the plan's teams, tables or games do not hold together")
    try:
        Night(str(plan["night"]))._follow("", plan)  # its bye, tie-break and history, as a follower replays them
    except (KeyError, TypeError, ValueError):
        raise NightRefused("the plan's results do not hold together") from None
    if kept is None:
        return
    later = (plan.get("history") or ())[len(kept.history):]
    undone = [int(e["round"]) for e in later if e["event"] == "unconfirm"]
    fixed = min([len(kept.rounds) + 1, *undone]) - 1  # the rounds it keeps as they are: up to the first one undone
    now: dict[str, str] = {}  # the teams renamed since (issue 76, item 11): the same rounds and games, named anew
    for e in later:
        if e["event"] == "rename":
            now = {**{was: e["to"] if name == e["team"] else name for was, name in now.items()}, e["team"]: e["to"]}
    if (kept.name, kept.games, kept.tables, kept.opened) != (
            plan["name"], tuple(plan["games"]), tuple(plan["tables"]), plan["opened"]) \
            or not {now.get(name, name) for game in kept.played for name in game.teams} <= set(teams) \
            or rounds[:fixed] != [made.renamed(lambda name: now.get(name, name)) for made in kept.rounds[:fixed]] or any(g.round is not None and g.round > fixed and g.pairing is None for g in kept.played):
        raise NightRefused("a plan changes only the night's teams, its next rounds and its close")
