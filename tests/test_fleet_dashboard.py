"""The fleet's dashboard: what it makes of the tables' messages, its login, its live page in
Chromium, the day's CSV. Run as a script (``python tests/test_fleet_dashboard.py``) it writes
docs/screenshots/fleet-en.png and fleet-it.png from a broker and tables of its own.
"""

from __future__ import annotations

import csv
import datetime as dt
import http.client
import io
import json
import os
import stat
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from pi_table.config import broker as broker_config
from pi_table.fleet.dashboard import (
    Dashboard,
    Fleet,
    activity,
    hash_password,
    read_password_file,
    write_password_file,
)
from pi_table.fleet.reporter import Reporter
from pi_table.web.staff import pin_matches

from helpers import wait_for

PASSWORD = "café-tables-2026"
SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
NOON = dt.datetime.combine(dt.date.today(), dt.time(12)).timestamp()


def table_status(game_id="g1", board="?" * 25, over=False, health=None, winner=None) -> dict:
    """A status as a table's reporter publishes it."""
    return {"version": "0.1.0", "game_id": game_id, "game": "codenames", "over": over, "began": NOON, "at": NOON,
            "state": {"game": "codenames", "board": board, "phase": "clue", "clue": None, "winner": winner, "losers": []},
            "health": health or {"touch": "ok", "leds": "ok"}, "warnings": [], "uptime_s": 10.0, "events_dropped": 0}


def message(value) -> bytes:
    return json.dumps(value).encode()


def test_the_fleet_keeps_each_tables_row_from_its_messages():
    clock = [NOON]
    fleet = Fleet(clock=lambda: clock[0])
    changed = []
    fleet.changed = changed.append
    assert fleet.take("pi-table/bar/online", b"true")["online"] is True
    row = fleet.take("pi-table/bar/status", message(table_status()))
    assert row["activity"] == "idle" and row["game"] == "codenames" and row["faults"] == []
    row = fleet.take("pi-table/bar/status", message(table_status(board="R" + "?" * 24)))
    assert row["activity"] == "playing"
    broken = table_status(board="R" + "?" * 24, health={"touch": "not working: unplugged", "leds": "ok"})
    assert fleet.take("pi-table/bar/status", message(broken))["faults"] == ["touch: not working: unplugged"]
    italian = Fleet(lang="it")  # the page's language says the table's health
    assert italian.take("pi-table/bar/status", message(broken))["faults"] == ["touch: non funziona: unplugged"]
    over = {"event": "game_over", "table_id": "bar", "game_id": "g1", "game": "codenames", "winner": "red",
            "duration_s": 600.0, "at": NOON + 60, "reason": "all agents found"}
    fleet.take("pi-table/bar/events", message(over))
    row = fleet.take("pi-table/bar/events", message(over))  # QoS 1 may deliver twice: counted once
    assert (row["games_today"], row["average_s"]) == (1, 600.0)
    yesterday = {**over, "game_id": "g0", "at": NOON - 86400}
    assert fleet.take("pi-table/bar/events", message(yesterday))["games_today"] == 1
    fleet.take("pi-table/bar/events", message({"event": "error", "error": "a command is a JSON object"}))
    assert fleet.take("pi-table/bar/online", b"false")["errors"] == ["a command is a JSON object"]
    assert fleet.take("pi-table/bar/status", b"{broken") is None  # skipped, logged
    assert fleet.take("pi-table/bar/status", b"[" * 100_000) is None  # nested past the parser: skipped too
    assert fleet.take("elsewhere/bar/status", message(table_status())) is None
    assert [row["table_id"] for row in fleet.rows()] == ["bar"] and len(changed) == 9
    lines = list(csv.reader(io.StringIO(fleet.csv())))
    assert lines[0] == ["table_id", "game_id", "game", "ended", "duration_s", "winner", "reason"]
    assert lines[1:] == [["bar", "g1", "codenames", dt.datetime.fromtimestamp(NOON + 60).isoformat(timespec="seconds"),
                          "600.0", "red", "all agents found"]]
    clock[0] += 86400  # the next day: yesterday's games leave the count at the next event
    assert fleet.take("pi-table/bar/events", message({"event": "fault", "device": "touch"}))["games_today"] == 0


