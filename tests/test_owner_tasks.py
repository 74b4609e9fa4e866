"""The owner's 14 tasks (issue 50, 4), each done as a café owner does it: on a 390 px phone in
Chromium, touch on, in English and then in Italian, on a table fresh from the SD image, in the
order an owner meets them, each asserting the words the owner reads when it is done.
docs/cafe/computer.md lists the same 14, and what still needs the table's own computer.

One table a language, in this process as ``pi-table run`` makes it (``service_daemon``: every
start-up check), and around it what stands in for the machine (``OwnersTable``). Each stand-in
and the production check it skips:

- **systemd**: a thread starts the table again when it ends to restart (the unit's
  Restart=on-failure) and plays the ``systemctl`` the root helper runs: ``restart
  pi-table.service`` and ``reboot`` start the table again (a reboot empties /run: the reboot flag
  goes), ``poweroff`` stops it, ``start pi-table-security.service`` runs the security updates' act.
  Skipped: the unit's sandbox, its watchdog, its start limit (the staff's restarts are forgotten
  at each start, as two quiet minutes would forget them), the machine's own reboot and power off.
  tests/test_container.py runs the units under a real systemd.
- **the root helper** (pi-table-helper.path and .service): a thread hands each request the
  service leaves to the real helper (``helper.act``), as this test's user instead of root, its
  notes, releases and keyring in the test's folder; ``helper_missing`` is told a helper is there.
  Skipped: root, the path unit, the helper's own sandbox. An update is taken off the spool and
  not installed: building the release (a venv, pip by hashes), switching and proving it under
  systemd is tests/test_release.py's and tests/test_container.py's.
- **the machine's programs**: NetworkManager is pi_table/sim/nmcli.py, the table on a cable;
  timedatectl notes the zone asked; unattended-upgrade and dpkg-query patch a dpkg list
  (helpers_machine.DebianMachine). The page reached at the table's new host name goes through Chromium's
  host resolver rule instead of mDNS (avahi on the Pi).
- **the table's hands**: the reset code comes from holding both buttons of the simulated table
  while it starts, read off its simulated screen; the night's backup is made by the nightly's own
  tick at a night's hour, as its thread makes one at the quiet hour.
- **the café's broker**: this table made the broker from its page; the root helper's real act
  writes Mosquitto's files into the test's folder, and a real Mosquitto runs on them
  (helpers_machine.MosquittoUnit: tests/fake_systemctl.py plays mosquitto.service, on a port of the
  test's). Skipped: Debian's package and its unit (tests/test_container.py has both).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from pi_table import version
from pi_table.daemon import backup
from pi_table.fleet.broker import free_port
from pi_table.release import helper, network, requests
from pi_table.release.first_boot import pending
from pi_table.release.keys import Keyring
from pi_table.release.layout import Releases
from pi_table.sim.machine import program
from pi_table.web.document import zone_now

from helpers import ROOT, require_tools, wait_for
from helpers_machine import DebianMachine, FakeNetworkManager, MosquittoUnit
from helpers_release import signed_bundle
from helpers_staff import owner_unlocked
from helpers_tables import run_first_boot, service_daemon

TASKS = (
    "Set the table up: its name, language, staff PIN, owner's passphrase and time zone",
    "Put the table on the café's Wi-Fi",
    "Change a setting",
    "Discard a settings file the table refused",
    "Change the staff PIN, or reset a forgotten one",
    "Change the owner's passphrase, or reset a forgotten one",
    "Take a backup and restore it",
    "Restore a nightly backup",
    "Add or revoke a release key",
    "Check an update and install it",
    "Give the table a fixed address or a new host name",
    "Apply Debian's security updates now",
    "Show the fleet dashboard on a table",
    "Restart the computer, or shut it down",
)
"""The owner's tasks, from the owner's side: issue 50's items 3 to 13 and what issue 39 counted
(the first PIN, restart and power off). docs/cafe/computer.md lists them in this order."""

NAME = "bar-1"
PIN, NEW_PIN, RESET_PIN = "739120", "518264", "604417"
PASSPHRASE, NEW_PASSPHRASE, RESET_PASSPHRASE = "the café's own table 7", "a new one for the owner", "forgotten, now found"
WIFI = ("Cafe", "espresso-42")
CHROMIUM_MORE = [f"--host-resolver-rules=MAP {NAME}.local 127.0.0.1"]
"""The browser's resolver answers the table's new host name as mDNS (avahi on the Pi) would."""
LONG_S = 30_000  # ms: an answer that waits for a restart of the table, or for the page's own refresh

SAID = {
    "en": {
        "set up": "The table is set up and restarts on its settings (about a minute).",
        "joins": f"The table joins {WIFI[0]}: if this phone loses the page, connect it to {WIFI[0]} and scan the "
                 f"table's code again.",
        "saved": "Saved: the table restarts to apply it and resumes its game.",
        "weekly": "Debian's security updates are applied by the table every Monday at 4:00, or at the first idle "
                  "moment after it.",
        "refused": "The settings file was refused.",
        "discard": "Discard the refused file",
        "discarded": "Discarded: the table restarts on its last good settings.",
        "good": "All good: the table and this computer are healthy.",
        "pin changed": "The PIN is changed: every other phone logs in again with the new one.",
        "reset notice": "the owner's passphrase was reset with the table's buttons",
        "passphrase changed": "The owner's passphrase is changed: this phone acts as the owner, every other gives the "
                              "new one.",
        "replaces": "Restoring it replaces:",
        "restored": "Restored: the table restarts to try it, and deals a new game: the game in play has ended.",
        "holds": "the settings, the staff PIN",
        "asked keys": "Asked: the table changes its keyring in a moment.",
        "added": "Key owner added: {fingerprint}.",
        "revoked": "Key old-laptop revoked: {fingerprint}.",
        "installs": "next.tar.gz holds version 9.9.9, signed by owner: the table would install it in place of "
                    "{running} and restart on it, and go back by itself if it is not healthy",
        "install it": "Install it?",
        "installing": "The update is installing: the table restarts on it in a few minutes.",
        "refused bundle": "old.tar.gz would be refused: the release is signed with key old-laptop ({fingerprint}), "
                          "which was revoked",
        "open at": "Open this page at {link} within 2 min: the change is kept once it is reached there, and goes "
                   "back by itself otherwise.",
        "kept": "Kept: this page was reached at bar-1.local.",
        "back": "Last change: the staff page was not reached at 192.168.1.60 within 3 s: the table is back on its "
                "address before",
        "asked security": "Asked: the table applies them in the next minutes.",
        "security done": r"Last run .+: 2 packages updated\.",
        "reboot due": "A reboot is due to finish them (libc6): Restart the computer under Power.",
        "broker ok": "the fleet's broker: ok",
        "not broker": "This table is not the café's broker. Made the broker, it is the one the café's tables report "
                      "to, and its dashboard can show them all.",
        "done": "Done: the café's broker is changed, and this table has restarted on it.",
        "saved, restarted": "Saved, and the table has restarted on it; it goes back by itself if it is not healthy.",
        "asked broker": "Asked: the table sets the broker up in a moment.",
        "asked removal": "Asked: the table takes bar-2 off the broker in a moment.",
        "broker at": "This table is the café's broker at bar-1.local. This table reports to it.",
        "trying": "Saved: the table restarts to try it, and goes back by itself if it is not healthy.",
        "no dashboard": "This table does not show the café's dashboard.",
        "shows": "This table shows the café's dashboard; log in there with the owner's passphrase.",
        "online": "1 of 2 tables online",  # bar-2, on the list, never reported (issue 62, 4)
        "locked": "Updates, backups, restores, power and the fleet's settings need the owner's passphrase.",
        "restarting": "The computer is restarting…",
        "shutting down": "The computer is shutting down…",
    },
    "it": {
        "set up": "Il tavolo è pronto e riparte con le sue impostazioni (circa un minuto).",
        "joins": f"Il tavolo si collega a {WIFI[0]}: se questo telefono perde la pagina, collegalo a {WIFI[0]} e "
                 f"inquadra di nuovo il codice del tavolo.",
        "saved": "Salvato: il tavolo si riavvia per applicarlo e riprende la partita.",
        "weekly": "Il tavolo applica gli aggiornamenti di sicurezza di Debian ogni lunedì alle 4:00, o al primo "
                  "momento libero dopo.",
        "refused": "Il file delle impostazioni è stato rifiutato.",
        "discard": "Scarta il file rifiutato",
        "discarded": "Scartato: il tavolo riparte con le ultime impostazioni buone.",
        "good": "Tutto bene: il tavolo e questo computer funzionano.",
        "pin changed": "Il PIN è cambiato: gli altri telefoni devono rientrare con quello nuovo.",
        "reset notice": "la frase segreta del gestore è stata reimpostata con i pulsanti del tavolo",
        "passphrase changed": "La frase segreta del gestore è cambiata: questo telefono agisce come gestore, sugli "
                              "altri telefoni va inserita quella nuova.",
        "replaces": "Ripristinarlo sostituisce:",
        "restored": "Ripristinato: il tavolo si riavvia per provarlo e prepara una nuova partita: la partita in corso si è chiusa.",
        "holds": "le impostazioni, il PIN dello staff",
        "asked keys": "Richiesto: il tavolo cambia il suo portachiavi tra un momento.",
        "added": "Chiave owner aggiunta: {fingerprint}.",
        "revoked": "Chiave old-laptop revocata: {fingerprint}.",
        "installs": "next.tar.gz contiene la versione 9.9.9, firmata da owner: il tavolo la installerebbe al posto "
                    "della {running} e ripartirebbe con essa, tornando indietro da solo se non funziona bene",
        "install it": "Installarlo?",
        "installing": "L'aggiornamento si sta installando: il tavolo si riavvia con esso fra qualche minuto.",
        "refused bundle": "old.tar.gz verrebbe rifiutato: la versione è firmata con la chiave old-laptop "
                          "({fingerprint}), che è stata revocata",
        "open at": "Apri questa pagina su {link} entro 2 min: la modifica resta quando viene raggiunta lì, "
                   "altrimenti torna indietro da sola.",
        "kept": "Tenuta: questa pagina è stata raggiunta su bar-1.local.",
        "back": "Ultimo cambio: la pagina dello staff non è stata raggiunta su 192.168.1.60 entro 3 s: il tavolo è "
                "tornato all'indirizzo di prima",
        "asked security": "Richiesto: il tavolo li applica nei prossimi minuti.",
        "security done": r"Ultima volta .+: 2 pacchetti aggiornati\.",
        "reboot due": "Serve un riavvio per completarli (libc6): Riavvia il computer, sotto Riavvio e spegnimento.",
        "broker ok": "il broker della flotta: ok",
        "not broker": "Questo tavolo non è il broker del locale. Se lo diventa, i tavoli del locale inviano a lui le "
                      "loro notizie, e il suo pannello può mostrarli tutti.",
        "done": "Fatto: il broker del locale è cambiato, e questo tavolo è ripartito su di esso.",
        "saved, restarted": "Salvato, e il tavolo è ripartito con questo; torna indietro da solo se non funziona bene.",
        "asked broker": "Richiesto: il tavolo configura il broker tra un momento.",
        "asked removal": "Richiesto: il tavolo toglie bar-2 dal broker tra un momento.",
        "broker at": "Questo tavolo è il broker del locale, all'indirizzo bar-1.local. Questo tavolo gli invia le "
                     "sue notizie.",
        "trying": "Salvato: il tavolo riparte per provarlo, e torna indietro da solo se non funziona bene.",
        "no dashboard": "Questo tavolo non mostra il pannello del locale.",
        "shows": "Questo tavolo mostra il pannello del locale; accedi lì con la frase segreta del gestore.",
        "online": "1 tavolo collegato su 2",
        "locked": "Aggiornamenti, backup, ripristini, riavvio, spegnimento e impostazioni della flotta chiedono la "
                  "frase segreta del gestore.",
        "restarting": "Il computer si sta riavviando…",
        "shutting down": "Il computer si sta spegnendo…",
    },
}


class OwnersTable:
    """A table fresh from the SD image (its first boot run) in ``folder``, listening on ``port``,
    run in this process as ``pi-table run`` runs it, with the module docstring's stand-ins for
    systemd, the root helper and the machine's programs around it."""

    def __init__(self, folder: Path, port: int, monkeypatch) -> None:
        self.folder, self.port = folder, port
        folder.mkdir()
        self.config = folder / "config.toml"
        self.config.write_text(f'[web]\nhost = "127.0.0.1"\nport = {port}\n[paths]\njournal_dir = "journal"\n'
                               f'socket = "control.sock"\nsocket_group = ""\n')
        done = run_first_boot(self.config)
        assert done.returncode == 0, done.stderr
        self.nm = FakeNetworkManager(folder / "nm", monkeypatch, networks=(WIFI,))
        self.nm.on_cable()  # its Wi-Fi on, and not connected: the cable is
        self.machine = DebianMachine(folder / "system")
        self.calls = folder / "systemctl.calls"
        systemctl = program(folder / "systemctl", f'echo "$*" >> {self.calls}\n[ "$1" = show ] && echo active\nexit 0\n')
        self.zones = folder / "zones"
        timedatectl = program(folder / "timedatectl", f'echo "$*" >> {self.zones}\n')
        self.keyring = Keyring(folder / "pi-table-keys")
        self.mosquitto = MosquittoUnit(folder / "mosquitto")
        self.acts = replace(self.machine.helper, releases=Releases(folder / "opt"), keyring=self.keyring,
                            systemctl=(systemctl,), timedatectl=(timedatectl,), config=self.config,
                            mosquitto=self.mosquitto.broker)
        self.spool = folder / "requests"
        self.updates: list[dict] = []  # the updates asked for, taken off the spool and not installed
        self.status = [sys.executable, "-m", "pi_table", "status", "--json", "--config", str(self.config)]
        self.daemon = None
        self.lock = threading.RLock()
        self.closing = threading.Event()
        self.start()
        self.threads = [threading.Thread(target=self._systemd, daemon=True),
                        threading.Thread(target=self._path_unit, daemon=True)]
        for thread in self.threads:
            thread.start()

    # --- the table, started and stopped as the service is ----------------------------------------

    def start(self, holding: bool = False) -> None:
        """The table started (``holding``: both its buttons held meanwhile), its stand-ins given."""
        with self.lock:
            (self.folder / "journal" / "staff.restarts").unlink(missing_ok=True)
            daemon = service_daemon(self.config)
            if holding:
                daemon.devices.buttons.down.update({"end_turn", "new_game"})
            home = self.acts.releases.home
            if daemon.first_boot is not None:
                daemon.first_boot.home = home
            daemon.start()
            self.runner = threading.Thread(target=daemon.run, daemon=True)
            self.runner.start()
            assert daemon.wait_for_phones() and daemon.companion is not None
            desk = daemon.helper
            desk.spool, desk.helper_missing, desk.keyring, desk.home = self.spool, lambda: None, self.keyring, home
            daemon.security.home, daemon.security.reboot_flag = home, self.machine.flag
            sections = {section.name: section for section in daemon.companion.staff.sections}
            sections["keys"].keyring = self.keyring  # type: ignore[attr-defined]
            for name in ("keys", "network", "wifi"):
                sections[name].home = home  # type: ignore[attr-defined]
            broker = sections["broker"].table  # the section's part of the table
            broker.home, broker.etc, broker.port = home, self.mosquitto.etc, self.mosquitto.port
            self.daemon = daemon

    def stop(self) -> None:
        with self.lock:
            if self.daemon is not None:
                self.daemon.stop()
                self.runner.join(timeout=20)
                self.daemon.close()
                assert not self.runner.is_alive()
                self.daemon = None

    def switched_off_and_on(self, holding: bool = False) -> None:
        """The owner switches the table off and on (``holding`` both buttons while it starts)."""
        with self.lock:
            self.stop()
            self.start(holding)

    def screen_says(self) -> str:
        """The warnings on the table's own screen (the spymasters' screen, simulated)."""
        return " ".join(str(each) for each in self.daemon.devices.screen.screen.models[-1].warnings)

    def settled(self) -> None:
        """Once the change on trial is kept or rolled back, and the table is up after it."""
        from pi_table.config import load_config, trial

        def decided() -> bool:
            with self.lock:
                if self.daemon is None or not self.runner.is_alive():
                    return False
                return trial.pending_trial(self.config) is None and backup.pending(load_config(self.config)) is None

        wait_for(decided, "the change on trial kept or rolled back", timeout=60, every=0.2)

    # --- what stands in for systemd and the root helper -----------------------------------------

    def _systemd(self) -> None:
        seen = 0
        while not self.closing.wait(0.05):
            with self.lock:
                if self.daemon is not None and not self.runner.is_alive():  # ended to restart: started again
                    self.stop()
                    self.start()
            calls = self.calls.read_text().splitlines() if self.calls.exists() else []
            for call in calls[seen:]:
                seen += 1
                if call in ("restart pi-table.service", "reboot"):
                    if call == "reboot":
                        self.machine.flag.unlink(missing_ok=True)  # /run is emptied by a reboot
                    self.switched_off_and_on()
                elif call == "poweroff":
                    self.stop()
                elif call.startswith("start --no-block pi-table-security.service"):
                    threading.Thread(target=self._security_unit, daemon=True).start()

    def _security_unit(self) -> None:
        """pi-table-security.service: the helper's act, its output where the unit's journal would be."""
        with (self.folder / "security.log").open("a") as log:
            helper.security(self.acts, self.status, 60, log=log)

    def _path_unit(self) -> None:
        while not self.closing.wait(0.05):
            if not (self.spool / requests.REQUEST).exists():
                continue
            asked = json.loads((self.spool / requests.REQUEST).read_text())
            if asked.get("act") == "update":
                self.updates.append(requests.take(self.spool))
            else:
                with (self.folder / "helper.log").open("a") as log:
                    helper.act(self.acts, self.spool, log=log)

    def close(self) -> None:
        self.closing.set()
        for thread in self.threads:
            thread.join(timeout=10)
        self.stop()
        self.mosquitto.close()


