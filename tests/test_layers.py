"""The architecture rules: layers import only downward; the engine does no I/O."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pi_table.firmware
import pi_table.hardware
import pytest

import pi_table

from helpers import ROOT, parsed

PACKAGE = Path(pi_table.__file__).parent
FIRMWARE = Path(pi_table.firmware.__file__).parent  # firmware/, mapped into the package
HARDWARE = Path(pi_table.hardware.__file__).parent  # hardware/, likewise
LAYERS = ["errors", "files", "worker", "host", "engine", "kinds", "protocol", "firmware", "hal", "drivers", "ui", "release", "image", "cards", "clues", "night", "web", "hardware", "table", "sim", "config", "fleet", "daemon", "bench", "cli", "__main__"]
ENGINE_STDLIB = {"__future__", "dataclasses", "enum", "typing", "collections", "collections.abc", "random", "abc",
                 "typing_extensions"}  # the last for a type checker only: TypeIs is in typing from 3.13
ENGINE_FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__"}


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, path.relative_to(PACKAGE).parts
    for path in sorted(FIRMWARE.glob("*.py")):
        yield path, ("firmware", path.name)
    for path in sorted(HARDWARE.rglob("*.py")):
        yield path, ("hardware", *path.relative_to(HARDWARE).parts)


def layer_of(parts: tuple[str, ...]) -> str | None:
    first = parts[0].removesuffix(".py")
    return first if first in LAYERS else None


def imported(path: Path, parts: tuple[str, ...]) -> set[str]:
    """Absolute names of every module imported by the file, relative imports resolved."""
    tree = parsed(path)
    package = ["pi_table", *parts[:-1]]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_every_module_belongs_to_a_layer():
    loose = ["/".join(parts) for path, parts in modules() if parts != ("__init__.py",) and layer_of(parts) is None]
    assert loose == []


def test_layers_import_only_downward():
    offences = []
    for path, parts in modules():
        layer = layer_of(parts)
        if layer is None:
            continue
        for name in imported(path, parts):
            if not name.startswith("pi_table."):
                continue
            target = name.split(".")[1]
            if target in LAYERS and LAYERS.index(target) > LAYERS.index(layer):
                offences.append(f"{'/'.join(parts)} imports {name}")
    assert offences == []


def test_engine_imports_only_pure_standard_modules():
    offences = []
    for path, parts in modules():
        if layer_of(parts) != "engine":
            continue
        for name in imported(path, parts):
            if name.startswith(("pi_table.engine", "pi_table.errors")) or name in ENGINE_STDLIB:
                continue
            if any(name.startswith(f"{allowed}.") for allowed in ENGINE_STDLIB):
                continue  # "from typing import X" also names "typing.X"
            offences.append(f"{'/'.join(parts)} imports {name}")
    assert offences == []


def test_engine_calls_no_io_builtins():
    offences = []
    for path, parts in modules():
        if layer_of(parts) != "engine":
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ENGINE_FORBIDDEN_CALLS:
                offences.append(f"{'/'.join(parts)}:{node.lineno} calls {node.func.id}()")
    assert offences == []


def test_the_checker_sees_a_violation(tmp_path):
    """Guard against a checker that passes vacuously: a planted upward import is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("import time\nfrom ..table import loop\nprint('x')\n")
    names = imported(bad, ("engine", "bad.py"))
    assert "time" in names and "pi_table.table" in names


TOOLS = ("pi_table.hardware.tools", "pi_table.ui.tools")
"""The checkout's tools: folders the package list leaves out, so a Pi never installs them."""


def test_pyproject_lists_every_package():
    """The package list is explicit (firmware/ is mapped in), so a new layer must be added to it;
    the tools' folders alone are left out."""
    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"pi_table"} | {".".join(("pi_table", *p.parent.relative_to(PACKAGE).parts)) for p in PACKAGE.rglob("*/__init__.py")}
    found |= {"pi_table.firmware", "pi_table.hardware"}
    assert listed == found - set(TOOLS)


def test_the_table_never_imports_the_build_tools():
    """hardware/tools/ and ui/tools/ are left out of what a Pi installs (tests/test_hardware.py reads
    the wheel): a module of the table that imported them would fail there, so only the tools import each other."""
    offences = [f"{'/'.join(parts)} imports {name}" for path, parts in modules()
                if not module_name(parts).startswith(TOOLS) for name in imported(path, parts) if name.startswith(TOOLS)]
    assert offences == []


