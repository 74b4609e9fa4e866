"""Keys: parsing with precise errors, reproducible dealing, and the fairness of dealt keys.

Fairness is checked with Pearson's chi-square test over many seeded keys, computed in plain
Python against hard-coded critical values for p = 0.001 (the seeds are fixed, so the test is
deterministic; the "biased dealer" tests show the check does reject an unfair deal).
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from pi_table.engine import InvalidKey, Key, Rules, Team, make_game
from pi_table.engine.games import entry, names_of

GRID_GAMES = names_of("grid")  # every game played on the grid, as registered

SAMPLES = 4000
CRITICAL_P001 = {1: 10.828, 2: 13.816, 3: 16.266}
"""Chi-square critical values for p = 0.001 by degrees of freedom."""

RED = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def chi_square(observed: dict[str, int], probabilities: dict[str, float]) -> float:
    total = sum(observed.values())
    assert set(observed) <= set(probabilities), f"unexpected categories {set(observed) - set(probabilities)}"
    return sum((observed.get(cat, 0) - total * p) ** 2 / (total * p) for cat, p in probabilities.items())


def assert_fits(observed: dict[str, int], probabilities: dict[str, float], what: str) -> None:
    stat = chi_square(observed, probabilities)
    critical = CRITICAL_P001[len(probabilities) - 1]
    assert stat < critical, f"{what}: chi-square {stat:.1f} >= {critical} for {dict(observed)}"


def relative(key: Key, cell: int) -> str:
    """The card at ``cell`` as the starting team sees it: own agent, other's, bystander or assassin."""
    letter = key[cell]
    if letter == key.start.letter:
        return "own"
    if letter == key.start.other.letter:
        return "other"
    return letter


def starts_and_cells(keys: list[Key]) -> tuple[Counter, list[Counter]]:
    starts = Counter(key.start.value for key in keys)
    cells = [Counter(relative(key, cell) for key in keys) for cell in range(25)]
    return starts, cells


def dealt(rules: Rules, seed: int = 2024) -> list[Key]:
    game = make_game(rules)
    rng = random.Random(seed)
    return [game.deal(rng) for _ in range(SAMPLES)]


# --- dealing ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GRID_GAMES)
def test_deal_is_reproducible_from_the_seed(game):
    deal = make_game(entry(game).rules_from({})).deal
    first = [deal(random.Random(seed)) for seed in range(20)]
    assert first == [deal(random.Random(seed)) for seed in range(20)]
    assert len({key.cells for key in first}) == 20


@pytest.mark.parametrize("game", GRID_GAMES)
def test_dealt_keys_are_valid_keys(game):
    game = make_game(entry(game).rules_from({}))
    rng = random.Random(7)
    for _ in range(200):
        key = game.deal(rng)
        assert game.parse_key(key.cells, key.start) == key
        game.start(key)


@pytest.mark.parametrize("start", [Team.RED, Team.BLUE])
def test_codenames_deal_for_a_chosen_start_gives_it_the_double_agent(start):
    game = make_game(Rules())
    for seed in range(50):
        key = game.deal(random.Random(seed), start=start)
        assert key.start is start and key.count(start.letter) == 9


def test_codenames_keys_are_fair():
    starts, cells = starts_and_cells(dealt(Rules()))
    assert_fits(starts, {"red": 0.5, "blue": 0.5}, "starting team")
    layout = {"own": 9 / 25, "other": 8 / 25, "N": 7 / 25, "A": 1 / 25}
    for cell, counts in enumerate(cells):
        assert_fits(counts, layout, f"cell {cell}")


def test_alias24_keys_are_fair():
    keys = dealt(Rules(game="alias24"))
    starts, cells = starts_and_cells(keys)
    assert_fits(starts, {"red": 0.5, "blue": 0.5}, "starting team")
    # the starting team is the one with 8 assets: its opponent holds 9
    layout = {"own": 8 / 24, "other": 9 / 24, "N": 6 / 24, "A": 1 / 24}
    for cell, counts in enumerate(cells):
        if cell == 12:
            assert counts == Counter({".": SAMPLES})
        else:
            assert_fits(counts, layout, f"cell {cell}")


