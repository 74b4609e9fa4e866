"""The 2-player cooperative variant (Nome in codice): the table against a simulated opponent.

After each of the players' turns their spymaster covers one opponent agent; the players lose on
the assassin or when the opponent's agents are all covered; a win scores the opponent agents
still hidden, with the rulebook's rating line.
"""

from __future__ import annotations

import pytest

from pi_table.engine import InvalidKey, Key, RuleError, Rules, Team, make_game
from pi_table.engine.views import COOP_RATINGS

COOP = Rules(game="codenames-coop")
# the players are red (9 agents, 0-8); the simulated opponent is blue (9-16)
RED = "RRRRRRRRRBBBBBBBBNNNNNNNA"
BLUE = "BBBBBBBBBRRRRRRRRNNNNNNNA"


def touches(*cells: int) -> list[str]:
    return [f"touch {cell}" for cell in cells]


def rounds(count: int) -> list[str]:
    """``count`` turns in which red finds one agent and stops, each followed by the opponent's cover."""
    actions = []
    for i in range(count):
        actions += ["clue 1", f"touch {i}", "end-turn", f"cover {9 + i}"]
    return actions


def test_the_team_starts(play):
    view = play(RED, rules=COOP).view
    assert (view["game"], view["turn"], view["phase"], view["start"]) == ("codenames-coop", "red", "clue", "red")


def test_the_players_are_the_starting_team_of_any_key(play):
    view = play(BLUE, ["clue 1", "touch 17"], COOP).view
    assert (view["turn"], view["phase"]) == ("red", "cover")
    assert play(BLUE, ["clue 1", "touch 17", "cover 9"], COOP).view["turn"] == "blue"


def test_the_key_must_let_the_team_start():
    with pytest.raises(InvalidKey, match="the team with 9 cards starts: red, not blue"):
        make_game(COOP).start(Key(RED, Team.BLUE))


AFTER_A_TURN = [
    ("a bystander", ["clue 2", *touches(17)], {"red": 9, "blue": 8}),
    ("an opponent agent", ["clue 2", *touches(0, 9)], {"red": 8, "blue": 7}),
    ("end-turn", ["clue 2", *touches(0), "end-turn"], {"red": 8, "blue": 8}),
    ("the plus-one guess", ["clue 1", *touches(0, 1)], {"red": 7, "blue": 8}),
    ("a numberless turn's miss", touches(0, 1, 2, 17), {"red": 6, "blue": 8}),
    ("a penalty before the clue number", ["penalty"], {"red": 9, "blue": 8}),
    ("a penalty after the clue number", ["clue 3", "penalty"], {"red": 9, "blue": 8}),
]


@pytest.mark.parametrize("actions, remaining", [c[1:] for c in AFTER_A_TURN], ids=[c[0] for c in AFTER_A_TURN])
def test_every_turn_of_the_team_is_followed_by_the_opponents_cover(play, actions, remaining):
    played = play(RED, actions, COOP)
    view = played.view
    assert (view["turn"], view["phase"], view["clue"], view["remaining"]) == ("blue", "cover", None, remaining)
    assert {str(action) for action in played.game.legal_actions(played.state)} == {
        f"cover {cell}" for cell in range(9, 17) if view["board"][cell] == "?"
    }
    back = played.apply("cover 16").view
    assert (back["turn"], back["phase"], back["covered"]) == ("red", "clue", [16])
    assert back["remaining"] == {"red": remaining["red"], "blue": remaining["blue"] - 1}


WAIT = "the spymaster must first cover one blue agent for the simulated opponent"
NOT_BLUE = "card {} is not a hidden blue agent: cover one of blue's"
MISS = ["clue 1", "touch 17"]
COVER_REFUSALS = [
    ("a clue", MISS, "clue 2", WAIT),
    ("a touch", MISS, "touch 0", WAIT),
    ("a touch on an opponent agent", MISS, "touch 10", WAIT),
    ("end-turn", MISS, "end-turn", WAIT),
    ("a penalty", MISS, "penalty", "there is no clue to rule invalid now (blue is in its cover phase)"),
    ("a cover of the team's own agent", MISS, "cover 0", NOT_BLUE.format(0)),
    ("a cover of a bystander", MISS, "cover 18", NOT_BLUE.format(18)),
    ("a cover of the assassin", MISS, "cover 24", NOT_BLUE.format(24)),
    ("a cover of a touched opponent agent", ["touch 9"], "cover 9", NOT_BLUE.format(9)),
    ("a cover of a covered opponent agent", ["touch 17", "cover 9", "touch 18"], "cover 9", NOT_BLUE.format(9)),
    ("a place", MISS, "place 0", "all the cards are already on the table"),
]


