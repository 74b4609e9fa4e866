"""Issue 64: a league across cafés. Each café's host table sends its closed nights (and their
corrections, which replace them) under the league's topics; the league folds them into the season's
standings, per café and overall, and keeps apart a night that is not the sender's. The season is
checked against a recomputation written from the rules: the nights' own standings as each café's
book keeps them, the league's scoring applied by hand, and openskill's rating taken game by game."""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from collections.abc import Iterator

import paho.mqtt.client as mqtt
import pytest

from pi_table.bench.league import play_night
from pi_table.config import FleetConfig
from pi_table.fleet import league as league_
from pi_table.fleet import schema
from pi_table.fleet.league import League, LeagueRefused, Scoring, night_topic, record
from pi_table.night.book import Book
from pi_table.night.names import NameRefused
from pi_table.night.standings import standings
from pi_table.night.state import Night
from pi_table.night.state import fold as fold_night

from helpers_fleet import LEAGUE_START as START
from helpers_fleet import CafeClock as Clock
from helpers_fleet import recomputed, sent, shown, two_cafes

STAFF = "staff · 1a2b3c"


@pytest.mark.parametrize("scoring", [Scoring(), Scoring("places", (10, 6, 4, 3, 2, 1)), Scoring("night", best=2),
                                     Scoring("places", best=2)], ids=["night", "places", "best-2", "places-best-2"])
def test_the_season_equals_a_recomputation_from_the_cafes_own_nights(tmp_path, scoring):
    rng = random.Random(64)
    books, played = two_cafes(tmp_path, rng)
    league = League("spring", scoring, cafes={"bar-roma": ["r1", "r2"], "bar-milano": ["m1", "m2", "m3"]})
    for cafe, host, night in played:
        assert league.take(*sent(night, cafe, host))
    assert league.apart == {}
    own = [(cafe, books[cafe].night_of(night.id)) for cafe, _, night in played]  # each café's book, read again
    assert shown(league.season(), league) == recomputed(own, scoring)
    assert shown(league.season("bar-milano"), league) == recomputed([n for n in own if n[0] == "bar-milano"], scoring)
    both = {league.team(line.team): line.cafes for line in league.season()}
    assert both["owls"] == both["zebras"] == ("bar-milano", "bar-roma")  # the same team across cafés, as names compare
    places = [line.place for line in league.season()]
    assert places[0] == 1 and places == sorted(places)


def test_a_correction_replaces_the_night_and_an_older_version_changes_nothing(tmp_path):
    rng = random.Random(7)
    books, played = two_cafes(tmp_path, rng)
    league = League("spring")
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))
    cafe, host, night = played[0]
    first = sent(night, cafe, host)
    pair = night.rounds[0].pairs[0]
    loser = next(team for team in pair.teams if team != night.slots()[(1, pair.table)].winner)
    corrected = books[cafe].correct(night.id, 1, pair.table, "won", STAFF, winner=loser)
    league.take(*sent(corrected, cafe, host))
    league.take(*first)  # the earlier version, heard again (a retained message, a bridge back): changes nothing
    own = [(c, books[c].night_of(n.id)) for c, _, n in played]
    assert shown(league.season(), league) == recomputed(own, Scoring())
    kept = league.nights[(cafe, host, night.id)]
    assert kept.seq == corrected.seq and len(league.nights) == len(played)  # replaced, not added
    assert kept.night.slots()[(1, pair.table)].winner == loser
    assert league.take(night_topic("spring", cafe, host, night.id), b"")  # taken back
    assert (cafe, host, night.id) not in league.nights


def test_a_cafe_is_last_heard_when_its_own_nights_say_not_when_the_page_heard_them_again(tmp_path):
    """Issue 76, 5: a page restarted a month on (or a bridge's replay) hears every night again; a
    café is last heard when its newest night's newest event was, by the café's clock (a correction's
    when it was corrected), never in the page's future."""
    _, played = two_cafes(tmp_path, random.Random(9))
    month_on = START + 30 * 86400
    league = League("spring", clock=lambda: month_on)
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))

    def newest(cafe: str) -> float:
        return max(float(event["at"]) for c, _, night in played if c == cafe for event in night.events if "at" in event)

    assert league.heard == {"bar-roma": newest("bar-roma"), "bar-milano": newest("bar-milano")}
    assert all(line["heard"] < month_on for line in league.to_json()["cafes"])
    cafe, host, night = played[0]
    league.take(*sent(night, cafe, host))  # an old night again: nothing newer heard
    assert league.heard["bar-roma"] == newest("bar-roma")
    ahead = League("spring", clock=lambda: START)  # a café's clock ahead of the page's: heard now, not later
    ahead.take(*sent(night, cafe, host))
    assert ahead.heard["bar-roma"] == START


def test_the_season_is_computed_once_a_change_and_every_view_export_and_send_is_served_from_it(tmp_path,
                                                                                              monkeypatch):
    """Issue 76, 2: the page's views (each language), its exports, a merge's check and the season
    sent down read the season computed for the league's version: the standings (``night.standings``,
    the rating over every game) are computed once per change, the whole season and each café's, and
    a night heard again as it was (a bridge's replay at its reconnect) is no change."""
    rng = random.Random(76)
    _, played = two_cafes(tmp_path, rng)
    league = League("spring")
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))
    computed = []
    monkeypatch.setattr(league_, "standings", lambda *a, **k: computed.append(1) or standings(*a, **k))

    def every_reader() -> None:
        for _ in range(3):
            for lang in ("en", "it"):
                league.to_json(lang)
            league.season(), league.season("bar-roma"), league.csv(), league.xlsx()
        lines = league.season()
        with pytest.raises(LeagueRefused):
            league.mergeable(lines[0].key, lines[0].key)

    every_reader()
    assert len(computed) == 3  # the season overall, and each of the two cafés'
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))  # a bridge's replay: the same nights again
    every_reader()
    assert len(computed) == 3
    first = league.to_json("en")
    assert league.to_json("en")["season"] is first["season"]  # served, not made again
    assert league.xlsx() is league.xlsx() and league.csv() is league.csv()
    cafe, host, night = played[0]
    league.take(night_topic("spring", cafe, host, night.id), b"")  # a night taken back: a change
    every_reader()
    assert len(computed) == 6
    assert shown(league.season(), league) == recomputed([(c, n) for c, _, n in played[1:]], Scoring())
    assert [line["team"] for line in league.to_json("it")["season"]] == [line.team for line in league.season()]


def test_a_night_not_the_senders_is_refused_and_kept_apart_and_counts_for_nothing(tmp_path):
    rng = random.Random(3)
    _, played = two_cafes(tmp_path, rng)
    league = League("spring", cafes={"bar-roma": ["r1", "r2"], "bar-milano": ["m1", "m2", "m3"]})
    cafe, host, night = played[0]
    topic, message = sent(night, cafe, host)
    before = league.season()
    cases = {
        # a café sending another café's night under its own prefix
        night_topic("spring", "bar-milano", host, night.id): (message, "the night of the café and table its topic names"),
        # a table speaking for another of its café
        night_topic("spring", cafe, "r2", night.id): (message, "the night of the café and table its topic names"),
        # a café the league does not have
        night_topic("spring", "bar-napoli", host, night.id): (
            json.dumps({**json.loads(message), "cafe": "bar-napoli"}).encode(), "one of the league's cafés"),
        # an unreadable message
        night_topic("spring", cafe, host, "20261118-000000"): (b"{not json", "JSON in UTF-8"),
    }
    # a night at tables that are not the café's own, as its host sends it
    milano = json.loads(sent(played[1][2], "bar-milano", "m1")[1])
    cases[night_topic("spring", "bar-roma", "m1", milano["night"])] = (
        json.dumps({**milano, "cafe": "bar-roma"}).encode(), "a night at the café's own tables (r1, r2)")
    for where, (payload, why) in cases.items():
        assert league.take(where, payload)
        apart = league.apart[tuple(where.split("/")[3:4] + where.split("/")[5:7])]  # type: ignore[index]
        assert why in str(apart.why), where
        assert "Owls" not in str(apart.why)  # what it held is never shown
    assert league.nights == {} and league.season() == before == []
    shown_apart = league.to_json("it")["apart"]
    assert len(shown_apart) == len(cases) and all(entry["why"] for entry in shown_apart)
    league.take(topic, message)  # the café's own night, as sent: counted
    assert list(league.nights) == [(cafe, host, night.id)]


def test_an_open_night_or_one_whose_events_make_no_night_is_refused(tmp_path):
    book = Book(tmp_path / "roma", clock=Clock(START))
    night = book.open("Friday league", ["codenames"], ["r1"])
    book.join("Owls")
    message = {"night": night.id, "cafe": "bar-roma", "host": "r1", "seq": night.seq, "closed": START,
               "events": list(night.events), "games": []}
    assert record(night, "bar-roma", "r1") is None  # a host sends nothing while it is open
    league = League("spring")
    topic = night_topic("spring", "bar-roma", "r1", night.id)
    league.take(topic, json.dumps(message).encode())
    assert "the events of a night closed" in str(league.apart[("bar-roma", "r1", night.id)].why)
    broken = {**message, "events": [{"event": "join", "team": "Owls", "nicknames": []}]}  # no night opened
    league.take(topic, json.dumps(broken).encode())
    assert "the time its night opened" in str(league.apart[("bar-roma", "r1", night.id)].why)
    assert league.take("league/autumn/cafes/bar-roma/nights/r1/x", b"{}") is False  # another league's: not read


@pytest.mark.parametrize("points, scale, best, why", [
    ("wins", (1,), 0, "a league counts a night by 'night' or 'places'"),
    ("places", (), 0, "a league's scale is 1 to 64 places' points"),
    ("places", (10, -1), 0, "a league's scale is 1 to 64 places' points"),
    ("night", (1,), -2, "a league counts a team's best 1 to 1000 nights, or 0 for all"),
])
def test_a_scoring_out_of_its_kind_says_what_is_expected(points, scale, best, why):
    with pytest.raises(ValueError, match=re.escape(why)):
        Scoring(points, scale, best)


def test_merged_teams_are_one_team_of_the_season(tmp_path):
    rng = random.Random(11)
    books, played = two_cafes(tmp_path, rng)
    merged = {"lynx": "Foxes"}  # the organiser merges a duplicate: one team under two names
    league = League("spring", merged=merged)
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))
    own = [(c, books[c].night_of(n.id)) for c, _, n in played]
    assert shown(league.season(), league) == recomputed(own, Scoring(), merged)
    assert "lynx" not in {league.team(line.team) for line in league.season()}


def test_two_teams_that_played_one_night_are_not_merged_into_one(tmp_path):
    """A merge is for one team under two names: two teams that played the same night would count
    that night twice for the team made of them, so the organiser's merge refuses them, saying why."""
    rng = random.Random(11)
    _, played = two_cafes(tmp_path, rng)
    league = League("spring")
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))
    first, second = (league.team(line.team) for line in played[0][2].standings()[:2])
    with pytest.raises(LeagueRefused, match="played one night together"):
        league.mergeable(first, second)
    nights = [{league.team(name) for name in night.teams} for _, _, night in played]
    every = sorted(set().union(*nights))
    never_met = [(a, b) for a in every for b in every if a < b and not any({a, b} <= teams for teams in nights)]
    assert never_met, "a team that plays at one café alone never meets one of the other's"
    league.mergeable(*never_met[0])  # two teams that never played a night together may be one


