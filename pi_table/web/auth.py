"""The way in to a page behind a secret: the staff page's PIN and the owner's passphrase, the
fleet dashboard's password.

The secret is kept as a salted scrypt hash (``hash_secret``) in a file the service alone reads.
A hash whose parameters ask for more than this table gives a check (``well_formed``: a file
restored or edited to ask for an hour of a core) is a bad file: it lets nobody in, and no check
of it runs. A check takes a core for ~50 ms and 16 MiB, so it runs in a worker thread, never on
the page's loop, ``CHECKS_AT_ONCE`` at most at a time (``Turns``, which the doors of one page
share), a few more waiting their turn briefly; any more are told at once to try again
(``Why.BUSY``, not counted against them), so a flood of logins queues no work without end.

Tries are counted over the last minute per address and, where the page says, in all; a try the
secret turns down stays counted, one it lets in forgets its address's. A browser that has
passed a door before carries that door's device cookie, signed with a key kept beside the
secret and not with the secret, so a new PIN keeps every phone's standing; it is counted on its
own: guesses from many addresses (which the overall limit stops: every try from a browser
never seen counts in it), from the owner's own address (a shared router, a proxy) or after a
change of the secret do not lock its owner out. While the overall limit holds, browsers never
seen wait in line for its turns, those that asked least first (``Throttle``); the doors to the
owner's passphrase share one count (the staff page's and the fleet dashboard's on the table).
While someone waits in that line, the table's screen shows a code (``LineCode``): a new staff
phone that types it with the secret skips the line, with no more guesses than one address has.

A session is a random cookie (HttpOnly, SameSite=Strict, Secure over https), kept only as its
hash, with a CSRF token of its own. It lasts ``unused_s`` from its last use, and ends when the
secret changes; given a file, the sessions are kept in it (0600), so a restart logs nobody out.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import hmac
import ipaddress
import json
import logging
import math
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Middleware

from ..engine.phrase import N_, Phrase
from ..errors import PiTableError
from ..files import kept_secret, read_json, write_private

log = logging.getLogger("pi_table.web.auth")
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # 16 MiB of memory a try; about 0.1 s on a Pi 4
SALT_BYTES = 16
CHECKS_AT_ONCE = max(1, (os.cpu_count() or 2) // 2)  # secret checks running at once
CHECK_WAITERS = 4 * CHECKS_AT_ONCE  # logins that may wait for a check; any more are told at once to try again
CHECK_WAIT_S = 0.5  # how long one waits before it is told so
WINDOW_S = 60.0  # tries are counted over this long
HISTORY_S = 3600.0  # how often an address asked over this long gives its place in line for the overall budget
HISTORY_MOST = 100  # asks an address is counted for at most (a flood's are many, a phone's few)
GRACE_S = 10.0  # an address waiting in line keeps its place this long past the time it was told to come back
KEPT = 10_000  # addresses and devices whose tries are counted, before those with none recent are forgotten
MAX_SESSIONS = 16  # the least recently used goes when a new one would make more
RENEW_S = 60.0  # a session's last use is written down at most this often
DEVICE_S = 365 * 24 * 3600  # a device cookie's life
CODE_DIGITS = 6  # the table's code, typed from its screen with the secret
CODE_KEPT_S = 120.0  # it stays this long after the line was last long: a phone typing it is not cut off


# --- the secret ---------------------------------------------------------------------------


def hash_secret(secret: str, salt: bytes | None = None) -> str:
    """``scrypt$N$R$P$SALT$HASH`` (hex): what a secret's file holds."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def keep_secret(path: Path, secret: str) -> Path:
    """Keep ``secret``'s hash in ``path`` (0600, its folder 0700 if made): a secret's file."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(path, (hash_secret(secret) + "\n").encode("ascii"))
    return path


MOST_WORK = 4 * SCRYPT_N * SCRYPT_R * SCRYPT_P  # N·r·p a kept hash may ask for: four checks of ours
MOST_MEMORY = 4 * 128 * SCRYPT_R * SCRYPT_N  # bytes (128·r·N) it may ask for: 64 MiB
SALT_LENGTHS = range(8, 65)  # bytes
DIGEST_LENGTHS = range(16, 65)


def well_formed(stored: str) -> str | None:
    """Why ``stored`` (a secret's file, as ``hash_secret`` writes it) is not a hash this table
    checks, or None when it is: a scrypt hash whose work, memory, salt and digest are within
    bounds. Said without the file's text."""
    fields = stored.strip().split("$")
    if len(fields) != 6 or fields[0] != "scrypt":
        return "expected scrypt$N$R$P$SALT$HASH"
    if not all(field.isascii() and field.isdigit() and len(field) < 10 for field in fields[1:4]):
        return "N, R and P are whole numbers"
    n, r, p = (int(field) for field in fields[1:4])
    try:
        salt, digest = bytes.fromhex(fields[4]), bytes.fromhex(fields[5])
    except ValueError:
        return "the salt and the hash are hexadecimal"
    if n < 2 or n & (n - 1) or r < 1 or p < 1:
        return f"N is a power of two and R and P at least 1: found N={n}, R={r}, P={p}"
    if n * r * p > MOST_WORK or 128 * r * n > MOST_MEMORY:
        return (f"N={n}, R={r}, P={p} asks for more than a check is given: N·R·P at most {MOST_WORK}, "
                f"128·R·N at most {MOST_MEMORY} bytes")
    if len(salt) not in SALT_LENGTHS or len(digest) not in DIGEST_LENGTHS:
        return (f"a salt of {SALT_LENGTHS.start} to {SALT_LENGTHS.stop - 1} bytes and a hash of "
                f"{DIGEST_LENGTHS.start} to {DIGEST_LENGTHS.stop - 1}: found {len(salt)} and {len(digest)}")
    return None


def secret_matches(stored: str, secret: str) -> bool:
    """Whether ``secret`` is the one ``stored`` (``hash_secret``'s text) was made from; never,
    with no check run, when ``stored`` is not ``well_formed``."""
    if well_formed(stored) is not None:
        return False
    _, n, r, p, salt, digest = stored.strip().split("$")
    tried = hashlib.scrypt(secret.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                           dklen=len(bytes.fromhex(digest)), maxmem=2 * MOST_MEMORY)  # p's blocks besides
    return hmac.compare_digest(tried, bytes.fromhex(digest))


class KeptSecret:
    """The hash kept in ``path`` (``hash_secret``'s text), read each time a door asks for it:
    None when none is set, when the file cannot be read, or when it is not ``well_formed``,
    which the log tells once a file (and ``what`` it is)."""

    def __init__(self, path: Path | None, what: str) -> None:
        self.path, self.what = path, what
        self._told: str | None = None  # the bad hash the log told of last

    def __call__(self) -> str | None:
        if self.path is None:
            return None
        try:
            stored = self.path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeError) as e:
            log.warning("cannot read %s in %s (%s): it lets nobody in", self.what, self.path.parent, e)
            return None
        why = well_formed(stored) if stored else None
        if why is not None:
            if stored != self._told:
                log.error("%s in %s is not a hash this table checks (%s): it lets nobody in until it is set "
                          "again", self.what, self.path, why)
                self._told = stored
            return None
        return stored or None