def local(day: dt.date, hour: int, minute: int = 0) -> float:
    return dt.datetime.combine(day, dt.time(hour, minute)).timestamp()


def test_games_today_roll_over_at_local_midnight_with_no_message_in_between():
    """A game at 23:00 counts today; at 00:05 it no longer does, on the page and in the CSV
    of the day, though no table has said a word since."""
    today = dt.date.today()
    clock = [local(today, 23)]
    fleet = Fleet(clock=lambda: clock[0])
    late = {"event": "game_over", "table_id": "bar", "game_id": "late", "game": "codenames", "winner": "red",
            "duration_s": 900.0, "at": local(today, 23), "reason": "all agents found"}
    assert fleet.take("pi-table/bar/events", message(late))["games_today"] == 1
    assert len(list(csv.reader(io.StringIO(fleet.csv())))) == 2
    clock[0] = local(today + dt.timedelta(days=1), 0, 5)
    row = fleet.rows()[0]
    assert (row["games_today"], row["average_s"], row["lengths_s"]) == (0, None, [])
    assert list(csv.reader(io.StringIO(fleet.csv())))[1:] == []
    early = {**late, "game_id": "early", "at": local(today + dt.timedelta(days=1), 0, 4)}
    assert fleet.take("pi-table/bar/events", message(early))["games_today"] == 1
    assert [line[1] for line in csv.reader(io.StringIO(fleet.csv()))][1:] == ["early"]


def test_the_page_and_its_export_roll_over_at_midnight(broker):
    """The dashboard on a clock of the test's: the export is named after the clock's day and
    holds its games; the live page is sent each row again when the day turns."""
    today = dt.date.today()
    clock = [local(today, 23, 59)]
    dashboard = Dashboard(broker_config(broker.url), "127.0.0.1", 0, hash_password(PASSWORD), client_id="test-midnight",
                          clock=lambda: clock[0])
    dashboard.roll_check_s = 0.05
    dashboard.start()
    try:
        dashboard.fleet.take("pi-table/bar/events", message(
            {"event": "game_over", "table_id": "bar", "game_id": "late", "game": "codenames", "at": clock[0]}))
        session = login(dashboard).split(";", 1)[0]
        response, body = request(dashboard, "GET", "/export.csv", headers={"Cookie": session})
        assert f"pi-table-fleet-{today.isoformat()}.csv" in response.getheader("Content-Disposition")
        assert len(body.splitlines()) == 2
        connection = http.client.HTTPConnection("127.0.0.1", dashboard.port, timeout=10)
        connection.request("GET", "/events", headers={"Cookie": session})
        stream = connection.getresponse()
        assert json.loads(stream.readline().removeprefix(b"data: "))["games_today"] == 1
        stream.readline()
        clock[0] = local(today + dt.timedelta(days=1), 0, 1)
        assert json.loads(stream.readline().removeprefix(b"data: "))["games_today"] == 0  # sent again, unasked
        connection.close()
        response, body = request(dashboard, "GET", "/export.csv", headers={"Cookie": session})
        tomorrow = (today + dt.timedelta(days=1)).isoformat()
        assert f"pi-table-fleet-{tomorrow}.csv" in response.getheader("Content-Disposition")
        assert len(body.splitlines()) == 1
    finally:
        dashboard.stop()


def test_activity_says_in_a_game_idle_or_over():
    assert activity({}) == "idle"
    assert activity(table_status()) == "idle"
    assert activity(table_status(board="?B" + "?" * 23)) == "playing"
    assert activity(table_status(over=True, winner="blue")) == "over"


