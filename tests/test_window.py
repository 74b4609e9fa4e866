"""The windowed simulator on SDL's dummy video driver, and `pi-table render`."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import pygame
import pytest

from pi_table.engine import Rules, make_game
from pi_table.sim.window import GRID_PX, SCREEN_SIZE, Window, cell_rects
from pi_table.table import Session
from pi_table.table.input import InputSettings
from pi_table.ui.leds import REVEALED

from helpers import wait_for

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


@pytest.fixture
def window():
    rules = Rules()
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY))
    w = Window(session, InputSettings(hold_s=0.2))  # a margin of 0.2 s each side of a click, on a loaded machine
    yield w
    w.close()


def click(window, pos, held_s=0.4):
    window.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=pos))
    time.sleep(held_s)
    window.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=pos))


def test_a_mouse_press_on_the_grid_is_a_touch_with_the_hold_rule(window):
    centre = cell_rects()[3].center
    click(window, centre, held_s=0)  # shorter than the hold: nothing
    click(window, cell_rects()[0].center)  # a guess after it, held past the moment the brush's hold ends
    wait_for(lambda: window.loop.session.table_view().board[0] == "R", "card 0 revealed")
    assert window.loop.session.table_view().board[3] == "?"
    click(window, centre)
    wait_for(lambda: window.loop.session.table_view().board[3] == "R", "card 3 revealed")
    time.sleep(0.7)  # the reveal animation ends
    window.draw()
    glow = window.surface.get_at(cell_rects()[3].move(0, 20).center)[:3]
    assert glow == tuple(min(255, 40 + c) for c in REVEALED["R"])


def test_keys_stand_for_the_buttons(window):
    click(window, cell_rects()[0].center)
    wait_for(lambda: window.loop.session.record.moves == 1, "the first guess")
    window.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_e))
    wait_for(lambda: window.loop.session.state.turn.value == "blue", "END TURN from the E key")
    window.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_UP))
    window.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_UP))
    window.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN))
    wait_for(lambda: window.loop.session.state.clue == 2, "the dial's clue 2")
    assert window.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q)) is False


def test_n_asks_before_dealing_over_a_game_in_progress(window):
    click(window, cell_rects()[0].center)
    wait_for(lambda: window.loop.session.record.moves == 1, "the first guess")
    first = window.loop.session.id
    window.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_n))
    assert window.asking == "N again: a new game over the one in progress (undo brings it back)"
    assert window.loop.call(lambda: window.loop.session.id) == first  # asked, not dealt: nothing the loop had
    window.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_n))
    wait_for(lambda: window.loop.session.id != first, "the new game")
    assert window.asking is None


def test_a_tap_on_the_screen_panel_reaches_the_loop(window):
    wait_for(lambda: window.screen.last is not None, "the first screen")
    window.draw()
    (three,) = [tap for tap in window.painter.frame.taps if str(tap.command) == "clue 3"]
    x, y, w, h = three.rect
    click(window, (GRID_PX + x + w // 2, y + h // 2), held_s=0)
    wait_for(lambda: window.loop.session.state.clue == 3, "clue 3 from the screen's button")


def test_window_screenshot(window, tmp_path):
    window.draw()
    path = tmp_path / "window.png"
    window.screenshot(str(path))
    assert pygame.image.load(str(path)).get_size() == window.surface.get_size()


def test_no_display_falls_back_to_the_terminal_with_a_message():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    done = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--window", "--color", "never"], input="quit\n",
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0
    assert "no window (no DISPLAY or WAYLAND_DISPLAY is set): the terminal simulator instead" in done.stderr
    assert "KEY (spymasters only)" in done.stdout


def test_render_writes_the_screen_and_the_grid(tmp_path):
    script = tmp_path / "game.txt"
    script.write_text("clue 2\ntouch 0\ntouch 17\n")
    for lang in ("en", "it"):
        done = subprocess.run(
            [sys.executable, "-m", "pi_table", "render", "--key", KEY, "--script", str(script), "--lang", lang,
             "--out", str(tmp_path / lang)], capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr
    sizes = {name: pygame.image.load(str(tmp_path / "en" / name)).get_size()
             for name in ("screen.png", "grid.png", "table.png")}
    assert sizes == {"screen.png": (800, 480), "grid.png": (480, 480), "table.png": (1280, 480)}
    english = pygame.image.tobytes(pygame.image.load(str(tmp_path / "en" / "screen.png")), "RGB")
    italian = pygame.image.tobytes(pygame.image.load(str(tmp_path / "it" / "screen.png")), "RGB")
    assert english != italian
    grid = pygame.image.load(str(tmp_path / "en" / "grid.png"))
    assert grid.get_at(cell_rects()[0].move(0, 20).center)[:3] == tuple(min(255, 40 + c) for c in REVEALED["R"])


def test_the_window_plays_the_tables_cues():
    from pi_table.hal.sound import SimSound

    rules = Rules()
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY))
    sound = SimSound()
    w = Window(session, InputSettings(hold_s=0.05), sound=sound)
    try:
        click(w, cell_rects()[0].center)  # red's own agent
        wait_for(lambda: "reveal-red" in sound.names, "the red reveal cue")
        w.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_e))
        wait_for(lambda: "turn" in sound.names, "the turn cue")
    finally:
        w.close()


def slots(rects) -> list[tuple[int, int]]:
    """Each cell's (row, column) in a picture, by cell number, from where its rectangle was drawn."""
    xs, ys = sorted({rect[0] for rect in rects}), sorted({rect[1] for rect in rects})
    return [(ys.index(rect[1]), xs.index(rect[0])) for rect in rects]


