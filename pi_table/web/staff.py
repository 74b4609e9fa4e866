"""The staff page: ``/staff`` on the companion server, behind a PIN, for the café's staff.

The page itself (``/staff``, its script and style, its words ``/staff/words/LANG`` and the
cards' ``/staff/cards/LANG``) and the way in (``/staff/session``, ``/staff/login``) are open;
everything the staff can see or do is under ``/staff/api/`` and answers 401 without a session,
403 without the session's CSRF token in the ``X-Staff-Token`` header. What it shows of the game
is the public view, as the spectators' page: the daemon hands it nothing else (``Desk``).

The PIN is kept as a salted scrypt hash in ``staff.pin`` beside the journal (readable by the
service alone; ``pi-table set-staff-pin`` writes it). The way in is ``auth.Gate``, as the fleet
dashboard's: logins are counted per address and in all, and refused past either limit with the
wait (a phone that logged in before is counted on its own, so a flood of guesses cannot lock the
staff out, not even after a new PIN: its cookie is signed with a key kept in ``staff.device-key``;
while phones never seen wait in line, the table's screen shows a code that lets a new one skip
it, ``auth.LineCode``).
A session is a random cookie (HttpOnly, SameSite=Strict, Secure over https) that lasts ``[staff]
session_min`` minutes from its last use, and ends when the PIN is changed; sessions are kept,
hashed, in ``staff.sessions``, so the restart that applies a new configuration does not log the
staff out.

What needs the owner rather than the staff is said beside each route (``roles.staff``, ``owner``);
every action under ``/staff/api/`` is checked for it (``StaffPage.api``), and a session that gave
the owner's passphrase (``POST /staff/api/owner``) acts as the owner for a few minutes. The page's
own parts are the game, the history, the settings and the restart; the rest are its sections
(``Section``, ``web.sections``), each a module of its own.
"""

from __future__ import annotations

import asyncio
import csv
import hmac
import io
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from aiohttp import web

from ..engine.errors import Refusal
from ..engine.games import NAMES, described, names
from ..engine.phrase import N_, Phrase, Text
from ..engine.views import LANGUAGES
from ..files import DEVICE_KEY, read_json
from ..hal.events import is_fault
from ..ui.i18n import say, say_health, translation
from ..ui.orientation import OPERATIVES_SIDE, page_layout
from .acts import ActNotes
from .auth import (
    CODE_DIGITS,
    Gate,
    KeptSecret,
    LineCode,
    Recovery,
    Refused,
    Session,
    Why,
    code_given,
    hashed,
    keep_secret,
)
from .document import KIT_SCRIPT, document
from .roles import OWNER, STAFF, Checked, Open, Owner, Role, Route, owner, owners_keys, role, staff, unnamed
from .texts import page_texts

log = logging.getLogger("pi_table.web.staff")
PIN_FILE = "staff.pin"
SESSIONS_FILE = "staff.sessions"
DEVICE_KEY_FILE = DEVICE_KEY  # signs the phones' device cookies: a new PIN keeps them known
MIN_PIN = 6  # characters: a café's PIN of six digits, or a password
COOKIE = "pt_staff"  # its device cookie, "pt_staff_device": a phone that has logged in before (auth.Gate)
CSRF_HEADER = "X-Staff-Token"
LANG_HEADER = "X-Staff-Lang"
BACKGROUND_HEADER = "X-Staff-Background"  # the page refreshing itself: not a use that keeps a session alive
ATTEMPTS_PER_ADDRESS = 5  # logins from one address (or one known phone) a minute
ATTEMPTS_OVERALL = 20  # logins from everywhere a minute: many phones cannot guess faster
MAX_BODY = 64 * 1024  # a configuration change: a few keys, a map of LEDs at most
BODY_TIMEOUT_S = 10.0  # a request's body, from the end of its headers (the login's too: anyone may send one)
STYLES = {"staff.css": "text/css", "night.css": "text/css"}
LIVE = ("game.language", "leds.brightness", "sound.volume", "timer.length_s")
"""The keys the table applies while it runs: the rest of a change waits for a restart."""


class Game(Protocol):
    """The game on the table, as the page's own parts show and change it."""

    def table(self, lang: str) -> dict[str, Any]:
        """The game as the operatives see it (the public view, never the key), each device's
        health, the warnings, version and uptime, and the settings' trial (``settings``: a change
        on trial, the last one rolled back); its sentences in ``lang``."""

    def new_game(self, game: str, options: dict[str, object], lang: str) -> Text | None:
        """Deal ``game`` with these options (``dealt_with``); None, or why not (in ``lang``)."""

    def undo(self, lang: str) -> Text | None:
        """Take back the last action; None, or why not (in ``lang``)."""

    def end_game(self, lang: str) -> Text | None:
        """Leave the game unfinished (it stays in the history) and deal the next; None, or why not."""

    def history(self, lang: str) -> list[dict[str, Any]]:
        """The games kept, newest first: id, game, started, moves, duration_s, over, winner, reason
        (said in ``lang``)."""


class Settings(Protocol):
    """The configuration, as the page's form shows and changes it."""

    def settings(self) -> dict[str, Any]:
        """``{"file": PATH or None, "groups": {GROUP: WORD}, "options": [{key, kind, label, group, help,
        value, default, unit, choices: [{value, label}], range: {min, max, off} or None}, ...]}``,
        its words msgids (``form_field`` says them in the page's language)."""

    def discard_refused(self) -> bool:
        """Replace the settings file the table refused at its start with its last good one; False
        when none is refused."""

    def change_settings(self, changes: dict[str, object], reached: str | None, by: str) -> list[Phrase]:
        """Check the file with ``changes`` as ``check-config`` does and, if it passes, write it
        (atomically) as a trial of ``by`` (``staff`` or ``owner``, the role the session acts in): the table keeps it only if it is healthy after the restart that
        applies it (``restart``), the page answering on ``reached`` (``reached_on``) too, and puts
        the last good file back by itself if not. The checker's problems, or [] when written."""

    def change_at_hand(self, key: str, value: object) -> list[Phrase]:
        """One of ``LIVE`` changed as ``change_settings`` does, and applied at once (no restart)."""


