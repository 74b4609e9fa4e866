"""Writing the configuration: the whole file from the settings (``check-config --defaults``), and
keys changed in place (the staff page, ``tune --write``).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from pathlib import Path

from ..engine.errors import Refusal
from .loading import parse_config
from .schema import OPTIONS, SECTIONS, describe
from .settings import Config


def to_toml(config: Config, comments: bool = True) -> str:
    """The whole configuration as a TOML file (every key, defaults included), which
    ``parse_config`` reads back to the same values."""
    lines = [f"# pi-table configuration{f' (from {config.source})' if config.source else ' (every key at its default)'}"]
    for section in SECTIONS:
        lines += ["", f"[{section}]"]
        for option in (o for o in OPTIONS if o.section == section):
            value = toml_value(config.values[option.key])
            lines.append(f"{option.name} = {value}" + (f"  # {option.help}" if comments else ""))
    return "\n".join(lines) + "\n"


def toml_value(value: object) -> str:
    """``value`` as TOML writes it; ValueError for what no key of this file holds (a missing
    value, a table), so a change from a form or a command never writes a file TOML cannot read."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's string escapes are TOML's too
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    if isinstance(value, int | float) and math.isfinite(value):
        return repr(value)
    raise Refusal("expected a string, a number, true or false, or a list of them, found {found}",
                  found=describe(value))


def write_keys(path: Path, changes: dict[str, str], machine: bool = False) -> None:
    """Set each ``section.key`` of ``changes`` to its value (TOML text) in ``path``, keeping every
    other line; the new file is checked as the daemon will check it (ConfigError: nothing
    written; with ``machine``, against this machine too, as ``check-config``) and replaces the
    old at once (a power cut leaves one or the other, never half)."""
    new = path.read_text(encoding="utf-8") if path.exists() else ""
    for dotted, value in changes.items():
        section, _, key = dotted.rpartition(".")
        new = _with_key(new, section, key, f"{key} = {value}")
    parse_config(new, path, machine)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(new)
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _with_key(text: str, section: str, key: str, line: str) -> str:
    """``text`` with ``key`` in ``[section]`` set to ``line``: the old value (however many lines
    its array takes) replaced in place, or the line put first in the section, or the section added."""
    lines = text.splitlines()
    start = next((i for i, each in enumerate(lines) if _header(each) == section), None)
    if start is None:
        return text + ("\n" if text and not text.endswith("\n") else "") + f"\n[{section}]\n{line}\n"
    at = start + 1
    while at < len(lines) and _header(lines[at]) is None:
        if re.match(r"^\s*" + re.escape(key) + r"\s*=", lines[at]):
            last, depth = at, 0
            while True:  # an array may go on over several lines: to where its brackets close
                code = lines[last].split("#", 1)[0]
                depth += code.count("[") - code.count("]")
                if depth <= 0 or last + 1 >= len(lines):
                    break
                last += 1
            lines[at:last + 1] = [line]
            return "\n".join(lines) + "\n"
        at += 1
    lines.insert(start + 1, line)
    return "\n".join(lines) + "\n"


def _header(line: str) -> str | None:
    """The table a header line opens (``[touch]``); a bare name, so no line of an array of
    numbers looks like one."""
    match = re.match(r"^\s*\[\s*([A-Za-z_][\w.-]*)\s*\]\s*(#.*)?$", line)
    return match[1] if match else None

