"""The network beyond Wi-Fi (issue 50, 7): the table's Ethernet given a fixed address (or back to
an automatic one) and the table's host name, each asked from the staff page and changed by the
root helper through NetworkManager as a trial: kept once the page is reached again on the new
address (or name), put back by itself when it is not. nmcli is pi_table/sim/nmcli.py, which reads
its arguments as nmcli 1.42 does."""

from __future__ import annotations

import ipaddress
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_table.release import ReleaseError, desk, helper, network, requests
from pi_table.release.keys import Keyring
from pi_table.release.layout import Releases
from pi_table.release.service_user import ServiceUser

from helpers_machine import FakeNetworkManager


def acts_of(tmp_path: Path) -> helper.Helper:
    return helper.Helper(Releases(tmp_path / "home"), Keyring(tmp_path / "no-keys"), ServiceUser(None))


def reached_later(spool: Path, after_s: float) -> threading.Thread:
    """The staff page reached on the new address: the service keeps the trial it finds noted."""
    def keep() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            trial = network.trial_of(Releases(spool.parent / "home"))
            if trial is not None:
                time.sleep(after_s)
                network.keep(spool, trial["id"])
                return
            time.sleep(0.05)

    thread = threading.Thread(target=keep)
    thread.start()
    return thread


def test_a_fixed_address_reached_again_is_kept(tmp_path, monkeypatch):
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch)
    nm.cabled()
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    monkeypatch.setattr(network, "TRIAL_S", 5.0)
    desk.ask("ipv4", spool=spool, device="eth0", method="manual", address="192.168.1.50/24", gateway="192.168.1.1",
             dns="192.168.1.1")
    waiter = reached_later(spool, 0.2)
    assert helper.act(acts, spool) == 0
    waiter.join()
    assert ["connection", "modify", "id", "Wired connection 1", "ipv4.method", "manual", "ipv4.addresses",
            "192.168.1.50/24", "ipv4.gateway", "192.168.1.1", "ipv4.dns", "192.168.1.1"] in nm.calls()
    assert network.address("eth0") == "192.168.1.50"
    last = desk.state(acts.releases.home)["last"]
    assert (last["act"], last["outcome"]) == ("ipv4", "done")
    assert network.trial_of(acts.releases) is None


def test_a_fixed_address_not_reached_again_comes_back_by_itself_and_says_why(tmp_path, monkeypatch):
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch)
    nm.cabled()
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    monkeypatch.setattr(network, "TRIAL_S", 0.5)
    desk.ask("ipv4", spool=spool, device="eth0", method="manual", address="10.0.0.9/8", gateway="10.0.0.1", dns="")
    assert helper.act(acts, spool) == 1
    assert network.address("eth0") == "192.168.1.37"  # back on the automatic address
    assert nm.state["profiles"]["Wired connection 1"]["ipv4"]["method"] == "auto"
    last = desk.state(acts.releases.home)["last"]
    assert last["outcome"] == "rolled back"
    assert last["why"]["en"] == ("the staff page was not reached at 10.0.0.9 within 1 s: the table is back on its "
                                 "address before")
    assert last["why"]["it"] != last["why"]["en"]
    (spool / requests.REQUEST).write_text('{"act": "nonsense"}')  # any other request after it (issue 62, 4)
    assert helper.act(acts, spool) == 1
    assert desk.state(acts.releases.home)["last"]["act"] == "unknown"  # the newest act of all
    kept = desk.last_act(acts.releases.home, ("ipv4", "hostname"))  # the network section's: its own act's, still
    assert (kept["act"], kept["outcome"], kept["why"]) == ("ipv4", "rolled back", last["why"])
    assert desk.last_act(acts.releases.home, ("keys-add", "keys-revoke")) is None


def test_the_host_name_is_kept_once_reached_by_it_and_put_back_when_not(tmp_path, monkeypatch):
    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch)
    nm.cabled()
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    monkeypatch.setattr(network, "TRIAL_S", 5.0)
    desk.ask("hostname", spool=spool, name="bar-1")
    waiter = reached_later(spool, 0.1)
    assert helper.act(acts, spool) == 0
    waiter.join()
    assert ["general", "hostname", "bar-1"] in nm.calls() and network.host_name() == "bar-1"
    monkeypatch.setattr(network, "TRIAL_S", 0.3)
    desk.ask("hostname", spool=spool, name="terrace")
    assert helper.act(acts, spool) == 1 and network.host_name() == "bar-1"


