"""The fleet's dashboard: what it makes of the tables' messages, its login, its live page in
Chromium, the day's CSV. Its pictures in the docs are drawn by tools/screenshots.py."""

from __future__ import annotations

import csv
import datetime as dt
import http.client
import io
import itertools
import json
import logging
import os
import re
import ssl
import stat
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import paho.mqtt.client as mqtt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_table.config import broker as broker_config
from pi_table.fleet.dashboard import (
    ATTEMPTS,
    ATTEMPTS_OVERALL,
    Dashboard,
    PasswordError,
    hash_password,
    read_password_file,
    write_password_file,
)
from pi_table.fleet.reporter import Reporter
from pi_table.fleet.tables import Fleet, activity
from pi_table.web.auth import secret_matches

from helpers import self_signed, wait_for
from helpers_phones import this_machines_address

STATIC = Path(__file__).resolve().parents[1] / "pi_table" / "web" / "static"
PASSWORD = "café-tables-2026"
NOON = dt.datetime.combine(dt.date.today(), dt.time(12)).timestamp()


def table_status(game_id="g1", board="?" * 25, over=False, health=None, winner=None) -> dict:
    """A status as a table's reporter publishes it."""
    return {"version": "0.1.0", "game_id": game_id, "game": "codenames", "over": over, "began": NOON, "at": NOON,
            "state": {"game": "codenames", "board": board, "phase": "clue", "clue": None, "winner": winner, "losers": []},
            "health": health or {"touch": "ok", "leds": "ok"}, "warnings": [], "uptime_s": 10.0, "events_dropped": 0}


def message(value) -> bytes:
    return json.dumps(value).encode()


def test_a_cafe_table_that_never_reported_is_listed_as_not_heard_from():
    """Issue 62, 4: the page said "1 of 1 tables online" with three tables on the broker: a table
    of the owner's list (``[fleet] cafe_tables``) that never reported had no row at all."""
    fleet = Fleet(clock=lambda: NOON, cafe_tables=["bar-1", "bar-2", "bar-3"])
    fleet.take("pi-table/bar-1/online", b"true")
    fleet.take("pi-table/bar-1/status", message(table_status()))
    fleet.take("pi-table/guest/online", b"true")  # a table not on the list still has its row
    rows = {row["table_id"]: row for row in fleet.rows()}
    assert sorted(rows) == ["bar-1", "bar-2", "bar-3", "guest"]
    assert rows["bar-1"]["online"] is True and rows["bar-1"]["heard"] is True
    assert rows["bar-2"]["online"] is None and rows["bar-2"]["heard"] is False and rows["bar-2"]["game"] is None
    assert rows["bar-2"]["faults"] == [] and rows["bar-2"]["games_today"] == 0 and rows["bar-2"]["seen"] is None
    fleet.take("pi-table/bar-2/online", b"false")  # its last will, once it connected
    assert {row["table_id"]: row["heard"] for row in fleet.rows()}["bar-2"] is True


def test_the_fleet_keeps_each_tables_row_from_its_messages():
    clock = [NOON]
    fleet = Fleet(clock=lambda: clock[0])
    assert fleet.take("pi-table/bar/online", b"true")["online"] is True
    row = fleet.take("pi-table/bar/status", message(table_status()))
    assert row["activity"] == "idle" and row["game"] == "codenames" and row["faults"] == []
    row = fleet.take("pi-table/bar/status", message(table_status(board="R" + "?" * 24)))
    assert row["activity"] == "playing"
    broken = table_status(board="R" + "?" * 24, health={"touch": "not working: unplugged", "leds": "ok"})
    assert fleet.take("pi-table/bar/status", message(broken))["faults"] == ["touch board: not working: unplugged"]
    italian = Fleet(lang="it")  # the page's language says the table's health
    row = italian.take("pi-table/bar/status", message(broken))
    assert row["faults"] == ["scheda touch: non funziona: unplugged"] and row["game_title"] == "Nome in codice"
    over = {"event": "game_over", "table_id": "bar", "game_id": "g1", "game": "codenames", "winner": "red",
            "duration_s": 600.0, "at": NOON + 60, "reason": "all agents found", "termination": "all_agents_found"}
    fleet.take("pi-table/bar/events", message(over))
    row = fleet.take("pi-table/bar/events", message(over))  # QoS 1 may deliver twice: counted once
    assert (row["games_today"], row["average_s"]) == (1, 600.0)
    yesterday = {**over, "game_id": "g0", "at": NOON - 86400}
    assert fleet.take("pi-table/bar/events", message(yesterday))["games_today"] == 1
    fleet.take("pi-table/bar/events", message({"event": "error", "error": "a command is a JSON object"}))
    assert fleet.take("pi-table/bar/online", b"false")["errors"] == ["a command is a JSON object"]
    assert fleet.take("pi-table/bar/status", b"{broken")["dropped"] == 1  # dropped, counted, logged
    assert fleet.take("elsewhere/bar/status", message(table_status())) is None
    assert [row["table_id"] for row in fleet.rows()] == ["bar"]
    assert fleet.news() == (fleet.rows(), False)  # for the live pages: its row once, however many messages came
    lines = list(csv.reader(io.StringIO(fleet.csv())))
    assert lines[0] == ["table_id", "game_id", "game", "ended", "duration_s", "winner", "reason", "termination", "score"]
    assert lines[1:] == [["bar", "g1", "codenames", dt.datetime.fromtimestamp(NOON + 60).isoformat(timespec="seconds"),
                          "600.0", "red", "all agents found", "all_agents_found", ""]]
    clock[0] += 86400  # the next day: yesterday's games leave the count at the next event
    assert fleet.take("pi-table/bar/events", message({"event": "fault", "device": "touch"}))["games_today"] == 0


