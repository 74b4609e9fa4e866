"""The spymaster screen: every game state drawn in both languages, taps, rotation, the catalogue,
and the pygame backend on SDL's dummy video driver. The documentation's pictures of it are
drawn by tools/screenshots.py (tests/test_screenshots.py)."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: before pygame is imported
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import itertools
import queue
import random
import re
import threading
import time
from dataclasses import replace

import pygame
import pytest

from pi_table.drivers.pygame_screen import PygameScreen, ScreenNotOpen
from pi_table.drivers.touchboard import DISCONNECTED
from pi_table.engine import (
    CELLS,
    UNLIMITED,
    Clue,
    Cover,
    EndTurn,
    GameRecord,
    Guess,
    InvalidAction,
    Penalty,
    Place,
    RuleError,
    Rules,
    TimeUp,
    Undo,
    make_game,
)
from pi_table.engine.phrase import Phrase
from pi_table.hal import Cues, NewGame, ScreenModel, TimerState, UiEvent
from pi_table.sim.harness import ManualClock
from pi_table.table.input import WIPE_WARNING
from pi_table.ui import canvas, i18n, messages, orientation
from pi_table.ui.canvas import CARD, DECOY
from pi_table.ui.mounting import ROTATIONS
from pi_table.ui.screen import GridPainter, Mode, ScreenSettings, draw, render_png
from pi_table.ui.screens import ScreenPainter

from helpers import record_untranslated, wait_for
from helpers_games import played, with_drawn_key

# Marked arm64, each: what draws through pygame, which on the Pi is Debian's (2.1.2, with its SDL,
# SDL_ttf and FreeType: another font's metrics may crowd a label). The scenes', the catalogue's
# and the rotations' own checks are pure Python: they run on this machine alone.
ON_THE_PIS_PYGAME = pytest.mark.arm64

# Blue starts (9 B). Blue 1 3 4 14 15 18 20 21 24; red 0 6 8 10 12 13 17 23; bystanders
# 2 7 9 11 16 19 22; the assassin 5.
KEY = "RBNBBARNRNRNRRBBNRBNBBNRB"
# Alias 24, dark cell 12: red holds 8 assets (0 5 7 8 10 15 17 23) and starts, targeting blue's
# 9 (2 6 9 11 14 18 20 21 24); decoys 1 3 13 16 19 22; the nuke 4.
ALIAS_KEY = "RNBNARBRRBRB.NBRNRBNBBNRB"
BLUE_AGENTS = (1, 3, 4, 14, 15, 18, 20, 21, 24)
LANGS = ("en", "it")


def view(rules: Rules, key: str, actions: tuple[str, ...] = ()):
    """The spymaster view after playing ``actions`` (their text form) on ``key``."""
    game = make_game(rules)
    return game.spymaster_view(played(game, game.parse_key(key), actions))


CODENAMES, COOP = Rules(), Rules(game="codenames-coop")
MAD, BASIC = Rules(game="alias24", nuke="mad"), Rules(game="alias24")
TIMER = TimerState(length_s=90, remaining_s=47.4, warn_s=10, enforced=False, running=True)
MAD_ARMED = (
    "clue unlimited", "touch 2", "touch 6", "touch 9", "touch 11", "touch 1",  # red: 4 blue assets, a decoy
    "clue unlimited", "touch 0", "touch 5", "touch 7", "touch 3",  # blue: 3 red assets, a decoy
    "clue unlimited", "touch 14", "touch 18", "touch 13",
    "clue unlimited", "touch 8", "touch 16",  # 14 targeted: the nuke is armed, red's clue
)
COOP_WIN = (
    "clue 2", "touch 1", "touch 3", "touch 4", "cover 0",  # the plus-one guess ends the turn; a cover
    "clue 3", "touch 14", "touch 15", "touch 6", "cover 8",  # an opponent agent touched: turn over
    "clue unlimited", "touch 18", "touch 20", "touch 21", "touch 24",  # score 5
)
IN_PLAY = ("clue 2", "touch 1", "touch 3", "touch 2", "clue 3", "touch 0", "touch 6", "touch 9", "clue 2", "touch 14")

LINK = "http://192.168.1.20:8024/p/3q2-7wVZb8lQ1eXo0pEw_A"
SCENES = {
    "codenames clue": (CODENAMES, KEY, (), {}),
    "codenames clue, dial and refusal": (
        CODENAMES, KEY, ("clue 1", "touch 1"), {"dial": 3, "message": Phrase.of("card {cell} is already revealed", cell=1)}
    ),
    "codenames clue, dial unlimited": (CODENAMES, KEY, (), {"dial": UNLIMITED}),
    "codenames clue required": (Rules(clue_required=True), KEY, (), {}),
    "codenames guess": (CODENAMES, KEY, IN_PLAY, {"cues": Cues(pending=frozenset({15}), timer=TIMER)}),
    "codenames guess, no number": (CODENAMES, KEY, ("touch 1",), {}),
    "codenames guess, unlimited": (CODENAMES, KEY, ("clue unlimited", "touch 1"), {}),
    "codenames penalty cover": (CODENAMES, KEY, ("penalty",), {}),
    "codenames over, assassin": (CODENAMES, KEY, ("touch 5",), {}),
    "codenames over, all found": (CODENAMES, KEY, ("clue unlimited",) + tuple(f"touch {c}" for c in BLUE_AGENTS), {}),
    "codenames over, covered win": (CODENAMES, KEY, ("penalty",), {}),  # replaced below: a long game
    "codenames three-player": (Rules(three_player=True), KEY, ("clue 0", "touch 1"), {}),
    "codenames warnings and timer": (
        CODENAMES, KEY, ("clue 2",),
        {"cues": Cues(warnings=(DISCONNECTED, WIPE_WARNING), timer=TimerState(60, 6.2, 10, True, True))},
    ),
    "codenames timer expired": (CODENAMES, KEY, (), {"cues": Cues(timer=TimerState(60, 0, 10, True, True))}),
    "deep undercover placing": (
        Rules(setup="place"), KEY, tuple(f"place {c}" for c in range(7)), {"cues": Cues(pending=frozenset({7}))}
    ),
    "deep undercover last card": (Rules(setup="place"), KEY, tuple(f"place {c}" for c in range(24)), {}),
    "coop clue": (COOP, KEY, (), {}),
    "coop cover": (COOP, KEY, ("clue 1", "touch 1", "touch 2"), {}),
    "coop score": (COOP, KEY, COOP_WIN, {}),
    "coop lost": (COOP, KEY, ("touch 5",), {}),
    "alias24 clue": (BASIC, ALIAS_KEY, (), {}),
    "alias24 guess": (BASIC, ALIAS_KEY, ("clue 3", "touch 2"), {}),
    "alias24 nuke": (BASIC, ALIAS_KEY, ("touch 4",), {}),
    "alias24 mad not armed": (MAD, ALIAS_KEY, ("clue 2", "touch 2"), {}),
    "alias24 mad armed": (MAD, ALIAS_KEY, MAD_ARMED, {}),
    "alias24 mad both lose": (MAD, ALIAS_KEY, MAD_ARMED + ("touch 4",), {}),
    "alias24 placing": (Rules(game="alias24", setup="place"), ALIAS_KEY, ("place 0",), {}),
    "codenames with the companion": (CODENAMES, KEY, ("clue 2",), {"join": LINK}),
    "codenames with the companion and timer": (
        CODENAMES, KEY, (), {"join": LINK, "cues": Cues(timer=TimerState(60, 42, 10, True, True))}
    ),
}
# Red wins by its cover: after blue's penalty red covers its last agent.
SCENES["codenames over, covered win"] = (
    CODENAMES, KEY,
    ("clue unlimited", "touch 1", "touch 0", "clue unlimited") + tuple(f"touch {c}" for c in (6, 8, 10, 12, 13, 17))
    + ("touch 2", "penalty", "cover 23"),
    {},
)


def model(name: str, lang: str = "en") -> ScreenModel:
    rules, key, actions, extra = SCENES[name]
    return ScreenModel(view(rules, key, actions), "game-1", lang=lang, **extra)


def surface(size=(800, 480)) -> pygame.Surface:
    return pygame.Surface(size)


def centre(rect) -> tuple[int, int]:
    x, y, w, h = rect
    return x + w // 2, y + h // 2


def tap_for(frame: canvas.Frame, wanted) -> tuple[int, int]:
    """Where to tap for a command, or for a mode switch."""
    hits = [tap for tap in frame.taps if wanted in (tap.command, tap.mode)]
    assert len(hits) == 1, f"{wanted} has {len(hits)} tap regions"
    return centre(hits[0].rect)


# --- every state, both languages -------------------------------------------------------------


@ON_THE_PIS_PYGAME
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("mode", list(Mode))
def test_every_state_draws_with_finger_sized_taps_that_do_not_overlap(name, lang, mode):
    frame = draw(surface(), model(name, lang), now=0.0, mode=mode)
    assert frame.texts
    rects = [pygame.Rect(tap.rect) for tap in frame.taps]
    for rect in rects:
        assert min(rect.w, rect.h) >= 60, f"{rect} is smaller than a finger"
        assert pygame.Rect(0, 0, 800, 480).contains(rect)
    for a, b in itertools.combinations(rects, 2):
        assert not a.colliderect(b), f"{a} overlaps {b}"


def test_the_scenes_reach_the_states_they_are_named_for():
    phases = {name: model(name).view.table for name in SCENES}
    assert phases["codenames guess"].phase == "guess" and phases["codenames guess"].guesses_left == 2
    assert phases["codenames penalty cover"].phase == "cover"
    assert str(phases["codenames over, covered win"].reason) == "red has all its agents covered"
    assert phases["coop score"].score == 5
    assert phases["coop lost"].winner is not None and phases["coop lost"].score is None
    assert phases["alias24 mad armed"].armed is True and phases["alias24 mad armed"].phase == "clue"
    assert phases["alias24 mad both lose"].winner is None and len(phases["alias24 mad both lose"].losers) == 2
    assert phases["deep undercover placing"].placing == 7
    assert phases["deep undercover last card"].placing == 24


@ON_THE_PIS_PYGAME
def test_the_words_follow_the_game_and_the_language():
    def texts(name, lang):
        return " | ".join(draw(surface(), model(name, lang)).texts)

    assert "Blue spymaster: give a clue" in texts("codenames clue", "en")
    assert "Capo dell'agenzia blu: dai un indizio" in texts("codenames clue", "it")
    assert "The operative guesses for blue" in texts("codenames three-player", "en")
    assert "L'agente operativo prova a indovinare per la squadra blu" in texts("codenames three-player", "it")
    assert "Red mastermind: give a clue" in texts("alias24 clue", "en")
    assert "ARMED" in texts("alias24 mad armed", "en") and "INNESCATA" in texts("alias24 mad armed", "it")
    assert "1/13" in texts("alias24 mad not armed", "en")  # one alias targeted of the 13 that arm it
    assert "“Expect a call from the CIA soon.”" in texts("coop score", "en")
    assert "“Verrete presto contattati dalla CIA.”" in texts("coop score", "it")
    assert "La squadra blu ha toccato l'assassino" in texts("codenames over, assassin", "it")
    assert "VINCE LA SQUADRA ROSSA" in texts("codenames over, assassin", "it")
    assert "Setup: blue places the next codename" in texts("deep undercover placing", "en")
    assert "La carta 1 è già coperta" in texts("codenames clue, dial and refusal", "it")
    refused = texts("codenames clue, dial and refusal", "en")  # the refusal takes the dial's line
    assert "Card 1 is already revealed" in refused and "Dial set to 3" not in refused
    assert "Dial set to unlimited: push it to enter, or tap a number" in texts("codenames clue, dial unlimited", "en")
    banner = texts("codenames warnings and timer", "it")
    assert ("Scheda touch scollegata: controlla il cavo USB tra la scheda touch e il Pi; la partita aspetta · "
            "Pulite il tavolo: più carte sono toccate insieme") in banner
    assert "0:07" in banner


@ON_THE_PIS_PYGAME
def test_a_running_timer_counts_down_from_when_the_model_was_made():
    m = model("codenames guess")
    assert "0:48" in draw(surface(), m, now=100.0, since=100.0).texts
    assert "0:45" in draw(surface(), m, now=102.5, since=100.0).texts
    assert "0:48" in draw(surface(), m, now=102.5).texts  # no since: as the model says


@ON_THE_PIS_PYGAME
def test_a_card_the_board_cannot_hear_is_ringed_in_amber_on_the_key():
    """Issue 51: the spymasters see which cards a touch cannot reach, and the warning says why."""
    deaf = ScreenModel(view(CODENAMES, KEY, IN_PLAY), "game-1", cues=Cues(deaf=frozenset({12, 1})))
    image, bare = surface(), surface()
    frame = draw(image, deaf)
    draw(bare, ScreenModel(view(CODENAMES, KEY, IN_PLAY), "game-1"))
    x, y, w, _h = frame.cells[12]
    assert image.get_at((x + w // 2, y - 2))[:3] == canvas.AMBER and bare.get_at((x + w // 2, y - 2))[:3] == canvas.BACKGROUND
    x, y, w, _h = frame.cells[1]
    assert image.get_at((x + w // 2, y - 2))[:3] == canvas.BACKGROUND  # revealed already: nothing to mark


@ON_THE_PIS_PYGAME
def test_the_pending_touch_and_the_revealed_cards_are_marked_on_the_key():
    m = model("codenames guess")
    image = surface()
    frame = draw(image, m)
    bare = surface()
    draw(bare, ScreenModel(view(CODENAMES, KEY), "game-1"))
    x, y, w, h = frame.cells[15]
    assert image.get_at((x + w // 2, y - 2))[:3] == canvas.TEXT  # the ring around a touched card
    assert bare.get_at((x + w // 2, y - 2))[:3] == canvas.BACKGROUND
    x, y, w, h = frame.cells[1]  # revealed: dimmed
    assert image.get_at((x + w - 8, y + h - 8))[:3] == canvas.mix(CARD["B"], canvas.BACKGROUND, 0.62)


# --- taps ------------------------------------------------------------------------------------


def painted(name: str, rotation: int = 180) -> tuple[GridPainter, pygame.Surface, ScreenModel]:
    """The grid games' painter that has drawn the scene ``name``, its surface and the model."""
    painter, image, m = GridPainter(ScreenSettings(rotation)), surface(), model(name)
    painter.draw(image, m, 0.0)
    return painter, image, m


