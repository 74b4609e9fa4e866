"""Every message the owner is sent, in both languages (issue 73, "one way out for every message"):
each event the table tells of is brought about on a table (a stand-in for the running one), in
Italian and English, and what would leave the table is read as the owner reads it. No English
word in the Italian, no code (the helper's "nothing", an errno), no system error's own words
(the raw reason is the log's), every number past 999 grouped as its language groups it.
"""

from __future__ import annotations

import http.server
import json
import re
import shutil
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from pi_table.config import load_config
from pi_table.daemon import backup as backup_room
from pi_table.daemon import devices, notices, offsite
from pi_table.engine.phrase import Phrase
from pi_table.hal import events
from pi_table.release import stick, system
from pi_table.release.layout import act_note
from pi_table.ui.i18n import LOCALE_DIR, translation
from pi_table.ui.messages import parse_po

from helpers import wait_for

CODES = ("nothing", "done", "failed", "unhealthy", "refused", "Errno", "ENOSPC", "exit 1")
"""The helper's and the system's codes: none in Italian, and in English never as a code, in brackets."""
RAW = ("No space left on device", "Permission denied", "connection refused", "/dev/mem", "mount failed")
FREE_MB = 12345


@dataclass
class Team:
    team: str
    points: float


@dataclass
class Night:
    name: str
    teams: tuple[str, ...]
    played: list[Any] = field(default_factory=list)
    open: bool = True

    def standings(self) -> list[Team]:
        return [Team(name, 0.0) for name in self.teams]


class Book:
    def __init__(self) -> None:
        self.night: Night | None = None


class Recorder:
    def __init__(self) -> None:
        self.book = Book()


class Helper:
    def __init__(self, home: Path) -> None:
        self.home = home


class Nightly:
    failed: Any = None


class Table:
    """The running table as the notifications look at it, its faults set by each situation."""

    def __init__(self, folder: Path, lang: str) -> None:
        (folder / "home").mkdir(parents=True, exist_ok=True)
        (folder / "files").mkdir(exist_ok=True)
        self.url = folder / "files" / "notify-1.url"
        self.url.write_text("json://127.0.0.1:9/x\n")
        path = folder / "config.toml"
        path.write_text(f'[game]\nlanguage = "{lang}"\n[paths]\njournal_dir = "{folder / "journal"}"\n'
                        f'[fleet]\ntable_id = "bar-1"\n[notify]\nurl_file = "{self.url}"\n'
                        f'events = {json.dumps(list(notices.EVENTS))}\n')
        (folder / "journal").mkdir(exist_ok=True)
        self.config = load_config(path)
        self.night: Recorder | None = Recorder()
        self.nightly: Nightly | None = Nightly()
        self.helper: Helper | None = Helper(folder / "home")
        self.why: dict[str, Any] = {}

    def health(self, lang: str = "en") -> dict[str, str]:
        from pi_table.ui.i18n import say

        return {name: "not working: " + say(why, lang) for name, why in self.why.items()}

    def device_faults(self) -> dict[str, Any]:
        return dict(self.why)


# --- the situations, by the event the owner chooses them under ------------------------------------


def device_fault(table: Table, watch: Any) -> None:
    table.why["leds"] = Phrase.of(devices.DEVICE_FAULTS["leds"], error="[Errno 13] Permission denied: '/dev/mem'")
    table.why["screen"] = Phrase.of(events.NOT_WORKING_ADVICE["screen"])


def crash(table: Table, watch: Any) -> None:
    pass  # the running mark ``sent_in`` leaves before the Watch starts


def new_version(table: Table, watch: Any) -> None:
    pass  # the version ``sent_in`` notes as told before the Watch starts


def rolled_back(table: Table, watch: Any) -> None:
    from pi_table.config import trial

    assert table.config.source is not None
    trial.roll_back(table.config.source, trial.Trial(keys=("sound.volume",), by="staff", working=(), since=time.time()),
                    Phrase.of("the table stopped before it was healthy on the new settings"))


