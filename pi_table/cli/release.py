"""``pi-table bundle``: a release bundle of a checkout, for a table without internet (the staff
page takes it; docs/cafe/updates.md). Imported by ``pi-table`` at every start: the release layer loads
when the command runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .output import EXIT_USAGE


def add_commands(commands) -> None:
    bundle = commands.add_parser("bundle", help="make a release bundle (.tar.gz) of a checkout, to update a table "
                                                "without internet from the staff page")
    bundle.add_argument("-o", "--output", type=Path, help="the bundle's file (default: pi-table-VERSION.tar.gz here)")
    bundle.add_argument("--source", type=Path, help="the checkout to bundle (default: the one this pi-table runs from)")
    bundle.add_argument("--wheels", action="store_true",
                        help="add the locked dependencies' wheels for the Pi (pip downloads them: this needs the "
                             "network or pip's cache where the bundle is made); without them the table fetches "
                             "them from PyPI as it installs")
    bundle.add_argument("--lang", choices=("en", "it"), default="en", help="the messages' language (default: en)")
    bundle.set_defaults(func=_bundle)


def _bundle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..engine.phrase import Phrase
    from ..release import ReleaseError, bundle
    from ..release.layout import source_version
    from ..ui.i18n import say

    source = args.source or Path(__file__).resolve().parents[2]
    if not (source / "pyproject.toml").is_file():
        print("pi-table bundle: " + say(Phrase.of("{source} is no checkout (no pyproject.toml): give the checkout "
                                                  "with --source", source=str(source)), args.lang), file=sys.stderr)
        return EXIT_USAGE
    try:
        out = args.output or Path(f"pi-table-{source_version(source)}.tar.gz")
        manifest = bundle.make(source, out, wheels=args.wheels)
    except ReleaseError as e:
        print("pi-table bundle: " + say(Phrase.of(e.why["template"], **e.why["fields"]), args.lang), file=sys.stderr)
        return 1
    except OSError as e:
        print(f"pi-table bundle: {e}", file=sys.stderr)
        return 1
    wheels = sum(name.startswith(f"{bundle.WHEELS}/") for name in manifest["files"])
    print(f"{out}: " + say(Phrase.of("pi-table {version}, {files} source files, {wheels} wheels",
                                     version=manifest["version"], files=len(manifest["files"]) - wheels,
                                     wheels=wheels), args.lang))
    return 0
