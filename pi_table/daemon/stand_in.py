"""A stand-in machine for a table in a folder (``pi-table stand-in``), so every owner's task that
asks the root helper can be tried on a laptop: it starts the table (``pi-table run``) as systemd
does, and hands each request the table leaves in its spool to the REAL helper's act
(``release.helper.act``), as this user, on the folder ``[paths] machine`` names (``root_helper.Machine``)
with simulated programs: NetworkManager (``sim.nmcli``, a café's Wi-Fi in reach), timedatectl,
systemctl (a restart or a reboot starts the table again, a power off stops it, the security
updates' and the stick's units run their acts), unattended-upgrade and dpkg-query (a Debian
that has patches waiting), and a folder as the USB stick.

Never on a table: it refuses to run as the service's user, or on a computer where pi-table is
installed (/opt/pi-table, /etc/pi-table-keys), where a table has the real helper.
"""

from __future__ import annotations

import logging
import os
import pwd
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import IO

from ..config import load_config
from ..engine.phrase import N_, Phrase
from ..errors import PiTableError
from ..release import helper, requests, stick
from ..release.broker import Broker
from ..release.keys import KEYRING, Keyring
from ..release.layout import HOME, Releases
from ..release.service_user import USER, ServiceUser
from ..sim.machine import USB_STICK, debian, lsblk_listing, program
from ..sim.nmcli import NetworkManager
from ..ui.i18n import say
from .restarts import EXIT_RESTART
from .root_helper import Machine

log = logging.getLogger(__name__)

NETWORKS = (("Cafe", "espresso-42"), ("Cafe-Guests", ""))
"""The Wi-Fi networks in the stand-in's reach: the café's (its password as docs/cafe/try.md gives it) and an open one."""
POLL_S = 0.2


class Refused(PiTableError, RuntimeError):
    """Why the stand-in machine will not run here."""


def refusal(machine: Path | None, uid: int | None = None, installed: Sequence[Path] = (HOME, KEYRING)) -> Phrase | None:
    """Why a stand-in machine may not run for this user on this computer, or None: a table (the
    installer made the service's user, /opt/pi-table and the releases' keyring) never runs one."""
    if machine is None:
        return Phrase.of(N_("the configuration names no stand-in machine: set [paths] machine to a folder of the "
                            "table's, as docs/cafe/try.md shows"))
    try:
        name = pwd.getpwuid(os.geteuid() if uid is None else uid).pw_name
    except KeyError:
        name = ""
    found = [str(path) for path in installed if path.exists()]
    if name == USER or found:
        return Phrase.of(N_("pi-table is installed on this computer ({found}): its table has the real root helper, "
                            "and a stand-in machine never runs on it"), found=", ".join(found) or f"the user {USER}")
    return None


