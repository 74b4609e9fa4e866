"""A game night across the café's tables on the fleet's dashboard: the night shown is a host's
plan (``pi-table/<host>/plan``), and its games are those its tables tell of (their ``night``
topics), each counted once and only as the plan's round paired it at that table; every message
read against its declared schema, a bad one dropped and counted on its table's row, a table
sending faster than its share dropped and counted too; the standings the same computation as
the table's own, made off the MQTT thread; through a real Mosquitto, a table that was offline
sends its night when it is back."""

from __future__ import annotations

import json
import threading
import time

import pytest

from pi_table import config
from pi_table.engine.endings import Termination
from pi_table.fleet.tables import Fleet
from pi_table.night.book import Book
from pi_table.night.games import Game
from pi_table.night.recorder import Recorder
from pi_table.night.standings import standings

from helpers import wait_for

TEAMS = ("Owls", "Quiz Club", "Foxes", "Moles")
ROUNDS = ({"t1": ("Owls", "Quiz Club"), "t2": ("Foxes", "Moles")},
          {"t1": ("Quiz Club", "Moles"), "t2": ("Owls", "Foxes")})
OPENED = float(int(time.time()) - 3600)  # an hour ago, to the second, as a host's book opens a night


def night_id(opened: float) -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime(opened))


NIGHT = night_id(OPENED)


def plan(rounds: int = 2, opened: float = OPENED, night: str | None = None, tables=("t1", "t2"), seq: int = 7,
         closed: float | None = None, name: str = "Friday league") -> bytes:
    """A host's plan as ``Night.plan_json`` makes it: ``rounds`` of ``ROUNDS`` confirmed."""
    return json.dumps({
        "night": night or night_id(opened), "name": name, "games": ["codenames"], "tables": list(tables),
        "opened": opened, "closed": closed, "seq": seq, "teams": [{"name": team, "nicknames": []} for team in TEAMS],
        "rounds": [{"number": number, "resting": [],
                    "pairs": [{"table": table, "red": red, "blue": blue} for table, (red, blue) in made.items()]}
                   for number, made in enumerate(ROUNDS[:rounds], start=1)]}).encode()


def game(n: int, red: str, blue: str, winner: str | None, table: str = "t1", round_: int = 1) -> Game:
    return Game(f"g{n}", table, "codenames", (red, blue), winner, Termination.ALL_AGENTS_FOUND, 3, None, round_,
                1_700_000_000.0 + n)


def told(*games: Game, teams=TEAMS, night=NIGHT) -> bytes:
    return json.dumps({"night": night, "name": "Friday league", "open": True, "teams": list(teams),
                       "games": [g.to_json() for g in games]}).encode()


def hosted(fleet: Fleet, host: str = "t1", **made) -> Fleet:
    fleet.take(f"pi-table/{host}/plan", plan(**made))
    return fleet


def test_the_dashboard_counts_each_game_once_and_ranks_as_the_table_does():
    fleet = hosted(Fleet())
    first, second, third = game(1, "Owls", "Quiz Club", "Owls"), game(2, "Foxes", "Moles", None, table="t2"), \
        game(3, "Owls", "Foxes", "Foxes", table="t2", round_=2)
    fleet.take("pi-table/t1/night", told(first))
    fleet.take("pi-table/t1/night", told(first))  # sent again at a reconnect
    fleet.take("pi-table/t2/night", told(second, third))
    fleet.take("pi-table/t2/night", told(second, third))
    night = fleet.night()
    assert night is not None and night["games"] == ["g1", "g2", "g3"] and night["tables"] == ["t1", "t2"]
    assert (night["night"], night["host"], night["name"], night["open"]) == (NIGHT, "t1", "Friday league", True)
    expected = standings(TEAMS, [first, second, third])
    assert night["standings"] == [line.to_json() for line in expected]
    rows, due = fleet.news()  # what the dashboard's own thread tells the pages: each table's row once, and the nights
    assert due and {row["table_id"] for row in rows} == {"t1", "t2"} and fleet.news() == ([], False)


