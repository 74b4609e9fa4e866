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
from pi_table.sim.window import GRID_PX, Window, cell_rects
from pi_table.table import Session
from pi_table.table.input import InputSettings
from pi_table.ui.leds import REVEALED

from helpers import wait_for

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


@pytest.fixture
def window():
    rules = Rules()
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY))
    w = Window(session, InputSettings(hold_s=0.05))
    yield w
    w.close()


def click(window, pos, held_s=0.15):
    window.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=pos))
    time.sleep(held_s)
    window.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=pos))


def test_a_mouse_press_on_the_grid_is_a_touch_with_the_hold_rule(window):
    centre = cell_rects()[3].center
    click(window, centre, held_s=0.01)  # shorter than the hold: nothing
    time.sleep(0.2)
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
    time.sleep(0.2)
    assert window.loop.session.id == first  # asked, not dealt
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