def security_run(outcome: str, why: dict[str, Any] | None = None) -> Any:
    def ran(table: Table, watch: Any) -> None:
        assert table.helper is not None
        system_note = {"running": False, "began": time.time() - 60, "at": time.time(), "outcome": outcome,
                       "changed": [], "reboot": False, "why": why}
        (table.helper.home / system.NOTE).write_text(json.dumps(system_note))
    return ran


def update_failed(table: Table, watch: Any) -> None:
    assert table.helper is not None
    (table.helper.home / act_note("update")).write_text(json.dumps(
        {"act": "update", "outcome": "failed", "at": time.time(),
         "why": {"template": "pip could not build pi-table's wheel ({error})",
                 "fields": {"error": "[Errno 28] No space left on device"}}}))


def backup_failed(table: Table, watch: Any) -> None:
    assert table.nightly is not None
    table.nightly.failed = OSError(28, "No space left on device")


def offsite_failed(table: Table, watch: Any) -> None:
    why = Phrase.of("rclone could not copy it to {place} (exit {code}): {error}", place="sftp://nas/backups", code=1,
                    error="dial tcp 192.168.1.20:22: connect: connection refused")
    folder = backup_room.folder(table.config)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / offsite.NOTE).write_text(json.dumps({"at": time.time(), "backup": "nightly-1.tar.gz", "ok": False,
                                                   "why": backup_room.said(why)}))


def offsite_key_changed(table: Table, watch: Any) -> None:
    offsite.save(table.config, offsite.parse("sftp://cafe@nas.local/backups", "a password"))
    (table.config.paths.journal_dir / offsite.KEY_FILE).write_text(json.dumps(
        {"host": "nas.local", "port": 22, "pinned": [f"ssh-ed25519 {'A' * 68}"], "offered": [f"ssh-ed25519 {'B' * 68}"]}))


def stick_failed(table: Table, watch: Any) -> None:
    assert table.helper is not None
    (table.helper.home / act_note(stick.ACT)).write_text(json.dumps(
        {"act": stick.ACT, "outcome": "failed", "at": time.time(),
         "why": {"template": "the stick's backup cannot be started ({error})", "fields": {"error": "mount failed"}}}))


def card_full(table: Table, watch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    total = 200_000 * 1_000_000
    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(  # type: ignore[attr-defined]
        total, total - FREE_MB * 1_000_000, FREE_MB * 1_000_000))


def night_closed_without_a_game(table: Table, watch: Any) -> None:
    assert table.night is not None
    table.night.book.night = Night("Venerdì", ("Lions", "Tigers"))
    watch.look()
    table.night.book.night.open = False


def night_closed_after_its_games(table: Table, watch: Any) -> None:
    assert table.night is not None
    table.night.book.night = Night("Venerdì", ("Lions", "Tigers"), played=["one game"])
    watch.look()
    table.night.book.night.open = False


SITUATIONS = {
    "device": [device_fault],
    "restart": [crash, rolled_back],
    "update": [new_version, security_run("nothing"), security_run("done"), security_run("failed", {
        "template": "unattended-upgrade failed: {error}", "fields": {"error": "E: dpkg was interrupted"}}),
        security_run("unhealthy"), update_failed],
    "backup": [backup_failed, offsite_failed, offsite_key_changed, stick_failed],
    "disk": [card_full],
    "night": [night_closed_without_a_game, night_closed_after_its_games],
}


def test_each_event_the_owner_may_choose_is_brought_about_here():
    assert set(SITUATIONS) == set(notices.EVENTS)


SEEN: set[str] = set()  # the templates of the messages the situations made


