"""Random playouts (hypothesis) for every game and option combination.

Each example deals a seeded key and plays random legal actions through a ``GameRecord``, with
undos mixed in. At every step: the counts add up, every legal action is accepted, sampled
illegal ones are refused without changing anything, the table view does not depend on the
hidden identities; at the end the finished game accepts nothing and the journal replays exactly.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_table.engine import (
    CELLS,
    UNLIMITED,
    Clue,
    Codenames,
    Cover,
    EndTurn,
    Game,
    GameOver,
    GameRecord,
    Guess,
    InvalidAction,
    Key,
    Penalty,
    Place,
    RuleError,
    Rules,
    State,
    Team,
    Undo,
    make_game,
)
from pi_table.engine import games as engine_games
from pi_table.engine.described import Cards, Choice
from pi_table.engine.game import COVERED, PHASES, TOUCHED
from pi_table.engine.views import MAD_ARMED_AT


class SmallerDeal(Codenames):
    """A variant for these tests alone: 8 and 7 agents, 9 bystanders, 1 assassin (issue 52.2: the
    properties read a game's description, so another deal holds them too)."""

    name = "codenames-smaller-deal"
    description = replace(Codenames.description, title="Codenames, a smaller deal",
                          cards=Cards(first=8, second=7, bystanders=9, assassins=1))


@pytest.fixture(scope="module", autouse=True)
def smaller_deal():
    """The variant's registry line, for this module's tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(engine_games.GAMES, SmallerDeal.name, engine_games.GameEntry.grid(SmallerDeal))
        yield


GAMES = (*engine_games.names_of("grid"), SmallerDeal.name)  # the grid's games, whose states these properties hold for

UNIVERSE = (
    [Clue(n) for n in range(10)]
    + [Clue(UNLIMITED), EndTurn(), Penalty()]
    + [Guess(cell) for cell in range(CELLS)]
    + [Cover(cell) for cell in range(CELLS)]
    + [Place(cell) for cell in range(CELLS)]
)
ONE_OF_EACH = (Clue(1), Clue(UNLIMITED), Guess(0), Guess(24), EndTurn(), Penalty(), Cover(0), Place(0), Undo())
MAX_STEPS = 160

PLAYOUT = settings(settings.get_profile("games"), suppress_health_check=[HealthCheck.too_slow])


def values_of(choice: Choice) -> st.SearchStrategy:
    """Any value an option's description allows."""
    if choice.kind == "bool":
        return st.booleans()
    if choice.values:
        return st.sampled_from(choice.values)
    assert choice.kind == "int" and choice.span is not None, f"a grid game's option {choice.name} is drawn here"
    return st.integers(int(choice.span[0]), int(choice.span[1]))


@st.composite
def rules_for(draw, game: str) -> Rules:
    """Rules with every option the game's rules take, as the configuration may give any of them."""
    entry = engine_games.entry(game)
    return entry.rules_from({choice.name: draw(values_of(choice)) for choice in engine_games.choices()
                             if choice.name in entry.options})


def deal(game: Game, seed: int, start: Team | None):
    """A key; ``start`` the team that starts (a game whose start follows the key gives it the most cards)."""
    return game.deal(random.Random(seed), start=start)


def dealt(game: Game, key: Key) -> Key | None:
    """What a game starts on: Deep Undercover on nothing, ``key`` coming with its last placement."""
    return None if game.rules.setup == "place" else key


def complete(game: Game, state: State, action, key: Key):
    """The last placement carries the key, the caller's draw (as the session's)."""
    return replace(action, key=key) if isinstance(action, Place) and game.draws_key(state) else action


# --- the checks made at every step -----------------------------------------------------------


def check_counts(game: Game, state: State) -> None:
    view = game.table_view(state)
    if state.drawn is None:  # placing: nothing of the key, which is not drawn yet
        assert state.phase == "place" and view.totals is None and view.start is None
        assert view.board == "".join("." if cell == game.layout.dark_cell else "?" for cell in range(CELLS))
        return
    key = state.key
    hidden = [cell for cell in range(CELLS) if state.marks[cell] is None and key[cell] != "."]
    assert view.board.count("?") == len(hidden)
    for cell, shown in enumerate(view.board):
        assert shown == ("?" if cell in hidden else key[cell])
    for team in Team:
        assert view.totals[team] == key.count(team.letter)
        assert view.remaining(team) + view.board.count(team.letter) == view.totals[team]
        assert view.remaining(team) == state.left(team.letter)
    cards, described = game.layout, game.description
    assert sorted(view.totals.values()) == sorted((cards.first, cards.second))
    assert view.board.count(".") == (0 if cards.dark_cell is None else 1) == described.cards.dark
    covered = [cell for cell, mark in enumerate(state.marks) if mark == COVERED]
    assert list(view.covered) == covered
    assert all(key[cell] in "RB" for cell in covered)
    assert all(mark in (None, TOUCHED, COVERED) for mark in state.marks)
    if not (game.has_penalty or game.cover_is_required):  # nothing lets a spymaster cover
        assert not covered
    assert state.phase in PHASES
    assert (state.turn is None) == state.is_over
    if state.phase == "guess" and view.guesses_left is not None:
        assert view.guesses_left >= 1
    if state.phase != "place":
        assert state.placed in (0, len(game.placing_order()))
    if view.armed is not None:
        assert view.armed == (view.targeted >= MAD_ARMED_AT)
    if described.cooperative and state.phase in ("clue", "guess", "cover"):  # the players play the starting colour
        expected = key.start.other if state.phase == "cover" else key.start
        assert state.turn is expected
    returns = game.returns(state)
    if state.is_over:
        assert state.losers and all(returns[team] == -1 for team in state.losers)
        assert state.winner is None or (returns[state.winner] == 1 and state.winner not in state.losers)
        if state.winner is None:  # only an armed nuke makes both teams lose
            assert set(state.losers) == set(Team) and view.armed
        scored = described.score
        assert (view.score is not None) == (scored is not None and state.winner == key.start)
        if view.score is not None:
            assert scored.low <= view.score <= scored.high and view.rating("en") and view.rating("it")
    else:
        assert set(returns.values()) == {0}


def check_hidden_identities_do_not_show(game: Game, state: State, rng: random.Random) -> None:
    """Re-deal the hidden cells among themselves: the table view must not change."""
    if state.drawn is None:
        return  # placing: there is no key to re-deal
    hidden = [cell for cell in range(CELLS) if state.marks[cell] is None and state.key[cell] != "."]
    letters = [state.key[cell] for cell in hidden]
    rng.shuffle(letters)
    cells = list(state.key.cells)
    for cell, letter in zip(hidden, letters, strict=True):
        cells[cell] = letter
    other = replace(state, drawn=replace(state.key, cells="".join(cells)))
    assert game.table_view(other) == game.table_view(state)
    assert game.table_view(other).to_json() == game.table_view(state).to_json()


def check_legal_actions(game: Game, record: GameRecord, rng: random.Random, key: Key) -> list:
    state = record.state
    legal = [complete(game, state, action, key) for action in game.legal_actions(state)]
    assert len(set(legal)) == len(legal)
    for action in legal:
        after = game.apply(state, action)
        assert after != state, f"{action} was accepted but changed nothing"
    illegal = [action for action in UNIVERSE if action not in legal]
    sample = rng.sample(illegal, min(4, len(illegal)))
    # the refusals the brief names, whenever they apply
    sample += [Guess(cell) for cell, mark in enumerate(state.marks) if mark is not None][:1]
    if EndTurn() not in legal:
        sample.append(EndTurn())
    entries = list(record.entries)
    for action in sample:
        with pytest.raises((RuleError, InvalidAction)):
            game.apply(state, action)
        with pytest.raises((RuleError, InvalidAction)):
            record.apply(action)
        assert record.state is state and record.entries == entries
    return legal


def choose(game: Game, state: State, legal: list, rng: random.Random, skill: float):
    """A random legal action; with probability ``skill`` a touch the key says is good for the turn."""
    if state.turn is not None and rng.random() < skill:
        wanted = state.turn.letter if game.seeks_own else state.turn.other.letter
        good = [action for action in legal if isinstance(action, Guess) and state.key[action.cell] == wanted]
        if good:
            return rng.choice(good)
    return rng.choice(legal)


def playout(rules: Rules, seed: int, start: Team | None, actions_seed: int, skill: float = 0.0) -> None:
    game = make_game(rules)
    key = deal(game, seed, start)
    rng = random.Random(actions_seed)
    record = GameRecord(game, dealt(game, key))
    history = [record.state]  # the states in effect, to check what undo gives back
    for _ in range(MAX_STEPS):
        state = record.state
        assert state == history[-1]
        check_counts(game, state)
        check_hidden_identities_do_not_show(game, state, rng)
        if state.is_over:
            break
        legal = check_legal_actions(game, record, rng, key)
        assert legal, "a game that is not over must offer an action"
        if record.moves and rng.random() < 0.08:
            record.apply(Undo())
            history.pop()
            assert record.state == history[-1]
        else:
            history.append(record.apply(choose(game, state, legal, rng, skill)))
    finish(game, record)


def finish(game: Game, record: GameRecord) -> None:
    state = record.state
    replayed = GameRecord.replay(game, record.key, record.entries)
    assert replayed.state == state and replayed.moves == record.moves
    if state.is_over:
        assert game.legal_actions(state) == []
        for action in ONE_OF_EACH:
            with pytest.raises(GameOver):
                game.apply(state, action)
        assert record.apply(Undo()) != state  # undo still works after the end


# --- the properties ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@PLAYOUT
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), actions_seed=st.integers(0, 2**32 - 1),
       start=st.sampled_from([None, Team.RED, Team.BLUE]), skill=st.sampled_from([0.0, 0.5, 0.9]))
