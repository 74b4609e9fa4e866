"""Sound cues: what the table plays, chosen from the public views alone.

Sound is one more renderer of the table's views, like the LEDs: ``choose_cues`` compares two
``Moment``s (the public view, the timer and the time, before and after) and names the cues to
play. It is given the table view, never the key, and a reveal cue is chosen from the card as
the table shows it after the reveal, so nothing heard can tell what a hidden card is.

``Announcer`` is the loop's side: it keeps the last moment, applies the ``[sound]`` settings
(off, volume, spoken announcements, quiet hours) and hands the cues' files to the sound device.
The files are made by ``python -m pi_table.ui.sounds build`` and ship in ``pi_table/ui/sounds/``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..engine.contract import Observed
from ..engine.errors import Refusal
from ..engine.games import kind_of
from ..engine.phrase import N_
from ..engine.views import LANGUAGES
from ..hal import TimerState
from ..hal.sound import NoSound, SoundDevice
from .cues import SAY, Cue, Sounds, cue_file
from .games import KINDS, kind_sounds, sound_cues

CUES = (
    Cue("reveal-red", "the red team touched a card it was after: its own agent (Alias 24: a blue asset)",
        "two bright rising notes, a fifth apart"),
    Cue("reveal-blue", "the blue team touched a card it was after: its own agent (Alias 24: a red asset)",
        "three rising bell notes"),
    Cue("reveal-opponent", "a team touched the other side's card: the other team's agent (Alias 24: its own asset)",
        "a buzzy falling minor third"),
    Cue("reveal-bystander", "a bystander (Alias 24: a grey decoy) was touched", "one short soft blip"),
    Cue("assassin", "the assassin was touched", "a low growl sliding down"),
    Cue("nuke", "Alias 24: the nuke was touched", "a noise blast with a falling rumble"),
    Cue("turn", "the turn passes to the other team", "a two-note door chime, high then low"),
    Cue("timer-warning", "the turn timer (or a game's discussion timer) enters its warning", "three short high beeps"),
    Cue("timer-end", "the timer runs out", "a long low buzzer"),
    Cue("win", "a team wins (the cooperative variant: the players win)", "a rising four-note fanfare"),
    Cue("game-over", "the game ends with no winner: the cooperative variant lost, Alias 24's armed nuke",
        "four notes sinking by semitones"),
)

PHRASES = {
    "say-turn-red": N_("Red team's turn"),
    "say-turn-blue": N_("Blue team's turn"),
    "say-win-red": N_("The red team wins!"),
    "say-win-blue": N_("The blue team wins!"),
    "say-win-coop": N_("Mission accomplished!"),
    "say-game-over": N_("Game over."),
    "say-timer-warning": N_("Time is nearly up."),
    "say-timer-end": N_("Time is up!"),
}
"""The spoken announcements, English msgids translated by the catalogue; made at build time."""


def every_sound() -> Sounds:
    """The table's sounds (``CUES``, ``PHRASES``: the grid games' and those of every game, its
    timer and its end) and each kind's own (``ui.games``): the files ``pi_table.ui.sounds`` makes."""
    found = [Sounds(CUES, PHRASES), *(sounds for kind in KINDS if (sounds := kind_sounds(kind)) is not None)]
    return Sounds(tuple(cue for each in found for cue in each.cues),
                  {name: phrase for each in found for name, phrase in each.phrases.items()})


def every_file() -> list[Path]:
    sounds = every_sound()
    return ([cue_file(cue.name, "en") for cue in sounds.cues] +
            [cue_file(name, lang) for name in sounds.phrases for lang in LANGUAGES])


# --- choosing the cues ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Moment:
    """What everyone at the table could see at one instant: the game's id, its public view, the
    timer, and the loop's clock."""

    game_id: str
    view: Observed
    timer: TimerState | None
    at: float


def choose_cues(before: Moment | None, after: Moment) -> tuple[str, ...]:
    """The cues (tones, then ``say-`` announcements) for what changed between two moments of
    the same game; none for the first moment or a new game. Only public things are read."""
    if before is None or before.game_id != after.game_id:
        return ()
    cues = sound_cues(kind_of(after.view.game))(before.view, after.view)  # one game: one kind's views
    return _ordered(_timer_cues(before, after) + cues)  # time ran out, then the turn passed