def test_a_table_whose_retained_status_is_cleared_is_forgotten_and_another_is_not():
    """Issue 58, 6: the café's broker clears what a table taken off it left retained; a dashboard
    that was reading it then forgets it, where it kept its last row."""
    fleet = Fleet()
    for table in ("bar", "terrace"):
        fleet.take(f"pi-table/{table}/online", b"true")
        fleet.take(f"pi-table/{table}/status", message(table_status()))
    fleet.news()
    assert fleet.take("pi-table/terrace/online", b"") is None  # its online first: the row stays until its status
    assert [row["table_id"] for row in fleet.rows()] == ["bar", "terrace"]
    assert fleet.take("pi-table/terrace/status", b"") is None
    assert [row["table_id"] for row in fleet.rows()] == ["bar"]
    assert fleet.news() == ([], False)  # no row of a table forgotten is news (it has none)
    assert fleet.take("pi-table/nobody/status", b"") is None and fleet.tables.keys() == {"bar"}


def test_a_tables_warnings_are_shown_in_the_pages_language_whatever_the_table_speaks():
    """An English table on an Italian dashboard: its screen's warnings come said in every
    language the table speaks (the reporter's ``warnings_in``), and the page shows its own."""
    from pi_table.daemon.fleet_reports import fleet_warnings
    from pi_table.fleet.reporter import status_message
    from pi_table.table.input import WIPE_WARNING

    said = fleet_warnings((WIPE_WARNING,))
    assert set(said) == {"en", "it"} and said["en"] != said["it"]
    status = status_message({**table_status(), "warnings": said["en"], "warnings_in": said, "language": "en"}, 0)
    assert Fleet(lang="it").take("pi-table/bar/status", message(status))["faults"] == said["it"]
    assert Fleet(lang="en").take("pi-table/bar/status", message(status))["faults"] == said["en"]
    older = {key: value for key, value in status.items() if key != "warnings_in"}  # a table from before
    assert Fleet(lang="it").take("pi-table/bar/status", message(older))["faults"] == said["en"]


def test_the_endings_of_every_table_are_counted_by_their_code_in_the_pages_language():
    """The fleet sent each table's ending as a sentence in the table's own language, so endings
    could not be grouped across tables: they are counted by the engine's termination code now."""
    fleet = Fleet(clock=lambda: NOON, lang="it")
    ended = {"event": "game_over", "game": "codenames", "duration_s": 300.0, "at": NOON}
    for table, game, termination in [("t1", "a", "assassin"), ("t2", "b", "assassin"), ("t1", "c", "all_agents_found"),
                                      ("t2", "d", None)]:
        payload = {**ended, "table_id": table, "game_id": game, **({"termination": termination} if termination else {})}
        fleet.take(f"pi-table/{table}/events", message(payload))
    endings = {row["table_id"]: row["endings"] for row in fleet.rows()}
    assert endings == {"t1": [["toccato l'assassino", 1], ["tutti gli agenti trovati", 1]],
                       "t2": [["toccato l'assassino", 1], ["non indicato (un tavolo di una versione precedente)", 1]]}


