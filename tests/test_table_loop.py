"""The table loop on simulated devices: events in, engine actions, LED frames and screens out."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_table.config import ConfigError, parse_config
from pi_table.engine import Clue, EndTurn, Guess, Rules, Team, make_game
from pi_table.engine.games import entry, names_of
from pi_table.errors import PiTableError
from pi_table.hal import DeafCards, HealthEvent, NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch
from pi_table.sim.harness import SimTable
from pi_table.table import Session, TableLoop
from pi_table.table.input import HOLD_MIN_S, WIPE_WARNING, InputSettings, TouchPolicy
from pi_table.table.loop import NotAnswering
from pi_table.ui import leds
from pi_table.ui.leds import HIDDEN_CARD, PENDING, REVEALED, TEAM_COLOUR, WARNING

from helpers_games import hidden_swapped

GRID_GAMES = names_of("grid")  # every game played on the grid, as registered

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red starts: cells 0-8 red, 9-16 blue, 17-23 bystanders, 24 assassin
PALM = (10, 11, 12, 13, 14)


def table(key: str = KEY, rules: Rules | None = None, seed: int = 1, settings: InputSettings | None = None) -> SimTable:
    rules = rules or Rules()
    game = make_game(rules)
    return SimTable(Session(rules, rng=random.Random(seed), key=game.parse_key(key)), settings)


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


def test_each_frame_of_a_reveal_s_ring_is_composed_once(monkeypatch):
    """The loop lights the grid on every wake and sleeps until that frame's next change: it keeps
    the time the composition gave, where it once composed the frame a second time to ask (a third
    of the loop's time was the frames, issue 61)."""
    t = table()
    t.do(Clue(2))
    t.do(Guess(0))  # its ring runs out over the neighbours for reveal_s
    composed: list[float] = []
    wake = leds._Wake  # one a composition, made at the time composed
    monkeypatch.setattr(leds, "_Wake", lambda now, fps: composed.append(now) or wake(now, fps))
    lit = len(t.leds.frames)
    for _ in range(5):
        t.clock.now = t.loop.next_due()
        t.loop.run_pending()
    steps = list(t.leds.frames)[lit:]
    assert len(steps) == 5 and len(set(steps)) == 5  # five frames of the ring, each its own
    assert len(composed) == 5


def test_a_refused_touch_changes_nothing_and_says_why_on_the_screen():
    t = table()
    t.do(Guess(17))  # bystander: red's turn ends
    before = t.session.state
    outcome = t.do(Guess(17))
    assert not outcome.ok
    assert outcome.error == "card 17 is already revealed"
    assert t.session.state is before
    assert str(t.screen.last.message) == "card 17 is already revealed"
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


@pytest.mark.parametrize("hold_s", [HOLD_MIN_S, 0.25, 5.0])
def test_a_palm_in_one_report_is_no_guess_whatever_the_hold(hold_s):
    t = table(settings=InputSettings(hold_s=hold_s, stuck_s=600))
    t.touch.press(*PALM)  # one report, five cells
    t.loop.run_pending()
    assert t.screen.last.pending == set(PALM) and WIPE_WARNING in t.screen.last.warnings
    t.clock.advance(hold_s * 3)
    t.loop.run_pending()
    assert t.session.record.moves == 0
    t.touch.release(*PALM[1:])  # four fingers lift together: the one left is no guess either
    t.clock.advance(hold_s * 3)
    t.loop.run_pending()
    assert t.session.record.moves == 0 and WIPE_WARNING in t.screen.last.warnings
    t.touch.release(PALM[0])
    t.loop.run_pending()
    assert t.screen.last.warnings == () and t.do(Guess(10)).ok


def test_a_palm_landing_over_two_reports_within_the_shortest_hold_is_no_guess():
    """The fingers of one hand land some milliseconds apart, so a palm may come as a report
    with one cell and then one with the rest: the shortest hold outlasts the gap."""
    t = table(settings=InputSettings(hold_s=HOLD_MIN_S))
    t.touch.press(PALM[0])
    t.loop.run_pending()
    t.clock.advance(HOLD_MIN_S * 0.8)
    t.loop.run_pending()
    t.touch.press(*PALM[1:])
    t.clock.advance(1)
    t.loop.run_pending()
    assert t.session.record.moves == 0 and WIPE_WARNING in t.screen.last.warnings


def test_the_policy_applies_a_whole_report_before_it_judges():
    policy = TouchPolicy(InputSettings(hold_s=HOLD_MIN_S))
    assert policy.report(frozenset(PALM), frozenset(), now=1.0) == []
    assert policy.due(1.0) is None and policy.due(2.0) is None  # several cells in one report: a palm
    assert policy.warnings == (WIPE_WARNING,) and policy.next_deadline() == 1.0 + policy.settings.stuck_s
    policy.report(frozenset(), frozenset(PALM), now=2.0)
    assert policy.warnings == () and not policy.pressed
    policy.report(frozenset({3}), frozenset(), now=3.0)
    policy.report(frozenset({4}), frozenset({3}), now=3.04)  # a finger slides on to the next card
    assert policy.warnings == () and policy.pending == {4}
    assert policy.next_deadline() == 3.04 + HOLD_MIN_S
    assert policy.due(3.06) is None  # its own hold, from when it reached card 4
    assert policy.due(policy.next_deadline()) == 4


def test_a_hold_is_complete_at_the_deadline_the_policy_gave_whatever_the_rounding():
    """The loop sleeps until ``next_deadline`` and asks ``due``: 3.01 + 0.05 - 3.01 is just
    under 0.05, which left the hold uncompleted (the scripted sim lost that guess)."""
    for since in (3.01, 0.1, 0.7, 12.34, 1e6 + 0.3):
        policy = TouchPolicy(InputSettings(hold_s=HOLD_MIN_S))
        policy.report(frozenset({7}), frozenset(), now=since)
        assert policy.due(policy.next_deadline()) == 7, since
    stuck = TouchPolicy(InputSettings(hold_s=HOLD_MIN_S, stuck_s=0.3))
    stuck.report(frozenset({1, 2}), frozenset(), now=3.01)  # a spill: the stuck time is the only deadline
    stuck.due(stuck.next_deadline())
    assert stuck.stuck == {1, 2}


def test_a_hold_shorter_than_a_palm_takes_to_land_is_refused():
    for hold in (0, 0.01, HOLD_MIN_S / 2):
        with pytest.raises(ValueError, match=rf"hold time is {HOLD_MIN_S} to 5 seconds .*palm.*, not {hold}$"):
            InputSettings(hold_s=hold)
    path = Path("table.toml")
    with pytest.raises(ConfigError) as refused:
        parse_config("[game]\nhold_s = 0\n", path)
    assert refused.value.problems == [
        f"table.toml: game.hold_s: hold time is {HOLD_MIN_S} to 5 seconds (a shorter hold takes the first finger"
        " of a palm for a guess before the rest of the hand lands), not 0"
    ]
    assert InputSettings(hold_s=HOLD_MIN_S).hold_s == HOLD_MIN_S


def test_a_stuck_pad_is_quarantined_until_released_and_recalibrated():
    t = table()
    t.touch.press(5)
    t.clock.advance(0.3)
    t.loop.run_pending()  # that was a guess of card 5 (red); then the pad stays on
    t.clock.advance(10)
    t.loop.run_pending()
    assert any("card 5 is stuck" in str(w) for w in t.screen.last.warnings)
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


def test_a_loop_that_does_not_answer_is_told_apart_from_a_timeout_of_what_it_ran():
    """Issue 40: ``call`` said a loop that did not answer with a bare TimeoutError, which its
    callers caught, so a TimeoutError raised by the function it ran was taken for a loop that
    did not answer (and run again). The loop's own is ``NotAnswering``, a PiTableError."""
    rules = Rules()
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY))
    loop = TableLoop(session, SimTouch(), SimLedStrip(), SimScreen(), SimButtons(), TouchPolicy(InputSettings()))
    with pytest.raises(NotAnswering) as silent:  # nothing runs the loop: it cannot answer
        loop.call(lambda: None, timeout=0.05)
    assert isinstance(silent.value, PiTableError) and isinstance(silent.value, TimeoutError)

    def times_out() -> None:
        raise TimeoutError("the function's own")

    loop.open()
    runner = threading.Thread(target=loop.run)
    runner.start()
    try:
        with pytest.raises(TimeoutError, match="the function's own") as raised:
            loop.call(times_out)
        assert not isinstance(raised.value, NotAnswering)
    finally:
        loop.stop_soon()
        runner.join(timeout=5)


