"""The staff page's health: one headline that says whether all is well, and if not what needs
attention and what to do, with this computer's readings under it and a QR code of the page; and
the service's log, by level, searched and by time range (``GET /staff/api/health``, ``log``,
``log.txt``). The judgments are pure functions of what the daemon hands over, so the words and
the thresholds are tested without a table. docs/cafe/console.md is the contract.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from aiohttp import web

from ...engine.phrase import N_, Phrase, Text
from ...hal.screen import grouped
from ...host import Readings
from ...ui.i18n import say, translation
from ..auth import Session
from ..roles import Route, staff
from ..staff import Section
from ..staff_answers import bad, language
from ..staff_table import StandIn
from ..staff_words import DEVICES, advised

LOG_LINES = 200  # the log's lines a page shows at most (log.txt has all the service keeps)
DISK_LOW_MB = 200.0  # free on the journal's disk: a few hundred games, and room for the nightly backups
HOT_C = 80.0  # the Pi's firmware starts to slow the CPU down from 80 °C
MEMORY_LOW_MB = 50.0


POWER_ADVICE = Phrase.of("Use the Pi's own 5 V supply (3 A for a Pi 4, 5 A for a Pi 5) and power the LEDs from "
                         "their own supply.")
UNDER_VOLTAGE = Phrase.of("The power supply is too weak: the Pi is under-voltage now.")
UNDER_VOLTAGE_SINCE = Phrase.of("The power supply dipped under the Pi's need since it started.")
SD_FULL = N_("The SD card is almost full: {free} MB free.")
TOO_HOT = N_("The Pi is too hot and slows itself down ({degrees} °C).")
MEMORY_LOW = N_("Memory is almost used up: {free} MB free.")
FAULTS = (UNDER_VOLTAGE.template, UNDER_VOLTAGE_SINCE.template, SD_FULL, TOO_HOT, MEMORY_LOW)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""


@dataclass(frozen=True, slots=True)
class Attention:
    """One thing that needs the owner: what it is, and what to do about it."""

    what: Text
    advice: Text


def of_machine(readings: Readings) -> list[Attention]:
    """What this computer's readings say needs attention, the most urgent first."""
    found = []
    power = readings.power
    if power is not None and power.under_voltage:
        found.append(Attention(UNDER_VOLTAGE, POWER_ADVICE))
    elif power is not None and power.under_voltage_since_boot:
        found.append(Attention(UNDER_VOLTAGE_SINCE, POWER_ADVICE))
    if readings.disk_free_mb is not None and readings.disk_free_mb < DISK_LOW_MB:
        found.append(Attention(Phrase.of(SD_FULL, free=round(readings.disk_free_mb)),
                               Phrase.of("Keep fewer games ([paths] keep_games) or use a larger card.")))
    hot = readings.cpu_temp_c is not None and readings.cpu_temp_c >= HOT_C
    if hot or (power is not None and (power.too_hot or (power.throttled and not power.under_voltage))):
        found.append(Attention(Phrase.of(TOO_HOT, degrees="?" if readings.cpu_temp_c is None else round(readings.cpu_temp_c)),
                               Phrase.of("Give the table's enclosure air: clear its vents, or fit a heatsink or a fan.")))
    if readings.memory_available_mb is not None and readings.memory_available_mb < MEMORY_LOW_MB:
        found.append(Attention(Phrase.of(MEMORY_LOW, free=round(readings.memory_available_mb)),
                               Phrase.of("Restart the service; if it comes back, send the log to whoever looks "
                                         "after the table.")))
    return found


ALL_GOOD = Phrase.of("All good: the table and this computer are healthy.")
GIVE_AGAIN = Phrase.of("Give it again on the staff page: a backup holds no secret, and a secret goes only where its "
                       "owner gave it.")
ROLLED_BACK = N_("The change of {labels} was rolled back: the last good settings are in use.")
REFUSED = N_("The settings file was refused.")


