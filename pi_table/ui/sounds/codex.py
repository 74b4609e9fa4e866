"""Codex's cues synthesised (``ui.codex_sound``), with the table's instruments."""

from __future__ import annotations

from collections.abc import Callable

from . import BELL, SOFT, Samples, hz, noise, notes, tone


def _knock(seed: int) -> Samples:
    return notes((0, tone(180, 0.08, SOFT, end_hz=120, decay_s=0.02)), (0, [0.5 * x for x in noise(0.03, 0.006, seed)]))


def _codex_messages() -> Samples:
    return notes((0, tone(hz(81), 0.2, SOFT, decay_s=0.08)), (0.14, tone(hz(81), 0.3, SOFT, decay_s=0.1)))


def _codex_private() -> Samples:
    return notes((0, _knock(3)), (0.22, _knock(4)))


def _codex_discussion() -> Samples:
    return notes(*((i * 0.08, tone(hz(m), 0.25, BELL, decay_s=0.1)) for i, m in enumerate((74, 78, 81))))


def _codex_vote() -> Samples:
    sharp = [2 * x for x in _knock(5)]
    return notes((0, sharp), (0.15, sharp), (0.3, sharp))


def _truth_machine() -> Samples:
    return tone(300, 0.8, BELL, end_hz=1200, decay_s=2.0, attack_s=0.05)


def _truth_reveal() -> Samples:
    return notes(*((i * 0.06, tone(hz(m), 0.3, BELL, decay_s=0.08)) for i, m in enumerate((91, 88, 95, 93))))


SYNTHS: dict[str, Callable[[], Samples]] = {
    "codex-messages": _codex_messages, "codex-private": _codex_private, "codex-discussion": _codex_discussion,
    "codex-vote": _codex_vote, "truth-machine": _truth_machine, "truth-reveal": _truth_reveal,
}
"""Codex's cues' synthesisers, in the README's order."""