def test_a_game_a_table_claims_for_another_is_its_own_and_counted_once():
    fleet = hosted(Fleet())
    fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls")))
    fleet.take("pi-table/t2/night", told(game(1, "Owls", "Quiz Club", "Quiz Club", table="t1")))
    night = fleet.night()
    assert night is not None and night["games"] == ["g1"] and night["standings"][0]["team"] == "Owls"


def test_only_the_games_the_plan_paired_at_a_table_of_the_night_count():
    """Issue 37, 9: a table made up games under the real night's id (teams the round did not put
    at it, a round not confirmed, a table not in the night) and the dashboard counted them all.
    A game counts now as ``Night.awaits`` takes one at a follower: its round's pair at its table,
    of a game the night plays, the first for that round there."""
    fleet = hosted(Fleet(), rounds=1)
    fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls"),
                                         game(2, "Owls", "Quiz Club", "Quiz Club")))  # round 1 at t1 again
    fleet.take("pi-table/t2/night", told(game(3, "Owls", "Moles", "Moles", table="t2"),  # not t2's pair
                                         game(4, "Moles", "Foxes", "Moles", table="t2"),  # the pair, colours swapped
                                         game(5, "Owls", "Foxes", "Foxes", table="t2", round_=2)))  # no round 2 yet
    fleet.take("pi-table/t3/night", told(*(game(n, "Owls", "Foxes", "Foxes", table="t3") for n in range(6, 20))))
    coop = Game("g20", "t2", "codenames-coop", ("Foxes",), "Foxes", Termination.ALL_AGENTS_FOUND, None, 8, 1, 1.7e9)
    fleet.take("pi-table/t2/night", told(coop, game(3, "Owls", "Moles", "Moles", table="t2")))
    night = fleet.night()
    assert night is not None and night["games"] == ["g1"] and night["high_scores"] == []
    assert {line["team"]: line["played"] for line in night["standings"]} == {
        "Owls": 1, "Quiz Club": 1, "Foxes": 0, "Moles": 0}
    fleet.take("pi-table/t1/plan", plan(rounds=2, seq=8))  # round 2 confirmed: t2's game of it counts now
    fleet.take("pi-table/t2/night", told(game(5, "Owls", "Foxes", "Foxes", table="t2", round_=2)))
    assert fleet.night()["games"] == ["g1", "g5"]  # type: ignore[index]


def test_a_night_that_sorts_last_or_opens_in_the_future_does_not_replace_the_cafes():
    """Issue 37, 9: a table's night id that sorts last (``99991231-235959``) took the page from the
    café's night, and came back after every restart (retained). The nights shown are hosts'
    plans now, each of a plausible opening (its id the time it opened, not in the future); a
    table can add its own night beside the café's, never take the café's place or games."""
    fleet = hosted(Fleet())
    fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls")))
    fleet.take("pi-table/t9/night", told(game(2, "Owls", "Quiz Club", "Quiz Club", table="t9"), night="99991231-235959"))
    later = time.time() + 86400
    refused = {
        "99991231-235959": plan(night="99991231-235959", opened=later, tables=("t9",)),  # tomorrow, its own id
        "tomorrow": plan(opened=later, tables=("t9",)),
        "not its opening": plan(night="99991231-235959", tables=("t9",)),
        "a made-up id": plan(night="tonight", tables=("t9",)),
        "an hour after it opened": plan(night=night_id(OPENED + 3600), tables=("t9",)),
        "no date": plan(night="20251332-250000", tables=("t9",)),
    }
    for sent in refused.values():
        row = fleet.take("pi-table/t9/plan", sent)
        assert row is not None and row["dropped_why"].startswith("plan.night should be"), row
    assert fleet.take("pi-table/t9/plan", refused["tomorrow"])["dropped_why"] == (  # type: ignore[index]
        "plan.night should be a night opened by now: this table's clock may be ahead")
    assert [night["host"] for night in fleet.nights()] == ["t1"] and fleet.night()["games"] == ["g1"]  # type: ignore[index]
    fleet.take("pi-table/t9/plan", plan(opened=OPENED + 60, tables=("t9", "t1"), name="Rogue night"))  # plausible
    fleet.take("pi-table/t9/night", told(game(3, "Owls", "Quiz Club", "Quiz Club", table="t9"), night=night_id(OPENED + 60)))
    nights = {night["host"]: night for night in fleet.nights()}
    assert nights["t1"]["games"] == ["g1"] and nights["t1"]["name"] == "Friday league"
    assert nights["t9"]["games"] == []  # its pairs put nobody at t9
    bumped = hosted(Fleet(), night=night_id(OPENED + 1))  # its host had a night of that second (Book._new_id)
    assert [night["night"] for night in bumped.nights()] == [night_id(OPENED + 1)]
    closed = hosted(Fleet(), closed=OPENED + 7200)
    closed.take("pi-table/t2/plan", plan(opened=OPENED - 86400, tables=("t2",), name="Last week"))
    assert [night["name"] for night in closed.nights()] == ["Last week", "Friday league"]  # the open one first