def test_two_teams_of_one_name_at_two_cafes_are_split_by_the_organiser_and_made_one_again(tmp_path):
    """Issue 76, 5: "Owls" at Rome and "owls" at Milan gave no code, so their names made them one
    team, which the page could merge but never split. The organiser splits Milan's off: each café's
    games count for a team of its own (standings and rating as recomputed so), kept in the league's
    history with who, when and why and sent down with the season (a table of before it reads the
    season still); undone, they are one team again. A split is refused where it splits nothing."""
    from pi_table.fleet.league import SPLIT, UNSPLIT

    books, played = two_cafes(tmp_path, random.Random(11))
    league = League("spring", clock=lambda: START + 86400)
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))
    own = [(c, books[c].night_of(n.id)) for c, _, n in played]
    owls = next(line for line in league.season() if line.key == "owls")
    assert owls.cafes == ("bar-milano", "bar-roma")
    league.keep(league.parted(SPLIT, "owls", "bar-milano", "organiser · 1a2b3c", "two teams, one name"))
    apart = frozenset({("owls", "bar-milano")})
    assert shown(league.season(), league) == recomputed(own, Scoring(), split=apart)
    lines = {line.key: line for line in league.season()}
    assert "owls" in lines and lines["owls"].cafes == ("bar-roma",) and lines["owls@bar-milano"].cafes == ("bar-milano",)
    assert lines["owls"].team == "Owls" and lines["owls@bar-milano"].team == "owls"
    assert [line.key for line in league.season("bar-milano") if line.key.startswith("owls")] == ["owls@bar-milano"]
    assert lines["owls"].played + lines["owls@bar-milano"].played == owls.played
    with pytest.raises(LeagueRefused, match="played at one café"):
        league.parted(SPLIT, "owls", "bar-roma", "organiser", "again")
    with pytest.raises(LeagueRefused, match="played no night at this café"):
        league.parted(SPLIT, "zebras", "bar-nowhere", "organiser", "no such café")
    with pytest.raises(LeagueRefused, match="not split at this café"):
        league.parted(UNSPLIT, "zebras", "bar-roma", "organiser", "never split")
    history = league.to_json()["history"]
    assert history == [{"at": START + 86400, "by": "organiser · 1a2b3c", "why": "two teams, one name",
                        "what": "split owls of bar-milano off: a team of its own"}]
    down = league.down()
    assert down["history"][0] == {"event": SPLIT, "cafe": "bar-milano", "host": "", "night": "", "team": "owls",
                                  "by": "organiser · 1a2b3c", "at": START + 86400, "why": "two teams, one name"}
    assert schema.parse("league.season", json.dumps({**down, "at": START}).encode())["history"][0]["team"] == "owls"
    before = {**schema.DECISION.fields}
    before.pop("team")  # a café's table from before the split reads the season still
    assert schema.Record(before, schema.DECISION.required).read(down["history"][0], "history")["event"] == SPLIT
    league.keep(league.parted(UNSPLIT, "owls", "bar-milano", "organiser", "the same team after all"))
    assert shown(league.season(), league) == recomputed(own, Scoring())
    assert next(line for line in league.season() if line.key == "owls").cafes == ("bar-milano", "bar-roma")
    assert [d.event for d in league.history] == [SPLIT, UNSPLIT]


def two_cafes_coded(tmp_path) -> tuple[dict[str, Book], list[tuple[str, str, Night]]]:
    """One night at each of two cafés: the team of code OWL7 plays as "Owls" at one and "Night Owls"
    at the other; "Foxes" gives no code at either; "Lynx" gives a code the roster does not know."""
    rng = random.Random(3)
    books = {"bar-roma": Book(tmp_path / "roma", clock=Clock(START)),
             "bar-milano": Book(tmp_path / "milano", clock=Clock(START + 30))}
    roma = play_night(books["bar-roma"], ["r1", "r2"], ["Owls", "Foxes", "Moles", "Lynx"], 3, rng,
                      codes={"Owls": "owl-7", "Lynx": "new9"})  # typed as a phone may: the case and a dash aside
    milano = play_night(books["bar-milano"], ["m1", "m2"], ["Night Owls", "foxes", "Herons", "Otters"], 3, rng,
                        codes={"Night Owls": "OWL7"})
    return books, [("bar-roma", "r1", roma), ("bar-milano", "m1", milano)]


def admitted(league: League, played: tuple[str, str, Night]) -> None:
    """The organiser counts a night the league held for a team's code away from its home café
    (issue 76, 1): the team plays at that café too."""
    from pi_table.fleet.league import RESTORED, WAITING

    cafe, host, night = played
    assert league.standing((cafe, host, night.id)).state == WAITING
    league.keep(league.decision(RESTORED, (cafe, host, night.id), "organiser", "the team plays at both cafés"))


def test_a_teams_league_code_keeps_it_one_team_whatever_its_name_and_a_new_team_registers_at_its_first_night(tmp_path):
    """Issue 64: a team is matched by its code first (the roster's name for it shown), then by the
    roster's name for a code, then by its own name; a code the roster does not know registers the
    team at its first night. The season equals the recomputation with the codes joining the names."""
    books, played = two_cafes_coded(tmp_path)
    league = League("spring", teams={"OWL7": "The Owls", "FOX1": "Foxes"})
    for cafe, host, night in played:
        assert league.take(*sent(night, cafe, host))
    admitted(league, played[1])  # OWL7, at home at Rome, played at Milan too
    lines = {line.key: line for line in league.season()}
    assert set(lines) == {"OWL7", "FOX1", "NEW9", "moles", "herons", "otters"}
    assert (lines["OWL7"].team, lines["OWL7"].code, lines["OWL7"].nights) == ("The Owls", "OWL7", 2)
    assert lines["OWL7"].cafes == lines["FOX1"].cafes == ("bar-milano", "bar-roma")
    assert (lines["NEW9"].team, lines["NEW9"].code, lines["NEW9"].nights) == ("Lynx", "NEW9", 1)
    assert lines["moles"].code == ""
    own = [(cafe, books[cafe].night_of(night.id)) for cafe, _, night in played]
    by_code = {"owls": "OWL7", "night owls": "OWL7", "foxes": "FOX1", "lynx": "NEW9"}
    assert shown(league.season(), league) == recomputed(own, Scoring(), by_code)
    down = schema.parse("league.season", json.dumps({"league": "spring", "at": START, "season": [
        line.to_json() for line in league.season()]}).encode())
    assert {line.get("code") for line in down["season"]} == {"OWL7", "FOX1", "NEW9", None}  # the cafés' TVs and desks


@pytest.mark.parametrize("typed", ["OW", "OWL7OWL7O", "OWL 7!", "ÖWL7"])
def test_a_league_code_out_of_its_kind_is_refused_when_the_team_joins_saying_what_a_code_is(tmp_path, typed):
    book = Book(tmp_path)
    book.open("Friday", ["codenames"], ["1"])
    with pytest.raises(NameRefused, match="a team's league code is 3 to 8 letters or digits"):
        book.join("Owls", code=typed)
    assert book.current().teams == {}


def test_a_teams_code_is_kept_by_its_night_and_told_to_the_tables_that_follow_it(tmp_path):
    book = Book(tmp_path)
    book.open("Friday", ["codenames"], ["1", "2"])
    book.join("Owls", code="owl7")
    book.join("Phantom", waiting=True, code="ph4n")
    book.approve("Phantom")
    book.stop()
    night = Book(tmp_path).current()
    assert {team.name: team.code for team in night.teams.values()} == {"Owls": "OWL7", "Phantom": "PH4N"}
    plan = schema.parse("plan", json.dumps(night.plan_json()).encode())
    follower = fold_night(night.id, plan["events"])
    assert {team.code for team in follower.teams.values()} == {"OWL7", "PH4N"}
    assert [t.get("code") for t in plan["teams"]] == ["OWL7", "PH4N"]


def test_the_season_as_a_workbook_reads_back_as_its_csv_overall_and_a_sheet_a_cafe(tmp_path):
    """The xlsx export: a sheet of the season overall and one for each café, their values the
    export's rows (numbers as numbers, as the CSV writes them); a café's name that a sheet's title
    may not hold is made one it may."""
    import csv
    import io

    from openpyxl import load_workbook

    _, played = two_cafes_coded(tmp_path)
    league = League("spring", teams={"OWL7": "The Owls"})
    for cafe, host, night in played:
        league.take(*sent(night, cafe if cafe == "bar-roma" else "bar:milano?", host))
    admitted(league, ("bar:milano?", *played[1][1:]))
    book = load_workbook(io.BytesIO(league.xlsx()))
    assert book.sheetnames == ["season", "bar-roma", "bar_milano_"]  # the cafés by their names

    def values(sheet: str) -> list[list[object]]:
        return [[cell.value if cell.value is not None else "" for cell in row] for row in book[sheet].iter_rows()]

    assert values("season") == league.rows() and len(values("season")) == 7
    assert values("bar-roma") == league.rows("bar-roma") and values("bar_milano_") == league.rows("bar:milano?")
    assert list(csv.reader(io.StringIO(league.csv()))) == [[str(value) for value in row] for row in league.rows()]
    assert values("season")[0][-1] == "code" and "OWL7" in [row[-1] for row in values("season")]
    assert all(isinstance(value, int | float) for row in values("season")[1:] for value in (row[0], *row[3:10]))


def test_a_nights_trf_crosses_with_it_as_its_host_wrote_it_and_one_past_its_bound_is_refused(tmp_path):
    from pi_table.ui.i18n import say
    from pi_table.web.night import night_trf

    books, played = two_cafes_coded(tmp_path)
    league = League("spring")
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))
    cafe, host, night = played[0]
    assert league.trf(cafe, host, night.id) == night_trf(books[cafe].night_of(night.id))
    assert league.trf(cafe, "r2", night.id) is None
    topic, payload = sent(night, cafe, host)
    message = json.loads(payload)
    message["trf"], message["seq"] = "x" * (schema.MOST_TRF + 1), message["seq"] + 1
    league.take(topic, json.dumps(message).encode())
    assert say(league.apart[(cafe, host, night.id)].why, "en").startswith("the night's TRF should be a text of at most")
    del message["trf"]  # a table from before the TRF crossed: its night is the league's, with no TRF to offer
    league.take(topic, json.dumps(message).encode())
    assert (cafe, host, night.id) not in league.apart and league.trf(cafe, host, night.id) is None


def test_a_night_too_big_with_its_trf_goes_to_the_league_without_it_rather_than_not_at_all(tmp_path, monkeypatch):
    """The TRF rides on the night's message: where the two together pass the broker's limit, the
    host table sends the night without its TRF (the league offers none), never no night."""
    from dataclasses import replace

    from pi_table import config
    from pi_table.fleet.reporter import Reporter

    _, played = two_cafes_coded(tmp_path)
    cafe, host, night = played[0]
    whole = json.dumps(record(night, cafe, host)).encode()
    reporter = Reporter(replace(config.broker("mqtt://127.0.0.1:1", table_id=host), league="spring", cafe=cafe),
                        act=lambda request: {"ok": False}, heartbeat_s=3600)
    monkeypatch.setattr(schema, "MAX_PAYLOAD", len(whole) - 1)
    where = league_.night_topic("spring", cafe, host, night.id)
    reporter.league_night(night)
    sent_night = json.loads(reporter._retained[where])
    assert "trf" not in sent_night and sent_night["events"] == json.loads(whole)["events"]
    monkeypatch.setattr(schema, "MAX_PAYLOAD", len(whole))
    reporter.league_night(night)
    assert "trf" in json.loads(reporter._retained[where])


def test_a_merge_is_written_to_the_roster_in_one_step_keeping_the_file_before_it(tmp_path):
    from pi_table.fleet.league_page import RosterError, read_roster, write_merge

    roster = tmp_path / "roster.toml"
    text = '# the spring league\n[cafes]\nbar-roma = ["r1", "r2"]\n\n[teams]\nOWL7 = "The Owls"\n'
    roster.write_text(text)
    write_merge(roster, "night owls", "OWL7")
    assert (tmp_path / "roster.toml.good").read_text() == text
    assert roster.read_text().startswith(text)  # the organiser's comments and keys kept
    kept = read_roster(roster)
    assert kept.merged == {"night owls": "OWL7"} and kept.teams == {"OWL7": "The Owls"}
    assert kept.league("spring").team("Night Owls") == "OWL7"
    roster.write_text("[merged]\nlynx = [")
    with pytest.raises(RosterError, match=re.escape("merge the teams in [merged] by hand")):
        write_merge(roster, "lynx", "foxes")
    assert roster.read_text() == "[merged]\nlynx = ["


def test_a_team_gives_its_league_code_at_the_desk_or_from_a_phone_and_the_desk_offers_the_leagues_codes(tmp_path):
    """Issue 64: the director adds a team with its code (picked from the league's teams the café's
    broker brought down), a phone's team types its own; a code out of its kind is refused, saying
    what a code is, in the phone's language; the night keeps each team's code."""
    import urllib.error
    import urllib.parse
    import urllib.request

    from helpers_staff import Staff
    from helpers_tables import StaffTable

    table = StaffTable(tmp_path, "RRRRRRRRRBBBBBBBBNNNNNNNA", lang="it")
    try:
        table.daemon.night.season = {"league": "spring", "at": START, "season": [
            {"team": "The Owls", "code": "OWL7", "key": "OWL7"}, {"team": "Moles", "key": "moles"}]}
        staff = Staff(table.base)
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"]})
        assert staff.call("GET", "/staff/api/night")[1]["league_teams"] == [{"code": "OWL7", "team": "The Owls"}]
        assert staff.call("POST", "/staff/api/night/join", {"team": "Owls", "code": "OWL7"})[0] == 200
        status, refused = staff.call("POST", "/staff/api/night/join", {"team": "Moles", "code": "M"})
        assert status == 409 and refused["error"] == "a team's league code is 3 to 8 letters or digits, as the league gave it"

        def phone(form: dict[str, str]) -> tuple[int, str]:
            asked = urllib.request.Request(table.base + "/night/join", data=urllib.parse.urlencode(form).encode())
            try:
                with urllib.request.urlopen(asked, timeout=10) as answer:
                    return answer.status, answer.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        status, page = phone({"team": "Quiz Club", "nicknames": "", "code": "q#1"})
        assert status == 409 and "il codice di lega di una squadra è di 3-8 lettere o cifre" in page
        assert phone({"team": "Quiz Club", "nicknames": "", "code": "quiz-42"})[0] == 200
        assert phone({"team": "Latecomers", "nicknames": ""})[0] == 200
        night = table.daemon.night.book.current()
        assert {team.name: team.code for team in (*night.teams.values(), *night.waiting.values())} == \
            {"Owls": "OWL7", "Quiz Club": "QUIZ42", "Latecomers": ""}
        assert 'name="code"' in urllib.request.urlopen(table.base + "/night", timeout=10).read().decode()
    finally:
        table.close()


