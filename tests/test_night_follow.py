"""A game night across tables: the host's plan (its teams and confirmed rounds) read by each
table that follows it, kept in that table's own book, and what a follower refuses (a plan of a
night it is not in, another host's while it follows one, a stale night, a rewritten round, a
game a table claims for another); then two tables through a real Mosquitto, the follower
recording its round's game from the plan alone and the host and the dashboard counting it once."""

from __future__ import annotations

import json
import logging
import time

import pytest

from pi_table import config
from pi_table.engine.endings import Termination
from pi_table.fleet import schema
from pi_table.night.book import Book
from pi_table.night.code import shown
from pi_table.night.events import NightRefused
from pi_table.night.follower import NEW_NIGHT_S
from pi_table.night.games import Game
from pi_table.night.recorder import Recorder

from helpers import wait_for
from helpers_fleet import heard, played_at

TEAMS = ("Owls", "Quiz Club", "Foxes", "Moles")


def hosted(tmp_path, clock=time.time) -> tuple[Book, Recorder]:
    """A host (t1) with a night at t1 and t2, four teams and round 1 confirmed."""
    book = Book(tmp_path / "host", clock=clock)
    book.open("Friday league", ["codenames"], ["t1", "t2"])
    for name in TEAMS:
        book.join(name)
    book.propose()
    book.confirm()
    return book, Recorder(book, "t1")


def accepted(tmp_path, host: Book, at_host: Recorder, name: str = "t2") -> Recorder:
    """A follower (``name``) whose staff accepted the host's night with the code its screen shows."""
    follower = Recorder(Book(tmp_path / name), name)
    follower.follow("t1", heard(at_host))
    follower.book.accept("t1", host.current().code)
    return follower


def test_a_table_follows_no_night_its_staff_did_not_accept_and_a_plan_not_accepted_blocks_nothing(tmp_path):
    """Issue 37, item 4: t3's plan naming t2, heard first, was kept; the real host's was then
    refused, and t2's staff were answered 409 to close the night and to open their own."""
    rogue = Book(tmp_path / "t3")
    rogue.open("Free drinks", ["codenames"], ["t2", "t3"])
    for name in ("Owls", "Moles"):
        rogue.join(name)
    rogue_plan = heard(Recorder(rogue, "t3"))
    host, at_host = hosted(tmp_path)
    follower = Recorder(Book(tmp_path / "t2", clock=lambda: time.time() + 60), "t2")  # its own nights' ids are its clock's
    assert not follower.follow("t3", rogue_plan)
    assert follower.book.night is None
    assert not follower.follow("t1", heard(at_host))  # the real host's too: its staff have not accepted it
    assert [(offer["host"], offer["name"]) for offer in follower.book.offered()] == [
        ("t3", "Free drinks"), ("t1", "Friday league")]
    assert follower.book.open("Our own", ["codenames"], ["t2"]).host is None  # nothing blocked
    follower.book.close()
    follower.book.accept("t1", host.current().code)
    assert follower.book.current().host == "t1" and follower.book.current().rounds == host.current().rounds
    assert [offer["host"] for offer in follower.book.offered()] == ["t3"]
    assert not follower.follow("t3", {**rogue_plan, "seq": rogue_plan["seq"] + 1})  # still an offer, nothing more
    assert follower.book.current().host == "t1"


