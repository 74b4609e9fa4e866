"""The nightly backup copied off the SD card, to a network place the owner gives on the staff page
(issue 62): an SFTP server or a WebDAV folder, reached through Debian's rclone. An SD card is what
dies in a Pi; a copy elsewhere is what brings the table back on a new one (docs/cafe/backup.md).

The place is an owner's secret (its password), kept in the journal folder as the owner's other
files are (``PLACE_FILE``, 0600; the owner's-part reset wipes it, ``owners_part``), never in a
backup and never shown back whole. What the owner typed is parsed into a ``Place`` (a scheme, a
host, a port, a path and a user, each checked) and only that reaches rclone: as a configuration
file of our own (0600, in the backups folder, removed once the copy is done) and fixed
arguments, with a timeout, on the nightly backup's thread. What goes is the card's nightly backup as
it is, sealed with the owner's backup key (``sealed``): one that is not sealed is not sent. How the
last copy went is kept beside the backups (``NOTE``) for the staff page; a failure is told to
``backup.failed`` too.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import logging
import os
import re
import shutil
import ssl
import subprocess
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.errors import Refusal
from ..engine.phrase import Phrase, Text
from ..files import PRIVATE_DIR, TooBig, read_file, read_json, write_private
from . import backup, sealed

if TYPE_CHECKING:
    from ..config import Config

log = logging.getLogger("pi_table.backup")
PLACE_FILE = backup.PLACE
"""In the journal folder: the place as the owner gave it, its password too (0600)."""
NOTE = "offsite.last.json"
"""In the backups folder: when the last copy was made, of which backup, and how it went."""
RCLONE_CONFIG = "offsite.rclone.conf"
"""In the backups folder while a copy runs: rclone's configuration, the password obscured in it."""
KEY_FILE = backup.HOST_KEY
"""In the journal folder: the SFTP place's host keys, pinned at its first copy and bound to its
address (host and port), and the other keys it answered with since, until the owner accepts them."""
KNOWN_HOSTS = "offsite.known_hosts"
"""In the backups folder while a copy runs: the pinned keys, as rclone's ``known_hosts_file`` reads them."""
KEY = re.compile(r"(ssh-ed25519|ecdsa-sha2-nistp(?:256|384|521)|ssh-rsa) ([A-Za-z0-9+/]{40,2000}={0,2})")
"""A host key as ssh-keyscan prints it: its type and its key (nothing else reaches the known hosts file)."""
SCAN_S = 10  # ssh-keyscan's timeout, seconds
CA_FILE = backup.PLACE_CA
"""In the journal folder: the CA the owner gave for a WebDAV place with a certificate of its own
(a café's NAS), bound to the place's address (host and port)."""
CA_CERT = "offsite.ca.pem"
"""In the backups folder while a copy runs: that CA, as rclone's ``--ca-cert`` reads it."""
CA_MOST = 32 * 1024  # a CA certificate, or a short chain of them
REMOTE = "place"  # the one remote the configuration names
SCHEMES = {"sftp": ("sftp", 22, True), "https": ("webdav", 443, True), "http": ("webdav", 80, False)}
"""What a place's address may start with: the kind rclone reaches it by, its default port, and TLS."""
HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")
USER = re.compile(r"[A-Za-z0-9._@+-]{1,100}")
PATH = re.compile(r"[A-Za-z0-9._~/+-]{0,200}")
PASSWORD_MOST = 1024
COPY_S = 300.0  # a backup of a few MB on a café's line, and rclone's own retries
PLACE_MOST = 4096


@dataclass(frozen=True, slots=True)
class Place:
    """A network place a backup is copied to, each part checked: ``kind`` is rclone's (``sftp``
    or ``webdav``), ``tls`` whether WebDAV is reached over HTTPS (SFTP always is encrypted)."""

    kind: str
    host: str
    port: int
    path: str
    user: str
    password: str
    tls: bool = True

    def shown(self) -> str:
        """The place as the staff page shows it: its address, never its password."""
        return f"{self.destination}/{self.path}"

    @property
    def destination(self) -> str:
        """Where its password goes: the server (scheme, host, port) and the user (``config.bound``)."""
        scheme = "sftp" if self.kind == "sftp" else "https" if self.tls else "http"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{self.user}@{host}:{self.port}"