def test_with_no_list_the_tables_that_play_a_night_put_it_first_and_a_night_from_elsewhere_apart():
    """Issue 48, 9: with no ``--cafe-tables``, a table's night named like the café's and opened
    later took the page. Each table tells only of its own night, with its own login (the shipped
    ACL: pi-table/<its name>/night), so the tables decide: the night the most of its tables play
    comes first, and its tables are the café's; a night hosted elsewhere is shown apart, after."""
    fleet = hosted(Fleet())
    fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls")))
    fleet.take("pi-table/t2/night", told(game(2, "Foxes", "Moles", "Moles", table="t2")))
    rogue = night_id(OPENED + 60)
    fleet.take("pi-table/t9/plan", plan(opened=OPENED + 60, tables=("t9", "t1")))  # named like the café's
    fleet.take("pi-table/t9/night", told(night=rogue))
    first = fleet.night()
    assert first is not None and (first["host"], first["night"], first["apart"]) == ("t1", NIGHT, False)
    assert first["games"] == ["g1", "g2"]
    assert [(night["host"], night["apart"]) for night in fleet.nights()] == [("t1", False), ("t9", True)]
    fleet.take("pi-table/t2/night", told(night=rogue))  # were the café's tables to play it, it would lead
    fleet.take("pi-table/t1/night", told(night=rogue))
    assert [(night["host"], night["apart"]) for night in fleet.nights()] == [("t9", False), ("t1", False)]
    listed = hosted(Fleet(cafe_tables=("t1", "t2")))  # the owner's list decides at once, before any game
    listed.take("pi-table/t9/plan", plan(opened=OPENED + 60, tables=("t9", "t1")))
    assert [night["host"] for night in listed.nights()] == ["t1"]


def test_only_the_cafes_tables_host_or_play_when_the_owner_listed_them():
    """Issue 37, 4 and 9: with the café's tables listed (``[fleet] cafe_tables``, the dashboard's
    ``--cafe-tables``), a plan from any other table is dropped, and a night's games are read
    from the listed tables alone."""
    fleet = hosted(Fleet(cafe_tables=("t1", "t3")), tables=("t1", "t2"))
    row = fleet.take("pi-table/t9/plan", plan(opened=OPENED + 60, tables=("t9", "t1")))
    assert row is not None and row["dropped"] == 1 and row["dropped_why"] == (
        "plan should be from one of the café's tables (t1, t3): [fleet] cafe_tables")
    fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls")))
    fleet.take("pi-table/t2/night", told(game(2, "Foxes", "Moles", "Moles", table="t2")))
    assert [night["host"] for night in fleet.nights()] == ["t1"]
    assert fleet.night()["games"] == ["g1"]  # type: ignore[index]  # t2 is no table of the café's


