"""Each staff section's part of the running table, registered beside the section by one line.

A section of the staff page (``web.sections``) declares what it takes of the table by a small
protocol of its own (``Section[Part]``); the object of this layer that meets it lives in a module
of its own here (``health_desk``, ``care_desk``...) and is paired with the section in ``PARTS``,
where mypy checks that it meets the section's protocol. The daemon makes the staff page with
``parts``, and knows none of them (docs/dev/adding-a-staff-section.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..web.sections import fake_parts, staff_page
from ..web.sections.broker import BrokerSection
from ..web.sections.cards import CardsSection
from ..web.sections.care import CareSection
from ..web.sections.checkup import CheckupSection
from ..web.sections.files import FilesSection
from ..web.sections.health import HealthSection
from ..web.sections.keys import KeysSection
from ..web.sections.network import NetworkSection
from ..web.sections.night import NightSection
from ..web.sections.notify import NotifySection
from ..web.sections.offsite import OffsiteSection
from ..web.sections.owner import OwnerSection
from ..web.sections.pin import PinSection
from ..web.sections.power import PowerSection
from ..web.sections.security import SecuritySection
from ..web.sections.setup import SetupPage
from ..web.sections.wifi import WifiSection
from ..web.staff import Parts, Section, StaffPage
from . import broker_desk, code_desk, health_desk, offsite_desk
from .broker_desk import BrokerDesk
from .cards_desk import CardsDesk
from .care_desk import CareDesk
from .code_desk import CodeDesk
from .files_desk import FilesDesk
from .health_desk import HealthDesk
from .offsite_desk import OffsiteDesk
from .root_helper import RootHelper
from .staff_desk import FakeDesk

if TYPE_CHECKING:
    from ..night.recorder import Recorder
    from .checkup import Checkup
    from .first_boot import FirstBoot
    from .notices import Watch
    from .restarts import Restarts
    from .security import SecurityUpdates

P = TypeVar("P")


class Running(health_desk.Table, code_desk.Table, offsite_desk.Table, broker_desk.Running, Protocol):
    """What the sections' parts take of the running table (``run.Daemon``): each part's own protocol, together."""

    checkup: Checkup
    night: Recorder | None
    security: SecurityUpdates | None
    notices: Watch | None
    first_boot: FirstBoot | None
    helper: RootHelper | None
    code: CodeDesk
    cards: CardsDesk

    restarts: Restarts


@dataclass(frozen=True)
class Part:
    """A section and how its part is made of the running table."""

    section: type[Section[Any]]
    made: Callable[[Running, RootHelper], object]


def part(section: type[Section[P]], made: Callable[[Running, RootHelper], P]) -> Part:
    """``section``'s part, made by ``made``, which mypy holds to the section's own protocol ``P``."""
    return Part(section, made)


def _given(made: P | None) -> P:
    """A part the daemon makes before the staff page (at READY), which the page is never made without."""
    assert made is not None
    return made


PARTS: tuple[Part, ...] = (
    part(CardsSection, lambda table, helper: table.cards),
    part(HealthSection, lambda table, helper: HealthDesk(table)),
    part(OwnerSection, lambda table, helper: table.code),
    part(PinSection, lambda table, helper: table.code),
    part(CareSection, CareDesk),
    part(OffsiteSection, OffsiteDesk),
    part(FilesSection, lambda table, helper: FilesDesk(table)),
    part(CheckupSection, lambda table, helper: table.checkup),
    part(PowerSection, lambda table, helper: helper),
    part(NightSection, lambda table, helper: table.night),
    part(WifiSection, lambda table, helper: helper),
    part(SecuritySection, lambda table, helper: _given(table.security)),
    part(KeysSection, lambda table, helper: helper),
    part(BrokerSection, lambda table, helper: BrokerDesk(table, helper, helper.home, helper.machine.mosquitto_etc,
                                                         helper.machine.mosquitto_port)),
    part(NotifySection, lambda table, helper: table.notices),
    part(NetworkSection, lambda table, helper: helper),
    part(SetupPage, lambda table, helper: table.first_boot),
)
"""One line a section that takes a part of the table (the fleet dashboard's form takes none)."""


def parts(table: Running, helper: RootHelper) -> Parts:
    """Each registered section's part of ``table``, made as the page makes the section (None for
    a section with no line in ``PARTS``)."""
    made = {given.section: given.made for given in PARTS}

    def made_for(section: type[Section[Any]]) -> object:
        return None if section not in made else made[section](table, helper)

    return made_for


def stand_in_page(desk: FakeDesk, folder: Path | None, instead: Mapping[str, object] | None = None,
                  **settings: Any) -> StaffPage:
    """The staff page on a stand-in table (tests, the screenshots): each section given its stand-in
    (its ``Section.stand_in``) or ``instead``'s by its name; ``settings`` as ``staff_page``'s."""
    return staff_page(desk, fake_parts(desk, instead), folder, **settings)
