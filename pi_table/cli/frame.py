"""argparse's own words ("usage:", "error:", "unrecognized arguments") in the table's language.

argparse looks each of its sentences up with gettext as it says it: the command line hands it the
catalogue's words when the command (``--lang``) or the table's configuration speaks another
language than English, so an Italian reason is not framed in English."""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..engine.phrase import N_
from ..engine.views import LANGUAGES

WORDS = (
    N_("usage: "),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("ignored explicit argument %r"),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
)
"""The sentences of argparse a person meets (its programmer's errors stay English)."""


def language(argv: list[str], default_config: str) -> str:
    """The language a command line speaks: its ``--lang`` (one the table has), else its
    configuration's (``--config`` or the table's own file), else English. A file that cannot be
    read is told of by the command."""
    asked = [word.partition("=")[2] for word in argv if word.startswith("--lang=")]
    asked += [argv[index + 1] for index, word in enumerate(argv[:-1]) if word == "--lang"]
    if asked and asked[-1] in LANGUAGES:
        return asked[-1]
    named = next((argv[index + 1] for index, word in enumerate(argv[:-1]) if word == "--config"),
                 next((word.partition("=")[2] for word in argv if word.startswith("--config=")), default_config))
    try:
        game = tomllib.loads(Path(named).read_text(encoding="utf-8")).get("game", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return "en"
    return str(game.get("language", "en")) if isinstance(game, dict) else "en"


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """argparse says its words in ``lang`` (in English for a language it has not) while the command
    line is read and run, and its own English again after: a test or a tool that runs ``main`` in
    its process reads argparse as it was."""
    if lang == "en" or lang not in LANGUAGES:
        yield
        return
    from ..ui.i18n import translation

    catalogue = translation(lang)
    was = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = catalogue.gettext, catalogue.ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = was  # type: ignore[attr-defined]
