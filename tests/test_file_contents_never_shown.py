"""No error and no log line repeats what a file holds: it names the file, the line and what was
expected (issue 25). A staff member who points a setting at a secret file (a game's journal
holds the key on its first line) must not read it back through a message.

Each reader is given a file holding a marker, in a shape it cannot use, and everything it says
is searched for the marker: its error in English and Italian, its warnings, the log.
"""

from __future__ import annotations

import json
import logging
import random

import pytest

from pi_table.engine import Rules, make_game, parse_action
from pi_table.files import sealed_line
from pi_table.sim.codex import parse_codex_command
from pi_table.sim.script import ScriptError, parse_script
from pi_table.table import Session, history, parse_command
from pi_table.table.journal import JournalError, read_game
from pi_table.ui.i18n import say
from pi_table.ui.words import WordListError, load_words

MARKER = "SECRETKEYRBNA"
NUMBER = "918273645"  # a marker where a number is read
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
KEYLIKE = (MARKER + KEY)[:25]  # as long as a key, its letters the marker's
MOVES = ["clue 2", "touch 0", "touch 1", "touch 9", "touch 17"]


def assert_unshown(said: str, *names: str) -> None:
    """``said`` holds neither marker (in any case: some parsers lower a line) and names ``names``."""
    assert MARKER.lower() not in said.lower() and NUMBER not in said, said
    for name in names:
        assert name in said, (name, said)


# --- a deck of words --------------------------------------------------------------------------------


@pytest.mark.parametrize("line", [f"{MARKER} two", MARKER * 2, f"{MARKER}\t{MARKER}"],
                         ids=["two words", "too long", "tab"])
def test_a_deck_names_its_line_not_the_words_on_it(tmp_path, line):
    deck = tmp_path / "deck.txt"
    deck.write_text("\n".join(f"w{i}" for i in range(30)) + f"\n\n{line}  # a comment\n", encoding="utf-8")
    with pytest.raises(WordListError) as refused:
        load_words(str(deck))
    for lang in ("en", "it"):
        assert_unshown(say(refused.value.phrase, lang), str(deck), "32")


# --- a script ---------------------------------------------------------------------------------------

GRID_LINES = [
    MARKER, f"touch {MARKER}", f"touch {NUMBER}", f"cover {NUMBER}", f"clue {MARKER}", f"clue {NUMBER}",
    f"end-turn {MARKER}", f"new-game {MARKER}", f"place 3 key {MARKER} red", f"place 3 key {KEYLIKE} red",
    f"place 3 key {KEY} {MARKER}", f"place {NUMBER} key {KEY} red", f"wait {MARKER}", f"wait {NUMBER}",
    f"touch 3 {MARKER}",
]
CODEX_LINES = [
    MARKER, f"send 0 1 {MARKER}", f"send 0 {NUMBER} role", f"code 0 {MARKER}", f"vote 0 {MARKER}",
    f"done 0 {MARKER}", f"profile 0 {MARKER} role", f"profile 0 1 {MARKER}", f"reveal 0 {MARKER}",
    f"block {NUMBER} 1", f"tap {MARKER}", f"tap send 0 1 {MARKER}", f"pass-and-play {MARKER}", f"at-screen {MARKER}",
    f"new-game {MARKER}", f"wait {MARKER}",
]


@pytest.mark.parametrize("parse, line", [*((parse_command, line) for line in GRID_LINES),
                                         *((parse_codex_command, line) for line in CODEX_LINES)])
def test_a_script_names_its_line_and_what_was_expected_not_the_line(parse, line):
    with pytest.raises(ScriptError) as refused:
        parse_script(["# a script", "", f"  {line}  # the bad one", "undo"], "secret.txt", parse)
    for lang in ("en", "it"):
        said = say(refused.value.phrase, lang)
        assert_unshown(said, "secret.txt:3: ")
        assert len(said) > len("secret.txt:3: ") + 10  # and what was expected


