"""``pi-table bundle``: a signed release bundle of a commit of a checkout, which a table's staff
page installs (docs/cafe/updates.md). Imported by ``pi-table`` at every start: the release layer
loads when the command runs."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .output import EXIT_USAGE

KEY_VARIABLE = "PI_TABLE_RELEASE_KEY"


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bundle = commands.add_parser("bundle", help="make a signed release bundle (.tar.gz) of a commit, to update a "
                                                "table from its staff page")
    bundle.add_argument("-o", "--output", type=Path, help="the bundle's file (default: pi-table-VERSION.tar.gz here)")
    bundle.add_argument("--source", type=Path, help="the git checkout to bundle (default: the one this pi-table "
                                                    "runs from)")
    bundle.add_argument("--key", type=Path, default=os.environ.get(KEY_VARIABLE) or None,
                        help=f"the maker's private Ed25519 key that signs it (default: ${KEY_VARIABLE}); make one "
                             "with ssh-keygen -t ed25519 -f FILE")
    bundle.add_argument("--commit", default="HEAD", help="the commit to bundle (default: HEAD)")
    bundle.add_argument("--dirty", action="store_true",
                        help="bundle the tracked files as they are in the working tree, changes not committed too "
                             "(refused without it)")
    bundle.add_argument("--for", dest="target", choices=("pi", "here"), default="pi",
                        help="the machine its wheels are for: the Pi (Raspberry Pi OS, 64-bit; the default) or "
                             "this one")
    bundle.add_argument("--wheels-from", type=Path,
                        help="wheels built on a Pi for the dependencies the index has none for (rpi-ws281x)")
    bundle.add_argument("--lang", choices=("en", "it"), default="en", help="the messages' language (default: en)")
    bundle.set_defaults(func=_bundle)


def _bundle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..engine.phrase import Phrase
    from ..release import ReleaseError, bundle
    from ..ui.i18n import say

    source = args.source or Path(__file__).resolve().parents[2]
    if not (source / "pyproject.toml").is_file():
        print("pi-table bundle: " + say(Phrase.of("{source} is no checkout (no pyproject.toml): give the checkout "
                                                  "with --source", source=str(source)), args.lang), file=sys.stderr)
        return EXIT_USAGE
    if args.key is None:
        print("pi-table bundle: " + say(Phrase.of("a bundle is signed: give the maker's private key with --key FILE "
                                                  "or ${variable} (ssh-keygen -t ed25519 -f FILE makes one)",
                                                  variable=KEY_VARIABLE), args.lang), file=sys.stderr)
        return EXIT_USAGE
    try:
        from ..release.layout import source_version

        out = args.output or Path(f"pi-table-{source_version(source)}.tar.gz")
        manifest = bundle.make(source, out, Path(args.key), args.commit, args.dirty, args.target, args.wheels_from)
    except ReleaseError as e:
        print("pi-table bundle: " + say(Phrase.of(e.why["template"], **e.why["fields"]), args.lang), file=sys.stderr)
        return 1
    except OSError as e:
        print(f"pi-table bundle: {e}", file=sys.stderr)
        return 1
    print(f"{out}: " + say(Phrase.of("pi-table {version} of commit {commit}, {wheels} wheels for {target}, signed",
                                     version=manifest["version"], commit=manifest["commit"][:12],
                                     wheels=len(manifest["files"]), target=manifest["target"]), args.lang))
    return 0
