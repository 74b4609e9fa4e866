"""Codex on the table's screen: the public side for everyone, and pass-and-play.

For Codex the screen is turned to the table. Its public side shows the phase and its step in
words, the discussion's timer, the six agents by seat with who has acted this step (never
what), the last vote's tally once it is closed, the truth machine and every fact it revealed,
the roles in play, and at the end the winner and every identikit. It is drawn from the engine's
public view (and its words for the step), and a refusal shows only when it is one of Codex's
public refusals (``PUBLIC_REFUSALS``): "Moon has already entered a code" is the phone's to
say, not the table's.

**Pass-and-play**, for a table without phones, takes the agents to the screen one at a time.
PASS AND PLAY names the next agent the step waits for ("Pass the screen to Viper (seat 3)");
only that agent's "I AM VIPER" shows its own turn: its identikit, inbox and results, drawn from
``agent_view(seat)`` alone, and big buttons for its legal actions. Once it has acted (or taps
HIDE) the screen hides everything private ("Hidden. Pass the screen to the next agent") until
NEXT AGENT names the next one. While nobody has to act (the discussion, the game's end) the
public side shows, and the flow takes up again when the next step waits for agents. STOP
leaves pass-and-play.

An action is a few taps, built from the agent's legal actions (``choice_path``): the recipient
and then the facts of a message; the three fragments of a code in order, offered from those
the agent has seen (the engine's ``known_fragments``), so a code is three taps and never a
typo (a fragment the agent only heard said aloud cannot be entered here: its phone takes
any code); the target of a block; the message and the fact a Profiler asks about; the agent voted
for and then, for an Inquisitore, the fact to extort or none; the fact to reveal. A choice with
one option (the only verb of the step) is made for the agent; BACK goes up one choice.

**Taking a seat back.** With phones, whoever opens a seat's code first owns its page. When the
wrong phone did (a line under the cards says what to do), tapping that seat's card asks "A new
code for Viper (seat 2)?"; NEW CODE sends ``ReleaseSeat``: the old link opens nothing any more
and the seat's new code shows, for the right phone to scan. CANCEL leaves everything as it was.
The game is untouched.

``CodexPainter`` keeps the one thing the screen remembers, where pass-and-play stands (a
``Turn``, with the seat whose release waits for an answer: codex_turns's ``Passing``), as
``ScreenPainter`` keeps its mode for the grid games, and turns taps into the agents' actions.
What that ``Turn`` does (whom pass-and-play calls, what the agent at the screen may choose, what
the public side offers) and every word the screen says are codex_turns.py's, which draws
nothing (the terminal simulator says the same words); this module paints it.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pygame

from ..engine.codex import MESSAGES, PRIVATE, VOTE, AgentView, PublicView
from ..engine.codex_actions import CodexAction
from ..engine.codex_setup import Fact, Faction
from ..engine.keys import BLUE_AGENT, RED_AGENT
from ..engine.phrase import Text
from ..hal import Command, ReleaseSeat
from ..hal.codex_model import CodexModel
from .canvas import (
    AMBER,
    BACKGROUND,
    BANNER,
    CARD,
    DESIGN,
    HEADER,
    MUTED,
    PANEL,
    TEXT,
    Canvas,
    Frame,
    Tap,
    banner,
    capital,
    draw_timer,
    mix,
    qr_image,
)
from .codex_turns import (
    PUBLIC_SIDE,
    ROLE_TITLES,  # noqa: F401 - the roles' names, as the screen says them
    Control,
    Panel,
    Passing,
    SeatLine,
    Stage,
    Truth,
    Turn,
    agent_name,
    agent_notes,
    agent_title,
    call_words,
    choice_prompt,
    code_so_far,
    control_label,
    controls,
    headline,
    identikit_notes,
    identikit_rows,
    menu,
    next_join,
    option_label,
    panel,
    public_refusal,
    releasable,
    roles_in_play,
    route,
    seat_lines,
    step_words,
    truth_machine,
    winner_title,
    winning_code,
)
from .i18n import TeamWord, say
from .mounting import ScreenSettings
from .orientation import Area

FACTION_COLOUR = {Faction.RED: CARD[RED_AGENT], Faction.BLUE: CARD[BLUE_AGENT]}
FACTION_INK = {faction: mix(colour, TEXT, 0.3) for faction, colour in FACTION_COLOUR.items()}
SEAT_SLOTS = ((0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0))
"""Where each seat's card is, (row, column): clockwise round the table, as the seats' lights."""

SEAT_LOOKS = {
    SeatLine.TRUTH: (AMBER, 26, 2), SeatLine.BALLOT: (TEXT, 26, 2), SeatLine.DONE: (TEXT, 30, 1),
    SeatLine.WAITING: (MUTED, 30, 1), SeatLine.VOTES: (TEXT, 30, 1), SeatLine.FACTION: (TEXT, 26, 1),
    SeatLine.ROLE: (TEXT, 30, 1),
    SeatLine.SHOWS: (TEXT, 26, 2), SeatLine.CODE: (TEXT, 30, 1), SeatLine.FACT: (TEXT, 26, 1),
    SeatLine.LATEST: (AMBER, 26, 1),
}
"""How each line on a seat's card looks: its ink, size and lines."""


