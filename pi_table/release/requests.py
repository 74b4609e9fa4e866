"""A request to the root helper: one small JSON file the service writes into its spool folder
(/var/lib/pi-table/requests, its own), which pi-table-helper.path sees and pi-table-helper.service
(root) reads, deletes and acts on. Its acts and nothing else: install an update (from a bundle
in the same folder, or from the repository the table was installed from), reboot, power off, set
the time zone, open the table's own Wi-Fi, join a Wi-Fi (``network``), start the security updates
(``system``), add or revoke a release key (``keys``), give the cable (or the Wi-Fi) a fixed address
or the table a host name, each a trial (``network``), make this table the café's broker, give its
tables their passwords or take one off it, bridge it to a league or host one on it (``broker``), wipe the owner's part root holds (the
release keys the owner added, the café's broker's passwords: ``owner-wipe``, the buttons' reset),
write the newest nightly backup to a USB stick it finds itself (``backup-to-stick``, ``stick``), or
copy one from it into the backups folder, the newest or one the stick lists (``backup-from-stick``).
Anything else is refused and logged, never run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import threading
from pathlib import Path
from typing import Any, TypeAlias

from ..engine.phrase import N_
from ..files import read_json, replace_file
from . import broker, stick
from .keys import KEY_NAME, PUBLIC_KEY
from .layout import ReleaseError
from .network import host_name_problem, ipv4_problem, password_problem, ssid_problem

SPOOL = Path("/var/lib/pi-table/requests")
REQUEST = "request.json"
MAX_REQUEST = 32 * 1024  # the café's broker's users: 51 names and their passwords' hashes
MAX_KEY = 400  # an Ed25519 public key's line is some 80 characters and its comment
BUNDLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.tar\.gz")
ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]{0,29}(/[A-Za-z0-9_+-]{1,30}){0,2}")  # Europe/Rome, America/Argentina/Salta, UTC
SHAPES = {("reboot",): set(), ("poweroff",): set(), ("update", "bundle"): {"bundle"}, ("update", "repository"): set(),
          ("timezone",): {"zone"}, ("hotspot",): {"ssid", "password"}, ("wifi",): {"ssid", "password"},
          ("security",): set(), ("keys-add",): {"name", "key"}, ("keys-revoke",): {"name"},
          ("ipv4",): {"device", "method", "address", "gateway", "dns"}, ("hostname",): {"name"},
          ("broker",): {"address", "users"}, ("broker-users",): {"users"}, ("broker-remove",): {"table"},
          ("broker-league",): {"league", "cafe", "address", "port", "password", "ca"},
          ("broker-host-league",): {"league", "cafe", "cafes", "page"},
          ("owner-wipe",): set(), ("backup-to-stick",): set(), ("backup-from-stick",): {"backup"}}
"""Each request there is: its act (and for an update where from), and the other keys it takes."""
Request: TypeAlias = dict[str, Any]
"""A request as ``check`` lets it through: its act, and exactly the keys ``SHAPES`` gives that act,
each checked (at run time: a file or a page wrote it)."""
ACTS = ("reboot, poweroff, update from a bundle or from the repository, timezone, hotspot, wifi, security, keys-add, "
        "keys-revoke, ipv4, hostname, broker, broker-users, broker-remove, broker-league, broker-host-league, "
        "owner-wipe, backup-to-stick, backup-from-stick")


def check(request: object) -> Request:
    """The request, if it is one of the acts in its exact shape; ReleaseError otherwise."""
    if not isinstance(request, dict) or not isinstance(request.get("act"), str):
        raise ReleaseError(N_("a request is a JSON object with an act; expected one of {acts}"), acts=ACTS)
    act = request["act"]
    shape: tuple[str, ...] = (act,) if act != "update" else (act, str(request.get("from")))
    if shape not in SHAPES:
        raise ReleaseError(N_("unknown request {act}; expected one of {acts}"), act=repr(act[:80]), acts=ACTS)
    keys = set(request) - {"act", "from"}
    if keys != SHAPES[shape]:
        raise ReleaseError(N_("the request {act} takes {expected}, not {found}"), act=act,
                           expected=", ".join(sorted(SHAPES[shape])) or "nothing more",
                           found=", ".join(sorted(repr(key[:40]) for key in keys)) or "nothing")
    if "bundle" in keys and not (isinstance(request["bundle"], str) and BUNDLE_NAME.fullmatch(request["bundle"])):
        raise ReleaseError(N_("the bundle is named by a file name in the spool folder ending .tar.gz"))
    if "zone" in keys and not (isinstance(request["zone"], str) and ZONE.fullmatch(request["zone"])):
        raise ReleaseError(N_("a time zone is named as Region/City, such as Europe/Rome"))
    if act == "hostname" and (problem := host_name_problem(request["name"])) is not None:
        raise ReleaseError(problem)
    if act == "ipv4" and (problem := ipv4_problem(request)) is not None:
        raise ReleaseError(problem, gateway=str(request.get("gateway"))[:40], address=str(request.get("address"))[:40])
    if act.startswith("keys-") and not (isinstance(request["name"], str) and KEY_NAME.fullmatch(request["name"])):
        raise ReleaseError(N_("a key's name is 1 to 64 letters, digits, '.', '_', '@' or '-', not {name}"),
                           name=repr(str(request["name"])[:64]))
    if "key" in keys and not (isinstance(request["key"], str) and len(request["key"]) <= MAX_KEY
                              and PUBLIC_KEY.fullmatch(request["key"])):
        raise ReleaseError(N_("expected an Ed25519 public key (a line ssh-ed25519 AAAA..., as in KEY.pub)"))
    if act in broker.ACTS:
        broker.check(request)
    if act == stick.FROM_ACT:
        stick.chosen(request["backup"])
    if "ssid" in keys and (problem := ssid_problem(request["ssid"]) or password_problem(
            request["password"], may_be_open=act == "wifi")) is not None:
        raise ReleaseError(problem)
    return request


WAITING = N_("the computer's helper has not yet taken the request before this one: try again in a minute")


def waiting(spool: Path) -> bool:
    """Whether a request waits in ``spool`` for the helper to take it: none other is asked until then."""
    return os.path.lexists(spool / REQUEST)


def write(spool: Path, request: Request) -> None:
    """Ask: the request checked, then written whole into ``spool`` under a name of its own and
    linked into place, never over one the helper has not taken yet (an owner's update asked a
    second before the nightly security run was replaced by it unread); ReleaseError while one
    waits, and the asker tries again (the security run at its next tick, the owner in a minute)."""
    data = json.dumps(check(request)).encode("utf-8")
    spool.mkdir(mode=0o700, parents=True, exist_ok=True)
    staged = spool / f".{REQUEST}.{os.getpid()}.{threading.get_ident()}"
    replace_file(staged, data, 0o600)
    try:
        os.link(staged, spool / REQUEST)
    except FileExistsError:
        raise ReleaseError(WAITING) from None
    finally:
        staged.unlink(missing_ok=True)


def take(spool: Path) -> Request:
    """The request waiting in ``spool``, taken away (so it is acted on once) and checked. The folder
    is the service's: the file is opened without following a link, and must be a small plain file."""
    path = spool / REQUEST
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        _take_away(path)
        raise ReleaseError(N_("the request cannot be read ({error}); expected a plain file"),
                           error=e.strerror or type(e).__name__) from None
    try:
        status = os.fstat(fd)
        data = os.read(fd, MAX_REQUEST + 1) if stat.S_ISREG(status.st_mode) else None
    finally:
        os.close(fd)
        _take_away(path)
    if data is None or len(data) > MAX_REQUEST:
        raise ReleaseError(N_("the request is not a plain file of at most {most} bytes"), most=MAX_REQUEST)
    try:
        request = read_json(data)
    except ValueError:
        raise ReleaseError(N_("the request is not JSON; expected an object such as {example}"),
                           example='{"act": "reboot"}') from None
    return check(request)


def _take_away(path: Path) -> None:
    """Whatever lies at ``path`` gone, a folder too (its links never followed), so the path unit
    that saw it does not start the helper again and again."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass
