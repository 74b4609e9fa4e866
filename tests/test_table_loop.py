"""The table loop on simulated devices: events in, engine actions, LED frames and screens out."""

from __future__ import annotations

import random
import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_table.engine import Clue, EndTurn, Guess, Rules, Team, make_game
from pi_table.hal import HealthEvent, NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch
from pi_table.sim.harness import SimTable
from pi_table.table import Session, TableLoop
from pi_table.table.input import WIPE_WARNING, InputSettings, TouchPolicy
from pi_table.ui.leds import HIDDEN_CARD, PENDING, REVEALED, TEAM_COLOUR, WARNING
from helpers import hidden_swapped

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red starts: cells 0-8 red, 9-16 blue, 17-23 bystanders, 24 assassin


def table(key: str = KEY, rules: Rules | None = None, seed: int = 1) -> SimTable:
    rules = rules or Rules()
    game = make_game(rules)
    return SimTable(Session(rules, rng=random.Random(seed), key=game.parse_key(key)))


def test_a_touch_reveals_the_card_on_the_leds_and_the_screen():
    t = table()
    assert t.do(Clue(2)).ok
    assert t.leds.last.cells[0] == HIDDEN_CARD
    outcome = t.do(Guess(0))
    assert outcome.ok and outcome.error is None
    assert t.leds.last.cells[0] == REVEALED["R"]
    assert t.leds.last.cells[1] == HIDDEN_CARD
    assert t.screen.last.view.table.board[0] == "R"
    assert set(t.leds.last.edge) == {TEAM_COLOUR[Team.RED]}


def test_a_refused_touch_changes_nothing_and_says_why_on_the_screen():
    t = table()
    t.do(Guess(17))  # bystander: red's turn ends
    before = t.session.state
    outcome = t.do(Guess(17))
    assert not outcome.ok
    assert outcome.error == "card 17 is already revealed"
    assert t.session.state is before
    assert t.screen.last.message == "card 17 is already revealed"
    t.do(Guess(9))  # blue guesses its own card: accepted, the message clears
    assert t.screen.last.message is None


def test_a_touch_lights_at_once_and_becomes_a_guess_only_after_the_hold():
    t = table()
    t.touch.press(0)
    t.loop.run_pending()
    assert t.leds.last.cells[0] == PENDING and t.screen.last.pending == {0}
    t.clock.advance(0.2)
    t.loop.run_pending()
    assert t.session.table_view().board[0] == "?"  # 200 ms is not yet the 250 ms hold
    t.clock.advance(0.05)
    t.loop.run_pending()
    assert t.session.table_view().board[0] == "R"
    assert t.leds.last.cells[0] == REVEALED["R"] and t.screen.last.pending == frozenset()
    t.clock.advance(3)
    t.loop.run_pending()
    assert t.session.record.moves == 1  # held on: still one guess


def test_a_brush_shorter_than_the_hold_is_no_guess():
    t = table()
    t.touch.press(3)
    t.clock.advance(0.1)
    t.touch.release(3)
    t.clock.advance(1)
    t.loop.run_pending()
    assert t.session.record.moves == 0 and t.leds.last.cells[3] == HIDDEN_CARD


def test_two_cards_touched_together_count_as_nothing_until_the_table_is_clear():
    t = table()
    t.touch.press(0)
    t.touch.press(1)  # a palm or a spill
    t.clock.advance(1)
    t.loop.run_pending()
    assert t.session.table_view().board[:2] == "??"
    assert WIPE_WARNING in t.screen.last.warnings and set(t.leds.last.edge) == {WARNING}
    t.touch.release(1)  # lifting one finger of the palm leaves no guess behind
    t.clock.advance(1)
    t.loop.run_pending()
    assert t.session.record.moves == 0 and WIPE_WARNING in t.screen.last.warnings
    t.touch.release(0)
    t.loop.run_pending()
    assert t.screen.last.warnings == ()
    assert t.do(Guess(1)).ok  # a clean touch afterwards is a guess again


