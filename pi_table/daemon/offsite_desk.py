"""The offsite section's part of the table (``web.sections.offsite.Table``): the network place the
nightly backup is copied to, the USB stick's last backup as the root helper noted it, and the
backup key the copies are sealed with (``sealed``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..config import bound
from ..engine.errors import Refusal
from . import backup, offsite, sealed

if TYPE_CHECKING:
    from ..config import Config
    from .root_helper import RootHelper


class Table(Protocol):
    """What the copies read of the running table: its settings."""

    config: Config


class OffsiteDesk:
    """``table``'s copies off the SD card; ``helper``'s notes say how the stick's last went."""

    def __init__(self, table: Table, helper: RootHelper) -> None:
        self.daemon, self.helper = table, helper

    def offsite(self, lang: str) -> dict[str, Any]:
        from ..release.desk import said
        from ..release.layout import Releases, act_note
        from ..release.stick import ACT

        found = offsite.state(self.daemon.config) | {"backup_key": sealed.kept_key(self.daemon.config) is not None}
        if found["last"] is not None and isinstance(found["last"].get("why"), dict):
            found["last"] = {**found["last"], "why": found["last"]["why"].get(lang)}
        note = Releases(self.helper.home).note(act_note(ACT))  # the root helper's, of the stick's last backup
        found["stick"] = None if note is None else {
            "at": note.get("at"), "backup": note.get("backup"), "stick": note.get("stick"),
            "ok": note.get("outcome") == "done", "why": (said(note.get("why")) or {}).get(lang)}
        return found

    def give_offsite(self, address: str, password: str) -> bool | None:
        config = self.daemon.config
        if not address.strip():
            offsite.save(config, None)
            return None
        kept = offsite.load(config)
        place = offsite.parse(address, password or (kept.password if kept is not None else ""))
        if not password and kept is not None and not bound.same_destination(kept.destination, place.destination):
            raise Refusal("another server, port or user needs its own password: give it too")  # the old one goes nowhere else
        offsite.save(config, place)
        return offsite.send_newest(config)

    def give_offsite_ca(self, pem: str) -> bool | None:
        offsite.keep_ca(self.daemon.config, pem)
        return offsite.send_newest(self.daemon.config)

    def new_backup_key(self) -> str:
        return backup.new_key(self.daemon.config)

    def accept_offsite_key(self, compared: list[str]) -> bool | None:
        offsite.accept_key(self.daemon.config, compared)
        return offsite.send_newest(self.daemon.config)
