"""The documentation's pictures of the table's screens, drawn from the code so they cannot drift
from it (issue 53: four Italian pictures still showed words the catalogue had since fixed).

``python tools/screenshots.py`` writes them into docs/screenshots/ (``./dev docs`` runs it, with
tools/docs.py); ``--check`` writes nothing and exits 1 naming each picture that is not what the
code draws now (tests/test_screenshots.py runs it).

Each picture is a game played on virtual time: a grid game's lines played by the scripted
simulator's table (``SimTable``: its screen, its LED frame and its cards' words), a Codex game's
actions applied by its engine and drawn at a stage of pass-and-play; then drawn by the table's
own painters (the spymaster screen, the window, ``pi-table render``) on an offscreen pygame
surface, in each language. Nothing reads a clock, a random source without a seed, or a font
other than pygame's own, so a picture comes out the same, pixel for pixel, however often it is
drawn. A picture is compared by its pixels, not its file's bytes: two zlib versions may pack the
same picture differently. Another pygame (its bundled FreeType and SDL) may draw a glyph a pixel
apart: after upgrading it, ``./dev docs`` draws the pictures again, and the change is reviewed as
pictures.

The phones', the staff's and the fleet's pages are Chromium's pictures: their browser tests
write them (tests/test_a11y.py, tests/test_web_codex.py, tests/test_fleet_dashboard.py).

This file is a tool of a checkout, like tools/docs.py: a Pi never installs it.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs" / "screenshots"
LANGS = ("en", "it")

# --- the grid games: a script played by the scripted simulator's table ---------------------------

KEY = "RBNBBARNRNRNRRBBNRBNBBNRB"
"""Blue starts with 9 agents (1 3 4 14 15 18 20 21 24), red has 8; the assassin is 5."""
ALIAS_KEY = "RNBNARBRRBRB.NBRNRBNBBNRB"
"""Alias 24, dark cell 12: red holds 8 assets and starts, targeting blue's 9; the nuke is 4."""
IN_PLAY = ("clue 2", "touch 1", "touch 3", "touch 2", "clue 3", "touch 0", "touch 6", "touch 9", "clue 2", "touch 14")
COOP_WIN = ("clue 2", "touch 1", "touch 3", "touch 4", "cover 0", "clue 3", "touch 14", "touch 15", "touch 6",
            "cover 8", "clue unlimited", "touch 18", "touch 20", "touch 21", "touch 24")
MAD_ARMED = ("clue unlimited", "touch 2", "touch 6", "touch 9", "touch 11", "touch 1", "clue unlimited", "touch 0",
             "touch 5", "touch 7", "touch 3", "clue unlimited", "touch 14", "touch 18", "touch 13", "clue unlimited",
             "touch 8", "touch 16")
PLACING = tuple(f"place {cell}" for cell in range(7))


@dataclass(frozen=True)
class GridPicture:
    """A grid game after ``lines`` (a script's), drawn as ``shows``: the spymaster screen
    (800x480), the window (the grid, the screen and the help bar) or ``pi-table render``'s
    table.png (the grid and the screen). ``words``: the cards carry the language's words."""

    rules: dict
    key: str
    lines: tuple[str, ...]
    shows: str = "screen"
    timer_s: float = 0.0
    words: bool = False


GRID_PICTURES = {
    "codenames-in-play": GridPicture({}, KEY, (*IN_PLAY, "wait 42.6"), timer_s=90),
    "coop-score": GridPicture({"game": "codenames-coop"}, KEY, COOP_WIN),
    "alias24-mad-armed": GridPicture({"game": "alias24", "nuke": "mad"}, ALIAS_KEY, MAD_ARMED),
    "deep-undercover-placing": GridPicture({"setup": "place"}, KEY, PLACING),
    "render-table": GridPicture({}, KEY, ("clue 3", "touch 1", "touch 3", "wait 1"), "table", words=True),
    "window": GridPicture({}, KEY, ("clue 2", "touch 4", "touch 14", "wait 1"), "window", words=True),
}