@pytest.mark.parametrize(("payload", "why"), [
    (b"not json", "night should be JSON in UTF-8 of at most 256 KB"),
    (json.dumps({"night": "n", "name": "x", "open": True, "teams": [], "games": [{"id": "g"}]}).encode(),
     "night.games[0].table should be a text of at most 100 characters"),
    (told(game(1, "Owls", "Quiz Club", "Owls")).replace(b"all_agents_found", b"a sentence"),
     "night.games[0].termination should be one of"),
    (told(game(1, "Owls", "Quiz Club", "Owls")).replace(b'"winner": "Owls"', b'"winner": "Moles"'),
     "the winner is one of the game's teams"),
    (told(game(1, "Owls", "Quiz Club", "Owls")).replace(b'"Quiz Club"], "winner"', b'"Owls"], "winner"'),
     "a game of codenames is played by 2 different teams"),
])
def test_a_bad_night_message_is_dropped_and_counted_on_its_tables_row(payload, why):
    fleet = hosted(Fleet())
    fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls")))
    row = fleet.take("pi-table/t1/night", payload)
    assert row is not None and row["dropped"] == 1 and row["dropped_why"].startswith(why)
    night = fleet.night()
    assert night is not None and night["games"] == ["g1"]  # what it had counted stays


def test_the_recorder_reports_the_night_and_only_this_tables_games(tmp_path):
    book = Book(tmp_path)
    recorder = Recorder(book, "t1")
    assert recorder.report() is None
    book.open("Friday league", ["codenames"], ["t1", "t2"])
    for name in TEAMS:
        book.join(name)
    book.propose()
    made = book.confirm()
    here, there = made.pair_at("t1"), made.pair_at("t2")
    assert here is not None and there is not None
    book.record(game(1, *here.teams, here.red))
    book.record(game(2, *there.teams, there.blue, table="t2"))
    report = recorder.report()
    assert report is not None and [g["id"] for g in report["games"]] == ["g1"] and report["open"]
    assert report["teams"] == list(TEAMS)
    fleet = Fleet()
    fleet.take("pi-table/t1/plan", json.dumps(recorder.plan()).encode())
    fleet.take("pi-table/t1/night", json.dumps(report).encode())
    assert fleet.night()["games"] == ["g1"]  # type: ignore[index]


def test_a_tables_messages_past_its_share_are_dropped_and_counted_on_its_row():
    """Issue 37, 9: a table sent its 95 KB night some 30 times a second, and the dashboard read
    every one. Each table has a share of what the dashboard reads (``SHARE_KB_S`` a second after
    a ``BURST_KB`` burst, a message counting at least 1 KB): past it a message is dropped
    unread and counted on the table's row, and another table is read as ever."""
    from pi_table.fleet.tables import BURST_KB, SHARE_KB_S

    pace = [100.0]
    fleet = hosted(Fleet(pace=lambda: pace[0]))
    big = told(*(game(n, "Owls", "Quiz Club", "Owls") for n in range(480)))
    assert 90_000 < len(big) < 100_000
    rows = [fleet.take("pi-table/t1/night", big) for _ in range(100)]
    taken = sum(row["dropped"] == before["dropped"] for before, row in zip([{"dropped": 0}, *rows], rows))
    assert taken == BURST_KB * 1024 // len(big) and rows[-1]["dropped"] == 100 - taken
    assert rows[-1]["dropped_why"] == f"more than {SHARE_KB_S} KB a second from one table: not read"
    assert fleet.take("pi-table/t2/status", b'{"game_id": "g7"}')["dropped"] == 0  # type: ignore[index]
    pace[0] += 1.0  # a second's share: one such message more
    assert fleet.take("pi-table/t1/night", big)["dropped"] == 100 - taken  # type: ignore[index]
    assert fleet.take("pi-table/t1/night", big)["dropped"] == 101 - taken  # type: ignore[index]
    small = [fleet.take("pi-table/t3/online", b"true") for _ in range(BURST_KB + 10)]  # each counts 1 KB
    assert small[-1]["dropped"] == 10  # type: ignore[index]


