"""The values that cannot work on this machine: a journal folder that is a file, a group that
does not exist, an address that is not this machine's. The one place where folders, groups and
addresses are looked at; nothing is made or changed here.
"""

from __future__ import annotations

import errno
import grp
import os
import pwd
import socket
import stat
from pathlib import Path

from ..engine.phrase import N_, Phrase, Text
from .settings import Values

FILES_READ = ("fleet.password_file", "fleet.ca", "fleet.cert", "fleet.key", "web.tls_cert", "web.tls_key")
"""The keys naming a file the table must be able to read (checked on the machine)."""


def check_machine(values: dict[str, object]) -> list[tuple[str, Phrase]]:
    """What in these keys' values cannot work on this machine, for the user running this:
    (key, what was expected and what was found) for each. The one place where folders,
    groups and addresses are looked at; nothing is made or changed here."""
    expected = {
        "paths.journal_dir": N_("a folder the table can write its games in (made if missing)"),
        "paths.socket": N_("a socket in a folder the table can write in (made if missing)"),
        "paths.socket_group": N_("the name of a group of this machine ('' keeps the user's own)"),
        "web.host": N_("an address of this machine, or 0.0.0.0 or :: for every network"),
        **{key: N_("a file the table can read") for key in FILES_READ},
    }
    v = Values(values)
    socket_path = Path(v.text("paths.socket"))
    found = {
        "paths.journal_dir": _unusable_folder(Path(v.text("paths.journal_dir"))),
        "paths.socket": (Phrase.of("{path}, which is not a socket (one a stopped table left is fine)",
                                   path=str(socket_path))
                         if _taken(socket_path) else _unusable_folder(socket_path.parent)),
        "paths.socket_group": _missing_group(v.text("paths.socket_group")),
        "web.host": _foreign_host(v.text("web.host")) if v.flag("web.enabled") else None,
        **{key: _unreadable(v.text(key)) for key in FILES_READ},
    }
    return [(key, Phrase.of("expected {expected}, found {found}", expected=Phrase(expected[key]), found=what))
            for key, what in found.items() if what]


def _unusable_folder(folder: Path) -> Phrase | None:
    """Why the table could not make ``folder`` or write in it; None when it can."""
    if os.path.exists(folder):
        if not os.path.isdir(folder):
            return Phrase.of("a file: {path}", path=str(folder))
        if not os.access(folder, os.W_OK | os.X_OK):
            return Phrase.of("{path}, and {user} may not write in it{read_only}", path=str(folder), user=_user(),
                             read_only=_read_only(folder))
        return None
    made = folder.parent
    while not os.path.exists(made):
        made = made.parent
    if not os.path.isdir(made):
        return Phrase.of("that {file} is a file, so {path} cannot be made", file=str(made), path=str(folder))
    if not os.access(made, os.W_OK | os.X_OK):
        return Phrase.of("that {user} may not write in {parent}{read_only}, so {path} cannot be made", user=_user(),
                         parent=str(made), read_only=_read_only(made), path=str(folder))
    return None


def _unreadable(name: str) -> Phrase | None:
    """Why the table could not read the file ``name`` ('' names none); None when it can."""
    if not name:
        return None
    if not os.path.isfile(name):
        return Phrase.of("{path}, which is not a file", path=name)
    if not os.access(name, os.R_OK):
        return Phrase.of("{path}, which {user} may not read", path=name, user=_user())
    return None


def _read_only(folder: Path) -> Text:
    """Say so when ``folder`` is on a read-only file system, as all but the unit's own folders
    are under its ProtectSystem=strict: permissions are then not the reason."""
    try:
        return Phrase.of(" (a read-only file system here)") if os.statvfs(folder).f_flag & os.ST_RDONLY else ""
    except OSError:
        return ""


def _taken(socket_path: Path) -> bool:
    """Whether something other than a socket is in the socket's place (binding would fail)."""
    try:
        return not stat.S_ISSOCK(os.stat(socket_path).st_mode)
    except OSError:
        return False


def _user() -> Phrase:
    try:
        return Phrase.of("user {name}", name=pwd.getpwuid(os.geteuid()).pw_name)
    except KeyError:
        return Phrase.of("user {name}", name=os.geteuid())


def _missing_group(group: str) -> Phrase | None:
    if not group:
        return None
    try:
        grp.getgrnam(group)
    except KeyError:
        return Phrase.of("{group!r}, and no group has that name", group=group)
    return None


def _foreign_host(host: str) -> Phrase | None:
    """Why the companion could not listen on ``host``; None when it can. Each address the
    name resolves to is bound to a free port, as the companion's server binds them all."""
    try:
        addresses = socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as e:
        return Phrase.of("{host!r}, a name that does not resolve ({error})", host=host,
                         error=getattr(e, "strerror", None) or str(e))
    for family, kind, protocol, _, address in addresses:
        try:
            probe = socket.socket(family, kind, protocol)
        except OSError:
            continue  # a family this machine lacks (IPv6 off): the server skips it too
        with probe:
            try:
                probe.bind(address)
            except OSError as e:
                which = "" if address[0] == host else f" ({address[0]})"
                if e.errno == errno.EADDRNOTAVAIL:
                    return Phrase.of("{host!r}, which is not an address of this machine{which}", host=host,
                                     which=which)
                return Phrase.of("{host!r}, on which nothing may listen here{which}: {error}", host=host, which=which,
                                 error=e.strerror or str(e))
    return None

