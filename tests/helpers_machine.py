"""The machine's stand-ins: journalctl, NetworkManager's nmcli (pi_table/sim/nmcli.py, the stand-in machine's), Debian's
packages, mosquitto.service (tests/fake_systemctl.py), a USB stick, a network place (rclone serve)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from pi_table.sim.machine import PATCHED, debian, lsblk_listing, program
from pi_table.sim.nmcli import NetworkManager

from helpers import ROOT, require_tools, wait_for
from helpers_staff import STAFF_CONFIG, STAFF_PIN


def fake_journalctl(folder, entries: list[dict], status: int = 0):
    """A ``journalctl`` that writes the arguments it was given beside itself and prints ``entries``
    as ``--output json`` does (one object a line), or fails with ``status``."""
    import json

    script = folder / "journalctl"
    printed = "\n".join(json.dumps(entry) for entry in entries)
    script.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"open({str(folder / 'args')!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
                      f"print({printed!r})\n"
                      f"if {status}: sys.stderr.write('Failed to open journal: permission denied'); sys.exit({status})\n")
    script.chmod(0o755)
    return script


SYSTEMD_JOURNAL = [
    {"__REALTIME_TIMESTAMP": "1767225600000000", "PRIORITY": "6", "MESSAGE": "INFO pi_table.daemon: table up",
     "_SYSTEMD_INVOCATION_ID": "a1"},
    {"__REALTIME_TIMESTAMP": "1767225660000000", "PRIORITY": "3", "MESSAGE": "ERROR pi_table.daemon: it broke\nTraceback",
     "_SYSTEMD_INVOCATION_ID": "a1"},
    {"__REALTIME_TIMESTAMP": "1767229200000000", "PRIORITY": "4", "MESSAGE": [87, 65, 82, 78, 255],
     "_SYSTEMD_INVOCATION_ID": "b2"},
    {"__REALTIME_TIMESTAMP": "not a time", "MESSAGE": "skipped"},
]


# --- the first boot: NetworkManager played by the stand-in's nmcli (pi_table/sim/nmcli.py) ----------


class FakeNetworkManager(NetworkManager):
    """The stand-in machine's NetworkManager (``pi_table.sim.nmcli``), its ``nmcli`` first on PATH
    for this process and the tables it starts."""

    def __init__(self, folder: Path, monkeypatch, networks: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(folder, networks)
        for name, value in self.environment.items():
            monkeypatch.setenv(name, value)

    def on_wifi(self, ssid: str, name: str = "preconfigured") -> None:
        """Connected to ``ssid`` by a profile made before (Raspberry Pi Imager's is "preconfigured")."""
        state = self.state
        password = next(seen["password"] for seen in state["networks"] if seen["ssid"] == ssid)
        state["radio"] = "on"
        state["profiles"][name] = {"type": "802-11-wireless", "device": "wlan0", "ssid": ssid, "password": password}
        state["active"].append(name)
        self.write(state)


# --- Debian's security updates: dpkg, unattended-upgrade and systemctl played by scripts ---------

class DebianMachine:
    """A Debian system in ``folder``: its dpkg database as dpkg-query prints it, an
    unattended-upgrade that patches it (and leaves the reboot flag), systemctl and the table's
    status, each noting its calls."""

    def __init__(self, folder: Path, patched: str = PATCHED, upgrade_exit: int = 0, healthy: bool = True,
                 reboot: bool = True) -> None:
        from pi_table.release import helper  # the root helper's: loaded by the tests that play it
        from pi_table.release.keys import Keyring
        from pi_table.release.layout import Releases
        from pi_table.release.service_user import ServiceUser

        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.db = folder / "dpkg"
        self.flag = folder / "run" / "reboot-required"
        self.flag.parent.mkdir()
        calls = folder / "calls"
        self.calls = calls
        query, upgrade = debian(folder, self.flag, calls, patched, upgrade_exit, reboot)
        systemctl = program(folder / "systemctl", f'echo "systemctl $*" >> {calls}\n')
        answer = json.dumps({"version": "1.4.0", "healthy": {"ok": healthy}})
        self.status = [program(folder / "status", f"echo '{answer}'\n")]
        self.helper = helper.Helper(Releases(folder / "home"), Keyring(folder / "no-keys"), ServiceUser(None),
                                    (systemctl,), upgrade=(upgrade, "-v"), dpkg_query=(query,), reboot_flag=self.flag)

    def called(self) -> list[str]:
        return self.calls.read_text().splitlines() if self.calls.exists() else []


# --- the café's broker on a table: Mosquitto's unit played by a fake systemctl ----------------

FAKE_SYSTEMCTL = ROOT / "tests" / "fake_systemctl.py"


class MosquittoUnit:
    """mosquitto.service as the root helper sees it on a table (tests/fake_systemctl.py): a real
    Mosquitto started on the files the helper writes into ``etc`` (its /etc/mosquitto), on a
    port of the test's own; ``broker`` is the helper's Mosquitto with this unit."""

    def __init__(self, folder: Path) -> None:
        from pi_table.fleet.broker import free_port, mosquitto

        require_tools("openssl", also_missing=() if mosquitto() else ("mosquitto",))
        self.folder, self.etc, self.port = folder, folder / "etc", free_port()
        self.etc.mkdir(parents=True)
        (folder / "port").write_text(str(self.port))
        self.systemctl = (sys.executable, str(FAKE_SYSTEMCTL), str(folder))

    @property
    def broker(self):
        from pi_table.release.broker import Broker

        return Broker(self.etc, self.systemctl, self.port)

    def calls(self) -> list[str]:
        path = self.folder / "calls"
        return path.read_text().splitlines() if path.exists() else []

    def running(self) -> bool:
        return subprocess.run([*self.systemctl, "is-active", "mosquitto.service"], capture_output=True).returncode == 0

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def started(self) -> list[int]:
        """Every Mosquitto this unit started, in order (the last one runs while ``running()``)."""
        path = self.folder / "started"
        return [int(pid) for pid in path.read_text().split()] if path.exists() else []

    def cpu_share(self, seconds: float = 2.0) -> float:
        """The share of one core the running Mosquitto used over ``seconds`` (1.0: a core, busy)."""
        pid = self.started()[-1]

        def ticks() -> int:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime, stime

        before, since = ticks(), time.monotonic()
        time.sleep(seconds)
        return (ticks() - before) / os.sysconf("SC_CLK_TCK") / (time.monotonic() - since)

    def close(self) -> None:
        """Mosquitto stopped; AssertionError naming any it started that still runs (a test's processes end with it)."""
        subprocess.run([*self.systemctl, "stop", "mosquitto.service"], capture_output=True, check=False)
        alive = [pid for pid in self.started() if Path(f"/proc/{pid}").exists() and Path(
            f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
        assert not alive, f"the Mosquitto of {self.folder} still runs after its stop: {alive}"


# --- a USB stick and the root helper's stand-ins for it (test_stick, test_notices, the set-up from a stick) ---


class StickMachine:
    """A table's folders and the stick's stand-ins: ``lsblk`` answers ``disks``, ``mount`` and
    ``umount`` note their calls; ``mounted`` (the fixed mount folder) stands for the stick."""

    def __init__(self, folder: Path, *disks: dict, mount_fails: bool = False) -> None:
        from pi_table.release import helper, stick
        from pi_table.release.keys import Keyring
        from pi_table.release.layout import Releases
        from pi_table.release.service_user import ServiceUser

        self.folder = folder
        self.calls = folder / "calls"
        answer = folder / "lsblk.json"
        answer.write_text(lsblk_listing(*disks))
        self.config = folder / "etc" / "config.toml"
        self.config.parent.mkdir()
        self.config.write_text('[paths]\njournal_dir = "/nonexistent"\n'.replace("/nonexistent", str(folder / "journal")))
        self.backups = folder / "backups"
        self.backups.mkdir()
        self.mounted = folder / "run" / "pi-table-stick"
        self.mounted.parent.mkdir()
        tools = stick.Tools(
            lsblk=(program(folder / "lsblk", f'echo "lsblk $*" >> {self.calls}\ncat {answer}\n'),),
            mount=(program(folder / "mount", f'echo "mount $*" >> {self.calls}\n'
                                             + ('echo "mount: wrong fs type" >&2; exit 32\n' if mount_fails else "")),),
            umount=(program(folder / "umount", f'echo "umount $*" >> {self.calls}\n'),),
            mount_dir=self.mounted)
        self.helper = helper.Helper(Releases(folder / "home"), Keyring(folder / "no-keys"), ServiceUser(None),
                                    config=self.config, stick=tools)

    def called(self) -> list[str]:
        return self.calls.read_text().splitlines() if self.calls.exists() else []

    def night(self, stamp: str, data: bytes = b"\x1f\x8b a backup") -> Path:
        path = self.backups / f"nightly-{stamp}.tar.gz"
        path.write_bytes(data)
        return path

    def note(self) -> dict | None:
        from pi_table.release import stick
        from pi_table.release.layout import act_note

        return self.helper.releases.note(act_note(stick.ACT))


def stick_holding(machine: StickMachine, **files: bytes) -> Path:
    """The stick (its mount folder) holding ``files`` in its backups folder."""
    on_stick = machine.mounted / "pi-table-backups"
    on_stick.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (on_stick / name).write_bytes(data)
    return on_stick


def old_table_backup(folder: Path) -> bytes:
    """A backup of a café's old table, as its nights wrote it to a stick: its settings (Italian) and its staff PIN."""
    from pi_table.config import load_config
    from pi_table.daemon import backup
    from pi_table.web.staff import set_pin

    (folder / "journal").mkdir(parents=True)
    (folder / "config.toml").write_text(STAFF_CONFIG + '[game]\nlanguage = "it"\n')
    set_pin(folder / "journal", STAFF_PIN)
    return backup.make(load_config(folder / "config.toml"))


# --- a network place the nightly backup is copied to (tests/test_offsite.py, test_sealed.py) --------

PLACE_USER, PLACE_PASSWORD = "cafe", "a pass with spaces, #; and = signs"


class Served:
    """``rclone serve KIND`` on a free loopback port, into ``folder``, with the user and password."""

    def __init__(self, kind: str, folder: Path, home: Path, port: int | None = None,
                 key: Path | None = None, tls: tuple[Path, Path] | None = None) -> None:
        from pi_table.fleet.broker import free_port

        require_tools("rclone")
        self.port = port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        home.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
               "XDG_CONFIG_HOME": str(home / "config")}
        self.process = subprocess.Popen(
            ["rclone", "serve", kind, "--addr", f"127.0.0.1:{self.port}", "--user", PLACE_USER, "--pass", PLACE_PASSWORD,
             "--config", "/dev/null", *(["--key", str(key), "-vv"] if key else []),
             *(["--cert", str(tls[0]), "--key", str(tls[1])] if tls else []), str(folder)], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(self._listening, f"rclone serve {kind} listening", timeout=30)

    def _listening(self) -> bool:
        import socket

        assert self.process.poll() is None, self.process.stderr.read().decode() if self.process.stderr else ""
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) == 0

    def close(self) -> str:
        """The server stopped; what it logged."""
        self.process.terminate()
        return self.process.communicate(timeout=10)[1].decode("utf-8", "replace")


def place_address(kind: str, port: int, folder: str = "pi-table/bar-uno") -> str:
    return f"{'sftp' if kind == 'sftp' else 'http'}://{PLACE_USER}@127.0.0.1:{port}/{folder}"