def bar_of(surface, cells) -> str:
    """The side of the cells the operatives' bar is drawn on, in a panel of the window."""
    from pi_table.ui.canvas import EDGE_FILL

    first, *rest = pygame.mask.from_threshold(surface, EDGE_FILL, (1, 1, 1, 255)).get_bounding_rects()
    bar, grid = first.unionall(rest), pygame.Rect(cells[0]).unionall([pygame.Rect(rect) for rect in cells])
    sides = {"top": bar.bottom <= grid.top, "bottom": bar.top >= grid.bottom, "left": bar.right <= grid.left,
             "right": bar.left >= grid.right}
    (side,) = [side for side, beyond in sides.items() if beyond]
    return side


@pytest.mark.parametrize("rotation", [180, 90])
def test_the_grid_and_the_key_beside_it_read_alike(tmp_path, rotation):
    """Each cell in the same place in both, the operatives' bar on the same side, the same words:
    a solo player matches the key to the grid at a glance (the key was turned 180 degrees from it)."""
    from pi_table.ui.orientation import operatives_edge
    from pi_table.ui.screen import ScreenSettings
    from pi_table.ui.words import Cards, load_words

    rules = Rules()
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY))
    w = Window(session, InputSettings(hold_s=0.05), screen_settings=ScreenSettings(rotation),
               cards=Cards(load_words("en"), random.Random(2)))
    try:
        wait_for(lambda: w.leds.latest.changed.is_set() and w.screen.latest.changed.is_set(), "shown")
        w.draw()
        w.screenshot(str(tmp_path / f"window-{rotation}.png"))
        key = w.painter.frame.cells  # on the screen panel
        assert slots(cell_rects(rotation)) == slots(key)
        assert slots(key)[0] == {180: (0, 4), 90: (0, 0)}[rotation]  # the operatives' left, in the row nearest them
        edge = operatives_edge(rotation)
        grid_panel, screen_panel = (w.surface.subsurface(pygame.Rect(0, 0, GRID_PX, GRID_PX)),
                                    w.surface.subsurface(pygame.Rect(GRID_PX, 0, *SCREEN_SIZE)))
        assert bar_of(grid_panel, cell_rects(rotation)) == edge == bar_of(screen_panel, w.painter.frame.cells)
        assert set(w.screen.words) <= set(w.painter.frame.texts)  # the key's words, as the grid's
    finally:
        w.close()


# --- Codex, a group at the window (issue 30) ---------------------------------------------------------

