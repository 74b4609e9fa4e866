"""A game night at a table: the staff page's night routes (behind the session and the CSRF token),
the phones' team page, a game played at the table recorded into the round, the exports, and a
restart of the table that finds the night as it was."""

from __future__ import annotations

import threading
import urllib.parse
import urllib.request

from helpers import Staff, StaffTable, get, service_daemon, wait_for

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
        assert staff.call("POST", "/staff/api/night/close")[1]["night"] is None
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
