"""Deep Undercover's key is drawn when the 25th codename is down (issue 15, rule 1).

The book: "Randomly deal 25 codenames between the two teams. Each team takes turns placing 1
codename on the table until a total of 25 codename cards are placed in a 5-by-5 grid", and only
then "THE KEY ... The spymasters should choose the key card randomly". So while the codenames go
down nothing anywhere may show the key or depend on it: two games with different keys must look
the same on every output until the 25th is placed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: before pygame is imported
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import pygame
import pytest

from pi_table.engine import InvalidAction, Key, Place, RuleError, Rules, Team, Undo, make_game, parse_action
from pi_table.hal import Cues, ScreenModel
from pi_table.sim.terminal import Painter
from pi_table.table import Session
from pi_table.table.journal import read_game
from pi_table.ui.leds import render_frame
from pi_table.ui.screen import draw
from pi_table.web.snapshot import codenames_snapshot
from pi_table.web.tokens import Tokens

PLACE = Rules(setup="place")
CELLS = list(range(25))
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red holds 9: red gives the first clue
BLUE_KEY = "BBBBBBBBBRRRRRRRRNNNNNNNA"  # blue holds 9: blue does


def outputs(session: Session) -> dict[str, object]:
    """Everything the table shows of the grid game now: views, JSON, LEDs, screen, terminal, phone."""
    spymaster = session.spymaster_view()
    model = ScreenModel(spymaster, "game-1")
    image = pygame.Surface((800, 480))
    draw(image, model)
    snapshot = codenames_snapshot("game-1", spymaster, Tokens(secret=b"s" * 32))
    return {
        "table": session.table_view().to_json(),
        "spymaster": spymaster.to_json(),
        "leds": render_frame(session.table_view(), Cues(), 0.0),
        "screen": pygame.image.tobytes(image, "RGB"),
        "terminal": Painter(color=True).screen(model),
        "phones": (snapshot.public, list(snapshot.private.values())),
    }


def test_while_placing_nothing_shows_or_depends_on_the_key():
    red, blue = Session(PLACE, key=make_game(PLACE).parse_key(KEY)), Session(PLACE, key=make_game(PLACE).parse_key(BLUE_KEY))
    for cell in CELLS[:-1]:
        assert outputs(red) == outputs(blue), f"the key shows after {cell} codenames"
        assert red.spymaster_view().key is None and red.table_view().start is None
        assert red.table_view().to_json()["remaining"] is None
        red.submit(Place(cell))
        blue.submit(Place(cell))
    assert outputs(red) == outputs(blue)
    assert red.state.turn == blue.state.turn  # who places follows the rules, not the key
    red.submit(Place(24))
    blue.submit(Place(24))
    assert outputs(red) != outputs(blue)
    assert (red.state.turn, blue.state.turn) == (Team.RED, Team.BLUE)  # the team with 9 starts


def test_the_teams_take_turns_placing_red_first_whatever_the_key():
    for seed in range(4):
        session = Session(PLACE, rng=random.Random(seed))
        turns = []
        for cell in CELLS[:-1]:
            turns.append(session.state.turn)
            session.submit(Place(cell))
        assert turns == [Team.RED, Team.BLUE] * 12


def test_the_key_is_drawn_at_the_25th_from_the_sessions_random_source():
    session = Session(PLACE, rng=random.Random(7))
    for cell in CELLS[:-1]:
        session.submit(Place(cell))
    assert session.state.drawn is None
    with pytest.raises(RuleError, match="drawn when the last codename is down"):
        session.state.key  # noqa: B018
    session.submit(Place(24))
    expected = make_game(PLACE).deal(random.Random(7))  # nothing drew from the rng before the 25th
    assert session.state.key == expected
    assert session.state.phase == "clue" and session.state.turn == expected.start
    assert expected.count(expected.start.letter) == 9
    assert session.record.entries[-1] == Place(24, expected)


def test_undoing_the_25th_and_placing_again_draws_no_new_key():
    session = Session(PLACE, rng=random.Random(3))
    for cell in CELLS:
        session.submit(Place(cell))
    first = session.state.key
    for _ in range(3):
        session.submit(Undo())
        assert session.spymaster_view().key is None
        session.submit(Place(24))
        assert session.state.key == first


def test_a_journal_resumes_mid_placement_and_after_the_25th(tmp_path):
    session = Session(PLACE, rng=random.Random(5), journal_dir=tmp_path, fsync=False)
    for cell in CELLS[:10]:
        session.submit(Place(cell))
    session.close()
    header = json.loads((tmp_path / f"{session.id}.jsonl").read_text().splitlines()[0])
    assert header["key"] is None and header["start"] is None and header["version"] == 3

    resumed = Session.resume(PLACE, tmp_path, rng=random.Random(11), fsync=False)
    assert resumed.state.placed == 10 and resumed.state.drawn is None
    for cell in CELLS[10:]:
        resumed.submit(Place(cell))
    drawn = resumed.state.key
    assert drawn == make_game(PLACE).deal(random.Random(11))
    resumed.submit(Undo())
    resumed.close()

    again = Session.resume(PLACE, tmp_path, rng=random.Random(99), fsync=False)
    assert again.state.placed == 24 and again.state.drawn is None
    again.submit(Place(24))  # after a restart too the undone 25th brings the key drawn before
    assert again.state.key == drawn
    again.submit(parse_action("clue 2"))
    again.close()
    replay = read_game(tmp_path / f"{session.id}.jsonl")
    assert replay.record.state == again.state


def test_a_journal_from_before_version_3_still_loads_its_header_key(tmp_path):
    """Version 2 dealt Deep Undercover's key in the header; its last placement brings it now."""
    from pi_table.table.journal import Header, Journal

    header = Header(id="20260101-000000.000000-abcdef", started="2026-01-01T00:00:00Z", rules=PLACE, key=KEY,
                    start=Team.RED)
    path = tmp_path / f"{header.id}.jsonl"
    journal = Journal.create(path, header, fsync=False)
    for cell in CELLS:
        journal.append(Place(cell), 1.0)
    journal.append(parse_action("clue 1"), 2.0)
    journal.close()
    replay = read_game(path)
    assert replay.damage is None and replay.record.state.key == make_game(PLACE).parse_key(KEY)
    assert replay.record.state.phase == "guess"


