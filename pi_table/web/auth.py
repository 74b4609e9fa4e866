"""The way in to a page behind a secret: the staff page's PIN, the fleet dashboard's password.

The secret is kept as a salted scrypt hash (``hash_secret``) in a file the service alone reads.
A check of it takes a core for ~50 ms and 16 MiB, so it runs in a worker thread, never on the
page's loop, ``CHECKS_AT_ONCE`` at most at a time, a few more waiting their turn briefly; any
more are told at once to try again (``Why.BUSY``, not counted against them), so a flood of
logins queues no work without end.

Tries are counted over the last minute per address and, where the page says, in all; a try the
secret turns down stays counted, one it lets in forgets its address's. A browser that has
logged in before carries a device cookie, which only the secret signs, and is counted on its
own: guesses from many addresses (which the overall limit stops) or from the owner's own
address (a shared router, a proxy) do not lock its owner out.

A session is a random cookie (HttpOnly, SameSite=Strict, Secure over https), kept only as its
hash, with a CSRF token of its own. It lasts ``unused_s`` from its last use, and ends when the
secret changes; given a file, the sessions are kept in it (0600), so a restart logs nobody out.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import hmac
import json
import logging
import math
import os
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from ..files import write_private

log = logging.getLogger("pi_table.web.auth")
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # 16 MiB of memory a try; about 0.1 s on a Pi 4
SALT_BYTES = 16
CHECKS_AT_ONCE = max(1, (os.cpu_count() or 2) // 2)  # secret checks running at once
CHECK_WAITERS = 4 * CHECKS_AT_ONCE  # logins that may wait for a check; any more are told at once to try again
CHECK_WAIT_S = 0.5  # how long one waits before it is told so
WINDOW_S = 60.0  # tries are counted over this long
KEPT = 10_000  # addresses and devices whose tries are counted, before those with none recent are forgotten
MAX_SESSIONS = 16  # the least recently used goes when a new one would make more
RENEW_S = 60.0  # a session's last use is written down at most this often
DEVICE_S = 365 * 24 * 3600  # a device cookie's life


# --- the secret ---------------------------------------------------------------------------


def hash_secret(secret: str, salt: bytes | None = None) -> str:
    """``scrypt$N$R$P$SALT$HASH`` (hex): what a secret's file holds."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def secret_matches(stored: str, secret: str) -> bool:
    """Whether ``secret`` is the one ``stored`` (``hash_secret``'s text) was made from."""
    try:
        kind, n, r, p, salt, digest = stored.strip().split("$")
        if kind != "scrypt":
            return False
        tried = hashlib.scrypt(secret.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                               dklen=len(bytes.fromhex(digest)), maxmem=256 * 1024 * 1024)
    except ValueError:
        return False
    return hmac.compare_digest(tried, bytes.fromhex(digest))


