"""The spymasters' screen: hidden from the operatives, it is the only place the key shows."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass
from typing import ClassVar, Protocol, TypeAlias

from ..engine import ClueNumber, InvalidAction, SpymasterView
from ..engine.phrase import Text
from .cues import Cues
from .events import Command, Emit, NotStarted, UiEvent


class GameModel(Protocol):
    """What a kind's loop shows the screen of its game at one moment: its ``kind``, by which the
    screen's painter of that kind draws it (``ui.games``), the game's id, the table's language,
    the last refusal and the warnings every kind's screen shows, and its cues (the timer). Each
    kind's model holds what its painter needs of the game besides."""

    @property
    def kind(self) -> str: ...

    @property
    def game_id(self) -> str: ...

    @property
    def lang(self) -> str: ...

    @property
    def message(self) -> Text | None: ...

    @property
    def cues(self) -> Cues: ...

    @property
    def warnings(self) -> tuple[Text, ...]: ...


@dataclass(frozen=True, slots=True)
class ScreenModel:
    """Everything the spymaster screen shows of a grid game at one moment (with the time, for animation)."""

    kind: ClassVar[str] = "grid"
    view: SpymasterView
    game_id: str
    message: Text | None = None  # the last refusal ("card 7 is already revealed"), for ``i18n.say``
    cues: Cues = Cues()  # pending touches, warnings ("touch board disconnected"), the timer
    lang: str = "en"  # "en" or "it"
    dial: ClueNumber = None  # the clue number set on the rotary encoder, not yet entered
    join: str | None = None  # the companion's spymaster page, shown as a QR code; None: no companion
    notice: Text | None = None  # for this screen alone (a reset code, the login line's code): no page nor report has it
    words: tuple[str, ...] | None = None  # the cards' words, one per cell: confirmed by a spymaster, or a simulated table's

    @property
    def warnings(self) -> tuple[Text, ...]:
        return self.cues.warnings if self.notice is None else (self.notice, *self.cues.warnings)

    @property
    def pending(self) -> frozenset[int]:
        return self.cues.pending

    @property
    def deaf(self) -> frozenset[int]:
        """The cards the touch board cannot hear now: marked, so nobody touches them in vain."""
        return self.cues.deaf


@dataclass(frozen=True, slots=True)
class SelfTestModel:
    """What ``pi-table selftest`` has seen so far; shown instead of a game."""

    pads: frozenset[int]  # cells whose pad has been touched
    checks: tuple[tuple[str, bool], ...]  # (what to do, done) for buttons and the screen
    message: str
    pads_line: str = "pads {done}/{cells}"  # the pads' count, in the table's language


@dataclass(frozen=True, slots=True)
class SetupModel:
    """What the screen shows of a table nobody has set up yet (docs/dev/first-boot.md), instead of
    a game: the set-up page's address (``link``, shown as a QR code; None until the phones' pages
    are up) and the one-time code it asks for; while the table's own Wi-Fi is open, its name and
    password (``hotspot``), which a second QR code joins; what the network is doing (``network``);
    the SHA-256 ``fingerprint`` of the page's https certificate, which the owner compares with
    what the phone shows the first time it warns of the table's own certificate."""

    link: str | None
    code: str
    lang: str = "en"
    hotspot: tuple[str, str] | None = None  # (name, password)
    network: Text | None = None
    fingerprint: str | None = None


def grouped(fingerprint: str) -> str:
    """A SHA-256 fingerprint (32 pairs of hex digits, colons between, as browsers show it) in four
    groups of eight pairs: how the screen, the set-up page and the staff page each show it, so the
    owner compares it with a phone's warning a group at a time, the same groups wherever it is read."""
    pairs = fingerprint.split(":")
    return " · ".join(":".join(pairs[at:at + 8]) for at in range(0, len(pairs), 8))


AnyModel: TypeAlias = GameModel | SelfTestModel | SetupModel
"""What a screen may be shown: a game of any kind, the self-test, or a table's set-up."""


class Screen(ABC):
    """A backend implements ``show`` (draw this model: a kind's ``GameModel``, or a
    SelfTestModel during the self-test; the backend's painter knows which it draws), ``start`` (deliver a ``UiEvent`` to
    ``emit`` for each request the spymasters tap, from any thread) and ``stop``."""

    @abstractmethod
    def show(self, model: AnyModel) -> None: ...

    def start(self, emit: Emit) -> None:
        """Begin delivering taps; a screen without touch input need not override this."""

    def stop(self) -> None:
        """Release the display."""

    def release_seat(self, seat: int) -> None:
        """Give seat ``seat``'s phone page a new link, voiding the old one; the next model shown
        carries the new link. Only a screen with the phones' pages beside it has links to
        give; the others refuse, saying why."""
        raise InvalidAction("this table has no phone pages (the companion is off): there is no seat link to release")


class ScreenInFront(Screen):
    """A screen standing in front of another (``screen``, the table's own): it starts, stops and
    releases seats as that one does; a subclass says in ``show`` what it changes or adds."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen

    def start(self, emit: Emit) -> None:
        self.screen.start(emit)

    def stop(self) -> None:
        self.screen.stop()

    def release_seat(self, seat: int) -> None:
        self.screen.release_seat(seat)


class SimScreen(Screen):
    """Records every model it is shown; ``tap(command)`` plays a spymaster's tap."""

    def __init__(self, keep: int = 10_000) -> None:
        self.models: deque[AnyModel] = deque(maxlen=keep)
        self._emit: Emit | None = None

    def show(self, model: AnyModel) -> None:
        self.models.append(model)

    def start(self, emit: Emit) -> None:
        self._emit = emit

    def stop(self) -> None:
        self._emit = None

    def tap(self, command: Command) -> None:
        if self._emit is None:
            raise NotStarted("the simulated screen is not started")
        self._emit(UiEvent(command))

    @property
    def last(self) -> AnyModel | None:
        return self.models[-1] if self.models else None
