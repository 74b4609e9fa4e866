"""The café's broker on this table, on the staff page (``web.broker.BrokerRoom``, issue 50, 3): the
owner makes this table the broker the café's tables report to, adds a table later, gives one a new
password or takes one off; the root helper sets Mosquitto up (``release.broker``), and the page
then shows what each other table is given on its own staff page.

Every password is made here, and only its hash goes to the helper. The other tables' passwords
are kept in the journal folder (the service's alone, never in a backup) only until the owner says
each was given, then forgotten: a new one is the way back (so are those of the cafés of a league
this broker hosts, and of the league's page, issue 64). This table's own and the dashboard's
go, once the helper is done, to files of their own as the owner's other files do, with this
table's [fleet] broker, table_id, CA, dashboard user and café's tables set to the new broker: a
change of settings tried as any other (``files_desk.give_files``), kept only if the table comes
back healthy on it. The helper's own act is a trial of the broker's: the files before come back
when Mosquitto does not answer on the new ones.
"""

from __future__ import annotations

import json
import logging
import shutil
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ..engine.phrase import Phrase, Text
from ..engine.views import LANGUAGES
from ..files import read_file, read_json, write_private
from ..release import ReleaseError, broker, requests
from ..release.desk import said
from ..release.layout import HOME, Releases
from ..ui.i18n import say
from ..web.acts import ActNotes
from .backup import HANDOUT
from .files_desk import Table, give_files

log = logging.getLogger("pi_table.daemon")
HANDOUT_MOST = 64 * 1024
WAIT_S = 180.0  # the helper's act: certificates, a restart and its check take seconds
POLL_S = 0.5
LOOPBACK = "127.0.0.1"  # where this table reaches its own broker: in the certificate, whatever the café's network


class Running(Table, Protocol):
    """The running table, as far as the broker reads and changes it: its settings, their change as
    a trial (``files_desk.give_files``), a restart."""

    def restart(self) -> float: ...


class Helper(Protocol):
    """The root helper, as the broker asks it to set Mosquitto up (``root_helper.RootHelper``)."""

    helper_missing: Callable[[], Text | None]

    def ask(self, act: str, **args: object) -> Text | None: ...