def _hashed(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- the tries ----------------------------------------------------------------------------


class Throttle:
    """Logins tried in the last ``WINDOW_S``: ``per_address`` from one address (or one known
    device) and, unless None, ``overall`` from every address together (a known device's are
    not among them)."""

    def __init__(self, per_address: int, overall: int | None = None) -> None:
        self.per_address, self.overall = per_address, overall
        self._everyone: deque[float] = deque()
        self._by: dict[str, deque[float]] = {}  # by address, or "device NAME"

    def wait(self, who: str, known: bool, now: float) -> float:
        """Seconds until ``who`` may try again; 0 when it may now."""
        if len(self._by) > KEPT:
            self._by = {name: tries for name, tries in self._by.items() if tries and now - tries[-1] < WINDOW_S}
        limits: list[tuple[deque[float] | None, int]] = [(self._by.get(who), self.per_address)]
        if not known and self.overall is not None:
            limits.append((self._everyone, self.overall))
        waits = []
        for tries, most in limits:
            while tries and tries[0] <= now - WINDOW_S:
                tries.popleft()
            if tries is not None and len(tries) >= most:
                waits.append(tries[0] + WINDOW_S - now)
        return max(waits, default=0.0)

    def tried(self, who: str, known: bool, now: float) -> float:
        """Count a try by ``who`` now, unless it must wait: the seconds it must, else 0."""
        wait = self.wait(who, known, now)
        if not wait:
            self._by.setdefault(who, deque()).append(now)
            if not known:
                self._everyone.append(now)
        return wait

    def passed(self, who: str) -> None:
        """``who`` knew the secret: its tries are forgotten (not those counted in all)."""
        self._by.pop(who, None)


# --- the sessions -------------------------------------------------------------------------


@dataclass
class Session:
    csrf: str  # the token the page's own requests carry
    secret: str  # the hash of the kept secret's hash it logged in with: a new secret ends it
    used: float  # the clock's time of its last use
    kept: float  # its last use as written down


class Sessions:
    """The sessions by their cookie's hash, each ending ``unused_s`` after its last use; kept in
    ``file`` (0600) when one is given, read from it at the start. ``clock`` is a wall clock
    when they are kept (they outlive a restart)."""

    def __init__(self, unused_s: float, clock: Callable[[], float], file: Path | None = None) -> None:
        self.unused_s, self.clock, self.file = unused_s, clock, file
        self._by_hash = self._load()

    def open(self, stored: str) -> tuple[str, Session]:
        """A new session, logged in with the secret ``stored``: its cookie, and itself."""
        cookie, now = secrets.token_urlsafe(32), self.clock()
        session = Session(secrets.token_urlsafe(32), _hashed(stored), now, now)
        self._by_hash[_hashed(cookie)] = session
        while len(self._by_hash) > MAX_SESSIONS:
            del self._by_hash[min(self._by_hash, key=lambda key: self._by_hash[key].used)]
        self._keep()
        return cookie, session

    def find(self, cookie: str) -> Session | None:
        """The cookie's session, alive or not."""
        return self._by_hash.get(_hashed(cookie))

    def alive(self, session: Session, stored: str | None) -> bool:
        """Whether ``session`` was used within ``unused_s`` and logged in with the secret ``stored``."""
        return self.clock() - session.used <= self.unused_s and stored is not None \
            and hmac.compare_digest(session.secret, _hashed(stored))

    def used(self, session: Session) -> None:
        """A use that keeps ``session`` alive (written down at most every ``RENEW_S``)."""
        now = self.clock()
        session.used = now
        if now - session.kept > RENEW_S:
            session.kept = now
            self._keep()

    def carry(self, session: Session, stored: str) -> None:
        """Keep ``session`` alive on the new secret ``stored``: the one that changed it (every
        other session ends with the old secret)."""
        session.secret = _hashed(stored)
        self._keep()

    def end(self, cookie: str) -> None:
        self._by_hash.pop(_hashed(cookie), None)
        self._keep()

    def _load(self) -> dict[str, Session]:
        if self.file is None:
            return {}
        try:
            kept = json.loads(self.file.read_text(encoding="utf-8"))
            sessions = {key: Session(csrf, secret, used, used) for key, (csrf, secret, used) in kept.items()}
            if not all(isinstance(key, str) and isinstance(s.csrf, str) and isinstance(s.secret, str)
                       and isinstance(s.used, (int, float)) for key, s in sessions.items()):
                raise ValueError("expected {HASH: [CSRF, SECRET, TIME], ...}")
            return sessions
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, TypeError, AttributeError) as e:
            log.warning("cannot read the sessions in %s (%s): everyone logs in again", self.file, e)
            return {}

    def _keep(self) -> None:
        if self.file is None:
            return
        now = self.clock()
        kept = {key: (s.csrf, s.secret, s.kept) for key, s in self._by_hash.items() if now - s.used <= self.unused_s}
        try:
            write_private(self.file, json.dumps(kept).encode())
        except OSError as e:
            log.warning("cannot keep the sessions in %s (%s): a restart logs everyone out", self.file, e.strerror or e)


# --- the gate -----------------------------------------------------------------------------


class Why(enum.Enum):
    """Why a request is not let in."""

    NO_SESSION = "no session"  # none, or one that is not known
    EXPIRED = "expired"  # a session that has ended: unused too long, or the secret changed
    NO_TOKEN = "no token"  # the session's CSRF token is missing or wrong
    NO_SECRET = "no secret"  # none is set: nobody gets in
    TOO_MANY = "too many"  # too many tries: ``wait_s`` says how long to wait
    BUSY = "busy"  # every check taken and the queue for them full: try again in a moment
    WRONG = "wrong"  # not the secret


