"""The scripted simulator: a file of commands in, one JSON object per line out.

Contract (README, "Script format"): one command per line, ``#`` starts a comment, blank
lines are ignored. A script may carry its own options, in its header (the comments before its
first command): ``# options: --game alias24 --nuke mad`` (``header_options``; the command line
applies them). Output: a line for the initial state with ``"step": 0``, then one line per
command ``{"step", "input", "ok", "error", "state", "sounds"}`` (a kind may add its own, such as
its players' views and its screen: each table's ``report``; ``"sounds"`` names the cues the step
played, README "Sound"). A refused command leaves the state unchanged and the script goes on; a
malformed script is rejected as a whole before any command runs, naming the line and what was
expected there (never the line's words). Every kind of game shares all of this; each brings its
command words (a ``parse_command``) and its table (the grid games' ``SimTable``, each other
kind's in its own room).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from ..engine import InvalidAction
from ..engine.actions import Written
from ..engine.errors import Refusal
from ..hal import Command
from ..table import Outcome, parse_command

MAX_WAIT_S = 3600


class ScriptError(Refusal):
    """A script line that is not a command; its sentence names the file and line, and what was
    expected there, in words each language has (``phrase``), never the line's own words."""


@dataclass(frozen=True, slots=True)
class Wait(Written):
    """Scripts only: let this much (virtual) time pass, for the turn timer and holds."""

    WORD = "wait"

    seconds: float

    def __str__(self) -> str:
        return f"{self.WORD} {self.seconds:g}"


@dataclass(frozen=True, slots=True)
class ScriptLine:
    number: int
    text: str
    command: Command | Wait


class ScriptedTable(Protocol):
    """What a script plays on: a table on virtual time."""

    def wait(self, seconds: float) -> list[Outcome]: ...

    def do(self, command: Command) -> Outcome: ...

    def report(self) -> dict[str, object]: ...

    def sounds(self) -> list[str]: ...


def parse_line(text: str, parse_command: Callable[[str], Command] = parse_command) -> Command | Wait:
    """A game's command, or ``wait SECONDS``; raise ``InvalidAction`` saying what was expected."""
    words = text.split()
    if words[0].lower() != Wait.WORD:
        return parse_command(text)
    if len(words) != 2:
        raise InvalidAction("'wait' takes one argument, a number of seconds; got {count}", count=len(words) - 1)
    try:
        seconds = float(words[1])
    except ValueError:
        raise InvalidAction("'wait' takes a number of seconds", given=words[1]) from None
    if not 0 <= seconds <= MAX_WAIT_S:
        raise InvalidAction("'wait' takes 0 to {most} seconds", most=MAX_WAIT_S, given=words[1])
    return Wait(seconds)


def parse_script(
    lines: Iterable[str], name: str = "<script>", parse_command: Callable[[str], Command] = parse_command
) -> list[ScriptLine]:
    parsed = []
    for number, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            parsed.append(ScriptLine(number, text, parse_line(text, parse_command)))
        except InvalidAction as e:
            raise ScriptError("{name}:{number}: {expected}", name=name, number=number, expected=e.expected) from None
    return parsed


OPTIONS = re.compile(r"#\s*options:(?P<words>.*)", re.IGNORECASE)
"""A header line of options: ``# options: --game alias24 --seed 3``."""


def header_options(lines: Iterable[str], name: str = "<script>") -> list[tuple[int, list[str]]]:
    """The words of each ``# options:`` line of a script's header, with its line number, split as
    a shell would (quotes keep a --setup TEXT whole); ScriptError for an options line after the
    first command, or one whose quotes do not close."""
    found = []
    commanded = False
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        options = OPTIONS.match(text)
        if options is None:
            commanded = commanded or bool(text.split("#", 1)[0].strip())
            continue
        if commanded:
            raise ScriptError("{name}:{number}: a script's options come in its header, before its first command",
                              name=name, number=number)
        try:
            found.append((number, shlex.split(options.group("words"), comments=True)))
        except ValueError:
            raise ScriptError("{name}:{number}: the options line's quotes do not close", name=name,
                              number=number) from None
    return found


def play(table: ScriptedTable, line: ScriptLine) -> Outcome:
    """Play one line on ``table``: whether it was accepted, and why not."""
    if isinstance(line.command, Wait):
        table.wait(line.command.seconds)
        return Outcome(line.command, True)
    return table.do(line.command)


def run_script(table: ScriptedTable, script: list[ScriptLine], write: Callable[[str], object]) -> None:
    """Play each line through the simulated devices, writing a JSON line after each."""
    write(_line({"step": 0, "input": None, "ok": True, "error": None, **table.report(), "sounds": table.sounds()}))
    for step, line in enumerate(script, start=1):
        outcome = play(table, line)
        write(_line({"step": step, "input": line.text, "ok": outcome.ok, "error": outcome.error, **table.report(),
                     "sounds": table.sounds()}))


def _line(obj: dict[str, object]) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"
