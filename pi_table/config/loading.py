"""Reading a configuration file: every key's type checked, then the settings built; when building
fails, each key the file sets is tried alone on top of the defaults to name the key at fault, then
the others two at a time to name a mistake only two keys make together. With ``machine``, what
cannot work on this machine too (``machine.check_machine``). Every problem found is reported at
once, with the file, the key, what was expected and what was found.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..engine.errors import Refusal
from ..engine.phrase import Phrase, Text, meaning
from ..engine.views import LANGUAGES
from ..errors import PiTableError
from ..files import NotAFile, TooBig, read_file
from ..kinds import AUTO, Address, Folder, OwnFile, SecretFile, SerialDevice, Url
from ..ui.i18n import say
from .machine import FILES_READ, PRIVATE_KEYS, Running, check_machine
from .schema import BY_KEY, DEFAULT_PATH, EXPECTED, MAX_BYTES, OPTIONS, SECTIONS, Option, defaults, describe
from .settings import Config, build, config_relative, deck_path, is_whole, is_wholes


class ConfigError(PiTableError, ValueError):
    """What is wrong with a configuration: one sentence per problem, each naming the file and
    key; ``problems`` in English (logs, tests), ``said()`` in the file's own [game] language
    (when it names one it can be read in) or the one asked, as ``check-config`` and the staff
    page show them."""

    def __init__(self, phrases: list[Phrase], lang: str = "en") -> None:
        self.phrases = phrases
        self.lang = lang
        self.problems = [str(phrase) for phrase in phrases]
        super().__init__("\n".join(self.problems))

    def said(self, lang: str | None = None) -> list[str]:
        return [say(phrase, lang or self.lang) for phrase in self.phrases]


def load_config(path: Path | None = None, machine: bool = False, running: Running | None = None) -> Config:
    """The configuration in ``path``; with None, ``DEFAULT_PATH`` if it exists, else every
    default. Raises ConfigError listing every problem found; with ``machine``, the values that
    cannot work on this machine too (``check_machine``), as ``check-config`` and ``run`` ask.
    Every default without a file is a developer's table, not checked: its folders and group
    are the Pi's, and the daemon plays on without them, keeping the game in memory."""
    if path is None:
        if not DEFAULT_PATH.exists():
            return build(defaults(), None)
        path = DEFAULT_PATH
    return parse_config(read_text(path), path, machine, running)


def read_text(path: Path) -> str:
    """A configuration file's text; ConfigError naming the file and why it cannot be one."""
    try:
        return read_file(path, MAX_BYTES).decode("utf-8")
    except TooBig as e:
        raise ConfigError([Phrase.of("{path}: {size} bytes is too big for a configuration (at most {most})",
                                     path=str(path), size=e.size, most=MAX_BYTES)]) from None
    except FileNotFoundError:
        raise ConfigError([Phrase.of("{path}: no such file (expected a TOML configuration; {default} by default)",
                                     path=str(path), default=str(DEFAULT_PATH))]) from None
    except NotAFile:
        raise ConfigError([Phrase.of("{path}: is not a regular file (a folder, a device or a pipe), expected a TOML file", path=str(path))]) from None
    except OSError as e:
        raise ConfigError([Phrase.of("{path}: cannot be read: {error}", path=str(path),
                                     error=e.strerror or str(e))]) from None
    except UnicodeDecodeError as e:
        raise ConfigError([Phrase.of("{path}: not UTF-8 text (byte {byte}): expected a TOML file", path=str(path),
                                     byte=e.start)]) from None


def parse_config(text: str, path: Path, machine: bool = False, running: Running | None = None) -> Config:
    """The configuration in ``text``, read from ``path`` (relative paths in it are taken
    from the file's folder); with ``machine``, checked against this machine as well. ``running``
    is what the table running now holds (its secret folders, its port), when it checks a change."""
    where = str(path)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:  # tomllib's own words (and line) follow, in English
        raise ConfigError([Phrase.of("{path}: not valid TOML: {error}", path=where, error=str(e))]) from None
    except RecursionError:
        raise ConfigError([Phrase.of("{path}: nested too deeply to be a configuration", path=where)]) from None
    problems: list[Phrase] = []
    given: dict[str, object] = {}
    unread: set[str] = set()  # keys of the right section whose value is of the wrong kind
    for section, table in document.items():
        if section not in SECTIONS:
            problems.append(Phrase.of("{path}: unknown section [{section}]{hint}: expected one of {sections}",
                                      path=where, section=section, hint=_did_you_mean(section, SECTIONS),
                                      sections=", ".join(SECTIONS)))
            continue
        if not isinstance(table, dict):
            problems.append(Phrase.of("{path}: {section} is a section ([{section}]), found {found}", path=where,
                                      section=section, found=describe(table)))
            continue
        for name, raw in table.items():
            key = f"{section}.{name}"
            option = BY_KEY.get(key)
            if option is None:
                names = [o.name for o in OPTIONS if o.section == section]
                problems.append(Phrase.of("{path}: unknown key {key}{hint}: [{section}] has {names}", path=where,
                                          key=key, hint=_did_you_mean(name, names), section=section,
                                          names=", ".join(names)))
                continue
            try:
                given[key] = _read_value(option, raw, path.parent)
            except Refusal as e:
                problems.append(_at_key(where, key, e.phrase))
                unread.add(key)
    for key, problem in _secret_readers(given, path, running.secret_dirs if running else ()):
        problems.append(_at_key(where, key, problem))
        unread.add(key)
        del given[key]
    try:
        config = build(defaults() | given, path)
    except ValueError:
        problems += _blame(given, path)
    if machine:  # a key read wrong is not checked on its default in its place
        problems += [_at_key(where, key, problem) for key, problem in check_machine(defaults() | given, running)
                     if key not in unread]
    if problems:
        raise ConfigError(problems, _language_of(document))
    return config


