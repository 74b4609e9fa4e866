"""A table's first boot from the SD image: the root helper's ``first-boot`` act, which
pi-table-first-boot.service runs before the table's first start (docs/dev/first-boot.md).

The image holds no secret of any table: every table makes its own here, on the device. The
phones' secret and the staff phones' device key, the TLS key and its self-signed certificate,
and, for a table nobody has set up yet, the one-time code its screen shows for the set-up page and
the name and password of the Wi-Fi it opens when it finds no network (``setup.pending``). Each
is made only when it is missing, so a second run changes nothing. The set-up page
(``web.setup``) removes ``setup.pending`` and writes ``setup.done``.

Standard library only, beside the layers below: the root helper runs it with the system's Python.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..engine.phrase import N_
from ..files import (
    DEVICE_KEY,
    PHONES_SECRET,
    SECRET_BYTES,
    SETUP_DONE,
    SETUP_PENDING,
    read_file,
    read_json,
    write_private,
)
from .layout import ReleaseError
from .service_user import ServiceUser

CONFIG = Path("/etc/pi-table/config.toml")
JOURNAL = "/var/lib/pi-table/journal"  # [paths] journal_dir's default
PENDING, DONE = SETUP_PENDING, SETUP_DONE
PIN, OWNER = "staff.pin", "owner.pass"  # the staff page's and the owner's secrets (web.staff, web.roles)
SET_UP = (PIN, OWNER, DONE)  # any of them: the table was set up, and waits for no set-up
TLS, TLS_KEY, TLS_CERT = "tls", "table.key", "table.crt"
CERT_DAYS = 3650
CODE_DIGITS = 8
WIFI_LETTERS = "abcdefghijkmnpqrstuvwxyz23456789"  # no l, o, 0 or 1: read off a screen, typed on a phone
WIFI_PASSWORD = 12  # letters: 60 bits
MOST = 4096  # bytes: what setup.pending holds is a few lines


@dataclass(frozen=True, slots=True)
class Pending:
    """A table waiting for its set-up: the code its screen shows, and its own Wi-Fi's name and password."""

    code: str
    ssid: str
    password: str
    since: str

    @property
    def shown(self) -> str:
        """The code as the screen shows it and a person types it: two groups of four digits."""
        return f"{self.code[:4]} {self.code[4:]}"

    def matches(self, tried: str) -> bool:
        import hmac  # a set-up's try only

        digits = "".join(tried.split())
        return digits.isascii() and hmac.compare_digest(digits, self.code)


def new_pending() -> Pending:
    """A new code and Wi-Fi, random."""
    code = f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"
    tag = "".join(secrets.choice(WIFI_LETTERS) for _ in range(4))
    password = "".join(secrets.choice(WIFI_LETTERS) for _ in range(WIFI_PASSWORD))
    return Pending(code, f"pi-table-{tag}", password, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def pending(folder: Path) -> Pending | None:
    """The set-up the table in ``folder`` waits for; None when it waits for none. Only a table
    with neither a staff PIN nor an owner's passphrase waits for one: a file appearing (written
    by anything the service can be made to write) never takes a table back to its set-up, where
    whoever stands at its screen sets both. For a table with neither, a file that is not one
    setup.pending holds still means a table waiting: it is given a new code (``keep_pending``)."""
    if any((folder / name).exists() for name in (PIN, OWNER)):
        return None
    try:
        return _read_pending(folder)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return keep_pending(folder, new_pending())


def awaiting(folder: Path) -> Pending | None:
    """The set-up the table in ``folder`` waits for, as the root helper judges it before it opens
    the table's own Wi-Fi: its setup.pending while it has no staff PIN, owner's passphrase or
    setup.done (``first_boot``'s rule), else None; a file that is not one is none, and nothing is written."""
    if any((folder / name).exists() for name in SET_UP):
        return None
    try:
        return _read_pending(folder)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _read_pending(folder: Path) -> Pending:
    data = read_json(read_file(folder / PENDING, MOST))
    hotspot = data["hotspot"]
    found = Pending(data["code"], hotspot["ssid"], hotspot["password"], data["since"])
    if not (isinstance(found.code, str) and len(found.code) == CODE_DIGITS and found.code.isdigit()
            and all(isinstance(value, str) for value in (found.ssid, found.password, found.since))):
        # caught by its callers: a damaged file is a new code (its words, a password among them, never said)
        raise TypeError(f"{PENDING} holds a code of {CODE_DIGITS} digits and the hotspot's words")
    return found


def keep_pending(folder: Path, waiting: Pending) -> Pending:
    """Mark the table in ``folder`` not set up, waiting for ``waiting``'s code (0600, written whole)."""
    data = {"code": waiting.code, "hotspot": {"ssid": waiting.ssid, "password": waiting.password},
            "since": waiting.since}
    write_private(folder / PENDING, json.dumps(data).encode("utf-8"))
    return waiting


def set_up(folder: Path, by: str | None) -> None:
    """The table in ``folder`` is set up: ``setup.done`` written (by whom: an address), then
    ``setup.pending`` removed, so a power cut between the two leaves a table that is set up."""
    done = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "from": by}
    write_private(folder / DONE, json.dumps(done).encode("utf-8"))
    (folder / PENDING).unlink(missing_ok=True)


