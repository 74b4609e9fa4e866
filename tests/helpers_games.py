"""The games as tests play them: a key drawn as it goes down, random legal actions, twin states that
differ only in what a seat may not know."""

from __future__ import annotations

import random
import re
from dataclasses import replace

from hypothesis import strategies as st

from pi_table.engine import Action, Game, Key, Place, Rules, State, make_game, parse_action
from pi_table.engine.codex import MESSAGES, Codex, CodexState
from pi_table.engine.codex_rules import CodexRules
from pi_table.engine.codex_setup import OPTIONAL_ROLES, Fact, Role, Setup


def with_drawn_key(game: Game, state: State, action: Action, key: Key | None) -> Action:
    """Deep Undercover's last placement carries the key, drawn as it goes down: ``key`` plays the
    session's draw."""
    if isinstance(action, Place) and action.key is None and game.draws_key(state):
        return Place(action.cell, key)
    return action


def played(game: Game, key: Key, texts=()) -> State:
    """``game`` on ``key`` after each action text; Deep Undercover starts without a key, and
    ``key`` comes with its last placement."""
    state = game.start(None if game.rules.setup == "place" else key)
    for text in texts:
        state = game.apply(state, with_drawn_key(game, state, parse_action(text), key))
    return state


def hidden_swapped(key: str, board: str, rng: random.Random) -> str:
    """Another key that agrees on every shown cell: the identities of the hidden ones shuffled."""
    hidden = [cell for cell, shown in enumerate(board) if shown == "?"]
    letters = [key[cell] for cell in hidden]
    rng.shuffle(letters)
    cells = list(key)
    for cell, letter in zip(hidden, letters):
        cells[cell] = letter
    return "".join(cells)


# Codex games --------------------------------------------------------------------------------

@st.composite
def games(draw):
    roles = draw(st.none() | st.lists(st.sampled_from(OPTIONAL_ROLES), min_size=2, max_size=2, unique=True))
    game = Codex(CodexRules(roles=None if roles is None else (Role.LEADER, *roles)))
    return game, game.deal(random.Random(draw(st.integers(0, 2**32 - 1))))


def choose(game: Codex, state: CodexState, rng: random.Random):
    """A random legal action, its kind drawn first, so that codes (many) do not crowd out the rest."""
    legal = game.legal_actions(state)
    kinds = sorted({type(action).__name__ for action in legal})
    kind = rng.choice(kinds)
    return rng.choice([action for action in legal if type(action).__name__ == kind])


def scrambled(state: CodexState, seat: int, rng: random.Random) -> CodexState:
    """A twin state that differs only in what ``seat`` may not know: the other agents' identikits
    (all but the public codenames) and who did what in private, wherever ``seat`` did not act."""
    others = [s for s in range(6) if s != seat]
    moved = others[:]
    rng.shuffle(moved)
    sigma = dict(zip(others, moved))
    sigma[seat] = seat
    agents = list(state.setup.agents)
    fresh = iter(f"Z{n:03d}" for n in range(6))
    for source, target in zip(others, moved):
        agent = state.setup.agents[source]
        agents[target] = replace(agent, codename=state.setup.agents[target].codename, fragment=next(fresh))
    twin = replace(state, setup=Setup(tuple(agents)))
    return replace(
        twin,
        messages=tuple(
            m if m.sender == seat else replace(m, sender=sigma[m.sender], recipient=sigma[m.recipient])
            for m in state.messages
        ),
        attempts=tuple(a if a.seat == seat else replace(a, seat=sigma[a.seat]) for a in state.attempts),
        blocks=tuple(
            b if b.hacker == seat else replace(b, hacker=sigma[b.hacker], target=sigma[b.target]) for b in state.blocks
        ),
        questions=tuple(q if q.profiler == seat else replace(q, profiler=sigma[q.profiler]) for q in state.questions),
        extortions=tuple(
            e if e.inquisitore == seat else replace(e, inquisitore=sigma[e.inquisitore], target=sigma[e.target])
            for e in state.extortions
        ),
    )


def known_fragments(state: CodexState, seat: int) -> set[str]:
    """The fragments ``seat`` may have seen, from the game itself rather than any view: its own,
    those sent to it once delivered, those the truth machine revealed, those it typed into a
    code itself; all of them at the end."""
    if state.is_over:
        return {agent.fragment for agent in state.setup.agents}
    delivered = [m for m in state.messages if m.recipient == seat and not (m.phase == state.phase and state.step == MESSAGES)]
    return (
        {state.setup.agents[seat].fragment}
        | {m.fragment for m in delivered}
        | {str(r.value) for r in state.revelations if r.fact is Fact.FRAGMENT}
        | {part for attempt in state.attempts if attempt.seat == seat for part in attempt.code.split("-")}
    )


def pick(page, form: str, label: str | re.Pattern) -> None:
    page.locator(f'form[data-form="{form}"] label.chip', has_text=label).click()


def submit(page, form: str) -> None:
    page.locator(f'form[data-form="{form}"] button[type=submit]').click()


def dealt_key(seed: int = 5) -> str:
    rules = Rules()
    return make_game(rules).deal(random.Random(seed)).cells