# --- the painter ---------------------------------------------------------------------------------


class CodexPainter(Passing):
    """Draws a CodexModel and turns taps into the agents' actions; remembers the ``Turn``. Made,
    as every kind's painter, with the screen's settings: the key's rotation, which Codex, with
    no key, draws the same whatever it is."""

    def __init__(self, settings: ScreenSettings = ScreenSettings()) -> None:
        super().__init__()
        self.settings = settings
        self.frame = Frame((), (), ())

    def draw(self, surface: pygame.Surface, model: CodexModel, now: float, since: float | None = None) -> Frame:
        own = self.see(model)
        self.frame = draw_codex(surface, model, self.turn, now, since, own)
        return self.frame

    def tap(self, pos: tuple[int, int]) -> Command | None:
        """The command a tap at ``pos`` sends, or None when it only moves pass-and-play on."""
        hit = self.frame.at(pos)
        return None if hit is None else self.press(hit.command, hit.mode)  # the Codex screen draws no Mode

    def route(self, action: CodexAction) -> Tap | None:
        """The tap on the frame that sends ``action``, or else makes the next choice on its way
        (BACK, when the choices so far lead elsewhere); None when the frame offers neither."""
        return route(self.turn, self.frame.taps, action)


def draw_codex(
    surface: pygame.Surface,
    model: CodexModel,
    turn: Turn = PUBLIC_SIDE,
    now: float = 0.0,
    since: float | None = None,
    own_refusal: Text | None = None,
) -> Frame:
    """Paint ``model`` as ``turn`` says: the public side, or one agent's own turn.

    Only the agent at the screen (``turn.stage`` AGENT, after its "I am" tap) is drawn from
    more than the public view: from its own ``agent_view`` and its legal actions.
    ``own_refusal`` is a refusal of that agent's own last tap, shown to it alone.
    """
    if not pygame.font.get_init():
        pygame.font.init()
    canvas = Canvas(surface, model.lang)
    surface.fill(BACKGROUND)
    top = 0
    if model.warnings:
        banner(canvas, model)
        top = BANNER
    game, state = model.game, model.state
    if turn.stage is Stage.AGENT:
        view = game.agent_view(state, turn.agent)
        _agent_turn(canvas, view, game.legal_actions(state, turn.agent), turn, own_refusal, top)
    else:
        _public(canvas, model, game.public_view(state), turn, top, now, since)
    return Frame(tuple(canvas.taps), (), tuple(canvas.texts), tuple(canvas.cut))


# --- the public side ----------------------------------------------------------------------------


