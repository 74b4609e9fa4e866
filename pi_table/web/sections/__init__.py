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
from pathlib import Path
from typing import Any

from ..staff import BODY_TIMEOUT_S, Parts, Section, StaffPage
from ..staff_table import Desk, StandIn
from .broker import BrokerSection
from .cards import CardsSection
from .care import CareSection
from .checkup import CheckupSection
from .dashboard import DashboardSection
from .files import FilesSection
from .health import HealthSection
from .keys import KeysSection
from .network import NetworkSection
from .night import NightSection
from .notify import NotifySection
from .offsite import OffsiteSection
from .owner import OwnerSection
from .pin import PinSection
from .power import PowerSection
from .security import SecuritySection
from .setup import SetupPage
from .wifi import WifiSection

SECTIONS: dict[str, type[Section[Any]]] = {
    section.name: section
    for section in (
        CardsSection,
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


def fake_parts(table: StandIn, instead: Mapping[str, object] | None = None) -> Parts:
    """Each registered section's stand-in on ``table`` (its ``stand_in``), or what ``instead`` gives
    it by the section's name."""
    given = dict(instead or {})

    def part(section: type[Section[Any]]) -> object:
        return given[section.name] if section.name in given else section.stand_in(table)

    return part
