"""The café's broker on one of its tables (issue 50, 3): Mosquitto set up by the root helper, asked
from the staff page, so the owner needs neither a terminal nor another machine.

The service asks (``requests``) ``{"act": "broker", "address", "users"}``: this table becomes the
café's broker at ``address`` (its name on the café's network), with exactly these users; or
``{"act": "broker-users", "users"}``: these users added, or given a new password; or
``{"act": "broker-remove", "table"}``: a table taken off (a table sold, or its card lost), its
password opening nothing from then on, its connection cut and what it left retained at the
broker cleared (``Broker._clear``). Each user is a
table's name in the fleet (or the dashboard's user), parsed before anything is written
(``tables``), with its password's hash in Mosquitto's own format (``password_hash``: the
PBKDF2-SHA512 that mosquitto_passwd writes), made by the service: root never sees a password, and
none is ever on a command line.

The helper writes the project's pi-table.conf and pi-table.acl (pi_table/fleet/mosquitto/) into
/etc/mosquitto as they are, a certificate for the table's names signed by a small certificate
authority the table keeps (made once: its key root's alone, its certificate the one file the
other tables are given) and the password file; then enables and restarts Mosquitto (or has it
read its users again) and checks that it answers over TLS with that certificate. If it does not,
the files before come back (a first set-up turns Mosquitto off again): the broker that worked
stays, and the staff page says why.

Why a CA of its own, not the certificate of the table's own https: the other tables trust the
CA's certificate, given once, and the broker's certificate can then be made again (a new name on
the café's network, the table renamed) without any table being given a new file; the https
certificate may be replaced by the owner's (uploaded), names only the host, and its key is the
service's, which Mosquitto should not share. The CA's key never leaves root, so the service
cannot make a certificate that passes for the broker.

Standard library only, beside the layers below: the root helper runs it with the system's Python.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import os
import pwd
import re
import secrets
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.phrase import N_
from ..files import read_json, replace_file
from .layout import ReleaseError
from .network import DOTTED, HOST_NAME

ETC = Path("/etc/mosquitto")
SHIPPED = Path(__file__).resolve().parent.parent / "fleet" / "mosquitto"  # the project's files, in the package
CONF, ACL, PASSWD = "conf.d/pi-table.conf", "pi-table.acl", "pi-table.passwd"
CERT, KEY = "certs/broker.crt", "certs/broker.key"
CA_CERT, CA_KEY = "pi-table-ca.crt", "pi-table-ca.key"  # the CA's certificate is readable by all: it is given away
BRIDGE, LEAGUE_CA, LEAGUE_NOTE = "conf.d/pi-table.league.conf", "pi-table-league-ca.crt", "pi-table-league.json"
HOSTED = "pi-table-league-hosted.json"  # the league the café's broker hosts too: its name, the café's, the other cafés
# the café's bridge to its league (root's alone: it holds the café's password there), the league's CA, and what it joined
# (conf.d is read in order: the bridge's file after pi-table.conf, so its connection block comes after every setting)
WRITTEN = (CONF, ACL, PASSWD, CERT, KEY, BRIDGE, LEAGUE_CA, LEAGUE_NOTE, HOSTED)  # what an act changes, and puts back when
# the broker does not answer
PORT = 8883  # pi-table.conf's listener
UNIT = "mosquitto.service"
ACTS = ("broker", "broker-users", "broker-remove", "broker-league", "broker-host-league")  # the helper's requests this module acts on
# (owner-wipe: the helper's)
NOTE = "broker.json"  # the helper's note of the broker (its address, its users, how the last act ended)
DASHBOARD = "dashboard"  # the ACL's user that reads every table
RESERVED = (DASHBOARD, "staff")  # the ACL's users that are not tables
ORGANISER = "league"  # the league broker's user that reads every café's nights and writes the season (its page)
LEAGUE_PORT = PORT  # a league's broker listens as a café's does
PASSWORD_MOST = 128
CA_MOST = 16 * 1024  # a CA's certificate in PEM is one or two KB
LINK = "pi-table-league"  # the bridge's connection; its state ("1" linked, "0" not) on STATE, retained, on the café's broker
STATE = f"$SYS/broker/connection/{LINK}/state"
CHECKER = "pi-table-helper"  # the user the root helper reads STATE as: its password only while it looks
LINK_S = 30.0  # the league's broker taking the café's bridge, once Mosquitto restarted on it
MOST_TABLES = 50  # a café's; a chain's tables report to a clustered broker
USER_BYTES = 64
ADDRESS_MOST = 253  # a DNS name's length
ITERATIONS, SALT_BYTES = 101, 12  # mosquitto_passwd's own (Mosquitto 2.0)
PASSWORD_HASH = re.compile(r"\$7\$[1-9][0-9]{0,6}\$[A-Za-z0-9+/]{16}\$[A-Za-z0-9+/]{86}==")
DAYS = 3650  # trusted by hand once: ten years, not a renewal to forget
OPENSSL_S = 60.0
CALL_S = 60.0
ANSWER_S = 15.0  # Mosquitto answering over TLS after its restart
REACH_S = 10.0  # the league's broker answering over TLS, checked before its bridge is written
LEFT = ("status", "online", "events", "night", "plan")  # what the ACL lets a table write: what it may leave retained


class RolledBack(ReleaseError):
    """The broker did not answer on the new files, for the reason it carries: the ones before are back."""

    @classmethod
    def of(cls, error: ReleaseError) -> RolledBack:
        return cls(error.why["template"], **error.why["fields"])


# --- what is checked before anything is asked ---------------------------------------------------


def is_user(name: object) -> bool:
    """Whether ``name`` can be a user of the broker: a table's name in the fleet (the ACL's %u makes
    it a topic's level), and a line of the password file begins with it and a colon."""
    return isinstance(name, str) and bool(name) and len(name.encode("utf-8")) <= USER_BYTES and name.isprintable() \
        and not any(char in name for char in "/+#: ")


