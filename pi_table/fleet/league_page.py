"""``pi-table league``: the league's page, run by its organiser beside the league's Mosquitto (issue 64).

It reads every café's closed nights off the league's broker (``league/<league>/cafes/#``, QoS 1, as
the broker's ``league`` user, in a session the broker keeps), folds them (``league.League``), and
sends the season back, retained, on ``league/<league>/season``, which each café's bridge brings
down. Its page is public, as a league table pinned on a wall: the season overall and per café,
when each café was last heard, each night with its TRF to download, and the nights refused, with
why; in the language the phone asks for (or ``?lang=``); the season as CSV and as a workbook. The
organiser's roster (the cafés, their tables, the teams and their codes, the teams merged, the
scoring) is a file (``read_roster``). Given a password (``--password-file``), the organiser signs
in on the page as on the fleet's dashboard (``web.auth.Gate``: the same hash, the same limits on
tries) and merges two teams of the season into one, splits a team of one name off at a café
(two teams that gave no code) or makes it one again, voids, holds or restores a night, or edits a
result (issue 76): forms with the session's CSRF token, from the page's own origin, each written
to the roster (``write_merge``, ``write_decision``: in one step, the file before it kept beside
it) and the season sent down again, with the organiser's newest events.

What it knows lives in memory: restarted, it learns every night again from the retained messages.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import logging
import ssl
import sys
import threading
import time
import tomllib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

import paho.mqtt.client as mqtt
import tomlkit
from aiohttp import web
from tomlkit.exceptions import TOMLKitError

from .. import config
from ..config import FleetConfig
from ..config.settings import shown_url
from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase
from ..engine.views import LANGUAGES
from ..errors import PiTableError
from ..files import replace_file
from ..night.events import VOID, WON
from ..night.names import MAX_NAME, NameRefused, code, tidy
from ..night.scoring import DOUBLE_LOSS, FORFEIT
from ..ui.i18n import say, translation
from ..web.auth import Gate, Refused, behind, password_may_cross, same, who
from ..web.document import kit_page, zone_now
from ..web.runner import ServerThread
from . import link
from .dashboard import (
    ATTEMPTS,
    ATTEMPTS_OVERALL,
    IN_CLEAR,
    PAGE_FILES,
    SESSION_S,
    asked_language,
    page_file,
    page_policy,
    read_password_file,
    same_origin,
    set_password,
    signed_in,
    signed_out,
)
from .league import (
    AS_SENT,
    COUNTED,
    EDITED,
    HELD,
    MOST_WHY,
    OUTCOMES_SAID,
    PLACES,
    RESTORED,
    SCALE,
    SPLIT,
    UNSPLIT,
    VOIDED,
    WAITING,
    Decision,
    League,
    LeagueRefused,
    Scoring,
    named,
    season_topic,
    team_key,
)

log = logging.getLogger("pi_table.fleet")
SEASON_EVERY_S = 1.0  # the season is sent again at most this often, however many nights came
COOKIE = "pi_table_league"  # the organiser's session; "pi_table_league_device": a browser that has signed in before
WORDS = {  # the page's words, translated once for each language
    "title": N_("The league {league}"), "overall": N_("The season"), "cafe": N_("Café"), "team": N_("Team"),
    "place": N_("Place"), "cafes": N_("Cafés"), "nights": N_("Nights"), "points": N_("Points"),
    "played": N_("played"), "won": N_("won"), "lost": N_("lost"), "drawn": N_("drawn"), "rating": N_("rating"),
    "heard": N_("Last heard: {when}"), "unheard": N_("never heard"), "export": N_("The season (CSV)"),
    "xlsx": N_("The season (xlsx)"), "code": N_("Code"), "nights_of": N_("The café's nights"),
    "trf": N_("TRF"), "night_at": N_("{name}, table {table}"),
    "organiser": N_("The organiser's sign-in"), "password": N_("Password"), "sign_in": N_("Sign in"),
    "sign_out": N_("Sign out"), "wrong": N_("Wrong password."), "wait": N_("Too many tries: wait a minute."),
    "busy": N_("Too many logins at once: try again in a moment."),
    "merge": N_("Merge two teams"), "duplicate": N_("The team"), "into": N_("is the same team as"),
    "merge_button": N_("Merge"), "merged": N_("{duplicate} and {into} are one team of the season from now on."),
    "unwritten": N_("The roster could not be written ({error}): nothing was merged."),
    "apart": N_("Nights refused"), "none": N_("No night yet."), "from": N_("from {cafe}, table {table}"),
    "scoring_night": N_("Each night counts its own points."),
    "scoring_places": N_("Each night counts points by place: {scale}."),
    "best": N_("A team's best {best} nights count."),
    "zone": N_("Times are in the time zone {zone}."), "updated": N_("The season was brought up to date at"),
    "waiting": N_("Nights waiting for the organiser"), "away": N_("held: a team's code away from its home café ({codes})"),
    "held_by": N_("held by the organiser: {why}"), "void_by": N_("void: {why}"), "restored_by": N_("restored: {why}"),
    "decide": N_("The organiser's decision"), "event": N_("Decision"), VOIDED: N_("Void the night"),
    HELD: N_("Hold the night"), RESTORED: N_("Restore the night: it counts"), "why": N_("Why"),
    "decide_button": N_("Decide"), "edit": N_("Edit a result"), "result": N_("Result"), "outcome": N_("New result"),
    "first_won": N_("The first team won"), "second_won": N_("The second team won"),
    "first_forfeit": N_("The first team won by forfeit"), "second_forfeit": N_("The second team won by forfeit"),
    "edit_button": N_("Edit"), "slot": N_("Round {round}, table {table}: {red} v {blue}, {result}"),
    "both_lost": N_("both teams lost"), "edited": N_("edited by the organiser"), "history": N_("The league's history"),
    "history_line": N_("{by} {what}. Why: {why}"), "organiser_by": N_("the organiser"),
    "done_void": N_("The night {night} is void: it counts for nothing."),
    "done_hold": N_("The night {night} is held: it counts for nothing until it is restored."),
    "done_restore": N_("The night {night} counts."), "done_edit": N_("The result is edited: the season is counted again."),
    "unkept": N_("The roster could not be written ({error}): nothing was decided."),
    "split": N_("Split a team"), "split_team": N_("The team at the café"), "split_at": N_("{team} at {cafe}"),
    "split_button": N_("Split"), "unsplit": N_("Make a split team one again"), "unsplit_button": N_("Make one team"),
    "done_split": N_("{team} at {cafe} is a team of its own from now on."),
    "done_unsplit": N_("{team} at {cafe} is one team with its namesakes again."),
}
EVERY_S = 60  # how often a visitor's page fetches the season again (never a reload: the page's kit)
STYLE = '<link rel="stylesheet" href="/fleet.css">\n'  # the fleet's dashboard's style, for the league's tables too


class RosterError(PiTableError, ValueError):
    """The organiser's roster file cannot be used: the message names the file, the key and what was expected."""


