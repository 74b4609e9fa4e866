"""The first boot from the SD image (docs/dev/first-boot.md): the root helper's ``first-boot``
act makes the table's secrets on the device and leaves its set-up waiting; its network acts
(the table's own Wi-Fi, a Wi-Fi joined as a trial) and the time zone, through nmcli played by a
fake NetworkManager (pi_table/sim/nmcli.py) that records every call."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_table.release import ReleaseError, desk, helper, network, requests
from pi_table.release.first_boot import (
    DONE,
    OWNER,
    PENDING,
    PIN,
    TLS,
    TLS_CERT,
    TLS_KEY,
    Pending,
    journal_folder,
    keep_pending,
    pending,
)
from pi_table.release.keys import Keyring
from pi_table.release.layout import Releases
from pi_table.release.service_user import ServiceUser

from helpers import require_tools
from helpers_machine import FakeNetworkManager
from helpers_staff import STAFF_CONFIG
from helpers_tables import run_first_boot

SECRETS = ("companion.secret", "staff.device-key")


def fresh_table(folder: Path) -> Path:
    folder.mkdir(parents=True)
    config = folder / "config.toml"
    config.write_text(STAFF_CONFIG)
    return config


def test_the_first_boot_makes_the_tables_secrets_on_the_device_and_two_first_boots_make_different_ones(tmp_path):
    require_tools("openssl")
    tables = [fresh_table(tmp_path / name) for name in ("one", "two")]
    for config in tables:
        done = run_first_boot(config)
        assert done.returncode == 0, done.stderr
        journal = journal_folder(config)
        assert journal == config.parent / "journal" and journal.stat().st_mode & 0o777 == 0o700
        for name in (*SECRETS, PENDING):
            assert (journal / name).stat().st_mode & 0o777 == 0o600, name
        assert (config.parent / TLS / TLS_KEY).stat().st_mode & 0o777 == 0o600
        waiting = pending(journal)
        assert waiting is not None and waiting.code not in done.stdout and waiting.password not in done.stdout
        key = (config.parent / TLS / TLS_KEY).read_text()
        assert "PRIVATE KEY" in key and key not in done.stdout
    one, two = (journal_folder(config) for config in tables)
    for name in SECRETS:
        assert (one / name).read_bytes() != (two / name).read_bytes(), name
    assert (one.parent / TLS / TLS_KEY).read_bytes() != (two.parent / TLS / TLS_KEY).read_bytes()
    first, second = pending(one), pending(two)
    assert first is not None and second is not None
    assert (first.code, first.ssid, first.password) != (second.code, second.ssid, second.password)
    cert = subprocess.run(["openssl", "x509", "-noout", "-checkend", str(365 * 24 * 3600), "-in",
                           str(one.parent / TLS / TLS_CERT)], capture_output=True, text=True)
    assert cert.returncode == 0, cert.stdout + cert.stderr


def test_a_second_first_boot_changes_nothing_and_a_table_with_a_pin_or_set_up_waits_for_no_set_up(tmp_path):
    config = fresh_table(tmp_path / "table")
    assert run_first_boot(config).returncode == 0
    journal = journal_folder(config)
    kept = {path.name: path.read_bytes() for path in journal.iterdir()}
    again = run_first_boot(config)
    assert again.returncode == 0 and "nothing: the table had all of it" in again.stdout
    assert {path.name: path.read_bytes() for path in journal.iterdir()} == kept
    for name in ("staff.pin", "owner.pass", DONE):  # set up by the installer's way, or by the page
        other = fresh_table(tmp_path / name)
        journal = journal_folder(other)
        journal.mkdir(mode=0o700)
        (journal / name).write_text("kept")
        assert run_first_boot(other).returncode == 0
        assert not (journal / PENDING).exists() and (journal / "companion.secret").exists()


def test_a_configuration_that_cannot_be_read_stops_the_first_boot_saying_which_and_why(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[paths\n")
    done = run_first_boot(config)
    assert done.returncode == 1 and str(config) in done.stderr and "TOMLDecodeError" in done.stderr
    assert list(tmp_path.iterdir()) == [config]


# --- the network's acts, asked by the service, done by the root helper -----------------------------


def acts_of(tmp_path: Path) -> helper.Helper:
    """The root helper's acts for a table waiting for its set-up, its own Wi-Fi ``pi-table-abcd``."""
    config = fresh_table(tmp_path / "etc")
    journal_folder(config).mkdir(mode=0o700)
    keep_pending(journal_folder(config), Pending("12345678", "pi-table-abcd", "k7m2p9q4r8s3", "2026-01-01T00:00:00Z"))
    zone = tmp_path / "timedatectl"
    zone.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "zone-calls"}\n')
    zone.chmod(0o755)
    return helper.Helper(Releases(tmp_path / "home"), Keyring(tmp_path / "no-keys"), ServiceUser(None),
                         timedatectl=(str(zone),), config=config)


