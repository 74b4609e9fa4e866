"""The spymasters' screen, drawn with pygame from a ``ScreenModel``.

``draw`` paints one model on a surface and returns the ``Frame``: the tap regions with the
command each one asks for, and the texts it showed. It keeps no state between calls apart
from caches of fonts and rendered text, so the same model always looks the same; the
``GridPainter`` adds the one thing the screen remembers, a mode (covering a card, choosing
a new game); the ``ScreenPainter`` the pygame backend drives (``screens``) hands each model
to its kind's painter. ``render_png`` draws offscreen to a file.

Everything is laid out on an 800x480 design and scaled to the surface, so a 1024x600 panel
shows the same picture. Type is the default pygame font, large: the screen is read at arm's
length in a dim room.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import pygame

from .. import version
from ..engine import (
    CELLS,
    CLUE,
    COVER,
    GRID,
    GUESS,
    OVER,
    PLACE,
    UNLIMITED,
    Clue,
    Cover,
    Game,
    Penalty,
    Place,
    Team,
    Undo,
)
from ..engine.described import MASTERMINDS, SPYMASTERS, Nouns
from ..engine.games import described, grid_game, kind_of, names_of
from ..engine.keys import ASSASSIN, BYSTANDER, NO_CARD
from ..engine.phrase import N_
from ..engine.views import MAD_ARMED_AT, TableView
from ..hal import RGB, Command, NewGame, ScreenModel
from .canvas import (
    AMBER,
    BACKGROUND,
    BANNER,
    BUTTON,
    CARD,
    DARK_TEXT,
    DECOY,
    DESIGN,
    HEADER,
    MUTED,
    PANEL,
    TEAM_COLOUR,
    TEAM_INK,
    TEXT,
    Canvas,
    Frame,
    banner,
    capital,
    draw_timer,
    mix,
    qr_image,
)
from .i18n import TeamWord, say
from .mounting import ScreenSettings
from .orientation import OPERATIVES_SIDE, Area, grid_and_bar, operatives_edge, slot_of

TEAM_LABELS = {Team.RED: N_("RED"), Team.BLUE: N_("BLUE")}


def _game(view: TableView) -> type[Game]:
    """The rules of the game on the screen, for what it draws of them (a penalty, a cover, a score)."""
    return grid_game(view.game)


def _nouns(view: TableView) -> Nouns:
    nouns = described(view.game).nouns
    assert nouns is not None, "a grid game names its people and its cards"
    return nouns


def _covers_at_will(game: type[Game]) -> bool:
    """A spymaster may cover a card, after the other team's penalty (COVER then the card); the
    cooperative variant's cover is the spymaster's required move instead, tapped on the key."""
    return game.has_penalty and not game.cover_is_required


def _sentence(view: TableView, versions: dict[Nouns, str]) -> str:
    """The version of a sentence in the game's nouns (each game's are among ``described.NOUNS``)."""
    return versions[_nouns(view)]


class Mode(str, Enum):
    """What the screen is doing apart from showing the game."""

    PLAY = "play"
    COVER = "cover"  # COVER was tapped: the next tap on the key covers that card
    NEW_GAME = "new-game"  # NEW GAME was tapped: choose the game, or go back
    PHONE = "phone"  # PHONE was tapped: the QR code that opens the key on a phone


@dataclass(frozen=True, slots=True)
class MenuPage:
    """MORE was tapped on the new-game menu: the page of games it turns to."""

    page: int


# --- the drawing ------------------------------------------------------------------------------


def draw(
    surface: pygame.Surface,
    model: ScreenModel,
    now: float = 0.0,
    settings: ScreenSettings = ScreenSettings(),
    mode: Mode = Mode.PLAY,
    since: float | None = None,
    page: int = 0,
) -> Frame:
    """Paint ``model`` on ``surface`` and return its tap regions and texts.

    ``since`` is when the model was made (the clock of ``now``): a running timer then counts
    down from it, so a screen redrawn between models still shows the right second. ``page`` is
    the new-game menu's page of games.
    """
    if not pygame.font.get_init():
        pygame.font.init()
    canvas = Canvas(surface, model.lang)
    view = model.view.table
    mode = _effective(mode, view, model.join)
    surface.fill(BACKGROUND)
    top = 0
    if model.warnings:
        banner(canvas, model)
        top = BANNER
    _header(canvas, model, mode, top, now, since)
    body = top + HEADER + 8
    side = DESIGN[1] - 8 - body
    _key(canvas, model, mode, settings.rotation, (8, body, side, side))
    panel_x = 8 + side + 14
    width = DESIGN[0] - 8 - panel_x
    _chips(canvas, view, (panel_x, body, width, 48))
    actions_y = DESIGN[1] - 8 - 60
    _actions(canvas, view, mode, (panel_x, actions_y, width, 60))
    stage_y = body + 48 + 10
    idle_line = 18 if model.cues.idle else 0
    _stage(canvas, model, mode, (panel_x, stage_y, width, actions_y - 10 - idle_line - stage_y), page)
    if idle_line:  # nobody is playing: a good moment for the staff to read which version runs
        canvas.text(f"pi-table {version()}", (panel_x, actions_y - 8 - idle_line, width, idle_line - 2), 14, MUTED,
                    align="right")
    return Frame(tuple(canvas.taps), tuple(canvas.cells[cell] for cell in range(CELLS)), tuple(canvas.texts),
                 tuple(canvas.cut))


def _effective(mode: Mode, view: TableView, join: str | None) -> Mode:
    """A mode only lasts while it means something: covering needs the cover phase, the QR
    code a companion to join."""
    if mode is Mode.COVER and not (view.phase == COVER and _covers_at_will(_game(view))):
        return Mode.PLAY
    if mode is Mode.PHONE and join is None:
        return Mode.PLAY
    return mode


def _team_word(team: Team, canvas: Canvas) -> TeamWord:
    return TeamWord(team.value, canvas.lang)


def _header(canvas: Canvas, model: ScreenModel, mode: Mode, top: float, now: float, since: float | None) -> None:
    _ = canvas.gettext
    view = model.view.table
    team = view.winner if view.phase == OVER else view.turn
    accent = TEAM_COLOUR[team] if team is not None else MUTED
    canvas.box((0, top, DESIGN[0], HEADER), mix(BACKGROUND, accent, 0.3), radius=0)
    canvas.box((0, top, 12, HEADER), accent, radius=0)
    timer = model.cues.timer
    shows_timer = timer is not None and timer.running
    right = DESIGN[0] - (150 if shows_timer else 12)  # where the timer begins, or the edge
    if model.join is not None:
        right -= 96
        lit = "lit" if mode is Mode.PHONE else "plain"
        canvas.button((right + 8, top + 14, 84, 60), _("PHONE"), mode=Mode.PLAY if lit == "lit" else Mode.PHONE,
                      style=lit, size=26)
    text_width = right - 28 - 4
    canvas.text(_headline(view, canvas), (28, top + 4, text_width, 44), 50, TEXT, align="left", smallest=30)
    message = model.message and capital(say(model.message, model.lang))
    if message:
        canvas.symbol("alert", (42, top + 67), 26, AMBER)
        canvas.text(message, (64, top + 50, text_width - 36, 36), 30, AMBER, align="left", smallest=22, lines=2)
    else:
        hint = _instruction(model, mode, canvas)
        ink = mix(TEXT, MUTED, 0.4)
        canvas.text(hint, (28, top + 50, text_width, 36), 30, ink, align="left", smallest=22, lines=2)
    if shows_timer and timer is not None:
        draw_timer(canvas, timer, top, now, since)


HEADLINES: dict[str, dict[Nouns, str]] = {
    PLACE: {SPYMASTERS: N_("Setup: {team} places the next codename"),
            MASTERMINDS: N_("Setup: {team} places the next alias")},
    CLUE: {SPYMASTERS: N_("{team} spymaster: give a clue"), MASTERMINDS: N_("{team} mastermind: give a clue")},
    GUESS: {SPYMASTERS: N_("{team} operatives are guessing"), MASTERMINDS: N_("{team} team is targeting")},
}
"""The headline of a phase, in each game's nouns."""
ONE_GUESSING = {SPYMASTERS: N_("The operative guesses for {team}"), MASTERMINDS: N_("The operative targets for {team}")}
"""The guessing headline with three players: one operative for both teams."""


