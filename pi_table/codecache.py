"""The dataclasses' generated methods, compiled once and kept beside the modules' bytecode.

On Python 3.11 a frozen dataclass is made by compiling six small methods from source text at
import (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``),
and the table makes about 80 of them before it is READY: compiling them was a quarter of the
daemon's start. Python keeps the modules' own bytecode in ``__pycache__``; this keeps those
methods' there too, keyed by their exact source text, so the same text always gets the code the
compiler made of it and nothing can go stale. ``pi-table`` installs it first thing (``cli``);
a release's build fills the file (``python -m pi_table.codecache``), since the service may not
write its own installation; where the file is missing, unreadable or cannot be written, methods
are compiled as they always were.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import os
import sys
from types import CodeType

FILE = os.path.join(os.path.dirname(__file__), "__pycache__", f"dataclasses.{sys.implementation.cache_tag}.marshal")
MOST = 4096  # methods kept; past this (a checkout edited for months) the file starts afresh

_code: dict[str, CodeType] = {}
_compiled: list[str] = []  # texts compiled by this process, not yet in the file


def install(path: str = FILE) -> None:
    """From now on dataclasses take their methods' code from the file at ``path``, and the ones
    it lacks are added to it when the process ends (unless Python writes no bytecode: root
    running a café's checkout leaves no file of its own in it). Once a process is enough."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    try:
        with open(path, "rb") as file:
            kept = marshal.loads(file.read())  # read whole: marshal.load reads a file in small pieces, 10 x slower
        _code.update((text, code) for text, code in kept if isinstance(text, str) and isinstance(code, CodeType))
    except (OSError, ValueError, EOFError, TypeError):  # none yet, or from a damaged write: compile
        pass
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # the name dataclasses' builder calls
    if not sys.dont_write_bytecode:  # -B or PYTHONDONTWRITEBYTECODE: nothing written, as for .pyc files
        atexit.register(save, path)


def _exec(source, globals=None, locals=None):
    """``exec`` as dataclasses call it, with the code for a text compiled at most once."""
    if isinstance(source, str):
        code = _code.get(source)
        if code is None:
            code = _code[source] = compile(source, "<string>", "exec")
            _compiled.append(source)
        source = code
    return exec(source, globals, locals)  # noqa: S102  (dataclasses' own call, passed on)


def save(path: str = FILE) -> None:
    """Write the file again when this process compiled methods it lacked; readers see the old
    file or the new one, never half of one. A folder it may not write is left as it is."""
    if not _compiled:
        return
    import tempfile  # a start that compiled nothing new does without it

    kept = list(_code.items()) if len(_code) <= MOST else [(text, _code[text]) for text in _compiled]
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".dataclasses-")
        with os.fdopen(handle, "wb") as file:
            marshal.dump(kept, file)
        os.chmod(temporary, 0o644)  # read by every user that runs pi-table, as the .pyc files are
        os.replace(temporary, path)
    except OSError:
        return
    _compiled.clear()


def main(argv: list[str] | None = None) -> int:
    """Import every module of the table, so the file (``FILE``, or the one named) holds every
    dataclass's methods."""
    import pkgutil
    from importlib import import_module

    args = sys.argv[1:] if argv is None else argv
    path = args[0] if args else FILE
    install(path)
    package = import_module("pi_table")
    for module in pkgutil.walk_packages(package.__path__, "pi_table."):
        if module.name.endswith("__main__") or module.name.startswith("pi_table.firmware."):  # the board's code runs its loop
            continue
        try:
            import_module(module.name)
        except ImportError:  # a device's library this machine lacks: its classes compile when used
            continue
    save(path)
    print(f"{len(_code)} dataclass methods compiled into {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
