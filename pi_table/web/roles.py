"""Who may do what on the staff page: the staff, with the PIN, play and keep the table from day to
day; the owner, with a passphrase of their own, also does what could take the table, its
credentials or its files: updates, restores, the PIN's reset, the fleet's credentials and the
files the table reads, and power.

This module is the one list of it. Every route under ``/staff/api/`` is in ``ROUTES`` with the
role it needs, and the staff page's checks (``StaffPage.api``) ask it of every request; a route
it does not name stops the page from starting (``unnamed``), so none can land unclassified. A
configuration change needs the owner when one of its keys does: the settings' form says which
(its field's ``owner``, from the key's kind in ``config.schema``: a key that names a device, a
file, a folder or a host is the owner's); a key the form does not know, no key of the schema's,
goes to the checker, which refuses it by name.

The owner's passphrase is kept as the PIN is (a salted scrypt hash) in ``owner.pass`` beside it
(``pi-table set-owner-passphrase`` writes it). A staff session that gives it (``Owner.step_up``,
its tries limited as logins are, by a door of its own) acts as the owner for ``OWNER_S``; the
PIN's reset, which has no session, takes it with the code from the table's screen.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from aiohttp import web

from ..engine.errors import Refusal
from .auth import Door, Gate, KeptSecret, Refused, Session, Throttle, keep_secret

OWNER_FILE = "owner.pass"
OWNER_COOKIE = "pt_owner_device"  # a phone that has given the owner's passphrase before
MIN_PASSPHRASE = 10  # characters
OWNER_S = 600.0  # how long a session acts as the owner once it gave the passphrase


class Role(enum.Enum):
    STAFF = "staff"
    OWNER = "owner"


STAFF, OWNER = Role.STAFF, Role.OWNER
ROUTES: dict[tuple[str, str], Role] = {
    # the game and the table
    ("GET", "/staff/api/table"): STAFF,
    ("POST", "/staff/api/new-game"): STAFF,
    ("POST", "/staff/api/undo"): STAFF,
    ("POST", "/staff/api/end-game"): STAFF,
    ("GET", "/staff/api/history"): STAFF,
    ("GET", "/staff/api/history.csv"): STAFF,
    ("GET", "/staff/api/config"): STAFF,
    ("POST", "/staff/api/config"): STAFF,  # but the owner's keys (``owners_keys``)
    ("POST", "/staff/api/config/discard"): OWNER,  # a refused settings file replaced by the last good one
    ("POST", "/staff/api/restart"): STAFF,
    ("POST", "/staff/api/logout"): STAFF,
    ("GET", "/staff/api/owner"): STAFF,  # whether this session acts as the owner
    ("POST", "/staff/api/owner"): STAFF,  # give the passphrase, or stop acting as the owner
    ("*", "/staff/api/{rest}"): STAFF,  # any other path: 404
    # the console
    ("GET", "/staff/api/health"): STAFF,
    ("GET", "/staff/api/log"): STAFF,
    ("GET", "/staff/api/log.txt"): STAFF,
    ("POST", "/staff/api/pin"): STAFF,  # with the PIN it replaces
    ("POST", "/staff/api/owner/passphrase"): STAFF,  # with the owner's passphrase it replaces
    ("POST", "/staff/api/owner/reset"): STAFF,  # with the code on the table's own screen
    ("GET", "/staff/api/backup"): OWNER,  # the settings whole: a broker's password written in its URL too
    ("GET", "/staff/api/backups"): OWNER,  # the nightly backups, to restore: what each holds
    ("GET", "/staff/api/selftest"): STAFF,
    ("POST", "/staff/api/selftest"): STAFF,
    ("GET", "/staff/api/tune"): STAFF,
    ("POST", "/staff/api/tune"): STAFF,
    ("POST", "/staff/api/power"): OWNER,
    ("POST", "/staff/api/restore"): OWNER,
    ("GET", "/staff/api/update"): OWNER,
    ("POST", "/staff/api/update"): OWNER,
    ("GET", "/staff/api/wifi"): STAFF,  # the network, the networks in reach, the last Wi-Fi act
    ("POST", "/staff/api/wifi"): OWNER,  # a Wi-Fi joined: the table may leave the network the staff reach it on
    ("GET", "/staff/api/security"): STAFF,  # the last security updates, what changed, a reboot due
    ("POST", "/staff/api/security"): OWNER,  # a run now: the table may restart on it
    ("GET", "/staff/api/network"): STAFF,  # the host name and addresses; a change on trial kept when reached
    ("POST", "/staff/api/network"): OWNER,  # a fixed address or a host name: the table may leave the staff's reach
    ("GET", "/staff/api/keys"): STAFF,  # the release keys' names and fingerprints: public keys are public
    ("POST", "/staff/api/keys"): OWNER,  # a release key added or revoked: which updates the table installs
    ("GET", "/staff/api/files"): OWNER,  # the owner's files (web.files): the certificate, the broker, blocked words
    ("POST", "/staff/api/files/{kind}"): OWNER,
    # a game night
    ("GET", "/staff/api/night"): STAFF,
    ("POST", "/staff/api/night/open"): STAFF,
    ("POST", "/staff/api/night/join"): STAFF,
    ("POST", "/staff/api/night/approve"): STAFF,
    ("POST", "/staff/api/night/remove"): STAFF,
    ("POST", "/staff/api/night/withdraw"): STAFF,  # written in the night's history with who and when
    ("POST", "/staff/api/night/reinstate"): STAFF,
    ("POST", "/staff/api/night/rest"): STAFF,  # a bye a team asked for the next round: in the history, who and when
    ("POST", "/staff/api/night/unrest"): STAFF,
    ("POST", "/staff/api/night/result"): STAFF,  # a result entered or corrected: in the history, who and when
    ("POST", "/staff/api/night/accept"): STAFF,  # with the code on the host's screen: the staff see both tables
    ("POST", "/staff/api/night/leave"): STAFF,
    ("POST", "/staff/api/night/propose"): STAFF,
    ("POST", "/staff/api/night/swap"): STAFF,
    ("POST", "/staff/api/night/pair"): STAFF,  # the next round by hand: a proposal, warned of rematches and colours
    ("POST", "/staff/api/night/confirm"): STAFF,
    ("POST", "/staff/api/night/close"): STAFF,
    ("POST", "/staff/api/night/unconfirm"): STAFF,  # the last round back to a proposal: in the history, who and when
    ("GET", "/staff/api/night/{id}/kept"): STAFF,  # a night kept, closed: its rounds and results, to correct
    ("POST", "/staff/api/night/{id}/result"): STAFF,  # a closed night's result corrected: in its history, who and when
    ("GET", "/staff/api/night/{id}.csv"): STAFF,
    ("GET", "/staff/api/night/{id}.xlsx"): STAFF,  # the night as a workbook, a sheet a table
    ("GET", "/staff/api/night/{id}/{table}.csv"): STAFF,  # one of its tables (standings, rounds, games), a CSV of its own
    ("GET", "/staff/api/night/{id}.trf"): STAFF,
    ("GET", "/staff/api/night/{id}/print"): STAFF,
    # with no session: the code on the table's screen and the owner's passphrase in its body
    ("POST", "/staff/recover"): OWNER,
}
"""Every staff action by its method and route (aiohttp's canonical path), and the role it needs."""

def role(method: str, route: web.AbstractRoute) -> Role | None:
    """The role a request by ``method`` on ``route`` needs (a HEAD is a GET); None for one unnamed."""
    path = route.resource.canonical if route.resource is not None else ""
    method = "GET" if method == "HEAD" else method
    return ROUTES.get((method, path), ROUTES.get(("*", path)))


def unnamed(app: web.Application) -> list[str]:
    """The staff actions of ``app`` that ``ROUTES`` does not name."""
    return [f"{route.method} {route.resource.canonical}" for route in app.router.routes()
            if route.resource is not None and route.resource.canonical.startswith("/staff/api/")
            and role(route.method, route) is None]


def owners_keys(keys: Iterable[str], form: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The ``keys`` of a configuration change that need the owner, by the settings' ``form``
    (each key's field, which the schema makes): those that name something."""
    return [key for key in keys if form.get(key, {}).get("owner", False)]


def set_passphrase(folder: Path, passphrase: str) -> Path:
    """Keep ``passphrase``'s hash in ``folder/owner.pass`` (0600); a Refusal when it is too short."""
    if len(passphrase) < MIN_PASSPHRASE:
        raise Refusal("the owner's passphrase has at least {least} characters, not {length}", least=MIN_PASSPHRASE,
                      length=len(passphrase))
    return keep_secret(folder / OWNER_FILE, passphrase)


class Owner:
    """The owner's passphrase for the staff page whose way in is ``gate``, kept in ``folder``: a
    door of its own (tries counted as logins are, ``per_address`` and ``overall`` a minute; the
    checks' turns and the device key the gate's), and the sessions that gave it acting as the
    owner for ``OWNER_S`` on ``clock``."""

    def __init__(self, folder: Path | None, gate: Gate, per_address: int, overall: int,
                 clock: Callable[[], float]) -> None:
        self.clock = clock
        self.secret = KeptSecret(None if folder is None else folder / OWNER_FILE, "the owner's passphrase")
        self.door = Door("owner", self.secret, OWNER_COOKIE, gate.path, Throttle(per_address, overall), clock,
                         gate.door.key, gate.turns)

    def left_s(self, session: Session) -> float:
        """How long ``session`` still acts as the owner (0: it does not)."""
        return max(0.0, session.owner - self.clock()) if self.secret() is not None else 0.0

    async def step_up(self, request: web.Request, session: Session, tried: object) -> Refused | None:
        """``session`` acts as the owner for ``OWNER_S`` if ``tried`` is the passphrase; why not, if not."""
        refused = await self.door.check(request, tried)
        if refused is None:
            session.owner = self.clock() + OWNER_S
        return refused

    def step_down(self, session: Session) -> None:
        session.owner = 0.0
