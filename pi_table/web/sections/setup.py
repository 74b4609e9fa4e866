"""The set-up page of a table nobody has set up yet (docs/dev/first-boot.md is the contract),
mounted as a section of the staff page: it shares the page's server, its door's device key and
its turns, and the page sends a phone to it while the table awaits its set-up.

``/setup`` is open to anyone on the table's network until the table is set up, and then gone (a
redirect to ``/staff``; its API answers 404). Reading what it offers (``GET /setup/api``: the
languages, the time zones, the networks in reach) needs nothing; doing anything (``POST
/setup/api``) needs the one-time code the table's screen shows, tried through a door of its own
whose tries are counted as logins are (5 a minute from an address, 20 in all), so a guest on the
Wi-Fi without the code does nothing. A form that will not do is refused before the code is tried,
naming the field; the code is not spent by a refusal, only by the set-up. The set-up's answer
carries the owner's recovery code (``roles.new_recovery_code``), shown this once on the page,
its hash alone kept (issue 58): the owner's own way back from a forgotten passphrase.

A table whose SD card died is set up from a backup on a USB stick (issue 62): ``POST
/setup/api/stick`` (``{"code", "backup"}``: ``newest`` or a name the stick's listing gave, the
code tried as the set-up tries it) asks the root helper to copy it from the stick into the backups
folder; ``GET /setup/api/stick`` says what came of it (the stick's listing, what the copy holds and
what restoring it replaces, or why not) to the phone that asked alone: its answer carries a
ticket that phone shows in ``X-Stick-Ticket``, so a guest on the network without the code sees
nothing of the café's stick; the set-up's ``POST /setup/api`` with ``"restore": NAME``
in place of the name, language and PIN restores that backup as a trial.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from aiohttp import web

from ...engine.phrase import N_, Phrase, Text
from ...engine.views import LANGUAGES
from ...release.network import password_problem, ssid_problem
from ...release.stick import NEWEST, NIGHTLY
from ...ui.i18n import say, translation
from ..auth import CODE_DIGITS, CodeRefused, Door, Throttle, Why, code_given
from ..document import document
from ..roles import MIN_PASSPHRASE, Route, new_recovery_code, open_to_all
from ..staff import ATTEMPTS_OVERALL, ATTEMPTS_PER_ADDRESS, MIN_PIN, Section, StaffPage, log, static_file
from ..staff_answers import bad, refused
from ..staff_words import refused_key

if TYPE_CHECKING:
    from ...release.first_boot import Pending

COOKIE = "pt_setup_device"
FIELDS = {"fleet.table_id": "name", "game.language": "language"}
"""The configuration's keys the set-up writes, by the form's field that gives each."""
TYPE_THE_CODE = N_("type the code the table's screen shows")
WRONG_CODE = N_("wrong code: type the code the table's screen shows")
NO_TICKET = N_("only the phone that looked on the stick with the code sees what it holds: look again")
TICKET = "X-Stick-Ticket"  # the header the phone that asked for a stick's copy shows its ticket in
PINS_DIFFER, PASSPHRASES_DIFFER = N_("The two PINs differ."), N_("The two passphrases differ.")
SETUP_TEXTS: tuple[str, ...] = (
    N_("Set up this table"),
    N_("The table's screen shows a code: type it here, then choose how the table is run."),
    N_("Code on the table's screen"),
    N_("Phones are waiting in line: the second code the table's screen shows"),
    N_("Table name"),
    N_("letters, digits, - and _: how the café's tables tell this one apart"),
    N_("Language of the table"),
    N_("Time zone"),
    N_("Staff PIN"),
    N_("The staff log in with it on the staff page: 6 characters or more."),
    N_("Owner's passphrase"),
    N_("Updates, backups, restores, power and the Wi-Fi ask for it: 10 characters or more."),
    N_("Again"),
    N_("The café's Wi-Fi"),
    N_("Network"),
    N_("Wi-Fi password"),
    N_("Leave the network empty to keep the one the table is on."),
    N_("Set up the table"),
    N_("Setting up…"),
    PINS_DIFFER,
    PASSPHRASES_DIFFER,
    N_("Correct the fields marked above."),
    N_("The table is set up and restarts on its settings (about a minute)."),
    N_("It now joins {ssid}: connect this phone to {ssid}, then open {address}"),
    N_("Then open the staff page:"),
    N_("Open the staff page"),
    N_("On the network {network}."),
    N_("No network: the table opened its own Wi-Fi."),
    N_("(open network)"),
    N_("The page's certificate (SHA-256):"),
    WRONG_CODE,
    N_("A backup on a USB stick"),
    N_("Replacing a table whose SD card died? Plug the USB stick its backups were written to into this table, type "
       "the code above, then look on the stick."),
    N_("Look on the USB stick"),
    N_("Looking on the stick…"),
    N_("Backup {backup} from the stick {stick}, made {made}. Restoring it brings:"),
    N_("The stick's other backups"),
    N_("Copy this one instead"),
    N_("Set the table up from this backup: its name, language, settings and staff PIN come from it"),
    N_("Backup {backup} from the stick {stick} is sealed: type its backup key, written down at the set-up, then set the table up from it."),
    N_("Backup key"),
    N_("The owner's recovery code"),
    N_("The backup key"),
    N_("Write it down with the recovery code, and keep it away from the table: the backups copied to a USB s"
       "tick or to the network place are sealed with it, and a new SD card is set up from one of them only with it. It is shown only now."),
    N_("Write it down, or print this page, and keep it away from the table: if the owner's passphrase is forgotten, "
       "it sets a new one on the staff page (Forgot the passphrase? Use the recovery code). It is shown only now."),
)
"""The set-up page's words, by their English text (``/setup/words/LANG``)."""


