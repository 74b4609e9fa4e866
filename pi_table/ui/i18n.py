"""The screen's languages: English msgids, an Italian gettext catalogue, and the engine's words.

The screen's own strings are English msgids marked ``_("...")`` (looked up as drawn) or
``N_("...")`` (a table entry, looked up later); ``msgids_in_source`` finds both, so a test can
check that the Italian catalogue leaves none out. The engine's refusals, the table's warnings
and the devices' health come as ``Phrase``s (pi_table/engine/phrase.py): their template is the
msgid, so ``say`` translates them by meaning, never by matching the English sentence.

The catalogue is ``locale/it/LC_MESSAGES/pi_table.po``; ``python -m pi_table.ui.i18n`` compiles it
to the ``.mo`` beside it (GNU gettext's binary format, written here so no gettext tools are needed).
"""

from __future__ import annotations

import argparse
import ast
import gettext
import re
import struct
from collections.abc import Iterable
from enum import Enum
from functools import cache
from pathlib import Path
from typing import ClassVar

from ..engine.phrase import N_, Phrase, Text
from ..engine.views import LANGUAGES
from ..hal.events import HEALTHY, NOT_WORKING

DOMAIN = "pi_table"
LOCALE_DIR = Path(__file__).parent / "locale"


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalogue for ``lang``; English is the msgids themselves."""
    if lang not in LANGUAGES:
        raise ValueError(f"the screen speaks {' or '.join(LANGUAGES)}, not {lang!r}")
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang])


class TeamWord:
    """A team's name inside a sentence. Italian adjectives agree with their noun, so a
    template picks the form: ``{team}`` la squadra rossa, ``{team:m}`` l'agente rosso,
    ``{team:mp}`` gli agenti rossi. English has one form."""

    FORMS: ClassVar[dict[str, dict[str, dict[str, str]]]] = {"it": {"red": {"": "rossa", "m": "rosso", "mp": "rossi"}, "blue": {"": "blu", "m": "blu", "mp": "blu"}}}

    def __init__(self, team: str, lang: str) -> None:
        self.team = str(team)
        self.lang = lang

    def __format__(self, spec: str) -> str:
        forms = self.FORMS.get(self.lang)
        return forms[self.team][spec] if forms else self.team

    def __str__(self) -> str:
        return format(self, "")


# --- the table's sentences ------------------------------------------------------------------


def say(message: Text, lang: str) -> str:
    """A table message in ``lang``: a ``Phrase`` looked up by its template, each field in the
    same language (a team declined, a nested sentence said); a plain string is shown as it is."""
    if isinstance(message, str):
        return message
    text = translation(lang).gettext(message.template)
    if not message.fields:
        return text
    return text.format(**{name: _field(value, lang) for name, value in message.fields})


STEPS = {"place": N_("place"), "clue": N_("clue"), "guess": N_("guess"), "cover": N_("cover"),
         "messages": N_("messages"), "private": N_("private"), "discussion": N_("discussion"), "vote": N_("vote"),
         "truth": N_("truth")}
"""A game's phases and Codex's steps, by their names in the table's JSON."""

GAME_TITLES = {"codenames": N_("Codenames"), "codenames-coop": N_("Codenames, cooperative"), "alias24": N_("Alias 24"),
               "codex": N_("Codex")}
"""The games by their names in the table's JSON (``--game``), as a person reads them."""


def say_health(state: str, lang: str) -> str:
    """A device's health from the table's status in ``lang``: a healthy word ("ok", "not
    fitted"...) translated, "not working: ERROR" with its (system's) error kept as it is."""
    _ = translation(lang).gettext
    if state in HEALTHY:
        return _(state)
    if state.startswith(NOT_WORKING):
        return _(N_("not working: {error}")).format(error=state.removeprefix(NOT_WORKING))
    return state