GAME_OVER = {"event": "game_over", "table_id": "rogue", "game_id": "r1", "game": "codenames", "winner": "red",
             "duration_s": 600.0, "at": NOON + 60, "reason": "all agents found"}
NOT_WHAT_A_TABLE_SENDS = [  # the topic, the payload, and why the dashboard drops it
    pytest.param("status", {"state": [1]}, "status.state should be an object", id="state-a-list"),
    pytest.param("status", {**table_status(), "health": ["touch"]},
                 "status.health should be an object of at most 64 fields, each a text of at most 1000 characters",
                 id="health-a-list"),
    pytest.param("status", {**table_status(), "health": {"touch": 5}},
                 "status.health should be an object of at most 64 fields, each a text of at most 1000 characters",
                 id="health-a-number"),
    pytest.param("status", {**table_status(), "warnings": 3},
                 "status.warnings should be a list of at most 64 items, each a text of at most 1000 characters",
                 id="warnings-a-number"),
    pytest.param("status", {**table_status(), "at": float("nan")},
                 "status.at should be a time in Unix seconds from the year 2000 to 2200", id="report-at-nan"),
    pytest.param("events", {**GAME_OVER, "at": "x"}, "events.at should be a time in Unix seconds from the year 2000 to 2200",
                 id="event-at-x"),
    pytest.param("events", {**GAME_OVER, "at": 1e20},
                 "events.at should be a time in Unix seconds from the year 2000 to 2200", id="event-at-1e20"),
    pytest.param("events", {**GAME_OVER, "duration_s": 10**400},
                 "events.duration_s should be a number from -1000000000 to 1000000000 or null", id="duration-10-to-the-400"),
    pytest.param("events", {**GAME_OVER, "winner": "\ud800"},
                 "events.winner should be a text of at most 100 characters or null", id="winner-no-utf8-can-carry"),
    pytest.param("online", '"yes"', "online should be true or false", id="online-a-word"),
    pytest.param("status", "[" * 100_000, "status should be JSON in UTF-8 of at most 256 KB", id="nested-past-the-parser"),
]


@pytest.mark.parametrize(("kind", "sent", "why"), NOT_WHAT_A_TABLE_SENDS)
def test_one_tables_malformed_message_is_dropped_counted_and_the_others_update(kind, sent, why):
    """Issue 25: a table may publish anything on its own topics. What its reporter never sends
    is dropped and counted on its row, with what was expected (never what came); the page's
    rows, its JSON and the export still work, and another table's next status shows."""
    fleet = Fleet(clock=lambda: NOON + 120)
    fleet.take("pi-table/good/status", message(table_status(game_id="g1")))
    payload = sent.encode() if isinstance(sent, str) else message(sent)
    row = fleet.take(f"pi-table/rogue/{kind}", payload)
    assert (row["table_id"], row["dropped"], row["dropped_why"]) == ("rogue", 1, why)
    fleet.take("pi-table/good/status", message(table_status(game_id="g2", board="R" + "?" * 24)))
    rows = {row["table_id"]: row for row in fleet.rows()}
    assert (rows["good"]["game_id"], rows["good"]["activity"], rows["good"]["dropped"]) == ("g2", "playing", 0)
    assert (rows["rogue"]["dropped"], rows["rogue"]["dropped_why"]) == (1, why)
    json.dumps(list(rows.values()), allow_nan=False)  # what the page is sent: JSON a browser reads
    fleet.csv().encode()  # the export, as it goes out


def test_a_dropped_message_is_said_in_the_pages_language_and_a_cleared_retained_one_is_none():
    fleet = Fleet(clock=lambda: NOON, lang="it")
    assert fleet.take("pi-table/rogue/status", message({"state": [1]}))["dropped_why"] == (
        "status.state dovrebbe essere un oggetto")
    row = fleet.take("pi-table/rogue/events", message({**GAME_OVER, "at": "x"}))
    assert (row["dropped"], row["dropped_why"]) == (
        2, "events.at dovrebbe essere un istante in secondi Unix dall'anno 2000 al 2200")
    assert fleet.take("pi-table/gone/status", b"") is None and [row["table_id"] for row in fleet.rows()] == ["rogue"]


def test_a_tables_game_is_its_topics_whatever_table_the_event_names():
    fleet = Fleet(clock=lambda: NOON + 120)
    fleet.take("pi-table/rogue/events", message({**GAME_OVER, "table_id": "bar-1"}))
    assert [line[0] for line in csv.reader(io.StringIO(fleet.csv()))] == ["table_id", "rogue"]


