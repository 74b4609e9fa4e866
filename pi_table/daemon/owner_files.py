"""The files the owner gives the table from the staff page, so no terminal is needed for them: the
HTTPS certificate and its key (uploaded, or made here self-signed), the fleet broker's password (and the café's CA that signed its certificate),
and the words a game night's team names may not use.

Each is written, 0600, under a name of its own in ``files/`` beside the configuration (the
service's folder, never the journal's), and the settings are changed to name it as any change
from the staff page is: checked, then tried (``Restarts.change``), kept only if the table comes
back healthy on it. A rollback puts back the configuration that names the files before, so those
are kept until no configuration the table could go back to names them (``prune``).
"""

from __future__ import annotations

import logging
import os
import re
import socket
import subprocess
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import bound, trial
from ..config.settings import BROKER, hide_password
from ..engine.errors import Refusal
from ..files import PRIVATE_DIR, write_private
from ..kinds import SECRETS

if TYPE_CHECKING:
    from ..config import Config

log = logging.getLogger("pi_table.daemon")
FOLDER = SECRETS
KEYS = ("web.tls_cert", "web.tls_key", "fleet.password_file", "fleet.ca", "night.blocked_words",
        "fleet.dashboard_password_file", "notify.url_file")
"""The settings that name a file this room writes."""
KINDS = ("tls", "broker", "blocked-words", "dashboard", "notify")
PEM_MOST = 32 * 1024  # a certificate with its chain, or a key: a few kilobytes
WORDS_MOST = 2000  # blocked words: a list a person keeps, not a dictionary
WORD_MOST = 40  # characters: longer than any team's name
OPENSSL_S = 30.0
DAYS = 3650  # a self-signed certificate is trusted by hand once: ten years, not a renewal to forget


def folder(config: Config) -> Path:
    """Where the owner's files go: ``files/`` beside the configuration file (0700)."""
    if config.source is None:
        raise Refusal("no configuration file: the table runs on its defaults (start one with pi-table check-config "
                      "--defaults)")
    where = config.source.parent / FOLDER
    where.mkdir(mode=PRIVATE_DIR, exist_ok=True)
    return where


def _fresh(where: Path, stem: str, suffix: str) -> Path:
    """A name no file has yet: the one before stays for a rollback to name."""
    return where / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 1_000_000:06d}{suffix}"


def changes(config: Config, kind: str, given: dict[str, Any], reached: str | None,
            broker: str | None = None) -> tuple[dict[str, object], list[Path]]:
    """The files of ``kind`` written from what the owner gave, and the settings that name them
    (a password bound to ``broker``, the table's by default: ``config.bound``); Refusal saying
    what is wrong with what was given (nothing written then)."""
    where = folder(config)
    if kind == "tls":
        return _tls(where, given, reached)
    if kind == "broker":
        return _broker(where, given)
    if kind == "blocked-words":
        return _blocked_words(where, given)
    if kind == "dashboard":
        return _dashboard(where, given, str(config.values[BROKER]) if broker is None else broker)
    if kind == "notify":
        return _notify(where, given)
    raise Refusal("unknown kind {kind}: expected one of {kinds}", kind=kind[:30], kinds=", ".join(KINDS))


def _text(given: dict[str, Any], name: str, most: int) -> str:
    value = given.get(name)
    if not isinstance(value, str) or not value.strip():
        raise Refusal("expected {name}: the file's text, pasted or chosen", name=name)
    if len(value.encode("utf-8", "replace")) > most:
        raise Refusal("{name} is longer than a file of its kind ({most} bytes at most)", name=name, most=most)
    return value.strip() + "\n"


def _tls(where: Path, given: dict[str, Any], reached: str | None) -> tuple[dict[str, object], list[Path]]:
    cert, key = _fresh(where, "https", ".crt"), _fresh(where, "https", ".key")
    if given.get("self_signed") is True:
        _self_signed(cert, key, reached)
    else:
        certificate, private = _text(given, "cert", PEM_MOST), _text(given, "key", PEM_MOST)
        if "-----BEGIN CERTIFICATE-----" not in certificate:
            raise Refusal("the certificate holds no PEM certificate (-----BEGIN CERTIFICATE-----): expected the "
                          ".crt or .pem file the certificate came in")
        if not re.search(r"-----BEGIN [A-Z ]*PRIVATE KEY-----", private):
            raise Refusal("the key holds no PEM private key: expected the .key file made with the certificate")
        write_private(cert, certificate.encode())
        write_private(key, private.encode())
    return {"web.tls_cert": str(cert), "web.tls_key": str(key)}, [cert, key]


