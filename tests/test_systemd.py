"""The service files in systemd/: the unit passes systemd-analyze with no warning and agrees
with the configuration's defaults, and install.sh sets a table up and can run twice.

install.sh runs for real against a staging root (PI_TABLE_ROOT): a real virtual environment,
a real pip install of this checkout, the real `pi-table check-config`. Only the commands that
would change this machine (apt-get, raspi-config, the user and group tools, systemctl) are
stubs, which log their arguments and keep users and groups in files of their own.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pi_table.config import DEFAULT_PATH, defaults
from pi_table.release.keys import Keyring
from pi_table.ui.mounting import PANELS

from helpers import INSTALL, ROOT, Installer, readme_scripts, require_tools, signed_bundle

pytestmark = pytest.mark.tool

UNIT = ROOT / "systemd" / "pi-table.service"
GROUPS = {"gpio", "spi", "i2c", "dialout", "video", "input", "render", "audio"}


def directives(text: str) -> list[tuple[str, str, str]]:
    """(section, key, value) for each line of a unit file, repeats kept as systemd keeps them."""
    section, found = "", []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        found.append((section, key.strip(), value.strip()))
    return found


def values(key: str) -> list[str]:
    return [value for _, k, value in directives(UNIT.read_text(encoding="utf-8")) if k == key]


def verify(unit_text: str, tmp_path: Path) -> str:
    """systemd-analyze verify's complaints about ``unit_text``, installed in a root of its own
    that holds the system's units and a stand-in for the program the unit starts."""
    require_tools("systemd-analyze")
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system/pi-table.service").write_text(unit_text, encoding="utf-8")
    for key in ("ExecStartPre", "ExecStart", "ExecStartPost"):  # the helper's, and the table's
        program = root / values(key)[0].split()[0].lstrip("-+").lstrip("/")
        program.parent.mkdir(parents=True, exist_ok=True)
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    result = subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", "--man=no", "--generators=no",
         "/etc/systemd/system/pi-table.service"],
        capture_output=True, text=True, timeout=60,
    )
    # systemd-analyze exits 0 on unknown keys and bad values: its standard error tells.
    return (result.stderr + ("" if result.returncode == 0 else f"\nexit {result.returncode}")).strip()


def test_systemd_analyze_verify_finds_nothing_wrong_with_the_unit(tmp_path):
    assert verify(UNIT.read_text(encoding="utf-8"), tmp_path) == ""


def test_the_verify_check_catches_a_bad_key_and_a_bad_value(tmp_path):
    broken = UNIT.read_text(encoding="utf-8").replace("WatchdogSec=10", "WatchdogSec=ten\nWatchdogSecs=10")
    complaints = verify(broken, tmp_path)
    assert "Unknown key 'WatchdogSecs'" in complaints
    assert "ten" in complaints


def test_the_unit_is_a_notify_service_with_a_watchdog_that_restarts_on_failure():
    assert values("Type") == ["notify"]
    assert int(values("WatchdogSec")[0]) >= 4  # the loop pings at half of it and wakes twice a second
    assert values("Restart") == ["on-failure"]
    assert values("RestartPreventExitStatus") == ["78"]  # a bad configuration: restarting cannot help


def test_the_unit_runs_as_its_own_user_with_only_the_device_groups():
    assert values("User") == ["pi-table"] and values("Group") == ["pi-table"]
    assert set(values("SupplementaryGroups")[0].split()) == GROUPS | {"systemd-journal"}  # the staff page's log
    assert values("CapabilityBoundingSet") == [""] and values("NoNewPrivileges") == ["yes"]


