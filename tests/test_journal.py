"""The journal: one file per game that replays to exactly the same state."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_table.engine import Rules, Undo, make_game, parse_action
from pi_table.engine.games import entry, names_of
from pi_table.files import CRC_FIELD, seal, sealed_line
from pi_table.table import JournalError, Retention, Session, history, load_game
from pi_table.table.journal import IN_PLAY, end_play

GRID_GAMES = names_of("grid")  # every game played on the grid, as registered

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
MOVES = ["clue 2", "touch 0", "touch 1", "touch 2", "clue 1", "touch 9", "touch 17", "undo", "touch 18", "penalty"]


def played_session(tmp_path, moves=MOVES, rules=Rules()):
    game = make_game(rules)
    session = Session(rules, rng=random.Random(3), key=game.parse_key(KEY), journal_dir=tmp_path, fsync=False)
    for text in moves:
        session.submit(parse_action(text))
    return session


def journal_file(tmp_path):
    (path,) = tmp_path.glob("*.jsonl")
    return path


def test_replaying_the_journal_gives_the_same_state(tmp_path):
    session = played_session(tmp_path)
    header, record, warnings = load_game(journal_file(tmp_path))
    assert warnings == []
    assert record.state == session.state
    assert header.key == KEY and header.id == session.id
    assert [str(entry) for entry in record.entries] == MOVES


def test_the_file_is_readable_json_lines(tmp_path):
    played_session(tmp_path, MOVES[:2])
    lines = [json.loads(line) for line in journal_file(tmp_path).read_text().splitlines()]
    assert lines[0]["format"] == "pi-table journal" and lines[0]["version"] == 3
    assert all(len(line["crc"]) == 8 and list(line)[-1] == "crc" for line in lines)
    assert lines[0]["rules"]["game"] == "codenames" and lines[0]["start"] == "red"
    assert [(line["n"], line["action"]) for line in lines[1:]] == [(1, "clue 2"), (2, "touch 0")]
    assert all(isinstance(line["at"], float | int) and line["at"] >= 0 for line in lines[1:])


def test_refused_actions_are_not_journalled(tmp_path):
    session = played_session(tmp_path, ["clue 2"])
    with pytest.raises(ValueError):
        session.submit(parse_action("end-turn"))
    _, record, _ = load_game(journal_file(tmp_path))
    assert [str(e) for e in record.entries] == ["clue 2"]


def test_a_new_game_starts_a_new_file(tmp_path):
    session = played_session(tmp_path, ["clue 2"])
    session.new_game("alias24")
    session.submit(parse_action("clue 1"))
    files = sorted(tmp_path.glob("*.jsonl"))
    assert len(files) == 2
    games = {load_game(path)[0].rules.game for path in files}
    assert games == {"codenames", "alias24"}


def test_a_torn_last_line_is_dropped_with_a_warning(tmp_path):
    session = played_session(tmp_path, MOVES[:4])
    path = journal_file(tmp_path)
    path.write_text(path.read_text() + '{"n": 5, "act')
    _, record, warnings = load_game(path)
    assert record.moves == 4 and record.state == session.state
    assert warnings == [f"{path}:6: ignored a torn last line (no newline: a write cut short)"]


def line(obj: dict) -> str:
    """A line as the journal writes it, checksum and all."""
    return sealed_line(obj).decode().rstrip("\n")


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda lines: lines[:2] + ["not json"] + lines[3:], ":3: damaged (it has no checksum)"),
        (lambda lines: lines[:2] + [lines[2].replace("touch 0", "touch 5")] + lines[3:],
         ":3: damaged (its checksum does not match)"),
        (lambda lines: lines[:2] + [line({"n": 7, "action": "touch 1"})] + lines[3:], ':3: expected {"n": 2'),
        (lambda lines: lines[:2] + [line({"n": 2, "action": "touch 99"})] + lines[3:],
         ":3: not an action of codenames: the grid's cells are 0 to 24"),
        (lambda lines: lines[:2] + [line({"n": 2, "action": "clue 3"})] + lines[3:],
         ":3: expected an action the codenames rules allow at that point of the game"),
        (lambda lines: [line({"format": "other"})] + lines[1:], ":1: not a pi-table journal"),
    ],
)
def test_a_damaged_journal_is_refused_naming_the_line(tmp_path, damage, message):
    played_session(tmp_path, MOVES[:4])
    path = journal_file(tmp_path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(damage(lines)) + "\n")
    with pytest.raises(JournalError, match=re.escape(message)):
        load_game(path)


@settings(settings.get_profile("tables"), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), game=st.sampled_from(GRID_GAMES))
def test_random_games_replay_exactly_from_their_journal(tmp_path_factory, seed, game):
    """Random legal actions with undos mixed in: the file on disk replays to the same state."""
    folder = tmp_path_factory.mktemp("journal")
    rng = random.Random(seed)
    rules = entry(game).rules_from({"setup": rng.choice(["key", "place"])})  # its own rules' class
    session = Session(rules, rng=rng, journal_dir=folder, fsync=False)
    for _ in range(rng.randint(0, 80)):
        options = session.game.legal_actions(session.state)
        if session.record.moves and (not options or rng.random() < 0.1):
            session.submit(Undo())
        elif options:
            session.submit(rng.choice(options))
    _, record, warnings = load_game(journal_file(folder))
    assert warnings == [] and record.state == session.state and record.entries == session.record.entries


def test_a_restart_resumes_the_last_unfinished_game_and_appends_to_its_file(tmp_path):
    session = played_session(tmp_path, MOVES[:5])
    session.close()
    again = Session.resume(Rules(game="alias24"), tmp_path, fsync=False)
    assert again.resumed == str(journal_file(tmp_path))
    assert again.state == session.state and again.id == session.id and again.rules.game == "codenames"
    again.submit(parse_action("touch 9"))
    _, record, warnings = load_game(journal_file(tmp_path))
    assert warnings == [] and record.state == again.state and record.moves == 6


def test_resume_cuts_a_torn_last_line_before_appending(tmp_path):
    session = played_session(tmp_path, MOVES[:4])
    path = journal_file(tmp_path)
    path.write_text(path.read_text() + '{"n": 5, "action": "tou')
    again = Session.resume(Rules(), tmp_path, fsync=False)
    assert again.state == session.state
    again.submit(parse_action("touch 5"))
    _, record, warnings = load_game(path)
    assert warnings == [] and [str(e) for e in record.entries][-1] == "touch 5"


def test_a_finished_last_game_means_a_new_game(tmp_path):
    played_session(tmp_path, ["touch 24"]).close()  # red touches the assassin
    fresh = Session.resume(Rules(), tmp_path, fsync=False)
    assert fresh.resumed is None and fresh.record.moves == 0
    assert len(list(tmp_path.glob("*.jsonl"))) == 2


def test_a_journal_that_does_not_replay_resumes_before_the_damage_and_keeps_the_file(tmp_path):
    played_session(tmp_path, MOVES[:2]).close()
    path = journal_file(tmp_path)
    damaged = path.read_text().replace('"touch 0"', '"touch 99"')
    path.write_text(damaged)
    again = Session.resume(Rules(), tmp_path, fsync=False)
    assert again.resumed == str(path) and [str(entry) for entry in again.record.entries] == ["clue 2"]
    assert (tmp_path / f"{path.name}.damaged-1").read_text() == damaged


def test_a_full_disk_keeps_the_game_in_memory_with_a_warning(tmp_path, monkeypatch):
    session = played_session(tmp_path, MOVES[:2])
    import errno
    import os

    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("pi_table.table.journal.os.fsync", no_space)
    session.fsync = session.journal.fsync = True
    session.submit(parse_action("touch 1"))
    assert session.record.moves == 3 and session.journal is None
    assert "No space left on device" in str(session.journal_problem)
    session.submit(parse_action("touch 2"))  # play goes on
    assert session.record.moves == 4


def test_an_unwritable_journal_directory_keeps_playing(tmp_path):
    blocked = tmp_path / "journal"
    blocked.write_text("a file where the directory should be")
    session = Session(Rules(), rng=random.Random(1), journal_dir=blocked, fsync=False)
    assert session.journal is None and "cannot be written" in str(session.journal_problem)
    session.submit(parse_action("clue 1"))
    assert session.record.moves == 1


def test_history_lists_games_and_retention_prunes_the_oldest(tmp_path):
    session = Session(Rules(), rng=random.Random(2), journal_dir=tmp_path, fsync=False,
                      retention=Retention(keep_games=2), clock=iter(range(1000, 100000, 61)).__next__)
    first = session.id
    for _ in range(3):
        session.submit(parse_action("clue 0"))
        session.new_game()
    ids = [game["id"] for game in history(tmp_path)]
    assert len(ids) == 3 and first not in ids  # the current game and the two newest finished-or-left ones
    assert ids == sorted(ids, reverse=True)
    newest_left = history(tmp_path)[1]
    assert newest_left["moves"] == 1 and newest_left["over"] is False and newest_left["duration_s"] == 61


def test_a_journal_whose_last_line_nests_past_the_parser_is_listed_as_damaged(tmp_path):
    """A journal from a backup or a stick is outside input: a last line of 100,000 '[' made the
    history raise RecursionError; now it is a journal that says what is wrong, the others listed."""
    session = Session(Rules(), rng=random.Random(2), journal_dir=tmp_path, fsync=False)
    session.submit(parse_action("clue 0"))
    path = tmp_path / f"{session.id}.jsonl"
    body = b'{"n": 2, "action": ' + b"[" * 100_000  # its checksum right: the line reaches the JSON reader
    with open(path, "ab") as file:
        file.write(body + CRC_FIELD + seal(body) + b"\n")
    listed = history(tmp_path)
    assert [game["id"] for game in listed] == [session.id]
    assert "nested deeper than the table reads" in listed[0]["error"]


def test_games_begun_within_one_second_resume_the_later_one(tmp_path):
    """Ids sort by time to the microsecond: NEW GAME right after a game ends must not resume the older one."""
    times = iter([1_800_000_000.100, 1_800_000_000.500, 1_800_000_000.900])
    session = Session(Rules(), journal_dir=tmp_path, clock=lambda: next(times))
    older = session.id
    session.new_game()
    session.new_game()
    assert session.id > older
    newest = session.id
    session.close()
    assert Session.resume(Rules(), tmp_path).id == newest


# --- the game in play: named by the table, not by the name that sorts last (issue 37, item 11) ----


def stranger_game(tmp_path, name: str, started: float) -> None:
    """An unfinished game that is not this table's game in play (one an older version restored
    from a backup, under a name that sorts last), begun at ``started``."""
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    stranger = Session(Rules(), rng=random.Random(9), journal_dir=elsewhere, fsync=False, clock=lambda: started)
    stranger.submit(parse_action("clue 1"))
    stranger.close()
    (tmp_path / name).write_bytes(next(elsewhere.glob("*.jsonl")).read_bytes())


def test_the_game_in_play_is_the_one_the_table_named_at_every_restart(tmp_path):
    session = played_session(tmp_path, MOVES[:3])
    session.close()
    stranger_game(tmp_path, "zzzz.jsonl", 2_000_000_000.0)
    for _ in range(2):  # every restart, not only the first
        again = Session.resume(Rules(), tmp_path, fsync=False)
        assert again.id == session.id and again.state == session.state
        again.close()


def test_a_game_dealt_while_the_clock_ran_ahead_is_not_resumed_over_the_game_after_it(tmp_path):
    now = [4_000_000_000.0]  # 2096: the clock ran ahead before the network set it right
    session = Session(Rules(), rng=random.Random(4), journal_dir=tmp_path, fsync=False, clock=lambda: now[0])
    session.submit(parse_action("clue 2"))
    now[0] = 1_800_000_000.0
    session.new_game()  # the staff's End game: the first stays unfinished, in the history
    session.submit(parse_action("clue 1"))
    session.close()
    again = Session.resume(Rules(), tmp_path, fsync=False)
    assert again.id == session.id and [str(entry) for entry in again.record.entries] == ["clue 1"]


@pytest.mark.parametrize("pointer", [None, b"{not json", b'{"game": "../../etc/passwd"}',
                                     b'{"game": "20300101-000000.000000-abcdef"}'],
                         ids=["missing", "damaged", "not a game's id", "a game not there"])
def test_without_a_pointer_it_can_use_the_table_resumes_the_game_begun_last_and_says_so(tmp_path, pointer, caplog):
    """What loses least: a table upgraded from a version without the pointer, or whose pointer a
    bad card damaged, goes on with the game whose header says it began last (not the name that
    sorts last), and the log says why."""
    session = Session(Rules(), rng=random.Random(4), journal_dir=tmp_path, fsync=False, clock=lambda: 1_800_000_000.0)
    session.submit(parse_action("clue 2"))
    session.close()
    stranger_game(tmp_path, "zzzz.jsonl", 1_700_000_000.0)
    if pointer is None:
        (tmp_path / IN_PLAY).unlink()
    else:
        (tmp_path / IN_PLAY).write_bytes(pointer)
    again = Session.resume(Rules(), tmp_path, fsync=False)
    assert again.id == session.id and again.record.moves == 1
    assert f"resuming the game begun last, {session.id}" in caplog.text
    assert json.loads((tmp_path / IN_PLAY).read_text())["game"] == session.id  # named again, for the next start


def test_a_game_a_restore_ended_stays_in_the_history_and_a_new_one_is_dealt(tmp_path):
    session = played_session(tmp_path, MOVES[:3])
    session.close()
    end_play(tmp_path)  # as a restore leaves the journal folder
    again = Session.resume(Rules(), tmp_path, fsync=False)
    assert again.resumed is None and again.id != session.id and again.record.moves == 0
    ended = next(game for game in history(tmp_path) if game["id"] == session.id)
    assert ended["over"] is False and ended["moves"] == 3
    again.close()
    assert Session.resume(Rules(), tmp_path, fsync=False).id == again.id


def test_a_new_game_undone_names_the_game_brought_back(tmp_path):
    session = played_session(tmp_path, MOVES[:3])
    first = session.id
    session.new_game()
    assert json.loads((tmp_path / IN_PLAY).read_text()) == {"game": session.id, "replaced": first}
    session.submit(Undo())  # the new game undone: the first goes on
    session.close()
    assert json.loads((tmp_path / IN_PLAY).read_text()) == {"game": first, "replaced": None}
    assert Session.resume(Rules(), tmp_path, fsync=False).id == first