def _headline(view: TableView, canvas: Canvas) -> str:
    _ = canvas.gettext
    team = _team_word(view.turn, canvas) if view.turn is not None else None
    if view.phase == OVER:
        text = _("Game over")
    elif view.phase == GUESS and view.rules.three_player:
        text = _(_sentence(view, ONE_GUESSING))
    elif view.phase in HEADLINES:
        text = _(_sentence(view, HEADLINES[view.phase]))
    elif _game(view).description.cooperative:
        text = _("Cover one {team} agent for the opponent")
    else:
        text = _("Penalty: {team} may cover one of its agents")
    return capital(text.format(team=team))


LAY_ON_THE_LIT_CELL = {SPYMASTERS: N_("Lay the codename on the lit cell ({cell}), then tap DONE"),
                       MASTERMINDS: N_("Lay the alias on the lit cell ({cell}), then tap DONE")}
TOUCHED_ON_THE_TABLE = {SPYMASTERS: N_("Cards are touched on the table; END TURN there to stop"),
                        MASTERMINDS: N_("Targets are touched on the table; END TURN there to stop")}


def _instruction(model: ScreenModel, mode: Mode, canvas: Canvas) -> str:
    """The line under the headline: what to do now, on this screen."""
    _ = canvas.gettext
    view = model.view.table
    team = _team_word(view.turn, canvas) if view.turn is not None else None
    if mode is Mode.NEW_GAME:
        return _("Choose the game to deal") if view.phase == OVER else _("Choose the game to deal: this one ends")
    if mode is Mode.COVER:
        return _("Tap the {team} agent to cover on the key").format(team=team)
    if model.dial is not None and view.phase in (CLUE, COVER):
        dial = _("unlimited") if model.dial == UNLIMITED else str(model.dial)
        return _("Dial set to {number}: push it to enter, or tap a number").format(number=dial)
    if view.phase == PLACE:
        return _(_sentence(view, LAY_ON_THE_LIT_CELL)).format(cell=view.placing)
    if view.phase == CLUE:
        if view.rules.clue_required:
            return _("Say the clue aloud, then tap its number")
        return _("Say the clue aloud, then tap its number (optional)")
    if view.phase == GUESS:
        return _(_sentence(view, TOUCHED_ON_THE_TABLE))
    if view.phase == COVER and _game(view).description.cooperative:
        return _("Tap it on the key: it is the simulated opponent's move")
    if view.phase == COVER:
        return _("Tap COVER and then the card, or skip it by giving the clue")
    return _("Tap NEW GAME to deal another key, or UNDO")


