"""The owner's lifecycle (issue 58, 1): random sequences of its steps (PIN and passphrase changed,
a recovery code made and used, the buttons' reset, the owner's secrets set again, restarts,
the notice acknowledged) against a table set up and started as the service starts it, with an
oracle written from the rules (what the owner's passphrase, the recovery code and the notice are
now), and the threat model's promises checked after every step:

- staff never act as the owner: a phone that never gave the passphrase gets none of the owner's
  acts (the buttons' reset leaves it none either: the table restarts after it);
- a reset wipes the owner's part (no backup holds the broker's password it wiped) and leaves its
  notice, on the staff page and in the status, until the owner acknowledges it;
- a right answer from a known device is never refused: the owner's phone logs in with the PIN and
  gives the passphrase, whatever came before;
- the recovery code works exactly once: the one kept serves, a spent or replaced one never does;
- no secret page answers off-loopback without TLS: from the network, over plain http, the right PIN,
  passphrase or set-up code is refused unread, whether the table's certificate is whole (https
  only) or damaged (this machine alone), and the staff's https is there exactly while it is whole.

The other ways back are rules beside the owner's steps: the table's certificate damaged and mended
(moved aside, the table makes a new one), a hostile backup restored (refused, nothing staged), a
flood of wrong PINs from fresh addresses begun and ended (the budget's minute passed on the tries'
clock); a flood goes on across restarts, and the owner's phone logs in afresh at every check.
Steps are rules and the table is handled in one place (``RestartedAsTheServiceIs``: ``start``,
``stop``, ``settle``, ``base``). One example builds a whole table: the slow tier's.
"""

from __future__ import annotations

import json
import tarfile
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from pi_table.release.first_boot import TLS, TLS_CERT, TLS_KEY
from pi_table.web.auth import WINDOW_S
from pi_table.web.roles import set_passphrase
from pi_table.web.staff import ATTEMPTS_OVERALL, set_pin

from helpers_fleet import BROKER_SECRET, FLEET, ON_THE_NETWORK
from helpers_phones import plain, this_machines_address
from helpers_release import fix_manifest, member, packed, repacked
from helpers_staff import OWNER_PASSPHRASE, STAFF_PIN, Staff, download, download_backup, guess_from, upload
from helpers_tables import RestartedAsTheServiceIs

pytestmark = [pytest.mark.slow, pytest.mark.daemon]

PASSPHRASES = st.sampled_from(["the owner's second one", "a third owner's passphrase", OWNER_PASSPHRASE])
PINS = st.sampled_from(["593017", "204816", STAFF_PIN])
HOSTILE = {  # archives that lead out (tests/test_backup.py tries every kind on the files' side)
    "a link to the machine's passwords": (packed([(member("journal/staff.pin", kind=tarfile.SYMTYPE, link="/etc/shadow"), b"")]),
                                          "is a symbolic link: expected regular files only"),
    "a climb out of the table": (packed([(member("journal/../../etc/cron.d/x", 1), b"x")]), "leads out of its folder"),
}
HOSTILE_BACKUPS = st.sampled_from(["names the previous settings as the broker's password", *HOSTILE])
SECRET_PAGES = ("/staff/login", "/staff/recover", "/setup/api")
OWNERS_ACTS = [("GET", "/staff/api/backup", None), ("POST", "/staff/api/owner/recovery", {}),
               ("POST", "/staff/api/owner/notice", {}), ("GET", "/staff/api/backups", None)]