@ON_THE_PIS_PYGAME
def test_number_buttons_enter_the_clue_number():
    painter, *_ = painted("codenames clue")
    for n in range(10):
        assert painter.tap(tap_for(painter.frame, Clue(n))) == Clue(n)
    assert painter.tap(tap_for(painter.frame, Clue(UNLIMITED))) == Clue("unlimited")


@ON_THE_PIS_PYGAME
def test_penalty_and_undo():
    painter, *_ = painted("codenames clue")
    assert painter.tap(tap_for(painter.frame, Penalty())) == Penalty()
    assert painter.tap(tap_for(painter.frame, Undo())) == Undo()
    painter, *_ = painted("codenames guess")  # a guess made: the clue stands
    assert not any(tap.command == Penalty() for tap in painter.frame.taps)


@ON_THE_PIS_PYGAME
def test_new_game_asks_which_game_and_can_go_back():
    painter, image, m = painted("codenames clue")
    assert painter.tap(tap_for(painter.frame, Mode.NEW_GAME)) is None
    painter.draw(image, m, 0.0)
    assert painter.tap(tap_for(painter.frame, NewGame())) == NewGame()
    painter.draw(image, m, 0.0)
    assert painter.mode is Mode.PLAY and not any(tap.command == NewGame() for tap in painter.frame.taps)
    painter.tap(tap_for(painter.frame, Mode.NEW_GAME))
    painter.draw(image, m, 0.0)
    assert painter.tap(tap_for(painter.frame, NewGame("alias24"))) == NewGame("alias24")
    painter.draw(image, m, 0.0)
    painter.tap(tap_for(painter.frame, Mode.NEW_GAME))
    painter.draw(image, m, 0.0)
    back = [tap for tap in painter.frame.taps if tap.mode is Mode.PLAY]
    assert len(back) == 2  # BACK, and NEW GAME again
    assert painter.tap(centre(back[0].rect)) is None and painter.mode is Mode.PLAY