def test_a_stuck_pad_is_quarantined_until_released_and_recalibrated():
    t = table()
    t.touch.press(5)
    t.clock.advance(0.3)
    t.loop.run_pending()  # that was a guess of card 5 (red); then the pad stays on
    t.clock.advance(10)
    t.loop.run_pending()
    assert any("card 5 is stuck" in w for w in t.screen.last.warnings)
    assert t.do(Guess(6)).ok  # the game goes on around the stuck pad
    assert t.session.table_view().board[6] == "R"
    t.touch.release(5)
    t.loop.run_pending()
    assert t.touch.recalibrated == [5]
    assert t.screen.last.warnings == ()


def test_buttons_end_the_turn_and_start_a_new_game():
    t = table()
    t.do(Guess(0))
    t.buttons.push("end_turn")
    t.loop.run_pending()
    assert t.session.state.turn is Team.BLUE
    first_id = t.session.id
    t.buttons.push("new_game")
    t.loop.run_pending()
    assert t.session.id != first_id
    assert t.session.state.marks == (None,) * 25


def test_new_game_of_another_kind_from_the_screen():
    t = table()
    assert t.do(NewGame("alias24")).ok
    assert t.session.table_view().game == "alias24"
    assert t.session.table_view().board[12] == "."
    refused = t.do(NewGame("chess"))
    assert not refused.ok and "chess" in refused.error
    assert t.session.table_view().game == "alias24"


def test_a_touch_places_a_card_during_deep_undercover_setup():
    t = table(rules=Rules(setup="place"))
    assert t.do(Guess(0)).ok
    assert t.session.table_view().placing == 1
    wrong = t.do(Guess(5))
    assert not wrong.ok and "cell 1" in wrong.error


def test_a_device_fault_shows_on_the_screen_and_the_edge_until_it_clears():
    t = table()
    t.loop.post(HealthEvent("touch", False, "touch board disconnected"))
    t.loop.run_pending()
    assert t.screen.last.warnings == ("touch board disconnected",)
    assert set(t.leds.last.edge) == {WARNING}
    t.loop.post(HealthEvent("touch", True))
    t.loop.run_pending()
    assert t.screen.last.warnings == ()
    assert set(t.leds.last.edge) == {TEAM_COLOUR[Team.RED]}


def test_the_loop_thread_handles_events_posted_from_other_threads():
    """The real-time loop: events from other threads, holds timed by the loop's own sleep."""
    rules = Rules()
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY))
    touch, buttons, leds, screen = SimTouch(), SimButtons(), SimLedStrip(), SimScreen()
    loop = TableLoop(session, touch, leds, screen, buttons, TouchPolicy(InputSettings(hold_s=0.05)))
    loop.open()
    runner = threading.Thread(target=loop.run)
    runner.start()
    try:
        touch.press(0)  # held until the loop has taken it as a guess
        deadline = time.monotonic() + 5
        while session.table_view().board[0] == "?" and time.monotonic() < deadline:
            time.sleep(0.01)
        touch.release(0)
        buttons.push("end_turn")
    finally:
        loop.stop_soon()  # handled after the events queued before it
        runner.join(timeout=5)
    assert not runner.is_alive()
    assert session.table_view().board[0] == "R"
    assert session.state.turn is Team.BLUE


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), game=st.sampled_from(["codenames", "codenames-coop", "alias24"]))
def test_led_frames_never_depend_on_hidden_cards(seed, game):
    """Play the same moves on two keys that differ only under hidden cards: same frames."""
    rng = random.Random(seed)
    rules = Rules(game=game)
    engine = make_game(rules)
    first = table(engine.deal(rng).cells, rules)
    moves = []
    for _ in range(12):
        state = first.session.state
        if state.is_over:
            break
        options = [a for a in engine.legal_actions(state) if not isinstance(a, EndTurn) or rng.random() < 0.3]
        move = rng.choice(options)
        first.do(move)
        moves.append(move)
    board = first.session.table_view().board
    key = first.session.record.key
    twin_cells = hidden_swapped(key.cells, board, rng)
    twin = SimTable(Session(rules, rng=random.Random(0), key=engine.parse_key(twin_cells, key.start)))
    # Replay only the moves: a hidden card may differ, but no move touched one before this point.
    for move in moves:
        twin.do(move)
    assert twin.session.table_view().board == board
    assert list(twin.leds.frames) == list(first.leds.frames)
