"""``python -m pi_table.ui.sounds build``: make the table's sound files (see the package's docstring)."""

from __future__ import annotations

import argparse

from . import build


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m pi_table.ui.sounds",
                                     description="Synthesise the cue sounds and speak the announcements (espeak-ng).")
    parser.add_argument("command", choices=["build"])
    parser.add_argument("--tones", action="store_true", help="the synthesised cues only: no espeak-ng needed")
    args = parser.parse_args(argv)
    paths = build(tones_only=args.tones)
    total = sum(path.stat().st_size for path in paths)
    print(f"wrote {len(paths)} files, {total / 1024:.0f} KiB, in {paths[0].parent}")


if __name__ == "__main__":
    main()
