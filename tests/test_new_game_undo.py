"""A new game dealt over one in progress can be taken back (issue 15, rule 3).

NEW GAME is a long press on the table and one key in the window simulator: pressed by mistake,
it used to lose the game in progress for good. ``undo`` brings that game back, as it stood and
journalled as before, until the new game's first action.
"""

from __future__ import annotations

import random

from pi_table.engine import Guess, Rules, Undo, make_game, parse_action
from pi_table.hal import NewGame
from pi_table.sim.harness import SimTable
from pi_table.table import Session

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def table(journal_dir=None) -> SimTable:
    game = make_game(Rules())
    return SimTable(Session(Rules(), rng=random.Random(1), key=game.parse_key(KEY), journal_dir=journal_dir,
                            fsync=False))


def test_undo_right_after_a_new_game_brings_the_game_in_progress_back(tmp_path):
    t = table(tmp_path)
    assert t.do(parse_action("touch 0")).ok
    before = (t.session.id, list(t.session.record.entries), t.session.state)
    assert t.do(NewGame()).ok and t.session.id != before[0]
    outcome = t.do(Undo())
    assert outcome.ok, outcome.error
    assert (t.session.id, list(t.session.record.entries), t.session.state) == before
    assert sorted(p.stem for p in tmp_path.glob("*.jsonl")) == [before[0]]  # the new game's file is gone
    assert t.do(parse_action("touch 1")).ok  # journalled on the game brought back
    t.session.close()
    resumed = Session.resume(Rules(), tmp_path, fsync=False)
    assert resumed.id == before[0] and [str(e) for e in resumed.record.entries] == ["touch 0", "touch 1"]
    resumed.close()


def test_the_new_games_first_action_makes_it_the_game():
    t = table()
    assert t.do(parse_action("touch 0")).ok
    t.do(NewGame())
    new_id = t.session.id
    assert t.do(Guess(9)).ok
    assert t.do(Undo()).ok and t.session.id == new_id  # undoes the guess, not the new game
    refused = t.do(Undo())
    assert not refused.ok and refused.error == "there is nothing to undo" and t.session.id == new_id


def test_a_finished_game_is_not_brought_back():
    t = table()
    assert t.do(parse_action("touch 24")).ok and t.session.state.is_over  # the assassin
    t.do(NewGame())
    refused = t.do(Undo())
    assert not refused.ok and refused.error == "there is nothing to undo"
