"""install.sh from a signed bundle, on plain Debian, and where it must stop: a bundle from a key
the table does not accept, a Pi without its archive, a failed pip, no root; Mosquitto brought turned off.

install.sh runs for real against a staging root (PI_TABLE_ROOT): a real virtual environment,
a real pip install of this checkout, the real `pi-table check-config`. Only the commands that
would change this machine (apt-get, raspi-config, the user and group tools, systemctl) are
stubs, which log their arguments and keep users and groups in files of their own. (Out of
tests/test_systemd.py, which checks the units, into files of their own so that the tiers' one
worker a file spreads their minutes of pip over the cores: docs/dev/tests.md.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pi_table.release.keys import Keyring

from helpers import ROOT, require_tools
from helpers_release import INSTALL, Installer, signed_bundle

pytestmark = pytest.mark.tool



def test_install_on_plain_debian_skips_lgpio_with_a_note_and_no_stray_error(tmp_path):
    """No device tree and no Raspberry Pi OS archive: the test container's case."""
    installer = Installer(tmp_path, None)
    installer.unavailable("python3-lgpio")
    installer.env["PI_TABLE_NO_START"] = "1"
    result = installer.run()
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "machine: not a Raspberry Pi" in result.stdout
    assert "python3-lgpio skipped: only Raspberry Pi OS's archive has it" in result.stdout
    [install] = [call for call in installer.calls("apt-get") if " install " in call]
    assert "python3-lgpio" not in install and "python3-gpiozero" in install


def maker_key(folder: Path) -> Path:
    require_tools("ssh-keygen")
    key = folder / "maker"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "maker", "-f", str(key)], check=True)
    return key