def tables(names: object) -> list[str]:
    """``names`` (the café's tables, as typed or as [fleet] cafe_tables lists them) parsed, each
    once, in their order; ReleaseError naming the first that is none, or a list too long."""
    if not isinstance(names, list) or len(names) > MOST_TABLES:
        raise ReleaseError(N_("at most {most} tables, one name a line"), most=MOST_TABLES)
    found: list[str] = []
    for name in names:
        if not is_user(name):
            raise ReleaseError(N_("{name} cannot be a table's name on the broker: 1 to 64 bytes with no '/', '+', "
                                  "'#', ':', space or invisible character"), name=repr(str(name)[:USER_BYTES]))
        if name in RESERVED:
            raise ReleaseError(N_("{name} is a user of the broker's own, not a table's: name the table otherwise"),
                               name=name)
        if name not in found:
            found.append(name)
    return found


def address_problem(address: object) -> str | None:
    """Why ``address`` is not where the tables reach the broker (a name of RFC 1123's letters
    and dots, or an IPv4 address in numbers); None when it is."""
    if isinstance(address, str) and 0 < len(address) <= ADDRESS_MOST:
        if DOTTED.fullmatch(address):
            try:
                ipaddress.IPv4Address(address)
                return None
            except ValueError:
                pass
        else:
            labels = address.split(".")
            if all(HOST_NAME.fullmatch(label) for label in labels) and not labels[-1].isdigit():
                return None
    return N_("the broker's address is its name on the café's network (such as bar-1.local) or its address of "
              "four numbers 0 to 255")


def check(request: dict[str, Any]) -> None:
    """A broker request's ``address``, ``users`` or ``table`` parsed into their kinds
    (``requests.check`` asks it), ReleaseError saying what is wrong: each user a table's name or
    the dashboard's, each with a password's hash as Mosquitto writes it, at most the café's tables
    and the dashboard; a table taken off, a table's name."""
    if "cafes" in request:
        check_host(request)
        return
    if "league" in request:
        check_league(request)
        return
    if "address" in request and (problem := address_problem(request["address"])) is not None:
        raise ReleaseError(problem)
    if "table" in request:
        tables([request["table"]])
        return
    users = request["users"]
    if not isinstance(users, dict) or not users:
        raise ReleaseError(N_("the broker's users are given as an object of names and their passwords' hashes"))
    tables([name for name in users if name != DASHBOARD])
    for name, hashed in users.items():
        if not (isinstance(hashed, str) and PASSWORD_HASH.fullmatch(hashed)):
            raise ReleaseError(N_("the password of {name} is not given as Mosquitto's hash ($7$...)"),
                               name=repr(name[:USER_BYTES]))


# --- what the service makes ----------------------------------------------------------------------


def new_password() -> str:
    """A broker's password for a table: 144 random bits, letters a phone copies whole."""
    return secrets.token_urlsafe(18)


def password_hash(password: str, salt: bytes | None = None) -> str:
    """``password`` as Mosquitto 2.0 keeps it in its password file (``$7$``: PBKDF2-SHA512 with
    mosquitto_passwd's iterations and salt length; tests/test_broker_page.py checks it against
    mosquitto_passwd and the broker itself)."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, ITERATIONS)
    return f"$7${ITERATIONS}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def certificate_names(address: str, host: str) -> list[str]:
    """The names the broker's certificate is made for: the address the other tables are given,
    this machine's host name and its .local (mDNS), and loopback, which this table itself uses."""
    found = [address]
    if HOST_NAME.fullmatch(host):
        found += [host, f"{host}.local"]
    return list(dict.fromkeys([*found, "localhost", "127.0.0.1"]))


# --- the root helper's acts ----------------------------------------------------------------------


