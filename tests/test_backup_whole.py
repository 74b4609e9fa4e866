"""A backup is the whole table (issue 75, 1): restored onto a fresh card, every setting the owner set,
the nights' books and the network place (its address and its trust) come back as one trial, and what
cannot (a secret: a backup holds none, and a secret goes only where it was given, issue 74) is named on
the restore's check and on Health until it is given again."""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_table.config import ConfigError, load_config
from pi_table.config.machine import Running
from pi_table.config.schema import OPTIONS
from pi_table.config.writing import changed_text
from pi_table.daemon import backup, offsite, owner_files
from pi_table.engine import Rules, parse_action
from pi_table.engine.games import make_game
from pi_table.night.book import Book
from pi_table.night.store import folder_of, read_night
from pi_table.table import Session
from pi_table.ui.i18n import say
from pi_table.web.staff import PIN_FILE, set_pin

from helpers_staff import STAFF_CONFIG, STAFF_PIN

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
NOTIFY_URL = "json://notify.cafe.lan/hook?token=SECRET-of-the-notices"
PLACE = "sftp://cafe@backup.cafe.lan:22/pi"
HOST_KEY = "ssh-ed25519 " + "A" * 68


def other_value(option) -> object | None:
    """A value of ``option`` other than its default, derived from its schema: the other truth,
    another of its choices, the other end of its range; None when none can be derived."""
    if option.kind == "bool":
        return not option.default
    if option.choices:
        return next((choice for choice in option.choices if choice != option.default), None)
    if option.range is not None:
        end = option.range.least if option.range.least != option.default else option.range.most
        return int(end) if option.kind == "int" else end
    if option.kind == "str_list" and option.key == "notify.events":
        return ["device", "night"]
    if option.kind == "str" and option.owners:
        return {"fleet.league": "north", "fleet.cafe": "bar-centrale", "fleet.dashboard_user": "watcher",
                "fleet.table_id": "t7"}.get(option.key)
    return None


def owners_table(folder: Path) -> tuple[Path, list[str], str]:
    """A table whose owner gave the broker, its password, the dashboard's and the notifications'
    address on the page, a network place (its SSH key pinned), the staff PIN, a finished game, a
    closed game night and one open, and every setting the
    schema lets a value be derived for (one by one, each kept when the checker takes it): the
    configuration, the keys set and the finished game's file."""
    path = folder / "config.toml"
    path.write_text(STAFF_CONFIG)
    for kind, fields in (("broker", {"broker": "mqtts://t1@broker.cafe.lan:8883", "table_id": "t1",
                                     "password": "SECRET-of-the-cafe"}),
                         ("dashboard", {"port": 18090, "user": "dashboard", "password": "SECRET-of-the-dashboard"}),
                         ("notify", {"url": NOTIFY_URL, "events": ["device"]})):
        path.write_text(changed_text(path, owner_files.changes(load_config(path), kind, fields, None)[0]))
    set_keys = []
    for option in OPTIONS:
        value = other_value(option)
        if value is None or option.key in ("web.enabled", "web.port", "web.tls_port", "fleet.dashboard_port"):
            continue  # the pages' own ports and their being on: the fresh card's restore must still answer
        try:
            path.write_text(changed_text(path, {option.key: value}))
        except ConfigError:
            continue  # a value this table's other settings refuse: another is tried by its next key
        set_keys.append(option.key)
    config = load_config(path)
    offsite.save(config, offsite.parse(PLACE, "SECRET-of-the-place"))
    offsite._keep_keys(config, offsite.parse(PLACE, "SECRET-of-the-place"), [HOST_KEY])  # pinned at its first copy
    nights = Book(folder_of(config.paths.journal_dir), clock=lambda: 1_780_000_000.0)
    nights.open("Friday league", ["codenames"], ["t1"])
    for team in ("Owls", "Bats"):
        nights.join(team)
    nights.close(over=True)
    nights.stop()
    Book(folder_of(config.paths.journal_dir), clock=lambda: 1_780_600_000.0).open("Next Friday", ["codenames"], ["t1"])
    rules = Rules()
    finished = Session(rules, key=make_game(rules).parse_key(KEY), journal_dir=config.paths.journal_dir)
    finished.submit(parse_action("touch 24"))
    game = f"{finished.id}.jsonl"
    finished.new_game()
    finished.close()
    set_pin(config.paths.journal_dir, STAFF_PIN)
    return path, set_keys, game


