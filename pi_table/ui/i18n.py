"""The screen's languages: English msgids, an Italian gettext catalogue, and the engine's words.

The screen's own strings are English msgids marked ``_("...")`` (looked up as drawn) or
``N_("...")`` (a table entry, looked up later); ``msgids_in_source`` finds both, so a test can
check that the Italian catalogue leaves none out. The engine refuses actions with English
sentences; ``translate_message`` matches them against the msgid templates in ``MESSAGES``
(placeholders such as ``{cell}`` and ``{team}``) and shows anything it cannot match as it is.

The catalogue is ``locale/it/LC_MESSAGES/pi_table.po``; ``python -m pi_table.ui.i18n`` compiles it
to the ``.mo`` beside it (GNU gettext's binary format, written here so no gettext tools are needed).
"""

from __future__ import annotations

import argparse
import ast
import gettext
import re
import struct
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import ClassVar

DOMAIN = "pi_table"
LOCALE_DIR = Path(__file__).parent / "locale"
LANGUAGES = ("en", "it")


def N_(msgid: str) -> str:
    """Mark a string for the catalogue without translating it yet (a table entry)."""
    return msgid


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalogue for ``lang``; English is the msgids themselves."""
    if lang not in LANGUAGES:
        raise ValueError(f"the screen speaks {' or '.join(LANGUAGES)}, not {lang!r}")
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang])


class TeamWord:
    """A team's name inside a sentence. Italian adjectives agree with their noun, so a
    template picks the form: ``{team}`` la squadra rossa, ``{team:m}`` l'agente rosso,
    ``{team:mp}`` gli agenti rossi. English has one form."""

    FORMS: ClassVar[dict[str, dict[str, dict[str, str]]]] = {"it": {"red": {"": "rossa", "m": "rosso", "mp": "rossi"}, "blue": {"": "blu", "m": "blu", "mp": "blu"}}}

    def __init__(self, team: str, lang: str) -> None:
        self.team = str(team)
        self.lang = lang

    def __format__(self, spec: str) -> str:
        forms = self.FORMS.get(self.lang)
        return forms[self.team][spec] if forms else self.team

    def __str__(self) -> str:
        return format(self, "")


# --- the engine's sentences -----------------------------------------------------------------

MESSAGES: tuple[str, ...] = (
    # refusals (pi_table/engine/game.py, codenames.py, alias24.py, record.py; the table loop)
    N_("the game is over ({reason}): undo or start a new game"),
    N_("{side} already has its clue: touch a card or end the turn"),
    N_("{side} already has its clue: touch an alias or end the turn"),
    N_("the {team} spymaster must enter the clue number before the first touch"),
    N_("the {team} mastermind must enter the clue number before the first touch"),
    N_("cell {cell} has no card"),
    N_("cell {cell} has no alias"),
    N_("card {cell} is already revealed"),
    N_("alias {cell} is already targeted"),
    N_("{side} must guess at least once before ending its turn"),
    N_("Alias 24 has no invalid-clue penalty"),
    N_("a clue can be ruled invalid only before the first guess; now it stands"),
    N_("there is no clue to rule invalid now ({state})"),
    N_("a spymaster may cover a card only right after the other team's penalty"),
    N_("the spymaster covers an opponent agent only after each of the team's turns"),
    N_("Alias 24 has no covers: only targeting eliminates an alias"),
    N_("card {cell} is not a hidden {owner} agent: cover one of {owner}'s"),
    N_("the turn timer does not run now: {waiting}"),
    N_("all the cards are already on the table"),
    N_("all the aliases are already on the table"),
    N_("{side} places the next card on cell {expected}, not {cell}"),
    N_("{side} places the next alias on cell {expected}, not {cell}"),
    N_("there is nothing to undo"),
    N_("turn the dial to the clue number first, then push it"),
    # what the table waits for, inside the refusals above
    N_("the cards are still being placed: {side} places the next one on cell {cell}"),
    N_("the aliases are still being placed: {side} places the next one on cell {cell}"),
    N_("the {team} spymaster may cover one of {team}'s agents, then gives the clue"),
    N_("the spymaster must first cover one {team} agent for the simulated opponent"),
    # who plays, and where a game stands
    N_("the {team} team"),
    N_("the operative (guessing for {team})"),
    N_("the game is over"),
    N_("{team} is in its clue phase"),
    N_("{team} is in its guess phase"),
    N_("{team} is in its cover phase"),
    N_("{team} is in its place phase"),
    # why a game ended (TableView.reason)
    N_("{team} found all its agents"),
    N_("{team} touched {other}'s last agent"),
    N_("{team} touched the assassin"),
    N_("{team} has all its agents covered"),
    N_("{team} lost its last asset"),
    N_("{team} eliminated its own last asset"),
    N_("{team} set off the armed nuke: both teams lose"),
    N_("{team} set off the nuke"),
    # the devices' warnings (drivers/touchboard.py, table/input.py)
    N_("touch board disconnected"),
    N_("wipe the table: several cards are touched at once"),
    N_("the pad under card {cell} is stuck: wipe it; it counts again once released"),
    # a damaged journal found at start (table/session.py)
    N_("journal damaged at action {action}: {lost} of {written} actions lost"),
    N_("the last game's journal is damaged beyond use: a new game was dealt"),
)
"""English templates of every engine and device sentence the screen translates."""

CODEX_MESSAGES = (
    # where a phase stands (Codex.step_words), and why a game ended
    N_("the agents are sending their messages"),
    N_("the agents are in their private turn"),
    N_("the discussion is on"),
    N_("the agents are voting"),
    N_("{agent} is at the truth machine"),
    N_("{agent} entered {team}'s code: {team} wins"),
    N_("the game is over ({reason}): start a new game"),
    # refusals that tell nobody's secret: the step, what every agent may do, public facts
    N_("{what} only in the messages step: {words}"),
    N_("{what} only in the private step: {words}"),
    N_("{what} only in the discussion step: {words}"),
    N_("{what} only in the vote step: {words}"),
    N_("{what} only in the truth step: {words}"),
    N_("messages are sent"),
    N_("a code is entered"),
    N_("a Hacker blocks"),
    N_("the Profiler asks"),
    N_("an agent ends its private turn"),
    N_("the discussion ends"),
    N_("agents vote"),
    N_("a fact is revealed"),
    N_("{agent} has already sent its message this phase"),
    N_("an agent sends its message to another agent, not to itself"),
    N_("the fragment goes with every message: add the codename, faction, role or position"),
    N_("{agent} has already ended its private turn this phase"),
    N_("{agent} has already voted this phase"),
    N_("an agent votes for another agent, not for itself"),
    N_("{agent} is at the truth machine, not {target}"),
    N_("the codename is public: reveal the faction, role, position or fragment"),
    N_("{agent} already revealed its faction here: reveal another fact"),
    N_("{agent} already revealed its role here: reveal another fact"),
    N_("{agent} already revealed its position here: reveal another fact"),
    N_("{agent} already revealed its fragment here: reveal another fact"),
)
"""Codex's sentences that anyone at the table may read. Refusals that would give an agent's
secret away (its role, a Hacker's block, a code's result) are left out on purpose: the table's
screen shows a Codex refusal only when it is one of these (``template_of``)."""

MESSAGES += CODEX_MESSAGES

_FIELD = re.compile(r"\{(\w+)\}")
_TEAMS = {"team", "other", "owner"}
_NUMBERS = {"cell", "expected", "action", "lost", "written"}
_AGENTS = {"agent", "target"}  # Codex's agents as the engine names them: "Moon (seat 2)"


def _pattern(template: str) -> re.Pattern[str]:
    """A template as a regular expression: numbers, team words, and nested sentences."""
    parts, seen, at = [], set(), 0
    for field in _FIELD.finditer(template):
        parts.append(re.escape(template[at : field.start()]))
        name = field.group(1)
        if name in seen:
            parts.append(f"(?P={name})")
        elif name in _NUMBERS:
            parts.append(f"(?P<{name}>[0-9]+)")
        elif name in _TEAMS:
            parts.append(f"(?P<{name}>red|blue)")
        elif name in _AGENTS:
            parts.append(f"(?P<{name}>[^\\s()]+ \\(seat [0-9]\\))")
        else:
            parts.append(f"(?P<{name}>.+)")
        seen.add(name)
        at = field.end()
    parts.append(re.escape(template[at:]))
    return re.compile("".join(parts) + r"\Z")


_PATTERNS = tuple((template, _pattern(template)) for template in MESSAGES if "{" in template)


def _match(text: str) -> tuple[str, dict[str, str]] | None:
    """The template ``text`` was made from and its fields' text, or None."""
    if "{" not in text and text in MESSAGES:
        return text, {}
    for template, pattern in _PATTERNS:
        match = pattern.match(text)
        if match is None:
            continue
        fields = match.groupdict()
        nested = (value for name, value in fields.items() if name not in _TEAMS | _NUMBERS | _AGENTS)
        if all(_match(value) is not None for value in nested):
            return template, fields
    return None


