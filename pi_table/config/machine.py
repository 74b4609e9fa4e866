"""The values that cannot work on this machine: a journal folder that is a file, a group that
does not exist, an address that is not this machine's. The one place where folders, groups and
addresses are looked at; nothing is made or changed here.
"""

from __future__ import annotations

import errno
import grp
import os
import socket
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase, Text
from ..errors import PiTableError
from ..files import NotAFile, TooBig, read_file
from ..table.journal import foreign_folder
from .settings import Values

if TYPE_CHECKING:  # loaded by the checks that use it: a start without https does without it
    import ssl

FILES_READ = ("fleet.password_file", "fleet.ca", "fleet.cert", "fleet.key", "web.tls_cert", "web.tls_key")
"""The keys naming a file the table must be able to read (checked on the machine)."""
PRIVATE_KEYS = ("web.tls_key", "fleet.key")
"""The keys naming a private key: never sent or shown, whatever another key says."""
MAX_PASSWORD = 65535  # bytes: MQTT's longest password


@dataclass(frozen=True, slots=True)
class Running:
    """A change checked beside the table that runs now (the staff page's, ``check-config``'s):
    the folders where it keeps secrets besides the file's own journal folder, and the port its
    companion holds, which it lets go of when it restarts on the new file. A change is checked
    for what the moment holds too (a port another program listens on); a start is not, as a
    port taken for a while must not keep a table from playing."""

    secret_dirs: tuple[str, ...] = ()
    listening: int | None = None


def check_machine(values: dict[str, object], running: Running | None = None) -> list[tuple[str, Phrase]]:
    """What in these keys' values cannot work on this machine, for the user running this:
    (key, what was expected and what was found) for each. Each file is tried the way the table
    will use it (the password decoded, the certificate loaded with its key, the CA parsed), and,
    for a change (``running``), the companion's address bound. Nothing is made or changed here."""
    v = Values(values)
    socket_path, journal = Path(v.text("paths.socket")), Path(v.text("paths.journal_dir"))
    web = v.flag("web.enabled")
    files = {key: v.text(key) for key in FILES_READ}
    found: dict[str, tuple[str, Phrase | None]] = {
        "paths.journal_dir": (N_("a folder the table can write its games in (made if missing)"),
                              _unusable_folder(journal) or _shared(journal)),
        "paths.socket": (N_("a socket in a folder the table can write in (made if missing)"),
                         Phrase.of("{path}, which is not a socket (one a stopped table left is fine)",
                                   path=str(socket_path)) if _taken(socket_path) else
                         _unusable_folder(socket_path.parent)),
        "paths.socket_group": (N_("the name of a group of this machine ('' keeps the user's own)"),
                               _missing_group(v.text("paths.socket_group"))),
        **{key: (N_("a file the table can read"), _unreadable(file)) for key, file in files.items()},
    }
    unread = {key for key, (_, problem) in found.items() if problem}
    if "fleet.password_file" not in unread:
        found["fleet.password_file"] = (N_("a UTF-8 text file holding the broker's password"),
                                        _no_password(files["fleet.password_file"]))
    if web:
        found |= _pair(files, "web.tls_cert", "web.tls_key", unread)
    found |= _pair(files, "fleet.cert", "fleet.key", unread)
    if files["fleet.ca"] and "fleet.ca" not in unread:
        found["fleet.ca"] = (N_("a PEM file of CA certificates"), _no_certificate(files["fleet.ca"]))
    if web:
        found |= _unusable_address(v.text("web.host"), v.whole("web.port"), running)
    return [(key, Phrase.of("expected {expected}, found {found}", expected=Phrase(expected), found=problem))
            for key, (expected, problem) in found.items() if problem]


def server_tls(cert: str, key: str) -> ssl.SSLContext:
    """The companion's https context with this certificate (and chain) and key, as the checker
    tries it; OSError or ssl.SSLError when they will not load. A key that asks for a passphrase
    is refused rather than asked for one: there is nobody to type it. TLS 1.2 and 1.3 only (the
    default context's floor), and of TLS 1.2's suites the ``AEAD`` ones."""
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.set_ciphers(AEAD)  # TLS 1.2's CBC suites left out (TLS 1.3's are all AEAD)
    context.load_cert_chain(cert, key, password=_no_passphrase)
    return context


AEAD = "ECDHE+AESGCM:ECDHE+CHACHA20"
"""TLS 1.2's suites the table takes: forward secret and authenticated encryption alone, no CBC
(MAC then encrypt, whose padding oracles are the suites' known weakness)."""


