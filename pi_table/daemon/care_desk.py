"""Backup and updates' part of the table (``web.sections.care.Backups``, ``Updates``): a backup
downloaded, the nightly ones, a restore checked and staged as a trial, the releases on offer, an
uploaded bundle checked against the keyring and left for the root helper."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import trial
from ..engine.errors import Refusal
from ..engine.phrase import Phrase, Text
from ..ui.i18n import say
from ..web.sections.care import KeyAsked
from . import backup, sealed

if TYPE_CHECKING:
    from .root_helper import RootHelper


class CareDesk:
    """``table``'s backups and updates; ``helper``, the root helper an update is left for."""

    def __init__(self, table: backup.Table, helper: RootHelper) -> None:
        self.daemon, self.helper = table, helper

    def backup(self) -> tuple[str, bytes]:
        return backup.backup_bytes(self.daemon.config)

    def nightly_backups(self, lang: str) -> list[dict[str, Any]]:
        return [{**each, "holds": ", ".join(say(part, lang) for part in each["holds"])}
                for each in backup.nightly(self.daemon.config)]

    def nightly_backup(self, name: str) -> bytes:
        return backup.nightly_data(self.daemon.config, name)

    def check_restore(self, data: bytes, key: str | None = None) -> list[Text]:
        try:
            return list(backup.check_upload(data, self.daemon, key).replaces)
        except backup.BadBackup as e:
            raise KeyAsked(e.phrase) if sealed.is_sealed(data) else e from None

    def restore(self, data: bytes, reached: str | None = None, key: str | None = None) -> list[Phrase]:
        problems = backup.restore_upload(data, self.daemon, reached, key)
        if problems and sealed.is_sealed(data):  # the owner's key asked, in a field of the page
            raise KeyAsked(problems[0])
        return problems

    def releases(self, lang: str, repository: bool) -> dict[str, Any]:
        from ..release import offered, state  # the page's Updates section only

        found = state()
        offers = offered(spool=self.helper.spool, repository=repository)
        for note in ("rolled_back", "last"):
            if found[note] is not None and isinstance(found[note].get("why"), dict):
                found[note] = {**found[note], "why": found[note]["why"].get(lang)}
        return {**found, "offered": offers, "restore": trial.state(backup.trial_path(self.daemon.config), lang)}

    def receiving(self, checking: bool = False) -> Path:
        if checking:  # beside the journal folder, the service's own on any table
            fd, name = tempfile.mkstemp(prefix=".bundle-", suffix=".partial", dir=self._scratch())
            os.close(fd)
            return Path(name)
        if (missing := self.helper.helper_missing()) is not None:  # before an upload is read for nothing
            raise Refusal(missing)
        spool = self.helper.spool
        spool.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".upload-", suffix=".partial", dir=spool)  # no bundle's name
        os.close(fd)
        return Path(name)

    def _scratch(self) -> Path:
        """Where a bundle is checked: beside the journal folder (the service's state folder on a Pi,
        on its disk, not in memory)."""
        return self.daemon.config.paths.journal_dir.resolve().parent

    def check_update(self, bundle: str, received: Path) -> tuple[bool, Text]:
        from .. import version
        from ..release import ReleaseError
        from ..release.bundle import unpack
        from ..release.requests import check

        try:
            check({"act": "update", "from": "bundle", "bundle": bundle})
            with tempfile.TemporaryDirectory(prefix=".bundle-", dir=self._scratch()) as scratch:
                wheels, signer = unpack(received, Path(scratch) / "unpacked", self.helper.keyring)
        except ReleaseError as e:
            raise Refusal(Phrase.of("{name} would be refused: {why}", name=bundle,
                                    why=Phrase.of(e.why["template"], **e.why["fields"]))) from None
        held = {"name": bundle, "version": wheels.version, "signer": signer}
        if (missing := self.helper.helper_missing()) is not None:
            return False, Phrase.of("{name} holds version {version}, signed by {signer}, but this table would not "
                                    "install it: {why}", **held, why=missing)
        return True, Phrase.of("{name} holds version {version}, signed by {signer}: the table would install it in "
                               "place of {running} and restart on it, and go back by itself if it is not healthy",
                               **held, running=version())

    def update(self, source: str, bundle: str | None, received: Path | None) -> Text | None:
        """An uploaded bundle is kept in the spool under its name, the only one kept there (the
        last upload replaces the one before), then asked for."""
        asked = {"from_": source} if bundle is None else {"from_": source, "bundle": bundle}
        if (missing := self.helper.helper_missing()) is not None:
            return missing
        spool = self.helper.spool
        if received is not None and bundle is not None:
            from ..release import ReleaseError
            from ..release.bundle import peek
            from ..release.requests import WAITING, check, waiting

            if waiting(spool):  # its bundle stays until the helper has taken it
                return Phrase.of(WAITING)

            try:  # the request's own check, before the upload is kept under its name
                check({"act": "update", "from": source, "bundle": bundle})
            except ReleaseError as e:
                return Phrase.of(e.why["template"], **e.why["fields"])
            if peek(received) is None:
                return Phrase.of("{name} is no pi-table bundle: expected a file pi-table bundle made", name=bundle)
            try:
                for older in spool.glob("*.tar.gz"):
                    older.unlink()
                os.replace(received, spool / bundle)
            except OSError as e:
                return Phrase.of("the update cannot be kept in {folder} ({error})", folder=str(spool),
                                 error=e.strerror or str(e))
        return self.helper.ask("update", **asked)
