"""The table's network, through NetworkManager's ``nmcli``: every nmcli call pi-table makes is in
this module. The service only reads (what the table is connected by, the Wi-Fi networks in
reach, its own Wi-Fi's address); what changes the network is the root helper's, asked through
its request file: open the table's own Wi-Fi (a hotspot, as comitup and balena's wifi-connect
open one), join a café's Wi-Fi, as a trial that goes back to the connection before when it
fails. Terse output (``-t -f``) is read as nmcli escapes it: ``\\:`` and ``\\\\`` in a value.

nmcli has no ``--``: where it reads a command's next argument, ``-a`` or ``--show-secrets`` is its
own option whatever the caller meant (tests/fake_nmcli.py names where in its source). So a value
from elsewhere goes only where nmcli reads it as it is: after a keyword (``ssid NAME``,
``password WORD``) or a connection's selector (``connection up id NAME``). The one place it
does not, the Wi-Fi's name in ``device wifi connect``, takes no name that begins with ``-``.

Standard library only, beside the layers below: the root helper runs it with the system's Python.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.phrase import N_
from .layout import ReleaseError, Releases

NMCLI = "nmcli"
IFNAME = "wlan0"
HOTSPOT = "pi-table-hotspot"  # the table's own Wi-Fi's connection profile
WIFI = "pi-table-wifi"  # the café's Wi-Fi the owner chose on a page
TRYING = "pi-table-wifi-new"  # a Wi-Fi being joined: it becomes WIFI once it is joined
NETWORKS = "wifi.json"  # the root helper's note of the networks seen before the hotspot opened
HOTSPOT_ADDRESS = "10.42.0.1"  # NetworkManager's own for its first shared connection
JOIN_S = 60  # nmcli --wait: a café's router may take its time to hand out an address
CALL_S = 20.0  # any other call
SSID_BYTES = range(1, 33)
PSK_LENGTHS = range(8, 64)  # a WPA passphrase; 64 hexadecimal digits are the key itself
LOOPBACK = "loopback"
WIRELESS = "802-11-wireless"  # a Wi-Fi connection's TYPE, as nmcli -t says it
SSID = "802-11-wireless.ssid"  # the network a Wi-Fi connection profile joins
DEVICES = ("eth0", "wlan0")  # the Pi's cable and its Wi-Fi, as Raspberry Pi OS names them
METHODS = ("auto", "manual")  # an address from the café's router, or a fixed one
HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")  # one label of RFC 1123
DOTTED = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
TRIAL = "network-trial.json"  # the root helper's note of a change on trial, which the staff page reads
KEPT = "network.kept"  # the service's word, in its spool folder, that the page was reached after it
TRIAL_S = 120.0  # how long a change waits for the page to be reached again before it goes back


@dataclass(frozen=True, slots=True)
class Network:
    """How the table is connected now: by a connection other than its own Wi-Fi (``via``: the
    Wi-Fi network's name when it joined one, else the connection's), and whether its own Wi-Fi
    is open. ``known``: False when nmcli could not say
    (no NetworkManager on this machine)."""

    connected: bool
    via: str | None
    hotspot: bool
    known: bool = True


UNKNOWN = Network(False, None, False, known=False)


@dataclass(frozen=True, slots=True)
class Seen:
    """A Wi-Fi network in reach: its name, its signal (0 to 100) and whether it asks a password."""

    ssid: str
    signal: int
    secure: bool
    in_use: bool = False

    def to_json(self) -> dict[str, object]:
        return {"ssid": self.ssid, "signal": self.signal, "secure": self.secure, "in_use": self.in_use}


def fields(line: str) -> list[str]:
    """One line of nmcli's terse output, split at its unescaped colons."""
    found, field, escaped = [], [], False
    for char in line:
        if escaped:
            field.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            found.append("".join(field))
            field = []
        else:
            field.append(char)
    found.append("".join(field))
    return found


