"""Tables run in this process as the service runs them: on simulated devices, on the emulated board,
restarted as systemd restarts them, fresh from their first boot."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pi_table.engine import Guess, Rules, make_game

from helpers import pi_table, wait_for
from helpers_machine import FakeNetworkManager
from helpers_staff import OWNER_PASSPHRASE, STAFF_CONFIG, STAFF_PIN, Staff, daemon_staff

if TYPE_CHECKING:
    from pi_table.sim.systemd import FakeSystemd


# The daemon --------------------------------------------------------------------------------

CODEX_CONFIG = (
    '[game]\ngame = "codex"\ndiscussion_s = 10\n[web]\nhost = "127.0.0.1"\nport = 0\n'
    '[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n'
)


class CodexTable:
    """The daemon, and what a test needs of it: its status, the game's setup, each seat's link."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.config = folder / "config.toml"
        self.config.write_text(CODEX_CONFIG)
        from pi_table.sim.systemd import FakeSystemd

        self.systemd = FakeSystemd(["--hal", "sim", "--config", str(self.config)])

    def status(self) -> dict:
        answer = pi_table("status", "--json", "--config", str(self.config))
        assert answer.returncode == 0, answer.stderr
        return json.loads(answer.stdout)

    def setup(self, game_id: str):
        header = json.loads((self.folder / "journal" / f"{game_id}.jsonl").read_text().splitlines()[0])
        from pi_table.engine.codex_setup import parse_setup

        return parse_setup(header["setup"])

    def link(self, game_id: str, seat: int) -> str:
        from pi_table.web.tokens import Tokens, seat_role

        token = Tokens.kept_in(self.folder / "journal").token(game_id, seat_role(seat))
        return f"{self.status()['companion']}/p/{token}"


SHORTCUTS = {
    "service_daemon": "systemd's part (the unit's sandbox, its watchdog and restarts: a test passes a notifier "
                      "for those it times) and the process of its own, to reach the table's objects from the test; "
                      "every start-up check of `pi-table run --config FILE` is made (daemon.run.starting)",
}
"""The helpers that start a table some other way than the service does, each with what it leaves
out and why (issue 37: a start-up check the tests skipped hid a table that could not start).
Every other test starts one with `pi-table run --config FILE` (StaffService, FakeSystemd) or
through these; tests/test_startup.py holds the list to what the tests' code does."""


def service_daemon(config: Path, hal: str = "sim", checked=None, **devices):
    """The daemon as ``pi-table run --config CONFIG --hal HAL`` makes it, in this process (see
    ``SHORTCUTS``): the configuration after the service's start-up checks, a trial counted.
    ``checked()``: what happens after the checks and before the table is made (a file goes missing)."""
    from pi_table.daemon.run import Daemon, starting

    passed, under_trial = starting(config)
    if checked is not None:
        checked()
    return Daemon(passed, hal, under_trial=under_trial, **devices)


class InProcessDaemon:
    """The daemon in this process on a configuration file (simulated devices), its loop in a
    thread and its phones' pages open: for what HTTP cannot time or see."""

    def __init__(self, config: Path) -> None:
        self.daemon = service_daemon(config)
        self.daemon.start()
        self.runner = threading.Thread(target=self.daemon.run, daemon=True)
        self.runner.start()
        assert self.daemon.wait_for_phones()  # the companion opens once the table is up
        assert self.daemon.companion is not None

    def close(self) -> None:
        self.daemon.stop()
        self.runner.join(timeout=5)
        self.daemon.close()
        assert not self.runner.is_alive()


class BoardTable:
    """The daemon in this process on simulated devices but the emulated touch board (``emulator``,
    started), its phones' pages open and a PIN set; ``key``: the game dealt on it, else a new one."""

    def __init__(self, folder: Path, emulator, key: str | None = None, lang: str = "en") -> None:
        from pi_table.kinds import SerialDevice
        from pi_table.table import Session
        from pi_table.web.staff import set_pin

        self.config = folder / "config.toml"
        self.config.write_text(STAFF_CONFIG + f'[game]\nlanguage = "{lang}"\n')
        if key is not None:
            rules = Rules()
            Session(rules, key=make_game(rules).parse_key(key), journal_dir=folder / "journal").close()
        set_pin(folder / "journal", STAFF_PIN)
        self.daemon = service_daemon(self.config, touch_port=SerialDevice.parse(str(emulator.link)))
        self.daemon.start()
        self.runner = threading.Thread(target=self.daemon.run, daemon=True)
        self.runner.start()
        assert self.daemon.wait_for_phones() and self.daemon.companion is not None
        self.base = self.daemon.companion.base_url
        wait_for(lambda: self.daemon.devices.touch.connected, "the emulated board's hello")

    def staff(self, lang: str = "en") -> Staff:
        staff = Staff(self.base, lang)
        assert staff.login()[0] == 200
        return staff

    def close(self) -> None:
        self.daemon.stop()
        self.runner.join(timeout=5)
        self.daemon.close()


