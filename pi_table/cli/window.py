"""The simulators' screen for a group at one computer, every kind of game alike: the window where
one can open, else the terminal, which says why it took over."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from .output import said

if TYPE_CHECKING:
    from ..sim.terminal import Painter
    from ..ui.mounting import ScreenSettings


def painter_of(args: argparse.Namespace) -> Painter:
    """The terminal's painter in ``--lang``, in colour as ``--color`` asks (auto: on a terminal, without NO_COLOR)."""
    from ..sim.terminal import Painter

    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    return Painter(color, args.lang)


def in_a_window(parser: argparse.ArgumentParser, args: argparse.Namespace, painter: Painter,
                run: Callable[[Callable[..., None], ScreenSettings], object]) -> bool:
    """``run(run_window, screen settings)`` plays the game in the window to its end (``run_window``:
    ``sim.window``'s, imported here, so only when a window may open, which ``run`` calls): True once it
    has; False when no window can open (no pygame, no display), said on stderr, for the terminal
    to take over. A bad ``--rotation`` is a usage error."""
    try:
        from ..sim.window import NoDisplay, run_window
        from ..ui.mounting import ScreenSettings

        run(run_window, ScreenSettings(args.rotation))
        return True
    except ImportError as e:
        reason = painter._("pygame is not installed ({error}); install pi-table[screen]").format(error=e)
    except NoDisplay as e:
        reason = painter._(str(e))
    except ValueError as e:
        parser.error(f"--rotation: {said(e, args.lang)}")
    print(painter._("pi-table sim: no window ({reason}): the terminal simulator instead").format(reason=reason),
          file=sys.stderr, flush=True)
    return False
