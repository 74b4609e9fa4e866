"""``pi-table bench night`` in small: two tables through a real Mosquitto, a table restarted and one
offline for a round; the bench's own checks raise, so a pass means the dashboard's standings equal
a recomputation from the games and no pair met twice while it could be helped."""

from __future__ import annotations

import pytest

from pi_table.bench import night
from pi_table.fleet.broker import mosquitto
from pi_table.night.pairing import met

from helpers import require_tools

pytestmark = pytest.mark.broker


def test_a_small_night_through_mosquitto_counts_every_game_once_and_ranks_as_the_table():
    require_tools(also_missing=() if mosquitto() else ("mosquitto",))
    figures = night.run(tables=2, teams=6, rounds=4)
    assert figures["games"] == 8 and figures["repeated_pairs"] == 0
    assert 0 < figures["standings_latency"]["p50_ms"] <= figures["standings_latency"]["p99_ms"] < 5000


def test_the_round_check_refuses_a_repeat_that_could_be_helped():
    before = met([("A", "B"), ("C", "D")])
    assert night.check_round(2, [("A", "C"), ("B", "D")], before) == 0
    with pytest.raises(RuntimeError, match="round 2 repeats 2 pairs where 0 had to be"):
        night.check_round(2, [("A", "B"), ("C", "D")], before)
    assert night.check_round(2, [("A", "B")], before) == 1  # two teams alone: they must meet again