@pytest.mark.browser
def test_the_director_picks_a_teams_code_from_the_leagues_teams_on_the_staff_page(tmp_path, browser):
    """Issue 64: once the league's season came down, the staff page's team form offers the league's
    teams' codes (labelled by name); the team added with one keeps it; the field is emptied."""
    from playwright.sync_api import expect

    from helpers_staff import STAFF_PIN, open_night
    from helpers_tables import StaffTable

    table = StaffTable(tmp_path, "RRRRRRRRRBBBBBBBBNNNNNNNA")
    table.daemon.night.season = {"league": "spring", "at": START, "season": [
        {"team": "The Owls", "code": "OWL7", "key": "OWL7"}, {"team": "Foxes", "code": "FOX1", "key": "FOX1"}]}
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_night(page, table.base, STAFF_PIN, "Friday league", "1")
        options = page.locator("#night-team-codes option")
        expect(options).to_have_count(2, timeout=15_000)
        assert [(o.get_attribute("value"), o.get_attribute("label")) for o in options.all()] == \
            [("OWL7", "The Owls"), ("FOX1", "Foxes")]
        page.fill("#night-team", "Owls")
        page.fill("#night-team-code", "OWL7")
        page.click("#night-join button[type=submit]")
        expect(page.locator("#night-teams")).to_have_text("Teams: Owls")
        expect(page.locator("#night-team-code")).to_have_value("")
        assert table.daemon.night.book.current().teams["Owls"].code == "OWL7"
        assert errors == []
    finally:
        context.close()
        table.close()


# --- three real Mosquittos: two cafés bridged to one league -----------------------------------------


class Cut:
    """A link from a café's bridge to the league that a test can cut and mend: a TCP relay on a
    port of its own to the league's port, as a café's line to the league goes down and comes back."""

    def __init__(self, target: int) -> None:
        import socket
        import threading

        from pi_table.fleet.broker import free_port

        self.target, self.port = target, free_port()
        self._socket, self._threading = socket, threading
        self.links: list = []
        self.listener = None
        self.mend()

    def mend(self) -> None:
        listener = self._socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        self.listener = listener
        self._threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener) -> None:
        while True:
            try:
                near, _ = listener.accept()
            except OSError:
                return
            far = self._socket.create_connection(("127.0.0.1", self.target))
            self.links += [near, far]
            for one, other in ((near, far), (far, near)):
                self._threading.Thread(target=self._pipe, args=(one, other), daemon=True).start()

    @staticmethod
    def _pipe(one, other) -> None:
        try:
            while data := one.recv(65536):
                other.sendall(data)
        except OSError:
            pass
        finally:
            for end in (one, other):
                try:
                    end.close()
                except OSError:
                    pass

    def cut(self) -> None:
        import socket

        assert self.listener is not None
        self.listener.shutdown(socket.SHUT_RDWR)  # wakes its accept (a close alone leaves it taking connections)
        self.listener.close()
        for end in self.links:
            try:
                end.shutdown(socket.SHUT_RDWR)
                end.close()
            except OSError:
                pass
        self.links = []


class Page:
    """The league's page as the organiser runs it: a client of the league's broker as its user,
    every café's nights folded into a ``League`` (each topic heard, in ``topics``, and each
    message heard live, not retained from before the page subscribed, with its night's version in
    ``live``: in the order the broker delivered them)."""

    def __init__(self, port: int, password: str, ca, folder, cafes: dict) -> None:
        import threading

        from pi_table.config import broker as broker_config
        from pi_table.fleet import link

        secret = folder / "league.password"
        secret.write_text(password + "\n")
        settings = broker_config(f"mqtts://league@127.0.0.1:{port}", password_file=str(secret), ca=str(ca))
        self.league = League("spring", cafes=cafes)
        self.topics: list[str] = []
        self.live: list[tuple[str, int]] = []
        self.client = link.client(settings, "league-page")
        up = threading.Event()

        def connected(client, userdata, flags, reason, properties) -> None:
            if not reason.is_failure:
                client.subscribe("league/spring/cafes/#", qos=1)
                up.set()

        def message(client, userdata, heard) -> None:
            self.topics.append(heard.topic)
            if not heard.retain:
                try:
                    self.live.append((heard.topic, json.loads(heard.payload)["seq"]))
                except (ValueError, KeyError, TypeError):
                    pass
            self.league.take(heard.topic, heard.payload)

        self.client.on_connect, self.client.on_message = connected, message
        link.connect(self.client, settings)
        from helpers import wait_for

        wait_for(up.is_set, "the league's page connected", 15)

    def holds(self, nights: dict[tuple[str, str, str], int]) -> bool:
        """Whether the page holds these nights (café, host, id), each at this version."""
        kept = dict(self.league.nights)
        return all(key in kept and kept[key].seq == seq for key, seq in nights.items())

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.mark.broker
def test_two_cafes_bridged_to_a_league_lose_nothing_to_a_cut_link_or_a_league_restart(tmp_path):
    """The issue's test: three Mosquittos on loopback, the league's and each café's set up by the
    root helper's own acts, the cafés' bridges written by their join. Nights closed at both cafés'
    host tables reach the league; Rome's link cut, it closes a night and corrects an earlier one,
    the link comes back, both reach the league in the order they were closed, from the session the
    bridge keeps (a bridge without it fails here: its retained copies come in another order), and
    the league's standings equal the recomputation from the cafés' own books; a café writing under another's prefix is refused; the league's broker restarted, a new
    page learns every night again, and a night Milan closed meanwhile arrives too."""
    import dataclasses
    import subprocess
    import time

    from pi_table import config
    from pi_table.fleet.reporter import Reporter
    from pi_table.night.recorder import Recorder
    from pi_table.release import broker

    from helpers import wait_for
    from helpers_machine import MosquittoUnit

    units = {name: MosquittoUnit(tmp_path / name) for name in ("league", "bar-roma", "bar-milano")}
    secrets = {name: broker.new_password() for name in ("bar-roma", "bar-milano", "league", "r1", "m1")}
    hashed = {name: broker.password_hash(password) for name, password in secrets.items()}
    roster = {"bar-roma": ["r1", "r2"], "bar-milano": ["m1", "m2", "m3"]}
    rome = Cut(units["league"].port)
    page = None
    reporters: list[Reporter] = []
    books: dict[str, Book] = {}
    try:
        units["league"].broker.host_league("127.0.0.1", "spring", {c: hashed[c] for c in roster}, hashed["league"])
        league_ca = (units["league"].etc / broker.CA_CERT).read_text()
        for cafe, host in (("bar-roma", "r1"), ("bar-milano", "m1")):
            unit = units[cafe]
            unit.broker.set_up("127.0.0.1", {host: hashed[host]})
            port = rome.port if cafe == "bar-roma" else units["league"].port
            unit.broker.join_league("spring", cafe, "127.0.0.1", port, secrets[cafe], league_ca)
            assert unit.broker.league() == ("spring", cafe)
            assert f"remote_password {secrets[cafe]}" in (unit.etc / broker.BRIDGE).read_text()
            assert oct((unit.etc / broker.BRIDGE).stat().st_mode & 0o777) == "0o600"  # the café's password: root's
            secret = tmp_path / f"{host}.password"
            secret.write_text(secrets[host] + "\n")
            settings = config.broker(f"mqtts://{host}@127.0.0.1:{unit.port}", table_id=host, password_file=str(secret),
                                     ca=str(unit.etc / broker.CA_CERT))
            books[cafe] = Book(tmp_path / f"{cafe}-book", clock=Clock(START + (0 if cafe == "bar-roma" else 30)))
            reporter = Reporter(dataclasses.replace(settings, league="spring", cafe=cafe), act=lambda request: {"ok": True})
            reporter.take_night(Recorder(books[cafe], host))
            reporter.start()
            reporters.append(reporter)
        page = Page(units["league"].port, secrets["league"], units["league"].etc / broker.CA_CERT, tmp_path, roster)
        rng = random.Random(64)
        teams = {"bar-roma": ["Owls", "Zebras", "Foxes", "Moles", "Quiz Club"],
                 "bar-milano": ["owls", "Lynx", "Herons", "Otters"]}
        hosts = {"bar-roma": "r1", "bar-milano": "m1"}
        closed: dict[tuple[str, str, str], int] = {}

        def close_one(cafe: str) -> Night:
            night = play_night(books[cafe], roster[cafe], teams[cafe], 3, rng)
            closed[(cafe, hosts[cafe], night.id)] = night.seq
            return night

        first_rome = close_one("bar-roma")
        close_one("bar-milano")
        wait_for(lambda: page.holds(closed), "both cafés' nights at the league", 20)

        rome.cut()  # Rome's line to the league goes down
        time.sleep(1.0)  # Rome's bridge sees its link gone
        offline = close_one("bar-roma")
        pair = first_rome.rounds[0].pairs[0]
        loser = next(team for team in pair.teams if team != first_rome.slots()[(1, pair.table)].winner)
        corrected = books["bar-roma"].correct(first_rome.id, 1, pair.table, "won", STAFF, winner=loser)
        closed[("bar-roma", "r1", first_rome.id)] = corrected.seq  # an older night corrected after a newer closed
        close_one("bar-milano")
        time.sleep(2.0)
        assert not page.holds(closed)  # Rome's night and correction wait at Rome's broker
        heard_before = len(page.live)
        rome.mend()
        wait_for(lambda: page.holds(closed), "Rome's night and correction at the league once its link is back", 60)
        time.sleep(3.0)  # the retained copies the bridge sends again on each connect come meanwhile
        in_order = [(night_topic("spring", "bar-roma", "r1", offline.id), offline.seq),
                    (night_topic("spring", "bar-roma", "r1", first_rome.id), corrected.seq)]
        # The session the bridge keeps hands the league what was closed while cut off, in the order it was
        # closed. Mosquitto 2's bridge also sends every retained night again at each connect (its local
        # subscription made anew): versions the league has, or had, which it takes once (a night replaces
        # itself, an older version changes nothing). A bridge without its session (cleansession true, or
        # QoS 0) has nothing queued: the retained copies alone bring the new versions, in the broker's
        # order of topics, the corrected older night first.
        before = set(page.live[:heard_before])
        new = list(dict.fromkeys(one for one in page.live[heard_before:] if "/cafes/bar-roma/" in one[0]
                                 and one not in before))
        assert new == in_order, f"Rome's nights closed while cut off reach the league in the order closed: {new}"
        assert len(page.league.nights) == len(closed)  # each night once

        def season_is_recomputed(league: League) -> None:
            own = [(cafe, books[cafe].night_of(night_id)) for cafe, _, night_id in closed]
            assert shown(league.season(), league) == recomputed(own, league.scoring)

        season_is_recomputed(page.league)
        assert page.league.apart == {}

        # a café writing under another's prefix: the league's broker drops it
        from pi_table.config import broker as broker_config
        from pi_table.fleet import link

        secret = tmp_path / "rogue.password"
        secret.write_text(secrets["bar-roma"] + "\n")
        stolen = broker_config(f"mqtts://bar-roma@127.0.0.1:{units['league'].port}", password_file=str(secret),
                               ca=str(units["league"].etc / broker.CA_CERT))
        rogue = link.client(stolen, "rogue")
        rogue.on_connect = lambda client, userdata, flags, reason, properties: None
        link.connect(rogue, stolen)
        wait_for(rogue.is_connected, "Rome's credential at the league", 10)
        forged = night_topic("spring", "bar-milano", "m1", "20261118-000000")
        marker = night_topic("spring", "bar-roma", "r9", "20261118-000000")
        rogue.publish(forged, b'{"forged": true}', qos=1, retain=True).wait_for_publish(10)
        rogue.publish(marker, b'{"marker": true}', qos=1).wait_for_publish(10)
        wait_for(lambda: marker in page.topics, "the café's own message after the forged one", 10)
        rogue.disconnect()
        rogue.loop_stop()
        assert forged not in page.topics and ("bar-milano", "m1", "20261118-000000") not in page.league.apart
        assert "bar-roma" in {apart.cafe for apart in page.league.apart.values()}  # its own junk: kept apart, said

        # the league's broker restarted: a night Milan closes meanwhile waits, and a new page learns everything
        page.close()
        stop = [*units["league"].systemctl, "stop", "mosquitto.service"]
        subprocess.run(stop, check=True, capture_output=True)
        close_one("bar-milano")
        subprocess.run([*units["league"].systemctl, "restart", "mosquitto.service"], check=True, capture_output=True)
        page = Page(units["league"].port, secrets["league"], units["league"].etc / broker.CA_CERT, tmp_path, roster)
        wait_for(lambda: page.holds(closed), "every night at the league after its restart", 60)
        season_is_recomputed(page.league)
        assert len(page.league.nights) == len(closed) == 5
    finally:
        for reporter in reporters:
            reporter.stop()
        for book in books.values():
            book.stop()
        if page is not None:
            page.close()
        rome.cut()
        for unit in units.values():
            unit.close()


CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


@pytest.mark.parametrize("league, cafe, address, port, password, ca, why", [
    ("spr/ing", "bar-roma", "127.0.0.1", 8883, "pw", CA, "the league's name is 1 to 64 bytes"),
    ("spring", "league", "127.0.0.1", 8883, "pw", CA, "a café's name in the league is 1 to 64 bytes"),
    ("spring", "bar #1", "127.0.0.1", 8883, "pw", CA, "a café's name in the league is 1 to 64 bytes"),
    ("spring", "bar-roma", "league..example", 8883, "pw", CA, "the broker's address is its name"),
    ("spring", "bar-roma", "127.0.0.1", 0, "pw", CA, "the league's port is a whole number from 1 to 65535"),
    ("spring", "bar-roma", "127.0.0.1", 8883, "pw with\nlines", CA, "the café's password in the league is 1 to 128"),
    ("spring", "bar-roma", "127.0.0.1", 8883, "pw", "not a certificate", "the league's CA is a certificate in PEM"),
])
def test_a_league_to_join_out_of_its_kind_is_refused_before_anything_is_written(tmp_path, league, cafe, address, port,
                                                                                password, ca, why):
    from pi_table.release import ReleaseError, broker

    etc = tmp_path / "etc"
    with pytest.raises(ReleaseError, match=why) as refused:
        broker.Broker(etc, ("false",), 1).join_league(league, cafe, address, port, password, ca)
    assert "lines" not in str(refused.value)  # what was sent is never repeated
    assert not etc.exists()


def test_a_league_ca_that_reads_as_pem_but_holds_no_certificate_is_refused_before_the_league_is_reached():
    from pi_table.release import ReleaseError, broker

    with pytest.raises(ReleaseError, match="the league's CA is a certificate in PEM"):
        broker.reached("127.0.0.1", 1, CA)


def test_the_bridge_carries_the_leagues_topics_alone_and_the_acl_lets_a_table_send_only_its_own_nights():
    from pi_table.release import broker

    bridge = broker.bridge_conf("spring", "bar-roma", "league.example", 8883, "secret", broker.ETC / broker.LEAGUE_CA)
    topics = [line.split() for line in bridge.splitlines() if line.startswith("topic ")]
    assert topics == [["topic", "cafes/bar-roma/nights/#", "out", "1", "league/spring/", "league/spring/"],
                      ["topic", "season", "in", "1", "league/spring/", "league/spring/"]]
    assert {"cleansession false", "bridge_insecure false", "bridge_cafile /etc/mosquitto/pi-table-league-ca.crt",
            "remote_username bar-roma"} <= set(bridge.splitlines())
    acl = broker.cafe_acl("spring", "bar-roma")
    assert "pattern write league/spring/cafes/bar-roma/nights/%u/+" in acl.splitlines()
    assert [line for line in acl.splitlines() if line.startswith(("pattern", "topic", "user"))] == [
        "pattern write league/spring/cafes/bar-roma/nights/%u/+", "pattern read league/spring/season",
        "user pi-table-helper", "topic read $SYS/broker/connection/pi-table-league/state"]  # the helper's check alone


@pytest.mark.broker
def test_a_cafe_offline_while_the_season_changed_is_sent_the_newest_season_alone_on_its_return(tmp_path):
    """Issue 76, 4: the league's page sends four seasons while a café's link is cut (its bridge's
    session, ``cleansession false``, kept at the league's broker); the link back, the café's broker
    hears one season, the newest, not every one it missed."""
    from pi_table import config
    from pi_table.fleet.broker import LocalBroker
    from pi_table.fleet.league_page import SEASON_EVERY_S, LeaguePage
    from pi_table.release.broker import bridge_conf, league_acl, password_hash

    from helpers import wait_for

    folder = tmp_path
    (folder / "league.passwd").write_text(f"bar-roma:{password_hash('roma')}\nleague:{password_hash('page')}\n")
    (folder / "league.acl").write_text(league_acl("spring", ["bar-roma"]))
    league = LocalBroker(folder / "league", f"allow_anonymous false\npassword_file {folder}/league.passwd\n"
                                            f"acl_file {folder}/league.acl\n")
    league.start()
    link = Cut(league.port)
    cafe = LocalBroker(folder / "cafe", bridge_conf("spring", "bar-roma", "127.0.0.1", link.port, "roma", None))
    (folder / "page.password").write_text("page\n")
    page = LeaguePage(config.broker(f"mqtt://league@127.0.0.1:{league.port}",
                                    password_file=str(folder / "page.password")), League("spring"), "127.0.0.1", 0)
    heard: list[dict] = []
    seasons = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="a-table")
    seasons.on_connect = lambda client, userdata, flags, reason, properties: client.subscribe(
        "league/spring/season", qos=1)
    seasons.on_message = lambda client, userdata, message: heard.append(json.loads(message.payload))
    try:
        cafe.start()
        page.start()
        seasons.connect("127.0.0.1", cafe.port)
        seasons.loop_start()
        _, played = two_cafes(tmp_path, random.Random(4))
        nights = iter(played)

        def changed() -> None:
            """One more night at the page: a new season, which it sends within ``SEASON_EVERY_S``."""
            cafe_, host, night = next(nights)
            page.league.take(*sent(night, cafe_, host))
            time.sleep(SEASON_EVERY_S * 2.5)

        changed()
        wait_for(lambda: heard and len(heard[-1]["season"]) == len(page.league.season()), "the first season at the café", 15)
        link.cut()
        time.sleep(2.0)  # the bridge sees its link gone
        missed_from = len(heard)
        for _ in range(4):
            changed()
        newest = [line.to_json() for line in page.league.season()]
        link.mend()
        wait_for(lambda: len(heard) > missed_from and heard[-1]["season"] == newest, "the newest season at the café", 30)
        time.sleep(3.0)  # whatever else the league's broker kept for the café's session comes meanwhile
        assert [season["season"] == newest for season in heard[missed_from:]] == [True]
    finally:
        seasons.disconnect()
        seasons.loop_stop()
        page.stop()
        link.cut()
        cafe.stop()
        league.stop()


@pytest.mark.broker
@pytest.mark.parametrize("wrong, why", [
    ("ca", "the league's broker at 127.0.0.1:.* does not show a certificate of the league's CA"),
    ("address", "the league's broker does not answer at 127.0.0.1:"),
])
def test_a_league_whose_ca_or_address_is_wrong_is_refused_before_the_bridge_is_written(tmp_path, wrong, why):
    """The café's broker joins a league with another CA, or a port where no league listens: the
    helper reaches the league as the bridge would (TLS checked with the league's CA, for its
    address) before it writes anything, says which is wrong, and Mosquitto is neither restarted
    nor left spinning on a bridge that cannot link."""
    from pi_table.release import ReleaseError, broker

    from helpers_machine import MosquittoUnit

    league, cafe = MosquittoUnit(tmp_path / "league"), MosquittoUnit(tmp_path / "cafe")
    try:
        league.broker.host_league("127.0.0.1", "spring", {"bar-roma": broker.password_hash("right")},
                                  broker.password_hash("page"))
        cafe.broker.set_up("127.0.0.1", {"r1": broker.password_hash("r1")})
        before = {name: (cafe.etc / name).read_bytes() if (cafe.etc / name).exists() else None for name in broker.WRITTEN}
        calls = cafe.calls()
        ca = (league.etc / broker.CA_CERT).read_text() if wrong != "ca" else (cafe.etc / broker.CA_CERT).read_text()
        port = league.port if wrong != "address" else cafe.port + 1
        with pytest.raises(ReleaseError, match=why) as refused:
            cafe.broker.join_league("spring", "bar-roma", "127.0.0.1", port, "right", ca)
        assert not isinstance(refused.value, broker.RolledBack)  # refused: nothing was tried
        assert {name: (cafe.etc / name).read_bytes() if (cafe.etc / name).exists() else None
                for name in broker.WRITTEN} == before
        assert cafe.calls() == calls and cafe.running()
        assert cafe.cpu_share() < 0.1, "the café's broker spins after a join that did not link"
    finally:
        cafe.close()
        league.close()


@pytest.mark.broker
@pytest.mark.parametrize("wrong", ["password", "ca"])
def test_a_league_that_does_not_take_the_bridge_is_a_trial_that_comes_back(tmp_path, monkeypatch, wrong):
    """The café's broker joins a league with a wrong password, or with another CA that the check
    before did not see (the league's certificate changed meanwhile): the bridge does not link
    within the wait, the helper's act says why, and the café's broker is back on its files before
    (no bridge, its ACL the café's alone), restarted on them (never reloaded with the bridge that
    failed: Mosquitto 2.0.11 was seen spinning a core on one), idle, answering its tables; every
    Mosquitto the test started is gone at its end (``MosquittoUnit.close``)."""
    from pi_table.release import broker
    from pi_table.release.broker import RolledBack

    from helpers_machine import MosquittoUnit

    league, cafe = MosquittoUnit(tmp_path / "league"), MosquittoUnit(tmp_path / "cafe")
    try:
        league.broker.host_league("127.0.0.1", "spring", {"bar-roma": broker.password_hash("right")},
                                  broker.password_hash("page"))
        cafe.broker.set_up("127.0.0.1", {"r1": broker.password_hash("r1")})
        acl = (cafe.etc / broker.ACL).read_text()
        ca = (league.etc / broker.CA_CERT).read_text() if wrong != "ca" else (cafe.etc / broker.CA_CERT).read_text()
        if wrong == "ca":
            monkeypatch.setattr(broker, "reached", lambda address, port, ca: None)  # the league's CA, as it was checked
        joining, calls = broker.Broker(cafe.etc, cafe.systemctl, cafe.port, link_s=3.0), len(cafe.calls())
        with pytest.raises(RolledBack, match="the league's broker did not take the café's bridge"):
            joining.join_league("spring", "bar-roma", "127.0.0.1", league.port,
                                "wrong" if wrong == "password" else "right", ca)
        assert not (cafe.etc / broker.BRIDGE).exists() and not (cafe.etc / broker.LEAGUE_NOTE).exists()
        assert (cafe.etc / broker.ACL).read_text() == acl and cafe.broker.league() is None
        assert cafe.broker.users() == ["r1"]  # the helper's own user, gone
        assert cafe.running()
        # started on the bridge, the helper's password read, then started on the files before: never reloaded with
        # the bridge that failed
        assert [call for call in cafe.calls()[calls:] if not call.startswith("is-active")] == [
            "restart mosquitto.service", "reload-or-restart mosquitto.service", "restart mosquitto.service"]
        assert cafe.cpu_share() < 0.1, "the café's broker spins after a join that did not link"
        cafe.broker.join_league("spring", "bar-roma", "127.0.0.1", league.port, "right",
                                (league.etc / broker.CA_CERT).read_text())  # then the right one links
        assert cafe.broker.league() == ("spring", "bar-roma")
        assert cafe.cpu_share() < 0.1
    finally:
        cafe.close()
        league.close()


@contextlib.contextmanager
def cafe_clients(settings: FleetConfig) -> Iterator[tuple[mqtt.Client, list[bytes]]]:
    """On the broker of ``settings``: a café that sends nights, and the seasons a café's table hears
    sent down (``league/spring/season``); both let go after."""
    from pi_table.fleet.link import client as link_client

    sender = link_client(settings, "café")
    sender.connect(settings.host, settings.port)
    sender.loop_start()
    seasons: list[bytes] = []
    listener = link_client(settings, "a café's table")
    listener.on_connect = lambda client, userdata, flags, reason, properties: client.subscribe("league/spring/season", 1)
    listener.on_message = lambda client, userdata, message: seasons.append(message.payload)
    listener.connect(settings.host, settings.port)
    listener.loop_start()
    try:
        yield sender, seasons
    finally:
        for client in (sender, listener):
            client.disconnect()
            client.loop_stop()