def test_the_standings_are_made_off_the_mqtt_thread_and_a_flood_of_nights_makes_few(monkeypatch, broker):
    """Issue 37, 9: every night message made the standings again in paho's one thread, so another
    table's change waited behind them. Now paho's thread only reads a message and marks the
    nights due; the dashboard's own thread makes them, at most every ``NIGHTS_EVERY_S``, once for
    however many messages came meanwhile."""
    from pi_table.fleet import link
    from pi_table.fleet.dashboard import Dashboard, hash_password
    from pi_table.night import standings as module

    made_in: list[str] = []
    real = module.standings

    def counted(*args):
        made_in.append(threading.current_thread().name)
        return real(*args)

    monkeypatch.setattr(module, "standings", counted)
    dashboard = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password("x" * 8), client_id="dash-flood")
    settings = config.broker(broker.url, table_id="t1")
    sender = link.client(settings, "flood-t1")
    dashboard.start()
    try:
        wait_for(dashboard.connected.is_set, "the dashboard's subscription", 10)
        sender.connect(settings.host, settings.port)  # connected before it publishes
        sender.loop_start()
        sender.publish("pi-table/t1/plan", plan(), qos=1, retain=True)
        for k in range(60):
            sender.publish("pi-table/t1/night", told(*(game(n, "Owls", "Quiz Club", "Owls") for n in range(k + 1))), qos=1)
        sender.publish("pi-table/t2/online", b"true", qos=1).wait_for_publish(10)  # after them all, in order
        wait_for(lambda: [row["table_id"] for row in dashboard.fleet.rows()] == ["t1", "t2"], "t2 after the flood", 10)
        wait_for(lambda: bool(made_in), "the standings made", 10)
        time.sleep(0.5)  # the last ones due made
        taken = 61 - dashboard.fleet.rows()[0]["dropped"]
        print(f"{taken} of 61 messages read; the standings made {len(made_in)} times, in {sorted(set(made_in))}")
        assert not any(name.startswith("paho") for name in made_in), made_in
        assert taken == 61 and len(made_in) <= taken // 4, f"{len(made_in)} standings for {taken} messages read"
        assert dashboard.fleet.night()["games"] == ["g0"]  # type: ignore[index]  # round 1 at t1 is played once
    finally:
        sender.disconnect()
        sender.loop_stop()
        dashboard.stop()


def test_a_rogue_nights_retained_messages_do_not_take_the_page_after_a_restart(broker):
    """Issue 37, 9 through Mosquitto: a table's retained night under an id that sorts last, and
    its retained plan of a night opened tomorrow, are what a restarted dashboard is handed first;
    the café's night, from its host's retained plan, is the one it shows."""
    from pi_table.fleet import link
    from pi_table.fleet.dashboard import Dashboard, hash_password

    settings = config.broker(broker.url)
    sender = link.client(settings, "retaining")
    sender.connect(settings.host, settings.port)  # connected before it publishes
    sender.loop_start()
    tomorrow = time.time() + 86400
    for topic, payload in [("pi-table/t1/plan", plan()), ("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Owls"))),
                           ("pi-table/t9/night", told(game(2, "Owls", "Foxes", "Foxes", table="t9"), night="99991231-235959")),
                           ("pi-table/t9/plan", plan(opened=tomorrow, tables=("t9",)))]:
        sender.publish(topic, payload, qos=1, retain=True).wait_for_publish(10)
    sender.disconnect()
    sender.loop_stop()
    dashboard = Dashboard(settings, "127.0.0.1", 0, hash_password("x" * 8), client_id="dash-restarted")
    dashboard.start()
    try:
        wait_for(lambda: [(row["table_id"], row["dropped"]) for row in dashboard.fleet.rows()] == [("t1", 0), ("t9", 1)],
                 "every retained message read", 10)
        assert dashboard.fleet.rows()[1]["dropped_why"] == (
            "plan.night should be a night opened by now: this table's clock may be ahead")
        assert [(night["night"], night["games"]) for night in dashboard.fleet.nights()] == [(NIGHT, ["g1"])]
    finally:
        dashboard.stop()