@dataclass(frozen=True)
class Roster:
    """The organiser's roster: each café's tables, each team's league code and its name, the teams
    merged (each key into another, ``league.team_key``), the scoring, and the organiser's events
    (``league.Decision``: a night voided, held or restored, a result edited), oldest first."""

    cafes: dict[str, list[str]]
    teams: dict[str, str]
    merged: dict[str, str]
    scoring: Scoring
    history: list[Decision] = field(default_factory=list)

    def league(self, name: str) -> League:
        return League(name, self.scoring, self.cafes, self.merged, self.teams, history=list(self.history))

    def into(self, league: League) -> None:
        """``league`` as this roster says, its nights kept (``League.rostered``)."""
        league.rostered(self.scoring, self.cafes, self.merged, self.teams, self.history)


def read_roster(path: Path) -> Roster:
    """The organiser's roster (TOML): ``[cafes]`` each café's name and its tables, ``[teams]`` each
    team's league code and its name, ``[merged]`` a team (its code, or its name) and the one it is
    merged into, ``[scoring]`` points ("night" or "places"), scale and best, ``[[history]]`` the
    organiser's events (the page writes them); RosterError naming the file, the key and what was
    expected (never the file's text)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RosterError(f"{path}: cannot be read ({e.strerror or type(e).__name__})") from None
    except UnicodeDecodeError:
        raise RosterError(f"{path}: is not TOML in UTF-8") from None
    return _roster(text, path)


def _roster(text: str, path: Path) -> Roster:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise RosterError(f"{path}: is not TOML in UTF-8") from None
    unknown = sorted(set(data) - {"cafes", "teams", "merged", "scoring", "history"})
    if unknown:
        raise RosterError(f"{path}: [{unknown[0]}] is no part of a roster: expected [cafes], [teams], [merged], "
                          "[scoring] and [[history]]")
    told = data.get("history", [])
    if not isinstance(told, list):
        raise RosterError(f"{path}: history should be the organiser's events, [[history]]")
    history = []
    for number, event in enumerate(told, 1):
        try:
            history.append(Decision.from_json(event))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise RosterError(f"{path}: history's event {number} should be an event as the page writes it: "
                              "event, cafe, host, night, by, at and why (an edit: round, table, result, winner)") from None
    cafes, teams, merged, scoring = (data.get(part, {}) for part in ("cafes", "teams", "merged", "scoring"))
    for part, value in (("cafes", cafes), ("teams", teams), ("merged", merged), ("scoring", scoring)):
        if not isinstance(value, dict):
            raise RosterError(f"{path}: {part} should be a table, [{part}]")
    for name, tables in cafes.items():
        if not isinstance(tables, list) or not all(isinstance(t, str) and t for t in tables):
            raise RosterError(f"{path}: cafes.{name} should be a list of the café's tables' names")
    codes: dict[str, str] = {}
    for given, name in teams.items():
        try:
            kept = code(given)
        except NameRefused:
            raise RosterError(f"{path}: teams: each key is a team's league code, 3 to 8 letters or digits") from None
        if kept in codes:
            raise RosterError(f"{path}: teams.{given} is the code {kept} a second time: each team's code is its own")
        try:
            codes[kept] = tidy(name, MAX_NAME, "team name") if isinstance(name, str) else ""
        except NameRefused:
            codes[kept] = ""
        if not codes[kept]:
            raise RosterError(f"{path}: teams.{kept} should be the team's name, 1 to {MAX_NAME} characters")
    for name, into in merged.items():
        if not isinstance(into, str) or not into:
            raise RosterError(f"{path}: merged.{name} should be the name of the team it is merged into")
    unknown = sorted(set(scoring) - {"points", "scale", "best"})
    if unknown:
        raise RosterError(f"{path}: scoring.{unknown[0]} is not a scoring's: expected points, scale and best")
    try:
        chosen = Scoring(str(scoring.get("points", "night")), tuple(scoring.get("scale", SCALE)), scoring.get("best", 0))
    except (TypeError, ValueError) as e:
        raise RosterError(f"{path}: [scoring]: {e}") from None
    return Roster({name: list(tables) for name, tables in cafes.items()}, codes, dict(merged), chosen, history)


def write_merge(path: Path, duplicate: str, into: str) -> None:
    """The organiser's merge written to the roster at ``path``: ``[merged]`` gains ``duplicate =
    into`` (two teams' keys), everything else in the file kept (``_rewrite``)."""
    def merge(document: tomlkit.TOMLDocument) -> None:
        if "merged" not in document:
            document["merged"] = tomlkit.table()
        document["merged"][duplicate] = into

    _rewrite(path, merge, lambda kept: team_key(kept.merged.get(duplicate, "")) == team_key(into),
             "the merge", "merge the teams in [merged] by hand")


def write_decision(path: Path, decision: Decision) -> None:
    """The organiser's event written to the roster at ``path``: ``[[history]]`` gains it, last,
    everything else in the file kept (``_rewrite``)."""
    def told(document: tomlkit.TOMLDocument) -> None:
        if "history" not in document:
            document["history"] = tomlkit.aot()
        document["history"].append({name: value for name, value in decision.to_json().items() if value is not None})

    _rewrite(path, told, lambda kept: bool(kept.history) and kept.history[-1] == decision,
             "the event", "try again, or write it in [[history]] by hand")


def _rewrite(path: Path, change: Callable[[tomlkit.TOMLDocument], None], kept: Callable[[Roster], bool],
             what: str, by_hand: str) -> None:
    """The roster at ``path`` as ``change`` makes it, everything else in the file kept (tomlkit);
    the file it replaces kept beside it (``ROSTER.good``), each written in one step. RosterError,
    and nothing written, when the roster cannot be read or would not read back as a roster that
    ``kept`` the change (``what``; ``by_hand``: what the organiser can do instead)."""
    old = path.read_bytes() if path.exists() else b""
    try:
        document = tomlkit.parse(old.decode("utf-8"))
        change(document)
        new = tomlkit.dumps(document)
    except (UnicodeDecodeError, TOMLKitError, TypeError, AttributeError):
        raise RosterError(f"{path}: is not a roster this page can change: {by_hand}") from None
    if not kept(_roster(new, path)):
        raise RosterError(f"{path}: {what} would not read back: {by_hand}")
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    if old:
        replace_file(path.with_name(path.name + ".good"), old, mode)
    replace_file(path, new.encode("utf-8"), mode)


class LeaguePage(ServerThread):
    """The league's subscriber and its page: paho's thread folds the nights, the page reads them."""

    def __init__(self, broker: FleetConfig, league: League, host: str, port: int, lang: str = "en",
                 client_id: str = "pi-table-league", password_hash: str | None = None, roster: Path | None = None,
                 every_s: int = EVERY_S, tls: ssl.SSLContext | None = None, proxy: str | None = None) -> None:
        """``password_hash``: the organiser's sign-in (None: the page is read-only), whose merges
        and events go to the ``roster`` file; ``every_s``: how often a visitor's page fetches the season
        again; ``tls``: the page's own https, ``proxy``: the address of the reverse proxy whose
        https serves it (``web.auth.behind``). The sign-in follows every server's policy
        (``web.auth.password_may_cross``): from another machine, over TLS alone."""
        super().__init__("league-page")
        self.broker, self.league, self.host, self.port, self.lang = broker, league, host, port, lang
        self.roster, self.every_s, self.tls, self.proxy = roster, every_s, tls, proxy
        self.gate = None if password_hash is None else Gate(
            "league", lambda: password_hash, COOKIE, "/", ATTEMPTS, ATTEMPTS_OVERALL, SESSION_S, time.monotonic,
            cookie_s=SESSION_S)
        self.client = link.client(broker, client_id)
        self.client.on_connect = self._connected
        self.client.on_message = self._message
        self.connected = threading.Event()
        self._sent_version = -1
        self._stopping = threading.Event()
        self._sender: threading.Thread | None = None
        self._rostering = threading.Lock()  # a roster read again, or written by the page and kept: one at a time
        self._roster_seen = self._roster_stamp()

    def _roster_stamp(self) -> tuple[int, int] | None:
        """The roster file's modification time and size, as last seen (None: no roster, or none to read)."""
        try:
            stat = None if self.roster is None else self.roster.stat()
        except OSError:
            return None
        return None if stat is None else (stat.st_mtime_ns, stat.st_size)

    def _reread(self) -> None:
        """The roster read again once its file changed (an organiser's edit: no restart needed), at
        each view and each round of the season's sender. A roster that cannot be read leaves the
        one the page has, said once in the log; cafés listed anew have the broker hand every night
        again (unsubscribed and subscribed: its retained nights), each checked against them."""
        if self.roster is None:
            return
        with self._rostering:
            stamp = self._roster_stamp()
            if stamp is None or stamp == self._roster_seen:
                return
            self._roster_seen = stamp
            try:
                roster = read_roster(self.roster)
            except (OSError, RosterError) as e:
                log.error("the league's page keeps the roster it had: %s", e)
                return
            cafes = dict(self.league.cafes)
            roster.into(self.league)
        log.info("the league's page read its roster %s again", self.roster)
        if roster.cafes != cafes and self.connected.is_set():
            topic = f"league/{self.league.name}/cafes/#"
            self.client.unsubscribe(topic)
            self.client.subscribe(topic, qos=1)

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("the league's broker %s refused the league's page: %s", self.broker.host, reason)
            return
        client.subscribe(f"league/{self.league.name}/cafes/#", qos=1)
        self._sent_version = -1  # the season sent again: the broker may have lost it
        self.connected.set()

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            self.league.take(message.topic, message.payload)
        except Exception:  # a fault of the page's own must not stop paho's thread: said, and the rest read
            log.exception("the league's page failed on a message of %s", message.topic)

    def _send_seasons(self) -> None:
        """The season, retained, each time the nights changed (at most every ``SEASON_EVERY_S``); at
        QoS 0, which the league's broker queues for no café's bridge while it is away (its session
        kept, ``cleansession false``, would hold every season at QoS 1): back, the bridge subscribes
        again and is handed the retained season alone, the newest."""
        while not self._stopping.wait(SEASON_EVERY_S):
            self._reread()
            version = self.league.version
            if version != self._sent_version and self.connected.is_set():
                season = json.dumps({**self.league.down(), "at": time.time()})
                self.client.publish(season_topic(self.league.name), season, qos=0, retain=True)
                self._sent_version = version

    def start(self) -> None:
        super().start()
        self._sender = threading.Thread(target=self._send_seasons, name="league-season", daemon=True)
        self._sender.start()
        link.connect(self.client, self.broker)

    def stop(self) -> None:
        self._stopping.set()
        self.client.disconnect()
        self.client.loop_stop()
        if self._sender is not None:
            self._sender.join(timeout=5)
        super().stop()

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    async def _open(self) -> None:
        app = web.Application(middlewares=[behind(self.proxy)])
        app.router.add_get("/", self._page)
        app.router.add_get("/season.json", self._json)
        app.router.add_get("/season.csv", self._csv)
        app.router.add_get("/season.xlsx", self._xlsx)
        app.router.add_get("/nights/{cafe}/{host}/{night}.trf", self._trf)
        for name in PAGE_FILES:  # the page's style and the kit's script, read from the package as the dashboard's
            app.router.add_get(f"/{name}", self._page_file)
        if self.gate is not None:
            app.router.add_get("/login", self._login_page)
            app.router.add_post("/login", self._login)
            app.router.add_post("/logout", self._logout)
            app.router.add_post("/merge", self._merge)
            app.router.add_post("/night", self._decide_night)
            app.router.add_post("/result", self._edit_result)
            app.router.add_post("/team", self._split_team)
        runner = await self._set_up(app)
        await web.TCPSite(runner, self.host, self.port, ssl_context=self.tls).start()
        if self.port == 0:
            self.port = runner.addresses[0][1]

    def _language(self, request: web.Request) -> str:
        asked = request.query.get("lang", "")
        return asked if asked in LANGUAGES else asked_language(request.headers.get("Accept-Language", ""), self.lang)

    async def _json(self, request: web.Request) -> web.Response:
        await asyncio.to_thread(self._reread)
        return web.json_response(await asyncio.to_thread(self.league.to_json, self._language(request)))

    async def _csv(self, request: web.Request) -> web.Response:
        await asyncio.to_thread(self._reread)
        return web.Response(text=await asyncio.to_thread(self.league.csv), content_type="text/csv",
                            headers={"Content-Disposition": f'attachment; filename="league-{self.league.name}.csv"'})

    async def _xlsx(self, request: web.Request) -> web.Response:
        await asyncio.to_thread(self._reread)
        return web.Response(body=await asyncio.to_thread(self.league.xlsx),
                            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                            headers={"Content-Disposition": f'attachment; filename="league-{self.league.name}.xlsx"'})

    async def _trf(self, request: web.Request) -> web.Response:
        """A night's TRF, as its host wrote it: the night of a café's table the league keeps."""
        info = request.match_info
        trf = self.league.trf(info["cafe"], info["host"], info["night"])
        if trf is None:
            raise web.HTTPNotFound(text="no TRF of that night: the league keeps no such night, or its table sent none")
        return web.Response(text=trf, content_type="text/plain", charset="utf-8",
                            headers={"Content-Disposition": f'attachment; filename="{info["night"]}.trf"'})

    async def _page(self, request: web.Request, said: str = "", status: int = 200) -> web.Response:
        await asyncio.to_thread(self._reread)
        lang = self._language(request)
        session = None if self.gate is None else self.gate.live(request)
        organiser = None if self.gate is None else "" if session is None else session.csrf
        body = await asyncio.to_thread(page, self.league.to_json(lang), lang, organiser, said, zone_now() or "UTC",
                                       self.every_s)
        return web.Response(text=body, content_type="text/html", status=status)

    async def _page_file(self, request: web.Request) -> web.Response:
        name = request.path.lstrip("/")
        return web.Response(text=page_file(name), content_type=PAGE_FILES[name])

    # the organiser's sign-in, as the fleet's dashboard's (one Gate: the same hash, the same limits)

    async def _login_page(self, request: web.Request, said: str = "", status: int = 200) -> web.Response:
        if not password_may_cross(request):
            self._in_clear(request)
        lang = self._language(request)
        return web.Response(text=login_page(lang, said), content_type="text/html", status=status)

    async def _login(self, request: web.Request) -> web.Response:
        assert self.gate is not None  # the route is there with a password alone

        def refused(said: str, status: int) -> Awaitable[web.Response]:
            return self._login_page(request, translation(self._language(request)).gettext(WORDS[said]), status)

        return await signed_in(request, self.gate, refused, self._in_clear)

    def _in_clear(self, request: web.Request) -> NoReturn:
        """A sign-in over plain http from another machine: refused, its password never read."""
        lang = self._language(request)
        raise web.HTTPForbidden(text=login_page(lang, translation(lang).gettext(IN_CLEAR), form=False),
                                content_type="text/html")

    async def _logout(self, request: web.Request) -> web.Response:
        assert self.gate is not None
        signed_out(request, self.gate, "/")

    async def _form(self, request: web.Request, what: str, fields: str) -> Mapping[str, Any]:
        """The organiser's form (``what``, of ``fields``): from this page's origin, in a live
        session (else to the login), with the session's CSRF token; else refused."""
        assert self.gate is not None and self.roster is not None  # main() asks for a roster with a password
        if not same_origin(request):
            raise web.HTTPForbidden(text=f"{what} from another site's page")
        session = self.gate.visit(request)
        if isinstance(session, Refused):
            raise web.HTTPSeeOther("/login")
        try:
            form = await request.post()
        except ValueError:
            raise web.HTTPBadRequest(text=f"{what} is a form with {fields} fields, in UTF-8") from None
        token = form.get("csrf")
        if not isinstance(token, str) or not same(token, session.csrf):
            raise web.HTTPForbidden(text=f"{what} without the page's token: load the page again")
        return form

    async def _merge(self, request: web.Request) -> web.Response:
        """The organiser merges two teams of the season: a form from this page's origin, with the
        session's CSRF token; written to the roster, then the season sent down again."""
        form = await self._form(request, "a merge", "csrf, duplicate and into")
        duplicate, into = form.get("duplicate"), form.get("into")
        lang = self._language(request)
        gettext = translation(lang).gettext
        if not isinstance(duplicate, str) or not isinstance(into, str):
            return await self._page(request, say(Phrase.of("a merge names two teams of the season, as its page lists "
                                                           "them"), lang), 400)
        names = {line.key: line.team for line in self.league.season()}
        try:
            await asyncio.to_thread(self._merged, duplicate, into)
        except LeagueRefused as e:
            return await self._page(request, say(e.phrase, lang), 409)
        except (RosterError, OSError) as e:
            log.error("the league's page could not write the merge to %s: %s", self.roster, e)
            error = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            return await self._page(request, gettext(WORDS["unwritten"]).format(error=error), 500)
        log.info("the organiser merged the team %s into %s", duplicate, into)
        return await self._page(request, gettext(WORDS["merged"]).format(duplicate=names[duplicate], into=names[into]))

    async def _decide_night(self, request: web.Request) -> web.Response:
        """The organiser voids, holds or restores a night (``league.Decision``), saying why."""
        form = await self._form(request, "a decision", "csrf, cafe, host, night, event and why")
        key, event, why = _night_named(form), form.get("event"), form.get("why")
        if key is None or event not in (VOIDED, HELD, RESTORED) or not isinstance(why, str):
            return await self._page(request, say(Phrase.of("a decision names a night of the league, what to do with "
                                                           "it and why"), self._language(request)), 400)
        by = who(ORGANISER, self._device(request))
        return await self._decided(request, lambda: self.league.decision(str(event), key, by, why))

    async def _edit_result(self, request: web.Request) -> web.Response:
        """The organiser edits a result of a night: a round's pair (``slot``, "ROUND/TABLE") made
        ``outcome`` (``WON`` or ``FORFEIT`` with ":0" or ":1", the first or second team of the
        pair, or another of ``league.OUTCOMES``), saying why."""
        form = await self._form(request, "an edit", "csrf, cafe, host, night, slot, outcome and why")
        key, slot, outcome, why = _night_named(form), form.get("slot"), form.get("outcome"), form.get("why")
        number, _, table = slot.partition("/") if isinstance(slot, str) else ("", "", "")
        result, _, side = outcome.partition(":") if isinstance(outcome, str) else ("", "", "")
        pair = None if key is None or not number.isdigit() else self.league.pair(key, int(number), table)
        if key is None or pair is None or not isinstance(why, str) or side not in ("", "0", "1") \
                or (side != "") != (result in (WON, FORFEIT)):
            return await self._page(request, say(Phrase.of("an edit names a round's pair of a night of the league, "
                                                           "its result and why"), self._language(request)), 400)
        winner = pair[int(side)] if side else None
        by = who(ORGANISER, self._device(request))
        return await self._decided(request, lambda: self.league.decision(EDITED, key, by, why, int(number), table,
                                                                         result, winner))

    async def _split_team(self, request: web.Request) -> web.Response:
        """The organiser splits a team of the season off at a café (``league.SPLIT``) or makes it
        one team again (``UNSPLIT``): ``team`` is "CAFÉ/KEY" (a café is one level of a topic: no
        "/"), saying why."""
        form = await self._form(request, "a split", "csrf, team, event and why")
        team, event, why = form.get("team"), form.get("event"), form.get("why")
        cafe, _, key = team.partition("/") if isinstance(team, str) else ("", "", "")
        if not cafe or not key or event not in (SPLIT, UNSPLIT) or not isinstance(why, str):
            return await self._page(request, say(Phrase.of("a split names a team of the season at a café, what to do "
                                                           "with it and why"), self._language(request)), 400)
        by = who(ORGANISER, self._device(request))
        return await self._decided(request, lambda: self.league.parted(str(event), key, cafe, by, why))

    def _device(self, request: web.Request) -> str | None:
        assert self.gate is not None
        return self.gate.door.device(request)

    async def _decided(self, request: web.Request, make: Callable[[], Decision]) -> web.Response:
        """The organiser's event ``make`` gives, checked, written to the roster, then kept (the
        season sent down again); the page says what was done, or why not, in its language."""
        lang = self._language(request)
        gettext = translation(lang).gettext
        try:
            decision = await asyncio.to_thread(self._kept, make)
        except Refusal as e:  # the league's refusal, or a reason out of its kind
            return await self._page(request, say(e.phrase, lang), 409)
        except (RosterError, OSError) as e:
            log.error("the league's page could not write the organiser's event to %s: %s", self.roster, e)
            error = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            return await self._page(request, gettext(WORDS["unkept"]).format(error=error), 500)
        if decision.event in (SPLIT, UNSPLIT):
            log.info("the organiser's event: %s of the team %s at %s", decision.event, decision.team, decision.cafe)
            return await self._page(request, gettext(WORDS[f"done_{decision.event}"]).format(
                team=named(decision, {}, {line.key: line.team for line in self.league.season()}), cafe=decision.cafe))
        log.info("the organiser's event: %s of the night %s", decision.event, "/".join(decision.key))
        held = self.league.nights.get(decision.key)
        name = decision.night if held is None else held.night.name
        return await self._page(request, gettext(WORDS[f"done_{decision.event}"]).format(night=name))

    def _kept(self, make: Callable[[], Decision]) -> Decision:
        """The organiser's event checked against the season, written to the roster, then kept: the
        league (and the season it sends down) changes only once the roster keeps it."""
        assert self.roster is not None
        with self._rostering:  # the page's own write is no edit to read again
            decision = make()
            write_decision(self.roster, decision)
            self.league.keep(decision)
            self._roster_seen = self._roster_stamp()
        return decision

    def _merged(self, duplicate: str, into: str) -> None:
        """The merge checked against the season, written to the roster, then made: the league
        (and the season it sends down) changes only once the roster keeps it."""
        assert self.roster is not None
        with self._rostering:  # the page's own write is no edit to read again
            self.league.mergeable(duplicate, into)
            write_merge(self.roster, duplicate, into)
            self.league.merge(duplicate, into)
            self._roster_seen = self._roster_stamp()


def _night_named(form: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """The night an organiser's form names (its café, table and id), if it names one."""
    named = tuple(form.get(name) for name in ("cafe", "host", "night"))
    return (named[0], named[1], named[2]) if all(isinstance(part, str) and part for part in named) else None  # type: ignore[return-value]


def login_page(lang: str, said: str = "", form: bool = True) -> str:
    """The organiser's sign-in, in ``lang``; ``form``: False where no password may be typed (``said`` says why)."""
    w = {key: translation(lang).gettext(text) for key, text in WORDS.items()}
    e = html.escape
    typed = (f'<form method="post" action="/login"><label>{e(w["password"])} <input type="password" '
             f'name="password" autocomplete="current-password" autofocus></label> <button>{e(w["sign_in"])}</button>'
             f'</form>') if form else ""
    return kit_page(lang, w["organiser"], f"<h1>{e(w['organiser'])}</h1>",
                    f'{typed}{f"<p>{e(said)}</p>" if said else ""}', head=STYLE)


ORGANISER = "organiser"
"""The role the league's page's changes are made by, in its history (``auth.who``)."""


def said_by(by: str, w: Mapping[str, str]) -> str:
    """Who made a decision (``auth.who``: the role and the phone's short name), the role in the
    page's words; a name a hand-edited roster gives is shown as it is."""
    role, sep, phone = by.partition(" · ")
    return (w["organiser_by"] if role == ORGANISER else role) + sep + phone


def split_forms(data: dict[str, Any], w: Mapping[str, str], csrf: str) -> str:
    """The organiser's forms that split a team of the season off at a café (a team without a code,
    at each café of two or more it played at, under its name there) and make a split team one again; empty where neither
    has a team to offer."""
    e = html.escape
    why = f'<label>{w["why"]} <input name="why" required maxlength="{MOST_WHY}" autocomplete="off"></label>'

    def form(event: str, teams: list[tuple[str, str, str]], title: str, button: str) -> str:
        options = "".join(f'<option value="{e(cafe)}/{e(key)}">{e(w["split_at"].format(team=name, cafe=cafe))}</option>'
                          for key, cafe, name in teams)
        return (f'<h2>{title}</h2><form method="post" action="/team"><input type="hidden" name="csrf" '
                f'value="{e(csrf)}"><input type="hidden" name="event" value="{event}"><label>{w["split_team"]} '
                f'<select name="team">{options}</select></label> {why} <button>{button}</button></form>') if teams else ""

    shared = {line["key"] for line in data["season"] if not line.get("code") and len(line["cafes"]) > 1}
    splittable = sorted((line["key"], cafe["cafe"], line["team"]) for cafe in data["cafes"] for line in cafe["season"]
                        if line["key"] in shared)  # each under its name at that café
    split = [(made["team"], made["cafe"], made["name"]) for made in data["split"]]
    return form(SPLIT, splittable, w["split"], w["split_button"]) + \
        form(UNSPLIT, split, w["unsplit"], w["unsplit_button"])


def page(data: dict[str, Any], lang: str, organiser: str | None = None, said: str = "", zone: str = "UTC",
         every_s: int = EVERY_S) -> str:
    """The league's page in ``lang``: the season overall, the nights waiting for the organiser,
    each café's (when it was last heard, its nights and their TRFs, each held or void with why),
    the nights refused, the organiser's history. ``organiser``: None on a page without a sign-in,
    "" for a visitor (a link to sign in), else the signed-in organiser's CSRF token (the forms that
    merge two teams, split one off at a café or make it one again, void, hold or restore a night, edit a result); ``said``: what the organiser's last request did; ``zone``: the time zone
    its dates are written in (the page's kit writes its numbers and dates in the reader's
    language, and fetches the season again every ``every_s``)."""
    gettext = translation(lang).gettext
    w = {key: gettext(text) for key, text in WORDS.items()}
    e = html.escape
    scoring = data["scoring"]
    said_scoring = (w["scoring_places"].format(scale=", ".join(f"{p:g}" for p in scoring["scale"]))
                    if scoring["points"] == PLACES else w["scoring_night"])
    if scoring["best"]:
        said_scoring += " " + w["best"].format(best=scoring["best"])
    heads = "".join(f"<th>{w[key]}</th>" for key in ("place", "team", "code", "cafes", "nights", "points", "played",
                                                     "won", "lost", "drawn", "rating"))

    def table(lines: list[dict[str, Any]], label: str) -> str:
        if not lines:
            return f"<p>{w['none']}</p>"
        rows = "".join(
            f"<tr><td>{line['place']}{'=' if line['shared'] else ''}</td><td>{e(line['team'])}</td>"
            f"<td>{e(line.get('code', ''))}</td><td>{e(', '.join(line['cafes']))}</td><td>{line['nights']}</td>"
            f'<td><data value="{line["points"]:g}">{line["points"]:g}</data></td><td>{line["played"]}</td>'
            f"<td>{line['won']}</td><td>{line['lost']}</td><td>{line['drawn']}</td>"
            f'<td><data value="{line["rating"]}" data-digits="2">{line["rating"]:.2f}</data></td></tr>' for line in lines)
        return (f'<div class="scroll" tabindex="0" role="region" aria-label="{e(label)}">'
                f"<table><thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table></div>")

    title = w["title"].format(league=data["league"])
    header = [f"<h1>{e(title)}</h1>"]
    if organiser == "":
        header.append(f'<a href="/login">{w["organiser"]}</a>')
    elif organiser:
        header.append(f'<form method="post" action="/logout"><button>{w["sign_out"]}</button></form>')
    parts = [f"<p>{e(said_scoring)}</p><p>{e(w['zone'].format(zone=zone))}</p>",
             f'<p><a href="/season.csv">{w["export"]}</a> · <a href="/season.xlsx">{w["xlsx"]}</a></p>']
    if said:
        parts.append(f'<p role="status">{e(said)}</p>')
    if organiser and len(data["season"]) > 1:
        options = "".join(f'<option value="{e(line["key"])}">{e(line["team"])}'
                          f'{e(" (" + line["code"] + ")") if line.get("code") else ""}</option>' for line in data["season"])
        parts.append(f'<h2>{w["merge"]}</h2><form method="post" action="/merge">'
                     f'<input type="hidden" name="csrf" value="{e(organiser)}">'
                     f'<label>{w["duplicate"]} <select name="duplicate">{options}</select></label> '
                     f'<label>{w["into"]} <select name="into">{options}</select></label> '
                     f'<button>{w["merge_button"]}</button></form>')
    if organiser:
        parts.append(split_forms(data, w, organiser))
    def held(night: dict[str, Any]) -> str:
        """Why a night is out of the season, if it is."""
        if night["state"] == WAITING:
            return w["away"].format(codes=", ".join(night["away"])) if night["why"] is None else \
                w["held_by"].format(why=night["why"])
        if night["why"] is None:
            return ""
        return w["void_by" if night["state"] == VOIDED else "restored_by"].format(why=night["why"])

    def decide(cafe: str, night: dict[str, Any]) -> str:
        """The organiser's forms for ``night``: void, hold or restore it; edit one of its results."""
        named = "".join(f'<input type="hidden" name="{name}" value="{e(value)}">' for name, value in (
            ("csrf", str(organiser)), ("cafe", cafe), ("host", night["host"]), ("night", night["night"])))
        why = f'<label>{w["why"]} <input name="why" required maxlength="{MOST_WHY}" autocomplete="off"></label>'
        allowed = {COUNTED: (VOIDED, HELD), WAITING: (RESTORED, VOIDED), VOIDED: (RESTORED,)}[night["state"]]
        events = "".join(f'<option value="{event}">{w[event]}</option>' for event in allowed)
        forms = (f'<form method="post" action="/night">{named}<label>{w["event"]} <select name="event">{events}'
                 f'</select></label> {why} <button>{w["decide_button"]}</button></form>')
        if night["results"]:
            slots = "".join(f'<option value="{r["round"]}/{e(r["table"])}">{e(slotted(r))}</option>'
                            for r in night["results"])
            outcomes = "".join(f'<option value="{value}">{e(label)}</option>' for value, label in (
                (f"{WON}:0", w["first_won"]), (f"{WON}:1", w["second_won"]), (f"{FORFEIT}:0", w["first_forfeit"]),
                (f"{FORFEIT}:1", w["second_forfeit"]), *((result, gettext(OUTCOMES_SAID[result]))
                                                        for result in (DOUBLE_LOSS, VOID, AS_SENT))))
            forms += (f'<form method="post" action="/result">{named}<label>{w["result"]} <select name="slot">{slots}'
                      f'</select></label> <label>{w["outcome"]} <select name="outcome">{outcomes}</select></label> '
                      f'{why} <button>{w["edit_button"]}</button></form>')
        return f"<details><summary>{w['decide']}</summary>{forms}</details>"

    def slotted(result: dict[str, Any]) -> str:
        """A round's pair and its result as it counts, as the edit form lists it."""
        winner, how = result["winner"], result["how"]
        if how is None:
            said = gettext(OUTCOMES_SAID[VOID])
        elif how == DOUBLE_LOSS:
            said = gettext(OUTCOMES_SAID[DOUBLE_LOSS])
        elif winner is None:
            said = w["both_lost"]
        else:
            said = gettext(OUTCOMES_SAID[FORFEIT if how == FORFEIT else WON]).format(team=winner)
        if result["edited"]:
            said += f" ({w['edited']})"
        red, blue = result["teams"]
        return w["slot"].format(round=result["round"], table=result["table"], red=red, blue=blue, result=said)

    def when(at: float) -> str:
        """A time the kit writes in the reader's language and the page's time zone."""
        shown_at = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return f'<time datetime="{shown_at}">{shown_at}</time>'

    season = [f"<h2>{w['overall']}</h2>", table(data["season"], w["overall"])]
    waiting = [(cafe["cafe"], n) for cafe in data["cafes"] for n in cafe["nights"] if n["state"] == WAITING]
    if waiting:
        items = "".join(f"<li>{e(w['night_at'].format(name=n['name'], table=n['host']))}, "
                        f"{e(w['from'].format(cafe=cafe, table=n['host']))}: {e(held(n))}</li>" for cafe, n in waiting)
        season.append(f"<h2>{w['waiting']}</h2><ul>{items}</ul>")
    for cafe in data["cafes"]:
        if cafe["heard"] is None:
            shown_heard = e(w["unheard"])
        else:  # the kit writes it in the reader's language and the page's time zone
            shown_heard = e(w["heard"]).replace("{when}", when(cafe["heard"]))
        name = f"{w['cafe']}: {cafe['cafe']}"
        season += [f"<h2>{e(name)}</h2><p>{shown_heard}</p>", table(cafe["season"], name)]
        nights = "".join(
            f"<li>{e(w['night_at'].format(name=n['name'], table=n['host']))}"
            + (f' · <a href="/nights/{quote(cafe["cafe"], safe="")}/{quote(n["host"], safe="")}/'
               f'{quote(n["night"], safe="")}.trf" download>{w["trf"]}</a>' if n["trf"] else "")
            + (f" · <strong>{e(held(n))}</strong>" if held(n) else "")
            + (decide(cafe["cafe"], n) if organiser else "") + "</li>"
            for n in cafe["nights"])
        if nights:
            season.append(f"<h3>{w['nights_of']}</h3><ul>{nights}</ul>")
    if data["apart"]:
        items = "".join(f"<li>{e(a['night'])}, {e(w['from'].format(cafe=a['cafe'], table=a['host']))}: {e(a['why'])}</li>"
                        for a in data["apart"])
        season += [f"<h2>{w['apart']}</h2><ul>{items}</ul>"]
    if data["history"]:
        told = "".join(f"<li>{when(d['at'])} · {e(w['history_line'].format(by=said_by(d['by'], w), what=d['what'], why=d['why']))}"
                       "</li>" for d in data["history"])
        season.append(f"<h2>{w['history']}</h2><ol>{told}</ol>")
    parts.append(f'<div id="season" data-part>{"".join(season)}</div>')
    return kit_page(lang, title, "".join(header), "".join(parts), head=STYLE, zone=zone,
                    every_s=0 if organiser else every_s, said=w["updated"])


def main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pi-table league``: set the organiser's password, or serve the league's page until SIGTERM or SIGINT."""
    if args.set_password:
        if args.password_file is None:
            parser.error("--set-password writes the password's hash to --password-file: name the file")
        return set_password(parser, args.password_file, "league")
    if not args.broker or not args.league:
        parser.error("--broker and --league are needed: the league broker's URL and the league's name")
    try:
        broker = config.broker(args.broker, password_file=args.broker_password_file, ca=args.ca)
        if broker.in_clear and not args.password_in_clear:
            raise ValueError(f"the broker's password would cross the network in clear to {shown_url(args.broker)}: "
                             "use mqtts:// (TLS), or --password-in-clear for a broker on a network you trust")
        if not args.league or any(c in args.league for c in "/+# \0"):
            raise ValueError("--league is the league's name, one level of its topics: no '/', '+', '#' or space")
        if args.password_file is not None and args.roster is None:
            raise ValueError("--password-file signs the organiser in to merge teams and decide nights in the roster: name it, --roster")
        roster = read_roster(args.roster) if args.roster else Roster({}, {}, {}, Scoring())
        stored = None if args.password_file is None else read_password_file(args.password_file)
    except ValueError as e:
        parser.error(str(e))
    tls, proxy = page_policy(parser, args)
    try:
        served = LeaguePage(broker, roster.league(args.league), args.host, args.port, args.lang,
                            password_hash=stored, roster=args.roster, tls=tls, proxy=proxy)
        served.start()
    except OSError as e:
        print(f"pi-table league: {e.strerror or e}: {e.filename or f'{args.host}:{args.port}'}", file=sys.stderr)
        return 1
    except Refusal as e:
        print(f"pi-table league: --broker-password-file: {say(e.phrase, args.lang)}", file=sys.stderr)
        return 1
    print(f"pi-table league: {served.url}, the league {args.league} from {broker.host}:{broker.port}", flush=True)
    served.serve_until_signalled()
    return 0