def sent_in(tmp_path: Path, lang: str, situation: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the table would send the owner in ``lang`` once ``situation`` came about: the title
    its messages go under, and each message."""
    table = Table(tmp_path / lang / situation.__name__, lang)
    if situation is crash:
        (table.config.paths.journal_dir / notices.RUNNING_FILE).write_text("")  # the last run did not stop cleanly
    if situation is new_version:
        (table.config.paths.journal_dir / notices.SENT_FILE).write_text(json.dumps({"version": "0.0.1", "told": {}}))
    watch = notices.Watch(table)  # type: ignore[arg-type]  # the helper's notes: its home
    watch._first = False  # the helper's notes are news, not what a first start finds
    bodies: list[str] = []
    watch.outbox.put = lambda body, url=None, done=None: bodies.append(rendered(body, watch))  # type: ignore[method-assign]
    if situation is card_full:
        situation(table, watch, monkeypatch)
    else:
        situation(table, watch)
    watch.look()
    return [rendered(watch.outbox.title, watch), *bodies]


def rendered(body: Any, watch: Any) -> str:
    if isinstance(body, str):
        return body
    SEEN.add(body.kind.template)
    return notices.words(body, watch.lang)


def coded(said: str, lang: str) -> list[str]:
    """The codes ``said`` shows: any in Italian, in English one in brackets or after a colon."""
    shown = r"\b{}\b" if lang == "it" else r"[(:] ?{}\b"
    return [code for code in CODES if re.search(shown.format(re.escape(code)), said)]


def english_words() -> set[str]:
    """The words the English msgids use that no Italian sentence of the catalogue does."""
    catalogue = parse_po((LOCALE_DIR / "it/LC_MESSAGES/pi_table.po").read_text(encoding="utf-8"))
    english = {word.lower() for msgid in catalogue for word in re.findall(r"[A-Za-z]{3,}", re.sub(r"\{[^}]*\}", "", msgid))}
    italian = {word.lower() for msgstr in catalogue.values() for word in re.findall(r"[A-Za-zàèéìòù]{3,}", str(msgstr))}
    return english - italian


ALL = [(event, situation) for event, situations in SITUATIONS.items() for situation in situations]


@pytest.mark.parametrize(("event", "situation"), ALL, ids=[f"{e}-{s.__name__}" for e, s in ALL])
def test_every_message_is_said_in_italian_without_codes_raw_errors_or_bare_numbers(tmp_path, monkeypatch, event,
                                                                                    situation):
    italian, english = sent_in(tmp_path, "it", situation, monkeypatch), sent_in(tmp_path, "en", situation, monkeypatch)
    assert len(italian) > 1 and len(english) == len(italian), (italian, english)  # a title and what happened
    foreign = english_words()
    for said in italian:
        leaked = {word for word in re.findall(r"[A-Za-z]{3,}", said) if word.lower() in foreign} - {"Lions", "Tigers"}
        assert not leaked, f"English in {said!r}: {leaked}"
    for said, lang in [*((s, "it") for s in italian), *((s, "en") for s in english)]:
        assert not coded(said, lang), said
        assert not [raw for raw in RAW if raw.lower() in said.lower()], said
        assert not re.search(r"(?<![\d.,])\d{4,}", said), f"a number without its groups: {said!r}"
        assert situation is not night_closed_without_a_game or not re.search(r"Lions|Winners|Vincitori", said), said
        assert said.lower().count("not working") < 2 and said.lower().count("non funziona") < 2, said
    if situation is card_full:
        assert "12.345" in italian[1] and "12,345" in english[1], (italian, english)


class Receiver:
    """An HTTP service on this machine that takes Apprise's ``json://`` messages."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                outer.messages.append(json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0")))))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"json://127.0.0.1:{self.server.server_address[1]}/token"


def test_the_owners_messages_follow_the_language_changed_on_the_staff_page_without_a_restart(tmp_path):
    receiver = Receiver()
    try:
        table = Table(tmp_path, "en")
        table.url.write_text(receiver.url + "\n")
        watch = notices.Watch(table)  # type: ignore[arg-type]
        watch.outbox.start()
        assert watch.test()["ok"] is True
        table.config = replace(table.config, language="it")  # as the staff page's change at hand leaves it
        assert watch.test()["ok"] is True
        table.why["leds"] = Phrase.of(events.NOT_WORKING_ADVICE["leds"])
        watch.look()
        wait_for(lambda: len(receiver.messages) == 3, "the third message", 10, explain=lambda: receiver.messages)
        said = [(message["title"], message["message"]) for message in receiver.messages]
        assert said[0] == ("Table bar-1", "A test from table bar-1: the owner's notifications arrive here.")
        assert said[1][0] == "Tavolo bar-1" and said[1][1].startswith("Una prova dal tavolo bar-1"), said
        assert said[2][0] == "Tavolo bar-1" and "striscia LED" in said[2][1], said
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()


def samples() -> dict[type, list[object]]:
    """Values of each type a message's field may hold, as the table meets them."""
    from pi_table.ui.tell import Name, Reason, Said, because

    return {int: [7, FREE_MB, 1_234_567], Name: [Name("Venerdì")], Reason: list(Reason), tuple: [(Name("Lions"), Name("Tigers"))],
            Said: [Said.of({"en": "the phones' pages did not answer", "it": "le pagine dei telefoni non hanno risposto"})],
            Phrase: [because(OSError(28, "No space left on device")), because("connection refused"),
                     Phrase.of(devices.DEVICE_FAULTS["leds"], error="[Errno 13] Permission denied: '/dev/mem'"),
                     Phrase.of("unattended-upgrade failed: {error}", error="mount failed")]}


def test_every_kind_of_message_says_each_value_of_its_fields_in_both_languages():
    """Each kind the table may send (``tell.Kind.every``, which a kind joins as it is made), each of
    its fields given each value of its type in turn: the same checks as the situations'."""
    from pi_table.ui.tell import Kind, Message, words

    kinds = [kind for kind in Kind.every if kind.event in (*notices.EVENTS, "")]
    assert {kind.event for kind in kinds} == {*notices.EVENTS, ""}
    foreign, values = english_words(), samples()
    for kind in kinds:
        first = {name: values[type_][0] for name, type_ in kind.fields}
        for name, type_ in kind.fields or (("", int),):
            for value in values[type_] if name else [None]:
                message = Message.of(kind, **({**first, name: value} if name else {}))
                italian, english = words(message, "it"), words(message, "en")
                leaked = {w for w in re.findall(r"[A-Za-z]{3,}", italian) if w.lower() in foreign} - {"Lions", "Tigers"}
                assert not leaked, f"English in {italian!r}: {leaked}"
                for said in (italian, english):
                    assert not coded(said, "it" if said is italian else "en"), said
                    assert not [raw for raw in RAW if raw.lower() in said.lower()], said
                    assert not re.search(r"(?<![\d.,])\d{4,}", said), f"a number without its groups: {said!r}"


def test_every_kind_of_message_the_owner_chooses_is_one_a_situation_here_brings_about(tmp_path, monkeypatch):
    """A new kind of message needs its situation above, where it is read as the owner reads it."""
    from pi_table.ui.tell import Kind

    SEEN.clear()
    for _, situation in ALL:
        sent_in(tmp_path, "en", situation, monkeypatch)
    assert {kind.template for kind in Kind.every if kind.event} - SEEN == set()


def test_the_owners_notifications_page_has_a_row_for_every_message_and_every_reason():
    """docs/cafe/notifications.md (and its Italian page) quote each message the owner may choose and
    each reason a failure is said with, as the catalogue says them: a new kind needs its row."""
    from pi_table.ui.tell import Kind, Reason

    docs = Path(__file__).parent.parent / "docs/cafe"
    for lang, page in (("en", "notifications.md"), ("it", "notifications.it.md")):
        text, said = (docs / page).read_text(encoding="utf-8"), translation(lang).gettext
        missing = [said(kind.template) for kind in Kind.every if kind.event and f'"{said(kind.template)}"' not in text]
        missing += [said(reason.value) for reason in Reason if f'"{said(reason.value)}"' not in text]
        assert missing == [], f"{page} does not quote {missing}"
