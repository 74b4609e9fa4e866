"""The game night on the staff page, and the teams' own page: the night's routes, behind the
staff page's checks (``StaffPage.api``), on the table's ``Recorder`` (its ``Book``, and the game
under way here); its exports and printed pages are ``web.night``'s, and the handlers of a night
kept and of the pages open to every phone ``web.night_pages``' (``NightPages``, its base).

Staff (session and CSRF token): ``GET night`` (the open night, its standings, the nights
kept and the nights other tables offer this one), ``POST night/open`` (``{"name", "games",
"tables", "bye", "tiebreak", "late", "seeding"}``), ``night/join`` (``{"team", "nicknames"}``), ``night/approve``,
``night/remove``, ``night/withdraw``, ``night/reinstate``, ``night/rename`` (``{"team", "to"}``: a
mistyped team named anew), ``night/apart`` and ``night/unapart``
(``{"teams": [NAME, NAME]}``: two teams the pairing keeps apart, or no more), ``night/rest`` (``{"team", "rounds"}``: a bye asked
for each of the rounds to come it lists, the next one when it lists none) and ``night/unrest`` (``{"team",
"round"}``: one taken back, the next round's when it names none), ``night/result``
(``{"round", "table", "result", "winner", "game"}``: a result entered or corrected, written with
who and when), ``night/propose``, ``night/swap`` (``{"one", "other"}``), ``night/pair`` (``{"pairs": [{"table",
"red", "blue"}], "resting"}``: the next round by hand), ``night/confirm``
(``{"over": true}`` to confirm over a round still played), ``night/unconfirm`` (the last round
back to a proposal, none of its games begun), ``night/close`` (``{"confirm": true}`` to close
while tables still play, which it names otherwise); ``night/accept`` (``{"host",
"code"}``: follow a night on offer, with the code its host shows) and ``night/leave``; for a
night kept, ``GET night/ID.xlsx`` (a workbook, a sheet a table), ``night/ID/TABLE.csv``
(standings, rounds or games, a CSV each with a BOM and the page's language's separators),
``night/ID.csv`` (the three in one, as scripts have read it since issue 38), ``night/ID.trf``
(FIDE's tournament report), ``night/ID/print`` (a page to print; ``?round=N``: that round's pairing slips) and ``night/ID/kept`` (its
rounds and results), and ``POST night/ID/result`` (as ``night/result``) to correct a closed one.
A night this table follows (its ``host`` another table) is shown, and its changes refused: they
are its host's staff page's.
Open to every phone on the café's network: ``GET /night`` (a team names itself: the table's QR
code leads there) and ``POST /night/join``, and ``GET /night/standings`` for the spectators' TV.
A team that joins from a phone waits for the staff's approval; a phone (its address) may try
``JOINS_A_MINUTE`` times a minute and join ``TEAMS_A_PHONE`` teams a night.
docs/cafe/night.md is the contract.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from aiohttp import web

from ...engine.errors import Refusal
from ...engine.games import terminations
from ...engine.phrase import N_
from ...night.events import DRAW, LATE_CHOICES, RATINGS
from ...night.pairing import PairingRefused
from ...night.recorder import Recorder
from ...night.scoring import RATING, tiebreak_texts
from ...night.standings import high_scores
from ...night.state import Night
from ...ui.i18n import say, translation
from ..auth import Session, Throttle, who
from ..night import (
    tiebreak_choices,
    tiebreaks_shown,
)
from ..night_pages import NightPages
from ..roles import Checked, Route, open_to_all, staff
from ..staff import Section, StaffPage, log
from ..staff_answers import bad, language

T = TypeVar("T")
KEPT_NAMED = 5  # the nights kept the desk lists with their names (night.js's KEPT_SHOWN)
WATCH_S = 0.25  # how often the night's section looks whether the book changed, to tell the spectators' pages
JOINS_A_MINUTE = 6  # tries to join from one phone (its address): a typo or a name taken, not a flood

TEXTS: tuple[str, ...] = (
    N_("Game night"),
    N_("Night's name"),
    N_("Games"),
    N_("Tables (their names, separated by spaces)"),
    N_("Open the night"),
    N_("Close the night"),
    N_("Close the night? Its games stay kept, and it can be exported."),
    N_("Team"),
    N_("Nicknames (optional, separated by commas)"),
    N_("League code (optional)"),
    N_("Add the team"),
    N_("Teams"),
    N_("Propose the next round"),
    N_("Swap"),
    N_("Swap this team"),
    N_("with this team"),
    N_("Confirm the round"),
    N_("Round {number}"),
    N_("table"),
    N_("sitting out"),
    N_("Standings"),
    N_("played"),
    N_("won"),
    N_("lost"),
    N_("points"),
    N_("margin"),
    N_("rating"),
    N_("Export CSV"),
    N_("Print"),
    N_("no night is open"),
    N_("Nights kept"),
    N_("This night is run from the staff page of table {host}: it is shown here, not changed."),
    N_("Code for the other tables: {code}"),
    N_("Waiting for the staff"),
    N_("Approve"),
    N_("Remove"),
    N_("Remove the team {team} from the night?"),
    N_("Nights on offer to this table"),
    N_("Code on its host's screen"),
    N_("Follow this night"),
    N_("Leave the night"),
    N_("Leave the night? Its games played here stay kept, and its host's night goes on."),
    N_("A bye (a round sat out) scores"),
    N_("a win (1 point)"),
    N_("a draw (½ point)"),
    N_("nothing (0 points)"),
    N_("Tie-break after points"),
    N_("A round a team missed by joining late scores"),
    N_("{team} (from round {number})"),
    N_("Tie-break: {tiebreak}"),
    N_("Tie-breaks after points, in order"),
    N_("then"),
    N_("none"),
    N_("byes"),
    N_("withdrawn"),
    N_("Withdraw"),
    N_("Withdraw the team {team}? It keeps its results and is paired no more."),
    N_("Back in"),
    N_("New name"),
    N_("Rename"),
    N_("Rename the team {team} to {name}? Every table and the league name it so."),
    N_("{team} renamed {name}"),
    N_("Keep this team"),
    N_("apart from this team"),
    N_("Keep apart"),
    N_("{one} and {other} are kept apart"),
    N_("{one} and {other} may be paired again"),
    N_("Pair them again"),
    N_("Pair {one} and {other} again"),
    N_("Choose two different teams to keep apart"),
    N_("Table {table}: {one} and {other} are kept apart, and no other pairing was possible"),
    N_("(red, plays first)"),
    N_("Still played: round {number} at table {tables}"),
    N_("Round {number} is still played at table {tables}. Confirm round {next} anyway? Those games count for "
       "round {number} when they end."),
    N_("Still played at table {tables}: close the night anyway? A game there that ends after the close counts for "
       "nothing, unless its table was offline and had not heard of the close: it then counts once the table reports it"),
    N_("Results"),
    N_("Round"),
    N_("Result"),
    N_("{team} won"),
    N_("{team} won by forfeit"),
    N_("double loss (both lose)"),
    N_("void (counts for nothing)"),
    N_("this recorded game:"),
    N_("back to the table's own game"),
    N_("won ({team})"),  # a result in the night's history, by its code (night.js's RESULT_SAID)
    N_("won by forfeit ({team})"),
    N_("a recorded game ({game})"),
    N_("Save the result"),
    N_("History"),
    N_("Export for a tournament program (TRF)"),
    N_("A game not of the night is under way at table {table}: it is free play, and the round's pair plays its own "
       "game there after it."),
    N_("End the game at table {table}"),
    N_("Let the game at table {table} finish"),
    N_("still played"),
    N_("Undo round {number}"),
    N_("Undo round {number}? It goes back to a proposal, to change and confirm again."),
    N_("Undo round {number}? It goes back to a proposal, to change and confirm again, and its results at table "
       "{tables} are dropped on every table: those games count no more."),
    N_("Round {number} undone"),
    N_("Correct a result"),
    N_("Table {table}: {one} and {other} have met before"),
    N_("Table {table}: {team} is due to play red"),
    N_("Table {table}: {team} is due to play blue"),
    N_("Pair the round by hand"),
    N_("red at table {table}"),
    N_("blue at table {table}"),
    N_("Save the pairs"),
    N_("Round 1"),
    N_("Table {table}"),
    N_("(blue)"),
    N_("Winner:"),
    N_("Print the pairing slips"),
    N_("Bye next round"),
    N_("Give the team {team} the bye it asked for in round {number}? It keeps its place, and the round scores {points}."),
    N_("A bye asked for scores"),
    N_("what a round missed scores"),
    N_("Asked for a bye in round {number}: {teams}"),
    N_("Take back the bye of {team} in round {number}"),
    N_("Rounds to sit out, as 4-5"),
    N_("Bye in those rounds"),
    N_("Type the rounds to sit out, as 4-5 or 4, 6"),
    N_("Give the team {team} the bye it asked for in rounds {rounds}? It keeps its place, and each round scores "
       "{points}."),
    N_("Round {number}, proposed: not confirmed yet"),
    N_("Export CSV of the night {night}"),
    N_("xlsx: export the night {night} for a spreadsheet"),
    N_("Export for a spreadsheet (xlsx)"),
    N_("Export CSV: standings"),
    N_("CSV: rounds"),
    N_("CSV: games"),
    N_("Export TRF of the night {night}"),
    N_("Print the night {night}"),
    N_("Correct a result of the night {night}"),
    N_("Approve the team {team}"),
    N_("Remove the team {team}"),
    N_("Back in: the team {team}"),
    N_("Follow this night: {night}, of table {table}"),
    N_("drawn by lot"),
    N_("seeded by the ratings of earlier nights"),
    N_("Round 1 is drawn by lot (draw {draw})."),
    N_("Round 1 is seeded by the ratings of the café's earlier nights, then by lot (draw {draw})."),
    N_("both lost"),
)
"""The night's words on the staff page (night.js looks each up by its English text); the tie-breaks'
are the one list's (``web.night.tiebreak_texts``), which the page is served with the night."""