EDGE_BAR = 20
"""How thick the bar is that marks the key's operatives' edge, in design units."""
WORD_PLATE = 22
"""How tall a card's word is at the foot of its cell on the key, in design units."""


def _key(canvas: Canvas, model: ScreenModel, mode: Mode, rotation: int, area: Area) -> None:
    """The 5x5 key as the spymasters see it (``orientation``), its operatives' edge marked, with
    what is shown and touched and a simulated table's words (while placing, the cells only)."""
    edge = operatives_edge(rotation)
    x, y, side = area[:3]
    grid, bar = grid_and_bar(x, y, side, edge, EDGE_BAR)
    canvas.edge(bar, edge, canvas.gettext(OPERATIVES_SIDE), 18)
    view = model.view.table
    if model.view.key is None:  # Deep Undercover while placing: no key yet, nothing to outline
        _placing_grid(canvas, view, rotation, grid)
        return
    key = model.view.key.cells
    x0, y0, side = grid[:3]
    gap = 6
    size = (side - gap * (GRID - 1)) / GRID
    alias = _nouns(view) == MASTERMINDS  # its grey decoys and its nuke
    covering = mode is Mode.COVER or (view.phase == COVER and _game(view).cover_is_required)
    for cell in range(CELLS):
        row, col = slot_of(cell, rotation)
        cell_area = (x0 + col * (size + gap), y0 + row * (size + gap), size, size)
        identity = key[cell]
        middle = _centre(cell_area if model.words is None else (*cell_area[:3], size - WORD_PLATE))  # above a word
        mark = size * (0.62 if model.words is None else 0.5)
        rect = canvas.rect(*cell_area)
        canvas.cells[cell] = (rect.x, rect.y, rect.w, rect.h)
        if identity == NO_CARD:
            canvas.box(cell_area, (44, 48, 56), radius=8, width=2)
            continue
        colour = DECOY if alias and identity == BYSTANDER else CARD[identity]
        shown = view.board[cell] != "?"
        light = identity == BYSTANDER and not alias
        if shown:
            canvas.box(cell_area, mix(colour, BACKGROUND, 0.62), radius=8)
            if cell in view.covered:
                _hatch(canvas, rect, mix(colour, BACKGROUND, 0.15))
            else:
                canvas.symbol("check", middle, mark, mix(colour, TEXT, 0.55))
        else:
            canvas.box(cell_area, colour, radius=8)
            if identity == ASSASSIN:
                canvas.box(cell_area, (150, 154, 162), radius=8, width=2)
        if identity == ASSASSIN and not shown:
            canvas.symbol("nuke" if alias else "crosshair", middle, mark, (222, 224, 230))
        ink = DARK_TEXT if light and not shown else mix(TEXT, colour, 0.25) if not shown else MUTED
        canvas.text(str(cell), (cell_area[0] + 6, cell_area[1] + 3, size * 0.5, 22), 24, ink, align="left")
        if model.words is not None:
            _word(canvas, model.words[cell], cell_area)
        if cell in model.pending and not shown:  # a finger is on it: not yet a guess
            x, y, w, h = cell_area
            canvas.box((x - 3, y - 3, w + 6, h + 6), TEXT, radius=10, width=6)
            canvas.symbol("dot", middle, size * 0.34, TEXT)
        elif cell in model.deaf and not shown:  # the touch board cannot hear it: a touch counts nothing
            x, y, w, h = cell_area
            canvas.box((x - 3, y - 3, w + 6, h + 6), AMBER, radius=10, width=6)
            canvas.symbol("alert", (x + w - 16, y + 16), 24, AMBER)
        elif covering and not shown and view.turn is not None and identity == view.turn.letter:
            canvas.box(cell_area, TEXT, radius=8, width=3)
        if covering:
            canvas.tap(rect, Cover(cell))


