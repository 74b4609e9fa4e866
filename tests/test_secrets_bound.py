"""Each secret goes only where the owner gave it (issue 74, 1): the broker's password to the broker's
scheme, host and port, the dashboard's likewise, the notifications' address as itself, the network
place's password to its server and user, a league's password with the league's address. Whatever
changes the destination (the page, a restored backup, a hand edit, a league join), what the table
would send is asserted on: the password paho's CONNECT would carry, the address Apprise would be
given, the place rclone would be given."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_table.config import ConfigError, FleetConfig, load_config
from pi_table.config.machine import Running
from pi_table.config.writing import changed_text
from pi_table.daemon import backup
from pi_table.engine.errors import Refusal
from pi_table.fleet import link
from pi_table.ui.i18n import say

from helpers_release import fix_manifest, repacked
from helpers_staff import STAFF_CONFIG

CAFE = "mqtts://t1@broker.cafe.lan:8883"
PASSWORD = "SECRET-of-the-cafe"
FLEET = f'[fleet]\nbroker = "{CAFE}"\ntable_id = "t1"\npassword_file = "files/broker.password"\n'


def sent(fleet: FleetConfig) -> tuple[str, str | None]:
    """Where the table's MQTT client would connect (scheme, host, port) and the password its CONNECT
    would carry (None: none, or the client refused to be made)."""
    where = f"{fleet.scheme}://{fleet.host}:{fleet.port}"
    try:
        made = link.client(fleet, "pi-table-t1")
    except (OSError, Refusal):
        return where, None
    return where, made.password


def cafe_table(folder: Path) -> Path:
    """A café's table with its broker's password in a file made by hand, as the issue's was."""
    path = folder / "config.toml"
    path.write_text(STAFF_CONFIG + FLEET)  # [fleet] last: a line added at the end is the fleet's
    (folder / "files").mkdir(mode=0o700)
    secret = folder / "files" / "broker.password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o600)
    return path


def test_a_restored_backup_never_sends_the_cafes_broker_password_to_another_broker(tmp_path):
    """Issue 74, 1: the backup keeps ``password_file = "files/broker.password"``, names another
    broker and sets ``password_in_clear``; the restore's check passed and the next start sent the
    café's password, in clear, to the stranger. Now the check says the password stays behind, and
    the start connects there with none, and with ``password_in_clear`` as the owner left it."""
    path = cafe_table(tmp_path)
    config = load_config(path, machine=True)
    assert sent(config.fleet) == ("mqtts://broker.cafe.lan:8883", PASSWORD)  # the café's own: it goes
    hostile = fix_manifest(repacked(backup.make(config), lambda name, body: body.replace(
        CAFE.encode(), b"mqtt://t1@203.0.113.9:1883") + b"password_in_clear = true\n" if name == "config.toml" else body))
    contents = backup.stage(hostile, config, Running(), "owner", [])
    said = [say(phrase, "en") for phrase in contents.replaces]
    assert any("the broker's password was given for mqtts://broker.cafe.lan:8883, not for mqtt://203.0.113.9:1883"
               in line for line in said), said
    assert any("without TLS stays off" in line for line in said), said
    assert not any(PASSWORD in line for line in said)
    restored, under = backup.starting(load_config(path))
    assert under is not None and restored.fleet.host == "203.0.113.9"
    assert sent(restored.fleet) == ("mqtt://203.0.113.9:1883", None)
    assert restored.fleet.password_in_clear is False


def test_over_mqtts_with_the_ca_emptied_the_password_stays_behind_too(tmp_path):
    """The issue's second form: mqtts to another host, ``fleet.ca`` emptied (any broker with a
    public certificate would have been trusted)."""
    path = cafe_table(tmp_path)
    config = load_config(path, machine=True)
    hostile = fix_manifest(repacked(backup.make(config), lambda name, body: body.replace(
        b"broker.cafe.lan", b"broker.stranger.example") + b'ca = ""\n' if name == "config.toml" else body))
    backup.stage(hostile, config, Running(), "owner", [])
    restored, _ = backup.starting(load_config(path))
    assert sent(restored.fleet) == ("mqtts://broker.stranger.example:8883", None)


def test_a_hand_edit_that_names_another_broker_sends_the_password_nowhere_and_says_why(tmp_path):
    path = cafe_table(tmp_path)
    sent(load_config(path, machine=True).fleet)  # the table started on the owner's settings once
    from pi_table.config import bound

    bound.begin(path, load_config(path).values)
    path.write_text(path.read_text().replace("broker.cafe.lan", "203.0.113.9"))
    fleet = load_config(path, machine=True).fleet
    assert sent(fleet) == ("mqtts://203.0.113.9:8883", None)
    with pytest.raises(Refusal) as refused:
        link.client(fleet, "pi-table-t1")
    assert "given for mqtts://broker.cafe.lan:8883, not for mqtts://203.0.113.9:8883" in say(refused.value.phrase, "en")


# --- the property: every secret, every way its destination changes -----------------------------

BROKERS = st.sampled_from(["mqtts://t1@broker.cafe.lan:8883", "mqtts://t1@broker.cafe.lan:8884",
                           "mqtt://t1@broker.cafe.lan:1883", "mqtts://t1@203.0.113.9:8883", "mqtts://t1@evil.example",
                           "mqtts://other@broker.cafe.lan"])
KEYS = ("fleet.password_file", "fleet.dashboard_password_file", "notify.url_file")
NOTIFY_URL = "json://notify.cafe.lan/hook?token=SECRET-of-the-notices"
DASHBOARD = "SECRET-of-the-dashboard"
WAYS = ("page", "restore", "hand edit", "league join")