class BrokerDesk:
    """The broker's note in ``home`` (the helper's), Mosquitto's files in ``etc`` (the CA's
    certificate is read from there), its listener's ``port``; ``helper`` sets Mosquitto up, and
    ``table``'s settings are changed to use it. A change asked before a restart is waited for again
    at the start."""

    def __init__(self, table: Running, helper: Helper, home: Path = HOME, etc: Path = broker.ETC,
                 port: int = broker.PORT) -> None:
        self.table, self.helper, self.home, self.etc, self.port = table, helper, home, etc, port
        self.lock = threading.Lock()
        self.waiter: threading.Thread | None = None
        if self._kept().get("pending") is not None:
            self._wait()

    # --- what the page shows -------------------------------------------------------------------

    def view(self, lang: str) -> dict[str, Any]:
        """Whether this table can be the broker and is, where, its tables and what each is given
        (a password until the owner says it was given), the change under way, how the last ended."""
        note = Releases(self.home).note(broker.NOTE) or {}
        kept = self._kept()
        address, users = note.get("address"), [user for user in note.get("users") or [] if isinstance(user, str)]
        ours = (self.etc / broker.CONF).exists() and isinstance(address, str)
        handout = kept.get("handout") or {}
        fleet = self.table.config.fleet
        last = None
        if note.get("act") is not None:
            last = {key: note.get(key) for key in ("act", "outcome", "at")} | {"why": (said(note.get("why")) or {}).get(lang)}
        refused = kept.get("refused")
        missing = self.helper.helper_missing()
        return {
            "installed": shutil.which("mosquitto") is not None or Path("/usr/sbin/mosquitto").exists(),
            "helper": None if missing is None else say(missing, lang),
            "ours": ours, "address": address if ours else None, "port": self.port,
            "this_table": self._own_user() if ours else None,
            "uses": ours and fleet.enabled and fleet.port == self.port and fleet.host in (LOOPBACK, "localhost", address),
            "tables": [{"name": user, "broker": self.url(user, str(address)), "password": handout.get(user)}
                       for user in users if user != broker.DASHBOARD and user not in self._league_users(note)]
            if ours else [],
            "pending": None if kept.get("pending") is None else {"act": kept["pending"]["act"],
                                                                  "since": kept["pending"]["asked"]},
            "last": last, "refused": None if refused is None else refused.get(lang),
            "suggested": self._suggested(),
            "league": self._league(note),
            "hosting": self._hosting(note, handout) if ours else None,
        }

    @staticmethod
    def _league_users(note: dict[str, Any]) -> list[str]:
        """The broker's users that are the hosted league's (its cafés and its page), not the café's tables."""
        hosted = note.get("hosting")
        return [*hosted.get("cafes", []), broker.ORGANISER] if isinstance(hosted, dict) else []

    def _hosting(self, note: dict[str, Any], handout: dict[str, str]) -> dict[str, Any] | None:
        """The league this café's broker hosts (issue 64): what each café is given to join it (the
        league's address and port, the café's name, its password until the owner says it was
        given, and the CA's certificate), and the organiser's page's user and password likewise."""
        hosted = note.get("hosting")
        if not isinstance(hosted, dict):
            return None
        fleet = self.table.config.fleet
        return {"league": hosted.get("league"), "cafe": hosted.get("cafe"), "address": note.get("address"),
                "port": self.port, "sends": (fleet.league, fleet.cafe) == (hosted.get("league"), hosted.get("cafe")),
                "cafes": [{"name": name, "password": handout.get(name)} for name in hosted.get("cafes", [])],
                "page": {"broker": self.url(broker.ORGANISER, str(note.get("address"))),
                         "password": handout.get(broker.ORGANISER)}}

    def _league(self, note: dict[str, Any]) -> dict[str, Any] | None:
        """The league the café's broker is bridged to (the helper's note: no password), and whether
        this table sends it the nights it hosts; None when it joined none."""
        joined = note.get("league")
        if not isinstance(joined, dict):
            return None
        fleet = self.table.config.fleet
        return {key: joined.get(key) for key in ("league", "cafe", "address", "port")} | {
            "sends": (fleet.league, fleet.cafe) == (joined.get("league"), joined.get("cafe"))}

    def url(self, user: str, host: str) -> str:
        """The broker's address as a table named ``user`` is given it (its user in it, no password)."""
        return f"mqtts://{urllib.parse.quote(user, safe='')}@{host}:{self.port}"

    def ca(self) -> bytes | None:
        """The certificate of the CA the other tables trust the broker by (public: it is given away)."""
        try:
            return read_file(self.etc / broker.CA_CERT, 64 * 1024)
        except OSError:
            return None

    def _suggested(self) -> dict[str, Any]:
        """What the set-up's form starts with: this machine's .local name, this table's name in the
        fleet, and the café's other tables as [fleet] cafe_tables lists them."""
        values, host = self.table.config.values, socket.gethostname()
        table = str(values["fleet.table_id"]) or host
        return {"address": f"{host}.local" if broker.address_problem(host) is None else "", "table": table,
                "tables": [name for name in self.table.config.fleet.cafe_tables if name != table]}

    def _own_user(self) -> str:
        """This table's user at its own broker: the name its set-up gave it (its name in the fleet)."""
        fleet = self.table.config.fleet
        return str(self._kept().get("table") or fleet.username or fleet.table_id)

    # --- what the owner asks -------------------------------------------------------------------

    def set_up(self, address: str, table: str, others: list[str], reached: str | None) -> Text | None:
        """This table the café's broker at ``address``, its users this table (as ``table``), the
        dashboard and ``others``, each with a new password: every table set up anew."""
        try:
            if (problem := broker.address_problem(address)) is not None:
                raise ReleaseError(problem)
            (table,) = broker.tables([table])
            others = [name for name in broker.tables(others) if name != table]
            broker.tables([table, *others])  # all of them within the café's count
        except ReleaseError as e:
            return Phrase.of(e.why["template"], **e.why["fields"])
        passwords = {name: broker.new_password() for name in (table, broker.DASHBOARD, *others)}
        own = {name: passwords.pop(name) for name in (table, broker.DASHBOARD)}
        return self._ask({"act": "broker", "address": address}, passwords, own, [table, *others], reached)

    def add(self, names: list[str], reached: str | None) -> Text | None:
        """``names`` added to the broker (and to the café's tables), each with a new password."""
        if (refused := self._not_ours()) is not None:
            return refused
        try:
            added = broker.tables(names)
            tables = broker.tables([*self.table.config.fleet.cafe_tables, *added])
        except ReleaseError as e:
            return Phrase.of(e.why["template"], **e.why["fields"])
        if not added:
            return Phrase.of("name at least one table to add")
        return self._ask({"act": "broker-users"}, {name: broker.new_password() for name in added}, {}, tables, reached)

    def renew(self, name: str, reached: str | None) -> Text | None:
        """A new password for the broker's user ``name``: this table's or the dashboard's go to this
        table's settings, another table's is shown until given."""
        if (refused := self._not_ours()) is not None:
            return refused
        note = Releases(self.home).note(broker.NOTE) or {}
        if name not in (note.get("users") or []):
            return Phrase.of("{name} is not a user of this broker", name=repr(name[:broker.USER_BYTES]))
        own = name in (self._own_user(), broker.DASHBOARD)
        password = broker.new_password()
        return self._ask({"act": "broker-users"}, {} if own else {name: password}, {name: password} if own else {},
                         None, reached)

    def remove(self, name: str, reached: str | None) -> Text | None:
        """The table ``name`` taken off the broker (and the café's tables): its password opens
        nothing from then on. This table's own user and the dashboard's are not tables to take off."""
        if (refused := self._not_ours()) is not None:
            return refused
        note = Releases(self.home).note(broker.NOTE) or {}
        if name not in (note.get("users") or []) or name == broker.DASHBOARD or name in self._league_users(note):
            return Phrase.of("{name} is not a table on this broker", name=repr(name[:broker.USER_BYTES]))
        if name == self._own_user():
            return Phrase.of("this table is the broker itself, not a table to take off it")
        tables = [table for table in self.table.config.fleet.cafe_tables if table != name]
        return self._ask({"act": "broker-remove", "table": name}, {}, {}, tables, reached)

    def join(self, league: dict[str, Any], reached: str | None) -> Text | None:
        """The café's broker on this table bridged to a league (issue 64) with what its organiser
        gave (``league``: its name, the café's, the league's address and port, the café's password
        there, the league's CA), the helper's act a trial that comes back unless the bridge links;
        once it has, this table sends the league the nights it hosts ([fleet] league and cafe, a
        trial of the settings as any other). The password goes to root alone, never kept here."""
        if (refused := self._not_ours()) is not None:
            return refused
        return self._ask({"act": "broker-league", **league}, {}, {}, None, reached,
                         joined={"league": league["league"], "cafe": league["cafe"]})

    def host(self, league: str, cafe: str, cafes: dict[str, str], reached: str | None) -> Text | None:
        """The café's broker on this table the league ``league``'s too (issue 64), this café in it as
        ``cafe``; each other café of ``cafes`` with the password the owner typed, or a new one
        (empty), and the organiser's page with a new one, each shown until given. The helper's act
        a trial that comes back unless the broker answers on it; once done, this table sends the
        league the nights it hosts ([fleet] league and cafe, a trial of the settings)."""
        if (refused := self._not_ours()) is not None:
            return refused
        note = Releases(self.home).note(broker.NOTE) or {}
        for name in cafes:
            if name in (note.get("users") or []) and name not in self._league_users(note):
                return Phrase.of("{name} is a user of this broker already (a table of the café): name the café "
                                 "otherwise", name=repr(name))
        passwords = {name: password or broker.new_password() for name, password in cafes.items()}
        passwords[broker.ORGANISER] = broker.new_password()
        hashed = {name: broker.password_hash(password) for name, password in passwords.items()}
        page = hashed.pop(broker.ORGANISER)
        return self._ask({"act": "broker-host-league", "league": league, "cafe": cafe, "cafes": hashed, "page": page},
                         passwords, {}, None, reached, joined={"league": league, "cafe": cafe})

    def given(self, name: str) -> None:
        """The owner gave ``name`` its password: it is forgotten here."""
        with self.lock:
            kept = self._kept()
            if name in (kept.get("handout") or {}):
                del kept["handout"][name]
                self._keep(kept)
                log.warning("the broker's password of %r was given: forgotten", name)

    def _not_ours(self) -> Text | None:
        if not (self.etc / broker.CONF).exists() or (Releases(self.home).note(broker.NOTE) or {}).get("address") is None:
            return Phrase.of("this table is not the café's broker yet: set it up first")
        return None

    def _ask(self, request: dict[str, Any], passwords: dict[str, str], own: dict[str, str], tables: list[str] | None,
             reached: str | None, joined: dict[str, str] | None = None) -> Text | None:
        """The helper asked for ``request`` with the hashes of ``passwords`` (the other tables', shown
        once it is done) and ``own`` (this table's and the dashboard's, its settings then changed,
        and ``tables`` the café's; ``joined``: the league and the café's name in it, likewise); one
        change at a time."""
        # a table taken off: its name alone; a league joined: what its organiser gave; hosted: its own hashes
        asked = request if "table" in request or "league" in request else {**request, "users": {
            name: broker.password_hash(password) for name, password in {**own, **passwords}.items()}}
        with self.lock:
            kept = self._kept()
            if kept.get("pending") is not None:
                return Phrase.of("the broker is being changed: wait a moment, then try again")
            try:
                requests.check(asked)
            except ReleaseError as e:
                return Phrase.of(e.why["template"], **e.why["fields"])
            if (missing := self.helper.helper_missing()) is not None:
                return missing
            kept["pending"] = {"act": asked["act"], "asked": time.time(), "passwords": passwords, "own": own,
                               "tables": tables, "reached": reached, "removed": asked.get("table"), "joined": joined}
            self._keep(kept)
            problem = self.helper.ask(asked["act"], **{key: value for key, value in asked.items() if key != "act"})
            if problem is not None:
                del kept["pending"]
                self._keep(kept)
                return problem
        log.warning("the café's broker: %s asked for %s", asked["act"],
                    ", ".join(asked.get("users") or asked.get("cafes") or ()) or asked.get("table") or asked.get("league"))
        self._wait()
        return None

    # --- the helper's answer -------------------------------------------------------------------

    def _wait(self) -> None:
        self.waiter = threading.Thread(target=self._settle, name="broker", daemon=True)
        self.waiter.start()

    def _settle(self) -> None:
        """The change under way settled by the helper's note: done, the passwords to give are kept
        and this table's settings changed (a trial, then a restart); not done, forgotten and the
        note says why. A helper that never answers is said too."""
        pending = self._kept().get("pending") or {}
        deadline = time.monotonic() + WAIT_S
        while True:
            note = Releases(self.home).note(broker.NOTE) or {}
            if note.get("act") == pending.get("act") and isinstance(note.get("at"), (int, float)) \
                    and note["at"] >= pending.get("asked", 0):
                break
            if time.monotonic() > deadline:
                note = {}
                break
            time.sleep(POLL_S)
        with self.lock:
            kept = self._kept()
            pending = kept.pop("pending", None) or pending
            done = note.get("outcome") == "done"
            kept.pop("refused", None)
            if done:
                kept["handout"] = {name: password for name, password in {
                    **({} if pending["act"] == "broker" else kept.get("handout") or {}), **pending["passwords"]}.items()
                    if name != pending.get("removed")}  # a table taken off is given nothing
                if pending["act"] == "broker":
                    kept["table"] = pending["tables"][0]  # this table's own user
            elif not note:
                late = Phrase.of("the root helper did not answer within {seconds} s: is pi-table-helper.path active?",
                                 seconds=round(WAIT_S))
                kept["refused"] = {lang: say(late, lang) for lang in LANGUAGES}
            self._keep(kept)
        if not done or not (pending["own"] or pending["tables"] is not None or pending.get("joined")):
            return
        problems = self._use(pending)
        if problems:
            with self.lock:
                kept = self._kept()
                kept["refused"] = {lang: say(Phrase.of("this table's settings were not changed: {why}",
                                                       why="; ".join(say(problem, lang) for problem in problems)), lang)
                                   for lang in LANGUAGES}
                self._keep(kept)
            return
        log.warning("the café's broker: this table's settings changed to it; restarting to try them")
        ActNotes(self.table.config.paths.journal_dir).done("broker")  # the page says so after the restart
        self.table.restart()

    def _use(self, pending: dict[str, Any]) -> list[Phrase]:
        """This table's settings changed to the broker: its own user and password with the CA's
        certificate, the dashboard's, the café's tables."""
        config = self.table.config
        own, table = pending["own"], pending["tables"][0] if pending["act"] == "broker" else self._own_user()
        given: list[tuple[str, dict[str, Any]]] = []
        if table in own:
            authority = self.ca()
            given.append(("broker", {"broker": self.url(table, LOOPBACK), "table_id": table, "password": own[table],
                                     "ca": "" if authority is None else authority.decode("ascii", "replace")}))
        if broker.DASHBOARD in own:
            given.append(("dashboard", {"port": config.values["fleet.dashboard_port"], "user": broker.DASHBOARD,
                                        "password": own[broker.DASHBOARD]}))
        more: dict[str, object] = {} if pending["tables"] is None else {"fleet.cafe_tables": pending["tables"]}
        if joined := pending.get("joined"):
            more |= {"fleet.league": joined["league"], "fleet.cafe": joined["cafe"]}
        return give_files(self.table, given, more, pending["reached"])

    # --- the passwords kept until given ----------------------------------------------------------

    @property
    def _path(self) -> Path:
        return self.table.config.paths.journal_dir / HANDOUT

    def _kept(self) -> dict[str, Any]:
        try:
            kept = read_json(read_file(self._path, HANDOUT_MOST))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            log.warning("the café's broker: %s cannot be read (%s): its passwords to give are lost", self._path, e)
            return {}
        return kept if isinstance(kept, dict) else {}

    def _keep(self, kept: dict[str, Any]) -> None:
        write_private(self._path, json.dumps(kept).encode("utf-8"))
