"""A stand-in for NetworkManager's ``nmcli``, put first on PATH by a stand-in machine
(``NetworkManager``: the tests' and ``pi-table stand-in``'s one copy):
it records each call's arguments (``calls.jsonl``) and plays NetworkManager's answers from a small
model of it kept in ``state.json`` (both in $FAKE_NM_DIR): the networks in reach and their
passwords, the connection profiles, the active ones, the radio. Only what pi-table asks is
modelled, with nmcli's own exit codes and error lines (nmcli(1), "EXIT STATUS").

Its arguments are read as nmcli 1.42.4 (Debian 12's, Raspberry Pi OS bookworm's) reads them: the
real nmcli parses a command's arguments only once it has reached NetworkManager on D-Bus, so it
cannot be asked here; its reading is taken from its source (src/nmcli/utils.c ``next_arg``,
``parse_global_arg``, ``nmc_arg_is_option``; devices.c ``do_device_wifi_connect``,
``do_device_wifi_hotspot``; connections.c ``get_connection``, ``do_connection_modify``: a
setting's property and its value in pairs; general.c ``do_general_hostname``: the name, or a
new one taken as it is). nmcli has no ``--``: wherever it
calls ``next_arg``, an argument such as ``-a``, ``--ask``, ``-s`` or ``--show-secrets`` (a dash or
two and a beginning of ``ask`` or ``show-secrets``) is taken as its global option and the next
argument takes its place; a keyword's value (``password VALUE``) and a connection named after
its selector (``connection up id NAME``) are read as they are."""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import sys
import uuid
from pathlib import Path
from typing import Any, NoReturn

from ..files import read_json

FOLDER_VARIABLE = "FAKE_NM_DIR"
STATE, CALLS = "state.json", "calls.jsonl"


class NetworkManager:
    """NetworkManager as ``folder`` models it: an ``nmcli`` program there (put it first on PATH,
    with ``environment``), ``networks`` in reach, each ``(ssid, password)`` ("" for an open one);
    ``calls()`` are the arguments nmcli was given."""

    def __init__(self, folder: Path, networks: tuple[tuple[str, str], ...] = (), fresh: bool = True) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        program = folder / "nmcli"
        program.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m pi_table.sim.nmcli "$@"\n')
        program.chmod(0o755)
        if fresh:
            self.write({"radio": "off", "profiles": {}, "active": [],
                        "networks": [{"ssid": ssid, "password": password, "signal": 70 - 10 * n}
                                     for n, (ssid, password) in enumerate(networks)]})
            (folder / CALLS).write_text("")

    @classmethod
    def kept(cls, folder: Path) -> NetworkManager:
        """The model ``folder`` already holds, as the last run left it."""
        return cls(folder, fresh=False)

    def on_cable(self) -> None:
        """A table on the café's network by its cable, its Wi-Fi's radio on and not connected."""
        self.cabled()
        state = self.state
        state["radio"] = "on"
        self.write(state)

    @property
    def environment(self) -> dict[str, str]:
        """What a process needs to call this nmcli: its folder first on PATH, and told the model's."""
        return {FOLDER_VARIABLE: str(self.folder), "PATH": f"{self.folder}:{os.environ.get('PATH', '/usr/bin:/bin')}"}

    @property
    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = read_json((self.folder / STATE).read_text())
        return state

    def write(self, state: dict[str, Any]) -> None:
        keep(self.folder, state)

    def cabled(self) -> None:
        """The table on the café's network by its cable: NetworkManager's own profile, an automatic address."""
        state = self.state
        state["profiles"]["Wired connection 1"] = {"type": "802-3-ethernet", "device": "eth0",
                                                   "address": "192.168.1.37/24",
                                                   "ipv4": {"method": "auto", "addresses": "", "gateway": "", "dns": ""}}
        state["active"].append("Wired connection 1")
        state["hostname"] = "raspberrypi"
        self.write(state)

    def calls(self) -> list[list[str]]:
        return [read_json(line) for line in (self.folder / CALLS).read_text().splitlines()]

    def active(self) -> list[str]:
        active: list[str] = self.state["active"]
        return active


def keep(folder: Path, state: dict[str, Any]) -> None:
    """The model written whole, renamed into place: a reader never sees half of it."""
    new = folder / f"state.{os.getpid()}.json"
    new.write_text(json.dumps(state))
    os.replace(new, folder / STATE)


def escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


def fail(code: int, line: str) -> NoReturn:
    print(f"Error: {line}", file=sys.stderr)
    sys.exit(code)


def pairs(args: list[str]) -> dict[str, str]:
    return dict(zip(args[::2], args[1::2]))