class StandIn:
    """The stand-in machine of the table ``config`` names: its programs made in its folder's
    ``bin``, the helper's acts given them, the table started with ``run`` (``pi-table run``'s options)."""

    def __init__(self, config: Path, run: Sequence[str] = ()) -> None:
        settings = load_config(config)
        if (why := refusal(settings.paths.machine)) is not None:
            raise Refused(say(why, settings.language))
        self.config, self.run_args = config, tuple(run)
        self.machine = Machine.of(settings)
        folder = settings.paths.machine
        assert folder is not None  # refusal() said so
        self.folder = folder
        bin_ = folder / "bin"
        bin_.mkdir(parents=True, exist_ok=True)
        if (folder / "network-manager" / "state.json").exists():
            network = NetworkManager.kept(folder / "network-manager")
        else:
            network = NetworkManager(folder / "network-manager", NETWORKS)
            network.on_cable()
        os.environ.update(network.environment)  # the helper's acts here, and the table's reads, call its nmcli
        self.calls = folder / "systemctl.calls"
        self.calls.touch()
        systemctl = program(bin_ / "systemctl", f'echo "$*" >> "{self.calls}"\n[ "$1" = show ] && echo active\nexit 0\n')
        timedatectl = program(bin_ / "timedatectl", f'echo "$*" >> "{folder / "timedatectl.calls"}"\n')
        (folder / "debian").mkdir(exist_ok=True)
        self.machine.reboot_flag.parent.mkdir(parents=True, exist_ok=True)
        query, upgrade = debian(folder / "debian", self.machine.reboot_flag, folder / "debian" / "calls")
        listing = folder / "lsblk.json"
        listing.write_text(lsblk_listing(USB_STICK))
        (folder / "usb-stick").mkdir(exist_ok=True)
        self.acts = helper.Helper(
            Releases(self.machine.home), Keyring(self.machine.keys), ServiceUser(None), (systemctl,), (timedatectl,),
            config=config, upgrade=(upgrade,), dpkg_query=(query,), reboot_flag=self.machine.reboot_flag,
            mosquitto=Broker(self.machine.mosquitto_etc, (systemctl,), self.machine.mosquitto_port),
            stick=stick.Tools(lsblk=(program(bin_ / "lsblk", f'cat "{listing}"\n'),), mount=(program(bin_ / "mount", ""),),
                              umount=(program(bin_ / "umount", ""),), mount_dir=folder / "usb-stick"))
        self.machine.mosquitto_etc.mkdir(parents=True, exist_ok=True)
        self.table: subprocess.Popen[bytes] | None = None
        self.acting: threading.Thread | None = None  # the helper's act of the last request, while it runs
        self.log = folder / "helper.log"
        self.seen = len(self.calls.read_text().splitlines())
        self.status = [sys.executable, "-m", "pi_table", "status", "--json", "--config", str(config)]

    # --- systemd's side: the table started, again when it asks, and stopped ----------------------

    def start(self) -> None:
        self.table = subprocess.Popen([sys.executable, "-m", "pi_table", "run", "--config", str(self.config),
                                       *self.run_args])

    def stop(self) -> int:
        table, self.table = self.table, None
        if table is None:
            return 0
        if table.poll() is None:
            table.send_signal(signal.SIGTERM)
        return table.wait()

    def serve(self, stopping: threading.Event) -> int:
        """The table run until it stops by itself (not to restart), is powered off, or ``stopping``;
        its last exit status."""
        self.start()
        while not stopping.wait(POLL_S):
            table = self.table
            if table is None:
                return 0
            if (code := table.poll()) is not None:
                if code != EXIT_RESTART:
                    return code
                self.start()
            if (self.acting is None or not self.acting.is_alive()) and os.path.lexists(
                    self.machine.spool / requests.REQUEST):  # one at a time, as pi-table-helper.path starts them
                self.acting = self._unit(partial(helper.act, self.acts, self.machine.spool))
            if self.systemd() == "poweroff":
                return self.stop()
        return self.stop()

    def systemd(self) -> str | None:
        """The systemctl calls made since the last look, played: the last one that ended the table's run."""
        calls = self.calls.read_text().splitlines()
        ended = None
        for call in calls[self.seen:]:
            if call in ("restart pi-table.service", "reboot"):
                if call == "reboot":
                    self.machine.reboot_flag.unlink(missing_ok=True)  # /run is emptied by a reboot
                self.stop()
                self.start()
            elif call == "poweroff":
                ended = call
            elif call.startswith(f"start --no-block {stick.UNIT}"):
                self._unit(partial(helper.to_stick, self.acts))
            elif call.startswith("start --no-block pi-table-security.service"):
                self._unit(lambda log_file: helper.security(self.acts, self.status, 60, log=log_file))
            elif call.startswith("start --no-block pi-table-stick-restore@"):
                backup = call.split("@", 1)[1].removesuffix(".service")
                self._unit(partial(helper.from_stick, self.acts, backup))
        self.seen = len(calls)
        return ended

    def _unit(self, act: Callable[[IO[str]], object]) -> threading.Thread:
        """A unit started (the helper's, or one it started with ``systemctl start --no-block``), its
        act run beside the table and this machine's systemd: a trial that waits two minutes for the
        page holds up neither a restart of the table nor the stand-in's stop."""

        def run() -> None:
            with self.log.open("a") as log_file:
                act(log_file)

        unit = threading.Thread(target=run, name="stand-in unit", daemon=True)
        unit.start()
        return unit


def main(config: Path, run: Sequence[str]) -> int:
    """``pi-table stand-in``: the table on its stand-in machine until it stops, Ctrl+C or SIGTERM."""
    stand_in = StandIn(config, run)
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda number, frame: stopping.set())
    started = time.monotonic()
    log.info("stand-in machine in %s: the table's requests go to the helper's acts", stand_in.folder)
    code = stand_in.serve(stopping)
    log.info("the table stopped (%s) after %.0f s", code, time.monotonic() - started)
    return code