def _public(canvas: Canvas, model: CodexModel, view: PublicView, turn: Turn, top: float, now: float,
            since: float | None) -> None:
    _ = canvas.gettext
    accent = FACTION_COLOUR[view.winner] if view.winner is not None else MUTED
    canvas.box((0, top, DESIGN[0], HEADER), mix(BACKGROUND, accent, 0.3), radius=0)
    canvas.box((0, top, 12, HEADER), accent, radius=0)
    timer = model.cues.timer
    shows_timer = timer is not None and timer.running
    width = DESIGN[0] - (150 if shows_timer else 12) - 28
    title = winner_title(canvas, view)
    if view.winner is not None and title is not None:
        canvas.text(title, (28, top + 4, width, 44), 50, FACTION_INK[view.winner], align="left", smallest=30)
    else:
        canvas.text(headline(canvas, view), (28, top + 4, width, 44), 50, TEXT, align="left", smallest=30)
    refusal = public_refusal(model.message)
    if refusal is not None:
        canvas.symbol("alert", (42, top + 67), 26, AMBER)
        canvas.text(capital(say(refusal, model.lang)), (64, top + 50, width - 36, 36), 30, AMBER, align="left",
                    smallest=20, lines=2)
    else:
        canvas.text(capital(step_words(model)), (28, top + 50, width, 36), 30, mix(TEXT, MUTED, 0.4), align="left",
                    smallest=20, lines=2)
    if shows_timer and timer is not None:
        draw_timer(canvas, timer, top, now, since)
    body = top + HEADER + 8
    height = DESIGN[1] - 8 - body
    if releasable(view, model.joins):  # the phones' pages are beside the screen
        hint = 28
        _seats(canvas, view, (8, body, 540, height - hint), turn)
        canvas.text(_("Wrong phone on a seat? Tap the seat for a new code."), (8, body + height - hint + 2, 540, hint),
                    22, MUTED, smallest=14)
    else:
        _seats(canvas, view, (8, body, 540, height))
    x, w = 560, DESIGN[0] - 8 - 560
    buttons = 70
    shown, joining = panel(view, turn, model.joins), next_join(model.joins)
    if shown is Panel.RELEASE:
        _release(canvas, view, turn, (x, body, w, height - buttons - 8))
    elif shown is Panel.JOIN and joining is not None:
        _join(canvas, view, *joining, (x, body, w, height - buttons - 8))
    else:
        _roles(canvas, view, (x, body, w, 84))
        middle = (x, body + 92, w, height - 92 - buttons - 8)
        if shown is Panel.CALL:
            _call(canvas, view, turn, middle)
        elif shown is Panel.CODE:
            _winning_code(canvas, view, middle)
        else:
            _truth_machine(canvas, view, middle)
    _controls(canvas, view, turn, (x, DESIGN[1] - 8 - buttons, w, buttons))


def _seats(canvas: Canvas, view: PublicView, area: Area, turn: Turn | None = None) -> None:
    """The six agents round the table: codename, whether it has acted, votes, what it revealed.
    With ``turn`` (the phones' pages are on), a tap on a seat's card asks to give it a new code."""
    x, y, w, h = area
    gap = 8
    cw, ch = (w - 2 * gap) / 3, (h - gap) / 2
    acting = view.step in (MESSAGES, PRIVATE, VOTE)
    for seat, (row, col) in enumerate(SEAT_SLOTS):
        card = (x + col * (cw + gap), y + row * (ch + gap), cw, ch)
        cx, cy = card[0], card[1]
        identikit = view.identikits[seat] if view.identikits is not None else None
        fill = PANEL if identikit is None else mix(FACTION_COLOUR[identikit.faction], BACKGROUND, 0.55)
        canvas.box(card, fill, radius=12)
        if seat == view.truth:
            canvas.box(card, AMBER, radius=12, width=5)
        elif identikit is not None and identikit.faction is view.winner:
            canvas.box(card, TEXT, radius=12, width=4)
        canvas.text(view.codenames[seat], (cx + 10, cy + 6, cw - 52, 38), 38, TEXT, align="left", smallest=22)
        canvas.text(str(seat), (cx + cw - 42, cy + 6, 32, 38), 38, MUTED, align="right")
        lines = [(text, *SEAT_LOOKS[kind]) for kind, text in seat_lines(canvas, view, seat)]  # text, ink, size, lines
        room = ch - 50
        squeeze = min(1.0, room / max(1, sum((size + 4) * rows for _, _, size, rows in lines)))
        line_y = cy + 46
        for text, ink, size, rows in lines:
            line_h = (size + 4) * rows * squeeze
            canvas.text(text, (cx + 10, line_y, cw - 20, line_h), size * squeeze, ink, align="left", smallest=14,
                        lines=rows)
            line_y += line_h
        if acting and seat in view.acted:
            canvas.symbol("check", (cx + cw - 28, cy + ch - 28), 44, TEXT)
        if turn is not None:
            if turn.releasing == seat:
                canvas.box(card, AMBER, radius=12, width=3)
            canvas.tap(canvas.rect(*card), mode=replace(turn, releasing=seat))