@ON_THE_PIS_PYGAME
def test_phone_shows_a_qr_code_that_reads_as_the_spymaster_link(tmp_path):
    zxingcpp = pytest.importorskip("zxingcpp")
    painter, image, m = painted("codenames with the companion")
    assert not any(tap.mode is Mode.PHONE for tap in painted("codenames clue")[0].frame.taps)  # no companion
    assert painter.tap(tap_for(painter.frame, Mode.PHONE)) is None
    painter.draw(image, m, 0.0)
    pygame.image.save(image, str(tmp_path / "phone.png"))
    pixels = pygame.surfarray.array3d(image).swapaxes(0, 1).copy()  # rows first, as images are
    assert [code.text for code in zxingcpp.read_barcodes(pixels)] == [LINK]
    painter.tap(tap_for(painter.frame, Mode.PLAY))  # PHONE again: back to the game
    painter.draw(image, m, 0.0)
    assert painter.mode is Mode.PLAY and not zxingcpp.read_barcodes(pygame.surfarray.array3d(image).swapaxes(0, 1).copy())


@ON_THE_PIS_PYGAME
def test_a_tap_between_buttons_does_nothing():
    painter, *_ = painted("codenames clue")
    assert painter.tap((3, 3)) is None
    assert painter.tap((799, 479)) is None


