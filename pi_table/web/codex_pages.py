"""Codex's pages on the phones: the public view for anyone, and behind each seat's token that
agent's own view, built from the engine's observer for that agent alone (``agent_view``);
``seat_action`` keeps each page to its own seat's actions. ``web.games`` names these."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..engine import InvalidAction
from ..engine.codex import Codex, CodexState
from ..engine.codex_actions import CodexAction, EndDiscussion, EnterCode, parse_codex_action
from ..hal import TimerState
from ..hal.codex_model import CodexModel
from .snapshot import Snapshot, sentences
from .tokens import Tokens, seat_role

if TYPE_CHECKING:
    from .pages import Pages


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
    private: dict[str, tuple[str, dict[str, Any]]] = {}
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
    return Snapshot(game_id, public, private, frozenset(replaced), sentences(public_view.reason))


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


def publish(model: CodexModel, pages: Pages) -> CodexModel:
    """Each seat's page published; the links the table's screen shows, one a seat until its phone has opened it."""
    agents = len(model.state.setup.agents)
    snapshot = codex_snapshot(model.game_id, model.game, model.state, pages.tokens, model.cues.timer,
                              pages.seats.generations(model.game_id, agents))
    pages.companion.publish(snapshot)
    token_of = {role: token for token, (role, _) in snapshot.private.items()}
    seats = (token_of[seat_role(seat)] for seat in range(agents))
    return replace(model, joins=tuple(
        None if pages.companion.was_opened(token) else pages.companion.link(token) for token in seats))


def seats(model: CodexModel) -> int:
    """A Codex game's seats: one an agent."""
    return len(model.state.setup.agents)
