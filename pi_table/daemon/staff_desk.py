"""The staff page's desk: what the staff page and its sections ask of the running table (a new
game, an undo, the history, the settings and their changes, the log, a restart, the backups, the
updates, the root helper) and the table's parts they are given (the self-test, the security
updates, the game night, the set-up, the code on the table's screen), made of what the daemon
already has. Each section takes its own part of it, by its own small protocol
(``web.sections``). Never the key: the game is the control socket's public status.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..config import OPTIONS, trial
from ..config.schema import GROUPS, form_field
from ..config.settings import BROKER, broker_change, hide_password
from ..engine import InvalidRules
from ..engine.errors import Refusal
from ..engine.games import names
from ..engine.phrase import Phrase, Text
from ..table import history
from ..ui.i18n import say
from . import backup, logs, owner_files

if TYPE_CHECKING:
    from ..config import Config
    from ..night.recorder import Recorder
    from ..table import Session
    from ..web import Companion
    from ..web.auth import Recovery
    from ..web.sections.notify import Notices
    from ..web.sections.security import Updates
    from ..web.sections.setup import SetupDesk
    from .broker_desk import BrokerDesk
    from .checkup import Checkup
    from .restarts import Restarts


class Table(Protocol):
    """What the staff desk needs of the running table (``run.Daemon``)."""

    config: Config
    session: Session
    restarts: Restarts
    checkup: Checkup
    recent_log: logs.RecentLines
    companion: Companion | None
    recovery: Recovery | None
    night: Recorder | None

    @property
    def security(self) -> Updates | None:
        """Its SecurityUpdates (made at READY)."""

    @property
    def first_boot(self) -> SetupDesk | None:
        """Its FirstBoot, while the table awaits its set-up."""

    @property
    def notices(self) -> Notices | None:
        """Its owner's notifications (made at READY, by the table that holds the journal)."""

    def answer(self, request: dict[str, Any]) -> dict[str, Any]: ...

    def recovered(self) -> None: ...

    def owner_reset(self, how: str, address: str | None, wiped: list[str]) -> None: ...

    def reset_acknowledged(self) -> bool: ...

    def in_loop(self, fn: Callable[[], object]) -> bool: ...

    def change_at_hand(self, key: str, value: object) -> list[Phrase]: ...

    def restart(self) -> float: ...


NOT_SYSTEMD = Phrase.of("systemd does not run this table (a simulated table, or one started in a terminal): the log "
                        "shows the lines since this start, which the table keeps in its memory, whatever the time range")