def _roles(canvas: Canvas, view: PublicView, area: Area) -> None:
    _ = canvas.gettext
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    canvas.text(_("ROLES IN PLAY"), (x + 10, y + 4, w - 20, 24), 22, MUTED, align="left", smallest=16)
    canvas.text(roles_in_play(canvas, view), (x + 10, y + 28, w - 20, h - 32), 30, TEXT, smallest=18, lines=2)


def _winning_code(canvas: Canvas, view: PublicView, area: Area) -> None:
    """At the end, the winning faction's code, its fragments in order, under a heading of its own."""
    _ = canvas.gettext
    x, y, w, _h = area
    code = winning_code(view)
    if view.winner is None or code is None:
        # a programming error: asked only of a won game
        raise ValueError("the winning code shows only once a faction has won")
    canvas.box(area, PANEL, radius=12)
    canvas.text(_("WINNING CODE"), (x + 10, y + 4, w - 20, 24), 22, MUTED, align="left", smallest=16)
    canvas.text(_("{team} faction's code").format(team=TeamWord(view.winner.value, canvas.lang)),
                (x + 10, y + 32, w - 20, 30), 28, MUTED, smallest=16)
    for i, fragment in enumerate(code):
        canvas.text(fragment, (x + 10, y + 66 + i * 40, w - 20, 40), 40, FACTION_INK[view.winner])


def _truth_machine(canvas: Canvas, view: PublicView, area: Area) -> None:
    """Who is at the truth machine, or the last fact it revealed."""
    _ = canvas.gettext
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    canvas.text(_("TRUTH MACHINE"), (x + 10, y + 4, w - 20, 24), 22, MUTED, align="left", smallest=16)
    shows, said = truth_machine(canvas, view)
    if shows is Truth.AT:
        codename, reveals = said
        canvas.text(codename, (x + 10, y + 32, w - 20, 44), 44, AMBER, smallest=24)
        canvas.text(reveals, (x + 10, y + 80, w - 20, h - 88), 26, TEXT, smallest=16, lines=3)
    elif shows is Truth.LAST:
        phase, codename, fact = said
        canvas.text(phase, (x + 10, y + 28, w - 20, 24), 22, MUTED, align="left", smallest=16)
        canvas.text(codename, (x + 10, y + 54, w - 20, 40), 40, TEXT, smallest=22)
        canvas.text(fact, (x + 10, y + 96, w - 20, h - 104), 30, AMBER, smallest=16, lines=2)
    else:
        canvas.text(said[0], (x + 10, y + 32, w - 20, h - 40), 28, MUTED, smallest=16)


def _join(canvas: Canvas, view: PublicView, seat: int, link: str, area: Area) -> None:
    """The QR code of one seat's phone page, until a phone has opened it: one seat at a time,
    named above its code, so each agent scans its own and the next code shows after it."""
    _ = canvas.gettext
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    caption = 64
    canvas.text(_("{agent}: scan with your phone to join").format(agent=agent_name(canvas, view.codenames, seat)),
                (x + 8, y + 4, w - 16, caption - 8), 28, TEXT, smallest=16, lines=2)
    side = min(w - 16, h - caption - 8)
    rect = canvas.rect(x + (w - side) / 2, y + caption, side, side)
    image = qr_image(link, rect.width)
    canvas.surface.blit(image, image.get_rect(center=rect.center))