@dataclass(frozen=True, slots=True)
class Form:
    """The set-up as the page sent it, each field checked (``_form``): the table's name in the
    café and language, the owner's passphrase, the staff PIN, the time zone, the café's Wi-Fi."""

    name: str
    language: str
    passphrase: str
    pin: str
    zone: str
    wifi: tuple[str, str] | None  # (name, password): None keeps the network the table has
    restore: str | None = None  # a backup copied from a stick: it brings the name, language and PIN
    key: str | None = None  # the owner's backup key, which opens a sealed one (``daemon.sealed``)


class StickDesk(Protocol):
    """A backup copied from a USB stick, the way back from a dead SD card."""

    def ask(self, backup: str) -> Text | None:
        """Ask for ``backup`` copied from a USB stick; None, or why it was not asked."""

    def seen(self, lang: str) -> dict[str, Any]:
        """What came of the last copy asked from the stick."""


class SetupDesk(Protocol):
    """What the set-up page asks of the table (``daemon.first_boot.FirstBoot``)."""

    waiting: Pending | None  # None once the table is set up

    def language(self) -> str: ...

    def about(self, lang: str) -> dict[str, Any]:
        """What the page offers: ``languages``, ``zones`` and the system's ``zone``, the network."""

    def zones(self) -> list[str]:
        """The time zones the system knows."""

    def check(self, settings: dict[str, object]) -> list[Phrase]:
        """The checker's problems with the configuration's keys the form gives (``FIELDS``), nothing written."""

    def set_up(self, form: Form, by: str | None) -> tuple[list[Phrase], list[Text], str | None]:
        """The set-up done; the checker's problems (nothing done), or [] and notes, and the backup
        key made for the table, to be shown this once (None: the owner's own was given)."""

    @property
    def stick(self) -> StickDesk:
        """A backup copied from a USB stick (``daemon.first_boot.StickCopy``)."""

    def staff_address(self) -> str: ...

    def restart(self) -> float: ...