def hashed(text: str) -> str:
    """``text``'s SHA-256, as a session is kept by (its cookie's, its secret's, its token's)."""
    return hashlib.sha256(text.encode()).hexdigest()


def who(role: str, device: str | None) -> str:
    """Who made a change, for a history (a night's, a league's): the ``role``, and the phone of
    the ``device`` cookie it came with, by a short name made from it (the cookie stays secret)."""
    return role if device is None else f"{role} · {hashlib.sha256(device.encode()).hexdigest()[:6]}"


def same(given: str, made: str) -> bool:
    """Whether ``given`` (what a request carries: any text) is ``made`` (a token of ours, ASCII),
    compared in constant time; text that is not ASCII is none of ours."""
    return given.isascii() and hmac.compare_digest(given, made)


# --- the tries ----------------------------------------------------------------------------


class Throttle:
    """Logins tried in the last ``WINDOW_S`` on ``clock``: ``per_address`` from one address (or one
    known device) and, unless None, ``overall`` from every address together (a known device's
    are not among them, so a phone that has logged in before is never held back by others'
    guesses, nor by its own typo past its own limit). No number of addresses gets more than
    ``overall`` checks of the secret a window from devices never seen (issue 58, 5c).

    While that budget is spent, the addresses that ask wait in line for it, those that asked
    least over the last ``HISTORY_S`` first (a flood asks again and again; a new phone, once),
    then first come: a try is let through only when the free turns outnumber the addresses ahead
    of it that still wait (each told when to come back, and out of the line ``GRACE_S`` after it
    does not), so a new staff phone during a flood is given the next turn, not the flood (5b).
    Whoever is told to wait in that line makes ``code`` (the table's, if it has one) show: a
    try that carries it is counted as a known device's (``coded``), under its own address's limit;
    a wrong one spends the code (``Door.check``), so a code gives one wrong guess at most and
    whoever read it cannot use it up for the staff (issue 74). Doors on other threads may share
    one (every door to the owner's passphrase: ``lock``)."""

    def __init__(self, per_address: int, overall: int | None = None,
                 clock: Callable[[], float] = time.monotonic, code: LineCode | None = None) -> None:
        self.per_address, self.overall, self.clock, self.code = per_address, overall, clock, code
        self.lock = threading.Lock()
        self._everyone: deque[float] = deque()
        self._by: dict[str, deque[float]] = {}  # by address, or "device NAME"
        self._history: dict[str, deque[float]] = {}  # by address: its asks over HISTORY_S, for its place in line
        self._line: dict[str, tuple[float, float]] = {}  # by address waiting: since when, and until when it is kept

    def wait(self, who: str, known: bool, now: float, coded: bool = False) -> float:
        """Seconds until ``who`` may try again; 0 when it may now. ``coded``: a try from an
        address that carries the table's code, counted as a known device's, under its address's limit."""
        with self.lock:
            return self._wait(who, known or coded, now)

    def in_line(self, who: str) -> bool:
        """Whether ``who`` waits in line for the budget of devices never seen (not for its own limit)."""
        with self.lock:
            return who in self._line

    def _wait(self, who: str, known: bool, now: float) -> float:
        if len(self._by) > KEPT:
            self._by = {name: tries for name, tries in self._by.items() if tries and now - tries[-1] < WINDOW_S}
            self._history = {name: tries for name, tries in self._history.items()
                             if tries and now - tries[-1] < HISTORY_S}
        own = _recent(self._by.get(who), now, WINDOW_S)
        if own is not None and len(own) >= self.per_address:
            if not known:
                self._asked(who, now)
            return own[0] + WINDOW_S - now
        if known or self.overall is None:
            return 0.0
        _recent(self._everyone, now, WINDOW_S)
        self._line = {name: place for name, place in self._line.items() if place[1] >= now}
        _recent(self._history.get(who), now, HISTORY_S)  # its asks this hour; the others' as their last ask left them
        mine = (len(self._history.get(who, ())), self._line[who][0] if who in self._line else now)
        ahead = sum(1 for name, (since, _) in self._line.items()
                    if (len(self._history.get(name, ())), since) < mine and name != who)
        free = self.overall - len(self._everyone)
        if free > ahead:
            return 0.0
        turn = ahead - max(free, 0)  # the tries that must leave the window before its turn
        wait = max(1.0, (self._everyone[turn] if turn < len(self._everyone) else now) + WINDOW_S - now)
        self._line[who] = (mine[1], now + wait + GRACE_S)
        self._asked(who, now)
        if self.code is not None:
            self.code.needed()
        return wait

    def _asked(self, who: str, now: float) -> None:
        """An address never seen asked (a try, or a refusal): counted for its place in line."""
        self._history.setdefault(who, deque(maxlen=HISTORY_MOST)).append(now)

    def tried(self, who: str, known: bool, now: float, coded: bool = False) -> float:
        """Count a try by ``who`` now (``coded``: as ``wait``'s), unless it must wait: the
        seconds it must, else 0."""
        with self.lock:
            known = known or coded
            wait = self._wait(who, known, now)
            if not wait:
                self._by.setdefault(who, deque()).append(now)
                self._line.pop(who, None)  # its try is counted: it waits no more (one with the code skipped the line)
                if not known:
                    self._everyone.append(now)
                    self._asked(who, now)
            return wait

    def passed(self, who: str) -> None:
        """``who`` knew the secret: its tries are forgotten (not those counted in all)."""
        with self.lock:
            self._by.pop(who, None)
            self._history.pop(who, None)


