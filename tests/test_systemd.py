"""The service files in systemd/: the units pass systemd-analyze with no warning, are sandboxed
to what they do and agree with the configuration's defaults; the README runs the installer as
written. install.sh itself runs in tests/test_install_boards.py and tests/test_install.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_table.config import DEFAULT_PATH, defaults

from helpers import ROOT, readme_scripts, require_tools

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
