"""The sound device: plays the table's cue files, never holding up the loop."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .events import Emit


class SoundDevice(ABC):
    """A backend implements ``play`` (queue these files to be played one after another at
    ``volume``, 0 to 1, and return at once: when the device is busy or full it drops them
    rather than wait) and may implement ``start`` (keep ``post`` to report its health as a
    ``HealthEvent`` for device "sound") and ``close`` (stop and release the device)."""

    @abstractmethod
    def play(self, files: Sequence[Path], volume: float) -> None: ...

    def start(self, post: Emit) -> None:
        """Report health through ``post`` from now on."""

    def close(self) -> None:
        """Stop playing and release the device."""


class NoSound(SoundDevice):
    """A table with no speaker, or with sound turned off."""

    def play(self, files: Sequence[Path], volume: float) -> None:
        pass


@dataclass(frozen=True, slots=True)
class Played:
    """What a sound device was asked to play: the cue's files, in order, at this volume."""

    files: tuple[Path, ...]
    volume: float

    @property
    def names(self) -> tuple[str, ...]:
        """The cues' names: the files' names without ``.wav`` and the language."""
        return tuple(path.name.split(".")[0] for path in self.files)


class SimSound(SoundDevice):
    """Records what it is asked to play, for tests and the simulators."""

    def __init__(self, keep: int = 10_000) -> None:
        self.played: deque[Played] = deque(maxlen=keep)

    def play(self, files: Sequence[Path], volume: float) -> None:
        self.played.append(Played(tuple(files), volume))

    @property
    def names(self) -> list[str]:
        """Every cue played so far, in order."""
        return [name for played in self.played for name in played.names]
