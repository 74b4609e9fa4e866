"""``pi-table bench fleet --flood`` in small (issue 37, 9): one table sends its 95 KB night 30
times a second through a real Mosquitto while another changes its status; the other's change
shows on the dashboard's live page as it did before the flood, and the flood is counted on its
table's row. Before, every night message made the standings in paho's one thread: the other
table's change took 5 to 10 s to show (median 5.0 s here), its median 6.2 ms before the flood."""

from __future__ import annotations

import pytest

from pi_table.bench import fleet
from pi_table.fleet.broker import mosquitto

from helpers import require_tools

pytestmark = pytest.mark.broker


def test_one_tables_flood_of_nights_leaves_another_tables_change_showing_at_once():
    require_tools(also_missing=() if mosquitto() else ("mosquitto",))
    figures = fleet.flood(seconds=4.0, rate=30.0)
    print(figures)
    flood, quiet, flooded = figures["flood"], figures["quiet"], figures["flooded"]
    assert flood["kb_each"] >= 90 and flood["messages"] >= 100
    assert 0 < flood["dropped_by_the_dashboard"] < flood["messages"]  # past its share: counted on its row
    assert (quiet["shown"], flooded["shown"]) == (quiet["changes"], flooded["changes"])
    assert flooded["p50_ms"] < 20 * quiet["p50_ms"] + 5, f"{flooded['p50_ms']} ms under the flood, {quiet['p50_ms']} before"