@pytest.mark.broker
def test_the_league_page_shows_the_season_in_both_languages_exports_it_and_sends_it_down(broker, tmp_path):
    """The organiser's page on a league's broker: the nights the cafés sent, folded; the page in the
    language the phone asks for, the CSV export, and the season sent back retained for the cafés."""
    import urllib.request

    from pi_table import config
    from pi_table.fleet.league_page import LeaguePage

    from helpers import wait_for

    rng = random.Random(5)
    books, played = two_cafes(tmp_path, rng)
    roster = tmp_path / "roster.toml"
    roster.write_text('[cafes]\nbar-roma = ["r1", "r2"]\nbar-milano = ["m1", "m2", "m3"]\n\n'
                      '[scoring]\npoints = "places"\nbest = 2\n')
    from pi_table.fleet.league_page import read_roster

    scoring = read_roster(roster).scoring
    settings = config.broker(broker.url)
    with cafe_clients(settings) as (sender, seasons):
        page = LeaguePage(settings, read_roster(roster).league("spring"), "127.0.0.1", 0)
        page.start()
        try:
            for cafe, host, night in played:
                sender.publish(*sent(night, cafe, host), qos=1, retain=True)
            sender.publish(night_topic("spring", "bar-roma", "m1", "20261118-000000"), b"{}", qos=1, retain=True)
            wait_for(lambda: len(page.league.nights) == len(played) and page.league.apart, "every night at the page", 10)
            own = [(cafe, books[cafe].night_of(night.id)) for cafe, _, night in played]
            expected = recomputed(own, scoring)

            def fetched(path: str, lang: str = "") -> str:
                asked = urllib.request.Request(page.url + path, headers={"Accept-Language": lang} if lang else {})
                with urllib.request.urlopen(asked, timeout=10) as answer:
                    return answer.read().decode()

            english, italian = fetched("/"), fetched("/", "it-IT,it;q=0.9")
            assert "The league spring" in english and "Last heard" in english and "Nights refused" in english
            assert "La lega spring" in italian and "Nights refused" not in italian and "Serate rifiutate" in italian
            assert fetched("/?lang=it") == italian
            leader = next(line for line in page.league.season() if league_key(page.league, line) == expected[0][0])
            assert leader.team in english and leader.place == 1
            data = json.loads(fetched("/season.json"))
            assert [(page.league.team(line["team"]), line["points"]) for line in data["season"]] == \
                [(team, points) for team, _, points, _ in expected]
            csv_lines = fetched("/season.csv").splitlines()
            assert csv_lines[0].startswith("place,team,cafes,nights,points") and len(csv_lines) == len(expected) + 1
            wait_for(lambda: seasons and json.loads(seasons[-1])["season"] == data["season"], "the season sent down", 10)
        finally:
            page.stop()


@pytest.mark.broker
def test_the_organiser_signs_in_and_merges_two_teams_on_the_page_which_the_roster_keeps_and_the_cafes_hear(
        broker, tmp_path):
    """Issue 64: the league's page, given a password, lets the organiser sign in (the staff page's
    Gate: a wrong password refused) and merge two teams of the season with a form that carries the
    session's token from the page's own origin; the roster keeps the merge (the file before it
    kept beside it), the season sent down is merged, and a league read from the roster again
    folds the same season. Each night's TRF and the season's workbook are downloaded from the page."""
    import http.cookiejar
    import io
    import urllib.error
    import urllib.parse
    import urllib.request

    from openpyxl import load_workbook

    from pi_table import config
    from pi_table.fleet.dashboard import hash_password
    from pi_table.fleet.league_page import LeaguePage, read_roster
    from pi_table.web.night import night_trf

    from helpers import wait_for

    books, played = two_cafes_coded(tmp_path)
    roster = tmp_path / "roster.toml"
    roster.write_text('[teams]\nOWL7 = "The Owls"\n')
    settings = config.broker(broker.url)
    with cafe_clients(settings) as (sender, seasons):
        page = LeaguePage(settings, read_roster(roster).league("spring"), "127.0.0.1", 0,
                          password_hash=hash_password("organiser-secret"), roster=roster)
        page.start()
        jar = http.cookiejar.CookieJar()
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

        def fetch(path: str, form: dict[str, str] | None = None, origin: str | None = None) -> tuple[int, bytes]:
            asked = urllib.request.Request(page.url + path, data=None if form is None else
                                           urllib.parse.urlencode(form).encode(),
                                           headers={"Origin": origin} if origin else {})
            try:
                with browser.open(asked, timeout=10) as answer:
                    return answer.status, answer.read()
            except urllib.error.HTTPError as refused:
                return refused.code, refused.read()

        try:
            for cafe, host, night in played:
                sender.publish(*sent(night, cafe, host), qos=1, retain=True)
            wait_for(lambda: len(page.league.nights) == len(played), "every night at the page", 10)
            status, shown_page = fetch("/")
            assert status == 200 and b'href="/login"' in shown_page and b'action="/merge"' not in shown_page
            assert fetch("/merge", {"duplicate": "lynx", "into": "NEW9"})[1].count(b'type="password"') == 1  # to the login
            assert fetch("/login", {"password": "not-the-secret"})[0] == 401
            assert fetch("/login", {"password": "organiser-secret"}, origin="http://elsewhere.example")[0] == 403
            status, signed_in = fetch("/login", {"password": "organiser-secret"})
            assert status == 200 and b'action="/merge"' in signed_in
            token = re.search(rb'name="csrf" value="([^"]+)"', signed_in).group(1).decode()
            cafe, host, night = played[1]  # OWL7, at home at Rome, played at Milan too: the organiser counts it
            assert fetch("/night", {"csrf": token, "cafe": cafe, "host": host, "night": night.id, "event": "restore",
                                    "why": "the team plays at both cafés"})[0] == 200
            restored = roster.read_text()
            assert restored.startswith('[teams]\nOWL7 = "The Owls"\n') and 'event = "restore"' in restored
            keys = {line.key for line in page.league.season()}
            assert {"moles", "otters"} <= keys  # one team, as Moles at one café and Otters at the other
            assert fetch("/merge", {"csrf": "forged", "duplicate": "otters", "into": "moles"})[0] == 403
            assert fetch("/merge", {"csrf": token, "duplicate": "otters", "into": "moles"},
                         origin="http://elsewhere.example")[0] == 403
            status, refused = fetch("/merge", {"csrf": token, "duplicate": "otters", "into": "otters"})
            assert status == 409 and b"not one twice" in refused
            assert roster.read_text() == restored and page.league.merged == {}
            status, merged = fetch("/merge?lang=it", {"csrf": token, "duplicate": "otters", "into": "moles"})
            assert status == 200 and b"Otters e Moles sono una sola squadra" in merged
            assert read_roster(roster).merged == {"otters": "moles"}
            assert (tmp_path / "roster.toml.good").read_text() == restored
            season = page.league.season()
            assert "otters" not in {line.key for line in season}
            moles = next(line for line in season if line.key == "moles")
            assert (moles.nights, moles.cafes) == (2, ("bar-milano", "bar-roma"))
            again = read_roster(roster).league("spring")
            for cafe, host, night in played:
                again.take(*sent(night, cafe, host))
            assert shown(again.season(), again) == shown(season, page.league)
            wait_for(lambda: seasons and [line["key"] for line in json.loads(seasons[-1])["season"]] ==
                     [line.key for line in season], "the merged season sent down", 10)
            cafe, host, night = played[0]
            status, trf = fetch(f"/nights/{cafe}/{host}/{night.id}.trf")
            assert status == 200 and trf.decode() == night_trf(books[cafe].night_of(night.id))
            assert fetch(f"/nights/{cafe}/r9/{night.id}.trf")[0] == 404
            assert f"/nights/{cafe}/{host}/{night.id}.trf".encode() in fetch("/")[1]
            status, workbook = fetch("/season.xlsx")
            sheet = load_workbook(io.BytesIO(workbook))["season"]
            assert [[cell.value if cell.value is not None else "" for cell in row] for row in sheet.iter_rows()] == \
                page.league.rows()
            fetch("/logout", {})
            assert b'action="/merge"' not in fetch("/")[1]
        finally:
            page.stop()


def won_as(book: Book, tables: list[str], teams: list[str], winner, codes: dict[str, str] | None = None) -> Night:
    """A night hosted on ``tables[0]`` of three rounds, each pair's game won by ``winner(pair's teams)``, closed."""
    from pi_table.engine.endings import Termination
    from pi_table.night.games import Game

    night = book.open("League night", ["codenames"], tables)
    for name in teams:
        book.join(name, code=(codes or {}).get(name, ""))
    for _ in range(3):
        book.propose()
        made = book.confirm(over=True)
        for pair in made.pairs:
            book.record(Game(f"{pair.table}-{night.id}-{made.number}", pair.table, "codenames", pair.teams,
                             winner(pair.teams), Termination.ALL_AGENTS_FOUND, 3, None, made.number, book.clock(), 0))
    return book.close(over=True)


def owls_at_home_and_a_ghost_night_at_rome(tmp_path) -> tuple[League, Night, Night]:
    """Issue 76, 1: Milan's team OWL7 wins each game of its night at home; then Rome, with its own
    credential and under its own prefix, sends a well-formed night in which OWL7 loses every game
    to three "Ghost" teams. The league has heard both."""
    milano = won_as(Book(tmp_path / "milano", clock=Clock(START)), ["m1", "m2"], ["Owls", "Herons", "Otters", "Lynx"],
                    lambda teams: "Owls" if "Owls" in teams else teams[0], {"Owls": "OWL7"})
    roma = won_as(Book(tmp_path / "roma", clock=Clock(START + 86400)), ["r1", "r2"],
                  ["Owls", "Ghost 1", "Ghost 2", "Ghost 3"],
                  lambda teams: next(t for t in teams if t != "Owls") if "Owls" in teams else teams[0], {"Owls": "OWL7"})
    league = League("spring", cafes={"bar-milano": ["m1", "m2"], "bar-roma": ["r1", "r2"]}, teams={"OWL7": "The Owls"},
                    clock=lambda: START + 2 * 86400)
    league.take(*sent(milano, "bar-milano", "m1"))
    return league, milano, roma


def test_a_night_that_uses_a_teams_code_away_from_its_home_cafe_waits_for_the_organiser(tmp_path):
    """Issue 76, 1 (the reproduction): Rome's night with Milan's OWL7 losing every game is counted
    at once no more: it is held, whole, out of the season (OWL7's line and rating as they were, no
    Ghost in the season) and waits on the page for the organiser, naming the code away from home.
    Voided, it stays out; restored, it counts (and Rome is a home of OWL7's from then on); voided
    again, OWL7's standing and rating come back. Each event stays in the league's history."""
    from pi_table.fleet.league import COUNTED, HELD, RESTORED, VOIDED, WAITING

    league, milano, roma = owls_at_home_and_a_ghost_night_at_rome(tmp_path)
    owls = next(line for line in league.season() if line.key == "OWL7")
    assert (owls.played, owls.lost) == (3, 0)
    league.take(*sent(roma, "bar-roma", "r1"))
    after = next(line for line in league.season() if line.key == "OWL7")
    assert (after.played, after.lost, after.ordinal) == (owls.played, owls.lost, owls.ordinal)
    assert not any(line.key.startswith("ghost") for line in league.season())
    rome = ("bar-roma", "r1", roma.id)
    assert league.standing(rome).state == WAITING and league.standing(rome).away == ("OWL7",)
    shown_night = next(n for c in league.to_json()["cafes"] if c["cafe"] == "bar-roma" for n in c["nights"])
    assert (shown_night["state"], shown_night["away"]) == ("held", ["OWL7"])
    home = [("bar-milano", milano)]
    assert shown(league.season(), league) == recomputed(home, Scoring(), {"owls": "OWL7"})

    def decide(event: str, why: str) -> None:
        league.keep(league.decision(event, rome, "organiser · 1a2b3c", why))

    decide(VOIDED, "OWL7 is Milan's: Rome's director picked the wrong code")
    assert league.standing(rome).state == VOIDED
    assert shown(league.season(), league) == recomputed(home, Scoring(), {"owls": "OWL7"})
    decide(RESTORED, "counted after all, to show it")
    assert league.standing(rome).state == COUNTED
    counted = next(line for line in league.season() if line.key == "OWL7")
    assert (counted.played, counted.lost) == (6, 3) and counted.ordinal < owls.ordinal
    assert shown(league.season(), league) == recomputed([*home, ("bar-roma", roma)], Scoring(), {"owls": "OWL7"})
    decide(VOIDED, "void after all")
    back = next(line for line in league.season() if line.key == "OWL7")
    assert (back.played, back.lost, back.ordinal) == (owls.played, owls.lost, owls.ordinal)
    with pytest.raises(LeagueRefused, match="void already"):
        league.decision(VOIDED, rome, "organiser", "twice")
    with pytest.raises(LeagueRefused, match="only a night that counts can be held"):
        league.decision(HELD, rome, "organiser", "held")
    assert [(d.event, d.by, d.at) for d in league.history] == [(VOIDED, "organiser · 1a2b3c", START + 2 * 86400),
                                                                (RESTORED, "organiser · 1a2b3c", START + 2 * 86400),
                                                                (VOIDED, "organiser · 1a2b3c", START + 2 * 86400)]
    assert league.to_json()["history"][0]["why"] == \
        "OWL7 is Milan's: Rome's director picked the wrong code"


