"""How a game ended: a Termination the engine returns for every game's every end, the sentence
made from it in each reader's language, and the code the history carries (issue 26)."""

from __future__ import annotations

import random

import pytest

from pi_table.engine import Rules, Team, Termination, make_game
from pi_table.engine.codex import Codex
from pi_table.engine.codex_actions import parse_codex_action
from pi_table.engine.endings import SHARED
from pi_table.engine.games import described, names, terminations
from pi_table.table import Session, history
from pi_table.ui.i18n import say, translation

RED = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red 0-8, blue 9-16, bystanders 17-23, assassin 24: red starts
RED9 = "RRRRRRRRRBBB.BBBBBNNNNNNA"  # Alias 24: red assets 0-8, blue 9-11 and 13-17, dark 12, nuke 24: blue starts
BLUE_ASSETS = (9, 10, 11, 13, 14, 15, 16, 17)
COOP, ALIAS, MAD = Rules(game="codenames-coop"), Rules(game="alias24"), Rules(game="alias24", nuke="mad")


def touches(*cells: int) -> list[str]:
    return [f"touch {cell}" for cell in cells]


def rounds(count: int) -> list[str]:
    """The cooperative variant: red finds one agent a turn, and the opponent covers one of its own."""
    return [action for i in range(count) for action in ("clue 1", f"touch {i}", "end-turn", f"cover {9 + i}")]


TWELVE = ["clue unlimited", *touches(0, 1, 2, 3, 4, 5), "end-turn", "clue unlimited", *touches(*BLUE_ASSETS[:6]),
          "end-turn"]

ENDS = [
    # (id, rules, key, actions, termination, winner, losers, the team whose action ended it, reason)
    ("red finds its ninth agent", Rules(), RED, ["clue unlimited", *touches(*range(9))],
     Termination.ALL_AGENTS_FOUND, "red", ["blue"], Team.RED, "red found all its agents"),
    ("red touches blue's last agent", Rules(), RED,
     ["clue 1", *touches(17), "clue unlimited", *touches(*range(9, 16)), "end-turn", *touches(16)],
     Termination.OPPONENTS_LAST_AGENT, "blue", ["red"], Team.RED, "red touched blue's last agent"),
    ("red covers its last agent after blue's penalty", Rules(), RED,
     ["clue unlimited", *touches(*range(8)), "end-turn", "penalty", "cover 8"],
     Termination.ALL_AGENTS_COVERED, "red", ["blue"], Team.RED, "red has all its agents covered"),
    ("red touches the assassin", Rules(), RED, ["clue 1", *touches(24)],
     Termination.ASSASSIN, "blue", ["red"], Team.RED, "red touched the assassin"),
    ("cooperative: the simulated opponent covers its last agent", COOP, RED, rounds(8),
     Termination.ALL_AGENTS_COVERED, "blue", ["red"], Team.BLUE, "blue has all its agents covered"),
    ("cooperative: the players win", COOP, RED, [*rounds(3), "clue unlimited", *touches(*range(3, 9))],
     Termination.ALL_AGENTS_FOUND, "red", ["blue"], Team.RED, "red found all its agents"),
    ("blue eliminates red's last asset", ALIAS, RED9, ["clue unlimited", *touches(*range(9))],
     Termination.LAST_ASSET_ELIMINATED, "blue", ["red"], Team.BLUE, "red lost its last asset"),
    ("red eliminates its own last asset", ALIAS, RED9,
     ["clue unlimited", *touches(*range(8)), "end-turn", "clue 1", *touches(8)],
     Termination.OWN_LAST_ASSET, "blue", ["red"], Team.RED, "red eliminated its own last asset"),
    ("blue sets off the nuke", ALIAS, RED9, ["clue 1", *touches(24)],
     Termination.NUKE, "red", ["blue"], Team.BLUE, "blue set off the nuke"),
    ("red sets off the armed nuke", MAD, RED9, [*TWELVE, "clue 1", *touches(18), *touches(24)],
     Termination.ARMED_NUKE, None, ["red", "blue"], Team.RED, "red set off the armed nuke: both teams lose"),
]