def _timer_cues(before: Moment, after: Moment) -> list[str]:
    """The warning once per turn as it starts, the end once as the clock runs out (an enforced
    timer's turn passes at that instant: its clock ran out between the two moments)."""
    old, new = before.timer, after.timer
    if old is None or new is None:
        return []
    cues = []
    ran_out = old.running and old.remaining_s > 0 and (new.expired or after.at - before.at >= old.remaining_s)
    restarted = new.remaining_s > old.remaining_s
    if ran_out:
        cues += ["timer-end", "say-timer-end"]
    elif new.warning and not (old.warning and not restarted):
        cues += ["timer-warning", "say-timer-warning"]
    return cues


def _ordered(cues: list[str]) -> tuple[str, ...]:
    """Tones first, in the order they happened, then the announcements: speech after the sounds."""
    return tuple(c for c in cues if not c.startswith(SAY)) + tuple(c for c in cues if c.startswith(SAY))


# --- settings and the loop's side ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QuietHours:
    """A stretch of the day, in minutes after midnight, that may run past midnight (23:00-08:00)."""

    start: int
    end: int

    @classmethod
    def parse(cls, text: str) -> QuietHours | None:
        """``HH:MM-HH:MM``, or '' for none; ValueError naming what was expected otherwise."""
        if text == "":
            return None
        try:
            start, end = (_minutes(part) for part in text.split("-"))
        except ValueError:
            raise Refusal("quiet hours are 'HH:MM-HH:MM' (e.g. '23:00-08:00') or '' for none, not {text!r}",
                          text=text) from None
        if start == end:
            raise Refusal("quiet hours start and end at different times, not both at {time}", time=text.split("-")[0])
        return cls(start, end)

    def __contains__(self, minute: int) -> bool:
        if self.start < self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end


def _minutes(text: str) -> int:
    hours, minutes = text.strip().split(":")
    if len(minutes) != 2 or not hours.isdigit() or not minutes.isdigit():
        raise ValueError(text)  # caught by QuietHours.parse, which refuses the text
    if not (0 <= int(hours) <= 23 and 0 <= int(minutes) <= 59):
        raise ValueError(text)  # caught by QuietHours.parse, which refuses the text
    return int(hours) * 60 + int(minutes)


QUIET_FACTOR = 0.25
"""During quiet hours the cues play at a quarter of the volume, and nothing is spoken."""


@dataclass(frozen=True, slots=True)
class SoundSettings:
    """[sound] of the configuration: whether the table plays its cues, how loud, spoken or not, and its quiet hours."""

    enabled: bool = True
    volume: float = 0.8
    spoken: bool = False
    quiet: QuietHours | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.volume <= 1:
            raise Refusal("the volume is 0 (silent) to 1 (full), not {volume}", volume=self.volume)


class Announcer:
    """Hears each moment the loop shows and plays what changed on ``device``; ``played`` holds
    the names played since ``take_played`` last emptied it (the scripted simulator's
    ``"sounds"``; the newest thousand on a table nobody asks). ``wall_clock`` gives the local time for quiet hours (the loop's clock is
    monotonic)."""

    def __init__(
        self, device: SoundDevice | None = None, settings: SoundSettings | None = None, lang: str = "en",
        wall_clock: Callable[[], time.struct_time] = time.localtime,
    ) -> None:
        self.device = device or NoSound()
        self.settings = settings or SoundSettings()
        self.lang = lang
        self.wall_clock = wall_clock
        self.played: deque[str] = deque(maxlen=1000)
        self._last: Moment | None = None

    def hear(self, moment: Moment) -> tuple[str, ...]:
        """Play the cues for what changed since the last moment; return their names. Never
        blocks: the device queues, or drops when it is full."""
        before, self._last = self._last, moment
        names = self.audible(choose_cues(before, moment))
        if names:
            self.played += names
            self.device.play(tuple(cue_file(name, self.lang) for name in names), self.volume())
        return names

    def quiet_now(self) -> bool:
        quiet = self.settings.quiet
        if quiet is None:
            return False
        now = self.wall_clock()
        return now.tm_hour * 60 + now.tm_min in quiet

    def volume(self) -> float:
        return self.settings.volume * (QUIET_FACTOR if self.quiet_now() else 1.0)

    def audible(self, cues: tuple[str, ...]) -> tuple[str, ...]:
        """What of ``cues`` the settings let play: nothing when off or at volume 0; no speech
        unless spoken announcements are on, and none in quiet hours."""
        if not self.settings.enabled or self.settings.volume == 0:
            return ()
        speak = self.settings.spoken and not self.quiet_now()
        return tuple(cue for cue in cues if speak or not cue.startswith(SAY))

    def take_played(self) -> list[str]:
        played = list(self.played)
        self.played.clear()
        return played
