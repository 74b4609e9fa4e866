"""A table in a folder on a stand-in machine (``[paths] machine``, ``pi-table stand-in``): the
root helper's side of the machine read from the one place the configuration names, so such a
table never reads or asks the computer's own /opt/pi-table, spool or keyring."""

from __future__ import annotations

import json
import pwd
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pi_table.config import load_config, trial
from pi_table.daemon import backup, sealed
from pi_table.daemon.backup import NIGHTLY_FIRST_S
from pi_table.daemon.root_helper import Machine
from pi_table.host import STAND_INS
from pi_table.release import broker, keys, layout, requests, system
from pi_table.release.stick import FOLDER
from pi_table.web.roles import set_passphrase
from pi_table.web.staff import set_pin

from helpers import wait_for
from helpers_phones import call, looked_on_stick
from helpers_staff import OWNER_PASSPHRASE, STAFF_PIN, Staff, as_owner_once_answering, upload
from helpers_tables import InProcessDaemon, run_first_boot
from walk import asked

CONFIG = '[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n'


def test_a_table_with_no_stand_in_reads_the_computers_own_machine(tmp_path):
    (tmp_path / "config.toml").write_text(CONFIG)
    machine = Machine.of(load_config(tmp_path / "config.toml"))
    assert machine == Machine(requests.SPOOL, layout.HOME, keys.KEYRING, system.REBOOT_FLAG, broker.ETC, broker.PORT,
                              stand_in=False)


@pytest.mark.daemon
def test_every_part_of_a_table_on_a_stand_in_reads_the_stand_ins_folder(tmp_path):
    (tmp_path / "config.toml").write_text(CONFIG + 'machine = "machine"\n')
    (tmp_path / "machine" / "mosquitto").mkdir(parents=True)
    (tmp_path / "machine" / "mosquitto" / "port").write_text("18883")
    table = InProcessDaemon(tmp_path / "config.toml")
    daemon = table.daemon
    try:
        assert daemon.companion is not None
        folder = tmp_path / "machine"
        helper = daemon.helper
        assert helper is not None and helper.helper_missing() is None
        assert (helper.spool, helper.home, helper.keyring.folder) == (folder / "requests", folder / "opt", folder / "keys")
        assert daemon.security is not None
        assert (daemon.security.home, daemon.security.reboot_flag) == (folder / "opt", folder / "run" / "reboot-required")
        sections = {section.name: section for section in daemon.companion.staff.sections}
        for name in ("keys", "network", "wifi"):
            assert sections[name].home == folder / "opt", name  # type: ignore[attr-defined]
        assert sections["keys"].keyring.folder == folder / "keys"  # type: ignore[attr-defined]
        desk = sections["broker"].table
        assert (desk.home, desk.etc, desk.port) == (folder / "opt", folder / "mosquitto" / "etc", 18883)
        assert daemon in STAND_INS  # every page says the table is simulated (test_every_page.py)
        assert '<p class="simulated" role="note">Simulated table:' in asked(daemon.companion.port, "/")[2]
    finally:
        table.close()
    assert daemon not in STAND_INS


def test_a_stand_in_machine_is_a_folder_of_the_tables_own(tmp_path):
    from pi_table.config import ConfigError

    (tmp_path / "config.toml").write_text(CONFIG + 'machine = "../elsewhere"\n')
    with pytest.raises(ConfigError, match="machine"):
        load_config(tmp_path / "config.toml")


def test_a_stand_in_machine_never_runs_where_pi_table_is_installed(tmp_path):
    from pi_table.daemon.stand_in import refusal
    from pi_table.release.service_user import USER

    assert refusal(None) is not None  # no [paths] machine: nothing to stand in for
    assert refusal(tmp_path, installed=(tmp_path / "absent",)) is None
    said = refusal(tmp_path, installed=(tmp_path,))  # a Pi's /opt/pi-table (or its keyring)
    assert said is not None and str(tmp_path) in str(said)
    try:  # as the service's user, where this machine has one
        assert refusal(tmp_path, uid=pwd.getpwnam(USER).pw_uid, installed=()) is not None
    except KeyError:
        pass
    (tmp_path / "config.toml").write_text(CONFIG)  # a table in a folder, no stand-in named
    done = subprocess.run([sys.executable, "-m", "pi_table", "stand-in", "--config", str(tmp_path / "config.toml")],
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr.strip()) == (77, "pi-table stand-in: the configuration names no stand-in "
                                                          "machine: set [paths] machine to a folder of the table's, as "
                                                          "docs/cafe/try.md shows")