@pytest.mark.parametrize("rules, key, actions, termination, winner, losers, by, reason", [c[1:] for c in ENDS],
                         ids=[c[0] for c in ENDS])
def test_every_end_of_a_team_game_is_a_termination(play, rules, key, actions, termination, winner, losers, by, reason):
    played = play(key, actions, rules)
    state, view = played.state, played.view
    assert (state.termination, state.ended_by, view["termination"]) == (termination, by, termination.value)
    assert (view["winner"], view["losers"], view["reason"]) == (winner, losers, reason)
    assert termination.said is not None and state.reason == termination.said(by)  # made from the code, never kept
    ending = played.game.ending(state)
    assert ending is not None and ending.to_json() == {"termination": termination.value, "winner": winner,
                                                       "losers": losers, "score": view["score"]}


def test_a_game_in_play_has_no_termination(play):
    played = play(RED, ["clue 2", "touch 0"])
    assert (played.state.termination, played.state.reason, played.view["termination"]) == (None, None, None)
    assert played.game.ending(played.state) is None


def codex_won():
    """A Codex game Viper (seat 2) wins for red with red's code."""
    game = Codex()
    state = game.start(game.parse_setup(
        "Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
        "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF"))
    texts = [f"send {seat} {(seat + 1) % 6} position" for seat in range(6)]
    texts += ["code 2 AAAA-BBBB-CCCC", *(f"done {seat}" for seat in range(6))]
    for text in texts:
        state = game.apply(state, parse_codex_action(text))
    return game, state


def test_a_right_code_ends_codex_as_code_entered():
    game, state = codex_won()
    public = game.public_view(state).to_json()
    assert (state.termination, public["termination"]) == (Termination.CODE_ENTERED, "code_entered")
    assert public["reason"] == "Viper (seat 2) entered red's code: red wins"
    ending = game.ending(state)
    assert ending is not None and ending.to_json() == {"termination": "code_entered", "winner": "red",
                                                       "losers": ["blue"], "score": None}
    assert game.public_view(game.start(state.setup)).termination is None


def test_every_termination_is_reached_by_some_game():
    """The list is the engines' shared game-end paths, no more: each code is one a game returns. A
    game's own ways to end (its description's ``endings``) are its module's, reached by its tests."""
    assert {case[4] for case in ENDS} | {Termination.CODE_ENTERED} == set(SHARED)
    own = {ending for name in names() for ending in described(name).endings}
    assert set(terminations()) == set(SHARED) | own
    assert {t for t in SHARED if t.said is not None} == set(SHARED) - {Termination.CODE_ENTERED}  # Codex says its own


def test_every_termination_has_a_name_a_reader_translates():
    italian = translation("it").gettext
    assert all(italian(termination.words) != termination.words for termination in terminations())


def test_the_history_carries_the_code_and_says_the_reason_in_each_language(tmp_path):
    Session(Rules(), rng=random.Random(1), journal_dir=tmp_path, fsync=False, clock=lambda: 1000.0).close()  # unfinished
    session = Session(COOP, key=make_game(COOP).parse_key(RED), journal_dir=tmp_path, fsync=False, clock=lambda: 2000.0)
    for text in [*rounds(3), "clue unlimited", *touches(*range(3, 9))]:
        session.submit(session.game.read_action(text))
    session.close()
    english, italian = history(tmp_path, "en")[0], history(tmp_path, "it")[0]
    assert {field: english[field] for field in ("termination", "winner", "losers", "score", "reason")} == {
        "termination": "all_agents_found", "winner": "red", "losers": ["blue"], "score": 5,
        "reason": "red found all its agents"}
    assert italian["termination"] == english["termination"] and italian["reason"] == say(session.state.reason, "it")
    assert italian["reason"] != english["reason"]
    unfinished = history(tmp_path, "en")[1]
    assert (unfinished["over"], unfinished["termination"], unfinished["score"], unfinished["reason"]) == (
        False, None, None, None)