def _placing_grid(canvas: Canvas, view: TableView, rotation: int, area: Area) -> None:
    """Deep Undercover's grid while the codenames go down: the cards on the table, the empty
    cells and the next one, all alike whatever the key drawn later will say."""
    _ = canvas.gettext
    x0, y0, side = area[:3]
    gap = 6
    size = (side - gap * (GRID - 1)) / GRID
    for cell in range(CELLS):
        row, col = slot_of(cell, rotation)
        cell_area = (x0 + col * (size + gap), y0 + row * (size + gap), size, size)
        rect = canvas.rect(*cell_area)
        canvas.cells[cell] = (rect.x, rect.y, rect.w, rect.h)
        if view.board[cell] == NO_CARD:
            canvas.box(cell_area, (44, 48, 56), radius=8, width=2)
            continue
        down = view.placing is None or cell < view.placing
        canvas.box(cell_area, PANEL if down else (22, 25, 31), radius=8)
        if not down:
            canvas.box(cell_area, MUTED, radius=8, width=2)
        canvas.text(str(cell), (cell_area[0] + 6, cell_area[1] + 3, size * 0.5, 22), 24, TEXT if down else MUTED,
                    align="left")
        if cell == view.placing:
            canvas.box(cell_area, AMBER, radius=8, width=5)
            canvas.text(_("HERE"), (cell_area[0], cell_area[1] + size * 0.3, size, size * 0.6), 28, AMBER,
                        smallest=18)
            canvas.tap(rect, Place(cell))