def _self_signed(cert: Path, key: Path, reached: str | None) -> None:
    """A certificate for this table's name (and ``.local``, and the address the page was reached
    on), made by openssl here: the key never leaves the table."""
    host = socket.gethostname()
    names = [f"DNS:{host}", f"DNS:{host}.local"] + ([f"IP:{reached}"] if reached else [])
    try:
        done = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                               "-nodes", "-keyout", str(key), "-out", str(cert), "-subj", f"/CN={host}",
                               "-days", str(DAYS), "-addext", f"subjectAltName={','.join(names)}"],
                              capture_output=True, timeout=OPENSSL_S, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        raise Refusal("a certificate cannot be made here ({error}): is openssl installed? (apt install openssl)",
                      error=str(e)) from None
    if done.returncode != 0:
        for made in (cert, key):
            made.unlink(missing_ok=True)
        raise Refusal("openssl could not make a certificate: {error}",
                      error=done.stderr.decode("utf-8", "replace").strip()[-200:])
    for made in (cert, key):
        os.chmod(made, 0o600)


def _broker(where: Path, given: dict[str, Any]) -> tuple[dict[str, object], list[Path]]:
    broker, table_id, password = given.get("broker"), given.get("table_id"), given.get("password")
    if not isinstance(broker, str) or not isinstance(table_id, str):
        raise Refusal("expected the broker's address (mqtts://USER@HOST:PORT) and this table's name in the fleet")
    if re.match(r"^mqtts?://[^/@]*:[^/@]*@", broker):
        raise Refusal("the broker's address holds a password: give it in its own field, and the address as "
                      "mqtts://USER@HOST:PORT")
    found: dict[str, object] = {"fleet.broker": broker.strip(), "fleet.table_id": table_id.strip()}
    written = []
    if given.get("ca"):  # the café's own CA, that signed the broker's certificate
        authority = _text(given, "ca", PEM_MOST)
        if "-----BEGIN CERTIFICATE-----" not in authority:
            raise Refusal("the CA certificate holds no PEM certificate (-----BEGIN CERTIFICATE-----): expected the "
                          ".crt file of the CA that signed the broker's certificate")
        ca = _fresh(where, "broker-ca", ".crt")
        write_private(ca, authority.encode())
        found["fleet.ca"], written = str(ca), [ca]
    if password is None or password == "":
        return found, written  # the password kept as it is
    if not isinstance(password, str):
        raise Refusal("the broker's password is one line of at most 1024 characters")
    file = _password(where, "broker", password)
    bound.give(str(file), bound.PASSWORD, bound.broker_destination(broker.strip()))
    return {**found, "fleet.password_file": str(file)}, [*written, file]


def _dashboard(where: Path, given: dict[str, Any], broker: str) -> tuple[dict[str, object], list[Path]]:
    """The fleet's dashboard on this table (issue 50, 3): its port (0: none), the broker's user it
    reads as, and that user's password (empty: the one set kept), given for the table's ``broker``;
    the settings check the rest."""
    port, user, password = given.get("port"), given.get("user", "dashboard"), given.get("password", "")
    if not isinstance(port, int) or isinstance(port, bool) or not isinstance(user, str) or not isinstance(password, str):
        raise Refusal("expected the dashboard's port (0: none), the broker's user it reads as and that user's password")
    found: dict[str, object] = {"fleet.dashboard_port": port, "fleet.dashboard_user": user.strip()}
    if not password:
        return found, []
    file = _password(where, "dashboard", password)
    bound.give(str(file), bound.DASHBOARD, bound.broker_destination(broker))
    return {**found, "fleet.dashboard_password_file": str(file)}, [file]


