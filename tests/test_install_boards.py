"""install.sh on each board and screen a table is built with: a Pi 4 twice, a Pi 5, the panel
the configuration names, an older configuration, a maker's own audio line.

install.sh runs for real against a staging root (PI_TABLE_ROOT): a real virtual environment,
a real pip install of this checkout, the real `pi-table check-config`. Only the commands that
would change this machine (apt-get, raspi-config, the user and group tools, systemctl) are
stubs, which log their arguments and keep users and groups in files of their own. (Out of
tests/test_systemd.py, which checks the units, into files of their own so that the tiers' one
worker a file spreads their minutes of pip over the cores: docs/dev/tests.md.)
"""

from __future__ import annotations

import os
import re
import stat
import subprocess

import pytest

from pi_table.ui.mounting import PANELS

from helpers import ROOT
from helpers_release import INSTALL, Installer

pytestmark = pytest.mark.tool

UNIT = ROOT / "systemd" / "pi-table.service"


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
