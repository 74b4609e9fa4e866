"""What a setting may name outside the table's memory, each parsed from the text someone typed
into a value of its kind before any code opens it: a serial device under ``/dev``, a file among
the table's own, a secret file in its secrets folder, a folder of its own, one of the table's network
addresses, a URL of given schemes.

Code that opens a device, a file or a host takes one of these, never a string. A string handed
on as it is means what the library that reads it makes of it: pyserial's ``serial_for_url``
takes ``spy://...?file=PATH`` (a file created or emptied), ``socket://HOST:PORT`` and
``rfc2217://`` (a host dialled), and a program reads a word that begins with ``-`` as an option.
So each kind below refuses everything but its own shape, saying what it expected, and the
configuration's schema (``config.schema``) gives every key one of them; the kind also says whose
the key is (anything that names a device, a host, a URL or a file is the owner's).
"""

from __future__ import annotations

import ipaddress
import os
import re
import stat
import urllib.parse
from dataclasses import dataclass
from typing import Literal

from .engine.errors import Refusal
from .errors import PiTableError

PATH_NAME = re.compile(r"(/[A-Za-z0-9_.:+@,=-]+)+")
"""A path in plain path words, as udev names devices (``/dev/ttyACM0``,
``/dev/serial/by-id/usb-..._E66...-if02``, ``/dev/serial/by-path/platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.3:1.2``)
and a table's folders are named: ASCII letters, digits and ``_.:+@,=-`` between slashes, so no
URL, no look-alike letter, no space or control."""
DEVICES = "/dev"
MOST = 1024  # bytes: a path or a URL a setting names; longer is no device, file or address of a table's


class NotADevice(PiTableError, OSError):
    """A serial port's path that leads, once its links are followed, to no character device
    under /dev: refused when it is opened, as a port that cannot be is."""


@dataclass(frozen=True, slots=True)
class SerialDevice:
    """A serial device under ``/dev`` (the touch board's port), or a link to one (udev's
    ``/dev/serial/by-id/...``, the board emulator's stable link, which may not be there yet when
    the table starts), opened as the device file it leads to (``serial.Serial``) once it is there:
    never a URL, never a path with ``..`` in it, never a file that is already something else."""

    path: str

    @classmethod
    def parse(cls, text: str) -> SerialDevice:
        if not _short(text) or not PATH_NAME.fullmatch(text) or os.path.normpath(text) != text \
                or any(part in (".", "..") for part in text.split("/")) \
                or not (_in_devices(text) or not os.path.lexists(text)
                        or (os.path.islink(text) and _in_devices(os.path.realpath(text)))):
            raise Refusal("a serial device's path under /dev, such as /dev/serial/by-id/usb-...-if02 or "
                          "/dev/ttyACM1, or a link to one", given=_shown(text))
        return cls(text)

    def target(self) -> str:
        """The device file this port leads to now, its links followed: a character device under
        /dev. NotADevice when it leads elsewhere (a link changed since it was set), OSError when
        it leads nowhere (a board unplugged)."""
        real = os.path.realpath(self.path)
        if not _in_devices(real):
            raise NotADevice(f"{self.path} leads to {real}, which is not under {DEVICES}")
        if not stat.S_ISCHR(os.stat(real).st_mode):
            raise NotADevice(f"{self.path} leads to {real}, which is not a character device")
        return real

    def __str__(self) -> str:
        return self.path


AUTO: Literal["auto"] = "auto"
"""A touch port given as 'auto': the board found by its USB id."""


def serial_port(text: str) -> SerialDevice | Literal["auto"]:
    """A touch port as a command line gives it: ``AUTO`` or a serial device."""
    return AUTO if text == AUTO else SerialDevice.parse(text)


@dataclass(frozen=True, slots=True)
class OwnFile:
    """A file among the table's own: in the folder of its configuration file (``/etc/pi-table``
    on a Pi) or one below it, symbolic links followed. What a setting may have the table read
    (a certificate, a password, words) is the owner's and lies where the owner keeps the table's
    files, never elsewhere on the machine."""

    path: str

    @classmethod
    def parse(cls, text: str, folder: str) -> OwnFile:
        """``text`` (relative to ``folder``, the configuration's) as a file in ``folder`` or below."""
        if not _short(text) or not text.isprintable():
            raise Refusal("a file in {folder}, the configuration's folder", folder=folder, given=_shown(text))
        path = os.path.normpath(os.path.join(folder, text))
        real, own = os.path.realpath(path), os.path.realpath(folder)
        if real == own or os.path.commonpath([own, real]) != own:
            raise Refusal("a file in {folder}, the configuration's folder, or a folder below it", folder=folder,
                          given=_shown(text))
        return cls(path)

    def __str__(self) -> str:
        return self.path


SECRETS = "files"
"""The table's secrets folder, beside its configuration: where the staff page writes the owner's
files (``daemon.owner_files``), and the only place a setting of the secret kind may name."""