def nmcli(*args: str, timeout: float = CALL_S) -> str:
    """nmcli's output for ``args``; ReleaseError with nmcli's own last line when it fails."""
    program = shutil.which(NMCLI)
    if program is None:
        raise ReleaseError(N_("NetworkManager's nmcli is not installed: the table cannot change its network"))
    try:
        done = subprocess.run([program, *args], capture_output=True, text=True, timeout=timeout, check=False,
                              env={**os.environ, "LC_ALL": "C.UTF-8"})  # its words untranslated, as read here
    except subprocess.TimeoutExpired:
        raise ReleaseError(N_("nmcli did not answer within {seconds} s"), seconds=round(timeout)) from None
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}").splitlines()[-1]
        raise ReleaseError(N_("nmcli: {error}"), error=said.removeprefix("Error: ")[:200])
    return done.stdout


def available() -> bool:
    return shutil.which(NMCLI) is not None


# --- what the service reads ---------------------------------------------------------------------


def state() -> Network:
    """How the table is connected now (UNKNOWN without nmcli, or when it fails): by the Wi-Fi
    it joined, named by the network's own name (not its profile's, nor a cable's beside it),
    else by its first other connection."""
    try:
        active = _active()
    except ReleaseError:
        return UNKNOWN
    wifi = next((name for name, kind in active if kind == WIRELESS and name != HOTSPOT), None)
    via = (ssid_of(wifi) or wifi) if wifi is not None else next((name for name, _ in active if name != HOTSPOT), None)
    return Network(via is not None, via, any(name == HOTSPOT for name, _ in active))


def _active() -> list[tuple[str, str]]:
    """The connections up now (the loopback left out), each by its profile's name and its type, in
    NetworkManager's order; ReleaseError when nmcli cannot say."""
    out = nmcli("-t", "-f", "NAME,TYPE,DEVICE,STATE", "connection", "show", "--active")
    found = []
    for line in out.splitlines():
        name, kind, _device, activation = (fields(line) + ["", "", "", ""])[:4]
        if activation == "activated" and kind != LOOPBACK:
            found.append((name, kind))
    return found


def ssid_of(connection: str) -> str | None:
    """The name of the Wi-Fi network a connection profile joins; None when nmcli cannot say."""
    try:
        out = nmcli("-t", "-f", SSID, "connection", "show", "id", connection)
    except ReleaseError:
        return None
    return next((found[1] for line in out.splitlines() if (found := fields(line))[0] == SSID and len(found) > 1
                 and found[1]), None)


def networks(rescan: bool = False) -> list[Seen]:
    """The Wi-Fi networks in reach, the strongest first, each name once (hidden ones left out);
    [] when nmcli cannot say. Without ``rescan``, NetworkManager's last scan (a scan asks root)."""
    try:
        out = nmcli("-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi", "list", "ifname", IFNAME,
                    "--rescan", "yes" if rescan else "no", timeout=CALL_S * 2)
    except ReleaseError:
        return []
    best: dict[str, Seen] = {}
    for line in out.splitlines():
        in_use, ssid, signal, security = (fields(line) + ["", "", "", ""])[:4]
        if not ssid:
            continue
        seen = Seen(ssid, int(signal) if signal.isdigit() else 0, security not in ("", "--"), in_use.strip() == "*")
        kept = best.get(ssid)
        if kept is None or seen.signal > kept.signal or seen.in_use:
            best[ssid] = Seen(ssid, seen.signal, seen.secure, seen.in_use or (kept is not None and kept.in_use))
    return sorted(best.values(), key=lambda seen: (-seen.signal, seen.ssid))


def address(ifname: str = IFNAME) -> str | None:
    """The device's first IPv4 address, None when it has none (or nmcli cannot say)."""
    try:
        out = nmcli("-t", "-f", "IP4.ADDRESS", "device", "show", ifname)
    except ReleaseError:
        return None
    for line in out.splitlines():
        name, _, value = line.partition(":")
        if name.startswith("IP4.ADDRESS") and value:
            return value.split("/")[0]
    return None


def hotspot_address() -> str | None:
    """Where phones on the table's own Wi-Fi reach it, while it is open; None otherwise."""
    if not available() or not state().hotspot:
        return None
    return address() or HOTSPOT_ADDRESS


# --- what is checked before anything is asked ---------------------------------------------------


def ssid_problem(ssid: object) -> str | None:
    """Why ``ssid`` is no Wi-Fi network's name (1 to 32 bytes, no control character) the table
    can give nmcli (none that begins with ``-``: see above); None if it is one."""
    if not isinstance(ssid, str) or len(ssid.encode("utf-8")) not in SSID_BYTES \
            or any(ord(char) < 32 or ord(char) == 127 for char in ssid):
        return N_("a Wi-Fi network's name is 1 to 32 bytes with no control character")
    if ssid.startswith("-"):
        return N_("a Wi-Fi network's name that begins with - cannot be joined from a page: nmcli would read it as "
                  "an option")
    return None


