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

try:
    from _sha512 import sha512  # type: ignore[import-not-found]  # random's, which every start loads (hashlib: OpenSSL)
except ImportError:  # a Python built without it: hashlib's, from OpenSSL
    from hashlib import sha512

FILE = os.path.join(os.path.dirname(__file__), "__pycache__", f"dataclasses.{sys.implementation.cache_tag}.marshal")
MOST = 4096  # methods kept; past this (a checkout edited for months) the file keeps only this process's

_index: dict[bytes, tuple[int, int]] = {}  # each text's digest: where its marshalled code lies in _kept
_kept = memoryview(b"")
_compiled: dict[bytes, bytes] = {}  # texts compiled by this process, not yet in the file: their marshalled code
_used: set[bytes] = set()  # the file's texts this process took
_code: dict[bytes, CodeType] = {}  # each text's code once made in this process: the same text, the same code


def install(path: str = FILE) -> None:
    """From now on dataclasses take their methods' code from the file at ``path``, and the ones
    it lacks are added to it when the process ends (unless Python writes no bytecode: root
    running a café's checkout leaves no file of its own in it). Once a process is enough.

    The file is an index (each method's text by its digest) and the methods' marshalled code,
    of which a start unmarshals only the methods it makes: the texts themselves, and the
    methods of modules it does not import, would be most of what it reads."""
    global _kept
    import dataclasses  # here, not above: pi-table imports it first without inspect (pi_table.later)

    if getattr(dataclasses, "exec", None) is _exec:
        return
    try:
        with open(path, "rb") as file:
            index, kept = marshal.loads(file.read())  # read whole: marshal.load reads a file in small pieces
        if isinstance(index, dict) and isinstance(kept, bytes):
            _index.update(index)  # each entry checked when its method is made (most are not, at a start)
            _kept = memoryview(kept)
    except (OSError, ValueError, EOFError, TypeError):  # none yet, or from a damaged write: compile
        pass
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # the name dataclasses' builder calls
    if not sys.dont_write_bytecode:  # -B or PYTHONDONTWRITEBYTECODE: nothing written, as for .pyc files
        atexit.register(save, path)


def _fits(span: object, size: int) -> bool:
    """An index entry that can be where a method's code lies: two whole numbers inside the file."""
    return (isinstance(span, tuple) and len(span) == 2 and type(span[0]) is int and type(span[1]) is int
            and 0 <= span[0] < span[1] <= size)


def _exec(source, globals=None, locals=None):
    """``exec`` as dataclasses call it, with the code for a text compiled at most once."""
    if isinstance(source, str):
        source = _code_of(source)
    return exec(source, globals, locals)  # noqa: S102  (dataclasses' own call, passed on)


def _code_of(text: str) -> CodeType:
    """The code for one method's text: made once a process, from the file where it has it."""
    key = digest(text)
    code = _code.get(key)
    if code is None:
        code = _kept_code(key)
        if code is None:
            code = compile(text, "<string>", "exec")
            _compiled[key] = marshal.dumps(code)
        else:
            _used.add(key)
        _code[key] = code
    return code


def digest(text: str) -> bytes:
    """A method's key in the file: 128 bits of its text's SHA-512."""
    return sha512(text.encode()).digest()[:16]


def _kept_code(key: bytes) -> CodeType | None:
    """The file's code for this digest (None when it has none, or the entry is damaged)."""
    span = _index.get(key)
    if span is None or not _fits(span, len(_kept)):
        return None
    try:
        code = marshal.loads(_kept[span[0]:span[1]])
    except (ValueError, EOFError, TypeError, IndexError):
        return None
    return code if isinstance(code, CodeType) else None


def save(path: str = FILE) -> None:
    """Write the file again when this process compiled methods it lacked; readers see the old
    file or the new one, never half of one. A folder it may not write is left as it is."""
    if not _compiled:
        return
    import tempfile  # a start that compiled nothing new does without it

    # the file's entries (a damaged one, compiled again, is in _compiled): all, or past MOST this process's
    keep = _index if len(_index) + len(_compiled) <= MOST else _used
    entries = [(key, bytes(_kept[_index[key][0]:_index[key][1]])) for key in keep
               if key not in _compiled and _fits(_index[key], len(_kept))]
    index, kept, at = {}, bytearray(), 0
    for key, code in (*entries, *_compiled.items()):
        index[key] = (at, at + len(code))
        kept += code
        at += len(code)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".dataclasses-")
        with os.fdopen(handle, "wb") as file:
            marshal.dump((index, bytes(kept)), file)
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