STATUS = {Why.NO_SESSION: 401, Why.EXPIRED: 401, Why.NO_TOKEN: 403, Why.NO_SECRET: 409, Why.TOO_MANY: 429,
          Why.BUSY: 429, Why.WRONG: 401}
"""The HTTP status each refusal is answered with."""


@dataclass(frozen=True)
class Refused:
    why: Why
    wait_s: int = 0  # TOO_MANY and BUSY: seconds before a try is worth making again

    @property
    def status(self) -> int:
        return STATUS[self.why]

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.wait_s)} if self.wait_s else {}


@dataclass(frozen=True)
class Entered:
    """A login the secret let in: its session, and the cookies that carry it and the device."""

    session: Session
    cookie: str
    device: str


class Gate:
    """The way in to the pages under ``path``: the secret as ``secret()`` gives it now (its
    hash, or None when none is set), ``per_address`` and ``overall`` tries a minute
    (``Throttle``), sessions in the cookie ``cookie`` (``cookie_s``: its life in the browser,
    None for the browser's session) that last ``unused_s`` unused and are kept in ``file``,
    each with a CSRF token its requests carry in the header ``csrf_header`` (None: not asked
    for). ``clock`` times the tries and the sessions (a wall clock when they are kept: they
    outlive a restart); ``name`` tells this gate's device cookies from another's. A gate serves
    one page, on one event loop."""

    def __init__(self, name: str, secret: Callable[[], str | None], cookie: str, path: str, per_address: int,
                 overall: int | None, unused_s: float, clock: Callable[[], float] = time.time,
                 file: Path | None = None, csrf_header: str | None = None, cookie_s: int | None = None) -> None:
        self.name, self.secret, self.cookie, self.path, self.clock = name, secret, cookie, path, clock
        self.device_cookie = f"{cookie}_device"
        self.csrf_header, self.cookie_s = csrf_header, cookie_s
        self.throttle = Throttle(per_address, overall)
        self.sessions = Sessions(unused_s, clock, file)
        self._turns = asyncio.Semaphore(CHECKS_AT_ONCE)  # the checks running
        self._waiting = 0  # logins waiting for a turn

    async def log_in(self, request: web.Request, tried: object) -> Entered | Refused:
        """Whether ``tried`` (what the login sent as the secret: anything) is the secret; a
        new session when it is."""
        refused = await self.check(request, tried)
        return refused if refused is not None else self.enter(request)

    async def check(self, request: web.Request, tried: object,
                    matches: Callable[[str, str], bool] | None = None) -> Refused | None:
        """Whether ``tried`` is the secret, counted and limited as a login is (a change of the
        secret asks for the old one so: a session left open on a phone does not give it away).
        ``matches(stored, tried)`` is the test: a one-time code's (``Recovery``) instead of the secret's."""
        stored = self.secret()
        if stored is None:
            if matches is None:
                return Refused(Why.NO_SECRET)
            stored = ""  # a one-time code may set the first secret
        device = self._device(request, stored) if stored else None  # no secret has signed a device
        who, known = (f"device {device}", True) if device else (request.remote or "?", False)
        if wait := self.throttle.wait(who, known, self.clock()):
            return Refused(Why.TOO_MANY, math.ceil(wait))
        if not await self._turn():
            return Refused(Why.BUSY, 1)
        try:
            if wait := self.throttle.tried(who, known, self.clock()):  # counted by others while this one waited
                return Refused(Why.TOO_MANY, math.ceil(wait))
            right = isinstance(tried, str) and await asyncio.to_thread(matches or secret_matches, stored, tried)
        finally:
            self._turns.release()
        if not right:
            return Refused(Why.WRONG)
        self.throttle.passed(who)
        return None

    def enter(self, request: web.Request) -> Entered:
        """A new session with the secret kept now, for a request that has just shown it."""
        stored = self.secret()
        assert stored is not None  # shown by check() a moment ago
        cookie, session = self.sessions.open(stored)
        device = self._device(request, stored)
        return Entered(session, cookie, self._device_token(stored, device or secrets.token_urlsafe(16)))

    def let_in(self, request: web.Request, response: web.StreamResponse, entered: Entered) -> None:
        """Give the browser that logged in its session's cookie and its device's."""
        secure = request.secure
        response.set_cookie(self.cookie, entered.cookie, path=self.path, max_age=self.cookie_s, httponly=True,
                            samesite="Strict", secure=secure)
        response.set_cookie(self.device_cookie, entered.device, path=self.path, max_age=DEVICE_S, httponly=True,
                            samesite="Strict", secure=secure)

    def live(self, request: web.Request) -> Session | None:
        """The request's session while it is alive (asking is not a use)."""
        session = self.sessions.find(request.cookies.get(self.cookie, ""))
        return session if session is not None and self.sessions.alive(session, self.secret()) else None

    def visit(self, request: web.Request, use: bool = True) -> Session | Refused:
        """The request's session, if it is alive and (with a ``csrf_header``) the request
        carries its token; a use that keeps it alive unless ``use`` is False (the page
        refreshing itself). An ended session is forgotten."""
        cookie = request.cookies.get(self.cookie, "")
        session = self.sessions.find(cookie)
        if session is None:
            return Refused(Why.NO_SESSION)
        if not self.sessions.alive(session, self.secret()):
            self.sessions.end(cookie)
            return Refused(Why.EXPIRED)
        if self.csrf_header is not None and not hmac.compare_digest(request.headers.get(self.csrf_header, ""),
                                                                    session.csrf):
            return Refused(Why.NO_TOKEN)
        if use:
            self.sessions.used(session)
        return session

    def log_out(self, request: web.Request, response: web.StreamResponse) -> None:
        """End the request's session, and its cookie in the browser."""
        self.sessions.end(request.cookies.get(self.cookie, ""))
        response.del_cookie(self.cookie, path=self.path)

    async def _turn(self) -> bool:
        """A turn to check a secret (given back with ``_turns.release()``), or False when there
        is none to be had within ``CHECK_WAIT_S``, or already ``CHECK_WAITERS`` waiting for one."""
        if self._turns.locked() and self._waiting >= CHECK_WAITERS:
            return False
        self._waiting += 1
        try:
            async with asyncio.timeout(CHECK_WAIT_S):
                await self._turns.acquire()
        except TimeoutError:
            return False
        finally:
            self._waiting -= 1
        return True

    def _device(self, request: web.Request, stored: str) -> str | None:
        """The name of the device whose cookie the request carries, if the secret signed it."""
        token = request.cookies.get(self.device_cookie, "")
        device = token.partition(".")[0]
        return device if device and hmac.compare_digest(token, self._device_token(stored, device)) else None

    def _device_token(self, stored: str, device: str) -> str:
        """A device cookie: its random name, signed with the kept secret's hash (a new secret
        forgets every device)."""
        signature = hmac.new(stored.encode(), f"{self.name} device {device}".encode(), hashlib.sha256).hexdigest()
        return f"{device}.{signature}"


