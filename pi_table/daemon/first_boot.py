"""A table nobody has set up yet (docs/dev/first-boot.md): the first boot made its secrets and left
``setup.pending`` in its journal folder, with the one-time code its screen shows.

Until the owner has used the set-up page (``web.sections.setup``), the screen shows the set-up instead
of the game (``SetupScreen``), which takes no touch meanwhile, and a thread watches the network:
with none ``GRACE_S`` after the start, the table asks the root helper for its own Wi-Fi, whose
name and password the screen shows beside a QR code that joins it. The set-up writes the table's
name and language as a trial of the configuration, the staff PIN and the owner's passphrase, and
asks the root helper for the time zone and the café's Wi-Fi; then the table is set up and
restarts on its new settings.

A café whose SD card died sets its fresh table up from a backup on a USB stick instead (issue
62): the page asks the root helper to copy the stick's newest backup, or one its listing names,
into the backups folder (``from_stick``: the helper alone finds, mounts and reads the stick,
``release.stick``), shows what came of it (``on_stick``), and the set-up then restores that backup
as the staff page restores a nightly one (``backup.nightly_data``, ``backup.restore``: the same
checks as an upload, a trial that comes back if the table is not healthy on it): the backup
brings the name, the language, the settings and the staff PIN; the set-up the owner's passphrase,
the time zone and the Wi-Fi.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..engine.phrase import N_, Phrase, Text
from ..engine.views import LANGUAGES
from ..hal import AnyModel, Screen, SetupModel
from ..hal.screen import ScreenInFront, grouped
from ..release import first_boot, network
from ..release.desk import network_view
from ..release.desk import said as said_in_each
from ..release.first_boot import Pending
from ..release.layout import HOME, Releases, act_note
from ..release.requests import REQUEST
from ..release.stick import FROM_ACT, NEWEST, NIGHTLY
from ..ui.i18n import say
from ..web.document import zone_now
from ..worker import Worker
from . import backup as backups
from . import sealed

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..config import Config
    from ..table.loop import EventLoop
    from ..web import Companion
    from ..web.auth import LineCode
    from ..web.sections.setup import Form
    from .devices import Devices
    from .restarts import Restarts
    from .root_helper import RootHelper

log = logging.getLogger("pi_table.daemon")
GRACE_S = 30.0  # from the start: Raspberry Pi Imager's Wi-Fi, or a cable, has connected by then
POLL_S = 3.0  # how often the network is looked at while the table waits for its set-up
TAKEN_S = 15.0  # how long the set-up waits for the helper to take one request before it leaves the next

LOOKING = N_("Looking for a network: with none, the table opens its own Wi-Fi in {seconds} s.")
ON_NETWORK = N_("On the network {network}.")
OWN_WIFI = N_("No network: the table opened its own Wi-Fi.")
OPENING = N_("No network: the table is opening its own Wi-Fi.")
NO_HELPER = N_("The time zone and the Wi-Fi stay as they are: this table has no root helper to set them "
                "(sudo systemd/install.sh installs it).")
NOT_TAKEN = N_("The table's root helper did not answer: join {ssid} later, on the staff page under Wi-Fi.")
NO_WIFI = N_("No network, and the table cannot open its own Wi-Fi: {why}. Connect a network cable.")
NOT_LISTED = N_("the stick did not list {backup}: look on the stick again, then choose one of its list")
NOT_COPIED = N_("the backup {backup} was not copied from the stick: look on the stick again")
IN_LINE = N_("Phones are waiting in line for the set-up: type {code} too, under the code.")


class Table(Protocol):
    """What the set-up needs of the running table (``run.Daemon``)."""

    config: Config
    devices: Devices
    loop: EventLoop
    restarts: Restarts
    companion: Companion | None
    helper: RootHelper | None
    fingerprint: str | None  # the staff pages' certificate's SHA-256, once they have one
    line_code: LineCode | None  # the staff page's code past a flood's line, which the set-up's door takes too

    @property
    def lock(self) -> object:
        """The journal folder's lock: None when the journal is kept in memory."""

    def in_loop(self, fn: Callable[[], object]) -> bool: ...

    def restart(self) -> float: ...


class SetupScreen(ScreenInFront):
    """The table's screen while it waits for its set-up: ``model`` (a SetupModel) instead of the
    game's; once it is None, what it is given, as before."""

    def __init__(self, screen: Screen) -> None:
        super().__init__(screen)
        self.model: SetupModel | None = None

    def show(self, model: AnyModel) -> None:
        self.screen.show(self.model if self.model is not None else model)