def _at_key(path: str, key: str, problem: Text) -> Phrase:
    return Phrase.of("{path}: {key}: {problem}", path=path, key=key, problem=problem)


def _language_of(document: dict[str, Any]) -> str:
    """The language a file asks its table to speak, when it names one the table speaks."""
    game = document.get("game")
    language = game.get("language") if isinstance(game, dict) else None
    return language if isinstance(language, str) and language in LANGUAGES else "en"


def _read_value(option: Option, raw: object, base: Path) -> object:
    """The value of one key as the builders take it; ValueError saying what was expected."""
    kind = option.kind
    found = describe(raw)
    if kind == "bool":
        ok = isinstance(raw, bool)
    elif kind == "int":
        ok = is_whole(raw)
    elif kind == "number":
        ok = (is_whole(raw) or isinstance(raw, float)) and math.isfinite(raw)
    elif kind == "pin":
        ok = raw is False or is_whole(raw)
    elif kind == "int_list":
        ok = is_wholes(raw)
    elif kind == "int_lists":
        ok = isinstance(raw, list) and all(is_wholes(row) for row in raw)
    elif kind == "str_list":
        ok = isinstance(raw, list) and all(isinstance(item, str) and "\0" not in item for item in raw)
    else:  # str, path, usb_id and the kinds that name something
        ok = isinstance(raw, str) and "\0" not in raw
    expected = Phrase(EXPECTED[kind])
    if not ok:
        raise Refusal("expected {expected}, found {found}", expected=expected, found=found)
    if kind in NAMED:
        try:
            return NAMED[kind](str(raw), str(base))
        except Refusal as e:  # a broker's URL is shown without its password, as every message shows it
            shown = describe(_without_user(str(raw))) if kind == "broker" else found
            raise Refusal("expected {expected}, found {found}", expected=e.expected, found=shown) from None
    if kind == "usb_id":
        vendor, _, product = str(raw).partition(":")
        try:
            usb_id = (int(vendor, 16), int(product, 16))
        except ValueError:
            raise Refusal("expected {expected}, such as '239A:80F4', found {found}", expected=expected,
                          found=found) from None
        if not all(0 <= n <= 0xFFFF for n in usb_id) or len(vendor) > 4 or len(product) > 4:
            raise Refusal("expected {expected}, four hex digits each, found {found}", expected=expected, found=found)
    return raw


GROUP_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")  # as useradd and groupadd take them (Debian's NAME_REGEX)


def _without_user(url: str) -> str:
    """A broker's URL as a refusal may repeat it: nothing of what comes before its host's ``@``
    (a user and a password), whatever else is wrong with it."""
    scheme, colon, rest = url.partition("://")
    return f"{scheme}{colon}...@{rest.rpartition('@')[2]}" if "@" in rest else url


def _device(text: str, base: str) -> str:
    try:
        return text if text == AUTO else SerialDevice.parse(text).path
    except Refusal as e:
        raise Refusal("'auto' or {expected}", expected=e.expected, given=text) from None


def _file(text: str, base: str) -> str:
    return text and OwnFile.parse(text, base).path


def _secret(text: str, base: str) -> str:
    return text and SecretFile.parse(text, base).path


def _deck(text: str, base: str) -> str:
    from ..ui.words import LISTS  # a table with no simulated words does without the module

    return text if text in LISTS else _file(text, base)


def _group(text: str, base: str) -> str:
    if text and not GROUP_NAME.fullmatch(text):
        raise Refusal("a group's name: lower-case letters, digits, '_' and '-', starting with a letter or '_', "
                      "at most 32", given=text[:80])
    return text


NAMED: dict[str, Callable[[str, str], str]] = {
    "device": _device, "file": _file, "secret": _secret, "deck": _deck, "group": _group,
    "path": lambda text, base: Folder.parse(text, base).path,
    "machine": lambda text, base: text and Folder.parse(text, base).path,
    "address": lambda text, base: str(Address.parse(text)) and text,
    "url": lambda text, base: text and Url.parse(text, ("http", "https")).text,
    "broker": lambda text, base: text and Url.parse(text, ("mqtt", "mqtts"), users=True).text,
}
"""How each kind that names something (``schema.NAMING``) is parsed into its kind (``pi_table.kinds``)
from the text a file or the staff page gives, relative to the configuration's folder: the
value as the settings keep it, or a Refusal saying what was expected."""