def test_a_table_that_ends_more_games_than_a_day_holds_is_counted_no_further():
    """A table's games today are kept to ``GAMES_A_DAY`` (a game takes minutes): one sending
    game overs without end, each a new id, costs the dashboard no more memory, and what it
    drops is counted on its row; another table's games still count."""
    from pi_table.fleet.tables import GAMES_A_DAY

    fleet = Fleet(clock=lambda: NOON + 120)
    for n in range(GAMES_A_DAY + 25):
        row = fleet.take("pi-table/rogue/events", message({**GAME_OVER, "game_id": f"r{n}"}))
    assert row["games_today"] == GAMES_A_DAY and row["dropped"] == 25
    assert f"past the {GAMES_A_DAY} one table can finish in a day" in row["dropped_why"]
    assert fleet.take("pi-table/rogue/events", message({**GAME_OVER, "game_id": "r0"}))["dropped"] == 25  # seen: no drop
    assert fleet.take("pi-table/bar/events", message({**GAME_OVER, "game_id": "b1"}))["games_today"] == 1
    assert len(list(csv.reader(io.StringIO(fleet.csv())))) == 1 + GAMES_A_DAY + 1


def test_a_flood_of_bad_messages_is_logged_once_a_minute_a_table(caplog):
    clock = [NOON]
    fleet = Fleet(clock=lambda: clock[0])
    with caplog.at_level(logging.WARNING, logger="pi_table.fleet"):
        for _ in range(100):
            fleet.take("pi-table/rogue/status", b"[1]")
        fleet.take("pi-table/other/online", b"1")
        clock[0] += 59
        fleet.take("pi-table/rogue/status", b"[1]")
        assert len(caplog.records) == 2
        clock[0] += 1
        fleet.take("pi-table/rogue/status", b"[1]")
    assert [record.getMessage() for record in caplog.records] == [
        "table rogue: message dropped, status should be an object (1 from it so far; said at most every 60 s)",
        "table other: message dropped, online should be true or false (1 from it so far; said at most every 60 s)",
        "table rogue: message dropped, status should be an object (102 from it so far; said at most every 60 s)",
    ]


def mqtt_message(topic: str, payload: bytes) -> mqtt.MQTTMessage:
    made = mqtt.MQTTMessage(topic=topic.encode())
    made.payload = payload
    return made


def test_no_exception_reaches_the_mqtt_clients_thread(monkeypatch):
    """The last line of defence: should the dashboard fail on a message the schema let through
    (a bug), the message is counted against its table and paho's thread goes on."""
    dashboard = Dashboard(broker_config("mqtt://127.0.0.1:1"), "127.0.0.1", 0, hash_password(PASSWORD))

    def bug(fleet, table, event):
        raise RuntimeError("a bug of the dashboard's")

    monkeypatch.setattr(Fleet, "_event", bug)
    dashboard._message(dashboard.client, None, mqtt_message("pi-table/bar/events", message(GAME_OVER)))
    dashboard._message(dashboard.client, None, mqtt_message("pi-table/bar/status", message(table_status(game_id="g2"))))
    [row] = dashboard.fleet.rows()
    assert (row["game_id"], row["dropped"]) == ("g2", 1)
    assert row["dropped_why"] == "the dashboard failed on a message (its own fault: see its log)"