GLOBAL_OPTIONS = ("ask", "show-secrets")  # parse_global_arg: read wherever nmcli calls next_arg
SELECTORS = ("id", "uuid", "path", "filename")  # get_connection: the next argument is the connection's, as it is


def is_option(arg: str, name: str) -> bool:
    """nmc_arg_is_option: ``arg`` is a dash or two and a beginning of ``name``."""
    rest = arg[2:] if arg.startswith("--") else arg[1:] if arg.startswith("-") else ""
    return bool(rest) and name.startswith(rest)


class Args:
    """The arguments after the command's words, read as nmcli reads them; ``read_as_options``:
    the global options it took from among them (``next_arg``)."""

    def __init__(self, args: list[str]) -> None:
        self.args: list[str] = args
        self.read_as_options: list[str] = []

    def next_arg(self) -> None:
        """Past the current argument, then past every one nmcli takes as its global option."""
        if self.args:
            self.args.pop(0)
        while self.args and any(is_option(self.args[0], name) for name in GLOBAL_OPTIONS):
            self.read_as_options.append(self.args.pop(0))

    def value(self) -> str:
        """A keyword's value: the argument after it, as it is (``argc--; argv++``)."""
        keyword = self.args.pop(0)
        if not self.args:
            fail(2, f"{keyword} argument is missing.")
        return self.args[0]

    def keywords(self, known: tuple[str, ...]) -> dict[str, str]:
        """``KEYWORD VALUE`` pairs to the end, each keyword among ``known``."""
        given: dict[str, str] = {}
        while self.args:
            if self.args[0] not in known:
                fail(2, f"invalid extra argument '{self.args[0]}'.")
            keyword = self.args[0]
            given[keyword] = self.value()
            self.next_arg()
        return given

    def connection(self) -> str:
        """get_connection: a connection named after its selector, or by the argument itself."""
        if not self.args:
            fail(2, "No connection specified.")
        if self.args[0] in SELECTORS:
            name = self.value()
        else:
            name = self.args[0]
        self.next_arg()
        return name