def password_problem(password: object, may_be_open: bool = True) -> str | None:
    """Why ``password`` is no WPA passphrase (8 to 63 printable ASCII characters, or the 64
    hexadecimal digits of the key); "" is an open network's, when ``may_be_open``."""
    if not isinstance(password, str):
        return N_("a Wi-Fi password is text")
    if password == "" and may_be_open:
        return None
    printable = all(32 <= ord(char) < 127 for char in password)
    if printable and (len(password) in PSK_LENGTHS or (len(password) == 64 and _hexadecimal(password))):
        return None
    return N_("a Wi-Fi password is 8 to 63 letters, digits or signs (no accented letter)")


def _hexadecimal(text: str) -> bool:
    return all(char in "0123456789abcdefABCDEF" for char in text)


# --- the root helper's acts ----------------------------------------------------------------------


def open_hotspot(ssid: str, password: str) -> list[Seen]:
    """The table's own Wi-Fi opened under ``ssid`` with ``password`` (its radio turned on first:
    a Pi whose Wi-Fi country was never set keeps it blocked); the networks in reach, scanned
    before the radio becomes the hotspot and can scan no more."""
    _check(ssid, password, may_be_open=False)
    nmcli("radio", "wifi", "on")
    seen = networks(rescan=True)
    _quietly("connection", "delete", "id", HOTSPOT)  # one made before, perhaps with another password
    nmcli("device", "wifi", "hotspot", "ifname", IFNAME, "con-name", HOTSPOT, "ssid", ssid, "password", password,
          timeout=CALL_S * 2)
    return seen


def join(ssid: str, password: str) -> None:
    """Join the Wi-Fi ``ssid`` as a trial: the table's own Wi-Fi closed, the new connection tried;
    joined, it replaces the one an earlier page chose; not, it is deleted and the connection the
    table had (or its own Wi-Fi) comes back, and ReleaseError says why and what it is back on."""
    _check(ssid, password, may_be_open=True)
    before = state()
    try:
        back = next((name for name, _ in _active() if name != HOTSPOT), None)  # to bring up again, by its profile
    except ReleaseError:
        back = None
    if before.hotspot:
        _quietly("connection", "down", "id", HOTSPOT)
    _quietly("connection", "delete", "id", TRYING)
    connect = ["--wait", str(JOIN_S), "device", "wifi", "connect", ssid]
    if password:
        connect += ["password", password]
    try:
        nmcli(*connect, "ifname", IFNAME, "name", TRYING, timeout=JOIN_S + CALL_S)
    except ReleaseError as e:
        _quietly("connection", "delete", "id", TRYING)
        error = e.why["fields"].get("error", str(e))
        if back is not None and _quietly("connection", "up", "id", back):
            raise ReleaseError(N_("the table could not join {ssid} ({error}): it is back on {back}"), ssid=ssid,
                               error=error, back=before.via) from None
        if (before.hotspot or not before.connected) and _quietly("connection", "up", "id", HOTSPOT):
            raise ReleaseError(N_("the table could not join {ssid} ({error}): its own Wi-Fi is open again"),
                               ssid=ssid, error=error) from None
        raise ReleaseError(N_("the table could not join {ssid} ({error}) and has no network now"), ssid=ssid,
                           error=error) from None
    _quietly("connection", "delete", "id", WIFI)
    nmcli("connection", "modify", "id", TRYING, "connection.id", WIFI, "connection.autoconnect-priority", "10")


def _check(ssid: str, password: str, may_be_open: bool) -> None:
    """ReleaseError unless ``ssid`` and ``password`` are a Wi-Fi's name and password nmcli reads as
    such: the request was checked so already, and the act does not count on it."""
    if (problem := ssid_problem(ssid) or password_problem(password, may_be_open)) is not None:
        raise ReleaseError(problem)


def _quietly(*args: str) -> bool:
    """An nmcli call whose failure changes nothing that follows (down what is not up, delete what
    is not there); whether it worked."""
    try:
        nmcli(*args, timeout=JOIN_S + CALL_S if args[:2] == ("connection", "up") else CALL_S)
    except ReleaseError:
        return False
    return True