def _word(canvas: Canvas, word: str, area: Area) -> None:
    """A card's word along the foot of its cell, white on a dark plate that reads over every
    colour of the key, smaller for a long word."""
    x, y, w, h = area
    plate = (x + 2, y + h - WORD_PLATE, w - 4, WORD_PLATE - 2)
    canvas.box(plate, (15, 15, 18), radius=4)
    canvas.text(word, (plate[0] + 2, plate[1], plate[2] - 4, plate[3]), 19, TEXT, smallest=11)


def _centre(area: Area) -> tuple[float, float]:
    x, y, w, h = area
    return x + w / 2, y + h / 2


def _hatch(canvas: Canvas, rect: pygame.Rect, colour: RGB) -> None:
    """Diagonal stripes: a card a spymaster covered, not one the operatives touched."""
    surface = canvas.surface
    clip = surface.get_clip()
    surface.set_clip(rect.inflate(-canvas.px(4), -canvas.px(4)))
    step, width = canvas.px(14), canvas.px(5)
    for offset in range(-rect.height, rect.width, step):
        start = (rect.left + offset, rect.bottom)
        pygame.draw.line(surface, colour, start, (start[0] + rect.height, rect.top), width)
    surface.set_clip(clip)


def _chips(canvas: Canvas, view: TableView, area: Area) -> None:
    """Cards left per team, the team that starts, and Alias 24's nuke when it can arm."""
    _ = canvas.gettext
    x, y, w, h = area
    count = 3 if view.armed is not None else 2
    gap = 8
    chip_w = (w - gap * (count - 1)) / count
    for i, team in enumerate(Team):
        chip_x = x + i * (chip_w + gap)
        canvas.box((chip_x, y, chip_w, h), TEAM_COLOUR[team], radius=10)
        left = "–" if view.totals is None else str(view.remaining(team))  # no key yet while placing
        number_w = canvas.width(left, 60) + 12
        canvas.text(left, (chip_x, y, chip_w - 10, h), 60, TEXT, align="right")
        label_w = chip_w - number_w - 14
        if _game(view).description.cooperative:
            note = _("players") if team == view.start else _("opponent")
        else:
            note = _("starts") if team == view.start else ""
        label_y = y + 3 if note else y + 11
        canvas.text(_(TEAM_LABELS[team]), (chip_x + 10, label_y, label_w, 26), 30, TEXT, align="left", smallest=20)
        if note:
            canvas.text(note, (chip_x + 10, y + 27, label_w, 18), 22, mix(TEXT, TEAM_COLOUR[team], 0.25),
                        align="left", smallest=16)
    if view.armed is not None:
        chip = (x + 2 * (chip_w + gap), y, chip_w, h)
        armed = view.armed
        canvas.box(chip, AMBER if armed else PANEL, radius=10)
        canvas.symbol("nuke", (chip[0] + 24, y + h / 2), 32, DARK_TEXT if armed else AMBER)
        words = (chip[0] + 44, y + 3, chip_w - 50, 22)
        canvas.text(_("NUKE"), words, 24, DARK_TEXT if armed else MUTED, smallest=16)
        value = _("ARMED") if armed else f"{view.targeted}/{MAD_ARMED_AT}"
        canvas.text(value, (chip[0] + 44, y + 23, chip_w - 50, 24), 30, DARK_TEXT if armed else TEXT, smallest=16)


