"""The grid games' cues, chosen from two of their public views alone: a reveal from the side of
the team whose turn it was, the turn passing, the game's end. The table's own sounds
(``sound.CUES``) are theirs."""

from __future__ import annotations

from ..engine import OVER, TableView
from ..engine.described import MASTERMINDS
from ..engine.games import described, grid_game
from ..engine.keys import ASSASSIN, Team


def grid_cues(before: TableView, after: TableView) -> list[str]:
    """A reveal is heard from the side of the team whose turn it was: a card it was after (its
    own agent; in Alias 24, where teams eliminate the opponent's assets, the other's) or not."""
    cues = []
    game = grid_game(after.game)
    guessing = before.turn
    wanted = None if guessing is None else guessing if game.seeks_own else guessing.other
    for cell, (old, new) in enumerate(zip(before.board, after.board)):
        if old != "?" or new in "?." or cell in after.covered:
            continue  # not newly shown, or shown by a spymaster's cover: no touch to answer
        if new == ASSASSIN:  # the nuke, where the cards are aliases
            cues.append("nuke" if described(after.game).nouns == MASTERMINDS else "assassin")
        elif new not in (Team.RED.letter, Team.BLUE.letter):
            cues.append("reveal-bystander")
        elif guessing is not None and wanted is not None and new == wanted.letter:
            cues.append(f"reveal-{guessing.value}")
        else:
            cues.append("reveal-opponent")
    if before.phase != OVER and after.phase == OVER:
        cues += _game_end(after)
    elif after.phase != OVER and after.turn is not None and before.turn not in (None, after.turn):
        cues += ["turn", f"say-turn-{after.turn.value}"]
    return cues


def _game_end(view: TableView) -> list[str]:
    if view.winner is None:
        return ["game-over", "say-game-over"]
    if grid_game(view.game).description.cooperative:
        return ["win", "say-win-coop"] if view.score is not None else ["game-over", "say-game-over"]
    return ["win", f"say-win-{view.winner.value}"]
