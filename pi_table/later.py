"""Two of the standard library's modules imported without the modules they rarely use.

``dataclasses`` imports ``inspect`` (and with it ``ast`` and ``dis``) only to write a signature
as the docstring of a class that has none, and ``copy`` only for ``asdict``'s copies (a new
game's rules written to its journal; a start that resumes a game makes none); ``logging``
imports ``traceback`` (with ``linecache``, ``tokenize`` and ``textwrap``) only to format an
exception or a stack. Every class of the table's has a docstring, and a table that starts well
logs no exception: those imports were about 5 ms of the daemon's start to READY on a two-core
machine (``pi-table bench daemon``).

``lean()``, which ``pi-table`` calls first thing, imports the two with a stand-in for each rarely
used module; the stand-in imports the real module at its first use and hands it over, so nothing
behaves otherwise, only later (the daemon has them all imported once READY: ``finish()``). Where
the two are already imported (a test run, a program that imports the table's modules itself),
it does nothing.
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

LEAN = {"dataclasses": ("inspect", "copy"), "logging": ("traceback",)}
"""Each module ``lean()`` imports, and the modules it may do without until they are used."""


class _StandIn(ModuleType):
    """Where ``user`` imported the module of this name: the real one, imported at its first use."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.user: ModuleType | None = None  # the module that imported this stand-in, once imported

    def __getattr__(self, attribute: str) -> object:
        return getattr(self.hand_over(), attribute)

    def hand_over(self) -> ModuleType:
        """The real module, imported if it is not yet, and from now on the user's."""
        if sys.modules.get(self.__name__) is self:  # used while its user imports: the real one takes its place
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        if self.user is not None and getattr(self.user, self.__name__, None) is self:
            setattr(self.user, self.__name__, real)
        return real


_stand_ins: list[_StandIn] = []  # every stand-in made, for finish()


def imported(name: str, *later: str) -> ModuleType:
    """Import ``name`` with each module of ``later`` that is not yet imported stood in for until used.

    The stand-ins are in ``sys.modules`` only while ``name`` imports: any module that imports
    one of ``later`` afterwards gets the real one."""
    if name in sys.modules:
        return sys.modules[name]
    stand_ins = {other: _StandIn(other) for other in later if other not in sys.modules}
    sys.modules.update(stand_ins)
    try:
        module = importlib.import_module(name)
    finally:
        for other, stand_in in stand_ins.items():
            if sys.modules.get(other) is stand_in:
                del sys.modules[other]
    for stand_in in stand_ins.values():
        stand_in.user = module
    _stand_ins.extend(stand_ins.values())
    return module


@contextmanager
def lasting() -> Iterator[None]:
    """For a start's imports and settings, which live as long as the process: the collector is
    off while they are made (a collection, run after every 700 objects, finds nothing to free in
    them: some 5 ms of the daemon's start, one of the middle generation 1 ms), and what the
    process has made is then frozen out of every later collection."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        if collecting:
            gc.enable()


def lean() -> None:
    """Import ``dataclasses`` and ``logging`` as ``LEAN`` says (nothing where they already are),
    as lasting objects."""
    if all(name in sys.modules for name in LEAN):
        return
    with lasting():
        for name, later in LEAN.items():
            imported(name, *later)


def finish() -> None:
    """Import what ``lean()`` left for later and hand it over. The daemon calls this once it is
    READY: a process that runs for days then never imports at a first use, which could come
    when nothing can be imported any more (an exception logged as the interpreter shuts down)."""
    for stand_in in _stand_ins:
        stand_in.hand_over()
