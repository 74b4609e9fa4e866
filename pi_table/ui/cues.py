"""What a sound cue is (a tone, or a spoken announcement named ``say-``), a set of them, and
where each one's file is: what the table's sounds (``sound``) and each kind's own
(``grid_sound``, ``codex_sound``) are made of."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SOUNDS_DIR = Path(__file__).parent / "sounds"
SAY = "say-"
"""The prefix of a spoken announcement's name; the rest are synthesised tones."""


@dataclass(frozen=True, slots=True)
class Cue:
    """A tone cue: when it plays and what it sounds like (the README's table is made of these)."""

    name: str
    when: str
    sounds: str


@dataclass(frozen=True, slots=True)
class Sounds:
    """A set of sounds: tone cues (in the README's order) and spoken announcements (by name)."""

    cues: tuple[Cue, ...]
    phrases: Mapping[str, str]


def cue_file(name: str, lang: str) -> Path:
    """Where a cue's sound is: a tone is one file for every language, a phrase one per language."""
    if name.startswith(SAY):
        return SOUNDS_DIR / f"{name}.{lang}.wav"
    return SOUNDS_DIR / f"{name}.wav"
