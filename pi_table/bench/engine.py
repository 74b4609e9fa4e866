"""How fast the rules engine plays: random full games on one core.

Each game deals a seeded key and applies uniformly random legal actions until the game is
over, the way OpenSpiel's random rollouts do; the time includes ``legal_actions``. Deep
Undercover's key is dealt at its chance node, the last placement, as the session draws it.
"""

from __future__ import annotations

import random
import time

from ..engine import Game, Place, Rules, make_game
from . import percentiles

VARIANTS = {
    "codenames": Rules(game="codenames"),
    "codenames-coop": Rules(game="codenames-coop"),
    "alias24-mad": Rules(game="alias24", nuke="mad"),
    "codenames-place": Rules(game="codenames", setup="place"),
}


def play(game: Game, rng: random.Random) -> int:
    """One random full game; returns the number of actions applied."""
    state = game.start(None if game.rules.setup == "place" else game.deal(rng))
    actions = 0
    while not state.is_over:
        action = rng.choice(game.legal_actions(state))
        if isinstance(action, Place) and game.draws_key(state):  # the last placement brings the key
            action = Place(action.cell, game.deal(rng))
        state = game.apply(state, action)
        actions += 1
    return actions


def run(games: int = 2000, seed: int = 1) -> dict[str, dict[str, float]]:
    results = {}
    for name, rules in VARIANTS.items():
        game = make_game(rules)
        rng = random.Random(seed)
        durations, actions = [], 0
        start = time.perf_counter()
        for _ in range(games):
            t0 = time.perf_counter()
            actions += play(game, rng)
            durations.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - start
        results[name] = {
            "games": games,
            "games_per_s": round(games / elapsed),
            "actions_per_game": round(actions / games, 1),
            "us_per_action": round(elapsed / actions * 1e6, 2),
            **{f"{name}_per_game": value for name, value in percentiles(durations).items()},
        }
    return results