@pytest.mark.daemon
def test_the_stand_in_machine_plays_the_helpers_acts_for_a_table_in_a_folder(tmp_path):
    from pi_table.daemon.root_helper import RootHelper
    from pi_table.release.layout import Releases, act_note

    (tmp_path / "config.toml").write_text(CONFIG + 'machine = "machine"\n')
    table = Started(tmp_path)
    machine, tables, up = table.machine, table.tables, table.up
    try:
        wait_for(up, "the table on its stand-in machine up", timeout=60)
        helper = RootHelper(machine)
        notes = Releases(machine.home)
        assert helper.ask("timezone", zone="Europe/Rome") is None
        wait_for(lambda: (notes.note(act_note("timezone")) or {}).get("outcome") == "done", "the zone set", timeout=30)
        assert "set-timezone Europe/Rome" in (machine.home.parent / "timedatectl.calls").read_text()
        assert helper.ask("wifi", ssid="Cafe", password="espresso-42") is None
        wait_for(lambda: (notes.note(act_note("wifi")) or {}).get("outcome") is not None, "the Wi-Fi joined", timeout=60)
        assert notes.note(act_note("wifi"))["outcome"] == "done", notes.note(act_note("wifi"))
        state = json.loads((machine.home.parent / "network-manager" / "state.json").read_text())
        assert any(state["profiles"][name].get("ssid") == "Cafe" for name in state["active"])
        assert helper.ask("security") is None  # Debian's patches waiting: applied, the table restarted on them
        wait_for(lambda: (notes.note(system.NOTE) or {}).get("outcome") is not None, "the security updates", timeout=120)
        assert notes.note(system.NOTE)["outcome"] == "done", notes.note(system.NOTE)
        assert machine.reboot_flag.exists()  # libc6 was patched: a reboot is due
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "owner@cafe", "-f", str(tmp_path / "owner")],
                       check=True)
        assert helper.ask("keys-add", name="owner", key=(tmp_path / "owner.pub").read_text().strip()) is None
        wait_for(lambda: (notes.note(act_note("keys-add")) or {}).get("outcome") is not None, "the key added", timeout=30)
        assert notes.note(act_note("keys-add"))["outcome"] == "done", notes.note(act_note("keys-add"))
        assert (machine.keys / "allowed_signers").read_text().startswith("owner ")
        before = tables()  # the security updates restarted the table: the reboot's start is another
        assert helper.ask("reboot") is None
        wait_for(lambda: tables() and tables() != before and up(), "the table started again after the reboot", timeout=60)
        assert not machine.reboot_flag.exists()  # /run emptied by the reboot
        assert helper.ask("poweroff") is None
        assert table.process.wait(timeout=60) == 0 and tables() == []
    finally:
        table.close()


class Started:
    """``pi-table stand-in`` started in ``folder`` as try.md's step 7 starts it, and the phones' way to it."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.config = folder, folder / "config.toml"
        self.machine = Machine.of(load_config(self.config))
        self.process = subprocess.Popen([sys.executable, "-m", "pi_table", "stand-in", "--config", "config.toml"],
                                        cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def tables(self) -> list[str]:
        """The tables it runs (its children: one, while the table is not starting again)."""
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return path.read_text().split() if path.exists() else []

    def up(self) -> bool:
        assert self.process.poll() is None, self.process.stderr.read().decode() if self.process.stderr else ""
        return subprocess.run([sys.executable, "-m", "pi_table", "status", "--config", str(self.config)],
                              capture_output=True, check=False).returncode == 0

    def owner(self, port: int) -> Staff:
        """The owner's phone on the staff page, once the table answers it."""
        phone = Staff(f"http://127.0.0.1:{port}")
        wait_for(lambda: as_owner_once_answering(phone) is not None, "the staff page answering", timeout=60, every=0.2)
        return phone

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port: int = free.getsockname()[1]
        return port


