"""The café's broker set up on one of its tables from its staff page (issue 50, 3): the owner makes
this table the broker, the root helper writes the project's Mosquitto files, a certificate of the
table's own CA and the password file, enables and restarts Mosquitto; the page then shows each
other table what to give on its own staff page, and this table reports to the broker and its
dashboard reads it, without anything typed twice. A real Mosquitto plays mosquitto.service
(tests/fake_systemctl.py starts it on the files the helper wrote), and a table's reporter and the
dashboard connect to it with what the page showed."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

from pi_table.release import ReleaseError, broker, requests

from helpers import require_tools, wait_for
from helpers_fleet import Cafe, connected, settled
from helpers_staff import Staff

HASH = broker.password_hash("x" * 24)
BAD_NAMES = ["bar\n1", "bar:1", "bar#1", "bar+1", "bar/1", "bar 1", "bar\u200b1", "bar\x001", "b" * 65, "", 7,
             "staff"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_hostile_table_name_is_refused_before_anything_is_asked(name):
    """A name with a line's end or a colon would forge a line of the password file, and '+', '#' or
    '/' a topic the ACL's %u makes of it; the ACL's own users are no table's."""
    with pytest.raises(ReleaseError) as refused:
        requests.check({"act": "broker-users", "users": {name: HASH} if isinstance(name, str) else {"x": HASH, 7: HASH}})
    assert "table" in str(refused.value)
    with pytest.raises(ReleaseError):
        broker.tables([name])
    with pytest.raises(ReleaseError, match="dashboard is a user of the broker's own"):
        broker.tables(["dashboard"])  # the dashboard's user, never a table's


@pytest.mark.parametrize("request_, why", [
    ({"act": "broker", "address": "bar-1.local", "users": {f"t{n}": HASH for n in range(51)}}, "at most 50 tables"),
    ({"act": "broker", "address": "-bar.local", "users": {"t1": HASH}}, "the broker's address is its name"),
    ({"act": "broker", "address": "bar..local", "users": {"t1": HASH}}, "the broker's address is its name"),
    ({"act": "broker", "address": "300.1.1.1", "users": {"t1": HASH}}, "the broker's address is its name"),
    ({"act": "broker", "address": "bar-1.local,DNS:evil", "users": {"t1": HASH}}, "the broker's address is its name"),
    ({"act": "broker", "address": "a" * 254, "users": {"t1": HASH}}, "the broker's address is its name"),
    ({"act": "broker", "address": "bar-1.local", "users": {}}, "the broker's users are given"),
    ({"act": "broker", "address": "bar-1.local", "users": ["t1"]}, "the broker's users are given"),
    ({"act": "broker-users", "users": {"t1": "secret"}}, "the password of 't1' is not given as Mosquitto's hash"),
    ({"act": "broker-users", "users": {"t1": HASH + "\nt2:" + HASH}}, "the password of 't1' is not given"),
    ({"act": "broker-users", "users": {"t1": HASH}, "address": "x"}, "the request broker-users takes users"),
    ({"act": "broker-remove", "table": "bar\nx:1"}, "'bar\\nx:1' cannot be a table's name"),
    ({"act": "broker-remove", "table": "dashboard"}, "dashboard is a user of the broker's own"),
    ({"act": "broker-remove", "table": ["bar-2"]}, "\"['bar-2']\" cannot be a table's name"),
    ({"act": "broker-remove", "users": {"t1": HASH}}, "the request broker-remove takes table"),
    # a league hosted on the café's broker (issue 64): its names and hashes, parsed again by the helper
    ({"act": "broker-host-league", "league": "spring", "cafe": "bar-roma", "cafes": {"bar-milano": "secret"},
      "page": HASH}, "the password of 'bar-milano' is not given as Mosquitto's hash"),
    ({"act": "broker-host-league", "league": "spring", "cafe": "bar-roma", "cafes": {"bar-milano": HASH},
      "page": "secret"}, "the password of 'league' is not given as Mosquitto's hash"),
    ({"act": "broker-host-league", "league": "spring", "cafe": "bar-roma", "cafes": {"bar\nx:1": HASH},
      "page": HASH}, "a café's name in the league is 1 to 64 bytes"),
    ({"act": "broker-host-league", "league": "spr#ing", "cafe": "bar-roma", "cafes": {"bar-milano": HASH},
      "page": HASH}, "the league's name is 1 to 64 bytes"),
    ({"act": "broker-host-league", "league": "spring", "cafe": "bar-roma", "cafes": {"bar-roma": HASH},
      "page": HASH}, "this café's name in the league is the league's host's"),
    ({"act": "broker-host-league", "league": "spring", "cafe": "bar-roma", "cafes": {"league": HASH},
      "page": HASH}, "a café's name in the league is 1 to 64 bytes"),
    ({"act": "broker-host-league", "league": "spring", "cafe": "bar-roma", "cafes": {f"c{n}": HASH for n in range(51)},
      "page": HASH}, "a league has 1 to 50 other cafés"),
    ({"act": "broker-host-league", "league": "spring", "cafe": "bar-roma", "cafes": {"bar-milano": HASH}},
     "the request broker-host-league takes cafe, cafes, league, page"),
])
def test_a_broker_request_out_of_its_kind_is_refused_before_anything_runs(request_, why):
    with pytest.raises(ReleaseError) as refused:
        requests.check(request_)
    assert str(refused.value).startswith(why)