def headline(attention: list[dict[str, Any]], lang: str) -> dict[str, Any]:
    """The line at the top: all good, or the first thing that needs attention and what to do,
    and how many more there are. ``attention`` is already said (``{"what", "advice"}``)."""
    if not attention:
        return {"ok": True, "text": say(ALL_GOOD, lang), "advice": None, "more": 0}
    first = attention[0]
    return {"ok": False, "text": first["what"], "advice": first["advice"], "more": len(attention) - 1}


def said(found: Iterable[Attention], lang: str) -> list[dict[str, Any]]:
    return [{"what": say(each.what, lang), "advice": say(each.advice, lang)} for each in found]


LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def level_of(name: str | None) -> int | None:
    """The least level a log request asks for (``?level=warning``); None for a name that is none."""
    return LEVELS["info"] if not name else LEVELS.get(name.lower())


def filtered(records: Iterable[tuple[int, str]], least: int, search: str) -> list[str]:
    """The log's lines at ``least`` or above that contain ``search`` (case ignored)."""
    search = search.casefold()
    return [line for level, line in records if level >= least and search in line.casefold()]


TEXTS: tuple[str, ...] = (
    N_("(+{count} more)"),
    N_("CPU temperature"),
    N_("Computer up"),
    N_("Disk free"),
    N_("Download"),
    N_("From"),
    N_("Health"),
    N_("Log"),
    N_("Memory free"),
    N_("Power supply"),
    N_("QR code of this page: {address}"),
    N_("Refresh"),
    N_("Search the log"),
    N_("The page's certificate (SHA-256)"),
    N_("Service up"),
    N_("Show"),
    N_("To"),
    N_("This page's address: "),
    N_("Version"),
    N_("errors only"),
    N_("everything"),
    N_("no reading"),
    N_("ok"),
    N_("under-voltage now"),
    N_("under-voltage since the start"),
    N_("warnings and errors"),
    N_("{days} d {hours} h"),
    N_("{hours} h {minutes} min"),
    N_("{minutes} min"),
)


class Table(Protocol):
    """What the section takes of the table, beside the game's health the page's desk gives."""

    def log(self, since: float | None, until: float | None) -> dict[str, Any]:
        """``{"source": "journal" | "memory", "records": [(level, line)], "note": Text or None}``: the
        service's lines from ``since`` to ``until`` (seconds since the epoch, None: open) in the
        systemd journal, across starts; or, where systemd does not run the table, the lines of
        this start it keeps, and a note saying so."""

    def machine(self) -> dict[str, Any]:
        """This computer's readings (``{"readings": host.Readings, "address": the companion's URL or None}``)."""

    def left_out(self) -> list[Phrase]:
        """What the last restore could not bring back and the owner has not given again (a secret:
        a backup holds none), each said as what it is."""


