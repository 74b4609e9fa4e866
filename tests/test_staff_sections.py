"""The staff page's sections (issue 52, 6): a section is one module, its routes with their roles,
its words and its script, registered by one line as a game is (``web.sections.SECTIONS``); the
page's scripts import ``staff.js`` alone, never each other in a circle; and each section takes of
the table only its own part (docs/dev/adding-a-staff-section.md)."""

from __future__ import annotations

import ast
import re
import types
import typing
import urllib.request
from pathlib import Path
from typing import Protocol

from aiohttp import web

from pi_table.daemon import staff_parts
from pi_table.daemon.staff_desk import FakeDesk
from pi_table.engine.phrase import N_
from pi_table.web import sections
from pi_table.web.roles import OWNER, Route, owner, staff
from pi_table.web.staff import Section, StaffPage
from pi_table.web.staff_table import Desk

from helpers import parsed
from helpers_games import dealt_key
from helpers_staff import Staff, staff_page
from helpers_tables import StaffTable

STATIC = Path(sections.__file__).resolve().parent.parent / "static"
PACKAGE = Path(sections.__file__).resolve().parent.parent.parent
IMPORT = re.compile(r"""^\s*import\s[^;]*?\sfrom\s+["']\./([\w-]+\.js)["']""", re.MULTILINE | re.DOTALL)
"""A module's import of another of the page's scripts: ``import { a, b } from "./staff.js";``."""


def imports(script: str) -> set[str]:
    """The page's scripts ``script`` imports."""
    return set(IMPORT.findall(script))


def test_the_reading_of_imports_finds_them_however_they_are_written():
    text = 'import { $, api,\n  t } from "./staff.js";\nimport {x} from \'./owner.js\';\n// from "./not.js"\n'
    assert imports(text) == {"staff.js", "owner.js"}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports in ``graph`` (each script's imports), as the scripts along it; None when there is none."""
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> list[str] | None:
        state[name] = "open"
        for other in sorted(graph.get(name, ())):
            if state.get(other) == "open":
                return [*path[path.index(other):], other] if other in path else [name, other]
            if other not in state and (found := visit(other, [*path, other])) is not None:
                return found
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name, [name])) is not None:
            return found
    return None


