"""The broker's password (issue 37, 7): the staff page shows it hidden and keeps it only for the
broker it was given for; pointed at another broker, a table has no password to send until one is
given with the change. And a password goes over TLS (mqtts://) unless the owner says otherwise."""

from __future__ import annotations

import json

import pytest

from pi_table.config import ConfigError, parse_config
from pi_table.config.settings import HIDDEN, broker_change, hide_password

from helpers_games import dealt_key
from helpers_staff import Staff
from helpers_tables import StaffTable as InProcessTable

KEPT = {"fleet.broker": "mqtts://t1@broker.cafe.example", "fleet.password_file": "/etc/pi-table/mqtt.password"}
IN_URL = {"fleet.broker": "mqtts://t1:s3cret@broker.cafe.example:8883", "fleet.password_file": ""}


@pytest.mark.parametrize(("kept", "changes", "written"), [
    pytest.param(IN_URL, {"fleet.broker": hide_password(IN_URL["fleet.broker"])},
                 {"fleet.broker": IN_URL["fleet.broker"]}, id="sent-back-as-shown-keeps-it"),
    pytest.param(IN_URL, {"fleet.broker": f"mqtts://t1:{HIDDEN}@BROKER.cafe.example:8883/"},
                 {"fleet.broker": IN_URL["fleet.broker"].replace("broker.", "BROKER.") + "/"}, id="same-broker-other-case"),
    pytest.param(IN_URL, {"fleet.broker": f"mqtts://t1:{HIDDEN}@broker.cafe.example"},
                 {"fleet.broker": "mqtts://t1:s3cret@broker.cafe.example"}, id="the-scheme's-own-port-is-the-same"),
    pytest.param(IN_URL, {"fleet.broker": f"mqtt://t1:{HIDDEN}@staff.example"},
                 {"fleet.broker": "mqtt://t1@staff.example"}, id="another-host-drops-it"),
    pytest.param(IN_URL, {"fleet.broker": f"mqtt://t1:{HIDDEN}@broker.cafe.example:8883"},
                 {"fleet.broker": "mqtt://t1@broker.cafe.example:8883"}, id="no-tls-is-another-broker"),
    pytest.param(IN_URL, {"fleet.broker": f"mqtts://t1:{HIDDEN}@broker.cafe.example:8884"},
                 {"fleet.broker": "mqtts://t1@broker.cafe.example:8884"}, id="another-port-drops-it"),
    pytest.param(IN_URL, {"fleet.broker": "mqtts://t1:n3w@staff.example"},
                 {"fleet.broker": "mqtts://t1:n3w@staff.example"}, id="a-new-password-with-the-change"),
    pytest.param(KEPT, {"fleet.broker": "mqtts://t1@staff.example"},
                 {"fleet.broker": "mqtts://t1@staff.example", "fleet.password_file": ""}, id="the-file-dropped"),
    pytest.param(KEPT, {"fleet.broker": "mqtts://t1@staff.example",
                        "fleet.password_file": "/etc/pi-table/../pi-table/mqtt.password"},
                 {"fleet.broker": "mqtts://t1@staff.example", "fleet.password_file": ""}, id="the-same-file-named-again"),
    pytest.param(KEPT, {"fleet.broker": "mqtts://t1@staff.example", "fleet.password_file": "/etc/pi-table/staff.password"},
                 {"fleet.broker": "mqtts://t1@staff.example", "fleet.password_file": "/etc/pi-table/staff.password"},
                 id="a-new-file-with-the-change"),
    pytest.param(KEPT, {"fleet.broker": "mqtts://t1:n3w@staff.example"},
                 {"fleet.broker": "mqtts://t1:n3w@staff.example", "fleet.password_file": ""}, id="a-new-password-in-the-url"),
    pytest.param(KEPT, {"fleet.password_file": "/etc/pi-table/other.password"},
                 {"fleet.password_file": "/etc/pi-table/other.password"}, id="the-same-broker-another-file"),
    pytest.param(KEPT, {"fleet.broker": "mqtts://t2@broker.cafe.example"},
                 {"fleet.broker": "mqtts://t2@broker.cafe.example"}, id="the-same-broker-another-user"),
    pytest.param(KEPT, {"timer.length_s": 90}, {"timer.length_s": 90}, id="no-broker-in-the-change"),
])
def test_a_password_kept_goes_only_to_the_broker_it_was_given_for(kept, changes, written):
    """Issue 37, 7: pointing ``fleet.broker`` at one's own host kept ``password_file`` (and the
    page's hidden password was put back in the URL), so the table logged in there with the
    café's password. A change of broker (its scheme, host or port) drops the password kept."""
    assert broker_change(changes, kept) == written


