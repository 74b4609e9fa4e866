"""The documentation's pictures of the table's screens and pages, drawn from the code so they
cannot drift from it (issue 53: four Italian pictures still showed words the catalogue had since
fixed, and the pages' pictures were written as a side effect of browser tests, never checked).

``python tools/screenshots.py [PICTURE...]`` writes them (or only those named, such as
staff-en.png) into docs/screenshots/ (``./dev docs`` runs it, with tools/docs.py); ``--check``
writes nothing and exits 1 naming each picture that is not what the code draws now
(tests/test_screenshots.py runs it).

A screen's picture is a game played on virtual time: a grid game's lines played by the scripted
simulator's table (``SimTable``: its screen, its LED frame and its cards' words), a Codex game's
actions applied by its engine and drawn at a stage of pass-and-play; then drawn by the table's
own painters (the spymaster screen, the window, ``pi-table render``) on an offscreen pygame
surface, in each language. Nothing reads a clock, a random source without a seed, or a font
other than pygame's own, so a picture comes out the same, pixel for pixel, however often it is
drawn.

A page's picture is Debian's Chromium showing what a table started as the service starts it
(``pi-table run --config FILE``, simulated devices) serves, on a game its journal holds as the
table would have written it (a fixed key or setup, a fixed id and time), or the fleet's
dashboard fed by the tables' own reporter through a Mosquitto of its own, on a stopped clock. The
browser is given a fixed screen, time zone and clock, and only Debian's DejaVu fonts, unhinted:
on one machine the same code draws the same PNG, byte for byte, run after run. Each such PNG
says what drew it (Chromium's version, the fonts' digest) in a text chunk.

A picture is compared by its pixels, not its file's bytes: two zlib versions may pack the same
picture differently. Another pygame (its bundled FreeType and SDL), another Chromium or other
DejaVu files may draw a glyph a pixel apart: the check then names what drew each, and after such
an upgrade ``./dev docs`` draws the pictures again, and the change is reviewed as pictures.

This file is a tool of a checkout, like tools/docs.py: a Pi never installs it.
"""

from __future__ import annotations

import argparse
import calendar
import functools
import hashlib
import importlib.util
import io
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    from pi_table.ui.mounting import ScreenSettings
    from pi_table.ui.screens import ScreenPainter

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
    from pi_table.ui.codex_leds import codex_lights
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
        frame, _ = codex_lights(game.public_view(state), model.cues, 0.0)
        return _drawn("window", model, frame, None, 0.0, lang, WINDOW_KEYS)
    surface = pygame.Surface((800, 480))
    draw_codex(surface, model, turn)
    return surface


# --- the pages: Chromium's pictures of what the table serves --------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--font-render-hinting=none", "--disable-lcd-text"]
FONTS = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf",
              "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf")
"""Debian's fonts-dejavu-core: the only fonts Chromium is given, whatever else the machine has,
drawn unhinted, so a page's letters fall the same wherever these files and this Chromium are."""
FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>{fonts}</dir>
  <cachedir>{fonts}/cache</cachedir>
  <alias binding="same"><family>system-ui</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias binding="same"><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias binding="same"><family>serif</family><prefer><family>DejaVu Serif</family></prefer></alias>
  <alias binding="same"><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>false</bool></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
  </match>
</fontconfig>
"""
ZONE = "Europe/Rome"
"""The café's time zone, the pages' and the tables' alike."""
BEGAN = calendar.timegm((2026, 11, 21, 18, 30, 0))
"""When the pictures' games began (19:30 in Rome), and the phones' clock."""
GAME_ID = "20261121-183000.000000-d0c5d0"
"""Their id, as the table would have named them then."""
PIN, PASSPHRASE, PASSWORD = "246810", "the-owners-own-words", "café-tables-2026"
PHONE = {"width": 390, "height": 844}

