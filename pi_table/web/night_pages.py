"""The game night's pages beside the staff's desk (``web.sections.night.NightSection`` is built
on them): the exports and printed pages of a night kept, for the staff, and the pages open to
every phone, a team joining and the spectators' TV.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
import unicodedata
from collections import Counter

from aiohttp import web

from ..engine.errors import Refusal
from ..engine.phrase import Phrase
from ..night.book import Book
from ..night.crosstable import cross_table
from ..night.recorder import Recorder
from ..night.standings import high_scores
from ..night.state import Night
from ..ui.i18n import say, translation
from .auth import Session, Throttle
from .night import (
    TABLES,
    night_csv,
    night_trf,
    night_xlsx,
    printable,
    slips,
    table_csv,
    team_page,
    tiebreaks_shown,
)
from .staff import StaffPage, log
from .staff_answers import language

TEAMS_A_PHONE = 3  # teams one phone joins in a night: a friend's team whose phone is flat, not a flood


class NightPages:
    """A night kept, exported or printed; a team's own page, and the standings on the TV."""

    page: StaffPage
    recorder: Recorder
    book: Book
    _tries: Throttle
    _phones: tuple[str | None, Counter[str]]  # a night's id, its teams joined by address
    _tv: tuple[tuple[str, int], Night] | None  # the night kept last, as of its file's name and size

    def _kept(self, request: web.Request) -> Night:
        try:
            return self.book.night_of(request.match_info["id"])
        except Refusal:
            raise web.HTTPNotFound(text="") from None

    async def _csv(self, request: web.Request, session: Session) -> web.Response:
        night = await asyncio.to_thread(self._kept, request)
        return web.Response(text=night_csv(night), content_type="text/csv", headers=_named(night, "csv"))

    async def _xlsx(self, request: web.Request, session: Session) -> web.Response:
        night = await asyncio.to_thread(self._kept, request)
        body = await asyncio.to_thread(night_xlsx, night)
        return web.Response(body=body, content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                            headers=_named(night, "xlsx"))

    async def _table_csv(self, request: web.Request, session: Session) -> web.Response:
        """One of the night's tables (``TABLES``) as a CSV of its own, in the page's language."""
        table = request.match_info["table"]
        if table not in TABLES:
            raise web.HTTPNotFound(text="")
        night = await asyncio.to_thread(self._kept, request)
        text = await asyncio.to_thread(table_csv, night, table, language(request))
        return web.Response(text=text, content_type="text/csv", charset="utf-8", headers=_named(night, "csv", table))

    async def _trf(self, request: web.Request, session: Session) -> web.Response:
        night = await asyncio.to_thread(self._kept, request)
        return web.Response(text=night_trf(night), content_type="text/plain", charset="utf-8",
                            headers=_named(night, "trf"))

    async def _print(self, request: web.Request, session: Session) -> web.Response:
        """The night to print, or with ``?round=N`` that round's pairing slips."""
        night = await asyncio.to_thread(self._kept, request)
        origin = f"{request.scheme}://{request.host}"  # the page is opened from a blob: its style's address whole
        asked = request.query.get("round")
        if asked is None:
            return web.Response(text=printable(night, language(request), origin), content_type="text/html")
        try:
            text = slips(night, int(asked) if asked.isdigit() else 0, language(request), origin)
        except Refusal as e:
            return web.json_response({"ok": False, "error": say(e.phrase, language(request))}, status=409)
        return web.Response(text=text, content_type="text/html")

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
        name, nicknames, code = str(form.get("team", "")), str(form.get("nicknames", "")), str(form.get("code", ""))
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
                joined = await asyncio.to_thread(self.book.join, name[:200], nicknames[:400].split(","), True,
                                                 code[:40])
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
        return web.json_response(await asyncio.to_thread(self._on_tv))

    def _on_tv(self) -> dict[str, object]:
        """What the spectators' TV shows: the night open, else the last one closed here, its final
        standings (the prizes' order) until a new one opens, across a restart too; not a night
        this table left. With each round's teams that asked to sit it out (``rests``), the cross-table
        of its standings (``crosstable``: each line's rounds, issue 76 item 11), and the season of
        the café's league when it has one (``league``, issue 64)."""
        with self.book.lock:
            night = self.book.night
            if night is None:
                night = self._last_kept()
            if night is None or night.left:
                return {"night": None, "league": self.recorder.season}
            shown = night.to_json()
            best = [h.to_json() for h in high_scores(night.played)]
            lines = shown["standings"]
            assert isinstance(lines, list)  # Night.to_json's: its standings' lines, in their order
            crossed = cross_table(night, [line["team"] for line in lines])  # the cross-table of the same standings
        return {"night": {**{key: shown[key] for key in ("name", "standings", "rounds", "tiebreak", "bye", "rests")},
                          "closed": not night.open, "tiebreaks": tiebreaks_shown(night.tiebreak), "crosstable": crossed},
                "high_scores": best, "league": self.recorder.season}

    def _last_kept(self) -> Night | None:
        """The night kept last here (its file's name sorts last), read again only when that file changes."""
        kept = self.book.kept()
        if not kept:
            return None
        seen = (kept[-1].name, kept[-1].stat().st_size)
        if self._tv is None or self._tv[0] != seen:
            self._tv = (seen, self.book.night_of(kept[-1].stem))
        return self._tv[1]


def _named(night: Night, kind: str, part: str = "") -> dict[str, str]:
    """A night's export saved under its name and the day it opened (``Friday-league-2026-11-26.csv``;
    one of its tables, ``part``, after them: ``...-2026-11-26-standings.csv``), in the letters a
    file name and an HTTP header take everywhere."""
    name = unicodedata.normalize("NFKD", night.name).encode("ascii", "ignore").decode()
    name = "-".join(re.findall(r"[A-Za-z0-9_]+", name)) or "night"
    day = time.strftime("%Y-%m-%d", time.localtime(night.opened))
    return {"Content-Disposition": f'attachment; filename="{name}-{day}{"-" if part else ""}{part}.{kind}"'}
