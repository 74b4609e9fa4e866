"""A damaged journal loses only what is damaged: the game resumes from the last good entry,
the damaged file is kept beside it, and the loss is said (log, status, screen). Never a
silent new game."""

from __future__ import annotations

import json
import logging
import random

import pytest

from pi_table.engine import GameRecord, Rules, Undo, make_game, parse_action
from pi_table.engine.codex_rules import CodexRules
from pi_table.engine.phrase import Phrase
from pi_table.table import Session, load_game
from pi_table.table.journal import JournalError
from pi_table.ui.i18n import say

from helpers import JOURNAL_VERSION_1

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
MOVES = ["clue 2", "touch 0", "touch 1", "touch 2", "clue 1", "touch 9", "touch 17", "undo", "touch 18", "penalty"]



def write_game(folder, moves=MOVES, rules=Rules()):
    session = Session(rules, rng=random.Random(3), key=make_game(rules).parse_key(KEY), journal_dir=folder, fsync=False)
    for text in moves:
        session.submit(parse_action(text))
    session.close()
    (path,) = folder.glob("*.jsonl")
    return session, path


def state_after(moves, rules=Rules()):
    game = make_game(rules)
    return GameRecord.replay(game, game.parse_key(KEY), [parse_action(text) for text in moves]).state


def change_line(path, number, change):
    """Line ``number`` (1 is the header) through ``change``, every other byte as it was."""
    lines = path.read_bytes().split(b"\n")
    lines[number - 1] = change(lines[number - 1])
    path.write_bytes(b"\n".join(lines))


def assert_resumed_before(session, path, damaged: bytes, kept: int, written: int = len(MOVES)):
    """The game as it stood after ``kept`` entries, the damaged bytes kept, the loss said,
    and a clean journal for the resumed game that later entries append to."""
    assert session.resumed == str(path)
    assert [str(entry) for entry in session.record.entries] == MOVES[:kept]
    assert session.state == state_after(MOVES[:kept])
    aside = path.with_name(path.name + ".damaged-1")
    assert aside.read_bytes() == damaged
    assert session.journal_damage == {
        "line": kept + 2, "lost_actions": written - kept, "written_actions": written, "damaged_file": str(aside),
        "new_game": False,
    }
    assert f"{written - kept} of {written} actions lost" in str(session.journal_problem)
    _, record, warnings = load_game(path)  # the fresh journal: whole, checksummed
    assert warnings == [] and [str(entry) for entry in record.entries] == MOVES[:kept]


def test_a_changed_byte_in_a_middle_line_resumes_the_game_before_it(tmp_path, caplog):
    _, path = write_game(tmp_path)
    change_line(path, 6, lambda line: line.replace(b'"action"', b'"acti0n"'))
    damaged = path.read_bytes()
    with caplog.at_level(logging.WARNING, "pi_table.journal"):
        session = Session.resume(Rules(), tmp_path, fsync=False)
    assert_resumed_before(session, path, damaged, kept=4)
    assert "6 of 10 actions lost" in caplog.text and str(path) in caplog.text


def test_a_changed_digit_that_still_replays_is_found_by_its_checksum(tmp_path):
    """``touch 17`` read as ``touch 16`` replays without complaint: only a checksum sees it."""
    _, path = write_game(tmp_path)
    change_line(path, 8, lambda line: line.replace(b'"touch 17"', b'"touch 16"'))
    damaged = path.read_bytes()
    session = Session.resume(Rules(), tmp_path, fsync=False)
    assert_resumed_before(session, path, damaged, kept=6)


@pytest.mark.parametrize("change", [
    lambda line: line.replace(b'"penalty"', b'"touch 99"'),  # whole JSON, an action that does not replay
    lambda line: line.replace(b'"n": 10', b'"n": 11'),  # whole JSON, the wrong count
    lambda line: b'{"n": 10, "action": "penalty"}',  # whole JSON with no checksum
    lambda line: line.replace(b'"penalty"', b'"penaltx"'),  # a changed letter
], ids=["does-not-replay", "wrong-count", "no-checksum", "changed-letter"])
def test_a_whole_but_damaged_last_line_resumes_the_game_before_it(tmp_path, change):
    _, path = write_game(tmp_path)
    change_line(path, 11, change)
    damaged = path.read_bytes()
    session = Session.resume(Rules(), tmp_path, fsync=False)
    assert_resumed_before(session, path, damaged, kept=9)


def test_entries_after_a_repair_append_to_a_clean_journal(tmp_path):
    _, path = write_game(tmp_path)
    change_line(path, 9, lambda line: line[:20] + b"\xff" + line[21:])  # not even UTF-8
    session = Session.resume(Rules(), tmp_path, fsync=False)
    session.submit(parse_action("touch 18"))
    session.close()
    again = Session.resume(Rules(), tmp_path, fsync=False)
    assert [str(entry) for entry in again.record.entries] == MOVES[:7] + ["touch 18"]
    assert again.journal_damage is None and again.journal_problem is None
    assert len(list(tmp_path.glob("*.damaged-*"))) == 1


