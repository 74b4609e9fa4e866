"""A game night at a table: the staff page's night routes (behind the session and the CSRF token),
the phones' team page, a game played at the table recorded into the round, the exports, and a
restart of the table that finds the night as it was."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
import urllib.request

from helpers import wait_for
from helpers_phones import get
from helpers_staff import Staff
from helpers_tables import StaffTable, service_daemon

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def test_a_night_at_one_table_from_the_staff_page(tmp_path):
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        assert staff.call("GET", "/staff/api/night")[0] == 401
        assert staff.login()[0] == 200
        assert staff.call("POST", "/staff/api/night/open", {"name": "x", "games": ["codenames"], "tables": ["1"]},
                          csrf="wrong")[0] == 403
        status, answer = staff.call("POST", "/staff/api/night/open",
                                    {"name": "Friday league", "games": ["codenames"], "tables": ["1"]})
        assert status == 200 and answer["night"]["name"] == "Friday league"
        assert staff.call("POST", "/staff/api/night/join", {"team": "The Owls", "nicknames": ["Ada"]})[0] == 200
        form = urllib.parse.urlencode({"team": "Quiz Club", "nicknames": "Bo, Cy"}).encode()
        status, page = get(table.base + "/night")
        assert status == 200 and b"Join the game night" in page
        with urllib.request.urlopen(urllib.request.Request(table.base + "/night/join", data=form), timeout=10) as answer:
            assert answer.status == 200 and "Quiz Club" in answer.read().decode()
        assert staff.call("POST", "/staff/api/night/approve", {"team": "Quiz Club"})[0] == 200
        status, answer = staff.call("POST", "/staff/api/night/join", {"team": "quiz club"})
        assert status == 409 and "joined already" in answer["error"]
        assert staff.call("POST", "/staff/api/night/confirm")[0] == 409
        status, answer = staff.call("POST", "/staff/api/night/propose")
        [pair] = answer["night"]["proposal"]["pairs"]
        assert {pair["red"], pair["blue"]} == {"The Owls", "Quiz Club"}
        status, answer = staff.call("POST", "/staff/api/night/swap", {"one": pair["red"], "other": pair["blue"]})
        assert answer["night"]["proposal"]["pairs"][0]["red"] == pair["blue"]
        assert staff.call("POST", "/staff/api/night/confirm")[0] == 200
        for cell in range(9):  # red finds all its agents; blue had 8 left
            table.guess(cell)

        def recorded() -> bool:
            return bool(staff.call("GET", "/staff/api/night")[1]["night"]["games_played"])

        wait_for(recorded, "the game recorded into the night")
        night = staff.call("GET", "/staff/api/night")[1]["night"]
        [game] = night["games_played"]
        assert game["winner"] == pair["blue"] and game["termination"] == "all_agents_found" and game["margin"] == 8
        assert night["standings"][0]["team"] == pair["blue"]
        status, public = get(table.base + "/night/standings")
        assert status == 200 and b'"standings"' in public
        status, csv_text = staff.call("GET", f"/staff/api/night/{night['id']}.csv")
        assert status == 200 and "all_agents_found" in csv_text and pair["blue"] in csv_text
        day = time.strftime("%Y-%m-%d", time.localtime(night["opened"]))
        # exported by its name (issue 50: by its id, 20261126-213706), the day it opened beside it
        assert staff.headers["Content-Disposition"] == f'attachment; filename="Friday-league-{day}.csv"'
        staff.call("GET", f"/staff/api/night/{night['id']}.trf")
        assert staff.headers["Content-Disposition"] == f'attachment; filename="Friday-league-{day}.trf"'
        status, printed = staff.call("GET", f"/staff/api/night/{night['id']}/print")
        assert status == 200 and "Friday league" in printed
    finally:
        table.close()
    again = _restarted(tmp_path)  # the same folder, the table started again: the night goes on
    try:
        staff = Staff(again.base)
        staff.login()
        night = staff.call("GET", "/staff/api/night")[1]["night"]
        assert night["name"] == "Friday league" and len(night["games_played"]) == 1
        closed = staff.call("POST", "/staff/api/night/close")[1]
        assert closed["night"] is None
        assert closed["kept_names"] == {night["id"]: "Friday league"}  # the nights kept shown by their names
    finally:
        again.close()


def _restarted(folder):
    """The table in ``folder`` started again, on its journal as it was left."""

    table = StaffTable.__new__(StaffTable)
    table.folder, table.key, table.config = folder, KEY, folder / "config.toml"
    table.daemon = service_daemon(table.config)
    table.daemon.start()
    table.runner = threading.Thread(target=table.daemon.run, daemon=True)
    table.runner.start()
    assert table.daemon.wait_for_phones() and table.daemon.companion is not None
    table.base = table.daemon.companion.base_url
    return table


def _join_from(base: str, team: str, source: str = "127.0.0.1") -> tuple[int, str, dict[str, str]]:
    """A team's join on the phones' page, from the address ``source`` (any of 127/8 on Linux)."""
    import http.client

    netloc = urllib.parse.urlsplit(base).netloc
    connection = http.client.HTTPConnection(netloc, timeout=10, source_address=(source, 0))
    try:
        connection.request("POST", "/night/join", urllib.parse.urlencode({"team": team, "nicknames": ""}),
                           {"Content-Type": "application/x-www-form-urlencoded"})
        answer = connection.getresponse()
        return answer.status, answer.read().decode(), dict(answer.getheaders())
    finally:
        connection.close()


def test_a_flood_of_joins_from_one_phone_is_stopped_and_the_staff_approve_and_remove_teams(tmp_path):
    """Issue 37, item 8: 64 teams joined from one address in 0.6 s; real teams were then answered
    409, the phantom teams were paired, and nothing removed a team."""
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday league", "games": ["codenames"], "tables": ["1"]})
        flood = [_join_from(table.base, f"Phantom {n}") for n in range(64)]
        joined = [n for n, (status, _, _) in enumerate(flood) if status == 200]
        assert joined == [0, 1, 2], [status for status, _, _ in flood]  # at most 3 teams a phone a night
        assert [status for status, _, _ in flood[3:6]] == [409] * 3 and "ask the staff to add more" in flood[3][1]
        assert {status for status, _, _ in flood[6:]} == {429}  # 6 tries a minute
        assert "Retry-After" in flood[-1][2] and "too many attempts" in flood[-1][1]
        assert "the staff confirm it" in flood[0][1]
        for team, source in (("The Owls", "127.0.0.2"), ("Quiz Club", "127.0.0.3")):
            status, page, _ = _join_from(table.base, team, source)
            assert status == 200, page  # a real team from its own phone still joins
        night = staff.call("GET", "/staff/api/night")[1]["night"]
        assert night["teams"] == [] and [t["name"] for t in night["waiting"]] == [
            "Phantom 0", "Phantom 1", "Phantom 2", "The Owls", "Quiz Club"]
        assert staff.call("POST", "/staff/api/night/propose")[0] == 409  # nobody approved: nobody paired
        for team in ("The Owls", "Quiz Club"):
            assert staff.call("POST", "/staff/api/night/approve", {"team": team})[0] == 200
        for n in range(3):
            assert staff.call("POST", "/staff/api/night/remove", {"team": f"Phantom {n}"})[0] == 200
        status, answer = staff.call("POST", "/staff/api/night/remove", {"team": "Phantom 0"})
        assert status == 409 and "no team Phantom 0" in answer["error"]
        assert staff.call("POST", "/staff/api/night/approve", {"team": 7})[0] == 400
        assert staff.call("POST", "/staff/api/night/remove", {"team": "x"}, csrf="wrong")[0] == 403
        status, answer = staff.call("POST", "/staff/api/night/propose")
        [pair] = answer["night"]["proposal"]["pairs"]
        assert {pair["red"], pair["blue"]} == {"The Owls", "Quiz Club"}
        staff.call("POST", "/staff/api/night/confirm")
        status, answer = staff.call("POST", "/staff/api/night/remove", {"team": "The Owls"})
        assert status == 409 and "round 1" in answer["error"]
    finally:
        table.close()
    again = _restarted(tmp_path)
    try:
        staff = Staff(again.base)
        staff.login()
        night = staff.call("GET", "/staff/api/night")[1]["night"]
        assert [t["name"] for t in night["teams"]] == ["The Owls", "Quiz Club"] and night["waiting"] == []
    finally:
        again.close()


def test_the_staff_page_lists_the_nights_on_offer_and_follows_one_only_with_its_hosts_code(tmp_path):
    from pi_table.fleet import schema
    from pi_table.night.book import Book
    from pi_table.night.recorder import Recorder

    host = Book(tmp_path / "host")
    host.open("Friday league", ["codenames"], ["t1", "1"])
    for name in ("Owls", "Quiz Club", "Foxes", "Moles"):
        host.join(name)
    host.propose()
    host.confirm()
    plan = schema.parse("plan", json.dumps(Recorder(host, "t1").plan()).encode())
    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", KEY)
    assert table.daemon.night is not None
    try:
        assert not table.daemon.night.follow("t1", plan)  # heard from the broker: an offer, not followed
        staff = Staff(table.base)
        staff.login()
        answer = staff.call("GET", "/staff/api/night")[1]
        assert answer["night"] is None and [(o["host"], o["name"]) for o in answer["offers"]] == [
            ("t1", "Friday league")]
        status, answer = staff.call("POST", "/staff/api/night/accept", {"host": "t1", "code": "0000 0000"})
        assert status == 409 and "not the code" in answer["error"]
        assert staff.call("POST", "/staff/api/night/accept", {"host": "t1"})[0] == 400
        status, answer = staff.call("POST", "/staff/api/night/accept", {"host": "t1", "code": host.current().code})
        assert status == 200 and answer["night"]["host"] == "t1" and answer["offers"] == []
        assert "code" not in answer["night"]  # a follower shows no code: its host's screen does
        assert staff.call("POST", "/staff/api/night/close")[0] == 409  # the host's to close
        status, answer = staff.call("POST", "/staff/api/night/leave")
        assert status == 200 and answer["night"] is None
        status, answer = staff.call("POST", "/staff/api/night/open",
                                    {"name": "Our own", "games": ["codenames"], "tables": ["1"]})
        assert status == 200 and answer["night"]["host"] is None
    finally:
        table.close()
        host.stop()


def test_the_staff_page_looks_at_the_night_once_though_it_closes_meanwhile(tmp_path):
    """The staff page's night took the night's snapshot, then asked the book for the open night
    again for its high scores: a night closed between the two (a host's plan, heard on the fleet's
    thread, closes the night a table follows) answered 500 with NightRefused. One look at the
    night now gives both."""
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday league", "games": ["codenames"], "tables": ["1"]})
        assert table.daemon.night is not None
        book = table.daemon.night.book
        looked = book.snapshot

        def closed_as_it_is_looked_at() -> dict[str, object] | None:
            night = looked()
            if book.night is not None and book.night.open:
                book.close()  # the close heard on another thread, just after the snapshot
            return night

        book.snapshot = closed_as_it_is_looked_at  # type: ignore[method-assign]
        status, answer = staff.call("GET", "/staff/api/night")
        assert status == 200 and answer["night"]["name"] == "Friday league" and answer["night"]["high_scores"] == []
        book.snapshot = looked  # type: ignore[method-assign]
        assert staff.call("GET", "/staff/api/night")[1]["night"] is None
    finally:
        table.close()