def test_the_password_hash_is_mosquitto_passwds_own(tmp_path):
    """The service makes each hash (root never sees a password, and none is on a command line):
    the same bytes mosquitto_passwd writes for that password and salt."""
    require_tools("mosquitto_passwd")
    passwords = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwords), "bar-1", "a-password"], check=True, timeout=30)
    written = passwords.read_text().strip().partition(":")[2]
    salt = written.split("$")[3]
    import base64

    assert broker.password_hash("a-password", base64.b64decode(salt)) == written
    assert broker.PASSWORD_HASH.fullmatch(broker.password_hash(broker.new_password()))


def reporter(url: str, password: str, ca: Path, folder: Path, table_id: str, states: list[str] | None = None):
    """Another table of the café reporting with what its staff page was given (``states``: its
    link's, as its Devices list says them)."""
    from pi_table.config import broker as broker_config
    from pi_table.fleet.reporter import Reporter
    from pi_table.ui.i18n import say

    secret = folder / f"{table_id}.password"
    secret.write_text(password + "\n")
    return Reporter(broker_config(url, table_id=table_id, password_file=str(secret), ca=str(ca)),
                    act=lambda request: {"ok": True},
                    link_state=lambda state: None if states is None else states.append(say(state, "en")))


def retained(url: str, ca: Path, table: str, marker: str) -> dict[str, bytes]:
    """What the broker hands a new subscriber under ``pi-table/TABLE/#``, as the dashboard's user in
    ``url``: read until the retained ``marker`` topic, asked for after them, arrives (Mosquitto
    sends a subscription's retained messages before it answers the next one)."""
    seen: dict[str, bytes] = {}
    client = connected(url, ca, topics=(f"pi-table/{table}/#", marker),
                       heard=lambda c, u, message: seen.__setitem__(message.topic, message.payload))
    try:
        wait_for(lambda: marker in seen, f"the retained {marker}", 10)
    finally:
        client.disconnect()
        client.loop_stop()
    return {topic: payload for topic, payload in seen.items() if topic != marker}


