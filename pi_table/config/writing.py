"""Writing the configuration: the whole file from the settings (``check-config --defaults``), and
the text of a file with keys changed in place, which ``trial`` writes (the staff page, ``tune --write``).

Keys are changed with tomlkit, which keeps the file as its owner wrote it: comments, order,
spacing and every other key. The new text is then read back and must hold exactly the old
keys with the changes, so no editing mistake can shorten a file that would still pass the
checker; and it is checked as the daemon will check it before it replaces the old file.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from ..engine.errors import Refusal
from ..engine.phrase import Phrase
from .loading import ConfigError, parse_config, read_text
from .machine import Running
from .schema import OPTIONS, SECTIONS, describe
from .settings import Config


def to_toml(config: Config, comments: bool = True) -> str:
    """The whole configuration as a TOML file (every key, defaults included), which
    ``parse_config`` reads back to the same values."""
    document = tomlkit.document()
    document.add(tomlkit.comment(
        f"pi-table configuration{f' (from {config.source})' if config.source else ' (every key at its default)'}"))
    for section in SECTIONS:
        table = tomlkit.table()
        for option in (o for o in OPTIONS if o.section == section):
            item = tomlkit.item(config.values[option.key])
            if comments:
                item.comment(option.help)
                item.trivia.comment_ws = "  "
            table.add(option.name, item)
        document.add(tomlkit.nl())
        document.add(section, table)
    return tomlkit.dumps(document)


def writable(value: object) -> object:
    """``value`` if a key of this file can hold it (a string of Unicode text, a number, true or
    false, or a list of them); a Refusal saying what was expected otherwise (a missing value, a
    table, a lone surrogate from a page's JSON), so nothing is written that TOML cannot read."""
    if isinstance(value, list):
        for each in value:
            writable(each)
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise Refusal("expected text, found a string that is not Unicode text (a lone surrogate at "
                          "character {at})", at=next(i for i, c in enumerate(value) if 0xD800 <= ord(c) <= 0xDFFF)
                          ) from None
        return value
    if isinstance(value, bool) or (isinstance(value, int | float) and math.isfinite(value)):
        return value
    raise Refusal("expected a string, a number, true or false, or a list of them, found {found}",
                  found=describe(value))


def changed_text(path: Path, changes: Mapping[str, object], machine: bool = False, running: Running | None = None,
                 text: str | None = None) -> str:
    """``path``'s text (or ``text``, a file to be put in its place) with each ``section.key`` of
    ``changes`` set to its value, everything else in the file kept; checked as the daemon will
    check it (ConfigError; with ``machine``, against this machine too, as ``check-config``,
    beside what the ``running`` table holds). The old file's journal folder counts among the
    secret folders: a change that moves it cannot point another key at the games it kept."""
    old = text if text is not None else read_text(path) if path.exists() else ""
    try:
        expected = tomllib.loads(old)
    except tomllib.TOMLDecodeError:
        parse_config(old, path)  # raises, saying in tomllib's words what is wrong, as check-config says it
        raise
    unwritable = []
    for key, value in changes.items():
        try:
            writable(value)
        except Refusal as e:
            unwritable.append(Phrase.of("{path}: {key}: {problem}", path=str(path), key=key, problem=e.phrase))
    if unwritable:
        raise ConfigError(unwritable)
    try:
        document = tomlkit.parse(old)
        for dotted, value in changes.items():
            section, _, name = dotted.rpartition(".")
            if section not in document:
                document[section] = tomlkit.table()
            document[section][name] = value
            expected.setdefault(section, {})[name] = value
    except (TOMLKitError, TypeError, AttributeError, RecursionError):  # a section that is no table
        raise _by_hand(path, changes) from None
    new = tomlkit.dumps(document)
    try:
        kept = tomllib.loads(new)
    except tomllib.TOMLDecodeError:  # tomlkit wrote what TOML cannot read (older releases: a table after its own sub-table)
        raise _by_hand(path, changes) from None
    if kept != expected:  # tomlkit's own mistake: refuse rather than lose a key
        raise _by_hand(path, changes)
    secret_dirs = (*(running.secret_dirs if running else ()), *_journal_dir(old, path))
    parse_config(new, path, machine, Running(secret_dirs, running.listening if running else None))
    return new


def _by_hand(path: Path, changes: Mapping[str, object]) -> ConfigError:
    return ConfigError([Phrase.of("{path}: the file could not be changed without changing other keys: change "
                                  "{keys} by hand", path=str(path), keys=", ".join(changes))])


def _journal_dir(text: str, path: Path) -> tuple[str, ...]:
    """The journal folder the file names now, if it can be read: where its table keeps secrets."""
    try:
        return (str(parse_config(text, path).paths.journal_dir),)
    except ConfigError:
        return ()

