"""The cards read from a phone's picture on the staff page, as the spymasters' page reads them
(``web.reading``): ``GET /staff/api/cards`` (whether the table can, and the words a card may
hold), ``POST /staff/api/cards`` with the picture (the 25 words it gives), ``POST
/staff/api/cards/words`` ``{"words": [...]}`` (the words confirmed for the game on the table)."""

from __future__ import annotations

import asyncio

from aiohttp import web

from ...engine.phrase import N_
from ...ui.i18n import say, translation
from ..auth import Session
from ..reading import WORDS_EXPECTED, CardsTable, FakeCards, confirmed_words, offered, reading
from ..roles import Route, staff
from ..staff import Section
from ..staff_answers import bad, language
from ..staff_table import StandIn

TEXTS: tuple[str, ...] = (
    N_("The words on the cards"),
    N_("Take a photo of the laid-out cards from the spymasters' side: the table reads the 25 words, which you check "
       "and confirm."),
    N_("Read the cards"),
    N_("card {cell}"),
    N_("Confirm the words"),
    N_("Reading the cards…"),
    N_("Check each word against its card, fix any, then confirm."),
    N_("The words are confirmed: every screen shows them."),
)


class CardsSection(Section[CardsTable], name="cards", script="cards.js", texts=TEXTS):
    """Reading the cards for the game on the table; of the table, its reader and the game."""

    @classmethod
    def stand_in(cls, table: StandIn) -> CardsTable:
        return FakeCards(table.calls)

    def routes(self) -> list[Route]:
        return [staff("GET", "/staff/api/cards", self._offered),
                staff("POST", "/staff/api/cards", self._read),  # the picture: read, never kept
                staff("POST", "/staff/api/cards/words", self._confirm)]  # the game's words, journalled

    async def _offered(self, request: web.Request, session: Session) -> web.Response:
        return await offered(self.table, language(request))

    async def _read(self, request: web.Request, session: Session) -> web.Response:
        return await reading(request, self.table, language(request))

    async def _confirm(self, request: web.Request, session: Session) -> web.Response:
        words = confirmed_words(await self.page.read_json(request))
        if words is None:
            return bad(translation(language(request)).gettext(WORDS_EXPECTED))
        refused = await asyncio.to_thread(self.table.confirm, words, language(request))
        if refused is not None:
            return web.json_response({"ok": False, "error": say(refused, language(request))}, status=409)
        return web.json_response({"ok": True})