@pytest.mark.broker
@pytest.mark.daemon
def test_the_owner_makes_this_table_the_cafes_broker_and_the_other_tables_report_with_what_the_page_shows(tmp_path):
    cafe = Cafe(tmp_path, extra='[fleet]\ntable_id = "bar-1"\ncafe_tables = ["bar-1", "bar-2"]\n')
    others: list = []
    try:
        staff = Staff(cafe.table.daemon.companion.base_url)
        staff.login()  # the staff, not the owner: the broker's passwords and its set-up are the owner's
        for method, path, body in (("GET", "/staff/api/broker", None), ("GET", "/staff/api/broker/ca.crt", None),
                                   ("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1",
                                                                  "table": "bar-1", "tables": []})):
            status, answer = staff.call(method, path, body)
            assert status == 403 and answer["owner"] == "needed", path
        assert not cafe.spool.exists()
        staff.as_owner()
        view = staff.call("GET", "/staff/api/broker")[1]
        assert (view["ours"], view["tables"], view["suggested"]["tables"]) == (False, [], ["bar-2"])
        status, answer = staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1",
                                                                  "table": "bar-1", "tables": ["bar-2", "bar\nx:1"]})
        assert status == 400 and "cannot be a table's name on the broker" in answer["error"] and not cafe.spool.exists()
        status, answer = staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1",
                                                                  "table": "bar-1", "tables": [f"t{n}" for n in range(1000)]})
        assert status == 400 and answer["error"].startswith("at most 50 tables")
        before = time.time()
        status, answer = staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1",
                                                                  "table": "bar-1", "tables": ["bar-2"]})
        assert status == 202 and answer["ok"] and before <= answer["asked"] <= time.time()  # the page's mark
        asked = json.loads((cafe.spool / requests.REQUEST).read_text())
        assert (asked["act"], asked["address"], sorted(asked["users"])) == ("broker", "127.0.0.1",
                                                                            ["bar-1", "bar-2", "dashboard"])
        assert all(broker.PASSWORD_HASH.fullmatch(hashed) for hashed in asked["users"].values())
        assert cafe.helper_acts() == 0  # the root helper takes it
        assert cafe.unit.calls()[:2] == ["enable mosquitto.service", "restart mosquitto.service"]
        etc = cafe.unit.etc
        assert stat.S_IMODE(os.stat(etc / broker.PASSWD).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(etc / broker.CA_KEY).st_mode) == 0o600
        for name in ("pi-table.acl", "pi-table.conf"):  # the project's files as they are, but for the test's folder
            written = (etc / (broker.ACL if name.endswith(".acl") else broker.CONF)).read_text()
            assert written.replace(f"{etc}/", "/etc/mosquitto/") == (broker.SHIPPED / name).read_text()
        view = settled(staff)
        assert view["last"]["at"] >= answer["asked"]  # what the page waits for: the helper's note, as new
        [bar_2] = view["tables"][1:]
        assert view["ours"] and view["address"] == "127.0.0.1" and view["last"]["outcome"] == "done"
        assert bar_2["broker"] == f"mqtts://bar-2@127.0.0.1:{cafe.unit.port}" and len(bar_2["password"]) == 24
        assert bar_2["password"] not in json.dumps(asked)  # root is given its hash alone
        assert bar_2["password"] not in (cafe.home / broker.NOTE).read_text()  # root's note holds names alone
        ca = tmp_path / "downloaded-ca.crt"
        ca.write_text(staff.call("GET", "/staff/api/broker/ca.crt")[1])
        assert ca.read_text() == (etc / broker.CA_CERT).read_text()
        cafe.restarted()  # this table's settings changed to the new broker, as a trial

        fleet = tomllib.loads(cafe.config.read_text())["fleet"]
        assert fleet["broker"] == f"mqtts://bar-1@127.0.0.1:{cafe.unit.port}" and fleet["table_id"] == "bar-1"
        assert (fleet["dashboard_user"], fleet["cafe_tables"]) == ("dashboard", ["bar-1", "bar-2"])
        assert Path(fleet["ca"]).read_text() == ca.read_text()
        wait_for(lambda: cafe.table.daemon.health().get("fleet") == "ok", "this table reporting to itself", 15)
        staff = cafe.staff()
        view = staff.call("GET", "/staff/api/broker")[1]
        assert view["uses"] and view["this_table"] == "bar-1" and view["tables"][1]["password"] == bar_2["password"]

        # the dashboard on this table: only its port to give, its broker user and password set already
        from pi_table.fleet.broker import free_port

        port = free_port()
        status, answer = staff.call("POST", "/staff/api/files/dashboard", {"port": port, "user": "dashboard",
                                                                             "password": ""})
        assert status == 200, answer
        cafe.restarted()
        others.append(reporter(bar_2["broker"], bar_2["password"], ca, tmp_path, "bar-2"))
        others[-1].start()
        wait_for(others[-1].connected.is_set, "bar-2 with the password the page showed", 10)
        others[-1].offer({"game_id": "game-of-bar-2", "state": {"game": "codenames", "board": "?" * 25},
                          "health": {"touch": "ok"}})
        dashboard = cafe.table.daemon.dashboard
        assert dashboard is not None
        wait_for(lambda: {row["table_id"] for row in dashboard.fleet.rows() if row["online"]} == {"bar-1", "bar-2"},
                 "both tables on the dashboard this table shows", 15)

        # a table added later, and a new password for one: from the page too
        staff = cafe.staff()
        status, answer = staff.call("POST", "/staff/api/broker", {"act": "add", "tables": ["terrace"]})
        assert status == 202, answer
        assert cafe.helper_acts() == 0
        assert cafe.unit.calls()[-2] == "reload-or-restart mosquitto.service"  # bar-2 is not thrown out
        view = settled(staff)
        terrace = next(table for table in view["tables"] if table["name"] == "terrace")
        cafe.restarted()  # the café's tables now list it
        assert tomllib.loads(cafe.config.read_text())["fleet"]["cafe_tables"] == ["bar-1", "bar-2", "terrace"]
        terrace_states: list[str] = []
        others.append(reporter(terrace["broker"], terrace["password"], ca, tmp_path, "terrace", terrace_states))
        others[-1].start()
        wait_for(others[-1].connected.is_set, "the table added later", 10)
        assert others[0].connected.is_set()

        staff = cafe.staff()
        assert staff.call("POST", "/staff/api/broker", {"act": "given", "table": "bar-2"}) == (200, {"ok": True})
        view = staff.call("GET", "/staff/api/broker")[1]
        assert next(table for table in view["tables"] if table["name"] == "bar-2")["password"] is None
        assert bar_2["password"] not in (cafe.folder / "table/journal" / "broker.handout").read_text()
        assert staff.call("POST", "/staff/api/broker", {"act": "renew", "table": "bar-2"})[0] == 202
        assert cafe.helper_acts() == 0
        renewed = next(table for table in settled(staff)["tables"] if table["name"] == "bar-2")["password"]
        assert renewed and renewed != bar_2["password"]
        others[0].stop()
        (tmp_path / "later").mkdir()
        states: list[str] = []
        others.append(stale := reporter(bar_2["broker"], bar_2["password"], ca, tmp_path / "later", "bar-2", states))
        stale.start()
        wait_for(lambda: any("Not authorized" in state for state in states), "the old password refused", 10)
        assert not stale.connected.is_set()  # its old password opens nothing
        stale.stop()
        bar_2_states: list[str] = []
        others.append(reporter(bar_2["broker"], renewed, ca, tmp_path / "later", "bar-2", bar_2_states))
        others[-1].start()
        wait_for(others[-1].connected.is_set, "bar-2 with its new password", 10)

        # a table taken off (sold, or its card lost): its connection cut and its password refused
        for name, why in (("bar-1", "this table is the broker itself"), ("dashboard", "'dashboard' is not a table"),
                          ("nowhere", "'nowhere' is not a table on this broker")):
            status, answer = staff.call("POST", "/staff/api/broker", {"act": "remove", "table": name})
            assert status == 409 and answer["error"].startswith(why), answer
        assert staff.call("POST", "/staff/api/broker", {"act": "remove", "table": "a/b"})[0] == 400
        assert not (cafe.spool / requests.REQUEST).exists()
        fleet = tomllib.loads(cafe.config.read_text())["fleet"]
        dashboard_url = (f"mqtts://dashboard:{(cafe.config.parent / fleet['dashboard_password_file']).read_text().strip()}"
                         f"@127.0.0.1:{cafe.unit.port}")
        terrace_url = terrace["broker"].replace("terrace@", f"terrace:{terrace['password']}@")
        others[1].offer({"game_id": "game-of-terrace", "state": {"game": "codenames", "board": "?" * 25},
                         "health": {"touch": "ok"}})
        hosting = connected(terrace_url, ca)  # a night it hosted, and its games: as a table publishes them
        for name in ("plan", "night"):
            hosting.publish(f"pi-table/terrace/{name}", json.dumps({"night": "terrace-night"}), qos=1,
                            retain=True).wait_for_publish(5)
        hosting.disconnect()
        hosting.loop_stop()
        marker = "pi-table/bar-2/online"
        wait_for(lambda: len(retained(dashboard_url, ca, "terrace", marker)) == 4, "terrace's retained messages", 10)
        assert sorted(retained(dashboard_url, ca, "terrace", marker)) == [
            f"pi-table/terrace/{name}" for name in ("night", "online", "plan", "status")]
        assert staff.call("POST", "/staff/api/broker", {"act": "remove", "table": "terrace"})[0] == 202
        asked = json.loads((cafe.spool / requests.REQUEST).read_text())
        assert asked == {"act": "broker-remove", "table": "terrace"}  # its name alone: no password made
        terrace_states.clear()
        bar_2_states.clear()
        assert cafe.helper_acts() == 0
        assert cafe.unit.calls()[-2] == "reload-or-restart mosquitto.service"
        assert "terrace" not in cafe.unit.broker.users()
        view = settled(staff)
        assert [table["name"] for table in view["tables"]] == ["bar-1", "bar-2"] and view["last"]["outcome"] == "done"
        assert "terrace" not in (cafe.folder / "table/journal" / "broker.handout").read_text()
        wait_for(lambda: any("Not authorized" in state for state in terrace_states), "the table taken off refused", 15)
        assert not others[1].connected.is_set()
        assert retained(dashboard_url, ca, "terrace", marker) == {}  # issue 58, 6: nothing of it lingers there
        assert "terrace" not in cafe.unit.broker.users()  # its one-time password for that is gone too
        assert others[-1].connected.is_set() and bar_2_states == []  # the others never lost their connection
        cafe.restarted()  # the café's tables no longer list it
        assert tomllib.loads(cafe.config.read_text())["fleet"]["cafe_tables"] == ["bar-1", "bar-2"]
    finally:
        for other in others:
            other.stop()
        cafe.close()


