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
``Turn``, with the seat whose release waits for an answer), as ``ScreenPainter`` keeps its
mode for the grid games, and turns taps into the agents' actions. What that ``Turn`` does (whom
pass-and-play calls, what the agent at the screen may choose, what the public side offers and
may say) is codex_turns.py's, which draws nothing; this module paints it.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pygame

from ..engine import AgentView, CodexAction, Fact, Faction, PublicView, Role
from ..engine.codex import DISCUSSION, MESSAGES, OVER, PRIVATE, TRUTH, VOTE, tally
from ..engine.codex_actions import EnterCode
from ..engine.keys import BLUE_AGENT, RED_AGENT
from ..engine.phrase import N_, Text
from ..hal import CodexModel, Command, ReleaseSeat
from .canvas import (
    AMBER,
    BACKGROUND,
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
    Control,
    Option,
    Panel,
    Stage,
    Turn,
    after_command,
    choice_path,
    controls,
    follow,
    menu,
    next_join,
    panel,
    public_refusal,
    releasable,
    shown_vote,
)
from .i18n import TeamWord, say
from .mounting import ScreenSettings

FACTION_COLOUR = {Faction.RED: CARD[RED_AGENT], Faction.BLUE: CARD[BLUE_AGENT]}
FACTION_INK = {faction: mix(colour, TEXT, 0.3) for faction, colour in FACTION_COLOUR.items()}
SEAT_SLOTS = ((0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0))
"""Where each seat's card is, (row, column): clockwise round the table, as the seats' lights."""

FACT_WORDS = {
    Fact.CODENAME: N_("codename"), Fact.FACTION: N_("faction"), Fact.ROLE: N_("role"),
    Fact.POSITION: N_("position"), Fact.FRAGMENT: N_("fragment"),
}
ROLE_TITLES = {
    Role.HACKER: N_("Hacker"), Role.INFILTRATO: N_("Infiltrato"), Role.INFORMATORE: N_("Informatore"),
    Role.INQUISITORE: N_("Inquisitore"), Role.LEADER: N_("Leader"), Role.PROFILER: N_("Profiler"),
}
STEP_TITLES = {
    MESSAGES: N_("Messages"), PRIVATE: N_("Private turn"), DISCUSSION: N_("Discussion"), VOTE: N_("Vote"),
    TRUTH: N_("Truth machine"), OVER: N_("Game over"),
}
CONTROL_WORDS = {
    Control.I_AM: N_("I AM {codename}"), Control.NEXT_AGENT: N_("NEXT AGENT"), Control.NEW_GAME: N_("NEW GAME"),
    Control.PASS_AND_PLAY: N_("PASS AND PLAY"), Control.STOP: N_("STOP"), Control.VOTE_NOW: N_("VOTE NOW"),
}
RESULTS = {"pending": N_("sealed till the step ends"), "wrong": N_("wrong"), "right": N_("right"),
           "blocked": N_("void: blocked by a Hacker")}
OUTCOMES = {"named": N_("named"), "kept": N_("another Inquisitore was first: power kept"),
            "missed": N_("not sent to the truth machine: power kept"), "extorted": N_("extorted")}


# --- the painter ---------------------------------------------------------------------------------


