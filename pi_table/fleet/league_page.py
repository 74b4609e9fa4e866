"""``pi-table league``: the league's page, run by its organiser beside the league's Mosquitto (issue 64).

It reads every café's closed nights off the league's broker (``league/<league>/cafes/#``, QoS 1, as
the broker's ``league`` user, in a session the broker keeps), folds them (``league.League``), and
sends the season back, retained, on ``league/<league>/season``, which each café's bridge brings
down. Its page is public and read-only, as a league table pinned on a wall: the season overall and
per café, when each café was last heard, and the nights refused, with why; in the language the
phone asks for (or ``?lang=``); the season as CSV. It changes nothing: the organiser's roster
(the cafés, their tables, the teams merged, the scoring) is a file (``read_roster``).

What it knows lives in memory: restarted, it learns every night again from the retained messages.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import logging
import sys
import threading
import time
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from aiohttp import web

from .. import config
from ..config import FleetConfig
from ..config.settings import shown_url
from ..engine.errors import Refusal
from ..engine.phrase import N_
from ..engine.views import LANGUAGES
from ..errors import PiTableError
from ..ui.i18n import say, translation
from ..web.runner import ServerThread
from . import link
from .dashboard import asked_language
from .league import PLACES, SCALE, League, Scoring, season_topic

log = logging.getLogger("pi_table.fleet")
SEASON_EVERY_S = 1.0  # the season is sent again at most this often, however many nights came
WORDS = {  # the page's words, translated once for each language
    "title": N_("The league {league}"), "overall": N_("The season"), "cafe": N_("Café"), "team": N_("Team"),
    "place": N_("Place"), "cafes": N_("Cafés"), "nights": N_("Nights"), "points": N_("Points"),
    "played": N_("played"), "won": N_("won"), "lost": N_("lost"), "drawn": N_("drawn"), "rating": N_("rating"),
    "heard": N_("Last heard: {when}"), "unheard": N_("never heard"), "export": N_("The season (CSV)"),
    "apart": N_("Nights refused"), "none": N_("No night yet."), "from": N_("from {cafe}, table {table}"),
    "scoring_night": N_("Each night counts its own points."),
    "scoring_places": N_("Each night counts points by place: {scale}."),
    "best": N_("A team's best {best} nights count."),
}


class RosterError(PiTableError, ValueError):
    """The organiser's roster file cannot be used: the message names the file, the key and what was expected."""