def main(folder: Path, argv: list[str]) -> None:
    with open(folder / CALLS, "a") as log:
        log.write(json.dumps(argv) + "\n")
    state: dict[str, Any] = read_json((folder / STATE).read_text())
    fields: list[str] = []
    while argv and argv[0].startswith("-"):  # process_command_line: the options before the command
        option = argv.pop(0)
        if option in ("-t", "--terse"):
            continue
        if option not in ("-f", "--fields", "-w", "--wait"):
            fail(2, f"Option '{option}' is unknown, try 'nmcli -help'.")
        value = argv.pop(0)
        fields = value.split(",") if option in ("-f", "--fields") else fields
    profiles, active = state["profiles"], state["active"]

    def wifi_on_device(device: str) -> None:
        state["active"] = [name for name in state["active"] if profiles[name].get("device") != device]

    def row(values: dict[str, object]) -> str:
        return ":".join(escaped(str(values.get(name, ""))) for name in fields)

    out: list[str] = []
    if argv[:2] == ["radio", "wifi"]:
        state["radio"] = argv[2] if len(argv) > 2 else state["radio"]
    elif argv[:3] == ["connection", "show", "--active"]:
        out = [row({"NAME": name, "TYPE": profiles[name]["type"], "DEVICE": profiles[name].get("device", ""),
                    "STATE": "activated"}) for name in active]
    elif argv[:3] == ["device", "wifi", "list"]:
        hotspot = any(profiles[name].get("mode") == "ap" for name in active)
        in_use = {profiles[name].get("ssid") for name in active}
        if not hotspot and state["radio"] == "on":
            out = [row({"IN-USE": "*" if seen["ssid"] in in_use else " ", "SSID": seen["ssid"],
                        "SIGNAL": seen["signal"], "SECURITY": "WPA2" if seen.get("password") else ""})
                   for seen in state["networks"]]
    elif argv[:2] == ["device", "show"]:
        for name in active:
            if profiles[name].get("device") == argv[2]:
                out = [f"IP4.ADDRESS[1]:{profiles[name].get('address', '192.168.1.50/24')}"]
    elif argv[:3] == ["device", "wifi", "hotspot"]:
        args = Args(argv[2:])
        args.next_arg()
        given = args.keywords(("ifname", "con-name", "ssid", "band", "channel", "password"))
        if state["radio"] != "on":
            fail(1, "Wi-Fi radio is disabled.")
        if not state.get("ap", True):
            fail(1, "Failed to setup a Wi-Fi hotspot: device does not support AP mode.")
        wifi_on_device(given["ifname"])
        profiles[given["con-name"]] = {"type": "802-11-wireless", "device": given["ifname"], "mode": "ap",
                                       "ssid": given["ssid"], "password": given["password"],
                                       "address": "10.42.0.1/24"}
        state["active"].append(given["con-name"])
        out = [f"Device '{given['ifname']}' successfully activated with '{uuid.uuid4()}'."]
    elif argv[:3] == ["device", "wifi", "connect"]:
        args = Args(argv[2:])
        args.next_arg()
        if not args.args:
            fail(2, "SSID or BSSID are missing.")
        ssid = args.args[0]
        args.next_arg()
        given = args.keywords(("ifname", "bssid", "password", "wep-key-type", "name", "private", "hidden"))
        network = next((seen for seen in state["networks"] if seen["ssid"] == ssid), None)
        if network is None or state["radio"] != "on":
            fail(10, f"No network with SSID '{ssid}' found.")
        wifi_on_device(given["ifname"])
        name = given.get("name", ssid)
        profiles[name] = {"type": "802-11-wireless", "device": given["ifname"], "ssid": ssid,
                          "password": given.get("password", "")}
        if network.get("password", "") != given.get("password", ""):
            keep(folder, state)
            fail(4, "Connection activation failed: (7) Secrets were required, but not provided.")
        state["active"].append(name)
        out = [f"Device '{given['ifname']}' successfully activated with '{uuid.uuid4()}'."]
    elif argv[:1] == ["connection"] and argv[1:2] in (["down"], ["up"], ["delete"], ["modify"]):
        args = Args(argv[1:])
        args.next_arg()
        name = args.connection()
        if argv[1] == "down":
            if name not in active:
                fail(10, f"'{name}' is not an active connection.")
            active.remove(name)
        elif argv[1] == "up":
            profile = profiles.get(name)
            if profile is None:
                fail(10, f"unknown connection '{name}'.")
            if profile["type"] == "802-3-ethernet":  # a cable: its address the fixed one, or the router's
                ipv4 = profile["ipv4"]
                profile["address"] = ipv4["addresses"] if ipv4["method"] == "manual" else profile.get(
                    "dhcp", "192.168.1.37/24")
            elif profile.get("mode") != "ap" and not any(seen["ssid"] == profile.get("ssid") and seen.get("password", "")
                                                       == profile.get("password", "") for seen in state["networks"]):
                fail(4, "Connection activation failed: (53) The Wi-Fi network could not be found.")
            wifi_on_device(profile["device"])
            state["active"].append(name)
        elif name not in profiles:
            fail(10, f"unknown connection '{name}'.")
        elif argv[1] == "delete":
            del profiles[name]
            state["active"] = [each for each in state["active"] if each != name]
        elif any(key.startswith("ipv4.") for key in args.args[::2]):  # connections.c: setting.property VALUE
            changes = pairs(args.args)
            ipv4 = {**profiles[name]["ipv4"], **{key[5:]: value for key, value in changes.items()}}
            if ipv4["method"] == "manual" and not ipv4["addresses"]:
                fail(2, f"Failed to modify connection '{name}': ipv4.addresses: this property cannot be empty for "
                        "'method=manual'")
            profiles[name]["ipv4"] = ipv4
        else:
            changes = pairs(args.args)
            profile = profiles.pop(name)
            new = changes.get("connection.id", name)
            profile["priority"] = changes.get("connection.autoconnect-priority", profile.get("priority"))
            profiles[new] = profile
            state["active"] = [new if each == name else each for each in state["active"]]
    elif argv[:2] == ["connection", "show"]:  # one connection's settings, asked by name (-f ipv4.method,...)
        args = Args(argv[1:])
        args.next_arg()
        name = args.connection()
        if name not in profiles:
            fail(10, f"{name} - no such connection profile.")
        ipv4 = profiles[name].get("ipv4", {})
        settings = {**{f"ipv4.{key}": value for key, value in ipv4.items()},
                    "802-11-wireless.ssid": profiles[name].get("ssid", "")}
        out = [f"{field}:{escaped(settings.get(field, ''))}" for field in fields]
    elif argv[:2] == ["general", "hostname"]:  # general.c: the name, or the new one as it is, and no more
        if len(argv) > 3:
            fail(2, "too many arguments.")
        if len(argv) == 3:
            state["hostname"] = argv[2]
        else:
            out = [state.get("hostname", "localhost")]
    else:
        fail(2, f"argument '{' '.join(argv)}' not understood.")
    keep(folder, state)
    print("\n".join(out))


if __name__ == "__main__":
    FOLDER = Path(os.environ[FOLDER_VARIABLE])
    with open(FOLDER / "state.lock", "w") as lock:  # one call at a time, as NetworkManager answers them:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a page's read beside the helper's change never writes the model back old
        main(FOLDER, sys.argv[1:])