def _notify(where: Path, given: dict[str, Any]) -> tuple[dict[str, object], list[Path]]:
    """The owner's notifications (issue 62): the events chosen, and the Apprise URL (empty: the one
    set kept; ``forget``: none), checked as the kind it is before it is written."""
    from .notices import EVENTS, NoticeUrl

    url, events, forget = given.get("url", ""), given.get("events"), given.get("forget", False)
    if not isinstance(url, str) or not isinstance(events, list) or not all(isinstance(e, str) for e in events) \
            or not isinstance(forget, bool):
        raise Refusal("expected the notifications' address (empty: keep the one set) and the events chosen, a list")
    unknown = [event for event in events if event not in EVENTS]
    if unknown:
        raise Refusal("the events are among {events}, not {unknown!r}", events=", ".join(EVENTS),
                      unknown=unknown[0][:40])
    found: dict[str, object] = {"notify.events": list(dict.fromkeys(events))}
    if forget:
        return {**found, "notify.url_file": ""}, []
    if not url.strip():
        return found, []
    checked = NoticeUrl.parse(url)
    file = _fresh(where, "notify", ".url")
    write_private(file, checked.text.encode() + b"\n")
    bound.give(str(file), bound.NOTIFY, bound.address_destination(checked.text))
    return {**found, "notify.url_file": str(file)}, [file]


def _password(where: Path, stem: str, password: str) -> Path:
    """A broker's password written to a file of its own, readable by the service alone."""
    if "\n" in password or len(password) > 1024:
        raise Refusal("the broker's password is one line of at most 1024 characters")
    file = _fresh(where, stem, ".password")
    write_private(file, password.encode() + b"\n")
    return file


def _blocked_words(where: Path, given: dict[str, Any]) -> tuple[dict[str, object], list[Path]]:
    words = given.get("words")
    if not isinstance(words, str):
        raise Refusal("expected the words, one a line")
    kept = list(dict.fromkeys(word.strip() for word in words.splitlines() if word.strip()))
    if not kept:
        return {"night.blocked_words": ""}, []
    if len(kept) > WORDS_MOST:
        raise Refusal("{count} words: at most {most} may be blocked", count=len(kept), most=WORDS_MOST)
    spaced = next((word for word in kept if len(word.split()) > 1), None)
    if spaced is not None:
        raise Refusal("one word a line: {line!r} is more than one", line=spaced[:WORD_MOST])
    long = next((word for word in kept if len(word) > WORD_MOST), None)
    if long is not None:
        raise Refusal("a word of {length} characters: a blocked word has at most {most}", length=len(long),
                      most=WORD_MOST)
    file = _fresh(where, "blocked-words", ".txt")
    write_private(file, "\n".join(kept).encode() + b"\n")
    return {"night.blocked_words": str(file)}, [file]


def prune(config: Config) -> None:
    """Remove the files of ``files/`` that neither the configuration nor the last good one (which a
    rollback would put back) names."""
    if config.source is None:
        return
    named = set()
    for path in (config.source, trial.beside(config.source, trial.GOOD)):
        try:
            document = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in KEYS:
            section, _, name = key.partition(".")
            value = document.get(section, {}).get(name) if isinstance(document.get(section), dict) else None
            if isinstance(value, str) and value:
                named.add(os.path.realpath(value if os.path.isabs(value) else path.parent / value))
    where = config.source.parent / FOLDER
    for file in where.glob("*-*") if where.is_dir() else ():
        if os.path.realpath(file) not in named:
            file.unlink(missing_ok=True)
            log.info("the owner's file %s is no longer named by the settings: removed", file.name)
    bound.forget_missing(where)


def state(config: Config) -> dict[str, Any]:
    """What the owner set: the certificate's files, the broker (its password never), the blocked words."""
    values = config.values
    blocked = str(values["night.blocked_words"])
    try:
        words = [word for word in Path(blocked).read_text(encoding="utf-8").splitlines() if word.strip()] if blocked else []
    except (OSError, UnicodeDecodeError):
        words = []
    return {"tls": {"cert": str(values["web.tls_cert"]) or None, "key_set": bool(values["web.tls_key"])},
            "broker": {"broker": hide_password(str(values[BROKER])), "table_id": str(values["fleet.table_id"]),
                       "password_set": bool(values["fleet.password_file"])},
            "blocked_words": words[:WORDS_MOST], "https": bool(values["web.tls_cert"]),
            "dashboard": {"port": values["fleet.dashboard_port"], "user": str(values["fleet.dashboard_user"]),
                          "password_set": bool(values["fleet.dashboard_password_file"])},
            "notify": {"url_set": bool(values["notify.url_file"])}}
