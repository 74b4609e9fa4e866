"""The owner's console on the staff page: one headline that says whether all is well, and if
not what needs attention and what to do, with this computer's readings under it; the
service's log, by level and searched; the PIN's change; and power. The judgments are pure
functions of what the daemon hands over, so the words and the thresholds are tested without
a table.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase, Text
from ..errors import PiTableError
from ..host import Readings
from ..release.bundle import MAX_BUNDLE
from ..ui.i18n import say, translation
from .auth import Recovery, Session, Why
from .roles import MIN_PASSPHRASE, OWNER_S, set_passphrase
from .staff import (
    DEVICES,
    MIN_PIN,
    REFUSALS,
    WRONG_PASSPHRASE,
    StaffPage,
    advised,
    bad,
    language,
    no_owner,
    reached_on,
    refused,
    set_pin,
)

log = logging.getLogger("pi_table.web.staff")

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
    N_("A new version is on trial: it is kept once the table is healthy on it."),
    N_("An update was rolled back: {why}"),
    N_("Backup and updates"),
    N_("CPU temperature"),
    N_("Change the PIN"),
    N_("Code on the table's screen"),
    N_("Computer up"),
    N_("Current PIN"),
    N_("Disk free"),
    N_("Download"),
    N_("Download a backup"),
    N_("Forgot the PIN?"),
    N_("From"),
    N_("Hands off the table: measuring each pad at rest."),
    N_("Health"),
    N_("Hold END TURN and NEW GAME while the table starts (switch it off and on, or restart the service): "
       "the spymaster screen shows a code for 10 minutes."),
    N_("Change the owner's passphrase"),
    N_("Current passphrase"),
    N_("Change the passphrase"),
    N_("Forgot the owner's passphrase?"),
    N_("Hold both buttons while the table starts: its screen shows a code for 10 minutes."),
    N_("Set the new passphrase"),
    N_("New passphrase (10 characters or more)"),
    N_("New passphrase again"),
    N_("The two passphrases differ."),
    N_("The owner's passphrase is changed: this phone acts as the owner, every other gives the new one."),
    N_("Or one of the nightly backups the table keeps:"),
    N_("Check it to restore"),
    N_("Install a release bundle"),
    N_("Install it?"),
    N_("Install the update? The table restarts on it, and goes back by itself if it is not healthy."),
    N_("Install {version}"),
    N_("Keep the suggested thresholds"),
    N_("Lock them again"),
    N_("Keep these thresholds? The table restarts to try them, and goes back by itself if it is not healthy."),
    N_("Log"),
    N_("Look for an update"),
    N_("Memory free"),
    N_("New PIN (6 characters or more)"),
    N_("New PIN again"),
    N_("No newer version."),
    N_("No owner's passphrase is set: updates, backups, restores, power and the fleet's settings stay locked. "
       "Set one on the table's computer with: sudo pi-table set-owner-passphrase"),
    N_("Owner"),
    N_("Owner's passphrase"),
    N_("Power"),
    N_("Power supply"),
    N_("QR code of this page: {address}"),
    N_("Refresh"),
    N_("Restart the computer"),
    N_("Restart the computer? The game resumes once it is back (about a minute)."),
    N_("Restore a backup"),
    N_("Restore it"),
    N_("Restore this backup? The table restarts on it, and goes back by itself if it is not healthy."),
    N_("Restored: the table restarts to try it and resumes its game."),
    N_("Restoring it replaces:"),
    N_("Search the log"),
    N_("Self-test and pads"),
    N_("Self-test failed."),
    N_("Self-test passed."),
    N_("Service up"),
    N_("Set the new PIN"),
    N_("Show"),
    N_("Shut down"),
    N_("Shut the computer down? Someone must switch it on again at the table."),
    N_("Staff PIN"),
    N_("Start the self-test"),
    N_("Still to do: {steps}"),
    N_("Stop and resume the game"),
    N_("The LEDs light one cell after another: watch each one."),
    N_("To"),
    N_("The PIN is changed: every other phone logs in again with the new one."),
    N_("The computer is restarting…"),
    N_("The computer is shutting down…"),
    N_("The owner's actions are unlocked for {minutes} min."),
    N_("The self-test and the tuning pause the game; it resumes where it was when they end."),
    N_("The update is installing: the table restarts on it in a few minutes."),
    N_("This page's address: "),
    N_("Thresholds written: the table restarts to try them."),
    N_("Touch each card once, press each button, tap the screen."),
    N_("Tune the pads"),
    N_("Unlock the owner's actions"),
    N_("Updates, backups, restores, power and the fleet's settings need the owner's passphrase."),
    N_("Version"),
    N_("Version {version} runs"),
    N_("before it: {version}"),
    N_("card {cell}: not yet"),
    N_("card {cell}: touched"),
    N_("errors only"),
    N_("everything"),
    N_("no reading"),
    N_("ok"),
    N_("suggested {touch}/{release}"),
    N_("the two new PINs differ"),
    N_("under-voltage now"),
    N_("under-voltage since the start"),
    N_("warnings and errors"),
    N_("{days} d {hours} h"),
    N_("{hours} h {minutes} min"),
    N_("{minutes} min"),
    N_("{name}: {delta} (touch {touch}, release {release})"),
)
"""The console's words on the page (console.js looks each up by its English text)."""


