"""The root helper as the table's parts ask it (``release.helper``): the staff page's sections
that leave it a request (the keys, the network, the Wi-Fi, power, an update), and the table's own
work that needs root (the security updates, a backup to a stick, the set-up's Wi-Fi). One object,
made by the daemon at READY, before the notifications and the pages, which each of them is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config import Config
from ..engine.phrase import Phrase, Text

SPOOL, HOME, KEYS, REBOOT_FLAG, MOSQUITTO = "requests", "opt", "keys", "run/reboot-required", "mosquitto"
"""A stand-in machine's folder (``[paths] machine``): the helper's spool, its home, its keyring,
Debian's reboot flag and Mosquitto's (its ``etc``, and the ``port`` its broker listens on)."""


@dataclass(frozen=True, slots=True)
class Machine:
    """Where the table finds its root helper's side of the machine: the spool it leaves requests
    in, the ``home`` the helper notes its acts in, its keyring, Debian's reboot flag and
    Mosquitto's files and port. The one place a table reads them from, so a table in a folder
    finds them in its stand-in machine's folder and never in the computer's own."""

    spool: Path
    home: Path
    keys: Path
    reboot_flag: Path
    mosquitto_etc: Path
    mosquitto_port: int
    stand_in: bool

    @classmethod
    def of(cls, config: Config) -> Machine:
        """The computer's own (a Pi's /opt/pi-table, /var/lib/pi-table/requests...), or the stand-in's
        folder the configuration names."""
        from ..release import broker, keys, layout, requests, system

        folder = config.paths.machine
        if folder is None:
            return cls(requests.SPOOL, layout.HOME, keys.KEYRING, system.REBOOT_FLAG, broker.ETC, broker.PORT, False)
        try:
            port = int((folder / MOSQUITTO / "port").read_text())
        except (OSError, ValueError):  # the stand-in has not started its broker yet
            port = broker.PORT
        return cls(folder / SPOOL, folder / HOME, folder / KEYS, folder / REBOOT_FLAG, folder / MOSQUITTO / "etc",
                   port, True)


class RootHelper:
    """The helper's spool (where it takes requests, and an uploaded bundle), its ``home`` (where it
    notes how its acts ended), the keyring an uploaded bundle is checked against, and why no helper
    would take a request on this machine (``helper_missing``): the staff page's ``web.staff.Helper``.
    All of it on ``machine``."""

    def __init__(self, machine: Machine) -> None:
        from ..release.desk import helper_missing  # made at READY: not before it
        from ..release.keys import Keyring

        self.machine = machine
        self.spool, self.home = machine.spool, machine.home
        self.helper_missing: Callable[[], Text | None] = (lambda: None) if machine.stand_in else helper_missing
        self.keyring = Keyring(machine.keys)

    def ask(self, act: str, **args: object) -> Text | None:
        """Leave ``act`` for the root helper (``release.ask``); None, or why it could not be asked."""
        from ..release import ReleaseError, ask  # the staff's power and update buttons only

        if (missing := self.helper_missing()) is not None:
            return missing
        try:
            ask(act, spool=self.spool, **args)
        except ReleaseError as e:
            return Phrase.of(e.why["template"], **e.why["fields"])
        except OSError as e:
            return Phrase.of("the computer's helper cannot be asked ({error}): is pi-table-helper.path installed? "
                             "(systemd/install.sh installs it)", error=e.strerror or str(e))
        return None