@pytest.mark.broker
@pytest.mark.daemon
def test_the_broker_made_says_done_after_the_restart_it_causes_and_the_owner_stays_unlocked(tmp_path):
    """Issue 62, 3: the restart the broker's set-up ends with took the owner's unlock and left the
    section on its "Asked: ..." line; its result is kept across it, and the unlock on this phone."""
    cafe = Cafe(tmp_path, extra='[fleet]\ntable_id = "bar-1"\ncafe_tables = ["bar-1", "bar-2"]\n')
    try:
        staff = cafe.staff()
        status, _ = staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1", "table": "bar-1",
                                                             "tables": ["bar-2"]})
        assert status == 202
        assert cafe.helper_acts() == 0
        [bar_2] = settled(staff)["tables"][1:]
        cafe.restarted()
        staff.base = cafe.table.daemon.companion.base_url  # the same phone, its cookies and its token
        status, state = staff.call("GET", "/staff/api/owner")
        assert status == 200 and state["left_s"] > 0, state
        from pi_table.web import acts

        assert state["results"]["broker"]["said"] == acts.BROKER_DONE
        assert staff.call("GET", "/staff/api/broker")[0] == 200  # unlocked: no passphrase asked again
        note = (tmp_path / "table/journal" / acts.ACTS_FILE).read_text()
        fleet = tomllib.loads(cafe.config.read_text())["fleet"]
        own = (cafe.config.parent / fleet["password_file"]).read_text().strip()
        assert bar_2["password"] not in note and own not in note and "mqtts" not in note
    finally:
        cafe.close()