SERVICE = ('[web]\nhost = "127.0.0.1"\nport = 0\n'
           '[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
"""A table's configuration, its pages on a free port of this machine's loopback."""
STAFF_KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
PHONES_SETUP = ("Moon:red:leader:1:K7QM Aleman:blue:hacker:2:X53T Viper:red:infiltrato:3:R8WD "
                "Falco:blue:leader:3:P2HN Nebbia:red:hacker:2:J4ZC Orso:blue:infiltrato:1:F9LB")
"""Red's code is K7QM-J4ZC-R8WD (Moon, Nebbia, Viper, who shows blue); Orso shows red."""
MESSAGES = ("send 0 4 position", "send 4 0 position", "send 2 0 position", "send 1 3 role", "send 3 1 codename",
            "send 5 3 position")
ALL_DONE = tuple(f"done {seat}" for seat in range(6))
PHASE_2 = (*MESSAGES, "block 1 0", "code 2 R8WD-J4ZC-K7QM", *ALL_DONE, "end-discussion",
           *(f"vote {seat} {0 if seat == 5 else 5}" for seat in range(6)), "reveal 5 fragment", *MESSAGES)
"""Aleman blocks Moon, Viper's code is wrong, the vote sends Orso to the truth machine, which
reveals F9LB; phase 2's messages are in, and Moon has seen red's three fragments."""
RED_WINS = (*PHASE_2, "code 0 K7QM-J4ZC-R8WD", *ALL_DONE)
CODEX = '[game]\ngame = "codex"\n'


@dataclass(frozen=True)
class Played:
    """A game as its journal has it: ``rules`` (their JSON), what was dealt (``deal`` reads it
    with the game: a key, Codex's setup) and the actions taken, in their text form."""

    rules: dict
    deal: Callable[[Any], object]
    actions: tuple[str, ...]


def codex_played(actions: tuple[str, ...]) -> Played:
    """The phones' Codex game after ``actions``."""
    return Played({"game": "codex"}, lambda game: game.parse_setup(PHONES_SETUP), actions)


def journaled(folder: Path, played: Played) -> None:
    """Write ``played`` into the journal folder ``folder`` as the table would have, begun at
    ``BEGAN``, an action every ten seconds: the service resumes it as after a power cut."""
    from pi_table.engine.games import kind_of, make_game, rules_from_json
    from pi_table.table import games
    from pi_table.table.journal import STARTED, Header, InPlay, Journal, name_in_play, read_game

    rules = rules_from_json(played.rules)
    game = make_game(rules)
    dealt = games.record(kind_of(rules.game)).deal(game, random.Random(0), None, played.deal(game))
    header = Header(GAME_ID, time.strftime(STARTED, time.gmtime(BEGAN)), rules, dealt.key, dealt.start)
    path = folder / f"{GAME_ID}.jsonl"
    journal = Journal.create(path, header, fsync=False)
    for number, action in enumerate(played.actions, start=1):
        journal.append(action, 10.0 * number)
    journal.close()
    if read_game(path).damage is not None:
        raise ValueError(f"{path.name}: an action is refused: the picture's game no longer plays as written")
    name_in_play(folder, InPlay(GAME_ID))


@contextmanager
def serving(config: str, played: Played, staff: bool = False) -> Iterator[tuple[Path, str]]:
    """A table started as the service starts it (``pi-table run --config FILE``, simulated
    devices) on ``played``, its staff PIN and owner's passphrase set by their commands when
    ``staff``: its journal folder and its pages' address."""
    from pi_table.daemon.control import request
    from pi_table.sim.systemd import FakeSystemd

    with tempfile.TemporaryDirectory(prefix="pi-table-picture-") as name:
        folder = Path(name)
        (folder / "config.toml").write_text(config + SERVICE)
        journaled(folder / "journal", played)
        for command, secret in (("set-staff-pin", PIN), ("set-owner-passphrase", PASSPHRASE)) if staff else ():
            done = subprocess.run([sys.executable, "-m", "pi_table", command, "--config", str(folder / "config.toml")],
                                  input=f"{secret}\n", capture_output=True, text=True, timeout=60, check=False)
            if done.returncode:
                raise RuntimeError(f"pi-table {command}: {done.stderr.strip()}")
        service = FakeSystemd(["--hal", "sim", "--config", str(folder / "config.toml")], log=folder / "daemon.log")
        try:
            service.start(timeout=60)
            yield folder / "journal", request(folder / "control.sock", "status")["companion"]
        finally:
            service.close()


@contextmanager
def phone(browser, lang: str, viewport: dict = PHONE, scale: int = 2, now: float = BEGAN):
    """A page in a browser context of its own: a phone's screen (or ``viewport``) at ``scale``,
    in the café's time zone, its clock stopped at ``now``."""
    context = browser.new_context(viewport=viewport, device_scale_factor=scale, locale=lang, timezone_id=ZONE)
    context.clock.set_fixed_time(now)
    try:
        yield context.new_page()
    finally:
        context.close()


def staff_page(browser, lang: str) -> bytes:
    """The staff page on a phone, logged in, a game under way: the game and the devices."""
    with serving(f'[game]\nlanguage = "{lang}"\n', Played({}, lambda game: game.parse_key(STAFF_KEY), ("touch 0", "touch 9")), staff=True) as (_, base), \
            phone(browser, lang) as page:
        page.goto(f"{base}/staff")
        page.fill("#pin", PIN)
        page.click("#login button")
        for drawn in ("#board .B", "#headline:not(:empty)", "#devices li"):
            page.wait_for_selector(drawn)
        page.evaluate("() => document.getElementById('game-line').closest('section').scrollIntoView()")
        return shot(page)


def codex_seat_page(browser, lang: str) -> bytes:
    """Moon's page in phase 2's private turn, red's code half entered."""
    with serving(CODEX + f'language = "{lang}"\n', codex_played(PHASE_2)) as (journal, base), phone(browser, lang) as page:
        page.goto(seat_link(base, journal, 0))
        for fragment in ("K7QM", "J4ZC"):
            page.locator('form[data-form="code"] button.fragment', has_text=fragment).click()
        page.evaluate("window.scrollTo(0, 0)")
        return shot(page)


def codex_public_page(browser, lang: str) -> bytes:
    """The public page as red wins: Orso, the last agent, ends its private turn on its phone
    (a finished game is not resumed at a start: a new one is dealt)."""
    with serving(CODEX + f'language = "{lang}"\n', codex_played(RED_WINS[:-1])) as (journal, base), \
            phone(browser, lang) as orso, phone(browser, lang) as page:
        orso.goto(seat_link(base, journal, 5))
        orso.locator('form[data-form="done"] button[type=submit]').click()
        page.goto(f"{base}/")
        page.wait_for_selector(".winner.red")
        return shot(page)


def seat_link(base: str, journal: Path, seat: int) -> str:
    """The address of ``seat``'s page, as its QR code on the table's screen gives it."""
    from pi_table.web import Tokens
    from pi_table.web.tokens import seat_role

    return f"{base}/p/{Tokens.kept_in(journal).token(GAME_ID, seat_role(seat))}"


FLEET = {  # each table's board, whether its touch board is unplugged, whether it stays online, its games today
    "bar-1": ("RB?N" + "?" * 21, False, True, ((14.5, "all_agents_found"), (21, "assassin"))),  # (minutes, ending)
    "bar-2": ("?" * 25, True, True, ()),
    "terrace": ("RRB" + "?" * 22, False, True, ((17.2, "all_agents_found"),)),
    "window": ("?" * 24 + "A", False, False, ((18, "assassin"),)),
}


def fleet_page(browser, lang: str) -> bytes:
    """The fleet's dashboard: a café's four tables, reporting through their own reporter to a
    Mosquitto of this picture's own, one of them with a fault, one gone offline."""
    import datetime as dt

    from pi_table.config import broker as broker_config
    from pi_table.daemon.fleet_reports import fleet_warnings
    from pi_table.fleet.broker import LocalBroker
    from pi_table.fleet.dashboard import Dashboard, hash_password
    from pi_table.fleet.reporter import Reporter
    from pi_table.hal.events import NOT_WORKING, not_working

    now = dt.datetime.combine(dt.date.today(), dt.time(19, 30)).timestamp()  # today's: the games it counts are
    with tempfile.TemporaryDirectory(prefix="pi-table-picture-") as name:
        broker = LocalBroker(Path(name))
        broker.start()
        dashboard = Dashboard(broker_config(broker.url), "127.0.0.1", 0, hash_password(PASSWORD), lang,
                              client_id="pi-table-picture", clock=lambda: now)
        tables: list[Reporter] = []
        try:
            dashboard.start()
            _until(dashboard.connected.is_set, "the dashboard's subscription")
            for table_id, (board, unplugged, online, games) in FLEET.items():
                table = Reporter(broker_config(broker.url, table_id=table_id), act=lambda request: {"ok": True},
                                 heartbeat_s=3600)
                tables.append(table)
                table.start()
                _until(table.connected.is_set, f"{table_id}'s connection")
                warned = fleet_warnings((not_working("touch"),) if unplugged else ())  # as its screen says it
                table.offer({"game_id": f"{table_id}-now", "began": now - 600, "uptime_s": 7200.0,
                             "state": {"game": "codenames", "board": board, "phase": "clue", "clue": None,
                                       "winner": "red" if board.endswith("A") else None, "losers": []},
                             "health": {"touch": NOT_WORKING + "unplugged" if unplugged else "ok", "leds": "ok"},
                             "warnings": warned["en"], "warnings_in": warned, "language": "en"})
                for number, (minutes, ending) in enumerate(games):
                    table.event({"event": "game_over", "game_id": f"{table_id}-{number}", "game": "codenames",
                                 "winner": "red", "duration_s": minutes * 60, "termination": ending})
            _until(lambda: [(row["game_id"], row["games_today"]) for row in dashboard.fleet.rows()]
                   == [(f"{table_id}-now", len(games)) for table_id, (*_, games) in FLEET.items()], "every report")
            for table, (_, _, online, _) in zip(tables, FLEET.values()):
                if not online:
                    table.stop()  # its last word: offline
            _until(lambda: [row["online"] for row in dashboard.fleet.rows()] == [online for _, _, online, _ in FLEET.values()],
                   "the tables gone offline")
            with phone(browser, lang, {"width": 1100, "height": 300}, 1, now) as page:  # a desk's screen
                page.goto(f"{dashboard.url}/login")
                page.fill("input[name=password]", PASSWORD)
                page.click("button")
                page.wait_for_selector(f"#rows tr:nth-child({len(FLEET)})")
                return shot(page, whole=True)
        finally:
            for table in tables:
                table.stop()
            dashboard.stop()
            broker.stop()


def _until(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not seen within {timeout:g} s")
        time.sleep(0.02)


def shot(page, whole: bool = False) -> bytes:
    """What the screen shows (or the ``whole`` page) once the page stands still: shot again
    until two shots in a row are the same, as Playwright's own picture assertion waits; no
    animation, no caret."""
    last = None
    for _ in range(40):
        png = page.screenshot(animations="disabled", caret="hide", full_page=whole)
        if png == last:
            return png
        last = png
        page.wait_for_timeout(250)
    raise TimeoutError("the page kept changing for 10 s: nothing still to draw")


PAGES: dict[str, Callable[..., bytes]] = {
    "staff-en.png": lambda browser: staff_page(browser, "en"),
    "staff-it.png": lambda browser: staff_page(browser, "it"),
    "fleet-en.png": lambda browser: fleet_page(browser, "en"),
    "fleet-it.png": lambda browser: fleet_page(browser, "it"),
    **{f"codex-seat-{lang}.png": functools.partial(codex_seat_page, lang=lang) for lang in LANGS},
    **{f"codex-public-{lang}.png": functools.partial(codex_public_page, lang=lang) for lang in LANGS},
}
"""The pictures of pages, and what draws each, given Chromium."""


def missing_for_pages(names: Iterable[str]) -> list[str]:
    """What this machine lacks to draw the pages ``names``, each with where it comes from."""
    from pi_table.fleet.broker import mosquitto

    missing = [] if Path(CHROMIUM).is_file() else ["Chromium (Debian: apt install chromium)"]
    missing += [] if importlib.util.find_spec("playwright") else ["Playwright (pip install -e '.[docs]')"]
    missing += [] if all((FONTS / font).is_file() for font in FONT_FILES) else ["DejaVu (Debian: apt install fonts-dejavu-core)"]
    if mosquitto() is None and any(name.startswith("fleet-") for name in names):
        missing.append("Mosquitto (Debian: apt install mosquitto)")
    return missing


def draw_pages(names: Iterable[str]) -> Iterator[tuple[str, bytes, str]]:
    """Each of the pages ``names``, drawn by Chromium from the code as it is: its name, its
    PNG, and what drew it (Chromium's version and the fonts')."""
    from playwright.sync_api import sync_playwright

    os.environ["TZ"] = ZONE  # the tables' clock reads the café's hours, as the phones' does
    time.tzset()
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])  # the tables run this pi_table
    fonts = hashlib.sha256(b"".join((FONTS / font).read_bytes() for font in FONT_FILES)).hexdigest()[:12]
    with tempfile.TemporaryDirectory(prefix="pi-table-fonts-") as name, sync_playwright() as playwright:
        folder = Path(name)
        for font in FONT_FILES:
            (folder / font).symlink_to(FONTS / font)
        (folder / "fonts.conf").write_text(FONTS_CONF.format(fonts=folder))
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                             env={**os.environ, "FONTCONFIG_FILE": str(folder / "fonts.conf")})
        try:
            renderer = f"Chromium {browser.version}, DejaVu {fonts}"
            for picture in names:
                yield picture, PAGES[picture](browser), renderer
        finally:
            browser.close()