@pytest.mark.broker
def test_a_table_offline_sends_its_night_when_it_is_back_and_a_new_dashboard_learns_it(broker, tmp_path):
    from pi_table.fleet.dashboard import Dashboard, hash_password
    from pi_table.fleet.reporter import Reporter

    settings = config.broker(broker.url, table_id="t1")
    first = game(1, "Owls", "Quiz Club", "Owls")
    report = json.loads(told(first))
    table = Reporter(settings, act=lambda request: {"ok": True})
    table.plan(json.loads(plan()))
    table.night(report)  # recorded while the broker was away: nothing to send yet
    dashboard = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password("x" * 8), client_id="dash-1")
    dashboard.start()
    try:
        table.start()
        wait_for(lambda: (dashboard.fleet.night() or {}).get("games") == ["g1"], "t1's night on the dashboard", 10)
        report["games"].append(game(2, "Quiz Club", "Moles", "Moles", round_=2).to_json())
        table.night(report)
        wait_for(lambda: dashboard.fleet.night()["games"] == ["g1", "g2"], "the second game", 10)  # type: ignore[index]
    finally:
        table.stop()
        dashboard.stop()
    again = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password("x" * 8), client_id="dash-2")
    again.start()  # a dashboard started later: the night is retained at the broker
    try:
        wait_for(lambda: (again.fleet.night() or {}).get("games") == ["g1", "g2"], "the retained night", 10)
    finally:
        again.stop()


def test_the_cafes_tables_are_a_list_of_table_ids(tmp_path):
    """``[fleet] cafe_tables``: the owner's list of the café's tables, which a table follows a night
    from and the dashboard counts; each a table_id as the fleet's topics take it."""
    path = tmp_path / "config.toml"
    assert config.parse_config("", path).fleet.cafe_tables == ()
    listed = config.parse_config('[fleet]\nbroker = "mqtts://cafe"\ntable_id = "t1"\ncafe_tables = ["t1", "bar-2"]\n', path)
    assert listed.fleet.cafe_tables == ("t1", "bar-2")
    for value, said in [('"t1"', "fleet.cafe_tables: expected a list of strings, found 't1' (a string)"),
                        ("[1]", "fleet.cafe_tables: expected a list of strings, found [1] (a list)"),
                        ('["t1", "bar/2"]', "fleet.cafe_tables: cafe_tables lists the café's tables by their table_id, "
                                            "each 1 to 64 bytes with no '/', '+', '#', space or NUL, found 'bar/2'")]:
        with pytest.raises(config.ConfigError) as refused:
            config.parse_config(f"[fleet]\ncafe_tables = {value}\n", path)
        assert str(refused.value) == f"{path}: {said}"