def test_two_lost_newlines_count_every_lost_action(tmp_path):
    """Two lines run together by a changed newline are still two actions lost."""
    _, path = write_game(tmp_path)
    data = path.read_bytes()
    at = [i for i, byte in enumerate(data) if byte == ord("\n")][8]  # between entries 8 and 9
    path.write_bytes(data[:at] + b"x" + data[at + 1:])
    session = Session.resume(Rules(), tmp_path, fsync=False)
    assert len(session.record.entries) == 7 and session.journal_damage["lost_actions"] == 3


def test_a_damaged_game_that_stood_finished_is_resumed_not_replaced(tmp_path):
    """Damage after the winning touch (an undo, say) resumes the finished game: the staff
    can undo there, or deal; nothing is dealt over it silently."""
    moves = ["touch 24", "undo", "touch 0"]
    _, path = write_game(tmp_path, moves)
    change_line(path, 3, lambda line: line.replace(b"undo", b"undO"))
    session = Session.resume(Rules(), tmp_path, fsync=False)
    assert session.resumed == str(path) and session.state.is_over
    assert session.journal_damage["lost_actions"] == 2


def test_a_header_damaged_beyond_use_deals_a_new_game_and_says_so(tmp_path, caplog):
    _, path = write_game(tmp_path)
    change_line(path, 1, lambda line: line.replace(b"RRRR", b"RRRB", 1))
    damaged = path.read_bytes()
    with caplog.at_level(logging.ERROR, "pi_table.journal"):
        session = Session.resume(Rules(), tmp_path, fsync=False)
    assert session.resumed is None and session.record.entries == []
    aside = path.with_name(path.name + ".damaged-1")
    assert aside.read_bytes() == damaged and not path.exists()  # kept aside: a new game never resumes it
    assert session.journal_damage == {"line": 1, "lost_actions": 10, "written_actions": 10,
                                      "damaged_file": str(aside), "new_game": True}
    assert "new game" in str(session.journal_problem) and str(aside) in caplog.text
    session.new_game()  # the next deal is the staff's own: the notice has done its work
    assert session.journal_problem is None and session.journal_damage is None


def test_a_torn_last_line_stays_a_quiet_expected_case(tmp_path):
    _, path = write_game(tmp_path)
    path.write_bytes(path.read_bytes() + b'{"n": 11, "action": "tou')
    session = Session.resume(Rules(), tmp_path, fsync=False)
    assert len(session.record.entries) == 10 and session.journal_damage is None and session.journal_problem is None
    assert list(tmp_path.glob("*.damaged-*")) == []


def test_a_version_1_journal_still_loads_and_resumes_with_checksums_from_then_on(tmp_path):
    path = tmp_path / "20261118-110640.250000-f7396e.jsonl"
    path.write_text(JOURNAL_VERSION_1, encoding="utf-8")
    header, record, warnings = load_game(path)
    assert warnings == [] and header.key == KEY and len(record.entries) == 8
    session = Session.resume(Rules(), tmp_path, fsync=False)
    assert session.resumed == str(path) and len(session.record.entries) == 8 and session.journal_damage is None
    session.submit(parse_action("touch 11"))
    session.close()
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["version"] == 3 and all("crc" in line for line in lines)
    assert [line["at"] for line in lines[1:9]] == [7.5 * n for n in range(1, 9)]  # the times kept
    _, again, _ = load_game(path)
    assert [str(entry) for entry in again.entries][-2:] == ["touch 10", "touch 11"]


def test_a_damaged_version_1_journal_resumes_before_the_damage(tmp_path):
    path = tmp_path / "20261118-110640.250000-f7396e.jsonl"
    path.write_text(JOURNAL_VERSION_1.replace('"touch 2"', '"touch 99"'), encoding="utf-8")
    with pytest.raises(JournalError, match=r":5: not an action of codenames: the grid's cells are 0 to 24$"):
        load_game(path)
    session = Session.resume(Rules(), tmp_path, fsync=False)
    assert [str(entry) for entry in session.record.entries] == ["clue 2", "touch 0", "touch 1"]
    assert session.journal_damage["lost_actions"] == 5