def ssh_key(folder: Path, name: str) -> str:
    """A new Ed25519 key pair made as the owner's computer makes it; its public line."""
    require_tools("ssh-keygen")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{name}@cafe", "-f", str(folder / name)],
                   check=True)
    return (folder / f"{name}.pub").read_text()


def fingerprint(folder: Path, name: str) -> str:
    return subprocess.run(["ssh-keygen", "-l", "-f", str(folder / f"{name}.pub")], capture_output=True, text=True,
                          check=True).stdout.split()[1]


class Owner:
    """The owner's phone on the table's pages: the questions it answered yes to, the passphrase it
    gives, the tasks' times."""

    def __init__(self, page, table: OwnersTable) -> None:
        self.page, self.table, self.passphrase = page, table, PASSPHRASE
        self.asked: list[str] = []
        self.times: list[tuple[str, float]] = []
        page.on("dialog", lambda dialog: (self.asked.append(dialog.message), dialog.accept()))

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.table.port}"

    def task(self, number: int | None) -> None:
        """Task ``number`` (1-based) begins, the one before ends (None: the last ends)."""
        now = time.monotonic()
        if self.times:
            self.times[-1] = (self.times[-1][0], now - self.times[-1][1])
        if number is not None:
            assert number == len(self.times) + 1, "the tasks in their order"
            self.times.append((TASKS[number - 1], now))

    def unlocked(self) -> None:
        """The owner's passphrase, given when the page asks for it (an owner's action asked it)."""
        from playwright.sync_api import expect

        expect(self.page.locator("#owner-passphrase")).to_be_focused()
        self.page.fill("#owner-passphrase", self.passphrase)
        self.page.tap("#owner-form button")

    def unlock(self) -> None:
        """The owner's actions unlocked under Owner (a start locks them again)."""
        self.page.fill("#owner-passphrase", self.passphrase)
        self.page.tap("#owner-form button")
        owner_unlocked(self.page)

    def logged_in(self, pin: str) -> None:
        from playwright.sync_api import expect

        self.page.fill("#pin", pin)
        self.page.tap("#login button")
        expect(self.page.locator("#desk")).to_be_visible()