@dataclass(frozen=True)
class Broker:
    """Mosquitto's files in ``etc`` (/etc/mosquitto), its unit run by ``systemctl``, its listener
    checked on ``port`` of this machine once it restarted, a league's bridge waited for ``link_s``
    (the tests give their own of each)."""

    etc: Path = ETC
    systemctl: Sequence[str] = ("systemctl",)
    port: int = PORT
    link_s: float = LINK_S

    def set_up(self, address: str, users: dict[str, str]) -> None:
        """This table the café's broker at ``address``, with ``users`` (names and hashes) alone but for
        the cafés and the page of a league it hosts, which keep their logins (their ACL stays too)."""
        check({"address": address, "users": users})
        league = self._league_users()
        for name in users:
            if name in league:
                raise ReleaseError(N_("{name} is a café of the league this broker hosts: name the table otherwise"),
                                   name=repr(name))
        self._made(address, users, self._acl(), keep=league)

    def host_league(self, address: str, league: str, cafes: dict[str, str], page: str) -> None:
        """This machine the league ``league``'s broker at ``address`` (issue 64): Mosquitto set up as
        a café's is, its users the cafés (``cafes``, names and hashes: each café's bridge logs in as
        the café) and the organiser's page (``ORGANISER``, ``page`` its hash), its ACL the league's
        (``league_acl``)."""
        league_cafes(league, cafes)
        users = league_users(cafes, page)
        if (problem := address_problem(address)) is not None:
            raise ReleaseError(problem)
        self._made(address, users, league_acl(league, list(cafes)))

    def host_league_here(self, league: str, cafe: str, cafes: dict[str, str], page: str) -> None:
        """The café's broker on this table the league ``league``'s broker too (issue 64), the café
        in it as ``cafe`` (its tables send their nights here, with no bridge: one it had goes):
        the other cafés (``cafes``, names and hashes) and the organiser's page (``page``) added
        to its users, each café pinned to its own prefix and kept off the café's own topics by the
        ACL (``league_acl``); the café's tables and their passwords stay. Mosquitto restarted on them
        and checked answering, else the files before are back."""
        check_host({"league": league, "cafe": cafe, "cafes": cafes, "page": page})
        if not (self.etc / CONF).exists():
            raise ReleaseError(N_("this table is not the café's broker yet: set it up first"))
        before_league = self._league_users()
        for name in self.users():
            if (name in cafes or name == ORGANISER) and name not in before_league:
                raise ReleaseError(N_("{name} is a user of this broker already (a table of the café): name the café "
                                      "otherwise"), name=repr(name))
        before = self._kept()
        try:
            for name in (BRIDGE, LEAGUE_CA, LEAGUE_NOTE):  # the café is in the league it hosts, with no bridge
                (self.etc / name).unlink(missing_ok=True)
            self._write(HOSTED, json.dumps({"league": league, "cafe": cafe, "cafes": sorted(cafes)}), 0o644)
            kept = [line for line in self._lines() if line.partition(":")[0] not in before_league]
            self._write(PASSWD, "".join(f"{line}\n" for line in kept) + "".join(
                f"{name}:{hashed}\n" for name, hashed in {**cafes, ORGANISER: page}.items()), 0o600, mosquitto=True)
            self._write(ACL, self._acl(), 0o644)
            self._systemctl("restart", UNIT)  # started anew on its files: a bridge gone, and the trial a real one
            self._answers()
        except (ReleaseError, OSError) as e:
            self._put_back(before, "restart")
            raise RolledBack.of(_said(e)) from None

    def _league_users(self) -> set[str]:
        """The users a league hosted here gave the broker (its cafés and the page); none when none."""
        hosted = self.hosting()
        return set(hosted[2]) | {ORGANISER} if hosted else set()

    def hosting(self) -> tuple[str, str, list[str]] | None:
        """The league the café's broker hosts, the café's name in it and the other cafés; None when none."""
        try:
            hosted = read_json((self.etc / HOSTED).read_text(encoding="utf-8"))
            return str(hosted["league"]), str(hosted["cafe"]), [str(name) for name in hosted["cafes"]]
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            raise ReleaseError(N_("the note of the league this broker hosts cannot be read: host it again")) from None

    def _made(self, address: str, users: dict[str, str], acl: str, keep: Collection[str] = ()) -> None:
        """Mosquitto's files (the project's pi-table.conf, ``acl``), its CA, its certificate for
        ``address`` and its ``users`` (and those of ``keep`` it had); enabled and restarted, checked
        answering, else put back."""
        first = not (self.etc / CONF).exists()
        before = self._kept()
        try:
            shipped = (SHIPPED / Path(CONF).name).read_text(encoding="utf-8")
            self._write(CONF, shipped.replace(f"{ETC}/", f"{self.etc}/"), 0o644)  # as it is, on a table
            self._write(ACL, acl, 0o644)
            self._authority()
            self._certificate(certificate_names(address, socket.gethostname()))
            self._passwords(users, only=keep)
            self._systemctl("enable", UNIT)
            self._systemctl("restart", UNIT)
            self._answers()
        except (ReleaseError, OSError) as e:
            self._put_back(before, "disable" if first else "restart")
            raise RolledBack.of(_said(e)) from None

    def set_users(self, users: dict[str, str]) -> None:
        """``users`` added to the broker, or given their new passwords; the others kept."""
        check({"users": users})
        if not (self.etc / CONF).exists():
            raise ReleaseError(N_("this table is not the café's broker yet: set it up first"))
        before = self._kept()
        try:
            self._passwords(users)
            self._systemctl("reload-or-restart", UNIT)  # the password file read again: those connected stay
            self._answers()
        except (ReleaseError, OSError) as e:
            self._put_back(before, "reload-or-restart")
            raise RolledBack.of(_said(e)) from None

    def join_league(self, league: str, cafe: str, address: str, port: int, password: str, ca: str) -> None:
        """The café's broker bridged to the league ``league``'s broker at ``address``:``port``
        (issue 64), as the café ``cafe`` with ``password``, checked with the league's CA (``ca``, its
        PEM): its tables' closed nights go up, the season comes down, nothing else crosses
        (``bridge_conf``); the ACL lets each table send only its own nights. Mosquitto restarted
        (a bridge is read at its start alone) and checked answering, else the files before are back."""
        check_league({"league": league, "cafe": cafe, "address": address, "port": port, "password": password, "ca": ca})
        if not (self.etc / CONF).exists():
            raise ReleaseError(N_("this table is not the café's broker yet: set it up first"))
        if (hosted := self.hosting()) is not None:
            raise ReleaseError(N_("this broker hosts the league {league}: its café is in it with no bridge, and "
                                  "joins no other"), league=repr(hosted[0]))
        reached(address, port, ca)  # a bridge that cannot link is never written: Mosquitto would retry it for ever
        before = self._kept()
        try:
            self._write(LEAGUE_CA, ca, 0o644)
            self._write(LEAGUE_NOTE, json.dumps({"league": league, "cafe": cafe}), 0o600)
            self._write(BRIDGE, bridge_conf(league, cafe, address, port, password, self.etc / LEAGUE_CA), 0o600)
            self._write(ACL, self._acl(), 0o644)
            self._systemctl("restart", UNIT)
            self._answers()
            self._linked()
        except (ReleaseError, OSError) as e:
            self._put_back(before, "restart")
            raise RolledBack.of(_said(e)) from None

    def _linked(self) -> None:
        """The bridge linked to the league's broker within ``LINK_S`` (its state, read as
        ``CHECKER`` under a password made for this once, as ``_clear`` writes); ReleaseError
        saying why not: the league unreachable, the café's password or the league's CA wrong."""
        password = new_password()
        self._passwords({CHECKER: password_hash(password)})
        self._systemctl("reload-or-restart", UNIT)
        if read_state(self.port, self.etc / CA_CERT, CHECKER, password, STATE, self.link_s) != b"1":
            # the files before come back with a restart (``_put_back``): a reload here, on the bridge that failed,
            # left Debian's Mosquitto 2.0.11 spinning a core
            raise ReleaseError(N_("the league's broker did not take the café's bridge within {seconds} s: check its "
                                  "address, the café's name and password and the league's CA"),
                               seconds=round(self.link_s))
        self._without(CHECKER)

    def leave_league(self) -> None:
        """The bridge to the league taken down: its files gone, the ACL the café's alone, Mosquitto restarted."""
        before = self._kept()
        try:
            for name in (BRIDGE, LEAGUE_CA, LEAGUE_NOTE):
                (self.etc / name).unlink(missing_ok=True)
            self._write(ACL, self._acl(), 0o644)
            self._systemctl("restart", UNIT)
            self._answers()
        except (ReleaseError, OSError) as e:
            self._put_back(before, "restart")
            raise RolledBack.of(_said(e)) from None

    def league(self) -> tuple[str, str] | None:
        """The league this café's broker is bridged to, and the café's name in it; None when none."""
        try:
            joined = read_json((self.etc / LEAGUE_NOTE).read_text(encoding="utf-8"))
            return str(joined["league"]), str(joined["cafe"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            raise ReleaseError(N_("the note of the league this broker joined cannot be read: join it again")) from None

    def _acl(self) -> str:
        """The café's ACL: the project's pi-table.acl as it is, and the league's lines when the café
        joined one, or hosts one (then the other cafés' and the organiser's too)."""
        shipped = (SHIPPED / Path(ACL).name).read_text(encoding="utf-8")
        if (hosted := self.hosting()) is not None:
            league, cafe, cafes = hosted
            return shipped + cafe_acl(league, cafe) + "\n" + league_acl(league, cafes, host=cafe)
        joined = self.league()
        return shipped if joined is None else shipped + cafe_acl(*joined)

    def remove(self, table: str) -> None:
        """``table`` taken off the broker: its line out of the password file, which Mosquitto then
        reads again; Mosquitto 2 checks the connected clients against it and cuts that table's
        connection alone (tests/test_broker_page.py sees it refused and the others stay). Then
        what it left retained there is cleared (``_clear``): a table taken off lingers nowhere."""
        check({"table": table})
        if not (self.etc / CONF).exists():
            raise ReleaseError(N_("this table is not the café's broker yet: set it up first"))
        if table not in self.users():
            raise ReleaseError(N_("{name} is not a user of this broker"), name=repr(table))
        before = self._kept()
        try:
            self._without(table)
            self._answers()
        except (ReleaseError, OSError) as e:
            self._put_back(before, "reload-or-restart")
            raise RolledBack.of(_said(e)) from None
        self._clear(table)

    def _without(self, table: str) -> None:
        """The password file without ``table``'s line, read again by Mosquitto."""
        self._write(PASSWD, "".join(f"{line}\n" for line in self._lines() if line.partition(":")[0] != table),
                    0o600, mosquitto=True)
        self._systemctl("reload-or-restart", UNIT)

    def _clear(self, table: str) -> None:
        """The messages ``table`` left retained (its status, online, night and the plan of a night
        it hosted) replaced by empty ones, which Mosquitto keeps as none: written as the ACL lets
        that table alone write them, under a password root makes for this once, its line in the
        password file only until they are written (its own connection was cut before: its last
        will came first). ReleaseError when they could not be: the table stays taken off."""
        password = new_password()
        try:
            self._passwords({table: password_hash(password)})
            self._systemctl("reload-or-restart", UNIT)
            publish_empty(self.port, self.etc / CA_CERT, table, password, [f"pi-table/{table}/{name}" for name in LEFT])
        except (ReleaseError, OSError) as e:
            raise ReleaseError(N_("{name} is taken off the broker, but what it left there could not be cleared: "
                                  "{error}"), name=repr(table), error=str(_said(e))) from None
        finally:
            self._without(table)

    def wipe(self) -> list[str]:
        """Every user's password out of the password file, as the buttons' reset wipes the owner's
        part (issue 58): no table nor dashboard logs in with a password the owner gave until the
        owner sets the broker up again; Mosquitto reads the empty file at once. A league's bridge
        goes too, with the café's password there (issue 64). The users it had ([] when this table
        is not the café's broker)."""
        if not (self.etc / CONF).exists():
            return []
        users = self.users()
        self._write(PASSWD, "", 0o600, mosquitto=True)
        bridged, hosted = (self.etc / BRIDGE).exists(), (self.etc / HOSTED).exists()
        for name in (BRIDGE, LEAGUE_CA, LEAGUE_NOTE, HOSTED):  # the café's password in its league is the owner's too
            (self.etc / name).unlink(missing_ok=True)
        if bridged or hosted:
            self._write(ACL, self._acl(), 0o644)
        self._systemctl("restart" if bridged else "reload-or-restart", UNIT)  # a bridge is read at the start alone
        return users

    def users(self) -> list[str]:
        """The users in the password file, in its order."""
        return [line.partition(":")[0] for line in self._lines()]

    def _lines(self) -> list[str]:
        try:
            text = (self.etc / PASSWD).read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as e:
            raise ReleaseError(N_("the broker's password file cannot be read ({error})"),
                               error=getattr(e, "strerror", None) or type(e).__name__) from None
        return [line for line in text.splitlines() if line.strip() and not line.startswith("#") and ":" in line]

    def _passwords(self, users: dict[str, str], only: Collection[str] | None = None) -> None:
        """The password file: ``users`` with their hashes, after the lines of the other users it had:
        all of them (a staff user made by hand stays), or with ``only`` those it names."""
        kept = [line for line in self._lines()
                if (name := line.partition(":")[0]) not in users and (only is None or name in only)]
        self._write(PASSWD, "".join(f"{line}\n" for line in kept) + "".join(
            f"{name}:{hashed}\n" for name, hashed in users.items()), 0o600, mosquitto=True)

    def _authority(self) -> None:
        """The table's own CA, made once: its key root's (0600), its certificate readable by all."""
        key, cert = self.etc / CA_KEY, self.etc / CA_CERT
        if key.exists() and cert.exists():
            return
        host = socket.gethostname()
        name = f"pi-table broker CA {host}" if HOST_NAME.fullmatch(host) else "pi-table broker CA"
        with tempfile.TemporaryDirectory(prefix="pi-table-ca-") as scratch:
            made_key, made_cert = Path(scratch) / "ca.key", Path(scratch) / "ca.crt"
            _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                     "-keyout", str(made_key), "-out", str(made_cert), "-days", str(DAYS), "-subj", f"/CN={name}",
                     "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign")
            self._write(CA_KEY, made_key.read_text(encoding="ascii"), 0o600)
            self._write(CA_CERT, made_cert.read_text(encoding="ascii"), 0o644)

    def _certificate(self, names: list[str]) -> None:
        """The broker's key and certificate for ``names``, signed by the table's CA (made anew each
        set-up: the tables trust the CA, not this certificate)."""
        san = ",".join(f"IP:{name}" if DOTTED.fullmatch(name) else f"DNS:{name}" for name in names)
        with tempfile.TemporaryDirectory(prefix="pi-table-broker-") as scratch:
            folder = Path(scratch)
            (folder / "names.ext").write_text(
                f"subjectAltName={san}\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                "extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n",
                encoding="ascii")
            _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                     "-keyout", str(folder / "broker.key"), "-out", str(folder / "broker.csr"), "-subj", f"/CN={names[0] if len(names[0]) <= 64 else 'pi-table broker'}")
            _openssl("x509", "-req", "-in", str(folder / "broker.csr"), "-CA", str(self.etc / CA_CERT),
                     "-CAkey", str(self.etc / CA_KEY), "-set_serial", f"0x{secrets.token_hex(16)}", "-days", str(DAYS),
                     "-extfile", str(folder / "names.ext"), "-out", str(folder / "broker.crt"))
            self._write(KEY, (folder / "broker.key").read_text(encoding="ascii"), 0o600, mosquitto=True)
            self._write(CERT, (folder / "broker.crt").read_text(encoding="ascii"), 0o644)

    def _write(self, name: str, text: str, mode: int, mosquitto: bool = False) -> None:
        """One of the broker's files written whole; ``mosquitto``: its own (Mosquitto reads its key
        and its users after it has left root for its own user), else root's."""
        path = self.etc / name
        path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        replace_file(path, text.encode("utf-8"), mode)
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("mosquitto") if mosquitto else None
            except KeyError:
                owner = None  # no such user: Mosquitto then runs as nobody, who reads none of it either
            os.chown(path, owner.pw_uid if owner else 0, owner.pw_gid if owner else 0)

    def _kept(self) -> dict[str, tuple[bytes, int, int, int] | None]:
        """What ``WRITTEN`` holds now (its bytes, mode and owner, or None: no such file), to put back."""
        found: dict[str, tuple[bytes, int, int, int] | None] = {}
        for name in WRITTEN:
            try:
                status = os.stat(self.etc / name)
                found[name] = ((self.etc / name).read_bytes(), status.st_mode & 0o7777, status.st_uid, status.st_gid)
            except FileNotFoundError:
                found[name] = None
        return found

    def _put_back(self, before: dict[str, tuple[bytes, int, int, int] | None], then: str) -> None:
        """The files as ``before`` held them, then Mosquitto disabled and stopped, or restarted (or
        reloaded) on them; a failure of that last step changes nothing more (it was said already)."""
        for name, held in before.items():
            path = self.etc / name
            if held is None:
                path.unlink(missing_ok=True)
                continue
            data, mode, uid, gid = held
            replace_file(path, data, mode)
            if os.geteuid() == 0:
                os.chown(path, uid, gid)
        try:
            self._systemctl(*(("disable", "--now") if then == "disable" else (then,)), UNIT)
        except ReleaseError:
            pass

    def _systemctl(self, *args: str) -> None:
        """systemctl's act on Mosquitto's unit. Debian's package has a SysV script too, which
        ``enable`` would link in /etc/rc?.d (read-only to the helper): systemd alone starts it here."""
        try:
            done = subprocess.run([*self.systemctl, *args], capture_output=True, text=True, timeout=CALL_S, check=False,
                                  env={**os.environ, "SYSTEMCTL_SKIP_SYSV": "1"})
        except subprocess.TimeoutExpired:
            raise ReleaseError(N_("systemctl {act} did not answer within {seconds} s"), act=args[0],
                               seconds=round(CALL_S)) from None
        if done.returncode != 0:
            raise ReleaseError(N_("systemctl {act} {unit} failed: {error}"), act=args[0], unit=UNIT,
                               error=_last_line(done.stderr) or f"exit {done.returncode}")

    def _answers(self) -> None:
        """Mosquitto running, and answering on this machine over TLS with the certificate of the
        table's CA for loopback's name, within ``ANSWER_S``; ReleaseError saying why not."""
        context = ssl.create_default_context(cafile=str(self.etc / CA_CERT))
        deadline, error = time.monotonic() + ANSWER_S, ""
        while time.monotonic() < deadline:
            active = subprocess.run([*self.systemctl, "is-active", UNIT], capture_output=True, text=True,
                                    timeout=CALL_S, check=False)
            if active.returncode != 0:
                error = f"{UNIT} is {active.stdout.strip() or 'not active'}"
            else:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=2) as raw, \
                            context.wrap_socket(raw, server_hostname="localhost"):
                        return
                except (OSError, ssl.SSLError) as e:
                    error = str(e) or type(e).__name__
            time.sleep(0.3)
        raise ReleaseError(N_("Mosquitto does not answer over TLS on port {port} ({error})"), port=self.port,
                           error=error[:200])