def test_staff_accept_a_host_only_with_the_code_its_screen_shows_for_that_night(tmp_path, caplog):
    now = [time.time()]
    host, at_host = hosted(tmp_path, clock=lambda: now[0])
    code = host.current().code
    assert len(code) == 8 and shown(code) in str(at_host.next_up())  # on the host's screen, beside its pair
    assert host.current().to_json()["code"] == shown(code)  # and on its staff page
    assert shown(code) not in json.dumps(at_host.plan()) and code not in json.dumps(at_host.plan())
    follower = Recorder(Book(tmp_path / "t2"), "t2")
    caplog.set_level(logging.INFO, "pi_table.night")
    plan = heard(at_host)
    assert not follower.follow("t1", plan) and not follower.follow("t1", plan)
    assert len([r for r in caplog.records if "offers" in r.getMessage()]) == 1  # said once, not at every hearing
    with pytest.raises(NightRefused, match="not the code of table t1's night Friday league"):
        follower.book.accept("t1", "ABCD EFGH")
    copied = {**plan, "night": "20250101-000000"}  # t3 sends t1's plan and proof as its own
    follower.follow("t3", {**copied, "opened": plan["opened"]})
    with pytest.raises(NightRefused, match="not the code"):
        follower.book.accept("t3", code)  # the proof is t1's, of its night: no other table's
    with pytest.raises(NightRefused, match="offers no night"):
        follower.book.accept("t9", code)
    host.close(over=True)  # its round still played: closed over it (issue 59)
    now[0] += 60
    host.open("Saturday league", ["codenames"], ["t1", "t2"])
    assert host.current().code != code
    assert not follower.follow("t1", heard(at_host))
    with pytest.raises(NightRefused, match="not the code"):
        follower.book.accept("t1", code)  # a code seen once serves its own night alone
    night = follower.book.accept("t1", shown(host.current().code).lower().replace(" ", "-"))  # as typed on a phone
    assert night.name == "Saturday league" and night.host == "t1"


def test_the_owners_list_of_the_cafe_tables_lets_its_tables_be_followed_without_a_code(tmp_path):
    _, at_host = hosted(tmp_path)
    rogue = Book(tmp_path / "t3")
    rogue.open("Free drinks", ["codenames"], ["t2", "t3"])
    listed = Recorder(Book(tmp_path / "t2", cafe_tables=("t1", "t2")), "t2")
    assert not listed.follow("t3", heard(Recorder(rogue, "t3")))  # not on the owner's list: an offer
    assert listed.follow("t1", heard(at_host)) and listed.book.current().host == "t1"
    listed.book.leave()
    assert listed.book.night is not None and not listed.book.night.open
    assert not listed.follow("t1", heard(at_host))  # left by its staff: not followed again unasked


def test_staff_leave_a_followed_night_and_their_table_is_its_own_again_after_a_restart(tmp_path):
    host, at_host = hosted(tmp_path)
    follower = Recorder(Book(tmp_path / "t2", clock=lambda: time.time() + 60), "t2")
    follower.follow("t1", heard(at_host))
    follower.book.accept("t1", host.current().code)
    with pytest.raises(NightRefused, match="run from table t1"):
        follower.book.close()
    with pytest.raises(NightRefused, match="follows the night Friday league of table t1: leave it first"):
        follower.book.open("Our own", ["codenames"], ["t2"])
    left = follower.book.leave()
    assert not left.open and follower.book.snapshot() is None
    follower.book.open("Our own", ["codenames"], ["t2"])
    follower.book.stop()
    again = Book(tmp_path / "t2")
    assert again.current().name == "Our own" and again.current().host is None
    with pytest.raises(NightRefused, match="hosts the night Our own: close it"):
        again.leave()
    again.close()
    follower = Recorder(Book(tmp_path / "t2"), "t2")
    follower.follow("t1", heard(at_host))
    night = follower.book.accept("t1", host.current().code)  # a night left by mistake is taken up again
    assert night.open and night.host == "t1" and night.rounds == host.current().rounds


def test_a_hosts_plan_of_a_newer_night_ends_the_one_followed_from_it(tmp_path):
    """A follower away while its host closed the night hears only the host's next night (the plan
    retained): a host runs one night at a time, so the one followed here is over."""
    now = [time.time()]
    host, at_host = hosted(tmp_path, clock=lambda: now[0])
    follower = Recorder(Book(tmp_path / "t2", cafe_tables=["t1"]), "t2")
    assert follower.follow("t1", heard(at_host))
    first = follower.book.current().id
    host.close(over=True)  # its round still played: closed over it (issue 59)
    now[0] += 60
    host.open("Saturday league", ["codenames"], ["t1", "t2"])
    assert follower.follow("t1", heard(at_host))  # on the owner's list: the new night followed at once
    assert follower.book.current().name == "Saturday league" and follower.book.night_of(first).left