def _actions(canvas: Canvas, view: TableView, mode: Mode, area: Area) -> None:
    _ = canvas.gettext
    x, y, w, h = area
    buttons: list[tuple[str, Command | None, Mode | None, bool, str]] = []
    game = _game(view)
    if game.has_penalty:
        can_penalise = view.phase in (CLUE, GUESS) and view.guesses == 0
        buttons.append((_("PENALTY"), Penalty(), None, can_penalise, "plain"))
    if _covers_at_will(game):
        covering = mode is Mode.COVER
        style = "lit" if covering else "primary" if view.phase == COVER else "plain"
        buttons.append((_("COVER"), None, Mode.PLAY if covering else Mode.COVER, view.phase == COVER, style))
    buttons.append((_("UNDO"), Undo(), None, True, "plain"))
    choosing = mode is Mode.NEW_GAME
    style = "lit" if choosing else "primary" if view.phase == OVER else "plain"
    buttons.append((_("NEW GAME"), None, Mode.PLAY if choosing else Mode.NEW_GAME, True, style))
    gap = 8
    width = (w - gap * (len(buttons) - 1)) / len(buttons)
    for i, (label, command, to_mode, enabled, style) in enumerate(buttons):
        canvas.button((x + i * (width + gap), y, width, h), label, command, to_mode, enabled, style, size=30)


def _stage(canvas: Canvas, model: ScreenModel, mode: Mode, area: Area, page: int) -> None:
    """The middle of the panel: whatever the phase asks of the spymasters."""
    view = model.view.table
    if mode is Mode.PHONE and model.join is not None:
        _phone(canvas, model.join, area)
    elif mode is Mode.NEW_GAME:
        _choose_game(canvas, view, area, page)
    elif view.phase == OVER:
        _game_over(canvas, view, area)
    elif view.phase == PLACE:
        _placing(canvas, view, area)
    elif view.phase == GUESS:
        _guessing(canvas, view, area)
    elif view.phase == COVER and _game(view).cover_is_required and view.turn is not None:
        _ = canvas.gettext
        text = _("Tap a {team} agent on the key to cover it").format(team=_team_word(view.turn, canvas))
        canvas.box(area, PANEL, radius=12)
        canvas.box(area, TEAM_COLOUR[view.turn], radius=12, width=5)
        x, y, w, h = area
        canvas.text(capital(text), (x + 16, y + 10, w - 32, h - 20), 46, TEXT, smallest=28, lines=3)
    else:
        _keypad(canvas, model, area)


def _keypad(canvas: Canvas, model: ScreenModel, area: Area) -> None:
    """0-9 and unlimited: the clue number, one tap. The dial's number is ringed."""
    x, y, w, h = area
    gap = 8
    bw, bh = (w - 3 * gap) / 4, (h - 2 * gap) / 3
    for n in range(10):
        row, col = divmod(n, 4)
        button = (x + col * (bw + gap), y + row * (bh + gap), bw, bh)
        canvas.button(button, str(n), Clue(n), size=60)
        if model.dial == n:
            canvas.box(button, AMBER, radius=10, width=5)
    wide = (x + 2 * (bw + gap), y + 2 * (bh + gap), 2 * bw + gap, bh)
    rect = canvas.box(wide, BUTTON, radius=10)
    canvas.symbol("infinity", _centre(wide), min(bh, bw) * 0.8, TEXT)
    canvas.tap(rect, Clue(UNLIMITED))
    if model.dial == UNLIMITED:
        canvas.box(wide, AMBER, radius=10, width=5)


LEFT_THIS_TURN = {SPYMASTERS: N_("GUESSES LEFT"), MASTERMINDS: N_("TARGETS LEFT")}


def _guessing(canvas: Canvas, view: TableView, area: Area) -> None:
    """The clue in force and the guesses left, big enough to read across the table."""
    _ = canvas.gettext
    x, y, w, h = area
    gap = 10
    bw = (w - gap) / 2
    left = _(_sentence(view, LEFT_THIS_TURN))
    boxes = (
        (_("CLUE"), view.clue, _("no number") if view.clue is None else None),
        (left, UNLIMITED if view.guesses_left is None else view.guesses_left, None),
    )
    for i, (label, value, note) in enumerate(boxes):
        box = (x + i * (bw + gap), y, bw, h - 40)
        canvas.box(box, PANEL, radius=12)
        canvas.text(label, (box[0] + 8, y + 8, bw - 16, 30), 28, MUTED, smallest=18)
        centre = (box[0] + bw / 2, y + 30 + (h - 70) / 2)
        if value == UNLIMITED:
            canvas.symbol("infinity", centre, min(bw, h - 80) * 0.8, TEXT)
        elif value is None and note is not None:
            canvas.text(note, (box[0] + 8, y + 40, bw - 16, h - 90), 40, TEXT, smallest=22, lines=2)
        else:
            canvas.text(str(value), (box[0], y + 36, bw, h - 86), 130, TEXT)
    made = _("{count} touched this turn").format(count=view.guesses)
    canvas.text(made, (x, y + h - 34, w, 30), 30, MUTED, smallest=20)