def test_the_organiser_holds_restores_and_edits_a_result_and_the_season_is_the_nights_as_decided(tmp_path):
    """Issue 76, 1: a night held counts for nothing until restored; an edit of a result is the
    night's own staff's result over the café's (the season equal to the café's own book corrected
    alike, at the same time), edited back as the café sent it; each event kept with who, when and
    why, and sent down with the season (``schema.SEASON`` reads it back); a reason is needed."""
    from pi_table.fleet.league import AS_SENT, EDITED, HELD, RESTORED, WAITING

    now = [START + 30 * 86400]
    books, played = two_cafes(tmp_path, random.Random(21))
    league = League("spring", clock=lambda: now[0])
    for cafe, host, night in played:
        league.take(*sent(night, cafe, host))
    own = [(c, books[c].night_of(n.id)) for c, _, n in played]
    cafe, host, night = played[2]
    key = (cafe, host, night.id)
    league.keep(league.decision(HELD, key, "organiser", "a result is disputed"))
    assert league.standing(key).state == WAITING
    assert shown(league.season(), league) == recomputed([n for n in own if n[1].id != night.id], Scoring())
    league.keep(league.decision(RESTORED, key, "organiser", "settled"))
    assert shown(league.season(), league) == recomputed(own, Scoring())
    pair = night.rounds[1].pairs[0]
    loser = next(team for team in pair.teams if team != night.slots()[(2, pair.table)].winner)
    now[0] += 60
    league.keep(league.decision(EDITED, key, "organiser", "the sheet says the other team won", 2, pair.table, "won",
                                loser))
    books[cafe].clock = lambda: now[0]
    corrected = books[cafe].correct(night.id, 2, pair.table, "won", "organiser", winner=loser)
    edited = [(c, corrected if n.id == night.id else n) for c, n in own]
    assert shown(league.season(), league) == recomputed(edited, Scoring())
    with pytest.raises(LeagueRefused, match="a win or a forfeit names one of the pair"):
        league.decision(EDITED, key, "organiser", "no", 2, pair.table, "won", "Nobody")
    with pytest.raises(LeagueRefused, match="a round's pair of the night"):
        league.decision(EDITED, key, "organiser", "no", 9, pair.table, "void")
    with pytest.raises(NameRefused, match="cannot be empty"):
        league.decision(RESTORED, key, "organiser", "  ")
    league.keep(league.decision(EDITED, key, "organiser", "the sheet was wrong", 2, pair.table, AS_SENT))
    assert shown(league.season(), league) == recomputed(own, Scoring())
    with pytest.raises(LeagueRefused, match="nothing to edit back"):
        league.decision(EDITED, key, "organiser", "again", 2, pair.table, AS_SENT)
    assert [d.event for d in league.history] == [HELD, RESTORED, EDITED, EDITED]
    down = schema.parse("league.season", json.dumps({**league.down(), "at": START}).encode())
    assert [(d["event"], d["why"]) for d in down["history"]] == [(d.event, d.why) for d in league.history]
    assert down["history"][2]["winner"] == loser and down["history"][3]["result"] == AS_SENT


def test_the_organiser_voids_restores_and_edits_on_the_page_which_the_roster_keeps_for_the_next_start(tmp_path):
    """Issue 76, 1: the page shows a night the league held (a team's code away from home) to
    everyone, waiting for the organiser; signed in, the organiser voids, restores and edits a
    result with forms of the page's origin and its session's token, each with a reason (refusals
    said in words, in the page's language); each event is written to the roster's [[history]]
    (the file before kept beside it), so a page started again folds the same season."""
    import http.cookiejar
    import urllib.error
    import urllib.parse
    import urllib.request

    from pi_table.config import broker as broker_config
    from pi_table.fleet.dashboard import hash_password
    from pi_table.fleet.league import COUNTED, VOIDED
    from pi_table.fleet.league_page import LeaguePage, read_roster

    _, milano, roma = owls_at_home_and_a_ghost_night_at_rome(tmp_path)
    roster = tmp_path / "roster.toml"
    roster.write_text('[cafes]\nbar-milano = ["m1", "m2"]\nbar-roma = ["r1", "r2"]\n\n[teams]\nOWL7 = "The Owls"\n')
    page = LeaguePage(broker_config("mqtt://127.0.0.1:1"), read_roster(roster).league("spring"), "127.0.0.1", 0,
                      client_id="league-decisions", password_hash=hash_password("organiser-secret"), roster=roster)
    for cafe, host, night in (("bar-milano", "m1", milano), ("bar-roma", "r1", roma)):
        page.league.take(*sent(night, cafe, host))
    rome = {"cafe": "bar-roma", "host": "r1", "night": roma.id}
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def fetch(path: str, form: dict[str, str] | None = None, origin: str | None = None) -> tuple[int, str]:
        asked = urllib.request.Request(page.url + path, data=None if form is None else
                                       urllib.parse.urlencode(form).encode(), headers={"Origin": origin} if origin else {})
        try:
            with browser.open(asked, timeout=10) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode()

    page.start()
    try:
        status, shown_page = fetch("/")
        assert status == 200 and "Nights waiting for the organiser" in shown_page
        assert "held: a team&#x27;s code away from its home café (OWL7)" in shown_page
        assert 'action="/night"' not in shown_page and 'action="/result"' not in shown_page
        assert 'type="password"' in fetch("/night", {**rome, "event": "void", "why": "no session"})[1]  # to the login
        status, signed = fetch("/login", {"password": "organiser-secret"})
        assert status == 200 and 'action="/night"' in signed and 'action="/result"' in signed
        token = re.search(r'name="csrf" value="([^"]+)"', signed).group(1)
        void = {**rome, "csrf": token, "event": "void", "why": "OWL7 is Milan's team"}
        assert fetch("/night", {**void, "csrf": "forged"})[0] == 403
        assert fetch("/night", void, origin="http://elsewhere.example")[0] == 403
        status, said = fetch("/night", {**void, "why": "  "})
        assert status == 409 and "a reason cannot be empty" in said
        status, said = fetch("/night?lang=it", {**void, "event": "hold"})
        assert status == 409 and "si può sospendere solo una serata che conta" in said
        status, said = fetch("/night", {**void, "night": "20261118-000000"})
        assert status == 409 and "the league keeps no such night" in said
        status, said = fetch("/result", {**rome, "csrf": token, "slot": "x", "outcome": "won:0", "why": "?"})
        assert status == 400 and "an edit names a round&#x27;s pair of a night of the league" in said
        assert not (tmp_path / "roster.toml.good").exists() and page.league.history == []
        status, said = fetch("/night", void)
        assert status == 200 and "The night League night is void: it counts for nothing." in said
        assert page.league.standing(tuple(rome.values())).state == VOIDED
        assert "void: OWL7 is Milan&#x27;s team" in said and "The league's history" in said
        assert (tmp_path / "roster.toml.good").read_text().startswith("[cafes]")
        assert fetch("/night", {**void, "event": "restore", "why": "counted to edit it"})[0] == 200
        pair = roma.rounds[0].pairs[0]
        owls = pair.teams.index("Owls") if "Owls" in pair.teams else 0
        status, said = fetch("/result", {**rome, "csrf": token, "slot": f"1/{pair.table}", "outcome": f"won:{owls}",
                                         "why": "the score sheet says so"})
        assert status == 200 and "The result is edited" in said and "(edited by the organiser)" in said
        assert page.league.standing(tuple(rome.values())).state == COUNTED
        assert [(d.event, d.by.split(" · ")[0]) for d in page.league.history] == \
            [("void", "organiser"), ("restore", "organiser"), ("edit", "organiser")]
        assert page.league.history[-1].winner == pair.teams[owls]
        italian = fetch("/?lang=it")[1]
        assert "Lo storico della lega" in italian and "ha annullato la serata League night di bar-roma" in italian
        assert "l&#x27;organizzatore · " in italian and "organiser" not in italian  # who, in the page's words
        again = read_roster(roster).league("spring")  # the page started again: the roster's events, the broker's nights
        for cafe, host, night in (("bar-milano", "m1", milano), ("bar-roma", "r1", roma)):
            again.take(*sent(night, cafe, host))
        assert again.history == page.league.history
        assert shown(again.season(), again) == shown(page.league.season(), page.league)
        assert [d["event"] for d in again.down()["history"]] == ["void", "restore", "edit"]
    finally:
        page.stop()


def test_the_organiser_splits_a_team_on_the_page_and_makes_it_one_again_which_the_roster_keeps(tmp_path):
    """Issue 76, 5: signed in, the organiser splits "owls" (Rome's and Milan's, no code) off at
    Milan with a form of the page's origin and its session's token, saying why (refusals in words,
    in the page's language); the split is written to the roster's [[history]], so a page started
    again folds the same season, and made one team again the same way."""
    import http.cookiejar
    import urllib.error
    import urllib.parse
    import urllib.request

    from pi_table.config import broker as broker_config
    from pi_table.fleet.dashboard import hash_password
    from pi_table.fleet.league_page import LeaguePage, read_roster

    from helpers_fleet import two_cafes_season

    _, roster, played = two_cafes_season(tmp_path)
    page = LeaguePage(broker_config("mqtt://127.0.0.1:1"), read_roster(roster).league("spring"), "127.0.0.1", 0,
                      client_id="league-split", password_hash=hash_password("organiser-secret"), roster=roster)
    for cafe, host, night in played:
        page.league.take(*sent(night, cafe, host))
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def fetch(path: str, form: dict[str, str] | None = None) -> tuple[int, str]:
        asked = urllib.request.Request(page.url + path, data=None if form is None else
                                       urllib.parse.urlencode(form).encode())
        try:
            with browser.open(asked, timeout=10) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode()

    def keys() -> dict[str, tuple[str, ...]]:
        return {line.key: line.cafes for line in page.league.season() if line.key.startswith("owls")}

    page.start()
    try:
        assert 'action="/team"' not in fetch("/")[1]
        assert 'type="password"' in fetch("/team", {"team": "bar-milano/owls", "event": "split", "why": "?"})[1]
        status, signed = fetch("/login", {"password": "organiser-secret"})
        assert status == 200 and 'action="/team"' in signed and '<option value="bar-milano/owls">owls at bar-milano' in signed
        assert '<option value="bar-roma/owls">Owls at bar-roma' in signed  # each café's under its name there
        token = re.search(r'name="csrf" value="([^"]+)"', signed).group(1)
        split = {"csrf": token, "team": "bar-milano/owls", "event": "split", "why": "two teams, one name"}
        assert fetch("/team", {**split, "csrf": "forged"})[0] == 403
        status, said = fetch("/team", {**split, "team": "owls"})
        assert status == 400 and "a split names a team of the season at a café" in said
        status, said = fetch("/team?lang=it", {**split, "event": "unsplit"})
        assert status == 409 and "questa squadra non è divisa in questo locale" in said
        assert page.league.history == [] and keys() == {"owls": ("bar-milano", "bar-roma")}
        status, said = fetch("/team", split)
        assert status == 200 and "owls at bar-milano is a team of its own from now on." in said
        assert keys() == {"owls": ("bar-roma",), "owls@bar-milano": ("bar-milano",)}
        assert "split owls of bar-milano off: a team of its own. Why: two teams, one name" in said
        assert '<option value="bar-milano/owls">owls at bar-milano' in said  # to make it one again
        again = read_roster(roster).league("spring")  # the page started again: the roster's split, the broker's nights
        for cafe, host, night in played:
            again.take(*sent(night, cafe, host))
        assert shown(again.season(), again) == shown(page.league.season(), page.league)
        status, said = fetch("/team?lang=it", {**split, "event": "unsplit", "why": "the same team after all"})
        assert status == 200 and "è di nuovo una sola squadra" in said
        assert keys() == {"owls": ("bar-milano", "bar-roma")}
        assert [d.event for d in read_roster(roster).history] == ["split", "unsplit"]
    finally:
        page.stop()