RECOVERY_S = 600.0  # a PIN reset code lasts ten minutes


class Recovery:
    """A one-time code that lets a forgotten secret be replaced by someone at the table, as a
    router's reset button does: the daemon shows it on the table's own screen (both buttons held
    while it starts), never on a page or in a report. It lasts ``RECOVERY_S`` on ``clock``, serves
    once, and is tried through ``Gate.check``, so guesses are limited as logins are."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._kept: tuple[str, float] | None = None  # the code's hash, and until when it serves

    def issue(self) -> str:
        """A new code (any earlier one is void), as two groups of four digits."""
        code = f"{secrets.randbelow(10 ** 8):08d}"
        self._kept = (_hashed(code), self.clock() + RECOVERY_S)
        return f"{code[:4]} {code[4:]}"

    @property
    def active(self) -> bool:
        return self._kept is not None and self.clock() < self._kept[1]

    def redeem(self, stored: str, tried: str) -> bool:
        """Whether ``tried`` is the code, still valid; it serves once. (``stored``, the secret
        it replaces, is ``Gate.check``'s argument and not needed here.)"""
        if not self.active:
            return False
        assert self._kept is not None  # active
        digits = "".join(tried.split())
        if not hmac.compare_digest(_hashed(digits), self._kept[0]):
            return False
        self._kept = None
        return True

    def void(self) -> None:
        self._kept = None