def test_a_plan_without_a_team_the_host_removed_is_kept_while_no_game_here_names_it(tmp_path):
    host, at_host = hosted(tmp_path)
    follower = accepted(tmp_path, host, at_host)
    host.join("Latecomers")
    assert follower.follow("t1", heard(at_host)) and "Latecomers" in follower.book.current().teams
    host.remove("Latecomers")
    assert follower.follow("t1", heard(at_host)) and "Latecomers" not in follower.book.current().teams


def test_a_follower_records_its_round_game_from_the_plan_and_keeps_it_across_a_restart(tmp_path):
    host, at_host = hosted(tmp_path)
    follower = accepted(tmp_path, host, at_host)
    pair = host.current().round.pair_at("t2")  # type: ignore[union-attr]
    assert pair is not None and str(follower.next_up()) == f"next: {pair.red} vs {pair.blue} at table t2"
    game = played_at(follower)
    assert game is not None and game.table == "t2" and game.teams == pair.teams and game.round == 1
    report = schema.parse("night", json.dumps(follower.report()).encode())
    assert [g.id for g in at_host.gather("t2", report)] == [game.id]  # type: ignore[arg-type]
    assert at_host.gather("t2", report) == [] and host.current().ids() == {game.id}  # once  # type: ignore[arg-type]
    again = Book(tmp_path / "t2")  # a restart or a power cut: the plan and the game are in its own book
    assert again.night is not None and again.night.host == "t1" and again.night.ids() == {game.id}
    assert again.night.seq == follower.book.current().seq and again.snapshot()["host"] == "t1"  # type: ignore[index]
    with pytest.raises(NightRefused, match="run from table t1's staff page"):
        again.join("Latecomers")
    for action in (again.propose, again.confirm, again.close):
        with pytest.raises(NightRefused, match="run from table t1"):
            action()


def test_a_newer_plan_replaces_the_kept_one_and_an_older_or_the_same_is_left(tmp_path):
    host, at_host = hosted(tmp_path)
    first = heard(at_host)
    follower = accepted(tmp_path, host, at_host)
    host.join("Latecomers")
    host.propose()
    host.confirm(over=True)  # round 1 is still played at both tables
    second = heard(at_host)
    assert second["seq"] > first["seq"]
    assert follower.follow("t1", second) and len(follower.book.current().rounds) == 2
    assert not follower.follow("t1", first) and not follower.follow("t1", second)  # an old plan re-sent
    assert "Latecomers" in follower.book.current().teams
    host.close(over=True)  # its round still played: closed over it (issue 59)
    assert follower.follow("t1", heard(at_host))
    assert follower.book.night is not None and not follower.book.night.open and follower.book.snapshot() is None