def read_roster(path: Path) -> tuple[dict[str, list[str]], dict[str, str], Scoring]:
    """The organiser's roster (TOML): ``[cafes]`` each café's name and its tables, ``[merged]`` a
    team's name and the one it is merged into, ``[scoring]`` points ("night" or "places"), scale
    and best; RosterError naming the file, the key and what was expected (never the file's text)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise RosterError(f"{path}: cannot be read ({e.strerror or type(e).__name__})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        raise RosterError(f"{path}: is not TOML in UTF-8") from None
    unknown = sorted(set(data) - {"cafes", "merged", "scoring"})
    if unknown:
        raise RosterError(f"{path}: [{unknown[0]}] is no part of a roster: expected [cafes], [merged] and [scoring]")
    cafes, merged, scoring = data.get("cafes", {}), data.get("merged", {}), data.get("scoring", {})
    for name, tables in cafes.items():
        if not isinstance(tables, list) or not all(isinstance(t, str) and t for t in tables):
            raise RosterError(f"{path}: cafes.{name} should be a list of the café's tables' names")
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
    return {name: list(tables) for name, tables in cafes.items()}, dict(merged), chosen


class LeaguePage(ServerThread):
    """The league's subscriber and its page: paho's thread folds the nights, the page reads them."""

    def __init__(self, broker: FleetConfig, league: League, host: str, port: int, lang: str = "en",
                 client_id: str = "pi-table-league") -> None:
        super().__init__("league-page")
        self.broker, self.league, self.host, self.port, self.lang = broker, league, host, port, lang
        self.client = link.client(broker, client_id)
        self.client.on_connect = self._connected
        self.client.on_message = self._message
        self.connected = threading.Event()
        self._sent_version = -1
        self._stopping = threading.Event()
        self._sender: threading.Thread | None = None

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
        """The season, retained, each time the nights changed (at most every ``SEASON_EVERY_S``)."""
        while not self._stopping.wait(SEASON_EVERY_S):
            version = self.league.version
            if version != self._sent_version and self.connected.is_set():
                season = json.dumps({"league": self.league.name, "at": time.time(),
                                     "season": [line.to_json() for line in self.league.season()]})
                self.client.publish(season_topic(self.league.name), season, qos=1, retain=True)
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
        return f"http://{self.host}:{self.port}"

    async def _open(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/season.json", self._json)
        app.router.add_get("/season.csv", self._csv)
        runner = await self._set_up(app)
        await web.TCPSite(runner, self.host, self.port).start()
        if self.port == 0:
            self.port = runner.addresses[0][1]

    def _language(self, request: web.Request) -> str:
        asked = request.query.get("lang", "")
        return asked if asked in LANGUAGES else asked_language(request.headers.get("Accept-Language", ""), self.lang)

    async def _json(self, request: web.Request) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.league.to_json, self._language(request)))

    async def _csv(self, request: web.Request) -> web.Response:
        return web.Response(text=await asyncio.to_thread(self.league.csv), content_type="text/csv",
                            headers={"Content-Disposition": f'attachment; filename="league-{self.league.name}.csv"'})

    async def _page(self, request: web.Request) -> web.Response:
        lang = self._language(request)
        body = await asyncio.to_thread(page, self.league.to_json(lang), lang)
        return web.Response(text=body, content_type="text/html")


def page(data: dict[str, Any], lang: str) -> str:
    """The league's page in ``lang``: the season overall, each café's (when it was last heard), the nights refused."""
    gettext = translation(lang).gettext
    w = {key: gettext(text) for key, text in WORDS.items()}
    e = html.escape
    scoring = data["scoring"]
    said = (w["scoring_places"].format(scale=", ".join(f"{p:g}" for p in scoring["scale"]))
            if scoring["points"] == PLACES else w["scoring_night"])
    if scoring["best"]:
        said += " " + w["best"].format(best=scoring["best"])
    heads = "".join(f"<th>{w[key]}</th>" for key in ("place", "team", "cafes", "nights", "points", "played", "won",
                                                     "lost", "drawn", "rating"))

    def table(lines: list[dict[str, Any]]) -> str:
        if not lines:
            return f"<p>{w['none']}</p>"
        rows = "".join(
            f"<tr><td>{line['place']}{'=' if line['shared'] else ''}</td><td>{e(line['team'])}</td>"
            f"<td>{e(', '.join(line['cafes']))}</td><td>{line['nights']}</td><td>{line['points']:g}</td>"
            f"<td>{line['played']}</td><td>{line['won']}</td><td>{line['lost']}</td><td>{line['drawn']}</td>"
            f"<td>{line['rating']:.2f}</td></tr>" for line in lines)
        return f"<table><thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table>"

    parts = [f"<h1>{e(w['title'].format(league=data['league']))}</h1><p>{e(said)}</p>",
             f'<p><a href="/season.csv">{w["export"]}</a></p>', f"<h2>{w['overall']}</h2>", table(data["season"])]
    for cafe in data["cafes"]:
        heard = (w["heard"].format(when=datetime.fromtimestamp(cafe["heard"], UTC).strftime("%Y-%m-%d %H:%M UTC"))
                 if cafe["heard"] is not None else w["unheard"])
        parts += [f"<h2>{w['cafe']}: {e(cafe['cafe'])}</h2><p>{e(heard)}</p>", table(cafe["season"])]
    if data["apart"]:
        items = "".join(f"<li>{e(a['night'])}, {e(w['from'].format(cafe=a['cafe'], table=a['host']))}: {e(a['why'])}</li>"
                        for a in data["apart"])
        parts += [f"<h2>{w['apart']}</h2><ul>{items}</ul>"]
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
            f'<meta http-equiv="refresh" content="60"><title>{e(w["title"].format(league=data["league"]))}</title>'
            f"</head><body>{''.join(parts)}</body></html>")


def main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pi-table league``: serve the league's page until SIGTERM or SIGINT."""
    try:
        broker = config.broker(args.broker, password_file=args.broker_password_file, ca=args.ca)
        if broker.in_clear and not args.password_in_clear:
            raise ValueError(f"the broker's password would cross the network in clear to {shown_url(args.broker)}: "
                             "use mqtts:// (TLS), or --password-in-clear for a broker on a network you trust")
        if not args.league or any(c in args.league for c in "/+# \0"):
            raise ValueError("--league is the league's name, one level of its topics: no '/', '+', '#' or space")
        cafes, merged, scoring = read_roster(args.roster) if args.roster else ({}, {}, Scoring())
        league = League(args.league, scoring, cafes, merged)
    except ValueError as e:
        parser.error(str(e))
    try:
        served = LeaguePage(broker, league, args.host, args.port, args.lang)
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