def template_of(text: str) -> str | None:
    """The English template an engine or device sentence was made from, or None."""
    matched = _match(text)
    return None if matched is None else matched[0]


def agent_name(who: str, lang: str) -> str:
    """An agent as the engine names it, ``Moon (seat 2)``, in ``lang``."""
    codename, seat = who.removesuffix(")").rsplit(" (seat ", 1)
    return translation(lang).gettext(N_("{codename} (seat {seat})")).format(codename=codename, seat=seat)


def translate_message(text: str, lang: str) -> str | None:
    """An engine or device sentence in ``lang``, or None when no template matches it."""
    matched = _match(text)
    if matched is None:
        return None
    template, fields = matched
    values: dict[str, object] = {}
    for name, value in fields.items():
        if name in _TEAMS:
            values[name] = TeamWord(value, lang)
        elif name in _NUMBERS:
            values[name] = value
        elif name in _AGENTS:
            values[name] = agent_name(value, lang)
        else:
            values[name] = translate_message(value, lang)
    return translation(lang).gettext(template).format(**values)


def say(text: str, lang: str) -> str:
    """What the screen shows for an engine or device sentence: translated when known."""
    return translate_message(text, lang) or text


# --- the catalogue files --------------------------------------------------------------------

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(token: str, where: str) -> str:
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise ValueError(f"{where}: expected a quoted string, found {token!r}")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), token[1:-1])


