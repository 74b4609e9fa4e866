"""The owner's notifications (issue 62): the table tells the owner of a problem without a page
being opened, through Apprise (e-mail, Telegram, ntfy, Matrix, ...: one URL the owner pastes on
the staff page, an owner's secret kept as a file of the owner's, ``owner_files``).

``Watch`` looks at the running table every ``POLL_S`` and turns what it finds into conditions,
each under a key: a device not working, the SD card nearly full, a nightly backup that failed or
whose copy to the network place or a USB stick failed (one key for each while it fails),
and one-off events (a start after a crash, a change rolled back, an update or a security run
that ended, a night closed). A condition is sent once when it appears; while it stays, nothing
more; once it has cleared it may be sent again, but not within ``QUIET_S`` of the last message
for it (a fault that comes and goes every minute makes one message, not sixty). What was sent is
kept in the journal folder (``SENT_FILE``), so a restart does not send again what stays.

``Outbox`` sends on its own thread, each message within ``SEND_S``: neither the table loop nor a
web thread ever waits on a service, and a failing or slow one leaves its reason on the staff page
(``last``). A message says what happened on this table, never the key, a password or the URL.

Every message is a ``ui.tell.Message`` of one of the kinds below, said in the table's language
when it is sent (a change of language on the staff page is the next message's): a helper's code
is a kind of its own, a system error one reason of a closed list (its own words are the log's),
a number grouped as the language groups it.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import shutil
import string
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from .. import version
from ..config import bound
from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase, Text
from ..files import read_json, write_private
from ..hal.events import not_working
from ..release import stick, system
from ..release.layout import Releases, act_note
from ..ui.i18n import say
from ..ui.tell import NOTICE_EVENTS, Kind, Message, Name, Reason, Said, because, words
from . import offsite

if TYPE_CHECKING:
    from ..config import Config
    from ..night.recorder import Recorder
    from .backup import Nightly

log = logging.getLogger("pi_table.daemon")
URL_KEY = "notify.url_file"  # the setting naming the file the Apprise URL is kept in
EVENTS_KEY = "notify.events"
EVENTS = NOTICE_EVENTS
"""The events the owner may be told of, with the words the staff page offers each by."""
SCHEMES = ("mailto", "mailtos", "tgram", "ntfy", "ntfys", "matrix", "matrixs", "json", "jsons", "gotify", "gotifys",
           "signal", "signals", "discord", "slack", "pover", "mmost", "mmosts", "rocket", "rockets", "xmpp", "xmpps")
"""The Apprise services the table sends to: mail, chats and push services a café uses."""
URL_MOST = 2048  # characters: an Apprise URL with a token or two
POLL_S = 5.0  # how often the table is looked at
POLL_VARIABLE = "PI_TABLE_NOTICES_POLL_S"  # the tests' table looks more often
QUIET_S = 3600.0  # a condition that cleared and came back is told again no sooner than this
SEND_S = 20.0  # one message: a service that has not answered by then has failed
QUEUE_MOST = 20  # messages waiting: a service down for long drops the oldest news, not the table's memory
TEST_MORE_S = 5.0  # a test waits for its message this much longer than the message may take
FULL_PART = 0.9  # the SD card is nearly full past nine tenths used
FORGET_S = 7 * 86400.0  # what was told is kept this long: longer than any note it was told of stays
OLD_NEWS = ("update:", "security:", "rollback:")  # the notes a table finds at its very first look: not told
SENT_FILE = "notices.sent"  # in the journal folder: what was told, and the last message's outcome
RUNNING_FILE = "notices.running"  # in the journal folder while the table runs: found at a start, a crash came before

TITLE = Kind.of("", N_("Table {table}"), table=Name)
TEST = Kind.of("", N_("A test from table {table}: the owner's notifications arrive here."), table=Name)
DEVICE = Kind.of("device", N_("Device fault: {fault}"), fault=Phrase)
CRASHED = Kind.of("restart", N_("The table restarted after a crash; it resumed its game."))
ROLLED_BACK = Kind.of("restart", N_("A change of settings was rolled back: {why}"), why=Said)
UPDATED = Kind.of("update", N_("The table now runs version {version}."), version=Name)
UPDATE_FAILED = Kind.of("update", N_("An update failed: {why}"), why=Phrase)
SECURITY_NOTHING = Kind.of("update", N_("No security update was waiting: the system is up to date."))
SECURITY_DONE = Kind.of("update", N_("The security updates were applied."))
SECURITY_FAILED = Kind.of("update", N_("The security updates failed: {why}"), why=Phrase)
BACKUP_FAILED = Kind.of("backup", N_("The nightly backup could not be made: {why}"), why=Phrase)
OFFSITE_FAILED = Kind.of("backup", N_("The nightly backup could not be copied to the network place: {why}"),
                         why=Reason)
OFFSITE_KEY_CHANGED = Kind.of("backup", N_(
    "The network place answered with another SSH key: no copy is sent there until you compare it and accept it on "
    "the staff page."))
STICK_FAILED = Kind.of("backup", N_("The nightly backup could not be written to the USB stick: {why}"), why=Phrase)
DISK_FULL = Kind.of("disk", N_("The SD card is nearly full: {percent}% used, {free} MB free."), percent=int, free=int)
NIGHT_CLOSED = Kind.of("night", N_("The game night {name} closed. At the top of the standings: {winners}"),
                       name=Name, winners=tuple)
NIGHT_EMPTY = Kind.of("night", N_("The game night {name} closed with no game played."), name=Name)
OWNER_RESET = Kind.of("", N_("The owner's passphrase is being reset with the table's buttons, from {address}: "
                             "everything only the owner set is wiped, this address included. Copies of the backups "
                             "on a USB stick or at the network place still hold your settings."), address=Name)
"""Told whatever events the owner chose, before the wipe takes the address away (issue 75)."""
SECURITY = {"nothing": SECURITY_NOTHING, "done": SECURITY_DONE}
"""The security run's outcomes that went well, by the helper's code for them; any other failed."""
NO_URL = N_("no notifications' address is set: paste one and save it first")
FAILED = N_("the service did not take the message: {why}")
SLOW = N_("the service did not answer within {seconds} s")
QUEUED = N_("the message is still being sent")


class Table(Protocol):
    """What the notifications look at of the running table (``run.Daemon``)."""

    config: Config
    night: Recorder | None
    nightly: Nightly | None

    @property
    def helper(self) -> Helped | None:
        """Its root helper, which notes how its acts ended in ``home``."""

    def device_faults(self) -> dict[str, Text]:
        """Each device not working, and why (in the table's words: a sentence, or the system's own)."""


class Helped(Protocol):
    """The root helper as the notifications read it: where its notes are."""

    home: Path


@dataclass(frozen=True)
class NoticeUrl:
    """An Apprise URL the owner gave: one line of a service the table sends to, as Apprise reads it."""

    text: str
    scheme: str

    @classmethod
    def parse(cls, text: str) -> NoticeUrl:
        """The URL ``text`` names; Refusal naming what is wrong (never quoting it: it holds a secret)."""
        text = text.strip()
        if not text or len(text) > URL_MOST or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in text):
            raise Refusal("a notifications' address is one line of at most {most} characters, no spaces",
                          most=URL_MOST)
        scheme, sep, _ = text.partition("://")
        if not sep or scheme.lower() not in SCHEMES:
            raise Refusal("a notifications' address begins with one of {schemes}://", schemes=", ".join(SCHEMES))
        if _apprise().Apprise.instantiate(text) is None:
            raise Refusal("the notifications' address is not one {scheme}:// takes: see the Apprise page of the "
                          "service", scheme=scheme.lower())
        return cls(text, scheme.lower())

    @property
    def shown(self) -> str:
        """What the staff page shows of it: the service, never its tokens or address."""
        return f"{self.scheme}://…"


def _apprise() -> ModuleType:
    """Apprise, loaded for the owner's notifications alone (a table without them never loads it),
    its log kept out of the table's: its lines name the address (a token, a host, a password
    Apprise could not read), and the table's log is the staff's (issue 74). The reason a message
    failed reaches the owner's page alone (``Heard``)."""
    import apprise

    heard = logging.getLogger("apprise")
    heard.propagate = False
    if not any(isinstance(handler, logging.NullHandler) for handler in heard.handlers):
        heard.addHandler(logging.NullHandler())  # else Python's last resort writes its warnings to stderr, the journal
    return apprise