def module_name(parts: tuple[str, ...]) -> str:
    return ".".join(["pi_table", *parts[:-1], parts[-1].removesuffix(".py")])


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_no_two_modules_import_each_other():
    """Within a layer too: a module that needs another's drawing or logic imports it, and that
    one does not import it back, not even for a type or inside a function (a circle makes the
    order of imports matter and hides which module owns what). Packages' __init__ files, which
    gather their modules' names, are left out."""
    graph: dict[str, set[str]] = {}
    for path, parts in modules():
        if parts[-1] == "__init__.py":
            continue
        graph[module_name(parts)] = {name for name in imported(path, parts) if name.startswith("pi_table.")}
    names = set(graph)
    edges = {module: {name for name in targets if name in names and name != module} for module, targets in graph.items()}
    circles = []
    for start in sorted(edges):
        path, stack, seen = [start], [iter(sorted(edges[start]))], {start}
        while stack:  # depth first from each module, back to it
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                seen.discard(path.pop())
            elif step == start:
                circles.append(" -> ".join([*path, start]))
            elif step not in seen and step > start:  # each circle once, from its smallest module
                path.append(step)
                seen.add(step)
                stack.append(iter(sorted(edges[step])))
    assert circles == []


TESTS = Path(__file__).parent


def imported_test_modules(path: Path) -> set[str]:
    """The test modules (``test_*``) a file in tests/ imports, at its top or inside a function."""
    return {name for name in imported(path, ("tests", path.name)) if "." not in name and name.startswith("test_")}


def test_no_test_module_imports_another():
    """What several test files share lives in tests/helpers*.py (fixtures in tests/conftest.py):
    a test module imported by another runs its module-level setup there too, and its fixtures,
    imported by name, are redefined in a second module where pytest may pick either."""
    offences = [f"{path.name} imports {', '.join(sorted(names))}"
                for path in sorted(TESTS.glob("*.py")) if (names := imported_test_modules(path))]
    assert offences == []


def test_the_test_import_checker_sees_one(tmp_path):
    """Guard against a checker that passes vacuously: both forms of import, and one inside a function."""
    bad = tmp_path / "test_bad.py"
    bad.write_text("import test_web\nfrom helpers import wait_for\n\ndef f():\n    from test_faults import EmulatedTable\n")
    assert imported_test_modules(bad) == {"test_web", "test_faults"}


def test_every_error_the_table_raises_has_one_root():
    """As gpiozero's GPIOZeroError: ``except PiTableError`` catches every error the table defines
    (each keeps its built-in base too, ValueError for a refused value and so on)."""
    import importlib
    import inspect
    import pkgutil

    from pi_table.errors import PiTableError, PiTableWarning

    strays = []
    for module in pkgutil.walk_packages(pi_table.__path__, "pi_table."):
        if module.name.startswith(("pi_table.firmware", "pi_table.hardware")) or module.name == "pi_table.__main__":
            continue  # the board's CircuitPython and the maker's build tools: not the table's errors
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.name \
                    and not issubclass(value, PiTableWarning if issubclass(value, Warning) else PiTableError):
                strays.append(f"{module.name}.{name}")
    assert strays == []


def warnings_given_unrooted(paths: list[Path]) -> list[str]:
    """``file:line`` and what is wrong, for each warning class of ours not under ``PiTableWarning``
    and each ``warnings.warn`` whose category is not one of ours under it: a built-in one
    (``UserWarning``, ``RuntimeWarning``...), or none, which is ``UserWarning``. Read from the
    code, so a warning given only on a Pi or in a failure is held too."""
    import builtins

    def name(node: ast.expr) -> str | None:
        return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None

    bases = {node.name: [name(base) for base in node.bases]
             for path in paths for node in ast.walk(parsed(path)) if isinstance(node, ast.ClassDef)}

    def rooted(cls: str | None, seen: frozenset[str] = frozenset()) -> bool:
        return cls == "PiTableWarning" or (cls in bases and cls not in seen
                                           and any(rooted(base, seen | {cls}) for base in bases[cls]))

    def built_in_warning(cls: str | None) -> bool:
        found = getattr(builtins, cls or "", None)
        return isinstance(found, type) and issubclass(found, Warning)

    found = []
    for path in paths:
        for node in ast.walk(parsed(path)):
            where = f"{path}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ClassDef) and node.name != "PiTableWarning" \
                    and any(built_in_warning(base) for base in bases[node.name]) and not rooted(node.name):
                found.append(f"{where} class {node.name} is not under PiTableWarning")
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("warnings.warn", "warn") and node.args:
                given = node.args[1] if len(node.args) > 1 else next(
                    (k.value for k in node.keywords if k.arg == "category"), None)
                if given is None and isinstance(node.args[0], ast.Call):
                    given = node.args[0].func  # warn(SomeWarning("...")): the instance says its category
                category = "UserWarning" if given is None else name(given)
                if not rooted(category):
                    found.append(f"{where} warns with {category}, not a warning under PiTableWarning")
    return found