class FakeHealth:
    """The log and the readings of a stand-in table (tests, the screenshots): two lines of this
    start, no reading, each read of the log recorded in ``calls``."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def log_records(self) -> list[tuple[int, str]]:
        self.calls.append("log")
        return [(logging.INFO, "one"), (logging.INFO, "two")]

    def log(self, since: float | None, until: float | None) -> dict[str, Any]:
        return {"source": "memory", "records": self.log_records(), "note": None}

    def machine(self) -> dict[str, Any]:
        return {"readings": Readings(None, None, None, None, None, None, None), "address": None}

    def left_out(self) -> list[Phrase]:
        return []


class HealthSection(Section[Table], name="health", script="health.js", texts=TEXTS):
    """``GET health`` (the headline, what needs attention, the devices, the readings, the page's
    address and its QR code, its certificate's fingerprint to compare with a phone's warning), ``GET log`` (``?level=info|warning|error&q=WORDS&since=&until=``) and
    ``GET log.txt`` (the same, as a file)."""

    @classmethod
    def stand_in(cls, table: StandIn) -> Table:
        return FakeHealth(table.calls)

    def routes(self) -> list[Route]:
        return [staff("GET", "/staff/api/health", self._health),
                staff("GET", "/staff/api/log", self._log),
                staff("GET", "/staff/api/log.txt", self._log_text)]

    async def _health(self, request: web.Request, session: Session) -> web.Response:
        lang = language(request)
        table, machine = await asyncio.gather(asyncio.to_thread(self.page.desk.table, lang),
                                              asyncio.to_thread(self.table.machine))
        devices = advised(table, lang)
        attention = [{"what": f"{translation(lang).gettext(DEVICES.get(d['device'], d['device']))}: {d['health']}",
                      "advice": d["advice"]} for d in devices if d["advice"]]
        settings = table.get("settings") or {}
        back, refused = settings.get("rolled_back"), settings.get("refused")
        if back:  # the note under the headline names it: the headline cannot say all is good
            attention.append({"what": translation(lang).gettext(ROLLED_BACK).format(labels=", ".join(back["labels"])),
                              "advice": back["why"]})
        if refused:  # nor over a hand-edited file the table would not start on (its why says what to do)
            attention.append({"what": translation(lang).gettext(REFUSED), "advice": refused["why"]})
        attention += said(of_machine(machine["readings"]), lang)
        attention += said((Attention(what, GIVE_AGAIN) for what in await asyncio.to_thread(self.table.left_out)), lang)
        for section in self.page.sections:  # theirs (a security update that left the table unhealthy)
            attention += await asyncio.to_thread(section.heeded, lang)
        address = machine.get("address")
        return web.json_response({
            "headline": headline(attention, lang), "attention": attention, "devices": devices,
            "readings": machine["readings"].to_json(), "version": table.get("version"), "uptime_s": table.get("uptime_s"),
            "address": None if not address else {"staff": f"{address}/staff", "qr_svg": _qr(f"{address}/staff")},
            "certificate": None if not table.get("certificate") else grouped(table["certificate"]),  # as the screen groups it
        })

    async def _log(self, request: web.Request, session: Session) -> web.Response:
        """The log's lines (``?level=``, ``q=``, and ``since=``/``until=`` in seconds since the
        epoch), the last ``LOG_LINES``; where they come from, and a note when not the journal."""
        asked = self._log_asked(request)
        if isinstance(asked, web.Response):
            return asked
        least, since, until = asked
        found = await asyncio.to_thread(self.table.log, since, until)
        note = found["note"]
        return web.json_response({
            "lines": filtered(found["records"], least, request.query.get("q", "")[:200])[-LOG_LINES:],
            "source": found["source"], "note": None if note is None else say(note, language(request))})

    async def _log_text(self, request: web.Request, session: Session) -> web.Response:
        """The log as a file: every line of the range asked (``_log``'s query), level and search too."""
        asked = self._log_asked(request)
        if isinstance(asked, web.Response):
            return asked
        least, since, until = asked
        found = await asyncio.to_thread(self.table.log, since, until)
        lines = filtered(found["records"], least, request.query.get("q", "")[:200])
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain",
                            headers={"Content-Disposition": 'attachment; filename="pi-table-log.txt"'})

    def _log_asked(self, request: web.Request) -> tuple[int, float | None, float | None] | web.Response:
        """A log request's least level and time range; the 400 that says what was expected."""
        least = level_of(request.query.get("level"))
        if least is None:
            return bad(f"unknown level {request.query['level'][:20]!r}: expected {', '.join(LEVELS)}")
        span: list[float | None] = []
        for name in ("since", "until"):
            given = request.query.get(name, "")
            try:
                value = float(given) if given else None
            except ValueError:
                value = math.nan
            if value is not None and not (0 <= value < 1e11):  # NaN too
                return bad(f"{name} is seconds since 1970 (a number), not {given[:30]!r}")
            span.append(value)
        return least, span[0], span[1]


def _qr(link: str) -> str:
    """A QR code of ``link`` as SVG markup for the page to put in itself (its policy, default-src
    'self', lets no data: image in): another phone's camera opens the page."""
    import io

    import segno  # the health view only

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", xmldecl=False, scale=4, border=2)
    return out.getvalue().decode("ascii")