def asked(acts: helper.Helper, spool: Path, act: str, **args: str) -> int:
    """``act`` asked as the service asks it, then done as pi-table-helper.service does it."""
    desk.ask(act, spool=spool, **args)
    return helper.act(acts, spool)


def test_with_no_network_the_helper_opens_the_tables_own_wifi_after_a_scan_it_keeps(tmp_path, monkeypatch):
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch, networks=(("Cafe", "espresso-42"), ("Guests", "")))
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    assert network.state() == network.Network(False, None, False)
    assert asked(acts, spool, "hotspot", ssid="pi-table-abcd", password="k7m2p9q4r8s3") == 0
    calls = nm.calls()
    assert ["radio", "wifi", "on"] in calls
    scan = calls.index(["-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi", "list", "ifname", "wlan0",
                        "--rescan", "yes"])
    assert calls.index(["device", "wifi", "hotspot", "ifname", "wlan0", "con-name", "pi-table-hotspot", "ssid",
                        "pi-table-abcd", "password", "k7m2p9q4r8s3"]) > scan
    assert network.state() == network.Network(False, None, True) and network.hotspot_address() == "10.42.0.1"
    assert network.networks() == []  # the radio is the hotspot now: it scans no more
    kept = acts.releases.note(network.NETWORKS)
    assert kept is not None and [seen["ssid"] for seen in kept["networks"]] == ["Cafe", "Guests"]
    assert [seen["secure"] for seen in kept["networks"]] == [True, False]
    assert desk.state(acts.releases.home)["last"]["outcome"] == "done"


@pytest.mark.parametrize("set_up", [PIN, OWNER, DONE])
def test_the_helper_opens_the_tables_own_wifi_only_while_the_table_waits_for_its_set_up(set_up, tmp_path, monkeypatch):
    """The root helper judges it itself: the table's ``setup.pending``, while it has no staff PIN,
    owner's passphrase or ``setup.done``; the Wi-Fi its set-up names, no other."""
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch, networks=(("Cafe", "espresso-42"),))
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    folder = journal_folder(acts.config)
    (folder / set_up).write_text("")  # whatever it holds: a table with one was set up
    assert asked(acts, spool, "hotspot", ssid="pi-table-abcd", password="k7m2p9q4r8s3") == 1
    last = desk.state(acts.releases.home)["last"]
    assert last["outcome"] == "failed" and last["why"]["en"] == (
        "the table is set up: it opens its own Wi-Fi only while it waits for its set-up")
    assert last["why"]["it"] != last["why"]["en"]
    (folder / set_up).unlink()
    assert asked(acts, spool, "hotspot", ssid="pi-table-evil", password="k7m2p9q4r8s3") == 1
    assert desk.state(acts.releases.home)["last"]["why"]["en"] == (
        "the table's own Wi-Fi is the one its set-up names, not another")
    assert not [call for call in nm.calls() if call[:1] == ["radio"] or "hotspot" in call]  # nothing was asked of it
    (folder / PENDING).unlink()
    assert asked(acts, spool, "hotspot", ssid="pi-table-abcd", password="k7m2p9q4r8s3") == 1  # waits for none
    assert not [call for call in nm.calls() if "hotspot" in call]
    keep_pending(folder, Pending("12345678", "pi-table-abcd", "k7m2p9q4r8s3", "2026-01-01T00:00:00Z"))
    assert asked(acts, spool, "hotspot", ssid="pi-table-abcd", password="k7m2p9q4r8s3") == 0
    assert network.state().hotspot


