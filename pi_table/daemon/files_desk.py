"""The owner's files' part of the table (``web.sections.files.Table``): a file the staff page gives
(a certificate, a password, the words to leave out) written under a new name, then the settings
changed to name it as a trial; the café's broker gives its own the same way (``broker_desk``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..config.settings import BROKER, broker_change
from ..engine.errors import Refusal
from . import owner_files

if TYPE_CHECKING:
    from ..config import Config
    from ..engine.phrase import Phrase


class Changes(Protocol):
    """The table's changes of settings (``restarts.Restarts``)."""

    def change(self, changes: dict[str, object], proven: bool, reached: str | None = None,
               by: str = "staff") -> list[Phrase]: ...


class Table(Protocol):
    """What the owner's files need of the running table (``run.Daemon``)."""

    config: Config

    @property
    def restarts(self) -> Changes: ...


class FilesDesk:
    """The owner's files of ``table``."""

    def __init__(self, table: Table) -> None:
        self.daemon = table

    def owner_files(self) -> dict[str, Any]:
        return owner_files.state(self.daemon.config)

    def give_file(self, kind: str, given: dict[str, Any], reached: str | None = None) -> list[Phrase]:
        """The file written under a new name, then the settings changed to name it, as a trial; the
        file removed again when the change is refused, and those no settings name any more pruned."""
        return give_files(self.daemon, [(kind, given)], {}, reached)


def give_files(table: Table, given: list[tuple[str, dict[str, Any]]], more: dict[str, object],
               reached: str | None = None) -> list[Phrase]:
    """``give_file`` for each kind and what was given of it, and ``more`` settings, in one trial
    (the café's broker on this table: its own password, the CA, the dashboard's, the tables)."""
    config = table.config
    changed: dict[str, object] = dict(more)
    written: list[Path] = []
    broker = next((str(fields.get("broker", "")).strip() for kind, fields in given if kind == "broker"),
                  str(more.get(BROKER, config.values[BROKER])))  # the broker the passwords given here go to
    try:
        for kind, fields in given:
            found, files = owner_files.changes(config, kind, fields, reached, broker)
            changed, written = {**changed, **found}, [*written, *files]
    except Refusal as e:
        for file in written:
            file.unlink(missing_ok=True)
        return [e.phrase]
    problems = table.restarts.change(broker_change(changed, config.values), proven=False, reached=reached,
                                     by="owner")  # the owner's routes alone
    if problems:
        for file in written:
            file.unlink(missing_ok=True)
        return problems
    owner_files.prune(config)
    return []
