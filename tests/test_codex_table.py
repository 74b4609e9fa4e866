"""Codex on the table: the session and journal, the loop with its discussion timer, the lights."""

from __future__ import annotations

import json
import random

import pytest

from pi_table.engine.codex import Codex
from pi_table.engine.codex_actions import parse_codex_action
from pi_table.engine.codex_rules import CodexRules
from pi_table.hal import (
    ButtonEvent,
    NewGame,
    SimButtons,
    SimLedStrip,
    SimScreen,
    SimTouch,
    TouchEvent,
    UiEvent,
)
from pi_table.hal.codex_model import CodexModel
from pi_table.table import Session, history
from pi_table.table.codex_loop import CodexLoop
from pi_table.ui.codex_leds import SEAT_CELLS, codex_lights
from pi_table.ui.leds import OFF, WHITE

SETUP = (
    "Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
    "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF"
)
SEND_ALL = [f"send {seat} {(seat + 1) % 6} position" for seat in range(6)]
DONE_ALL = [f"done {seat}" for seat in range(6)]
VOTES = [f"vote {seat} {0 if seat == 1 else 1}" for seat in range(6)]  # all for seat 1, seat 1 for seat 0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def table(tmp_path=None, discussion_s=60.0):
    clock = Clock()
    session = Session(CodexRules(), key=Codex().parse_setup(SETUP), journal_dir=tmp_path, fsync=False)
    loop = CodexLoop(session, SimTouch(), SimLedStrip(), SimScreen(), SimButtons(), clock=clock, discussion_s=discussion_s)
    loop.open()
    return loop, clock


def act(loop, *texts):
    """The actions as phones send them: UI events on the loop's queue, each accepted."""
    for text in texts:
        loop.post(UiEvent(parse_codex_action(text)))
        [outcome] = loop.run_pending()
        assert outcome.ok, f"{text}: {outcome.error}"