def parse(address: str, password: str) -> Place:
    """The place the owner typed (``sftp://USER@HOST[:PORT]/PATH`` or ``https://USER@HOST[:PORT]/PATH``
    for WebDAV) and its password; Refusal naming what was wrong and what was expected."""
    expected = Phrase.of("expected sftp://USER@HOST:PORT/FOLDER or, for WebDAV, https://USER@HOST:PORT/FOLDER")
    if not isinstance(address, str) or not isinstance(password, str):
        raise Refusal("the place and its password are text: {expected}", expected=expected)
    try:
        parts = urllib.parse.urlsplit(address.strip())
        port = parts.port
    except ValueError:
        raise Refusal("the place is not an address: {expected}", expected=expected) from None
    if parts.scheme not in SCHEMES:
        raise Refusal("the place starts with {scheme!r}: {expected}", scheme=parts.scheme[:20], expected=expected)
    kind, default_port, tls = SCHEMES[parts.scheme]
    host = parts.hostname or ""
    if parts.password is not None:
        raise Refusal("the place's address holds a password: give it in its own field")
    if parts.query or parts.fragment:
        raise Refusal("the place has a ?query or a #fragment: {expected}", expected=expected)
    if not _host(host):
        raise Refusal("the place's host {host!r} is not a host name or an IP address: {expected}", host=host[:60],
                      expected=expected)
    if not tls and not _loopback(host):
        raise Refusal("WebDAV over http:// would send the password in clear over the café's network: expected "
                      "https://")
    user = urllib.parse.unquote(parts.username or "")
    if not USER.fullmatch(user):
        raise Refusal("the place names no user, or one with other characters than letters, digits and . _ @ + -: "
                      "{expected}", expected=expected)
    path = urllib.parse.unquote(parts.path).strip("/")
    if not PATH.fullmatch(path) or ".." in path.split("/"):
        raise Refusal("the place's folder {path!r} may hold letters, digits, . _ ~ + - and /, and no ..: {expected}",
                      path=path[:60], expected=expected)
    if not password or "\n" in password or "\r" in password or len(password) > PASSWORD_MOST:
        raise Refusal("the place's password is one line of 1 to {most} characters", most=PASSWORD_MOST)
    return Place(kind, host, port or default_port, path, user, password, tls)