def test_install_from_a_signed_bundle_installs_its_wheels_with_no_compiler_and_notes_no_repository(tmp_path):
    """As the SD image's builder runs it in the image (PI_TABLE_BUNDLE; docs/dev/image.md): off a Pi,
    with no raspi-config, the release is the bundle's (checked against the keyring), SPI and I2C are
    turned on in config.txt itself, nothing is compiled, and updates then come as bundles."""
    require_tools("git")
    key = maker_key(tmp_path)
    tree = tmp_path / "tree"
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True)
    for name in filter(None, listed.stdout.split("\0")):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    git = ["git", "-C", str(tree), "-c", "user.name=pi-table", "-c", "user.email=test@pi-table.invalid"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "the release"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    bundle = tmp_path / "pi-table.tar.gz"
    made = subprocess.run([sys.executable, "-m", "pi_table", "bundle", "--source", str(tree), "--for", "here",
                           "--key", str(key), "-o", str(bundle)], capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stderr
    installer = Installer(tmp_path, None)
    installer.unavailable("python3-lgpio")
    Keyring(installer.root / "etc/pi-table-keys").add(key.with_name("maker.pub").read_text(), "maker")
    installer.env.update(PI_TABLE_BUNDLE=str(bundle), PI_TABLE_NO_START="1")
    result = installer.run()
    assert result.returncode == 0, result.stdout + result.stderr
    [install] = [call for call in installer.calls("apt-get") if " install " in call]
    assert "python3-pygame" in install and not any(f" {tool}" in install for tool in ("gcc", "python3-dev", "libc6-dev"))
    log = (installer.root / "var/log/pi-table-install.log").read_text()
    assert "signed with key maker" in log and "--bundle" in log
    [release] = (installer.root / "opt/pi-table/releases").iterdir()
    assert os.readlink(installer.root / "opt/pi-table/current") == f"releases/{release.name}"
    assert not (installer.root / "opt/pi-table/origin.json").exists()
    assert installer.calls("raspi-config") == []  # off a Pi: config.txt's own lines
    boot = (installer.root / "boot/firmware/config.txt").read_text().splitlines()
    assert "dtparam=spi=on" in boot and "dtparam=i2c_arm=on" in boot


def test_install_from_a_bundle_signed_with_a_key_the_table_does_not_accept_stops_and_says_why(tmp_path):
    bundle = signed_bundle(tmp_path / "pi-table.tar.gz", maker_key(tmp_path))
    installer = Installer(tmp_path, None)
    installer.unavailable("python3-lgpio")
    (tmp_path / "owner").mkdir()
    owner = maker_key(tmp_path / "owner")  # the table accepts another key than the bundle's
    Keyring(installer.root / "etc/pi-table-keys").add(owner.with_name("maker.pub").read_text(), "owner")
    installer.env.update(PI_TABLE_BUNDLE=str(bundle), PI_TABLE_NO_START="1")
    result = installer.run()
    assert result.returncode == 1
    assert result.stderr.startswith('install: FAILED at "pi-table into /opt/pi-table/venv"')
    assert "which this table does not accept" in result.stderr
    assert not (installer.root / "opt/pi-table/current").exists() and not installer.config.exists()


def test_install_stops_at_once_on_a_bundle_that_is_no_file(tmp_path):
    installer = Installer(tmp_path, None)
    installer.env.update(PI_TABLE_BUNDLE=str(tmp_path / "missing.tar.gz"))
    result = installer.run()
    assert result.returncode == 1 and "PI_TABLE_BUNDLE names" in result.stderr and "which is no file" in result.stderr
    assert installer.calls("apt-get") == []


def test_install_on_a_pi_without_its_archive_stops_before_changing_anything(tmp_path):
    installer = Installer(tmp_path, "Raspberry Pi 4 Model B Rev 1.4")
    installer.unavailable("python3-lgpio", "python3-pygame")
    result = installer.run()
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert "apt's sources offer no python3-pygame python3-lgpio" in line
    assert "archive.raspberrypi.com" in line and "nothing was changed" in line
    assert [call for call in installer.calls("apt-get") if " install " in call] == []
    assert installer.calls("useradd") == [] and installer.calls("raspi-config") == []
    assert not (installer.root / "opt").exists() and not installer.config.exists()


def test_a_failed_pip_install_says_in_one_line_what_failed_and_shows_the_logs_tail(tmp_path):
    installer = Installer(tmp_path, "Raspberry Pi 5 Model B Rev 1.0")
    installer.env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(tmp_path))  # pip finds no setuptools
    result = installer.run()
    assert result.returncode == 1
    first, *tail = result.stderr.splitlines()
    assert first.startswith('install: FAILED at "pi-table into /opt/pi-table/venv": ')
    assert "/var/log/pi-table-install.log" in first and "run install.sh again" in first
    assert tail and all(line.startswith("  | ") for line in tail)
    assert any("setuptools" in line for line in tail)  # pip's own words, not hidden behind -q
    assert installer.calls("systemctl") == [] and not installer.config.exists()


def test_install_brings_mosquitto_turned_off_and_leaves_one_that_was_there_as_it_was(tmp_path):
    """Every table may become the café's broker from its staff page (issue 50, 3), so the installer
    (and the SD image, which runs its packages' step) installs Mosquitto; Debian's package starts
    it, open on loopback, so one newly installed is turned off until the owner asks. One that was
    there before (a café's broker set up by hand) is left alone, and so is it on a second run."""
    installer = Installer(tmp_path, "Raspberry Pi 4 Model B Rev 1.4")
    installer.env["PI_TABLE_ONLY_PACKAGES"] = "1"  # as the SD image's builder runs it first
    apt = installer.stage / "bin" / "apt-get"  # apt's install puts the broker's program in place, as Debian's does
    apt.write_text(apt.read_text() + 'case " $* " in *" install "*" mosquitto "*) mkdir -p "$PI_TABLE_ROOT/usr/sbin" '
                   '&& touch "$PI_TABLE_ROOT/usr/sbin/mosquitto" ;; esac\n')
    first = installer.run()
    assert first.returncode == 0, first.stderr
    [install] = [call for call in installer.calls("apt-get") if " install " in call]
    assert " mosquitto " in f"{install} " and " openssl" in install
    assert installer.calls("systemctl") == ["systemctl disable mosquitto.service"]  # a staged root: nothing runs
    second = installer.run()
    assert second.returncode == 0, second.stderr
    assert installer.calls("systemctl") == []


def test_install_refuses_without_root_and_says_how():
    command = [str(INSTALL)]  # as the README runs it: by its path, so its mode counts
    if os.getuid() == 0:  # as CI runs: become nobody for this, on a copy nobody can reach
        require_tools("setpriv")  # (the checkout's own folders may be closed to others)
        reachable = Path(tempfile.mkdtemp(prefix="pi-table-install-"))
        shutil.copytree(INSTALL.parent, reachable / "systemd", copy_function=shutil.copy2)
        reachable.chmod(0o755)
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                   str(reachable / "systemd" / INSTALL.name)]
    env = {k: v for k, v in os.environ.items() if k != "PI_TABLE_ROOT"}
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, cwd="/")
    finally:
        if os.getuid() == 0:
            shutil.rmtree(reachable)
    assert result.returncode == 1
    assert result.stderr.startswith("install: run it as root: sudo ")