def kept(path: Path) -> bytes | None:
    """A broker's file as it is, or None when there is none."""
    return path.read_bytes() if path.exists() else None


@pytest.mark.broker
@pytest.mark.daemon
def test_a_broker_that_does_not_start_on_the_new_files_is_put_back_and_the_page_says_why(tmp_path):
    """Mosquitto refusing its new files (tests/fake_systemctl.py's ``fail-next``: it exits on a line
    it does not know) leaves the table as it was: on a first set-up, no broker files and Mosquitto
    off again; on a set-up again, the files before, and the tables' passwords before still let them
    in. The page says why, in Italian too; this table's settings are not changed."""
    cafe = Cafe(tmp_path)
    try:
        staff = cafe.staff()
        (cafe.unit.folder / "fail-next").touch()
        assert staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "bar-1.local", "table": "bar-1",
                                                        "tables": ["bar-2"]})[0] == 202
        assert cafe.helper_acts() == 1
        assert "disable --now mosquitto.service" in cafe.unit.calls() and not cafe.unit.running()
        assert [name for name in broker.WRITTEN if (cafe.unit.etc / name).exists()] == []
        view = settled(staff)
        assert (view["ours"], view["last"]["outcome"]) == (False, "rolled back")
        why = "mosquitto.service: mosquitto exited with 3"  # systemctl's own words, as the unit's journal says them
        assert view["tables"] == [] and view["last"]["why"] == f"systemctl restart mosquitto.service failed: {why}"
        staff.lang = "it"
        said = staff.call("GET", "/staff/api/broker")[1]["last"]["why"]
        assert said == f"systemctl restart mosquitto.service non è riuscito: {why}"
        staff.lang = "en"
        assert tomllib.loads(cafe.config.read_text()).get("fleet", {}).get("broker") is None  # this table unchanged

        assert staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1", "table": "bar-1",
                                                        "tables": ["bar-2"]})[0] == 202
        assert cafe.helper_acts() == 0
        bar_2 = settled(staff)["tables"][1]
        cafe.restarted()
        before = {name: kept(cafe.unit.etc / name) for name in broker.WRITTEN}  # a league's files: none, and none after
        staff = cafe.staff()
        (cafe.unit.folder / "fail-next").touch()  # Mosquitto refuses the next files it starts on
        assert staff.call("POST", "/staff/api/broker", {"act": "set-up", "address": "127.0.0.1", "table": "bar-1",
                                                        "tables": ["bar-2", "terrace"]})[0] == 202
        assert cafe.helper_acts() == 1
        assert {name: kept(cafe.unit.etc / name) for name in broker.WRITTEN} == before
        assert cafe.unit.running()
        view = settled(staff)
        assert view["last"]["outcome"] == "rolled back" and [table["name"] for table in view["tables"]] == ["bar-1", "bar-2"]
        assert view["tables"][1]["password"] == bar_2["password"]  # the passwords before still hold
        ca = cafe.unit.etc / broker.CA_CERT
        still = reporter(bar_2["broker"], bar_2["password"], ca, tmp_path, "bar-2")
        still.start()
        try:
            wait_for(still.connected.is_set, "bar-2 on the broker put back", 10)
        finally:
            still.stop()
    finally:
        cafe.close()