class Console:
    """The console's routes under ``/staff/api/``, behind the staff page's checks (``page.api``):
    ``GET health``, ``GET log`` (``?level=info|warning|error&q=WORDS``), ``GET log.txt``,
    ``POST pin`` (``{"old", "new"}``), ``POST power`` (``{"act": "reboot" | "poweroff"}``),
    ``GET backup``, ``POST restore`` (``?check``), ``GET``/``POST update``, and ``GET``/``POST
    selftest`` and ``tune`` (``{"act": "start" | "stop"}``, the tuning's ``"write"`` too); and, with
    no session, ``POST /staff/recover`` (``{"code", "pin", "passphrase"}``). Which of them need the
    owner is ``roles.ROUTES``'s to say. docs/cafe/console.md is the contract."""

    texts = TEXTS

    def __init__(self, page: StaffPage, recovery: Recovery) -> None:
        self.page, self.recovery = page, recovery
        page.rooms.append(self)

    def mount(self, app: web.Application) -> None:
        api = self.page.api
        app.add_routes([
            web.post("/staff/recover", self._recover),
            web.post("/staff/api/owner/passphrase", api(self._passphrase)),
            web.post("/staff/api/owner/reset", api(self._reset_passphrase)),
            web.get("/staff/api/health", api(self._health)),
            web.get("/staff/api/log", api(self._log)),
            web.get("/staff/api/log.txt", api(self._log_text)),
            web.post("/staff/api/pin", api(self._pin)),
            web.post("/staff/api/power", api(self._power)),
            web.get("/staff/api/backup", api(self._backup)),
            web.get("/staff/api/backups", api(self._backups)),
            web.post("/staff/api/restore", api(self._restore)),
            web.get("/staff/api/update", api(self._releases)),
            web.post("/staff/api/update", api(self._update)),
            web.get("/staff/api/selftest", api(self._selftest)),
            web.post("/staff/api/selftest", api(self._selftest_act)),
            web.get("/staff/api/tune", api(self._tuning)),
            web.post("/staff/api/tune", api(self._tune_act)),
        ])

    async def _health(self, request: web.Request, session: Session) -> web.Response:
        lang = language(request)
        table, machine = await asyncio.gather(asyncio.to_thread(self.page.desk.table, lang),
                                              asyncio.to_thread(self.page.desk.machine))
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
        for heed in self.page.heeded:  # the rooms' (a security update that left the table unhealthy)
            attention += await asyncio.to_thread(heed, lang)
        address = machine.get("address")
        return web.json_response({
            "headline": headline(attention, lang), "attention": attention, "devices": devices,
            "readings": machine["readings"].to_json(), "version": table.get("version"), "uptime_s": table.get("uptime_s"),
            "address": None if not address else {"staff": f"{address}/staff", "qr_svg": _qr(f"{address}/staff")},
        })

    async def _log(self, request: web.Request, session: Session) -> web.Response:
        """The log's lines (``?level=``, ``q=``, and ``since=``/``until=`` in seconds since the
        epoch), the last ``LOG_LINES``; where they come from, and a note when not the journal."""
        asked = self._log_asked(request)
        if isinstance(asked, web.Response):
            return asked
        least, since, until = asked
        found = await asyncio.to_thread(self.page.desk.log, since, until)
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
        found = await asyncio.to_thread(self.page.desk.log, since, until)
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

    async def _pin(self, request: web.Request, session: Session) -> web.StreamResponse:
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("old"), str) or not isinstance(body.get("new"), str):
            return bad('expected {"old": THE PIN NOW, "new": THE NEW PIN}')
        checked = await self.page.gate.check(request, body["old"])
        if checked is not None and checked.why is Why.WRONG:  # 403, not the login's 401: the session goes on
            return web.json_response({"ok": False, "error": translation(language(request)).gettext(REFUSALS[Why.WRONG])},
                                     status=403)
        if checked is not None:
            return refused(checked, language(request))
        folder = self.page.folder
        assert folder is not None  # a session was open: a PIN is kept in the folder
        try:
            set_pin(folder, body["new"])
        except Refusal as e:
            return bad(say(e.phrase, language(request)))
        stored = self.page.gate.secret()
        assert stored is not None  # just written
        self.page.gate.sessions.carry(session, stored)  # at once: a request of this phone's in flight stays in
        log.warning("staff page: the staff PIN was changed from %s; every other session is ended", request.remote)
        return web.json_response({"ok": True, "csrf": session.csrf})

    async def _recover(self, request: web.Request) -> web.StreamResponse:
        """A new PIN for the owner at the table: the code the table's screen shows (``Recovery``)
        and the owner's passphrase (``roles``: the PIN's reset is the owner's); no session needed,
        guesses of either limited as logins are. With no code live, nothing is checked and every
        request gets the same answer, so the route tells nothing of the passphrase."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) or not isinstance(body.get("pin"), str):
            return bad('expected {"code": THE CODE ON THE TABLE\'S SCREEN, "pin": THE NEW PIN, '
                       '"passphrase": THE OWNER\'S PASSPHRASE}')
        lang = language(request)
        if len(body["pin"]) < MIN_PIN:  # before the code is spent
            return bad(say(Refusal("the staff PIN has at least {least} characters, not {length}", least=MIN_PIN,
                                   length=len(body["pin"])).phrase, lang))
        if not isinstance(body.get("passphrase"), str):
            return self.page.owner_needed(request)
        if not self.recovery.active:  # no passphrase is tried without a code that could be spent
            return _wrong_code(lang)
        owner = await self.page.owner.door.check(request, body["passphrase"])
        if owner is not None and owner.why is Why.NO_SECRET:
            return no_owner(request)
        if owner is not None and owner.why is Why.WRONG:
            log.warning("staff page: a wrong owner's passphrase with a PIN reset code from %s", request.remote)
            return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_PASSPHRASE)}, status=403)
        if owner is not None:
            return refused(owner, lang)
        checked = await self.page.gate.check(request, body["code"], self.recovery.redeem)
        if checked is not None and checked.why is Why.WRONG:
            log.warning("staff page: a wrong PIN reset code from %s", request.remote)
            return _wrong_code(lang)
        if checked is not None:
            return refused(checked, lang)
        folder = self.page.folder
        assert folder is not None  # the daemon gives the page its journal folder
        set_pin(folder, body["pin"])
        await asyncio.to_thread(self.page.desk.recovered)
        log.warning("staff page: the staff PIN was reset with the code from the table's screen and the owner's "
                    "passphrase, from %s", request.remote)
        entered = self.page.gate.enter()
        response = web.json_response({"ok": True, "csrf": entered.session.csrf})
        self.page.gate.let_in(request, response, entered)
        return response

    async def _passphrase(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"old", "new"}``: the owner's passphrase changed, given the one it replaces (tried
        through the owner's door, counted as logins are); this session acts as the owner after it,
        and every other stops."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("old"), str) or not isinstance(body.get("new"), str):
            return bad('expected {"old": THE OWNER\'S PASSPHRASE NOW, "new": THE NEW ONE}')
        lang = language(request)
        checked = await self.page.owner.door.check(request, body["old"])
        if checked is not None and checked.why is Why.NO_SECRET:
            return no_owner(request)
        if checked is not None and checked.why is Why.WRONG:
            log.warning("staff page: a wrong owner's passphrase to change it from %s", request.remote)
            return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_PASSPHRASE)}, status=403)
        if checked is not None:
            return refused(checked, lang)
        answer = self._new_passphrase(session, body["new"], lang)
        log.warning("staff page: the owner's passphrase was changed from %s", request.remote)
        return answer

    async def _reset_passphrase(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"code", "passphrase"}``: a forgotten owner's passphrase replaced by someone at the
        table, as the PIN's is: the code the table's screen shows (both buttons held at the start),
        from a staff session; the code serves once, and is not spent on a passphrase too short."""
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) \
                or not isinstance(body.get("passphrase"), str):
            return bad('expected {"code": THE CODE ON THE TABLE\'S SCREEN, "passphrase": THE NEW PASSPHRASE}')
        lang = language(request)
        if len(body["passphrase"]) < MIN_PASSPHRASE:  # before the code is spent
            return bad(say(Refusal("the owner's passphrase has at least {least} characters, not {length}",
                                   least=MIN_PASSPHRASE, length=len(body["passphrase"])).phrase, lang))
        checked = await self.page.gate.check(request, body["code"], self.recovery.redeem)
        if checked is not None and checked.why is Why.WRONG:
            log.warning("staff page: a wrong reset code for the owner's passphrase from %s", request.remote)
            return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_CODE)}, status=403)
        if checked is not None:
            return refused(checked, lang)
        answer = self._new_passphrase(session, body["passphrase"], lang)
        await asyncio.to_thread(self.page.desk.recovered)
        log.warning("staff page: the owner's passphrase was reset with the code from the table's screen, from %s",
                    request.remote)
        return answer

    def _new_passphrase(self, session: Session, passphrase: str, lang: str) -> web.Response:
        """Keep ``passphrase`` as the owner's: ``session`` acts as the owner, every other session stops."""
        folder = self.page.folder
        assert folder is not None  # a session was open: the page keeps its secrets in the folder
        try:
            set_passphrase(folder, passphrase)
        except Refusal as e:
            return bad(say(e.phrase, lang))
        self.page.gate.sessions.owners_only(session)
        session.owner = self.page.owner.clock() + OWNER_S
        return web.json_response({"ok": True, "set": True, "left_s": math.ceil(self.page.owner.left_s(session))})

    async def _power(self, request: web.Request, session: Session) -> web.StreamResponse:
        body = await self.page.read_json(request)
        act = body.get("act") if isinstance(body, dict) else None
        if act not in POWER_ACTS:
            return bad(f'expected {{"act": "{POWER_ACTS[0]}"}} or {{"act": "{POWER_ACTS[1]}"}}')
        log.warning("staff page: %s asked from %s", act, request.remote)
        problem = await asyncio.to_thread(self.page.desk.power, act)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, language(request))}, status=409)
        return web.json_response({"ok": True}, status=202)


    async def _backup(self, request: web.Request, session: Session) -> web.Response:
        try:
            name, data = await asyncio.to_thread(self.page.desk.backup)
        except (PiTableError, OSError) as e:
            why = e.phrase if isinstance(e, Refusal) else getattr(e, "strerror", None) or str(e)
            return web.json_response({"ok": False, "error": say(why, language(request))}, status=409)
        log.info("staff page: a backup downloaded from %s", request.remote)
        return web.Response(body=data, content_type="application/gzip",
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def _backups(self, request: web.Request, session: Session) -> web.Response:
        """The nightly backups the table keeps, to restore one as an upload is."""
        return web.json_response({"nightly": await asyncio.to_thread(self.page.desk.nightly_backups,
                                                                     language(request))})

    async def _restore(self, request: web.Request, session: Session) -> web.StreamResponse:
        """The uploaded backup as the body, or ``?nightly=NAME`` one the table keeps: ``?check``
        says what it would replace; without, it is staged and the table restarts to try it."""
        lang = language(request)
        if "nightly" in request.query:
            try:
                data = await asyncio.to_thread(self.page.desk.nightly_backup, request.query["nightly"])
            except Refusal as e:
                return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=400)
        else:
            data = await self._upload(request, UPLOAD_MOST)
        if "check" in request.query:
            try:
                replaces = await asyncio.to_thread(self.page.desk.check_restore, data)
            except Refusal as e:
                return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=400)
            return web.json_response({"ok": True, "replaces": [say(each, lang) for each in replaces]})
        problems = await asyncio.to_thread(self.page.desk.restore, data, reached_on(request))
        if problems:
            return web.json_response({"ok": False, "error": "\n".join(say(each, lang) for each in problems)},
                                     status=400)
        log.warning("staff page: a backup restored from %s: the table restarts to try it", request.remote)
        return await self.page.then_restart(request, {"ok": True, "restarting": True})

    async def _releases(self, request: web.Request, session: Session) -> web.Response:
        """The running version, the one before, a rollback and why, and what an update could
        install (``?repository`` asks the repository too, which needs the network)."""
        found = await asyncio.to_thread(self.page.desk.releases, language(request), "repository" in request.query)
        return web.json_response(found)

    async def _update(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``?bundle=NAME.tar.gz`` with the bundle as the body (an upload from the phone), or
        ``{"from": "repository"}`` or ``{"from": "bundle", "bundle": NAME}`` (one already offered)."""
        source: object
        name: str | None
        desk = self.page.desk
        if "bundle" in request.query and "check" in request.query:
            return await self._check_update(request, request.query["bundle"])
        if "bundle" in request.query:
            source, name = "bundle", request.query["bundle"]
            try:
                received = await asyncio.to_thread(desk.receiving)
            except Refusal as e:
                return web.json_response({"ok": False, "error": say(e.phrase, language(request))}, status=409)
            try:
                await self._receive(request, MAX_BUNDLE, received)
                problem = await asyncio.to_thread(desk.update, source, name, received)
            finally:
                received.unlink(missing_ok=True)  # kept under its own name by then, when it is kept
        else:
            body = await self.page.read_json(request)
            source = body.get("from") if isinstance(body, dict) else None
            name = body.get("bundle") if isinstance(body, dict) else None
            if not (source == "repository" and name is None or source == "bundle" and isinstance(name, str)):
                return bad('expected {"from": "repository"} or {"from": "bundle", "bundle": NAME}')
            problem = await asyncio.to_thread(desk.update, source, name, None)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, language(request))}, status=409)
        log.warning("staff page: an update from the %s asked from %s", source, request.remote)
        return web.json_response({"ok": True}, status=202)

    async def _check_update(self, request: web.Request, name: str) -> web.Response:
        """``?bundle=NAME&check``: what installing the uploaded bundle would do, on any table (one
        without the root helper too), before the owner confirms; nothing is kept or asked."""
        desk, lang = self.page.desk, language(request)
        received = await asyncio.to_thread(desk.receiving, True)
        try:
            await self._receive(request, MAX_BUNDLE, received)
            installs, would = await asyncio.to_thread(desk.check_update, name, received)
        except Refusal as e:
            return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=400)
        finally:
            received.unlink(missing_ok=True)
        return web.json_response({"ok": True, "installs": installs, "would": say(would, lang)})

    async def _selftest(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.page.desk.selftest, language(request)))

    async def _selftest_act(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"act": "start"}``: the game paused, the LED walk, then a touch on each card and
        button; ``{"act": "stop"}``: the game back where it was (so does the test's end)."""
        act = await self._act(request, SELFTEST_ACTS)
        if isinstance(act, web.Response):
            return act
        desk, lang = self.page.desk, language(request)
        problem = await asyncio.to_thread(desk.start_selftest if act == "start" else desk.stop_checkup)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.info("staff page: self-test %s from %s", act, request.remote)
        return web.json_response({"ok": True, **await asyncio.to_thread(desk.selftest, lang)})

    async def _tuning(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.page.desk.tuning, language(request)))

    async def _tune_act(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"act": "start"}`` (the game paused, the pads' readings streamed), ``"stop"``, or
        ``"write"``: the suggested thresholds into the configuration as a trial, and a restart
        that keeps them only if the table comes back healthy. Without a board: a note, not a fault."""
        act = await self._act(request, TUNE_ACTS)
        if isinstance(act, web.Response):
            return act
        desk, lang = self.page.desk, language(request)
        state = await asyncio.to_thread(desk.tuning, lang)
        if act == "start" and not state["board"]:
            return web.json_response({"ok": True, **state})
        if act == "write":
            problems = await asyncio.to_thread(desk.write_thresholds)
            if problems:
                return web.json_response({"ok": False, "error": "\n".join(say(each, lang) for each in problems)},
                                         status=409)
            log.info("staff page: the pads' thresholds written from %s: restarting to try them", request.remote)
            return await self.page.then_restart(request, {"ok": True, "restarting": True})
        problem = await asyncio.to_thread(desk.start_tune if act == "start" else desk.stop_checkup)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.info("staff page: the pads' tuning %s from %s", act, request.remote)
        return web.json_response({"ok": True, **await asyncio.to_thread(desk.tuning, lang)})

    async def _act(self, request: web.Request, acts: tuple[str, ...]) -> str | web.Response:
        """The body's ``act``, one of ``acts``; else the 400 that says which are."""
        body = await self.page.read_json(request)
        act = body.get("act") if isinstance(body, dict) else None
        if not isinstance(act, str) or act not in acts:
            return bad("expected " + " or ".join(f'{{"act": "{each}"}}' for each in acts))
        return act

    async def _receive(self, request: web.Request, most: int, into: Path) -> None:
        """The request's body, a file from the phone of at most ``most`` bytes (413 past it),
        written into the file ``into`` as it comes: a bundle of 100 MB is never held whole."""
        if request.content_length is not None and request.content_length > most:
            raise web.HTTPRequestEntityTooLarge(max_size=most, actual_size=request.content_length)
        received = 0
        file = await asyncio.to_thread(open, into, "wb")
        try:
            async with asyncio.timeout(UPLOAD_S):
                while chunk := await request.content.read(1 << 16):
                    received += len(chunk)
                    if received > most:
                        raise web.HTTPRequestEntityTooLarge(max_size=most, actual_size=received)
                    await asyncio.to_thread(file.write, chunk)
        finally:
            await asyncio.to_thread(file.close)

    async def _upload(self, request: web.Request, most: int) -> bytes:
        """The request's body, a file from the phone, at most ``most`` bytes (413 past it)."""
        if request.content_length is not None and request.content_length > most:
            raise web.HTTPRequestEntityTooLarge(max_size=most, actual_size=request.content_length)
        data = bytearray()
        async with asyncio.timeout(UPLOAD_S):
            while chunk := await request.content.read(1 << 16):
                data += chunk
                if len(data) > most:
                    raise web.HTTPRequestEntityTooLarge(max_size=most, actual_size=len(data))
        return bytes(data)


UPLOAD_MOST = 64 << 20  # a backup, packed: no more than it may hold unpacked (the daemon's backup.MOST_BYTES)
UPLOAD_S = 300.0  # a phone on a slow Wi-Fi sends 200 MB in this long at 5 Mbit/s
POWER_ACTS = ("reboot", "poweroff")
SELFTEST_ACTS = ("start", "stop")
TUNE_ACTS = ("start", "stop", "write")
WRONG_CODE = N_("wrong or expired code: hold both buttons while the table starts for a new one")


def _wrong_code(lang: str) -> web.Response:
    """A PIN reset's code that is not the live one, or none is live: the same answer for both."""
    return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_CODE)}, status=403)


def _qr(link: str) -> str:
    """A QR code of ``link`` as SVG markup for the page to put in itself (its policy, default-src
    'self', lets no data: image in): another phone's camera opens the page."""
    import io

    import segno  # the health view only

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", xmldecl=False, scale=4, border=2)
    return out.getvalue().decode("ascii")