class LineCode:
    """A code of ``CODE_DIGITS`` digits the table's screen shows while someone waits in line for
    the budget of devices never seen (``Throttle``), and ``CODE_KEPT_S`` after: a staff phone that
    types it with the secret is counted as a known device, so a flood's line does not hold it up,
    as a router asks for its label's code. It is seen at the table alone: drawn from ``secrets``,
    kept in memory only (never logged, never in an answer), on ``clock``; a login that carries it
    uses it up, getting in or not (a new one is drawn): a wrong try with it spends it, so whoever
    read it over a shoulder cannot lock the staff out with it (issue 74)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self._code: str | None = None
        self._until = 0.0  # the clock's time it goes at, unless someone waits in line again

    def needed(self) -> None:
        """Someone waits in line: the code is shown (the same, or a new one once it has gone)."""
        with self.lock:
            now = self.clock()
            if self._code is None or now >= self._until:
                self._code = _drawn()
                log.warning("phones never seen wait in line to log in: the table's screen shows a code that lets "
                            "a staff phone skip the line")
            self._until = now + CODE_KEPT_S

    def shown(self) -> str | None:
        """The code the screen shows now; None while nobody has waited in line lately."""
        with self.lock:
            return self._code if self._code is not None and self.clock() < self._until else None

    def carried(self, given: str) -> bool:
        """Whether ``given`` (``code_given``'s digits) is the code shown now, compared in constant time."""
        shown = self.shown()
        return shown is not None and hmac.compare_digest(given.encode(), shown.encode())

    def spend(self, given: str) -> bool:
        """A try carries ``given``: whether it is the code shown now, which is spent at once, right
        or wrong (the screen shows a new one from now on), so no two tries share it."""
        with self.lock:
            shown = self._code if self._code is not None and self.clock() < self._until else None
            if shown is None or not hmac.compare_digest(given.encode(), shown.encode()):
                return False
            self._code = _drawn()
            return True


def _drawn() -> str:
    return f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"


CODE_IS = N_("the code on the table's screen is {digits} digits")
"""What a login is told when what it sent as the code is not one."""


class CodeRefused(PiTableError, ValueError):
    """A login's code that is not the screen's ``CODE_DIGITS`` digits; its message is ``CODE_IS``."""


def code_given(given: object) -> str | None:
    """What a login sent as the table's code (anything): None when it sent none (nothing, or an
    empty text); its ``CODE_DIGITS`` ASCII digits; CodeRefused (``CODE_IS``) for anything else."""
    if given is None or given == "":
        return None
    if not (isinstance(given, str) and len(given) == CODE_DIGITS and given.isascii() and given.isdigit()):
        raise CodeRefused(CODE_IS)
    return given


def code_notice(code: str) -> Phrase:
    """What the table's screen says while it shows ``code``: what it is for."""
    return Phrase.of("staff logging in: type {code} with the PIN", code=code)


def _recent(tries: deque[float] | None, now: float, window: float) -> deque[float] | None:
    """``tries`` (oldest first) without those older than ``window``; the same deque."""
    while tries and tries[0] <= now - window:
        tries.popleft()
    return tries


# --- the sessions -------------------------------------------------------------------------


@dataclass
class Session:
    csrf: str  # the token the page's own requests carry
    secret: str  # the hash of the kept secret's hash it logged in with: a new secret ends it
    used: float  # the clock's time of its last use
    kept: float  # its last use as written down
    owner: float = 0.0  # the clock's time until which it acts as the owner (not kept with it: web.acts)


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
        session = Session(secrets.token_urlsafe(32), hashed(stored), now, now)
        self._by_hash[hashed(cookie)] = session
        while len(self._by_hash) > MAX_SESSIONS:
            del self._by_hash[min(self._by_hash, key=lambda key: self._by_hash[key].used)]
        self._keep()
        return cookie, session

    def find(self, cookie: str) -> Session | None:
        """The cookie's session, alive or not."""
        return self._by_hash.get(hashed(cookie)) if cookie.isascii() else None

    def alive(self, session: Session, stored: str | None) -> bool:
        """Whether ``session`` was used within ``unused_s`` and logged in with the secret ``stored``."""
        return self.clock() - session.used <= self.unused_s and stored is not None \
            and hmac.compare_digest(session.secret, hashed(stored))

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
        session.secret = hashed(stored)
        self._keep()

    def owners_only(self, session: Session) -> None:
        """The owner's passphrase changed through ``session``: every other session stops acting as
        the owner (its standing is not kept across a restart, so nothing is written)."""
        for other in self._by_hash.values():
            if other is not session:
                other.owner = 0.0

    def owner_again(self, token: str, until: float) -> bool:
        """The session whose CSRF token's hash is ``token`` acts as the owner until ``until``
        again: the unlock an owner's act carried across the restart it asked for (``acts``).
        Whether there is such a session."""
        for session in self._by_hash.values():
            if hmac.compare_digest(hashed(session.csrf), token):
                session.owner = until
                return True
        return False

    def end(self, cookie: str) -> None:
        self._by_hash.pop(hashed(cookie), None)
        self._keep()

    def _load(self) -> dict[str, Session]:
        if self.file is None:
            return {}
        try:
            kept = read_json(self.file.read_text(encoding="utf-8"))
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
    line: bool = False  # TOO_MANY: it waits in line for the budget of devices never seen (the table's code skips it)

    @property
    def status(self) -> int:
        return STATUS[self.why]

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.wait_s)} if self.wait_s else {}