class Desk(Game, Settings, Protocol):
    """What the page itself asks of the table (the daemon's ``StaffDesk``), beside what its
    sections take of it (each section's own ``Table``). Every call may wait on the table loop,
    so the page makes them in a worker thread. Refusals come back as the table's sentence
    (``say`` translates it)."""

    def language(self) -> str:
        """The table's language: the page's until the staff pick theirs on it."""

    def restart(self) -> float:
        """Restart the service (systemd starts it again); the game resumes from the journal. The
        seconds until it does: one asked soon after several others waits its turn."""


# --- the PIN ------------------------------------------------------------------------------


def static_file(name: str) -> bytes:
    """A file of ``web/static/``: a page, its script or its style."""
    return resources.files(__package__).joinpath("static", name).read_bytes()


def set_pin(folder: Path, pin: str) -> Path:
    """Keep ``pin``'s hash in ``folder/staff.pin`` (0600); a Refusal when the PIN is too short."""
    if len(pin) < MIN_PIN:
        raise Refusal("the staff PIN has at least {least} characters, not {length}", least=MIN_PIN, length=len(pin))
    return keep_secret(folder / PIN_FILE, pin)


# --- the words ----------------------------------------------------------------------------

DEVICES = {
    "touch": N_("the touch board"),
    "leds": N_("the LED strip"),
    "screen": N_("the spymaster screen"),
    "buttons": N_("the buttons"),
    "companion": N_("the phones' pages"),
    "journal": N_("the journal"),
    "sound": N_("the sound"),
    "fleet": N_("the fleet's broker"),
}
"""The devices by their name in the table's health, as the page names them."""

ADVICE = {
    "touch": N_("Check the board's USB cable; the table finds the board again by itself."),
    "leds": N_("Check the LED supply and data wire, then restart the service."),
    "screen": N_("Check the screen's cable, then restart the service."),
    "buttons": N_("Check the buttons' wiring ([buttons] in the configuration), then restart the service."),
    "companion": N_("Free the web port or change [web] port, then restart the service."),
    "journal": N_("The disk may be full or read-only: free space, then restart the service."),
    "sound": N_("Check the speaker or amplifier and its cable, and [sound] in the configuration; the game goes on "
                "silent."),
    "fleet": N_("Check the network and [fleet] broker in the configuration; the table plays on and reports later."),
}
ADVICE_ANY = N_("Look at the log below, then restart the service.")
"""What to do about a device that is not working, by the device's name in the table's health."""

OWNER_NEEDED = N_("this needs the owner's passphrase: give it under Owner, then try again")
NOTHING_REFUSED = N_("no settings file is refused: the table runs on its own")
OWNER_NEEDED_KEYS = N_("changing {keys} needs the owner's passphrase: give it under Owner, then save again")
OWNER_UNSET = N_("this needs the owner, and no owner's passphrase is set: sudo pi-table set-owner-passphrase")
WRONG_PASSPHRASE = N_("wrong passphrase")
WRONG_CODE = N_("wrong or expired code: hold both buttons while the table starts for a new one")
"""What the page says when an action needs the owner (``roles``)."""

TEXTS = (
    # the way in
    N_("Staff"),
    N_("Staff PIN"),
    N_("Log in"),
    N_("Log out"),
    N_("No staff PIN is set, so this page does nothing."),
    N_("Set one on the table's computer with: sudo pi-table set-staff-pin"),
    N_("wrong PIN"),
    N_("too many attempts: wait {seconds} s"),
    N_("too many logins at once: try again in a moment"),
    N_("Code shown on the table's screen"),
    N_("Many phones are logging in: ask at the table for the code on its screen to skip the wait."),
    N_("log in first"),
    N_("your session has expired: log in again"),
    N_("the page's security token is missing or wrong: reload the page"),
    N_("no staff PIN is set: sudo pi-table set-staff-pin"),
    # the table
    OPERATIVES_SIDE,
    N_("Devices"),
    N_("Game"),
    N_("ok"),
    N_("New game"),
    N_("Undo"),
    N_("End game"),
    N_("Options"),
    N_("End the game on the table? It stays in the history, unfinished."),
    N_("Deal a new game? The game on the table stays in the history."),
    N_("Undone: the last action is taken back."),
    N_("Ended: the game stays in the history, unfinished, and a new one is dealt."),
    N_("Dealt: a new game of {game}."),
    N_("turn"),
    N_("over"),
    N_("red"),
    N_("blue"),
    *dict.fromkeys(word for name in NAMES for word in described(name).phases.values()),  # the games' phases
    N_("simulated"),
    N_("not fitted"),
    N_("connecting"),
    N_("off"),
    N_("starting"),
    N_("version {version}, up {uptime}"),
    # the history
    N_("History"),
    N_("Export CSV"),
    N_("Export JSON"),
    N_("started"),
    N_("result"),
    N_("moves"),
    N_("duration"),
    N_("unfinished"),
    N_("in play"),
    N_("no games yet"),
    # the settings
    N_("At hand"),
    N_("Language"),
    N_("Brightness"),
    N_("Turn timer (s, 0: off)"),
    N_("Volume"),
    N_("Configuration"),
    N_("Save and apply"),
    N_("Saved: the table restarts to apply it and resumes its game."),
    N_("New settings on trial ({keys}): they are kept once the table is healthy on them; if it is not, the last "
       "good ones come back by themselves."),
    N_("The settings changed at {time} ({keys}) were rolled back, and the last good ones are in use: {why}"),
    N_("Saved and applied."),
    N_("Discard the refused file"),
    N_("Discarded: the table restarts on its last good settings."),
    N_("no configuration file: the table runs on its defaults"),
    N_("Log"),
    N_("Refresh"),
    N_("Restart service"),
    N_("Restart the table's service? The game resumes where it was."),
    N_("The service is restarting…"),
    *DEVICES.values(),
    *ADVICE.values(),
    OWNER_NEEDED,  # the owner's parts of the page say so while locked (staff.js's locked), as the table answers
    OWNER_UNSET,
    N_("This needs the owner's passphrase: give it under Owner."),  # an owner's view while locked (ownersView)
)
"""The page's words (its script looks each one up by its English text, ``/staff/words/LANG``)."""