def test_the_journal_holds_the_setup_and_every_action_and_resumes_exactly(tmp_path):
    loop, _ = table(tmp_path)
    act(loop, *SEND_ALL, "code 1 AAAA-BBBB-CCCC", *DONE_ALL[:3])
    path = next(tmp_path.glob("*.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["rules"] == {"game": "codex", "roles": None} and lines[0]["setup"] == SETUP
    assert "key" not in lines[0] and [line["action"] for line in lines[1:8]] == SEND_ALL + ["code 1 AAAA-BBBB-CCCC"]
    resumed = Session.resume(CodexRules(), tmp_path, fsync=False)
    assert resumed.kind == "codex" and resumed.id == loop.session.id and resumed.state == loop.session.state
    assert resumed.record.entries == loop.session.record.entries


def test_a_refused_action_changes_nothing_and_says_why(tmp_path):
    loop, _ = table(tmp_path)
    before = loop.session.state
    loop.post(UiEvent(parse_codex_action("vote 0 1")))
    [outcome] = loop.run_pending()
    assert not outcome.ok and "vote" in outcome.error and loop.session.state == before
    assert str(loop.screen.last.message) == outcome.error
    assert len(next(tmp_path.glob("*.jsonl")).read_text().splitlines()) == 1  # the header alone


def test_the_discussion_timer_ends_the_discussion_and_is_journalled(tmp_path):
    loop, clock = table(tmp_path, discussion_s=60)
    act(loop, *SEND_ALL, *DONE_ALL)
    assert loop.session.state.step == "discussion"
    timer = loop.screen.last.cues.timer
    assert timer.running and timer.remaining_s == 60 and timer.enforced
    clock.now += 59.5
    assert loop.run_pending() == [] and loop.session.state.step == "discussion"
    clock.now += 0.5
    [outcome] = loop.run_pending()
    assert outcome.ok and str(outcome.command) == "end-discussion" and loop.session.state.step == "vote"
    assert next(tmp_path.glob("*.jsonl")).read_text().splitlines()[-1].startswith('{"n": 13, "action": "end-discussion"')
    assert not loop.screen.last.cues.timer.running


def test_end_turn_closes_the_discussion_early_and_does_nothing_otherwise():
    loop, _ = table()
    loop.post(ButtonEvent("end_turn"))
    assert loop.run_pending() == [] and loop.session.state.step == "messages"
    act(loop, *SEND_ALL, *DONE_ALL)
    loop.post(ButtonEvent("end_turn"))
    assert [o.ok for o in loop.run_pending()] == [True] and loop.session.state.step == "vote"


def test_phones_act_through_ui_events_and_touches_do_nothing():
    loop, _ = table()
    loop.post(UiEvent(parse_codex_action("send 0 1 role")))
    loop.post(TouchEvent(pressed={3}))
    assert [o.ok for o in loop.run_pending()] == [True]
    assert loop.session.state.acted == (0,)


def test_new_game_stays_codex_and_a_grid_game_is_refused_here():
    loop, _ = table()
    first = loop.session.id
    outcome = loop.submit(NewGame("codenames"))
    assert not outcome.ok and "pi-table new-game --game codenames" in outcome.error
    assert loop.submit(NewGame()).ok and loop.session.kind == "codex" and loop.session.id != first


def test_the_screen_gets_the_whole_state_to_draw_the_public_side():
    loop, _ = table()
    act(loop, "send 2 3 role")
    model = loop.screen.last
    assert isinstance(model, CodexModel) and model.state == loop.session.state and model.game_id == loop.session.id


def test_one_light_per_seat_white_once_it_has_acted_and_nothing_else_lit():
    loop, _clock = table()
    act(loop, "send 2 3 role", "send 4 0 position")
    frame = loop.leds.frames[-1]
    lit = {cell for cell, colour in enumerate(frame.cells) if colour != OFF}
    assert lit == set(SEAT_CELLS)
    assert [frame.cells[SEAT_CELLS[seat]] == WHITE for seat in range(6)] == [False, False, True, False, True, False]


def test_the_truth_machine_pulses_and_the_tally_shows_and_the_winners_blink():
    loop, clock = table()
    act(loop, *SEND_ALL, *DONE_ALL, "end-discussion", *VOTES)
    state = loop.session.state
    assert state.step == "truth" and state.truth == 1
    view = loop.session.game.public_view(state)
    frames = [codex_lights(view, loop.cues(t), t)[0] for t in (clock.now, clock.now + 1.0)]
    assert frames[0].cells[SEAT_CELLS[1]] != frames[1].cells[SEAT_CELLS[1]]  # pulsing
    assert frames[0].cells[SEAT_CELLS[0]] != OFF and frames[0].cells[SEAT_CELLS[2]] != WHITE  # one vote; none
    act(loop, "reveal 1 role", *SEND_ALL, "code 0 AAAA-BBBB-CCCC", *DONE_ALL)
    view = loop.session.game.public_view(loop.session.state)
    assert view.winner.value == "red"
    on = [codex_lights(view, loop.cues(clock.now), clock.now + t)[0] for t in (0.0, 0.3)]
    red_seats = [SEAT_CELLS[seat] for seat in range(3)]
    assert any(on[0].cells[c] != on[1].cells[c] for c in red_seats)  # blinking
    assert all(on[0].cells[SEAT_CELLS[seat]] == OFF for seat in range(3, 6))


def test_history_reports_a_codex_game_with_its_winner(tmp_path):
    loop, _ = table(tmp_path)
    act(loop, *SEND_ALL, "code 0 AAAA-BBBB-CCCC", *DONE_ALL)
    [game] = history(tmp_path)
    assert (game["game"], game["over"], game["winner"], game["losers"]) == ("codex", True, "red", ["blue"])
    assert game["reason"] == "Moon (seat 0) entered red's code: red wins" and game["moves"] == 13


@pytest.mark.parametrize("seed", range(5))
def test_a_random_deal_is_journalled_and_replays(tmp_path, seed):
    session = Session(CodexRules(), rng=random.Random(seed), journal_dir=tmp_path, fsync=False)
    again = Session.resume(CodexRules(), tmp_path, fsync=False)
    assert again.record.key == session.record.key and again.state == session.state


def test_animation_frames_go_to_the_lights_alone_and_the_clock_to_the_screen_each_second():
    loop, clock = table(discussion_s=60)
    act(loop, *SEND_ALL, *DONE_ALL)  # the discussion: the timer bar animates, the clock counts
    shown, frames = len(loop.screen.models), len(loop.leds.frames)
    for _ in range(60):  # two seconds of frames at 30 a second
        clock.now += 1 / 30
        loop.run_pending()
    assert len(loop.leds.frames) - frames == 60
    assert 1 <= len(loop.screen.models) - shown <= 3  # once a second, not at the frame rate