@pytest.mark.parametrize("released_after_s, guessed", [(0.2, True), (0.04, False)])
def test_a_busy_loop_judges_a_hold_by_when_its_release_came(released_after_s, guessed):
    """A loop that wakes late (a busy night, a loaded CI) finds the release already queued: a
    touch held past its hold before it let go is a guess, a brush stays a brush. The loop once
    took the queued release first and lost the guess."""
    t = table(settings=InputSettings(hold_s=0.05))
    assert t.do(Clue(2)).ok
    t.touch.press(3)
    t.clock.advance(released_after_s)
    t.touch.release(3)
    t.clock.advance(1)  # the loop wakes only now, both events waiting
    t.loop.stop_soon()
    t.loop.run()
    assert (t.session.record.moves == 2) is guessed
    assert t.session.table_view().board[3] == ("R" if guessed else "?")


@settings(settings.get_profile("tables"))
@given(seed=st.integers(0, 10_000), game=st.sampled_from(GRID_GAMES))
def test_led_frames_never_depend_on_hidden_cards(seed, game):
    """Play the same moves on two keys that differ only under hidden cards: same frames."""
    rng = random.Random(seed)
    rules = entry(game).rules_from({})  # its own rules' class
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


def test_a_pad_held_as_the_game_is_paused_is_not_held_for_it_once_resumed():
    """The self-test takes the touches while the game is paused: a pad held as it paused is let
    go to the check. Once resumed, the game must not still count it pressed, which would turn the
    next card touched into a wipe (two pads at once) and no guess."""
    t = table()
    assert t.do(Clue(2)).ok
    t.touch.press(0)
    t.loop.run_pending()
    checked = []
    t.loop.pause(checked.append)
    t.touch.release(0)
    t.loop.run_pending()
    assert checked  # the release went to the check
    t.loop.resume()
    t.touch.press(1)
    t.loop.run_pending()
    t.clock.advance(HOLD_MIN_S + 0.25)
    t.loop.run_pending()
    assert t.session.table_view().board[1] == "R" and t.session.table_view().board[0] == "?"
    assert WIPE_WARNING not in t.screen.last.warnings


def test_deaf_cards_told_while_the_game_is_paused_are_the_table_s_not_the_check_s():
    """A touch chip stops answering during the self-test: the game, resumed, marks its cards and
    says why; the check got none of it. Told back to none, the marks go."""
    t = table()
    checked = []
    t.loop.pause(checked.append)
    why = "touch chip 0x5b does not answer"
    t.loop.post(DeafCards(frozenset({12, 13}), (why,)))
    t.loop.run_pending()
    t.loop.resume()
    assert not checked and t.screen.last.deaf == {12, 13} and why in t.screen.last.warnings
    t.loop.post(DeafCards())
    t.loop.run_pending()
    assert t.screen.last.deaf == frozenset() and why not in t.screen.last.warnings
    with pytest.raises(ValueError, match="cell 25 is off the grid"):
        DeafCards(frozenset({25}))
