"""Codenames (2025 rulebook, Nome in codice, Deep Undercover): one rule per case.

A position is a key string plus the action texts played on it (as python-chess uses a FEN and
moves); each case asserts the table view's JSON fields or the refusal's message.
"""

from __future__ import annotations

import re

import pytest

from pi_table.engine import (
    Clue,
    Cover,
    EndTurn,
    GameOver,
    Guess,
    InvalidAction,
    InvalidKey,
    Key,
    Penalty,
    Place,
    RuleError,
    Rules,
    Team,
    Undo,
    make_game,
    parse_action,
)

# red 0-8, blue 9-16, bystanders 17-23, assassin 24: red holds the double agent and starts
RED = "RRRRRRRRRBBBBBBBBNNNNNNNA"
# blue 0-8, red 9-16, bystanders 17-23, assassin 24: blue starts
BLUE = "BBBBBBBBBRRRRRRRRNNNNNNNA"


def touches(*cells: int) -> list[str]:
    return [f"touch {cell}" for cell in cells]


# --- setup: 9/8/7/1, the double agent goes to the starting team ---------------------------


@pytest.mark.parametrize(
    "key, start, remaining",
    [
        (RED, "red", {"red": 9, "blue": 8}),
        (BLUE, "blue", {"red": 8, "blue": 9}),
        ("NBRBRBRBRBRBRBRBRANNNNNNR", "red", {"red": 9, "blue": 8}),
    ],
)
def test_the_team_with_the_double_agent_starts(play, key, start, remaining):
    view = play(key).view
    assert view["start"] == start
    assert view["turn"] == start
    assert view["phase"] == "clue"
    assert view["remaining"] == remaining
    assert view["board"] == "?" * 25


@pytest.mark.parametrize(
    "key, problem",
    [
        ("RRRRRRRRBBBBBBBBNNNNNNNNA", "9 cards for one team and 8 for the other (found 8 R and 8 B)"),
        ("RRRRRRRRRBBBBBBBBNNNNNNAA", "7 N (found 6)"),
        ("RRRRRRRRRBBBBBBBBNNNNNNNN", "1 A (found 0)"),
        ("RRRRRRRRRBBBBBBBBNNNNNN.A", "no '.' (found it at [23])"),
    ],
)
def test_a_key_without_the_9_8_7_1_layout_is_refused(key, problem):
    with pytest.raises(InvalidKey, match=re.escape(problem)):
        make_game(Rules()).parse_key(key)


def test_start_must_be_the_team_with_9_agents():
    game = make_game(Rules())
    with pytest.raises(InvalidKey, match="the team with 9 cards starts: red, not blue"):
        game.start(Key(RED, Team.BLUE))


# --- turns, clue numbers and the plus-one rule -------------------------------------------