def words(lang: str, more: Iterable[str] = ()) -> dict[str, str]:
    """Every word of the page (and ``more``: its sections') in ``lang``, by its English text."""
    catalogue = translation(lang)
    return {text: catalogue.gettext(text) for text in (*TEXTS, *more)}


def advised(table: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """Each device's health with what to do about it when it is not working, said in ``lang``:
    the fault's own advice where the table gives one (``advice``, by device), else the device's."""
    health = dict(table.get("health", {}))
    health["journal"] = table.get("journal", "ok")
    fitting = table.get("advice") or {}
    gettext = translation(lang).gettext
    return [{"device": name, "health": say_health(state, lang),
             "advice": (fitting.get(name) or gettext(ADVICE.get(name, ADVICE_ANY))) if is_fault(state) else None}
            for name, state in health.items()]


SPAN = N_("{least} to {most}")
SPAN_OFF = N_("{least} to {most}, or {off}: off")
"""The numbers a setting takes, as its field's hint says them after its unit."""


def form_field(option: dict[str, Any], lang: str) -> dict[str, Any]:
    """A setting as the desk describes it (``Desk.settings``), its words said in ``lang`` and its
    unit and range as one hint: "seconds, 2 to 120"."""
    gettext = translation(lang).gettext
    span, unit = option.get("range"), option.get("unit")
    spanned = None if span is None else gettext(SPAN if span["off"] is None else SPAN_OFF).format(
        least=f"{span['min']:g}", most=f"{span['max']:g}", off=f"{span['off'] or 0:g}")
    return {**option, "label": gettext(option["label"]), "help": gettext(option["help"]),
            "choices": [{**choice, "label": gettext(choice["label"])} for choice in option.get("choices", [])],
            "hint": ", ".join(part for part in (unit and gettext(unit), spanned) if part)}


def dealt_with(game: str) -> tuple[str, ...]:
    """The options the new-game form deals ``game`` with: its rules' options, as its description
    gives them (none for a name no game has: the table refuses the game)."""
    if game not in names():
        return ()
    return tuple(choice.name for choice in described(game).options if choice.rule)


def games_offered(lang: str) -> list[dict[str, Any]]:
    """The new-game form's games, from their descriptions (``engine.described``): each game the
    menus offer, by its name and its title, with the options it is dealt with (their labels,
    kinds, defaults, the words or the numbers they take), said in ``lang``."""
    gettext = translation(lang).gettext
    return [{"game": name, "title": gettext(game.title), "options": [
        {"name": choice.name, "kind": choice.kind, "label": gettext(choice.label), "default": choice.default,
         "choices": [{"value": value, "label": gettext(choice.words.get(value, value))} for value in choice.values],
         "range": None if choice.span is None else {"min": choice.span[0], "max": choice.span[1]}}
        for choice in game.options if choice.rule]}
        for name in names() if (game := described(name)).offered]


def played(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as the staff list it: a game dealt over before its first move (a new game
    asked twice, an end before anyone played) was never played and is left out; the newest, the
    game in play, and a journal that cannot be read are always listed."""
    return [game for index, game in enumerate(games)
            if index == 0 or game.get("moves") or game.get("over") or "error" in game]


def refused_key(problem: Text, lang: str) -> dict[str, Any]:
    """A problem the checker found in a change, said in ``lang`` (``error``), with the key it
    names and the problem alone, as the form shows it beside that key's field; a problem of no
    one key (the file's, two keys together) has the key None, or the first key with the whole
    sentence beside it."""
    said = say(problem, lang)
    fields = {} if isinstance(problem, str) else dict(problem.fields)
    key = fields.get("key")
    if not isinstance(key, str):
        return {"key": None, "error": said, "problem": said}
    alone = fields.get("problem")
    if "other" in fields or not isinstance(alone, (str, Phrase)):
        return {"key": key, "error": said, "problem": said}
    return {"key": key, "error": said, "problem": say(alone, lang)}


REFUSED_TAKES = N_("{value} refused: it takes {takes}")
REFUSED_BECAUSE = N_("{value} refused: {problem}")
REFUSED_TEXT = N_("refused: {problem}")
REFUSED_TOGETHER = N_("{label} and {other} together: {problem}")
LABELLED = N_("{label}: {refusal}")
ONE_OF = N_("one of {choices}")
"""A refused setting as the owner reads it: by its label, with what it takes (issue 39: the page
said ``.../config.toml: timer.length_s: ...``)."""


def refusal(problem: Text, changes: dict[str, object], options: dict[str, dict[str, Any]], lang: str) -> dict[str, Any]:
    """``refused_key``'s answer (the checker's sentence whole, for scripts and the log) with the
    owner's words: ``said`` beside the setting's field (the value refused and what the setting
    takes, when the form knows it, else the checker's problem), ``whole`` with its label before
    it, and ``label``. A value typed as text is not said back: a URL may hold a password."""
    found = refused_key(problem, lang)
    option = options.get(found["key"] or "")
    if option is None:
        return {**found, "label": None, "said": found["error"], "whole": found["error"]}
    gettext = translation(lang).gettext
    shown = form_field(option, lang)
    fields = {} if isinstance(problem, str) else dict(problem.fields)
    if "other" in fields:
        other = options.get(str(fields["other"]))
        alone = fields.get("problem", "")
        said = gettext(REFUSED_TOGETHER).format(label=shown["label"], problem=say(alone, lang) if isinstance(
            alone, str | Phrase) else found["problem"],
                                                other=form_field(other, lang)["label"] if other else fields["other"])
        return {**found, "label": shown["label"], "said": said, "whole": said}
    value = changes.get(option["key"])
    number = isinstance(value, int | float) and not isinstance(value, bool)
    takes = None
    if shown["choices"] and value not in [choice["value"] for choice in shown["choices"]]:
        takes = gettext(ONE_OF).format(choices=", ".join(choice["label"] for choice in shown["choices"]))
    elif option.get("range") and not (number and _within(option["range"], float(value))):  # type: ignore[arg-type]
        takes = shown["hint"]
    told = json.dumps(value) if number or isinstance(value, bool) else value if shown["choices"] and isinstance(
        value, str) else None
    if takes and told is not None:
        said = gettext(REFUSED_TAKES).format(value=told, takes=takes)
    elif told is not None:
        said = gettext(REFUSED_BECAUSE).format(value=told, problem=found["problem"])
    else:
        said = gettext(REFUSED_TEXT).format(problem=found["problem"])
    return {**found, "label": shown["label"], "said": said,
            "whole": gettext(LABELLED).format(label=shown["label"], refusal=said)}


def _within(span: dict[str, Any], value: float) -> bool:
    return value == span.get("off") or span["min"] <= value <= span["max"]


def labels(keys: Iterable[str], options: dict[str, dict[str, Any]], lang: str) -> list[str]:
    """The settings ``keys`` by their labels in ``lang`` (a key the form does not know, as it is)."""
    gettext = translation(lang).gettext
    return [gettext(options[key]["label"]) if key in options else key for key in keys]


class Helper(Protocol):
    """The root helper, as the sections that ask it for something see it (``daemon.root_helper``)."""

    spool: Path  # where it takes its requests

    def ask(self, act: str, **args: str) -> Text | None:
        """Leave ``act`` for the helper; None, or why it could not be asked."""


class TableCode(Protocol):
    """The code on the table's own screen (both buttons held while it starts), by which someone at
    the table resets a forgotten PIN or owner's passphrase (``daemon.code_desk.CodeDesk.offer``)."""

    @property
    def recovery(self) -> Recovery: ...

    def recovered(self) -> None:
        """The code was used: the screen stops showing it."""

    def wipe_owners_part(self, address: str | None) -> list[str]:
        """The buttons' reset asked from ``address``: the owner told at their notifications'
        address, then everything only the owner held wiped (``daemon.owners_part``), the names of
        the pieces that held something; a Refusal saying why not (nothing reset then)."""

    def owner_reset(self, how: str, address: str | None, wiped: list[str], marks: list[str]) -> None:
        """The owner's passphrase was reset (``how``: "buttons" or "recovery") by the session and
        phones ``marks`` names: its lasting notice, and its line in the history."""

    def owner_notice(self) -> Text | None:
        """The notice of the last reset, until the owner acknowledges it."""

    def owner_resets(self) -> list[dict[str, object]]:
        """Every reset kept, oldest first: how, at, from, wiped (each piece's words, msgids), acknowledged."""

    def acknowledge_reset(self, marks: list[str]) -> bool:
        """The owner has seen the notice: it goes. Whether there was one; a Refusal when it may
        not go yet, or not from the session or phones ``marks`` names (they made the reset)."""


class FakeHelper:
    """A root helper that takes nothing, for tests and the screenshots: each act asked is recorded
    in ``calls`` (its arguments after it), and none is refused."""

    spool = Path("/nonexistent/pi-table-spool")  # where a root helper would take its requests: none here

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def ask(self, act: str, **args: str) -> Text | None:
        self.calls.append(" ".join([act, *(str(value) for value in args.values())]))
        return None


class FakeTableCode:
    """The code on a stand-in table's screen (``TableCode``), made when a page first asks for it;
    its use and the owner's reset recorded in ``calls``, the reset's notice kept until acknowledged."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls
        self.notice: Phrase | None = None
        self._recovery: Recovery | None = None

    @property
    def recovery(self) -> Recovery:
        self._recovery = self._recovery or Recovery()
        return self._recovery

    def recovered(self) -> None:
        self.calls.append("recovered")

    def wipe_owners_part(self, address: str | None) -> list[str]:
        """The buttons' reset: nothing of the owner's here, recorded."""
        self.calls.append("wipe")
        return []

    def owner_reset(self, how: str, address: str | None, wiped: list[str], marks: list[str]) -> None:
        self.calls.append(f"owner reset {how}")
        self.notice = Phrase.of("the owner's passphrase was reset with the recovery code at {time} from {address}. "
                                "The owner acknowledges it on the staff page", time="now", address=address)

    def owner_notice(self) -> Text | None:
        return self.notice

    def owner_resets(self) -> list[dict[str, object]]:
        return []

    def acknowledge_reset(self, marks: list[str]) -> bool:
        seen, self.notice = self.notice is not None, None
        return seen


class StandIn(Protocol):
    """A stand-in table (``daemon.staff_desk.FakeDesk``): what its sections' stand-ins share."""

    calls: list[str]
    code: FakeTableCode
    helper: FakeHelper


Part = TypeVar("Part")
"""The part of the table a section takes (its own small protocol, which the daemon's desk meets)."""


class Section(Generic[Part]):
    """A part of the staff page, as a game is a description (docs/dev/adding-a-staff-section.md):
    one module of ``web/sections/``, a subclass with its ``name``, its words (``texts``, served with
    the page's at ``/staff/words/LANG``), its ``script`` (loaded by the page after ``staff.js``) and
    its ``routes``, each with the role it needs beside it (``roles.staff``, ``owner``,
    ``open_to_all``), registered by one line in ``web.sections.SECTIONS``. The page makes it with
    its part of the table (``table``), by its own small protocol (``Section[Part]``), which an
    object of the daemon's meets (paired with it by one line in ``daemon.staff_parts.PARTS``); it
    mounts its routes behind the page's checks and serves its words and its script. Nothing else
    names it; ``mount``, ``heeded`` and ``first`` are for the few that need more."""

    name: ClassVar[str]
    script: ClassVar[str | None] = None
    """Its script, a file of ``scripts``: a module that imports from ``staff.js`` alone."""
    scripts: ClassVar[Traversable] = resources.files(__package__).joinpath("static")
    """The folder its script is in: ``web/static/`` (a section from outside the package, a test's, names its own)."""
    texts: ClassVar[tuple[str, ...]] = ()
    """Its words on the page, by their English text (its script looks each up with ``t()``)."""

    def __init_subclass__(cls, name: str | None = None, script: str | None = None, texts: tuple[str, ...] = (),
                          **rest: Any) -> None:
        """A section's ``name``, ``script`` and ``texts`` given where it is declared, as its shape:
        ``class KeysSection(Section[Helper], name="keys", script="keys.js", texts=TEXTS)``."""
        super().__init_subclass__(**rest)
        if name is not None:
            cls.name, cls.script, cls.texts = name, script, texts

    def __init__(self, page: StaffPage, table: Part) -> None:
        self.page = page
        self.table = table

    @classmethod
    def made(cls, page: StaffPage, table: Any) -> Section[Any] | None:
        """The section on ``page``, given its part of the table; None when this table has none (a
        game night without a journal to keep it in)."""
        return cls(page, table)

    @classmethod
    def stand_in(cls, table: StandIn) -> Part | None:
        """Its part on a stand-in table (tests, the screenshots), declared beside its protocol; None
        when a stand-in table has none (no game night, no notifications, no set-up awaited)."""
        return None

    def routes(self) -> Iterable[Route]:
        """Its routes, each with the role it needs."""
        return ()

    def mount(self, app: web.Application) -> None:
        """What it needs beyond its routes while the pages are served (a task of its own)."""

    def heeded(self, lang: str) -> list[dict[str, str]]:
        """What it adds to the health's headline (``{"what", "advice"}``, said in ``lang``); called in a worker thread."""
        return []

    def first(self) -> str | None:
        """Where the staff page sends a phone instead, while this section says so (the set-up page)."""
        return None

    def restarting_run(self) -> float | None:
        """When the run this section's owner's act starts began, while this start is that run's
        restart of the table by the root helper's hand (``acts.ActNotes.carried``); else None."""
        return None


Parts = Callable[[type[Section[Any]]], object]
"""Each section's part of the table, by its class (the daemon's ``staff_parts.parts``)."""


class StaffPage:
    """The staff page of the companion at ``folder`` (the journal's: the PIN and the sessions
    are kept there) on ``desk``, with ``sections`` (``web.sections.SECTIONS``), each given its part
    of the table by ``parts``; ``session_s`` is how long a session lasts unused; ``clock`` the wall clock
    (sessions outlive a restart), which tests replace."""

    def __init__(self, desk: Desk, folder: Path | None, session_s: float = 3600.0,
                 clock: Callable[[], float] = time.time, body_timeout_s: float = BODY_TIMEOUT_S,
                 sections: Iterable[type[Section[Any]]] = (), parts: Parts = lambda section: None) -> None:
        self.desk, self.folder, self.body_timeout_s = desk, folder, body_timeout_s
        self._pin = KeptSecret(None if folder is None else folder / PIN_FILE, "the staff PIN")
        self.line_code = LineCode(clock)
        """The code the table's screen shows while new phones wait in line to log in (the daemon shows it)."""
        self.gate = Gate("staff", self._pin, COOKIE, "/staff", ATTEMPTS_PER_ADDRESS, ATTEMPTS_OVERALL, session_s, clock,
                         None if folder is None else folder / SESSIONS_FILE, CSRF_HEADER,
                         keys=None if folder is None else folder / DEVICE_KEY_FILE, code=self.line_code)
        self.owner = Owner(folder, self.gate, ATTEMPTS_PER_ADDRESS, ATTEMPTS_OVERALL, clock)
        self.acts = ActNotes(folder, clock)
        self.announce: Callable[[str], None] = lambda what: None
        """Tells the spectators' pages that ``what`` changed (the companion's, once it is made)."""
        self.roles: dict[tuple[str, str], Role] = {}  # every staff action mounted, by method and path: the role it needs
        self.sections = [made for kind in sections if (made := kind.made(self, parts(kind))) is not None]
        self._carry_unlock()
        self.scripts = {"staff.js": static_file("staff.js"), **{
            section.script: section.scripts.joinpath(section.script).read_bytes()
            for section in self.sections if section.script}}
        """The page's scripts: its own, then its sections'."""
        self._files = {name: static_file(name) for name in STYLES}
        self._kit = static_file(KIT_SCRIPT)
        self._body = static_file("staff.html").decode()
        self._head = '<link rel="stylesheet" href="/staff/static/staff.css">\n' + "".join(
            f'<script type="module" src="/staff/static/{name}"></script>\n' for name in self.scripts)
        """The page's style, then its scripts: ``staff.js``, then each section's."""

    def routes(self) -> list[Route]:
        """The page's own actions: the game, the history, the settings, the restart, the owner."""
        return [
            staff("GET", "/staff/api/table", self._table),
            staff("POST", "/staff/api/new-game", self._new_game),
            staff("POST", "/staff/api/undo", self._undo),
            staff("POST", "/staff/api/end-game", self._end_game),
            staff("GET", "/staff/api/history", self._history),
            staff("GET", "/staff/api/history.csv", self._history_csv),
            staff("GET", "/staff/api/config", self._config),
            staff("POST", "/staff/api/config", self._change_config),  # but the owner's keys (``owners_keys``)
            owner("POST", "/staff/api/config/discard", self._discard_refused),  # a refused file replaced by the last good
            staff("POST", "/staff/api/restart", self._restart),
            staff("POST", "/staff/api/logout", self._logout),
            staff("GET", "/staff/api/owner", self._owner),  # whether this session acts as the owner
            staff("POST", "/staff/api/owner", self._step),  # give the passphrase, or stop acting as the owner
        ]

    def mount(self, app: web.Application) -> None:
        """The page, its own actions, then each section's routes and whatever else it needs; a
        route under ``/staff/api/`` with no role stops the page from starting (``unnamed``)."""
        app.add_routes([
            web.get("/staff", self._page),
            web.get("/staff/static/{name}", self._static),
            web.get("/staff/words/{lang}", self._words),
            web.get("/staff/cards/{lang}", self._cards),
            web.get("/staff/session", self._session_state),
            web.post("/staff/login", self._login),
        ])
        for route in (*self.routes(), *(route for section in self.sections for route in section.routes())):
            self._add(app, route)
        for section in self.sections:
            section.mount(app)
        self._add(app, staff("*", "/staff/api/{rest:.*}", self._unknown))  # any other path: 404, after every route
        if missing := unnamed(app, self.roles):
            # a programming error: a section registered without its role, met at start
            raise RuntimeError(f"staff actions with no role: {', '.join(missing)}")

    def _add(self, app: web.Application, route: Route) -> None:
        """``route`` in ``app``, behind the page's checks when it is one of theirs; its role noted (a GET's HEAD too)."""
        # ``checked`` says which of the two a handler is: one given the session, or one that takes the request alone
        handler = self.api(cast(Checked, route.handler)) if route.checked else cast(Open, route.handler)
        if route.method == "GET":
            added = app.router.add_get(route.path, handler)  # HEAD beside it, as web.get
        else:
            added = app.router.add_route(route.method, route.path, handler)
        if route.role is not None and added.resource is not None:
            self.roles[(route.method, added.resource.canonical)] = route.role

    # -- the way in -------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.Response:
        """The page, in ``<html lang>`` the table's language for the script to start from; the
        set-up page instead while the table awaits it, which sets the PIN this page asks for."""
        for section in self.sections:
            if (first := section.first()) is not None:
                raise web.HTTPSeeOther(first)
        lang = self.desk.language()
        page = document(lang, f"pi-table: {translation(lang).gettext('Staff')}", self._body, self._head)
        return web.Response(text=page, content_type="text/html", headers=_PRIVATE)

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name in self.scripts or name == KIT_SCRIPT:  # the kit's, which staff.js (and setup.js) imports
            return web.Response(body=self.scripts.get(name) or self._kit, content_type="application/javascript")
        if name not in STYLES:
            raise web.HTTPNotFound(text="")
        return web.Response(body=self._files[name], content_type=STYLES[name])

    async def _words(self, request: web.Request) -> web.Response:
        lang = request.match_info["lang"]
        if lang not in LANGUAGES:
            raise web.HTTPNotFound(text="")
        return web.json_response(words(lang, (text for section in self.sections for text in section.texts)))

    async def _cards(self, request: web.Request) -> web.Response:
        """The phones' words for the cards, which the board in words says alike: under /staff,
        so a staff phone's device cookie takes it through the companion's reserve in a flood."""
        lang = request.match_info["lang"]
        if lang not in LANGUAGES:
            raise web.HTTPNotFound(text="")
        return web.json_response(page_texts(lang)["texts"])

    async def _session_state(self, request: web.Request) -> web.Response:
        """Whether a PIN is set, and the caller's CSRF token when it has a live session."""
        session = self.gate.live(request)
        return web.json_response({"pin_set": self._pin() is not None,
                                  "csrf": None if session is None else session.csrf}, headers=_PRIVATE)

    async def _login(self, request: web.Request) -> web.Response:
        """``{"pin", "code"}``: the PIN, and the code on the table's screen if it shows one (a
        phone waiting in line is told so: ``"line": true``)."""
        body = await self.read_json(request)
        body = body if isinstance(body, dict) else {}
        entered = await self.gate.log_in(request, body.get("pin"), line_code(request, body))
        if isinstance(entered, Refused):
            if entered.why is Why.WRONG:
                log.warning("staff page: a wrong PIN from %s", request.remote)
            return refused(entered, language(request))
        log.info("staff page: logged in from %s", request.remote)
        response = web.json_response({"ok": True, "csrf": entered.session.csrf}, headers=_PRIVATE)
        self.gate.let_in(request, response, entered)
        return response

    def api(self, handler: Callable[[web.Request, Session], Awaitable[web.StreamResponse]]
            ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """``handler`` behind the checks every staff action passes: a live session (401), its
        CSRF token in the header (403), and the owner for the actions whose route needs
        one (403, or 409 when no passphrase is set). A session's use keeps it alive, and its
        phone known (its device cookie given again if it lacks one); the page refreshing itself
        does not, so a phone left open on the page is logged out all the same."""

        async def checked(request: web.Request) -> web.StreamResponse:
            session = self.gate.visit(request, use=BACKGROUND_HEADER not in request.headers)
            if isinstance(session, Refused):
                return refused(session, language(request))
            needed = role(self.roles, request.method, request.match_info.route)
            if needed is not STAFF and (refusal := self.not_owner(request, session)) is not None:
                return refusal
            response = await handler(request, session)
            response.headers.update(_PRIVATE)
            if not response.prepared and self.gate.door.device(request) is None:
                self.gate.door.remember(request, response)
            return response

        return checked

    def not_owner(self, request: web.Request, session: Session, keys: list[str] | None = None) -> web.Response | None:
        """None when ``session`` acts as the owner; else ``owner_needed`` (``keys``: the settings, by their labels)."""
        return None if self.owner.left_s(session) else self.owner_needed(request, keys)

    def owner_needed(self, request: web.Request, keys: list[str] | None = None) -> web.Response:
        """Why the request may not do what needs the owner (``keys``: the configuration's keys it
        changes): no passphrase is set (409, and how to set one), or it was not given lately (403)."""
        if self.owner.secret() is None:
            return no_owner(request)
        gettext = translation(language(request)).gettext
        said = gettext(OWNER_NEEDED_KEYS).format(keys=", ".join(keys)) if keys else gettext(OWNER_NEEDED)
        return web.json_response({"ok": False, "error": said, "owner": "needed"}, status=403, headers=_PRIVATE)

    # -- what the staff see and do ----------------------------------------------------------

    async def _table(self, request: web.Request, session: Session) -> web.Response:
        return await self._table_now(language(request))

    async def _table_now(self, lang: str) -> web.Response:
        """The table as it is, its devices with advice and its warnings in ``lang``."""
        table = await asyncio.to_thread(self.desk.table, lang)
        table["devices"] = advised(table, lang)
        table["warnings"] = [say(warning, lang) for warning in table.get("warnings", [])]
        table["grid"] = page_layout()  # the board drawn as every picture of the grid is
        table["games"] = games_offered(lang)  # the new-game form's, as the games describe themselves
        return web.json_response(table)

    async def _new_game(self, request: web.Request, session: Session) -> web.Response:
        body = await self.read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("game"), str) \
                or not isinstance(body.get("options", {}), dict):
            return bad('expected {"game": NAME, "options": {OPTION: VALUE, ...}}')
        options = body.get("options", {})
        offered = dealt_with(body["game"])
        unknown = sorted(set(options) - set(offered))
        if unknown:
            return bad(f"unknown option {', '.join(unknown)}: expected {', '.join(offered) or 'none'}")
        return await self._done(request, self.desk.new_game, body["game"], options)

    async def _undo(self, request: web.Request, session: Session) -> web.Response:
        return await self._done(request, self.desk.undo)

    async def _end_game(self, request: web.Request, session: Session) -> web.Response:
        return await self._done(request, self.desk.end_game)

    async def _done(self, request: web.Request, action: Callable[..., Text | None], *args: object) -> web.Response:
        """What the table said to an action: 200 and the table as it is now, or 409 and why not."""
        error = await asyncio.to_thread(action, *args, lang=language(request))
        if error is not None:
            return web.json_response({"ok": False, "error": say(error, language(request))}, status=409)
        return await self._table_now(language(request))

    async def _history(self, request: web.Request, session: Session) -> web.Response:
        games = played(await asyncio.to_thread(self.desk.history, language(request)))
        return web.json_response({"games": games}, headers=_download("json") if "download" in request.query else {})

    async def _history_csv(self, request: web.Request, session: Session) -> web.Response:
        games = played(await asyncio.to_thread(self.desk.history, language(request)))
        out = io.StringIO()
        columns = ("id", "game", "started", "moves", "duration_s", "over", "winner", "losers", "reason", "termination",
                   "score")
        writer = csv.writer(out)
        writer.writerow(columns)
        for game in games:
            writer.writerow([" ".join(game.get(name) or []) if name == "losers" else _cell(game.get(name))
                             for name in columns])
        return web.Response(text=out.getvalue(), content_type="text/csv", headers=_download("csv"))

    async def _config(self, request: web.Request, session: Session) -> web.Response:
        """The configuration as the form shows it, in the page's language (its words are msgids)."""
        settings = await asyncio.to_thread(self.desk.settings)
        lang = language(request)
        gettext = translation(lang).gettext
        return web.json_response({**settings, "groups": {name: gettext(word) for name, word in settings["groups"].items()},
                                  "options": [form_field(option, lang) for option in settings["options"]]})

    async def _discard_refused(self, request: web.Request, session: Session) -> web.StreamResponse:
        """The owner's word on a settings file the table refused at its start: it is replaced by
        the last good one, and the table restarts on it; 409 when no file is refused."""
        if (refused_owner := self.not_owner(request, session)) is not None:
            return refused_owner
        if not await asyncio.to_thread(self.desk.discard_refused):
            return web.json_response({"ok": False, "error": translation(language(request)).gettext(NOTHING_REFUSED)},
                                     status=409, headers=_PRIVATE)
        log.warning("staff page: the refused settings file discarded by the owner: restarting on the last good one")
        return await self.then_restart(request, {"ok": True, "restarting": True}, (session, "config-discard"))

    async def _change_config(self, request: web.Request, session: Session) -> web.StreamResponse:
        body = await self.read_json(request)
        changes = body.get("changes") if isinstance(body, dict) else None
        if not isinstance(changes, dict) or not changes or not all(
                isinstance(value, (bool, int, float, str, list)) for value in changes.values()):
            return bad('expected {"changes": {"section.key": VALUE, ...}}, each value a '
                                 "string, number, true/false or list")
        lang = language(request)
        options = {option["key"]: option for option in (await asyncio.to_thread(self.desk.settings))["options"]}
        if (owners := owners_keys(changes, options)) and (
                refused_owner := self.not_owner(request, session, labels(owners, options, lang))) is not None:
            return refused_owner
        [(key, value)] = changes.items() if len(changes) == 1 else [("", None)]
        live = key in LIVE
        if live:
            problems = await asyncio.to_thread(self.desk.change_at_hand, key, value)
        else:
            by = (OWNER if self.owner.left_s(session) else STAFF).value  # who made it: its trial's note keeps it
            problems = await asyncio.to_thread(self.desk.change_settings, changes, reached_on(request), by)
        if problems:
            found = [refusal(problem, changes, options, lang) for problem in problems]
            return web.json_response({"ok": False, "error": "\n".join(each["error"] for each in found),
                                      "said": "\n".join(each["whole"] for each in found), "problems": found},
                                     status=400)
        if live:
            log.info("staff page: %s changed and applied", key)
            return web.json_response({"ok": True, "restarting": False}, headers=_PRIVATE)
        log.info("staff page: configuration changed (%s): restarting to apply it", ", ".join(changes))
        return await self.then_restart(request, {"ok": True, "restarting": True}, (session, "config") if owners else None)

    async def _restart(self, request: web.Request, session: Session) -> web.StreamResponse:
        log.info("staff page: restart asked from %s", request.remote)
        return await self.then_restart(request, {"ok": True, "restarting": True})

    def _carry_unlock(self) -> None:
        """The unlock an owner's act carried across the restart it asked for (``acts``), back on
        its session, if the owner's passphrase is the one it was given with."""
        carried = self.acts.carried({section.name: began for section in self.sections
                                     if (began := section.restarting_run()) is not None})
        stored = self.owner.secret()
        if carried is None or stored is None:
            return
        token, passphrase, until = carried
        if hmac.compare_digest(hashed(stored), passphrase) and self.gate.sessions.owner_again(token, until):
            log.warning("staff page: the owner's unlock carried across the restart the owner's act asked for")

    def owners_act(self, session: Session, section: str, now: bool = True) -> None:
        """``session``'s act of ``section`` restarts the table, ``now`` or once it is done (the
        daemon says so then, ``acts.ActNotes.done``): its result (``acts.RESULTS``) is kept across
        the restart, and so is the session's unlock, when it acts as the owner."""
        stored = self.owner.secret()
        if stored is not None and self.owner.left_s(session):
            self.acts.asked(section, hashed(session.csrf), hashed(stored), session.owner, now)

    async def then_restart(self, request: web.Request, answer: dict[str, Any],
                           act: tuple[Session, str] | None = None) -> web.StreamResponse:
        """Answer first, then restart: the page hears that it worked before the server goes; an
        owner's ``act`` (its session, its section) is kept across the restart (``owners_act``)."""
        if act is not None:
            await asyncio.to_thread(self.owners_act, *act)
        response = web.json_response(answer, headers=_PRIVATE)
        await response.prepare(request)
        await response.write_eof()
        await asyncio.to_thread(self.desk.restart)
        return response

    async def _logout(self, request: web.Request, session: Session) -> web.Response:
        response = web.json_response({"ok": True})
        self.gate.log_out(request, response)
        return response

    async def _owner(self, request: web.Request, session: Session) -> web.Response:
        """Whether an owner's passphrase is set, how long this session still acts as the owner,
        whether the owner keeps a recovery code, and the results of the owner's acts that
        restarted the table (``acts``: to the staff too, the result and not the power)."""
        results = await asyncio.to_thread(self.acts.results, language(request))
        return web.json_response({"set": self.owner.secret() is not None, "left_s": math.ceil(self.owner.left_s(session)),
                                  "recovery": self.owner.recovery() is not None, "results": results})

    async def _step(self, request: web.Request, session: Session) -> web.Response:
        """``{"passphrase": TEXT}``: this session acts as the owner for ``roles.OWNER_S``, the
        phone is remembered by the owner's door; ``{"end": true}``: it stops."""
        body = await self.read_json(request)
        if not isinstance(body, dict) or not (isinstance(body.get("passphrase"), str) or body.get("end") is True):
            return bad('expected {"passphrase": THE OWNER\'S PASSPHRASE, "code": THE CODE ON THE TABLE\'S SCREEN '
                       'or none} or {"end": true}')
        if body.get("end") is True:
            self.owner.step_down(session)
            return await self._owner(request, session)
        lang = language(request)
        checked = await self.owner.step_up(request, session, body["passphrase"], line_code(request, body))
        if (refusal := owner_refused(checked, request, lang)) is not None:
            return refusal
        log.warning("staff page: the owner's passphrase given from %s", request.remote)
        response = await self._owner(request, session)
        self.owner.door.remember(request, response)
        return response

    async def read_json(self, request: web.Request) -> object:
        """The request's body as JSON, at most ``MAX_BODY`` bytes within the body deadline; None
        when it is not JSON (or nests too deep to read)."""
        data = b""
        try:
            async with asyncio.timeout(self.body_timeout_s):
                while len(data) <= MAX_BODY:
                    more = await request.content.read(MAX_BODY + 1 - len(data))
                    if not more:
                        break
                    data += more
        except TimeoutError:
            raise web.HTTPRequestTimeout(text=json.dumps({"ok": False, "error": (
                f"the request's body did not arrive within {self.body_timeout_s:g} s")}),
                content_type="application/json") from None
        if len(data) > MAX_BODY:
            raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=len(data))
        try:
            return read_json(data or b"{}")
        except ValueError:
            return None

    async def _unknown(self, request: web.Request, session: Session) -> web.Response:
        raise web.HTTPNotFound(text="")


_PRIVATE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def reached_on(request: web.Request) -> str | None:
    """The address of this machine ``request`` came in on (an IPv4 one as such, not mapped into
    IPv6): where the staff page must answer again after a change it makes. None without one."""
    import ipaddress  # a change of the settings only

    sockname = None if request.transport is None else request.transport.get_extra_info("sockname")
    if not isinstance(sockname, tuple) or not isinstance(sockname[0], str):
        return None
    host = sockname[0]
    try:
        mapped = ipaddress.IPv6Address(host.partition("%")[0]).ipv4_mapped
    except ValueError:  # an IPv4 address already
        return host
    return host if mapped is None else str(mapped)


def language(request: web.Request) -> str:
    lang = request.headers.get(LANG_HEADER, "en")
    return lang if lang in LANGUAGES else "en"


REFUSALS = {
    Why.NO_SESSION: N_("log in first"),
    Why.EXPIRED: N_("your session has expired: log in again"),
    Why.NO_TOKEN: N_("the page's security token is missing or wrong: reload the page"),
    Why.NO_SECRET: N_("no staff PIN is set: sudo pi-table set-staff-pin"),
    Why.TOO_MANY: N_("too many attempts: wait {seconds} s"),
    Why.BUSY: N_("too many logins at once: try again in a moment"),
    Why.WRONG: N_("wrong PIN"),
}
"""What the page says to each refusal of the way in."""


def line_code(request: web.Request, body: dict[str, Any]) -> str | None:
    """The code on the table's screen a login's ``body`` carries (``auth.code_given``), or None;
    a 400 saying what it is, in the page's language, for anything else."""
    try:
        return code_given(body.get("code"))
    except ValueError as e:
        said = translation(language(request)).gettext(str(e)).format(digits=CODE_DIGITS)
        raise web.HTTPBadRequest(text=json.dumps({"ok": False, "error": said}), content_type="application/json") from None


IN_LINE = N_("many phones are logging in: wait {seconds} s, or type the code on the table's screen")
"""A phone waiting in line for the budget of phones never seen: the table's code skips the line."""


def refused(refused: Refused, lang: str) -> web.Response:
    """A refusal of the way in, in the page's language; one that waits in line says so (``line``)."""
    said = IN_LINE if refused.line else REFUSALS[refused.why]
    text = translation(lang).gettext(said).format(seconds=refused.wait_s)
    answer = {"ok": False, "error": text, **({"line": True} if refused.line else {})}
    return web.json_response(answer, status=refused.status, headers={**_PRIVATE, **refused.headers})


def owner_refused(checked: Refused | None, request: web.Request, lang: str, given: str = "") -> web.Response | None:
    """The answer to an owner's passphrase the owner's door did not take, None when it did: 409 with
    none set; 403 for a wrong one, not the login's 401, so the session goes on (logged with what it
    was ``given`` for); else the door's own refusal."""
    if checked is None:
        return None
    if checked.why is Why.NO_SECRET:
        return no_owner(request)
    if checked.why is Why.WRONG:
        log.warning("staff page: a wrong owner's passphrase%s from %s", given, request.remote)
        return web.json_response({"ok": False, "error": translation(lang).gettext(WRONG_PASSPHRASE)}, status=403)
    return refused(checked, lang)


def no_owner(request: web.Request) -> web.Response:
    """What needs the owner, on a table with no owner's passphrase: 409, and how to set one."""
    said = translation(language(request)).gettext(OWNER_UNSET)
    return web.json_response({"ok": False, "error": said, "owner": "unset"}, status=409, headers=_PRIVATE)


def bad(text: str) -> web.Response:
    return web.json_response({"ok": False, "error": text}, status=400)


def _cell(value: object) -> str:
    return "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _download(kind: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="pi-table-history.{kind}"'}