@pytest.mark.browser
@pytest.mark.daemon
@pytest.mark.broker
@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_owners_14_tasks_on_a_phone(tmp_path, browser, monkeypatch, lang):
    from playwright.sync_api import expect

    said = SAID[lang]
    table = OwnersTable(tmp_path / "table", free_port(), monkeypatch)
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  device_scale_factor=2, accept_downloads=True,
                                  locale="it-IT" if lang == "it" else "en-GB")
    page = context.new_page()
    owner = Owner(page, table)
    try:
        # 1. the set-up page, with the code on the table's screen
        owner.task(1)
        waiting = pending(table.folder / "journal")
        assert waiting is not None
        page.goto(f"{owner.base}/setup")
        page.select_option("#lang", lang)
        page.wait_for_load_state("networkidle")  # the page in that language, its offers asked again
        page.fill("#code", waiting.shown)
        page.fill("#name", NAME)
        page.select_option("#language", lang)
        zone = "Europe/Rome" if zone_now() != "Europe/Rome" else "Europe/Paris"  # another than this machine's
        page.fill("#zone", zone)
        for field, value in (("#pin", PIN), ("#pin-again", PIN), ("#passphrase", PASSPHRASE),
                             ("#passphrase-again", PASSPHRASE)):
            page.fill(field, value)
        page.tap("#submit")
        expect(page.locator("#done-line")).to_have_text(said["set up"])
        wait_for(lambda: table.zones.exists() and table.zones.read_text() == f"set-timezone {zone}\n",
                 "the time zone asked of timedatectl")
        table.settled()
        page.tap("#staff-link")
        owner.logged_in(PIN)
        expect(page.locator("#headline")).to_have_text(said["good"])

        # 2. the café's Wi-Fi, from the staff page
        owner.task(2)
        page.fill("#wifi-ssid", WIFI[0])
        page.fill("#wifi-password", WIFI[1])
        page.tap("#wifi-form button[type=submit]")
        owner.unlocked()
        expect(page.locator("#wifi-result")).to_have_text(said["joins"])
        wait_for(lambda: "pi-table-wifi" in table.nm.active(), "the café's Wi-Fi joined", timeout=20)

        # 3. a setting: when Debian's security updates are applied
        owner.task(3)
        page.locator("#config details[data-group=advanced] summary").tap()
        page.select_option('[id="setting-system.security_updates"]', "weekly")
        page.tap("#config button[type=submit]")
        expect(page.locator("#message")).to_have_text(said["saved"])
        table.settled()
        expect(page.locator('[id="setting-system.security_updates"]')).to_have_value("weekly", timeout=LONG_S)

        # 4. a settings file edited by hand, refused at the next start
        owner.task(4)
        with table.config.open("a") as edited:
            edited.write("\n[timer]\nlength_s = 5\n")
        table.switched_off_and_on()
        discard = page.locator("#warnings button")
        expect(discard).to_have_text(said["discard"], timeout=LONG_S)
        expect(page.locator("#headline")).to_have_text(said["refused"])  # what it refused, and why under it
        expect(page.locator("#headline-advice")).to_contain_text("timer.length_s")
        discard.tap()
        owner.unlocked()  # a start locks the owner's actions again
        expect(page.locator("#message")).to_have_text(said["discarded"])
        table.settled()
        expect(discard).to_have_count(0, timeout=LONG_S)
        expect(page.locator("#headline")).to_have_text(said["good"])
        assert "length_s = 5" not in table.config.read_text()

        # 5. the staff PIN: changed, then forgotten and reset with the code on the table's screen
        owner.task(5)
        page.fill("#pin-old", PIN)
        page.fill("#pin-new", NEW_PIN)
        page.fill("#pin-again", NEW_PIN)
        page.tap("#pin-form button")
        expect(page.locator("#message")).to_have_text(said["pin changed"])
        page.tap("#logout")
        expect(page.locator("#login")).to_be_visible()
        table.switched_off_and_on(holding=True)
        code = re.search(r"\d{4} \d{4}", table.screen_says()).group()
        page.reload()
        page.tap("#recover summary")
        page.fill("#recover-code", code)
        page.fill("#recover-pin", RESET_PIN)
        page.fill("#recover-passphrase", PASSPHRASE)
        page.tap("#recover-form button")
        expect(page.locator("#message")).to_have_text(said["pin changed"])
        expect(page.locator("#desk")).to_be_visible()

        # 6. the owner's passphrase: changed, then forgotten and reset with the code
        owner.task(6)
        page.tap("#passphrase-change summary")
        page.fill("#passphrase-old", PASSPHRASE)
        page.fill("#passphrase-new", NEW_PASSPHRASE)
        page.fill("#passphrase-again", NEW_PASSPHRASE)
        page.tap("#passphrase-form button")
        expect(page.locator("#message")).to_have_text(said["passphrase changed"])
        table.switched_off_and_on(holding=True)
        code = re.search(r"\d{4} \d{4}", table.screen_says()).group()
        page.reload()
        page.tap("#passphrase-reset summary")
        page.fill("#passphrase-code", code)
        page.fill("#passphrase-reset-new", RESET_PASSPHRASE)
        page.fill("#passphrase-reset-again", RESET_PASSPHRASE)
        page.tap("#passphrase-reset-form button")
        # issue 58: the owner's part wiped first, a recovery code shown once, the table restarted
        expect(page.locator("#recovery-code")).to_have_text(re.compile(r"^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$"))
        expect(page.locator("#owner-notice")).to_contain_text(said["reset notice"])
        owner.passphrase = RESET_PASSPHRASE
        owner.unlock()  # the restart locked the owner's actions again

        # 7. a backup taken, then restored from the phone
        owner.task(7)
        with page.expect_download() as downloaded:
            page.tap("#backup-download")
        name = downloaded.value.suggested_filename
        assert name == f"pi-table-{NAME}-{time.strftime('%Y-%m-%d')}.tar.gz"  # the table by its name, and the day
        kept = tmp_path / name
        downloaded.value.save_as(kept)
        page.set_input_files("#restore-file", str(kept))
        expect(page.locator("#message")).to_have_text(said["replaces"])
        expect(page.locator("#restore")).to_be_visible()
        page.tap("#restore")
        expect(page.locator("#message")).to_have_text(said["restored"])
        table.settled()
        expect(page.locator("#headline")).to_have_text(said["good"], timeout=LONG_S)

        # 8. a nightly backup, listed and restored
        owner.task(8)
        night = backup.Nightly(table.daemon.config, clock=lambda: 1_790_000_000.0).tick()  # a night in 2026
        assert night is not None
        page.reload()
        owner_unlocked(page)  # still unlocked: the restore's restart was the owner's act's
        listed = page.locator("#nightly li").first
        expect(listed).to_contain_text(said["holds"])
        listed.locator("button").tap()
        expect(page.locator("#message")).to_have_text(said["replaces"])
        page.tap("#restore")
        expect(page.locator("#message")).to_have_text(said["restored"])
        table.settled()
        expect(page.locator("#headline")).to_have_text(said["good"], timeout=LONG_S)

        # 9. release keys: the owner's added by pasting it, an old laptop's added from its file and revoked
        owner.task(9)
        keys = tmp_path / "keys"
        keys.mkdir()
        page.tap("#keys-add summary")
        page.fill("#keys-name", "owner")
        page.fill("#keys-key", ssh_key(keys, "owner"))
        page.tap("#keys-form button")  # unlocked still: the restores' restarts were the owner's acts' (62, 3)
        expect(page.locator("#keys-result")).to_have_text(said["asked keys"])
        expect(page.locator("#keys-last")).to_have_text(said["added"].format(fingerprint=fingerprint(keys, "owner")))
        ssh_key(keys, "old-laptop")
        page.fill("#keys-name", "old-laptop")
        page.set_input_files("#keys-file", str(keys / "old-laptop.pub"))
        page.tap("#keys-form button")
        expect(page.locator("#keys-list li")).to_have_count(2)
        page.locator("#keys-list button[data-key=old-laptop]").tap()
        expect(page.locator("#keys-last")).to_have_text(said["revoked"].format(
            fingerprint=fingerprint(keys, "old-laptop")))

        # 10. an update bundle: checked, and installed (the helper takes it)
        owner.task(10)
        bundle = signed_bundle(tmp_path / "next.tar.gz", keys / "owner", version="9.9.9")
        page.set_input_files("#bundle-file", str(bundle))
        expect(page.locator("#message")).to_have_text(said["installing"])
        assert owner.asked[-1] == f"{said['installs'].format(running=version())}\n\n{said['install it']}"
        wait_for(lambda: table.updates, "the update taken by the root helper")
        assert table.updates == [{"act": "update", "from": "bundle", "bundle": "next.tar.gz"}]
        assert (table.spool / "next.tar.gz").read_bytes() == bundle.read_bytes()
        old = signed_bundle(tmp_path / "old.tar.gz", keys / "old-laptop", version="9.9.9")
        page.set_input_files("#bundle-file", str(old))
        expect(page.locator("#message")).to_have_text(said["refused bundle"].format(
            fingerprint=fingerprint(keys, "old-laptop")))

        # 11. a fixed address not reached again comes back by itself; a host name reached is kept
        owner.task(11)
        monkeypatch.setattr(network, "TRIAL_S", 3.0)  # the fixed address not reached is undone in 3 s, not 2 min
        page.select_option("#network-method", "manual")
        page.fill("#network-address", "192.168.1.60/24")
        page.fill("#network-gateway", "192.168.1.1")
        page.fill("#network-dns", "192.168.1.1")
        page.tap("#network-ipv4 button")
        expect(page.locator("#network-result")).to_have_text(said["open at"].format(
            link=f"http://192.168.1.60:{table.port}/staff"))
        expect(page.locator("#network-last")).to_have_text(said["back"], timeout=LONG_S)
        monkeypatch.setattr(network, "TRIAL_S", 30.0)  # the time to open the page at the new name
        page.fill("#network-host", NAME)
        page.tap("#network-name button")
        expect(page.locator("#network-result")).to_have_text(said["open at"].format(
            link=f"http://{NAME}.local:{table.port}/staff"))
        other = context.new_page()
        other.goto(f"http://{NAME}.local:{table.port}/staff")
        other.fill("#pin", RESET_PIN)
        other.tap("#login button")
        expect(other.locator("#network-result")).to_have_text(said["kept"], timeout=LONG_S)
        other.close()
        wait_for(lambda: network.host_name() == NAME, "the host name kept")

        # 12. Debian's security updates, now
        owner.task(12)
        expect(page.locator("#security-schedule")).to_have_text(said["weekly"])  # as task 3 set it
        page.tap("#security-run")
        expect(page.locator("#security-result")).to_have_text(said["asked security"])
        expect(page.locator("#security-last")).to_have_text(re.compile(said["security done"]), timeout=LONG_S)
        expect(page.locator("#security-reboot")).to_have_text(said["reboot due"])

        # 13. this table made the café's broker, then the café's dashboard shown by it
        owner.task(13)
        owner.unlock()  # the restart after the updates locked the owner's actions: the broker is the owner's
        expect(page.locator("#cafe-broker-line")).to_have_text(said["not broker"])
        page.fill("#cafe-broker-address", f"{NAME}.local")
        page.fill("#cafe-broker-table", NAME)
        page.fill("#cafe-broker-others", "bar-2")
        page.tap("#cafe-broker-set-up")  # its question answered yes
        expect(page.locator("#cafe-broker-result")).to_have_text(said["asked broker"])
        wait_for(lambda: f'broker = "mqtts://{NAME}@127.0.0.1:' in table.config.read_text(), "the broker set up", 60)
        table.settled()  # the table on its own broker, as a trial
        expect(page.locator("#devices")).to_contain_text(said["broker ok"], timeout=LONG_S)
        expect(page.locator("#cafe-broker-result")).to_have_text(said["done"], timeout=LONG_S)  # after the restart
        owner_unlocked(page)  # still unlocked: the restart was the owner's act's (62, 3)
        expect(page.locator("#cafe-broker-line")).to_have_text(said["broker at"])
        expect(page.locator("#cafe-broker-tables")).to_contain_text(f"mqtts://bar-2@{NAME}.local:{table.mosquitto.port}")
        expect(page.locator("#dashboard-line")).to_have_text(said["no dashboard"])
        dashboard_port = free_port()
        page.fill("#dashboard-port", str(dashboard_port))  # its user and password set with the broker
        expect(page.locator("#dashboard-user")).to_have_value("dashboard")
        page.tap("#dashboard-form button[type=submit]")
        expect(page.locator("#dashboard-result")).to_have_text(said["trying"])
        table.settled()
        expect(page.locator("#dashboard-result")).to_have_text(said["saved, restarted"], timeout=LONG_S)  # its result, once back
        page.reload()
        owner_unlocked(page)  # still unlocked, the page read again too
        expect(page.locator("#dashboard-line")).to_have_text(said["shows"])
        link = page.locator("#dashboard-link")
        expect(link).to_have_text(f"http://127.0.0.1:{dashboard_port}/")
        dashboard = context.new_page()
        dashboard.goto(link.get_attribute("href"))
        dashboard.fill("input[name=password]", owner.passphrase)
        dashboard.tap("button")
        expect(dashboard.locator("#count")).to_have_text(said["online"], timeout=LONG_S)
        dashboard.close()
        page.tap('[data-remove="bar-2"]')  # a table taken off (sold): its question answered yes
        expect(page.locator("#cafe-broker-result")).to_have_text(said["asked removal"])
        wait_for(lambda: "bar-2" not in table.mosquitto.broker.users(), "bar-2 off the broker", 60)
        table.settled()  # this table restarts to leave it out of the café's tables
        owner_unlocked(page)
        expect(page.locator("#cafe-broker-tables > li")).to_have_count(1, timeout=LONG_S)  # this table's alone
        expect(page.locator("#cafe-broker-tables")).not_to_contain_text("bar-2")
        assert "bar-2" not in table.config.read_text()

        # 14. the computer restarted (the reboot the security updates asked for), then shut down
        owner.task(14)
        page.tap("#reboot")
        expect(page.locator("#message")).to_have_text(said["restarting"])
        table.settled()
        expect(page.locator("#owner-line")).to_have_text(said["locked"], timeout=LONG_S)  # the page back by itself
        page.reload()  # the security updates' section is read again every 15 s, or now
        expect(page.locator("#security-last")).to_have_text(re.compile(said["security done"]))
        expect(page.locator("#security-reboot")).to_be_hidden()
        page.tap("#poweroff")
        owner.unlocked()
        expect(page.locator("#message")).to_have_text(said["shutting down"])
        wait_for(lambda: table.daemon is None, "the table shut down", timeout=20)
        owner.task(None)
        assert len(owner.times) == len(TASKS)
        for number, (task, seconds) in enumerate(owner.times, 1):
            print(f"{lang} {number:2}. {task}: {seconds:.1f} s")
    finally:
        context.close()
        table.close()


def listed_tasks(page: str) -> list[str]:
    """The tasks a page of docs/cafe lists under its heading {#tasks}, each in bold at its number."""
    text = (ROOT / "docs" / "cafe" / page).read_text(encoding="utf-8")
    section = text.split("{#tasks}", 1)[1].split("\n## ", 1)[0]
    return [" ".join(task.split()) for task in re.findall(r"^\d+\. \*\*(.+?)\*\*", section, re.MULTILINE | re.DOTALL)]


def test_the_owners_page_lists_the_14_tasks_this_test_does_in_both_languages():
    """docs/cafe/computer.md names the tasks as this file does, in its order, and its Italian page
    as many: a task added here, or there, is added to both."""
    assert listed_tasks("computer.md") == list(TASKS)
    assert len(listed_tasks("computer.it.md")) == len(TASKS) == 14
