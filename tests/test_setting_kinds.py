"""What a setting may name (issue 48): every key has a kind (``config.schema``), the value is
parsed into it before any code opens a device, a file or a host (``pi_table.kinds``), and the
kind says whose the key is. The reproductions of the third attack on the table: a staff setting
handed to pyserial's ``serial_for_url`` made the staff the owner, emptied any file the service
writes, and dialled a host the staff chose."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from pi_table.config import ConfigError, parse_config
from pi_table.config.schema import NAMING, OPTIONS
from pi_table.daemon.restarts import EXIT_RESTART
from pi_table.kinds import Address, Folder, NotADevice, OwnFile, SecretFile, SerialDevice, Url
from pi_table.release import first_boot
from pi_table.web.roles import OWNER_FILE, set_passphrase
from pi_table.web.staff import PIN_FILE, set_pin

from helpers_staff import STAFF_PIN
from helpers_tables import StaffService

PYSERIAL_URLS = ["spy:///dev/no-such-port?file=/tmp/journal/setup.pending", "spy://socket://127.0.0.1:7000?file=x",
                 "socket://127.0.0.1:7000", "rfc2217://127.0.0.1:7000", "loop://", "hwgrep://2E8A", "alt:///dev/ttyS0",
                 "cp2110://0001:0004:00", "file:///etc/passwd"]
"""Every URL scheme pyserial's ``serial_for_url`` knows, and a file URL."""
HOSTILE = [*PYSERIAL_URLS, "/etc/passwd", "/dev/../etc/passwd", "/dev/./ttyACM0", "../../etc/shadow", "-oProxyCommand=x",
           "--help", "ttyACM0", "/dev/ttyACM0\0", "/dev/ttyACM0 ", "/dev/tty\nACM0", "/d\u0435v/ttyACM0",  # a Cyrillic е
           "/dev/ttyACM0?file=x", "/" + "d" * 65536, ""]
"""Values a hostile staff phone or backup would give a setting that names a device."""


def config_with(folder: Path, section: str, name: str, value: object) -> Path:
    path = folder / "config.toml"
    text = value if isinstance(value, str) else str(value)
    path.write_text(f'[{section}]\n{name} = {_toml(text)}\n', encoding="utf-8")
    return path


def _toml(text: str) -> str:
    return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 32 or c in '"\\' else c for c in text) + '"'


def refused(path: Path, key: str) -> str:
    with pytest.raises(ConfigError) as error:
        parse_config(path.read_text(encoding="utf-8"), path)
    problems = [problem for problem in error.value.problems if f": {key}: " in problem]
    assert problems, error.value.problems
    return "\n".join(problems)


@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
def test_the_touch_port_is_auto_or_a_serial_device_never_a_url_a_file_or_an_option(tmp_path, value):
    said = refused(config_with(tmp_path, "touch", "port", value), "touch.port")
    assert "expected 'auto' or a serial device's path under /dev" in said
    assert len(said) < 600  # a 64 KB value is not repeated whole
    assert not (tmp_path / "journal").exists() and not Path("/tmp/journal/setup.pending").exists()


def test_the_touch_port_takes_auto_a_device_and_a_link_to_one(tmp_path):
    (tmp_path / "board").symlink_to("/dev/null")  # as the board emulator's stable link, or udev's by-id
    for value in ("auto", "/dev/ttyACM0", "/dev/serial/by-id/usb-Raspberry_Pi_Pico_E6605838833B2E2F-if02",
                  "/dev/serial/by-path/platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.3:1.2", str(tmp_path / "board")):
        path = config_with(tmp_path, "touch", "port", value)
        port = parse_config(path.read_text(), path).touch.port
        assert port == (None if value == "auto" else SerialDevice(value))
    (tmp_path / "elsewhere").symlink_to(tmp_path / "config.toml")
    assert "under /dev" in refused(config_with(tmp_path, "touch", "port", str(tmp_path / "elsewhere")), "touch.port")


def test_a_link_not_there_yet_is_taken_and_checked_when_the_port_is_opened(tmp_path):
    """The board emulator makes its link after the table has started; what the link leads to is
    checked when the port is opened, so a file put there instead is still refused."""
    link = tmp_path / "board"
    path = config_with(tmp_path, "touch", "port", str(link))
    port = parse_config(path.read_text(), path).touch.port
    assert port == SerialDevice(str(link))
    link.write_text("not a device\n")
    with pytest.raises(NotADevice, match="not under /dev"):
        port.target()
    assert "under /dev" in refused(path, "touch.port")  # and a restart with it there refuses the setting
    link.unlink()
    link.symlink_to("/dev/null")
    assert port.target() == "/dev/null"