@dataclass(frozen=True)
class Entered:
    """A login the secret let in: its session, and the cookie that carries it."""

    session: Session
    cookie: str


class Turns:
    """The checks of a secret running at once, ``CHECKS_AT_ONCE`` at most, for every door of a page."""

    def __init__(self) -> None:
        self._free = asyncio.Semaphore(CHECKS_AT_ONCE)
        self._waiting = 0  # checks waiting for a turn

    async def take(self) -> bool:
        """A turn (given back with ``give_back()``), or False when there is none to be had within
        ``CHECK_WAIT_S``, or already ``CHECK_WAITERS`` waiting for one."""
        if self._free.locked() and self._waiting >= CHECK_WAITERS:
            return False
        self._waiting += 1
        try:
            async with asyncio.timeout(CHECK_WAIT_S):
                await self._free.acquire()
        except TimeoutError:
            return False
        finally:
            self._waiting -= 1
        return True

    def give_back(self) -> None:
        self._free.release()


def device_key(file: Path | None) -> bytes:
    """The key that signs a page's device cookies: kept in ``file`` (so a restart, and a new
    secret, keep every device known), or one for this run alone."""
    if file is None:
        return secrets.token_bytes(32)
    return kept_secret(file, "every phone is a new one to the login's limits after a restart")