BARE_BY_KIND = {
    "NotImplementedError": "an abstract method a subclass must give: a programming error by its nature",
    "SystemExit": "a command's exit status, which the command line means to end on",
}
"""The built-in exceptions raised bare whatever the line says, and why."""
BARE_MARKS = {
    "a programming error": "an impossible case, a broken invariant or code calling with what it must not: "
                           "nothing should catch it, and a root would invite a caller to",
    "as the real": "a stand-in raising what the device or library it stands in for raises, which the code "
                   "written against that catches",
    "caught by": "a private helper's error that its caller in the same module catches (the comment names "
                 "it): it never crosses the module's edge",
    "the watchdog restarts": "the board's firmware ending: nothing on the board catches it, its watchdog restarts it",
}
"""What a comment on a raise's lines (or the line before) says of a bare built-in it raises."""


def bare_raises(paths: list[Path]) -> list[str]:
    """``file:line NAME`` for each raise of a built-in exception (``raise ValueError(...)``) that
    neither its kind (``BARE_BY_KIND``) nor a comment (``BARE_MARKS``) says is meant bare: an
    error a caller may catch is a class under ``PiTableError`` (which keeps the built-in base)."""
    import builtins

    def built_in(node: ast.expr | None) -> type[BaseException] | None:
        found = getattr(builtins, node.id, None) if isinstance(node, ast.Name) else None
        return found if isinstance(found, type) and issubclass(found, BaseException) else None

    def walk_in_function(node: ast.AST) -> list[ast.AST]:
        """``node`` and what is under it but for the functions and classes it defines (their
        raises leave when they are called, not where the ``try`` is)."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return []
        return [node, *(each for child in ast.iter_child_nodes(node) for each in walk_in_function(child))]

    def caught_around(tree: ast.Module) -> set[ast.Raise]:
        """The raises in a ``try`` whose own handlers catch them: they never leave the function."""
        caught = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Try):
                handled = [built_in(kind) for handler in node.handlers for kind in
                           (handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type])]
                for inner in (each for statement in node.body for each in walk_in_function(statement)):
                    raised = inner.exc.func if isinstance(inner, ast.Raise) and isinstance(inner.exc, ast.Call) \
                        else getattr(inner, "exc", None)
                    kind = built_in(raised) if isinstance(inner, ast.Raise) else None
                    if kind is not None and any(base is not None and issubclass(kind, base) for base in handled):
                        caught.add(inner)
        return caught

    found = []
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = parsed(path)
        caught = caught_around(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or node in caught:
                continue
            kind = built_in(node.exc.func if isinstance(node.exc, ast.Call) else node.exc)
            if kind is None or kind.__name__ in BARE_BY_KIND:
                continue
            said = [line.partition("#")[2] for line in lines[max(node.lineno - 2, 0): node.end_lineno]]
            if not any(mark in comment for mark in BARE_MARKS for comment in said):
                found.append(f"{path}:{node.lineno} {kind.__name__}")
    return found


def test_every_error_a_caller_may_catch_is_under_the_root():
    """An error crossing a module's edge (a bad frame, a bad setting, a refused request) is a
    ``PiTableError``, so ``except PiTableError`` catches every refusal of the table's; a bare
    built-in is left only where a comment says it is a programming error or a stand-in's, or where
    the ``try`` around it catches it. The maker's build tools (hardware/) are not the table's."""
    assert bare_raises([path for path, parts in modules() if parts[0] != "hardware"]) == []


def test_a_bare_raise_is_found_unless_said_to_be_meant(tmp_path):
    code = tmp_path / "raising.py"
    code.write_text(
        "from pi_table.errors import PiTableError\nclass Bad(PiTableError, ValueError): pass\n"
        "def f(x):\n    if x == 1:\n        raise ValueError('one')\n    if x == 2:\n        raise Bad('two')\n"
        "    if x == 3:\n        raise TypeError(x)  # a programming error: x is checked before\n"
        "    if x == 4:\n        # as the real bus raises\n        raise OSError(5, 'I/O')\n"
        "    if x == 5:\n        raise RuntimeError\n    try:\n        raise ValueError(x)\n    except (OSError, ValueError):\n"
        "        pass\n    try:\n        raise KeyError(x)\n    except ValueError:\n        pass\n    try:\n"
        "        def g():\n            raise ValueError(x)\n    except ValueError:\n        pass\n    raise NotImplementedError\n")
    assert [line.split(":", 1)[1] for line in bare_raises([code])] == ["5 ValueError", "14 RuntimeError", "20 KeyError",
                                                                        "25 ValueError"]


def test_every_warning_the_table_gives_has_one_root():
    """As gpiozero's GPIOZeroWarning: a warning of the table's own (or its tests' and tools') is a
    ``PiTableWarning``, so a filter can tell it from a library's."""
    paths = [path for path, _ in modules()] + sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "tools").glob("*.py"))
    assert warnings_given_unrooted(paths) == []