class SetupPage(Section[SetupDesk | None], name="setup", texts=SETUP_TEXTS):
    """The set-up page on the staff page's server, its tries counted as the staff page's logins;
    ``desk`` None: the table is set up (or sets itself up no other way), and the page is gone."""

    def __init__(self, page: StaffPage, table: SetupDesk | None) -> None:
        super().__init__(page, table)
        self.desk = table
        gate = page.gate
        self.door = Door("setup", lambda: None, COOKIE, "/setup",  # past a flood's line with the staff page's code
                         Throttle(ATTEMPTS_PER_ADDRESS, ATTEMPTS_OVERALL, gate.clock, page.line_code), gate.door.key,
                         gate.turns)
        self._setup_js = static_file("setup.js")
        self._body = static_file("setup.html").decode()
        self._one = asyncio.Lock()  # one set-up at a time: the second finds the table set up
        self._ticket: str | None = None  # what the phone that last asked for a stick's copy shows to see it

    def routes(self) -> list[Route]:
        return [open_to_all("GET", "/setup", self._page),
                open_to_all("GET", "/setup/static/setup.js", self._script),
                open_to_all("GET", "/setup/words/{lang}", self._words),
                open_to_all("GET", "/setup/api", self._about),
                open_to_all("POST", "/setup/api", self._set_up),  # the code on the table's screen in its body
                open_to_all("GET", "/setup/api/stick", self._on_stick),
                open_to_all("POST", "/setup/api/stick", self._from_stick)]  # the code in its body too

    def first(self) -> str | None:
        return "/setup" if self._waiting() is not None else None

    def _waiting(self) -> SetupDesk | None:
        return self.desk if self.desk is not None and self.desk.waiting is not None else None

    async def _page(self, request: web.Request) -> web.StreamResponse:
        desk = self._waiting()
        if desk is None:
            raise web.HTTPSeeOther("/staff")
        lang = desk.language()
        page = document(lang, f"pi-table: {translation(lang).gettext('Set up this table')}", self._body,
                        '<link rel="stylesheet" href="/staff/static/staff.css">\n<script src="/setup/static/setup.js" defer></script>\n')
        return web.Response(text=page, content_type="text/html", headers=PRIVATE)

    async def _script(self, request: web.Request) -> web.Response:
        return web.Response(body=self._setup_js, content_type="application/javascript")

    async def _words(self, request: web.Request) -> web.Response:
        lang = request.match_info["lang"]
        if lang not in LANGUAGES:
            raise web.HTTPNotFound(text="")
        gettext = translation(lang).gettext
        return web.json_response({text: gettext(text) for text in SETUP_TEXTS})

    async def _about(self, request: web.Request) -> web.Response:
        desk = self._waiting()
        if desk is None:
            raise web.HTTPNotFound(text="")
        lang = request.query.get("lang", "")
        return web.json_response(await asyncio.to_thread(desk.about, lang if lang in LANGUAGES else desk.language()),
                                 headers=PRIVATE)

    async def _set_up(self, request: web.Request) -> web.StreamResponse:
        desk = self._waiting()
        if desk is None:
            raise web.HTTPNotFound(text="")
        body = await self.page.read_json(request)
        restoring = isinstance(body, dict) and body.get("restore") is not None
        if not isinstance(body, dict) or not all(isinstance(body.get(name), str)
                                                 for name in (RESTORE_SHAPE if restoring else SHAPE)) \
                or not (body.get("wifi") is None or isinstance(body["wifi"], dict)):
            return bad('expected {"code", "name", "language", "passphrase", "pin", "zone": TEXT, '
                       '"wifi": {"ssid", "password"} or null}, or "restore": a backup copied from a stick in place '
                       'of the name, language and pin')
        asked = request.query.get("lang", body.get("language", ""))  # the page's own language, else the table's to be
        lang = asked if asked in LANGUAGES else desk.language()
        form = _form(body, await asyncio.to_thread(desk.zones))
        said = [] if isinstance(form, Form) else [(field, say(problem, lang)) for field, problem in form]
        if not restoring and not set(FIELDS.values()) & {field for field, _ in said}:  # the checker's say, at once
            settings: dict[str, object] = {key: body[field].strip() for key, field in FIELDS.items()}
            said += _beside_fields(await asyncio.to_thread(desk.check, settings), lang)
        if said or not isinstance(form, Form):
            return _refused_fields(sorted(said, key=_in_page_order))
        async with self._one:
            if (turned := await self._code(request, body, lang)) is not None:
                return turned
            problems, notes, key = await asyncio.to_thread(desk.set_up, form, request.remote)
            recovery = None if problems or self.page.folder is None else \
                await asyncio.to_thread(new_recovery_code, self.page.folder)  # its hash kept beside the passphrase
        if problems and restoring:  # the backup would not do: said beside the stick's part of the page
            return _refused_fields([("restore", say(problem, lang)) for problem in problems])
        if problems:
            return _refused_fields(_beside_fields(problems, lang))
        joining = None if form.wifi is None else form.wifi[0]
        answer = {"ok": True, "restarting": True, "joining": joining, "notes": [say(note, lang) for note in notes],
                  "staff": "/staff" if joining is None else desk.staff_address(), "recovery_code": recovery,
                  "backup_key": key}
        return await self.page.then_restart(request, answer)

    async def _code(self, request: web.Request, body: dict[str, Any], lang: str) -> web.Response | None:
        """The code on the table's screen (``body``'s ``code``) tried through the set-up's door (its
        tries counted as logins), with the code past a flood's line its screen shows too (``line``,
        as the staff page's login takes it: issue 74): None when it is right, else the answer that
        turns the phone away."""
        desk = self._waiting()
        waiting = None if desk is None else desk.waiting
        if waiting is None:
            raise web.HTTPNotFound(text="")
        try:
            line = code_given(body.get("line"))
        except CodeRefused as e:
            return web.json_response({"ok": False, "error": translation(lang).gettext(str(e)).format(digits=CODE_DIGITS),
                                      "field": "line"}, status=400, headers=PRIVATE)
        checked = await self.door.check(request, body["code"], lambda stored, tried: waiting.matches(tried),
                                        code=line)
        if checked is not None and checked.why is Why.WRONG:
            log.warning("set-up page: a wrong code from %s", request.remote)
            return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_CODE), "field": "code"},
                                     status=403, headers=PRIVATE)
        return None if checked is None else refused(checked, lang)

    async def _on_stick(self, request: web.Request) -> web.Response:
        """What came of the last copy asked from a USB stick, to the phone that asked with the code
        (its ticket) alone: the stick's listing and what its backup brings are the café's."""
        desk = self._waiting()
        if desk is None:
            raise web.HTTPNotFound(text="")
        lang = request.query.get("lang", "")
        lang = lang if lang in LANGUAGES else desk.language()
        if self._ticket is None or not hmac.compare_digest(request.headers.get(TICKET, ""), self._ticket):
            return web.json_response({"ok": False, "error": say(Phrase.of(NO_TICKET), lang)}, status=403, headers=PRIVATE)
        return web.json_response(await asyncio.to_thread(desk.stick.seen, lang), headers=PRIVATE)

    async def _from_stick(self, request: web.Request) -> web.Response:
        """A backup copied from the USB stick plugged in, asked of the root helper once the code is right."""
        desk = self._waiting()
        if desk is None:
            raise web.HTTPNotFound(text="")
        body = await self.page.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) or not isinstance(body.get("backup"), str):
            return bad('expected {"code": TEXT, "backup": "newest" or a backup\'s name the stick listed}')
        lang = request.query.get("lang", "")
        lang = lang if lang in LANGUAGES else desk.language()
        backup = body["backup"]
        if backup != NEWEST and not NIGHTLY.fullmatch(backup):
            return _refused_fields([("restore", say(Phrase.of(STICK_NAME), lang))])
        async with self._one:
            if (turned := await self._code(request, body, lang)) is not None:
                return turned
            problem = await asyncio.to_thread(desk.stick.ask, backup)
        if problem is not None:
            return _refused_fields([("restore", say(problem, lang))])
        self._ticket = secrets.token_urlsafe(16)  # a phone that asked before sees no more
        return web.json_response({"ok": True, "asked": backup, "ticket": self._ticket}, headers=PRIVATE)