def journal_folder(config: Path) -> Path:
    """The journal folder ``config`` names (``[paths] journal_dir``, relative to the file's folder),
    read as the installer reads it: the table's whole checker is not what root runs."""
    try:
        with open(config, "rb") as file:
            named = tomllib.load(file).get("paths", {}).get("journal_dir", JOURNAL)
    except FileNotFoundError:
        named = JOURNAL
    except (OSError, tomllib.TOMLDecodeError, AttributeError) as e:
        raise ReleaseError(N_("{path} cannot be read ({error}): run pi-table check-config on it"),
                           path=str(config), error=getattr(e, "strerror", None) or type(e).__name__) from None
    if not isinstance(named, str) or not named:
        raise ReleaseError(N_("{path}: [paths] journal_dir is not a folder's path"), path=str(config))
    journal = Path(named)
    return journal if journal.is_absolute() else config.parent / journal


def first_boot(config: Path, user: ServiceUser) -> list[str]:
    """Make what is missing of this table's own (``config`` names its folders), every file the
    service user's; what was made, in words for the log (never a secret)."""
    folder = journal_folder(config)
    made = [f"folder {path}" for path in _folders(folder, user)]
    for name in (PHONES_SECRET, DEVICE_KEY):
        if not (folder / name).exists():
            write_private(folder / name, secrets.token_bytes(SECRET_BYTES))
            _own(folder / name, user)
            made.append(name)
    made += own_certificate(config.parent / TLS, user)
    if not any((folder / name).exists() for name in (*SET_UP, PENDING)):
        keep_pending(folder, new_pending())
        _own(folder / PENDING, user)
        made.append(f"{PENDING}: the screen shows the set-up page's code")
    return made


def _folders(folder: Path, user: ServiceUser | None) -> list[Path]:
    """``folder`` and the parents it lacks, made 0700 and the service user's; those made."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir(mode=0o700)
        _own(each, user)
    return missing


def own_certificate(folder: Path, user: ServiceUser | None = None,
                    addresses: tuple[str, ...] | None = None) -> list[str]:
    """The table's own TLS key (0600) and a self-signed certificate for this host in ``folder``
    (``tls`` beside the configuration), made when either is missing: by the first boot as root
    (``user`` then owns them), or by the service itself for a table that had none. The
    certificate names the host, ``HOST.local`` and ``addresses`` (the IP addresses phones are led
    to, which the service knows and the first boot, before the network, does not: None); one that
    names other addresses is renewed with the same key. A certificate that cannot be read is left
    as it is, for its load to say so. What was made, in words for the log; the staff
    and set-up pages take their secrets over https with it."""
    key, cert = folder / TLS_KEY, folder / TLS_CERT
    if key.exists() and cert.exists():
        named = None if addresses is None else _addresses(cert)
        if named is None or named == set(addresses or ()):
            return []
    openssl = shutil.which("openssl")
    if openssl is None:
        return ["no TLS key: openssl is not installed"]
    made = _folders(folder, user)
    host = socket.gethostname() or "pi-table"
    names = ",".join([f"DNS:{host}", f"DNS:{host}.local", *(f"IP:{address}" for address in addresses or ())])
    renewing = key.exists() and cert.exists()
    new = cert.with_name(f"{TLS_CERT}.new")
    umask = os.umask(0o077)
    try:
        keyed = ["-new", "-key", str(key)] if renewing else [
            "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(key)]
        done = subprocess.run([openssl, "req", "-x509", *keyed, "-out", str(new), "-days", str(CERT_DAYS),
                               "-subj", f"/CN={host}", "-addext", f"subjectAltName={names}"],
                              capture_output=True, text=True, timeout=60, check=False)
    finally:
        os.umask(umask)
    if done.returncode != 0:
        new.unlink(missing_ok=True)
        if not renewing:
            key.unlink(missing_ok=True)
        return [f"no TLS {'certificate' if renewing else 'key'}: openssl failed "
                f"({(done.stderr.strip().splitlines() or ['?'])[-1][:200]})"]
    new.chmod(0o644)
    os.replace(new, cert)
    for path in (key, cert):
        _own(path, user)
    if renewing:
        return [f"{TLS}/{TLS_CERT} renewed for {names}, with the same key"]
    return [*(f"folder {path}" for path in made), f"{TLS}/{TLS_KEY}", f"{TLS}/{TLS_CERT} for {names}"]


def _addresses(cert: Path) -> set[str] | None:
    """The IP addresses ``cert`` names (openssl says them); None when it cannot be read."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    done = subprocess.run([openssl, "x509", "-in", str(cert), "-noout", "-ext", "subjectAltName"],
                          capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        return None
    return {name.strip().removeprefix("IP Address:") for name in done.stdout.replace("\n", ",").split(",")
            if name.strip().startswith("IP Address:")}


def fingerprint(cert: Path) -> str:
    """The SHA-256 fingerprint of the PEM certificate ``cert``, as browsers show it (pairs of hex
    digits, colons between): what the owner compares with the phone's warning the first time."""
    import hashlib
    import ssl

    der = ssl.PEM_cert_to_DER_cert(read_file(cert, MOST_CERT).decode("ascii"))
    return ":".join(f"{byte:02X}" for byte in hashlib.sha256(der).digest())


MOST_CERT = 64 * 1024  # bytes: a certificate and its chain


def _own(path: Path, user: ServiceUser | None) -> None:
    if os.geteuid() == 0 and user is not None and user.user is not None:
        os.lchown(path, user.uid, user.gid)
