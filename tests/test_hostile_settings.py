"""Every setting, set to what a hostile staff phone or a forged backup would give it (issue 48): on
a table run as the service runs it, each value is set through the staff page (as the owner, who
may set every key) or through a restored backup, and after each the promises hold: no file
outside the table's own folders was created, changed or emptied; no connection left for a host
but the configured broker; the table still answers; the owner's passphrase still works.

A standing property test of the slow tier: Hypothesis picks the keys (every one of the schema's)
and the values (pyserial's URLs of every scheme, ``file:``, ``../``, paths outside the table's
folders, words beginning with ``-``, NUL, 64 KB, another host, look-alike letters, numbers and
lists of the wrong kind)."""

from __future__ import annotations

import hashlib
import json
import socket
import tempfile
import time
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from pi_table.config.schema import OPTIONS
from pi_table.daemon import backup
from pi_table.web.roles import set_passphrase
from pi_table.web.staff import set_pin

from helpers_staff import OWNER_PASSPHRASE, STAFF_CONFIG, STAFF_PIN, Staff
from helpers_tables import RestartedAsTheServiceIs

pytestmark = [pytest.mark.slow, pytest.mark.daemon]


def listening() -> socket.socket:
    """A host of the attacker's on this machine: it counts the connections it is asked for."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.setblocking(False)
    return server


def connections(server: socket.socket) -> int:
    taken = 0
    while True:
        try:
            server.accept()[0].close()
            taken += 1
        except BlockingIOError:
            return taken


def hostile(outside: Path, host: int, broker: int) -> st.SearchStrategy:
    """What a hostile phone or backup gives a setting: text that names a file outside the table's
    folders (``outside``), a host of the attacker's (port ``host``), a broker of its own (port
    ``broker``, the one host the table may dial once it is configured), and values of every kind."""
    words = [f"spy:///dev/no-such-port?file={outside}/spied", f"spy://socket://127.0.0.1:{host}?file={outside}/v",
             f"socket://127.0.0.1:{host}", f"rfc2217://127.0.0.1:{host}", "loop://", "hwgrep://2E8A",
             f"alt://{outside}/victim", "cp2110://0001:0004:00", f"file://{outside}/victim", f"{outside}/victim",
             f"{outside}/made", "../outside/victim", "../../../../etc/passwd", "/etc/passwd", "/dev/zero",
             "/proc/self/environ", "-oProxyCommand=x", "--help", "-", "a\0b", "x" * 65536, f"http://127.0.0.1:{host}/",
             f"https://127.0.0.1:{host}", f"mqtt://t1@127.0.0.1:{broker}", f"mqtts://127.0.0.1:{broker}",
             "/d\u0435v/ttyACM0", "/dev/ttyACM0", "127.0.0.1", "0.0.0.0", "table.local", "auto", "en", "it", ""]
    return st.one_of(st.sampled_from(words), st.text(max_size=40), st.integers(-2**31, 2**31),
                     st.floats(allow_nan=True), st.booleans(), st.lists(st.sampled_from(words[:6]), max_size=3),
                     st.lists(st.integers(-5, 70), max_size=26))


class HostileSettings(RestartedAsTheServiceIs, RuleBasedStateMachine):
    """One table, the owner's phone, and hostile values for every key."""

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="pi-table-hostile-"))
        self.folder, self.outside = self.root / "table", self.root / "outside"
        for folder in (self.folder, self.outside):
            folder.mkdir()
        (self.outside / "victim").write_text("the café's own file\n")
        self.config = self.folder / "config.toml"
        self.config.write_text(STAFF_CONFIG + '[fleet]\ntable_id = "1"\n')
        set_pin(self.folder / "journal", STAFF_PIN)
        set_passphrase(self.folder / "journal", OWNER_PASSPHRASE)
        self.host, self.broker = listening(), listening()
        self.owned: set[Path] = set()  # the folders and socket the owner made the table's, as they were kept
        self.before = self.outside_now()
        self.daemon = None
        self.start()
        self.owner = Staff(self.base)
        assert self.owner.login()[0] == 200
        self.owner.as_owner()

    def outside_now(self) -> dict[str, str]:
        """Every file outside the table's own folders that a setting could name, by its hash: the
        journal folder or control socket the owner moved there are the table's own (``owned``)."""
        return {str(path.relative_to(self.root)): hashlib.sha256(path.read_bytes()).hexdigest()
                for path in sorted(self.outside.rglob("*")) if (path.is_file() or path.is_socket())
                and not any(path == owned or owned in path.parents for owned in self.owned)}

    def restarted(self) -> None:
        self.owner.base = self.base

    def looked_at(self, config) -> None:
        self.owned |= {config.paths.journal_dir, config.paths.socket}

    def as_owner(self) -> None:
        status, _ = self.owner.call("GET", "/staff/api/owner")
        if status == 401:
            assert self.owner.login()[0] == 200
        self.owner.as_owner()

    @rule(key=st.sampled_from([option.key for option in OPTIONS]), data=st.data())
    def the_owners_phone_sets_a_hostile_value(self, key: str, data) -> None:
        value = data.draw(hostile(self.outside, self.host.getsockname()[1], self.broker.getsockname()[1]))
        self.as_owner()
        status, answer = self.owner.call("POST", "/staff/api/config", {"changes": {key: value}})
        assert status in (200, 400, 413), (key, value, status, answer)  # 413: a body past the page's 64 KB
        assert "the café's own file" not in json.dumps(answer)
        self.settle()

    @rule(key=st.sampled_from([option.key for option in OPTIONS]), data=st.data())
    def a_restored_backup_holds_a_hostile_value(self, key: str, data) -> None:
        value = data.draw(hostile(self.outside, self.host.getsockname()[1], self.broker.getsockname()[1]))
        self.as_owner()
        headers = {"X-Staff-Token": self.owner.csrf or "",
                   "Cookie": "; ".join(f"{c.name}={c.value}" for c in self.owner.cookies)}
        import urllib.request

        with self.owner.opener.open(urllib.request.Request(f"{self.base}/staff/api/backup", headers=headers)) as got:
            manifest, files = backup.read(got.read())
        section, name = key.split(".")
        document = tomlkit.parse(files[backup.CONFIG].decode())
        document.setdefault(section, tomlkit.table())[name] = value
        files[backup.CONFIG] = tomlkit.dumps(document).encode()
        forged = backup._packed(manifest, files, time.time())
        status, answer = self.owner.call_bytes("POST", "/staff/api/restore", forged, "application/gzip")
        assert status in (200, 400), (key, value, status, answer)
        self.settle()

    @invariant()
    def nothing_outside_the_tables_folders_changed(self) -> None:
        assert self.outside_now() == self.before

    @invariant()
    def no_host_was_dialled_but_the_configured_broker(self) -> None:
        assert connections(self.host) == 0
        connections(self.broker)  # the broker the owner configured may be dialled: it is let in and closed

    @invariant()
    def the_table_answers_and_the_passphrase_is_still_the_owners(self) -> None:
        self.settle()
        assert self.daemon is not None and self.daemon.answer({"command": "status"})["ok"]
        self.as_owner()

    def teardown(self) -> None:
        try:
            self.stop()
        finally:
            self.host.close()
            self.broker.close()


HostileSettings.TestCase.settings = settings(settings.get_profile("adversaries"), stateful_step_count=12,
                                             deadline=None, suppress_health_check=list(HealthCheck))
test_no_hostile_value_of_any_setting_reaches_a_file_a_host_or_the_owners_role = HostileSettings.TestCase
