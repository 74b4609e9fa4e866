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
- the recovery code works exactly once: the one kept serves, a spent or replaced one never does.

Steps are rules and the table is handled in one place (``RestartedAsTheServiceIs``: ``start``,
``stop``, ``settle``, ``base``), so other ways back (a certificate damaged and mended, a hostile
backup restored, a flood) are added as rules beside these. One example builds a whole table: the
slow tier's.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from pi_table.web.roles import set_passphrase
from pi_table.web.staff import set_pin

from helpers import (
    BROKER_SECRET,
    FLEET,
    OWNER_PASSPHRASE,
    STAFF_CONFIG,
    STAFF_PIN,
    RestartedAsTheServiceIs,
    Staff,
    download_backup,
)

pytestmark = [pytest.mark.slow, pytest.mark.daemon]

PASSPHRASES = st.sampled_from(["the owner's second one", "a third owner's passphrase", OWNER_PASSPHRASE])
PINS = st.sampled_from(["593017", "204816", STAFF_PIN])
OWNERS_ACTS = [("GET", "/staff/api/backup", None), ("POST", "/staff/api/owner/recovery", {}),
               ("POST", "/staff/api/owner/notice", {}), ("GET", "/staff/api/backups", None)]


class OwnerLifecycle(RestartedAsTheServiceIs, RuleBasedStateMachine):
    """One table, the owner's phone (``owner``: it gave the passphrase before, a known device) and
    a staff phone that never did (``staff``); the oracle beside them."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="pi-table-owner-"))
        self.config = self.folder / "config.toml"
        self.config.write_text(STAFF_CONFIG + FLEET)
        set_pin(self.folder / "journal", STAFF_PIN)
        set_passphrase(self.folder / "journal", OWNER_PASSPHRASE)
        self.start()
        # the oracle: what the rules say holds now
        self.pin, self.passphrase = STAFF_PIN, OWNER_PASSPHRASE
        self.recovery: str | None = None  # the code the owner keeps; None: none made yet, or wiped
        self.spent: list[str] = []  # codes used or replaced: never again
        self.secret_held = True  # the settings hold the broker's password the owner set
        self.notice: str | None = None  # "buttons" or "recovery": the last reset, until acknowledged
        self.owner, self.staff = Staff(self.base), Staff(self.base)
        for phone in (self.owner, self.staff):
            assert phone.login(self.pin)[0] == 200
        self.owner.as_owner(self.passphrase)  # a known device to the owner's door from here on

    # -- the table, as the service runs it ----------------------------------------------------------

    def restarted(self) -> None:
        for phone in (self.owner, self.staff):
            phone.base = self.base

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
            status, answer = self.owner.login(self.pin)
            assert status == 200, f"the owner's phone was refused the PIN: {status} {answer}"
        self.owner.as_owner(self.passphrase)
        return self.owner

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

    @precondition(lambda self: self.spent)
    @rule(data=st.data())
    def spent_recovery_code_refused(self, data) -> None:
        code = data.draw(st.sampled_from(self.spent))
        phone = Staff(self.base)  # whoever found an old code: a phone the owner's door never saw
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
        assert status == 200 and answer["acknowledged"], answer
        self.notice = None

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
        self.acting_owner()  # its PIN and its passphrase, each refused neither for others' guesses nor a reset

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