def test_the_page_shows_each_hosts_night_with_its_standings(broker, browser):
    """The live page: a section for each night a host runs (its name, its host, whether it is
    closed, its standings), the open one first, redrawn as games come."""
    from pi_table.fleet.dashboard import Dashboard, hash_password

    dashboard = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password("x" * 8), client_id="dash-page")
    dashboard.start()
    try:
        wait_for(dashboard.connected.is_set, "the dashboard's subscription", 10)
        dashboard.fleet.take("pi-table/t1/plan", plan())  # as paho hands it over
        dashboard.fleet.take("pi-table/t2/plan", plan(opened=OPENED - 86400, tables=("t2",), name="Last week",
                                                      closed=OPENED - 80000))
        page = browser.new_page()
        page.goto(f"{dashboard.url}/login")
        page.fill("input[name=password]", "x" * 8)
        page.click("button")
        page.wait_for_selector(".night:nth-child(2)", timeout=10_000)
        assert [page.inner_text(f".night:nth-child({n}) h2") for n in (1, 2)] == [
            "Standings of Friday league", "Standings of Last week"]
        assert [page.inner_text(f".night:nth-child({n}) p") for n in (1, 2)] == ["run from table t1",
                                                                                  "run from table t2 · closed"]
        dashboard.fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Quiz Club")))
        page.wait_for_function("document.querySelector('.night tbody tr').innerText.startsWith('1. Quiz Club')",
                               timeout=10_000)
        assert page.inner_text(".night thead").split() == ["Team", "played", "won", "lost", "byes", "points", "margin",
                                                           "rating", "Buchholz"]
        assert page.inner_text(".night tbody tr:nth-child(1)").split("\t")[:6] == ["1. Quiz Club", "1", "1", "0", "0", "1"]
        assert page.inner_text(".night:nth-child(1) p:nth-of-type(2)") == "Tie-break: rating, then margin"  # issue 38.8
        page.close()
    finally:
        dashboard.stop()



def test_the_page_shows_the_tie_breaks_the_director_chose_in_their_order_and_shared_places(broker, browser):
    """Issue 59: a director orders the tie-breaks (Buchholz Cut-1, Sonneborn-Berger, direct
    encounter...); the page names them as the staff page does, in the page's language, shows the
    columns of those that have one, and teams the tie-breaks leave level share their place."""
    from pi_table.fleet.dashboard import Dashboard, hash_password

    dashboard = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password("x" * 8), client_id="dash-ties")
    dashboard.start()
    try:
        wait_for(dashboard.connected.is_set, "the dashboard's subscription", 10)
        ordered = {**json.loads(plan(rounds=1)), "tiebreak": "buchholz-cut1,sonneborn-berger,direct-encounter,wins"}
        dashboard.fleet.take("pi-table/t1/plan", json.dumps(ordered).encode())
        dashboard.fleet.take("pi-table/t1/night", told(game(1, "Owls", "Quiz Club", "Quiz Club")))
        lines = dashboard.fleet.night()["standings"]  # type: ignore[index]
        assert any(line["shared"] for line in lines)  # Owls, Foxes and Moles: no tie-break tells them apart
        for locale, words in (("en-GB", ["Team", "played", "won", "lost", "byes", "points", "margin", "rating",
                                         "Buchholz", "Buchholz Cut-1", "Sonneborn-Berger", "wins",
                                         "Tie-break: Buchholz Cut-1, Sonneborn-Berger, direct encounter, wins"]),
                              ("it-IT", ["Squadra", "giocate", "vinte", "perse", "riposi", "punti", "margine",
                                         "valutazione", "Buchholz", "Buchholz Cut-1", "Sonneborn-Berger", "vittorie",
                                         "Spareggio: Buchholz Cut-1, Sonneborn-Berger, scontro diretto, vittorie"])):
            page = browser.new_page(locale=locale)
            page.goto(f"{dashboard.url}/login")
            page.fill("input[name=password]", "x" * 8)
            page.click("button")
            page.wait_for_selector(".night tbody tr", timeout=10_000)
            assert page.inner_text(".night thead").strip().split("\t") == words[:-1]
            assert page.inner_text(".night p:nth-of-type(2)") == words[-1]
            assert [row.split("\t")[0] for row in page.inner_text(".night tbody").strip().split("\n")] == [
                f"{line['place']}{'=' if line['shared'] else '.'} {line['team']}" for line in lines]
            page.close()
    finally:
        dashboard.stop()