def check_league(request: dict[str, Any]) -> None:
    """A league to join (``Broker.join_league``'s, and the staff page's request for it) parsed into
    its kinds, ReleaseError saying what is wrong, never repeating the password: the league's and
    the café's names each one level of its topics, the league's address and port, the café's
    password in the league, the league's CA as a certificate in PEM."""
    _level(request["league"], N_("the league's name"))
    _level(request["cafe"], N_("a café's name in the league"))
    if (problem := address_problem(request["address"])) is not None:
        raise ReleaseError(problem)
    port, ca = request["port"], request["ca"]
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise ReleaseError(N_("the league's port is a whole number from 1 to 65535"))
    league_password(request["password"])
    if not isinstance(ca, str) or not ca.lstrip().startswith("-----BEGIN CERTIFICATE-----") or len(ca) > CA_MOST:
        raise ReleaseError(N_("the league's CA is a certificate in PEM (-----BEGIN CERTIFICATE-----)"))


def reached(address: str, port: int, ca: str) -> None:
    """The league's broker answering at ``address``:``port`` over TLS with a certificate of the
    league's CA (``ca``, its PEM) for ``address``, as the bridge checks it; ReleaseError saying
    which is wrong: the address (nothing answers there) or the CA (another certificate)."""
    try:
        context = ssl.create_default_context(cadata=ca)
    except (ssl.SSLError, ValueError):
        raise ReleaseError(N_("the league's CA is a certificate in PEM (-----BEGIN CERTIFICATE-----)")) from None
    try:
        with socket.create_connection((address, port), timeout=REACH_S) as raw, \
                context.wrap_socket(raw, server_hostname=address):
            return
    except ssl.SSLCertVerificationError as e:
        raise ReleaseError(N_("the league's broker at {address}:{port} does not show a certificate of the league's CA "
                              "for that address ({error}): check the CA and the address its organiser gave"),
                           address=address, port=port, error=(e.verify_message or str(e))[:200]) from None
    except (OSError, ssl.SSLError) as e:
        raise ReleaseError(N_("the league's broker does not answer at {address}:{port} ({error}): check the address and "
                              "port its organiser gave"), address=address, port=port,
                           error=(getattr(e, "strerror", None) or str(e) or type(e).__name__)[:200]) from None