@dataclass(frozen=True, slots=True)
class SecretFile:
    """A file the table sends or serves as a secret (a broker's password, a private key): one in
    the table's secrets folder (``SECRETS``), its links followed. Never the configuration or the
    copies of it beside it (the last good, the trial, the refused one, which hold a broker's
    password in its URL), the journal, the table's own TLS key, nor anything else on the machine:
    a restored backup that named one of those would have the table send it as its password."""

    path: str

    @classmethod
    def parse(cls, text: str, folder: str) -> SecretFile:
        """``text`` (relative to ``folder``, the configuration's) as a file in its secrets folder."""
        secrets = os.path.join(os.path.abspath(folder), SECRETS)
        path = os.path.normpath(os.path.join(folder, text)) if _short(text) and text.isprintable() else ""
        real, own = os.path.realpath(path or secrets), os.path.realpath(secrets)
        if real == own or os.path.commonpath([own, real]) != own:
            raise Refusal("a file in {folder}, the table's secrets folder", folder=secrets, given=_shown(text))
        return cls(path)

    def __str__(self) -> str:
        return self.path


@dataclass(frozen=True, slots=True)
class Folder:
    """A folder the table keeps its own in (its journal, its control socket's): a path written
    in plain path words (``PATH_NAME``), relative to the configuration's folder or absolute,
    with no ``..`` or ``.`` in it, so what the owner typed is where the table writes, no
    look-alike letter makes another folder, and no climb leads elsewhere. Never the kernel's
    (``SYSTEMS``: /dev/shm is cleared at boot), nor one another user may write in, or would be made
    in (/tmp, /dev/shm: anyone could put a file or a link in the table's place)."""

    path: str

    @classmethod
    def parse(cls, text: str, folder: str) -> Folder:
        folder = os.path.abspath(folder)  # a configuration named by a relative path (pi-table run --config config.toml)
        path = text if text.startswith("/") else f"{folder.rstrip('/')}/{text}"
        if not _short(text) or (path.rstrip("/") and not PATH_NAME.fullmatch(path.rstrip("/"))) \
                or any(part in (".", "..") for part in text.split("/")):
            raise Refusal("a folder's path in plain letters, digits and _.:+@,=- between slashes, absolute or from "
                          "the configuration's folder, with no '..'", given=_shown(text))
        path = os.path.normpath(path)
        if f"{path}/".startswith(SYSTEMS) or _others_write(path):
            raise Refusal("a folder of the table's own: not under /dev, /proc or /sys, and not one others may write "
                          "in (as /tmp and /dev/shm)", given=_shown(text))
        return cls(path)

    def __str__(self) -> str:
        return self.path


@dataclass(frozen=True, slots=True)
class Address:
    """One of the table's own network addresses, to listen on: an IP address written as
    numbers (``0.0.0.0`` every network, ``127.0.0.1`` or ``localhost`` this machine only),
    never a host name a resolver answers for."""

    ip: ipaddress.IPv4Address | ipaddress.IPv6Address

    @classmethod
    def parse(cls, text: str) -> Address:
        try:
            return cls(ipaddress.ip_address("127.0.0.1" if text == "localhost" else text))
        except ValueError:
            raise Refusal("an IP address of this machine written in numbers: 0.0.0.0 (every network), "
                          "127.0.0.1 or localhost (this machine only), :: or one of its own",
                          given=_shown(text)) from None

    def __str__(self) -> str:
        return str(self.ip)


@dataclass(frozen=True, slots=True)
class Url:
    """A URL of the schemes its setting allows: a host and a port, and what the scheme takes
    after them; the parts taken apart here are the ones code uses."""

    text: str
    scheme: str
    host: str
    port: int | None

    @classmethod
    def parse(cls, text: str, schemes: tuple[str, ...], users: bool = False) -> Url:
        """``text`` as a URL of one of ``schemes``; one naming a user (``scheme://USER@HOST``) only with ``users``."""
        expected = " or ".join(f"{scheme}://HOST[:PORT]" for scheme in schemes)
        if not _short(text) or not text.isascii() or not text.isprintable() or " " in text:
            raise Refusal("a URL {expected}", expected=expected, given=_shown(text))
        try:
            parts = urllib.parse.urlsplit(text)
            port = parts.port
        except ValueError:  # a port out of range, a bracket with no IPv6 address in it
            raise Refusal("a URL {expected} with a port 1 to 65535", expected=expected, given=_shown(text)) from None
        if parts.scheme not in schemes or not parts.hostname or port == 0 or parts.hostname.startswith("-") \
                or ("@" in parts.netloc and not users):
            raise Refusal("a URL {expected}", expected=expected, given=_shown(text))
        return cls(text, parts.scheme, parts.hostname, port)

    def __str__(self) -> str:
        return self.text


SYSTEMS = ("/dev/", "/proc/", "/sys/")
"""The kernel's folders: devices, processes, memory cleared at boot; no folder of the table's."""


def _others_write(path: str) -> bool:
    """Whether ``path``, or the folder it would be made in (the nearest that is there), is one a
    user other than its owner and group may write in."""
    folder = path
    while not os.path.isdir(folder) and folder != os.path.dirname(folder):
        folder = os.path.dirname(folder)
    try:
        return bool(os.stat(folder).st_mode & stat.S_IWOTH)
    except OSError:  # not to be seen: the machine's checks say so in their words
        return False


def _in_devices(path: str) -> bool:
    return path.startswith(f"{DEVICES}/")


def _short(text: str) -> bool:
    return bool(text) and "\0" not in text and len(text.encode("utf-8", "surrogatepass")) <= MOST


def _shown(text: str) -> str:
    """What was typed, as a refusal repeats it: no longer than a line."""
    return text if len(text) <= 80 else f"{text[:77]}..."
