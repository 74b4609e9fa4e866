"""A table in a folder on a stand-in machine (``[paths] machine``, ``pi-table stand-in``): the
root helper's side of the machine read from the one place the configuration names, so such a
table never reads or asks the computer's own /opt/pi-table, spool or keyring."""

from __future__ import annotations

import json
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

from pi_table.config import load_config
from pi_table.daemon.root_helper import Machine
from pi_table.host import STAND_INS
from pi_table.release import broker, keys, layout, requests, system

from helpers import wait_for
from helpers_tables import InProcessDaemon
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
    machine = Machine.of(load_config(tmp_path / "config.toml"))
    stand_in = subprocess.Popen([sys.executable, "-m", "pi_table", "stand-in", "--config", "config.toml"],
                                cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def tables() -> list[str]:
            path = Path(f"/proc/{stand_in.pid}/task/{stand_in.pid}/children")
            return path.read_text().split() if path.exists() else []

        def up() -> bool:
            assert stand_in.poll() is None, stand_in.stderr.read().decode() if stand_in.stderr else ""
            return subprocess.run([sys.executable, "-m", "pi_table", "status", "--config", str(tmp_path / "config.toml")],
                                  capture_output=True, check=False).returncode == 0

        wait_for(up, "the table on its stand-in machine up", timeout=60)
        first = tables()
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
        assert helper.ask("reboot") is None
        wait_for(lambda: tables() and tables() != first and up(), "the table started again after the reboot", timeout=60)
        assert not machine.reboot_flag.exists()  # /run emptied by the reboot
        assert helper.ask("poweroff") is None
        assert stand_in.wait(timeout=60) == 0 and tables() == []
    finally:
        if stand_in.poll() is None:
            stand_in.terminate()
            stand_in.wait(timeout=30)
