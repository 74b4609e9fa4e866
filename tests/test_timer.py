"""The turn timer (run by the daemon), the engine's time-up, the clue dial, reveal times and idleness."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from pi_table.engine import GameOver, Guess, RuleError, Rules, Team, TimeUp, make_game, parse_action
from pi_table.hal import DialEvent, NewGame
from pi_table.hal.events import ButtonEvent
from pi_table.sim.harness import SimTable
from pi_table.table import Session
from pi_table.table.timer import TimerSettings, TurnTimer

from helpers_games import played as played_on

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def table(timer=None, rules=Rules(), idle_after_s=None):
    game = make_game(rules)
    t = SimTable(Session(rules, rng=random.Random(1), key=game.parse_key(KEY)), timer=timer)
    if idle_after_s is not None:
        t.loop.idle_after_s = idle_after_s
        t.loop.show()  # the loop plans its next screen change when it shows
    return t


def played(actions, rules=Rules()):
    game = make_game(rules)
    return game, played_on(game, game.parse_key(KEY), actions)


@pytest.mark.parametrize("actions", [[], ["clue 2"], ["clue 2", "touch 0"], ["penalty"]])
def test_time_up_passes_the_turn_even_before_a_guess(actions):
    game, state = played(actions)
    after = game.apply(state, TimeUp())
    assert after.turn is state.turn.other and after.phase == "clue" and after.clue is None


def test_time_up_is_refused_while_placing_before_the_coop_cover_and_after_the_end():
    game, state = played([], Rules(setup="place"))
    with pytest.raises(RuleError, match="does not run now"):
        game.apply(state, TimeUp())
    game, state = played(["touch 17"], Rules(game="codenames-coop"))
    with pytest.raises(RuleError, match="cover one blue agent"):
        game.apply(state, TimeUp())
    game, state = played(["touch 24"])
    with pytest.raises(GameOver):
        game.apply(state, TimeUp())


def test_the_timer_is_off_by_default_and_settings_are_checked():
    assert TurnTimer().state(0) is None
    for bad in (dict(length_s=5), dict(length_s=60, warn_s=60), dict(length_s=60, warn_s=-1)):
        with pytest.raises(ValueError, match="timer"):
            TimerSettings(**bad)


def test_an_enforced_timer_ends_the_turn_exactly_when_it_runs_out():
    t = table(TimerSettings(length_s=30, warn_s=5, enforce=True))
    t.do(parse_action("clue 2"))
    t.wait(24.9)
    timer = t.loop.timer.state(t.clock())
    assert timer.running and not timer.warning and round(timer.remaining_s, 1) == 5.1
    t.wait(0.2)
    assert t.loop.timer.state(t.clock()).warning
    assert t.session.state.turn is Team.RED
    t.wait(5)
    assert t.session.state.turn is Team.BLUE  # at 30 s, not later
    assert str(t.session.record.entries[-1]) == "time-up"
    assert round(t.loop.timer.state(t.clock()).remaining_s, 1) == 29.9  # blue's turn began at 30 s
    t.wait(60)
    assert [str(e) for e in t.session.record.entries] == ["clue 2", "time-up", "time-up", "time-up"]


def test_a_loop_woken_late_ends_a_turn_that_ran_out_before_the_hold_that_completed_after():
    """Red's 10 s run out while a finger rests on red's own agent, its hold to complete 0.15 s
    later; the loop wakes after both: the turn ends first, and the touch is blue's guess."""
    t = table(TimerSettings(length_s=10, warn_s=0, enforce=True))
    t.wait(9.9)
    t.touch.press(0)  # a red agent
    t.loop.run_pending()
    t.clock.now += 1  # the loop's next wake, after both fell due
    t.loop.run_pending()
    state = t.session.grid.state
    assert (state.turn, state.marks[0]) == (Team.BLUE, None)
    t.loop.run_pending()
    state = t.session.grid.state
    assert state.marks[0] is not None and state.turn is Team.RED  # blue's guess found red's agent


def test_a_timer_that_is_not_enforced_only_shows():
    t = table(TimerSettings(length_s=20, warn_s=5))
    t.wait(25)
    timer = t.loop.timer.state(t.clock())
    assert timer.remaining_s == 0 and timer.expired
    assert t.session.state.turn is Team.RED and t.session.record.moves == 0
    assert t.screen.last.cues.timer == timer


