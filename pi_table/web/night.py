"""The game night on the staff page, and the teams' own page: the night's routes, behind the
staff page's checks (``StaffPage.api``), on the table's ``Book``.

Staff (session and CSRF token): ``GET night`` (the open night, its standings, the nights
kept and the nights other tables offer this one), ``POST night/open`` (``{"name", "games",
"tables", "bye", "tiebreak"}``), ``night/join`` (``{"team", "nicknames"}``), ``night/approve``,
``night/remove``, ``night/withdraw`` and ``night/reinstate`` (``{"team"}``), ``night/result``
(``{"round", "table", "result", "winner", "game"}``: a result entered or corrected, written with
who and when), ``night/propose``, ``night/swap`` (``{"one", "other"}``), ``night/confirm``
(``{"over": true}`` to confirm over a round still played), ``night/close``; ``night/accept``
(``{"host", "code"}``: follow a night on offer, with the code its host shows) and ``night/leave``;
``GET night/ID.csv``, ``night/ID.trf`` (FIDE's tournament report) and ``night/ID/print`` (a page
to print) for a night kept. A night this table follows (its ``host`` another table) is shown, and its
changes refused: they are its host's staff page's.
Open to every phone on the café's network: ``GET /night`` (a team names itself: the table's QR
code leads there) and ``POST /night/join``, and ``GET /night/standings`` for the spectators' TV.
A team that joins from a phone waits for the staff's approval; a phone (its address) may try
``JOINS_A_MINUTE`` times a minute and join ``TEAMS_A_PHONE`` teams a night.
docs/cafe/night.md is the contract.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import logging
import math
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable

from aiohttp import web

from ..engine.endings import WORDS
from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase
from ..files import csv_text
from ..night.book import BUCHHOLZ, RATING, VOID, Book, Night
from ..night.pairing import PairingRefused, Round
from ..night.scoring import PLAYED
from ..night.standings import Result, high_scores
from ..ui.i18n import say, translation
from .auth import Session, Throttle
from .staff import StaffPage, bad, language

log = logging.getLogger("pi_table.web.staff")
Desk = Callable[[web.Request, Session], Awaitable[web.Response]]
"""A route of the director's desk, behind the staff page's checks (``StaffPage.api``)."""
JOINS_A_MINUTE = 6  # tries to join from one phone (its address): a typo or a name taken, not a flood
TEAMS_A_PHONE = 3  # teams one phone joins in a night: a friend's team whose phone is flat, not a flood

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
    N_("rating, then margin"),
    N_("Buchholz (the points of the teams met), then rating"),
    N_("Tie-break: {tiebreak}"),
    N_("rating"),
    N_("Buchholz"),
    N_("byes"),
    N_("withdrawn"),
    N_("Withdraw"),
    N_("Withdraw the team {team}? It keeps its results and is paired no more."),
    N_("Back in"),
    N_("(red, plays first)"),
    N_("Still played: round {number} at table {tables}"),
    N_("Round {number} is still played at table {tables}. Confirm round {next} anyway? Those games count for "
       "round {number} when they end."),
    N_("Results"),
    N_("Round"),
    N_("Result"),
    N_("{team} won"),
    N_("{team} won by forfeit"),
    N_("double loss (both lose)"),
    N_("void (counts for nothing)"),
    N_("this recorded game:"),
    N_("back to the table's own game"),
    N_("Save the result"),
    N_("History"),
    N_("Export for a tournament program (TRF)"),
)
"""The night's words on the staff page (night.js looks each up by its English text)."""

PAGE_TEXTS = (
    N_("Join the game night"),
    N_("Your team's name"),
    N_("Your first names or nicknames, if you like (separated by commas)"),
    N_("Join"),
    N_("Your team {name} is on the list: the staff confirm it, then watch the screen for your table."),
    N_("Names are shown to everyone in the room: nothing secret."),
)