PLAY_CASES = [
    # (id, key, actions, rules, expected table-view fields)
    ("clue N opens the guess phase", RED, ["clue 2"], None,
     {"turn": "red", "phase": "guess", "clue": 2, "guesses": 0, "guesses_left": 3}),
    ("a right guess lets the team guess again", RED, ["clue 2", *touches(0)], None,
     {"turn": "red", "phase": "guess", "guesses": 1, "guesses_left": 2, "board": "R" + "?" * 24}),
    ("N right guesses: one more allowed", RED, ["clue 2", *touches(0, 1)], None,
     {"turn": "red", "phase": "guess", "guesses": 2, "guesses_left": 1}),
    ("N+1 right guesses pass the turn by themselves", RED, ["clue 2", *touches(0, 1, 2)], None,
     {"turn": "blue", "phase": "clue", "clue": None, "guesses": 0, "guesses_left": None,
      "remaining": {"red": 6, "blue": 8}}),
    ("clue 1 allows exactly two guesses", RED, ["clue 1", *touches(0, 1)], None,
     {"turn": "blue", "phase": "clue", "remaining": {"red": 7, "blue": 8}}),
    ("end-turn after N guesses", RED, ["clue 2", *touches(0, 1), "end-turn"], None,
     {"turn": "blue", "phase": "clue", "remaining": {"red": 7, "blue": 8}}),
    ("end-turn after a single guess", RED, ["clue 3", *touches(0), "end-turn"], None,
     {"turn": "blue", "phase": "clue"}),
    ("clue 0 lifts the limit", RED, ["clue 0", *touches(0, 1, 2, 3, 4, 5)], None,
     {"turn": "red", "phase": "guess", "clue": 0, "guesses": 6, "guesses_left": None}),
    ("clue unlimited lifts the limit", RED, ["clue unlimited", *touches(0, 1, 2, 3, 4, 5, 6, 7)], None,
     {"turn": "red", "phase": "guess", "clue": "unlimited", "guesses": 8, "guesses_left": None}),
    ("clue infinity is the unlimited clue", RED, ["clue infinity", *touches(0, 1, 2)], None,
     {"turn": "red", "phase": "guess", "clue": "unlimited", "guesses": 3}),
    ("a bystander ends the turn", RED, ["clue 3", *touches(17)], None,
     {"turn": "blue", "phase": "clue", "board": "?" * 17 + "N" + "?" * 7, "remaining": {"red": 9, "blue": 8}}),
    ("a bystander after right guesses ends the turn", RED, ["clue 3", *touches(0, 17)], None,
     {"turn": "blue", "phase": "clue", "remaining": {"red": 8, "blue": 8}}),
    ("an opponent's card ends the turn and helps them", RED, ["clue 3", *touches(9)], None,
     {"turn": "blue", "phase": "clue", "remaining": {"red": 9, "blue": 7}, "winner": None}),
    ("blue's turn works the same", RED, ["clue 1", *touches(17), "clue 1", *touches(9, 10)], None,
     {"turn": "red", "phase": "clue", "remaining": {"red": 9, "blue": 6}}),
    # the clue is optional by default: a first touch starts the turn with no number
    ("a touch in the clue phase starts the turn", RED, touches(0), None,
     {"turn": "red", "phase": "guess", "clue": None, "guesses": 1, "guesses_left": None}),
    ("without a number there is no limit", RED, touches(0, 1, 2, 3, 4, 5), None,
     {"turn": "red", "phase": "guess", "clue": None, "guesses": 6}),
    ("a numberless turn still ends on a miss", RED, touches(0, 17), None,
     {"turn": "blue", "phase": "clue"}),
    ("a required clue, then guesses", RED, ["clue 1", *touches(0)], Rules(clue_required=True),
     {"turn": "red", "phase": "guess", "clue": 1, "guesses_left": 1}),
]


@pytest.mark.parametrize(
    "key, actions, rules, expected", [case[1:] for case in PLAY_CASES], ids=[case[0] for case in PLAY_CASES]
)
def test_turns(play, key, actions, rules, expected):
    view = play(key, actions, rules).view
    assert {field: view[field] for field in expected} == expected


# --- the end of the game ---------------------------------------------------------------------

END_CASES = [
    # (id, key, actions, winner, losers, reason)
    ("the assassin loses for red", RED, ["clue 1", *touches(24)], "blue", ["red"], "red touched the assassin"),
    ("the assassin loses for blue", RED, ["clue 1", *touches(17), "clue 1", *touches(24)], "red", ["blue"],
     "blue touched the assassin"),
    ("the assassin on a numberless first touch", BLUE, touches(24), "red", ["blue"], "blue touched the assassin"),
    ("red wins by finding its ninth agent", RED, ["clue unlimited", *touches(*range(9))], "red", ["blue"],
     "red found all its agents"),
    ("blue wins on red's turn", RED,
     ["clue 1", *touches(17), "clue unlimited", *touches(*range(9, 16)), "end-turn", *touches(16)],
     "blue", ["red"], "red touched blue's last agent"),
    ("red wins on blue's turn", RED,
     ["clue unlimited", *touches(*range(8)), "end-turn", "clue 1", *touches(8)],
     "red", ["blue"], "blue touched red's last agent"),
    ("blue (starting) wins with its ninth", BLUE, ["clue 9", *touches(*range(9))], "blue", ["red"],
     "blue found all its agents"),
]


@pytest.mark.parametrize(
    "key, actions, winner, losers, reason", [case[1:] for case in END_CASES], ids=[case[0] for case in END_CASES]
)
def test_game_end(play, key, actions, winner, losers, reason):
    played = play(key, actions)
    view = played.view
    assert (view["phase"], view["turn"], view["winner"], view["losers"], view["reason"]) == (
        "over", None, winner, losers, reason,
    )
    returns = played.game.returns(played.state)
    assert returns == {Team(winner): 1, Team(losers[0]): -1}
    assert played.game.legal_actions(played.state) == []


