"""The staff page's own actions: the game on the table, its history, the settings and the restart
(``web.staff.StaffPage`` is built on them).
"""

from __future__ import annotations

import asyncio
import csv
import io
import logging
from collections.abc import Callable

from aiohttp import web

from ..engine.phrase import Text
from ..ui.i18n import say, translation
from ..ui.orientation import page_layout
from .auth import (
    Session,
)
from .roles import OWNER, STAFF, owners_keys
from .staff_answers import _PRIVATE, _cell, _download, bad, language, reached_on
from .staff_way_in import WayIn
from .staff_words import NOTHING_REFUSED, advised, dealt_with, form_field, games_offered, labels, played, refusal

log = logging.getLogger("pi_table.web.staff")
LIVE = ("game.language", "leds.brightness", "sound.volume", "timer.length_s")
"""The keys the table applies while it runs: the rest of a change waits for a restart."""


class DeskActions(WayIn):
    """The page's own actions on the table (``Desk``): the game, the history, the settings and
    the restart."""

    # -- what the staff see and do ----------------------------------------------------------

    async def _table(self, request: web.Request, session: Session) -> web.Response:
        return await self._table_now(language(request))

    async def _table_now(self, lang: str) -> web.Response:
        """The table as it is, its devices with advice and its warnings in ``lang``."""
        table = await asyncio.to_thread(self.desk.table, lang)
        table["devices"] = advised(table, lang)
        table["warnings"] = [say(warning, lang) for warning in table.get("warnings", [])]
        table["grid"] = page_layout()  # the board drawn as every picture of the grid is
        table["games"] = games_offered(lang)  # the new-game form's, as the games describe themselves
        return web.json_response(table)

    async def _new_game(self, request: web.Request, session: Session) -> web.Response:
        body = await self.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("game"), str) \
                or not isinstance(body.get("options", {}), dict):
            return bad('expected {"game": NAME, "options": {OPTION: VALUE, ...}}')
        options = body.get("options", {})
        offered = dealt_with(body["game"])
        unknown = sorted(set(options) - set(offered))
        if unknown:
            return bad(f"unknown option {', '.join(unknown)}: expected {', '.join(offered) or 'none'}")
        return await self._done(request, self.desk.new_game, body["game"], options)

    async def _undo(self, request: web.Request, session: Session) -> web.Response:
        return await self._done(request, self.desk.undo)

    async def _end_game(self, request: web.Request, session: Session) -> web.Response:
        return await self._done(request, self.desk.end_game)

    async def _done(self, request: web.Request, action: Callable[..., Text | None], *args: object) -> web.Response:
        """What the table said to an action: 200 and the table as it is now, or 409 and why not."""
        error = await asyncio.to_thread(action, *args, lang=language(request))
        if error is not None:
            return web.json_response({"ok": False, "error": say(error, language(request))}, status=409)
        return await self._table_now(language(request))

    async def _history(self, request: web.Request, session: Session) -> web.Response:
        games = played(await asyncio.to_thread(self.desk.history, language(request)))
        return web.json_response({"games": games}, headers=_download("json") if "download" in request.query else {})

    async def _history_csv(self, request: web.Request, session: Session) -> web.Response:
        games = played(await asyncio.to_thread(self.desk.history, language(request)))
        out = io.StringIO()
        columns = ("id", "game", "started", "moves", "duration_s", "over", "winner", "losers", "reason", "termination",
                   "score", "guessed")
        writer = csv.writer(out)
        writer.writerow(columns)
        for game in games:
            writer.writerow([" ".join(game.get(name) or []) if name in ("losers", "guessed") else _cell(game.get(name))
                             for name in columns])
        return web.Response(text=out.getvalue(), content_type="text/csv", headers=_download("csv"))

    async def _config(self, request: web.Request, session: Session) -> web.Response:
        """The configuration as the form shows it, in the page's language (its words are msgids)."""
        settings = await asyncio.to_thread(self.desk.settings)
        lang = language(request)
        gettext = translation(lang).gettext
        return web.json_response({**settings, "groups": {name: gettext(word) for name, word in settings["groups"].items()},
                                  "options": [form_field(option, lang) for option in settings["options"]]})

    async def _discard_refused(self, request: web.Request, session: Session) -> web.StreamResponse:
        """The owner's word on a settings file the table refused at its start: it is replaced by
        the last good one, and the table restarts on it; 409 when no file is refused."""
        if (refused_owner := self.not_owner(request, session)) is not None:
            return refused_owner
        if not await asyncio.to_thread(self.desk.discard_refused):
            return web.json_response({"ok": False, "error": translation(language(request)).gettext(NOTHING_REFUSED)},
                                     status=409, headers=_PRIVATE)
        log.warning("staff page: the refused settings file discarded by the owner: restarting on the last good one")
        return await self.then_restart(request, {"ok": True, "restarting": True}, (session, "config-discard"))

    async def _change_config(self, request: web.Request, session: Session) -> web.StreamResponse:
        body = await self.read_json(request)
        changes = body.get("changes") if isinstance(body, dict) else None
        if not isinstance(changes, dict) or not changes or not all(
                isinstance(value, (bool, int, float, str, list)) for value in changes.values()):
            return bad('expected {"changes": {"section.key": VALUE, ...}}, each value a '
                                 "string, number, true/false or list")
        lang = language(request)
        options = {option["key"]: option for option in (await asyncio.to_thread(self.desk.settings))["options"]}
        if (owners := owners_keys(changes, options)) and (
                refused_owner := self.not_owner(request, session, labels(owners, options, lang))) is not None:
            return refused_owner
        [(key, value)] = changes.items() if len(changes) == 1 else [("", None)]
        live = key in LIVE
        if live:
            problems = await asyncio.to_thread(self.desk.change_at_hand, key, value)
        else:
            by = (OWNER if self.owner.left_s(session) else STAFF).value  # who made it: its trial's note keeps it
            problems = await asyncio.to_thread(self.desk.change_settings, changes, reached_on(request), by)
        if problems:
            found = [refusal(problem, changes, options, lang) for problem in problems]
            return web.json_response({"ok": False, "error": "\n".join(each["error"] for each in found),
                                      "said": "\n".join(each["whole"] for each in found), "problems": found},
                                     status=400)
        if live:
            log.info("staff page: %s changed and applied", key)
            return web.json_response({"ok": True, "restarting": False}, headers=_PRIVATE)
        log.info("staff page: configuration changed (%s): restarting to apply it", ", ".join(changes))
        return await self.then_restart(request, {"ok": True, "restarting": True}, (session, "config") if owners else None)

    async def _restart(self, request: web.Request, session: Session) -> web.StreamResponse:
        log.info("staff page: restart asked from %s", request.remote)
        return await self.then_restart(request, {"ok": True, "restarting": True})
