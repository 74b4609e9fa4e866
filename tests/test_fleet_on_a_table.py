"""The fleet dashboard on one of the café's tables (issue 50, 3): the owner starts it from that
table's staff page, with no other machine: the dashboard's broker user and its password are
given there (the password kept as the owner's other files are), the table restarts on it as a
trial, and then serves the dashboard itself beside its pages, its login the owner's passphrase
(over the table's own https where its pages have it). A real Mosquitto of the test's own plays
the café's broker."""

from __future__ import annotations

import http.client
import json
import os
import stat
import tomllib
from pathlib import Path
from urllib.parse import urlencode

import pytest

from pi_table.fleet.broker import free_port

from helpers import wait_for
from helpers_games import dealt_key
from helpers_staff import OWNER_PASSPHRASE, STAFF_PIN, Staff
from helpers_tables import InProcessDaemon, StaffTable

pytestmark = pytest.mark.daemon


def dashboard_call(port: int, method: str, path: str, body: str | None = None, cookie: str = ""):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
    connection.request(method, path, body=body, headers={**headers, **({"Cookie": cookie} if cookie else {})})
    response = connection.getresponse()
    return response, response.read().decode()


def test_the_owner_starts_the_fleet_dashboard_on_this_table_from_its_staff_page(tmp_path, broker):
    (tmp_path / "table").mkdir()
    port = free_port()
    extra = f'[fleet]\nbroker = "{broker.url}"\ntable_id = "bar-1"\npassword_in_clear = true\n'
    table = StaffTable(tmp_path / "table", dealt_key(), extra=extra)
    config = table.config
    try:
        staff = Staff(table.base)
        staff.login()
        given = {"port": port, "user": "dashboard", "password": "broker-secret-1"}
        status, answer = staff.call("POST", "/staff/api/files/dashboard", given)
        assert status == 403 and answer["owner"] == "needed"
        staff.as_owner()
        status, answer = staff.call("POST", "/staff/api/files/dashboard", {**given, "port": 80})
        assert status == 400 and "dashboard_port is 1024 to 65535" in answer["error"]
        status, answer = staff.call("POST", "/staff/api/files/dashboard", given)
        assert (status, answer["restarting"]) == (200, True)
        fleet = tomllib.loads(config.read_text())["fleet"]
        assert (fleet["dashboard_port"], fleet["dashboard_user"]) == (port, "dashboard")
        kept = fleet["dashboard_password_file"]
        assert Path(kept).read_text() == "broker-secret-1\n" and stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    finally:
        table.close()
    restarted = InProcessDaemon(config)  # as the service starts again on the settings
    try:
        staff = Staff(restarted.daemon.companion.base_url)
        staff.login()
        staff.as_owner()
        status, files = staff.call("GET", "/staff/api/files")
        assert files["dashboard"] == {"port": port, "user": "dashboard", "password_set": True}
        assert "broker-secret-1" not in json.dumps(files)
        wait_for(lambda: _answers(port), "the dashboard on the table", 10)
        response, _ = dashboard_call(port, "POST", "/login", urlencode({"password": STAFF_PIN}))
        assert response.status == 401  # the staff PIN is not the way in: the owner's passphrase is
        response, _ = dashboard_call(port, "POST", "/login", urlencode({"password": OWNER_PASSPHRASE}))
        assert response.status == 303
        session = response.getheader("Set-Cookie").split(";", 1)[0]

        def listed() -> bool:
            return [row["table_id"] for row in json.loads(dashboard_call(port, "GET", "/api/tables",
                                                                         cookie=session)[1])] == ["bar-1"]

        wait_for(listed, "the table itself on its own dashboard", 15)

        # issue 58, 5c: one budget for every door to the owner's passphrase, the staff page's and this one
        base = restarted.daemon.companion.base_url
        guessed = []
        for n in range(4):  # staff from four addresses guess the passphrase on the staff page, five times each
            address = f"127.0.0.{40 + n}"
            login, body = ask_from(base, address, "POST", "/staff/login", {"pin": STAFF_PIN})
            staff_session = {"X-Staff-Token": json.loads(body)["csrf"], "Cookie": "; ".join(
                cookie.split(";")[0] for cookie in login.headers.get_all("Set-Cookie"))}
            guessed += [ask_from(base, address, "POST", "/staff/api/owner", {"passphrase": "a guess, wrong"},
                                 staff_session)[0].status for _ in range(5)]
        assert guessed == [403] * (20 - 3) + [429] * 3  # the owner stepping up and the two dashboard logins above: one budget
        response, _ = dashboard_call(port, "POST", "/login", urlencode({"password": OWNER_PASSPHRASE}))
        assert response.status == 429  # a browser never seen here: the budget the staff page's guesses spent
        response, _ = dashboard_call(port, "GET", "/", cookie=session)
        assert response.status == 200  # the owner's session is not touched
    finally:
        restarted.close()
    assert not _answers(port)  # the table's stop stops its dashboard


def ask_from(base: str, address: str, method: str, path: str, body: dict, headers: dict | None = None):
    """A request to the staff page from ``address`` (one of loopback's), its answer."""
    host, port = base.split("//", 1)[1].rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(address, 0))
    connection.request(method, path, body=json.dumps(body), headers={"Content-Type": "application/json",
                                                                     **(headers or {})})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


def _answers(port: int) -> bool:
    try:
        return dashboard_call(port, "GET", "/login")[0].status == 200
    except OSError:
        return False