def test_the_check_rejects_a_dealer_that_favours_red():
    game = make_game(Rules())
    rng = random.Random(1)
    keys = [game.deal(rng, start=Team.RED if rng.random() < 0.6 else None) for _ in range(SAMPLES)]
    starts, _ = starts_and_cells(keys)
    assert chi_square(starts, {"red": 0.5, "blue": 0.5}) > CRITICAL_P001[1]


def test_the_check_rejects_a_dealer_that_avoids_a_corner():
    game = make_game(Rules())
    rng = random.Random(1)
    keys = []
    while len(keys) < SAMPLES:
        key = game.deal(rng)
        if key[0] != "A":
            keys.append(key)
    _, cells = starts_and_cells(keys)
    assert chi_square(cells[0], {"own": 9 / 25, "other": 8 / 25, "N": 7 / 25, "A": 1 / 25}) > CRITICAL_P001[3]


# --- parsing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, text, message",
    [
        (Rules(), "RRRRRRRRRBBBBBBBBNNNNNNN", "a key has 25 characters, not 24"),
        (Rules(), RED + "N", "a key has 25 characters, not 26"),
        (Rules(), "", "a key has 25 characters, not 0"),
        (Rules(), "RRRRRRRRRBBBBBBBBNNNNNNXA", "a key uses only the letters R B N A ., not 'X'"),
        (Rules(), "RRRRRRRRRBBBBBBBBNNNNN-?A", "a key uses only the letters R B N A ., not '-?'"),
        (Rules(), "RRRRRRRRRRBBBBBBBNNNNNNNA",
         "this key is not valid here: it needs 9 cards for one team and 8 for the other (found 10 R and 7 B)"),
        (Rules(), "RRRRRRRRRBBBBBBBBNNNNNNAA", "this key is not valid here: it needs 7 N (found 6); 1 A (found 2)"),
        (Rules(game="alias24"), RED,
         "this key is not valid here: it needs 6 N (found 7); one '.' at cell 12 (found it at no cell)"),
    ],
)
def test_parse_key_names_what_is_wrong(rules, text, message):
    """What was expected, and what was typed only where it is wrong ("not 'X'"); never the whole
    key, which a reader of a file (the journal, a script) would show."""
    with pytest.raises(InvalidKey) as refused:
        make_game(rules).parse_key(text)
    assert str(refused.value) == message
    assert not text or text[:20] not in str(refused.value.expected)


@pytest.mark.parametrize("game", ["codenames", "codenames-coop"])
def test_parse_key_refuses_a_start_that_disagrees_with_a_codenames_key(game):
    with pytest.raises(InvalidKey, match=re.escape("this key gives red 9 cards, so red starts, not blue")):
        make_game(Rules(game=game)).parse_key(RED, Team.BLUE)


def test_parse_key_accepts_the_agreeing_start_lowercase_and_spaces():
    game = make_game(Rules())
    assert game.parse_key(RED, Team.RED) == Key(RED, Team.RED)
    assert game.parse_key(f"  {RED.lower()}\n") == Key(RED, Team.RED)
    assert game.parse_key("BBBBBBBBBRRRRRRRRNNNNNNNA").start is Team.BLUE


def test_key_basics():
    key = Key(RED, Team.RED)
    assert (str(key), key[0], key[24], key.count("B"), key.count("N")) == (RED, "R", "A", 8, 7)
    with pytest.raises(InvalidKey, match="a key has 25 characters, not 3"):
        Key("RRR", Team.RED)


# --- teams ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, team", [("red", Team.RED), ("BLUE", Team.BLUE), (" Red\n", Team.RED)])
def test_team_parse(text, team):
    assert Team.parse(text) is team


@pytest.mark.parametrize("text", ["green", "", "r", "redd"])
def test_team_parse_refuses(text):
    with pytest.raises(ValueError) as refused:
        Team.parse(text)
    assert str(refused.value) == f"a team is 'red' or 'blue', not {text!r}"


def test_team_basics():
    assert (Team.RED.other, Team.BLUE.other) == (Team.BLUE, Team.RED)
    assert (Team.RED.letter, Team.BLUE.letter) == ("R", "B")
    assert (str(Team.RED), f"{Team.BLUE}") == ("red", "blue")