def draw_grid_picture(picture: GridPicture, lang: str) -> pygame.Surface:
    from pi_table.engine import Rules, make_game
    from pi_table.sim.harness import SimTable
    from pi_table.sim.script import parse_script, play
    from pi_table.table import Session
    from pi_table.table.timer import TimerSettings
    from pi_table.ui.words import Cards, load_words

    rules = Rules(**picture.rules)
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(picture.key))
    cards = Cards(load_words(lang), random.Random(2)) if picture.words else None
    timer = TimerSettings(length_s=picture.timer_s, warn_s=10) if picture.timer_s else None
    table = SimTable(session, timer=timer, lang=lang, cards=cards)
    try:
        for line in parse_script(picture.lines, "screenshot"):
            if not play(table, line).ok:
                raise ValueError(f"{line.text!r} is refused: the picture's game no longer plays as written")
        return _drawn(picture.shows, table.shown, table.leds.last, table.screen.words, table.clock(), lang)
    finally:
        table.close()


def _drawn(shows: str, model, frame, words, now: float, lang: str, keys_help: str | None = None) -> pygame.Surface:
    """``model`` (and the LED ``frame``) drawn as ``shows`` says, by the painters the table uses."""
    from pi_table.sim.window import GRID_KEYS, HELP_INK, SCREEN_SIZE, WINDOW_SIZE, draw_window, render_surfaces
    from pi_table.ui.i18n import translation
    from pi_table.ui.screen import ScreenPainter, ScreenSettings

    if shows == "window":
        surface = pygame.Surface(WINDOW_SIZE)
        help_line = (translation(lang).gettext(keys_help or GRID_KEYS), HELP_INK)
        draw_window(surface, frame, model, words, ScreenPainter(), now, lang, help_line, pygame.font.Font(None, 22))
        return surface
    if shows == "table":
        return render_surfaces(model, frame, now, ScreenSettings(), words)["table.png"]
    surface = pygame.Surface(SCREEN_SIZE)
    ScreenPainter().draw(surface, model, now)
    return surface


# --- Codex: the engine's state, drawn at a stage of pass-and-play ----------------------------------

SETUP = ("Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
         "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF")
SEND_ALL = tuple(f"send {seat} {(seat + 1) % 6} position" for seat in range(6))
DONE_ALL = tuple(f"done {seat}" for seat in range(6))
VOTES = tuple(f"vote {seat} {0 if seat == 1 else 1}" for seat in range(6))
TO_TRUTH = (*SEND_ALL, *DONE_ALL, "end-discussion", *VOTES)
WON = (*SEND_ALL, "code 0 AAAA-BBBB-CCCC", *DONE_ALL)
JOINS = tuple(f"http://192.168.1.20:8024/p/seat{seat}-token-Zq8x1vYpQ3" for seat in range(6))


@dataclass(frozen=True)
class CodexPicture:
    """A Codex game after ``actions`` (their text form), its screen at ``stage`` of
    pass-and-play (for the agent at the screen, ``choice`` tapped so far), with the phones'
    join ``links`` shown; ``shows``: the table's screen, or the window."""

    actions: tuple[str, ...]
    stage: str = "table"
    seat: int | None = None
    choice: tuple[str, ...] = ()
    links: tuple[str | None, ...] = ()
    shows: str = "screen"
    extra: dict = field(default_factory=dict)


CODEX_PICTURES = {
    "codex-table-vote": CodexPicture(TO_TRUTH),
    "codex-table-truth": CodexPicture((*TO_TRUTH, "reveal 1 role", "send 0 1 role")),
    "codex-table-over": CodexPicture(WON, "hidden", 5),
    "codex-pass-hidden": CodexPicture(SEND_ALL[:3], "hidden", 2),
    "codex-pass-agent": CodexPicture(TO_TRUTH[:-6], "agent", 2, ("vote", "1")),
    "codex-table-join": CodexPicture((), links=(None, None, *JOINS[2:])),
    "codex-window": CodexPicture((), shows="window"),
}