class OwnerLifecycle(RestartedAsTheServiceIs, RuleBasedStateMachine):
    """One table, the owner's phone (``owner``: it gave the passphrase before, a known device) and
    a staff phone that never did (``staff``); the oracle beside them."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="pi-table-owner-"))
        self.config = self.folder / "config.toml"
        self.config.write_text(ON_THE_NETWORK + FLEET)  # the staff's https for the network, http for this machine
        set_pin(self.folder / "journal", STAFF_PIN)
        set_passphrase(self.folder / "journal", OWNER_PASSPHRASE)
        self.start()
        # the oracle: what the rules say holds now
        self.pin, self.passphrase = STAFF_PIN, OWNER_PASSPHRASE
        self.recovery: str | None = None  # the code the owner keeps; None: none made yet, or wiped
        self.spent: list[str] = []  # codes used or replaced: never again
        self.secret_held = True  # the settings hold the broker's password the owner set
        self.notice: str | None = None  # "buttons" or "recovery": the last reset, until acknowledged
        self.damaged = False  # the table's certificate is damaged: its secret pages answer this machine alone
        self.floods = 0  # floods begun: each from addresses of its own
        self.flooded = False  # a flood of wrong PINs is spending the budget of phones never seen
        self.owner, self.staff = Staff(self.here()), Staff(self.here())
        for phone in (self.owner, self.staff):
            assert phone.login(self.pin)[0] == 200
        self.owner.as_owner(self.passphrase)  # a known device to the owner's door from here on

    # -- the table, as the service runs it ----------------------------------------------------------

    def here(self) -> str:
        """The pages as this machine reaches them (over loopback: no network crossed)."""
        assert self.daemon is not None and self.daemon.companion is not None
        return f"http://127.0.0.1:{self.daemon.companion.port}"

    def restarted(self) -> None:
        for phone in (self.owner, self.staff):
            phone.base = self.here()
        if self.flooded:  # the flood goes on: the table's counts, kept in memory, begin again
            self.flood()

    def flood(self) -> None:
        """More wrong PINs from fresh addresses, once each, than the budget of phones never seen."""
        assert self.daemon is not None and self.daemon.companion is not None
        addresses = [f"127.{self.floods}.{n // 250}.{10 + n % 240}" for n in range(ATTEMPTS_OVERALL + 2)]
        statuses = guess_from(self.daemon.companion, addresses, 1)
        assert statuses[-1] == 429, statuses  # the budget is spent: a new phone waits

    def restarted_if_asked(self, answer: object) -> None:
        """A step that made the table restart (a reset, a change, the staff's restart): it stops,
        and systemd starts it again as the service starts."""
        if isinstance(answer, dict) and answer.get("restarting"):
            self.runner.join(timeout=15)
            assert self.daemon is not None and self.daemon.restarting and not self.runner.is_alive(), \
                "a restart the page announced never came"
        self.settle()

    def acting_owner(self) -> Staff:
        """The owner's phone, logged in and acting as the owner (its right answers never refused)."""
        status, _ = self.owner.call("GET", "/staff/api/owner")
        if status == 401:
            self.owner_logs_in()
        self.owner.as_owner(self.passphrase)
        return self.owner

    def owner_logs_in(self) -> None:
        status, answer = self.owner.login(self.pin)
        assert status == 200, f"the owner's phone was refused the PIN: {status} {answer}"

    def staff_phone(self) -> Staff:
        if self.staff.call("GET", "/staff/api/owner")[0] == 401:
            assert self.staff.login(self.pin)[0] == 200
        return self.staff

    # -- the owner's steps --------------------------------------------------------------------------

    @rule(new=PINS)
    def staff_pin_changed(self, new: str) -> None:
        status, answer = self.staff_phone().call("POST", "/staff/api/pin", {"old": self.pin, "new": new})
        assert status == 200, answer
        self.pin = new

    @rule(new=PASSPHRASES)
    def passphrase_changed(self, new: str) -> None:
        status, answer = self.acting_owner().call("POST", "/staff/api/owner/passphrase",
                                                  {"old": self.passphrase, "new": new})
        assert status == 200, answer
        self.passphrase = new

    @rule()
    def recovery_code_made(self) -> None:
        status, answer = self.acting_owner().call("POST", "/staff/api/owner/recovery")
        assert status == 200, answer
        self.spent += [self.recovery] if self.recovery else []
        self.recovery = answer["recovery_code"]

    @precondition(lambda self: self.recovery is not None)
    @rule(new=PASSPHRASES)
    def recovery_code_used(self, new: str) -> None:
        """The owner forgot the passphrase: the PIN and the code written down at the set-up."""
        if self.owner.call("GET", "/staff/api/owner")[0] == 401:
            assert self.owner.login(self.pin)[0] == 200
        status, answer = self.owner.call("POST", "/staff/api/owner/recover",
                                         {"recovery": self.recovery, "passphrase": new})
        assert status == 200, answer
        assert "restarting" not in answer  # nothing wiped, nothing to restart for
        self.spent.append(self.recovery)
        self.recovery, self.passphrase, self.notice = answer["recovery_code"], new, "recovery"

    @precondition(lambda self: self.spent and not self.flooded)  # a new phone in a flood: see item 2
    @rule(data=st.data())
    def spent_recovery_code_refused(self, data) -> None:
        code = data.draw(st.sampled_from(self.spent))
        phone = Staff(self.here())  # whoever found an old code: a phone the owner's door never saw
        assert phone.login(self.pin)[0] == 200
        status, answer = phone.call("POST", "/staff/api/owner/recover", {"recovery": code,
                                                                         "passphrase": "never this one, never"})
        assert status in (403, 429), answer  # wrong, or too many tries: never a new passphrase

    @rule(new=PASSPHRASES)
    def buttons_reset(self, new: str) -> None:
        """Someone with the PIN holds both buttons while the table starts and reads its screen."""
        assert self.daemon is not None and self.daemon.recovery is not None
        code = self.daemon.recovery.issue()
        status, answer = self.staff_phone().call("POST", "/staff/api/owner/reset", {"code": code, "passphrase": new})
        assert status == 200 and answer["restarting"], answer
        self.restarted_if_asked(answer)
        self.spent += [self.recovery] if self.recovery else []
        self.recovery, self.passphrase, self.notice = answer["recovery_code"], new, "buttons"
        self.secret_held = False

    @precondition(lambda self: not self.secret_held)
    @rule()
    def owner_sets_the_broker_password_again(self) -> None:
        status, answer = self.acting_owner().call("POST", "/staff/api/config", {"changes": {
            "fleet.broker": f"mqtts://t1:{BROKER_SECRET}@127.0.0.1:1"}})
        assert status == 200 and answer["restarting"], answer
        self.restarted_if_asked(answer)  # a trial: kept, or rolled back by itself if the table is not healthy on it
        self.secret_held = BROKER_SECRET in self.config.read_text()

    @rule()
    def restart(self) -> None:
        status, answer = self.staff_phone().call("POST", "/staff/api/restart")
        assert status == 200 and answer["restarting"], answer
        self.restarted_if_asked(answer)

    @precondition(lambda self: self.notice is not None)
    @rule()
    def notice_acknowledged(self) -> None:
        assert self.staff_phone().call("POST", "/staff/api/owner/notice")[0] == 403  # the owner's word alone
        status, answer = self.acting_owner().call("POST", "/staff/api/owner/notice")
        if self.notice == "buttons":  # it stands a week, and never goes from the phone that made the reset (issue 74.3)
            assert status == 403 and not answer["ok"], answer
            return
        assert status == 200 and answer["acknowledged"], answer
        self.notice = None

    # -- the other ways back ------------------------------------------------------------------------

    @precondition(lambda self: not self.damaged)
    @rule(part=st.sampled_from([TLS_KEY, TLS_CERT]))
    def certificate_damaged(self, part: str) -> None:
        """A card that lost a block: the table's own key or certificate unreadable at the next start."""
        (self.folder / TLS / part).write_text("not what it was\n")
        self.damaged = True
        self.restart()

    @precondition(lambda self: self.damaged)
    @rule()
    def certificate_mended(self) -> None:
        """As the screen says: the damaged key and certificate moved aside, the table makes new ones."""
        for part in (TLS_KEY, TLS_CERT):
            (self.folder / TLS / part).rename(self.folder / TLS / f"{part}.damaged")
        self.damaged = False
        self.restart()
        assert self.daemon is not None and self.daemon.fingerprint is not None

    @rule(how=HOSTILE_BACKUPS)
    def hostile_backup_restored(self, how: str) -> None:
        """A backup from someone else's hands: refused in words, nothing staged, the settings as they were."""
        owner = self.acting_owner()
        if how in HOSTILE:
            hostile, words = HOSTILE[how]
        else:  # the table's own backup, its settings sending the previous ones to the sender's broker
            words = "fleet.password_file"
            hostile = fix_manifest(repacked(download(owner, "/staff/api/backup"), lambda name, body: (
                ON_THE_NETWORK + '[fleet]\nbroker = "mqtt://t1@203.0.113.9:1883"\npassword_file = "config.toml.good"\n'
                'password_in_clear = true\n').encode() if name == "config.toml" else body))
        before = self.config.read_bytes()
        for path in ("/staff/api/restore?check", "/staff/api/restore"):
            status, answer = upload(owner, path, hostile)
            assert status == 400 and words in answer["error"], (path, status, answer)
            assert BROKER_SECRET not in answer["error"]
        assert self.config.read_bytes() == before and not (self.folder / "backups").exists()

    @precondition(lambda self: not self.flooded)
    @rule()
    def flood_begins(self) -> None:
        self.floods, self.flooded = self.floods + 1, True
        self.flood()

    @precondition(lambda self: self.flooded)
    @rule()
    def flood_ends(self) -> None:
        """The flood stops and the budget's minute passes (on the tries' clock: no test waits a minute)."""
        assert self.daemon is not None and self.daemon.companion is not None
        tries = self.daemon.companion.staff.gate.door.throttle
        ticking = tries.clock
        tries.clock = lambda: ticking() + WINDOW_S
        self.flooded = False
        assert Staff(self.here()).login(self.pin)[0] == 200  # a phone never seen gets in again

    # -- the promises ---------------------------------------------------------------------------------

    @invariant()
    def staff_never_act_as_the_owner(self) -> None:
        self.settle()
        phone = self.staff_phone()
        assert phone.call("GET", "/staff/api/owner")[1]["left_s"] == 0
        for method, path, body in OWNERS_ACTS:
            status, answer = phone.call(method, path, body)
            assert status == 403 and answer["owner"] == "needed", (path, status, answer)

    @invariant()
    def a_right_answer_from_a_known_device_is_never_refused(self) -> None:
        self.owner_logs_in()  # afresh, whatever its session: a flood spends only the budget of phones never seen
        self.acting_owner()  # its PIN and its passphrase, each refused neither for others' guesses nor a reset

    @invariant()
    def no_secret_page_answers_off_loopback_without_tls(self) -> None:
        self.settle()
        assert self.daemon is not None and self.daemon.companion is not None
        address, port = this_machines_address(), self.daemon.companion.port
        why = "answer this machine alone" if self.damaged else "over https only, never in clear"
        for path, body in zip(SECRET_PAGES, ({"pin": self.pin}, {"passphrase": self.passphrase},
                                             {"code": "12345678", "pin": self.pin})):
            status, _, said = plain(address, port, "POST", path, body)
            assert status == 403 and why in json.loads(said)["error"], (path, status, said)
        assert (self.daemon.fingerprint is None) == self.damaged
        assert (self.daemon.companion.staff_tls is None) == self.damaged

    @invariant()
    def a_reset_wipes_the_owners_part_and_its_notice_stands_until_acknowledged(self) -> None:
        owner = self.acting_owner()
        held = BROKER_SECRET.encode() in b"".join(download_backup(owner).values())
        assert held == self.secret_held, "the broker's password the reset wiped is handed over" if held else held
        notice = owner.call("GET", "/staff/api/owner/notice")[1]["notice"]
        assert self.daemon is not None
        warnings = self.daemon.answer({"command": "status"})["warnings"]
        if self.notice is None:
            assert notice is None and not any("passphrase was reset" in warning for warning in warnings)
        else:
            assert notice is not None and {"buttons": "the table's buttons", "recovery": "the recovery code"}[
                self.notice] in notice and notice in warnings, (self.notice, notice)

    @invariant()
    def the_recovery_code_is_kept_as_the_oracle_says(self) -> None:
        assert (self.folder / "journal/owner.recovery").exists() == (self.recovery is not None)
        assert self.owner.call("GET", "/staff/api/owner")[1]["recovery"] == (self.recovery is not None)

    def teardown(self) -> None:
        self.stop()


OwnerLifecycle.TestCase.settings = settings(settings.get_profile("lifecycles"), stateful_step_count=12, deadline=None,
                                            suppress_health_check=[HealthCheck.too_slow])
test_the_owners_ways_back_keep_their_promises_whatever_the_order = OwnerLifecycle.TestCase