CODEX_SETUP = (
    "Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
    "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF"
)
CODEX_TURNS = [(0, "send 0 1 position"), (1, "send 1 0 position"), (2, "send 2 0 position"), (3, "send 3 4 role"),
               (4, "send 4 5 role"), (5, "send 5 3 position"), (0, "code 0 AAAA-BBBB-CCCC"), (0, "done 0"),
               *((seat, f"done {seat}") for seat in range(1, 6))]
"""Pass-and-play to red's win: the six messages, then Moon enters red's code and all six end
their private turn (an agent with two actions takes both in one turn at the screen)."""


def press(window, tap):
    """A mouse click on ``tap`` of the screen panel, and the window drawn once the loop has it."""
    x, y, w, h = tap.rect
    click(window, (GRID_PX + x + w // 2, y + h // 2), held_s=0)
    window.loop.call(lambda: None)  # the command the tap sent is handled (events are taken in order)
    window.draw()


def codex_tap(window, wanted):
    window.draw()
    taps = [tap for tap in window.painter.frame.taps if wanted(tap)]
    assert len(taps) == 1, window.painter.frame.texts
    return taps[0]


def test_codex_is_played_to_its_end_in_the_window_by_pass_and_play(tmp_path):
    """The window plays Codex's loop and draws its screen; the mouse plays pass-and-play: PASS
    AND PLAY, each agent's I AM, its choices, NEXT AGENT. Pictures of each stage are written."""
    from pi_table.cli.codex import WINDOW_KEYS
    from pi_table.engine.codex import Codex
    from pi_table.engine.codex_actions import parse_codex_action
    from pi_table.engine.codex_rules import CodexRules
    from pi_table.ui.codex_turns import Stage, Turn

    rules = CodexRules()
    session = Session(rules, rng=random.Random(1), key=Codex(rules).parse_setup(CODEX_SETUP))
    w = Window(session, InputSettings(hold_s=0.05), options={"discussion_s": 60}, keys_help=WINDOW_KEYS)
    try:
        wait_for(lambda: w.screen.last is not None, "the first screen")
        w.draw()
        assert "PASS AND PLAY" in w.painter.frame.texts and "mouse: tap the screen" in w.keys_help
        press(w, codex_tap(w, lambda tap: isinstance(tap.mode, Turn) and tap.mode.stage is Stage.PASS))
        w.screenshot(str(tmp_path / "1-pass.png"))
        called = None
        for seat, text in CODEX_TURNS:
            action = parse_codex_action(text)
            if called != seat:
                assert f"Pass the screen to {CODEX_SETUP.split()[seat].split(':')[0]} (seat {seat})" in w.painter.frame.texts
                press(w, codex_tap(w, lambda tap: isinstance(tap.mode, Turn) and tap.mode.stage is Stage.AGENT))
                called = seat
            if seat == 2 and text.startswith("send"):
                w.screenshot(str(tmp_path / "2-agent.png"))
            for _ in range(6):
                tap = w.painter.current.route(action)
                assert tap is not None, w.painter.frame.texts
                press(w, tap)
                if tap.command == action:
                    break
            if w.painter.current.turn.stage is Stage.HIDDEN:
                if seat == 2:
                    w.screenshot(str(tmp_path / "3-hidden.png"))
                if not w.loop.call(lambda: w.loop.session.state.is_over):
                    press(w, codex_tap(w, lambda tap: isinstance(tap.mode, Turn) and tap.mode.stage is Stage.PASS))
                called = None if w.painter.current.turn.stage is Stage.PASS else called
        view = w.loop.call(lambda: session.record.game.public_view(session.record.state))
        assert view.winner is not None and view.winner.value == "red"
        time.sleep(0.7)  # the lights' last animation
        w.draw()
        assert "RED FACTION WINS" in w.painter.frame.texts
        w.screenshot(str(tmp_path / "4-over.png"))
        for name in ("1-pass", "2-agent", "3-hidden", "4-over"):
            assert pygame.image.load(str(tmp_path / f"{name}.png")).get_size() == w.surface.get_size()
    finally:
        w.close()
