"""Every section of the staff page, registered by name, as the games are (``engine.games``).

A section is one module here: a ``web.section.Section`` subclass with its routes and the role
each needs, its words and its script (docs/dev/adding-a-staff-section.md). ``SECTIONS`` holds one
line a section, in the order the page shows them; ``staff_page`` makes the page with each of them,
given its part of the table. Nothing else names a section: a test adds one to ``SECTIONS`` and the
page serves it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..staff import BODY_TIMEOUT_S, Desk, FakeHelper, FakeTableCode, Parts, Section, StaffPage
from .broker import BrokerSection, FakeBroker
from .care import CareSection
from .checkup import CheckupSection, FakeCheckup
from .dashboard import DashboardSection
from .files import FilesSection
from .health import FakeHealth, HealthSection
from .keys import KeysSection
from .network import NetworkSection
from .night import NightSection
from .notify import NotifySection
from .offsite import OffsiteSection
from .owner import OwnerSection
from .pin import PinSection
from .power import PowerSection
from .security import FakeSecurity, SecuritySection
from .setup import SetupPage
from .wifi import WifiSection

SECTIONS: dict[str, type[Section[Any]]] = {
    section.name: section
    for section in (
        HealthSection,
        OwnerSection,
        CareSection,
        OffsiteSection,
        FilesSection,
        CheckupSection,
        PinSection,
        PowerSection,
        NightSection,
        WifiSection,
        SecuritySection,
        KeysSection,
        BrokerSection,
        DashboardSection,
        NotifySection,
        NetworkSection,
        SetupPage,
    )
}


def staff_page(desk: Desk, parts: Parts, folder: Path | None, session_s: float = 3600.0,
               clock: Callable[[], float] = time.time, body_timeout_s: float = BODY_TIMEOUT_S) -> StaffPage:
    """The staff page on ``desk`` (the daemon's ``StaffDesk``) with every registered section, each
    given its part of the table by ``parts``; the rest as ``StaffPage``'s."""
    return StaffPage(desk, folder, session_s, clock, body_timeout_s, sections=SECTIONS.values(), parts=parts)


P = TypeVar("P")


class StandIn(Protocol):
    """A stand-in table (``daemon.staff_desk.FakeDesk``): what its sections' stand-ins share."""

    calls: list[str]
    code: FakeTableCode
    helper: FakeHelper


@dataclass(frozen=True)
class Fake:
    """A section and its stand-in's part, for tests and the screenshots."""

    section: type[Section[Any]]
    made: Callable[[StandIn], object]


def fake(section: type[Section[P]], made: Callable[[StandIn], P]) -> Fake:
    """``section``'s stand-in, made by ``made``, which mypy holds to the section's own protocol ``P``."""
    return Fake(section, made)


FAKES: tuple[Fake, ...] = (
    fake(HealthSection, lambda table: FakeHealth(table.calls)),
    fake(OwnerSection, lambda table: table.code),
    fake(PinSection, lambda table: table.code),
    fake(CheckupSection, lambda table: FakeCheckup(table.calls)),
    fake(PowerSection, lambda table: table.helper),
    fake(WifiSection, lambda table: table.helper),
    fake(SecuritySection, lambda table: FakeSecurity(table.calls)),
    fake(KeysSection, lambda table: table.helper),
    fake(BrokerSection, lambda table: FakeBroker(table.calls)),
    fake(NetworkSection, lambda table: table.helper),
)
"""Each section's stand-in, beside the section's protocol; a section with none here is given None
(no game night, no notifications, no set-up awaited) or a test's own."""


def fake_parts(table: StandIn, instead: Mapping[str, object] | None = None) -> Parts:
    """Each registered section's stand-in on ``table``, or what ``instead`` gives it by the section's name."""
    made = {given.section: given.made for given in FAKES}
    given = dict(instead or {})

    def part(section: type[Section[Any]]) -> object:
        if section.name in given:
            return given[section.name]
        return None if section not in made else made[section](table)

    return part