def test_the_network_the_wifi_joined_is_said_by_its_name_beside_a_cable_too(tmp_path, monkeypatch):
    """Issue 62, 4: on a table with a cable the Wi-Fi section said "On the network Wired connection
    1" after joining Wi-Fi (the first active connection); on Wi-Fi alone, the profile's name, not
    the café's network's."""
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch, networks=(("Cafe", "espresso-42"), ("Bar 2", "")))
    nm.cabled()
    nm.write({**nm.state, "radio": "on"})
    assert network.state() == network.Network(True, "Wired connection 1", False)  # by its cable alone
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    assert asked(acts, spool, "wifi", ssid="Cafe", password="espresso-42") == 0
    assert nm.active() == ["Wired connection 1", "pi-table-wifi"]
    assert network.state() == network.Network(True, "Cafe", False)
    state = nm.state
    state["active"], state["profiles"] = [], {}
    nm.write(state)
    nm.on_wifi("Bar 2")  # Raspberry Pi Imager's profile, "preconfigured"
    assert network.state() == network.Network(True, "Bar 2", False)


def test_a_wifi_joined_from_the_tables_own_replaces_it_and_is_kept_under_the_tables_name(tmp_path, monkeypatch):
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch, networks=(("Cafe", "espresso-42"),))
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    assert asked(acts, spool, "hotspot", ssid="pi-table-abcd", password="k7m2p9q4r8s3") == 0
    assert asked(acts, spool, "wifi", ssid="Cafe", password="espresso-42") == 0
    assert nm.active() == ["pi-table-wifi"] and nm.state["profiles"]["pi-table-wifi"]["ssid"] == "Cafe"
    assert ["--wait", "60", "device", "wifi", "connect", "Cafe", "password", "espresso-42", "ifname", "wlan0", "name",
            "pi-table-wifi-new"] in nm.calls()
    assert network.state() == network.Network(True, "Cafe", False)  # the café's Wi-Fi, not the profile's name
    last = desk.state(acts.releases.home)["last"]
    assert last["act"] == "wifi" and last["ssid"] == "Cafe" and last["outcome"] == "done"
    assert "espresso-42" not in json.dumps(last)


def test_a_wifi_that_cannot_be_joined_leaves_the_table_where_it_was_and_says_why_in_each_language(
        tmp_path, monkeypatch):
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch, networks=(("Cafe", "espresso-42"), ("Bar", "negroni-77")))
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    assert asked(acts, spool, "hotspot", ssid="pi-table-abcd", password="k7m2p9q4r8s3") == 0
    assert asked(acts, spool, "wifi", ssid="Cafe", password="wrong-password") == 1
    assert nm.active() == ["pi-table-hotspot"] and "pi-table-wifi-new" not in nm.state["profiles"]
    last = desk.state(acts.releases.home)["last"]
    assert last["outcome"] == "failed" and "wrong-password" not in json.dumps(last)
    assert last["why"]["en"].startswith("the table could not join Cafe (Connection activation failed")
    assert last["why"]["en"].endswith("its own Wi-Fi is open again") and last["why"]["it"] != last["why"]["en"]
    nm.on_wifi("Bar")  # later, on the café's Wi-Fi: a wrong password there goes back to it, not the hotspot
    assert asked(acts, spool, "wifi", ssid="Cafe", password="wrong-password") == 1
    assert nm.active() == ["preconfigured"]
    assert desk.state(acts.releases.home)["last"]["why"]["en"].endswith("it is back on Bar")  # the network, by its name


def test_the_fake_nmcli_reads_its_arguments_as_nmcli_does(tmp_path, monkeypatch):
    """pi_table/sim/nmcli.py is held to nmcli 1.42.4's grammar (its docstring names the source):
    no ``--``; where nmcli calls ``next_arg`` (a Wi-Fi's name in ``device wifi connect``, a
    connection named with no selector), ``-a``/``--ask``/``-s``/``--show-secrets`` are its global
    options, and the next argument takes the place; after a keyword or a selector, a value is read as it is."""
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch, networks=(("Cafe", "espresso-42"),))
    nm.on_wifi("Cafe", name="--ask")

    def nmcli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["nmcli", *args], capture_output=True, text=True, check=False)

    misread = nmcli("--wait", "60", "device", "wifi", "connect", "--ask", "password", "espresso-42", "ifname", "wlan0")
    assert misread.returncode == 2 and "invalid extra argument 'espresso-42'" in misread.stderr  # the name is "password"
    assert nmcli("device", "wifi", "connect", "--", "password", "espresso-42").stderr.strip() == (
        "Error: No network with SSID '--' found.")  # no end of options: "--" is the name
    assert nmcli("connection", "down", "--ask").stderr.strip() == "Error: No connection specified."
    assert nmcli("connection", "down", "id", "--ask").returncode == 0 and nm.active() == []
    assert nmcli("device", "wifi", "hotspot", "ifname", "wlan0", "con-name", "h", "ssid", "-s", "password",
                 "k7m2p9q4r8s3").returncode == 0
    assert nm.state["profiles"]["h"]["ssid"] == "-s"  # a keyword's value, read as it is
    assert nmcli("-x", "radio", "wifi", "on").stderr.strip() == "Error: Option '-x' is unknown, try 'nmcli -help'."