def test_the_pages_speak_the_phones_language_when_the_table_has_it_else_the_tables():
    """Issue 62, 4: the login page was English under an Italian phone, with no way to another
    language. The pages, and the rows they show, speak the phone's language (Accept-Language)
    among the table's, else the table's own."""
    dashboard = Dashboard(broker_config("mqtt://127.0.0.1:1"), "127.0.0.1", 0, hash_password(PASSWORD), lang="en")
    broken = table_status(health={"touch": "not working: unplugged", "leds": "ok"})
    dashboard._message(dashboard.client, None, mqtt_message("pi-table/bar/status", message(broken)))
    dashboard.start()
    try:
        italian = {"Accept-Language": "it-IT,it;q=0.9,en-US;q=0.8,en;q=0.7"}
        response, body = request(dashboard, "GET", "/login", headers=italian)
        assert response.status == 200 and '<html lang="it">' in body and "Entra</button>" in body
        response, body = request(dashboard, "GET", "/login", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
        assert '<html lang="en">' in body and "Sign in</button>" in body  # none the table speaks: the table's
        assert "Sign in</button>" in request(dashboard, "GET", "/login", headers={"Accept-Language": "fr, it;q=0"})[1]
        assert "Sign in</button>" in request(dashboard, "GET", "/login")[1]
        session = login(dashboard).split(";", 1)[0]
        response, body = request(dashboard, "GET", "/", headers={"Cookie": session, **italian})
        assert '<html lang="it">' in body and "tavoli collegati" in body
        response, body = request(dashboard, "GET", "/api/tables", headers={"Cookie": session, **italian})
        [row] = json.loads(body)
        assert row["faults"] == ["scheda touch: non funziona: unplugged"] and row["lang"] == "it"
        [row] = json.loads(request(dashboard, "GET", "/api/tables", headers={"Cookie": session})[1])
        assert row["faults"] == ["touch board: not working: unplugged"]
    finally:
        dashboard.stop()


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


@pytest.mark.secret_work
def test_the_password_is_kept_as_a_slow_salted_hash(tmp_path):
    stored = hash_password(PASSWORD)
    assert stored.startswith("scrypt$16384$8$1$") and PASSWORD not in stored
    assert hash_password(PASSWORD) != stored  # a salt of its own each time
    assert secret_matches(stored, PASSWORD) and not secret_matches(stored, "cafe-tables-2026")
    assert not secret_matches("scrypt$garbage", PASSWORD)
    with pytest.raises(PasswordError, match="choose one of at least 8"):  # the table's own (a ValueError too)
        hash_password("1234")
    path = tmp_path / "fleet.password"
    with pytest.raises(PasswordError, match=f"make it with pi-table fleet --set-password --password-file {path}"):
        read_password_file(path)
    write_password_file(path, PASSWORD)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert secret_matches(read_password_file(path), PASSWORD)
    path.write_text("hunter2\n")
    with pytest.raises(PasswordError, match="holds no password hash"):
        read_password_file(path)


def fleet_command(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pi_table", "fleet", *args], input=stdin, capture_output=True,
                          text=True, timeout=30)


@pytest.mark.slow  # some 6 s of CPU by itself: out of ./dev test (issue 40)
def test_the_command_line_sets_the_password_and_refuses_what_cannot_work(tmp_path):
    path = tmp_path / "config" / "fleet.password"
    done = fleet_command("--set-password", "--password-file", str(path), stdin=PASSWORD + "\n")
    assert done.returncode == 0 and str(path) in done.stdout, done.stderr
    assert secret_matches(read_password_file(path), PASSWORD)
    short = fleet_command("--set-password", "--password-file", str(path), stdin="1234\n")
    assert short.returncode == 2 and "choose one of at least 8" in short.stderr
    assert secret_matches(read_password_file(path), PASSWORD)  # the one before is kept
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


def test_the_pages_style_and_script_are_the_packages_files_and_its_words_are_data_not_code(dashboard):
    """Issue 61.2: web/static/fleet.css and fleet.js, under the staff pages' script checks, the same
    for anyone (no secret in them); the page carries its words as JSON, which no word can end."""
    for name, kind in (("fleet.css", "text/css"), ("fleet.js", "text/javascript")):
        response, body = request(dashboard, "GET", f"/{name}")
        assert (response.status, response.getheader("Content-Type").split(";")[0]) == (200, kind)
        assert body == (STATIC / name).read_text(encoding="utf-8")
    dashboard.words["en"]["online"] = "</script><script>alert(1)</script>"  # were a word to hold one
    session = login(dashboard).split(";", 1)[0]
    response, body = request(dashboard, "GET", "/", headers={"Cookie": session})
    words = body.partition('<script type="application/json" id="fleet-words">')[2].partition("</script>")[0]
    assert response.status == 200 and json.loads(words)["words"]["online"] == "</script><script>alert(1)</script>"
    assert '<script src="/fleet.js"></script>' in body


def test_no_password_reaches_the_dashboard_over_plain_http_from_another_machine(tmp_path):
    """Issue 58, 2: a table whose certificate is damaged gives its dashboard no https, and the
    dashboard took the owner's passphrase over plain http from the café's Wi-Fi. Without TLS its
    login answers this machine alone: another machine is told why, and no try is counted; with
    TLS it takes the password from anywhere."""
    from pi_table.config.machine import server_tls

    address = this_machines_address()
    cert, key = self_signed(tmp_path)
    plain = Dashboard(broker_config("mqtt://127.0.0.1:1"), "0.0.0.0", 0, hash_password(PASSWORD), client_id="t-plain")
    secure = Dashboard(broker_config("mqtt://127.0.0.1:1"), "0.0.0.0", 0, hash_password(PASSWORD), client_id="t-tls",
                       tls=server_tls(str(cert), str(key)))
    plain.start()
    secure.start()
    try:
        for _ in range(7):  # more than the tries an address has: none is read, none is counted
            connection = http.client.HTTPConnection(address, plain.port, timeout=10)
            connection.request("POST", "/login", body=urlencode({"password": PASSWORD}),
                               headers={"Content-Type": "application/x-www-form-urlencoded"})
            answer = connection.getresponse()
            assert answer.status == 403 and "https" in answer.read().decode()
        connection = http.client.HTTPConnection(address, plain.port, timeout=10)
        connection.request("GET", "/login")
        answer = connection.getresponse()
        assert answer.status == 403 and 'type="password"' not in answer.read().decode()  # no form to type it in
        assert login(plain)  # this machine: no network crossed, and not locked out by the refusals

        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        connection = http.client.HTTPSConnection(address, secure.port, timeout=10, context=context)
        connection.request("POST", "/login", body=urlencode({"password": PASSWORD}),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert connection.getresponse().status == 303
    finally:
        plain.stop()
        secure.stop()


def test_a_browser_that_signed_in_before_is_not_locked_out_by_guesses_from_its_address(dashboard):
    """Failed logins were counted per address alone: guesses from the owner's own address (a
    router the office shares, a proxy in front of the page) kept the owner out for as long as
    they went on. A browser that has signed in carries a device cookie the password signs, and
    is counted on its own."""
    cookies = login(dashboard)
    device = re.search(r"pi_table_fleet_device=([^;]+);[^,]*HttpOnly[^,]*Path=/[^,]*SameSite=Strict", cookies)
    assert device is not None, cookies
    for _ in range(ATTEMPTS):
        assert request(dashboard, "POST", "/login", "password=guess")[0].status == 401
    right = urlencode({"password": PASSWORD})
    assert request(dashboard, "POST", "/login", right)[0].status == 429  # a new browser waits, as the guest does
    forged = f"pi_table_fleet_device={device.group(1).split('.')[0]}.00"
    assert request(dashboard, "POST", "/login", right, {"Cookie": forged})[0].status == 429  # only the password signs
    known = {"Cookie": f"pi_table_fleet_device={device.group(1)}"}
    assert request(dashboard, "POST", "/login", "password=guess", known)[0].status == 401  # counted on its own
    assert request(dashboard, "POST", "/login", right, known)[0].status == 303


def test_a_port_in_use_is_an_error_at_start(dashboard, broker):
    second = Dashboard(broker_config(broker.url), "127.0.0.1", dashboard.port, hash_password(PASSWORD),
                       client_id="test-second")
    with pytest.raises(OSError):
        second.start()
    assert second.serving() == (None, None)
    second.stop()  # harmless
    assert request(dashboard, "GET", "/login")[0].status == 200


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
    same requests just before, in this run), and the right password gets in after it from a
    browser that logged in before; from one never seen, only if the flood left a turn of the
    budget (issue 58, 5: every address's tries count in it)."""
    cookies = login(dashboard)
    session = cookies.split(";", 1)[0]
    device = next(part.split(";")[0].strip() for part in cookies.split(", ") if "_device=" in part)
    before = [timed_get(dashboard, path, {"Cookie": session}) for _ in range(15) for path in ("/login", "/api/tables")]
    flood = subprocess.Popen([sys.executable, "-c", FLOOD, str(dashboard.port), "60", "5"], stdout=subprocess.PIPE,
                             text=True)
    during: list[float] = []
    try:
        time.sleep(0.05)  # the flood under way (it is over in well under a second on a quiet machine)
        while flood.poll() is None and len(during) < 400:
            during.extend(timed_get(dashboard, path, {"Cookie": session}) for path in ("/login", "/api/tables"))
    finally:
        output, _ = flood.communicate(timeout=120)
    answers = {int(status): count for status, count in json.loads(output).items()}
    assert len(during) >= 10, "the flood ended before the page was measured under it"
    usual, flooded = statistics.mean(before), statistics.mean(during)  # a stall is a few long waits: the mean shows them
    print(f"mean GET {usual * 1e3:.2f} ms before, {flooded * 1e3:.2f} ms during the flood ({len(during)} requests, "
          f"slowest {max(during) * 1e3:.1f} ms); "
          f"the flood's answers: {answers}")
    assert set(answers) <= {401, 429} and sum(answers.values()) == 300
    assert flooded < 30 * usual + 0.01, f"the page slowed from {usual * 1e3:.2f} ms to {flooded * 1e3:.2f} ms"
    response, _ = request(dashboard, "POST", "/login", urlencode({"password": PASSWORD}))
    checked = answers.get(401, 0) + 1  # the flood's wrong ones, and the first login above: the budget's minute
    assert response.status == (429 if checked >= ATTEMPTS_OVERALL else 303), answers
    response, _ = request(dashboard, "POST", "/login", urlencode({"password": PASSWORD}), {"Cookie": device})
    assert response.status == 303  # a browser that logged in before: never held back by the flood


def strict_json(text: str):
    """JSON as a browser's ``JSON.parse`` reads it: no NaN, no Infinity."""
    def refuse(constant: str):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


SCALARS = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40)
           | st.sampled_from([10**400, -(10**400), 2**63, 1e20, -1, 0, "x", "\ud800", "\x00", "?" * 2000]))
