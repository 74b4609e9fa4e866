"""The café's broker on the staff page (issue 50, 3): ``GET /staff/api/broker`` (the owner: whether
this table is the broker, where, its tables and the password each is still to be given),
``POST /staff/api/broker`` (the owner: ``{"act": "set-up", "address", "table", "tables"}`` makes
this table the café's broker, ``{"act": "add", "tables"}`` adds tables, ``{"act": "renew",
"table"}`` gives one a new password, ``{"act": "remove", "table"}`` takes one off, ``{"act":
"given", "table"}`` forgets a password the owner gave, ``{"act": "join", "league", "cafe", "address",
"port", "password", "ca"}`` bridges the café's broker to a league with what its organiser gave, a
trial that comes back unless the bridge links, issue 64; ``{"act": "host", "league", "cafe", "cafes":
{NAME: PASSWORD or ""}}`` makes it the league's broker too, each café's password typed or made,
shown until given with what else the café joins by) and ``GET /staff/api/broker/ca.crt`` (the
CA's certificate the other tables trust it by). The root helper sets Mosquitto up
(``release.broker``); every name and the address are parsed into their kinds here, as the helper
parses them, so a table that cannot be one is refused at once, in words. Passwords are shown only
to the owner: the view is the owner's, as the files are.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from aiohttp import web

from ...engine.phrase import N_, Phrase, Text
from ...release import ReleaseError, broker
from ...ui.i18n import say
from ..auth import Session
from ..roles import Route, owner
from ..staff import Section, log
from ..staff_answers import bad, language, reached_on
from ..staff_table import StandIn

TEXTS: tuple[str, ...] = (
    N_("The café's broker"),
    N_("Mosquitto is not installed on this table: sudo systemd/install.sh installs it."),
    N_("This table is not the café's broker. Made the broker, it is the one the café's tables report to, and its "
       "dashboard can show them all."),
    N_("This table is the café's broker at {address}."),
    N_("This table reports to it."),
    N_("This table does not report to it yet."),
    N_("Its name on the café's network (the other tables reach it there)"),
    N_("This table's name in the fleet"),
    N_("The café's other tables (one name a line)"),
    N_("Make this table the café's broker"),
    N_("Set it up again"),
    N_("Make this table the café's broker? Each table in the list gets a new password, and this table restarts to "
       "report to it."),
    N_("Set the broker up again? Every table gets a new password: each must be given its new one."),
    N_("Setting the broker up: a moment..."),
    N_("Asked: the table sets the broker up in a moment."),
    N_("Asked: the table takes {name} off the broker in a moment."),
    N_("Done."),
    N_("Not done: {why}"),
    N_("Not done, and the broker before is back: {why}"),
    N_("On each table's own staff page, under Fleet broker, give what is shown here for it, and the CA certificate."),
    N_("Download the CA certificate"),
    N_("this table"),
    N_("Broker address"),
    N_("Broker password"),
    N_("Given: ask a new one if it is lost."),
    N_("I have given this password: stop keeping it here"),
    N_("New password"),
    N_("A new password for {name}? Its old one stops working at once: give it the new one on its staff page."),
    N_("A new password for this table? It restarts to use it."),
    N_("Add tables (one name a line)"),
    N_("Add these tables"),
    N_("Remove"),
    N_("Take {name} off the broker? Its password stops working at once, and this table restarts to leave it out of "
       "the café's tables."),
    N_("A league"),
    N_("The league's name"),
    N_("This café's name in the league"),
    N_("The league's address"),
    N_("The league's port"),
    N_("This café's password in the league"),
    N_("The league's CA certificate"),
    N_("Join the league"),
    N_("This café is in the league {league} as {cafe}: the nights its tables host go to it."),
    N_("This café's broker is bridged to the league {league} as {cafe}; this table does not send it its nights yet."),
    N_("This café is in no league. Its organiser gives the league's name and address, this café's name and password "
       "there, and the league's CA certificate."),
    N_("Join the league? The café's broker restarts with a bridge to it, and comes back as it was if the league does "
       "not take it; this table then restarts to send it its nights."),
    N_("Host a league on this broker"),
    N_("The other cafés (one a line: its name, then its password or nothing to have one made)"),
    N_("Host the league"),
    N_("Host the league on this broker? Each café gets its password (the one typed, or a new one), and this table "
       "restarts to send the league its nights."),
    N_("This broker hosts the league {league}, this café in it as {cafe}. Give each café what is shown for it, and "
       "the CA certificate."),
    N_("A league's broker can be this one: the other cafés' brokers then bridge to it, each with the password shown "
       "here once."),
    N_("The league's page: put its password in league.password, the CA certificate beside it, and run:"),
    N_("The league's page's password"),
)
"""The room's words on the page (broker.js looks each up by its English text)."""