# --- the network beyond Wi-Fi: a fixed address, the host name, each a trial (issue 50, 7) ------------


class NotReached(ReleaseError):
    """A change was put back: the staff page was not reached again after it."""


THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")  # RFC 1122's "this host on this network": no device's


def ipv4_problem(request: Mapping[str, object]) -> str | None:
    """Why ``request``'s ``device``, ``method``, ``address``, ``gateway`` and ``dns`` are not an
    address nmcli can be given (each parsed into its kind: a device of ``DEVICES``, an IPv4
    address and prefix in numbers, a host of its network other than the gateway, neither the
    network's own nor its broadcast address nor loopback, multicast or reserved; the gateway on
    its network); None when they are."""
    if request.get("device") not in DEVICES:
        return N_("the device is one of eth0, wlan0")
    if request.get("method") not in METHODS:
        return N_("the address's method is auto or manual")
    address, gateway, dns = (request.get(key) for key in ("address", "gateway", "dns"))
    if not all(isinstance(value, str) for value in (address, gateway, dns)):
        return N_("a fixed address is four numbers 0 to 255 and a prefix, such as 192.168.1.50/24")
    assert isinstance(address, str) and isinstance(gateway, str) and isinstance(dns, str)  # as just checked
    if request["method"] == "auto":
        return None if address == gateway == dns == "" else N_("an automatic address takes no address, gateway or DNS")
    number, _, prefix = address.partition("/")
    try:
        interface = ipaddress.IPv4Interface(address) if DOTTED.fullmatch(number) and prefix.isdigit() else None
    except ValueError:
        interface = None
    if interface is None or not 8 <= interface.network.prefixlen <= 30:
        return N_("a fixed address is four numbers 0 to 255 and a prefix, such as 192.168.1.50/24")
    for value in (gateway, dns):
        if value and not (DOTTED.fullmatch(value) and _address(value)):
            return N_("a gateway or a DNS server is an address of four numbers 0 to 255, or '' for none")
    own, network = interface.ip, interface.network
    if own.is_loopback or own.is_multicast or own.is_reserved or own in THIS_NETWORK:
        return N_("the address {address} is no device's on a network (loopback, multicast, 0.0.0.0/8 or reserved): "
                  "expected one of the café's network, such as 192.168.1.50/24")
    if own == network.network_address:
        return N_("the address {address} is its network's own address: expected one between it and the broadcast "
                  "address, such as 192.168.1.50/24")
    if own == network.broadcast_address:
        return N_("the address {address} is its network's broadcast address: expected one between the network's own "
                  "and it, such as 192.168.1.50/24")
    if not gateway:
        return None
    router = ipaddress.IPv4Address(gateway)
    if router not in network:
        return N_("the gateway {gateway} is not on the network of {address}")
    if router in (network.network_address, network.broadcast_address):
        return N_("the gateway {gateway} is its network's own or broadcast address: expected the router's address, "
                  "such as 192.168.1.1")
    if router == own:
        return N_("the address {address} is the gateway's own: expected an address of the table's own on its network, "
                  "another than the router's")
    return None


def _address(value: str) -> bool:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def host_name_problem(name: object) -> str | None:
    """Why ``name`` is no host name for the table (1 to 63 letters, digits or '-', not first or
    last; never ``localhost``, which every machine answers to for itself)."""
    if not (isinstance(name, str) and HOST_NAME.fullmatch(name)):
        return N_("a host name is 1 to 63 letters, digits or '-' (not first or last), such as bar-1")
    if name.lower() == "localhost":
        return N_("localhost is every machine's name for itself: expected a name of the table's own, such as bar-1")
    return None


def connection_on(device: str) -> str:
    """The active connection on ``device``; ReleaseError when it has none."""
    out = nmcli("-t", "-f", "NAME,TYPE,DEVICE,STATE", "connection", "show", "--active")
    for line in out.splitlines():
        name, _kind, on, _state = (fields(line) + ["", "", "", ""])[:4]
        if on == device:
            return name
    raise ReleaseError(N_("nothing is connected on {device}: plug in the cable (or join a Wi-Fi) first"), device=device)


