"""The catalogues' making, in a checkout: the messages the sources mark, the checks on them, and
the ``.po`` files made with Babel (the table only reads the ``.mo`` that every build compiles from
them, build_backend/: pi_table.ui.i18n).

``python -m pi_table.ui.messages`` extracts the template ``locale/pi_table.pot`` from the sources
as babel.cfg says (``extract_sentences`` reads the Python files, ``pi_table.web.texts.extract_page``
the phone page), merges it into each language's ``locale/LANG/LC_MESSAGES/pi_table.po`` and
compiles that to the ``.mo`` beside it. ``msgids_in_source``, ``unmarked_sentences`` and
``unsaid_lines`` read the sources the same way for the tests that keep the catalogues whole.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import io
import re
import tomllib
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

from ..engine.views import LANGUAGES
from ..errors import PiTableError
from .i18n import DOMAIN, LOCALE_DIR

TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
CHECKOUT = Path(__file__).parents[2]
"""Where babel.cfg is, beside pyproject.toml: the catalogues are built in a checkout."""


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


class CatalogueError(PiTableError, ValueError):
    """A catalogue that Babel cannot read: its file's name and Babel's words for where."""


def parse_po(text: str, name: str = "catalogue") -> dict[str, str]:
    """The translated entries of a .po file as Babel reads them, by the English form each
    translates: a plural entry gives its msgid its first form and its msgid_plural its second
    (English and Italian both have two). Fuzzy and empty ones are left out, as the .mo leaves them."""
    from babel.messages.pofile import PoFileError, read_po

    try:
        catalog = read_po(io.StringIO(text), abort_invalid=True)
    except PoFileError as error:
        raise CatalogueError(f"{name}: {error}") from error
    entries: dict[str, str] = {}
    for message in catalog:
        if message.fuzzy and message.id:
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else (message.id,)
        strings = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        entries.update((msgid, msgstr) for msgid, msgstr in zip(ids, strings) if msgstr)
    return entries


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


def _made_of(node: ast.Call, refusals: frozenset[str]) -> list[ast.expr] | None:
    """The template arguments of a call that makes a person's sentence (two for a plural: the
    English singular and plural), or None for another call: ``_``/``N_``, ``Phrase``/``Phrase.of``
    and the engine's errors (``refusals``); ``Phrase.counting`` and ``ngettext`` for a count."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else (
        f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None)
    if isinstance(func, ast.Attribute) and func.attr in ("_", "gettext", "ngettext"):  # painter._("..."), canvas.gettext("...")
        name = func.attr if func.attr == "ngettext" else "_"
    if name in ("_", "N_", "Phrase", "Phrase.of") or name in refusals:
        return node.args[:1] or None
    if name == "ngettext":
        return node.args[:2] if len(node.args) >= 2 else None
    if name == "Phrase.counting":
        return node.args[1:3] if len(node.args) >= 3 else None
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


Message: TypeAlias = str | tuple[str, str]
"""A msgid, or a plural's English singular and plural (msgid, msgid_plural)."""


def msgids_in_source(paths: Iterable[Path]) -> set[str]:
    """Every msgid in these files: the literals marked ``_``/``N_``, and the templates of every
    ``Phrase`` and engine error made there (a plural's singular and plural both)."""
    return {msgid for _, _, message in _sentences(paths) if message is not None
            for msgid in ((message,) if isinstance(message, str) else message)}


def unmarked_sentences(paths: Iterable[Path]) -> list[str]:
    """Where a Phrase or an engine error is built from pieces instead of a template, as
    ``file:line``: such a sentence cannot be translated."""
    return [f"{path}:{line}" for path, line, message in _sentences(paths) if message is None]


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


def _sentences(paths: Iterable[Path]) -> Iterator[tuple[Path, int, Message | None]]:
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in paths}
    refusals = _refusal_classes(trees.values())
    for path, tree in trees.items():
        yield from ((path, line, message) for line, message in _messages(tree, refusals))