def read_url(config: Config) -> NoticeUrl | None:
    """The URL the settings name a file of, or None (none set, or the file unreadable or damaged)."""
    named = str(config.values.get(URL_KEY, "") or "")
    if not named:
        return None
    try:
        url = NoticeUrl.parse(Path(named).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, Refusal) as e:
        log.warning("the notifications' address cannot be read (%s): no message is sent",
                    e.strerror if isinstance(e, OSError) else type(e).__name__)
        return None
    why = bound.refused(named, URL_KEY, bound.address_destination(url.text))
    if why is not None:  # a file given as another secret, or changed since it was given
        log.warning("%s: no message is sent", say(why, "en"))
        return None
    return url


def chosen(config: Config) -> frozenset[str]:
    """The events the owner chose."""
    names = config.values.get(EVENTS_KEY)
    return frozenset(str(name) for name in names if name in EVENTS) if isinstance(names, list) else frozenset()


def polled_every(environ: Mapping[str, str] = os.environ) -> float:
    """``POLL_S``, or the seconds ``PI_TABLE_NOTICES_POLL_S`` names (0.05 to 60)."""
    try:
        return min(max(float(environ[POLL_VARIABLE]), 0.05), 60.0)
    except (KeyError, ValueError):
        return POLL_S


class Heard(logging.Handler):
    """What Apprise said of a message it could not send: its reason, for the staff page."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage().strip())


class Outbox:
    """The messages on their way, sent one at a time on a thread of their own."""

    def __init__(self, url: Callable[[], NoticeUrl | None], title: Message, lang: Callable[[], str],
                 on_sent: Callable[[dict[str, Any]], None], send_s: float | None = None) -> None:
        self.url, self.title, self.lang, self.on_sent, self.send_s = url, title, lang, on_sent, send_s or SEND_S
        self._queue: queue.Queue[tuple[Message, NoticeUrl | None, threading.Event | None]] = queue.Queue(QUEUE_MOST)
        self._thread = threading.Thread(target=self._run, name="notices", daemon=True)
        self.last: dict[str, Any] | None = None  # the last message's outcome: at, ok, why

    def start(self) -> None:
        self._thread.start()

    def put(self, body: Message, url: NoticeUrl | None = None, done: threading.Event | None = None) -> None:
        """``body`` to be sent (to ``url``, else the one set), in the table's language when it goes;
        never waits: a full queue drops its oldest."""
        while True:
            try:
                self._queue.put_nowait((body, url, done))
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    pass

    def _run(self) -> None:
        while True:
            body, url, done = self._queue.get()
            self.last = self._send(body, url or self.url())
            self.on_sent(self.last)
            if done is not None:
                done.set()

    def _send(self, message: Message, url: NoticeUrl | None) -> dict[str, Any]:
        """One message sent, waited for ``send_s`` at most (Apprise's own wait runs on beside)."""
        lang = self.lang()
        title, body = words(self.title, lang), words(message, lang)
        if url is None:
            return {"at": time.time(), "ok": False, "why": NO_URL, "args": {}}
        outcome: dict[str, Any] = {}

        def deliver() -> None:
            sender, said = _apprise().Apprise(), Heard()
            sender.add(url.text)
            heard = logging.getLogger("apprise")
            heard.addHandler(said)
            try:
                ok = sender.notify(title=title, body=body)
            finally:
                heard.removeHandler(said)
            outcome.update(ok=bool(ok), why=said.lines[-1][-200:] if said.lines else "")

        worker = threading.Thread(target=deliver, name="notice-send", daemon=True)
        worker.start()
        worker.join(self.send_s)
        if worker.is_alive() or not outcome:
            return {"at": time.time(), "ok": False, "why": SLOW, "args": {"seconds": round(self.send_s)}}
        if not outcome["ok"]:
            log.warning("the owner's notification was not sent (its reason is on the staff page, the owner's)")
            return {"at": time.time(), "ok": False, "why": FAILED, "args": {"why": outcome["why"] or "?"}}
        return {"at": time.time(), "ok": True, "why": None, "args": {}}


class Watch:
    """The running table's notifications: its conditions looked at every ``poll_s``, each told once."""

    def __init__(self, daemon: Table, poll_s: float | None = None, clock: Callable[[], float] = time.time) -> None:
        self.daemon, self.poll_s, self.clock = daemon, poll_s or polled_every(), clock
        config = daemon.config
        self.journal = config.paths.journal_dir
        self.url = read_url(config)
        self.events = chosen(config)
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._sent = self._read()
        self._first = "version" not in self._sent  # the first start with notifications: nothing told yet
        self._held: set[str] = set()  # the conditions present at the last look
        self._night: Any = None  # the night open here at the last look
        self.table = config.fleet.table_id or os.uname().nodename  # the name the owner knows it by
        self.outbox = Outbox(lambda: self.url, Message.of(TITLE, table=Name(self.table)), lambda: self.lang,
                             self._keep_last)
        self._thread = threading.Thread(target=self._run, name="notices-watch", daemon=True)
        self._once: dict[str, Message] = self._at_start()

    @property
    def lang(self) -> str:
        """The table's language now: a change on the staff page is the next message's."""
        return self.daemon.config.language

    # --- what was told, kept across restarts ---

    def _read(self) -> dict[str, Any]:
        try:
            data = read_json((self.journal / SENT_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        data = data if isinstance(data, dict) else {}
        told = data.get("told")
        told = told if isinstance(told, dict) else {}
        data["told"] = {str(key): float(at) for key, at in told.items() if isinstance(at, int | float)}
        return data

    def _write(self) -> None:
        try:
            write_private(self.journal / SENT_FILE, json.dumps(self._sent).encode("utf-8"))
        except OSError as e:  # a full card: the messages go on, a restart may tell again
            log.warning("cannot keep what the notifications told (%s)", e.strerror)

    def _keep_last(self, last: dict[str, Any]) -> None:
        with self._lock:
            self._sent["last"] = dict(last)
            self._write()

    def last(self) -> dict[str, Any] | None:
        """The last message's outcome (at, ok, why's template and its arguments), kept across restarts."""
        with self._lock:
            last = self._sent.get("last")
        return last if isinstance(last, dict) else None

    # --- the conditions ---

    def _at_start(self) -> dict[str, Message]:
        """The one-off events a start finds: a crash before it (the running mark left), a new version."""
        found: dict[str, Message] = {}
        running = self.journal / RUNNING_FILE
        if running.exists():
            found[f"crash:{running.stat().st_mtime:.0f}"] = Message.of(CRASHED)
        try:
            write_private(running, b"")
        except OSError:
            pass
        now = version()
        if self._sent.get("version") not in (None, now):
            found[f"version:{now}"] = Message.of(UPDATED, version=Name(now))
        self._sent["version"] = now
        self._write()
        return found

    def conditions(self) -> dict[str, Message]:
        """What is to be told now, by key."""
        found = dict(self._once)
        daemon = self.daemon
        for name, fault in daemon.device_faults().items():
            if name != "companion":  # the pages: the owner reads this through them
                found[f"device:{name}"] = Message.of(DEVICE, fault=because(fault) if isinstance(fault, Phrase)
                                                     else not_working(name))
        source = daemon.config.source
        if source is not None:
            from ..config import trial

            note = trial.rolled_back(source)
            if note is not None:
                why = note.get("why")  # the table's own sentence, said in each language when it rolled back
                found[f"rollback:{note.get('at')}"] = Message.of(ROLLED_BACK, why=Said.of(why) if isinstance(why, dict)
                                                                 else Said.of({}))
        found.update(self._acts())
        nightly = daemon.nightly
        if nightly is not None and nightly.failed is not None:
            found["backup"] = Message.of(BACKUP_FAILED, why=because(nightly.failed))
        copied = offsite.last(daemon.config)  # each copy off the card: one key while its fault stays, not one a try
        if offsite.changed_key(daemon.config) is not None:  # not a failure among others: a key to compare
            found["backup:offsite"] = Message.of(OFFSITE_KEY_CHANGED)
        elif copied is not None and copied.get("ok") is False:
            why = copied.get("why")  # the note's, said for the staff page with rclone's own words
            found["backup:offsite"] = Message.of(OFFSITE_FAILED, why=Reason.of(str(
                why.get("en", "") if isinstance(why, dict) else "")))
        try:
            disk = shutil.disk_usage(self.journal)
        except OSError:
            disk = None
        if disk is not None and disk.total and disk.used / disk.total >= FULL_PART:
            found["disk"] = Message.of(DISK_FULL, percent=round(100 * disk.used / disk.total),
                                       free=disk.free // 1_000_000)
        found.update(self._closed_night())
        return found

    def _acts(self) -> dict[str, Message]:
        """The root helper's notes: an update that failed, a security run that ended, the nightly
        backup's copy to a USB stick that failed. The daemon makes its helper before this watch,
        so the first look reads them (and holds them back as old news)."""
        helper = self.daemon.helper  # its home: where the helper notes how its acts ended
        if helper is None:
            return {}
        releases, found = Releases(helper.home), {}
        update = releases.note(act_note("update")) or {}
        if update.get("outcome") == "failed" and isinstance(update.get("at"), int | float):
            found[f"update:{update['at']}"] = Message.of(UPDATE_FAILED, why=_noted(update.get("why")))
        on_stick = releases.note(act_note(stick.ACT)) or {}
        if on_stick.get("outcome") == "failed":
            found["backup:stick"] = Message.of(STICK_FAILED, why=_noted(on_stick.get("why")))
        security = releases.note(system.NOTE) or {}
        if security.get("running") is False and isinstance(security.get("at"), int | float):
            outcome = SECURITY.get(str(security.get("outcome")))
            found[f"security:{security['at']}"] = Message.of(outcome) if outcome is not None \
                else Message.of(SECURITY_FAILED, why=_noted(security.get("why")))
        return found

    def _closed_night(self) -> dict[str, Message]:
        """A night open here at the last look and closed since: the teams at the top of its
        standings, or that no game was played in it."""
        recorder = self.daemon.night
        night = None if recorder is None else recorder.book.night
        was, self._night = self._night, night if night is not None and night.open else None
        if was is None or self._night is not None:
            return {}
        standings = was.standings()
        best = max((line.points for line in standings), default=0)
        winners = tuple(Name(line.team) for line in standings if line.points == best)
        key = f"night:{was.name}:{self.clock():.0f}"
        if not was.played or not winners:
            return {key: Message.of(NIGHT_EMPTY, name=Name(was.name))}
        return {key: Message.of(NIGHT_CLOSED, name=Name(was.name), winners=winners)}

    # --- telling ---

    def look(self) -> None:
        """The conditions looked at once: each new one (of a chosen event) told, the rest held back.
        What was told is written only when it changes: an SD card is not written every few seconds.
        A table's first look tells nothing of the helper's runs before it: they are old news."""
        now, found = self.clock(), self.conditions()
        with self._lock:
            told: dict[str, float] = dict(self._sent["told"])
        before = dict(told)
        for key, said in found.items():
            event = said.kind.event
            if self._first and key.startswith(OLD_NEWS):
                told[key] = now
                continue
            if key in self._held or event not in self.events or self.url is None:
                continue
            if now - float(told.get(key, 0)) < QUIET_S:
                continue
            told[key] = now
            self.outbox.put(said)
            log.info("the owner is told: %s", said)
        self._held, self._once, self._first = set(found), {}, False
        told = {key: at for key, at in told.items() if now - at < FORGET_S}
        if told != before:
            with self._lock:
                self._sent["told"] = told
                self._write()

    def test(self, url: str = "") -> dict[str, Any]:
        """A test message sent now (to ``url``, checked first, else to the one set), waited for
        a little longer than a message may take: its outcome, or that it is still on its way."""
        done = threading.Event()
        self.outbox.put(Message.of(TEST, table=Name(self.table)), NoticeUrl.parse(url) if url.strip() else None, done)
        if not done.wait(self.outbox.send_s + TEST_MORE_S):
            return {"at": self.clock(), "ok": False, "why": QUEUED, "args": {}}
        return self.outbox.last or {}

    def tell_reset(self, address: str | None) -> bool | None:
        """The buttons' reset told now, whatever events were chosen, and waited for as a test
        is: the wipe that follows takes the address away (issue 75). Whether it was sent; None
        with no address set."""
        if self.url is None:
            return None
        done = threading.Event()
        self.outbox.put(Message.of(OWNER_RESET, address=Name(address or "?")), self.url, done)
        log.warning("the owner is told of the buttons' reset before it wipes their notifications' address")
        return done.wait(self.outbox.send_s + TEST_MORE_S) and bool((self.outbox.last or {}).get("ok"))

    def start(self) -> None:
        self.outbox.start()
        self._thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(self.poll_s):
            try:
                self.look()
            except Exception:  # a look that fails tells nothing; the table plays on
                log.exception("the notifications could not look at the table")

    def stop(self) -> None:
        """A clean stop: no crash for the next start to tell."""
        self.stopped.set()
        (self.journal / RUNNING_FILE).unlink(missing_ok=True)

    def view(self, lang: str) -> dict[str, Any]:
        """The staff page's: the address set (its service only), the events chosen, the last message."""
        last = self.last()
        said = None  # a damaged note: the outcome without its reason
        why, args = (last.get("why"), last.get("args")) if last is not None else (None, None)
        if why in (NO_URL, FAILED, SLOW, QUEUED) and isinstance(args, dict) \
                and set(args) == {name for _, name, _, _ in string.Formatter().parse(str(why)) if name}:
            said = say(Phrase.of(str(why), **{str(k): str(v)[:300] for k, v in args.items()}), lang)
        return {"url": None if self.url is None else self.url.shown, "events": sorted(self.events),
                "last": None if last is None else {"at": last.get("at"), "ok": bool(last.get("ok")), "why": said}}


def _noted(why: object) -> Phrase:
    """The helper's noted why (an English template and its fields) as a sentence of the catalogue, its system words said as their reason; a why the
    table cannot read is "another error", which the log tells."""
    from ..release.desk import noted_phrase

    phrase = noted_phrase(why)
    return because(phrase) if phrase is not None else Phrase.of(Reason.OTHER.value)