def test_the_timer_restarts_with_each_turn_and_stops_at_the_end():
    t = table(TimerSettings(length_s=60))
    t.wait(10)
    t.do(Guess(17))  # a bystander: blue's turn, a fresh minute
    assert t.loop.timer.state(t.clock()).remaining_s == 60
    t.wait(5)
    t.do(Guess(24))  # blue touches the assassin
    assert not t.loop.timer.state(t.clock()).running
    t.do(NewGame())
    assert t.loop.timer.state(t.clock()).remaining_s == 60


def test_wait_in_a_script_and_the_timer_in_the_json_state(tmp_path):
    script = tmp_path / "timer.txt"
    script.write_text("clue 1\nwait 44.5\nwait 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "pi_table", "sim", "--key", KEY, "--timer", "45", "--timer-enforce",
         "--script", str(script), "--json"], capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["state"]["timer"] == {"length": 45.0, "remaining": 45.0, "running": True, "warning": False,
                                         "enforced": True}
    assert lines[2]["input"] == "wait 44.5" and lines[2]["state"]["turn"] == "red"
    assert lines[2]["state"]["timer"]["warning"] is True
    assert lines[3]["state"]["turn"] == "blue" and lines[3]["state"]["timer"]["remaining"] == 44.5


@pytest.mark.parametrize("line", ["wait", "wait soon", "wait -1", "wait 4000", "wait 1 2"])
def test_a_bad_wait_is_a_malformed_script(tmp_path, line):
    script = tmp_path / "bad.txt"
    script.write_text(f"clue 1\n{line}\n")
    done = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--script", str(script), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "bad.txt:2:" in done.stderr and "'wait'" in done.stderr


def test_the_dial_sets_and_enters_the_clue_number():
    t = table()
    t.loop.post(ButtonEvent("enter_clue"))
    (refused,) = t.loop.run_pending()
    assert not refused.ok and "turn the dial" in refused.error
    for steps, expected in ((3, 3), (-5, 0), (20, "unlimited"), (-1, 9)):
        t.loop.post(DialEvent(steps))
        t.loop.run_pending()
        assert t.loop.dial == expected and t.screen.last.dial == expected
    t.loop.post(ButtonEvent("enter_clue"))
    (entered,) = t.loop.run_pending()
    assert entered.ok and t.session.state.clue == 9 and t.loop.dial is None


def test_reveal_times_follow_the_board_and_undo():
    t = table()
    t.clock.advance(5)
    t.do(Guess(3))  # touched at 5 s, taken after the 0.25 s hold
    assert t.loop.revealed_at[3] == pytest.approx(5.25)
    assert t.screen.last.cues.revealed_at[3] == pytest.approx(5.25)
    t.do(parse_action("undo"))
    assert t.loop.revealed_at[3] is None


def test_the_table_turns_idle_after_a_quiet_while_and_wakes_on_a_touch():
    t = table(idle_after_s=60)
    assert t.loop.next_due() == pytest.approx(60)
    t.wait(61)
    assert t.screen.last.cues.idle
    t.touch.press(0)
    t.loop.run_pending()
    assert not t.screen.last.cues.idle


@pytest.mark.parametrize("timer, why", [
    (None, "no turn timer is on"),
    (TimerSettings(length_s=30), "the turn timer is not enforced"),
    (TimerSettings(length_s=30, enforce=True), "the turn timer has 20 s left"),
])
def test_time_up_from_anyone_but_the_timer_is_refused(timer, why):
    """The books want at least one guess a turn: only an enforced timer that has run out may
    end a turn without it, and the table's own timer does that itself (issue 15)."""
    t = table(timer)
    t.do(parse_action("clue 2"))
    t.wait(10)
    outcome = t.do(TimeUp())
    assert not outcome.ok
    assert outcome.error == f"time-up ends a turn only when an enforced turn timer runs out: {why}"
    assert t.session.state.turn is Team.RED and [str(e) for e in t.session.record.entries] == ["clue 2"]


def test_the_script_command_time_up_is_refused_without_an_enforced_timer():
    script = "clue 2\ntime-up\n"
    done = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--key", KEY, "--script", "-", "--json"],
                          input=script, capture_output=True, text=True, check=True)
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["input"] == "time-up" and not last["ok"]
    assert "only when an enforced turn timer runs out" in last["error"]
    assert last["state"]["turn"] == "red"
