"""What every command shares in how it ends and speaks: its exit statuses, an error said in the
user's language, and lines flushed as they are written."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import IO, TypeAlias

EXIT_USAGE = 2
EXIT_CONFIG = 78  # EX_CONFIG: systemd and people both read it as "fix the configuration"
EXIT_UNAVAILABLE = 69  # EX_UNAVAILABLE: no table is running
EXIT_NOPERM = 77  # EX_NOPERM: a table runs, but this user is not in the group that may use its socket
EXIT_PIPE = 141  # 128 + SIGPIPE: the reader went away (| head), as the shell's own tools end then
Handler: TypeAlias = Callable[[argparse.ArgumentParser, argparse.Namespace], int]
"""What a command runs (``set_defaults(func=...)``): its parser, its arguments, and its exit status back."""


def said(error: Exception, lang: str) -> str:
    """An error in ``lang``: a refusal's (or the control socket's) sentence said from its meaning,
    any other error in its own words (the system's, a library's)."""
    from ..engine.phrase import meaning
    from ..ui.i18n import say

    return say(meaning(error), lang)


def flushed(stream: IO[str]) -> Callable[[str], None]:
    """A write function that flushes, so a person or a pipe sees each screen at once."""

    def write(text: str) -> None:
        stream.write(text)
        stream.flush()

    return write
