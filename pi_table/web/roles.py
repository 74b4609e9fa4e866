"""Who may do what on the staff page: the staff, with the PIN, play and keep the table from day to
day; the owner, with a passphrase of their own, also does what could take the table, its
credentials or its files: updates, restores, the PIN's reset, the fleet's credentials and the
files the table reads, and power.

Every route under ``/staff/api/`` says the role it needs where it is declared, the page's own and
each section's (``staff``, ``owner`` here), and the page gathers them into one list
(``StaffPage.roles``), which its checks (``StaffPage.api``) ask of every request; a route mounted
with none stops the page from starting (``unnamed``), so none can land unclassified. A
configuration change needs the owner when one of its keys does: the settings' form says which
(its field's ``owner``, from the key's kind in ``config.schema``: a key that names a device, a
file, a folder or a host is the owner's); a key the form does not know, no key of the schema's,
goes to the checker, which refuses it by name.

The owner's passphrase is kept as the PIN is (a salted scrypt hash) in ``owner.pass`` beside it
(``pi-table set-owner-passphrase`` writes it). A staff session that gives it (``Owner.step_up``,
its tries limited as logins are, by a door of its own) acts as the owner for ``OWNER_S``, in
memory: a restart ends it, but the one an owner's act asks for (``acts``); the PIN's reset,
which has no session, takes it with the code from the table's screen.

The owner's own way back from a forgotten passphrase is the recovery code (issue 58): shown once,
on the set-up page after the passphrase is chosen (or made later by the owner), never on the
table's screen nor to the staff, and kept as the passphrase is, its hash alone, in
``owner.recovery``; tried through the owner's door, it serves once and is replaced by a new one.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from ..engine.errors import Refusal
from .auth import Door, Gate, KeptSecret, Refused, Session, Throttle, keep_secret, secret_matches

OWNER_FILE = "owner.pass"
RECOVERY_FILE = "owner.recovery"  # the recovery code's hash
BACKUP_KEY_FILE = "backup.key"  # the owner's backup key itself: the nights seal with it (``daemon.sealed``)
RECOVERY_GROUPS, RECOVERY_GROUP = 5, 4  # XXXX-XXXX-XXXX-XXXX-XXXX: 20 characters of 32, 100 bits
RECOVERY_LETTERS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's: no I, L, O or U to misread
OWNER_COOKIE = "pt_owner_device"  # a phone that has given the owner's passphrase before
MIN_PASSPHRASE = 10  # characters
OWNER_S = 600.0  # how long a session acts as the owner once it gave the passphrase


class Role(enum.Enum):
    STAFF = "staff"
    OWNER = "owner"


STAFF, OWNER = Role.STAFF, Role.OWNER


Checked = Callable[[web.Request, Session], Awaitable[web.StreamResponse]]
"""A handler behind the page's checks: it is given the request's session."""
Open = Callable[[web.Request], Awaitable[web.StreamResponse]]
"""A handler of a page anyone may open: it checks what it needs itself."""


@dataclass(frozen=True, slots=True)
class Route:
    """One route of the staff page, its own or a section's: its method and path (aiohttp's), the role
    it needs (None: anyone's),
    its handler, and whether it is behind the page's checks (a session and its CSRF token)."""

    method: str
    path: str
    role: Role | None
    handler: Checked | Open
    checked: bool


def staff(method: str, path: str, handler: Checked) -> Route:
    """A route under ``/staff/api/`` the staff's session may take."""
    return Route(method, path, STAFF, handler, True)


def owner(method: str, path: str, handler: Checked) -> Route:
    """A route under ``/staff/api/`` that needs the owner (a session that gave the passphrase lately)."""
    return Route(method, path, OWNER, handler, True)


def open_to_all(method: str, path: str, handler: Open, role: Role | None = None) -> Route:
    """A route with no session: a page any phone may open, or (``role``) one whose request carries
    what it needs itself, as the PIN's reset carries the owner's passphrase."""
    return Route(method, path, role, handler, False)


def role(roles: Mapping[tuple[str, str], Role], method: str, route: web.AbstractRoute) -> Role | None:
    """The role a request by ``method`` on ``route`` needs, by ``roles`` (the page's: each route's
    method and aiohttp's canonical path; a HEAD is a GET); None for one unnamed."""
    path = route.resource.canonical if route.resource is not None else ""
    method = "GET" if method == "HEAD" else method
    return roles.get((method, path), roles.get(("*", path)))


def unnamed(app: web.Application, roles: Mapping[tuple[str, str], Role]) -> list[str]:
    """The staff actions of ``app`` that ``roles`` does not name."""
    return [f"{route.method} {route.resource.canonical}" for route in app.router.routes()
            if route.resource is not None and route.resource.canonical.startswith("/staff/api/")
            and role(roles, route.method, route) is None]


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


def new_recovery_code(folder: Path) -> str:
    """A new recovery code for the owner, its hash kept in ``folder/owner.recovery`` (0600; any
    code before it no longer serves): the code itself, to be shown once."""
    code = owners_code()
    keep_secret(folder / RECOVERY_FILE, recovery_code(code))
    return code


def owners_code() -> str:
    """A new code for the owner to write down, as it is shown once (``XXXX-XXXX-XXXX-XXXX-XXXX``,
    100 bits): the recovery code, and the backups' key (``daemon.sealed``)."""
    code = "".join(secrets.choice(RECOVERY_LETTERS) for _ in range(RECOVERY_GROUPS * RECOVERY_GROUP))
    return "-".join(code[at:at + RECOVERY_GROUP] for at in range(0, len(code), RECOVERY_GROUP))


def recovery_code(tried: str) -> str:
    """``tried`` as the recovery code is kept: its letters alone, upper-cased (a code typed with
    spaces, dashes or in lower case is the same code)."""
    return "".join(letter for letter in tried.upper() if letter.isalnum())


class Owner:
    """The owner's passphrase for the staff page whose way in is ``gate``, kept in ``folder``: a
    door of its own (tries counted as logins are, ``per_address`` and ``overall`` a minute; the
    checks' turns and the device key the gate's), and the sessions that gave it acting as the
    owner for ``OWNER_S`` on ``clock``; the table's code the gate's (one screen shows it)."""

    def __init__(self, folder: Path | None, gate: Gate, per_address: int, overall: int,
                 clock: Callable[[], float]) -> None:
        self.clock = clock
        self.secret = KeptSecret(None if folder is None else folder / OWNER_FILE, "the owner's passphrase")
        self.recovery = KeptSecret(None if folder is None else folder / RECOVERY_FILE, "the owner's recovery code")
        self.door = Door("owner", self.secret, OWNER_COOKIE, gate.path,
                         Throttle(per_address, overall, clock, gate.door.throttle.code), gate.door.key, gate.turns)

    def left_s(self, session: Session) -> float:
        """How long ``session`` still acts as the owner (0: it does not)."""
        return max(0.0, session.owner - self.clock()) if self.secret() is not None else 0.0

    async def step_up(self, request: web.Request, session: Session, tried: object,
                      code: str | None = None) -> Refused | None:
        """``session`` acts as the owner for ``OWNER_S`` if ``tried`` is the passphrase (the
        table's ``code`` carried, as a login's); why not, if not."""
        refused = await self.door.check(request, tried, code=code)
        if refused is None:
            session.owner = self.clock() + OWNER_S
        return refused

    async def recover(self, request: web.Request, tried: object) -> Refused | None:
        """Whether ``tried`` is the owner's recovery code, tried through the owner's door (so its
        tries count as the passphrase's do); never, when no code is kept."""
        kept = self.recovery()
        return await self.door.check(request, tried, lambda _, given: kept is not None
                                     and secret_matches(kept, recovery_code(given)))

    def step_down(self, session: Session) -> None:
        session.owner = 0.0
