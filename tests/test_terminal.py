"""The interactive terminal simulator, driven as a person would type at it."""

from __future__ import annotations

import random
import re

import pytest

from pi_table.engine import Rules, make_game
from pi_table.sim.terminal import Painter, help_text, interactive
from pi_table.table import Session
from pi_table.table.input import HOLD_MIN_S, InputSettings

pytestmark = pytest.mark.arm64

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def session_output(lines, color=False, rules=Rules(), key=KEY, lang="en"):
    game = make_game(rules)
    session = Session(rules, rng=random.Random(1), key=game.parse_key(key))
    typed = iter(lines)
    out = []

    def read(prompt):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    interactive(session, read, out.append, Painter(color, lang), settings=InputSettings(hold_s=HOLD_MIN_S, stuck_s=5))
    return "".join(out), session


def test_shows_both_grids_and_the_turn():
    text, _ = session_output([])
    assert "TABLE (operatives)" in text and "KEY (spymasters only)" in text
    assert "RED spymaster" in text and "RED 9 agents left" in text and "BLUE 8 agents left" in text
    assert " 07 " in text  # hidden cards show their cell number on the operatives' grid
    assert "\x1b[" not in text


def test_plays_commands_and_explains_refusals():
    text, session = session_output(["clue 2", "touch 0", "touch 0", "tuch 3", "help", "quit", "touch 1"])
    assert "[RR]" in text  # the revealed card on the operatives' grid
    assert "refused: card 0 is already revealed" in text
    assert ("not a command: the commands are clue, touch, end-turn, penalty, cover, place, time-up, undo, new-game, "
            "not 'tuch'") in text  # typed, not read from a file: quoted back
    assert help_text(session.grid.game) in text
    assert session.record.moves == 2  # 'quit' stopped before the last line


def test_colour_when_asked():
    text, _ = session_output(["touch 0"], color=True)
    assert "\x1b[1;97;41m RR \x1b[0m" in text


def test_the_coop_rating_line_speaks_the_chosen_language():
    key = "RRRRRRRRRBBBBBBBBNNNNNNNA"
    win = ["clue unlimited"] + [f"touch {cell}" for cell in range(9)]
    text, session = session_output(win, rules=Rules(game="codenames-coop"), key=key, lang="it")
    assert session.table_view().score == 8
    assert "punteggio 8: Mi riesce molto difficile crederci." in text


ENGLISH_RUN = ["help", "clue 2", "touch 9", "touch 9", "touch 0", "bogus 3", "clue 12", "touch 99", "end-turn",
               "penalty", "cover 3", "new-game", "n", "touch 9", "touch 10", "touch 11", "touch 24"]
COMMAND_WORDS = {"clue", "touch", "end-turn", "penalty", "cover", "place", "time-up", "undo", "new-game", "help",
                 "quit", "unlimited", "infinity", "codenames", "codenames-coop", "alias24", "bogus", "Deep",
                 "Undercover", "CELLS", "TEAM", "alias", "mastermind", "asset", "file", "script"}  # and Italian loan words


def words_of(text):
    return set(re.findall(r"[A-Za-z][A-Za-z-]{3,}", text))


def test_under_lang_it_every_line_prompt_and_question_is_italian():
    """The same session in both languages: no word the English one printed shows in the Italian
    one, but the command words (which stay as a script takes them) and names."""
    english, _ = session_output(ENGLISH_RUN)
    italian, session = session_output(ENGLISH_RUN, lang="it")
    assert session.state.is_over  # the assassin: the game-over line was printed too
    assert "rifiutato: la carta 9 è già scoperta" in italian and "[s/N]" in italian
    left = sorted(words_of(italian) & (words_of(english) - COMMAND_WORDS))
    assert left == []


def test_an_unlimited_clue_is_shown_in_the_tables_language():
    """'unlimited' is a command word only as typed: the clue it enters is shown in Italian."""
    italian, _ = session_output(["clue unlimited", "touch 0"], lang="it")
    assert "(indizio: senza limiti, senza limite," in italian and "unlimited" not in italian
    english, _ = session_output(["clue unlimited", "touch 0"])
    assert "(clue: unlimited, no limit" in english


