"""The dataclasses' compiled methods kept between starts (pi_table.codecache): a class made
from the file behaves as one compiled afresh, and a missing, damaged or unwritable file only
costs the compiling it saves. Each case runs in a child interpreter, as a start does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# A child that installs the cache at ``path``, makes a frozen dataclass and reports what it did.
CHILD = """
import dataclasses, json, sys
from pi_table import codecache
codecache.install(sys.argv[1])

@dataclasses.dataclass(frozen=True, slots=True)
class Clue:
    word: str
    number: int = 1

clue = Clue("river", 2)
try:
    clue.number = 3
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
compiled = sum(len(methods) for methods in codecache._lacking.values())
print(json.dumps({"loaded": sum(len(keys) for keys in codecache._used.values()) - compiled, "compiled": compiled,
                  "repr": repr(clue), "equal": clue == Clue("river", 2), "unequal": clue != Clue("river", 3),
                  "hash": hash(clue) == hash(Clue("river", 2)), "frozen": frozen, "default": Clue("sea").number}))
"""
SAME = {"repr": "Clue(word='river', number=2)", "equal": True, "unequal": True, "hash": True, "frozen": True,
        "default": 1}


def start(path: Path, bytecode: bool = True) -> dict:
    """One start of a child; ``bytecode`` False: as under PYTHONDONTWRITEBYTECODE (or -B)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=False,
                          env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr  # an exit hook's failure says only so
    return json.loads(done.stdout)


def test_a_second_start_compiles_nothing_and_its_classes_behave_the_same(tmp_path):
    cache = tmp_path / "__pycache__" / "dataclasses.marshal"
    first = start(cache)
    assert first["compiled"] > 0 and first["loaded"] == 0
    assert cache.is_file() and cache.stat().st_mode & 0o777 == 0o644  # read by every user, as .pyc files
    second = start(cache)
    assert second["compiled"] == 0 and second["loaded"] == first["compiled"]
    assert {k: second[k] for k in SAME} == {k: first[k] for k in SAME} == SAME


def _marshalled(shape: str) -> bytes:
    """Marshal data of the wrong shape: a dict (as the first writer made), a list of text and
    code pairs (as the one before the index did), an index of each method by its digest (as the
    one before the modules' groups did), an index whose places lie outside the code or are no
    places at all (which the rewrite at the process's end once choked on)."""
    import marshal

    if shape == "dict":
        return marshal.dumps({"text": 1})
    if shape == "pairs":
        return marshal.dumps([("def f(): pass", compile("def f(): pass", "<string>", "exec"))] * 3)
    code = marshal.dumps(compile("def f(): pass", "<string>", "exec"))
    if shape == "methods":
        return marshal.dumps(({bytes(16 * [n]): (0, len(code)) for n in range(8)}, code))
    beyond = {f"module{n}": (10**6, 10**6 + 50) for n in range(8)}
    return marshal.dumps(({**beyond, "__main__": "here", "other": (5, 2), b"y" * 16: (0, 4)}, b"\x00" * 40))


@pytest.mark.parametrize("damage", [b"", b"\x00garbage", b"[not marshal", "dict", "pairs", "methods", "index"])
def test_a_damaged_file_is_compiled_over(tmp_path, damage):
    cache = tmp_path / "dataclasses.marshal"
    if isinstance(damage, str):
        damage = _marshalled(damage)
    cache.write_bytes(damage)
    first = start(cache)
    assert first["loaded"] == 0 and {k: first[k] for k in SAME} == SAME
    assert start(cache)["compiled"] == 0  # written again, whole


def test_a_folder_it_cannot_make_is_left_alone(tmp_path):
    """The service's case: its installation is read-only (a file where the folder would be
    stands for it here, since the tests may run as root, who writes any folder)."""
    (tmp_path / "taken").write_text("")
    assert {k: v for k, v in start(tmp_path / "taken" / "dataclasses.marshal").items() if k in SAME} == SAME


def test_where_python_writes_no_bytecode_nothing_is_written(tmp_path):
    """install.sh runs the café's checkout as root with PYTHONDONTWRITEBYTECODE: it must leave
    no file of root's in the checkout, this one no more than a .pyc."""
    cache = tmp_path / "dataclasses.marshal"
    assert {k: v for k, v in start(cache, bytecode=False).items() if k in SAME} == SAME
    assert not cache.exists()