JSON_VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                                   max_size=4), max_leaves=12)
FIELDS = {  # where a field is in what a table's reporter sends: each may come with a value of any kind
    "status": [("state",), ("state", "board"), ("state", "clue"), ("state", "phase"), ("health",), ("health", "touch"),
               ("warnings",), ("at",), ("uptime_s",), ("game",), ("game_id",), ("version",), ("over",)],
    "events": [("event",), ("at",), ("game_id",), ("game",), ("winner",), ("reason",), ("duration_s",), ("ok",), ("error",)],
    "online": [()],
    "command": [("command",)],
}
NESTINGS = [("[", "]"), ('{"state":', "}"), ('{"health":', "}"), ('{"event": "game_over", "game_id":', "}")]


@st.composite
def not_what_a_table_sends(draw) -> tuple[str, bytes]:
    """A topic a table may publish on, and random bytes, random JSON, JSON nested up to past the
    parser's depth, or what its reporter sends with one field of another kind or out of range."""
    kind = draw(st.sampled_from(sorted(FIELDS)))
    how = draw(st.sampled_from(["bytes", "json", "nested", "field"]))
    if how == "bytes":
        return kind, draw(st.binary(max_size=300))
    if how == "json":
        return kind, json.dumps(draw(JSON_VALUES)).encode()
    if how == "nested":
        (opening, closing), depth = draw(st.sampled_from(NESTINGS)), draw(st.integers(1, 3000))
        return kind, (opening * depth + "1" + closing * depth).encode()
    sent = {"status": table_status(), "events": dict(GAME_OVER), "online": True, "command": {"command": "undo"}}[kind]
    path, value = draw(st.sampled_from(FIELDS[kind])), draw(JSON_VALUES)
    if not path:
        return kind, json.dumps(value).encode()
    within = sent
    for name in path[:-1]:
        within = within[name]
    within[path[-1]] = value
    return kind, json.dumps(sent).encode()


