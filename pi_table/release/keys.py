"""The keys a table accepts releases from: its keyring, as RAUC keeps one, and the signatures
that tie a release to a maker's key.

A release is signed with a maker's Ed25519 key by OpenSSH's own signing (``ssh-keygen -Y sign``,
in Debian 12's and Raspberry Pi OS's openssh-client): the signature covers the bundle's
manifest, which holds the SHA-256 of every file in it, so one signature vouches for the whole
bundle. The table keeps the public keys it accepts in ``/etc/pi-table-keys/`` (root's alone:
never in /etc/pi-table, which the service may write): ``allowed_signers``, one line per key as
``ssh-keygen -Y verify`` reads it (a name, the namespace this module signs in, the key), and
``revoked_keys``, the public keys no longer accepted, checked at every verification even when
a line for them is left in ``allowed_signers``. A commit of the repository a table was installed
from is checked against the same files (git's ``gpg.ssh.allowedSignersFile``).

Standard library and ssh-keygen only: the root helper runs this with the system's Python.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..engine.phrase import N_
from ..files import replace_file
from .layout import ReleaseError

NAMESPACE, GIT = "pi-table-release", "git"
"""What a signature is for: a bundle's, or a commit's (git's own namespace) of the repository a
table updates from; ssh-keygen refuses a key's signature made for any other purpose (a login)."""
KEYRING = Path("/etc/pi-table-keys")
ALLOWED, REVOKED = "allowed_signers", "revoked_keys"
OWNERS = "owners_keys"  # the names of the keys the owner added from the staff page: the owner's part, which a reset wipes
MAX_SIGNATURE = 8192  # an Ed25519 SSH signature, armoured, is under 400 bytes
KEY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
PUBLIC_KEY = re.compile(r"ssh-ed25519 ([A-Za-z0-9+/]+={0,2})(?: .*)?")
TIMEOUT_S = 30


@dataclass(frozen=True, slots=True)
class Key:
    """A key in the keyring: its name, its fingerprint as ssh-keygen prints it, and whether it was revoked."""

    name: str
    fingerprint: str
    revoked: bool


def fingerprint(blob: str) -> str:
    """``SHA256:...`` of a public key's base64 blob, as ``ssh-keygen -l`` prints it."""
    digest = hashlib.sha256(base64.b64decode(blob)).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def _ssh_keygen() -> str:
    found = shutil.which("ssh-keygen")
    if found is None:
        raise ReleaseError(N_("ssh-keygen is missing, which checks a release's signature: install openssh-client"))
    return found


def sign(data: bytes, key: Path) -> bytes:
    """``data`` signed with the private key ``key`` (an Ed25519 key ``ssh-keygen -t ed25519`` made)."""
    done = subprocess.run([_ssh_keygen(), "-q", "-Y", "sign", "-f", str(key), "-n", NAMESPACE], input=data,
                          capture_output=True, timeout=TIMEOUT_S, check=False)
    if done.returncode != 0 or not done.stdout.startswith(b"-----BEGIN SSH SIGNATURE-----"):
        raise ReleaseError(N_("the release cannot be signed with {key}: {error}"), key=str(key),
                           error=_last_line(done.stderr) or "ssh-keygen failed")
    return done.stdout


def _last_line(text: bytes) -> str:
    lines = [line for line in text.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


class Keyring:
    """The keys in ``folder`` (/etc/pi-table-keys): ``verify`` a signature against them, and
    ``add``, ``revoke`` and ``keys`` for the owner's ``pi-table keys``."""

    def __init__(self, folder: Path = KEYRING) -> None:
        self.folder = Path(folder)

    @property
    def allowed(self) -> Path:
        return self.folder / ALLOWED

    @property
    def revoked(self) -> Path:
        return self.folder / REVOKED

    def _lines(self, path: Path) -> list[str]:
        try:
            return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
                    if line.strip() and not line.lstrip().startswith("#")]
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as e:
            raise ReleaseError(N_("the table's keyring {path} cannot be read ({error})"), path=str(path),
                               error=getattr(e, "strerror", None) or type(e).__name__) from None

    def _revoked_blobs(self) -> set[str]:
        return set(self._revoked_names())

    def _revoked_names(self) -> dict[str, str]:
        """Each revoked key's blob, with the name ``revoke`` wrote after it ('' for none)."""
        return {match.group(1): line.split(" ", 2)[2] if line.count(" ") >= 2 else ""
                for line in self._lines(self.revoked) if (match := PUBLIC_KEY.fullmatch(line))}

    def listed(self) -> list[Key]:
        """Every key named in ``allowed_signers``, revoked or not, and the revoked ones no longer
        named there (by the name they were revoked under)."""
        names = self._revoked_names()
        revoked = set(names)
        found, seen = [], set()
        for line in self._lines(self.allowed):
            name, _, rest = line.partition(" ")
            match = re.search(r"ssh-ed25519 ([A-Za-z0-9+/]+={0,2})", rest)
            if match:
                seen.add(match.group(1))
                found.append(Key(name, fingerprint(match.group(1)), match.group(1) in revoked))
        found += [Key(names[blob], fingerprint(blob), True) for blob in sorted(revoked - seen)]
        return found

    def verify(self, data: bytes, signature: bytes) -> str:
        """The name of the accepted key that signed ``data``; ReleaseError saying why not: no
        signature, no key accepted at all, a key this table does not know, a revoked key, or a
        signature that does not match (the data changed after it was signed)."""
        if not signature.startswith(b"-----BEGIN SSH SIGNATURE-----") or len(signature) > MAX_SIGNATURE:
            raise ReleaseError(N_("the release is not signed: a table installs only releases signed with a key "
                                  "it accepts (pi-table bundle --key)"))
        if (loose := ownership_problem(self.folder)) is not None:
            raise ReleaseError(N_("the table's keyring {path} may be changed by a user other than root, so it is "
                                  "not trusted: sudo chown root: {path} && sudo chmod go-w {path}"), path=loose)
        if not any(not key.revoked for key in self.listed()):
            raise ReleaseError(N_("this table accepts no release key yet: the owner adds one on the staff "
                                  "page, under Release keys: Add a key"))
        keygen = _ssh_keygen()
        with tempfile.TemporaryDirectory(prefix="pi-table-signature-") as scratch:
            signed = Path(scratch) / "signature"
            signed.write_bytes(signature)
            signer = self._signer(keygen, data, signed)
            if (gone := next((key for key in self.listed() if key.revoked and key.fingerprint == signer), None)):
                raise ReleaseError(N_("the release is signed with key {name} ({fingerprint}), which was revoked"),
                                   name=gone.name, fingerprint=signer)  # said before "not accepted": the owner revoked it
            principals = subprocess.run([keygen, "-Y", "find-principals", "-s", str(signed), "-f", str(self.allowed)],
                                        capture_output=True, timeout=TIMEOUT_S, check=False)
            names = principals.stdout.decode("utf-8", "replace").split()
            if principals.returncode != 0 or not names:
                raise ReleaseError(N_("the release is signed with key {fingerprint}, which this table does not "
                                      "accept"), fingerprint=signer)
            command = [keygen, "-Y", "verify", "-f", str(self.allowed), "-I", names[0], "-n", NAMESPACE,
                       "-s", str(signed)]
            if self.revoked.is_file():
                command += ["-r", str(self.revoked)]
            verified = subprocess.run(command, input=data, capture_output=True, timeout=TIMEOUT_S, check=False)
        if verified.returncode != 0:
            raise ReleaseError(N_("the release's signature does not match what it holds: it was changed after it "
                                  "was signed"))
        return names[0]

    @staticmethod
    def _signer(keygen: str, data: bytes, signed: Path) -> str:
        """The fingerprint of the key that made the signature, whoever it is (checked against no keyring)."""
        checked = subprocess.run([keygen, "-Y", "check-novalidate", "-n", NAMESPACE, "-s", str(signed)],
                                 input=data, capture_output=True, timeout=TIMEOUT_S, check=False)
        said = checked.stdout.decode("utf-8", "replace") + checked.stderr.decode("utf-8", "replace")
        match = re.search(r"SHA256:[A-Za-z0-9+/]{43}", said)
        if checked.returncode != 0 or match is None:
            raise ReleaseError(N_("the release's signature does not match what it holds: it was changed after it "
                                  "was signed"))
        return match.group(0)

    def add(self, public_key: str, name: str, owners: bool = False) -> Key:
        """Accept releases signed with ``public_key`` (an ``ssh-ed25519 ...`` line) under ``name``;
        ``owners``: the owner added it from the staff page, and the buttons' reset wipes it
        (``forget_owners``), where the installer's keys and those added at the console stay."""
        match = PUBLIC_KEY.fullmatch(public_key.strip())
        if match is None:
            raise ReleaseError(N_("expected an Ed25519 public key (a line ssh-ed25519 AAAA..., as in KEY.pub)"))
        if not KEY_NAME.fullmatch(name):
            raise ReleaseError(N_("a key's name is 1 to 64 letters, digits, '.', '_', '@' or '-', not {name}"),
                               name=repr(name[:64]))
        blob = match.group(1)
        try:
            fingerprint(blob)
        except ValueError:
            raise ReleaseError(N_("expected an Ed25519 public key (a line ssh-ed25519 AAAA..., as in KEY.pub)")) from None
        if blob in self._revoked_blobs():
            raise ReleaseError(N_("the key {fingerprint} was revoked: a revoked key is never accepted again; make a "
                                  "new one"), fingerprint=fingerprint(blob))
        lines = self._lines(self.allowed)
        if any(line.split(" ", 1)[0] == name for line in lines):
            raise ReleaseError(N_("a key is named {name} already: revoke it first, or choose another name"), name=name)
        lines.append(f'{name} namespaces="{NAMESPACE},{GIT}" ssh-ed25519 {blob}')
        if owners:
            self._write(self.folder / OWNERS, [*self._lines(self.folder / OWNERS), name])
        self._write(self.allowed, lines)
        return Key(name, fingerprint(blob), False)

    def forget_owners(self) -> list[str]:
        """The keys the owner added from the staff page no longer accepted (out of
        ``allowed_signers``, not revoked: the owner may add them again), as the buttons' reset
        wipes the owner's part; their names."""
        owners = set(self._lines(self.folder / OWNERS))
        lines = self._lines(self.allowed)
        gone = [line.split(" ", 1)[0] for line in lines if line.split(" ", 1)[0] in owners]
        if gone:
            self._write(self.allowed, [line for line in lines if line.split(" ", 1)[0] not in owners])
        if owners:
            self._write(self.folder / OWNERS, [])
        return gone

    def revoke(self, name: str) -> Key:
        """Stop accepting the key ``name``: out of ``allowed_signers``, into ``revoked_keys`` for good."""
        lines = self._lines(self.allowed)
        kept, gone = [], None
        for line in lines:
            match = re.search(r"ssh-ed25519 ([A-Za-z0-9+/]+={0,2})", line)
            if line.split(" ", 1)[0] == name and match:
                gone = match.group(1)
            else:
                kept.append(line)
        if gone is None:
            raise ReleaseError(N_("no key is named {name}: the staff page lists them under Release keys"), name=repr(name[:64]))
        self._write(self.revoked, [*self._lines(self.revoked), f"ssh-ed25519 {gone} {name}"])
        self._write(self.allowed, kept)
        return Key(name, fingerprint(gone), True)

    def _write(self, path: Path, lines: list[str]) -> None:
        """Root's file, readable by all (a public key is public), written whole."""
        self.folder.mkdir(mode=0o755, parents=True, exist_ok=True)
        replace_file(path, "".join(line + "\n" for line in lines).encode("utf-8"), 0o644)


def ownership_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot be trusted as a keyring when running as root: it, or a file in it,
    may be written by someone other than root; None when only root may change it."""
    if os.geteuid() != 0:
        return None
    for path in (folder, folder / ALLOWED, folder / REVOKED):
        try:
            status = os.lstat(path)
        except FileNotFoundError:
            continue
        if status.st_uid != 0 or status.st_mode & 0o022:
            return str(path)
    return None