class Door:
    """One secret's check: ``secret()`` gives it now (its hash, or None when none is set); its
    tries counted by ``throttle`` (on its clock), its checks taken in ``turns``. A browser that
    passed it before carries the cookie ``cookie`` (under ``path``): a random name, signed with
    ``key`` for this door's ``name``, by which its tries are counted on their own."""

    def __init__(self, name: str, secret: Callable[[], str | None], cookie: str, path: str, throttle: Throttle,
                 key: bytes, turns: Turns) -> None:
        self.name, self.secret, self.cookie, self.path = name, secret, cookie, path
        self.throttle, self.key, self.turns = throttle, key, turns

    async def check(self, request: web.Request, tried: object,
                    matches: Callable[[str, str], bool] | None = None, code: str | None = None) -> Refused | None:
        """Whether ``tried`` (what the request sent as the secret: anything) is the secret,
        counted and limited. ``matches(stored, tried)`` is the test: a one-time code's
        (``Recovery``) instead of the secret's. ``code``: the table's code the request carries
        (``code_given``'s digits); a wrong one is none."""
        stored = self.secret()
        if stored is None:
            if matches is None:
                return Refused(Why.NO_SECRET)
            stored = ""  # a one-time code may set the first secret
        device = self.device(request)
        who, known = (f"device {device}", True) if device else (request.remote or "?", False)
        table = self.throttle.code
        coded = not known and code is not None and table is not None and table.carried(code)
        if wait := self.throttle.wait(who, known, self.throttle.clock(), coded):
            return self._too_many(who, wait)
        if not await self.turns.take():
            return Refused(Why.BUSY, 1)
        try:
            if coded and not (code is not None and table is not None and table.spend(code)):
                coded = False  # another try spent it meanwhile: one guess at most a code
            if wait := self.throttle.tried(who, known, self.throttle.clock(), coded):  # counted by others meanwhile
                return self._too_many(who, wait)
            right = isinstance(tried, str) and await asyncio.to_thread(matches or secret_matches, stored, tried)
        finally:
            self.turns.give_back()
        if not right:
            return Refused(Why.WRONG)
        self.throttle.passed(who)
        if coded:
            log.warning("%s: %s got in past the line with the code on the table's screen", self.name, who)
        return None

    def _too_many(self, who: str, wait: float) -> Refused:
        return Refused(Why.TOO_MANY, math.ceil(wait), self.throttle.in_line(who))

    def device(self, request: web.Request) -> str | None:
        """The name of the device whose cookie the request carries, if this door's key signed it."""
        token = request.cookies.get(self.cookie, "")
        device = token.partition(".")[0]
        return device if device and token.isascii() and same(token, self._token(device)) else None  # ours are ASCII

    def remember(self, request: web.Request, response: web.StreamResponse) -> None:
        """Give the browser that has just passed its device cookie (its own again, or a new one)."""
        device = self.device(request) or secrets.token_urlsafe(16)
        response.set_cookie(self.cookie, self._token(device), path=self.path, max_age=DEVICE_S, httponly=True,
                            samesite="Strict", secure=request.secure)

    def _token(self, device: str) -> str:
        signature = hmac.new(self.key, f"{self.name} device {device}".encode(), hashlib.sha256).hexdigest()
        return f"{device}.{signature}"