class CodexPainter:
    """Draws a CodexModel and turns taps into the agents' actions; remembers the ``Turn``. Made,
    as every kind's painter, with the screen's settings: the key's rotation, which Codex, with
    no key, draws the same whatever it is."""

    def __init__(self, settings: ScreenSettings = ScreenSettings()) -> None:
        self.settings = settings
        self.turn = Turn()
        self.frame = Frame((), (), ())
        self._game_id: str | None = None
        self._drawn: CodexModel | None = None
        self._sent_from: CodexModel | None = None  # the model an agent's action was tapped on
        self._refusal: Text | None = None  # why the table refused that action

    def draw(self, surface: pygame.Surface, model: CodexModel, now: float, since: float | None = None) -> Frame:
        if model.game_id != self._game_id:
            self.turn, self._game_id = Turn(), model.game_id
        if self._sent_from is not None and model is not self._sent_from:
            # the first model after an agent's tap: the loop clears its message on every
            # accepted command, so a message here is that action's refusal
            self._refusal, self._sent_from = model.message, None
        self.turn = follow(self.turn, model.game.public_view(model.state))
        self._drawn = model
        own = self._refusal if self.turn.stage is Stage.AGENT else None
        self.frame = draw_codex(surface, model, self.turn, now, since, own)
        return self.frame

    def tap(self, pos: tuple[int, int]) -> Command | None:
        """The command a tap at ``pos`` sends, or None when it only moves pass-and-play on."""
        hit = self.frame.at(pos)
        if hit is None:
            return None
        self._refusal = None
        if isinstance(hit.mode, Turn):  # the Codex screen draws no Mode
            self.turn = hit.mode
            return None
        if self.turn.stage is Stage.AGENT:
            self._sent_from = self._drawn
        self.turn = after_command(self.turn)
        return hit.command

    def route(self, action: CodexAction) -> Tap | None:
        """The tap on the frame that sends ``action``, or else makes the next choice on its way
        (BACK, when the choices so far lead elsewhere); None when the frame offers neither."""
        path = choice_path(action)
        sends = [tap for tap in self.frame.taps if tap.command == action]
        if sends or self.turn.stage is not Stage.AGENT:
            return next(iter(sends), None)
        toward = [
            tap for tap in self.frame.taps
            if isinstance(tap.mode, Turn) and tap.mode.stage is Stage.AGENT and tap.mode.seat == self.turn.seat
            and path[: len(tap.mode.choice)] == tap.mode.choice
        ]
        return max(toward, key=_choices_made, default=None)


def _choices_made(tap: Tap) -> int:
    """How many choices the pass-and-play Turn a tap leads to has made (0: it leads to no Turn)."""
    return len(tap.mode.choice) if isinstance(tap.mode, Turn) else 0


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
        top = 44
    game, state = model.game, model.state
    if turn.stage is Stage.AGENT:
        view = game.agent_view(state, turn.agent)
        _agent_turn(canvas, view, game.legal_actions(state, turn.agent), turn, own_refusal, top)
    else:
        _public(canvas, model, game.public_view(state), turn, top, now, since)
    return Frame(tuple(canvas.taps), (), tuple(canvas.texts))


# --- words --------------------------------------------------------------------------------------


def _agent(canvas: Canvas, codenames: tuple[str, ...], seat: int) -> str:
    return canvas.gettext("{codename} (seat {seat})").format(codename=codenames[seat], seat=seat)


def _value(canvas: Canvas, fact: Fact, value: str | int) -> str:
    """A fact's value in words: the faction as its colour, the role by its title."""
    if fact is Fact.FACTION:
        return str(TeamWord(str(value), canvas.lang))
    if fact is Fact.ROLE:
        return canvas.gettext(ROLE_TITLES[Role(value)])
    return str(value)


def _fact(canvas: Canvas, fact: Fact, value: str | int) -> str:
    return f"{canvas.gettext(FACT_WORDS[fact])}: {_value(canvas, fact, value)}"


def _facts(canvas: Canvas, facts) -> str:
    return ", ".join(_fact(canvas, fact, value) for fact, value in facts)


def _headline(canvas: Canvas, view: PublicView) -> str:
    _ = canvas.gettext
    return _("Phase {phase} · {step}").format(phase=view.phase, step=_(STEP_TITLES[view.step]))


