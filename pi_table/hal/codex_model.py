"""What Codex's loop shows the screen, and the phones' pages are made from: a Codex game's model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..engine.codex import Codex, CodexState  # this model loads with Codex's rooms, when Codex is played
from ..engine.phrase import Text
from .cues import Cues


@dataclass(frozen=True, slots=True)
class CodexModel:
    """Everything the table shows of a Codex game. The screen, turned to the table, draws the
    public side from it (and in pass-and-play one agent's own view at a time); the companion
    derives each phone's page. It holds the whole state because the screen and the phones
    each choose their observer: the public one, or one agent's."""

    kind: ClassVar[str] = "codex"
    game: Codex
    state: CodexState
    game_id: str
    message: Text | None = None  # the last refusal, for ``i18n.say``
    cues: Cues = Cues()  # warnings, and the discussion's timer
    lang: str = "en"
    joins: tuple[str | None, ...] = ()  # per seat, its phone page's link until a phone opens it
    notice: Text | None = None  # for this screen alone, as ScreenModel's

    @property
    def warnings(self) -> tuple[Text, ...]:
        return self.cues.warnings if self.notice is None else (self.notice, *self.cues.warnings)