def test_returns_are_zero_while_playing(play):
    played = play(RED, ["clue 2", "touch 0"])
    assert played.game.returns(played.state) == {Team.RED: 0, Team.BLUE: 0}
    assert played.game.current_team(played.state) is Team.RED


@pytest.mark.parametrize("text", ["clue 1", "touch 3", "end-turn", "penalty", "cover 9", "place 0"])
def test_a_finished_game_accepts_nothing(play, text):
    played = play(RED, ["clue 1", "touch 24"])
    with pytest.raises(GameOver, match=re.escape("the game is over (red touched the assassin)")):
        played.apply(text)


# --- the invalid-clue penalty --------------------------------------------------------------

PENALTY_CASES = [
    ("penalty before any clue number", RED, ["penalty"], None,
     {"turn": "blue", "phase": "cover", "clue": None, "guesses": 0, "board": "?" * 25}),
    ("penalty after the clue number, before a guess", RED, ["clue 2", "penalty"], None,
     {"turn": "blue", "phase": "cover", "clue": None}),
    ("penalty against blue", RED, ["clue 1", *touches(17), "clue 3", "penalty"], None,
     {"turn": "red", "phase": "cover"}),
    ("the other team covers one of its agents", RED, ["penalty", "cover 9"], None,
     {"turn": "blue", "phase": "clue", "covered": [9], "remaining": {"red": 9, "blue": 7},
      "board": "?" * 9 + "B" + "?" * 15}),
    ("after the cover, blue plays its turn", RED, ["penalty", "cover 9", "clue 1", *touches(10, 11)], None,
     {"turn": "red", "phase": "clue", "remaining": {"red": 9, "blue": 5}}),
    ("the cover may be skipped by a clue", RED, ["penalty", "clue 2"], None,
     {"turn": "blue", "phase": "guess", "clue": 2, "covered": [], "remaining": {"red": 9, "blue": 8}}),
    ("the cover may be skipped by a first touch", RED, ["penalty", *touches(9)], None,
     {"turn": "blue", "phase": "guess", "clue": None, "guesses": 1, "covered": []}),
    ("with a required clue the cover is skipped by the clue", RED, ["penalty", "clue 1", *touches(9)],
     Rules(clue_required=True), {"turn": "blue", "phase": "guess", "guesses": 1}),
]


@pytest.mark.parametrize(
    "key, actions, rules, expected", [case[1:] for case in PENALTY_CASES], ids=[case[0] for case in PENALTY_CASES]
)
def test_penalty(play, key, actions, rules, expected):
    view = play(key, actions, rules).view
    assert {field: view[field] for field in expected} == expected


def test_covering_the_last_own_agent_wins(play):
    # red touches a blue agent; blue finds six more and stops with one left (16); red's clue is ruled invalid
    actions = ["clue 1", *touches(9), "clue unlimited", *touches(*range(10, 16)), "end-turn", "penalty"]
    played = play(RED, actions)
    assert played.view["remaining"] == {"red": 9, "blue": 1}
    view = played.apply("cover 16").view
    assert (view["phase"], view["winner"], view["losers"], view["reason"]) == (
        "over", "blue", ["red"], "blue has all its agents covered",
    )
    assert view["covered"] == [16]


# --- refusals --------------------------------------------------------------------------------