def screen_slot(frame: canvas.Frame, cell: int) -> tuple[int, int]:
    """(row, column) on the screen of a key cell, from where it was drawn."""
    xs = sorted({x for x, _, _, _ in frame.cells})
    ys = sorted({y for _, y, _, _ in frame.cells})
    x, y, _, _ = frame.cells[cell]
    return ys.index(y), xs.index(x)


@ON_THE_PIS_PYGAME
@pytest.mark.parametrize("rotation", ROTATIONS)
def test_cover_mode_then_a_card_covers_the_cell_under_the_finger(rotation):
    painter, image, m = painted("codenames penalty cover", rotation)
    assert not any(isinstance(tap.command, Cover) for tap in painter.frame.taps)  # not before COVER
    assert painter.tap(tap_for(painter.frame, Mode.COVER)) is None
    painter.draw(image, m, 0.0)
    for cell in range(CELLS):
        row, col = orientation.slot_of(cell, rotation)
        assert screen_slot(painter.frame, cell) == (row, col)
    top_left = painter.frame.cells[orientation.cell_at(0, 0, rotation)]
    expected = {0: 20, 90: 0, 180: 4, 270: 24}[rotation]  # the corner each turn puts at the top left
    assert painter.tap(centre(top_left)) == Cover(expected)
    assert painter.mode is Mode.PLAY


@ON_THE_PIS_PYGAME
def test_cover_mode_ends_when_the_game_moves_on():
    painter, image, _ = painted("codenames penalty cover")
    painter.tap(tap_for(painter.frame, Mode.COVER))
    painter.draw(image, model("codenames clue"), 0.0)
    assert painter.mode is Mode.PLAY


@ON_THE_PIS_PYGAME
def test_the_coop_cover_phase_takes_the_card_directly():
    painter, _, m = painted("coop cover")
    assert m.view.table.phase == "cover"
    last = painter.frame.cells[24]  # the operatives' last card: the bottom left, from the spymasters' side
    assert painter.tap(centre(last)) == Cover(24)


@ON_THE_PIS_PYGAME
def test_deep_undercover_the_lit_cell_or_done_places_the_card():
    painter, *_ = painted("deep undercover placing")
    places = [tap for tap in painter.frame.taps if tap.command == Place(7)]
    assert len(places) == 2  # the cell and DONE
    assert all(painter.tap(centre(tap.rect)) == Place(7) for tap in places)
    assert painter.tap(centre(painter.frame.cells[8])) is None


# --- rotation --------------------------------------------------------------------------------


def test_slot_and_cell_are_inverse_for_every_rotation():
    for rotation in ROTATIONS:
        slots = sorted(orientation.slot_of(cell, rotation) for cell in range(CELLS))
        assert slots == [(r, c) for r in range(5) for c in range(5)]
        assert all(orientation.cell_at(*orientation.slot_of(cell, rotation), rotation) == cell for cell in range(CELLS))
    # cell 0 is at the operatives' left in the row nearest them (hardware/pinout.toml): seen from
    # their side at the bottom left, from the spymasters' at the top right, from either side's seat
    # at the operatives' right (90) or left (270) at that seat's far left or near right
    assert [orientation.slot_of(0, rotation) for rotation in ROTATIONS] == [(4, 0), (0, 0), (0, 4), (4, 4)]


def test_a_bad_rotation_is_refused():
    with pytest.raises(ValueError, match="rotation"):
        ScreenSettings(rotation=45)


