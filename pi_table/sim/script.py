"""The scripted simulator: a file of commands in, one JSON object per line out.

Contract (README, "Script format"): one command per line, ``#`` starts a comment, blank
lines are ignored. Output: a line for the initial state with ``"step": 0``, then one line per
command ``{"step", "input", "ok", "error", "state"}``. A refused command leaves the state
unchanged and the script goes on; a malformed script is rejected as a whole before any
command runs, naming the line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..engine import InvalidAction
from ..hal import Command
from ..table import parse_command
from .harness import SimTable


class ScriptError(ValueError):
    """A script line that is not a command; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class ScriptLine:
    number: int
    text: str
    command: Command


def parse_script(lines: Iterable[str], name: str = "<script>") -> list[ScriptLine]:
    parsed = []
    for number, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            parsed.append(ScriptLine(number, text, parse_command(text)))
        except InvalidAction as e:
            raise ScriptError(f"{name}:{number}: {e} (line: {raw.rstrip()!r})") from None
    return parsed


def run_script(table: SimTable, script: list[ScriptLine], write: Callable[[str], object]) -> None:
    """Play each line through the simulated devices, writing a JSON line after each."""
    write(_line({"step": 0, "input": None, "ok": True, "error": None, "state": table.session.table_view().to_json()}))
    for step, line in enumerate(script, start=1):
        outcome = table.do(line.command)
        state = table.session.table_view().to_json()
        write(_line({"step": step, "input": line.text, "ok": outcome.ok, "error": outcome.error, "state": state}))


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"