def signed(png: bytes, renderer: str) -> bytes:
    """``png`` with a text chunk saying what drew it (``renderer``), after its header."""
    text = b"Software\0" + renderer.encode("latin-1")
    end = 8 + 4 + 4 + 13 + 4  # the signature, then the header's length, type, fields and checksum
    return png[:end] + struct.pack(">I", len(text)) + b"tEXt" + text + struct.pack(">I", zlib.crc32(b"tEXt" + text)) + png[end:]


def drawn_by(png: bytes) -> str | None:
    """What drew the picture ``png``, as its text chunk says (None: it does not say)."""
    at = 8
    while at + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        keyword, _, text = png[at + 8:at + 8 + length].partition(b"\0")
        if kind == b"tEXt" and keyword == b"Software":
            return text.decode("latin-1")
        at += 12 + length
    return None

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


def drawn(names: Iterable[str]) -> Iterator[tuple[str, pygame.Surface, bytes | None, str | None]]:
    """Each picture of ``names`` as the code draws it now: its name, its pixels and, for a page,
    its PNG as Chromium wrote it and what drew it."""
    pygame.font.init()
    screens, names = pictures(), list(names)
    for name in names:
        if name in screens:
            yield name, screens[name](), None, None
    if pages := [name for name in names if name in PAGES]:
        for name, png, renderer in draw_pages(pages):
            yield name, pygame.image.load(io.BytesIO(png), "page.png"), png, renderer


