"""Codex's sounds: its cues (each step as it begins, the truth machine, the faction that wins)
and its spoken announcements, chosen from two of its public views alone, as the grid games'."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.phrase import N_
from .cues import Cue, Sounds

if TYPE_CHECKING:
    from ..engine.codex import PublicView

SOUNDS = Sounds(
    cues=(
        Cue("codex-messages", "Codex: a phase begins, the agents send their messages", "a soft double ping"),
        Cue("codex-private", "Codex: the private turns begin", "two low knocks"),
        Cue("codex-discussion", "Codex: the discussion opens", "three quick rising notes"),
        Cue("codex-vote", "Codex: the vote opens", "a gavel: three sharp knocks"),
        Cue("truth-machine", "Codex: an agent goes to the truth machine", "a rising sweep"),
        Cue("truth-reveal", "Codex: the truth machine reveals a fact", "a high sparkle of notes"),
    ),
    phrases={
        "say-codex-win-red": N_("The red faction wins!"),
        "say-codex-win-blue": N_("The blue faction wins!"),
        "say-codex-discussion": N_("The discussion is open."),
        "say-codex-vote": N_("Time to vote."),
    },
)
"""Codex's own sounds, beside the table's (``sound.every_sound``); made by ``pi_table.ui.sounds``."""


def codex_cues(before: PublicView, after: PublicView) -> list[str]:
    """Each step as it begins, the truth machine's visit and its fact, the winner. (The step
    names are written out: the engine loads only when Codex is played.)"""
    cues = []
    if len(after.revelations) > len(before.revelations):
        cues.append("truth-reveal")
    if after.winner is not None and before.winner is None:  # a faction wins, as the book says
        cues += ["win", f"say-codex-win-{after.winner.value}"]
    elif (after.phase, after.step) != (before.phase, before.step):
        step = after.step
        if step == "truth":
            cues.append("truth-machine")
        elif step != "over":
            cues.append(f"codex-{step}")
        if step in ("discussion", "vote"):
            cues.append(f"say-codex-{step}")
    return cues