def test_the_release_build_fills_the_file_for_every_module(tmp_path):
    """What ``python -m pi_table.codecache`` writes covers the daemon's start: a start after it
    compiles no dataclass method."""
    cache = tmp_path / "dataclasses.marshal"
    done = subprocess.run([sys.executable, "-m", "pi_table.codecache", str(cache)], capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})  # as install.sh calls it
    assert done.returncode == 0, done.stderr
    started = ("import sys, json; from pi_table import codecache; codecache.install(sys.argv[1]); "
               "import pi_table.daemon.run, pi_table.cli.play, pi_table.web.server; "
               "print(sum(len(keys) for keys in codecache._lacking.values()))")
    done = subprocess.run([sys.executable, "-c", started, str(cache)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"


def test_a_module_s_methods_that_are_not_code_are_compiled_afresh(monkeypatch):
    """A file of the right shape whose place for a module's methods lies outside it, holds
    something else than methods, or holds something else than code for a text: that text is
    compiled, and its method works."""
    import marshal

    from pi_table import codecache

    text = "def __init__(self, word):\n  self.word = word\n"
    key = codecache.digest(text)
    not_code = marshal.dumps({key: "not code"})
    for index, kept in (({"cards": (100, 150)}, b"\x00" * 40), ({"cards": (0, 9)}, marshal.dumps(["not", "methods"])),
                        ({"cards": (0, len(not_code))}, not_code), ({"cards": "here"}, b"")):
        for name, value in (("_index", index), ("_kept", memoryview(kept)), ("_groups", {}), ("_code", {}),
                            ("_lacking", {}), ("_used", {})):
            monkeypatch.setattr(codecache, name, value)
        made: dict = {}
        codecache._exec(text, {"__name__": "cards"}, made)
        word = type("Card", (), {"__init__": made["__init__"]})("river").word
        assert word == "river" and key in codecache._lacking["cards"]


# A child that installs the cache at ``argv[1]`` and makes each module named in ``argv[2]`` from
# its source in ``argv[3]`` (JSON), as the table's modules make their classes at import.
MODULES = """
import json, sys, types
from pi_table import codecache
codecache.install(sys.argv[1])
sources = json.loads(sys.argv[3])
for name in sys.argv[2].split(","):
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(sources[name], module.__dict__)
print(json.dumps({name: len(keys) for name, keys in codecache._lacking.items()}))
"""
CARD = "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass Card:\n    word: str\n"
SOURCES = {"cards": CARD, "seats": CARD.replace("Card", "Seat"), "cards2": CARD + "    colour: str = 'red'\n"}


def made(cache: Path, *modules: str, sources: dict[str, str] = SOURCES) -> dict[str, int]:
    """The methods each module's entry in the file lacked at that start (compiled, or made first for another)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", MODULES, str(cache), ",".join(modules), json.dumps(sources)],
                          capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def entries(cache: Path) -> dict[str, int]:
    """How many methods the file keeps for each module."""
    import marshal

    index, kept = marshal.loads(cache.read_bytes())
    return {module: len(marshal.loads(kept[start:end])) for module, (start, end) in index.items()}


def test_each_module_keeps_its_methods_even_those_another_module_made_first(tmp_path):
    """Two modules with the same class's texts: the second takes the first's code, and the
    file still gets an entry for each, so a start that imports only the second compiles nothing."""
    cache = tmp_path / "dataclasses.marshal"
    first = made(cache, "cards", "seats")
    assert first["cards"] == first["seats"] > 0
    assert entries(cache) == {"cards": first["cards"], "seats": first["seats"]}
    assert made(cache, "seats") == {}


def test_a_class_changed_leaves_the_file_with_its_old_methods(tmp_path):
    """A module whose class changed keeps only the methods made of it now: a class edited for
    months does not make the file grow; another module's methods stay."""
    cache = tmp_path / "dataclasses.marshal"
    made(cache, "cards", "seats")
    before = entries(cache)
    changed = made(cache, "cards", sources={**SOURCES, "cards": SOURCES["cards2"]})
    after = entries(cache)
    assert changed["cards"] > 0 and after["seats"] == before["seats"]
    assert after["cards"] == made(tmp_path / "alone.marshal", "cards2")["cards2"]  # as many as a file of it alone
    assert made(cache, "cards", sources={**SOURCES, "cards": SOURCES["cards2"]}) == {}