IPV4 = ("ipv4.method", "ipv4.addresses", "ipv4.gateway", "ipv4.dns")


def ipv4_of(connection: str) -> dict[str, str]:
    """The connection's IPv4 settings, by nmcli's names (to put them back as they were)."""
    out = nmcli("-t", "-f", ",".join(IPV4), "connection", "show", "id", connection)
    found = {name: value for name, value in (fields(line)[:2] for line in out.splitlines() if ":" in line)}
    return {name: found.get(name, "") for name in IPV4}


def set_ipv4(connection: str, settings: dict[str, str]) -> None:
    """The connection's IPv4 settings changed, each after its property's name, and it brought up again."""
    nmcli("connection", "modify", "id", connection, *[part for name in IPV4 for part in (name, settings[name])])
    nmcli("connection", "up", "id", connection, timeout=JOIN_S + CALL_S)


def host_name() -> str:
    return nmcli("general", "hostname").strip()


def set_host_name(name: str) -> None:
    if (problem := host_name_problem(name)) is not None:
        raise ReleaseError(problem)
    nmcli("general", "hostname", name)


def trial_of(releases: Releases) -> dict[str, Any] | None:
    """The change on trial now (its ``id``, ``act`` and where the page must be reached: ``at``), if any."""
    note = releases.note(TRIAL)
    return note if note is not None and isinstance(note.get("id"), str) else None


def keep(spool: Path, trial: str) -> None:
    """The service's word that the staff page was reached after the change ``trial``: it is kept."""
    from ..files import replace_file  # the service's side only

    replace_file(spool / KEPT, trial.encode("ascii"), 0o600)


def _kept(spool: Path, trial: str) -> bool:
    try:
        fd = os.open(spool / KEPT, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.read(fd, 64).decode("ascii", "replace") == trial
    finally:
        os.close(fd)


def tried(releases: Releases, spool: Path, act: str, at: str, undo: Callable[[], None], what: str) -> None:
    """The change just made kept once the service says the staff page was reached at ``at``
    (``keep``), within ``TRIAL_S``; else put back by ``undo``, and NotReached says so."""
    trial = secrets.token_hex(8)
    (spool / KEPT).unlink(missing_ok=True)
    releases.write_note(TRIAL, {"id": trial, "act": act, "at": at, "until": time.time() + TRIAL_S})
    deadline = time.monotonic() + TRIAL_S
    try:
        while time.monotonic() < deadline:
            if _kept(spool, trial):
                return
            time.sleep(0.2)
        undo()
    finally:
        (spool / KEPT).unlink(missing_ok=True)
        (releases.home / TRIAL).unlink(missing_ok=True)
    template = N_("the staff page was not reached at {at} within {seconds} s: the table is back on its address before") \
        if what == "address" else N_("the staff page was not reached at {at} within {seconds} s: the table is back on "
                                     "its name before")
    raise NotReached(template, at=at, seconds=math.ceil(TRIAL_S))


def change_ipv4(releases: Releases, spool: Path, request: Mapping[str, Any]) -> None:
    """The device's connection given a fixed address (or an automatic one) as a trial (``request``:
    an ``ipv4`` request as ``requests.check`` let it through)."""
    if (problem := ipv4_problem(request)) is not None:
        raise ReleaseError(problem, gateway=request.get("gateway"), address=request.get("address"))
    connection = connection_on(request["device"])
    before = ipv4_of(connection)
    manual = request["method"] == "manual"
    set_ipv4(connection, {"ipv4.method": request["method"], "ipv4.addresses": request["address"] if manual else "",
                          "ipv4.gateway": request["gateway"] if manual else "", "ipv4.dns": request["dns"] if manual else ""})
    # a fixed address is where the page must be reached; an automatic one is the router's answer,
    # read once the connection is up again (the device may still show the old one a moment before)
    at = request["address"].split("/")[0] if manual else address(request["device"]) or ""
    tried(releases, spool, "ipv4", at, lambda: set_ipv4(connection, before), "address")


def change_host_name(releases: Releases, spool: Path, name: str) -> None:
    """The table's host name changed as a trial: kept once the page is reached at NAME.local."""
    before = host_name()
    set_host_name(name)
    tried(releases, spool, "hostname", f"{name}.local", lambda: set_host_name(before), "name")