def _field(value: object, lang: str) -> object:
    if isinstance(value, Phrase):
        return say(value, lang)
    if isinstance(value, tuple):
        return "; ".join(say(item, lang) if isinstance(item, Phrase) else str(item) for item in value)
    if isinstance(value, Enum) and value.value in ("red", "blue"):  # a team, or a Codex faction
        return TeamWord(value.value, lang)
    return value


# --- the catalogue files --------------------------------------------------------------------

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(token: str, where: str) -> str:
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise ValueError(f"{where}: expected a quoted string, found {token!r}")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), token[1:-1])


def parse_po(text: str, name: str = "catalogue") -> dict[str, str]:
    """The translated entries of a .po file (msgid -> msgstr); fuzzy and empty ones left out,
    as msgfmt leaves them out."""
    entries: dict[str, str] = {}
    msgid = msgstr = None
    current = None
    fuzzy = next_fuzzy = False

    def finish() -> None:
        if msgid is not None and msgstr and not fuzzy:
            if msgid in entries:
                raise ValueError(f"{name}: msgid {msgid!r} appears twice")
            entries[msgid] = msgstr

    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        where = f"{name}:{number}"
        if line.startswith("#,") and "fuzzy" in line:
            next_fuzzy = True
        elif not line or line.startswith("#"):
            continue
        elif line.startswith("msgid "):
            finish()
            msgid, msgstr, current = _unquote(line[6:].strip(), where), None, "msgid"
            fuzzy, next_fuzzy = next_fuzzy, False
        elif line.startswith("msgstr "):
            if msgid is None:
                raise ValueError(f"{where}: msgstr before any msgid")
            msgstr, current = _unquote(line[7:].strip(), where), "msgstr"
        elif line.startswith('"') and current == "msgid" and msgid is not None:
            msgid += _unquote(line, where)
        elif line.startswith('"') and current == "msgstr" and msgstr is not None:
            msgstr += _unquote(line, where)
        else:
            raise ValueError(f"{where}: cannot read {line!r}")
    finish()
    return entries


def compile_mo(entries: dict[str, str]) -> bytes:
    """GNU .mo bytes for these entries: the header, two tables of (length, offset) sorted by
    msgid, then the NUL-terminated strings. No hash table (readers do not need one)."""
    pairs = sorted((k.encode("utf-8"), v.encode("utf-8")) for k, v in entries.items())
    count = len(pairs)
    originals_at = 7 * 4
    translations_at = originals_at + count * 8
    strings_at = translations_at + count * 8
    tables, blob = [b"", b""], b""
    for column in (0, 1):
        for pair in pairs:
            data = pair[column]
            tables[column] += struct.pack("<2I", len(data), strings_at + len(blob))
            blob += data + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, count, originals_at, translations_at, 0, strings_at)
    return header + tables[0] + tables[1] + blob


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_po(lang: str) -> bytes:
    path = po_path(lang)
    return compile_mo(parse_po(path.read_text(encoding="utf-8"), str(path)))


REFUSALS = frozenset({"Refusal", "RuleError", "GameOver", "InvalidAction", "InvalidKey", "InvalidRules", "InvalidSetup"})
"""The engine's errors (pi_table/engine/errors.py): each is raised with its catalogue template."""