def test_a_follower_refuses_what_a_rogue_table_could_try(tmp_path, caplog):
    host, at_host = hosted(tmp_path)
    plan = heard(at_host)
    follower = Recorder(Book(tmp_path / "t2"), "t2")
    caplog.set_level(logging.WARNING, "pi_table.night")
    assert not Recorder(Book(tmp_path / "t3"), "t3").follow("t1", plan)  # a night it is not in
    assert not follower.follow("t2", plan)  # its own name as the host
    assert not follower.follow("t1", {**plan, "night": "../../journal/x"})  # no night's id: no file is made of it
    stale = Recorder(Book(tmp_path / "stale", clock=lambda: plan["opened"] + NEW_NIGHT_S + 1), "t2")
    assert not stale.follow("t1", plan)  # a plan retained from a night long opened
    bad_round = json.loads(json.dumps(plan))
    bad_round["rounds"][0]["pairs"][1]["red"] = "Gatecrashers"  # a team the night does not have
    assert not follower.follow("t1", bad_round)
    assert follower.book.night is None and not list((tmp_path / "t2").glob("*.jsonl"))
    assert not follower.follow("t1", plan)  # an offer, until the staff accept it
    follower.book.accept("t1", host.current().code)
    assert not follower.follow("t3", {**plan, "seq": plan["seq"] + 5})  # another host: an offer, nothing more
    assert [offer["host"] for offer in follower.book.offered()] == ["t3"] and follower.book.current().host == "t1"
    assert not follower.follow("t3", {**plan, "night": "20990101-000000", "seq": 1})  # an id is a name: an offer
    rewritten = json.loads(json.dumps(plan))
    pairs = rewritten["rounds"][0]["pairs"]
    pairs[0]["red"], pairs[1]["red"] = pairs[1]["red"], pairs[0]["red"]  # round 1 moved after the fact
    assert not follower.follow("t1", {**rewritten, "seq": plan["seq"] + 1})
    assert not follower.follow("t1", {**plan, "tables": ["t1", "t2", "t9"], "seq": plan["seq"] + 1})
    assert follower.book.current().rounds == host.current().rounds and follower.book.current().seq == plan["seq"]
    refused = [r.getMessage() for r in caplog.records if "was refused" in r.getMessage()]
    assert len(refused) == 7 and all("Gatecrashers" not in line for line in refused)


def test_a_table_gathers_only_the_games_another_table_played_for_its_round_pair(tmp_path):
    host, at_host = hosted(tmp_path)
    night = host.current()
    pair_t2 = night.round.pair_at("t2")  # type: ignore[union-attr]
    pair_t1 = night.round.pair_at("t1")  # type: ignore[union-attr]
    assert pair_t1 is not None and pair_t2 is not None

    def report(*games: Game, night_id: str = night.id) -> dict:
        return {"night": night_id, "name": night.name, "open": True, "teams": list(TEAMS),
                "games": [g.to_json() for g in games]}

    def game(n: int, table: str, teams: tuple[str, str], round_: int | None = 1) -> Game:
        return Game(f"g{n}", table, "codenames", teams, teams[0], Termination.ALL_AGENTS_FOUND, 2, None, round_,
                    1_700_000_000.0 + n)

    assert at_host.gather("t2", report(game(1, "t1", pair_t1.teams))) == []  # a game it says was played at t1
    assert at_host.gather("t2", report(game(2, "t2", pair_t1.teams))) == []  # a pair the round did not put there
    assert at_host.gather("t2", report(game(3, "t2", pair_t2.teams[::-1]))) == []  # its colours swapped
    assert at_host.gather("t2", report(game(4, "t2", pair_t2.teams, round_=2))) == []  # a round not confirmed
    assert at_host.gather("t2", report(game(5, "t2", pair_t2.teams), night_id="20000101-000000")) == []
    assert at_host.gather("t1", report(game(6, "t1", pair_t1.teams))) == []  # its own table's: the recorder's alone
    assert [g.id for g in at_host.gather("t2", report(game(7, "t2", pair_t2.teams), game(8, "t2", pair_t2.teams)))] \
        == ["g7"]  # one game a round at a table
    assert host.current().ids() == {"g7"}


