"""Shared fixture for the engine tests: play a position given as a key string and action texts."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pi_table.engine import Game, Rules, State, Team, make_game, parse_action


@dataclass
class Played:
    game: Game
    state: State

    @property
    def view(self) -> dict:
        return self.game.table_view(self.state).to_json()

    def apply(self, text: str) -> Played:
        return Played(self.game, self.game.apply(self.state, parse_action(text)))


def _play(key: str, actions=(), rules: Rules | None = None, start: Team | None = None) -> Played:
    """Start a game on ``key`` and apply each action text in turn (python-chess style: position + moves)."""
    game = make_game(rules or Rules())
    played = Played(game, game.start(game.parse_key(key, start)))
    for text in actions:
        played = played.apply(text)
    return played


@pytest.fixture
def play():
    return _play
