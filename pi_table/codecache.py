"""The dataclasses' generated methods, compiled once and kept beside the modules' bytecode.

On Python 3.11 a frozen dataclass is made by compiling six small methods from source text at
import (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``),
and the table makes about 80 of them before it is READY: compiling them was a quarter of the
daemon's start. Python keeps the modules' own bytecode in ``__pycache__``; this keeps those
methods' there too, keyed by 128 bits of the SHA-512 of their exact source text, so the same
text always gets the code the compiler made of it and nothing can go stale. ``pi-table``
installs it first thing (``cli``); a release's build fills the file (``python -m
pi_table.codecache``), since the service may not write its own installation; where the file is
missing, unreadable or cannot be written, methods are compiled as they always were.
"""

from __future__ import annotations

import atexit
import marshal
import os
import sys
from types import CodeType

try:  # random's, which every start loads (hashlib's would load OpenSSL): _sha2 from Python 3.12, _sha512 before
    from _sha2 import sha512  # type: ignore[import-not-found]
except ImportError:
    try:
        from _sha512 import sha512  # type: ignore[import-not-found]
    except ImportError:  # a Python built without either
        from hashlib import sha512

FILE = os.path.join(os.path.dirname(__file__), "__pycache__", f"dataclasses.{sys.implementation.cache_tag}.marshal")

_index: dict[str, tuple[int, int]] = {}  # each module's name: where its methods lie in _kept
_kept = memoryview(b"")
_groups: dict[str, dict[bytes, CodeType]] = {}  # each module's methods as the file has them, once read
_lacking: dict[str, set[bytes]] = {}  # each module's methods the file lacks for it (compiled, or another module's)
_used: dict[str, set[bytes]] = {}  # each module's methods this process made
_code: dict[bytes, CodeType] = {}  # each text's code once made in this process: the same text, the same code


def install(path: str = FILE) -> None:
    """From now on dataclasses take their methods' code from the file at ``path``, and the ones
    it lacks are added to it when the process ends (unless Python writes no bytecode: root
    running a café's checkout leaves no file of its own in it). Once a process is enough.

    The file holds each module's methods together (by their texts' digests), and a start reads
    the methods of the modules it imports, each module's at once (one by one was twice the
    time): the texts themselves, and other modules' methods, would be most of what it reads."""
    global _kept
    import dataclasses  # here, not above: pi-table imports it first without inspect (pi_table.later)

    if getattr(dataclasses, "exec", None) is _exec:
        return
    try:
        with open(path, "rb") as file:
            index, kept = marshal.loads(file.read())  # read whole: marshal.load reads a file in small pieces
        if isinstance(index, dict) and isinstance(kept, bytes):
            _index.update(index)  # each entry checked when its module's first method is made
            _kept = memoryview(kept)
    except (OSError, ValueError, EOFError, TypeError):  # none yet, or from a damaged write: compile
        pass
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # the name dataclasses' builder calls
    if not sys.dont_write_bytecode:  # -B or PYTHONDONTWRITEBYTECODE: nothing written, as for .pyc files
        atexit.register(save, path)


def _fits(span: object, size: int) -> bool:
    """An index entry that can be where a module's methods lie: two whole numbers inside the file."""
    return (isinstance(span, tuple) and len(span) == 2 and type(span[0]) is int and type(span[1]) is int
            and 0 <= span[0] < span[1] <= size)


def _exec(source, globals=None, locals=None):
    """``exec`` as dataclasses call it (``globals`` is the class's module's, or empty where that
    module is not in ``sys.modules``), with the code for a text compiled at most once."""
    if isinstance(source, str):
        source = _code_of(source, globals.get("__name__", "") if isinstance(globals, dict) else "")
    return exec(source, globals, locals)  # noqa: S102  (dataclasses' own call, passed on)


def _code_of(text: str, module: str) -> CodeType:
    """The code for one method's text, made by ``module``: once a process, from the file where it has it."""
    key = digest(text)
    kept = _group(module).get(key)
    code = _code.get(key) or (kept if type(kept) is CodeType else compile(text, "<string>", "exec"))
    _code[key] = code
    if type(kept) is not CodeType:  # compiled, or made for another module first: the file gets it for this one
        _lacking.setdefault(module, set()).add(key)
    _used.setdefault(module, set()).add(key)
    return code


def digest(text: str) -> bytes:
    """A method's key in the file: 128 bits of its text's SHA-512."""
    return sha512(text.encode()).digest()[:16]


def _group(module: str) -> dict[bytes, CodeType]:
    """The file's methods for ``module`` (none when it has none, or they are damaged)."""
    group = _groups.get(module)
    if group is None:
        span, read = _index.get(module), None
        if span is not None and _fits(span, len(_kept)):
            try:
                read = marshal.loads(_kept[span[0]:span[1]])
            except (ValueError, EOFError, TypeError):
                pass
        _groups[module] = group = read if isinstance(read, dict) else {}
    return group


def save(path: str = FILE) -> None:
    """Write the file again when it lacked methods this process made; readers see the old file
    or the new one, never half of one. A folder it may not write is left as it is.

    A module that lacked some keeps the ones this process made of it, so the methods of a
    class since changed leave the file; the modules this process did not touch keep theirs (a
    module renamed leaves its old entry, a few kilobytes, until the next release's file)."""
    if not _lacking:
        return
    import tempfile  # a start that compiled nothing new does without it

    groups = {module: bytes(_kept[span[0]:span[1]]) for module, span in _index.items()
              if module not in _lacking and isinstance(module, str) and _fits(span, len(_kept))}
    for module in _lacking:
        groups[module] = marshal.dumps({key: _code[key] for key in _used[module]})
    index, kept, at = {}, bytearray(), 0
    for module, methods in groups.items():
        index[module] = (at, at + len(methods))
        kept += methods
        at += len(methods)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".dataclasses-")
        with os.fdopen(handle, "wb") as file:
            marshal.dump((index, bytes(kept)), file)
        os.chmod(temporary, 0o644)  # read by every user that runs pi-table, as the .pyc files are
        os.replace(temporary, path)
    except OSError:
        return
    _lacking.clear()


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
