"""The staff page's sections (issue 52, 6): a section is one module, its routes with their roles,
its words and its script, registered by one line as a game is (``web.sections.SECTIONS``); the
page's scripts import ``staff.js`` alone, never each other in a circle; and each section takes of
the table only its own part (docs/dev/adding-a-staff-section.md)."""

from __future__ import annotations

import re
import typing
import urllib.request
from pathlib import Path
from typing import Protocol

from aiohttp import web

from pi_table.daemon.staff_desk import StaffDesk
from pi_table.engine.phrase import N_
from pi_table.web import sections
from pi_table.web.roles import OWNER, Route, owner, staff
from pi_table.web.staff import Desk, Section, StaffPage

from helpers import Staff, StaffTable, dealt_key

STATIC = Path(sections.__file__).resolve().parent.parent / "static"
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
    assert len(graph) >= 15 and graph["staff.js"] == set()
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


class Tiny(Section):
    """A section from a test alone: its route for the staff, one for the owner, a word, a script."""

    name = "tiny"
    script = "tiny.js"
    texts = (N_("Tiny's word"),)

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


def test_a_section_from_a_test_alone_is_served_by_the_table_as_the_service_starts_it(tmp_path, monkeypatch):
    """One module (here, the test's class and its script) and one line in the registry: a table
    started in this process as the service starts it (every check of ``pi-table run``; the
    registry line is this process's) mounts its routes behind the page's checks with their roles,
    serves its script after staff.js and its words, and gives it its part of the table."""
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "tiny.js").write_text('import { section, t } from "./staff.js";\nsection({});\nt("Tiny\'s word");\n')
    monkeypatch.setattr(Tiny, "scripts", tmp_path / "static")
    monkeypatch.setitem(sections.SECTIONS, Tiny.name, Tiny)  # the registry's one line
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


def members(protocol: type) -> set[str]:
    """What a protocol asks for: its methods, properties and attributes (its bases' too)."""
    return {name for kind in protocol.__mro__ if kind not in (object, Protocol, typing.Generic)
            for name in (*vars(kind), *getattr(kind, "__annotations__", {})) if not name.startswith("_")}


def part_of(section: type) -> type:
    """The part of the table a section takes: the ``Part`` of its ``Section[Part]``."""
    (part,) = next(typing.get_args(base) for base in section.__orig_bases__ if typing.get_origin(base) is Section)
    assert isinstance(part, type), f"{section.__name__} takes {part!r}: a protocol of its own is expected"
    return part


def test_the_desk_the_page_itself_asks_of_is_small_and_each_sections_part_is_its_own():
    """The 29 methods one protocol asked of the daemon (issue 52, 6) are the page's few, and the
    rest is each section's: what each takes is a small protocol of its own, which the daemon's
    staff desk gives."""
    from types import SimpleNamespace

    assert members(Desk) == {"language", "table", "new_game", "undo", "end_game", "history", "settings",
                             "discard_refused", "change_settings", "change_at_hand", "restart"}
    given = set(dir(StaffDesk(SimpleNamespace())))  # its attributes too: the helper's spool
    taken = {}
    for section in sections.SECTIONS.values():
        taken[section.name] = members(part_of(section))
    assert all(len(asked) <= 9 for asked in taken.values()), taken
    assert {name: asked - given for name, asked in taken.items() if asked - given} == {}
    assert taken["keys"] == {"ask", "spool"} and taken["security"] == {"security"} and taken["dashboard"] == set()