def test_a_password_goes_over_tls_unless_the_owner_says_otherwise(tmp_path):
    path = tmp_path / "config.toml"
    clear = {  # the keys the checker names (a URL alone, or with a file), and the broker as it shows it
        '[fleet]\nbroker = "mqtt://t1:hunter2@broker.cafe.example"\ntable_id = "t1"\n':
            "fleet.broker: the broker's password would cross the network in clear to mqtt://broker.cafe.example",
        '[fleet]\nbroker = "mqtt://t1@192.0.2.7:1883"\ntable_id = "t1"\npassword_file = "files/mqtt.password"\n':
            "fleet.broker and fleet.password_file together: the broker's password would cross the network in clear "
            "to mqtt://192.0.2.7:1883",
    }
    for text, said in clear.items():
        with pytest.raises(ConfigError) as refused:
            parse_config(text, path)
        assert str(refused.value) == (
            f"{path}: {said}: use mqtts:// (TLS), or set password_in_clear = true for a broker on a network you trust")
        assert "hunter2" not in str(refused.value)
        assert parse_config(text + "password_in_clear = true\n", path).fleet.password_in_clear
    for text in ('[fleet]\nbroker = "mqtts://t1:hunter2@broker.cafe.example"\ntable_id = "t1"\n',
                 '[fleet]\nbroker = "mqtt://t1:hunter2@127.0.0.1:1883"\ntable_id = "t1"\n',  # this machine alone
                 '[fleet]\nbroker = "mqtt://t1:hunter2@[::1]"\ntable_id = "t1"\n',
                 '[fleet]\nbroker = "mqtt://t1@broker.cafe.example"\ntable_id = "t1"\n'):  # no password to keep
        assert not parse_config(text, path).fleet.password_in_clear


@pytest.mark.parametrize(("fleet", "sent", "written"), [
    pytest.param('broker = "mqtts://t1@127.0.0.1:1"\npassword_file = "{password}"\n',
                 "mqtts://t1@192.0.2.7:8883", {"broker": "mqtts://t1@192.0.2.7:8883", "password_file": ""}, id="file"),
    pytest.param('broker = "mqtts://t1:s3cret@127.0.0.1:1"\n',
                 f"mqtts://t1:{HIDDEN}@192.0.2.7:8883", {"broker": "mqtts://t1@192.0.2.7:8883"}, id="url"),
])
def test_the_staff_page_cannot_send_the_cafes_broker_password_to_another_broker(tmp_path, fleet, sent, written):
    """Issue 37, 7, through the staff page: the broker shown with its password hidden, the
    staff's own host typed in its place. The staff cannot change the broker at all (it is the
    owner's: web/roles.py); and even the owner's change, sent with the password hidden, writes
    no password for the new broker."""
    import tomllib

    password = tmp_path / "files" / "mqtt.password"  # the table's secrets folder
    password.parent.mkdir(mode=0o700)
    password.write_text("s3cret\n")
    password.chmod(0o600)
    table = InProcessTable(tmp_path, dealt_key(), extra="[fleet]\ntable_id = \"t1\"\n" + fleet.format(password=password))
    try:
        staff = Staff(table.base)
        staff.login()
        shown = {option["key"]: option["value"] for option in staff.call("GET", "/staff/api/config")[1]["options"]}
        assert "s3cret" not in json.dumps(shown) and shown["fleet.broker"].startswith("mqtts://t1")
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"fleet.broker": sent}})
        assert status == 403 and answer["owner"] == "needed", answer
        staff.as_owner()
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"fleet.broker": sent}})
        assert status == 200, answer
        kept = tomllib.loads(table.config.read_text())["fleet"]
        assert {key: kept.get(key, "") for key in written} == written and "s3cret" not in table.config.read_text()
    finally:
        table.close()


@pytest.mark.slow  # some 4 s of CPU by itself: out of ./dev test (issue 40)
def test_the_dashboard_sends_its_broker_password_over_tls_unless_told_otherwise(tmp_path):
    """``pi-table fleet`` as the table's checker: a password over mqtt:// to another machine is
    refused unless ``--password-in-clear`` says the network is trusted (then the dashboard starts:
    here, on a port already taken, it gets as far as the page and says so)."""
    import socket
    import subprocess
    import sys

    from pi_table.fleet.dashboard import write_password_file

    write_password_file(tmp_path / "page.password", "x" * 8)
    secret = tmp_path / "broker.password"
    secret.write_text("hunter2\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        base = [sys.executable, "-m", "pi_table", "fleet", "--password-file", str(tmp_path / "page.password"),
                "--port", str(taken.getsockname()[1])]
        for broker in (["--broker", "mqtt://dashboard:hunter2@192.0.2.7"],
                       ["--broker", "mqtt://dashboard@192.0.2.7", "--broker-password-file", str(secret)]):
            refused = subprocess.run(base + broker, capture_output=True, text=True, timeout=30)
            assert refused.returncode == 2 and refused.stderr.splitlines()[-1].endswith(
                "the broker's password would cross the network in clear to mqtt://192.0.2.7: use mqtts:// (TLS), or "
                "--password-in-clear for a broker on a network you trust"), refused.stderr
            assert "hunter2" not in refused.stderr
            started = subprocess.run(base + broker + ["--password-in-clear"], capture_output=True, text=True, timeout=30)
            assert started.returncode == 1 and "address already in use" in started.stderr, started.stderr