def league_password(password: object) -> str:
    """``password`` if it can be a café's password in the league (typed by its owner: it goes into
    the bridge's file); ReleaseError saying what it is, never repeating it."""
    if not isinstance(password, str) or not 0 < len(password) <= PASSWORD_MOST or not password.isascii() \
            or not password.isprintable() or " " in password:
        raise ReleaseError(N_("the café's password in the league is 1 to {most} ASCII letters, digits and signs, "
                              "with no space"), most=PASSWORD_MOST)
    return password


def league_cafes(league: object, cafes: object, host: object = None) -> list[str]:
    """The names of the league's cafés (``cafes``' keys: each a user of its broker, its bridge
    logging in as the café), once the league's name and each café's are one level of its topics;
    ``host``, the café whose broker hosts it, is none of them (its tables send there, with no
    password). ReleaseError naming the first that is not of its kind."""
    _level(league, N_("the league's name"))
    if not isinstance(cafes, dict) or not 0 < len(cafes) <= MOST_TABLES:
        raise ReleaseError(N_("a league has 1 to {most} other cafés, each named once"), most=MOST_TABLES)
    names = [_level(name, N_("a café's name in the league")) for name in cafes]
    if host is not None and _level(host, N_("this café's name in the league")) in names:
        raise ReleaseError(N_("this café's name in the league is the league's host's: not one of the other cafés"))
    return names


