"""The words on the cards as part of the game: confirmed by a spymaster (``words W1 ... W25``),
journalled, back after a power cut, undone by undo, never there before confirmation."""

from __future__ import annotations

import random

import pytest

from pi_table.engine import InvalidAction, Rules, Undo, make_game, parse_action
from pi_table.engine.actions import Words
from pi_table.table import Session, load_game

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
WORDS = tuple(f"WORD{n}" for n in range(25))
CONFIRMED = "words " + " ".join(WORDS)


def session_in(folder, rules=Rules()):
    return Session(rules, rng=random.Random(3), key=make_game(rules).parse_key(KEY), journal_dir=folder, fsync=False)


def test_no_words_before_a_spymaster_confirms_them(tmp_path):
    session = session_in(tmp_path)
    session.submit(parse_action("clue 2"))
    assert session.table_view().words is None
    assert "words" not in session.table_view().to_json()


def test_confirmed_words_are_journalled_and_come_back_after_a_power_cut(tmp_path):
    session = session_in(tmp_path)
    session.submit(parse_action("clue 2"))
    session.submit(parse_action(CONFIRMED))
    session.submit(parse_action("touch 3"))
    # a power cut: the session is never closed; the table starts again on the folder
    again = Session.resume(Rules(), tmp_path, fsync=False)
    assert again.id == session.id
    assert again.table_view().words == WORDS
    assert again.table_view().to_json()["words"] == list(WORDS)
    (path,) = tmp_path.glob("*.jsonl")
    _, record, warnings = load_game(path)
    assert warnings == [] and str(record.entries[1]) == CONFIRMED


def test_undo_takes_the_confirmed_words_back(tmp_path):
    session = session_in(tmp_path)
    session.submit(parse_action(CONFIRMED))
    assert session.table_view().words == WORDS
    session.submit(Undo())
    assert session.table_view().words is None
    again = Session.resume(Rules(), tmp_path, fsync=False)
    assert again.table_view().words is None


def test_words_confirmed_again_replace_the_first_ones(tmp_path):
    session = session_in(tmp_path)
    session.submit(parse_action(CONFIRMED))
    fixed = ("MELA", *WORDS[1:])
    session.submit(Words(fixed))
    assert session.table_view().words == fixed


@pytest.mark.parametrize("text, expected", [
    ("words " + " ".join(WORDS[:24]), "25 words"),
    ("words " + " ".join((*WORDS[:24], "A" * 21)), "at most 20"),
    ("words", "25 words"),
])
def test_words_that_cannot_be_on_the_cards_are_refused_saying_what_was_expected(text, expected):
    with pytest.raises(InvalidAction) as refused:
        parse_action(text)
    assert expected in str(refused.value)


def test_a_word_with_a_control_character_is_refused():
    with pytest.raises(InvalidAction):
        Words((*WORDS[:24], "BAD\x1b[2J"))


def test_a_finished_game_takes_no_words(tmp_path):
    session = session_in(tmp_path)
    session.submit(parse_action("touch 24"))  # red touches the assassin
    with pytest.raises(ValueError):
        session.submit(parse_action(CONFIRMED))


def script_steps(tmp_path, lines, *options):
    import json
    import subprocess
    import sys

    script = tmp_path / "s.txt"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--script", str(script), "--json", *options],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_confirmed_words_take_the_place_of_a_simulated_deal_on_every_picture_and_undo_brings_the_deal_back(tmp_path):
    steps = script_steps(tmp_path, ["touch 3", CONFIRMED, "undo"], "--seed", "5", "--words", "it")
    dealt = steps[1]["words"]
    assert len(dealt) == 25 and dealt != list(WORDS)
    assert steps[2]["words"] == list(WORDS)
    assert steps[3]["words"] == dealt


def test_a_table_without_dealt_words_shows_the_confirmed_ones(tmp_path):
    steps = script_steps(tmp_path, ["touch 3", CONFIRMED], "--seed", "5")
    assert "words" not in steps[1]
    assert steps[2]["words"] == list(WORDS)


def test_the_published_pages_carry_the_confirmed_words_of_a_real_table():
    from pi_table.hal import ScreenModel
    from pi_table.web import Companion, Tokens
    from pi_table.web.games import publish_grid
    from pi_table.web.pages import Pages
    from pi_table.web.seats import SeatLinks

    game = make_game(Rules())
    state = game.apply(game.start(game.parse_key(KEY)), Words(WORDS))
    companion = Companion("127.0.0.1", 0)
    pages = Pages(companion, Tokens(b"s" * 32), SeatLinks(), None)  # a real table: no simulated deal
    publish_grid(ScreenModel(game.spymaster_view(state), "g1"), pages)
    assert companion._published.public["words"] == list(WORDS)
    publish_grid(ScreenModel(game.spymaster_view(game.start(game.parse_key(KEY))), "g2"), pages)
    assert "words" not in companion._published.public


def test_the_history_lists_the_confirmed_words_and_those_guessed_in_the_order_touched(tmp_path):
    from pi_table.table import history

    session = session_in(tmp_path)
    for text in ("clue 2", "touch 3", CONFIRMED, "touch 24"):  # words confirmed mid-game; red touches the assassin
        if text == "touch 24":
            session.submit(parse_action("touch 5"))
            session.submit(Undo())
        session.submit(parse_action(text))
    (played,) = history(tmp_path)
    assert played["words"] == list(WORDS)
    assert played["guessed"] == ["WORD3", "WORD24"]  # the undone touch of 5 is no guess


def test_a_game_with_no_words_confirmed_lists_none(tmp_path):
    from pi_table.table import history

    session_in(tmp_path).submit(parse_action("touch 3"))
    (played,) = history(tmp_path)
    assert played["words"] is None and played["guessed"] is None