class RestartedAsTheServiceIs:
    """For a state machine that runs one table in this process as ``pi-table run`` does
    (``service_daemon``, every start-up check on) in ``folder`` on ``config``: ``start`` and
    ``stop`` it; ``settle`` does what systemd and a patient owner do meanwhile: a table that ended
    itself to restart (a change, a restore, a trial rolled back) is started again, and a change on
    trial is given its time to be kept or rolled back. ``restarted`` is told after each such start;
    ``looked_at`` sees the settings each wait found. The staff's restarts are forgotten at each
    start, as two quiet minutes would forget them: a machine restarts faster than a café does."""

    folder: Path
    config: Path
    daemon = None

    def start(self) -> None:
        (self.folder / "journal/staff.restarts").unlink(missing_ok=True)
        self.daemon = service_daemon(self.config)
        self.daemon.start()
        self.runner = threading.Thread(target=self.daemon.run, daemon=True)
        self.runner.start()
        assert self.daemon.wait_for_phones()
        if self.daemon.companion is not None:  # none on a trial that turned the pages off: it rolls back
            self.base = self.daemon.companion.base_url

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.stop()
            self.runner.join(timeout=10)
            self.daemon.close()
            assert not self.runner.is_alive()
            self.daemon = None

    def settle(self) -> None:
        from pi_table.config import load_config, trial
        from pi_table.daemon import backup

        deadline = time.monotonic() + 90
        while True:
            assert self.daemon is not None
            if self.daemon.restarting or not self.runner.is_alive():
                self.runner.join(timeout=15)
                self.stop()
                self.start()
                self.restarted()
                continue
            checked = load_config(self.config)
            self.looked_at(checked)
            if trial.pending_trial(self.config) is None and backup.pending(checked) is None:
                return
            assert time.monotonic() < deadline, "a change on trial was neither kept nor rolled back"
            time.sleep(0.2)

    def restarted(self) -> None:
        """The table started again (``base``: its pages' address now)."""

    def looked_at(self, config) -> None:
        """The settings in the file as ``settle`` found them."""


class StaffTable(InProcessDaemon):
    """The daemon in this process, with a game on a known key, a PIN and an owner's passphrase
    (none, without ``owner``); ``extra`` ends its configuration (a section of the test's own)."""

    def __init__(self, folder: Path, key: str, lang: str = "en", extra: str = "", owner: bool = True) -> None:
        from pi_table.table import Session
        from pi_table.web.roles import set_passphrase
        from pi_table.web.staff import set_pin

        self.folder, self.key = folder, key
        self.config = folder / "config.toml"
        self.config.write_text(STAFF_CONFIG + f'[game]\nlanguage = "{lang}"\n' + extra)
        rules = Rules()
        Session(rules, key=make_game(rules).parse_key(key), journal_dir=folder / "journal").close()
        set_pin(folder / "journal", STAFF_PIN)
        if owner:
            set_passphrase(folder / "journal", OWNER_PASSPHRASE)
        super().__init__(self.config)
        assert self.daemon.companion is not None  # for the type checker: the base class saw it open
        self.base = self.daemon.companion.base_url

    def guess(self, cell: int) -> None:
        loop = self.daemon.loop
        assert loop.call(lambda: loop.submit(Guess(cell))).ok


def restarted(table: StaffTable) -> InProcessDaemon:
    """The table that ended itself to restart, started again as systemd does."""
    wait_for(lambda: not table.runner.is_alive(), "the table ending itself to restart", 15)
    table.close()
    (table.folder / "journal/staff.restarts").unlink(missing_ok=True)
    return InProcessDaemon(table.config)


def again(staff: Staff, table: InProcessDaemon) -> Staff:
    """The same phone (its cookies, its token) on the table started again, wherever it listens now."""
    assert table.daemon.companion is not None
    staff.base = table.daemon.companion.base_url
    return staff


def run_first_boot(config: Path) -> subprocess.CompletedProcess:
    """The root helper's first-boot act, as the image's unit runs it (there as root; here as
    whoever runs the test, its files left to them)."""
    return subprocess.run([sys.executable, "-I", "-m", "pi_table.release.helper", "--user", "", "first-boot",
                           "--config", str(config)], capture_output=True, text=True, timeout=60)