def test_the_unit_is_locked_down_to_its_directories_and_devices():
    assert values("ProtectSystem") == ["strict"]
    assert values("ProtectHome") == ["yes"] and values("PrivateTmp") == ["yes"]
    assert values("DevicePolicy") == ["closed"]
    allowed = {value.split()[0] for value in values("DeviceAllow")}
    # ttyACM, spidev and DRM by their fixed majors: a name resolves only if its driver is
    # loaded when the unit starts (tests/test_container.py shows the difference).
    assert allowed == {"char-166", "char-153", "char-gpiochip", "/dev/gpiomem", "char-226", "char-input", "char-116"}
    assert set(values("RestrictAddressFamilies")[0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    keys = {key for _, key, _ in directives(UNIT.read_text(encoding="utf-8"))}
    # /etc/pi-table alone is writable (the staff page edits the configuration); no other place.
    assert values("ReadWritePaths") == ["/etc/pi-table"] and "ConfigurationDirectory" not in keys


HELPER = ROOT / "systemd" / "pi-table-helper.service"
PATH_UNIT = ROOT / "systemd" / "pi-table-helper.path"


def unit_values(unit: Path, key: str) -> list[str]:
    return [value for _, k, value in directives(unit.read_text(encoding="utf-8")) if k == key]


def verify_beside_the_helper(unit: Path, tmp_path: Path, instance: str = "") -> None:
    """systemd-analyze verify finds nothing wrong with ``unit`` in a root that holds the system's
    units and an executable /opt/pi-table/helper (the root helper every such unit runs); a
    template's as its ``instance``."""
    require_tools("systemd-analyze")
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(unit, root / "etc/systemd/system" / unit.name)
    helper = root / "opt/pi-table/helper"
    helper.parent.mkdir(parents=True)
    helper.write_text("#!/bin/sh\n")
    helper.chmod(0o755)
    done = subprocess.run(["systemd-analyze", "verify", f"--root={root}", "--man=no", "--generators=no",
                           f"/etc/systemd/system/{unit.name.replace('@.', f'@{instance}.')}"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr


def test_the_helpers_unit_verifies_and_is_sandboxed_to_its_three_acts(tmp_path):
    """The root helper runs with five capabilities, the system read-only but the releases and
    the spool, no devices, and no more system calls than its acts need (its exposure score is
    printed under the real systemd: tests/test_container.py)."""
    verify_beside_the_helper(HELPER, tmp_path)
    assert set(unit_values(HELPER, "CapabilityBoundingSet")[0].split()) == {
        "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_SETUID", "CAP_SETGID", "CAP_CHOWN"}
    assert unit_values(HELPER, "NoNewPrivileges") == ["yes"] and unit_values(HELPER, "ProtectSystem") == ["strict"]
    assert unit_values(HELPER, "PrivateDevices") == ["yes"] and unit_values(HELPER, "DevicePolicy") == ["closed"]


SECURITY = ROOT / "systemd" / "pi-table-security.service"


def test_the_security_updates_unit_verifies_and_runs_the_helpers_act_started_by_the_helper_alone(tmp_path):
    """Debian's security updates (issue 50, 8): the helper's ``security`` act, started by the root
    helper when the service asks (never enabled, no timer: the table says when it is idle)."""
    from pi_table.release import system

    verify_beside_the_helper(SECURITY, tmp_path)
    assert SECURITY.name == system.UNIT and unit_values(SECURITY, "ExecStart") == ["/opt/pi-table/helper security"]
    assert unit_values(SECURITY, "Type") == ["oneshot"] and "[Install]" not in SECURITY.read_text()


STICK = ROOT / "systemd" / "pi-table-stick.service"


def test_the_sticks_unit_verifies_may_mount_and_nothing_more_and_is_started_by_the_helper_alone(tmp_path):
    """The nightly backup to a USB stick (issue 62): the helper's ``stick`` act in a sandbox of its
    own, the one that may mount (the helper's may not): two capabilities, block devices alone, no
    network, started by the helper when the service asks (never enabled)."""
    from pi_table.release import stick

    verify_beside_the_helper(STICK, tmp_path)
    assert STICK.name == stick.UNIT and unit_values(STICK, "ExecStart") == ["/opt/pi-table/helper stick"]
    assert set(unit_values(STICK, "CapabilityBoundingSet")[0].split()) == {"CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE"}
    assert unit_values(STICK, "PrivateNetwork") == ["yes"] and unit_values(STICK, "DevicePolicy") == ["closed"]
    assert set(unit_values(STICK, "DeviceAllow")) == {"block-sd rw", "block-blkext rw"}
    assert unit_values(STICK, "Type") == ["oneshot"] and "[Install]" not in STICK.read_text()
    assert any(value.startswith("~") and "@mount" in value for value in unit_values(HELPER, "SystemCallFilter"))


RESTORE = ROOT / "systemd" / "pi-table-stick-restore@.service"


def test_the_restore_from_a_stick_unit_verifies_mounts_and_writes_the_backups_folder_alone(tmp_path):
    """The way back from a dead SD card (issue 62): the helper's ``stick --restore`` act, one
    backup's name (the instance) at a time, in the stick's sandbox with the backups folder alone
    writable and one more capability, to give the copy to the service's user."""
    from pi_table.release import stick

    verify_beside_the_helper(RESTORE, tmp_path, instance="newest")
    assert stick.FROM_UNIT.format(backup="") == RESTORE.name
    assert unit_values(RESTORE, "ExecStart") == ["/opt/pi-table/helper stick --restore %i"]
    assert set(unit_values(RESTORE, "CapabilityBoundingSet")[0].split()) == {"CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE",
                                                                            "CAP_CHOWN"}
    assert unit_values(RESTORE, "ReadWritePaths") == ["/run -/var/lib/pi-table/backups"]
    assert unit_values(RESTORE, "PrivateNetwork") == ["yes"] and unit_values(RESTORE, "DevicePolicy") == ["closed"]
    assert set(unit_values(RESTORE, "DeviceAllow")) == {"block-sd rw", "block-blkext rw"}
    assert unit_values(RESTORE, "Type") == ["oneshot"] and "[Install]" not in RESTORE.read_text()


FIRST_BOOT = ROOT / "systemd" / "pi-table-first-boot.service"


def test_the_first_boot_unit_verifies_runs_the_helpers_act_before_the_table_and_never_once_it_is_set_up(tmp_path):
    """docs/dev/first-boot.md: the root helper's first-boot act, the installer's copy of
    pi-table, before pi-table.service; no network, three capabilities; not run once set up."""
    from pi_table.config import defaults
    from pi_table.files import SETUP_DONE
    from pi_table.release.first_boot import CONFIG, journal_folder

    verify_beside_the_helper(FIRST_BOOT, tmp_path)
    assert unit_values(FIRST_BOOT, "ExecStart") == [f"/opt/pi-table/helper first-boot --config {CONFIG}"]
    assert CONFIG == DEFAULT_PATH and unit_values(FIRST_BOOT, "Before") == ["pi-table.service"]
    assert unit_values(FIRST_BOOT, "ConditionPathExists") == [
        f"!{journal_folder(tmp_path / 'none.toml')}/{SETUP_DONE}"] == [f"!{defaults()['paths.journal_dir']}/{SETUP_DONE}"]
    assert set(unit_values(FIRST_BOOT, "CapabilityBoundingSet")[0].split()) == {"CAP_CHOWN", "CAP_FOWNER",
                                                                                 "CAP_DAC_OVERRIDE"}
    assert unit_values(FIRST_BOOT, "PrivateNetwork") == ["yes"] and unit_values(FIRST_BOOT, "StateDirectory") == (
        values("StateDirectory"))


def test_the_service_the_path_unit_and_the_helper_agree_on_the_spool_folder():
    """The staff page leaves its requests where the service's state folder is (StateDirectory),
    the path unit watches there, and the helper takes them from there: the units are the one
    place that says where, since a path unit cannot follow a setting."""
    from pi_table.release.requests import REQUEST, SPOOL

    assert unit_values(PATH_UNIT, "PathExists") == [f"{SPOOL}/{REQUEST}"]
    assert unit_values(HELPER, "ExecStart") == [f"/opt/pi-table/helper request --spool {SPOOL}"]
    assert SPOOL.parent == Path("/var/lib") / values("StateDirectory")[0]
    from pi_table.release.broker import ETC
    from pi_table.release.keys import KEYRING

    # "-": none yet is no failure; the keyring, for the keys the owner adds and revokes on the page (50.4);
    # Mosquitto's files, for the table the owner makes the café's broker (50.3)
    assert unit_values(HELPER, "ReadWritePaths") == [f"/opt/pi-table -{SPOOL} -{KEYRING} -{ETC}"]


def test_the_unit_agrees_with_the_configurations_defaults():
    """The journal and the socket must be in the directories the unit makes writable, and so
    must the working directory (lgpio writes there)."""
    command = values("ExecStart")[0].split()
    assert command[1:] == ["run", "--config", str(DEFAULT_PATH)]
    settings = defaults()
    state = Path("/var/lib") / values("StateDirectory")[0]
    runtime = Path("/run") / values("RuntimeDirectory")[0]
    assert Path(settings["paths.journal_dir"]).is_relative_to(state)
    assert Path(settings["paths.socket"]).parent == runtime
    assert settings["paths.socket_group"] == values("Group")[0]
    assert DEFAULT_PATH.is_relative_to("/etc")  # read-only to the service under ProtectSystem=strict
    assert Path(values("WorkingDirectory")[0]) == state


# The scripts the README tells a person to run ----------------------------------------------------


def git_mode(path: str) -> str | None:
    """The mode git records for ``path`` (100755 is executable), or None outside a git checkout."""
    result = subprocess.run(["git", "ls-files", "--stage", "--", path], cwd=ROOT, capture_output=True, text=True,
                            check=False)
    return result.stdout.split()[0] if result.returncode == 0 and result.stdout else None


def test_every_script_the_readme_runs_is_executable_in_git_and_starts_with_its_interpreter():
    """A clone keeps git's mode, not the working tree's: a script committed 100644 answers
    "Permission denied" to `sudo systemd/install.sh` on the Pi."""
    scripts = readme_scripts()
    assert {"systemd/install.sh", "dev"} <= set(scripts), f"the README's commands were not found: {scripts}"
    for path in scripts:
        file = ROOT / path
        assert file.is_file(), f"the README runs {path}, which is not in the checkout"
        assert file.read_text(encoding="utf-8").startswith("#!"), f"{path} has no #! line"
        assert os.access(file, os.X_OK), f"{path} is not executable here"
        mode = git_mode(path)
        assert mode in (None, "100755"), f"{path} is committed with mode {mode}: git update-index --chmod=+x {path}"


def test_the_readme_installs_with_sudo_from_the_checkout():
    """tests/test_container.py runs the installer exactly so; this pins the line it runs."""
    assert readme_scripts()["systemd/install.sh"] == ["sudo", "systemd/install.sh"]


# install.sh against a staging root ------------------------------------------------------------


def test_install_sets_up_a_pi_4_and_runs_twice_without_harm(tmp_path):
    installer = Installer(tmp_path, "Raspberry Pi 4 Model B Rev 1.4", "dtparam=audio=on\n[pi4]\narm_boost=1\n")
    checkout = sorted(path.name for path in ROOT.iterdir())
    first = installer.run()
    assert first.returncode == 0, first.stderr
    assert first.stderr == ""
    # pip built from a copy: no root-owned build/ (or anything else) left in the checkout
    assert sorted(path.name for path in ROOT.iterdir()) == checkout

    apt = installer.calls("apt-get")
    [install] = [call for call in apt if " install " in call]
    # rpi-ws281x is compiled on the Pi (no aarch64 wheel): its compiler and headers come too
    for package in ("python3-pygame", "python3-lgpio", "python3-dev", "gcc", "libc6-dev"):
        assert f" {package}" in install
    assert "core_freq=500 in /boot/firmware/config.txt" in first.stdout.splitlines()[-1]  # the reboot's changes
    assert installer.calls("raspi-config") == [
        "raspi-config nonint get_spi", "raspi-config nonint do_spi 0",
        "raspi-config nonint get_i2c", "raspi-config nonint do_i2c 0"]
    assert "SPI on (raspi-config); I2C on (raspi-config)" in first.stdout.splitlines()[-1]
    assert installer.calls("groupadd") == ["groupadd --system pi-table", "groupadd --system render"]
    [useradd] = installer.calls("useradd")
    assert "--system" in useradd and "--shell /usr/sbin/nologin" in useradd and useradd.endswith(" pi-table")
    assert installer.calls("usermod") == ["usermod --append --groups gpio,spi,i2c,dialout,video,input,render,audio pi-table"]
    assert installer.calls("systemctl") == [
        "systemctl daemon-reload", "systemctl enable pi-table.service pi-table-helper.path",
        "systemctl start pi-table-helper.path", "systemctl restart pi-table.service"]
    # the release layout: current names the one release built, through which venv leads
    [release] = (installer.root / "opt/pi-table/releases").iterdir()
    assert os.readlink(installer.root / "opt/pi-table/current") == f"releases/{release.name}"
    assert not (installer.root / "opt/pi-table/previous").exists()
    assert (installer.root / "opt/pi-table/venv").resolve() == release / "venv"
    assert os.access(installer.root / "opt/pi-table/helper", os.X_OK)
    # the configuration is the service's, for the staff page to edit
    assert installer.calls("chown") == [f"chown pi-table:pi-table {installer.config.parent} {installer.config}"]
    # ... and its group's (the staff's pi-table commands find the control socket in it, as the
    # socket's group they are in), no other local user's: it may hold the broker's password (48.13)
    assert stat.S_IMODE(installer.config.parent.stat().st_mode) == 0o755
    assert stat.S_IMODE(installer.config.stat().st_mode) == 0o640

    unit = installer.root / "etc/systemd/system/pi-table.service"
    assert unit.read_text() == UNIT.read_text()
    for helper_unit in ("pi-table-helper.service", "pi-table-helper.path", "pi-table-first-boot.service",
                        "pi-table-security.service", "pi-table-stick.service", "pi-table-stick-restore@.service"):
        assert (unit.parent / helper_unit).read_text() == (UNIT.parent / helper_unit).read_text()
    # Debian's own timer leaves the security updates to the table, which applies them when idle (50.8)
    assert 'APT::Periodic::Unattended-Upgrade "0";' in (installer.root / "etc/apt/apt.conf.d/52pi-table").read_text()
    assert os.readlink(installer.root / "usr/local/bin/pi-table") == "/opt/pi-table/venv/bin/pi-table"
    defaults_text = installer.pi_table("check-config", "--defaults").stdout
    assert installer.config.read_text() == defaults_text and 'backend = "ws281x"' in defaults_text
    assert installer.config_problems() == []
    boot = (installer.root / "boot/firmware/config.txt").read_text()
    # the screen's KMS driver and the defaults' panel, the Touch Display 2 (7 inch), named
    # rather than auto-detected (all missing from this file); the SPI clock
    assert 'panel = "touch-display-2-7"' in defaults_text
    # the amplifier's overlay, and the Pi's analogue audio off so the amplifier is the sound card
    assert boot == ("dtparam=audio=off\n[pi4]\narm_boost=1\n[all]\ndtoverlay=vc4-kms-v3d\ndisplay_auto_detect=0\n"
                    "dtoverlay=vc4-kms-dsi-ili9881-7inch\ndtoverlay=max98357a\ncore_freq=500\ncore_freq_min=500\n")
    assert "dtparam=audio=off in place of dtparam=audio=on" in first.stdout.splitlines()[-1]
    # rpi-ws281x drives a Pi 4's strip; importing it is safe (constructing a PixelStrip is not).
    venv_python = installer.root / "opt/pi-table/venv/bin/python"
    assert subprocess.run([venv_python, "-c", "import rpi_ws281x"]).returncode == 0

    # The café changed a setting and broke another; the second run keeps the file as it is.
    edited = defaults_text.replace('language = "en"', 'language = "it"').replace("hold_s = 0.25", "hold_s = 9")
    installer.config.write_text(edited)
    installer.config.chmod(0o644)  # as an older installer left it, and a trial's last good copy beside it
    good = installer.config.with_name("config.toml.good")
    good.write_text(edited)
    good.chmod(0o644)
    second = installer.run()
    assert second.returncode == 0, second.stderr
    assert installer.config.read_text() == edited
    assert [stat.S_IMODE(path.stat().st_mode) for path in (installer.config, good)] == [0o640, 0o640]
    assert "game.hold_s" in second.stderr and "WARNING" in second.stdout
    assert installer.calls("useradd") == [] and installer.calls("groupadd") == []
    assert (installer.root / "boot/firmware/config.txt").read_text() == boot
    assert installer.calls("raspi-config") == ["raspi-config nonint get_spi", "raspi-config nonint get_i2c"]
    assert "next boot" not in second.stdout  # nothing left to change
    assert installer.calls("systemctl")[-1] == "systemctl restart pi-table.service"


RASPBERRY_PI_OS_BOOT = "dtparam=audio=on\ndtoverlay=vc4-kms-v3d\nmax_framebuffers=2\ndisplay_auto_detect=1\n"
SOUND = ("dtparam=audio=on", "dtparam=audio=off")
"""The amplifier's install turns the Pi's analogue audio off in the file's own line."""


def test_install_on_a_pi_5_uses_the_spi_backend_and_no_rpi_ws281x(tmp_path):
    installer = Installer(tmp_path, "Raspberry Pi 5 Model B Rev 1.0", RASPBERRY_PI_OS_BOOT)
    installer.env["PI_TABLE_NO_START"] = "1"
    installer.env["PI_TABLE_FIRST_BOOT"] = "1"  # as the SD image's builder runs it (docs/dev/first-boot.md)
    result = installer.run()
    assert result.returncode == 0, result.stderr
    config = installer.config.read_text()
    assert 'backend = "spi"' in config and 'backend = "ws281x"' not in config
    assert installer.config_problems() == []
    # the Touch Display 2's overlay named, and auto-detection off so it is not loaded twice
    assert (installer.root / "boot/firmware/config.txt").read_text() == RASPBERRY_PI_OS_BOOT.replace(
        "display_auto_detect=1", "display_auto_detect=0").replace(*SOUND) + (
        "[all]\ndtoverlay=vc4-kms-dsi-ili9881-7inch\ndtoverlay=max98357a\n")
    assert installer.calls("systemctl") == ["systemctl daemon-reload",
                                            "systemctl enable pi-table.service pi-table-helper.path",
                                            "systemctl enable pi-table-first-boot.service"]
    venv_python = installer.root / "opt/pi-table/venv/bin/python"
    assert subprocess.run([venv_python, "-c", "import rpi_ws281x"], capture_output=True).returncode != 0


def test_install_sets_up_the_panel_the_configuration_names_in_place_of_the_last_one(tmp_path):
    """A table rebuilt with the 5 inch Touch Display 2 on a Pi 5's DISP 0 port, then with an
    HDMI monitor: each run changes only the display's lines, and a second run nothing. The
    earlier line turned the touch coordinates as a desktop wants them (swapxy, invx): the table
    turns taps itself, so those go."""
    earlier = (RASPBERRY_PI_OS_BOOT
               + "[all]\ndtoverlay=vc4-kms-dsi-ili9881-7inch,dsi0,swapxy,invx,rotation=90\ndisplay_auto_detect=0\n")
    installer = Installer(tmp_path, "Raspberry Pi 5 Model B Rev 1.0", earlier)
    installer.env["PI_TABLE_NO_START"] = "1"
    installer.config.parent.mkdir(parents=True)
    installer.config.write_text('[leds]\nbackend = "spi"\n[screen]\npanel = "touch-display-2-5"\npanel_rotation = 270\n')
    boot_file = installer.root / "boot/firmware/config.txt"

    first = installer.run()
    assert first.returncode == 0, first.stderr
    assert "screen: touch-display-2-5" in first.stdout
    # the 5 inch overlay in the 7 inch one's place, its port kept; Raspberry Pi OS's own
    # display_auto_detect=1 turned off in its place, and the same setting's second line taken out
    five_inch = RASPBERRY_PI_OS_BOOT.replace("display_auto_detect=1", "display_auto_detect=0").replace(*SOUND) + (
        "[all]\ndtoverlay=vc4-kms-dsi-ili9881-5inch,dsi0\ndtoverlay=max98357a\n")
    assert boot_file.read_text() == five_inch
    summary = first.stdout.splitlines()[-1]
    assert "next boot" in summary
    assert ("dtoverlay=vc4-kms-dsi-ili9881-5inch,dsi0 in place of "
            "dtoverlay=vc4-kms-dsi-ili9881-7inch,dsi0,swapxy,invx,rotation=90") in summary
    assert ("display_auto_detect=0 in place of display_auto_detect=1, display_auto_detect=0 "
            "in /boot/firmware/config.txt") in summary

    again = installer.run()
    assert again.returncode == 0, again.stderr
    assert boot_file.read_text() == five_inch
    assert "next boot" not in again.stdout

    installer.config.write_text('[leds]\nbackend = "spi"\n[screen]\npanel = "hdmi"\npanel_rotation = 0\n')
    hdmi = installer.run()
    assert hdmi.returncode == 0, hdmi.stderr
    assert installer.config_problems() == []
    assert boot_file.read_text() == RASPBERRY_PI_OS_BOOT.replace(*SOUND) + "[all]\ndtoverlay=max98357a\n"
    assert "dtoverlay=vc4-kms-dsi-ili9881-5inch,dsi0 taken out" in hdmi.stdout.splitlines()[-1]


def test_an_older_tables_configuration_without_a_panel_is_set_up_for_the_default_and_told(tmp_path):
    """Its config.txt gives the KMS driver a parameter of its own: that line stays, alone."""
    boot = RASPBERRY_PI_OS_BOOT.replace("dtoverlay=vc4-kms-v3d", "dtoverlay=vc4-kms-v3d,cma-320")
    installer = Installer(tmp_path, "Raspberry Pi 5 Model B Rev 1.0", boot)
    installer.env["PI_TABLE_NO_START"] = "1"
    installer.config.parent.mkdir(parents=True)
    installer.config.write_text('[leds]\nbackend = "spi"\n[screen]\nrotation = 180\n')
    result = installer.run()
    assert result.returncode == 0, result.stderr
    assert "names no [screen] panel: set up for the default, touch-display-2-7" in result.stdout
    assert (installer.root / "boot/firmware/config.txt").read_text() == boot.replace(
        "display_auto_detect=1", "display_auto_detect=0").replace(*SOUND) + (
        "[all]\ndtoverlay=vc4-kms-dsi-ili9881-7inch\ndtoverlay=max98357a\n")


def test_a_makers_own_i2s_line_stays_and_the_amplifier_is_not_set_up_twice(tmp_path):
    """hifiberry-dac drives the same I2S amplifier: the maker's line, with its parameter, stays
    the one line for it; a second run changes nothing."""
    boot = RASPBERRY_PI_OS_BOOT + "[all]\ndtoverlay=hifiberry-dac,i2s-mmap\n"
    installer = Installer(tmp_path, "Raspberry Pi 5 Model B Rev 1.0", boot)
    installer.env["PI_TABLE_NO_START"] = "1"
    boot_file = installer.root / "boot/firmware/config.txt"
    first = installer.run()
    assert first.returncode == 0, first.stderr
    assert "sound: the MAX98357A amplifier on I2S" in first.stdout
    written = boot_file.read_text()
    assert "dtoverlay=hifiberry-dac,i2s-mmap\n" in written and "max98357a" not in written
    assert written.count("dtparam=audio=") == 1 and "dtparam=audio=off" in written
    again = installer.run()
    assert again.returncode == 0, again.stderr
    assert boot_file.read_text() == written and "next boot" not in again.stdout


def test_the_installer_knows_every_panel_the_configuration_accepts():
    """A panel the configuration takes but install.sh does not set up would boot to a black screen."""
    script = INSTALL.read_text(encoding="utf-8")
    branches = {name for names in re.findall(r"^\s*([\w|-]+)\)", script, re.MULTILINE) for name in names.split("|")}
    assert set(PANELS) <= branches


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