class NightSection(NightPages, Section[Recorder | None], name="night", script="night.js", texts=(*TEXTS, *tiebreak_texts())):
    """The night's routes on the staff page of ``page``, on the table's ``Recorder``."""

    def __init__(self, page: StaffPage, table: Recorder | None) -> None:
        super().__init__(page, table)
        assert table is not None  # ``made`` makes none without it
        self.recorder, self.book = table, table.book
        self._tries = Throttle(JOINS_A_MINUTE)
        self._phones: tuple[str | None, Counter[str]] = (None, Counter())  # a night's id, its teams joined by address
        self._tv: tuple[tuple[str, int], Night] | None = None  # the night kept last, as of its file's name and size

    @classmethod
    def made(cls, page: StaffPage, table: Recorder | None) -> NightSection | None:
        """None for a table whose journal is kept in memory: it keeps no nights."""
        return None if table is None else cls(page, table)

    def routes(self) -> list[Route]:
        return [
            staff("GET", "/staff/api/night", self._night),
            staff("POST", "/staff/api/night/open", self._open),
            staff("POST", "/staff/api/night/join", self._join),
            staff("POST", "/staff/api/night/approve", self._team_act(self.book.approve)),
            staff("POST", "/staff/api/night/remove", self._team_act(self.book.remove)),
            staff("POST", "/staff/api/night/withdraw", self._team_act(self.book.withdraw, signed=True)),  # who and when
            staff("POST", "/staff/api/night/reinstate", self._team_act(self.book.reinstate, signed=True)),
            staff("POST", "/staff/api/night/rest", self._rest),  # byes asked for rounds to come: who and when
            staff("POST", "/staff/api/night/unrest", self._unrest),
            staff("POST", "/staff/api/night/rename", self._rename),  # a mistyped team named anew: who and when
            staff("POST", "/staff/api/night/apart", self._two_teams(self.book.apart)),  # friends kept apart: who and when
            staff("POST", "/staff/api/night/unapart", self._two_teams(self.book.unapart)),
            staff("POST", "/staff/api/night/result", self._result),  # entered or corrected: who and when
            staff("POST", "/staff/api/night/propose", self._act(lambda body: self.book.propose())),
            staff("POST", "/staff/api/night/swap", self._act(self._swap)),
            staff("POST", "/staff/api/night/pair", self._act(self._pair)),  # by hand: warned of rematches and colours
            staff("POST", "/staff/api/night/confirm", self._act(
                lambda body: self.book.confirm(over=isinstance(body, dict) and body.get("over") is True))),
            staff("POST", "/staff/api/night/close", self._act(
                lambda body: self.book.close(over=isinstance(body, dict) and body.get("confirm") is True))),
            staff("POST", "/staff/api/night/unconfirm", self._unconfirm),  # back to a proposal: who and when
            staff("GET", "/staff/api/night/{id}/kept", self._kept_night),  # a night kept, closed: to correct
            staff("POST", "/staff/api/night/{id}/result", self._correct),  # a closed night's result: who and when
            staff("POST", "/staff/api/night/accept", self._accept),  # with the code on the host's screen
            staff("POST", "/staff/api/night/leave", self._act(lambda body: self.book.leave())),
            staff("GET", "/staff/api/night/{id}.csv", self._csv),
            staff("GET", "/staff/api/night/{id}.xlsx", self._xlsx),  # a workbook, a sheet a table
            staff("GET", "/staff/api/night/{id}/{table}.csv", self._table_csv),  # one of its tables, a CSV of its own
            staff("GET", "/staff/api/night/{id}.trf", self._trf),
            staff("GET", "/staff/api/night/{id}/print", self._print),
            open_to_all("GET", "/night", self._team_page),  # a team names itself: the table's QR code leads there
            open_to_all("POST", "/night/join", self._team_join),  # tries and teams counted by phone
            open_to_all("GET", "/night/standings", self._standings),  # for the spectators' TV
        ]

    def mount(self, app: web.Application) -> None:
        app.cleanup_ctx.append(self._watching)

    async def _watching(self, app: web.Application) -> AsyncIterator[None]:
        """While the pages are served: each change of the book (a result, a round, a team) told to
        the spectators' pages at once (``StaffPage.announce``), which fetch the standings then, as the
        fleet's dashboard pushes its nights; a look at a number four times a second."""
        task = asyncio.create_task(self._watch())
        yield
        task.cancel()

    async def _watch(self) -> None:
        seen = self.book.version
        while True:
            await asyncio.sleep(WATCH_S)
            if self.book.version != seen:
                seen = self.book.version
                self.page.announce("night")

    def _looked(self) -> tuple[dict[str, object] | None, list[dict[str, object]], list[dict[str, object]]]:
        """The open night, its high scores and the nights on offer, in one look under the book's
        lock: a night closed meanwhile (a host's plan heard on the fleet's thread) is not asked for again."""
        with self.book.lock:
            open_night = self.book.night
            night = self.book.snapshot()
            best = [] if night is None or open_night is None else [h.to_json() for h in high_scores(open_night.played)]
            return night, best, self.book.offered()

    async def _night(self, request: web.Request, session: Session) -> web.Response:
        night, best, offers = await asyncio.to_thread(self._looked)
        lang = language(request)
        if night is not None:
            night["free_play"] = self.recorder.free_play()
            night["high_scores"] = best
            night["endings"] = {t.value: translation(lang).gettext(t.words) for t in terminations()}
            night["tiebreaks"] = tiebreaks_shown(str(night["tiebreak"]))
        kept = [path.stem for path in self.book.kept()]
        names = await asyncio.to_thread(lambda: {night_id: self.book.name_of(night_id) for night_id in kept[-KEPT_NAMED:]})
        season = self.recorder.season  # the league's, as the café's broker brought it down (issue 64)
        teams = [{"code": line["code"], "team": line["team"]} for line in (season or {}).get("season", [])
                 if line.get("code")]
        return web.json_response({"night": night, "kept": kept, "kept_names": names, "offers": offers,
                                  "league_teams": teams, "tiebreaks": tiebreak_choices()})

    async def _open(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("name"), str) or not _strings(body.get("games")) \
                or not _strings(body.get("tables")) or body.get("bye", 1) not in (0, 0.5, 1) \
                or not isinstance(body.get("tiebreak", RATING), str) or body.get("late", 0) not in LATE_CHOICES \
                or body.get("seeding", DRAW) not in (DRAW, RATINGS):
            return bad('expected {"name": NAME, "games": [GAME, ...], "tables": [TABLE, ...], "bye": 1, 0.5 or 0, '
                       '"tiebreak": "rating" or tie-breaks in order, joined by commas, "late": 0 or 0.5, '
                       '"seeding": "draw" or "ratings"}')
        return await self._done(request, lambda: self.book.open(body["name"], body["games"], body["tables"],
                                                                float(body.get("bye", 1)),
                                                                body.get("tiebreak", RATING),
                                                                float(body.get("late", 0)),
                                                                body.get("seeding", DRAW)))

    async def _join(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("team"), str) \
                or not _strings(body.get("nicknames", [])) or not isinstance(body.get("code", ""), str):
            return bad('expected {"team": NAME, "nicknames": [NAME, ...], "code": its league code, or none}')
        return await self._done(request, lambda: self.book.join(body["team"], body.get("nicknames", []),
                                                                code=body.get("code", "")[:40]))

    async def _accept(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("host"), str) or not isinstance(body.get("code"), str):
            return bad('expected {"host": TABLE, "code": CODE}')
        return await self._done(request, lambda: self.book.accept(body["host"][:64], body["code"][:40]))

    def _swap(self, body: object) -> object:
        """``{"one": TEAM, "other": TEAM}``: anything else names no two teams of the round, and is refused as such."""
        one, other = (body.get("one"), body.get("other")) if isinstance(body, dict) else (None, None)
        if not isinstance(one, str) or not isinstance(other, str):
            raise PairingRefused("swap two different teams of the round")
        return self.book.swap(one, other)

    def _pair(self, body: object) -> object:
        """``{"pairs": [{"table", "red", "blue"}, ...], "resting": [TEAM, ...]}``: the next round by hand."""
        pairs, resting = (body.get("pairs"), body.get("resting", [])) if isinstance(body, dict) else (None, None)
        if not isinstance(pairs, list) or not all(isinstance(p, dict) for p in pairs) or not _strings(resting):
            raise PairingRefused("a round by hand pairs every team of the night once, one pair a table of the night, "
                                 "and names the others as sitting out, but those that asked to sit it out")
        return self.book.pair(pairs, resting)

    def _team_act(self, action: Callable[..., object], signed: bool = False) -> Checked:
        """A route that does ``action`` to the team ``{"team": NAME}`` names; ``signed``: with who did it."""
        async def acted(request: web.Request, session: Session) -> web.Response:
            body = await self.page.read_json(request)
            if not isinstance(body, dict) or not isinstance(body.get("team"), str):
                return bad('expected {"team": NAME}')
            by = (self.who(request, session),) if signed else ()
            return await self._done(request, lambda: action(body["team"], *by))

        return acted

    async def _rename(self, request: web.Request, session: Session) -> web.Response:
        """``{"team": NAME, "to": NAME}``: a mistyped team named anew, its new name checked as a new team's."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("team"), str) or not isinstance(body.get("to"), str):
            return bad('expected {"team": NAME, "to": its new name}')
        by = self.who(request, session)
        return await self._done(request, lambda: self.book.rename(body["team"], body["to"], by))

    def _two_teams(self, action: Callable[[str, str, str], None]) -> Checked:
        """A route that does ``action`` to the two teams ``{"teams": [NAME, NAME]}`` names, with who did it."""
        async def acted(request: web.Request, session: Session) -> web.Response:
            body = await self.page.read_json(request)
            teams = body.get("teams") if isinstance(body, dict) else None
            if not isinstance(teams, list) or len(teams) != 2 or not _strings(teams):
                return bad('expected {"teams": [NAME, NAME]}')
            by = self.who(request, session)
            return await self._done(request, lambda: action(teams[0], teams[1], by))

        return acted

    async def _rest(self, request: web.Request, session: Session) -> web.Response:
        """``{"team": NAME, "rounds": [N, ...], "points": 0 or 0.5}``: the team sits out those rounds
        to come (none: the next one), each scoring the director's choice (none: the night's ``late``)."""
        body = await self.page.read_json(request)
        rounds = body.get("rounds", []) if isinstance(body, dict) else None
        points = body.get("points") if isinstance(body, dict) else None
        if not isinstance(body, dict) or not isinstance(body.get("team"), str) or not _numbers(rounds) \
                or not (points is None or (not isinstance(points, bool) and points in LATE_CHOICES)):
            return bad('expected {"team": NAME, "rounds": [ROUND, ...], "points": 0 or 0.5}')
        by = self.who(request, session)
        return await self._done(request, lambda: self.book.rest(body["team"], by, rounds,
                                                                None if points is None else float(points)))

    async def _unrest(self, request: web.Request, session: Session) -> web.Response:
        """``{"team": NAME, "round": N}``: the bye it asked for round N (none: the next one), taken back."""
        body = await self.page.read_json(request)
        number = body.get("round") if isinstance(body, dict) else None
        if not isinstance(body, dict) or not isinstance(body.get("team"), str) \
                or not (number is None or _numbers([number])):
            return bad('expected {"team": NAME, "round": ROUND}')
        by = self.who(request, session)
        return await self._done(request, lambda: self.book.unrest(body["team"], by, number))

    async def _result(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        if not _a_result(body):
            return bad(RESULT_BODY)
        assert isinstance(body, dict)  # _a_result checked it
        number, by = body["round"], self.who(request, session)
        return await self._done(request, lambda: self.book.result(number, body["table"], body["result"], by,
                                                                  body.get("winner"), body.get("game")))

    async def _unconfirm(self, request: web.Request, session: Session) -> web.Response:
        by = self.who(request, session)
        return await self._done(request, lambda: self.book.unconfirm(by))

    async def _kept_night(self, request: web.Request, session: Session) -> web.Response:
        """A night kept (closed), as the desk shows the open one: to correct its results."""
        night = await asyncio.to_thread(self._kept, request)
        return web.json_response({"night": await asyncio.to_thread(night.to_json)})

    async def _correct(self, request: web.Request, session: Session) -> web.Response:
        """A result of a closed night entered or corrected (``{"round", "table", "result",
        "winner", "game"}`` as ``night/result``): the night kept as it is then."""
        body = await self.page.read_json(request)
        if not _a_result(body):
            return bad(RESULT_BODY)
        assert isinstance(body, dict)  # _a_result checked it
        by, night_id = self.who(request, session), request.match_info["id"]
        return await self._done(request, lambda: self.book.correct(night_id, body["round"], body["table"],
                                                                   body["result"], by, body.get("winner"),
                                                                   body.get("game")),
                                lambda night: {"night": night.to_json()})

    def who(self, request: web.Request, session: Session) -> str:
        """Who does a change at the desk, for the night's history: the staff or the owner, and
        their phone (a short name made from its device cookie's, which stays secret)."""
        return who("owner" if self.page.owner.left_s(session) else "staff", self.page.gate.door.device(request))

    def _act(self, action: Callable[[object], object]) -> Checked:
        async def acted(request: web.Request, session: Session) -> web.Response:
            body = await self.page.read_json(request)
            return await self._done(request, lambda: action(body))

        return acted

    async def _done(self, request: web.Request, action: Callable[[], T],
                    shown: Callable[[T], dict[str, object]] | None = None) -> web.Response:
        """The night after ``action`` (or ``shown`` of what it gave): 200, or 409 and why not in
        the page's language."""
        try:
            done = await asyncio.to_thread(action)
        except Refusal as e:
            return web.json_response({"ok": False, "error": say(e.phrase, language(request))}, status=409)
        except OSError as e:
            log.error("the night's book cannot be written: %s", e)
            return web.json_response({"ok": False, "error": e.strerror or str(e)}, status=500)
        if shown is not None:
            return web.json_response(await asyncio.to_thread(shown, done))
        return await self._night(request, None)  # type: ignore[arg-type]  # its checks passed already


RESULT_BODY = 'expected {"round": NUMBER, "table": TABLE, "result": RESULT, "winner": TEAM or null, "game": GAME or null}'


def _a_result(body: object) -> bool:
    """Whether ``body`` is a result as the desk sends it (its words the book checks)."""
    number = body.get("round") if isinstance(body, dict) else None
    return isinstance(body, dict) and not isinstance(number, bool) and isinstance(number, int) \
        and isinstance(body.get("table"), str) and isinstance(body.get("result"), str) \
        and all(body.get(name) is None or isinstance(body.get(name), str) for name in ("winner", "game"))


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _numbers(value: object) -> bool:
    """A list of round numbers: whole, not true or false."""
    return isinstance(value, list) and all(isinstance(item, int) and not isinstance(item, bool) for item in value)

