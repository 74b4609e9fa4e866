"""``pi-table backup`` and ``pi-table restore``: the staff page's backup and restore over SSH, for
a table whose page cannot be reached (docs/cafe/backup.md). Both read or write the service's own
folders: run them as root (sudo) on an installed table."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .output import EXIT_NOPERM, EXIT_UNAVAILABLE, said
from .tables import config_option, configured


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    make = commands.add_parser(
        "backup", help="save this table (settings, staff PIN, finished games) in one .tar.gz",
        description="Write what makes this table this table (its configuration, the staff PIN's hash and the "
                    "finished games) into one .tar.gz, as the staff page's Backup does: never the game in play nor "
                    "the phones' secret. Keep it private. Run it as root (sudo) on an installed table.")
    config_option(make)
    make.add_argument("-o", "--output", type=Path, metavar="FILE",
                      help="the file to write (default: pi-table-TABLE-DAY.tar.gz in this folder)")
    make.set_defaults(func=_backup)
    restore = commands.add_parser(
        "restore", help="put a backup back; the table goes back by itself if it does not come up on it",
        description="Check FILE, say what it replaces, and restore it as a trial: the table restarts on it and "
                    "puts its state before back by itself if it is not healthy within a minute. With the table "
                    "stopped, the restore is applied when it next starts. Run it as root (sudo).")
    config_option(restore)
    restore.add_argument("file", type=Path, metavar="FILE", help="a backup made by pi-table backup or the staff page")
    restore.set_defaults(func=_restore)


def _backup(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..daemon.backup import BadBackup, backup_bytes, name_of
    from ..files import write_private
    from ..ui.i18n import translation

    config = configured(args)
    _ = translation(config.language).gettext
    try:
        name, data = backup_bytes(config)
    except BadBackup as e:
        print("pi-table backup: " + said(e, config.language), file=sys.stderr)
        return 1
    except OSError as e:
        print("pi-table backup: " + _("cannot read {path} ({error}): run it as root (sudo)").format(
            path=e.filename or config.paths.journal_dir, error=e.strerror or e), file=sys.stderr)
        return EXIT_NOPERM
    path = args.output or Path(name)
    try:
        write_private(path, data)  # it holds the PIN's hash
        _to_owner_of(path.resolve().parent, [path])
    except OSError as e:
        print("pi-table backup: " + _("cannot write {path} ({error})").format(path=path, error=e.strerror or e),
              file=sys.stderr)
        return 1
    print(_("the backup of {table} is in {path} ({size} bytes): it holds the staff PIN's hash, so keep it "
            "private").format(table=name_of(config), path=path, size=len(data)))
    return 0


def _restore(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Through the running table (which checks it beside what it holds and restarts on it); with
    no table running, checked here and staged for its next start."""
    from ..config import trial
    from ..config.machine import Running
    from ..daemon import backup
    from ..daemon.control import ControlError, NotAllowed, Refused, request
    from ..files import TooBig, read_file, write_private
    from ..ui.i18n import translation

    config = configured(args)
    lang = config.language
    _ = translation(lang).gettext
    try:
        data = read_file(args.file, backup.MOST_BYTES)
        backup.read(data)  # a file that is no backup goes no further than here
    except TooBig as e:
        print("pi-table restore: " + _("{path} is {size} bytes: a backup is at most {most}").format(
            path=args.file, size=e.size, most=e.most), file=sys.stderr)
        return 1
    except backup.BadBackup as e:
        print("pi-table restore: " + said(e, lang), file=sys.stderr)
        return 1
    except OSError as e:
        print("pi-table restore: " + _("cannot read {path} ({error})").format(path=args.file, error=e.strerror or e),
              file=sys.stderr)
        return 1
    folder = backup.folder(config)
    upload = folder / backup.UPLOAD
    try:
        made = not folder.exists()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_private(upload, data)
        _to_owner_of(folder.parent, [upload, *([folder] if made else [])])
    except OSError as e:
        print("pi-table restore: " + _("cannot write in {folder} ({error}): run it as root (sudo)").format(
            folder=folder, error=e.strerror or e), file=sys.stderr)
        return EXIT_NOPERM
    try:
        answer = request(config.paths.socket, "restore", timeout=60, lang=lang)
        replaces, when = answer["replaces"], _("the table restarts on it now")
    except (Refused, NotAllowed) as e:
        upload.unlink(missing_ok=True)
        print("pi-table restore: " + said(e, lang), file=sys.stderr)
        return EXIT_NOPERM if isinstance(e, NotAllowed) else 1
    except ControlError:  # no table running: staged here, applied at its next start
        upload.unlink(missing_ok=True)
        try:
            contents = backup.stage(data, config, Running(), "pi-table restore", ())
            _to_owner_of(folder.parent, [folder / backup.STAGED, trial.beside(backup.trial_path(config), trial.TRIAL)])
        except backup.BadBackup as e:
            print("pi-table restore: " + said(e, lang), file=sys.stderr)
            return 1
        except OSError as e:
            print("pi-table restore: " + _("cannot write in {folder} ({error}): run it as root (sudo)").format(
                folder=folder, error=e.strerror or e), file=sys.stderr)
            return EXIT_UNAVAILABLE
        from ..ui.i18n import say

        replaces = [say(phrase, lang) for phrase in contents.replaces]
        when = _("no table is running: it is restored when the table next starts (sudo systemctl start pi-table)")
    for line in replaces:
        print(line)
    print(_("{when}; if it is not healthy within a minute, its state before comes back by itself").format(when=when))
    return 0


def _to_owner_of(folder: Path, paths: list[Path]) -> None:
    """As root, give what this made to the owner of ``folder`` (the service's user): the table
    reads and replaces it."""
    if os.geteuid() != 0:
        return
    owner = folder.stat()
    if owner.st_uid != 0:
        for path in paths:
            os.chown(path, owner.st_uid, owner.st_gid)