def test_random_playouts(name, data, seed, actions_seed, start, skill):
    playout(data.draw(rules_for(name)), seed, start, actions_seed, skill)


@pytest.mark.parametrize("name", GAMES)
@settings(settings.get_profile("games"))
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), actions_seed=st.integers(0, 2**32 - 1))
def test_apply_accepts_exactly_the_legal_actions(name, data, seed, actions_seed):
    """Over the whole action universe: apply accepts an action if and only if legal_actions lists it."""
    rules = data.draw(rules_for(name))
    game = make_game(rules)
    key = deal(game, seed, None)
    state = game.start(dealt(game, key))
    rng = random.Random(actions_seed)
    for _ in range(MAX_STEPS):
        legal = [complete(game, state, action, key) for action in game.legal_actions(state)]
        for action in UNIVERSE:
            action = complete(game, state, action, key)
            try:
                game.apply(state, action)
            except (RuleError, InvalidAction):
                assert action not in legal, f"{action} is listed as legal in phase {state.phase} but refused"
            else:
                assert action in legal, f"{action} is accepted in phase {state.phase} but not listed as legal"
        if state.is_over:
            break
        state = game.apply(state, rng.choice(legal))
    for action in UNIVERSE:
        if state.is_over:
            with pytest.raises(GameOver):
                game.apply(state, action)


@settings(settings.get_profile("games"))
@given(seed=st.integers(0, 2**32 - 1), actions_seed=st.integers(0, 2**32 - 1), data=st.data())
def test_undo_then_replay_of_any_prefix(seed, actions_seed, data):
    """Undoing k actions gives the state after the first n-k; the journal with undos replays to it."""
    game = make_game(data.draw(rules_for(data.draw(st.sampled_from(GAMES)))))
    key = deal(game, seed, None)
    rng = random.Random(actions_seed)
    record = GameRecord(game, dealt(game, key))
    states = [record.state]
    while not record.state.is_over and len(states) < 60:
        state = record.state
        states.append(record.apply(complete(game, state, rng.choice(game.legal_actions(state)), key)))
    back = data.draw(st.integers(0, len(states) - 1))
    for _ in range(back):
        record.apply(Undo())
    assert record.state == states[-1 - back]
    assert record.moves == len(states) - 1 - back
    assert GameRecord.replay(game, record.key, record.entries).state == record.state
    assert len(record.entries) == len(states) - 1 + back
    if back == len(states) - 1:
        with pytest.raises(RuleError, match="there is nothing to undo"):
            record.apply(Undo())