REFUSALS = [
    # (id, key, actions before, refused action, rules, error, message)
    ("touching a revealed card", RED, ["clue 3", "touch 7"], "touch 7", None, RuleError,
     "card 7 is already revealed"),
    ("touching a card revealed on an earlier turn", RED, ["clue 3", "touch 17"], "touch 17", None, RuleError,
     "card 17 is already revealed"),
    ("end-turn right after the clue", RED, ["clue 2"], "end-turn", None, RuleError,
     "the red team must guess at least once before ending its turn"),
    ("end-turn before anything", RED, [], "end-turn", None, RuleError,
     "the red team must guess at least once before ending its turn"),
    ("end-turn right after the turn passed", RED, ["clue 2", "touch 17"], "end-turn", None, RuleError,
     "the blue team must guess at least once before ending its turn"),
    ("a second clue in the same turn", RED, ["clue 2"], "clue 3", None, RuleError,
     "the red team already has its clue: touch a card or end the turn"),
    ("a touch before the required clue", RED, [], "touch 0", Rules(clue_required=True), RuleError,
     "the red spymaster must enter the clue number before the first touch"),
    ("a touch before the required clue, after a penalty", RED, ["penalty"], "touch 9",
     Rules(clue_required=True), RuleError, "the blue spymaster must enter the clue number before the first touch"),
    ("penalty after the first guess", RED, ["clue 2", "touch 0"], "penalty", None, RuleError,
     "a clue can be ruled invalid only before the first guess; now it stands"),
    ("penalty after a numberless first guess", RED, ["touch 0"], "penalty", None, RuleError,
     "a clue can be ruled invalid only before the first guess; now it stands"),
    ("penalty during the cover", RED, ["penalty"], "penalty", None, RuleError,
     "there is no clue to rule invalid now (blue is in its cover phase)"),
    ("cover of the penalised team's card", RED, ["penalty"], "cover 0", None, RuleError,
     "card 0 is not a hidden blue agent: cover one of blue's"),
    ("cover of a bystander", RED, ["penalty"], "cover 17", None, RuleError,
     "card 17 is not a hidden blue agent: cover one of blue's"),
    ("cover of the assassin", RED, ["penalty"], "cover 24", None, RuleError,
     "card 24 is not a hidden blue agent: cover one of blue's"),
    ("cover of an already revealed own agent", RED, ["clue 1", "touch 9", "clue 1", "touch 17", "penalty"],
     "cover 9", None, RuleError, "card 9 is not a hidden blue agent: cover one of blue's"),
    ("a second cover", RED, ["penalty", "cover 9"], "cover 10", None, RuleError,
     "a spymaster may cover a card only right after the other team's penalty"),
    ("a cover without a penalty", RED, [], "cover 0", None, RuleError,
     "a spymaster may cover a card only right after the other team's penalty"),
    ("end-turn instead of the cover", RED, ["penalty"], "end-turn", None, RuleError,
     "the blue spymaster may cover one of blue's agents, then gives the clue"),
    ("placing without the placing setup", RED, [], "place 0", None, RuleError,
     "all the cards are already on the table"),
]


@pytest.mark.parametrize(
    "key, before, action, rules, error, message", [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS]
)
def test_refusals(play, key, before, action, rules, error, message):
    played = play(key, before, rules)
    with pytest.raises(error) as refused:
        played.apply(action)
    assert str(refused.value) == message


def test_undo_is_for_the_game_record_not_the_rules(play):
    played = play(RED, ["clue 1"])
    with pytest.raises(InvalidAction, match="undo is not something the codenames rules act on"):
        played.game.apply(played.state, Undo())


# --- malformed actions ---------------------------------------------------------------------

MALFORMED = [
    ("jump 3", "the commands are clue, touch, end-turn, penalty, cover, place, time-up, undo, words, told, not 'jump'"),
    ("touch x", "the cell must be a whole number, not 'x'"),
    ("touch -1", "the cell must be a whole number, not '-1'"),
    ("touch 25", "the grid's cells are 0 to 24, not 25"),
    ("cover 99", "the grid's cells are 0 to 24, not 99"),
    ("place 25", "the grid's cells are 0 to 24, not 25"),
    ("clue 10", "a clue number is 0 to 9 or unlimited, not 10"),
    ("clue lots", "the clue number is a whole number or 'unlimited', not 'lots'"),
    ("clue 2.5", "the clue number is a whole number or 'unlimited', not '2.5'"),
    ("clue", "'clue' takes one argument, a number, 'unlimited' or 'infinity'; got 0"),
    ("touch 1 2", "'touch' takes one argument, a cell number 0-24; got 2"),
    ("end-turn now", "'end-turn' takes no argument, not 'now'"),
    ("", "an empty line is not an action"),
    ("   ", "an empty line is not an action"),
    ("touch ３", "the cell must be a whole number, not '３'"),
]