def _release(canvas: Canvas, view: PublicView, turn: Turn, area: Area) -> None:
    """A seat's card was tapped: ask before its phone page gets a new link (NEW CODE) or not (CANCEL)."""
    _ = canvas.gettext
    seat = turn.releasing
    if seat is None:
        # a programming error: asked only while releasing
        raise ValueError("NEW CODE or CANCEL is asked only while a seat's card is being released")
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    canvas.box(area, AMBER, radius=12, width=4)
    agent = agent_name(canvas, view.codenames, seat)
    canvas.text(_("A new code for {agent}?").format(agent=agent), (x + 12, y + 10, w - 24, 76), 34, TEXT,
                smallest=20, lines=2)
    canvas.text(_("Its page stops opening on the phone that has it now, and the screen shows a new code "
                  "for the agent to scan. The game goes on as it is."),
                (x + 12, y + 92, w - 24, h - 92 - 84), 24, TEXT, smallest=16, lines=5)
    gap = 8
    bw = (w - 24 - gap) / 2
    buttons_y = y + h - 12 - 64
    canvas.button((x + 12, buttons_y, bw, 64), _("NEW CODE"), ReleaseSeat(seat), style="primary", size=28)
    canvas.button((x + 12 + bw + gap, buttons_y, bw, 64), _("CANCEL"), mode=replace(turn, releasing=None), size=28)


def _call(canvas: Canvas, view: PublicView, turn: Turn, area: Area) -> None:
    """Pass-and-play's word to the table: whom to pass the screen to, or that all is hidden."""
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    canvas.box(area, AMBER, radius=12, width=4)
    canvas.text(call_words(canvas, view, turn), (x + 12, y + 10, w - 24, h - 20), 36, TEXT, smallest=18, lines=4)


def _controls(canvas: Canvas, view: PublicView, turn: Turn, area: Area) -> None:
    """The buttons under the public side (``controls``): the moves on are bright, and STOP is
    lit while pass-and-play waits for a step that needs the agents."""
    x, y, w, h = area
    offers = controls(view, turn)
    gap = 8
    bw = (w - gap * (len(offers) - 1)) / len(offers)
    for i, offer in enumerate(offers):
        label = control_label(canvas, view, turn, offer.control)
        if offer.control in (Control.I_AM, Control.NEXT_AGENT, Control.NEW_GAME):
            style = "primary"
        else:
            style = "lit" if offer.control is Control.STOP and turn.stage is Stage.WAIT else "plain"
        canvas.button((x + i * (bw + gap), y, bw, h), label, offer.command, offer.turn, style=style, size=28)


# --- an agent's own turn ------------------------------------------------------------------------