def test_the_table_screen_shows_the_loss_in_english_and_italian(tmp_path):
    _, path = write_game(tmp_path)
    change_line(path, 6, lambda line: line.replace(b"clue", b"cleu"))
    session = Session.resume(Rules(), tmp_path, fsync=False)
    from pi_table.hal import SimButtons, SimLedStrip, SimScreen, SimTouch
    from pi_table.table import TableLoop

    screen = SimScreen()
    loop = TableLoop(session, SimTouch(), SimLedStrip(), screen, SimButtons())
    loop.open()
    (warning,) = screen.last.warnings
    assert str(warning).startswith("journal damaged at action 5: 6 of 10 actions lost; ")
    assert say(warning, "it").startswith("registro danneggiato all'azione 5: azioni perse 6 su 10; ")
    assert "le mosse perse vanno rigiocate" in say(warning, "it")  # what to do, in the table's language
    header = Phrase.of("the last game's journal is damaged beyond use: a new game was dealt (the damaged file is "
                       "kept in the journal folder); if it happens again, check the SD card and the power supply")
    assert say(header, "it") != str(header)


@pytest.mark.parametrize("rules", [Rules(), CodexRules()], ids=["codenames", "codex"])
def test_one_flipped_byte_anywhere_never_deals_a_silent_new_game(tmp_path, rules):
    """60 single-byte changes at random places in a 50-action journal: each resumes the
    entries before the line it hit, or (the header hit) deals a new game and says so."""
    rng = random.Random(20261123)
    session = Session(rules, rng=random.Random(1), journal_dir=tmp_path / "whole", fsync=False)
    while len(session.record.entries) < 50:  # random legal play, undos mixed in
        options = session.game.legal_actions(session.state)
        session.submit(Undo() if session.record.moves and (not options or rng.random() < 0.1) else rng.choice(options))
    session.close()
    (whole_path,) = (tmp_path / "whole").glob("*.jsonl")
    whole = whole_path.read_bytes()
    entries = [str(entry) for entry in session.record.entries]
    starts = [0] + [i + 1 for i, byte in enumerate(whole) if byte == ord("\n")][:-1]
    counts = {"tried": 0, "resumed the good prefix": 0, "new game, said": 0}
    for trial in range(60):
        at = rng.randrange(len(whole))
        byte = rng.choice([b for b in range(256) if b != whole[at]])
        folder = tmp_path / f"flip-{trial}"
        folder.mkdir()
        path = folder / whole_path.name
        path.write_bytes(whole[:at] + bytes([byte]) + whole[at + 1:])
        line = max(number for number, start in enumerate(starts, 1) if start <= at)
        resumed = Session.resume(rules, folder, fsync=False)
        counts["tried"] += 1
        where = f"byte {at} (line {line}) made {byte:#04x}"
        if line == 1:
            assert resumed.resumed is None and resumed.journal_damage["new_game"], where
            assert "new game" in str(resumed.journal_problem), where
            counts["new game, said"] += 1
        else:
            assert resumed.resumed == str(path), where
            if at < len(whole) - 1:
                assert [str(entry) for entry in resumed.record.entries] == entries[: line - 2], where
                assert resumed.journal_damage["lost_actions"] == 50 - (line - 2), where
            else:  # the last newline changed: the line before it is whole, its checksum says so
                assert [str(entry) for entry in resumed.record.entries] == entries, where
            counts["resumed the good prefix"] += 1
        resumed.close()
    print(f"\nsingle-byte damage to a {rules.game} journal: {counts}")
    assert counts["tried"] == counts["resumed the good prefix"] + counts["new game, said"] == 60


def test_a_damaged_key_is_not_written_to_the_log(tmp_path, caplog):
    """A version 1 header (no checksum) whose key no longer deals: the engine's reason quotes
    the key, and the log is no place for it."""
    damaged_key = "RRRB" + KEY[4:]
    (tmp_path / "20261118-110640.250000-f7396e.jsonl").write_text(JOURNAL_VERSION_1.replace(KEY, damaged_key), encoding="utf-8")
    with caplog.at_level(logging.DEBUG):
        session = Session.resume(Rules(), tmp_path, fsync=False)
    assert session.journal_damage["new_game"] and "not a deal of codenames" in caplog.text
    assert damaged_key not in caplog.text and "RRRB" not in caplog.text


@pytest.mark.parametrize("ending", [b"", b"X", b"\r"], ids=["lost", "changed to X", "changed to CR"])
def test_a_last_newline_lost_or_changed_keeps_the_whole_entry_before_it(tmp_path, ending):
    """The checksum vouches for the last line although its newline is gone: the entry was
    written whole, so it is kept, not taken for a crash's torn line."""
    _, path = write_game(tmp_path)
    path.write_bytes(path.read_bytes()[:-1] + ending)
    session = Session.resume(Rules(), tmp_path, fsync=False)
    assert [str(entry) for entry in session.record.entries] == MOVES
    assert session.journal_damage is None
    session.submit(parse_action("clue 1"))
    session.close()
    _, record, warnings = load_game(path)  # the line ends with its newline again, the next after it
    assert warnings == [] and [str(entry) for entry in record.entries] == [*MOVES, "clue 1"]