def _placing(canvas: Canvas, view: TableView, area: Area) -> None:
    """Deep Undercover's setup: which team lays the next codename, and on which cell."""
    _ = canvas.gettext
    placing, team = view.placing, view.turn
    if placing is None or team is None:
        # a programming error: the placing phase names both
        raise ValueError("a table view in the placing phase names the next cell and the team laying it")
    x, y, w, h = area
    box = (x, y, w, h - 84)
    canvas.box(box, PANEL, radius=12)
    canvas.text(_("NEXT CELL"), (x + 8, y + 8, w - 16, 30), 28, MUTED, smallest=18)
    canvas.text(str(placing), (x, y + 36, w, box[3] - 72), 120, TEAM_INK[team])
    on_table = sum(1 for cell, shown in enumerate(view.board) if shown != NO_CARD and cell < placing)
    total = sum(1 for shown in view.board if shown != NO_CARD)
    canvas.text(_("{count} of {total} on the table").format(count=on_table, total=total),
                (x + 8, y + box[3] - 36, w - 16, 30), 26, MUTED, smallest=18)
    canvas.button((x, y + h - 74, w, 74), _("DONE"), Place(placing), style="primary", size=44)


def _game_over(canvas: Canvas, view: TableView, area: Area) -> None:
    _ = canvas.gettext
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    reason = capital(say(view.reason, canvas.lang)) if view.reason else ""
    if _game(view).description.cooperative:
        won = view.score is not None
        title = _("MISSION ACCOMPLISHED") if won else _("MISSION FAILED")
        canvas.text(title, (x + 12, y + 8, w - 24, 40), 40, TEAM_INK[view.start] if won and view.start else MUTED, smallest=24)
        if won:
            canvas.text(_("SCORE"), (x + 12, y + 56, w * 0.4, 30), 28, MUTED, smallest=18)
            canvas.text(str(view.score), (x + 12, y + 80, w * 0.4, h - 96), 120, TEXT)
            rating = view.rating(canvas.lang)
            canvas.text(f"“{rating}”", (x + w * 0.4 + 12, y + 56, w * 0.6 - 24, h - 68), 36, TEXT, smallest=22, lines=4)
            return
    elif view.winner is not None:
        title = _("{team} wins").format(team=_team_word(view.winner, canvas)).upper()
        canvas.text(title, (x + 12, y + 6, w - 24, 64), 60, TEAM_INK[view.winner], smallest=28, lines=2)
    else:
        canvas.text(_("Both teams lose").upper(), (x + 12, y + 6, w - 24, 64), 60, TEXT, smallest=28, lines=2)
    canvas.text(reason, (x + 16, y + 74, w - 32, h - 86), 36, TEXT, smallest=22, lines=4)


MENU_SLOTS = 6
"""The new-game menu's buttons on a page at most: two columns of three, BACK among them."""
FINGER = 60
"""The least side of a button, in design units (tests/test_screen.py holds every tap to it)."""


def offered(view: TableView) -> tuple[str, ...]:
    """The games the new-game menu offers: those played on this screen's kind of table whose
    descriptions say menus offer them, in the registry's order."""
    return tuple(name for name in names_of(kind_of(view.game)) if described(name).offered)