@pytest.mark.parametrize("key", [option.key for option in OPTIONS if option.kind in ("file", "deck")])
def test_a_file_a_setting_names_is_in_the_configurations_folder(tmp_path, key):
    """Issue 48, 5: which files a setting may read is the table's own list, not "anything but the journal"."""
    folder = tmp_path / "etc"
    (folder / "files").mkdir(parents=True)
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("words\n")
    (folder / "files" / "out").symlink_to(outside)
    section, name = key.split(".")
    for value in ("/etc/passwd", str(outside), "../elsewhere.txt", "files/out", "files/../../elsewhere.txt", ".",
                  "/proc/self/environ", "/dev/zero"):
        said = refused(config_with(folder, section, name, value), key)
        assert "the configuration's folder" in said, said


SECRET_KEYS = [option.key for option in OPTIONS if option.kind == "secret"]


def test_every_setting_that_names_a_secret_is_of_the_secret_kind():
    """The settings whose file the table sends or serves as a secret (a password, a private key)."""
    assert set(SECRET_KEYS) == {"web.tls_key", "fleet.password_file", "fleet.key", "fleet.dashboard_password_file",
                                "notify.url_file"}


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_a_secret_file_a_setting_names_is_one_of_the_secrets_folders_never_the_settings_or_the_journal(tmp_path, key):
    """Issue 58, 3: a restored backup named ``fleet.password_file = "config.toml.good"``, and the
    previous settings (the café's broker password in their URL) went out as the MQTT password. A
    setting of the secret kind names a file in ``files/`` beside the configuration, where the
    owner's files are kept, and nothing else: not the settings, their last good, trial or refused
    copies, the journal, the table's own TLS key, nor anything a link in ``files/`` leads to."""
    folder = tmp_path / "etc"
    files = folder / "files"
    files.mkdir(parents=True)
    for name in ("config.toml.good", "config.toml.trial", "config.toml.refused", "journal/staff.pin", "tls/table.key"):
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text("broker = \"mqtt://t1:SECRET@cafe\"\n")
    (files / "good").symlink_to(folder / "config.toml.good")
    (files / "kept.secret").write_text("a password\n")
    section, name = key.split(".")
    broker = '[fleet]\nbroker = "mqtts://t1@127.0.0.1"\n' if section == "fleet" else ""
    path = folder / "config.toml"
    for value in ("config.toml", "config.toml.good", "config.toml.trial", "config.toml.refused", "journal/staff.pin",
                  "tls/table.key", "files/../config.toml.good", "files/good", str(folder / "config.toml.good"),
                  "files", "/etc/passwd", "/dev/zero", "../x"):
        path.write_text(f'{broker}{name} = "{value}"\n' if section == "fleet" else f'[{section}]\n{name} = "{value}"\n')
        said = refused(path, key)
        assert f"a file in {files}, the table's secrets folder" in said, (value, said)
        assert "SECRET" not in said
    assert SecretFile.parse("files/kept.secret", str(folder)).path == str(files / "kept.secret")  # the folder's own


@pytest.mark.parametrize("key", ["paths.journal_dir", "paths.socket"])
@pytest.mark.parametrize("value", ["/dev/shm", "/dev/shm/journal", "/dev/pi-table", "/proc/self", "/sys/kernel/x",
                                   "/tmp", "/tmp/journal", "/var/tmp/pi-table", "/run/lock/pi-table", "shared/journal"])
