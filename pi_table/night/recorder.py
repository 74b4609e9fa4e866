"""The table's side of a night: each game that ends at this table is recorded into the open
night with the round and the pair it was dealt for, once (its journal id), and the table's
screen can say who plays here next.

A game belongs to a round only when it was dealt for that round at this table: its first move
came while the round was under way here (a game dealt and left untouched is the next pair's to
play), and that round's pair at this table has not played yet. Any other game at the table is
free play, and not the night's: above all the customers' game under way when the night opened
here, was accepted, or a round was confirmed, and one the table finds under way after a restart
with no round written for it (it began before the night was open here). The daemon calls
``untouched`` on each wake of its loop while a game has no move, ``begun`` once it has one, and
``seen`` once it is over, all in the loop's thread. ``begun`` writes the round into the book once
for each game, so a game that began in round 3 and ends after the staff confirmed round 4 is
round 3's, by round 3's pair, even across a restart; round 4's pair then plays its own game here.
The staff page lists a free-play game under way (``free_play``), so the staff can end it or let
it finish before the round's pair sits down.

At a table that hosts the night, ``plan`` is what the fleet's reporter tells the other tables,
with the proof of the night's code (``night.code``), which the table's screen shows while the
night has other tables; at one that follows it, ``follow`` keeps the host's plan (from paho's
thread) once its staff accepted the host, and the games are recorded exactly as at the host.
Every table of the night ``gather``s the games the others tell of, so its standings (and the
host's next pairing) count them all.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from ..engine.errors import Refusal
from ..engine.phrase import Phrase
from .book import Book
from .code import proof, shown
from .events import Event
from .games import Game, from_view
from .state import Night

log = logging.getLogger("pi_table.night")


class Recorder:
    """Records this table's (``table``) finished games into ``book``'s open night; ``published``
    hears of each one recorded, and of a free-play game begun or over here (None): what the
    table's night report says changed (the fleet's reporter, when the table is in a fleet)."""

    def __init__(self, book: Book, table: str, clock: Callable[[], float] = time.time) -> None:
        self.book, self.table, self.clock = book, table, clock
        self.published: Callable[[Game | None], None] | None = None
        self.season: dict[str, Any] | None = None  # the league's season, as the café's broker brought it down (issue 64)
        self._done: str | None = None  # the last game id looked at once over
        self._begun: str | None = None  # the last game id whose round was looked up (or written) in an open night
        self._fresh: str | None = None  # the game the last wake saw dealt and untouched
        self.playing: str | None = None  # the game under way at this table (a move made, not over), if any
        self._heard: dict[str, dict[str, Any]] = {}  # each other table's last night report, gathered again at a new plan
        self._next: tuple[int, Phrase | None, bool] | None = None  # next_up and pair_up as of the book's version
        self._proof: tuple[str, str, str] | None = None  # the night's id, its code and their proof, made once
        book.followed = self._gather_heard

    def untouched(self, game_id: str) -> None:
        """The game ``game_id`` is dealt and has no move yet: its first move, seen at the next
        wake (``begun``), is made in the round under way then."""
        self.playing, self._fresh = None, game_id

    def begun(self, game_id: str) -> None:
        """The game ``game_id`` has a move: the round it is played for is written into the book
        (None: free play), once in the night open here; a no-op after that. It is a round's only
        when the wake before saw it untouched: one already under way when the table's loop first
        saw it (after a restart), or when the night opened, was accepted or a round confirmed,
        is free play."""
        self.playing = game_id
        if game_id == self._begun:
            return
        first, self._fresh = self._fresh == game_id, None  # its first move came since the last wake
        night = self.book.night
        if night is None or not night.open:
            return
        with self.book.lock:
            night = self.book.night
            if night is None or not night.open:
                return
            self._begun = game_id
            if game_id in night.dealt or game_id in night.ids():
                return
            made = night.round if first else None
            pair = night.unplayed(made, self.table)
            number = made.number if made is not None and pair is not None else None
            self.book.deal(game_id, number, self.clock() if first else None)
        log.info("night %s: game %s at table %s is %s", night.name, game_id, self.table,
                 "free play" if number is None else f"round {number}'s")
        if number is None and self.published is not None:
            self.published(None)  # the other tables' staff pages hear of it

    def seen(self, game_id: str, state: Callable[[], dict[str, Any]]) -> Game | None:
        """The game ``game_id`` as it stands (``state``: its public view's JSON), recorded if it has just ended."""
        if self.playing is not None:
            was, self.playing = self._free_here(), None
            if was is not None and self.published is not None:
                self.published(None)  # no longer under way: the other tables' staff pages hear of it
        if game_id == self._done or self.book.night is None:
            return None
        view = state()
        if view.get("termination") is None:
            return None
        self._done = game_id
        with self.book.lock:
            night = self.book.night
            if night is None or not night.open or game_id in night.ids():
                return None
            # a game whose first move was its last: the round now, if the wake before saw it untouched;
            # one over already when the night opened here or the table started is not the night's
            made = night.round if self._fresh == game_id else None
            pairing = None if made is None else night.pairing(made.number)
            if game_id in night.dealt:
                number, known = night.dealt[game_id], night.dealt_known.get(game_id)
                pairing = None if number is None else night.pairing(number, known)
                # a game dealt for a pairing undone since is no round's
                made = None if number is None or number > len(night.rounds) \
                    or pairing != night.pairing(number) else night.rounds[number - 1]
            pair = night.unplayed(made, self.table)
            if (made is None or pair is None) and game_id in night.dealt_at and night.host is not None:
                self.book.free(game_id, view)  # a round this table has not heard of may yet claim it
            if made is None or pair is None or view.get("game") not in night.games:
                return None
            game = from_view(game_id, self.table, pair.teams, view, made.number, self.clock(), pairing)
            if game is None or not self.book.record(game):
                return None
        log.info("night %s: game %s of round %d recorded at table %s", night.name, game_id, made.number, self.table)
        if self.published is not None:
            self.published(game)
        return game

    def free_play(self) -> list[dict[str, object]]:
        """The games under way that are not the night's (for the staff page): the customers' game
        under way when the night opened, was accepted or a round was confirmed, which the staff
        end or let finish before the round's pair sits down; this table's (``here``), and the
        other tables' as their night reports tell."""
        night, here = self.book.night, self._free_here()
        if night is None or not night.open:
            return []
        free: list[dict[str, object]] = [] if here is None else [{"table": self.table, "game": here, "here": True}]
        free.extend({"table": table, "game": report["free"], "here": False}
                    for table, report in sorted(self._heard.items())
                    if report.get("free") and report.get("night") == night.id and table in night.tables)
        return free

    def _free_here(self) -> str | None:
        """This table's game under way, if it is no round's (not dealt yet: ``begun`` saw it before the night)."""
        game_id, night = self.playing, self.book.night
        if game_id is None or night is None or not night.open or night.dealt.get(game_id) is not None:
            return None
        return game_id

    def report(self) -> dict[str, object] | None:
        """What the fleet hears of the table's night (``pi-table/<table>/night``, retained): the
        night, its teams and every game recorded at this table, whole each time, so a message
        sent again after an outage, a restart or a power cut (the book is on disk) is the same
        and the dashboard counts each game once; None before the table's first night."""
        with self.book.lock:
            night = self.book.night
            if night is None:
                return None
            free = self._free_here()
            return {"night": night.id, "name": night.name, "open": night.open, "teams": list(night.teams),
                    "games": [game.to_json() for game in night.played if game.table == self.table],
                    **({"free": free} if free is not None else {})}

    def plan(self) -> dict[str, object] | None:
        """What the fleet hears of a night this table hosts (``pi-table/<table>/plan``, retained):
        ``Night.plan_json`` and the proof of its code; None when it hosts none."""
        with self.book.lock:
            night = self.book.night
            if night is None or night.host is not None:
                return None
            plan, code = night.plan_json(), night.code
        if code:  # a night opened before the codes has none: it is followed from the owner's list alone
            if self._proof is None or self._proof[:2] != (night.id, code):
                self._proof = (night.id, code, proof(code, self.table, night.id))
            plan["proof"] = self._proof[2]
        return plan

    def corrected_plan(self, night: Night) -> dict[str, object] | None:
        """The plan of ``night``, closed and corrected here (``Book.corrected``), when this table
        hosted it and it is not the night ``plan`` tells of: the tables that followed it keep it
        as the correction it is (``Book._corrected``; a closed night's plan needs no proof of its
        code, which was checked when they accepted it). None for any other night."""
        with self.book.lock:
            if night.host is not None or night.open or night is self.book.night:
                return None
            return night.plan_json()

    def follow(self, host: str, plan: Event) -> bool:
        """The plan table ``host`` published (as the fleet's schema read it), kept when this table
        follows it; a plan refused is logged, never raised (this runs in paho's thread)."""
        try:
            kept = self.book.follow(host, self.table, plan)
        except Refusal as e:
            log.warning("night: a plan of table %s was refused: %s", host, e.phrase)
            return False
        except (KeyError, TypeError, ValueError) as e:  # what the schema let through and a round cannot be
            log.warning("night: a plan of table %s was refused: %r", host, e)
            return False
        if kept:
            log.info("night: following the night %s of table %s (plan %d)", plan["name"], host, plan["seq"])
            with self.book.lock:
                reconciled = self.book.reconcile(self.table) if self.book.night is not None and self.book.night.open else []
            for game in reconciled:
                if self.published is not None:
                    self.published(game)
            self._gather_heard()
        return kept

    def _gather_heard(self) -> None:
        """The other tables' reports heard, gathered again: a new plan may await their games."""
        for table, report in list(self._heard.items()):
            self.gather(table, report)

    def gather(self, table: str, report: dict[str, Any]) -> list[Game]:
        """The games another table's night report tells of (``report``, as the fleet's schema read
        it), kept when they are the night's; the report is kept in memory, and gathered again at
        a new plan (a game may come before the round that made it)."""
        if table == self.table:
            return []
        self._heard[table] = report
        try:
            games = [Game.from_json(game) for game in report["games"]]
        except (KeyError, TypeError, ValueError) as e:  # GameRefused is a ValueError
            log.warning("night: the night report of table %s was refused: %s", table, e)
            return []
        kept = self.book.gather(report["night"], table, games)
        if kept:
            log.info("night %s: %d games of table %s gathered", report["name"], len(kept), table)
        return kept

    def next_up(self) -> Phrase | None:
        """What the table's screen says of the night: the pair the round puts here, if it has not
        played yet. Asked on every wake of the table's loop: worked out again only once the book
        has changed, so a wake never waits on the book's lock while a change is written."""
        return self._looked()[1]

    def pair_up(self) -> bool:
        """Whether a round's pair is up at this table (its game not played yet): the game dealt
        here then is theirs, its red team first, as the pairing says. Asked on the wakes of a game
        dealt and untouched, as ``next_up`` is."""
        return self._looked()[2]

    def _looked(self) -> tuple[int, Phrase | None, bool]:
        version = self.book.version  # read first: a change made meanwhile is seen at the next wake
        if self._next is None or self._next[0] != version:
            self._next = (version, *self._pair_up())
        return self._next

    def _pair_up(self) -> tuple[Phrase | None, bool]:
        """The pair up here, and at a host whose night has other tables, the night's code; and
        whether a pair is up."""
        with self.book.lock:
            night = self.book.night
            if night is None or not night.open:
                return None, False
            pair = night.unplayed(night.round, self.table)
            hosting = night.host is None and any(table != self.table for table in night.tables)
            code = shown(night.code) if hosting and night.code else None
        said = None if pair is None else Phrase.of("next: {red} vs {blue} at table {table}", red=pair.red,
                                                   blue=pair.blue, table=self.table)
        if code is None:
            return said, pair is not None
        if said is None:
            return Phrase.of("night code {code}", code=code), False
        return Phrase.of("{next} · night code {code}", next=said, code=code), True