class Gate:
    """The way in to the pages under ``path``: a ``Door`` to the secret as ``secret()`` gives it
    now (its hash, or None when none is set), ``per_address`` and ``overall`` tries a minute
    (``Throttle``), its device cookies signed with the key kept in ``keys`` (``device_key``);
    sessions in the cookie ``cookie`` (``cookie_s``: its life in the browser, None for the
    browser's session) that last ``unused_s`` unused and are kept in ``file``, each with a CSRF
    token its requests carry in the header ``csrf_header`` (None: not asked for). ``clock`` times
    the tries and the sessions (a wall clock when they are kept: they outlive a restart);
    ``name`` tells this gate's device cookies from another's; ``tries``: a throttle it shares
    with other doors to the same secret (the owner's passphrase), instead of one of its own;
    ``code``: the table's code its own throttle takes (``LineCode``). A gate serves one page, on
    one event loop; another door of the page shares its ``turns``."""

    def __init__(self, name: str, secret: Callable[[], str | None], cookie: str, path: str, per_address: int,
                 overall: int | None, unused_s: float, clock: Callable[[], float] = time.time,
                 file: Path | None = None, csrf_header: str | None = None, cookie_s: int | None = None,
                 keys: Path | None = None, tries: Throttle | None = None, code: LineCode | None = None) -> None:
        self.secret, self.cookie, self.path, self.clock = secret, cookie, path, clock
        self.csrf_header, self.cookie_s = csrf_header, cookie_s
        self.turns = Turns()
        self.door = Door(name, secret, f"{cookie}_device", path, tries or Throttle(per_address, overall, clock, code),
                         device_key(keys), self.turns)
        self.sessions = Sessions(unused_s, clock, file)

    async def log_in(self, request: web.Request, tried: object, code: str | None = None) -> Entered | Refused:
        """Whether ``tried`` (what the login sent as the secret: anything) is the secret, the
        table's ``code`` carried (``Door.check``); a new session when it is."""
        refused = await self.check(request, tried, code=code)
        return refused if refused is not None else self.enter()

    async def check(self, request: web.Request, tried: object,
                    matches: Callable[[str, str], bool] | None = None, code: str | None = None) -> Refused | None:
        """``Door.check``: a login's, and a change of the secret's, which asks for the old one
        (a session left open on a phone does not give it away)."""
        return await self.door.check(request, tried, matches, code)

    def enter(self) -> Entered:
        """A new session with the secret kept now, for a request that has just shown it."""
        stored = self.secret()
        assert stored is not None  # shown by check() a moment ago
        cookie, session = self.sessions.open(stored)
        return Entered(session, cookie)

    def let_in(self, request: web.Request, response: web.StreamResponse, entered: Entered) -> None:
        """Give the browser that logged in its session's cookie and its device's."""
        response.set_cookie(self.cookie, entered.cookie, path=self.path, max_age=self.cookie_s, httponly=True,
                            samesite="Strict", secure=request.secure)
        self.door.remember(request, response)

    def live(self, request: web.Request) -> Session | None:
        """The request's session while it is alive (asking is not a use)."""
        session = self.sessions.find(request.cookies.get(self.cookie, ""))
        return session if session is not None and self.sessions.alive(session, self.secret()) else None

    def known(self, request: web.Request) -> bool:
        """Whether the request comes from a browser that has logged in here: a live session, or a
        device cookie this gate signed."""
        return self.door.device(request) is not None or self.live(request) is not None

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
        if self.csrf_header is not None and not same(request.headers.get(self.csrf_header, ""), session.csrf):
            return Refused(Why.NO_TOKEN)
        if use:
            self.sessions.used(session)
        return session

    def log_out(self, request: web.Request, response: web.StreamResponse) -> None:
        """End the request's session, and its cookie in the browser."""
        self.sessions.end(request.cookies.get(self.cookie, ""))
        response.del_cookie(self.cookie, path=self.path)


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
        self._kept = (hashed(code), self.clock() + RECOVERY_S)
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
        if not hmac.compare_digest(hashed(digits), self._kept[0]):
            return False
        self._kept = None
        return True

    def void(self) -> None:
        self._kept = None