def test_a_version_2_game_resumed_mid_placement_goes_on_to_its_header_key(tmp_path):
    from pi_table.table.journal import Header, Journal

    header = Header(id="20260101-000000.000000-abcdef", started="2026-01-01T00:00:00Z", rules=PLACE, key=BLUE_KEY,
                    start=Team.BLUE)
    journal = Journal.create(tmp_path / f"{header.id}.jsonl", header, fsync=False)
    for cell in CELLS[:10]:
        journal.append(Place(cell), 1.0)
    journal.close()
    session = Session.resume(PLACE, tmp_path, rng=random.Random(1), fsync=False)
    assert session.state.placed == 10 and session.spymaster_view().key is None
    for cell in CELLS[10:]:
        session.submit(Place(cell))
    assert session.state.key == make_game(PLACE).parse_key(BLUE_KEY) and session.state.turn == Team.BLUE
    session.close()


def test_the_last_place_carries_the_key_in_its_text_form():
    key = Key(KEY, Team.RED)
    assert str(Place(24, key)) == f"place 24 key {KEY} red"
    assert parse_action(f"place 24 key {KEY.lower()} RED") == Place(24, key)
    assert parse_action("place 3") == Place(3)
    with pytest.raises(InvalidAction, match="'place CELL key CELLS TEAM'.*a key has 25 characters, not 3$"):
        parse_action("place 24 key RRR red")
    with pytest.raises(InvalidAction, match="'place CELL key CELLS TEAM'.*'red' or 'blue', not 'green'$"):
        parse_action(f"place 24 key {KEY} green")
    with pytest.raises(InvalidAction, match="key CELLS TEAM"):
        parse_action(f"place 24 {KEY}")