def test_a_backup_restored_onto_a_fresh_card_brings_every_setting_and_names_each_secret_left_behind(tmp_path):
    """The dead card's path: the table backed up, its card gone, a new card set up in its place
    (its defaults, another PIN), the backup restored. Every setting of the schema is the backed-up
    table's but the secrets, which the check names and Health says until each is given again."""
    (tmp_path / "table").mkdir()
    path, set_keys, game = owners_table(tmp_path / "table")
    assert len(set_keys) >= 30, set_keys  # most of the schema's settings: each derived, none by hand
    before = load_config(path)
    journal = before.paths.journal_dir
    pin = (journal / PIN_FILE).read_bytes()
    books = {path.name: path.read_bytes() for path in folder_of(journal).iterdir()}
    data = backup.make(before)
    shutil.rmtree(tmp_path / "table")  # the card died
    (tmp_path / "table").mkdir()
    path.write_text(STAFF_CONFIG)  # the new card's set-up
    set_pin(journal, "135790")
    fresh = load_config(path)

    contents = backup.stage(data, fresh, Running(), "owner", [])
    said = [say(phrase, "en") for phrase in contents.replaces]
    secrets = ("fleet.password_file", "fleet.dashboard_password_file", "notify.url_file")
    assert set(contents.left_out) == {*secrets, "offsite"}
    for what in ("the broker's password", "the fleet dashboard's broker password", "the notifications' address",
                 "the password of the network place the nightly backups are copied to"):
        assert any(line.startswith(f"left out of the restore: {what}, which is not on this table") for line in said), said
    assert "the game nights: 2 nights in place of the 0 kept now" in said
    restored, under = backup.starting(fresh)
    assert under is not None
    for option in OPTIONS:  # every setting the schema declares, the restored table's as the backed-up one's
        key = option.key
        if key in secrets:
            assert restored.values[key] == "", key
        elif key == "fleet.password_in_clear":
            assert restored.values[key] is False  # a restore never turns it on
        else:
            assert restored.values[key] == before.values[key], key
    assert (journal / PIN_FILE).read_bytes() == pin
    assert (journal / game).is_file()  # the finished game came back
    assert {path.name: path.read_bytes() for path in folder_of(journal).iterdir()} == books  # the nights' books
    restored_nights = Book(folder_of(journal))
    assert [read_night(path)[0].name for path in restored_nights.kept()] == ["Friday league", "Next Friday"]
    assert restored_nights.current().name == "Next Friday"  # the night open then is open again
    restored_nights.stop()
    place = offsite.state(restored)
    assert (place["place"], place["password_set"]) == (PLACE, False)  # its address alone
    assert offsite.load(restored) is None  # no copy is tried before its password is given again

    backup.keep(restored)
    health = [say(what, "en") for what in backup.left_out(restored)]
    assert health == [f"{what} did not come back with the restored backup" for what in (
        "the broker's password", "the fleet dashboard's broker password", "the notifications' address",
        "the password of the network place the nightly backups are copied to")]
    path.write_text(changed_text(path, owner_files.changes(restored, "notify", {"url": NOTIFY_URL, "events": []},
                                                           None)[0]))
    offsite.save(restored, offsite.parse(place["place"], "SECRET-of-the-place"))  # the page: its password alone typed
    assert offsite.state(restored)["key"] == {"pinned": [offsite.fingerprint(HOST_KEY)], "offered": None}  # its trust
    again = [say(what, "en") for what in backup.left_out(load_config(path))]
    assert again == ["the broker's password did not come back with the restored backup",
                     "the fleet dashboard's broker password did not come back with the restored backup"]