def draw_codex_picture(picture: CodexPicture, lang: str) -> pygame.Surface:
    from pi_table.cli.codex import WINDOW_KEYS
    from pi_table.engine.codex import Codex
    from pi_table.engine.codex_actions import parse_codex_action
    from pi_table.hal.codex_model import CodexModel
    from pi_table.ui.codex_leds import codex_frame
    from pi_table.ui.codex_screen import draw_codex
    from pi_table.ui.codex_turns import Stage, Turn

    game = Codex()
    state = game.start(game.parse_setup(SETUP))
    for text in picture.actions:
        state = game.apply(state, parse_codex_action(text))
    model = CodexModel(game, state, "game-1", lang=lang, joins=picture.links, **picture.extra)
    turn = Turn(Stage(picture.stage), picture.seat, (state.phase, state.step) if picture.stage == "agent" else None,
                picture.choice)
    if picture.shows == "window":
        frame = codex_frame(game.public_view(state), model.cues, 0.0)
        return _drawn("window", model, frame, None, 0.0, lang, WINDOW_KEYS)
    surface = pygame.Surface((800, 480))
    draw_codex(surface, model, turn)
    return surface


BROWSER_PICTURES = {
    "staff-en.png": "tests/test_a11y.py", "staff-it.png": "tests/test_a11y.py",
    "fleet-en.png": "tests/test_fleet_dashboard.py", "fleet-it.png": "tests/test_fleet_dashboard.py",
    "codex-public-en.png": "tests/test_web_codex.py", "codex-seat-en.png": "tests/test_web_codex.py",
}
"""The pictures of pages, which Chromium draws: each is written by its browser test."""


# --- every picture, written or checked ------------------------------------------------------------


def pictures() -> dict[str, Callable[[], pygame.Surface]]:
    """Each picture's file name under docs/screenshots/, and what draws it."""
    drawn: dict[str, Callable[[], pygame.Surface]] = {}
    for lang in LANGS:
        for stem, grid in GRID_PICTURES.items():
            drawn[f"{stem}-{lang}.png"] = lambda grid=grid, lang=lang: draw_grid_picture(grid, lang)
        for stem, codex in CODEX_PICTURES.items():
            drawn[f"{stem}-{lang}.png"] = lambda codex=codex, lang=lang: draw_codex_picture(codex, lang)
    return dict(sorted(drawn.items()))


def same(surface: pygame.Surface, path: Path) -> bool:
    """Whether the file at ``path`` holds the picture ``surface`` is, pixel for pixel."""
    if not path.is_file():
        return False
    kept = pygame.image.load(str(path))
    return kept.get_size() == surface.get_size() and pygame.image.tobytes(kept, "RGB") == pygame.image.tobytes(surface, "RGB")


def stale(folder: Path = FOLDER) -> list[str]:
    """The pictures under ``folder`` that are not what the code draws now (or are missing)."""
    pygame.font.init()
    return [f"docs/screenshots/{name}" for name, draw in pictures().items() if not same(draw(), folder / name)]


def write(folder: Path = FOLDER) -> list[Path]:
    """Draw every picture into ``folder``; a picture drawn as it was is left as it is."""
    pygame.font.init()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in pictures().items():
        surface = draw()
        if not same(surface, folder / name):
            pygame.image.save(surface, str(folder / name))
            written.append(folder / name)
    return written


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))  # a checkout's pi_table, as tools/docs.py reads it
    parser = argparse.ArgumentParser(prog="tools/screenshots.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a picture is stale")
    args = parser.parse_args(argv)
    if args.check:
        found = stale()
        for name in found:
            print(f"{name} is not what the code draws: run ./dev docs (or python tools/screenshots.py)", file=sys.stderr)
        return 1 if found else 0
    for path in write():
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