def test_the_running_page_reads_its_roster_again_once_the_organiser_edits_it(tmp_path, caplog):
    """Issue 76, 5: the page read its roster once, at its start: an organiser who named a code's
    team, merged two teams or changed the scoring in the file saw nothing until a restart. Now each
    view reads it again once the file changed; a roster that cannot be read leaves the one the page
    has, and the log says so."""
    import os
    import urllib.request

    from pi_table.config import broker as broker_config
    from pi_table.fleet.league_page import LeaguePage, read_roster

    _, milano, _ = owls_at_home_and_a_ghost_night_at_rome(tmp_path)
    roster = tmp_path / "roster.toml"
    roster.write_text('[cafes]\nbar-milano = ["m1", "m2"]\n\n[teams]\nOWL7 = "The Owls"\n')
    page = LeaguePage(broker_config("mqtt://127.0.0.1:1"), read_roster(roster).league("spring"), "127.0.0.1", 0,
                      client_id="league-roster-again", roster=roster)
    page.league.take(*sent(milano, "bar-milano", "m1"))

    def season() -> dict[str, str]:
        with urllib.request.urlopen(page.url + "/season.json", timeout=10) as answer:
            return {line["key"]: line["team"] for line in json.load(answer)["season"]}

    def edited(text: str, at: int) -> None:
        roster.write_text(text)
        os.utime(roster, ns=(at, at))  # a clock's step between two writes, however coarse the file system's

    page.start()
    try:
        assert season()["OWL7"] == "The Owls" and "herons" in season()
        edited('[cafes]\nbar-milano = ["m1", "m2"]\n\n[teams]\nOWL7 = "The Night Owls"\n\n[merged]\n'
               'Herons = "Otters"\n', 2_000_000_000 * 10**9)
        assert season()["OWL7"] == "The Night Owls" and "herons" not in season() and "otters" in season()
        edited("[cafes\n", 2_000_000_100 * 10**9)
        assert season()["OWL7"] == "The Night Owls"
        assert "keeps the roster it had" in caplog.text and "roster.toml" in caplog.text
    finally:
        page.stop()


def league_key(league: League, line: league_.SeasonLine) -> str:
    return line.key


@pytest.mark.parametrize("text, why", [
    ("[cafes]\nbar-roma = \"r1\"\n", "cafes.bar-roma should be a list of the café's tables' names"),
    ("[players]\n", "[players] is no part of a roster"),
    ("[teams]\nOW = \"Owls\"\n", "teams: each key is a team's league code, 3 to 8 letters or digits"),
    ("[teams]\nOWL7 = \"\"\n", "teams.OWL7 should be the team's name, 1 to 24 characters"),
    ("[teams]\nOWL7 = \"Owls\"\nowl7 = \"Night Owls\"\n", "teams.owl7 is the code OWL7 a second time"),
    ("teams = 3\n", "teams should be a table, [teams]"),
    ("[scoring]\npoints = \"wins\"\n", "a league counts a night by 'night' or 'places'"),
    ("[scoring]\nbest = \"two\"\n", "a league counts a team's best"),
    ("[merged]\nlynx = 3\n", "merged.lynx should be the name of the team it is merged into"),
    ("cafes = [", "is not TOML in UTF-8"),
    ("history = 3\n", "history should be the organiser's events, [[history]]"),
    ('[[history]]\nevent = "erase"\ncafe = "c"\nhost = "h"\nnight = "n"\nby = "b"\nat = 1\nwhy = "w"\n',
     "history's event 1 should be an event as the page writes it"),
    ('[[history]]\nevent = "edit"\ncafe = "c"\nhost = "h"\nnight = "n"\nby = "b"\nat = 1\nwhy = "w"\nround = 1\n'
     'table = "t"\nresult = "won"\n', "history's event 1 should be an event as the page writes it"),
])
def test_a_roster_out_of_its_kind_names_the_file_the_key_and_what_was_expected(tmp_path, text, why):
    from pi_table.fleet.league_page import RosterError, read_roster

    path = tmp_path / "roster.toml"
    path.write_text(text)
    with pytest.raises(RosterError, match=re.escape(why)) as refused:
        read_roster(path)
    assert str(refused.value).startswith(f"{path}: ")


@pytest.mark.broker
@pytest.mark.slow
def test_the_league_bench_in_small_times_every_night_to_the_page():
    """``pi-table bench league`` with two cafés: each night closed reaches ``pi-table league``'s page
    through its café's bridge, and the figures are the bench's: each café's six teams its own, the
    page's CPU per view, and the season a café's broker holds, as the page sent it."""
    from pi_table.bench import league as bench
    from pi_table.fleet.broker import mosquitto

    from helpers import require_tools

    require_tools(also_missing=() if mosquitto() else ("mosquitto",))
    figures = bench.run(cafes=2, nights=2)
    assert (figures["cafes"], figures["tables"], figures["nights"], figures["teams"]) == (2, 6, 4, 12)
    assert 0 < figures["closed_to_page"]["p50_ms"] <= figures["closed_to_page"]["p99_ms"] < 10_000  # type: ignore[index]
    assert figures["page"]["rss_mb"] > 0  # type: ignore[index]
    assert set(figures["view_cpu_ms"]) == {"page", "season_json", "csv"}  # type: ignore[arg-type]
    assert all(0 <= ms < 1000 for ms in figures["view_cpu_ms"].values())  # type: ignore[union-attr]
    season = figures["season_sent"]["bytes_a_cafe"]  # type: ignore[index]
    assert 12 * 150 < season < 12 * 400  # the twelve teams' lines, each some 250 bytes of JSON


@pytest.mark.broker
@pytest.mark.daemon
def test_the_owner_joins_a_league_from_the_staff_page_as_a_trial_and_the_tables_nights_then_reach_it(tmp_path):
    """The café's owner, on the staff page of the table that is the café's broker, joins the league
    with what its organiser gave: given a wrong password, the helper's trial comes back (the bridge
    never linked), the page says why and the table's settings stay; given the right one, the bridge
    links, the table restarts sending its nights to the league ([fleet] league and cafe) and a night
    it hosts and closes reaches the league's broker. Staff without the owner's step up are refused."""
    import dataclasses
    import tomllib

    from pi_table.release import broker

    from helpers import wait_for
    from helpers_fleet import Cafe, connected, settled
    from helpers_machine import MosquittoUnit
    from helpers_staff import Staff

    league = MosquittoUnit(tmp_path / "league")
    (tmp_path / "cafe").mkdir()
    cafe = Cafe(tmp_path / "cafe", extra='[fleet]\ntable_id = "r1"\n')
    cafe.helper = dataclasses.replace(cafe.helper, mosquitto=dataclasses.replace(cafe.unit.broker, link_s=5.0))
    heard: dict[str, bytes] = {}
    watcher = None
    try:
        league.broker.host_league("127.0.0.1", "spring", {"bar-roma": broker.password_hash("the-right-one")},
                                  broker.password_hash("page-secret"))
        league_ca = (league.etc / broker.CA_CERT).read_text()
        staff = cafe.staff()
        assert staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1", "table": "r1",
                                                        "tables": []})[0] == 202
        assert cafe.helper_acts() == 0
        settled(staff)
        cafe.restarted()
        wait_for(lambda: cafe.table.daemon.health().get("fleet") == "ok", "r1 reporting to its café's broker", 15)
        join = {"act": "join", "league": "spring", "cafe": "bar-roma", "address": "127.0.0.1", "port": league.port,
                "password": "a-wrong-one", "ca": league_ca}
        plain = Staff(cafe.table.daemon.companion.base_url)
        plain.login()
        assert plain.call("POST", "/staff/api/broker", join)[0] == 403  # the owner's alone
        staff = cafe.staff()
        status, answer = staff.call("POST", "/staff/api/broker", {**join, "port": 0})
        assert status == 400 and "the league's port is a whole number" in answer["error"]
        assert staff.call("POST", "/staff/api/broker", join)[0] == 202
        asked = (cafe.spool / "request.json").read_text()
        assert cafe.helper_acts() == 1  # the trial came back
        view = settled(staff)
        assert view["last"]["outcome"] == "rolled back" and "did not take the café's bridge" in view["last"]["why"]
        assert "a-wrong-one" in asked and "a-wrong-one" not in (cafe.home / broker.NOTE).read_text()
        assert view["league"] is None and not (cafe.unit.etc / broker.BRIDGE).exists()
        assert cafe.table.runner.is_alive()  # nothing to try: the table stays as it was
        assert "league" not in tomllib.loads(cafe.config.read_text())["fleet"]

        assert staff.call("POST", "/staff/api/broker", {**join, "password": "the-right-one"})[0] == 202
        assert cafe.helper_acts() == 0
        view = settled(staff)
        assert view["last"]["outcome"] == "done" and view["league"]["league"] == "spring"
        cafe.restarted()  # this table's settings: the league's, as a trial
        fleet = tomllib.loads(cafe.config.read_text())["fleet"]
        assert (fleet["league"], fleet["cafe"]) == ("spring", "bar-roma")
        wait_for(lambda: cafe.table.daemon.health().get("fleet") == "ok", "r1 back, in the league", 15)
        assert cafe.staff().call("GET", "/staff/api/broker")[1]["league"]["sends"]

        watcher = connected(f"mqtts://league:page-secret@127.0.0.1:{league.port}", league.etc / broker.CA_CERT,
                            topics=("league/spring/cafes/#",),
                            heard=lambda c, u, message: heard.__setitem__(message.topic, message.payload))
        staff = cafe.staff()
        status, answer = staff.call("POST", "/staff/api/night/open", {"name": "Friday league", "games": ["codenames"],
                                                                      "tables": ["r1"]})
        assert status == 200, answer
        night_id = answer["night"]["id"]
        status, answer = staff.call("POST", "/staff/api/night/close")
        assert status == 200, answer
        topic = night_topic("spring", "bar-roma", "r1", night_id)
        wait_for(lambda: topic in heard, "the night closed at r1 at the league's broker", 15)
        assert json.loads(heard[topic])["closed"] is not None
    finally:
        if watcher is not None:
            watcher.disconnect()
            watcher.loop_stop()
        cafe.close()
        league.close()


@pytest.mark.broker
def test_a_stolen_cafe_credential_opens_nothing_once_the_organiser_gives_the_cafe_a_new_password(tmp_path):
    """The way back from a café's stolen password: the league's broker given the café a new one
    (the root helper's own act, as for a café's table), the old one is refused at once."""
    from pi_table.config import broker as broker_config
    from pi_table.fleet import link
    from pi_table.release import broker

    from helpers import wait_for
    from helpers_machine import MosquittoUnit

    league = MosquittoUnit(tmp_path / "league")
    try:
        league.broker.host_league("127.0.0.1", "spring", {"bar-roma": broker.password_hash("stolen-one")},
                                  broker.password_hash("page"))
        ca = league.etc / broker.CA_CERT

        def logs_in(password: str) -> bool | None:
            """Whether the league's broker lets bar-roma in with ``password`` (None: no answer)."""
            answers: list[bool] = []
            secret = tmp_path / "bar-roma.password"
            secret.write_text(password + "\n")
            settings = broker_config(f"mqtts://bar-roma@127.0.0.1:{league.port}", password_file=str(secret), ca=str(ca))
            client = link.client(settings, "thief")
            client.on_connect = lambda c, u, flags, reason, properties: answers.append(not reason.is_failure)
            link.connect(client, settings)
            try:
                wait_for(lambda: answers, "the league's broker's answer", 10)
            finally:
                client.disconnect()
                client.loop_stop()
            return answers[0]

        assert logs_in("stolen-one")
        league.broker.set_users({"bar-roma": broker.password_hash("a-new-one")})
        assert not logs_in("stolen-one")
        assert logs_in("a-new-one")
        assert sorted(league.broker.users()) == ["bar-roma", "league"]  # the page's user kept
    finally:
        league.close()


@pytest.mark.broker
@pytest.mark.daemon
def test_the_cafes_tv_shows_the_leagues_season_its_broker_brought_down(broker, tmp_path):
    """A table of a café in a league ([fleet] league and cafe) reads the season the league's page
    sends (retained, brought down by the café's bridge) and the spectators' TV gets it beside the
    night (``/night/standings``); a season out of its schema is dropped, never shown."""
    import urllib.request

    from pi_table import config
    from pi_table.fleet.league import season_topic
    from pi_table.fleet.link import client as link_client

    from helpers import wait_for
    from helpers_games import dealt_key
    from helpers_tables import StaffTable

    settings = config.broker(broker.url)
    sender = link_client(settings, "the league's page")
    sender.connect(settings.host, settings.port)
    sender.loop_start()
    season = {"league": "spring", "at": START, "season": [
        {"team": "Owls", "cafes": ["bar-milano", "bar-roma"], "nights": 3, "points": 24.0, "played": 9, "won": 6,
         "lost": 3, "drawn": 0, "rating": 3.21, "mu": 28.1, "sigma": 1.6, "place": 1, "shared": False}]}
    sender.publish(season_topic("spring"), b'{"league": "spring", "season": "not a list"}', qos=1,
                   retain=True).wait_for_publish(5)
    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", dealt_key(), extra=f'[fleet]\nbroker = "{broker.url}"\ntable_id = "r1"\n'
                                                               'league = "spring"\ncafe = "bar-roma"\n')
    try:
        def tv() -> dict:
            with urllib.request.urlopen(f"{table.base}/night/standings", timeout=10) as answer:
                return json.loads(answer.read())

        wait_for(lambda: table.daemon.health().get("fleet") == "ok", "the table on its café's broker", 15)
        time.sleep(0.5)  # the retained season, out of its schema, heard and dropped
        assert tv()["league"] is None
        sender.publish(season_topic("spring"), json.dumps(season).encode(), qos=1, retain=True).wait_for_publish(5)
        wait_for(lambda: tv()["league"] is not None, "the season on the TV's data", 10)
        shown = tv()["league"]
        assert shown["league"] == "spring" and shown["season"][0]["team"] == "Owls" and shown["season"][0]["place"] == 1
        assert "mu" not in shown["season"][0]  # what the schema declares alone
    finally:
        table.close()
        sender.disconnect()
        sender.loop_stop()