def test_a_new_game_over_one_in_progress_is_asked_first():
    """One word loses a game in progress: the terminal asks, and undo would still bring it back."""
    text, session = session_output(["touch 0", "new-game", "n"])
    assert "a game is in progress: deal a new one over it? (undo brings it back) [y/N]" in text
    assert "the game goes on" in text and session.record.moves == 1
    text, session = session_output(["touch 0", "new-game", "y"])
    assert session.record.moves == 0 and session.replaced is not None
    text, session = session_output(["touch 24", "new-game"])  # the assassin: that game is over, nothing to ask
    assert "[y/N]" not in text and session.record.moves == 0 and not session.state.is_over


def transcript(lines, rules=Rules(), key=KEY):
    """What a person sees: the prompts ('> ') in their place among the screens."""
    game = make_game(rules)
    session = Session(rules, rng=random.Random(1), key=game.parse_key(key))
    typed = iter(lines)
    out: list[str] = []

    def read(prompt):
        out.append(prompt)
        try:
            line = next(typed)
        except StopIteration:
            raise EOFError from None
        out.append(line + "\n")
        return line

    interactive(session, read, out.append, Painter(False), settings=InputSettings(hold_s=HOLD_MIN_S, stuck_s=5))
    return "".join(out)


def test_the_prompt_comes_after_the_screen_a_command_redraws():
    text = transcript(["clue 1", "touch 0"])
    after_clue = text.split("> clue 1\n", 1)[1]
    assert after_clue.index("clue: 1, 2 guesses left") < after_clue.index("> ")
    after_touch = text.split("> touch 0\n", 1)[1]
    assert after_touch.index("1 guess left") < after_touch.index("> ")


def test_a_touch_prints_the_screen_once():
    text = transcript(["touch 0"])
    assert text.split("> touch 0\n", 1)[1].count("TABLE (operatives)") == 1
    text = transcript(["clue 1", "touch 0", "touch 1"])  # the turn passes on the plus-one guess
    assert text.split("> touch 1\n", 1)[1].count("TABLE (operatives)") == 1


def test_a_refusal_is_not_shown_again_after_an_accepted_command():
    text = transcript(["touch 0", "touch 0", "touch 1"])
    assert text.count("refused: card 0 is already revealed") == 1


def test_a_turn_that_ends_on_a_card_says_why():
    text = transcript(["clue 1", "touch 0", "touch 1", "touch 9"])
    assert "touch 1 used the clue's number and one more: the turn passes to BLUE" in text
    text = transcript(["touch 17"])
    assert "touch 17 was a bystander: the turn passes to BLUE" in text


def test_a_cover_in_the_cooperative_game_is_not_called_a_touch():
    """The issue's script: the turns ended on END TURN, then the spymaster covered an agent for
    the simulated opponent; nothing was touched, so nothing says a touch passed the turn."""
    lines = ["clue 2", "touch 0", "touch 4", "end-turn", "cover 1", "clue 3", "touch 5", "touch 10", "touch 12",
             "end-turn", "cover 3"]
    text = transcript(lines, rules=Rules(game="codenames-coop"), key="RBNBRRNBBBRBRRNNRRABNBRNN")
    assert "refused" not in text
    for cover in ("cover 1", "cover 3"):
        after = text.split(f"> {cover}\n", 1)[1].split("> ", 1)[0]
        assert "the turn passes" not in after and "used the clue" not in after, after


def test_counts_of_one_are_singular():
    text = transcript(["clue 1", "touch 0", *(f"touch {cell}" for cell in range(1, 8))])
    assert "1 guess left" in text and "1 guesses" not in text
    assert "RED 1 agent left" in text and "1 agents" not in text


def test_alias24_says_whose_assets_a_team_eliminates_and_helps_with_its_own_commands():
    text = transcript(["help"], rules=Rules(game="alias24"), key="BBBBBBBBBRRR.RRRRRNNNNNNA")
    assert "RED eliminates BLUE's assets: 9 left" in text  # red starts: blue holds the 9
    helped = text.split("> help\n", 1)[1]
    assert "penalty" not in helped and "cover N" not in helped and "place N" not in helped
    assert "touch N" in helped and "undo" in helped