def _refusal_classes(trees: Iterable[ast.AST]) -> frozenset[str]:
    """``REFUSALS`` and every class these files derive from one of them (a word list's error,
    say): their templates are msgids too, wherever the class is defined."""
    bases = {node.name: {base.id for base in node.bases if isinstance(base, ast.Name)}
             for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    found = set(REFUSALS)
    while grown := {name for name, parents in bases.items() if name not in found and parents & found}:
        found |= grown
    return frozenset(found)


def _made_of(node: ast.Call, refusals: frozenset[str]) -> ast.expr | None:
    """The template argument of a call that makes a person's sentence, or None for another call:
    ``_``/``N_``, ``Phrase``/``Phrase.of`` and the engine's errors (``refusals``)."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else (
        f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None)
    if isinstance(func, ast.Attribute) and func.attr in ("_", "gettext"):  # painter._("..."), canvas.gettext("...")
        name = "_"
    if name in ("_", "N_", "Phrase", "Phrase.of") or name in refusals:
        return node.args[0] if node.args else None
    return None


def _templates(arg: ast.expr) -> list[str] | None:
    """The literal templates an argument can be (both sides of ``a if c else b``); None when it
    is built from pieces (an f-string, ``+``, ``.format``), which no catalogue can hold."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.IfExp):
        body, orelse = _templates(arg.body), _templates(arg.orelse)
        return None if body is None or orelse is None else body + orelse
    if isinstance(arg, (ast.JoinedStr, ast.BinOp)) or (
            isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "format"):
        return None
    return []  # a value made elsewhere (a Phrase, a table entry), checked where it was made


def msgids_in_source(paths: Iterable[Path]) -> set[str]:
    """Every msgid in these files: the literals marked ``_``/``N_``, and the templates of every
    ``Phrase`` and engine error made there."""
    return {template for _, template in _sentences(paths) if template is not None}


def unmarked_sentences(paths: Iterable[Path]) -> list[str]:
    """Where a Phrase or an engine error is built from pieces instead of a template, as
    ``file:line``: such a sentence cannot be translated."""
    return [where for where, template in _sentences(paths) if template is None]


_COMMAND_WORDS = re.compile(r"pi-table[ \w-]*:|pi-table|--[\w-]+")
"""What a command's line may show as it is: its name ("pi-table sim:") and its options."""


def unsaid_lines(paths: Iterable[Path], exempt: frozenset[str] = frozenset()) -> list[str]:
    """Where a command prints a line to a person, or refuses its options (``parser.error``), with
    English words written into it rather than said through the catalogue (``_()``, ``gettext``,
    ``say``), as ``file:line``; the functions in ``exempt`` (commands that speak no language of
    the table's, such as the benchmarks) are left out. The command's own name and its options
    may stand in the line."""
    found = []
    for path in paths:
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name in exempt:
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and _speaks(node.func) and any(_written(arg) for arg in node.args):
                    found.append(f"{path}:{node.lineno}")
    return sorted(set(found), key=lambda where: (where.rsplit(":", 1)[0], int(where.rsplit(":", 1)[1])))


def _speaks(func: ast.expr) -> bool:
    """``print(...)``, ``parser.error(...)`` and ``self.say(...)`` (the self-test's, tune's lines):
    a line for a person."""
    if isinstance(func, ast.Name):
        return func.id == "print"
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (
        (func.value.id, func.attr) in (("parser", "error"), ("self", "say")))


def _written(arg: ast.expr) -> bool:
    """Whether the literal parts of an argument hold English words (outside ``_()``, which says them)."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return bool(re.search(r"[A-Za-z]{2,}", _COMMAND_WORDS.sub("", arg.value)))
    if isinstance(arg, ast.JoinedStr):
        return any(_written(value) for value in arg.values)
    if isinstance(arg, ast.BinOp):
        return _written(arg.left) or _written(arg.right)
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "format":
        return _written(arg.func.value)  # "...".format(): the template itself is written in
    return False  # a name, a call (``_()``, ``say()``), a value made elsewhere


def _sentences(paths: Iterable[Path]) -> Iterable[tuple[str, str | None]]:
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in paths}
    refusals = _refusal_classes(trees.values())
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or (arg := _made_of(node, refusals)) is None:
                continue
            templates = _templates(arg)
            if templates is None:
                yield f"{path}:{node.lineno}", None
            else:
                yield from ((f"{path}:{node.lineno}", template) for template in templates)


def main(argv: list[str] | None = None) -> None:
    """Compile every language's .po to its .mo."""
    argparse.ArgumentParser(prog="python -m pi_table.ui.i18n",
                            description="Compile each language's messages (.po) to the .mo files gettext reads.").parse_args(argv)
    for lang in LANGUAGES[1:]:
        path = po_path(lang).with_suffix(".mo")
        path.write_bytes(compile_po(lang))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
