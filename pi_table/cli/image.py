"""``pi-table image``: the SD image of a signed bundle on Raspberry Pi OS Lite, which an owner
flashes with Raspberry Pi Imager; ``pi-table pi-wheels``: the Pi's wheels the package index lacks,
built in that base under emulation (docs/dev/image.md). Root's, as they attach loop devices and
mount: each runs in a mount namespace of its own, so whatever it mounted goes when it ends."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .output import EXIT_USAGE

if TYPE_CHECKING:
    from ..image.imager import Entry

NAMESPACE = "PI_TABLE_IMAGE_NAMESPACE"


def _base(command: argparse.ArgumentParser) -> None:
    command.add_argument("--base", type=Path, required=True,
                         help="the Raspberry Pi OS Lite (64-bit, Bookworm) image file, .img or .img.xz, as downloaded")
    command.add_argument("--sha256", required=True, help="the base image file's SHA-256, as its publisher gives it "
                                                         "(a base that does not match is refused)")
    command.add_argument("--source", type=Path,
                         help="the checkout (default: the one this pi-table runs from)")
    command.add_argument("--lang", choices=("en", "it"), default="en", help="the messages' language (default: en)")


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    image = commands.add_parser("image", help="make the SD image of a signed bundle on Raspberry Pi OS Lite, for "
                                              "Raspberry Pi Imager (as root)")
    _base(image)
    image.add_argument("--bundle", type=Path, required=True, help="the signed release bundle (pi-table bundle --for pi)")
    image.add_argument("-o", "--output", type=Path, required=True,
                       help="the image: NAME.img.xz (or .img.gz, .img.zst); NAME.img.xz.sha256, NAME.json (the OS "
                            "list for Raspberry Pi Imager) and NAME.svg (its icon) are written beside it")
    image.add_argument("--accept", type=Path, action="append", default=[], metavar="KEY.pub",
                       help="a public key whose releases the table accepts, besides the checkout's release-keys/ "
                            "(named by its file: maker.pub is 'maker'); the bundle's must be among them")
    image.add_argument("--url", help="where the image will be downloaded from, for the OS list (default: the "
                                     "output's file:// address)")
    image.add_argument("--icon", help="the OS list's icon address (default: the NAME.svg written beside it)")
    image.add_argument("--wifi-country", default="", metavar="CC",
                       help="the Wi-Fi's country (IT, GB...) the radio's channels follow, unless Imager's settings give one")
    image.add_argument("--room-mb", type=int, default=1024,
                       help="megabytes added to the base's root for what is installed (default: 1024)")
    image.add_argument("--cache", type=Path, help="a folder that keeps the base with its system packages installed, "
                                                  "for the next image of the same base and installer (minutes each)")
    image.set_defaults(func=_image)

    wheels = commands.add_parser("pi-wheels", help="build in the base image, under emulation, the Pi's wheels of "
                                                   "the locked dependencies, for pi-table bundle --wheels-from (as root)")
    _base(wheels)
    wheels.add_argument("-o", "--output", type=Path, required=True, help="the folder the wheels are written to")
    wheels.set_defaults(func=_wheels)


def _in_a_namespace() -> None:
    """Run this command again in a mount namespace of its own (once), where unshare(1) is found."""
    unshare = shutil.which("unshare")
    if os.environ.get(NAMESPACE) or unshare is None or os.geteuid() != 0:
        return
    os.environ[NAMESPACE] = "1"
    os.execv(unshare, [unshare, "--mount", "--propagation", "private", sys.executable, "-m", "pi_table",
                       *sys.argv[1:]])


def _source(args: argparse.Namespace, lang: str) -> Path | None:
    from ..engine.phrase import Phrase
    from ..ui.i18n import say

    source = (args.source or Path(__file__).resolve().parents[2]).resolve()
    if (source / "pyproject.toml").is_file():
        return source
    print(f"pi-table {args.command}: " + say(Phrase.of("{source} is no checkout (no pyproject.toml): give the "
                                                        "checkout with --source", source=str(source)), lang),
          file=sys.stderr)
    return None


def _image(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    source = _source(args, args.lang)
    if source is None:
        return EXIT_USAGE
    _in_a_namespace()
    from ..image import build

    return _said(args, lambda: build(args.base, args.sha256, args.bundle, args.output, source, tuple(args.accept),
                                     args.room_mb * 2**20, args.url, args.icon, args.wifi_country,
                                     args.cache))


def _wheels(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    source = _source(args, args.lang)
    if source is None:
        return EXIT_USAGE
    _in_a_namespace()
    from ..image import wheels

    return _said(args, lambda: wheels(args.base, args.sha256, source, args.output))


def _said(args: argparse.Namespace, act: Callable[[], Entry | list[str]]) -> int:
    """``act`` done, and what it made printed (an image's entry in Imager's list, or the wheels built);
    a refusal said in the chosen language."""
    from ..engine.phrase import Phrase
    from ..image import ImageError
    from ..release import ReleaseError
    from ..ui.i18n import say

    try:
        made = act()
    except (ImageError, ReleaseError) as e:
        print(f"pi-table {args.command}: " + say(Phrase.of(e.why["template"], **e.why["fields"]), args.lang),
              file=sys.stderr)
        return 1
    except OSError as e:
        print(f"pi-table {args.command}: {e}", file=sys.stderr)
        return 1
    if not isinstance(made, list):
        print(f"{args.output}: " + say(Phrase.of("{name}, {size} MB written to the card; Raspberry Pi Imager's list "
                                                 "in {listing}", name=made["name"], size=made["extract_size"] // 2**20,
                                                 listing=str(args.output.with_name(
                                                     args.output.name.split(".img")[0] + ".json"))), args.lang))
    else:
        print(say(Phrase.of("{count} wheels for the Pi in {folder}", count=len(made), folder=str(args.output)),
                  args.lang))
    return 0
