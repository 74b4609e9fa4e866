"""A table in a folder on a stand-in machine (``[paths] machine``, ``pi-table stand-in``): the
root helper's side of the machine read from the one place the configuration names, so such a
table never reads or asks the computer's own /opt/pi-table, spool or keyring."""

from __future__ import annotations

import pytest

from pi_table.config import load_config
from pi_table.daemon.root_helper import Machine
from pi_table.release import broker, keys, layout, requests, system

from helpers_tables import InProcessDaemon

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
    finally:
        table.close()


def test_a_stand_in_machine_is_a_folder_of_the_tables_own(tmp_path):
    from pi_table.config import ConfigError

    (tmp_path / "config.toml").write_text(CONFIG + 'machine = "../elsewhere"\n')
    with pytest.raises(ConfigError, match="machine"):
        load_config(tmp_path / "config.toml")