def on_a_stand_in(folder: Path, port: int) -> None:
    """A table's ``config.toml`` in ``folder`` as try.md's step 7 leaves it: on this machine, at ``port``."""
    folder.mkdir(exist_ok=True)
    (folder / "config.toml").write_text(CONFIG.replace("port = 0", f"port = {port}") + 'machine = "machine"\n')


def owners_table(folder: Path) -> int:
    """A table in ``folder`` with a staff PIN and an owner's passphrase, on a stand-in machine: its port."""
    port = free_port()
    on_a_stand_in(folder, port)
    set_pin(folder / "journal", STAFF_PIN)
    set_passphrase(folder / "journal", OWNER_PASSPHRASE)
    return port


def settings_changed(table: Started, owner: Staff, hold_s: float) -> None:
    """A setting changed from the staff page, and kept after the restart it asks for."""
    assert owner.call("POST", "/staff/api/config", {"changes": {"game.hold_s": hold_s}}) == (
        200, {"ok": True, "restarting": True})
    wait_for(lambda: load_config(table.config).input.hold_s == hold_s and table.up()
             and trial.pending_trial(table.config) is None, "the change kept", timeout=60, every=0.2)


@pytest.mark.daemon
def test_the_nightly_backup_goes_on_the_stand_ins_stick_and_comes_back_from_it_on_the_page_and_on_a_new_card(
        tmp_path):
    """computer.md's task 7 with the stick (docs/cafe/backup.md), on stand-in machines, from the
    pages alone: the owner makes a backup key, the night's backup is written to the stick by the
    real helper's act (the stand-in's lsblk and mount, its folder the stick) and the page says so;
    a setting changed since comes back when the owner uploads the stick's copy under Restore a
    backup; and a fresh table (try.md's step 6) with the stick plugged in is set up from it through
    the helper's copy from the stick, with the backup key: the setting and the PIN come back."""
    cafe = tmp_path / "cafe"
    port = owners_table(cafe)
    table, fresh = Started(cafe), None
    try:
        owner = table.owner(port)
        status, made = owner.call("POST", "/staff/api/offsite/backup-key")
        assert status == 200 and made["ok"], made  # type: ignore[index]
        key = made["backup_key"]  # type: ignore[index]
        settings_changed(table, owner, 0.3)
        owner = table.owner(port)

        def on_the_stick() -> dict | None:
            status, offsite = owner.call("GET", "/staff/api/offsite")
            assert status == 200, offsite
            return offsite["stick"]  # type: ignore[index]

        wait_for(on_the_stick, "the nightly backup on the stick", timeout=NIGHTLY_FIRST_S + 60, every=1)
        last = on_the_stick()
        assert last is not None and last["ok"] and last["stick"] == "CAFE", last
        stick = cafe / "machine" / "usb-stick"
        assert [path.name for path in (stick / FOLDER).iterdir()] == [last["backup"]]
        copy = (stick / FOLDER / last["backup"]).read_bytes()
        assert sealed.is_sealed(copy)  # it left the card sealed with the owner's key
        settings_changed(table, owner, 0.4)
        owner = table.owner(port)
        status, answer = upload(owner, "/staff/api/restore", copy)
        assert status == 200 and answer["ok"], answer
        wait_for(lambda: load_config(table.config).input.hold_s == 0.3 and table.up()
                 and backup.pending(load_config(table.config)) is None, "the backup restored and kept", timeout=60,
                 every=0.2)

        table.close()  # the café's SD card died: a new one, set up from the stick, takes its place
        new_port = free_port()
        on_a_stand_in(tmp_path / "new", new_port)
        assert run_first_boot(tmp_path / "new" / "config.toml").returncode == 0
        shutil.copytree(stick, tmp_path / "new" / "machine" / "usb-stick")  # the stick, plugged into the new table
        fresh = Started(tmp_path / "new")
        base = f"http://127.0.0.1:{new_port}"
        code = json.loads((tmp_path / "new" / "journal" / "setup.pending").read_text())["code"]

        def set_up_page() -> bool:
            try:
                return call(base, "GET", "/setup")[0] == 200
            except OSError:  # not listening yet
                return False

        wait_for(set_up_page, "the new table's set-up page", timeout=60, every=0.2)
        found = looked_on_stick(base, code)
        assert (found["outcome"], found["backup"], found["sealed"]) == ("done", last["backup"], True), found
        status, done, _ = call(base, "POST", "/setup/api", {
            "code": code, "restore": last["backup"], "key": key, "zone": "Europe/Rome", "wifi": None,
            "passphrase": "the new card's passphrase", "passphrase_again": "the new card's passphrase"})
        assert status == 200 and done["ok"] and done["restarting"], done
        wait_for(lambda: load_config(fresh.config).input.hold_s == 0.3 and fresh.up()
                 and backup.pending(load_config(fresh.config)) is None, "the new card restored and kept", timeout=90,
                 every=0.2)
        assert load_config(fresh.config).web.port == port  # the backup's configuration whole: the old table's port
        assert Staff(f"http://127.0.0.1:{port}").login(STAFF_PIN)[0] == 200  # and its PIN
    finally:
        table.close()
        if fresh is not None:
            fresh.close()