@pytest.mark.parametrize("text, message", MALFORMED)
def test_malformed_actions(text, message):
    with pytest.raises(InvalidAction) as refused:
        parse_action(text)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    "text, action",
    [
        ("clue 3", Clue(3)),
        ("clue 0", Clue(0)),
        ("CLUE Unlimited", Clue("unlimited")),
        ("clue infinity", Clue("unlimited")),
        ("clue ∞", Clue("unlimited")),
        ("touch 0", Guess(0)),
        ("  touch   24 ", Guess(24)),
        ("end-turn", EndTurn()),
        ("penalty", Penalty()),
        ("cover 9", Cover(9)),
        ("place 12", Place(12)),
        ("undo", Undo()),
    ],
)
def test_action_text_forms(text, action):
    assert parse_action(text) == action
    assert parse_action(str(action)) == action


@pytest.mark.parametrize("make", [lambda: Guess(True), lambda: Guess(-1), lambda: Cover(25), lambda: Clue(True),
                                  lambda: Clue(-1), lambda: Clue("many"), lambda: Place(3.0)])
def test_actions_check_their_arguments(make):
    with pytest.raises(InvalidAction):
        make()


# --- the rulebook walkthrough (Deep Undercover, "Number of Guesses") -----------------------

# Red starts. CABOOSE is a bystander, BOTTOM, MARTINI and VODKA are red agents, plus a
# third booze word; BLUE1 and BLUE2 are the two words blue guesses.
CABOOSE, BOTTOM, MARTINI, VODKA, GIN, BLUE1, BLUE2 = 17, 0, 1, 2, 3, 9, 10


@pytest.mark.parametrize("rules", [Rules(), Rules(clue_required=True)], ids=["clue optional", "clue required"])
def test_rulebook_walkthrough(play, rules):
    # "Red Team's first clue was butt: 2 ... She guessed CABOOSE first. That was an innocent bystander"
    played = play(RED, ["clue 2", f"touch {CABOOSE}"], rules)
    assert (played.view["turn"], played.view["phase"]) == ("blue", "clue")
    # "Blue Team took a turn and correctly guessed two words. Now, it is Red Team's turn again."
    played = play(RED, ["clue 2", f"touch {CABOOSE}", "clue 2", f"touch {BLUE1}", f"touch {BLUE2}", "end-turn"], rules)
    view = played.view
    assert (view["turn"], view["phase"], view["remaining"]) == ("red", "clue", {"red": 9, "blue": 6})
    # "The red spymaster says booze: 3" - MARTINI, VODKA, then BOTTOM from the previous clue
    played = played.apply("clue 3")
    for touched, left in ((MARTINI, 3), (VODKA, 2), (BOTTOM, 1)):
        played = played.apply(f"touch {touched}")
        assert (played.view["turn"], played.view["guesses_left"]) == ("red", left)
    # "The operative has made 3 correct guesses ... She is allowed one final guess ... Or she can stop"
    assert (played.apply("end-turn").view["turn"]) == "blue"
    played = played.apply(f"touch {GIN}")
    view = played.view
    assert (view["turn"], view["phase"], view["guesses"], view["remaining"]) == (
        "blue", "clue", 0, {"red": 5, "blue": 6},
    )
    # a fifth touch is not red's: the turn has passed to blue
    if rules.clue_required:
        with pytest.raises(RuleError, match="the blue spymaster must enter the clue number"):
            played.apply("touch 4")
    else:
        after = played.apply("touch 4").view  # blue's own numberless turn, and red's card helps red
        assert (after["turn"], after["remaining"]) == ("red", {"red": 4, "blue": 6})


# --- the observers ---------------------------------------------------------------------------


def test_the_whole_table_view(play):
    # red misses; blue's clue is ruled invalid; red covers cell 0, then guesses cell 1 on its clue 2
    played = play(RED, ["clue 1", "touch 17", "penalty", "cover 0", "clue 2", "touch 1"])
    assert played.view == {
        "game": "codenames",
        "turn": "red",
        "phase": "guess",
        "clue": 2,
        "guesses_left": 2,
        "remaining": {"red": 7, "blue": 8},
        "board": "RR" + "?" * 15 + "N" + "?" * 7,
        "winner": None,
        "losers": [],
        "reason": None,
        "score": None,
        "armed": None,
        "start": "red",
        "guesses": 1,
        "covered": [0],
        "placing": None,
        "rating": None,
        "termination": None,
    }


def test_only_the_spymaster_view_has_the_key(play):
    played = play(RED, ["clue 1", "touch 17"])
    spymaster = played.game.spymaster_view(played.state)
    assert spymaster.to_json() == {**played.view, "key": RED}
    assert "key" not in played.view
    assert RED not in str(played.view.values())