def _agent_turn(canvas: Canvas, view: AgentView, actions: list[CodexAction], turn: Turn,
                refusal: Text | None, top: float) -> None:
    """What only the agent at the screen may see, and the buttons for what it may do now."""
    _ = canvas.gettext
    public = view.public
    me = view.identikit
    colour = FACTION_COLOUR[me.shown_faction]
    canvas.box((0, top, DESIGN[0], HEADER), mix(BACKGROUND, colour, 0.3), radius=0)
    canvas.box((0, top, 12, HEADER), colour, radius=0)
    buttons = menu(turn, actions)
    choice = buttons.choice
    right = DESIGN[0] - 8
    canvas.button((right - 110, top + 14, 110, 62), _("HIDE"), mode=buttons.hide, size=28)
    right -= 118
    if buttons.back is not None:
        canvas.button((right - 130, top + 14, 130, 62), _("BACK"), mode=buttons.back, size=28)
        right -= 138
    canvas.text(agent_title(canvas, view), (28, top + 4, right - 36, 44), 44, TEXT, align="left", smallest=24)
    canvas.text(headline(canvas, public), (28, top + 50, right - 36, 34), 30, mix(TEXT, MUTED, 0.4),
                align="left", smallest=18)
    body = top + HEADER + 8
    _identikit(canvas, view, actions, (8, body, 250, DESIGN[1] - 8 - body))
    x, w = 268, DESIGN[0] - 8 - 268
    columns = min(4, max(2, len(buttons.options)))
    rows = max(1, math.ceil(len(buttons.options) / columns))
    buttons_h = rows * 64 + (rows - 1) * 8
    buttons_y = DESIGN[1] - 8 - buttons_h
    prompt_y = buttons_y - 46
    so_far = code_so_far(canvas, choice)
    notes_end = prompt_y - 4 if so_far is None else prompt_y - 44
    _notes(canvas, view, (x, body, w, notes_end - body))
    if so_far is not None:  # a line of its own: beside the prompt it read as the position's fragment
        canvas.text(so_far, (x, prompt_y - 40, w, 36), 30, TEXT, align="left", smallest=16)
    if refusal is not None:
        canvas.text(capital(say(refusal, canvas.lang)), (x, prompt_y, w, 42), 28, AMBER, align="left",
                    smallest=16, lines=2)
    else:
        canvas.text(choice_prompt(canvas, public, choice, bool(actions)), (x, prompt_y, w, 42), 32, TEXT,
                    align="left", smallest=16, lines=2)
    gap = 8
    bw = (w - (columns - 1) * gap) / columns
    for i, option in enumerate(buttons.options):
        row, col = divmod(i, columns)
        area = (x + col * (bw + gap), buttons_y + row * (64 + gap), bw, 64)
        label = option_label(canvas, public, choice, option)
        if option.action is not None:
            canvas.button(area, label, option.action, style="primary" if option.word == "done" else "plain", size=28)
        else:
            canvas.button(area, label, mode=buttons.opens(option), size=28)


def _identikit(canvas: Canvas, view: AgentView, actions: list[CodexAction], area: Area) -> None:
    """The agent's identikit, big, and how its code stands."""
    _ = canvas.gettext
    x, y, w, h = area
    me = view.identikit
    canvas.box(area, PANEL, radius=12)
    canvas.box(area, FACTION_COLOUR[me.shown_faction], radius=12, width=4)
    canvas.text(_("IDENTIKIT"), (x + 12, y + 6, w - 24, 22), 22, MUTED, align="left", smallest=16)
    for i, (fact, name, value) in enumerate(identikit_rows(canvas, me)):
        row_y = y + 30 + i * 56
        canvas.text(name, (x + 12, row_y, w - 24, 20), 22, MUTED, align="left", smallest=14)
        ink = FACTION_INK[me.shown_faction] if fact is Fact.FACTION else TEXT
        canvas.text(value, (x + 12, row_y + 18, w - 24, 38), 42 if fact is Fact.FRAGMENT else 38,
                    ink, align="left", smallest=18)
    note_y = y + 30 + 4 * 56 + 4
    room = h - (note_y - y) - 6
    for i, line in enumerate(identikit_notes(canvas, view, actions)[:2]):
        canvas.text(line, (x + 12, note_y + i * room / 2, w - 24, room / 2), 22, TEXT, align="left", smallest=14,
                    lines=2)


def _notes(canvas: Canvas, view: AgentView, area: Area) -> None:
    """The inbox and every result the agent has had, the newest first."""
    _ = canvas.gettext
    x, y, w, h = area
    notes = agent_notes(canvas, view)
    canvas.box(area, PANEL, radius=12)
    canvas.text(_("INBOX AND RESULTS"), (x + 12, y + 4, w - 24, 22), 22, MUTED, align="left", smallest=16)
    if not notes:
        canvas.text(_("nothing yet"), (x + 12, y + 30, w - 24, 28), 26, MUTED, align="left", smallest=16)
        return
    line_h = 27
    fits = max(1, int((h - 30) // line_h))
    for i, (phase, text) in enumerate(notes[:fits]):
        label = _("phase {phase}").format(phase=phase)
        canvas.text(label, (x + 12, y + 30 + i * line_h, 86, line_h), 22, MUTED, align="left", smallest=14)
        canvas.text(text, (x + 100, y + 30 + i * line_h, w - 112, line_h), 24, TEXT, align="left", smallest=14)