def test_a_bad_plan_or_night_message_is_dropped_and_logged_never_raised_in_pahos_thread(tmp_path, caplog):
    from paho.mqtt.client import MQTTMessage

    from pi_table.fleet.reporter import Reporter

    _, at_host = hosted(tmp_path)
    follower = Recorder(Book(tmp_path / "t2", cafe_tables=["t1"]), "t2")
    reporter = Reporter(config.broker("mqtt://127.0.0.1:1", table_id="t2"), act=lambda request: {"ok": True})
    reporter.take_night(follower)
    caplog.set_level(logging.WARNING)

    def message(topic: str, payload: bytes) -> MQTTMessage:
        made = MQTTMessage(topic=topic.encode())
        made.payload = payload
        return made

    plan = at_host.plan()
    assert plan is not None
    for payload in (b"not json", json.dumps({**plan, "seq": -1}).encode(), json.dumps({**plan, "teams": [1]}).encode()):
        reporter._plan_heard(reporter.client, None, message("pi-table/t1/plan", payload))
    reporter._games_heard(reporter.client, None, message("pi-table/t1/night", b'{"night": 3}'))
    assert follower.book.night is None
    dropped = [r.getMessage() for r in caplog.records if "was dropped" in r.getMessage()]
    assert len(dropped) == 4 and "plan.seq should be a whole number from 0" in dropped[1]
    reporter._plan_heard(reporter.client, None, message("pi-table/t1/plan", json.dumps(plan).encode()))
    assert follower.book.current().host == "t1"  # its host on the owner's list of the café's tables


@pytest.mark.broker
def test_two_tables_through_mosquitto_the_follower_records_its_round_game_from_the_plan_alone(broker, tmp_path):
    from pi_table.fleet.dashboard import Dashboard, hash_password
    from pi_table.fleet.reporter import Reporter

    tables = {name: Recorder(Book(tmp_path / name), name) for name in ("t1", "t2")}
    reporters = {name: Reporter(config.broker(broker.url, table_id=name), act=lambda request: {"ok": True})
                 for name in tables}
    dashboard = Dashboard(config.broker(broker.url), "127.0.0.1", 0, hash_password("x" * 8), client_id="dash")
    for name, reporter in reporters.items():
        reporter.take_night(tables[name])
    host, follower = tables["t1"].book, tables["t2"]
    try:
        dashboard.start()
        for reporter in reporters.values():
            reporter.start()
        host.open("Friday league", ["codenames"], ["t1", "t2"])  # on t1's staff page
        wait_for(lambda: follower.book.offered(), "t1's night on offer to t2", 10)
        follower.book.accept("t1", host.current().code)  # on t2's staff page, the code read off t1's screen
        for name in TEAMS:
            host.join(name)
        host.propose()
        made = host.confirm()
        wait_for(lambda: follower.book.night is not None and follower.book.night.rounds == [made],
                 "t2 following t1's plan", 10)
        game = played_at(follower)  # t2's book was never copied: the plan alone told it its pair
        pair = made.pair_at("t2")
        assert game is not None and pair is not None and game.teams == pair.teams
        wait_for(lambda: game.id in host.current().ids(), "t1 gathering t2's game", 10)
        wait_for(lambda: (dashboard.fleet.night() or {}).get("games") == [game.id], "the dashboard counting it", 10)
        ours = played_at(tables["t1"], seed=2)
        assert ours is not None
        wait_for(lambda: sorted((dashboard.fleet.night() or {}).get("games", [])) == sorted([game.id, ours.id]),
                 "both games on the dashboard, each once", 10)
        wait_for(lambda: follower.book.current().ids() == {game.id, ours.id}, "t2 gathering t1's game", 10)
        assert [line.to_json() for line in host.current().standings()] == dashboard.fleet.night()["standings"]  # type: ignore[index]
        host.close()
        wait_for(lambda: follower.book.night is not None and not follower.book.night.open, "t2 hearing the close", 10)
    finally:
        for reporter in reporters.values():
            reporter.stop()
        dashboard.stop()
        for table in tables.values():
            table.book.stop()



