"""The network beyond Wi-Fi on the staff page (``web.network.NetworkRoom``, issue 50, 7): what the
table's cable and Wi-Fi are connected by, their addresses and the host name, as nmcli reads them
(reading needs no root); a fixed address, an automatic one again, or a new host name asked of the
root helper, which tries it; and the trial kept once the page is reached again where the change
said (``reached``): its new address, or NAME.local.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.phrase import Text
from ..release import network, state
from ..release.layout import HOME, ReleaseError, Releases

if TYPE_CHECKING:
    from .staff_desk import StaffDesk

log = logging.getLogger("pi_table.daemon")
ACTS = ("ipv4", "hostname")


class NetworkDesk:
    """The helper's notes in ``home``; ``desk`` asks the helper and holds its spool folder."""

    def __init__(self, desk: StaffDesk, home: Path = HOME) -> None:
        self.desk, self.home = desk, home

    def view(self, lang: str) -> dict[str, Any]:
        """The host name, each device's connection and address, the change on trial and the last
        address or host name act (its why in ``lang``); ``known`` False without NetworkManager."""
        if not network.available():
            return {"known": False, "host_name": None, "devices": [], "trial": None, "last": None}
        try:
            name = network.host_name()
        except ReleaseError:
            name = None
        devices = []
        for device in network.DEVICES:
            try:
                connection: str | None = network.connection_on(device)
            except ReleaseError:
                connection = None
            devices.append({"device": device, "connection": connection,
                            "address": None if connection is None else network.address(device)})
        trial = network.trial_of(Releases(self.home))
        last = state(self.home)["last"]
        if last is not None and last.get("act") in ACTS:
            last = {key: last.get(key) for key in ("act", "device", "address", "name", "outcome", "at")} | {
                "why": (last.get("why") or {}).get(lang)}
        else:
            last = None
        return {"known": True, "host_name": name, "devices": devices, "last": last,
                "trial": None if trial is None else {key: trial.get(key) for key in ("act", "at", "until")}}

    def reached(self, address: str | None, host: str) -> bool:
        """The staff page was reached on ``address`` (this machine's, the request came in on) by the
        name ``host``: the change on trial is kept if that is where it said the page must be reached."""
        trial = network.trial_of(Releases(self.home))
        if trial is None or trial.get("at") not in (address, host):
            return False
        network.keep(self.desk.spool, trial["id"])
        log.warning("the staff page reached at %s: the %s change is kept", trial["at"], trial["act"])
        return True

    def ask(self, request: dict[str, str]) -> Text | None:
        """An address or a host name asked of the root helper (``request``: checked already)."""
        log.warning("the network change %s asked for", request)
        return self.desk.ask(request["act"], **{key: value for key, value in request.items() if key != "act"})