def _host(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return HOST.fullmatch(host) is not None and ".." not in host
    return True


def _loopback(host: str) -> bool:
    """This computer itself: a WebDAV server on it may be reached without TLS (nothing crosses the network)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


# --- kept -----------------------------------------------------------------------------------------


def save(config: Config, place: Place | None) -> None:
    """Keep ``place`` as the table's (None: forget it, and how its last copy went)."""
    path = config.paths.journal_dir / PLACE_FILE
    if place is None:
        path.unlink(missing_ok=True)
        (config.paths.journal_dir / KEY_FILE).unlink(missing_ok=True)
        (config.paths.journal_dir / CA_FILE).unlink(missing_ok=True)
        (backup.folder(config) / NOTE).unlink(missing_ok=True)
        return
    path.parent.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    write_private(path, json.dumps({"kind": place.kind, "host": place.host, "port": place.port, "path": place.path,
                                    "user": place.user, "password": place.password, "tls": place.tls}).encode())


def load(config: Config) -> Place | None:
    """The place kept, or None; one kept that no longer parses (changed by hand) is none, and said
    in the log; one a restore brought without its password (``awaited``) is none until it is given."""
    path = config.paths.journal_dir / PLACE_FILE
    try:
        kept = read_json(read_file(path, PLACE_MOST))
        return None if kept["password"] == "" else parse(_address(kept), kept["password"])
    except FileNotFoundError:
        return None
    except (OSError, TooBig, ValueError, KeyError, TypeError, Refusal) as e:
        log.warning("%s is not a place this table keeps (%s): no copy is made", path, e)
        return None


def _address(kept: dict[str, Any]) -> str:
    """The address of the place ``kept`` as the owner types it (KeyError, TypeError, ValueError)."""
    scheme = "sftp" if kept["kind"] == "sftp" else "https" if kept["tls"] else "http"
    host = f"[{kept['host']}]" if ":" in kept["host"] else kept["host"]
    return f"{scheme}://{urllib.parse.quote(kept['user'], safe='@')}@{host}:{int(kept['port'])}/{kept['path']}"


def awaited(config: Config) -> Place | None:
    """The place a restored backup brought without its password (a backup holds none), waiting for
    the owner to give it again; None when there is none such."""
    try:
        kept = read_json(read_file(config.paths.journal_dir / PLACE_FILE, PLACE_MOST))
        return parse(_address(kept), "?") if kept["password"] == "" else None
    except (OSError, TooBig, ValueError, KeyError, TypeError, Refusal):
        return None


def state(config: Config) -> dict[str, Any]:
    """What the staff page shows: the place (its password never), and how its last copy went."""
    place = load(config)
    shown = place or awaited(config)  # its address, its password still to give
    return {"place": None if shown is None else shown.shown(), "password_set": place is not None,
            "last": last(config), "key": None if shown is None else shown_key(config, shown),
            "ca": shown is not None and _kept_ca(config, shown) is not None}


def last(config: Config) -> dict[str, Any] | None:
    """How the last copy went: ``at`` (seconds), ``backup`` (its name), ``ok``, ``why`` (in each language)."""
    try:
        note = read_json(read_file(backup.folder(config) / NOTE, PLACE_MOST))
    except (OSError, TooBig, ValueError):
        return None
    return note if isinstance(note, dict) else None


# --- a copy ---------------------------------------------------------------------------------------


def send(config: Config, made: Path) -> bool | None:
    """The nightly backup ``made`` copied to the place, when one is kept (None when none is) and
    ``made`` is sealed; whether it was. How it went is noted for the staff page; a failure told to
    ``backup.failed``."""
    place = load(config)
    if place is None:
        return None
    why = copy(config, place, made) if sealed.leaves(made) else Phrase.of(sealed.NOT_SEALED)
    write_private(backup.folder(config) / NOTE, json.dumps(
        {"at": time.time(), "backup": made.name, "place": place.shown(), "ok": why is None,
         **({} if why is None else {"why": backup.said(why)})}).encode())
    if why is not None:
        backup.failed("offsite", why)
        return False
    log.info("the nightly backup %s is copied to %s", made.name, place.shown())
    return True


def send_newest(config: Config) -> bool | None:
    """The newest nightly backup copied now (the staff page's try of a place just given); None
    when there is none yet, or no place."""
    newest = next(iter(backup.kept(backup.folder(config))), None)
    return None if newest is None else send(config, newest)


def copy(config: Config, place: Place, made: Path, timeout_s: float = COPY_S) -> Text | None:
    """``made`` copied into the place's folder under its own name by rclone; None, or why not."""
    rclone = shutil.which("rclone")
    if rclone is None:
        return Phrase.of("rclone is not installed on this table (apt install rclone)")
    where = backup.folder(config)
    conf = where / RCLONE_CONFIG
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(where)}  # no RCLONE_* from elsewhere
    known, authority = where / KNOWN_HOSTS, where / CA_CERT
    ca = _kept_ca(config, place)
    try:
        if place.kind == "sftp":
            write_private(known, _known_hosts(place, _pinned_keys(config, place)).encode())
        if ca is not None:
            write_private(authority, ca.encode())
        write_private(conf, _config_text(rclone, place, env, known).encode())
        done = subprocess.run([rclone, "--config", str(conf), "copyto", "--contimeout", "20s", "--timeout", "60s",
                               "--retries", "2", "--low-level-retries", "3",
                               *(["--ca-cert", str(authority)] if ca is not None else []), "--", str(made),
                               f"{REMOTE}:{place.path}/{made.name}" if place.path else f"{REMOTE}:{made.name}"],
                              capture_output=True, timeout=timeout_s, check=False, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Phrase.of("the place did not take the copy within {seconds} s", seconds=round(timeout_s))
    except (OSError, Refusal) as e:
        return e.phrase if isinstance(e, Refusal) else Phrase.of("rclone cannot run: {error}", error=e.strerror or str(e))
    finally:
        conf.unlink(missing_ok=True)
        known.unlink(missing_ok=True)
        authority.unlink(missing_ok=True)
    if done.returncode != 0 and b"knownhosts: key mismatch" in done.stderr:
        return _key_changed(config, place)
    if done.returncode != 0:
        log.warning("rclone could not copy %s to %s: %s", made.name, place.shown(),
                    done.stderr.decode("utf-8", "replace").strip()[-2000:])
        return Phrase.of("rclone could not copy it to {place} (exit {code}): {error}", place=place.shown(),
                         code=done.returncode, error=_last_error(done.stderr))
    return None


def _config_text(rclone: str, place: Place, env: dict[str, str], known: Path) -> str:
    """rclone's configuration for ``place``: each value one checked line, the password obscured
    as rclone expects it (by rclone itself, given on its standard input, never as an argument)."""
    obscured = sealed.obscured(rclone, place.password, env)
    if place.kind == "sftp":
        lines = {"type": "sftp", "host": place.host, "port": str(place.port), "user": place.user, "pass": obscured,
                 "known_hosts_file": str(known)}
    else:
        host = f"[{place.host}]" if ":" in place.host else place.host
        lines = {"type": "webdav", "url": f"{'https' if place.tls else 'http'}://{host}:{place.port}/",
                 "vendor": "other", "user": place.user, "pass": obscured}
    return f"[{REMOTE}]\n" + "".join(f"{key} = {value}\n" for key, value in lines.items())


def _last_error(stderr: bytes) -> str:
    """rclone's last error line, without its date and level (what the owner can act on)."""
    lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if "ERROR" in line or "Failed" in line]
    line = lines[-1] if lines else (stderr.decode("utf-8", "replace").strip().splitlines() or ["?"])[-1]
    return re.sub(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\s+(?:(?:ERROR|NOTICE|INFO)\s*:\s*)?", "", line).strip()[:300]


# --- the SFTP place's host key --------------------------------------------------------------------


def _kept_keys(config: Config, place: Place) -> dict[str, Any] | None:
    """The keys kept for ``place``'s address (``pinned``, and ``offered`` when it answered with
    others since), or None: none kept, or kept for another address (a new address is pinned anew)."""
    try:
        kept = read_json(read_file(config.paths.journal_dir / KEY_FILE, PLACE_MOST))
    except (OSError, TooBig, ValueError):
        return None
    if not isinstance(kept, dict) or (kept.get("host"), kept.get("port")) != (place.host, place.port):
        return None
    keys = [kept.get("pinned"), kept.get("offered") or []]
    if not all(isinstance(listed, list) and all(isinstance(key, str) and KEY.fullmatch(key) for key in listed)
               for listed in keys) or not keys[0]:
        return None
    return kept


def _keep_keys(config: Config, place: Place, pinned: list[str], offered: list[str] | None = None) -> None:
    config.paths.journal_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    write_private(config.paths.journal_dir / KEY_FILE, json.dumps(
        {"host": place.host, "port": place.port, "pinned": pinned, **({"offered": offered} if offered else {})}
    ).encode())


def _pinned_keys(config: Config, place: Place) -> list[str]:
    """The keys the place must answer with: those pinned for its address, else (its first copy)
    those it answers with now, pinned. Refusal when it cannot be asked."""
    kept = _kept_keys(config, place)
    if kept is not None:
        return list(kept["pinned"])
    keys = _scan(place)
    _keep_keys(config, place, keys)
    log.info("the network place %s's SSH key is pinned: %s", place.shown(), ", ".join(map(fingerprint, keys)))
    return keys


def _scan(place: Place) -> list[str]:
    """The host keys the SFTP place answers with now, asked by ssh-keyscan (no login: it never
    sees the user or the password); Refusal when none comes back."""
    keyscan = shutil.which("ssh-keyscan")
    if keyscan is None:
        raise Refusal("ssh-keyscan is not installed on this table (apt install openssh-client)")
    try:
        done = subprocess.run([keyscan, "-T", str(SCAN_S), "-p", str(place.port), "--", place.host],
                              capture_output=True, timeout=SCAN_S * 3, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        done = None
    keys = [] if done is None else sorted({found.group(0) for line in done.stdout.decode("ascii", "replace").splitlines()
                                           if not line.startswith("#") and (found := KEY.search(line)) is not None})
    if not keys:
        raise Refusal("the place {place} gave no SSH key: is an SFTP server at that address and port?",
                      place=place.shown())
    return keys


def _known_hosts(place: Place, keys: list[str]) -> str:
    """``keys`` as known hosts lines for the place's address, as ssh and rclone name it."""
    name = place.host if place.port == 22 and ":" not in place.host else f"[{place.host}]:{place.port}"
    return "".join(f"{name} {key}\n" for key in keys)


def _key_changed(config: Config, place: Place) -> Text:
    """The place answered with another key than the one pinned: nothing was sent (rclone stops
    before the login); the keys it answers with now are kept for the owner to compare and accept."""
    kept = _kept_keys(config, place)
    try:
        offered = _scan(place)
    except Refusal:
        offered = []
    if kept is not None:
        _keep_keys(config, place, kept["pinned"], offered)
    log.warning("the network place %s answered with another SSH key (%s) than the one pinned: no copy is sent",
                place.shown(), ", ".join(map(fingerprint, offered)) or "?")
    return Phrase.of("the place {place} answered with another SSH key than the one kept ({fingerprint}): nothing "
                     "was sent; compare it on the staff page and accept it only if the place's owner says it is new",
                     place=place.shown(), fingerprint=", ".join(map(fingerprint, offered)) or "?")


def fingerprint(key: str) -> str:
    """A host key's fingerprint as ssh prints it: ``ED25519 SHA256:…``."""
    kind, blob = key.split(" ", 1)
    digest = base64.b64encode(hashlib.sha256(base64.b64decode(blob)).digest()).decode().rstrip("=")
    named = {"ssh-ed25519": "ED25519", "ssh-rsa": "RSA"}.get(kind, "ECDSA")
    return f"{named} SHA256:{digest}"


def shown_key(config: Config, place: Place) -> dict[str, Any] | None:
    """The SFTP place's host keys as the staff page shows them: the ``pinned`` fingerprints, and
    the ``offered`` ones it answered with since (None when it has not), or None before its first copy."""
    kept = _kept_keys(config, place) if place.kind == "sftp" else None
    if kept is None:
        return None
    return {"pinned": [fingerprint(key) for key in kept["pinned"]],
            "offered": [fingerprint(key) for key in kept["offered"]] if kept.get("offered") else None}


def changed_key(config: Config) -> list[str] | None:
    """The fingerprints of the other keys the kept place answered with, until the owner accepts them."""
    place = load(config)
    found = None if place is None else shown_key(config, place)
    return None if found is None else found["offered"]


def accept_key(config: Config, compared: list[str]) -> None:
    """The keys the place answered with, pinned in place of the old ones, when they are those the
    owner ``compared`` (their fingerprints, as the page showed them): never one seen since."""
    place = load(config)
    kept = None if place is None else _kept_keys(config, place)
    if place is None or kept is None or not kept.get("offered"):
        raise Refusal("the network place answered with no other SSH key: there is none to accept")
    if compared != [fingerprint(key) for key in kept["offered"]]:
        raise Refusal("the place answered with yet another SSH key since the page showed it: compare the one shown now")
    _keep_keys(config, place, kept["offered"])
    log.warning("the network place %s's new SSH key is accepted: %s", place.shown(),
                ", ".join(map(fingerprint, kept["offered"])))


# --- a WebDAV place's own CA ----------------------------------------------------------------------


def keep_ca(config: Config, pem: str) -> None:
    """The CA that signed the kept WebDAV place's certificate (a café's NAS), which the owner gave,
    trusted for that place's address alone; Refusal naming what is wrong with it."""
    place = load(config)
    if place is None or place.kind != "webdav" or not place.tls:
        raise Refusal("a CA is for a WebDAV place over https: keep the place first, then give its CA")
    if not isinstance(pem, str) or len(pem) > CA_MOST or "-----BEGIN CERTIFICATE-----" not in pem:
        raise Refusal("the CA holds no PEM certificate (-----BEGIN CERTIFICATE-----): expected the file of the CA "
                      "that signed the place's certificate, at most {most} KB", most=CA_MOST // 1024)
    try:
        ssl.create_default_context(cadata=pem)
    except (ssl.SSLError, ValueError):
        raise Refusal("the CA's PEM certificate cannot be read: expected the file of the CA that signed the "
                      "place's certificate") from None
    config.paths.journal_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    write_private(config.paths.journal_dir / CA_FILE,
                  json.dumps({"host": place.host, "port": place.port, "pem": pem}).encode())
    log.warning("the network place %s's own CA is kept for its address", place.shown())


def _kept_ca(config: Config, place: Place) -> str | None:
    """The CA the owner gave for ``place``'s address, or None (none given, or given for another)."""
    try:
        kept = read_json(read_file(config.paths.journal_dir / CA_FILE, CA_MOST * 2))
    except (OSError, TooBig, ValueError):
        return None
    if place.kind != "webdav" or not isinstance(kept, dict) or not isinstance(kept.get("pem"), str) \
            or (kept.get("host"), kept.get("port")) != (place.host, place.port):
        return None
    return str(kept["pem"])