def read_password(path: str) -> str:
    """The password in the file ``path`` (its first and only line); OSError when it cannot be
    read, Refusal when it is not UTF-8 text or is empty. Never its contents in a message."""
    try:
        data = read_file(path, MAX_PASSWORD + 2)  # and its line's end
    except NotAFile:
        raise Refusal("{path}, which is not a file", path=path) from None
    except TooBig as e:
        raise Refusal("{path}, of {size} bytes: a password is at most {most}", path=path, size=e.size,
                      most=MAX_PASSWORD) from None
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError as e:
        raise Refusal("{path}, which is not UTF-8 text (byte {byte})", path=path, byte=e.start) from None
    if not text:
        raise Refusal("{path}, which is empty", path=path)
    if len(text.encode("utf-8")) > MAX_PASSWORD:
        raise Refusal("{path}, of {size} bytes: a password is at most {most}", path=path, size=len(data),
                      most=MAX_PASSWORD)
    return text


def _no_password(path: str) -> Phrase | None:
    if not path:
        return None
    try:
        read_password(path)
    except OSError as e:
        return Phrase.of("{path}, which cannot be read ({error})", path=path, error=e.strerror or str(e))
    except Refusal as e:
        return e.phrase
    return None


class EncryptedKey(PiTableError, ValueError):
    """A TLS private key that asks for a passphrase: the table starts unattended, and has none to give."""


def _no_passphrase() -> bytes:
    raise EncryptedKey("the key is encrypted with a passphrase")


def _pair(files: dict[str, str], cert_key: str, key_key: str, unread: set[str]) -> dict[str, tuple[str, Phrase | None]]:
    """A certificate and its key, loaded together as the table loads them: the certificate's
    fault when it holds none, the key's when it does not load beside it."""
    cert, key = files[cert_key], files[key_key]
    if not cert or not key or cert_key in unread or key_key in unread:
        return {}
    import ssl  # a table without certificates starts without it
    problem = _no_certificate(cert)
    if problem:
        return {cert_key: (N_("a PEM certificate file (and its chain)"), problem)}
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key, password=_no_passphrase)
    except (OSError, ssl.SSLError, ValueError) as e:
        return {key_key: (N_("the unencrypted PEM private key of the certificate beside it"),
                          Phrase.of("{path}, which does not load as {cert}'s key ({error})", path=key,
                                    cert=cert_key.partition(".")[2], error=_ssl_words(e)))}
    return {}


def _no_certificate(path: str) -> Phrase | None:
    """Why ``path`` holds no PEM certificate; None when it holds one (or more)."""
    import ssl

    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=path)
    except (OSError, ssl.SSLError, ValueError) as e:
        return Phrase.of("{path}, which holds no PEM certificate ({error})", path=path, error=_ssl_words(e))
    return None


def _ssl_words(error: Exception) -> str:
    """What OpenSSL (or the system) said, by its reason, which names no byte of the file."""
    return getattr(error, "reason", None) or getattr(error, "strerror", None) or type(error).__name__


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


def _shared(folder: Path) -> Phrase | None:
    """Why ``folder`` is not one the table may keep its games in: it holds a folder, so it is
    someone else's (/, /tmp, a home), whose files' rights the table would change."""
    other = foreign_folder(folder)
    if other is None:
        return None
    return Phrase.of("{path}, which holds a folder ({name}), so it is not a folder of the table's own", path=str(folder),
                     name=other)


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
    import pwd  # only to name the user in a refusal

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


def _unusable_address(host: str, port: int, running: Running | None) -> dict[str, tuple[str, Phrase | None]]:
    """Why the companion could not listen on ``host`` (and, for a change, on ``port``): each
    address the name resolves to is bound as the companion's server binds them all (the
    address reused, IPv6 alone on its own). The port the running table holds is its own to let
    go of; a start (no ``running``) binds port 0, as a port taken for a while is no bad value."""
    expected = {"web.host": N_("an address of this machine, or 0.0.0.0 or :: for every network"),
                "web.port": N_("a port no other program listens on")}
    ours = running is None or not 1024 <= port <= 65535 or port == running.listening  # a bad port: the builder's
    try:
        # an ASCII name as bytes: a str is IDNA-encoded, and that codec's import is a millisecond of every start
        name = (host.encode("ascii") if host.isascii() else host) if host else None
        addresses = socket.getaddrinfo(name, 0 if ours else port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as e:
        return {"web.host": (expected["web.host"], Phrase.of("{host!r}, a name that does not resolve ({error})",
                                                             host=host, error=getattr(e, "strerror", None) or str(e)))}
    for family, kind, protocol, _, address in addresses:
        try:
            probe = socket.socket(family, kind, protocol)
        except OSError:
            continue  # a family this machine lacks (IPv6 off): the server skips it too
        with probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind(address)
            except OSError as e:
                which = "" if address[0] == host else f" ({address[0]})"
                if e.errno == errno.EADDRINUSE:
                    return {"web.port": (expected["web.port"], Phrase.of(
                        "port {port}, which another program listens on{which}", port=port, which=which))}
                if e.errno == errno.EADDRNOTAVAIL:
                    problem = Phrase.of("{host!r}, which is not an address of this machine{which}", host=host,
                                        which=which)
                else:
                    problem = Phrase.of("{host!r}, on which nothing may listen here{which}: {error}", host=host,
                                        which=which, error=e.strerror or str(e))
                return {"web.host": (expected["web.host"], problem)}
    return {}