class StaffDesk:
    """What the staff page may do to this table (``pi_table.web.staff.Desk``, and each section's
    ``Table``): its control commands, the journal's history, the configuration's checker, the log,
    the backups and updates, the root helper, and the daemon's parts a section is given."""

    def __init__(self, daemon: Table, spool: Path | None = None) -> None:
        from ..release.desk import helper_missing  # made with the phones' pages, after READY: not at the start
        from ..release.keys import Keyring
        from ..release.layout import HOME
        from ..release.requests import SPOOL

        self.daemon = daemon
        self.spool = spool or SPOOL  # where the root helper takes its requests (and an uploaded bundle)
        self.home = HOME  # where it notes how its acts ended
        self.helper_missing: Callable[[], Text | None] = helper_missing  # why no helper would take one
        self.keyring = Keyring()  # the release keys the table accepts: an uploaded bundle is checked against them
        self._broker: BrokerDesk | None = None

    def language(self) -> str:
        return self.daemon.config.language

    # --- the daemon's parts, as the sections take them (made before the staff page is) ---

    @property
    def checkup(self) -> Checkup:
        return self.daemon.checkup

    @property
    def recovery(self) -> Recovery:
        recovery = self.daemon.recovery
        assert recovery is not None  # made with the phones' pages, before the staff page
        return recovery

    @property
    def security(self) -> Updates:
        security = self.daemon.security
        assert security is not None  # made at READY, before the pages open
        return security

    @property
    def notices(self) -> Notices | None:
        return self.daemon.notices

    @property
    def broker(self) -> BrokerDesk:
        """The café's broker on this table, made with the staff page's section (a change asked
        before a restart is waited for again then)."""
        if self._broker is None:
            from .broker_desk import BrokerDesk  # the staff page's, after READY

            self._broker = BrokerDesk(self)
        return self._broker

    @property
    def night(self) -> Recorder | None:
        return self.daemon.night

    @property
    def first_boot(self) -> SetupDesk | None:
        return self.daemon.first_boot

    def table(self, lang: str) -> dict[str, Any]:
        status = self.daemon.answer({"command": "status", "lang": lang})
        settings = trial.state(self.daemon.config.source, lang)
        refused = self.daemon.config.refused
        if refused is not None and settings["refused"] is not None:  # its note says it, beside its Discard button
            said = say(refused, lang)
            status["warnings"] = [warning for warning in status["warnings"] if warning != said]
        return {**status, "settings": settings}

    def new_game(self, game: str, options: dict[str, object], lang: str) -> Text | None:
        daemon = self.daemon
        if game in names():
            try:
                rules = daemon.session.rules_for(game, options)
            except InvalidRules as e:
                return e.phrase
            if not daemon.in_loop(lambda: daemon.session.keep(rules)):
                return Phrase.of("the table is stopping")
        return self._done({"command": "new-game", "game": game}, lang)

    def undo(self, lang: str) -> Text | None:
        return self._done({"command": "undo"}, lang)

    def end_game(self, lang: str) -> Text | None:
        return self._done({"command": "new-game"}, lang)

    def _done(self, request: dict[str, Any], lang: str) -> Text | None:
        """The control command's answer, its refusal said in the staff page's language."""
        answer = self.daemon.answer({**request, "lang": lang})
        return None if answer["ok"] else answer["error"]

    def history(self, lang: str) -> list[dict[str, Any]]:
        return history(self.daemon.config.paths.journal_dir, lang)

    def settings(self) -> dict[str, Any]:
        config = self.daemon.config
        shown = {**config.values, BROKER: hide_password(str(config.values[BROKER]))}  # a staff phone never holds it
        return {"file": None if config.source is None else str(config.source), "groups": GROUPS,
                "options": [form_field(option, shown[option.key]) for option in OPTIONS]}

    def discard_refused(self) -> bool:
        """The settings file the table refused at its start replaced by the last good one (the
        owner's word); False when none is refused. The page restarts the table after."""
        source = self.daemon.config.source
        return source is not None and trial.discard(source)

    def change_settings(self, changes: dict[str, object], reached: str | None = None) -> list[Phrase]:
        """The staff's changes, the broker's password kept for the broker it was given for alone
        (``config.settings.broker_change``), checked and written as a trial that the page must
        still answer after at ``reached``, the address the staff reached it on."""
        return self.daemon.restarts.change(broker_change(changes, self.daemon.config.values), proven=False,
                                           reached=reached)

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        return self.daemon.change_at_hand(key, value)

    def log_records(self) -> list[tuple[int, str]]:
        return list(self.daemon.recent_log.records)

    def log(self, since: float | None, until: float | None) -> dict[str, Any]:
        """The systemd journal's lines of this service from ``since`` to ``until``, across its
        starts; on a table systemd does not run (a simulated one, a terminal's), the lines of this
        start the table keeps in memory, and a note that says so."""
        import subprocess

        if not logs.under_journald():
            return {"source": "memory", "records": self.log_records(), "note": NOT_SYSTEMD}
        try:
            return {"source": "journal", "records": logs.journal(since, until), "note": None}
        except (OSError, subprocess.SubprocessError) as e:
            return {"source": "memory", "records": self.log_records(),
                    "note": Phrase.of("the systemd journal cannot be read ({error}): the log shows the lines since "
                                      "this start, which the table keeps in its memory", error=str(e))}

    def owner_files(self) -> dict[str, Any]:
        return owner_files.state(self.daemon.config)

    def give_file(self, kind: str, given: dict[str, Any], reached: str | None = None) -> list[Phrase]:
        """The file written under a new name, then the settings changed to name it, as a trial; the
        file removed again when the change is refused, and those no settings name any more pruned."""
        return self.give_files([(kind, given)], {}, reached)

    def give_files(self, given: list[tuple[str, dict[str, Any]]], more: dict[str, object],
                   reached: str | None = None) -> list[Phrase]:
        """``give_file`` for each kind and what was given of it, and ``more`` settings, in one trial
        (the café's broker on this table: its own password, the CA, the dashboard's, the tables)."""
        from ..engine.errors import Refusal

        config = self.daemon.config
        changed: dict[str, object] = dict(more)
        written: list[Path] = []
        try:
            for kind, fields in given:
                found, files = owner_files.changes(config, kind, fields, reached)
                changed, written = {**changed, **found}, [*written, *files]
        except Refusal as e:
            for file in written:
                file.unlink(missing_ok=True)
            return [e.phrase]
        problems = self.daemon.restarts.change(changed, proven=False, reached=reached)
        if problems:
            for file in written:
                file.unlink(missing_ok=True)
            return problems
        owner_files.prune(config)
        return []

    def machine(self) -> dict[str, Any]:
        from .. import host  # the page's health view, not the table's start

        companion = self.daemon.companion
        return {"readings": host.read(self.daemon.config.paths.journal_dir),
                "address": None if companion is None else companion.base_url}

    def power(self, act: str) -> Text | None:
        return self.ask(act)

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

    def recovered(self) -> None:
        self.daemon.recovered()

    def wipe_owners_part(self) -> list[str]:
        from .owners_part import wipe  # a reset's alone

        return wipe(self.daemon.config, self)

    def owner_reset(self, how: str, address: str | None, wiped: list[str]) -> None:
        self.daemon.owner_reset(how, address, wiped)

    def owner_notice(self) -> Phrase | None:
        from .owner_notice import read_notice

        return read_notice(self.daemon.config.paths.journal_dir)

    def acknowledge_reset(self) -> bool:
        return self.daemon.reset_acknowledged()

    def backup(self) -> tuple[str, bytes]:
        return backup.backup_bytes(self.daemon.config)

    def nightly_backups(self, lang: str) -> list[dict[str, Any]]:
        return [{**each, "holds": ", ".join(say(part, lang) for part in each["holds"])}
                for each in backup.nightly(self.daemon.config)]

    def nightly_backup(self, name: str) -> bytes:
        return backup.nightly_data(self.daemon.config, name)

    def offsite(self, lang: str) -> dict[str, Any]:
        from ..release.desk import said
        from ..release.layout import Releases, act_note
        from ..release.stick import ACT
        from . import offsite  # the care section's alone

        found = offsite.state(self.daemon.config)
        if found["last"] is not None and isinstance(found["last"].get("why"), dict):
            found["last"] = {**found["last"], "why": found["last"]["why"].get(lang)}
        note = Releases(self.home).note(act_note(ACT))  # the root helper's, of the stick's last backup
        found["stick"] = None if note is None else {
            "at": note.get("at"), "backup": note.get("backup"), "stick": note.get("stick"),
            "ok": note.get("outcome") == "done", "why": (said(note.get("why")) or {}).get(lang)}
        return found

    def give_offsite(self, address: str, password: str) -> bool | None:
        from . import offsite

        config = self.daemon.config
        if not address.strip():
            offsite.save(config, None)
            return None
        kept = offsite.load(config)
        place = offsite.parse(address, password or (kept.password if kept is not None else ""))
        if not password and kept is not None and (place.kind, place.host, place.user) != (kept.kind, kept.host, kept.user):
            raise Refusal("another host or user needs its own password: give it too")  # the old one goes nowhere else
        offsite.save(config, place)
        return offsite.send_newest(config)

    def check_restore(self, data: bytes) -> list[Text]:
        return list(backup.check_upload(data, self.daemon).replaces)

    def restore(self, data: bytes, reached: str | None = None) -> list[Phrase]:
        return backup.restore_upload(data, self.daemon, reached)

    def releases(self, lang: str, repository: bool) -> dict[str, Any]:
        from ..release import offered, state  # the page's Updates section only

        found = state()
        offers = offered(spool=self.spool, repository=repository)
        for note in ("rolled_back", "last"):
            if found[note] is not None and isinstance(found[note].get("why"), dict):
                found[note] = {**found[note], "why": found[note]["why"].get(lang)}
        return {**found, "offered": offers, "restore": trial.state(backup.trial_path(self.daemon.config), lang)}

    def receiving(self, checking: bool = False) -> Path:
        from ..engine.errors import Refusal

        if checking:  # beside the journal folder, the service's own on any table
            fd, name = tempfile.mkstemp(prefix=".bundle-", suffix=".partial", dir=self._scratch())
            os.close(fd)
            return Path(name)
        if (missing := self.helper_missing()) is not None:  # before an upload is read for nothing
            raise Refusal(missing)
        self.spool.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".upload-", suffix=".partial", dir=self.spool)  # no bundle's name
        os.close(fd)
        return Path(name)

    def _scratch(self) -> Path:
        """Where a bundle is checked: beside the journal folder (the service's state folder on a Pi,
        on its disk, not in memory)."""
        return self.daemon.config.paths.journal_dir.resolve().parent

    def check_update(self, bundle: str, received: Path) -> tuple[bool, Text]:
        from .. import version
        from ..engine.errors import Refusal
        from ..release import ReleaseError
        from ..release.bundle import unpack
        from ..release.requests import check

        try:
            check({"act": "update", "from": "bundle", "bundle": bundle})
            with tempfile.TemporaryDirectory(prefix=".bundle-", dir=self._scratch()) as scratch:
                wheels, signer = unpack(received, Path(scratch) / "unpacked", self.keyring)
        except ReleaseError as e:
            raise Refusal(Phrase.of("{name} would be refused: {why}", name=bundle,
                                    why=Phrase.of(e.why["template"], **e.why["fields"]))) from None
        held = {"name": bundle, "version": wheels.version, "signer": signer}
        if (missing := self.helper_missing()) is not None:
            return False, Phrase.of("{name} holds version {version}, signed by {signer}, but this table would not "
                                    "install it: {why}", **held, why=missing)
        return True, Phrase.of("{name} holds version {version}, signed by {signer}: the table would install it in "
                               "place of {running} and restart on it, and go back by itself if it is not healthy",
                               **held, running=version())

    def update(self, source: str, bundle: str | None, received: Path | None) -> Text | None:
        """An uploaded bundle is kept in the spool under its name, the only one kept there (the
        last upload replaces the one before), then asked for."""
        asked = {"from_": source} if bundle is None else {"from_": source, "bundle": bundle}
        if (missing := self.helper_missing()) is not None:
            return missing
        if received is not None and bundle is not None:
            from ..release import ReleaseError
            from ..release.bundle import peek
            from ..release.requests import WAITING, check, waiting

            if waiting(self.spool):  # its bundle stays until the helper has taken it
                return Phrase.of(WAITING)

            try:  # the request's own check, before the upload is kept under its name
                check({"act": "update", "from": source, "bundle": bundle})
            except ReleaseError as e:
                return Phrase.of(e.why["template"], **e.why["fields"])
            if peek(received) is None:
                return Phrase.of("{name} is no pi-table bundle: expected a file pi-table bundle made", name=bundle)
            try:
                for older in self.spool.glob("*.tar.gz"):
                    older.unlink()
                os.replace(received, self.spool / bundle)
            except OSError as e:
                return Phrase.of("the update cannot be kept in {folder} ({error})", folder=str(self.spool),
                                 error=e.strerror or str(e))
        return self.ask("update", **asked)

    def restart(self) -> float:
        return self.daemon.restart()
