"""Alias 24: 24 aliases, one dark cell; teams eliminate the opponent's assets; BASIC and MAD nukes."""

from __future__ import annotations

import random
import re

import pytest

from pi_table.engine import InvalidKey, Key, RuleError, Rules, Team, make_game

ALIAS = Rules(game="alias24")
MAD = Rules(game="alias24", nuke="mad")
# red assets 0-8 (9), blue assets 9-11 and 13-17 (8), dark 12, decoys 18-23, nuke 24.
# Red holds 9, so blue has more to eliminate and starts; blue targets 0-8, red targets blue's.
RED9 = "RRRRRRRRRBBB.BBBBBNNNNNNA"
BLUE_ASSETS = (9, 10, 11, 13, 14, 15, 16, 17)
# the mirror: blue holds 9 (0-8), red starts
BLUE9 = "BBBBBBBBBRRR.RRRRRNNNNNNA"


def touches(*cells: int) -> list[str]:
    return [f"touch {cell}" for cell in cells]


# --- the key ----------------------------------------------------------------------------------


def test_24_aliases_and_a_dark_centre(play):
    view = play(RED9, rules=ALIAS).view
    assert view["game"] == "alias24"
    assert view["board"] == "?" * 12 + "." + "?" * 12
    assert view["board"].count("?") == 24
    assert view["remaining"] == {"red": 9, "blue": 8}
    assert (view["armed"], view["score"]) == (None, None)


@pytest.mark.parametrize(
    "key, start",
    [(RED9, "blue"), (BLUE9, "red")],
)
def test_the_team_whose_opponent_holds_9_starts(play, key, start):
    view = play(key, rules=ALIAS).view
    assert (view["start"], view["turn"], view["phase"]) == (start, start, "clue")


@pytest.mark.parametrize("start", [Team.RED, Team.BLUE])
def test_the_starting_team_can_be_chosen(play, start):
    played = play(RED9, rules=ALIAS, start=start)
    assert (played.state.key.start, played.view["turn"]) == (start, start.value)


@pytest.mark.parametrize("start", [Team.RED, Team.BLUE])
def test_deal_can_choose_the_starting_team(start):
    game = make_game(ALIAS)
    keys = [game.deal(random.Random(seed), start=start) for seed in range(40)]
    assert {key.start for key in keys} == {start}
    # the override does not fix who holds 9: both layouts still occur
    assert {key.count("R") for key in keys} == {8, 9}


def test_a_dealt_key_without_override_follows_the_nine():
    game = make_game(ALIAS)
    for seed in range(40):
        key = game.deal(random.Random(seed))
        assert key.count(key.start.other.letter) == 9
        assert key[12] == "."
        game.start(key)


@pytest.mark.parametrize(
    "rules, key, problem",
    [
        (ALIAS, "RRRRRRRRRBBBBBBBBBNNNNNNA", "one '.' at cell 12 (found it at no cell)"),
        (ALIAS, ".RRRRRRRRBBBRBBBBBNNNNNNA", "one '.' at cell 12 (found it at [0])"),
        (ALIAS, "RRRRRRRRRBBB.BBBBNNNNNNNA", "9 cards for one team and 8 for the other (found 9 R and 7 B)"),
        (ALIAS, "RRRRRRRRRBBB.BBBBBNNNNNAA", "6 N (found 5); 1 A (found 2)"),
        (Rules(game="alias24", dark_cell=0), RED9, "one '.' at cell 0 (found it at [12])"),
    ],
)
def test_keys_that_do_not_fit_alias24_are_refused(rules, key, problem):
    with pytest.raises(InvalidKey, match=re.escape(problem)):
        make_game(rules).parse_key(key)


def test_the_dark_cell_can_move(play):
    rules = Rules(game="alias24", dark_cell=0)
    played = play(".RRRRRRRRRBBBBBBBBNNNNNNA", rules=rules)
    assert played.view["board"] == "." + "?" * 24
    assert played.state.key.start is Team.BLUE
    with pytest.raises(RuleError, match="^cell 0 has no alias$"):
        played.apply("touch 0")
    assert played.apply("touch 12").view["board"][12] == "B"  # the centre is an alias now


def test_a_dealt_key_has_the_dot_on_the_dark_cell():
    game = make_game(Rules(game="alias24", dark_cell=7))
    key = game.deal(random.Random(1))
    assert key.cells.index(".") == 7 and key.count(".") == 1


# --- targeting --------------------------------------------------------------------------------