def league_users(cafes: Mapping[str, object], page: object) -> dict[str, str]:
    """The league broker's users, its cafés (named as ``league_cafes`` checks) and the organiser's
    page, with their passwords' hashes; ReleaseError naming the first whose hash is none."""
    users = {**cafes, ORGANISER: page}
    for name, hashed in users.items():
        if not (isinstance(hashed, str) and PASSWORD_HASH.fullmatch(hashed)):
            raise ReleaseError(N_("the password of {name} is not given as Mosquitto's hash ($7$...)"),
                               name=repr(name[:USER_BYTES]))
    return {name: str(hashed) for name, hashed in users.items()}


def check_host(request: dict[str, Any]) -> None:
    """A league to host on the café's broker (``Broker.host_league_here``'s, and the staff page's
    request for it) parsed into its kinds: its cafés and this café's name in it (``league_cafes``),
    each café's and the page's password as Mosquitto's hash."""
    league_cafes(request["league"], request["cafes"], request["cafe"])
    league_users(request["cafes"], request["page"])


def _level(name: object, what: str) -> str:
    """``name`` if it is one level of the league's topics and a user of its broker (``is_user``),
    and not the organiser's; ReleaseError naming ``what`` otherwise."""
    if not is_user(name) or name == ORGANISER:
        raise ReleaseError(N_("{what} is 1 to 64 bytes with no '/', '+', '#', ':', space or invisible character, and "
                              "not 'league'"), what=what)
    return str(name)