SERIAL = itertools.count()  # the good table's game ids, fresh across examples


@pytest.fixture
def signed_in(dashboard) -> tuple[Dashboard, str]:
    return dashboard, login(dashboard).split(";", 1)[0]


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sent=st.lists(not_what_a_table_sends(), min_size=1, max_size=8))
def test_fuzz_one_table_sends_anything_and_the_dashboard_answers_and_another_keeps_updating(signed_in, sent):
    """Issue 25's fuzz: one table's messages of every kind of wrong, on each topic a table may
    publish, through the dashboard's MQTT callback, each followed by another table's new status.
    The callback never raises; the good table's row shows its latest status; whatever was
    dropped is said by the schema (never the dashboard's last line of defence) without the
    payload; the page, its rows, its event stream and the export answer in JSON and CSV a
    browser and a spreadsheet read."""
    dashboard, session = signed_in
    for kind, payload in sent:
        dashboard._message(dashboard.client, None, mqtt_message(f"pi-table/rogue/{kind}", payload))
        game_id = f"g{next(SERIAL)}"
        dashboard._message(dashboard.client, None, mqtt_message("pi-table/good/status",
                                                                message(table_status(game_id=game_id))))
        good = next(row for row in dashboard.fleet.rows() if row["table_id"] == "good")
        assert (good["game_id"], good["dropped"]) == (game_id, 0)
    rows = {row["table_id"]: row for row in dashboard.fleet.rows()}
    why = rows.get("rogue", {}).get("dropped_why")
    assert why is None or re.fullmatch(r"(status|online|events)(\.\w+)* should be [a-zA-Z0-9 ,.:-]+", why), why
    dashboard.fleet.csv().encode()
    for path in ("/", "/export.csv"):
        assert request(dashboard, "GET", path, headers={"Cookie": session})[0].status == 200, path
    response, body = request(dashboard, "GET", "/api/tables", headers={"Cookie": session})
    assert response.status == 200 and strict_json(body) == list(rows.values())
    connection = http.client.HTTPConnection("127.0.0.1", dashboard.port, timeout=10)
    try:
        connection.request("GET", "/events", headers={"Cookie": session})
        stream = connection.getresponse()
        streamed = []
        for _ in rows:  # every row now, each "data: ROW" and a blank line
            streamed.append(strict_json(stream.readline().removeprefix(b"data: ").decode()))
            assert stream.readline() == b"\n"
    finally:
        connection.close()
    assert streamed == list(rows.values())


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
        dashboard.fleet.take("pi-table/rogue/status", b'{"state": [1]}')  # as if from the broker: its row, its reason
        page.wait_for_function("document.getElementById('count').innerText.startsWith('2 of 4')", timeout=10_000)
        assert page.inner_text("#rows tr:nth-child(3) .fault") == (
            "messages dropped: 1 (the last: status.state should be an object)")
        page.close()
    finally:
        for table in tables.values():
            table.stop()