class StaffService:
    """``pi-table run`` under the fake systemd, restarted as the unit restarts it, its PIN and
    owner's passphrase set by their commands, with a staff phone that finds the companion
    wherever it listens after each start."""

    def __init__(self, tmp_path: Path, config: str = STAFF_CONFIG, cafile: Path | None = None,
                 first_boot: bool = False) -> None:
        """``first_boot``: a table fresh from the SD image, whose first boot the image's unit ran
        (docs/dev/first-boot.md): no PIN nor passphrase, its set-up waiting."""
        self.folder, self.cafile = tmp_path, cafile
        self.config = tmp_path / "config.toml"
        self.config.write_text(config)
        if first_boot:
            done = run_first_boot(self.config)
            assert done.returncode == 0, done.stderr
        for command, secret in () if first_boot else (("set-staff-pin", STAFF_PIN),
                                                      ("set-owner-passphrase", OWNER_PASSPHRASE)):
            done = subprocess.run([sys.executable, "-m", "pi_table", command, "--config", str(self.config)],
                                  input=f"{secret}\n", capture_output=True, text=True, timeout=30)
            assert done.returncode == 0, done.stderr
        self.systemd: FakeSystemd | None = None

    def start(self) -> None:
        from pi_table.sim.systemd import FakeSystemd

        self.systemd = FakeSystemd(["--hal", "sim", "--config", str(self.config)])
        self.systemd.start()

    def status(self) -> dict:
        answer = pi_table("status", "--json", "--config", str(self.config))
        assert answer.returncode == 0, answer.stderr
        return json.loads(answer.stdout)

    def staff(self, owner: bool = False) -> Staff:
        """A staff phone logged in, acting as the owner too if ``owner``."""
        staff = Staff(self.status()["companion"], cafile=self.cafile)
        assert staff.login()[0] == 200
        if owner:
            staff.as_owner()
        return staff

    def exited(self, timeout: float = 20) -> int:
        assert self.systemd is not None and self.systemd.process is not None
        code = self.systemd.process.wait(timeout=timeout)
        self.systemd.close()
        return code

    def log(self) -> str:
        return "" if self.systemd is None else self.systemd.log.read_text(errors="replace")

    def close(self) -> None:
        if self.systemd is not None:
            self.systemd.close()


class PathUnit:
    """pi-table-helper.path played by a thread: whenever a request waits in ``spool``, ``act()``
    takes it, as the root helper's unit does."""

    def __init__(self, spool: Path, act: Callable[[], object]) -> None:
        from pi_table.release import requests

        self._stop = threading.Event()

        def watch() -> None:
            while not self._stop.wait(0.05):
                if (spool / requests.REQUEST).exists():
                    act()

        self._thread = threading.Thread(target=watch, name="path-unit", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class FreshTable:
    """A fresh table in this process (its first boot run), the root helper played by a thread
    that does each request as pi-table-helper.path and .service do, on a fake NetworkManager."""

    def __init__(self, tmp_path: Path, monkeypatch, nm: FakeNetworkManager) -> None:
        from pi_table.release import helper
        from pi_table.release.keys import Keyring
        from pi_table.release.layout import Releases
        from pi_table.release.service_user import ServiceUser

        self.folder, self.nm = tmp_path, nm
        self.config = tmp_path / "config.toml"
        self.config.write_text(STAFF_CONFIG)
        assert run_first_boot(self.config).returncode == 0
        self.daemon = service_daemon(self.config)
        boot = self.daemon.first_boot
        assert boot is not None
        boot.poll_s, boot.grace_s = 3600.0, 3600.0  # the test looks itself, once its helper is in place
        self.daemon.start()
        self.runner = threading.Thread(target=self.daemon.run, daemon=True)
        self.runner.start()
        assert self.daemon.wait_for_phones()
        desk = self.daemon.helper
        assert desk is not None
        self.spool = desk.spool = tmp_path / "requests"
        desk.helper_missing = lambda: None
        zone = tmp_path / "timedatectl"
        zone.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "zone-calls"}\n')
        zone.chmod(0o755)
        home = tmp_path / "opt"
        self.acts = helper.Helper(Releases(home), Keyring(tmp_path / "keys"), ServiceUser(None), timedatectl=(str(zone),),
                                  config=self.config)
        boot.home = home  # the root helper's notes: its last act, the networks it saw
        staff = daemon_staff(self.daemon)
        next(section for section in staff.sections if section.name == "wifi").home = home  # type: ignore[attr-defined]
        self._path_unit = PathUnit(self.spool, self.act)

    def act(self) -> None:
        """The request waiting in the spool, acted on as the helper's unit does."""
        from pi_table.release import helper

        helper.act(self.acts, self.spool)

    @property
    def boot(self):
        assert self.daemon.first_boot is not None
        return self.daemon.first_boot

    def shown(self):
        return self.daemon.devices.screen.screen.screen.models[-1]  # the companion's, the set-up's, the sim's

    def close(self) -> None:
        self._path_unit.stop()
        self.daemon.stop()
        self.runner.join(timeout=5)
        self.daemon.close()


def reading_with(folder: Path, monkeypatch, words) -> None:
    """The tables started after this read every picture of the cards as ``words`` (in reading
    order, ``None`` for a card not read): ``daemon.cards_desk.READER`` named to a module of the
    test's, in ``folder``, whose ``read_cards`` is a ``cards.reading.FixedWords``."""
    from pi_table.daemon import cards_desk

    (folder / "stand_in_reader.py").write_text(
        f"from pi_table.cards.reading import FixedWords\nread_cards = FixedWords({list(words)!r})\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "stand_in_reader", raising=False)  # another test's, imported before
    monkeypatch.setattr(cards_desk, "READER", "stand_in_reader")