def same(surface: pygame.Surface, path: Path) -> bool:
    """Whether the file at ``path`` holds the picture ``surface`` is, pixel for pixel."""
    if not path.is_file():
        return False
    kept = pygame.image.load(str(path))
    return kept.get_size() == surface.get_size() and pygame.image.tobytes(kept, "RGB") == pygame.image.tobytes(surface, "RGB")


def stale(names: Iterable[str], folder: Path = FOLDER) -> list[str]:
    """The pictures of ``names`` under ``folder`` that are not what the code draws now (or are
    missing); for a page, what drew the one kept and what drew it here, when they differ."""
    found = []
    for name, surface, _, renderer in drawn(names):
        if not same(surface, folder / name):
            kept = drawn_by((folder / name).read_bytes()) if (folder / name).is_file() else None
            found.append(f"docs/screenshots/{name} is not what the code draws now" + (
                f" (it was drawn by {kept}, here by {renderer}: the difference may be theirs)" if kept not in (None, renderer) else ""))
    return found


def write(names: Iterable[str], folder: Path = FOLDER) -> list[Path]:
    """Draw the pictures of ``names`` into ``folder``; a picture drawn as it was is left as it is."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, surface, png, renderer in drawn(names):
        if not same(surface, folder / name):
            if png is None:
                pygame.image.save(surface, str(folder / name))
            else:
                (folder / name).write_bytes(signed(png, renderer or ""))
            written.append(folder / name)
    return written


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))  # a checkout's pi_table, as tools/docs.py reads it
    every = [*pictures(), *PAGES]
    parser = argparse.ArgumentParser(prog="tools/screenshots.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="PICTURE", help="only these pictures (file names, such as staff-en.png)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a picture is stale")
    args = parser.parse_args(argv)
    if unknown := [name for name in args.names if name not in every]:
        parser.error(f"no picture is named {', '.join(unknown)}: they are {', '.join(every)}")
    names = args.names or every
    pages = [name for name in names if name in PAGES]
    if lacking := missing_for_pages(pages) if pages else []:
        print(f"tools/screenshots.py: {', '.join(pages)} not {'checked' if args.check else 'drawn'}: "
              f"this machine lacks {', '.join(lacking)}", file=sys.stderr)
        names = [name for name in names if name not in PAGES]
    if args.check:
        found = stale(names)
        for why in found:
            print(f"{why}: run ./dev docs (or python tools/screenshots.py)", file=sys.stderr)
        return 1 if found or lacking else 0
    for path in write(names):
        print(path.relative_to(ROOT))
    return 1 if lacking else 0


if __name__ == "__main__":
    sys.exit(main())