def test_a_folder_of_the_tables_own_is_neither_the_kernels_nor_one_others_may_write_in(tmp_path, key, value):
    """Issue 58, 7: the folder kind took any absolute folder, and ``/dev/shm`` (anyone may write
    there, and it is cleared at boot) passed as the journal's. A folder of the table's own is not
    under /dev, /proc or /sys, and neither it nor the folder it would be made in is one others
    may write in (``shared`` here, 0777 as /tmp is): the refusal names both what and why."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared").chmod(0o1777)
    section, name = key.split(".")
    said = refused(config_with(tmp_path, section, name, value), key)
    assert ("not under /dev, /proc or /sys, and not one others may write in (as /tmp and /dev/shm)" in said
            and repr(value) in said), said


@pytest.mark.parametrize("value", ["journal", "/var/lib/pi-table/journal", "/run/pi-table/control.sock", "own/journal"])
def test_a_folder_of_the_tables_own_is_taken(tmp_path, value):
    (tmp_path / "own").mkdir(mode=0o700)
    assert Folder.parse(value, str(tmp_path)).path == (value if value.startswith("/") else str(tmp_path / value))


def test_the_kinds_parse_only_their_own_shape():
    assert Address.parse("0.0.0.0") == Address.parse("0.0.0.0") and str(Address.parse("localhost")) == "127.0.0.1"
    for text in ("table.local", "-x", "0.0.0.0 ", "127.0.0.1\0"):
        with pytest.raises(ValueError, match="an IP address of this machine"):
            Address.parse(text)
    assert Url.parse("https://table.local:8443/x", ("http", "https")).port == 8443
    for text in ("http://guest@evil.example", "ftp://x", "http://[x", "http://x:0", "http://-x", "http://x y",
                 "http://ta\u0432le.local"):
        with pytest.raises(ValueError, match="a URL http://HOST"):
            Url.parse(text, ("http", "https"))
    assert Url.parse("mqtts://t1:pw@broker", ("mqtt", "mqtts"), users=True).host == "broker"
    with pytest.raises(ValueError, match="the configuration's folder"):
        OwnFile.parse("/etc/passwd", "/etc/pi-table")
    assert OwnFile.parse("tls/table.crt", "/etc/pi-table").path == "/etc/pi-table/tls/table.crt"


@pytest.mark.parametrize("value", ["http://guest.example/phish", "https://evil.example:8443", "ftp://table.local",
                                   "table.local", "http://owner@table.local"])
def test_the_phones_address_is_a_url_of_the_table_and_the_owners_to_set(tmp_path, value):
    """Issue 48, 10: staff set web.url to their own host, so every QR link sent its token there;
    the key is the owner's now (``test_roles``), and what it holds is an http(s) URL."""
    path = config_with(tmp_path, "web", "url", value)
    if value.startswith(("http://guest", "https://evil")):  # a URL of its shape: the owner's word decides
        assert parse_config(path.read_text(), path).web.url == value
    else:
        assert "expected a URL http://HOST[:PORT] or https://HOST[:PORT]" in refused(path, "web.url")


def test_every_key_that_names_something_has_a_kind_that_parses_it():
    """No key is free text that reaches a device, a file, a host or a program: those that name
    one are of a kind in ``NAMING``, which ``config.loading`` parses into ``pi_table.kinds``."""
    from pi_table.config.loading import NAMED

    assert set(NAMING) - {"usb_id"} == set(NAMED)
    named = {option.key for option in OPTIONS if option.kind in NAMING}
    assert named >= {"touch.port", "touch.usb_id", "web.host", "web.url", "web.tls_cert", "web.tls_key", "fleet.broker",
                     "fleet.password_file", "fleet.ca", "fleet.cert", "fleet.key", "sim.words", "night.blocked_words",
                     "paths.journal_dir", "paths.socket", "paths.socket_group", "fleet.dashboard_password_file"}
    free = [option.key for option in OPTIONS if option.kind == "str" and not option.choices]
    # an MQTT topic's level, the league's and the café's name there (64), a broker's user name checked as one
    # (50.3), and a time range: checked words
    assert free == ["fleet.table_id", "fleet.league", "fleet.cafe", "fleet.dashboard_user", "sound.quiet_hours"]


# --- a private key is never sent as a password nor shown as words (issue 48, 5) -----------------


PEM_KEY = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n"


@pytest.mark.parametrize("key", ["fleet.password_file", "sim.words", "night.blocked_words"])
def test_a_file_holding_a_private_key_is_never_sent_or_shown_whatever_names_it(tmp_path, key):
    """A restored backup's configuration named ``fleet.password_file = .../tls/table.key`` (no
    other key named the key, so the old guard let it pass) and the key's PEM went to the
    sender's broker as the MQTT password."""
    tls = tmp_path / "tls"
    tls.mkdir()
    (tls / "table.key").write_text(PEM_KEY)
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "copy.txt").write_text(PEM_KEY)
    broker = '[fleet]\nbroker = "mqtts://t1@127.0.0.1"\n' if key.startswith("fleet.") else ""
    section, name = key.split(".")
    for file in ("tls/table.key", "files/copy.txt"):
        path = tmp_path / "config.toml"
        path.write_text(f'{broker}[{section}]\n{name} = "{file}"\n' if section != "fleet" else
                        f'{broker}{name} = "{file}"\n')
        said = refused(path, key)
        # a secret file outside the secrets folder is refused by its kind before it is read (issue 58, 3)
        why = "the table's secrets folder" if key in SECRET_KEYS and file == "tls/table.key" else \
            "a private key is never sent or shown"
        assert why in said and "PRIVATE KEY-----" not in said and "MIGH" not in said