def test_the_cycle_finder_finds_the_circle_the_issue_found():
    """Before issue 52, staff.js imported console.js, night.js and wifi.js, which imported it back."""
    before = {"staff.js": {"console.js", "night.js", "wifi.js"}, "console.js": {"staff.js"}, "night.js": {"staff.js"},
              "wifi.js": {"console.js", "staff.js"}}
    assert cycle(before) == ["console.js", "staff.js", "console.js"]
    assert cycle({"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}}) == ["a.js", "b.js", "c.js", "a.js"]
    assert cycle({"staff.js": set(), "keys.js": {"staff.js"}, "owner.js": {"staff.js"}}) is None


def test_no_script_of_the_pages_imports_another_in_a_circle_and_a_sections_imports_staff_js_alone():
    graph = {path.name: imports(path.read_text(encoding="utf-8")) for path in STATIC.glob("*.js")}
    assert len(graph) >= 15 and graph["staff.js"] == {"kit.js"} and graph["kit.js"] == set()  # the page kit's alone
    assert cycle(graph) is None
    scripts = {section.script for section in sections.SECTIONS.values() if section.script}
    assert len(scripts) >= 12 and scripts <= set(graph)
    assert {name: graph[name] for name in scripts if graph[name] != {"staff.js"}} == {}


def test_each_section_is_registered_by_its_name_with_its_words_and_its_script_and_no_two_share_one():
    registered = list(sections.SECTIONS.values())
    assert [section.name for section in registered] == list(sections.SECTIONS)
    scripts = [section.script for section in registered if section.script]
    assert len(scripts) == len(set(scripts)) and all((STATIC / script).is_file() for script in scripts)
    assert all(section.texts for section in registered if section.script)  # a script says words: they are served


class TinyPart:
    """The tiny section's part of the running table: its language (as a module of ``daemon`` would hold it)."""

    def __init__(self, table: staff_parts.Running, helper: object) -> None:
        self.table = table

    def language(self) -> str:
        return self.table.config.language


class Tiny(Section, name="tiny", script="tiny.js", texts=(N_("Tiny's word"),)):
    """A section from a test alone: its route for the staff, one for the owner, a word, a script."""

    class Table(Protocol):
        def language(self) -> str: ...

    def __init__(self, page: StaffPage, table: Table) -> None:
        super().__init__(page, table)
        self.table = table
        self.done: list[str] = []

    def routes(self) -> list[Route]:
        return [staff("GET", "/staff/api/tiny", self._look), owner("POST", "/staff/api/tiny", self._do)]

    async def _look(self, request: web.Request, session: object) -> web.Response:
        return web.json_response({"language": self.table.language()})

    async def _do(self, request: web.Request, session: object) -> web.Response:
        self.done.append("done")
        return web.json_response({"ok": True})

    @classmethod
    def stand_in(cls, table):
        """Its part on a stand-in table, beside its protocol: the stand-in's own."""
        return TinyStandIn(table.calls)


class TinyStandIn:
    """The tiny section's stand-in: English, each question recorded in the stand-in table's ``calls``."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def language(self) -> str:
        self.calls.append("tiny: language")
        return "en"


def test_a_section_from_a_test_alone_is_served_by_the_table_as_the_service_starts_it(tmp_path, monkeypatch):
    """One module (here, the test's class and its script), its part of the table (the test's
    ``TinyPart``) and a line in each registry, the sections' and their parts': a table started in
    this process as the service starts it (every check of ``pi-table run``; the registry lines are
    this process's) mounts its routes behind the page's checks with their roles, serves its script
    after staff.js and its words, and gives it its part of the table."""
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "tiny.js").write_text('import { section, t } from "./staff.js";\nsection({});\nt("Tiny\'s word");\n')
    monkeypatch.setattr(Tiny, "scripts", tmp_path / "static")
    monkeypatch.setitem(sections.SECTIONS, Tiny.name, Tiny)  # the registry's one line
    monkeypatch.setattr(staff_parts, "PARTS", (*staff_parts.PARTS, staff_parts.part(Tiny, TinyPart)))  # its part's
    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", dealt_key(), "it")
    try:
        assert Staff(table.base).call("GET", "/staff/api/tiny")[0] == 401  # behind the page's checks
        staff_phone = Staff(table.base)
        assert staff_phone.login()[0] == 200
        assert staff_phone.call("GET", "/staff/api/tiny") == (200, {"language": "it"})  # its part of the table
        status, answer = staff_phone.call("POST", "/staff/api/tiny", {})
        assert status == 403 and answer["owner"] == "needed"  # its role, said where its route is
        page = table.daemon.companion.staff
        tiny = next(section for section in page.sections if section.name == "tiny")
        assert tiny.done == [] and page.roles[("POST", "/staff/api/tiny")] is OWNER
        staff_phone.as_owner()
        assert staff_phone.call("POST", "/staff/api/tiny", {}) == (200, {"ok": True}) and tiny.done == ["done"]
        with urllib.request.urlopen(f"{table.base}/staff", timeout=10) as answer:
            html = answer.read().decode()
        served = re.findall(r'<script type="module" src="/staff/static/([\w-]+\.js)"></script>', html)
        assert served[0] == "staff.js" and served[-1] == "tiny.js" and len(served) == len(set(served))
        with urllib.request.urlopen(f"{table.base}/staff/static/tiny.js", timeout=10) as answer:
            assert answer.headers["Content-Type"].startswith("application/javascript")
            assert b'section({})' in answer.read()
        with urllib.request.urlopen(f"{table.base}/staff/words/it", timeout=10) as answer:
            assert "Tiny's word" in answer.read().decode()
    finally:
        table.close()


def test_a_sections_stand_in_beside_its_protocol_is_given_on_the_tests_pages_with_no_line_elsewhere(tmp_path,
                                                                                                    monkeypatch):
    """Issue 77, 5: a section's stand-in took a line in a list kept by hand (``FAKES``) beside its
    class beside its protocol. Now the section's own ``stand_in`` gives it: the test's section,
    registered by its one line in ``SECTIONS``, is given its stand-in on the tests' pages."""
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "tiny.js").write_text('import { section } from "./staff.js";\nsection({});\n')
    monkeypatch.setattr(Tiny, "scripts", tmp_path / "static")
    monkeypatch.setitem(sections.SECTIONS, Tiny.name, Tiny)  # the registry's one line, and no other
    desk = FakeDesk()
    page = staff_page(desk, tmp_path)
    tiny = next(section for section in page.sections if section.name == "tiny")
    assert isinstance(tiny.table, TinyStandIn) and tiny.table.language() == "en"
    assert desk.calls[-1] == "tiny: language"  # the stand-in table's record, shared with the others'


def members(protocol: type) -> set[str]:
    """What a protocol asks for: its methods, properties and attributes (its bases' too)."""
    return {name for kind in protocol.__mro__ if kind not in (object, Protocol, typing.Generic)
            for name in (*vars(kind), *getattr(kind, "__annotations__", {})) if not name.startswith("_")}


def part_of(section: type) -> type:
    """The part of the table a section takes: the ``Part`` of its ``Section[Part]`` (``X`` of ``X | None``)."""
    (part,) = next(typing.get_args(base) for base in section.__orig_bases__ if typing.get_origin(base) is Section)
    if isinstance(part, types.UnionType):
        (part,) = (kind for kind in typing.get_args(part) if kind is not type(None))
    assert isinstance(part, type), f"{section.__name__} takes {part!r}: a protocol of its own is expected"
    return part


def test_the_desk_the_page_itself_asks_of_is_small_and_each_sections_part_is_its_own():
    """The 29 methods one protocol asked of the daemon (issue 52, 6) are the page's few, and the
    rest is each section's: what each takes is a small protocol of its own, which an object of the
    daemon's meets, registered beside the section by one line (``daemon.staff_parts.PARTS``:
    mypy holds the object to the protocol)."""
    assert members(Desk) == {"language", "table", "new_game", "undo", "end_game", "history", "settings",
                             "discard_refused", "change_settings", "change_at_hand", "restart"}
    taken = {section.name: members(part_of(section)) for section in sections.SECTIONS.values()}
    protocols = {section.name for section in sections.SECTIONS.values() if getattr(part_of(section), "_is_protocol", False)}
    assert set(sections.SECTIONS) - protocols == {"night", "dashboard"}  # the night's own Recorder; nothing
    assert all(len(taken[name]) <= 9 for name in protocols), taken
    assert taken["keys"] == {"ask", "spool", "home", "keyring"} and taken["security"] == {"view", "run_now", "attention", "restarting_run"}
    assert taken["dashboard"] == set()
    registered = [part.section for part in staff_parts.PARTS]
    assert len(registered) == len(set(registered))
    assert {name for name, asked in taken.items() if asked} == {section.name for section in registered}


def class_members(tree: ast.ClassDef) -> set[str]:
    """What a class of the package gives, as its source says: its methods and properties, its
    class attributes and those its methods set on ``self``."""
    found = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
        elif isinstance(node, ast.Assign):
            found.update(target.id for target in node.targets if isinstance(target, ast.Name))
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            for each in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(each, ast.Attribute) and isinstance(each.value, ast.Name) and each.value.id == "self":
                    found.add(each.attr)
    return {name for name in found if not name.startswith("_")}


def sections_implemented(package: Path, parts: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each class of ``package`` that gives all of more than one of ``parts`` (what each section,
    and the page itself, takes of the table, by name), and which; protocols themselves aside."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(parsed(path)):
            if not isinstance(node, ast.ClassDef) or any(
                    getattr(base, "id", getattr(base, "attr", "")) == "Protocol" for base in node.bases):
                continue
            given = class_members(node)
            met = sorted(name for name, asked in parts.items() if asked <= given)
            if len(met) > 1:
                found[f"{path.relative_to(package)}::{node.name}"] = met
    return found


def sections_parts() -> dict[str, set[str]]:
    """What the page (``Desk``) and each section take of the table, one entry a protocol (the
    sections that share one, as the keys and the Wi-Fi share the root helper, named together)."""
    named: dict[type, list[str]] = {Desk: ["the page"]}
    for section in sections.SECTIONS.values():
        if members(part := part_of(section)):
            named.setdefault(part, []).append(section.name)
    return {" and ".join(names): members(part) for part, names in named.items()}


def test_no_class_of_the_table_gives_more_than_one_sections_part():
    """Issue 61, 1: the staff desk gave every section's part (38 methods), so each section that
    needed the table edited it. Each part is now an object of its own beside its section."""
    assert sections_implemented(PACKAGE, sections_parts()) == {}


def test_the_reading_of_the_classes_finds_a_desk_that_gives_two_sections_parts(tmp_path):
    (tmp_path / "desk.py").write_text(
        "class Hub:\n    def __init__(self):\n        self.spool, self.other = 1, 2\n"
        "    def ask(self, act):\n        pass\n    def power(self, act):\n        pass\n"
        "class Part(Protocol):\n    spool: int\n    def ask(self, act): ...\n    def power(self, act): ...\n")
    parts = {"keys": {"ask", "spool"}, "power": {"power"}, "health": {"log", "machine"}}
    assert sections_implemented(tmp_path, parts) == {"desk.py::Hub": ["keys", "power"]}
