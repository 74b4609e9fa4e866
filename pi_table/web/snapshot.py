"""What the companion may show, fixed by the table: one public view and one view per token.

The server looks a token up here and serves that entry and nothing else, so a page can never
carry more than the table chose to give its holder. The public entry is built from the
table view alone, like the LED frame: it cannot contain the key. For Codex, each seat's entry
is built from the engine's observer for that agent alone (``agent_view``), and ``seat_action``
keeps each page to its own seat's actions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..engine import Codex, CodexAction, CodexState, InvalidAction, SpymasterView, parse_codex_action
from ..engine.codex_actions import EndDiscussion, EnterCode
from ..engine.phrase import Phrase
from ..hal import TimerState
from ..ui.orientation import page_layout
from .tokens import SPYMASTER, Tokens, seat_role


@dataclass(frozen=True, slots=True)
class Snapshot:
    """``private`` maps a token to (role, view); ``public`` is for anyone on the network;
    ``replaced`` holds this game's tokens whose page the table gave a new link (a page opened
    by the wrong phone), so their holders can be told so rather than shown nothing."""

    game_id: str
    public: dict
    private: dict[str, tuple[str, dict]] = field(default_factory=dict)
    replaced: frozenset[str] = frozenset()
    sentences: dict[str, Phrase] = field(default_factory=dict)  # the views' English sentence -> its meaning


def _sentences(reason: Phrase | None) -> dict[str, Phrase]:
    """The game's end as the views' JSON says it (English) and as a page says it in its language."""
    return {} if reason is None else {str(reason): reason}


def codenames_snapshot(
    game_id: str, view: SpymasterView, tokens: Tokens, words: tuple[str, ...] | None = None
) -> Snapshot:
    """The grid games: the board for spectators, the key for whoever scanned the spymaster
    screen's code, each with the grid's layout (``page_layout``: which way up, as every picture
    of the grid). A simulated table's cards carry ``words`` (one per cell), which both pages
    show; they say nothing of the key."""
    public = {"kind": "board", "game_id": game_id, "view": view.table.to_json(), "grid": page_layout()}
    spymaster = {"kind": "spymaster", "game_id": game_id, "view": view.to_json(), "grid": page_layout()}
    if words is not None:
        public["words"] = spymaster["words"] = list(words)
    return Snapshot(game_id, public, {tokens.token(game_id, SPYMASTER): (SPYMASTER, spymaster)},
                    sentences=_sentences(view.table.reason))


def codex_snapshot(
    game_id: str, game: Codex, state: CodexState, tokens: Tokens, timer: TimerState | None = None,
    generations: tuple[int, ...] = (),
) -> Snapshot:
    """Codex: the public view for anyone, and behind each seat's token that agent's own view;
    both carry the discussion's ``timer`` while it runs (whole seconds left, as the table shows).
    A seat's token is of its generation (``generations``, 0 for a seat not listed); those of
    its earlier generations are ``replaced``.

    A seat's ``legal`` lists the text of every action it may take now, from which its page
    builds its forms; codes are the exception, as any well-formed code is accepted (a fragment
    may be heard in the discussion): one ``code SEAT`` entry says the agent may enter one, and
    ``fragments`` lists the fragments it has seen, to pick from.
    """
    clock = None if timer is None or not timer.running else {
        "remaining_s": math.ceil(timer.remaining_s), "length_s": timer.length_s}
    public_view = game.public_view(state)
    public = {"kind": "codex-public", "game_id": game_id, "title": "Codex", "timer": clock,
              "view": public_view.to_json()}
    private: dict[str, tuple[str, dict]] = {}
    replaced: set[str] = set()
    for seat in range(len(state.setup.agents)):
        view = game.agent_view(state, seat)
        legal = [str(action) for action in game.legal_actions(state, seat) if not isinstance(action, EnterCode)]
        if view.may_enter_code:
            legal.append(f"code {seat}")
        role = seat_role(seat)
        generation = generations[seat] if seat < len(generations) else 0
        replaced.update(tokens.token(game_id, role, earlier) for earlier in range(generation))
        private[tokens.token(game_id, role, generation)] = (role, {
            "kind": "codex-seat",
            "game_id": game_id,
            "title": f"Codex: {view.identikit.codename}",
            "seat": seat,
            "timer": clock,
            "view": view.to_json(),
            "legal": legal,
            "fragments": list(game.known_fragments(state, seat)),
        })
    return Snapshot(game_id, public, private, frozenset(replaced), _sentences(public_view.reason))


def seat_action(seat: int, text: str) -> CodexAction:
    """Read an action sent from seat ``seat``'s page, refusing one that is not that seat's own:
    a page's token proves whose phone it is, the text alone proves nothing. The discussion's
    end is the table's (its timer), never a phone's."""
    action = parse_codex_action(text)
    if isinstance(action, EndDiscussion):
        raise InvalidAction("the discussion ends by the table's timer, not from a phone")
    if action.seat != seat:
        raise InvalidAction("this page is seat {seat}'s: it cannot act for seat {other}", seat=seat, other=action.seat)
    return action