def given_table(folder: Path) -> tuple[Path, dict[str, str]]:
    """A table whose owner gave, on the staff page, the broker's password, the dashboard's and
    the notifications' address; each secret and the destination it was given for."""
    from pi_table.daemon import owner_files

    path = folder / "config.toml"
    path.write_text(STAFF_CONFIG)
    for kind, fields in (("broker", {"broker": CAFE, "table_id": "t1", "password": PASSWORD}),
                         ("dashboard", {"port": 18090, "user": "dashboard", "password": DASHBOARD}),
                         ("notify", {"url": NOTIFY_URL, "events": ["device"]})):
        path.write_text(changed_text(path, owner_files.changes(load_config(path), kind, fields, None)[0]))
    givens = {PASSWORD: "mqtts://broker.cafe.lan:8883", DASHBOARD: "mqtts://broker.cafe.lan:8883",
              NOTIFY_URL: NOTIFY_URL}
    assert sorted(reached(path)) == sorted(givens.items())  # each goes where it was given, before any change
    return path, givens


def reached(path: Path) -> list[tuple[str, str]]:
    """Every secret the table on ``path``'s settings would send, with where: the broker's CONNECT,
    the dashboard's, the notifications' Apprise address (itself its destination)."""
    from pi_table.daemon.notices import read_url

    try:
        config = load_config(path, machine=True)
    except ConfigError:
        return []  # the table would not start on them: nothing is sent
    found = [sent(config.fleet)]
    if config.dashboard is not None:
        found.append(sent(config.dashboard.broker))
    url = read_url(config)
    if url is not None:
        found.append((url.text, url.text))
    return [(secret, where) for where, secret in found if secret is not None]


@settings(settings.get_profile("tables"))
@given(way=st.sampled_from(WAYS), broker=BROKERS,
       named=st.fixed_dictionaries({key: st.sampled_from(["kept", "", *KEYS]) for key in KEYS}))
def test_no_secret_ever_reaches_a_destination_it_was_not_given_for(way, broker, named):
    """For the broker's password, the dashboard's and the notifications' address: the broker
    changed and each secret setting kept, emptied or pointed at another secret's file, by the
    page, a restore, a hand edit or a league join; whatever the table would then send goes only
    where it was given for."""
    from pi_table.config.settings import broker_change

    with tempfile.TemporaryDirectory() as folder:
        path, givens = given_table(Path(folder))
        before = load_config(path)
        changes: dict[str, object] = {"fleet.broker": broker}
        for key, choice in named.items():
            if choice != "kept":
                changes[key] = "" if not choice else str(before.values[choice])
        if way == "league join":  # the join's trial: the league's and the café's names, with the rest
            changes |= {"fleet.league": "north", "fleet.cafe": "bar-centrale"}
        if way in ("page", "league join"):  # the settings' form and the files' page both pass here
            changes = broker_change(changes, before.values)
        try:
            text = changed_text(path, changes)
        except ConfigError:
            return  # refused as a change: nothing changes
        if way == "restore":
            hostile = fix_manifest(repacked(backup.make(before), lambda name, body: text.encode()
                                            if name == "config.toml" else body))
            try:
                backup.stage(hostile, before, Running(), "owner", [])
            except backup.BadBackup:
                return
            backup.starting(load_config(path))
        else:
            path.write_text(text)
        for secret, where in reached(path):
            assert givens.get(secret) == where, (way, secret[:12], where)


@settings(settings.get_profile("tables"))
@given(host=st.sampled_from(["backup.cafe.lan", "203.0.113.9", "evil.example"]), port=st.sampled_from([22, 2222]),
       user=st.sampled_from(["cafe", "other"]), scheme=st.sampled_from(["sftp", "https"]))
def test_the_network_places_password_goes_only_to_the_server_and_user_it_was_given_for(host, port, user, scheme):
    """The place is kept whole with its password; on the page another server, port, scheme or
    user with the password left empty is refused, and what rclone would be given is unchanged."""
    from pi_table.daemon import offsite
    from pi_table.daemon.offsite_desk import OffsiteDesk

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "config.toml").write_text(STAFF_CONFIG)
        config = load_config(Path(folder) / "config.toml")

        class Table:
            pass

        table = Table()
        table.config = config  # type: ignore[attr-defined]
        desk = OffsiteDesk(table, None)  # type: ignore[arg-type]
        offsite.save(config, offsite.parse("sftp://cafe@backup.cafe.lan:22/pi", "SECRET-of-the-place"))
        before = offsite.load(config)
        assert before is not None
        address = f"{scheme}://{user}@{host}:{port}/pi"
        try:
            desk.give_offsite(address, "")
        except Refusal:
            pass
        after = offsite.load(config)
        assert after is not None
        def server(place: offsite.Place) -> tuple[object, ...]:
            return place.kind, place.tls, place.host, place.port, place.user

        assert after.password != "SECRET-of-the-place" or server(after) == server(before)


@given(address=st.sampled_from(["league.example", "203.0.113.9"]), password=st.sampled_from(["", None, " "]))
def test_a_leagues_password_goes_only_with_the_address_it_is_given_with(address, password):
    """A league is joined with its address and the café's password there in one request, which
    root writes whole into the bridge: a join that names an address without its password is
    refused, so no password kept for one league goes to another."""
    from pi_table.release.broker import check_league
    from pi_table.release.layout import ReleaseError

    with pytest.raises(ReleaseError):
        check_league({"league": "north", "cafe": "bar", "address": address, "port": 8883, "password": password,
                      "ca": "-----BEGIN CERTIFICATE-----\n"})