def _messages(tree: ast.AST, refusals: frozenset[str]) -> Iterator[tuple[int, Message | None]]:
    """Each sentence made in ``tree`` by line, in the order of the file; None where one is
    built from pieces (a plural's two forms must each be one literal)."""
    found: list[tuple[int, int, Message | None]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or (args := _made_of(node, refusals)) is None:
            continue
        at = (node.lineno, node.col_offset)
        forms = [_templates(arg) for arg in args]
        if len(forms) == 1:
            templates: list[Message | None] = [None] if forms[0] is None else list(forms[0])
            found.extend((*at, template) for template in templates)
        elif forms != [[], []]:  # both made elsewhere (the translator's own call): no msgid here
            singular, plural = forms
            found.append((*at, (singular[0], plural[0]) if singular and plural and len(singular) == len(plural) == 1
                          else None))
    for line, _, message in sorted(found, key=lambda item: item[:2]):
        yield line, message


@cache
def _package_refusals() -> frozenset[str]:
    package = Path(__file__).parents[1]
    return _refusal_classes([ast.parse(path.read_text(encoding="utf-8")) for path in sorted(package.rglob("*.py"))])


def extract_sentences(fileobj: IO[bytes], keywords: object, comment_tags: object,
                      options: object) -> Iterator[tuple[int, str, Message, list[str]]]:
    """Babel's extraction method for pi_table's Python files (babel.cfg): every msgid
    ``msgids_in_source`` finds, by line, a plural as ngettext's two forms. A sentence built from
    pieces is left out here; tests/test_i18n_coverage.py names it."""
    tree = ast.parse(fileobj.read().decode("utf-8"))
    for line, message in _messages(tree, _package_refusals() | _refusal_classes([tree])):
        if message is not None:
            yield line, "gettext" if isinstance(message, str) else "ngettext", message, []


def template() -> Catalog:
    """The messages the sources mark, extracted as babel.cfg says: what ``pybabel extract -F
    babel.cfg --add-location=file pi_table`` finds, run in the checkout."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir
    from babel.messages.frontend import parse_mapping_cfg

    with open(CHECKOUT / "babel.cfg", encoding="utf-8") as mapping:
        method_map, options_map = parse_mapping_cfg(mapping)  # type: ignore[no-untyped-call]  # Babel's is untyped
    with open(CHECKOUT / "pyproject.toml", "rb") as project:
        version = tomllib.load(project)["project"]["version"]
    catalog = Catalog(project="pi-table", version=version, header_comment=HEADER, fuzzy=False,
                      msgid_bugs_address=WHO)
    for filename, line, message, comments, context in extract_from_dir(CHECKOUT / "pi_table", method_map, options_map):
        catalog.add(message, None, [(f"pi_table/{filename}", line)], auto_comments=comments, context=context)
    return catalog


WHO = "the pi-table project's issues"
"""Where a wrong or missing translation is reported, and who translates (Babel's header fields)."""

HEADER = """\
# The messages of pi-table, extracted from its sources by python -m pi_table.ui.messages (babel.cfg
# says how); do not edit: translate in each locale/LANG/LC_MESSAGES/pi_table.po."""


def rendered(catalog: Catalog) -> bytes:
    """``catalog`` as a .po (or .pot) file: each message on one line, in the order of its English
    and where it is said by file (not by line), with no date in its head. So two branches that add
    different sentences change different lines and merge cleanly, and moving code or making the
    catalogue again on another day changes nothing (issue 77)."""
    from babel.messages.pofile import write_po

    file = io.BytesIO()
    write_po(file, catalog, width=0, include_lineno=False, include_previous=True, sort_output=True)
    return b"".join(line for line in file.getvalue().splitlines(keepends=True) if not line.startswith(UNDATED))


UNDATED = (b'"POT-Creation-Date: ', b'"PO-Revision-Date: ')
"""The head's lines Babel dates with the day the file was written: left out of every catalogue."""


def read_catalogue(path: Path, lang: str | None = None) -> Catalog:
    from babel.messages.pofile import read_po

    with open(path, "rb") as file:
        return read_po(file, locale=lang, abort_invalid=True)


def merge(catalog: Catalog, made: Catalog) -> None:
    """Bring a language's ``catalog`` to the template ``made``: its entries in the template's order,
    each keeping its translation where its English is unchanged, and none guessed. Babel's fuzzy
    matching would give a new sentence the translation of a near one ("Clock" became "blocca"), and
    a singular turned plural keeps half a translation: such an entry comes back untranslated
    instead, for tests/test_i18n_catalogue.py to name. A sentence no code says any more is dropped."""
    catalog.update(made, no_fuzzy_matching=True)
    for message in catalog:
        if message.id and message.fuzzy:
            message.flags.discard("fuzzy")
            message.string = ("",) * len(message.id) if isinstance(message.id, (list, tuple)) else ""
    catalog.obsolete.clear()


def untranslated(catalog: Catalog) -> list[str]:
    """The English of each entry without its whole translation, in the catalogue's order: one
    marked fuzzy, one with an empty msgstr, a plural without every form its language counts."""
    found = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        forms = catalog.num_plurals if isinstance(message.id, (list, tuple)) else 1
        if message.fuzzy or len(strings) != forms or not all(strings):
            found.append(message.id if isinstance(message.id, str) else message.id[0])
    return found


def main(argv: list[str] | None = None) -> None:
    """Extract the template, merge it into every language's .po and compile each to its .mo."""
    argparse.ArgumentParser(
        prog="python -m pi_table.ui.messages",
        description="Extract the messages (locale/pi_table.pot), merge them into each language's .po and compile the "
                    ".mo files gettext reads (as every build does: build_backend/). Needs Babel (the test "
                    "extra).").parse_args(argv)
    made = template()
    if not TEMPLATE.exists() or rendered(made) != TEMPLATE.read_bytes():
        TEMPLATE.write_bytes(rendered(made))
        print(f"wrote {TEMPLATE}")
    for lang in LANGUAGES[1:]:
        path = po_path(lang)
        catalog = read_catalogue(path, lang)  # read just before writing: another hand may have appended to it
        merge(catalog, made)
        catalog.last_translator, catalog.msgid_bugs_address = WHO, WHO
        catalog.language_team = f"{lang}: {WHO}"
        path.write_bytes(rendered(catalog))
        print(f"wrote {path}")
        for english in untranslated(catalog):
            print(f"  {lang} needs its translation, by hand: {english!r}")
    for compiled in _catalogues().compile_catalogues(LOCALE_DIR):
        print(f"wrote {compiled}")


def _catalogues() -> ModuleType:
    """The build backend's ``pi_table_catalogues``, which compiles the .mo at every build: the same
    function here, loaded from the checkout (it is no part of the installed package)."""
    path = CHECKOUT / "build_backend" / "pi_table_catalogues.py"
    spec = importlib.util.spec_from_file_location("pi_table_catalogues", path)
    assert spec is not None and spec.loader is not None, path  # a file's spec always has its loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