# --- the set-up page reopens for no file (issue 48, 1) -------------------------------------------


def test_a_table_with_a_pin_or_a_passphrase_waits_for_no_set_up_whatever_file_appears(tmp_path):
    """The blocker's last step: a file named setup.pending appeared in the journal folder, and
    the table asked for its set-up again, handing its PIN and passphrase to whoever stood at
    its screen. A set-up is awaited only by a table with neither."""
    folder = tmp_path / "journal"
    folder.mkdir()
    first_boot.keep_pending(folder, first_boot.new_pending())
    assert first_boot.pending(folder) is not None  # a fresh table: it waits
    for secret in (PIN_FILE, OWNER_FILE):
        set_pin(folder, STAFF_PIN) if secret == PIN_FILE else set_passphrase(folder, "our table, our rules")
        for content in (None, b"", b"{not json"):
            if content is not None:
                (folder / first_boot.PENDING).write_bytes(content)
            assert first_boot.pending(folder) is None, (secret, content)
        (folder / secret).unlink()
    os.unlink(folder / first_boot.PENDING)
    assert first_boot.pending(folder) is None  # set up, and no file: none either


@pytest.mark.daemon
def test_staff_with_the_pin_alone_reach_no_device_file_or_host_and_the_owner_stays_the_owner(tmp_path):
    """Issue 48, 1-3, 8, 10, as the attack went, on ``pi-table run`` as the service starts it:
    staff set ``touch.port`` to a ``spy://`` URL whose file was the journal's ``setup.pending``
    (or ``owner.pass``), or to ``socket://`` a host of theirs, and restarted: the table asked for
    its set-up again (the staff then set the passphrase), or the owner's hash was emptied, or
    the touch grid dialled out. Now each such key is the owner's (403 to the staff), the owner's
    own value is parsed into its kind (400, naming what was expected), and after a restart
    nothing was created, emptied or dialled, and the owner's passphrase works."""
    service = StaffService(tmp_path)
    journal = tmp_path / "journal"
    server = _listening()
    port = server.getsockname()[1]
    try:
        service.start()
        staff = service.staff()
        owner_hash = (journal / OWNER_FILE).read_bytes()
        attacks = {"touch.port": [f"spy:///dev/no-such-port?file={journal / 'setup.pending'}",
                                  f"spy:///dev/no-such-port?file={journal / OWNER_FILE}",
                                  f"socket://127.0.0.1:{port}", f"rfc2217://127.0.0.1:{port}"],
                   "web.url": [f"http://127.0.0.1:{port}/"], "night.blocked_words": [str(journal / OWNER_FILE)],
                   "touch.usb_id": ["0403:6001"]}
        for key, values in attacks.items():
            for value in values:
                status, answer = staff.call("POST", "/staff/api/config", {"changes": {key: value}})
                assert (status, answer["owner"]) == (403, "needed"), (key, value, answer)
        staff.as_owner()
        for value in attacks["touch.port"]:
            status, answer = staff.call("POST", "/staff/api/config", {"changes": {"touch.port": value}})
            assert status == 400 and "expected 'auto' or a serial device's path under /dev" in answer["error"], answer
        assert staff.call("POST", "/staff/api/restart") == (200, {"ok": True, "restarting": True})
        assert service.exited() == EXIT_RESTART
        service.start()
        assert not (journal / first_boot.PENDING).exists() and (journal / OWNER_FILE).read_bytes() == owner_hash
        with pytest.raises(TimeoutError):
            server.accept()
        staff = service.staff(owner=True)  # the owner's passphrase, still the owner's
        assert staff.call("GET", "/staff/api/owner")[1]["left_s"] > 0
    finally:
        server.close()
        service.close()


def _listening() -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.5)
    return server


def test_a_folder_named_from_a_configuration_given_by_a_relative_path_is_taken(tmp_path, monkeypatch):
    """Issue 50: docs/cafe/try.md runs `pi-table set-staff-pin --config config.toml` in the table's
    folder, whose `journal_dir = "journal"` was refused ('./journal' is no plain path). A folder
    from the configuration's folder is that folder's, however the file was named."""
    from pi_table.config import load_config

    (tmp_path / "config.toml").write_text('[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
    monkeypatch.chdir(tmp_path)
    config = load_config(Path("config.toml"))
    assert config.paths.journal_dir == tmp_path / "journal" and config.paths.socket == tmp_path / "control.sock"