PLAY_CASES = [
    ("an opponent asset lets the team go on", ["clue 2", *touches(0)],
     {"turn": "blue", "phase": "guess", "guesses": 1, "guesses_left": 2, "remaining": {"red": 8, "blue": 8}}),
    ("the plus-one rule applies", ["clue 2", *touches(0, 1)], {"turn": "blue", "guesses_left": 1}),
    ("N+1 eliminations pass the turn", ["clue 2", *touches(0, 1, 2)],
     {"turn": "red", "phase": "clue", "remaining": {"red": 6, "blue": 8}}),
    ("end-turn after a hit", ["clue 2", *touches(0), "end-turn"], {"turn": "red", "phase": "clue"}),
    ("clue 0 lifts the limit", ["clue 0", *touches(0, 1, 2, 3, 4)], {"turn": "blue", "phase": "guess", "guesses": 5}),
    ("infinity lifts the limit", ["clue infinity", *touches(0, 1, 2, 3, 4, 5, 6, 7)],
     {"turn": "blue", "phase": "guess", "clue": "unlimited", "remaining": {"red": 1, "blue": 8}}),
    ("an own asset ends the turn", ["clue 3", *touches(9)],
     {"turn": "red", "phase": "clue", "remaining": {"red": 9, "blue": 7}}),
    ("an own asset after a hit ends the turn", ["clue 3", *touches(0, 13)],
     {"turn": "red", "phase": "clue", "remaining": {"red": 8, "blue": 7}}),
    ("a decoy ends the turn", ["clue 3", *touches(18)],
     {"turn": "red", "phase": "clue", "board": "?" * 12 + "." + "?" * 5 + "N" + "?" * 6}),
    ("red targets blue's assets", ["clue 1", *touches(18), "clue 1", *touches(9, 10)],
     {"turn": "blue", "phase": "clue", "remaining": {"red": 9, "blue": 6}}),
    ("a numberless first touch", touches(0, 1, 2, 3), {"turn": "blue", "clue": None, "guesses": 4}),
]


@pytest.mark.parametrize("actions, expected", [c[1:] for c in PLAY_CASES], ids=[c[0] for c in PLAY_CASES])
def test_targeting(play, actions, expected):
    view = play(RED9, actions, ALIAS).view
    assert {field: view[field] for field in expected} == expected


END_CASES = [
    ("blue eliminates red's last asset", RED9, ALIAS, ["clue unlimited", *touches(*range(9))],
     "blue", ["red"], "red lost its last asset"),
    ("red eliminates its own last asset on its own turn", RED9, ALIAS,
     ["clue unlimited", *touches(*range(8)), "end-turn", "clue 1", *touches(8)],
     "blue", ["red"], "red eliminated its own last asset"),
    ("blue eliminates its own last asset on its own turn", RED9, ALIAS,
     ["clue 1", *touches(18), "clue unlimited", *touches(*BLUE_ASSETS[:7]), "end-turn", *touches(17)],
     "red", ["blue"], "blue eliminated its own last asset"),
    ("red (starting) eliminates blue's nine", BLUE9, ALIAS, ["clue unlimited", *touches(*range(9))],
     "red", ["blue"], "blue lost its last asset"),
    ("the basic nuke: the targeting team loses", RED9, ALIAS, ["clue 1", *touches(24)],
     "red", ["blue"], "blue set off the nuke"),
    ("the basic nuke on red's turn", RED9, ALIAS, ["clue 1", *touches(18), *touches(24)],
     "blue", ["red"], "red set off the nuke"),
]


@pytest.mark.parametrize(
    "key, rules, actions, winner, losers, reason", [c[1:] for c in END_CASES], ids=[c[0] for c in END_CASES]
)
def test_game_end(play, key, rules, actions, winner, losers, reason):
    played = play(key, actions, rules)
    view = played.view
    assert (view["phase"], view["turn"], view["winner"], view["losers"], view["reason"]) == (
        "over", None, winner, losers, reason,
    )
    assert played.game.legal_actions(played.state) == []


# Twelve aliases targeted: blue eliminates six red assets, red eliminates six blue assets.
TWELVE = ["clue unlimited", *touches(0, 1, 2, 3, 4, 5), "end-turn", "clue unlimited", *touches(*BLUE_ASSETS[:6]),
          "end-turn"]
# ... and blue's decoy makes thirteen.
THIRTEEN = [*TWELVE, "clue 1", *touches(18)]