def test_a_new_file_of_the_owners_part_is_in_every_backup_unless_declared_a_secret(tmp_path, monkeypatch):
    """What a backup holds of the owner's is derived from the one list of the owner's files
    (``backup.owners``, which the reset wipes too): a file a new room adds there travels with no
    other edit, one declared a secret does not, and the reset's part names both."""
    from pi_table.daemon import owners_part

    (tmp_path / "config.toml").write_text(STAFF_CONFIG)
    config = load_config(tmp_path / "config.toml")
    journal = config.paths.journal_dir
    journal.mkdir()
    (journal / "owner.new").write_text("the owner's new setting")
    (journal / "owner.new-secret").write_text("SECRET")
    listed = backup.owners()
    monkeypatch.setattr(backup, "owners", lambda: {**listed, "owner.new": backup.Owned("new"),
                                                   "owner.new-secret": backup.Owned("new", secret="a secret")})
    files = backup.read(backup.make(config))[1]
    assert files["journal/owner.new"] == b"the owner's new setting"
    assert "journal/owner.new-secret" not in files
    assert set(owners_part.JOURNAL_FILES) == set(listed)  # the reset's list is the same one


def test_a_restore_onto_the_same_table_keeps_the_places_password_it_holds_for_that_place(tmp_path):
    """A backup holds the place without its password; restored where the table holds that very
    place (the card that made it), the password stays and nothing is named left out; where the
    table holds another place, the backup's comes with no password, and that is named."""
    (tmp_path / "config.toml").write_text(STAFF_CONFIG)
    config = load_config(tmp_path / "config.toml")
    set_pin(config.paths.journal_dir, STAFF_PIN)
    offsite.save(config, offsite.parse(PLACE, "SECRET-of-the-place"))
    data = backup.make(config)
    assert b"SECRET-of-the-place" not in backup.read(data)[1]["journal/offsite.place"]

    assert backup.stage(data, config, Running(), "owner", []).left_out == ()
    backup.starting(config)
    assert offsite.load(config) == offsite.parse(PLACE, "SECRET-of-the-place")
    backup.keep(config)

    offsite.save(config, offsite.parse("sftp://cafe@other.cafe.lan:22/pi", "SECRET-of-the-other"))
    assert backup.stage(data, config, Running(), "owner", []).left_out == ("offsite",)
    backup.starting(config)
    assert offsite.load(config) is None
    assert offsite.state(config)["place"] == PLACE
    assert [say(what, "en") for what in backup.left_out(config)] == [
        "the password of the network place the nightly backups are copied to did not come back with the restored "
        "backup"]


def open_night(config) -> str:
    """The name of the night open on the table ``config``, as its book takes it up at a start."""
    book = Book(folder_of(config.paths.journal_dir))
    try:
        return book.current().name
    finally:
        book.stop()


def test_a_restore_rolled_back_puts_the_tables_own_nights_and_place_back(tmp_path):
    """The way back: a restore that brought another table's nights and place, found unhealthy, is
    rolled back to this table's own nights (the one open here open again) and place, password and all."""
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "config.toml").write_text(STAFF_CONFIG)
    old = load_config(tmp_path / "old" / "config.toml")
    Book(folder_of(old.paths.journal_dir), clock=lambda: 1_780_000_000.0).open("Their night", ["codenames"], ["t1"])
    offsite.save(old, offsite.parse("sftp://them@other.cafe.lan:22/pi", "SECRET-of-theirs"))
    data = backup.make(old)

    (tmp_path / "config.toml").write_text(STAFF_CONFIG)
    config = load_config(tmp_path / "config.toml")
    set_pin(config.paths.journal_dir, STAFF_PIN)
    ours = Book(folder_of(config.paths.journal_dir), clock=lambda: 1_790_000_000.0)
    ours.open("Our night", ["codenames"], ["t1"])
    ours.stop()
    offsite.save(config, offsite.parse(PLACE, "SECRET-of-the-place"))
    books = {path.name: path.read_bytes() for path in folder_of(config.paths.journal_dir).iterdir()}

    backup.stage(data, config, Running(), "owner", [])
    _, under = backup.starting(config)
    assert under is not None
    assert open_night(config) == "Their night"
    assert offsite.load(config) is None and offsite.state(config)["place"] == "sftp://them@other.cafe.lan:22/pi"
    backup.roll_back_later(config, under, "the table was not healthy on it")
    backup.starting(config)
    assert {path.name: path.read_bytes() for path in folder_of(config.paths.journal_dir).iterdir()} == books
    assert open_night(config) == "Our night"
    assert offsite.load(config) == offsite.parse(PLACE, "SECRET-of-the-place")