@pytest.mark.broker
@pytest.mark.daemon
def test_the_owner_hosts_the_league_on_the_cafes_broker_from_the_staff_page_and_a_cafe_joins_with_its_handout(tmp_path):
    """The organiser, owner of a table that is its café's broker, hosts the league there from the
    staff page: each other café's password typed or made, shown until given with the league's
    address, port and the café's name; the helper's request holds the hashes alone. A café joins
    with that handout and the CA the page downloads; the organiser's ``pi-table league`` page, as
    the view says to run it, folds the nights of both cafés (the host's own tables send with no
    bridge), and a café's credential there cannot write as the host café. Staff are refused, and a
    value out of its kind is named, never repeated."""
    import subprocess
    import sys
    import tomllib
    import urllib.request

    from pi_table import config
    from pi_table.fleet import link
    from pi_table.fleet.broker import free_port
    from pi_table.fleet.link import client as link_client
    from pi_table.release import broker

    from helpers import wait_for
    from helpers_fleet import Cafe, connected, settled
    from helpers_machine import MosquittoUnit
    from helpers_staff import Staff, download

    (tmp_path / "cafe").mkdir()
    cafe = Cafe(tmp_path / "cafe", extra='[fleet]\ntable_id = "r1"\n')
    milan = MosquittoUnit(tmp_path / "milan")
    page = sender = None
    try:
        staff = cafe.staff()
        assert staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1", "table": "r1",
                                                        "tables": ["r2"]})[0] == 202
        assert cafe.helper_acts() == 0
        settled(staff)
        cafe.restarted()
        wait_for(lambda: cafe.table.daemon.health().get("fleet") == "ok", "r1 reporting to its café's broker", 15)
        host = {"act": "host", "league": "spring", "cafe": "bar-roma",
                "cafes": {"bar-milano": "", "bar-napoli": "typed-for-napoli"}}
        plain = Staff(cafe.table.daemon.companion.base_url)
        plain.login()
        assert plain.call("POST", "/staff/api/broker", host)[0] == 403  # the owner's alone
        staff = cafe.staff()
        for wrong, why in [({"league": "spr/ing"}, "the league's name is 1 to 64 bytes"),
                           ({"cafes": {"bar-milano": "secret with space"}}, "the café's password in the league is 1"),
                           ({"cafes": {"bar roma": ""}}, "a café's name in the league is 1 to 64 bytes"),
                           ({"cafes": {"bar-roma": ""}}, "this café's name in the league is the league's host's"),
                           ({"cafes": {}}, "a league has 1 to 50 other cafés")]:
            status, answer = staff.call("POST", "/staff/api/broker", {**host, **wrong})
            assert status == 400 and why in answer["error"], (wrong, answer)
            assert "secret" not in answer["error"]  # a password typed is never repeated
        status, answer = staff.call("POST", "/staff/api/broker", {**host, "cafes": {"r2": ""}})
        assert status == 409 and "is a user of this broker already" in answer["error"]  # a table's name
        assert not (cafe.spool / "request.json").exists()

        assert staff.call("POST", "/staff/api/broker", host)[0] == 202
        asked = (cafe.spool / "request.json").read_text()
        assert "typed-for-napoli" not in asked and '"page": "$7$' in asked  # hashes alone go to root
        assert cafe.helper_acts() == 0
        view = settled(staff)
        assert view["last"]["outcome"] == "done", view["last"]
        hosting = view["hosting"]
        given = {entry["name"]: entry["password"] for entry in hosting["cafes"]}
        assert given["bar-napoli"] == "typed-for-napoli" and len(given["bar-milano"]) >= 20
        assert (hosting["league"], hosting["cafe"], hosting["address"], hosting["port"]) == \
            ("spring", "bar-roma", "127.0.0.1", cafe.unit.port)
        assert [table["name"] for table in view["tables"]] == ["r1", "r2"]  # the cafés are no tables of the café
        assert "typed-for-napoli" not in (cafe.home / broker.NOTE).read_text()
        cafe.restarted()  # this table's settings: the league's, as a trial
        fleet = tomllib.loads(cafe.config.read_text())["fleet"]
        assert (fleet["league"], fleet["cafe"]) == ("spring", "bar-roma")
        wait_for(lambda: cafe.table.daemon.health().get("fleet") == "ok", "r1 back, hosting the league", 15)
        staff = cafe.staff()
        hosting = staff.call("GET", "/staff/api/broker")[1]["hosting"]
        assert hosting["sends"]

        # Milan joins with its handout: the league's CA is the host broker's, as the page downloads it
        league_ca = download(staff, "/staff/api/broker/ca.crt").decode()
        milan.broker.set_up("127.0.0.1", {"m1": broker.password_hash("m1-secret")})
        milan.broker.join_league(hosting["league"], "bar-milano", hosting["address"], hosting["port"],
                                 given["bar-milano"], league_ca)
        assert staff.call("POST", "/staff/api/broker", {"act": "given", "table": "bar-milano"})[0] == 200
        assert next(entry for entry in staff.call("GET", "/staff/api/broker")[1]["hosting"]["cafes"]
                    if entry["name"] == "bar-milano")["password"] is None  # forgotten once given

        # the organiser's page: pi-table league, run as the staff page shows, in a folder with its files
        organiser = tmp_path / "organiser"
        organiser.mkdir()
        (organiser / "league.password").write_text(hosting["page"]["password"] + "\n")
        (organiser / "pi-table-broker-ca.crt").write_text(league_ca)
        (organiser / "roster.toml").write_text('[cafes]\nbar-roma = ["r1", "r2"]\nbar-milano = ["m1"]\n')
        port = free_port()
        page = subprocess.Popen([sys.executable, "-m", "pi_table", "league", "--broker", hosting["page"]["broker"],
                                 "--broker-password-file", "league.password", "--ca", "pi-table-broker-ca.crt",
                                 "--league", hosting["league"], "--roster", "roster.toml", "--host", "127.0.0.1",
                                 "--port", str(port)], cwd=organiser, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        status, answer = staff.call("POST", "/staff/api/night/open", {"name": "Friday league", "games": ["codenames"],
                                                                      "tables": ["r1"]})
        assert status == 200, answer
        assert staff.call("POST", "/staff/api/night/close")[0] == 200
        milan_night = play_night(Book(tmp_path / "milan-book", clock=Clock(START)), ["m1"], ["Owls", "Lynx"], 1,
                                 random.Random(2))
        (tmp_path / "m1.password").write_text("m1-secret\n")
        m1 = config.broker(f"mqtts://m1@127.0.0.1:{milan.port}", password_file=str(tmp_path / "m1.password"),
                           ca=str(milan.etc / broker.CA_CERT))
        sender = link_client(m1, "m1")
        sender.on_connect = lambda client, userdata, flags, reason, properties: None
        link.connect(sender, m1)
        wait_for(sender.is_connected, "m1 at Milan's broker", 10)
        sender.publish(*sent(milan_night, "bar-milano", "m1"), qos=1, retain=True).wait_for_publish(10)

        def season() -> dict:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/season.json", timeout=5) as answer:
                    return json.loads(answer.read())
            except OSError:
                return {}

        wait_for(lambda: all(cafe["heard"] for cafe in season().get("cafes", [{"heard": None}])),
                 "both cafés' nights at pi-table league, on the host café's broker", 30)
        shown = season()
        assert [cafe["cafe"] for cafe in shown["cafes"]] == ["bar-milano", "bar-roma"] and shown["apart"] == []
        assert {line["team"] for line in shown["season"]} == {"Owls", "Lynx"}
        page.terminate()
        assert page.wait(15) == 0, page.stdout.read() if page.stdout else ""

        # Napoli's credential at the host's broker: its own prefix alone, never the host café's
        (tmp_path / "napoli.password").write_text("typed-for-napoli\n")
        napoli = config.broker(f"mqtts://bar-napoli@127.0.0.1:{cafe.unit.port}",
                               password_file=str(tmp_path / "napoli.password"),
                               ca=str(organiser / "pi-table-broker-ca.crt"))
        rogue = link_client(napoli, "napoli")
        rogue.on_connect = lambda client, userdata, flags, reason, properties: None
        link.connect(rogue, napoli)
        wait_for(rogue.is_connected, "Napoli's credential at the league", 10)
        forged = night_topic("spring", "bar-roma", "bar-napoli", "20261118-000000")
        marker = night_topic("spring", "bar-napoli", "n1", "20261118-000000")
        heard: list[str] = []
        watcher = connected(f"mqtts://league:{hosting['page']['password']}@127.0.0.1:{cafe.unit.port}",
                            organiser / "pi-table-broker-ca.crt", topics=("league/spring/cafes/#",),
                            heard=lambda client, userdata, message: heard.append(message.topic))
        rogue.publish(forged, b"{}", qos=1).wait_for_publish(10)
        rogue.publish(marker, b"{}", qos=1).wait_for_publish(10)
        wait_for(lambda: marker in heard, "Napoli's own message after the forged one", 10)
        assert forged not in heard
        for client in (rogue, watcher):
            client.disconnect()
            client.loop_stop()
    finally:
        if page is not None and page.poll() is None:
            page.kill()
            page.wait(5)
        if sender is not None:
            sender.disconnect()
            sender.loop_stop()
        cafe.close()
        milan.close()


@pytest.mark.broker
def test_a_league_hosted_on_a_cafes_broker_that_does_not_start_is_a_trial_that_comes_back(tmp_path):
    """The root helper's hosting act on a café's broker: Mosquitto refusing its new files (the fake
    systemctl's ``fail-next``) puts every file back and the café's broker runs on them, its table's
    password still good; a café named as one of the café's tables is refused before anything is
    written. Then hosted: the café's tables keep their passwords beside the cafés and the page."""
    from pi_table.release import ReleaseError, broker
    from pi_table.release.broker import RolledBack

    from helpers_machine import MosquittoUnit

    cafe = MosquittoUnit(tmp_path / "cafe")
    try:
        cafe.broker.set_up("127.0.0.1", {"r1": broker.password_hash("r1")})
        before = {name: (cafe.etc / name).read_bytes() if (cafe.etc / name).exists() else None
                  for name in broker.WRITTEN}
        hashed = broker.password_hash("milan")
        with pytest.raises(ReleaseError, match="'r1' is a user of this broker already"):
            cafe.broker.host_league_here("spring", "bar-roma", {"r1": hashed}, broker.password_hash("page"))
        (cafe.folder / "fail-next").touch()
        with pytest.raises(RolledBack):
            cafe.broker.host_league_here("spring", "bar-roma", {"bar-milano": hashed}, broker.password_hash("page"))
        assert {name: (cafe.etc / name).read_bytes() if (cafe.etc / name).exists() else None
                for name in broker.WRITTEN} == before
        assert cafe.running() and cafe.broker.hosting() is None and cafe.broker.users() == ["r1"]
        cafe.broker.host_league_here("spring", "bar-roma", {"bar-milano": hashed}, broker.password_hash("page"))
        assert cafe.broker.hosting() == ("spring", "bar-roma", ["bar-milano"])
        assert cafe.broker.users() == ["r1", "bar-milano", "league"]
        acl = (cafe.etc / broker.ACL).read_text()
        assert "pattern write league/spring/cafes/bar-roma/nights/%u/+" in acl  # the host café's tables send here
        assert "user bar-milano\ntopic deny pi-table/#\ntopic deny league/spring/cafes/bar-roma/#\n" in acl
        # the way back of a hosting broker: set up again (new tables), the cafés and the page keep their logins;
        # a table named as a café of the league, or joining another league, is refused and changes nothing
        cafe.broker.set_up("127.0.0.1", {"r2": broker.password_hash("r2")})
        assert cafe.broker.users() == ["bar-milano", "league", "r2"] and cafe.running()
        assert cafe.broker.hosting() == ("spring", "bar-roma", ["bar-milano"])
        before = {name: (cafe.etc / name).read_bytes() if (cafe.etc / name).exists() else None
                  for name in broker.WRITTEN}
        with pytest.raises(ReleaseError, match="'bar-milano' is a café of the league this broker hosts"):
            cafe.broker.set_up("127.0.0.1", {"bar-milano": broker.password_hash("r3")})
        with pytest.raises(ReleaseError, match="this broker hosts the league 'spring'"):
            cafe.broker.join_league("autumn", "bar-roma", "127.0.0.1", 8883, "secret-password", CA)
        assert {name: (cafe.etc / name).read_bytes() if (cafe.etc / name).exists() else None
                for name in broker.WRITTEN} == before
    finally:
        cafe.close()