def _choose_game(canvas: Canvas, view: TableView, area: Area, page: int) -> None:
    """NEW GAME was tapped: deal the same game again, another game, or go back. The games fill
    two columns of as many rows as fit at a finger's size, BACK last; when more are offered than
    a page holds, MORE turns to the next."""
    _ = canvas.gettext
    x, y, w, h = area
    canvas.text(_("New game?"), (x, y, w, 34), 38, TEXT, smallest=24)
    games = offered(view)
    gap = 8
    slots = 2 * max(2, min(MENU_SLOTS // 2, int((h - 40 + gap) // (FINGER + gap))))  # a warning leaves fewer rows
    fits = len(games) <= slots - 1
    per_page = slots - 1 if fits else slots - 2
    pages = math.ceil(len(games) / per_page)
    page %= pages
    shown = games[page * per_page:(page + 1) * per_page]
    rows = math.ceil((len(shown) + (1 if fits else 2)) / 2)
    bw, bh = (w - gap) / 2, (h - 40 - gap * (rows - 1)) / rows

    def slot(index: int) -> tuple[float, float, float, float]:
        row, col = divmod(index, 2)
        return x + col * (bw + gap), y + 40 + row * (bh + gap), bw, bh

    for index, game in enumerate(shown):
        button = slot(index)
        command = NewGame() if game == view.game else NewGame(game)
        canvas.button(button, _(described(game).title), command, size=32)
        if game == view.game:
            canvas.box(button, AMBER, radius=10, width=4)
    if not fits:
        canvas.button(slot(2 * rows - 2), _("MORE"), mode=MenuPage(page + 1), size=32)
    canvas.button(slot(2 * rows - 1), _("BACK"), mode=Mode.PLAY, size=32)


def _phone(canvas: Canvas, link: str, area: Area) -> None:
    """PHONE was tapped: a QR code for the spymasters' phones, which opens the key there."""
    _ = canvas.gettext
    x, y, w, h = area
    caption = 34
    side = min(w, h - caption)
    canvas.text(_("Scan: the key on your phone"), (x, y, w, caption - 4), 30, TEXT, smallest=20)
    rect = canvas.rect(x + (w - side) / 2, y + caption, side, side)
    image = qr_image(link, rect.width)
    canvas.surface.blit(image, image.get_rect(center=rect.center))


# --- stateful use: the backend's painter, and files -------------------------------------------


class GridPainter:
    """Draws the grid games' models and turns a tap into a command. It remembers the mode (a
    COVER tap waits for a card; NEW GAME waits for the choice), forgotten when the game moves on."""

    def __init__(self, settings: ScreenSettings = ScreenSettings()) -> None:
        self.settings = settings
        self.mode = Mode.PLAY
        self.page = 0  # the new-game menu's
        self.frame = Frame((), (), ())
        self._scene: tuple[str, str, Team | None] | None = None  # a new game, phase or turn ends a mode

    def draw(self, surface: pygame.Surface, model: ScreenModel, now: float, since: float | None = None) -> Frame:
        view = model.view.table
        scene = (model.game_id, view.phase, view.turn)
        if scene != self._scene:
            self.mode = Mode.PLAY
            self._scene = scene
        self.frame = draw(surface, model, now, self.settings, self.mode, since, self.page)
        return self.frame

    def tap(self, pos: tuple[int, int]) -> Command | None:
        """The command a tap at ``pos`` (pixels) asks for; a mode switch (or the menu's page)
        returns None."""
        hit = self.frame.at(pos)
        if hit is None:
            return None
        if isinstance(hit.mode, MenuPage):
            self.page = hit.mode.page
            return None
        if isinstance(hit.mode, Mode):  # the grid's screen draws no Turn
            self.mode, self.page = hit.mode, 0
            return None
        self.mode = Mode.PLAY
        return hit.command


def render_png(
    model: ScreenModel,
    path: Path | str,
    size: tuple[int, int] = DESIGN,
    now: float = 0.0,
    settings: ScreenSettings = ScreenSettings(),
    mode: Mode = Mode.PLAY,
) -> Frame:
    """Draw ``model`` offscreen and save it as a PNG: no display needed."""
    surface = pygame.Surface(size)
    frame = draw(surface, model, now, settings, mode)
    pygame.image.save(surface, str(path))
    return frame
