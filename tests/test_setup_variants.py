"""Setup options: Deep Undercover's deal-and-place, the 3-player wording, and the rule options themselves."""

from __future__ import annotations

import pytest

from pi_table.engine import (
    Codenames,
    InvalidRules,
    Place,
    RuleError,
    Rules,
    Team,
    make_game,
)

RED = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red starts
BLUE = "BBBBBBBBBRRRRRRRRNNNNNNNA"  # blue starts
ALIAS_KEY = "RRRRRRRRRBBB.BBBBBNNNNNNA"  # red holds 9, so blue starts; dark centre

PLACE = Rules(setup="place")
ALIAS_PLACE = Rules(game="alias24", setup="place")


def places(*cells: int) -> list[str]:
    return [f"place {cell}" for cell in cells]


# --- Deep Undercover: deal and place ----------------------------------------------------------


@pytest.mark.parametrize("key", [RED, BLUE])
def test_placing_comes_first_and_red_places_first_whatever_the_key(play, key):
    view = play(key, rules=PLACE).view
    assert (view["phase"], view["turn"], view["placing"], view["clue"]) == ("place", "red", 0, None)


@pytest.mark.parametrize(
    "key, rules, order",
    [
        (RED, PLACE, list(range(25))),
        (BLUE, PLACE, list(range(25))),
        (ALIAS_KEY, ALIAS_PLACE, [cell for cell in range(25) if cell != 12]),
        (".RRRRRRRRRBBBBBBBBNNNNNNA", Rules(game="alias24", setup="place", dark_cell=0), list(range(1, 25))),
        (RED, Rules(game="codenames-coop", setup="place"), list(range(25))),
    ],
    ids=["codenames red", "codenames blue", "alias24 dark centre", "alias24 dark corner", "coop"],
)
def test_the_teams_take_turns_placing_row_major(play, key, rules, order):
    played = play(key, rules=rules)
    start = played.key.start  # the key the last placement brings
    for placed, cell in enumerate(order):
        view = played.view
        turn = Team.RED if placed % 2 == 0 else Team.BLUE  # the key is not drawn yet
        assert (view["phase"], view["turn"], view["placing"]) == ("place", turn.value, cell)
        assert [str(action) for action in played.game.legal_actions(played.state)] == [f"place {cell}"]
        played = played.apply(f"place {cell}")
    view = played.view
    assert (view["phase"], view["turn"], view["placing"], view["guesses"]) == ("clue", start.value, None, 0)
    assert played.state.placed == len(order)
    assert view["board"].count("?") == len(order)
    # and then the game is played as usual
    assert played.apply(f"touch {order[0]}").view["phase"] == "guess"


def test_after_placing_the_usual_game_follows(play):
    view = play(RED, [*places(*range(25)), "clue 2", "touch 0", "touch 1", "touch 2"], PLACE).view
    assert (view["turn"], view["phase"], view["remaining"]) == ("blue", "clue", {"red": 6, "blue": 8})


WAITING_RED_0 = "the cards are still being placed: the red team places the next one on cell 0"
PLACING_REFUSALS = [
    ("a clue", RED, PLACE, [], "clue 2", WAITING_RED_0),
    ("a touch", RED, PLACE, [], "touch 0", WAITING_RED_0),
    ("end-turn", RED, PLACE, [], "end-turn", WAITING_RED_0),
    ("a touch later on", RED, PLACE, places(0, 1, 2), "touch 0",
     "the cards are still being placed: the blue team places the next one on cell 3"),
    ("a touch with a required clue", RED, Rules(setup="place", clue_required=True), places(0), "touch 5",
     "the cards are still being placed: the blue team places the next one on cell 1"),
    ("the wrong cell", RED, PLACE, [], "place 3", "the red team places the next card on cell 0, not 3"),
    ("a cell already placed", RED, PLACE, places(0, 1), "place 1",
     "the red team places the next card on cell 2, not 1"),
    ("a penalty", RED, PLACE, [], "penalty", "there is no clue to rule invalid now (red is in its place phase)"),
    ("a cover", RED, PLACE, [], "cover 9", "a spymaster may cover a card only right after the other team's penalty"),
    ("a place once all are placed", RED, PLACE, places(*range(25)), "place 0",
     "all the cards are already on the table"),
    ("alias24: the dark cell is skipped", ALIAS_KEY, ALIAS_PLACE, places(*range(12)), "place 12",
     "the red team places the next alias on cell 13, not 12"),
    ("alias24: a clue", ALIAS_KEY, ALIAS_PLACE, places(*range(12)), "clue 1",
     "the aliases are still being placed: the red team places the next one on cell 13"),
    ("coop: a clue", RED, Rules(game="codenames-coop", setup="place"), [], "clue 1", WAITING_RED_0),
]