# --- the one login policy of every server that takes a password ---------------------------------

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def behind(proxy: str | None) -> Middleware:
    """The middleware that sees a request as its browser made it when it comes through the
    reverse proxy at ``proxy``, an address its owner named (an explicit option, never a guess):
    from that address alone, ``X-Forwarded-Proto`` says the scheme the page was served on,
    ``X-Forwarded-Host`` its host and ``X-Forwarded-For``'s last entry (the one the proxy wrote)
    the browser's address; a request from anywhere else is believed for none of them. So
    ``request.secure`` (``password_may_cross``, the cookies' ``Secure``), ``request.scheme`` and
    ``host`` (a form's origin) and ``request.remote`` (the tries an address has) are the
    browser's. A proxy's request that names no browser comes from no address of this machine's."""

    def told(value: str) -> str:
        return value.split(",")[0].strip()

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if proxy is None or not same_address(request.remote, proxy):
            return await handler(request)
        scheme = told(request.headers.get("X-Forwarded-Proto", "")).lower()
        browser = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
        return await handler(request.clone(scheme="https" if scheme == "https" else "http",
                                           host=told(request.headers.get("X-Forwarded-Host", "")) or request.host,
                                           remote=browser or "the proxy's browser"))

    return middleware


def same_address(remote: str | None, named: str) -> bool:
    """Whether ``remote`` (a request's peer) is the address ``named`` (as written: ``::ffff:127.0.0.1`` is ``127.0.0.1``)."""
    try:
        seen, given = ipaddress.ip_address(remote or ""), ipaddress.ip_address(named)
    except ValueError:
        return False
    unmapped = [address.ipv4_mapped or address if isinstance(address, ipaddress.IPv6Address) else address
                for address in (seen, given)]
    return unmapped[0] == unmapped[1]


def password_may_cross(request: web.Request) -> bool:
    """The one login policy of every pi-table server that takes a password (the table's staff and
    set-up pages, the fleet's dashboard, the league's page): over TLS, the server's own or a proxy's
    it was told to trust (``behind``), or from this machine, whose request crossed no network;
    never in clear from another machine (issue 74, 4)."""
    return request.secure or from_this_machine(request)


def from_this_machine(request: web.Request) -> bool:
    """Whether ``request`` came from this machine (a loopback address, IPv4 in IPv6 too): a
    secret it carries crossed no network, so it needs no https."""
    try:
        address = ipaddress.ip_address(request.remote or "")
    except ValueError:  # a UNIX socket's peer, or none
        return False
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return (mapped or address).is_loopback
