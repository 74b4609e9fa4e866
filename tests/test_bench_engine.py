"""The engine benchmark plays every variant it times (the figures are in `.ci/run`, not here)."""

from __future__ import annotations

from pi_table.bench import engine


def test_every_variant_plays_to_an_end():
    results = engine.run(games=3)
    assert set(results) == set(engine.VARIANTS)
    assert all(figures["games"] == 3 and figures["actions_per_game"] > 0 for figures in results.values())
