"""The standing adversary (issue 37): random sequences of what a guest on the café's Wi-Fi, the
staff, the owner and another table of the fleet may send, against a table started as the
service starts it, with the table's promises checked after every step:

- the loop plays (it answers within a second);
- the staff page answers a phone that logged in before (a flood of guesses never locks it out);
- no answer to a guest or the staff, the owner's backup included, holds the key of the game in play;
- the table starts again as the service starts it (``daemon.run.starting``, every check on),
  whenever a step asks it to restart, and at the end.

What it finds is shrunk by Hypothesis to the shortest sequence and printed; docs/dev/security.md
lists the boundaries it walks. One example builds a whole table: the slow tier's.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from pi_table.daemon import backup
from pi_table.fleet import schema
from pi_table.web.roles import set_passphrase
from pi_table.web.staff import set_pin

from helpers import wait_for
from helpers_staff import OWNER_PASSPHRASE, STAFF_CONFIG, STAFF_PIN, Staff
from helpers_tables import RestartedAsTheServiceIs

pytestmark = [pytest.mark.slow, pytest.mark.daemon]

GUEST_GETS = ["/", "/staff", "/staff/session", "/night", "/night/standings", "/api/state", "/api/events",
              "/staff/api/table", "/staff/api/backup", "/staff/api/log.txt", "/staff/words/en", "/../etc/passwd"]
GUEST_POSTS = ["/staff/login", "/staff/recover", "/night/join", "/staff/api/config", "/staff/api/update",
               "/staff/api/power", "/staff/api/restore"]
STAFF_ACTS = [("POST", "/staff/api/new-game", {"game": "codenames", "options": {}}), ("POST", "/staff/api/undo", {}),
              ("POST", "/staff/api/end-game", {}), ("GET", "/staff/api/history", None),
              ("GET", "/staff/api/table", None), ("GET", "/staff/api/night", None),
              ("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1", "2"]}),
              ("POST", "/staff/api/night/join", {"team": "Owls"}), ("POST", "/staff/api/night/propose", {}),
              ("POST", "/staff/api/night/confirm", {}), ("POST", "/staff/api/night/close", {}),
              ("POST", "/staff/api/night/confirm", {"over": True}), ("POST", "/staff/api/night/withdraw", {"team": "Owls"}),
              ("POST", "/staff/api/night/reinstate", {"team": "Owls"}),
              ("POST", "/staff/api/night/result", {"round": 1, "table": "1", "result": "void"}),
              ("POST", "/staff/api/night/leave", {}), ("GET", "/staff/api/update", None),
              ("POST", "/staff/api/power", {"act": "reboot"})]
SETTINGS = {"timer.length_s": st.integers(-5, 400), "game.language": st.sampled_from(["en", "it", "de"]),
            "leds.brightness": st.floats(-1, 2, allow_nan=False), "web.host": st.sampled_from(["127.0.0.1", "::1"]),
            "paths.journal_dir": st.sampled_from(["/", "/tmp", "journal"]), "fleet.cafe_tables": st.just(["2"]),
            "game.hold_s": st.floats(0, 2, allow_nan=False)}
PEER_PLANS = st.fixed_dictionaries({
    "night": st.sampled_from(["20261126-020000", "99991231-235959", "x"]), "name": st.text(max_size=30),
    "games": st.just(["codenames"]), "tables": st.lists(st.sampled_from(["1", "2", "3"]), max_size=3, unique=True),
    "opened": st.floats(0, 4e9, allow_nan=False), "closed": st.none(), "seq": st.integers(0, 10**6),
    "teams": st.just([]), "rounds": st.just([]), "proof": st.text(max_size=80)})


def raw(base: str, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, bytes]:
    """A request as a guest sends it: no cookie, whatever it likes as the body."""
    host, _, port = base.removeprefix("http://").partition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(method, path, body=body or None, headers=headers or {})
        answer = connection.getresponse()
        if answer.getheader("Content-Type", "").startswith("text/event-stream"):
            return answer.status, answer.read1(4096)  # a stream never ends: its first bytes
        return answer.status, answer.read()
    finally:
        connection.close()


class Adversary(RestartedAsTheServiceIs, RuleBasedStateMachine):
    """One table under attack from every side, as the service runs it."""

    def __init__(self) -> None:
        super().__init__()
        import tempfile

        self.folder = Path(tempfile.mkdtemp(prefix="pi-table-adversary-"))
        self.config = self.folder / "config.toml"
        self.config.write_text(STAFF_CONFIG + '[fleet]\ntable_id = "1"\n')
        set_pin(self.folder / "journal", STAFF_PIN)
        set_passphrase(self.folder / "journal", OWNER_PASSPHRASE)
        self.daemon = None
        self.start()
        self.known = Staff(self.base)  # the staff phone that logged in before all this
        assert self.known.login()[0] == 200

    # -- the table as the service runs it -----------------------------------------------------------

    def restarted_if_asked(self, answer: object) -> None:
        """A step that made the table restart (a change, a restore): it stops, and systemd starts
        it again as the service starts."""
        assert self.daemon is not None
        if isinstance(answer, dict) and answer.get("restarting"):
            self.runner.join(timeout=15)
            assert self.daemon.restarting and not self.runner.is_alive(), "a restart the page announced never came"
        self.settle()

    def restarted(self) -> None:
        assert self.daemon is not None and self.daemon.companion is not None  # the adversary never turns the pages off
        self.known.base = self.base

    def key(self) -> str:
        assert self.daemon is not None
        return str(self.daemon.session.grid.key)

    def seen(self, body: bytes | str) -> None:
        """An answer someone other than the spymasters sees: never the key of the game in play."""
        text = body if isinstance(body, str) else body.decode("utf-8", "replace")
        assert self.key() not in text, "an answer held the key of the game in play"

    # -- a guest on the café's Wi-Fi ----------------------------------------------------------------

    @rule(path=st.sampled_from(GUEST_GETS))
    def guest_looks(self, path: str) -> None:
        _, body = raw(self.base, "GET", path)
        self.seen(body)

    @rule(path=st.sampled_from(GUEST_POSTS), body=st.one_of(
        st.binary(max_size=300), st.dictionaries(st.sampled_from(["pin", "code", "team", "changes", "act", "from"]),
                                                  st.one_of(st.text(max_size=40), st.integers(), st.none()),
                                                  max_size=3).map(lambda d: json.dumps(d).encode())))
    def guest_sends(self, path: str, body: bytes) -> None:
        status, answer = raw(self.base, "POST", path, body, {"Content-Type": "application/json"})
        assert status != 500, (path, answer[:200])
        self.seen(answer)

    @rule(guesses=st.integers(1, 25))
    def guest_guesses_the_pin(self, guesses: int) -> None:
        for number in range(guesses):
            status, answer = raw(self.base, "POST", "/staff/login", json.dumps({"pin": f"{number:06d}x"}).encode(),
                                 {"Content-Type": "application/json"})
            assert status in (401, 429), answer[:200]

    # -- the staff and the owner --------------------------------------------------------------------

    @rule(act=st.sampled_from(STAFF_ACTS))
    def staff_act(self, act: tuple[str, str, dict | None]) -> None:
        method, path, body = act
        status, answer = self.known.call(method, path, body)
        assert status < 500 or status == 503, (path, status, answer)
        self.seen(json.dumps(answer) if not isinstance(answer, str) else answer)
        self.restarted_if_asked(answer)

    @rule(key=st.sampled_from(sorted(SETTINGS)), data=st.data())
    def staff_changes_a_setting(self, key: str, data) -> None:
        value = data.draw(SETTINGS[key])
        status, answer = self.known.call("POST", "/staff/api/config", {"changes": {key: value}})
        assert status in (200, 400, 403, 409), (key, value, status, answer)
        self.restarted_if_asked(answer)

    @rule()
    def owner_downloads_a_backup(self) -> None:
        """The owner's backup: never the key of the game in play, nor the phones' secret."""
        self.known.as_owner()
        request_headers = {"X-Staff-Token": self.known.csrf or "",
                           "Cookie": "; ".join(f"{c.name}={c.value}" for c in self.known.cookies)}
        status, data = raw(self.base, "GET", "/staff/api/backup", headers=request_headers)
        if status != 200:
            return
        _, files = backup.read(data)
        secret = (self.folder / "journal/companion.secret").read_bytes()
        assert not any(self.key().encode() in content or secret in content for content in files.values())

    @rule(data=st.binary(max_size=2000))
    def owner_restores_something(self, data: bytes) -> None:
        self.known.as_owner()
        request_headers = {"X-Staff-Token": self.known.csrf or "", "Content-Type": "application/gzip",
                           "Cookie": "; ".join(f"{c.name}={c.value}" for c in self.known.cookies)}
        status, answer = raw(self.base, "POST", "/staff/api/restore", data, request_headers)
        assert status in (400, 413), answer[:200]

    # -- another table of the fleet -----------------------------------------------------------------

    @rule(host=st.sampled_from(["2", "3", "1"]), plan=PEER_PLANS)
    def peer_offers_a_night(self, host: str, plan: dict) -> None:
        """What the fleet's reporter hands on from the broker: the schema's reading of another
        table's plan, then the table's part in the night (``Reporter._heard``)."""
        assert self.daemon is not None and self.daemon.night is not None
        try:
            read = schema.parse("plan", json.dumps(plan).encode())
        except schema.Refused:
            return
        if host != "1":
            self.daemon.night.follow(host, read)  # type: ignore[arg-type]  # a Record: a dict

    # -- the promises ------------------------------------------------------------------------------

    @invariant()
    def the_loop_plays(self) -> None:
        self.settle()
        assert self.daemon is not None
        answer = self.daemon.answer({"command": "status"})
        assert answer["ok"], answer

    @invariant()
    def the_staff_page_answers_a_phone_that_logged_in_before(self) -> None:
        self.settle()
        status, _ = self.known.call("GET", "/staff/api/table")
        if status == 401:  # its session ended (a PIN change, a restart's new secret): it logs in again
            status, answer = self.known.login()
            assert status == 200, f"a known phone was refused: {status} {answer}"
            status, _ = self.known.call("GET", "/staff/api/table")
        assert status == 200

    def teardown(self) -> None:
        """And after it all, the table starts again as the service starts it."""
        try:
            self.stop()
            self.start()
            wait_for(lambda: self.daemon is not None and self.daemon.answer({"command": "status"})["ok"],
                     "the table's status after a start as the service's")
        finally:
            self.stop()


Adversary.TestCase.settings = settings(settings.get_profile("adversaries"), stateful_step_count=25, deadline=None,
                                       suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
test_the_table_keeps_its_promises_whatever_guests_staff_and_other_tables_send = Adversary.TestCase
