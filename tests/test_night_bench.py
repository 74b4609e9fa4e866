"""``pi-table bench night`` in small: two tables, each ``pi-table run`` with its board emulator,
one Mosquitto and ``pi-table fleet``, the host and a follower killed mid-game and the broker
killed between rounds; the bench's own checks raise, so a pass means the host's and the
dashboard's standings equal the bench's own recomputation (Weng and Lin's Plackett-Luce written
there) and every game counted once for its round and pair."""

from __future__ import annotations

from collections import Counter

import pytest

from pi_table.bench import night
from pi_table.fleet.broker import mosquitto

from helpers import require_tools

pytestmark = [pytest.mark.broker, pytest.mark.slow]


def test_a_small_night_of_real_processes_counts_every_game_once_and_ranks_as_a_recomputation():
    require_tools(also_missing=() if mosquitto() else ("mosquitto",))
    figures = night.run(tables=2, teams=5, rounds=3)
    assert figures["games"] == 6 and figures["repeated_pairs"] == 0
    assert 0 < figures["standings_latency"]["p50_ms"] <= figures["standings_latency"]["p99_ms"] < 5000
    assert figures["table_to_broker"]["p50_ms"] > 0 and figures["broker_to_page"]["p50_ms"] > 0


def test_the_recomputation_is_weng_and_lins_plackett_luce_as_openskill_rates():
    """The bench's own rating, written from the paper, agrees with the library the table uses."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    mine = {"A": [25.0, 25 / 3], "B": [25.0, 25 / 3]}
    theirs = {"A": model.rating(name="A"), "B": model.rating(name="B")}
    for winner in ("A", "A", None, "B"):
        night.plackett_luce(mine, "A", "B", winner)
        ranks = [1.0, 1.0] if winner is None else [1.0, 2.0] if winner == "A" else [2.0, 1.0]
        [[theirs["A"]], [theirs["B"]]] = model.rate([[theirs["A"]], [theirs["B"]]], ranks=ranks)
    for name in "AB":
        assert abs(mine[name][0] - theirs[name].mu) < 1e-9 and abs(mine[name][1] - theirs[name].sigma) < 1e-9


def test_the_round_check_refuses_a_repeat_that_could_be_helped():
    before = Counter([frozenset(("A", "B")), frozenset(("C", "D"))])
    assert night.check_round(2, [("A", "C"), ("B", "D")], list("ABCD"), before) == 0
    with pytest.raises(RuntimeError, match="round 2 repeats 2 pairs where 0 had to be"):
        night.check_round(2, [("A", "B"), ("C", "D")], list("ABCD"), before)
    assert night.check_round(2, [("A", "B")], list("AB"), before) == 1  # two teams alone: they must meet again
    with pytest.raises(RuntimeError, match="round 2 repeats 1 pairs where 0 had to be"):
        night.check_round(2, [("A", "B")], list("ABC"), before)  # C could have played A instead