class FirstBoot:
    """The set-up ``waiting`` in the journal ``folder`` of ``daemon``'s table, until it is done
    (``waiting`` None then); ``clock`` times the grace before the table opens its own Wi-Fi."""

    def __init__(self, daemon: Table, waiting: Pending, folder: Path, clock: Callable[[], float] = time.monotonic,
                 grace_s: float = GRACE_S, poll_s: float = POLL_S, home: Path = HOME) -> None:
        self.daemon, self.folder, self.clock = daemon, folder, clock
        self.waiting: Pending | None = waiting
        self.grace_s, self.poll_s, self.home = grace_s, poll_s, home
        self.began = clock()
        self.network = network.UNKNOWN
        self.asked: Text | None = None  # what came of asking for the table's own Wi-Fi: None before
        self.screen = SetupScreen(daemon.devices.screen)
        self.screen.model = self.model()
        daemon.devices.screen = self.screen
        self._worker = Worker("first-boot", join_s=5)
        self._looking = threading.Lock()  # one look at a time: two would both ask for the table's own Wi-Fi
        self.stick = StickCopy(self)  # a backup from a USB stick, the way back from a dead SD card

    @classmethod
    def of(cls, daemon: Table) -> FirstBoot | None:
        """The set-up the table waits for, if it waits for one and can be set up from a phone."""
        config = daemon.config
        if daemon.lock is None:  # a journal in memory: nothing of a set-up could be kept
            return None
        folder = config.paths.journal_dir
        try:
            waiting = first_boot.pending(folder)
        except OSError as e:
            log.error("the table's set-up in %s cannot be read (%s): it plays as a table set up", folder, e)
            return None
        if waiting is None:
            return None
        if not config.web.enabled:
            log.error("the table waits for its set-up, but its phones' pages are off ([web] enabled = false): "
                      "turn them on, or set it up with pi-table set-staff-pin and set-owner-passphrase")
            return None
        log.warning("the table waits for its set-up: its screen shows the set-up page's code")
        from .root_helper import Machine

        return cls(daemon, waiting, folder, home=Machine.of(config).home)

    # --- the screen and the network, while the table waits ------------------------------------

    def start(self) -> None:
        self._worker.start(self._watch)

    def stop(self) -> None:
        self._worker.stop()

    def _watch(self) -> None:
        while self.waiting is not None and not self._worker.stopping.is_set():
            self.look()
            self._worker.stopping.wait(self.poll_s)

    def look(self) -> None:
        """The network looked at; the table's own Wi-Fi asked for once, when it has had none for
        ``grace_s`` since the start; the screen shown again if what it shows changed. Safe from any
        thread (the watcher's, or a caller's that wants it now)."""
        with self._looking:
            self._look()

    def _look(self) -> None:
        self.network = network.state()
        now = self.network
        if self.asked is None and now.known and not now.connected and not now.hotspot \
                and self.clock() - self.began >= self.grace_s and self.daemon.helper is not None \
                and self.waiting is not None:
            problem = self.daemon.helper.ask("hotspot", ssid=self.waiting.ssid, password=self.waiting.password)
            self.asked = Phrase.of(NO_WIFI, why=problem) if problem is not None else Phrase.of(OPENING)
            log.warning("no network %.0f s after the start: %s", self.grace_s, say(self.asked, "en"))
        elif self.asked == Phrase.of(OPENING) and not now.hotspot:  # the helper may have failed to open it
            last = network_view(self.daemon.config.language, self.home)["last"]
            if last is not None and last["act"] == "hotspot" and last["outcome"] == "failed":
                self.asked = Phrase.of(NO_WIFI, why=last["why"] or "?")
                log.error("the table's own Wi-Fi did not open: %s", last["why"])
        self.show()

    def model(self) -> SetupModel:
        """What the screen shows now."""
        assert self.waiting is not None  # shown while it waits
        companion, now = self.daemon.companion, self.network
        link = None if companion is None else f"{companion.staff_url}/setup"
        line = None if self.daemon.line_code is None else self.daemon.line_code.shown()
        if line is not None:  # a flood's line: the owner's phone skips it with this code (issue 74)
            said: Text | None = Phrase.of(IN_LINE, code=line)
        elif now.hotspot:
            said = Phrase.of(OWN_WIFI)
        elif now.connected:
            said = Phrase.of(ON_NETWORK, network=now.via)
        elif not now.known:
            said = None  # no NetworkManager here: the table is on whatever network it has
        elif self.asked is not None:
            said = self.asked
        else:
            said = Phrase.of(LOOKING, seconds=max(0, round(self.grace_s - (self.clock() - self.began))))
        return SetupModel(link, self.waiting.shown, self.daemon.config.language,
                          (self.waiting.ssid, self.waiting.password) if now.hotspot else None, said,
                          self.daemon.fingerprint)

    def show(self) -> None:
        """The screen again, in the loop's thread, when what it shows changed."""
        if self.waiting is None or self.model() == self.screen.model:
            return

        def put() -> None:
            self.refresh()
            self.daemon.loop.show()

        self.daemon.in_loop(put)

    def refresh(self) -> None:
        """The screen's model as it is now (in the loop's thread, which shows it next)."""
        if self.waiting is not None:
            self.screen.model = self.model()

    # --- the set-up page's desk ----------------------------------------------------------------

    def language(self) -> str:
        return self.daemon.config.language

    def about(self, lang: str) -> dict[str, Any]:
        """What the page offers: the languages, the time zones (and the system's now), the network."""
        return {"pending": True, "language": self.daemon.config.language, "languages": list(LANGUAGES),
                "zone": zone_now(), "zones": zones(), "fingerprint": self.daemon.fingerprint,
                "fingerprint_shown": None if self.daemon.fingerprint is None else grouped(self.daemon.fingerprint),
                **network_view(lang, self.home)}

    def zones(self) -> list[str]:
        return zones()

    def check(self, settings: dict[str, object]) -> list[Phrase]:
        """The checker's problems with the settings the form gives, nothing written."""
        return self.daemon.restarts.problems(settings)

    def set_up(self, form: Form, by: str | None) -> tuple[list[Phrase], list[Text], str | None]:
        """The set-up done: the name and language as a trial and the PIN (or, ``form.restore``, the
        backup copied from a stick restored as a trial, which brings them), the passphrase, the time
        zone and Wi-Fi asked of the root helper; then the table is set up. The checker's (or the
        restore's) problems, nothing done; or [] and notes on what could not be asked, and the
        backup key made for the table, to be shown this once (None when a sealed backup's key, the
        owner's own, was given and kept: ``sealed``)."""
        from ..web.roles import set_passphrase  # with the phones' pages: loaded by now
        from ..web.staff import set_pin

        daemon, helper = self.daemon, self.daemon.helper
        assert helper is not None  # made with the set-up page
        if form.restore is not None:
            problems = self._restore(form.restore, form.key)
        else:  # not proven where it was reached: the set-up may change networks
            problems = daemon.restarts.change({"fleet.table_id": form.name, "game.language": form.language},
                                              proven=False, by="set-up")
        if problems:
            return problems, [], None
        key = None if sealed.kept_key(daemon.config) is not None else backups.new_key(daemon.config)
        if form.restore is None:
            set_pin(self.folder, form.pin)
        set_passphrase(self.folder, form.passphrase)
        notes: list[Text] = []
        zone = form.zone if form.zone != zone_now() else None
        if (zone is not None or form.wifi is not None) and helper.helper_missing() is not None:
            notes.append(Phrase.of(NO_HELPER))
        else:
            if zone is not None:
                # in its turn, behind a request the helper has not taken yet (issue 75.6: asked beside
                # one, the zone was refused and the table said it was ready on UTC); still waiting
                # after TAKEN_S, the helper's refusal is the note
                self._taken(helper.spool)
                if (problem := helper.ask("timezone", zone=zone)) is not None:
                    notes.append(problem)
            if form.wifi is not None and not self._taken(helper.spool):
                notes.append(Phrase.of(NOT_TAKEN, ssid=form.wifi[0]))
            elif form.wifi is not None and (problem := helper.ask("wifi", ssid=form.wifi[0], password=form.wifi[1])):
                notes.append(problem)
        first_boot.set_up(self.folder, by)
        log.warning("the table was set up from %s: it restarts on its new settings", by)
        self.waiting = None

        def game() -> None:
            self.screen.model = None
            daemon.loop.show()

        daemon.in_loop(game)
        return [], notes, key

    def _restore(self, name: str, key: str | None) -> list[Phrase]:
        """The backup ``name`` copied from the stick restored as the staff page restores a nightly
        backup (sealed: opened with the owner's ``key``, which the table keeps then), staged for the
        restart that follows the set-up; why not, nothing staged."""
        note = self.stick.note()
        if note.get("outcome") != "done" or note.get("backup") != name:
            return [Phrase.of(NOT_COPIED, backup=name[:80])]
        config = self.daemon.config
        try:
            given = None if key is None else sealed.key_given(key)
            backups.restore(backups.nightly_data(config, name), self.daemon, by="set-up", restart=False, key=given)
            if given is not None:
                sealed.keep_key(config, given)
        except (backups.BadBackup, sealed.Unopened) as e:
            return [e.phrase]
        return []

    def _taken(self, spool: Path) -> bool:
        """Whether the root helper took the request waiting in ``spool`` (if any) within ``TAKEN_S``."""
        deadline = time.monotonic() + TAKEN_S
        while (spool / REQUEST).exists():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True

    def restart(self) -> float:
        return self.daemon.restart()

    def staff_address(self) -> str:
        """Where the staff page is found once the table is on the café's network: its host name on
        mDNS (Raspberry Pi OS's avahi answers it), at the staff pages' https port (the companion's
        own where it serves every page over https, or listens for this machine alone)."""
        companion, web = self.daemon.companion, self.daemon.config.web
        if companion is not None and companion.staff_tls is not None:
            return f"https://{socket.gethostname()}.local:{companion.staff_port}/staff"
        port = web.port if companion is None else companion.port
        return f"{'https' if web.tls_cert else 'http'}://{socket.gethostname()}.local:{port}/staff"