@pytest.mark.parametrize("request_, why", [
    ({"act": "ipv4", "device": "eth0", "method": "manual", "address": "192.168.1.300/24", "gateway": "", "dns": ""},
     "a fixed address is four numbers 0 to 255 and a prefix"),
    ({"act": "ipv4", "device": "eth0", "method": "manual", "address": "192.168.1.50/24 ipv4.method auto",
      "gateway": "", "dns": ""}, "a fixed address is four numbers 0 to 255 and a prefix"),
    ({"act": "ipv4", "device": "eth0", "method": "manual", "address": "192.168.1.50/24", "gateway": "--ask",
      "dns": ""}, "a gateway or a DNS server is an address of four numbers"),
    ({"act": "ipv4", "device": "eth0", "method": "manual", "address": "192.168.1.50/24", "gateway": "10.0.0.1",
      "dns": ""}, "the gateway 10.0.0.1 is not on the network of 192.168.1.50/24"),
    ({"act": "ipv4", "device": "lo", "method": "auto", "address": "", "gateway": "", "dns": ""},
     "the device is one of eth0, wlan0"),
    ({"act": "ipv4", "device": "eth0", "method": "shared", "address": "", "gateway": "", "dns": ""},
     "the address's method is auto or manual"),
    ({"act": "hostname", "name": "-s"}, "a host name is 1 to 63 letters, digits or '-'"),
    ({"act": "hostname", "name": "Bar 1"}, "a host name is 1 to 63 letters, digits or '-'"),
])
def test_a_network_request_is_parsed_into_its_kind_before_nmcli_sees_it(request_, why):
    with pytest.raises(ReleaseError) as refused:
        requests.check(request_)
    assert str(refused.value).startswith(why)


def fixed(address: str, gateway: str = "", dns: str = "") -> dict[str, str]:
    return {"act": "ipv4", "device": "eth0", "method": "manual", "address": address, "gateway": gateway, "dns": dns}


@pytest.mark.parametrize("request_, why", [
    (fixed("192.168.1.1/24", "192.168.1.1"),
     "the address 192.168.1.1/24 is the gateway's own: expected an address of the table's own"),
    (fixed("192.168.1.0/24", "192.168.1.1"), "the address 192.168.1.0/24 is its network's own address"),
    (fixed("192.168.1.255/24", "192.168.1.1"), "the address 192.168.1.255/24 is its network's broadcast address"),
    (fixed("10.0.0.0/8"), "the address 10.0.0.0/8 is its network's own address"),
    (fixed("127.0.0.5/8"), "the address 127.0.0.5/8 is no device's on a network"),
    (fixed("224.0.0.7/24"), "the address 224.0.0.7/24 is no device's on a network"),
    (fixed("0.0.0.0/8"), "the address 0.0.0.0/8 is no device's on a network"),
    (fixed("0.0.0.1/8"), "the address 0.0.0.1/8 is no device's on a network"),
    (fixed("240.0.0.9/8"), "the address 240.0.0.9/8 is no device's on a network"),
    (fixed("192.168.1.50/24", "192.168.1.0"), "the gateway 192.168.1.0 is its network's own or broadcast address"),
    (fixed("192.168.1.50/24", "192.168.1.255"), "the gateway 192.168.1.255 is its network's own or broadcast address"),
    ({"act": "hostname", "name": "localhost"}, "localhost is every machine's name for itself"),
    ({"act": "hostname", "name": "LocalHost"}, "localhost is every machine's name for itself"),
])
def test_a_fixed_address_or_name_that_is_not_the_tables_own_is_refused_saying_why(request_, why):
    """Issue 58, 7: the trial took the gateway's own address as the table's, its network's and
    broadcast addresses, loopback, multicast, 0.0.0.0 and the name localhost: each is refused in
    words, in the table's languages, naming what was wrong and what was expected."""
    with pytest.raises(ReleaseError) as refused:
        requests.check(request_)
    assert str(refused.value).startswith(why), str(refused.value)
    assert "expected" in str(refused.value)
    from pi_table.ui.i18n import translation

    template = refused.value.why["template"]
    assert translation("it").gettext(template) != template  # said in Italian on the page too