@pytest.mark.parametrize(
    "key, rules, before, action, message", [c[1:] for c in PLACING_REFUSALS], ids=[c[0] for c in PLACING_REFUSALS]
)
def test_only_the_expected_placement_is_accepted(play, key, rules, before, action, message):
    played = play(key, before, rules)
    with pytest.raises(RuleError) as refused:
        played.apply(action)
    assert str(refused.value) == message


# --- the 3-player variant: one operative guesses for both spymasters ----------------------

THREE = Rules(three_player=True)
THREE_PLAYER_WORDING = [
    ("end-turn", RED, THREE, ["clue 2"], "end-turn",
     "the operative (guessing for red) must guess at least once before ending its turn"),
    ("end-turn for blue", RED, THREE, ["clue 2", "touch 17"], "end-turn",
     "the operative (guessing for blue) must guess at least once before ending its turn"),
    ("a second clue", RED, THREE, ["clue 2"], "clue 1",
     "the operative (guessing for red) already has its clue: touch a card or end the turn"),
    ("placing", RED, Rules(three_player=True, setup="place"), [], "touch 0",
     "the cards are still being placed: the operative (guessing for red) places the next one on cell 0"),
    ("the wrong cell", RED, Rules(three_player=True, setup="place"), places(0), "place 0",
     "the operative (guessing for blue) places the next card on cell 1, not 0"),
    ("alias24", ALIAS_KEY, Rules(game="alias24", three_player=True), ["clue 2"], "end-turn",
     "the operative (guessing for blue) must guess at least once before ending its turn"),
]


@pytest.mark.parametrize(
    "key, rules, before, action, message",
    [c[1:] for c in THREE_PLAYER_WORDING],
    ids=[c[0] for c in THREE_PLAYER_WORDING],
)
def test_three_player_wording(play, key, rules, before, action, message):
    with pytest.raises(RuleError) as refused:
        play(key, before, rules).apply(action)
    assert str(refused.value) == message


def test_three_players_play_by_the_same_rules(play):
    actions = ["clue 2", "touch 0", "touch 17", "touch 9", "end-turn", "penalty", "cover 10", "clue 0", "touch 11",
               "touch 1"]
    for prefix in range(len(actions) + 1):
        assert play(RED, actions[:prefix], THREE).view == play(RED, actions[:prefix]).view


# --- the options themselves ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, message",
    [
        ({"nuke": "big"}, "nuke is one of basic, mad, not 'big'"),
        ({"setup": "deal"}, "setup is one of key, place, not 'deal'"),
        ({"clue_required": "yes"}, "clue_required is true or false, not 'yes'"),
        ({"three_player": 1}, "three_player is true or false, not 1"),
        ({"dark_cell": 25}, "dark_cell is a cell number 0 to 24, not 25"),
        ({"dark_cell": True}, "dark_cell is a cell number 0 to 24, not True"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(InvalidRules) as refused:
        Rules(**options)
    assert str(refused.value) == message


def test_rules_round_trip_through_json():
    rules = Rules(game="alias24", nuke="mad", clue_required=True, three_player=True, setup="place", dark_cell=3)
    assert Rules.from_json(rules.to_json()) == rules
    with pytest.raises(InvalidRules, match="unknown rule option\\(s\\) colour"):
        Rules.from_json({"colour": "red"})


def test_rules_for_another_game_are_refused():
    with pytest.raises(InvalidRules, match="rules for 'alias24' given to the 'codenames' game"):
        Codenames(Rules(game="alias24"))


def test_placing_order_is_the_board_order():
    assert make_game(PLACE).placing_order() == tuple(range(25))
    game = make_game(ALIAS_PLACE)
    order = game.placing_order()
    assert order == tuple(cell for cell in range(25) if cell != 12)
    assert Place(order[12]) == Place(13)
    assert game.parse_key(ALIAS_KEY).start is Team.BLUE
