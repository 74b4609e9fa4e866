"""Each action's result where the owner's eyes are, in the page's language, on a 390 px phone
(issue 39: a PIN mismatch, a refused restore, a refused timer all showed in a line at the top of a
4,978 px page, 3,700 px above the button, and an English "Saved" stayed on the Italian page).
Refusals read as labels and what a setting takes, a refused value leaves its field, a damaged
backup says so in words, and a rollback is the headline, its settings named by their labels."""

from __future__ import annotations

import gzip
import json
import time

import pytest

from helpers_games import dealt_key
from helpers_staff import OWNER_PASSPHRASE, Staff, part, raw_post, staff_login
from helpers_tables import StaffTable as InProcessTable

pytestmark = pytest.mark.daemon


def damaged(backup: bytes) -> bytes:
    """A backup whose compressed data is damaged past its gzip header (zlib's "Error -3")."""
    return backup[:10] + bytes(byte ^ 0x5A for byte in backup[10:60]) + backup[60:]


def result_of(page) -> str:
    """The result shown: beside the control, on the screen, and said."""
    from playwright.sync_api import expect

    message = page.locator("#message")
    expect(message).to_be_visible()
    expect(message).to_be_in_viewport()
    return message.inner_text()


def actions(page, table, tmp_path) -> dict[str, str]:
    """The owner's actions whose results were far from their controls, each one's result."""
    from playwright.sync_api import expect

    said = {}
    page.fill("#pin-old", "482916")
    page.fill("#pin-new", "111111")
    page.fill("#pin-again", "222222")
    page.click("#pin-form button[type=submit]")
    said["pins differ"] = result_of(page)

    volume = page.locator("#at-hand input[name='sound.volume']")
    volume.fill("0.5")
    drawn = volume.element_handle()
    page.click("#at-hand button[type=submit]")  # the settings at hand apply when asked, not on a change
    page.wait_for_function("(field) => !field.isConnected", arg=drawn)  # the page read them again and drew them anew
    said["volume saved"] = result_of(page)

    timer = page.locator("#at-hand input[name='timer.length_s']")
    timer.fill("5")
    page.click("#at-hand button[type=submit]")
    said["timer refused"] = result_of(page)
    expect(timer).to_have_value("0")  # the value in force, not the one refused

    page.fill("#owner-passphrase", OWNER_PASSPHRASE)
    page.click("#owner-form button")
    said["unlocked"] = result_of(page)
    backup = tmp_path / "damaged.tar.gz"
    backup.write_bytes(damaged(part(table.daemon, "care").backup()[1]))
    page.set_input_files("#restore-file", str(backup))
    said["restore refused"] = result_of(page)

    page.click("#reboot")
    said["reboot refused"] = result_of(page)
    page.click("#log-refresh")  # the next action: the last one's result goes
    expect(page.locator("#message")).to_be_hidden()
    return said


def test_each_result_is_beside_its_control_on_a_phone_in_the_pages_language(tmp_path, browser):
    results = {}
    for lang in ("en", "it"):
        folder = tmp_path / lang
        folder.mkdir()
        table = InProcessTable(folder, dealt_key(), lang)
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        try:
            staff_login(page, table.base)
            page.wait_for_selector("#desk:visible")
            assert page.evaluate("document.documentElement.scrollHeight") > 3 * 844  # a long page
            results[lang] = actions(page, table, folder)
        finally:
            context.close()
            table.close()
    english, italian = results["en"], results["it"]
    assert english["pins differ"] == "the two new PINs differ" and italian["pins differ"] == "i due nuovi PIN sono diversi"
    assert english["timer refused"] == "Turn timer: 5 refused: it takes seconds, 10 to 3600, or 0: off"
    for said in (english["timer refused"], italian["timer refused"]):
        assert "config.toml" not in said and "timer.length_s" not in said  # labels, not files and keys
    assert "damaged" in english["restore refused"] and "Error -3" not in english["restore refused"]
    assert "Error -3" not in italian["restore refused"] and "decompress" not in italian["restore refused"]
    assert english["reboot refused"].startswith("this table has no root helper")
    assert english["volume saved"] == "Saved and applied."  # said, and still there once the settings are drawn anew
    for action, said in english.items():  # the Italian page says each in Italian
        assert italian[action] and italian[action] != said, action


def test_a_refusal_names_the_settings_label_and_what_it_takes_and_the_checkers_words_stay_for_scripts(tmp_path):
    table = InProcessTable(tmp_path, dealt_key())
    try:
        staff = Staff(table.base)
        staff.login()
        staff.as_owner()
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"paths.keep_games": 0}})
        assert status == 400 and answer["said"] == "Finished games kept: 0 refused: it takes games, 1 to 100000"
        assert answer["problems"][0]["said"] == "0 refused: it takes games, 1 to 100000"
        assert answer["error"].startswith(f"{table.config}: paths.keep_games: ")  # check-config's, as before
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"game.game": "chess"}})
        assert answer["said"] == ("Game a new table deals: chess refused: it takes one of Codenames, Codenames "
                                  "(cooperative), Alias 24, Codenames with the table as spymaster, Codex")  # each game by its description's title
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"timer.length_s": 30, "timer.warn_s": 40}})
        assert answer["said"].startswith("Turn timer and Timer warning together: ")
        staff.lang = "it"
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"paths.keep_games": 0}})
        assert answer["said"] == "Partite finite conservate: 0 rifiutato: accetta partite, da 1 a 100000"
        status, answer = staff.call("POST", "/staff/api/config", {"changes": {"fleet.broker": "mqtt://x:hunter2@"}})
        assert status == 400 and "hunter2" not in answer["said"]  # a refused text is not said back
    finally:
        table.close()


def test_a_damaged_backup_says_so_in_words(tmp_path):
    table = InProcessTable(tmp_path, dealt_key())
    try:
        staff = Staff(table.base)
        staff.login()
        staff.as_owner()
        good = part(table.daemon, "care").backup()[1]
        for data in (damaged(good), gzip.compress(b"not a tar archive, but gzip all the same" * 20)):
            status, answer = raw_post(table.base, "/staff/api/restore?check", staff, data)
            assert status == 400 and "damaged" in answer["error"], answer
            assert "Error -3" not in answer["error"] and "decompress" not in answer["error"]
            assert "invalid" not in answer["error"] and "header" not in answer["error"]
    finally:
        table.close()


def test_a_rollback_is_the_headline_its_settings_named_by_their_labels(tmp_path):
    table = InProcessTable(tmp_path, dealt_key())
    try:
        note = {"at": time.time(), "keys": ["web.enabled"], "by": "staff",
                "why": {"en": "the phones' pages and the staff page are off now", "it": "le pagine sono spente"}}
        (tmp_path / "config.toml.rolled-back").write_text(json.dumps(note))
        staff = Staff(table.base)
        staff.login()
        status, health = staff.call("GET", "/staff/api/health")
        assert status == 200 and health["headline"]["ok"] is False
        assert "Phone pages" in health["headline"]["text"] and "web.enabled" not in json.dumps(health["headline"])
        assert "the phones' pages and the staff page are off now" in health["headline"]["advice"]
        status, shown = staff.call("GET", "/staff/api/table")
        assert shown["settings"]["rolled_back"]["labels"] == ["Phone pages"]
        staff.lang = "it"
        status, health = staff.call("GET", "/staff/api/health")
        assert "Pagine per i telefoni" in health["headline"]["text"], health["headline"]
    finally:
        table.close()