def test_a_warning_of_a_built_in_category_is_found(tmp_path):
    """The reader finds each way of giving an unrooted warning, and passes the rooted ones."""
    code = tmp_path / "given.py"
    code.write_text(
        "import warnings\nfrom pi_table.errors import PiTableWarning\n"
        "class Ours(PiTableWarning, UserWarning): pass\nclass Loose(UserWarning): pass\n"
        "warnings.warn('plain')\nwarnings.warn('slow', RuntimeWarning)\nwarnings.warn('old', category=DeprecationWarning)\n"
        "warnings.warn(Loose('loose'))\nwarnings.warn(Ours('ours'))\nwarnings.warn('ours', Ours)\nlog.warn('a log line')\n")
    found = [line.split(" ", 1)[1] for line in warnings_given_unrooted([code])]
    assert found == ["class Loose is not under PiTableWarning",
                     "warns with UserWarning, not a warning under PiTableWarning",
                     "warns with RuntimeWarning, not a warning under PiTableWarning",
                     "warns with DeprecationWarning, not a warning under PiTableWarning",
                     "warns with Loose, not a warning under PiTableWarning"]


def names_read_second_hand() -> list[str]:
    """``module:line NAME via SOURCE`` for each name a module imports from a module that only
    imports it too (``from ..ui.i18n import LANGUAGES``, defined in engine.views): a reader then
    looks for it in the wrong room, and the room's own imports become a contract. A package's
    ``__init__``, which gathers its rooms' names, is a source like the room itself."""
    trees = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        trees[".".join(("pi_table", *parts)).removesuffix(".__init__")] = (path, parsed(path))
    packages = {name for name, (path, _) in trees.items() if path.name == "__init__.py"}

    def top_level(tree: ast.Module) -> tuple[set[str], set[str]]:
        defined, imported = set(), set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined |= {target.id for target in targets if isinstance(target, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                imported |= {alias.asname or alias.name for alias in node.names}
        return defined, imported

    found = []
    for name, (_, tree) in trees.items():
        here = name.split(".") if name in packages else name.split(".")[:-1]
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            source = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
            if source not in trees or source in packages:
                continue
            defined, imported = top_level(trees[source][1])
            found += [f"{name}:{node.lineno} {alias.name} via {source}" for alias in node.names
                      if alias.name not in defined and alias.name in imported]
    return found


WEB_PENDING = "pi_table.web."
"""web/ reads LANGUAGES through ui.i18n and the night's words through night.book: the staff
pages' and the game night's branches change those (issue 52.9)."""


def test_a_name_is_imported_from_the_room_that_defines_it():
    assert [found for found in names_read_second_hand() if not found.startswith(WEB_PENDING)] == []


def test_the_companion_imports_each_name_from_the_room_that_defines_it():
    assert [found for found in names_read_second_hand() if found.startswith(WEB_PENDING)] == []


def test_the_kept_syntax_trees_leave_the_collector_as_it_is():
    """Issue 52.8: ``helpers.parsed`` keeps a tree for its test file without freezing the
    worker's heap (``gc.freeze`` took every object there was, not the trees alone)."""
    import gc

    from helpers import forget_parsed

    forget_parsed()
    frozen = gc.get_freeze_count()
    tree = parsed(Path(pi_table.__file__).parent / "engine" / "keys.py")
    assert parsed(Path(pi_table.__file__).parent / "engine" / "keys.py") is tree  # kept
    assert gc.get_freeze_count() == frozen == 0


def test_a_device_used_out_of_order_is_a_pi_table_error(tmp_path):
    """Issue 52.5: a misuse a caller can meet (a device not started or started twice, the fleet
    off, a journal that cannot be read) is a class under the root, as gpiozero's DeviceClosed,
    keeping its built-in base for code that catches that."""
    import threading

    from pi_table.config.loading import parse_config
    from pi_table.daemon import logs
    from pi_table.drivers.touchboard import TouchBoardSource
    from pi_table.engine import EndTurn
    from pi_table.errors import PiTableError
    from pi_table.fleet.reporter import FleetOff, Reporter
    from pi_table.hal import AlreadyStarted, NotStarted, SimButtons, SimScreen, SimTouch

    for misuse in (lambda: SimScreen().tap(EndTurn()), lambda: SimButtons().push("end_turn"),
                   lambda: SimTouch().press(3)):
        with pytest.raises(NotStarted, match="not started") as raised:
            misuse()
        assert isinstance(raised.value, (PiTableError, RuntimeError))
    board, tried = TouchBoardSource(serial_factory=lambda *a, **k: tried.set() or (_ for _ in ()).throw(OSError("no")),
                                    sleep=lambda s: threading.Event().wait(0.05)), threading.Event()
    board.start(lambda event: None)
    try:
        with pytest.raises(AlreadyStarted, match="already started"):
            board.start(lambda event: None)
    finally:
        board.stop()
    with pytest.raises(FleetOff, match="the fleet is off") as raised:
        Reporter(parse_config("", tmp_path / "pi-table.toml").fleet, act=lambda request: {})
    assert isinstance(raised.value, (PiTableError, ValueError))
    failing = tmp_path / "journalctl"
    failing.write_text("#!/bin/sh\necho 'no journal here' >&2\nexit 1\n")
    failing.chmod(0o755)
    with pytest.raises(logs.JournalUnreadable, match="no journal here") as raised:
        logs.journal(None, None, unit="pi-table.service", command=str(failing))
    assert isinstance(raised.value, (PiTableError, OSError))


def rooms_of(package: Path) -> dict[str, set[str]]:
    """Each module (a room) of ``package`` and the rooms of the same package it imports, at its top
    or inside a function alike."""
    parts_of = {path.stem: path.relative_to(PACKAGE).parts for path in package.glob("*.py") if path.stem != "__init__"}
    prefix = ["pi_table", *package.relative_to(PACKAGE).parts]
    return {room: {name.split(".")[len(prefix)] for name in imported(package / f"{room}.py", parts)
                   if name.split(".")[:len(prefix)] == prefix and len(name.split(".")) > len(prefix)
                   and name.split(".")[len(prefix)] in parts_of and name.split(".")[len(prefix)] != room}
            for room, parts in parts_of.items()}


def circles(rooms: dict[str, set[str]]) -> list[list[str]]:
    """The import circles among ``rooms``: each as the rooms that go round it, its first again at its end."""
    found, done, path = [], set(), []

    def visit(room: str) -> None:
        if room in path:
            found.append([*path[path.index(room):], room])
            return
        if room in done:
            return
        path.append(room)
        for other in sorted(rooms[room]):
            visit(other)
        path.pop()
        done.add(room)

    for room in sorted(rooms):
        visit(room)
    return found


def rooms_out_of_order() -> list[str]:
    """The rooms of every package that import one another in a circle: with none, an order exists
    in which each room imports only those before it (a new room needs no line in a list)."""
    packages = sorted({path.parent for path in PACKAGE.rglob("*.py")})
    return [f"{package.relative_to(PACKAGE)}: " + " imports ".join(circle)
            for package in packages for circle in circles(rooms_of(package))]


def test_each_room_imports_only_the_rooms_before_it():
    """A module imports only the rooms before it in some order of its package (its package's
    __init__, which gathers their names, imports any): no two rooms import each other, directly
    or round a circle. One that needs a later room says the two are one job, or the wrong way round."""
    assert rooms_out_of_order() == []


def test_a_circle_of_rooms_is_found_and_named():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def after_ready() -> list[str]:
    """The modules ``Daemon.start`` imports in its own body after it tells systemd READY=1: loaded
    on the main thread before the loop's first watchdog ping."""
    from pi_table.daemon import run

    start = next(node for node in ast.walk(parsed(Path(run.__file__)))
                 if isinstance(node, ast.FunctionDef) and node.name == "start")
    ready = next(node.lineno for node in ast.walk(start) if isinstance(node, ast.Attribute) and node.attr == "ready")
    found = set()
    for node in ast.walk(start):
        if isinstance(node, ast.ImportFrom) and node.lineno > ready:
            base = ".".join(["pi_table", "daemon"][:3 - node.level]) if node.level else ""
            found |= ({f"{base}.{node.module}".lstrip(".")} if node.module
                      else {f"{base}.{alias.name}" for alias in node.names})
    return sorted(found)


def test_the_start_loads_no_page_between_ready_and_the_loops_first_watchdog_ping():
    """systemd's watchdog (10 s) runs from READY=1, and the loop pings it only once ``start`` is
    done: what ``start`` imports after READY must be light. The phones' and staff pages (the web
    layer, aiohttp) and Apprise take many seconds to load on a Pi 3 and belong to the companion's
    own thread; the notifications loading the staff page's section killed every start of the
    emulated Pi after its set-up."""
    import subprocess
    import sys

    loaded = after_ready()
    assert "pi_table.daemon.notices" in loaded and "pi_table.daemon.security" in loaded, loaded
    heavy = subprocess.run([sys.executable, "-c", (
        "import importlib, sys\nimport pi_table.daemon.run\n"
        f"for name in {loaded!r}: importlib.import_module(name)\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] in ('aiohttp', 'apprise') or n.startswith('pi_table.web')))")],
        capture_output=True, text=True, timeout=60, check=True).stdout
    assert heavy.strip() == "[]", f"loaded after READY, before the loop pings the watchdog: {heavy}"


HUBS = ("pi_table/web", "pi_table/night", "pi_table/daemon/run.py", "pi_table/daemon/staff_desk.py")
"""Where the rooms' classes stay under 300 lines: the pages, the night, the table's composition
root and the staff page's desk. Each wires or answers, and the parts it wires live in rooms of
their own (issue 61, 1; issue 77, 4)."""
MAX_CLASS_LINES = 300
MAX_HELPER_LINES = 400  # a module of the tests that is no test file: stand-ins and fixtures beside what they fake
STILL_TO_SPLIT: set[str] = set()
"""The classes of HUBS and the test helpers still over their size, each to be split by concern
(issue 77, 4): the list only shrinks."""


def long_classes(root: Path, places: tuple[str, ...]) -> dict[str, int]:
    """Each class defined in ``places`` (folders or files under ``root``) of MAX_CLASS_LINES lines
    or more, by file and name, with its lines."""
    paths = sorted(path for place in places
                   for path in ([root / place] if place.endswith(".py") else (root / place).rglob("*.py")))
    return {f"{path.relative_to(root).as_posix()}::{node.name}": node.end_lineno - node.lineno + 1
            for path in paths for node in ast.walk(parsed(path))
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 >= MAX_CLASS_LINES}


def long_helpers(root: Path) -> dict[str, int]:
    """Each module of ``root``'s tests that is no test file, of MAX_HELPER_LINES lines or more, with its lines."""
    return {path.relative_to(root).as_posix(): lines for path in sorted((root / "tests").rglob("*.py"))
            if not path.name.startswith("test_")
            and (lines := len(path.read_text(encoding="utf-8").splitlines())) >= MAX_HELPER_LINES}


def test_the_hubs_classes_and_the_test_helpers_stay_small():
    """No class of HUBS of 300 lines or more, no module of the tests' helpers of 400 or more."""
    long = {**long_classes(ROOT, HUBS), **long_helpers(ROOT)}
    assert {name: lines for name, lines in long.items() if name not in STILL_TO_SPLIT} == {}
    assert sorted(STILL_TO_SPLIT - long.keys()) == [], "split now: take it off STILL_TO_SPLIT"


def test_the_sizes_are_measured_in_folders_and_files(tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "page.py").write_text("class Hub:\n" + "    x = 1\n" * MAX_CLASS_LINES + "class Room:\n    y = 2\n")
    (tmp_path / "run.py").write_text("class Root:\n" + "    x = 1\n" * MAX_CLASS_LINES)
    (tmp_path / "other.py").write_text("class Elsewhere:\n" + "    x = 1\n" * MAX_CLASS_LINES)
    assert long_classes(tmp_path, ("web", "run.py")) == {"web/page.py::Hub": 301, "run.py::Root": 301}
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "helpers.py").write_text("x = 1\n" * MAX_HELPER_LINES)
    (tmp_path / "tests" / "fakes.py").write_text("x = 1\n" * (MAX_HELPER_LINES - 1))
    (tmp_path / "tests" / "test_big.py").write_text("x = 1\n" * MAX_HELPER_LINES)
    assert long_helpers(tmp_path) == {"tests/helpers.py": 400}