def test_mad_is_not_armed_at_twelve(play):
    played = play(RED9, TWELVE, MAD)
    view = played.view
    assert (view["turn"], view["armed"], view["remaining"]) == ("blue", False, {"red": 3, "blue": 2})
    assert played.game.table_view(played.state).targeted == 12
    end = played.apply("touch 24").view
    assert (end["winner"], end["losers"], end["reason"]) == ("red", ["blue"], "blue set off the nuke")


def test_mad_is_armed_at_thirteen(play):
    played = play(RED9, THIRTEEN, MAD)
    assert (played.view["turn"], played.view["armed"]) == ("red", True)
    end = played.apply("touch 24")
    view = end.view
    assert (view["phase"], view["winner"], view["losers"]) == ("over", None, ["red", "blue"])
    assert view["reason"] == "red set off the armed nuke: both teams lose"
    assert end.game.returns(end.state) == {Team.RED: -1, Team.BLUE: -1}


def test_mad_counts_every_kind_of_alias_targeted(play):
    # hits, own assets and decoys all count towards the thirteen; the nuke itself does not
    actions = [
        "clue 1", *touches(18),  # blue: a decoy (1)
        "clue 1", *touches(0),  # red: its own asset (2)
        "clue 2", *touches(1, 2, 3),  # blue: three hits, plus-one (5)
        "clue 2", *touches(9, 10, 11),  # red: three hits (8)
        "clue 1", *touches(13),  # blue: its own asset (9)
        "clue 0", *touches(14, 15, 19),  # red: two hits and a decoy (12)
    ]
    played = play(RED9, actions, MAD)
    assert played.game.table_view(played.state).targeted == 12
    assert (played.view["turn"], played.view["armed"]) == ("blue", False)
    played = played.apply("touch 4")
    assert (played.view["turn"], played.view["armed"]) == ("blue", True)
    assert played.apply("touch 24").view["losers"] == ["red", "blue"]


def test_the_basic_nuke_is_never_armed(play):
    played = play(RED9, THIRTEEN, ALIAS)
    assert played.view["armed"] is None
    view = played.apply("touch 24").view
    assert (view["winner"], view["losers"]) == ("blue", ["red"])


# --- refusals ---------------------------------------------------------------------------------

REFUSALS = [
    ("no penalty", [], "penalty", "Alias 24 has no invalid-clue penalty"),
    ("no penalty after the clue", ["clue 2"], "penalty", "Alias 24 has no invalid-clue penalty"),
    ("no cover", [], "cover 9", "Alias 24 has no covers: only targeting eliminates an alias"),
    ("no cover after a turn", ["clue 1", "touch 18"], "cover 0",
     "Alias 24 has no covers: only targeting eliminates an alias"),
    ("the dark cell", [], "touch 12", "cell 12 has no alias"),
    ("the dark cell mid-turn", ["clue 2", "touch 0"], "touch 12", "cell 12 has no alias"),
    ("an alias targeted twice", ["clue 2", "touch 0"], "touch 0", "alias 0 is already targeted"),
    ("end-turn before a target", ["clue 2"], "end-turn",
     "the blue team must guess at least once before ending its turn"),
    ("a second clue", ["clue 2"], "clue 1", "the blue team already has its clue: touch an alias or end the turn"),
    ("placing with a dealt key", [], "place 0", "all the aliases are already on the table"),
]


@pytest.mark.parametrize("before, action, message", [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_refusals(play, before, action, message):
    played = play(RED9, before, ALIAS)
    with pytest.raises(RuleError) as refused:
        played.apply(action)
    assert str(refused.value) == message


def test_the_mastermind_enters_a_required_clue(play):
    with pytest.raises(RuleError, match="^the blue mastermind must enter the clue number before the first touch$"):
        play(RED9, rules=Rules(game="alias24", clue_required=True)).apply("touch 0")


def test_legal_actions_never_offer_the_dark_cell_a_penalty_or_a_cover(play):
    played = play(RED9, ["clue 2", "touch 0"], ALIAS)
    texts = {str(action) for action in played.game.legal_actions(played.state)}
    assert texts == {"end-turn", "time-up"} | {f"touch {cell}" for cell in range(1, 25) if cell != 12}
    start = play(RED9, rules=ALIAS)
    texts = {str(action) for action in start.game.legal_actions(start.state)}
    assert "touch 12" not in texts and "penalty" not in texts
    assert not any(text.startswith("cover") for text in texts)


def test_any_start_is_accepted_by_start():
    game = make_game(ALIAS)
    assert game.start(Key(RED9, Team.RED)).turn is Team.RED