CA_FILE = "pi-table-broker-ca.crt"
FIELDS = {"set-up": {"act", "address", "table", "tables"}, "add": {"act", "tables"}, "renew": {"act", "table"},
          "remove": {"act", "table"}, "given": {"act", "table"},
          "join": {"act", "league", "cafe", "address", "port", "password", "ca"},
          "host": {"act", "league", "cafe", "cafes"}}


class Broker(Protocol):
    """The café's broker on this table (``daemon.broker_desk.BrokerDesk``)."""

    def view(self, lang: str) -> dict[str, Any]: ...

    def ca(self) -> bytes | None: ...

    def set_up(self, address: str, table: str, others: list[str], reached: str | None) -> Text | None: ...

    def add(self, names: list[str], reached: str | None) -> Text | None: ...

    def renew(self, name: str, reached: str | None) -> Text | None: ...

    def remove(self, name: str, reached: str | None) -> Text | None: ...

    def given(self, name: str) -> None: ...

    def join(self, league: dict[str, Any], reached: str | None) -> Text | None: ...

    def host(self, league: str, cafe: str, cafes: dict[str, str], reached: str | None) -> Text | None: ...


class FakeBroker:
    """The café's broker on a stand-in table that is none yet: each change asked recorded in ``calls``."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def view(self, lang: str) -> dict[str, Any]:
        return {"installed": True, "helper": None, "ours": True, "address": "bar-1.local", "port": 8883,
                "this_table": "bar-1", "uses": True, "pending": None, "last": None, "refused": None,
                "tables": [{"name": "bar-2", "broker": "mqtts://bar-2@bar-1.local:8883", "password": "to-give"}],
                "suggested": {"address": "bar-1.local", "table": "bar-1", "tables": ["bar-2"]}}

    def ca(self) -> bytes | None:
        return b"-----BEGIN CERTIFICATE-----\n"

    def set_up(self, address: str, table: str, others: list[str], reached: str | None) -> Text | None:
        self.calls.append(f"broker set-up {address} {table} {others}")
        return None

    def add(self, names: list[str], reached: str | None) -> Text | None:
        self.calls.append(f"broker add {names}")
        return None

    def renew(self, name: str, reached: str | None) -> Text | None:
        self.calls.append(f"broker renew {name}")
        return None

    def remove(self, name: str, reached: str | None) -> Text | None:
        self.calls.append(f"broker remove {name}")
        return None

    def given(self, name: str) -> None:
        self.calls.append(f"broker given {name}")

    def join(self, league: dict[str, Any], reached: str | None) -> Text | None:
        self.calls.append(f"broker join {league['league']} {league['cafe']}")
        return None

    def host(self, league: str, cafe: str, cafes: dict[str, str], reached: str | None) -> Text | None:
        self.calls.append(f"broker host {league} {cafe} {sorted(cafes)}")
        return None


def hosting(league: object, cafe: object, cafes: object) -> tuple[str, str, dict[str, str]]:
    """A league to host as the page sends it, its names parsed as the helper will parse them
    (``broker.league_cafes``): its name, this café's in it, and each other café's name with the
    password typed for it (empty: one is made); ReleaseError naming what is not of its kind, never
    repeating a password."""
    if not isinstance(league, str) or not isinstance(cafe, str) or not isinstance(cafes, dict) \
            or not all(isinstance(password, str) for password in cafes.values()):
        raise ReleaseError(N_("a league has 1 to {most} other cafés, each named once"), most=broker.MOST_TABLES)
    typed = {str(name).strip(): password.strip() for name, password in cafes.items()}
    broker.league_cafes(league.strip(), typed, cafe.strip())
    for password in typed.values():
        if password:
            broker.league_password(password)
    return league.strip(), cafe.strip(), typed


class BrokerSection(Section[Broker], name="broker", script="broker.js", texts=TEXTS):
    """The café's broker's routes under ``/staff/api/``, all the owner's: its view holds the
    passwords the other tables are to be given."""

    @classmethod
    def stand_in(cls, table: StandIn) -> Broker:
        return FakeBroker(table.calls)

    def routes(self) -> list[Route]:
        return [owner("GET", "/staff/api/broker", self._view),  # the passwords the other tables are to be given
                owner("POST", "/staff/api/broker", self._change),  # this table made the broker, a table added...
                owner("GET", "/staff/api/broker/ca.crt", self._ca)]  # the CA the tables trust it by, to give them

    async def _view(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.table.view, language(request)),
                                 headers={"Cache-Control": "no-store"})  # passwords: kept by no cache

    async def _ca(self, request: web.Request, session: Session) -> web.Response:
        found = await asyncio.to_thread(self.table.ca)
        if found is None:
            return web.json_response({"ok": False, "error": say(Phrase.of(
                "this table is not the café's broker yet: set it up first"), language(request))}, status=404)
        return web.Response(body=found, content_type="application/x-pem-file",
                            headers={"Content-Disposition": f'attachment; filename="{CA_FILE}"'})

    async def _change(self, request: web.Request, session: Session) -> web.Response:
        body = await self.page.read_json(request)
        act = body.get("act") if isinstance(body, dict) else None
        if not isinstance(body, dict) or set(body) != FIELDS.get(str(act)) \
                or not all(isinstance(body[key], str) for key in ("address", "table") if key in body) \
                or not (isinstance(body.get("tables", []), list)):
            return bad('expected {"act": "set-up", "address", "table", "tables": [NAME, ...]}, {"act": "add", '
                       '"tables": [NAME, ...]}, {"act": "renew", "table"}, {"act": "remove", "table"}, {"act": '
                       '"given", "table"}, {"act": "join", "league", "cafe", "address", "port", "password", "ca"} or '
                       '{"act": "host", "league", "cafe", "cafes": {NAME: PASSWORD or ""}}')
        lang, reached, asked = language(request), reached_on(request), time.time()  # the broker's note is newer once done
        if act == "join":  # a league: what its organiser gave, parsed as the helper will
            league = {key: value.strip() if isinstance(value, str) and key != "ca" else value
                      for key, value in body.items() if key != "act"}
            try:
                broker.check_league(league)
            except ReleaseError as e:
                return bad(say(Phrase.of(e.why["template"], **e.why["fields"]), lang))
            problem = await asyncio.to_thread(self.table.join, league, reached)
        elif act == "host":  # a league hosted here: its name, this café's, the others' and their passwords
            try:
                hosted = hosting(body["league"], body["cafe"], body["cafes"])
            except ReleaseError as e:
                return bad(say(Phrase.of(e.why["template"], **e.why["fields"]), lang))
            problem = await asyncio.to_thread(self.table.host, *hosted, reached)
        elif act in ("renew", "remove", "given"):  # a user the broker has: a table's, or the dashboard's
            if not broker.is_user(body["table"]):
                return bad(say(Phrase.of("{name} is not a user of this broker", name=repr(body["table"][:64])), lang))
            if act == "given":
                await asyncio.to_thread(self.table.given, body["table"])
                return web.json_response({"ok": True})
            change = self.table.renew if act == "renew" else self.table.remove
            problem = await asyncio.to_thread(change, body["table"], reached)
        else:
            try:  # each name and the address parsed into their kinds, as the helper will
                if act == "set-up" and (problem := broker.address_problem(body["address"].strip())) is not None:
                    raise ReleaseError(problem)
                names = broker.tables([*([body["table"].strip()] if act == "set-up" else []),
                                       *(name.strip() if isinstance(name, str) else name for name in body["tables"])])
            except ReleaseError as e:
                return bad(say(Phrase.of(e.why["template"], **e.why["fields"]), lang))
            if act == "set-up":
                problem = await asyncio.to_thread(self.table.set_up, body["address"].strip(), names[0], names[1:],
                                                  reached)
            else:
                problem = await asyncio.to_thread(self.table.add, names, reached)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.warning("staff page: the café's broker: %s asked from %s", act, request.remote)
        await asyncio.to_thread(self.page.owners_act, session, "broker", False)  # its result once the helper is done
        return web.json_response({"ok": True, "asked": asked}, status=202)
