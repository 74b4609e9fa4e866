"""No test leaves a process behind: a pytest plugin (tests/conftest.py loads it) that fails the test
whose process still runs once the test and its fixtures have ended, naming it, and ends it.

The test process is made a child subreaper (prctl's PR_SET_CHILD_SUBREAPER), so a process that
left its parent and its session (Mosquitto started by tests/fake_systemctl.py with a session of its
own, a daemon that forked twice) is adopted by it, not by init, and is found among its
descendants. What a test starts is looked for after its teardown; what a test using a fixture
wider than a test (a module's browser, a booted container) starts may be that fixture's, and is
looked for once the module's fixtures have ended, as a leak of the test it began in. A café
broker of a league test ran, spinning, for 40 minutes of a CI run before this (issue 77)."""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import time

import pytest

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
GRACE_VARIABLE = "PI_TABLE_LEFT_BEHIND_GRACE_S"
GRACE_S = float(os.environ.get(GRACE_VARIABLE, "5"))
"""How long a process the test asked to end may take to go: a bound on a failure only (the
check's own test, which leaves processes on purpose, waits less)."""
BEFORE = pytest.StashKey[set[int]]()
_pending: dict[int, str] = {}  # a process begun in a test of a module still running: the test's id


def adopt_orphans() -> None:
    """This process becomes the parent of every descendant whose parent ends (Linux 3.4)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                found.update(int(child) for child in listed.read().split())
        except OSError:
            continue
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs: neither gone nor a zombie awaiting its parent's wait."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def descendants() -> set[int]:
    """Every process below this one that still runs."""
    found: set[int] = set()
    frontier = _children(os.getpid())
    while frontier:
        found |= frontier
        frontier = {child for pid in frontier for child in _children(pid)} - found
    return {pid for pid in found if _running(pid)}


def command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as line:
            return line.read().replace(b"\0", b" ").decode(errors="replace").strip()[:200] or "?"
    except OSError:
        return "?"


def _wider_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture that outlives it (a module's)."""
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(definition.scope != "function"
                                    for definitions in info.name2fixturedefs.values() for definition in definitions)


def pytest_configure(config: pytest.Config) -> None:
    try:
        adopt_orphans()
    except OSError as e:  # qemu-user (tests/arm64/check) knows no PR_SET_CHILD_SUBREAPER: EINVAL
        if e.errno != errno.EINVAL:
            raise
        # there only the processes still below a test's are looked for: an orphan goes to init
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"this system cannot adopt orphaned processes ({e}): a test's processes are found while their parent runs"),
            stacklevel=2)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item):
    item.stash[BEFORE] = descendants()
    return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    try:
        return (yield)
    finally:
        _look(item, nextitem)


def _look(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After ``item``'s teardown: its processes still running (those of its module's, once the
    module's fixtures have ended) ended, and the test failed naming them."""
    new = {pid: item.nodeid for pid in descendants() - item.stash.get(BEFORE, set()) - set(_pending)}
    if nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None):
        new |= _pending
        _pending.clear()
    elif _wider_fixture(item):
        _pending.update(new)
        return
    deadline = time.monotonic() + GRACE_S
    while (left := {pid: test for pid, test in new.items() if _running(pid)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not left:
        return
    said = [f"{pid} ({command(pid)}), begun in {test}" for pid, test in sorted(left.items())]
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    pytest.fail(f"{len(said)} process(es) left running after the test, now killed: " + "; ".join(said), pytrace=False)
