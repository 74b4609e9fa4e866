"""A backup sealed with the owner's backup key before it leaves the SD card (issue 75): a USB stick
and a network place are a stranger's hands, as Home Assistant's backups have been encrypted by
default since 2025.

The seal is rclone's ``crypt`` remote (NaCl secretbox, XSalsa20-Poly1305, in 64 KiB blocks, the key
drawn from the backup key by scrypt), no cipher of ours: rclone is the table's already (the network
place's copy, ``offsite``), and a sealed copy is a crypt file as rclone writes one (filename
encryption off), so an owner can open it without pi-table (docs/cafe/backup.md). ``age`` would
also tell a copy cut short at a block's edge, which rclone's format does not; the backup inside
does (its gzip's end and its manifest's sha256), so a restore refuses that copy all the same, and
age would be a new program on every table (pyrage, its Python binding, is not in our registry).

The key is one the owner writes down (``roles.owners_code``: 100 bits, in the recovery code's
groups), shown once (the set-up's answer, or the owner's section when made anew) and kept in the
journal folder (``roles.BACKUP_KEY_FILE``, 0600), a piece of the owner's part (the buttons' reset
wipes it with the nightly backups it sealed); a set-up from a sealed backup keeps the key typed.
The nightly backup is sealed as it is made (``for_the_card``), so the stick, which the root helper
fills with the card's newest backup byte for byte, and the network place get it sealed; a copy
that is not sealed never leaves (``leaves``). A backup made
before the key existed (a plain ``.tar.gz``) is read without one (``opened``); the key's making
seals the ones the card keeps.

A restore opens a sealed backup with the key given (``opened``): a wrong key, a copy changed or
cut short is refused in words of a closed list (rclone's own go to the log), and nothing is applied.
A block whose seal does not match is all rclone's crypt tells: when it is the first, the key is
another or that block was changed (``WRONG_KEY`` says both); a later one, the key was right.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.errors import Refusal
from ..engine.phrase import N_
from ..files import PRIVATE_DIR, TooBig, read_file, write_private

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..config import Config

log = logging.getLogger("pi_table.backup")
MAGIC = b"RCLONE\x00\x00"  # how a file rclone's crypt sealed begins
REMOTE = "sealed"
RUN_S = 60.0  # a backup of a few MB, and scrypt once
NO_RCLONE = N_("rclone is not installed on this table (apt install rclone)")
NO_KEY = N_("the backup is sealed with the owner's backup key: type the key written down at the set-up "
            "(XXXX-XXXX-XXXX-XXXX-XXXX)")
WRONG_KEY = N_("the backup key given does not open this backup: it was sealed with another key, or changed or cut "
               "short after it was made; type the key written down when it was made, or choose another copy")
DAMAGED = N_("the sealed backup was changed or cut short after it was made: its seal does not match; choose another "
             "copy")
NOT_A_KEY = N_("a backup key is {groups} groups of {group} letters and digits (XXXX-XXXX-XXXX-XXXX-XXXX), as written "
               "down at the set-up")
CANNOT = N_("the backup could not be sealed or opened: rclone failed (the table's log says why)")
NOT_SEALED = N_("the nightly backup is not sealed (no backup key is kept, or rclone could not seal it): a copy leaves "
                "the SD card sealed only; the owner makes the key on the staff page (Copies off the SD card)")


class Unopened(Refusal):
    """A sealed backup that cannot be opened, or a backup that cannot be sealed: why, in words of
    the closed list above (never a file's contents)."""


def kept_key(config: Config) -> str | None:
    """The owner's backup key kept on this table (letters alone), or None (none made yet, or a kept
    file that is no key: the log says so)."""
    from ..web.roles import BACKUP_KEY_FILE

    path = config.paths.journal_dir / BACKUP_KEY_FILE
    try:
        return key_given(read_file(path, 256).decode("ascii"))
    except FileNotFoundError:
        return None
    except (OSError, TooBig, UnicodeDecodeError, Unopened) as e:
        log.warning("%s is not a backup key (%s): no copy leaves the SD card", path, e)
        return None


def key_given(typed: str) -> str:
    """The backup key as typed (any case, spaces or dashes), as it is kept; Unopened naming the form."""
    from ..web.roles import RECOVERY_GROUP, RECOVERY_GROUPS, RECOVERY_LETTERS, recovery_code  # aiohttp: not at import

    key = recovery_code(typed) if isinstance(typed, str) else ""
    if len(key) != RECOVERY_GROUPS * RECOVERY_GROUP or any(letter not in RECOVERY_LETTERS for letter in key):
        raise Unopened(NOT_A_KEY, groups=RECOVERY_GROUPS, group=RECOVERY_GROUP)
    return key


def new_key(config: Config, nightly: Iterable[Path], most: int) -> str:
    """A new backup key kept for this table, the ``nightly`` backups the card keeps (each at most
    ``most`` bytes) sealed with it (those sealed with the key before opened first; one that cannot
    be is left as it is): the key, as it is shown once. Copies sealed before, on a stick or at the
    place, still need the key before (``backup.new_key``)."""
    from ..web.roles import owners_code

    shown = owners_code()
    before = kept_key(config)
    keep_key(config, shown)
    for path in nightly:
        try:
            write_private(path, seal(opened(read_file(path, most), before), key_given(shown)))
        except (OSError, TooBig, Refusal) as e:
            log.warning("the nightly backup %s is left as it was: %s", path.name, e)
    log.warning("a new backup key is kept: the nightly backups are sealed with it from now on")
    return shown


def keep_key(config: Config, typed: str) -> None:
    """``typed`` kept as this table's backup key (Unopened when it is none): the owner's, given at
    a set-up from a sealed backup, so the copies from then on open with the key written down."""
    from ..web.roles import BACKUP_KEY_FILE

    journal = config.paths.journal_dir
    journal.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    write_private(journal / BACKUP_KEY_FILE, key_given(typed).encode("ascii"))


def is_sealed(data: bytes) -> bool:
    return data.startswith(MAGIC)


def for_the_card(config: Config, data: bytes) -> bytes:
    """The nightly backup ``data`` as the card keeps it: sealed with the owner's key when one is
    kept (the stick and the place get it as it is), else as it is (and it leaves the card nowhere)."""
    key = kept_key(config)
    return data if key is None else seal(data, key)


def leaves(made: Path) -> bool:
    """Whether the nightly backup ``made`` may leave the SD card: sealed (its first bytes alone read)."""
    try:
        with made.open("rb") as file:
            return is_sealed(file.read(len(MAGIC)))
    except OSError:
        return False


def seal(data: bytes, key: str) -> bytes:
    """``data`` sealed with ``key`` by rclone's crypt; Unopened when it cannot be."""
    done, sealed = _crypt(key, data, False)
    if done.returncode != 0 or sealed is None:
        log.warning("rclone could not seal a backup: %s", _said(done.stderr))
        raise Unopened(CANNOT)
    return sealed


def opened(data: bytes, key: str | None) -> bytes:
    """The backup inside ``data``: ``data`` itself when it is not sealed (a backup made before the
    key existed, or an upload), else opened with ``key``; Unopened saying why not (no key, the wrong
    key, a copy changed or cut short), nothing of it returned."""
    if not is_sealed(data):
        return data
    if key is None:
        raise Unopened(NO_KEY)
    done, _ = _crypt(key, data, True)
    if done.returncode == 0:
        return done.stdout
    said = _said(done.stderr)
    log.warning("rclone could not open a sealed backup: %s", said)
    if "too short" in said or "bad magic" in said:  # its seal's header is not whole
        raise Unopened(DAMAGED)
    if "bad password" in said or "unexpected EOF" in said:  # a block's seal does not match (rclone says either)
        raise Unopened(DAMAGED if done.stdout else WRONG_KEY)  # the first: another key, or that block changed
    raise Unopened(CANNOT)


def _crypt(key: str, data: bytes, sealed: bool) -> tuple[subprocess.CompletedProcess[bytes], bytes | None]:
    """``data`` sealed (or, ``sealed``, opened: rclone's answer) by rclone's crypt remote over a
    private temporary folder, with a configuration of its own (the key obscured in it as rclone
    expects, no ``RCLONE_*`` from elsewhere); the folder gone once done. Unopened when rclone
    cannot run."""
    rclone = shutil.which("rclone")
    if rclone is None:
        raise Unopened(NO_RCLONE)
    try:
        folder = Path(tempfile.mkdtemp(prefix="pi-table-sealed-"))
    except OSError as e:
        log.warning("no temporary folder to seal or open a backup in: %s", e)
        raise Unopened(CANNOT) from None
    try:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder)}
        (folder / "sealed").mkdir(mode=PRIVATE_DIR)
        conf = folder / "rclone.conf"
        write_private(conf, (f"[{REMOTE}]\ntype = crypt\nremote = {folder / 'sealed'}\n"
                             "filename_encryption = off\ndirectory_name_encryption = false\n"
                             f"password = {obscured(rclone, key, env)}\n").encode())
        if sealed:
            write_private(folder / "sealed" / "backup.bin", data)
            return _rclone(rclone, conf, env, "cat", "--", f"{REMOTE}:backup"), None
        write_private(folder / "plain", data)
        done = _rclone(rclone, conf, env, "copyto", "--", str(folder / "plain"), f"{REMOTE}:backup")
        made = folder / "sealed" / "backup.bin"
        return done, made.read_bytes() if done.returncode == 0 and made.exists() else None
    except OSError as e:
        log.warning("a backup could not be sealed or opened in %s: %s", folder, e)
        raise Unopened(CANNOT) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def obscured(rclone: str, secret: str, env: dict[str, str]) -> str:
    """``secret`` obscured as rclone's configuration holds a password, by rclone itself (given on
    its standard input, never as an argument); Refusal when it cannot."""
    try:
        return subprocess.run([rclone, "obscure", "-"], input=secret.encode(), capture_output=True,
                              timeout=RUN_S, check=True, env=env).stdout.decode().strip()
    except (OSError, subprocess.SubprocessError):
        raise Unopened("rclone could not keep a password in its configuration") from None


def _rclone(rclone: str, conf: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run([rclone, "--config", str(conf), *args], capture_output=True, timeout=RUN_S,
                              check=False, env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        log.warning("rclone did not seal or open a backup: %s", e)
        raise Unopened(CANNOT) from None


def _said(stderr: bytes) -> str:
    return " ".join(stderr.decode("utf-8", "replace").split())