@pytest.mark.daemon
def test_the_owner_gives_the_stand_in_a_host_name_and_a_fixed_address_kept_once_reached_there(tmp_path):
    """computer.md's task 11 on a stand-in machine, from the staff page: each change is the real
    helper's trial on the simulated NetworkManager, kept once a phone reaches the page at the new
    name or address (its Host, as a phone that found it by mDNS or typed it sends); a restart of
    the table while a trial waits (a setting changed) does not hold the machine up: the table
    starts again at once and the trial is still kept, as on a Pi, where the helper is not systemd."""
    port = owners_table(tmp_path)
    table = Started(tmp_path)
    try:
        owner = table.owner(port)
        status, seen = owner.call("GET", "/staff/api/network")
        assert status == 200 and seen["host_name"] == "raspberrypi", seen  # type: ignore[index]
        assert seen["devices"][0] == {"device": "eth0", "connection": "Wired connection 1",  # type: ignore[index]
                                      "address": "192.168.1.37"}

        def tried(change: dict, at: str) -> dict:
            """``change`` asked, a phone at ``at`` once it is on trial: the network the page then shows."""
            assert owner.call("POST", "/staff/api/network", change) == (202, {"ok": True})
            wait_for(lambda: (owner.call("GET", "/staff/api/network")[1]["trial"] or {}).get("at") == at,  # type: ignore[index]
                     f"the change on trial at {at}", timeout=30, every=0.2)
            return owner.call("GET", "/staff/api/network")[1]  # type: ignore[return-value]

        assert tried({"act": "hostname", "name": "bar-1"}, "bar-1.local")["host_name"] == "bar-1"
        settings_changed(table, owner, 0.3)  # the table restarts while the trial waits for the page
        there = table.owner(port)
        there.headers_out = {"Host": f"bar-1.local:{port}"}
        status, seen = there.call("GET", "/staff/api/network")
        assert status == 200 and seen["kept"], seen  # type: ignore[index]
        wait_for(lambda: (there.call("GET", "/staff/api/network")[1]["last"] or {}).get("outcome") == "done",  # type: ignore[index]
                 "the host name kept", timeout=30, every=0.2)
        assert there.call("GET", "/staff/api/network")[1]["host_name"] == "bar-1"  # type: ignore[index]

        owner = there
        owner.headers_out = {}
        fixed = {"act": "ipv4", "device": "eth0", "method": "manual", "address": "192.168.1.50/24",
                 "gateway": "192.168.1.1", "dns": "192.168.1.1"}
        assert tried(fixed, "192.168.1.50")["devices"][0]["address"] == "192.168.1.50"
        owner.headers_out = {"Host": f"192.168.1.50:{port}"}
        status, seen = owner.call("GET", "/staff/api/network")
        assert status == 200 and seen["kept"], seen  # type: ignore[index]
        wait_for(lambda: (owner.call("GET", "/staff/api/network")[1]["last"] or {}).get("outcome") == "done",  # type: ignore[index]
                 "the fixed address kept", timeout=30, every=0.2)
        state = json.loads((tmp_path / "machine" / "network-manager" / "state.json").read_text())
        assert state["profiles"]["Wired connection 1"]["ipv4"] == {
            "method": "manual", "addresses": "192.168.1.50/24", "gateway": "192.168.1.1", "dns": "192.168.1.1"}
    finally:
        table.close()
