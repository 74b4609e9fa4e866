"""A stand-in for NetworkManager's ``nmcli``, put first on PATH by tests (``helpers.FakeNetworkManager``):
it records each call's arguments (``calls.jsonl``) and plays NetworkManager's answers from a small
model of it kept in ``state.json`` (both in $FAKE_NM_DIR): the networks in reach and their
passwords, the connection profiles, the active ones, the radio. Only what pi-table asks is
modelled, with nmcli's own exit codes and error lines (nmcli(1), "EXIT STATUS")."""

import json
import os
import sys
import uuid
from pathlib import Path

FOLDER = Path(os.environ["FAKE_NM_DIR"])
STATE = FOLDER / "state.json"


def keep(state: dict) -> None:
    """The model written whole, renamed into place: a reader never sees half of it."""
    new = STATE.with_name(f"state.{os.getpid()}.json")
    new.write_text(json.dumps(state))
    os.replace(new, STATE)


def escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


def fail(code: int, line: str) -> None:
    print(f"Error: {line}", file=sys.stderr)
    sys.exit(code)


def pairs(args: list[str]) -> dict[str, str]:
    return dict(zip(args[::2], args[1::2]))


def main(argv: list[str]) -> None:
    with open(FOLDER / "calls.jsonl", "a") as log:
        log.write(json.dumps(argv) + "\n")
    state = json.loads(STATE.read_text())
    fields = None
    while argv and argv[0].startswith("-"):
        option = argv.pop(0)
        if option in ("-f", "--fields", "-w", "--wait"):
            value = argv.pop(0)
            fields = value.split(",") if option in ("-f", "--fields") else fields
    profiles, active = state["profiles"], state["active"]

    def wifi_on_device(device: str) -> None:
        state["active"] = [name for name in state["active"] if profiles[name].get("device") != device]

    def row(values: dict) -> str:
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
        given = pairs(argv[3:])
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
        ssid, given = argv[3], pairs(argv[4:])
        network = next((seen for seen in state["networks"] if seen["ssid"] == ssid), None)
        if network is None or state["radio"] != "on":
            fail(10, f"No network with SSID '{ssid}' found.")
        wifi_on_device(given["ifname"])
        name = given.get("name", ssid)
        profiles[name] = {"type": "802-11-wireless", "device": given["ifname"], "ssid": ssid,
                          "password": given.get("password", "")}
        if network.get("password", "") != given.get("password", ""):
            keep(state)
            fail(4, "Connection activation failed: (7) Secrets were required, but not provided.")
        state["active"].append(name)
        out = [f"Device '{given['ifname']}' successfully activated with '{uuid.uuid4()}'."]
    elif argv[:2] == ["connection", "down"]:
        if argv[2] not in active:
            fail(10, f"'{argv[2]}' is not an active connection.")
        active.remove(argv[2])
    elif argv[:2] == ["connection", "up"]:
        profile = profiles.get(argv[2])
        if profile is None:
            fail(10, f"unknown connection '{argv[2]}'.")
        if profile.get("mode") != "ap" and not any(seen["ssid"] == profile.get("ssid") and seen.get("password", "")
                                                   == profile.get("password", "") for seen in state["networks"]):
            fail(4, "Connection activation failed: (53) The Wi-Fi network could not be found.")
        wifi_on_device(profile["device"])
        state["active"].append(argv[2])
    elif argv[:2] == ["connection", "delete"]:
        if argv[2] not in profiles:
            fail(10, f"unknown connection '{argv[2]}'.")
        del profiles[argv[2]]
        state["active"] = [name for name in state["active"] if name != argv[2]]
    elif argv[:2] == ["connection", "modify"]:
        changes = pairs(argv[3:])
        profile = profiles.pop(argv[2])
        new = changes.get("connection.id", argv[2])
        profile["priority"] = changes.get("connection.autoconnect-priority", profile.get("priority"))
        profiles[new] = profile
        state["active"] = [new if name == argv[2] else name for name in state["active"]]
    else:
        fail(2, f"argument '{' '.join(argv)}' not understood.")
    keep(state)
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