class NightRoom:
    """The night's routes on the staff page of ``page``, on ``book``."""

    texts = TEXTS

    def __init__(self, page: StaffPage, book: Book) -> None:
        self.page, self.book = page, book
        self._tries = Throttle(JOINS_A_MINUTE)
        self._phones: tuple[str | None, Counter[str]] = (None, Counter())  # a night's id, its teams joined by address
        page.rooms.append(self)

    def mount(self, app: web.Application) -> None:
        api = self.page.api
        app.add_routes([
            web.get("/staff/api/night", api(self._night)),
            web.post("/staff/api/night/open", api(self._open)),
            web.post("/staff/api/night/join", api(self._join)),
            web.post("/staff/api/night/approve", api(self._team_act(self.book.approve))),
            web.post("/staff/api/night/remove", api(self._team_act(self.book.remove))),
            web.post("/staff/api/night/withdraw", api(self._team_act(self.book.withdraw, signed=True))),
            web.post("/staff/api/night/reinstate", api(self._team_act(self.book.reinstate, signed=True))),
            web.post("/staff/api/night/result", api(self._result)),
            web.post("/staff/api/night/propose", api(self._act(lambda body: self.book.propose()))),
            web.post("/staff/api/night/swap", api(self._act(self._swap))),
            web.post("/staff/api/night/confirm", api(self._act(
                lambda body: self.book.confirm(over=isinstance(body, dict) and body.get("over") is True)))),
            web.post("/staff/api/night/close", api(self._act(lambda body: self.book.close()))),
            web.post("/staff/api/night/accept", api(self._accept)),
            web.post("/staff/api/night/leave", api(self._act(lambda body: self.book.leave()))),
            web.get("/staff/api/night/{id}.csv", api(self._csv)),
            web.get("/staff/api/night/{id}.trf", api(self._trf)),
            web.get("/staff/api/night/{id}/print", api(self._print)),
            web.get("/night", self._team_page),
            web.post("/night/join", self._team_join),
            web.get("/night/standings", self._standings),
        ])

    async def _night(self, request: web.Request, session: Session) -> web.Response:
        night, offers = await asyncio.to_thread(lambda: (self.book.snapshot(), self.book.offered()))
        lang = language(request)
        if night is not None:
            night["high_scores"] = [h.to_json() for h in high_scores(self.book.current().played)]
            night["endings"] = {t.value: translation(lang).gettext(WORDS[t]) for t in WORDS}
        kept = [path.stem for path in self.book.kept()]
        named = await asyncio.to_thread(self._names, kept[-KEPT_NAMED:])
        return web.json_response({"night": night, "kept": kept, "kept_names": named, "offers": offers})

    def _names(self, kept: list[str]) -> dict[str, str]:
        """The names of the nights ``kept`` (by id) that can be read: the page shows a night by its name."""
        named = {}
        for night_id in kept:
            try:
                named[night_id] = self.book.night_of(night_id).name
            except (Refusal, OSError, ValueError):  # a night's file gone or damaged: shown by its id
                continue
        return named

    async def _open(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("name"), str) or not _strings(body.get("games")) \
                or not _strings(body.get("tables")) or body.get("bye", 1) not in (0, 0.5, 1) \
                or body.get("tiebreak", RATING) not in (RATING, BUCHHOLZ):
            return bad('expected {"name": NAME, "games": [GAME, ...], "tables": [TABLE, ...], "bye": 1, 0.5 or 0, '
                       '"tiebreak": "rating" or "buchholz"}')
        return await self._done(request, lambda: self.book.open(body["name"], body["games"], body["tables"],
                                                                float(body.get("bye", 1)),
                                                                body.get("tiebreak", RATING)))

    async def _join(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("team"), str) \
                or not _strings(body.get("nicknames", [])):
            return bad('expected {"team": NAME, "nicknames": [NAME, ...]}')
        return await self._done(request, lambda: self.book.join(body["team"], body.get("nicknames", [])))

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

    def _team_act(self, action: Callable[..., object], signed: bool = False) -> Desk:
        """A route that does ``action`` to the team ``{"team": NAME}`` names; ``signed``: with who did it."""
        async def acted(request: web.Request, session: Session) -> web.Response:
            body = await self.page.read_json(request)
            if not isinstance(body, dict) or not isinstance(body.get("team"), str):
                return bad('expected {"team": NAME}')
            by = (self.who(request, session),) if signed else ()
            return await self._done(request, lambda: action(body["team"], *by))

        return acted

    async def _result(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        number = body.get("round") if isinstance(body, dict) else None
        if not isinstance(body, dict) or isinstance(number, bool) or not isinstance(number, int) \
                or not isinstance(body.get("table"), str) or not isinstance(body.get("result"), str) \
                or not all(body.get(name) is None or isinstance(body.get(name), str) for name in ("winner", "game")):
            return bad('expected {"round": NUMBER, "table": TABLE, "result": RESULT, "winner": TEAM or null, '
                       '"game": GAME or null}')
        by = self.who(request, session)
        return await self._done(request, lambda: self.book.result(number, body["table"], body["result"], by,
                                                                  body.get("winner"), body.get("game")))

    def who(self, request: web.Request, session: Session) -> str:
        """Who does a change at the desk, for the night's history: the staff or the owner, and
        their phone (a short name made from its device cookie's, which stays secret)."""
        role = "owner" if self.page.owner.left_s(session) else "staff"
        device = self.page.gate.door.device(request)
        return role if device is None else f"{role} · {hashlib.sha256(device.encode()).hexdigest()[:6]}"

    def _act(self, action: Callable[[object], object]) -> Desk:
        async def acted(request: web.Request, session: Session) -> web.Response:
            body = await self.page.read_json(request)
            return await self._done(request, lambda: action(body))

        return acted

    async def _done(self, request: web.Request, action: Callable[[], object]) -> web.Response:
        """The night after ``action``: 200, or 409 and why not in the page's language."""
        try:
            await asyncio.to_thread(action)
        except Refusal as e:
            return web.json_response({"ok": False, "error": say(e.phrase, language(request))}, status=409)
        except OSError as e:
            log.error("the night's book cannot be written: %s", e)
            return web.json_response({"ok": False, "error": e.strerror or str(e)}, status=500)
        return await self._night(request, None)  # type: ignore[arg-type]  # its checks passed already

    def _kept(self, request: web.Request) -> Night:
        try:
            return self.book.night_of(request.match_info["id"])
        except Refusal:
            raise web.HTTPNotFound(text="") from None

    async def _csv(self, request: web.Request, session: Session) -> web.Response:
        night = await asyncio.to_thread(self._kept, request)
        return web.Response(text=night_csv(night), content_type="text/csv", headers=_named(night, "csv"))

    async def _trf(self, request: web.Request, session: Session) -> web.Response:
        night = await asyncio.to_thread(self._kept, request)
        return web.Response(text=night_trf(night), content_type="text/plain", charset="utf-8",
                            headers=_named(night, "trf"))

    async def _print(self, request: web.Request, session: Session) -> web.Response:
        night = await asyncio.to_thread(self._kept, request)
        origin = f"{request.scheme}://{request.host}"  # the page is opened from a blob: its style's address whole
        return web.Response(text=printable(night, language(request), origin), content_type="text/html")

    async def _team_page(self, request: web.Request) -> web.Response:
        return web.Response(text=team_page(self.page.desk.language()), content_type="text/html")

    async def _team_join(self, request: web.Request) -> web.Response:
        """A team names itself from a phone: it waits for the staff's approval, and a phone's
        tries and teams are counted (its address), so a flood from one never fills the night."""
        lang = self.page.desk.language()
        address = request.remote or "?"
        wait = math.ceil(self._tries.tried(address, False, time.monotonic()))
        if wait:
            said = say(Phrase.of("too many attempts: wait {seconds} s", seconds=wait), lang)
            return web.Response(text=team_page(lang, error=said), content_type="text/html", status=429,
                                headers={"Retry-After": str(wait)})
        form = await request.post()
        name, nicknames = str(form.get("team", "")), str(form.get("nicknames", ""))
        night = self.book.night
        if self._phones[0] != (None if night is None else night.id):
            self._phones = (None if night is None else night.id, Counter())
        joined_here = self._phones[1]
        try:
            if joined_here[address] >= TEAMS_A_PHONE:
                raise Refusal("this phone has joined {count} teams tonight: ask the staff to add more",
                              count=TEAMS_A_PHONE)
            joined_here[address] += 1  # before the wait for the book: a burst from one phone is counted as it comes
            try:
                joined = await asyncio.to_thread(self.book.join, name[:200], nicknames[:400].split(","), True)
            except BaseException:  # not joined (a refusal, the card, a request gone): not counted
                joined_here[address] -= 1
                raise
        except Refusal as e:
            return web.Response(text=team_page(lang, error=say(e.phrase, lang)), content_type="text/html", status=409)
        log.info("night: the team %s joined from a phone (%s), waiting for the staff", joined.name, address)
        said = translation(lang).gettext("Your team {name} is on the list: the staff confirm it, then watch the "
                                         "screen for your table.")
        return web.Response(text=team_page(lang, done=said.format(name=joined.name)), content_type="text/html")

    async def _standings(self, request: web.Request) -> web.Response:
        night = await asyncio.to_thread(self.book.snapshot)
        if night is None:
            return web.json_response({"night": None})
        return web.json_response({"night": {key: night[key] for key in ("name", "standings", "rounds", "tiebreak", "bye")},
                                  "high_scores": [h.to_json() for h in high_scores(self.book.current().played)]})


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


KEPT_NAMED = 5  # the latest nights kept whose names the page shows (night.js's KEPT_SHOWN)


def _named(night: Night, kind: str) -> dict[str, str]:
    """A night's export saved under its name and the day it opened (``Friday-league-2026-11-26.csv``),
    in the letters a file name and an HTTP header take everywhere."""
    name = unicodedata.normalize("NFKD", night.name).encode("ascii", "ignore").decode()
    name = "-".join(re.findall(r"[A-Za-z0-9_]+", name)) or "night"
    day = time.strftime("%Y-%m-%d", time.localtime(night.opened))
    return {"Content-Disposition": f'attachment; filename="{name}-{day}.{kind}"'}


TIEBREAK_WORDS = {RATING: N_("rating, then margin"), BUCHHOLZ: N_("Buchholz (the points of the teams met), then rating")}


def night_csv(night: Night) -> str:
    """The night for a spreadsheet, in three blocks (docs/cafe/night.md, "Exports"): the games
    recorded, one a row; the rounds, a row for each pair and each team sitting out, with the
    result as it counts; the standings, with the tie-break and the points of a bye. Numbers are
    written as numbers."""
    rows: list[tuple[object, ...]] = [("round", "table", "game", "id", "red", "blue", "winner", "termination", "margin", "score")]
    for game in night.played:
        teams = (*game.teams, "")[:2]
        rows.append((game.round or "", game.table, game.game, game.id, *teams, game.winner or "",
                     game.termination.value, "" if game.margin is None else game.margin,
                     "" if game.score is None else game.score))
    rows.append(())
    rows.append(("round", "table", "red", "blue", "result", "winner"))
    slots = night.slots()
    for made in night.rounds:
        for pair in made.pairs:
            counted = slots.get((made.number, pair.table))
            result = night.results.get((made.number, pair.table), {}).get("result", "") if counted is None else \
                counted.how
            rows.append((made.number, pair.table, pair.red, pair.blue, result,
                         "" if counted is None else counted.winner or ""))
        rows.extend((made.number, "", name, "", "bye", "") for name in made.resting)
    rows.append(())
    rows.append(("place", "team", "played", "won", "lost", "drawn", "byes", "points", "margin", "rating", "buchholz",
                 "withdrawn"))
    rows.extend((place, line.team, line.played, line.won, line.lost, line.drawn, line.byes, line.points, line.margin,
                 round(line.ordinal, 2), line.buchholz, "yes" if line.withdrawn else "")
                for place, line in enumerate(night.standings(), start=1))
    rows.append(("tie-break", night.tiebreak))
    rows.append(("bye points", night.bye))
    return csv_text(rows)


def night_trf(night: Night) -> str:
    """The night as FIDE's Tournament Report File (TRF-16), which Swiss-Manager, JaVaFo and
    bbpPairings read: each team a player, numbered in the order it joined; each round its
    opponent, its colour (red is white: it plays first) and its result (``1``, ``0``, ``=`` both
    lost, ``+``/``-`` a forfeit, ``-`` both in a double loss, ``U`` a bye, ``Z`` absent or void,
    blank while played). ``XXR`` gives the rounds and ``BBU`` the points of a bye (bbpPairings's)."""
    start = {name: n for n, name in enumerate(night.teams, start=1)}
    place = {line.team: n for n, line in enumerate(night.standings(), start=1)}
    points = {line.team: line.points for line in night.standings()}
    slots = night.slots()
    lines = [f"012 {night.name}", f"042 {time.strftime('%Y/%m/%d', time.gmtime(night.opened))}",
             f"062 {len(start)}", "092 Swiss (pi-table game night)", f"XXR {len(night.rounds)}",
             f"BBU {night.bye:4.1f}"]
    for name, number in start.items():
        rounds = "".join(_trf_round(night, slots, made, name, start) for made in night.rounds)
        lines.append(f"001 {number:>4}{'':6}{name[:33]:<33}{'':33}{points[name]:4.1f} {place[name]:>4}{rounds}")
    return "\r\n".join(lines) + "\r\n"


def _trf_round(night: Night, slots: dict[tuple[int, str], Result], made: Round, name: str, start: dict[str, int]) -> str:
    """A team's round in TRF-16: ``  OOOO C R`` (columns 92-95, 97 and 99 for the first round)."""
    if name in made.resting:
        return "  0000 - U"
    pair = next((pair for pair in made.pairs if name in pair.teams), None)
    if pair is None or night.results.get((made.number, pair.table), {}).get("result") == VOID:
        return "  0000 - Z"
    other = pair.blue if name == pair.red else pair.red
    counted = slots.get((made.number, pair.table))
    if counted is None:
        code = " "
    elif counted.how == PLAYED:
        code = "=" if counted.winner is None else "1" if counted.winner == name else "0"
    else:
        code = "+" if counted.winner == name else "-"
    return f"  {start[other]:>4} {'w' if name == pair.red else 'b'} {code}"


STYLE = "/staff/static/night.css"
"""The style of the teams' page and of the page to print: a file of the staff page's own, as the
pages' Content-Security-Policy takes no style written in the page."""


def printable(night: Night, lang: str, origin: str = "") -> str:
    """The night's standings and rounds as a page to print (no script; its style from ``origin``,
    the table the staff page is on)."""
    gettext = translation(lang).gettext
    e = html.escape
    tiebreak = gettext("Tie-break: {tiebreak}").format(tiebreak=gettext(TIEBREAK_WORDS[night.tiebreak]))
    words = ("Team", "played", "won", "lost", "byes", "points", "margin", "rating", "Buchholz")
    heads = "".join(f"<th>{e(gettext(word))}</th>" for word in words)
    rows = "".join(f"<tr><td>{place}. {e(s.team)}{e(' (' + gettext('withdrawn') + ')') if s.withdrawn else ''}</td>"
                   f"<td>{s.played}</td><td>{s.won}</td><td>{s.lost}</td><td>{s.byes}</td>"
                   f"<td>{s.points:g}</td><td>{s.margin}</td><td>{s.ordinal:.1f}</td><td>{s.buchholz:g}</td></tr>"
                   for place, s in enumerate(night.standings(), start=1))
    rounds = "".join(f"<h2>{e(gettext('Round {number}').format(number=made.number))}</h2><ul>" + "".join(
        f"<li>{e(gettext('table'))} {e(pair.table)}: {e(pair.red)} {e(gettext('(red, plays first)'))} – {e(pair.blue)}"
        "</li>" for pair in made.pairs) + (f"<li>{e(gettext('sitting out'))}: {e(', '.join(made.resting))}</li>"
                                           if made.resting else "") + "</ul>" for made in night.rounds)
    return (f'<!doctype html><html lang="{lang}"><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{e(night.name)}</title><link rel="stylesheet" href="{e(origin)}{STYLE}">'
            f'<main class="printed"><h1>{e(night.name)}</h1><h2>{e(gettext("Standings"))}</h2>'
            f'<p>{e(tiebreak)}</p><div class="scroll" tabindex="0" role="region" aria-label="{e(gettext("Standings"))}">'
            f"<table><tr>{heads}</tr>{rows}</table></div>{rounds}</main></html>")


def team_page(lang: str, error: str | None = None, done: str | None = None) -> str:
    """The phones' page where a team names itself: a plain form, no script."""
    gettext = translation(lang).gettext
    e = html.escape
    said = "" if error is None and done is None else f'<p class="said">{e(error or done or "")}</p>'
    title, name = e(gettext("Join the game night")), e(gettext("Your team's name"))
    nicknames = e(gettext("Your first names or nicknames, if you like (separated by commas)"))
    join, public = e(gettext("Join")), e(gettext("Names are shown to everyone in the room: nothing secret."))
    return (f'<!doctype html><html lang="{lang}"><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<title>{title}</title><link rel="stylesheet" href="{STYLE}">'
            f"<main><h1>{title}</h1>{said}"
            '<form method="post" action="/night/join">'
            f'<label>{name}<input name="team" maxlength="24" required></label>'
            f'<label>{nicknames}<input name="nicknames" maxlength="200"></label>'
            f'<button type="submit">{join}</button></form><p>{public}</p></main></html>')