def cafe_acl(league: str, cafe: str) -> str:
    """What the café's ACL adds for its league: a table sends the league only the nights it hosted,
    under its own name, and every table reads the season (the bridge brings it down)."""
    return (f"\n# The league {league}, as the café {cafe} (issue 64; written by the root helper when the owner\n"
            "# joined it): a table sends the league the nights it hosted, under its own name alone; every\n"
            "# table reads the league's season, which the bridge brings down.\n"
            f"pattern write league/{league}/cafes/{cafe}/nights/%u/+\n"
            f"pattern read league/{league}/season\n\n"
            "# The root helper, while it checks that the bridge linked (its password only then).\n"
            f"user {CHECKER}\n"
            f"topic read {STATE}\n")


def league_acl(league: str, cafes: list[str], host: str | None = None) -> str:
    """The league broker's ACL: each café (its bridge logs in as the café) writes only under its own
    prefix and reads the season; the organiser's page reads every café's nights and writes the
    season. ``host``: the café whose broker this is, whose tables' patterns (pi-table.acl,
    ``cafe_acl``) apply to every user: each other café is denied the café's own topics and its
    prefix in the league (a deny is checked before anything that grants)."""
    text = ("# Who may do what on the league's broker (issue 64), written by pi-table's root helper.\n"
            "# Each café's bridge logs in with the café's name as its user: it writes its own nights\n"
            "# alone, whatever a table of it sends, and reads the season.\n")
    theirs = "" if host is None else "topic deny pi-table/#\n"  # the café's own tables' topics
    for cafe in cafes:
        denied = "" if host is None else f"{theirs}topic deny league/{league}/cafes/{host}/#\n"
        text += (f"user {cafe}\n{denied}topic write league/{league}/cafes/{cafe}/#\n"
                 f"topic read league/{league}/season\n\n")
    return (text + "# The league's page: every café's nights, and the season it makes of them.\n"
            f"user {ORGANISER}\n{theirs}"
            f"topic read league/{league}/cafes/#\n"
            f"topic write league/{league}/season\n")


def bridge_conf(league: str, cafe: str, address: str, port: int, password: str, ca: Path | None) -> str:
    """Mosquitto's bridge from the café's broker to the league's: over TLS checked with the league's
    CA, as the café; only the league's topics, the café's nights up and the season down, at QoS 1
    in a session the league keeps (``cleansession false``) and the café's broker persists, so a
    night closed while the link is down goes up when it returns, in order, once. ``ca`` None: no
    TLS, for the league benchmark's brokers on loopback alone (``join_league`` always gives one)."""
    prefix = f"league/{league}/"
    tls = "" if ca is None else f"bridge_cafile {ca}\nbridge_tls_version tlsv1.2\nbridge_insecure false\n"
    return (f"# The café's bridge to the league {league} (issue 64): written by pi-table's root helper.\n"
            f"connection {LINK}\n"
            f"address {address}:{port}\n"
            f"remote_username {cafe}\n"
            f"remote_password {password}\n"
            f"remote_clientid {cafe}\n"
            "cleansession false\n"
            f"{tls}"
            "notifications true\n"
            "notifications_local_only true\n"
            f"notification_topic {STATE}\n"
            "start_type automatic\n"
            "restart_timeout 1 30\n"
            "keepalive_interval 30\n"
            f"topic cafes/{cafe}/nights/# out 1 {prefix} {prefix}\n"
            f"topic season in 1 {prefix} {prefix}\n")