SHAPE = ("code", "name", "language", "passphrase", "pin", "zone")
RESTORE_SHAPE = ("code", "passphrase", "zone", "restore")
"""A set-up from a backup copied from a stick: the backup brings the name, the language and the PIN."""
STICK_NAME = N_("a backup on a stick is named newest or nightly-YYYYMMDD-HHMMSS.tar.gz: choose one of its list")
PAGE_ORDER = ("code", "restore", "name", "language", "zone", "pin", "pin-again", "passphrase", "passphrase-again",
              "ssid", "wifi-password")
"""The form's fields as the page shows them, top to bottom: its problems are named in this order."""
PRIVATE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def _form(body: dict[str, Any], zones: list[str]) -> Form | list[tuple[str, Text]]:
    """The set-up's form from ``body`` (its shape checked), or every field that will not do and
    why, in the page's order: all at once, so the owner corrects them in one go."""
    problems: list[tuple[str, Text]] = []
    if not body["code"].strip():
        problems.append(("code", Phrase.of(TYPE_THE_CODE)))
    restore = body.get("restore")
    if restore is not None and not NIGHTLY.fullmatch(restore):
        problems.append(("restore", Phrase.of(STICK_NAME)))
    name = "" if restore is not None else body["name"].strip()
    if restore is None and not name:
        problems.append(("name", Phrase.of("the table needs a name")))
    if restore is None and body["language"] not in LANGUAGES:
        problems.append(("language", Phrase.of("the language is one of {languages}, not {lang!r}",
                                               languages=", ".join(LANGUAGES), lang=body["language"][:20])))
    if body["zone"] not in zones:
        problems.append(("zone", Phrase.of("{zone} is not a time zone this table knows: choose one of the list",
                                           zone=body["zone"][:40])))
    for field, least, too_short, differ in (
            *([] if restore is not None else [  # a restore brings the backup's PIN
                ("pin", MIN_PIN, N_("the staff PIN has at least {least} characters, not {length}"), PINS_DIFFER)]),
            ("passphrase", MIN_PASSPHRASE, N_("the owner's passphrase has at least {least} characters, not {length}"),
             PASSPHRASES_DIFFER)):
        if len(body[field]) < least:
            problems.append((field, Phrase.of(too_short, least=least, length=len(body[field]))))
        if isinstance(again := body.get(f"{field}_again"), str) and again != body[field]:
            problems.append((f"{field}-again", Phrase.of(differ)))
    wifi = body.get("wifi")
    ssid, password = (wifi.get("ssid"), wifi.get("password", "")) if wifi and wifi.get("ssid") else (None, None)
    if ssid is not None and (problem := ssid_problem(ssid)) is not None:
        problems.append(("ssid", Phrase.of(problem)))
    if ssid is not None and (problem := password_problem(password)) is not None:
        problems.append(("wifi-password", Phrase.of(problem)))
    if problems:
        return problems
    wifi_given: tuple[str, str] | None = None
    if ssid is not None:
        assert isinstance(ssid, str) and isinstance(password, str)  # as their checks found them
        wifi_given = (ssid, password)
    language, pin = ("", "") if restore is not None else (body["language"], body["pin"])
    key = body.get("key") if restore is not None and isinstance(body.get("key"), str) else None
    return Form(name, language, body["passphrase"], pin, body["zone"], wifi_given, restore, (key or "").strip() or None)


def _beside_fields(problems: list[Phrase], lang: str) -> list[tuple[str, str]]:
    """The checker's ``problems`` said in ``lang``, each beside the field that gives its key (the
    problem alone: no file, no key); one of no field's key beside the name."""
    found = [refused_key(problem, lang) for problem in problems]
    return [(FIELDS.get(each["key"] or "", "name"), each["problem"]) for each in found]


def _in_page_order(problem: tuple[str, str]) -> int:
    field = problem[0]
    return PAGE_ORDER.index(field) if field in PAGE_ORDER else len(PAGE_ORDER)


def _refused_fields(problems: list[tuple[str, str]]) -> web.Response:
    """Every field that will not do, beside it (``problems``); ``field`` and ``error``: the first."""
    return web.json_response({"ok": False, "error": problems[0][1], "field": problems[0][0],
                              "problems": [{"field": field, "error": said} for field, said in problems]},
                             status=400, headers=PRIVATE)