def test_the_engine_takes_the_key_with_the_last_placement_only():
    game = make_game(PLACE)
    state = game.start()
    with pytest.raises(RuleError, match="drawn when the last card is down, not with cell 0"):
        game.apply(state, Place(0, Key(KEY, Team.RED)))
    for cell in CELLS[:-1]:
        state = game.apply(state, Place(cell))
    with pytest.raises(RuleError, match="brings the key"):
        game.apply(state, Place(24))
    with pytest.raises(ValueError, match="the team with 9 cards starts"):
        game.apply(state, Place(24, Key(KEY, Team.BLUE)))
    assert game.apply(state, Place(24, Key(KEY, Team.RED))).turn == Team.RED


def test_alias24_places_around_its_dark_cell_a_rule():
    rules = Rules(game="alias24", setup="place", dark_cell=7)
    game = make_game(rules)
    assert game.placing_order() == tuple(cell for cell in CELLS if cell != 7)
    assert game.table_view(game.start()).board == "???????." + "?" * 17


def test_a_script_places_25_then_plays():
    script = "".join(f"place {cell}\n" for cell in CELLS) + "clue 1\ntouch 0\n"
    done = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--setup", "place", "--seed", "4", "--script", "-",
                           "--json"], input=script, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(line["ok"] is not False for line in lines), [line.get("error") for line in lines]
    placing = [line["state"] for line in lines[:25]]
    assert all(state["start"] is None and state["remaining"] is None for state in placing)
    assert all(set(state["board"]) == {"?"} for state in placing)
    after = lines[25]["state"]
    assert after["phase"] == "clue" and after["turn"] == after["start"]
    assert after["remaining"][after["start"]] == 9
    assert lines[-1]["state"]["board"][0] != "?"


def test_status_shows_nothing_of_the_key_while_placing(tmp_path, monkeypatch, capsys):
    """``pi-table status`` prints what the daemon's status answer holds: the table view."""
    from pi_table import cli
    from pi_table.daemon import control

    config = tmp_path / "config.toml"
    config.write_text('[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
    printed = []
    for key in (KEY, BLUE_KEY):
        session = Session(PLACE, key=make_game(PLACE).parse_key(key))
        for cell in CELLS[:7]:
            session.submit(Place(cell))
        answer = {"ok": True, "version": "1", "game_id": "game-1", "uptime_s": 1.0,
                  "state": session.table_view().to_json(), "health": {"touch": "ok"}, "warnings": []}
        monkeypatch.setattr(control, "request", lambda *args, answer=answer, **fields: answer)
        assert cli.main(["status", "--config", str(config)]) == 0
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1]
    assert "blue to play, place phase\n" in printed[0] and "left" not in printed[0]


@pytest.mark.parametrize("resealed", [False, True], ids=["checksum fails", "does not replay"])
def test_a_damaged_last_placement_keeps_its_key_out_of_the_log(tmp_path, resealed):
    """The journal's reasons go to the log, which staff read: the key the 25th carries is not for it."""
    from pi_table.files import sealed_line

    session = Session(PLACE, key=make_game(PLACE).parse_key(KEY), journal_dir=tmp_path, fsync=False)
    for cell in CELLS:
        session.submit(Place(cell))
    session.close()
    path = tmp_path / f"{session.id}.jsonl"
    lines = path.read_text().splitlines()
    assert lines[-1].startswith(f'{{"n": 25, "action": "place 24 key {KEY} red"')
    damaged = lines[-1].replace(KEY, "R" + KEY)  # its checksum no longer holds
    if resealed:  # a sound line whose key is not one of this game's: 10 red agents, no assassin
        damaged = sealed_line({"n": 25, "action": f"place 24 key R{KEY[:-1]} red", "at": 1.0}).decode().rstrip("\n")
    path.write_text("\n".join([*lines[:-1], damaged]) + "\n")
    replay = read_game(path)
    assert replay.damage is not None and replay.damage.kept == 24
    reason = str(replay.damage.reason)
    assert "RRRRRRRRR" not in reason and reason.startswith(f"{path}:26: ")
