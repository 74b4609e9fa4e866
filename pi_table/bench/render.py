"""What showing the table costs: one LED frame, one screen redraw, and the idle loop's CPU.

The LED figure is ``render_frame`` plus the output stage (map, brightness, gamma, current
limit) for a game in progress with a reveal animating and the timer running. The screen
figure is one full redraw of the spymaster screen at 800x480. Idle CPU is the table loop on
simulator backends with no game activity, over ``idle_s`` seconds of wall time: first a
table in play (nothing moves), then the same table showing its attract animation.
"""

from __future__ import annotations

import os
import random
import threading
import time
from dataclasses import replace

from ..engine import Rules, SpymasterView, make_game, parse_action
from ..hal import Cues, ScreenModel, SimButtons, SimLedStrip, SimScreen, SimTouch, TimerState
from ..table import Session, TableLoop
from ..ui.leds import render_frame
from ..ui.pixels import PixelOutput
from . import percentiles

KEY = "RBNBRRNBBBRBRRNNRRABNBRNN"
MOVES = ["clue 2", "touch 0", "touch 4", "touch 2"]


def _game_in_progress() -> SpymasterView:
    rules = Rules()
    game = make_game(rules)
    state = game.start(game.parse_key(KEY))
    for text in MOVES:
        state = game.apply(state, parse_action(text))
    return game.spymaster_view(state)


def led_frame(frames: int) -> dict[str, float]:
    view = _game_in_progress()
    output = PixelOutput()
    timer = TimerState(length_s=90, remaining_s=42, warn_s=10, enforced=False, running=True)
    revealed = tuple(0.0 if shown != "?" else None for shown in view.table.board)
    times = []
    for n in range(frames):
        now = 0.2 + (n % 20) * 0.02  # inside the reveal animation of the last card
        cues = Cues(pending=frozenset({7}), timer=timer, revealed_at=revealed)
        start = time.perf_counter()
        output.pixels(render_frame(view.table, cues, now))
        times.append(time.perf_counter() - start)
    return {"frames": frames, "leds": output.length, **percentiles(times, 4)}


def screen_redraw(redraws: int) -> dict[str, object]:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    from ..ui.screens import ScreenPainter

    pygame.font.init()
    view = _game_in_progress()
    timer = TimerState(length_s=90, remaining_s=42, warn_s=10, enforced=False, running=True)
    surface = pygame.Surface((800, 480))
    painter = ScreenPainter()
    times = []
    for n in range(redraws):
        cues = Cues(timer=replace(timer, remaining_s=90 - n % 90))
        model = ScreenModel(view, "bench", None, cues)
        start = time.perf_counter()
        painter.draw(surface, model, float(n))
        times.append(time.perf_counter() - start)
    return {"redraws": redraws, "size": "800x480", **percentiles(times, 4)}


def idle_cpu(seconds: float, attract: bool) -> float:
    """Percent of one core the loop thread used while nothing happened at the table."""
    rules = Rules()
    session = Session(rules, rng=random.Random(1))
    loop = TableLoop(session, SimTouch(), SimLedStrip(keep=1), SimScreen(keep=1), SimButtons(),
                     idle_after_s=0.0 if attract else 300.0)
    loop.open()
    runner = threading.Thread(target=loop.run, name="table-loop")
    cpu, wall = time.process_time(), time.perf_counter()
    runner.start()
    time.sleep(seconds)
    loop.stop_soon()
    runner.join(timeout=5)
    used = (time.process_time() - cpu) / (time.perf_counter() - wall)
    loop.close()
    return round(100 * used, 3)


def run(frames: int = 2000, redraws: int = 300, idle_s: float = 10.0) -> dict[str, object]:
    return {
        "led_frame": led_frame(frames),
        "screen_redraw": screen_redraw(redraws),
        "idle_cpu_percent": idle_cpu(idle_s, attract=False),
        "attract_cpu_percent": idle_cpu(idle_s, attract=True),
    }
