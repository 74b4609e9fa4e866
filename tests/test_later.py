"""dataclasses and logging without inspect and traceback until used (pi_table.later): nothing
behaves otherwise. Each check runs in a fresh interpreter, as the test run has both imported."""

import json
import subprocess
import sys

import pytest

from pi_table import later


def fresh(code: str) -> dict:
    """What ``code`` (run after ``later.lean()`` in a new interpreter) puts in ``seen``."""
    child = ("import json, sys\nfrom pi_table import later\nlater.lean()\nseen = {}\n" + code +
             "\nprint(json.dumps(seen))")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_rarely_used_modules_wait_until_used():
    seen = fresh("import gc\n"
                 "seen['loaded'] = [name for name in ('dataclasses', 'logging', 'inspect', 'ast', 'dis', 'copy', "
                 "'traceback', 'linecache', 'tokenize') if name in sys.modules]\n"
                 "seen['collector'] = [gc.isenabled(), gc.get_freeze_count() > 0]")
    assert seen == {"loaded": ["dataclasses", "logging"], "collector": [True, True]}  # on again, the imports frozen


def test_a_class_without_a_docstring_gets_its_signature_from_the_real_inspect():
    seen = fresh("""
import dataclasses
@dataclasses.dataclass
class Point:
    x: int
    y: int = 0
seen['doc'] = Point.__doc__
seen['inspect'] = 'inspect' in sys.modules
seen['handed_over'] = dataclasses.inspect is sys.modules['inspect']
seen['copy'] = 'copy' in sys.modules
seen['as_dict'] = dataclasses.asdict(Point([1, 2]))  # its lists deep-copied: copy imported now
seen['copied'] = dataclasses.copy is sys.modules['copy']
""")
    assert seen == {"doc": "Point(x: int, y: int = 0)", "inspect": True, "handed_over": True, "copy": False,
                    "as_dict": {"x": [1, 2], "y": 0}, "copied": True}


def test_a_logged_exception_keeps_its_traceback():
    seen = fresh("""
import io, logging
stream = io.StringIO()
log = logging.getLogger('t')
log.addHandler(logging.StreamHandler(stream))
try:
    {}['missing']
except KeyError:
    log.exception('went wrong')
seen['text'] = stream.getvalue()
seen['handed_over'] = logging.traceback is sys.modules['traceback']
""")
    assert seen["text"].startswith("went wrong\nTraceback (most recent call last):\n")
    assert "KeyError: 'missing'" in seen["text"]
    assert seen["handed_over"] is True


def test_a_module_imported_afterwards_gets_the_real_one():
    """The stand-ins are in sys.modules only while dataclasses and logging import."""
    seen = fresh("import inspect, traceback\nseen['real'] = [type(m).__name__ for m in (inspect, traceback)]\n"
                 "seen['same'] = inspect.signature is sys.modules['inspect'].signature")
    assert seen == {"real": ["module", "module"], "same": True}


def test_a_module_already_imported_is_left_as_it_is():
    import dataclasses

    assert later.imported("dataclasses", "inspect") is dataclasses
    assert type(dataclasses.inspect).__name__ == "module"  # this test run imported both before: no stand-in


def test_a_module_that_cannot_be_imported_leaves_no_stand_in():
    """Neither in sys.modules nor for finish(), which the daemon calls once READY."""
    with pytest.raises(ModuleNotFoundError):
        later.imported("a_module_that_does_not_exist", "pi_table_stand_in_probe")
    assert "pi_table_stand_in_probe" not in sys.modules
    later.finish()


def test_finish_hands_every_real_module_over():
    """What the daemon does once READY: nothing is left to import at a first use."""
    seen = fresh("import dataclasses, logging\nlater.finish()\n"
                 "seen['real'] = [dataclasses.inspect is sys.modules.get('inspect'), "
                 "logging.traceback is sys.modules.get('traceback')]")
    assert seen == {"real": [True, True]}