def test_the_password_is_kept_as_a_slow_salted_hash(tmp_path):
    stored = hash_password(PASSWORD)
    assert stored.startswith("scrypt$16384$8$1$") and PASSWORD not in stored
    assert hash_password(PASSWORD) != stored  # a salt of its own each time
    assert pin_matches(stored, PASSWORD) and not pin_matches(stored, "cafe-tables-2026")
    assert not pin_matches("scrypt$garbage", PASSWORD)
    with pytest.raises(ValueError, match="choose one of at least 8"):
        hash_password("1234")
    path = tmp_path / "fleet.password"
    with pytest.raises(ValueError, match=f"make it with pi-table fleet --set-password --password-file {path}"):
        read_password_file(path)
    write_password_file(path, PASSWORD)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert pin_matches(read_password_file(path), PASSWORD)
    path.write_text("hunter2\n")
    with pytest.raises(ValueError, match="holds no password hash"):
        read_password_file(path)


def fleet_command(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pi_table", "fleet", *args], input=stdin, capture_output=True,
                          text=True, timeout=30)


def test_the_command_line_sets_the_password_and_refuses_what_cannot_work(tmp_path):
    path = tmp_path / "config" / "fleet.password"
    done = fleet_command("--set-password", "--password-file", str(path), stdin=PASSWORD + "\n")
    assert done.returncode == 0 and str(path) in done.stdout, done.stderr
    assert pin_matches(read_password_file(path), PASSWORD)
    short = fleet_command("--set-password", "--password-file", str(path), stdin="1234\n")
    assert short.returncode == 2 and "choose one of at least 8" in short.stderr
    assert pin_matches(read_password_file(path), PASSWORD)  # the one before is kept
    no_broker = fleet_command("--password-file", str(path))
    assert no_broker.returncode == 2 and "--broker is needed" in no_broker.stderr
    wrong = fleet_command("--broker", "http://cafe", "--password-file", str(path))
    assert wrong.returncode == 2 and "broker is a URL mqtt://" in wrong.stderr
    missing = fleet_command("--broker", "mqtt://cafe", "--password-file", str(tmp_path / "none"))
    assert missing.returncode == 2 and "pi-table fleet --set-password --password-file" in missing.stderr