@pytest.mark.parametrize("header", [f"--{MARKER}", f"--{MARKER}=1", f"--game codex {MARKER}", f"--seed {MARKER}",
                                    f"--game {MARKER}"])
def test_a_scripts_options_line_names_its_line_not_its_words(tmp_path, capsys, header):
    """A script's own options (its '# options:' header) refused: the file and line, and what
    the header takes, never the words on the line."""
    from pi_table import cli

    script = tmp_path / "secret.txt"
    script.write_text(f"# options: {header}\nundo\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        cli.main(["sim", "--script", str(script)])
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert_unshown(said, "secret.txt:1: ")


def test_a_typed_command_is_still_quoted_back_to_the_person_who_typed_it():
    """Not a file: the terminal's refusal may show the word just typed."""
    with pytest.raises(ValueError) as refused:
        parse_command(f"touch {MARKER}")
    assert MARKER.lower() in str(refused.value).lower()


# --- a game's journal -------------------------------------------------------------------------------


def write_game(folder):
    session = Session(Rules(), rng=random.Random(3), key=make_game(Rules()).parse_key(KEY), journal_dir=folder,
                      fsync=False)
    for text in MOVES:
        session.submit(parse_action(text))
    session.close()
    (path,) = folder.glob("*.jsonl")
    return path


def sealed(obj: dict) -> bytes:
    return sealed_line(obj).rstrip(b"\n")


def with_header(change):
    def damage(lines: list[bytes]) -> list[bytes]:
        header = json.loads(lines[0])
        header.pop("crc")
        change(header)
        return [sealed(header), *lines[1:]]
    return damage


def with_entry(number: int, line: bytes):
    return lambda lines: [*lines[:number - 1], line, *lines[number:]]


JOURNALS = {
    "header format": (1, with_header(lambda header: header.update(format=MARKER))),
    "header version": (1, with_header(lambda header: header.update(version=int(NUMBER)))),
    "header start time": (1, with_header(lambda header: header.update(started=MARKER))),
    "header team": (1, with_header(lambda header: header.update(start=MARKER))),
    "header game": (1, with_header(lambda header: header["rules"].update(game=MARKER))),
    "header rule": (1, with_header(lambda header: header["rules"].update(nuke=MARKER))),
    "header unknown rule": (1, with_header(lambda header: header["rules"].update({MARKER: 1}))),
    "header rules": (1, with_header(lambda header: header.update(rules=MARKER))),
    "header key": (1, with_header(lambda header: header.update(key=KEYLIKE))),
    "header checksum": (1, lambda lines: [lines[0].replace(KEY.encode(), KEYLIKE.encode()), *lines[1:]]),
    "header not an object": (1, lambda lines: [json.dumps([MARKER]).encode(), *lines[1:]]),
    "entry checksum": (3, lambda lines: [*lines[:2], lines[2].replace(b"touch 0", f"touch 0 {MARKER}".encode()),
                                         *lines[3:]]),
    "entry no checksum": (3, with_entry(3, json.dumps({"n": 2, "action": MARKER}).encode())),
    "entry count": (3, with_entry(3, sealed({"n": 7, "action": f"touch {MARKER}", "at": 1.0}))),
    "entry not an action": (3, with_entry(3, sealed({"n": 2, "action": f"touch {MARKER}", "at": 1.0}))),
    "entry number": (3, with_entry(3, sealed({"n": 2, "action": f"touch {NUMBER}", "at": 1.0}))),
    "entry key": (3, with_entry(3, sealed({"n": 2, "action": f"place 3 key {KEYLIKE} red", "at": 1.0}))),
    "entry refused": (3, with_entry(3, sealed({"n": 2, "action": f"clue {int(NUMBER) % 10}", "at": 1.0}))),
    "torn last line": (7, lambda lines: [*lines, f'{{"n": 6, "action": "touch {MARKER}'.encode()]),
}


@pytest.mark.parametrize("damage", JOURNALS)
def test_a_journal_names_the_line_it_cannot_use_never_what_the_line_holds(tmp_path, caplog, damage):
    number, change = JOURNALS[damage]
    path = write_game(tmp_path)
    lines = change(path.read_bytes().rstrip(b"\n").split(b"\n"))
    path.write_bytes(b"\n".join(lines) + (b"" if damage == "torn last line" else b"\n"))
    said: list[str] = []
    try:
        replay = read_game(path)
    except JournalError as e:
        said += [say(e.phrase, lang) for lang in ("en", "it")]
    else:
        said += [str(warning) for warning in replay.warnings]
        if replay.damage is not None:
            said += [say(replay.damage.reason, lang) for lang in ("en", "it")]
    assert_unshown("\n".join(said), f"{path}:{number}")
    said += [str(game.get("error")) for lang in ("en", "it") for game in history(tmp_path, lang)]
    with caplog.at_level(logging.DEBUG):
        Session.resume(Rules(), tmp_path, fsync=False).close()
    said += [record.getMessage() for record in caplog.records]
    assert_unshown("\n".join(said), f"{path.name}:{number}")


# --- the companion's and the fleet's files ----------------------------------------------------------


def test_the_seat_links_file_is_not_quoted_in_the_log(tmp_path, caplog):
    from pi_table.web.seats import SeatLinks

    path = tmp_path / "companion.released"
    for kept in ({"game_id": "g1", "generations": {MARKER: 1}}, {"game_id": "g1", "generations": {"1": MARKER}},
                 {"game_id": "g1", "generations": [MARKER]}, [MARKER], MARKER):
        path.write_text(json.dumps(kept), encoding="utf-8")
        caplog.clear()
        with caplog.at_level(logging.DEBUG):
            assert SeatLinks(path).generations("g1", 6) == (0,) * 6
        assert_unshown(caplog.text, str(path))


@pytest.mark.parametrize("name", ["staff.pin", "staff.sessions"])
def test_the_staff_pages_files_are_not_quoted_in_the_log(tmp_path, caplog, name):
    from pi_table.web.staff import PIN_FILE, SESSIONS_FILE, StaffPage

    assert {PIN_FILE, SESSIONS_FILE} == {"staff.pin", "staff.sessions"}
    for content in (f"{MARKER}é".encode(), json.dumps({MARKER: [MARKER]}).encode(), json.dumps([MARKER]).encode(),
                    json.dumps({MARKER: MARKER}).encode(), f'{{"{MARKER}": '.encode(), b"\xff" + MARKER.encode()):
        (tmp_path / name).write_bytes(content)
        caplog.clear()
        with caplog.at_level(logging.DEBUG):
            page = StaffPage(None, tmp_path)  # no desk: only its files are read
            page._pin()
        assert_unshown(caplog.text)


def test_the_companions_opened_pages_and_secret_are_not_quoted_in_the_log(tmp_path, caplog):
    from pi_table.web import Companion, Tokens

    opened = tmp_path / "companion.opened"
    opened.write_bytes(f"{MARKER}é {MARKER}".encode())
    (tmp_path / "companion.secret").write_bytes(MARKER.encode())
    with caplog.at_level(logging.DEBUG):
        Companion("127.0.0.1", 0, opened_file=opened)
        Tokens.kept_in(tmp_path)
    assert "companion.opened" in caplog.text and "companion.secret" in caplog.text
    assert_unshown(caplog.text)


def test_the_fleets_pending_events_are_not_quoted_in_the_log(tmp_path, caplog):
    from pi_table.config import broker
    from pi_table.fleet.reporter import Reporter

    pending = tmp_path / "fleet.pending"
    pending.write_bytes(f"{MARKER}\xff{MARKER}".encode("latin-1"))
    reporter = Reporter(broker("mqtt://127.0.0.1:9", table_id="t1"), act=lambda request: {"ok": True}, pending=pending)
    with caplog.at_level(logging.DEBUG):
        reporter._send_pending()
    assert str(pending) in caplog.text
    assert_unshown(caplog.text)