def publish_empty(port: int, cafile: Path, user: str, password: str, topics: list[str]) -> None:
    """An empty retained message on each of ``topics`` (MQTT 3.1.1, QoS 1: each acknowledged), as
    ``user`` over TLS on this machine's ``port`` checked with ``cafile`` (``_session``); ReleaseError
    saying why not. The standard library's own: the root helper runs on the system's Python, without paho."""
    def empty(link: ssl.SSLSocket) -> bool:
        for number, name in enumerate(topics, 1):
            link.sendall(_packet(0x33, _text(name) + number.to_bytes(2, "big")))  # retained, QoS 1, empty
            if _received(link) != (0x40, number.to_bytes(2, "big")):
                raise OSError(f"{name} was not acknowledged")  # caught by _session()'s try, which tries again
        return True

    if (error := _session(port, cafile, user, password, time.monotonic() + ANSWER_S, empty)) is not None:
        raise ReleaseError(N_("Mosquitto did not take the empty messages on port {port} ({error})"), port=port,
                           error=error[:200])


def read_state(port: int, cafile: Path, user: str, password: str, topic: str, seconds: float) -> bytes:
    """The message on ``topic`` (retained, QoS 0) once it is b"1", or the last one heard (b"" for
    none) after ``seconds``: read as ``user`` over TLS on this machine's ``port`` checked with
    ``cafile`` (``_session``)."""
    deadline, last = time.monotonic() + seconds, b""

    def heard(link: ssl.SSLSocket) -> bool:
        nonlocal last
        link.sendall(_packet(0x82, (1).to_bytes(2, "big") + _text(topic) + b"\x00"))
        while time.monotonic() < deadline:
            link.settimeout(max(0.1, min(2.0, deadline - time.monotonic())))
            try:
                kind, body = _received(link)
            except TimeoutError:
                continue
            if kind >> 4 == 3:  # a PUBLISH at QoS 0: its topic, then its payload
                size = int.from_bytes(body[:2], "big")
                if body[2:2 + size].decode("utf-8", "replace") == topic:
                    last = body[2 + size:]
                    if last == b"1":
                        return True
        return False

    _session(port, cafile, user, password, deadline, heard)
    return last


def _session(port: int, cafile: Path, user: str, password: str, deadline: float,
             act: Callable[[ssl.SSLSocket], bool]) -> str | None:
    """``act`` done in an MQTT 3.1.1 session as ``user`` over TLS on this machine's ``port`` checked
    with ``cafile``, connected again until ``act`` says it is done or ``deadline`` (monotonic) passes:
    the broker may not have read ``user``'s password yet, or may be restarting. None once done, else
    the last reason it was not."""
    context = ssl.create_default_context(cafile=str(cafile))
    error = "no answer"
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as raw, \
                    context.wrap_socket(raw, server_hostname="localhost") as link:
                link.sendall(_packet(0x10, _text("MQTT") + bytes([4, 0xC2]) + (30).to_bytes(2, "big")
                                     + _text(f"pi-table-helper-{secrets.token_hex(4)}") + _text(user) + _text(password)))
                kind, body = _received(link)
                if kind != 0x20 or len(body) != 2:
                    raise OSError("the broker did not answer as MQTT does")
                if body[1] != 0:  # its password not read yet: refused, for now
                    error = f"the broker refused {user} (CONNACK {body[1]})"
                elif act(link):
                    link.sendall(b"\xe0\x00")  # DISCONNECT: no last will
                    return None
        except (OSError, ssl.SSLError) as e:
            error = str(e) or type(e).__name__
        time.sleep(0.2)
    return error


def _text(text: str) -> bytes:
    """An MQTT string: its UTF-8 length in two bytes, then the bytes."""
    data = text.encode("utf-8")
    return len(data).to_bytes(2, "big") + data


def _packet(kind: int, body: bytes) -> bytes:
    """An MQTT packet: its first byte, the body's length in MQTT's variable-length form, the body."""
    length, size = b"", len(body)
    while True:
        size, digit = divmod(size, 128)
        length += bytes([digit | (0x80 if size else 0)])
        if not size:
            return bytes([kind]) + length + body


def _received(link: ssl.SSLSocket) -> tuple[int, bytes]:
    """The next packet from the broker: its first byte, and its body."""
    kind, size, shift = _exactly(link, 1)[0], 0, 0
    while True:
        digit = _exactly(link, 1)[0]
        size |= (digit & 0x7F) << shift
        shift += 7
        if not digit & 0x80 or shift > 21:
            return kind, _exactly(link, size)


def _exactly(link: ssl.SSLSocket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = link.recv(size - len(data))
        if not chunk:
            raise OSError("the broker closed the connection")  # caught by _session()'s try, which tries again
        data += chunk
    return data


def _said(error: ReleaseError | OSError) -> ReleaseError:
    if isinstance(error, ReleaseError):
        return error
    return ReleaseError(N_("the broker's files cannot be written ({error})"), error=error.strerror or str(error))


def _openssl(*args: str) -> None:
    try:
        done = subprocess.run(["openssl", *args], capture_output=True, text=True, timeout=OPENSSL_S, check=False)
    except FileNotFoundError:
        raise ReleaseError(N_("openssl is missing, which makes the broker's certificate: install openssl")) from None
    except subprocess.TimeoutExpired:
        raise ReleaseError(N_("openssl did not answer within {seconds} s"), seconds=round(OPENSSL_S)) from None
    if done.returncode != 0:
        raise ReleaseError(N_("openssl could not make the broker's certificate: {error}"),
                           error=_last_line(done.stderr) or f"exit {done.returncode}")


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""