def request(dashboard: Dashboard, method: str, path: str, body: str | None = None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", dashboard.port, timeout=10)
    sent = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
    connection.request(method, path, body=body, headers={**sent, **(headers or {})})
    response = connection.getresponse()
    return response, response.read().decode()


@pytest.fixture
def dashboard(broker):
    dashboard = Dashboard(broker_config(broker.url), "127.0.0.1", 0, hash_password(PASSWORD), client_id="test-dashboard")
    dashboard.start()
    wait_for(dashboard.connected.is_set, "the dashboard's subscription", 10)
    yield dashboard
    dashboard.stop()


def login(dashboard: Dashboard) -> str:
    response, _ = request(dashboard, "POST", "/login", urlencode({"password": PASSWORD}))
    assert response.status == 303, response.status
    return response.getheader("Set-Cookie")


def test_nothing_is_shown_without_a_login_and_the_login_is_guarded(dashboard):
    for path in ("/api/tables", "/events", "/export.csv"):
        assert request(dashboard, "GET", path)[0].status == 401, path
    response, _ = request(dashboard, "GET", "/")
    assert response.status == 303 and response.getheader("Location") == "/login"
    cookie = login(dashboard)
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    session = cookie.split(";", 1)[0]
    response, body = request(dashboard, "GET", "/api/tables", headers={"Cookie": session})
    assert response.status == 200 and json.loads(body) == []
    assert request(dashboard, "GET", "/api/tables", headers={"Cookie": "pi_table_fleet=forged"})[0].status == 401
    response, _ = request(dashboard, "POST", "/login", urlencode({"password": PASSWORD}),
                          {"Origin": "http://elsewhere.example"})
    assert response.status == 403
    response, _ = request(dashboard, "POST", "/login", "password=caf\xe9")  # Latin-1, not a browser's form
    assert response.status == 400
    for _ in range(5):
        response, body = request(dashboard, "POST", "/login", "password=guess")
        assert response.status == 401 and "Wrong password." in body
    response, body = request(dashboard, "POST", "/login", urlencode({"password": PASSWORD}))  # even the right one
    assert response.status == 429 and "Too many tries" in body
    response, _ = request(dashboard, "POST", "/logout", "", {"Cookie": session})
    assert response.status == 303
    assert request(dashboard, "GET", "/api/tables", headers={"Cookie": session})[0].status == 401


FLOOD = """
import http.client, json, sys, threading
port, addresses, each = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
answers = {}
lock = threading.Lock()
def guess(address):
    for _ in range(each):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(address, 0))
        connection.request("POST", "/login", body="password=guess",
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        status = connection.getresponse().status
        connection.close()
        with lock:
            answers[status] = answers.get(status, 0) + 1
threads = [threading.Thread(target=guess, args=(f"127.0.1.{n + 1}",)) for n in range(addresses)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(json.dumps(answers))
"""


def timed_get(dashboard: Dashboard, path: str, headers=None) -> float:
    started = time.perf_counter()
    response, _ = request(dashboard, "GET", path, headers=headers)
    assert response.status == 200, (path, response.status)
    return time.perf_counter() - started


def test_a_flood_of_wrong_logins_does_not_stall_the_page(dashboard):
    """300 wrong logins from 60 addresses at once (another process, as the attackers are):
    the scrypt checks run off the page's event loop, a few at a time, and the rest are told
    to wait (429) at once; the page's other requests keep their pace (measured against the
    same requests just before, in this run), and the right password gets in after it."""
    session = login(dashboard).split(";", 1)[0]
    before = [timed_get(dashboard, path, {"Cookie": session}) for _ in range(15) for path in ("/login", "/api/tables")]
    flood = subprocess.Popen([sys.executable, "-c", FLOOD, str(dashboard.port), "60", "5"], stdout=subprocess.PIPE,
                             text=True)
    during: list[float] = []
    try:
        time.sleep(0.2)  # the flood under way
        while flood.poll() is None and len(during) < 400:
            during.extend(timed_get(dashboard, path, {"Cookie": session}) for path in ("/login", "/api/tables"))
    finally:
        output, _ = flood.communicate(timeout=120)
    answers = {int(status): count for status, count in json.loads(output).items()}
    usual, flooded = statistics.mean(before), statistics.mean(during)  # a stall is a few long waits: the mean shows them
    print(f"mean GET {usual * 1e3:.2f} ms before, {flooded * 1e3:.2f} ms during the flood ({len(during)} requests, "
          f"slowest {max(during) * 1e3:.1f} ms); "
          f"the flood's answers: {answers}")
    assert set(answers) <= {401, 429} and sum(answers.values()) == 300
    assert len(during) >= 10, "the flood ended before the page was measured under it"
    assert flooded < 30 * usual + 0.01, f"the page slowed from {usual * 1e3:.2f} ms to {flooded * 1e3:.2f} ms"
    response, _ = request(dashboard, "POST", "/login", urlencode({"password": PASSWORD}))
    assert response.status == 303  # the flood leaves no lock on an address that did not take part


def reporter(broker, table_id: str) -> Reporter:
    made = Reporter(broker_config(broker.url, table_id=table_id), act=lambda request: {"ok": True}, heartbeat_s=3600)
    made.start()
    wait_for(made.connected.is_set, f"{table_id} connected", 10)
    return made


def test_the_page_lists_every_table_live_and_exports_the_day(dashboard, broker, browser):
    tables = {name: reporter(broker, name) for name in ("bar-1", "bar-2", "terrace")}
    try:
        tables["bar-1"].offer(table_status())
        tables["bar-2"].offer(table_status(board="RB" + "?" * 23))
        tables["terrace"].offer(table_status())
        page = browser.new_page()
        page.goto(f"{dashboard.url}/")
        assert page.url.endswith("/login")
        page.fill("input[name=password]", PASSWORD)
        page.click("button")
        page.wait_for_selector("#rows tr:nth-child(3)", timeout=10_000)
        assert page.inner_text("#count") == "3 of 3 tables online"
        assert "in a game" in page.inner_text("#rows tr:nth-child(2)")
        tables["bar-1"].offer(table_status(board="?" * 24 + "A", over=True, winner="blue"))  # game over: an event too
        page.wait_for_function("document.querySelector('#rows tr:nth-child(1)').innerText.includes('game over')",
                               timeout=10_000)
        tables["terrace"].stop()  # its online turns false
        page.wait_for_function("document.getElementById('count').innerText.startsWith('2 of 3')", timeout=10_000)
        assert "offline" in page.inner_text("#rows tr:nth-child(3)")
        cookie = {c["name"]: c["value"] for c in page.context.cookies()}
        response, body = request(dashboard, "GET", "/export.csv", headers={"Cookie": f"pi_table_fleet={cookie['pi_table_fleet']}"})
        assert response.status == 200 and response.getheader("Content-Type").startswith("text/csv")
        lines = list(csv.reader(io.StringIO(body)))
        assert [(line[0], line[5]) for line in lines[1:]] == [("bar-1", "blue")]
        page.close()
    finally:
        for table in tables.values():
            table.stop()


def write_screenshots(folder: Path = SCREENSHOTS) -> list[Path]:
    """docs/screenshots/fleet-LANG.png: a café's four tables, one of them with a fault, one away."""
    from playwright.sync_api import sync_playwright

    from pi_table.fleet.broker import LocalBroker

    from helpers import CHROMIUM, CHROMIUM_ARGS

    written = []
    with tempfile.TemporaryDirectory() as name, sync_playwright() as playwright:
        broker = LocalBroker(Path(name) / "broker")
        broker.start()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        dashboards = {lang: Dashboard(broker_config(broker.url), "127.0.0.1", 0, hash_password(PASSWORD), lang,
                                      client_id=f"screenshot-{lang}") for lang in ("en", "it")}
        for dashboard in dashboards.values():  # before the tables: the day's games are events, not retained
            dashboard.start()
            wait_for(dashboard.connected.is_set, "the dashboard's subscription", 10)
        tables = {table_id: reporter(broker, table_id) for table_id in ("bar-1", "bar-2", "terrace", "window")}
        try:
            tables["bar-1"].offer(table_status(board="RB?N" + "?" * 21))
            tables["bar-2"].offer(table_status(health={"touch": "not working: the board is unplugged", "leds": "ok"}))
            tables["terrace"].offer(table_status(board="RRB" + "?" * 22))
            tables["window"].offer(table_status(board="?" * 24 + "A", over=True, winner="red"))
            for finished, minutes in (("bar-1", 14.5), ("bar-1", 21), ("terrace", 17.2), ("window", 18)):
                tables[finished].event({"event": "game_over", "game_id": f"{finished}-{minutes}", "game": "codenames",
                                        "winner": "red", "duration_s": minutes * 60})
            tables["window"].stop()
            for lang, dashboard in dashboards.items():
                wait_for(lambda dashboard=dashboard: sum(row["games_today"] for row in dashboard.fleet.rows()) == 4
                         and len(dashboard.fleet.rows()) == 4, "the café's tables on the dashboard", 10)
                page = browser.new_page(viewport={"width": 1100, "height": 360})
                page.goto(f"{dashboard.url}/login")
                page.fill("input[name=password]", PASSWORD)
                page.click("button")
                page.wait_for_selector("#rows tr:nth-child(4)", timeout=10_000)
                path = folder / f"fleet-{lang}.png"
                page.screenshot(path=str(path))
                written.append(path)
                page.close()
        finally:
            for table in tables.values():
                table.stop()
            for dashboard in dashboards.values():
                dashboard.stop()
            browser.close()
            broker.stop()
    return written


if __name__ == "__main__":
    for path in write_screenshots(Path(sys.argv[1]) if len(sys.argv) > 1 else SCREENSHOTS):
        print(f"wrote {path}")