@pytest.mark.parametrize(
    "before, action, message", [c[1:] for c in COVER_REFUSALS], ids=[c[0] for c in COVER_REFUSALS]
)
def test_only_a_cover_of_a_hidden_opponent_agent_is_accepted(play, before, action, message):
    played = play(RED, before, COOP)
    assert played.view["phase"] == "cover"
    with pytest.raises(RuleError) as refused:
        played.apply(action)
    assert str(refused.value) == message


@pytest.mark.parametrize("before", [[], ["clue 1"], ["clue 1", "touch 0"]])
def test_no_cover_outside_the_opponents_turn(play, before):
    with pytest.raises(RuleError, match="the spymaster covers an opponent agent only after each of the team's turns"):
        play(RED, before, COOP).apply("cover 9")


LOSSES = [
    ("the assassin", ["clue 2", *touches(24)], "red touched the assassin"),
    ("the assassin after a cover", ["clue 2", *touches(0, 17), "cover 9", *touches(24)], "red touched the assassin"),
    ("the opponent's last agent covered", rounds(8), "blue has all its agents covered"),
    ("the opponent's last agent touched", [*rounds(7), "clue 1", "touch 16"], "red touched blue's last agent"),
]


@pytest.mark.parametrize("actions, reason", [c[1:] for c in LOSSES], ids=[c[0] for c in LOSSES])
def test_losing(play, actions, reason):
    played = play(RED, actions, COOP)
    view = played.view
    assert (view["phase"], view["winner"], view["losers"], view["reason"]) == ("over", "blue", ["red"], reason)
    assert (view["score"], view["rating"]) == (None, None)
    assert played.game.table_view(played.state).rating("it") is None
    assert played.game.legal_actions(played.state) == []


def test_the_game_goes_on_while_the_opponent_has_an_agent_left(play):
    view = play(RED, rounds(7), COOP).view
    assert (view["phase"], view["turn"], view["remaining"]) == ("clue", "red", {"red": 2, "blue": 1})


# The rating lines as printed in Nome in codice (003), score 8 down to 1.
RULEBOOK_ITALIAN = {
    8: "Mi riesce molto difficile crederci.",
    7: "Missione impossibile.",
    6: "Wow!",
    5: "Verrete presto contattati dalla CIA.",
    4: "Operazione top secret riuscita.",
    3: "Orologi sincronizzati.",
    2: "Non c'è male, ma potevate fare di meglio.",
    1: "L'importante è vincere, giusto?",
}


def test_every_score_has_a_rating_in_english_and_italian():
    assert sorted(COOP_RATINGS) == list(range(1, 9))
    assert {score: italian for score, (_, italian) in COOP_RATINGS.items()} == RULEBOOK_ITALIAN
    assert len({english for english, _ in COOP_RATINGS.values()}) == 8


@pytest.mark.parametrize("score", range(1, 9))
def test_a_win_scores_the_opponent_agents_still_hidden(play, score):
    covers = 8 - score
    played = play(RED, rounds(covers) + ["clue unlimited", *touches(*range(covers, 9))], COOP)
    table = played.game.table_view(played.state)
    view = table.to_json()
    assert (view["phase"], view["winner"], view["losers"], view["reason"]) == (
        "over", "red", ["blue"], "red found all its agents",
    )
    assert view["remaining"] == {"red": 0, "blue": score}
    assert view["score"] == table.score == score
    assert table.rating("en") == COOP_RATINGS[score][0]
    assert table.rating("it") == RULEBOOK_ITALIAN[score]
    assert view["rating"] == {"en": COOP_RATINGS[score][0], "it": RULEBOOK_ITALIAN[score]}


def test_touched_opponent_agents_lower_the_score(play):
    # red touches two blue agents on the way: each is one card off the opponent's pile
    actions = ["clue 1", "touch 9", "cover 10", "clue unlimited", *touches(*range(8)), "touch 11", "cover 12",
               "clue 1", "touch 8"]
    view = play(RED, actions, COOP).view
    assert (view["winner"], view["score"], view["rating"]["en"]) == ("red", 4, COOP_RATINGS[4][0])


def test_no_score_while_playing(play):
    view = play(RED, ["clue 2", "touch 0"], COOP).view
    assert (view["score"], view["rating"]) == (None, None)


def test_the_competitive_game_has_no_score(play):
    view = play(RED, ["clue unlimited", *touches(*range(9))]).view
    assert (view["winner"], view["score"], view["rating"]) == ("red", None, None)