def test_an_earlier_nights_correction_heard_leaves_the_next_night_on_offer(tmp_path):
    """A host's earlier night, corrected and told again (issue 76, item 10), is no offer of its
    own: the night on offer from that host stays on offer to the staff, as it was."""
    from pi_table.fleet import schema

    host, follower = Recorder(Book(tmp_path / "t1"), "t1"), Recorder(Book(tmp_path / "t2"), "t2")
    friday = host.book.open("Friday", ["codenames"], ["t1", "t2"])
    for name in TEAMS:
        host.book.join(name)
    host.book.propose()
    made = host.book.confirm()
    host.book.close(over=True)
    host.book.open("Saturday", ["codenames"], ["t1", "t2"])
    assert follower.follow("t1", heard(host)) is False
    assert [offer["name"] for offer in follower.book.offered()] == ["Saturday"]
    host.book.correct(friday.id, 1, made.pairs[0].table, "double-loss", "staff")
    plan = host.corrected_plan(host.book.night_of(friday.id))
    assert plan is not None and host.corrected_plan(host.book.current()) is None
    assert follower.follow("t1", schema.parse("plan", json.dumps(plan).encode())) is False  # it never followed Friday
    assert [offer["name"] for offer in follower.book.offered()] == ["Saturday"]
    host.book.stop()
    follower.book.stop()

@pytest.mark.broker
def test_a_correction_of_an_earlier_night_reaches_its_followers_once_the_host_opened_the_next(broker, tmp_path):
    """Issue 76, item 10: the host's retained plan tells of its night now; a result of an earlier
    night corrected after the host opened the next reached no follower (``Book._closed_change``
    told only of the night now). It is published once more, not retained: a follower online
    keeps it at once, one offline from its persistent session when back, and the next night's
    plan stays the retained one."""
    from pi_table.fleet.reporter import Reporter

    tables = {name: Recorder(Book(tmp_path / name, cafe_tables=["t1"]), name) for name in ("t1", "t2", "t3")}
    reporters = {name: Reporter(config.broker(broker.url, table_id=name), act=lambda request: {"ok": True})
                 for name in tables}
    for name, reporter in reporters.items():
        reporter.take_night(tables[name])
    host = tables["t1"].book
    try:
        for reporter in reporters.values():
            reporter.start()
        friday = host.open("Friday", ["codenames"], ["t1", "t2", "t3"])
        for name in TEAMS:
            host.join(name)
        host.propose()
        made = host.confirm()
        host.close(over=True)
        for name in ("t2", "t3"):
            wait_for(lambda name=name: tables[name].book.night is not None and not tables[name].book.night.open,
                     f"{name} hearing Friday's close", 10)
        saturday = host.open("Saturday", ["codenames"], ["t1", "t2", "t3"])
        for name in ("t2", "t3"):
            wait_for(lambda name=name: (tables[name].book.night or friday).id == saturday.id,
                     f"{name} following Saturday", 10)
        reporters["t3"].stop()  # t3 is away while the director corrects Friday
        pair = made.pairs[0]
        host.correct(friday.id, 1, pair.table, "forfeit", "staff", winner=pair.blue)
        corrected = [line.to_json() for line in host.night_of(friday.id).standings()]

        def kept(name: str) -> list[dict[str, object]]:
            return [line.to_json() for line in tables[name].book.night_of(friday.id).standings()]

        wait_for(lambda: kept("t2") == corrected, "t2 keeping Friday's correction", 10)
        assert tables["t2"].book.night is not None and tables["t2"].book.night.id == saturday.id
        assert kept("t3") != corrected
        reporters["t3"] = Reporter(config.broker(broker.url, table_id="t3"), act=lambda request: {"ok": True})
        reporters["t3"].take_night(tables["t3"])
        reporters["t3"].start()
        wait_for(lambda: kept("t3") == corrected, "t3 keeping Friday's correction once back", 10)
        assert tables["t3"].book.night is not None and tables["t3"].book.night.id == saturday.id
        assert tables["t3"].book.night.open
    finally:
        for reporter in reporters.values():
            reporter.stop()
        for table in tables.values():
            table.book.stop()