def _did_you_mean(word: str, choices: Iterable[str]) -> Text:
    import difflib  # only for a file with a mistake: a start on a good one does without it

    close = difflib.get_close_matches(word, list(choices), n=1)
    return Phrase.of(" (did you mean {word}?)", word=close[0]) if close else ""


def _blame(given: dict[str, object], path: Path) -> list[Phrase]:
    """Name every mistake: each key alone on the defaults, then the rest two at a time (a
    warning longer than the timer), then whatever is left together; the builders' own
    messages say expected and found."""
    where = str(path)
    problems: list[Phrase] = []
    blamed = set()
    for key, value in given.items():
        error = _fails(defaults() | {key: value}, path)
        if error:
            problems.append(_at_key(where, key, error))
            blamed.add(key)
    rest = {key: value for key, value in given.items() if key not in blamed}
    if not _fails(defaults() | rest, path):
        return problems
    for (key, value), (other, other_value) in itertools.combinations(rest.items(), 2):
        if key in blamed or other in blamed:
            continue
        error = _fails(defaults() | {key: value, other: other_value}, path)
        if error:
            problems.append(Phrase.of("{path}: {key} and {other} together: {problem}", path=where, key=key,
                                      other=other, problem=error))
            blamed |= {key, other}
    rest = {key: value for key, value in rest.items() if key not in blamed}
    error = _fails(defaults() | rest, path)
    if error:
        problems.append(Phrase.of("{path}: {keys} together: {problem}", path=where, keys=", ".join(rest),
                                  problem=error))
    return problems


def _fails(values: dict[str, object], path: Path) -> Text | None:
    """What building refuses: a Refusal's phrase; any other ValueError's English as it is."""
    try:
        build(values, path)
    except ValueError as e:
        return meaning(e)
    return None


OUTSIDE_SECRETS = (*FILES_READ, "sim.words", "night.blocked_words")
"""The keys naming a file the table reads into something it sends or shows: a broker's
password, a certificate, words on the cards, words a team name is refused for (which a team
could learn by trying names)."""
RELATIVE = {"sim.words": deck_path, "night.blocked_words": config_relative}
"""The keys whose relative file names are taken from the configuration's folder, and how."""
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")
"""The kernel's own files: no setting's file is one of them."""
SHOWN = ("fleet.password_file", "sim.words", "night.blocked_words")
"""The keys whose file's words leave the table: to a broker as its password, onto the cards."""


def _secret_readers(given: dict[str, object], path: Path, secret_dirs: tuple[str, ...]) -> list[tuple[str, Phrase]]:
    """``OUTSIDE_SECRETS`` given a file in a folder where a table keeps the games' keys, the
    seats' secret and the staff PIN (the journal folder this file names, and ``secret_dirs``:
    the running table's, the one the file named before), and ``SHOWN`` given a private key
    another key names: no setting (the staff page edits them) may turn those into words someone
    sees. Checked before anything reads the files, symbolic links followed."""
    values = defaults() | given
    folders = dict.fromkeys(os.path.realpath(folder) for folder in (str(values["paths.journal_dir"]), *secret_dirs))
    private = {os.path.realpath(str(values[key])): key for key in PRIVATE_KEYS if values[key]}
    found = []
    for key in OUTSIDE_SECRETS:
        file = given.get(key)
        if not isinstance(file, str) or not file:
            continue
        name = key.partition(".")[2]
        file = RELATIVE[key](file, path) if key in RELATIVE else file
        real = os.path.realpath(file)
        folder = next((folder for folder in folders if os.path.commonpath([folder, real]) == folder), None)
        system = next((folder for folder in SYSTEM_FOLDERS if os.path.commonpath([folder, real]) == folder), None)
        if system is not None:
            found.append((key, Phrase.of(
                "{name} names {file}, in {folder}, where the system keeps its own files (a process's memory and "
                "environment, devices): name a file on the disk", name=name, file=file, folder=system)))
        elif folder is not None:
            found.append((key, Phrase.of(
                "{name} names {file}, in the journal folder {folder}, where the table keeps its secrets (the "
                "games' keys, the staff PIN): name a file outside it", name=name, file=file, folder=folder)))
        elif key in SHOWN and real in private:
            found.append((key, Phrase.of(
                "{name} names {file}, the private key of {other}: a private key is never sent or shown; name "
                "another file", name=name, file=file, other=private[real])))
        elif key in SHOWN and _holds_private_key(real):
            found.append((key, Phrase.of(
                "{name} names {file}, which holds a private key: a private key is never sent or shown; name "
                "another file", name=name, file=file)))
    return found


SHOWN_MOST = 1024 * 1024  # the longest of the files SHOWN keys name (a deck); a longer one is refused as it is read


def _holds_private_key(path: str) -> bool:
    """Whether the file ``path`` holds a PEM private key (the table's TLS key, a copy of it): what
    a key whose file's words leave the table must never name, whatever else names it. A file
    that cannot be read here is the machine check's to refuse."""
    try:
        return b"PRIVATE KEY-----" in read_file(path, SHOWN_MOST)
    except (OSError, ValueError):  # missing, unreadable, not a file, too big
        return False