@given(st.integers(min_value=0, max_value=2 ** 32 - 1), st.integers(min_value=8, max_value=30), st.data())
def test_a_fixed_address_is_taken_exactly_when_it_is_a_hosts_of_its_network_other_than_the_gateway(number, prefix, data):
    """The oracle, from the rules (RFC 919's broadcast, RFC 1122's special addresses): a fixed
    address is a host of its network, neither its first nor its last, nor the gateway's, nor
    loopback, multicast, 0.0.0.0/8 or the reserved 240.0.0.0/4."""
    network_ = ipaddress.IPv4Network((number, prefix), strict=False)
    host = network_[data.draw(st.integers(min_value=0, max_value=network_.num_addresses - 1), label="host")]
    gateway = data.draw(st.one_of(st.just(None), st.integers(min_value=0, max_value=network_.num_addresses - 1)),
                        label="gateway")
    gateway_ = None if gateway is None else network_[gateway]
    special = ipaddress.IPv4Network("0.0.0.0/8")
    taken = (host not in (network_.network_address, network_.broadcast_address, gateway_)
             and gateway_ not in (network_.network_address, network_.broadcast_address)
             and not (host.is_loopback or host.is_multicast or host.is_reserved or host in special))
    request_ = fixed(f"{host}/{prefix}", "" if gateway_ is None else str(gateway_))
    assert (network.ipv4_problem(request_) is None) == taken, request_


@pytest.mark.daemon
def test_the_owner_renames_the_table_on_the_page_and_reaching_it_by_its_new_name_keeps_it(tmp_path, monkeypatch):
    from helpers_games import dealt_key
    from helpers_staff import Staff
    from helpers_tables import StaffTable

    nm = FakeNetworkManager(tmp_path / "nm", monkeypatch)
    nm.cabled()
    (tmp_path / "table").mkdir()
    acts, spool = acts_of(tmp_path), tmp_path / "spool"
    monkeypatch.setattr(network, "TRIAL_S", 10.0)
    table = StaffTable(tmp_path / "table", dealt_key())
    try:
        daemon = table.daemon
        daemon.helper.spool, daemon.helper.helper_missing = spool, lambda: None
        section = next(section for section in daemon.companion.staff.sections if section.name == "network")
        section.home = acts.releases.home
        staff = Staff(table.base)
        staff.login()
        status, seen = staff.call("GET", "/staff/api/network")
        assert status == 200 and seen["host_name"] == "raspberrypi" and seen["trial"] is None
        assert seen["devices"][0] == {"device": "eth0", "connection": "Wired connection 1", "address": "192.168.1.37"}
        status, answer = staff.call("POST", "/staff/api/network", {"act": "hostname", "name": "bar-1"})
        assert status == 403 and answer["owner"] == "needed"
        staff.as_owner()
        status, answer = staff.call("POST", "/staff/api/network", {"act": "hostname", "name": "bar 1; reboot"})
        assert status == 400 and answer["error"].startswith("a host name is 1 to 63 letters")
        assert staff.call("POST", "/staff/api/network", {"act": "hostname", "name": "bar-1"}) == (202, {"ok": True})
        outcome: list[int] = []
        helper_thread = threading.Thread(target=lambda: outcome.append(helper.act(acts, spool)))
        helper_thread.start()  # the root helper tries it, and waits for the page to be reached
        deadline = time.monotonic() + 5
        while network.trial_of(acts.releases) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        status, seen = staff.call("GET", "/staff/api/network")  # still at the old name: not kept
        assert seen["kept"] is False and seen["trial"]["at"] == "bar-1.local"
        staff.headers_out["Host"] = f"bar-1.local:{table.base.rsplit(':', 1)[1]}"
        status, seen = staff.call("GET", "/staff/api/network")
        assert status == 200 and seen["kept"] is True
        helper_thread.join(timeout=10)
        assert outcome == [0] and network.host_name() == "bar-1"
    finally:
        table.close()