@ON_THE_PIS_PYGAME
@pytest.mark.parametrize("rotation", [0, 180])
def test_the_key_is_drawn_turned_for_the_spymasters(rotation):
    """Sample each drawn cell's colour, row by row from the top left: at 0 (the operatives' view)
    row 4 comes first and row 0 last, each from cell 0's side; at 180 (the spymasters') row 0 comes
    first, each row from its far end."""
    image = surface()
    frame = draw(image, ScreenModel(view(CODENAMES, KEY), "game-1"), settings=ScreenSettings(rotation))
    seen = ""
    for row, col in itertools.product(range(5), range(5)):
        (x, y, w, h) = next(rect for cell, rect in enumerate(frame.cells) if screen_slot(frame, cell) == (row, col))
        colour = tuple(image.get_at((x + w * 7 // 8, y + h * 7 // 8)))[:3]
        seen += next(letter for letter, rgb in CARD.items() if rgb == colour)
    rows = [KEY[start:start + 5] for start in range(0, CELLS, 5)]
    assert seen == ("".join(reversed(rows)) if rotation == 0 else "".join(row[::-1] for row in rows))


def bar_box(image: pygame.Surface, left_of: int) -> pygame.Rect:
    """Where the operatives' bar is drawn: the box of its colour's pixels left of ``left_of``."""
    mask = pygame.mask.from_threshold(image.subsurface((0, 0, left_of, image.get_height())), canvas.EDGE_FILL,
                                      (1, 1, 1, 255))
    first, *rest = mask.get_bounding_rects()  # the bar, cut by its label's letters
    return first.unionall(rest)


@ON_THE_PIS_PYGAME
@pytest.mark.parametrize("rotation", ROTATIONS)
def test_the_key_marks_the_operatives_edge_and_puts_cell_0_where_the_rule_says(rotation, tmp_path):
    """From the spymasters' side (180) cell 0, the operatives' left in the row nearest them, is at
    the top right and the bar naming the operatives' side runs along the top; each turn moves both."""
    image = surface()
    frame = draw(image, model("codenames guess"), settings=ScreenSettings(rotation))
    pygame.image.save(image, str(tmp_path / f"key-{rotation}.png"))
    corner = {0: (4, 0), 90: (0, 0), 180: (0, 4), 270: (4, 4)}[rotation]
    assert screen_slot(frame, 0) == corner and screen_slot(frame, 24) == (4 - corner[0], 4 - corner[1])
    xs = [x for x, _, _, _ in frame.cells] + [x + w for x, _, w, _ in frame.cells]
    ys = [y for _, y, _, _ in frame.cells] + [y + h for _, y, _, h in frame.cells]
    bar = bar_box(image, max(xs) + 40)
    edge = {"top": bar.bottom <= min(ys), "bottom": bar.top >= max(ys), "left": bar.right <= min(xs),
            "right": bar.left >= max(xs)}
    assert [side for side, beyond in edge.items() if beyond] == [orientation.operatives_edge(rotation)]
    assert "operatives' side" in frame.texts


@ON_THE_PIS_PYGAME
def test_the_key_carries_a_simulated_tables_words_and_a_real_ones_none():
    words = tuple(f"word{cell}" for cell in range(CELLS))
    plain, worded = surface(), surface()
    bare = draw(plain, model("codenames guess"))
    frame = draw(worded, replace(model("codenames guess"), words=words))
    assert not set(words) & set(bare.texts) and set(words) <= set(frame.texts)
    assert pygame.image.tostring(plain, "RGB") != pygame.image.tostring(worded, "RGB")  # tobytes is 2.1.3's; the Pi's is 2.1.2
    alias = draw(surface(), replace(model("alias24 clue"), words=words))
    assert "word12" not in alias.texts  # the dark cell has no card, so no word


@ON_THE_PIS_PYGAME
def test_alias24_decoys_are_grey_and_the_dark_cell_is_empty():
    image = surface()
    frame = draw(image, ScreenModel(view(BASIC, ALIAS_KEY), "game-1"), settings=ScreenSettings(0))
    x, y, w, h = frame.cells[1]
    assert tuple(image.get_at((x + w * 7 // 8, y + h * 7 // 8)))[:3] == DECOY
    x, y, w, h = frame.cells[12]
    assert tuple(image.get_at((x + w // 2, y + h // 2)))[:3] == canvas.BACKGROUND


@ON_THE_PIS_PYGAME
def test_the_layout_scales_to_other_panels():
    for size in ((1024, 600), (1280, 720), (720, 720)):
        frame = draw(surface(size), model("codenames clue"))
        rects = [pygame.Rect(tap.rect) for tap in frame.taps]
        assert all(pygame.Rect((0, 0), size).contains(rect) for rect in rects)
        assert not any(a.colliderect(b) for a, b in itertools.combinations(rects, 2))


@ON_THE_PIS_PYGAME
def test_render_png_writes_the_picture(tmp_path):
    path = tmp_path / "screen.png"
    render_png(model("coop score", "it"), path, size=(1024, 600))
    assert pygame.image.load(str(path)).get_size() == (1024, 600)


# --- the catalogue ---------------------------------------------------------------------------

FIELD = re.compile(r"\{(\w+)(?::\w+|!r)?\}")


def catalogue() -> dict[str, str]:
    path = messages.po_path("it")
    return messages.parse_po(path.read_text(encoding="utf-8"), str(path))


def test_translations_keep_the_placeholders():
    for msgid, msgstr in catalogue().items():
        assert set(FIELD.findall(msgid)) == set(FIELD.findall(msgstr)), msgid


@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("mode", list(Mode))
def test_italian_screens_show_no_untranslated_msgid(name, mode, monkeypatch):
    """Every lookup made while drawing in Italian finds its entry in the compiled catalogue."""
    missed = record_untranslated(monkeypatch, "pi_table.ui.canvas.translation")
    draw(surface(), model(name, "it"), mode=mode)
    assert missed == []


def engine_sentences() -> set[Phrase]:
    """Every refusal the engine gives to what the table can send it, over random games of every
    variant, and every reason a game ended."""
    variants = [
        CODENAMES, Rules(three_player=True), Rules(clue_required=True), Rules(setup="place"),
        Rules(setup="place", three_player=True), COOP, BASIC, MAD, Rules(game="alias24", setup="place"),
    ]
    probes = [Clue(2), Clue(UNLIMITED), EndTurn(), Penalty(), TimeUp()] + [
        kind(cell) for kind in (Guess, Cover, Place) for cell in range(CELLS)
    ]
    found = set()
    for rules, seed in itertools.product(variants, range(12)):
        rng = random.Random(seed)
        game = make_game(rules)
        key = game.deal(rng)
        state = played(game, key)
        while True:
            for action in probes:  # the session gives the last placement its key
                try:
                    game.apply(state, with_drawn_key(game, state, action, key))
                except (RuleError, InvalidAction) as refusal:
                    found.add(refusal.phrase)
            if state.phase == "over":
                assert state.reason is not None
                found.add(state.reason)
                break
            state = game.apply(state, with_drawn_key(game, state, rng.choice(game.legal_actions(state)), key))
    record = GameRecord(make_game(CODENAMES), make_game(CODENAMES).parse_key(KEY))
    with pytest.raises(RuleError) as nothing:
        record.apply(Undo())
    found.add(nothing.value.phrase)
    return found


def templates(phrase: Phrase) -> set[str]:
    """A phrase's template and those of the phrases inside it."""
    inside = (value for _, value in phrase.fields)
    return {phrase.template}.union(*(templates(value) for value in inside if isinstance(value, Phrase)))


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_every_engine_refusal_and_reason_is_translated():
    sentences = engine_sentences()
    met = set().union(*map(templates, sentences))
    assert len(met) > 35  # most of the grid games' templates: the rest answer actions the table never sends
    assert sorted(met - catalogue().keys()) == []
    assert all(i18n.say(phrase, "en") == str(phrase) for phrase in sentences)  # English reads back exactly
    assert all(i18n.say(phrase, "it") != str(phrase) for phrase in sentences)


def test_device_warnings_and_plain_strings():
    stuck = Phrase.of("the pad under card {cell} is stuck: wipe it; it counts again once released", cell=7)
    assert i18n.say(stuck, "it").startswith("il sensore sotto la carta 7")
    assert i18n.say("the LED strip is not answering", "it") == "the LED strip is not answering"  # shown as it is
    assert i18n.say(Phrase.of("card {cell} is already revealed", cell=7), "en") == "card 7 is already revealed"


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="en or it"):
        i18n.translation("de")


# --- the pygame backend --------------------------------------------------------------------------


class Counting(ScreenPainter):
    """A painter that counts its draws and can be held in one (``gate``: each draw waits until it
    is set), to watch the backend's thread."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        super().__init__()
        self.gate = gate
        self.begun: list[ScreenModel] = []
        self.drawn: list[ScreenModel] = []

    def draw(self, surface, model, now, since=None):
        self.begun.append(model)
        if self.gate is not None:
            self.gate.wait()
        self.drawn.append(model)
        return super().draw(surface, model, now, since)


@pytest.fixture
def backend():
    screens = []

    def make(painter=None, size=(800, 480), panel_rotation=0, clock=time.monotonic) -> tuple[PygameScreen, queue.Queue]:
        events: queue.Queue = queue.Queue()
        screen = PygameScreen(painter or Counting(), size=size, video_driver="dummy", panel_rotation=panel_rotation,
                              clock=clock)
        screen.start(events.put)
        screens.append(screen)
        return screen, events

    yield make
    for screen in screens:
        screen.stop()


def shown_from_another_thread(screen: PygameScreen, m: ScreenModel) -> None:
    worker = threading.Thread(target=screen.show, args=(m,))
    worker.start()
    worker.join()


@ON_THE_PIS_PYGAME
def test_the_backend_draws_a_model_shown_from_another_thread(backend, tmp_path):
    screen, _ = backend()
    shown_from_another_thread(screen, model("codenames clue"))
    screen.screenshot(tmp_path / "shown.png")
    picture = pygame.image.load(str(tmp_path / "shown.png"))
    assert picture.get_size() == (800, 480)
    x, y, w, h = screen.painter.frame.cells[5]  # the assassin
    assert tuple(picture.get_at((x + w * 7 // 8, y + h * 7 // 8)))[:3] == CARD["A"]
    x, y, w, h = screen.painter.frame.cells[0]
    assert tuple(picture.get_at((x + w * 7 // 8, y + h * 7 // 8)))[:3] == CARD["R"]


@ON_THE_PIS_PYGAME
def test_a_click_and_a_finger_become_ui_events(backend, tmp_path):
    screen, events = backend()
    shown_from_another_thread(screen, model("codenames clue"))
    screen.screenshot(tmp_path / "s.png")  # returns once the model is on the screen
    x, y = tap_for(screen.painter.frame, Clue(3))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1))
    assert events.get(timeout=2) == UiEvent(Clue(3))
    x, y = tap_for(screen.painter.frame, Clue(UNLIMITED))
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=x / 800, y=y / 480, touch_id=0, finger_id=0))
    assert events.get(timeout=2) == UiEvent(Clue(UNLIMITED))
    x, y = tap_for(screen.painter.frame, Undo())  # SDL's mouse copy of a touch is not a second tap
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1, touch=True))
    screen.screenshot(tmp_path / "s.png")
    assert events.empty()


# The panel as the hood holds it: the Touch Display 2 scans out 720 x 1280 portrait and is
# turned 90 or 270 degrees; a landscape panel sits at 0 or 180. The picture is drawn landscape.
PANEL_AT = {0: (800, 480), 90: (720, 1280), 180: (800, 480), 270: (720, 1280)}


class Measuring(ScreenPainter):
    """A painter that notes the size of the surface it is given: the picture's."""

    size: tuple[int, int] | None = None

    def draw(self, surface, model, now, since=None):
        self.size = surface.get_size()
        return super().draw(surface, model, now, since)


def picture_size(rotation: int) -> tuple[int, int]:
    width, height = PANEL_AT[rotation]
    return (height, width) if rotation in (90, 270) else (width, height)


def on_panel(point: tuple[int, int], rotation: int) -> tuple[int, int]:
    """The panel pixel that shows a pixel of the landscape picture, for a panel turned
    ``rotation`` degrees clockwise: the picture is turned as far the other way. Written out
    turn by turn, apart from the backend's own mapping."""
    x, y = point
    width, height = picture_size(rotation)
    return {0: (x, y), 90: (y, width - 1 - x), 180: (width - 1 - x, height - 1 - y), 270: (height - 1 - y, x)}[rotation]


@ON_THE_PIS_PYGAME
@pytest.mark.parametrize("rotation", ROTATIONS)
def test_the_landscape_picture_is_turned_onto_the_panel_as_the_panel_is_mounted(backend, tmp_path, rotation):
    screen, _ = backend(Measuring(), size=PANEL_AT[rotation], panel_rotation=rotation)
    shown_from_another_thread(screen, model("codenames clue"))
    screen.screenshot(tmp_path / "panel.png")
    shot = pygame.image.load(str(tmp_path / "panel.png"))
    assert shot.get_size() == PANEL_AT[rotation]  # what the panel scans out
    frame = screen.painter.frame
    assert screen.painter.size == picture_size(rotation)  # drawn landscape, filling the panel
    for cell, identity in ((5, "A"), (0, "R"), (24, "B")):
        x, y, w, h = frame.cells[cell]
        for corner in ((x + w // 8, y + h * 7 // 8), (x + w * 7 // 8, y + h // 8)):  # clear of its marks
            assert tuple(shot.get_at(on_panel(corner, rotation)))[:3] == CARD[identity], (cell, corner)


@ON_THE_PIS_PYGAME
@pytest.mark.parametrize("rotation", ROTATIONS)
def test_a_click_and_a_finger_on_the_turned_panel_hit_the_button_drawn_there(backend, tmp_path, rotation):
    screen, events = backend(ScreenPainter(), size=PANEL_AT[rotation], panel_rotation=rotation)
    width, height = PANEL_AT[rotation]
    shown_from_another_thread(screen, model("codenames clue"))
    screen.screenshot(tmp_path / "s.png")  # returns once the model is on the screen
    x, y = on_panel(tap_for(screen.painter.frame, Clue(3)), rotation)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1))
    assert events.get(timeout=2) == UiEvent(Clue(3))
    # a finger's position is a fraction of the panel, as it scans out
    x, y = on_panel(tap_for(screen.painter.frame, Clue(UNLIMITED)), rotation)
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=(x + 0.5) / width, y=(y + 0.5) / height,
                                         touch_id=0, finger_id=0))
    assert events.get(timeout=2) == UiEvent(Clue(UNLIMITED))
    # the panel's far corner, a finger at 1.0, is still on the picture (its far corner)
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=1.0, y=1.0, touch_id=0, finger_id=0))
    screen.screenshot(tmp_path / "s.png")  # the tap was handled: nothing sent, nothing raised
    assert events.empty()


@ON_THE_PIS_PYGAME
def test_a_quarter_turn_on_a_landscape_display_is_not_made_and_is_said(backend, tmp_path, caplog):
    """An older table's configuration takes the default panel, the Touch Display 2 at 90, on
    its HDMI monitor: the picture is drawn as before, unturned, and taps hit what is drawn."""
    screen, events = backend(Measuring(), size=(800, 480), panel_rotation=90)
    shown_from_another_thread(screen, model("codenames clue"))
    screen.screenshot(tmp_path / "s.png")
    assert screen.painter.size == (800, 480)
    shot = pygame.image.load(str(tmp_path / "s.png"))
    x, y, w, h = screen.painter.frame.cells[5]
    assert tuple(shot.get_at((x + w * 7 // 8, y + h * 7 // 8)))[:3] == CARD["A"]
    assert any("panel_rotation 90" in r.getMessage() and "800x480" in r.getMessage() and "unturned" in r.getMessage()
               for r in caplog.records)
    x, y = tap_for(screen.painter.frame, Clue(3))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1))
    assert events.get(timeout=2) == UiEvent(Clue(3))


@ON_THE_PIS_PYGAME
def test_cover_mode_through_the_backend(backend, tmp_path):
    screen, events = backend()
    screen.show(model("codenames penalty cover"))
    screen.screenshot(tmp_path / "s.png")
    cover = tap_for(screen.painter.frame, Mode.COVER)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=cover, button=1))
    screen.screenshot(tmp_path / "s.png")  # the tap was handled and the cover mode drawn
    assert screen.painter.current.mode is Mode.COVER
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=centre(screen.painter.frame.cells[23]), button=1))
    assert events.get(timeout=2) == UiEvent(Cover(23))


@ON_THE_PIS_PYGAME
def test_show_never_waits_for_a_redraw_and_the_latest_model_wins(backend, tmp_path):
    gate = threading.Event()
    painter = Counting(gate)
    screen, _ = backend(painter)
    models = [model(name) for name in ("codenames clue", "codenames guess", "coop clue", "alias24 clue")]
    screen.show(models[0])
    wait_for(lambda: painter.begun, "the first draw to begin")
    loop = threading.Thread(target=lambda: [screen.show(m) for m in models[1:]])
    loop.start()
    loop.join(timeout=30)  # held in the first draw until the gate opens: only a show that waited could keep it
    assert not loop.is_alive(), "show waited for a redraw"
    gate.set()
    screen.screenshot(tmp_path / "s.png")
    assert painter.drawn[-1] is models[-1]
    assert len(painter.drawn) < len(models)  # the ones overtaken were never drawn


@ON_THE_PIS_PYGAME
def test_an_idle_screen_does_not_redraw_and_a_timer_redraws_each_second(backend, tmp_path):
    """On the screen's own clock, moved by hand: each screenshot lets its thread go round once,
    drawing first whatever is due."""
    clock, painter = ManualClock(100.0), Counting()
    screen, _ = backend(painter, clock=clock)

    def draws_over(seconds: float) -> int:
        before = len(painter.drawn)
        for _ in range(round(seconds / 0.25)):
            clock.advance(0.25)
            screen.screenshot(tmp_path / "s.png")
        return len(painter.drawn) - before

    screen.show(model("codenames clue"))
    screen.screenshot(tmp_path / "s.png")
    assert draws_over(10) == 0
    screen.show(model("codenames guess"))  # the timer runs: 47.4 s left, a new second 0.4 s from now
    screen.screenshot(tmp_path / "s.png")
    assert draws_over(3) == 3


@ON_THE_PIS_PYGAME
def test_stop_ends_the_thread_promptly(backend):
    screen, _ = backend()
    thread = screen._thread
    screen.show(model("codenames clue"))
    screen.stop()
    assert not thread.is_alive()
    with pytest.raises(RuntimeError, match="not running"):
        screen.screenshot("/tmp/never.png")


@ON_THE_PIS_PYGAME
def test_a_display_that_cannot_open_is_reported():
    screen = PygameScreen(Counting(), size=(800, 480), video_driver="no-such-driver")
    with pytest.raises(ScreenNotOpen, match="no-such-driver") as failed:
        screen.start(lambda event: None)
    assert "spymaster" not in str(failed.value)  # SDL's words alone: the caller names the screen, in its language
    screen.stop()
    assert os.environ["SDL_VIDEODRIVER"] == "dummy"  # the process's choice is left as it was


@ON_THE_PIS_PYGAME
def test_an_idle_screen_names_the_installed_version_for_the_staff():
    from pi_table import version

    playing = model("codenames guess")
    assert not any(text.startswith("pi-table ") for text in draw(surface(), playing).texts)
    idle = replace(playing, cues=replace(playing.cues, idle=True))
    assert f"pi-table {version()}" in draw(surface(), idle).texts


PRINT = ":".join(f"{n:02X}" for n in range(32))  # a SHA-256 fingerprint as browsers show it


@ON_THE_PIS_PYGAME
def test_a_table_waiting_for_its_set_up_shows_the_pages_qr_code_its_code_and_its_own_wifi(backend, tmp_path):
    """docs/dev/first-boot.md: the set-up instead of a game, in the table's language, on the real
    backend (SDL's dummy driver): the page's address as a QR code and in words, the code big; with
    the table's own Wi-Fi open, its name and password and a second QR code that joins it."""
    from pi_table.engine.phrase import Phrase
    from pi_table.hal import SetupModel
    from pi_table.hal.screen import grouped
    from pi_table.ui.setup_screen import wifi_join

    screen, events = backend()
    link = "https://10.42.0.1:8443/setup"
    shown_from_another_thread(screen, SetupModel(link, "1234 5678", "it", ("pi-table-ab3d", "k7m2p9q4r8s3"),
                                                 Phrase.of("No network: the table opened its own Wi-Fi."), PRINT))
    screen.screenshot(tmp_path / "setup.png")
    texts = screen.painter.frame.texts
    assert texts[0] == "Configura questo tavolo" and link in texts and "1234 5678" in texts
    assert "Wi-Fi: pi-table-ab3d" in texts and "Password: k7m2p9q4r8s3" in texts
    assert "Nessuna rete: il tavolo ha aperto il suo Wi-Fi." in texts
    # to compare with the phone's warning, in the groups the set-up and staff pages show too (issue 58, 8)
    assert f"Il certificato della pagina (SHA-256): {grouped(PRINT)}" in texts
    assert grouped(PRINT) == " · ".join(":".join(f"{n:02X}" for n in range(at, at + 8)) for at in (0, 8, 16, 24))
    picture = pygame.image.load(str(tmp_path / "setup.png"))
    dark = sum(1 for x in range(0, 800, 4) for y in range(60, 330, 4) if picture.get_at((x, y))[:3] == (0, 0, 0))
    assert dark > 400  # two QR codes' modules, black on white
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(400, 240), button=1))
    screen.screenshot(tmp_path / "setup.png")
    assert events.empty()  # a tap on the set-up asks for nothing
    assert wifi_join('café;"1"', "a:b\\c") == 'WIFI:T:WPA;S:café\\;\\"1\\";P:a\\:b\\\\c;;'