@cache
def zones() -> list[str]:
    """The time zones this system knows, sorted (a walk of its zone files: once)."""
    import zoneinfo  # the set-up page only

    return sorted(zoneinfo.available_timezones())


class StickCopy:
    """The set-up's way back from a dead SD card (issue 62): a backup the root helper copies from
    a USB stick into the backups folder, asked by the page (``ask``) and read back for it
    (``seen``); the set-up then restores it (``FirstBoot._restore``). ``boot``: the set-up whose
    table and root helper's notes (``home``) it uses."""

    def __init__(self, boot: FirstBoot) -> None:
        self.boot = boot
        self.asked: float | None = None  # when the page last asked for a backup from the stick

    def ask(self, backup: str) -> Text | None:
        """Ask the root helper to copy ``backup`` (``newest``, or a name the stick's last listing
        gave) from the stick plugged in into the backups folder; None, or why it was not asked."""
        if backup != NEWEST and backup not in self.note().get("listed", []):
            return Phrase.of(NOT_LISTED, backup=backup[:80])
        helper = self.boot.daemon.helper
        assert helper is not None  # made with the set-up page
        try:  # the helper's sandbox may write into it, not make it: the service makes it its own
            backups.folder(self.boot.daemon.config).mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as e:
            return Phrase.of("{path}: cannot be written: {error}", path=str(backups.folder(self.boot.daemon.config)),
                             error=e.strerror or str(e))
        self.asked = time.time()
        return helper.ask(FROM_ACT, backup=backup)

    def seen(self, lang: str) -> dict[str, Any]:
        """What the page shows of the stick: nothing asked yet, asked and not yet answered, or the
        helper's answer since (``outcome``, the ``stick``, the backups it ``listed``, the one copied
        with when it was ``made`` and what restoring it ``replaces``, checked as a restore checks it,
        or ``sealed``: its key is asked first; or the ``why`` of a failure or of a refusal, in ``lang``)."""
        note = self.note()
        if not note:
            return {"asked": self.asked is not None, "outcome": None}
        found: dict[str, Any] = {"asked": True, "outcome": note.get("outcome"), "stick": str(note.get("stick", ""))[:60],
                                 "listed": note.get("listed", []), "backup": None, "why": None}
        if note.get("outcome") != "done":
            found["why"] = (said_in_each(note.get("why")) or {}).get(lang, "?")
            return found
        name = str(note.get("backup"))
        try:
            data = backups.nightly_data(self.boot.daemon.config, name)
            if sealed.is_sealed(data):  # nothing of it read before the set-up gives its key
                return found | {"backup": name, "sealed": True, "made": None, "replaces": []}
            contents = backups.check_upload(data, self.boot.daemon)
        except backups.BadBackup as e:
            return found | {"outcome": "refused", "why": say(e.phrase, lang)}
        return found | {"backup": name, "made": backups.made_at(contents.manifest),
                        "replaces": [say(part, lang) for part in contents.replaces]}

    def note(self) -> dict[str, Any]:
        """The root helper's note of the copy asked since this page last asked, its listing checked
        as names of nightly backups; {} before one is asked, or while it is not yet answered."""
        note = Releases(self.boot.home).note(act_note(FROM_ACT))
        if self.asked is None or note is None or not isinstance(note.get("at"), int | float) \
                or note["at"] < self.asked:
            return {}
        listed = note.get("listed")
        return note | {"listed": [name for name in listed if isinstance(name, str) and NIGHTLY.fullmatch(name)]
                       if isinstance(listed, list) else []}