def test_on_a_phone_each_table_is_a_card_showing_every_column_by_its_name(dashboard, broker, browser):
    """Issue 50: at 390 px the table hid 4 of its 8 columns in a box that scrolled, with no hint.
    On a phone each table is a card: every column's value under its name, nothing off the screen."""
    table = reporter(broker, "bar-1")
    try:
        table.offer(table_status(health={"touch": "not working: the board is unplugged", "leds": "ok"}))
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(f"{dashboard.url}/login")
        page.fill("input[name=password]", PASSWORD)
        page.click("button")
        page.wait_for_selector("#rows tr td", timeout=10_000)
        cells = page.eval_on_selector_all("#rows tr:first-child td", """(cells) => cells.map((td) => ({
            label: getComputedStyle(td, '::before').content, right: td.getBoundingClientRect().right,
            shown: td.getBoundingClientRect().height > 0}))""")
        heads = page.eval_on_selector_all("thead th", "(ths) => ths.map((th) => th.textContent)")
        assert len(cells) == len(heads) == 8
        assert [cell["label"] for cell in cells] == [f'"{head}"' for head in heads]  # each value under its column's name
        assert all(cell["shown"] and cell["right"] <= 390 for cell in cells), cells
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing to scroll sideways
        page.close()
    finally:
        table.stop()


def test_the_page_counts_the_cafes_tables_that_never_reported(dashboard, broker, browser):
    """Issue 62, 4: "1 of 1 tables online" with three tables on the broker. The café's list names
    the tables: one that never reported is counted, and its row says so."""
    table = reporter(broker, "bar-1")
    dashboard.fleet.cafe = frozenset({"bar-1", "bar-2", "terrace"})
    try:
        table.offer(table_status())
        page = browser.new_page()
        page.goto(f"{dashboard.url}/login")
        page.fill("input[name=password]", PASSWORD)
        page.click("button")
        page.wait_for_selector("#rows tr:nth-child(3)", timeout=10_000)
        page.wait_for_function("document.getElementById('count').innerText === '1 of 3 tables online'", timeout=10_000)
        assert "never reported" in page.inner_text("#rows tr:nth-child(2)")  # bar-2
        assert "online" in page.inner_text("#rows tr:nth-child(1)")
        page.close()
    finally:
        dashboard.fleet.cafe = frozenset()
        table.stop()


def test_a_field_a_table_sent_that_a_spreadsheet_would_run_stays_text_in_the_csv():
    fleet = Fleet(clock=lambda: NOON)
    over = {"event": "game_over", "table_id": "bar", "game_id": "g1", "game": "codenames", "winner": "red",
            "duration_s": 600.0, "at": NOON + 60, "reason": "=HYPERLINK(\"http://x\")", "termination": "all_agents_found"}
    fleet.take("pi-table/bar/events", message(over))
    (row,) = list(csv.reader(io.StringIO(fleet.csv())))[1:]
    assert row[6] == "'=HYPERLINK(\"http://x\")" and row[4] == "600.0"
