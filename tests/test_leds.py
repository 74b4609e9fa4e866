"""The LED frame renderer and the output stage: what each game state lights, when the frame
changes, that hidden cards never reach the grid, and the map, gamma and current limit."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_table.engine import CELLS, EndTurn, Rules, Team, make_game
from pi_table.engine.games import entry, names_of
from pi_table.engine.keys import Key
from pi_table.hal import Cues, LedFrame, TimerState
from pi_table.ui.leds import (
    DEAF,
    DIM,
    HIDDEN_CARD,
    OFF,
    PENDING,
    REVEALED,
    TEAM_COLOUR,
    WARNING,
    LightSettings,
    next_change,
    render_frame,
)
from pi_table.ui.pixels import LedMap, PixelOutput, PowerLimit

from helpers_games import hidden_swapped, played, with_drawn_key

GRID_GAMES = names_of("grid")  # every game played on the grid, as registered

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red starts: red 0-8, blue 9-16, bystanders 17-23, assassin 24
ALIAS_KEY = "RRRRRRRRRBBB.BBBBBNNNNNNA"  # Alias 24: red holds 9, blue starts; dark centre; nuke 24
ALIAS = Rules(game="alias24")
MAD = Rules(game="alias24", nuke="mad")
COOP = Rules(game="codenames-coop")
LIGHTS = LightSettings()
LATER = 1000.0  # long after every reveal and celebration


def table(key: str = KEY, actions=(), rules: Rules | None = None):
    game = make_game(rules or Rules())
    return game.table_view(played(game, game.parse_key(key), actions))


def touches(*cells: int) -> list[str]:
    return [f"touch {cell}" for cell in cells]


def shown_at(view, at: float = 0.0, **cells: float) -> tuple[float | None, ...]:
    """Reveal times as the loop keeps them: ``at`` for every shown card, overrides by ``c<cell>``."""
    times = [None if shown in "?." else at for shown in view.board]
    for name, t in cells.items():
        times[int(name[1:])] = t
    return tuple(times)


def frame(view, now: float = LATER, lights: LightSettings = LIGHTS, **cues) -> LedFrame:
    cues.setdefault("revealed_at", shown_at(view))
    return render_frame(view, Cues(**cues), now, lights)


def wake(view, now: float = LATER, lights: LightSettings = LIGHTS, **cues) -> float | None:
    cues.setdefault("revealed_at", shown_at(view))
    return next_change(view, Cues(**cues), now, lights)


def level(colour, full) -> float:
    return max(colour) / max(full)


# --- the grid ---------------------------------------------------------------------------------


def test_hidden_cards_glow_and_revealed_cards_show_what_they_were():
    view = table(actions=["clue 2", *touches(0, 17)])  # a red agent, then a bystander
    lit = frame(view)
    assert lit.cells[0] == REVEALED["R"] and lit.cells[17] == REVEALED["N"]
    assert all(lit.cells[cell] == HIDDEN_CARD for cell in range(CELLS) if cell not in (0, 17))
    assert wake(view) is None


def test_every_identity_has_its_own_light_and_none_looks_like_a_hidden_card_or_a_warning():
    lights = list(REVEALED.values()) + [HIDDEN_CARD, PENDING, WARNING, OFF]
    assert len(set(lights)) == len(lights)
    assert TEAM_COLOUR == {Team.RED: REVEALED["R"], Team.BLUE: REVEALED["B"]}


def test_alias24_leaves_the_dark_cell_off_and_shows_the_nuke():
    view = table(ALIAS_KEY, ["clue 1", "touch 24"], ALIAS)  # blue sets off the nuke: red wins
    lit = frame(view)
    assert lit.cells[12] == OFF
    assert lit.cells[24] == REVEALED["A"]
    assert set(lit.edge) == {TEAM_COLOUR[Team.RED]}


def test_a_touched_card_turns_white_until_the_hold_makes_it_a_guess():
    view = table(actions=["clue 2", "touch 0"])
    lit = frame(view, pending=frozenset({3, 0}))
    assert lit.cells[3] == PENDING
    assert lit.cells[0] == REVEALED["R"]  # touching a card already shown changes nothing
    assert wake(view, pending=frozenset({3})) is None


def test_a_card_the_board_cannot_hear_blinks_amber_and_a_revealed_or_touched_one_is_left_alone():
    """Issue 51: a touch chip that does not answer; its hidden cards blink, so nobody touches them in vain."""
    view = table(actions=["clue 2", "touch 0"])
    deaf = frozenset({0, 12, 13})
    off, on = frame(view, 100.0, deaf=deaf), frame(view, 100.5, deaf=deaf)
    assert on.cells[12] == on.cells[13] == DEAF and off.cells[12] == tuple(round(c * DIM) for c in DEAF)
    assert on.cells[0] == REVEALED["R"] and on.cells[11] == HIDDEN_CARD  # shown already; heard
    assert wake(view, 100.0, deaf=deaf) == pytest.approx(100.5)  # still otherwise: it wakes for the blink alone
    assert frame(view, 100.5, deaf=deaf, pending=frozenset({12})).cells[12] == PENDING  # heard after all: the touch wins
    ring = frame(view, 100.7, deaf=deaf, revealed_at=shown_at(view, c0=100.5))
    assert ring.cells[1] != HIDDEN_CARD and ring.cells[12] == DEAF  # the reveal's ring passes it by


# --- the reveal -------------------------------------------------------------------------------


def test_a_revealed_card_shows_its_colour_at_once_and_a_ring_runs_over_its_neighbours():
    view = table(actions=["clue 2", "touch 6"])  # a red agent, row 1 column 1
    at = 100.0
    neighbours = (1, 5, 7, 11)
    first = frame(view, at, revealed_at=shown_at(view, c6=at))
    assert first.cells[6] == REVEALED["R"]
    assert all(first.cells[cell] == HIDDEN_CARD for cell in neighbours)
    ring = frame(view, at + 0.2, revealed_at=shown_at(view, c6=at))
    assert ring.cells[6] == REVEALED["R"]
    assert all(ring.cells[cell][0] > HIDDEN_CARD[0] and ring.cells[cell][2] < HIDDEN_CARD[2] for cell in neighbours)
    assert ring.cells[24] == HIDDEN_CARD  # the far corner is out of the ring's reach


def test_the_reveal_animation_is_over_within_six_tenths_of_a_second():
    view = table(actions=["clue 2", "touch 6"])
    at = 100.0
    still = frame(view, revealed_at=shown_at(view, c6=at))
    for step in range(20):
        now = at + 0.6 + step * 0.05
        assert frame(view, now, revealed_at=shown_at(view, c6=at)) == still
    assert wake(view, at + 0.6, revealed_at=shown_at(view, c6=at)) is None
    assert wake(view, at + 0.1, revealed_at=shown_at(view, c6=at)) is not None


def test_while_a_card_is_revealed_the_loop_wakes_at_the_frame_rate():
    view = table(actions=["clue 2", "touch 6"])
    at = 100.0
    for step in range(15):
        now = at + step / 30 + 0.001
        due = wake(view, now, revealed_at=shown_at(view, c6=at))
        assert now < due <= now + 1 / LIGHTS.fps + 1e-9


# --- the edge -------------------------------------------------------------------------------


def test_the_edge_shows_whose_turn_it_is():
    assert set(frame(table()).edge) == {TEAM_COLOUR[Team.RED]}
    assert set(frame(table(actions=["clue 1", "touch 17"])).edge) == {TEAM_COLOUR[Team.BLUE]}
    assert len(frame(table(), lights=LightSettings(edge_pixels=7)).edge) == 7


def timer(remaining: float, length: float = 60.0, warn: float = 10.0, running: bool = True) -> TimerState:
    return TimerState(length_s=length, remaining_s=remaining, warn_s=warn, enforced=False, running=running)


def test_the_timer_is_a_bar_in_the_team_colour_that_shrinks_as_the_turn_runs_down():
    view = table()
    red = TEAM_COLOUR[Team.RED]
    track = tuple(round(channel * DIM) for channel in red)
    assert set(frame(view, timer=timer(60)).edge) == {red}
    half = frame(view, timer=timer(30)).edge
    assert half == (red,) * 12 + (track,) * 12
    assert frame(view, timer=timer(45)).edge == (red,) * 18 + (track,) * 6
    lit = [sum(map(sum, frame(view, timer=timer(60 - t)).edge)) for t in range(0, 50, 2)]
    assert lit == sorted(lit, reverse=True) and lit[0] > lit[-1]


def test_the_timer_bar_flashes_in_its_last_seconds():
    view = table()
    red = TEAM_COLOUR[Team.RED]
    assert frame(view, timer=timer(20.4)).edge[0] == frame(view, timer=timer(20.1)).edge[0] == red
    on, off = frame(view, timer=timer(5.4)).edge, frame(view, timer=timer(5.1)).edge
    assert on[0] == red and off[0] != red and max(off[0]) < max(red) / 2


def test_a_timer_that_ran_out_without_ending_the_turn_blinks_the_whole_edge():
    view = table()
    bright = frame(view, LATER + 0.75, timer=timer(0)).edge
    dark = frame(view, LATER + 0.25, timer=timer(0)).edge
    assert set(bright) == {TEAM_COLOUR[Team.RED]} and bright != dark


def test_a_stopped_timer_shows_no_bar():
    view = table(rules=Rules(setup="place"))
    assert set(frame(view, timer=timer(60, running=False)).edge) == {TEAM_COLOUR[Team.RED]}


def test_the_timer_wakes_the_loop_when_the_bar_changes_and_not_before():
    view = table()
    start = 500.0

    def at(t):  # the timer as the loop's clock gives it at time t
        return frame(view, t, timer=timer(60 - (t - start)))

    for elapsed in (0.0, 3.3, 31.7, 49.95, 52.3, 59.6):
        now = start + elapsed
        due = wake(view, now, timer=timer(60 - elapsed))
        assert 0 < due - now <= 0.625 + 1e-5  # a quarter pixel of a 60 s bar on 24 pixels
        assert at(due - 1e-5) == at(now)
        assert at(due) != at(now)


def test_warnings_turn_the_whole_edge_amber_and_leave_the_grid_alone():
    view = table(actions=["clue 2", "touch 0"])
    calm, alarmed = frame(view), frame(view, warnings=("touch board disconnected",))
    assert set(alarmed.edge) == {WARNING}
    assert alarmed.cells == calm.cells
    assert set(frame(view, warnings=("wipe the table",), timer=timer(5.1)).edge) == {WARNING}
    assert set(frame(view, warnings=("wipe the table",), idle=True).edge) == {WARNING}
    assert wake(view, warnings=("wipe the table",)) is None


# --- the end of the game ----------------------------------------------------------------------

RED_WINS = ["clue unlimited", *touches(*range(9))]


def test_a_win_celebrates_in_the_winners_colour_then_settles():
    view = table(actions=RED_WINS)
    assert (view.phase, view.winner) == ("over", Team.RED)
    end = 300.0
    red = TEAM_COLOUR[Team.RED]
    party = frame(view, end + 2.0, revealed_at=shown_at(view, end - 5, c8=end))
    assert all(g == 0 and b == 0 and r > 0 for r, g, b in party.edge)  # red, running: not one steady colour
    assert len(set(party.edge)) > 3
    assert any(cell not in (HIDDEN_CARD, REVEALED["R"]) for cell in party.cells)
    settled = frame(view, end + LIGHTS.celebrate_s + 0.1, revealed_at=shown_at(view, end - 5, c8=end))
    assert set(settled.edge) == {red}
    assert settled == frame(view)
    assert wake(view, end + 2.0, revealed_at=shown_at(view, end - 5, c8=end)) <= end + 2.0 + 1 / LIGHTS.fps
    assert wake(view, end + LIGHTS.celebrate_s, revealed_at=shown_at(view, end - 5, c8=end)) is None


def test_the_cooperative_loss_celebrates_the_simulated_opponent():
    view = table(actions=["clue 1", "touch 24"], rules=COOP)  # the players touch the assassin
    assert view.winner is Team.BLUE
    assert set(frame(view).edge) == {TEAM_COLOUR[Team.BLUE]}


MAD_BOTH_LOSE = [
    "clue unlimited", *touches(0, 1, 2, 3, 4, 5), "end-turn",
    "clue unlimited", *touches(9, 10, 11, 13, 14, 15), "end-turn",
    "clue 1", "touch 18", "touch 24",
]


def test_when_both_teams_lose_the_table_flashes_and_shows_both_colours_dimly():
    view = table(ALIAS_KEY, MAD_BOTH_LOSE, MAD)
    assert (view.phase, view.winner, set(view.losers)) == ("over", None, {Team.RED, Team.BLUE})
    end = 300.0
    times = shown_at(view, end - 50, c24=end)
    flash = frame(view, end + 0.1, revealed_at=times)
    for cell, shown in enumerate(view.board):  # a white flash over every card still hidden
        assert min(flash.cells[cell]) > 150 if shown in "?." else flash.cells[cell] == REVEALED[shown]
    fallout = frame(view, end + 2.0, revealed_at=times).edge
    assert any(r > 0 and b == 0 for r, _, b in fallout) and any(b > 0 and r == 0 for r, _, b in fallout)
    settled = frame(view, end + LIGHTS.celebrate_s + 1, revealed_at=times).edge
    red, blue = TEAM_COLOUR[Team.RED], TEAM_COLOUR[Team.BLUE]
    assert settled[:2] == (tuple(round(c * 0.4) for c in red), tuple(round(c * 0.4) for c in blue))
    assert red not in settled and blue not in settled  # not mistaken for either team's win
    assert wake(view, end + LIGHTS.celebrate_s + 1, revealed_at=times) is None


# --- Deep Undercover's setup ----------------------------------------------------------------


def test_deep_undercover_lights_the_cell_for_the_next_codename_in_the_placing_teams_colour():
    rules = Rules(setup="place")
    first = frame(table(rules=rules))
    assert first.cells[0] == TEAM_COLOUR[Team.RED]
    assert set(first.cells[1:]) == {OFF}
    view = table(actions=["place 0", "place 1"], rules=rules)
    assert (view.placing, view.turn) == (2, Team.RED)
    lit = frame(view)
    assert lit.cells[:3] == (HIDDEN_CARD, HIDDEN_CARD, TEAM_COLOUR[Team.RED])
    assert set(lit.cells[3:]) == {OFF}
    assert set(frame(table(actions=["place 0"], rules=rules)).edge) == {TEAM_COLOUR[Team.BLUE]}


def test_deep_undercover_in_alias24_skips_the_dark_cell():
    rules = Rules(game="alias24", setup="place")
    view = table(ALIAS_KEY, [f"place {cell}" for cell in range(12)], rules)
    assert view.placing == 13
    lit = frame(view)
    assert lit.cells[12] == OFF and lit.cells[13] == TEAM_COLOUR[view.turn] and lit.cells[11] == HIDDEN_CARD


# --- every state renders ----------------------------------------------------------------------

STATES = {
    "codenames start": (KEY, [], Rules()),
    "codenames guessing": (KEY, ["clue 2", "touch 0"], Rules()),
    "codenames penalty cover": (KEY, ["penalty"], Rules()),
    "codenames over": (KEY, RED_WINS, Rules()),
    "coop cover": (KEY, ["clue 1", "touch 0", "end-turn"], COOP),
    "coop over": (KEY, ["clue 1", "touch 24"], COOP),
    "alias24 basic": (ALIAS_KEY, ["clue 1", "touch 0"], ALIAS),
    "alias24 basic over": (ALIAS_KEY, ["clue 1", "touch 24"], ALIAS),
    "alias24 mad both lose": (ALIAS_KEY, MAD_BOTH_LOSE, MAD),
    "placing": (KEY, ["place 0"], Rules(setup="place")),
}


@pytest.mark.parametrize("name", list(STATES))
@pytest.mark.parametrize("colour_blind", [False, True])
@pytest.mark.parametrize("idle", [False, True])
def test_every_game_state_renders(name, colour_blind, idle):
    key, actions, rules = STATES[name]
    view = table(key, actions, rules)
    lights = LightSettings(colour_blind=colour_blind)
    for now in (0.0, 0.3, 2.0, 7.7, LATER):
        lit = frame(view, now, lights, idle=idle, timer=timer(40 - now % 40), pending=frozenset({20}))
        assert len(lit.cells) == CELLS and len(lit.edge) == lights.edge_pixels
        assert all(isinstance(c, int) and 0 <= c <= 255 for rgb in lit.cells + lit.edge for c in rgb)


# --- idle -------------------------------------------------------------------------------------


def test_the_idle_table_plays_a_wave_that_shows_nothing_of_the_game():
    views = [table(), table(actions=RED_WINS), table(ALIAS_KEY, ["clue 1", "touch 0"], ALIAS)]
    for now in (10.0, 11.3, 57.0):
        frames = {frame(view, now, idle=True, pending=frozenset({4}), timer=timer(3)) for view in views}
        assert len(frames) == 1
    assert frame(table(), 10.0, idle=True) != frame(table(), 11.0, idle=True)


def test_the_idle_wave_wakes_the_loop_at_its_own_slow_rate():
    lights = LightSettings(attract_fps=10)
    for now in (10.0, 10.05, 10.099, 33.333):
        due = wake(table(), now, lights, idle=True)
        assert now < due <= now + 0.1 + 1e-9
        assert frame(table(), (now + due) / 2, lights, idle=True) == frame(table(), now, lights, idle=True)


# --- colour-blind mode ------------------------------------------------------------------------

SHOWN_ALL = ["clue unlimited", "touch 0", "touch 9", "clue unlimited", "touch 17", "touch 24"]
"""Red shows a red agent, then a blue one (turn over); blue a bystander, then the assassin."""


def rhythms(lights: LightSettings) -> dict[str, list[float]]:
    view = table(actions=SHOWN_ALL)
    cells = {"R": 0, "B": 9, "N": 17, "A": 24}
    samples = [frame(view, 500 + step * 0.05, lights) for step in range(80)]
    return {
        letter: [round(level(f.cells[cell], REVEALED[letter]), 3) for f in samples] for letter, cell in cells.items()
    }


def test_in_colour_blind_mode_each_identity_has_its_own_rhythm():
    seen = rhythms(LightSettings(colour_blind=True))
    assert len({tuple(levels) for levels in seen.values()}) == 4
    assert set(seen["R"]) == {1.0}  # steady
    assert len(set(seen["B"])) > 10  # a smooth pulse
    dark = {letter: sum(v < 0.5 for v in levels) / len(levels) for letter, levels in seen.items()}
    assert 0.1 <= dark["N"] <= 0.2  # a short wink every two seconds
    assert 0.4 <= dark["A"] <= 0.6  # blinking
    assert all(set(levels) == {1.0} for levels in rhythms(LIGHTS).values())  # by hue alone otherwise


def test_in_colour_blind_mode_the_turn_edge_has_the_team_rhythm():
    lights = LightSettings(colour_blind=True)
    red_turn, blue_turn = table(), table(actions=["clue 1", "touch 17"])
    assert {frame(red_turn, 500 + t / 10, lights).edge for t in range(20)} == {frame(red_turn).edge}
    assert len({frame(blue_turn, 500 + t / 10, lights).edge for t in range(20)}) > 5


def test_in_colour_blind_mode_warnings_blink():
    lights = LightSettings(colour_blind=True)
    on = frame(table(), 500.75, lights, warnings=("wipe the table",)).edge
    off = frame(table(), 500.25, lights, warnings=("wipe the table",)).edge
    assert set(on) == {WARNING} and on != off


# --- when the frame changes: a property over every animation ----------------------------------

def scene(name: str, t: float):
    """A table with something moving at about t = 100, and its cues at time t."""
    if name == "reveal":
        view = table(actions=["clue 2", "touch 6"])
        return view, dict(revealed_at=shown_at(view, c6=100.0))
    if name == "timer":
        return table(), dict(timer=timer(max(0.0, 109.5 - t)))
    if name == "celebration":
        view = table(actions=RED_WINS)
        return view, dict(revealed_at=shown_at(view, 99.0, c8=100.0))
    if name == "both lose":
        view = table(ALIAS_KEY, MAD_BOTH_LOSE, MAD)
        return view, dict(revealed_at=shown_at(view, 99.0, c24=100.0))
    if name == "idle":
        return table(), dict(idle=True)
    return table(actions=["place 0"], rules=Rules(setup="place")), {}


SCENES = ["reveal", "timer", "celebration", "both lose", "idle", "placing"]


@settings(settings.get_profile("frames"))
@given(
    name=st.sampled_from(SCENES),
    now=st.floats(99.0, 110.0),
    fraction=st.floats(0.0, 0.999),
    colour_blind=st.booleans(),
)
def test_the_frame_holds_still_until_next_change_says(name, now, fraction, colour_blind):
    lights = LightSettings(colour_blind=colour_blind)
    view, cues = scene(name, now)
    due = wake(view, now, lights, **cues)
    if due is None:
        assert frame(view, now + 1000, lights, **cues) == frame(view, now, lights, **cues)
        return
    assert now < due <= now + 0.625 + 1e-5  # never in the past, never asleep through a change
    # the loop is woken a microsecond after a switch, so that rounding never wakes it before
    between = max(now, min(now + (due - now) * fraction, due - 2e-6))
    assert frame(view, between, lights, **scene(name, between)[1]) == frame(view, now, lights, **cues)


@pytest.mark.parametrize(
    "name, seconds, most",
    [
        ("idle", 10.0, 10 * 10 + 1),  # the attract wave: 10 frames a second
        ("reveal", 2.0, 0.5 * 30 + 2),  # one reveal: half a second at 30 frames a second, then still
        ("celebration", 10.0, 6 * 30 + 2),
        ("timer", 9.0, 9 * 4 + 9 * 2 + 2),  # the bar's quarter steps and the flashing
        ("placing", 10.0, 0),
    ],
)
def test_the_loop_wakes_no_more_often_than_the_animation_needs(name, seconds, most):
    now, wakes = 100.0, 0
    while True:
        view, cues = scene(name, now)
        due = wake(view, now, **cues)
        if due is None or due > 100.0 + seconds:
            break
        now, wakes = due, wakes + 1
    assert wakes <= most
    assert (wakes == 0) == (name == "placing")


# --- secrecy ----------------------------------------------------------------------------------


def random_view(seed: int, game: str, setup: str, moves: int):
    """A table view after random legal moves, and another key that differs only under its
    hidden cards."""
    rng = random.Random(seed)
    rules = entry(game).rules_from({"setup": setup})  # its own rules' class
    engine = make_game(rules)
    key = engine.deal(rng)
    state = played(engine, key)
    for _ in range(moves):
        options = [a for a in engine.legal_actions(state) if not isinstance(a, EndTurn) or rng.random() < 0.3]
        if not options:
            break
        state = engine.apply(state, with_drawn_key(engine, state, rng.choice(options), key))
    view = engine.table_view(state)
    if state.drawn is None:  # placing: no key to swap; the view is the same whatever is drawn later
        return view, view, rng
    twin_key = Key(hidden_swapped(state.key.cells, view.board, rng), state.key.start)
    return view, engine.table_view(replace(state, drawn=twin_key)), rng


games = dict(
    seed=st.integers(0, 100_000),
    game=st.sampled_from(GRID_GAMES),
    setup=st.sampled_from(["key", "place"]),
    moves=st.integers(0, 30),
)


def random_cues(rng: random.Random, view, pending, warned, remaining, idle) -> Cues:
    return Cues(
        pending=pending,
        warnings=("touch board disconnected",) if warned else (),
        timer=None if remaining is None else timer(remaining),
        revealed_at=tuple(None if shown in "?." else rng.uniform(0, 30) for shown in view.board),
        idle=idle,
    )


cue_choices = dict(
    now=st.floats(0, 30),
    pending=st.frozensets(st.integers(0, CELLS - 1), max_size=3),
    warned=st.booleans(),
    remaining=st.one_of(st.none(), st.floats(0, 60)),
)


@settings(settings.get_profile("games"))
@given(**games, **cue_choices, idle=st.booleans(), colour_blind=st.booleans())
def test_two_keys_that_agree_on_the_shown_cards_light_the_table_alike(
    seed, game, setup, moves, now, pending, warned, remaining, idle, colour_blind
):
    view, twin, rng = random_view(seed, game, setup, moves)
    cues = random_cues(rng, view, pending, warned, remaining, idle)
    lights = LightSettings(colour_blind=colour_blind)
    assert render_frame(view, cues, now, lights) == render_frame(twin, cues, now, lights)
    assert next_change(view, cues, now, lights) == next_change(twin, cues, now, lights)


@settings(settings.get_profile("games"))
@given(**games, **cue_choices)
def test_a_shown_card_always_shows_its_identity_and_a_touched_one_white(
    seed, game, setup, moves, now, pending, warned, remaining
):
    """Whatever runs past (rings, celebrations, flashes), so a reveal is readable at once."""
    view, _, rng = random_view(seed, game, setup, moves)
    lit = render_frame(view, random_cues(rng, view, pending, warned, remaining, False), now)
    for cell, shown in enumerate(view.board):
        if shown == "?" and cell in pending:
            assert lit.cells[cell] == PENDING
        elif shown not in "?.":
            assert lit.cells[cell] == REVEALED[shown]


# --- settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [dict(edge_pixels=0), dict(fps=120), dict(attract_fps=40), dict(reveal_s=0), dict(celebrate_s=-1)],
)
def test_light_settings_refuse_nonsense(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        LightSettings(**bad)


# --- the LED map ------------------------------------------------------------------------------


def test_a_serpentine_grid_runs_back_along_every_other_row():
    led_map = LedMap.grid(leds_per_cell=2, serpentine=True, offset=3, edge_leds=6)
    assert led_map.cells[0] == (3, 4) and led_map.cells[4] == (11, 12)
    assert led_map.cells[5] == (21, 22) and led_map.cells[9] == (13, 14)  # row 1, right to left
    assert led_map.cells[10] == (23, 24)  # row 2, left to right again
    assert led_map.edge == tuple(range(53, 59)) and led_map.length == 59
    straight = LedMap.grid(leds_per_cell=2, serpentine=False, edge_leds=0)
    assert straight.cells[5] == (10, 11) and straight.edge == () and straight.length == 50


def test_the_edge_strip_can_sit_anywhere_on_the_line_and_run_either_way():
    led_map = LedMap.grid(leds_per_cell=1, offset=10, edge_leds=4, edge_first=0, edge_reversed=True)
    assert led_map.edge == (3, 2, 1, 0) and led_map.cells[0] == (10,) and led_map.length == 35


@pytest.mark.parametrize(
    "cells, edge, length, message",
    [
        (((0,), (0,)) + tuple((i,) for i in range(2, 25)), (), 30, "LED 0 is used twice: by cell 0 and by cell 1"),
        (tuple((i,) for i in range(25)), (24, 25), 30, "LED 24 is used twice: by cell 24 and by the edge"),
        (tuple((i,) for i in range(25)), (30,), 30, "LED 30 of the edge is off the strip: its LEDs are 0 to 29"),
        (tuple((i,) for i in range(24)) + ((),), (), 30, "cell 24 has no LED"),
        (tuple((i,) for i in range(24)), (), 30, "the LED map has 24 cells, the grid has 25"),
        (tuple((i,) for i in range(25)), (), 0, "at least one LED"),
    ],
)
def test_a_bad_map_is_refused_saying_what_is_wrong(cells, edge, length, message):
    with pytest.raises(ValueError, match=message):
        LedMap(cells, edge, length)


def test_grid_options_are_checked():
    with pytest.raises(ValueError, match="leds_per_cell is 1 or more"):
        LedMap.grid(leds_per_cell=0)
    with pytest.raises(ValueError, match="off the strip"):
        LedMap.grid(leds_per_cell=1, length=20)


# --- the output stage -------------------------------------------------------------------------

PLAIN = dict(brightness=1.0, gamma=1.0, power=PowerLimit(budget_ma=100_000))


def blank(edge: int = 0) -> list:
    return [[OFF] * CELLS, [OFF] * edge]


def test_each_cell_lights_its_own_leds_and_unused_leds_stay_dark():
    output = PixelOutput(LedMap.grid(leds_per_cell=2, offset=1, edge_leds=4), **PLAIN)
    cells, edge = blank(2)
    cells[5] = (255, 0, 0)
    cells[0] = (1, 2, 3)
    edge[1] = (0, 0, 255)
    pixels = output.pixels(LedFrame(tuple(cells), tuple(edge)))
    assert len(pixels) == output.length == 55
    assert pixels[0] == 0  # before the offset
    assert pixels[1:3] == [0x010203, 0x010203]
    assert pixels[19:21] == [0xFF0000, 0xFF0000]  # cell 5: row 1 runs back, so it ends the row
    assert pixels[51:55] == [0, 0, 0x0000FF, 0x0000FF]  # two frame pixels shared over four LEDs
    assert sum(1 for p in pixels if p) == 6


def test_brightness_and_gamma_come_from_one_table():
    output = PixelOutput(LedMap.grid(leds_per_cell=1, edge_leds=0), brightness=0.5, gamma=2.2,
                         power=PowerLimit(budget_ma=100_000))
    cells = [(255, 128, 0)] + [OFF] * 24
    first = output.pixels(LedFrame(tuple(cells), ()))[0]
    assert first >> 16 == 128  # full red at half brightness
    assert first >> 8 & 255 == round(255 * 0.5 * (128 / 255) ** 2.2) == 28  # mid green, gamma-corrected
    assert first & 255 == 0
    plain = PixelOutput(LedMap.grid(1, edge_leds=0), **PLAIN)
    ramp = [plain.pixels(LedFrame(((v, v, v),) * CELLS, ()))[0] for v in (0, 9, 200)]
    assert ramp == [0, 0x090909, 0xC8C8C8]  # gamma 1 and brightness 1 leave values alone


def test_brightness_changed_while_running_shows_from_the_next_frame_and_keeps_the_gamma():
    output = PixelOutput(LedMap.grid(leds_per_cell=1, edge_leds=0), brightness=0.5, gamma=2.2,
                         power=PowerLimit(budget_ma=100_000))
    frame = LedFrame(((255, 128, 0),) + (OFF,) * 24, ())
    output.brightness = 0.25
    first = output.pixels(frame)[0]
    assert first >> 16 == 64 and first >> 8 & 255 == round(255 * 0.25 * (128 / 255) ** 2.2)
    with pytest.raises(ValueError, match="brightness is 0 to 1, not -0.1"):
        output.brightness = -0.1
    assert output.pixels(frame)[0] == first  # a refused value changes nothing


def test_a_budget_below_the_leds_own_draw_is_refused():
    with pytest.raises(ValueError, match="does not cover the 124 LEDs' own 124 mA"):
        PixelOutput(power=PowerLimit(budget_ma=100))
    with pytest.raises(ValueError, match="brightness is 0 to 1"):
        PixelOutput(brightness=1.5)


def test_a_frame_with_the_wrong_number_of_cells_is_refused():
    with pytest.raises(ValueError, match="a frame has 25 cells, this one 24"):
        PixelOutput().pixels(LedFrame(((0, 0, 0),) * 24, ()))


colours = st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))


@settings(settings.get_profile("frames"))
@given(
    cells=st.lists(colours, min_size=CELLS, max_size=CELLS),
    edge=st.lists(colours, max_size=40),
    leds_per_cell=st.integers(1, 6),
    edge_leds=st.integers(0, 60),
    headroom=st.floats(1, 8000),
    brightness=st.floats(0, 1),
)
def test_the_estimated_draw_never_exceeds_the_budget(cells, edge, leds_per_cell, edge_leds, headroom, brightness):
    led_map = LedMap.grid(leds_per_cell=leds_per_cell, edge_leds=edge_leds)
    power = PowerLimit(budget_ma=led_map.length + headroom)
    limited = PixelOutput(led_map, brightness=brightness, power=power)
    free = PixelOutput(led_map, brightness=brightness, power=PowerLimit(budget_ma=10**9))
    frame_ = LedFrame(tuple(cells), tuple(edge))
    pixels, unlimited = limited.pixels(frame_), free.pixels(frame_)
    draw = power.draw_ma(pixels)
    assert draw <= power.budget_ma
    if power.draw_ma(unlimited) <= power.budget_ma:
        assert pixels == unlimited  # within budget nothing is dimmed
    else:  # dimmed only as far as needed: rounding down loses under one step per channel
        assert draw > power.budget_ma - len(pixels) * 3 * power.ma_per_channel / 255


def test_full_white_on_the_default_table_is_held_to_the_default_budget():
    output = PixelOutput(brightness=1.0)
    pixels = output.pixels(LedFrame(((255, 255, 255),) * CELLS, ((255, 255, 255),) * 24))
    assert 2900 < output.power.draw_ma(pixels) <= 3000
    cells = {pixels[led] for leds in output.map.cells for led in leds}
    edge = {pixels[led] for led in output.map.edge}
    assert len(cells) == len(edge) == 1 and cells.pop() & 255 < edge.pop() & 255 < 255  # cells held to their
    # cap first, then every LED dimmed alike to the supply's budget: none at full
    assert math.isclose(PowerLimit().draw_ma([0xFFFFFF]), 61.0)


# --- Codex's lights in colour-blind mode -------------------------------------------------------

CODEX_SETUP = (
    "Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
    "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF"
)


def codex_view(texts):
    from pi_table.engine.codex import Codex
    from pi_table.engine.codex_actions import parse_codex_action

    game = Codex()
    state = game.start(game.parse_setup(CODEX_SETUP))
    for text in texts:
        state = game.apply(state, parse_codex_action(text))
    return game.public_view(state)


@pytest.mark.parametrize(("code", "steady"), [("0 AAAA-BBBB-CCCC", True), ("3 DDDD-EEEE-FFFF", False)])
def test_in_colour_blind_mode_codex_shows_the_winning_faction_with_its_team_rhythm(code, steady):
    """Red's edge stays steady and blue's pulses, as the grid games' team colours do; without
    the mode both are steady and only the hue tells them apart."""
    from pi_table.ui.codex_leds import codex_lights

    sends = [f"send {seat} {(seat + 1) % 6} position" for seat in range(6)]
    view = codex_view([*sends, f"code {code}", *(f"done {seat}" for seat in range(6))])
    assert view.step == "over" and view.winner.value == ("red" if steady else "blue")
    edges = {t: codex_lights(view, Cues(), 500 + t / 10, LightSettings(colour_blind=True))[0].edge for t in range(20)}
    assert (len(set(edges.values())) == 1) is steady
    assert len({codex_lights(view, Cues(), 500 + t / 10)[0].edge for t in range(20)}) == 1


def test_a_cell_is_held_to_its_cap_alone_and_the_others_keep_their_light():
    """A cell that would draw more than ``cell_ma`` is dimmed to it, its hue kept; a dim cell
    beside it and the edge are untouched (the supply's budget is far off)."""
    limit = PowerLimit(budget_ma=100_000, cell_ma=50)
    output = PixelOutput(LedMap.grid(leds_per_cell=2, edge_leds=2), brightness=1.0, gamma=1.0, power=limit)
    cells, edge = blank(2)
    cells[0] = (255, 255, 0)
    cells[1] = (10, 20, 30)
    edge[0] = (255, 255, 255)
    pixels = output.pixels(LedFrame(tuple(cells), tuple(edge)))
    first = pixels[output.map.cells[0][0]]
    assert PowerLimit().draw_ma([pixels[led] for led in output.map.cells[0]]) <= 50
    assert first >> 16 == first >> 8 & 255 > 100 and first & 255 == 0  # yellow stays yellow, dimmer
    assert pixels[output.map.cells[1][0]] == 0x0A141E
    assert pixels[output.map.edge[0]] == 0xFFFFFF


def test_a_cells_cap_is_checked():
    with pytest.raises(ValueError, match="cell_ma are more than 0"):
        PowerLimit(cell_ma=0)