@pytest.mark.parametrize("ssid", ["-a", "--ask", "-s", "--show-secrets", "-my-cafe", "--"])
def test_a_wifi_whose_name_nmcli_would_read_as_an_option_never_reaches_it(ssid, tmp_path, monkeypatch):
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch, networks=((ssid, "espresso-42"),))
    with pytest.raises(ReleaseError) as refused:
        requests.check({"act": "wifi", "ssid": ssid, "password": "espresso-42"})
    assert str(refused.value) == "a Wi-Fi network's name that begins with - cannot be joined from a page: nmcli " \
                                 "would read it as an option"
    with pytest.raises(ReleaseError) as refused:  # the act checks it too, whoever calls it
        network.join(ssid, "espresso-42")
    assert "begins with -" in str(refused.value) and "espresso-42" not in str(refused.value)
    assert not [call for call in nm.calls() if "connect" in call]


def test_every_connection_the_helper_names_is_read_by_nmcli_as_a_name(tmp_path, monkeypatch):
    """A connection made before (Imager's, the owner's) may be named anything, ``--ask`` too:
    named after ``id``, nmcli reads it as a name whatever it is."""
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch, networks=(("Cafe", "espresso-42"), ("Bar", "negroni-77")))
    nm.on_wifi("Bar", name="--ask")
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    assert asked(acts, spool, "wifi", ssid="Cafe", password="wrong-password") == 1
    assert nm.active() == ["--ask"]
    assert desk.state(acts.releases.home)["last"]["why"]["en"].endswith("it is back on Bar")  # brought up by its profile, said by its network
    assert asked(acts, spool, "wifi", ssid="Cafe", password="espresso-42") == 0
    named = [call for call in nm.calls() if call[:1] == ["connection"] and call[1] in ("up", "down", "delete", "modify")]
    assert named and all(call[2] == "id" for call in named), named


def test_the_time_zone_is_set_by_timedated_and_one_the_system_does_not_know_is_refused(tmp_path):
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    assert asked(acts, spool, "timezone", zone="Europe/Rome") == 0
    assert (tmp_path / "zone-calls").read_text() == "set-timezone Europe/Rome\n"
    assert asked(acts, spool, "timezone", zone="Europe/Atlantis") == 1
    last = desk.state(acts.releases.home)["last"]
    assert last["outcome"] == "failed" and last["why"]["en"] == "Europe/Atlantis is not a time zone this system knows"
    assert (tmp_path / "zone-calls").read_text() == "set-timezone Europe/Rome\n"


@pytest.mark.parametrize("request_, why", [
    ({"act": "timezone", "zone": "../../etc/shadow"}, "a time zone is named as Region/City"),
    ({"act": "timezone", "zone": "Europe/Rome", "then": "reboot"}, "the request timezone takes zone, not 'then'"),
    ({"act": "wifi", "ssid": "x" * 33, "password": ""}, "a Wi-Fi network's name is 1 to 32 bytes"),
    ({"act": "wifi", "ssid": "Cafe\n", "password": ""}, "a Wi-Fi network's name is 1 to 32 bytes"),
    ({"act": "wifi", "ssid": "Cafe", "password": "short"}, "a Wi-Fi password is 8 to 63"),
    ({"act": "hotspot", "ssid": "pi-table-abcd", "password": ""}, "a Wi-Fi password is 8 to 63"),
    ({"act": "wifi", "ssid": "Cafe"}, "the request wifi takes password, ssid, not 'ssid'"),
])
def test_a_network_or_time_zone_request_out_of_its_shape_is_refused_before_anything_runs(request_, why):
    with pytest.raises(ReleaseError) as refused:
        requests.check(request_)
    assert str(refused.value).startswith(why)