def parse_po(text: str, name: str = "catalogue") -> dict[str, str]:
    """The translated entries of a .po file (msgid -> msgstr); fuzzy and empty ones left out,
    as msgfmt leaves them out."""
    entries: dict[str, str] = {}
    msgid = msgstr = None
    current = None
    fuzzy = next_fuzzy = False

    def finish() -> None:
        if msgid is not None and msgstr and not fuzzy:
            if msgid in entries:
                raise ValueError(f"{name}: msgid {msgid!r} appears twice")
            entries[msgid] = msgstr

    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        where = f"{name}:{number}"
        if line.startswith("#,") and "fuzzy" in line:
            next_fuzzy = True
        elif not line or line.startswith("#"):
            continue
        elif line.startswith("msgid "):
            finish()
            msgid, msgstr, current = _unquote(line[6:].strip(), where), None, "msgid"
            fuzzy, next_fuzzy = next_fuzzy, False
        elif line.startswith("msgstr "):
            if msgid is None:
                raise ValueError(f"{where}: msgstr before any msgid")
            msgstr, current = _unquote(line[7:].strip(), where), "msgstr"
        elif line.startswith('"') and current == "msgid" and msgid is not None:
            msgid += _unquote(line, where)
        elif line.startswith('"') and current == "msgstr" and msgstr is not None:
            msgstr += _unquote(line, where)
        else:
            raise ValueError(f"{where}: cannot read {line!r}")
    finish()
    return entries


def compile_mo(entries: dict[str, str]) -> bytes:
    """GNU .mo bytes for these entries: the header, two tables of (length, offset) sorted by
    msgid, then the NUL-terminated strings. No hash table (readers do not need one)."""
    pairs = sorted((k.encode("utf-8"), v.encode("utf-8")) for k, v in entries.items())
    count = len(pairs)
    originals_at = 7 * 4
    translations_at = originals_at + count * 8
    strings_at = translations_at + count * 8
    tables, blob = [b"", b""], b""
    for column in (0, 1):
        for pair in pairs:
            data = pair[column]
            tables[column] += struct.pack("<2I", len(data), strings_at + len(blob))
            blob += data + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, count, originals_at, translations_at, 0, strings_at)
    return header + tables[0] + tables[1] + blob


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_po(lang: str) -> bytes:
    path = po_path(lang)
    return compile_mo(parse_po(path.read_text(encoding="utf-8"), str(path)))


def msgids_in_source(paths: Iterable[Path]) -> set[str]:
    """Every msgid marked in these files: string literals passed to ``_`` or ``N_``."""
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("_", "N_")
                and len(node.args) == 1
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.add(node.args[0].value)
    return found


def main(argv: list[str] | None = None) -> None:
    """Compile every language's .po to its .mo."""
    argparse.ArgumentParser(prog="python -m pi_table.ui.i18n",
                            description="Compile each language's messages (.po) to the .mo files gettext reads.").parse_args(argv)
    for lang in LANGUAGES[1:]:
        path = po_path(lang).with_suffix(".mo")
        path.write_bytes(compile_po(lang))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