def _step_words(model: CodexModel) -> str:
    state = model.state
    reason = model.game.reason(state) if state.is_over else None  # a game is over when a faction won
    return capital(say(model.game.step_words(state) if reason is None else reason, model.lang))


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
    if view.winner is not None:
        title = _("{team} faction wins").format(team=TeamWord(view.winner.value, canvas.lang)).upper()
        canvas.text(title, (28, top + 4, width, 44), 50, FACTION_INK[view.winner], align="left", smallest=30)
    else:
        canvas.text(_headline(canvas, view), (28, top + 4, width, 44), 50, TEXT, align="left", smallest=30)
    refusal = public_refusal(model.message)
    if refusal is not None:
        canvas.symbol("alert", (42, top + 67), 26, AMBER)
        canvas.text(capital(say(refusal, model.lang)), (64, top + 50, width - 36, 36), 30, AMBER, align="left",
                    smallest=20, lines=2)
    else:
        canvas.text(_step_words(model), (28, top + 50, width, 36), 30, mix(TEXT, MUTED, 0.4), align="left",
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
        else:
            _truth_machine(canvas, view, middle)
    _controls(canvas, view, turn, (x, DESIGN[1] - 8 - buttons, w, buttons))


def _seats(canvas: Canvas, view: PublicView, area, turn: Turn | None = None) -> None:
    """The six agents round the table: codename, whether it has acted, votes, what it revealed.
    With ``turn`` (the phones' pages are on), a tap on a seat's card asks to give it a new code."""
    _ = canvas.gettext
    x, y, w, h = area
    gap = 8
    cw, ch = (w - 2 * gap) / 3, (h - gap) / 2
    vote = shown_vote(view)
    acting = view.step in (MESSAGES, PRIVATE, VOTE)
    chose = dict(view.ballots)  # the vote going on, public as each ballot is cast (unless sealed)
    so_far = tally(view.ballots)
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
        lines: list[tuple[str, tuple[int, int, int], int, int]] = []  # text, ink, size, lines
        if seat == view.truth:
            lines.append((_("at the truth machine"), AMBER, 26, 2))
        elif seat in chose:
            lines.append((_("votes for {agent}").format(agent=view.codenames[chose[seat]]), TEXT, 26, 2))
        elif acting:
            done = seat in view.acted
            lines.append((_("done") if done else _("to act"), TEXT if done else MUTED, 30, 1))
        count = vote.tally[seat] if vote is not None else so_far[seat]
        if vote is not None or count:
            lines.append((_("1 vote") if count == 1 else _("{count} votes").format(count=count), TEXT, 30, 1))
        if identikit is not None:
            lines.append((_value(canvas, Fact.ROLE, identikit.role.value), TEXT, 30, 1))
            if identikit.role is Role.INFILTRATO:  # the faction it shows, as its own identikit says
                team = TeamWord(identikit.shown_faction.value, canvas.lang)
                lines.append((_("shows {team}").format(team=team), TEXT, 26, 2))
            lines.append((f"{identikit.position} · {identikit.fragment}", TEXT, 30, 1))
        else:
            latest = view.revelations[-1] if view.revelations else None
            lines += [(_fact(canvas, r.fact, r.value), AMBER if r is latest else TEXT, 26, 1)
                      for r in view.revelations if r.seat == seat]
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


def _roles(canvas: Canvas, view: PublicView, area) -> None:
    _ = canvas.gettext
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    canvas.text(_("ROLES IN PLAY"), (x + 10, y + 4, w - 20, 24), 22, MUTED, align="left", smallest=16)
    names = " · ".join(_(ROLE_TITLES[role]) for role in view.roles)
    canvas.text(names, (x + 10, y + 28, w - 20, h - 32), 30, TEXT, smallest=18, lines=2)


def _truth_machine(canvas: Canvas, view: PublicView, area) -> None:
    """Who is at the truth machine, or the last fact it revealed."""
    _ = canvas.gettext
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    canvas.text(_("TRUTH MACHINE"), (x + 10, y + 4, w - 20, 24), 22, MUTED, align="left", smallest=16)
    if view.identikits is not None and view.winner is not None:
        canvas.text(_("{team} faction's code").format(team=TeamWord(view.winner.value, canvas.lang)),
                    (x + 10, y + 32, w - 20, 30), 28, MUTED, smallest=16)
        members = sorted((a for a in view.identikits if a.faction is view.winner), key=lambda a: a.position)
        for i, agent in enumerate(members):
            canvas.text(agent.fragment, (x + 10, y + 66 + i * 40, w - 20, 40), 40, FACTION_INK[view.winner])
    elif view.truth is not None:
        canvas.text(view.codenames[view.truth], (x + 10, y + 32, w - 20, 44), 44, AMBER, smallest=24)
        canvas.text(_("reveals one fact of its identikit, truthfully"), (x + 10, y + 80, w - 20, h - 88), 26,
                    TEXT, smallest=16, lines=3)
    elif view.revelations:
        last = view.revelations[-1]
        canvas.text(_("phase {phase}").format(phase=last.phase), (x + 10, y + 28, w - 20, 24), 22, MUTED,
                    align="left", smallest=16)
        canvas.text(view.codenames[last.seat], (x + 10, y + 54, w - 20, 40), 40, TEXT, smallest=22)
        canvas.text(_fact(canvas, last.fact, last.value), (x + 10, y + 96, w - 20, h - 104), 30, AMBER,
                    smallest=16, lines=2)
    else:
        canvas.text(_("nobody yet"), (x + 10, y + 32, w - 20, h - 40), 28, MUTED, smallest=16)


def _join(canvas: Canvas, view: PublicView, seat: int, link: str, area) -> None:
    """The QR code of one seat's phone page, until a phone has opened it: one seat at a time,
    named above its code, so each agent scans its own and the next code shows after it."""
    _ = canvas.gettext
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    caption = 64
    canvas.text(_("{agent}: scan with your phone to join").format(agent=_agent(canvas, view.codenames, seat)),
                (x + 8, y + 4, w - 16, caption - 8), 28, TEXT, smallest=16, lines=2)
    side = min(w - 16, h - caption - 8)
    rect = canvas.rect(x + (w - side) / 2, y + caption, side, side)
    image = qr_image(link, rect.width)
    canvas.surface.blit(image, image.get_rect(center=rect.center))


def _release(canvas: Canvas, view: PublicView, turn: Turn, area) -> None:
    """A seat's card was tapped: ask before its phone page gets a new link (NEW CODE) or not (CANCEL)."""
    _ = canvas.gettext
    seat = turn.releasing
    if seat is None:
        raise ValueError("NEW CODE or CANCEL is asked only while a seat's card is being released")
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    canvas.box(area, AMBER, radius=12, width=4)
    agent = _agent(canvas, view.codenames, seat)
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


def _call(canvas: Canvas, view: PublicView, turn: Turn, area) -> None:
    """Pass-and-play's word to the table: whom to pass the screen to, or that all is hidden."""
    _ = canvas.gettext
    x, y, w, h = area
    canvas.box(area, PANEL, radius=12)
    canvas.box(area, AMBER, radius=12, width=4)
    if turn.stage is Stage.PASS:
        text = _("Pass the screen to {agent}").format(agent=_agent(canvas, view.codenames, turn.agent))
    else:
        text = _("Hidden. Pass the screen to the next agent")
    canvas.text(text, (x + 12, y + 10, w - 24, h - 20), 36, TEXT, smallest=18, lines=4)


def _controls(canvas: Canvas, view: PublicView, turn: Turn, area) -> None:
    """The buttons under the public side (``controls``): the moves on are bright, and STOP is
    lit while pass-and-play waits for a step that needs the agents."""
    _ = canvas.gettext
    x, y, w, h = area
    offers = controls(view, turn)
    gap = 8
    bw = (w - gap * (len(offers) - 1)) / len(offers)
    for i, offer in enumerate(offers):
        label = _(CONTROL_WORDS[offer.control])
        if offer.control is Control.I_AM:
            label = label.format(codename=view.codenames[turn.agent].upper())
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
    canvas.text(_("{agent}: your turn").format(agent=_agent(canvas, public.codenames, view.seat)),
                (28, top + 4, right - 36, 44), 44, TEXT, align="left", smallest=24)
    canvas.text(_headline(canvas, public), (28, top + 50, right - 36, 34), 30, mix(TEXT, MUTED, 0.4),
                align="left", smallest=18)
    body = top + HEADER + 8
    can_code = any(isinstance(action, EnterCode) for action in actions)
    _identikit(canvas, view, can_code, (8, body, 250, DESIGN[1] - 8 - body))
    x, w = 268, DESIGN[0] - 8 - 268
    columns = min(4, max(2, len(buttons.options)))
    rows = max(1, math.ceil(len(buttons.options) / columns))
    buttons_h = rows * 64 + (rows - 1) * 8
    buttons_y = DESIGN[1] - 8 - buttons_h
    prompt_y = buttons_y - 46
    _notes(canvas, view, (x, body, w, prompt_y - 4 - body))
    if refusal is not None:
        canvas.text(capital(say(refusal, canvas.lang)), (x, prompt_y, w, 42), 28, AMBER, align="left",
                    smallest=16, lines=2)
    else:
        canvas.text(_prompt(canvas, public, choice, bool(actions)), (x, prompt_y, w, 42), 32, TEXT, align="left",
                    smallest=16, lines=2)
    gap = 8
    bw = (w - (columns - 1) * gap) / columns
    for i, option in enumerate(buttons.options):
        row, col = divmod(i, columns)
        area = (x + col * (bw + gap), buttons_y + row * (64 + gap), bw, 64)
        label = _option_label(canvas, public, choice, option)
        if option.action is not None:
            canvas.button(area, label, option.action, style="primary" if option.word == "done" else "plain", size=28)
        else:
            canvas.button(area, label, mode=buttons.opens(option), size=28)


def _identikit(canvas: Canvas, view: AgentView, can_code: bool, area) -> None:
    """The agent's identikit, big, and how its code stands (``can_code``: it has seen three
    fragments to enter one with)."""
    _ = canvas.gettext
    x, y, w, h = area
    me = view.identikit
    canvas.box(area, PANEL, radius=12)
    canvas.box(area, FACTION_COLOUR[me.shown_faction], radius=12, width=4)
    canvas.text(_("IDENTIKIT"), (x + 12, y + 6, w - 24, 22), 22, MUTED, align="left", smallest=16)
    rows = [(Fact.FACTION, me.shown_faction.value), (Fact.ROLE, me.role.value), (Fact.POSITION, me.position),
            (Fact.FRAGMENT, me.fragment)]
    for i, (fact, value) in enumerate(rows):
        row_y = y + 30 + i * 56
        canvas.text(_(FACT_WORDS[fact]), (x + 12, row_y, w - 24, 20), 22, MUTED, align="left", smallest=14)
        ink = FACTION_INK[me.shown_faction] if fact is Fact.FACTION else TEXT
        canvas.text(_value(canvas, fact, value), (x + 12, row_y + 18, w - 24, 38), 42 if fact is Fact.FRAGMENT else 38,
                    ink, align="left", smallest=18)
    lines = []
    if me.role is Role.INFILTRATO:
        lines.append(_("you belong to the {team} faction and win with it").format(
            team=TeamWord(me.faction.value, canvas.lang)))
    if view.may_enter_code:
        lines.append(_("you may enter a code now") if can_code else _("a code needs three fragments you have seen"))
    elif me.role is not Role.LEADER and any(a.result == "wrong" for a in view.attempts):
        lines.append(_("your one try at the code is spent"))
    note_y = y + 30 + 4 * 56 + 4
    room = h - (note_y - y) - 6
    for i, line in enumerate(lines[:2]):
        canvas.text(line, (x + 12, note_y + i * room / 2, w - 24, room / 2), 22, TEXT, align="left", smallest=14,
                    lines=2)


def _notes(canvas: Canvas, view: AgentView, area) -> None:
    """The inbox and every result the agent has had, the newest first."""
    _ = canvas.gettext
    x, y, w, h = area
    codenames = view.public.codenames
    notes: list[tuple[int, str]] = []
    for message in view.inbox:
        text = _("message {number}: {fragment} - {facts}").format(
            number=message.number, fragment=message.fragment, facts=_facts(canvas, message.facts))
        if message.profiled is not None:
            text += " (" + _("sender's {fact}").format(fact=_fact(canvas, *message.profiled)) + ")"
        notes.append((message.phase, text))
    for sent in view.sent:
        notes.append((sent.phase, _("you told {agent}: {facts}").format(
            agent=_agent(canvas, codenames, sent.recipient), facts=_facts(canvas, sent.facts))))
    for attempt in view.attempts:
        notes.append((attempt.phase, _("code {code}: {result}").format(
            code=attempt.code, result=_(RESULTS[attempt.result]))))
    for phase in view.blocked_in:
        notes.append((phase, _("a Hacker blocked you: no code this phase")))
    for revelation in view.extorted:
        notes.append((revelation.phase, _("an Inquisitore made the truth machine reveal your {fact}").format(
            fact=_(FACT_WORDS[revelation.fact]))))
    for block in view.blocks:
        notes.append((block.phase, _("you blocked {agent}").format(agent=_agent(canvas, codenames, block.target))))
    for extortion in view.extortions:
        notes.append((extortion.phase, _("you extort the {fact} of {agent}: {outcome}").format(
            fact=_(FACT_WORDS[extortion.fact]), agent=_agent(canvas, codenames, extortion.target),
            outcome=_(OUTCOMES[extortion.outcome]))))
    canvas.box(area, PANEL, radius=12)
    canvas.text(_("INBOX AND RESULTS"), (x + 12, y + 4, w - 24, 22), 22, MUTED, align="left", smallest=16)
    if not notes:
        canvas.text(_("nothing yet"), (x + 12, y + 30, w - 24, 28), 26, MUTED, align="left", smallest=16)
        return
    line_h = 27
    fits = max(1, int((h - 30) // line_h))
    newest = sorted(notes, key=lambda note: -note[0])[:fits]
    for i, (phase, text) in enumerate(newest):
        label = _("phase {phase}").format(phase=phase)
        canvas.text(label, (x + 12, y + 30 + i * line_h, 86, line_h), 22, MUTED, align="left", smallest=14)
        canvas.text(text, (x + 100, y + 30 + i * line_h, w - 112, line_h), 24, TEXT, align="left", smallest=14)


def _prompt(canvas: Canvas, public: PublicView, choice: tuple[str, ...], can_act: bool) -> str:
    """What the buttons below are choosing."""
    _ = canvas.gettext
    if not can_act:
        return _("Nothing to do now: tap HIDE")
    verb, depth = (choice[0] if choice else None), len(choice)
    if verb is None:
        return _("Enter a code, use your power, or end your private turn")
    if verb == "send":
        if depth == 1:
            return _("Send your fragment and one fact to")
        return _("With your fragment, tell {agent}").format(agent=_agent(canvas, public.codenames, int(choice[1])))
    if verb == "code":
        return _("Your faction's code: the fragment in position {position}").format(position=depth) + (
            "  " + "-".join(choice[1:]) if depth > 1 else "")
    if verb == "block":
        return _("Block an agent from entering a code this phase")
    if verb == "profile":
        return _("Ask about the sender of a message") if depth == 1 else _("Which fact of its sender?")
    if verb == "vote":
        if depth == 1:
            return _("Vote: who goes to the truth machine?")
        return _("Extort a fact from {agent}, if it goes there?").format(
            agent=_agent(canvas, public.codenames, int(choice[1])))
    return _("Reveal one fact of your identikit, truthfully")


def _option_label(canvas: Canvas, public: PublicView, choice: tuple[str, ...], option: Option) -> str:
    """A button's words for choosing ``option.word`` after ``choice``."""
    _ = canvas.gettext
    word, depth = option.word, len(choice)
    if not word:  # what the choice already completes: an Inquisitore's vote without extortion
        return _("no extortion")
    if depth == 0:
        verbs = {"done": N_("END MY TURN"), "code": N_("ENTER A CODE"), "block": N_("BLOCK AN AGENT"),
                 "profile": N_("ASK ABOUT A SENDER"), "send": N_("SEND"), "vote": N_("VOTE"),
                 "reveal": N_("REVEAL")}
        return _(verbs[word])
    verb = choice[0]
    if (verb in ("send", "block", "vote")) and depth == 1:
        return _agent(canvas, public.codenames, int(word))
    if verb == "profile" and depth == 1:
        return _("message {number}").format(number=word)
    if verb == "code":
        return word
    facts = word.removeprefix("extort ").split()
    names = " + ".join(_(FACT_WORDS[Fact(fact)]) for fact in facts)
    return _("extort: {fact}").format(fact=names) if word.startswith("extort") else names