def test_the_shipped_mosquitto_files_are_those_the_docs_show_and_listen_where_the_broker_is_checked():
    for name in ("pi-table.conf", "pi-table.acl"):
        assert (broker.SHIPPED / name).is_file()
    assert f"\nlistener {broker.PORT}\n" in (broker.SHIPPED / "pi-table.conf").read_text()
    for name in (broker.PASSWD, broker.ACL, broker.CERT, broker.KEY):
        assert f"{broker.ETC}/{name}" in (broker.SHIPPED / "pi-table.conf").read_text()



def test_the_staff_page_says_a_league_it_hosts_takes_at_most_50_other_cafes():
    """Issue 76, 5: a league hosted from a table's staff page stops at 50 other cafés
    (``broker.MOST_TABLES``): the page's host form refuses a 51st, saying the limit in the page's
    language, before anything is written (docs/cafe/league.md says a bigger league needs a broker
    of its own)."""
    from pi_table.engine.phrase import Phrase
    from pi_table.ui.i18n import say
    from pi_table.web.sections.broker import hosting

    fifty = {f"bar-{n}": "" for n in range(broker.MOST_TABLES)}
    assert hosting("spring", "bar-roma", fifty)[2] == fifty
    with pytest.raises(ReleaseError) as refused:
        hosting("spring", "bar-roma", {**fifty, "bar-one-more": ""})
    said = {lang: say(Phrase.of(refused.value.why["template"], **refused.value.why["fields"]), lang) for lang in ("en", "it")}
    assert "1 to 50 other cafés" in said["en"] and "50" in said["it"] and said["it"] != said["en"]
