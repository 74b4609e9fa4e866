"""An Italian table says nothing in English where a person looks or listens: the command line's
own lines (``status``, ``history``, ``release-seat``, ``selftest``/``tune`` beside a running
table, ``sim``'s script and option errors), a device's fault without a detail, and the staff
page's game and device names. Each sentence is said from its meaning (a Phrase, a marked
msgid), so these tests ask for the Italian and check the English is gone; argparse's own
framing ("usage:", "error:") stays English, as the README says.
"""

from __future__ import annotations

import io
import re

import pytest

from pi_table import cli
from pi_table.cli.output import EXIT_UNAVAILABLE, EXIT_USAGE
from pi_table.daemon.control import ControlServer
from pi_table.engine import Rules
from pi_table.hal import HealthEvent, SimButtons, SimLedStrip, SimScreen, SimTouch
from pi_table.table import Session, TableLoop
from pi_table.ui.i18n import say

STATUS = {"ok": True, "version": "0", "game_id": "g1", "uptime_s": 1.0,
          "state": {"game": "codex", "step": "messages", "phase": 1, "waiting_for": [0, 1]},
          "health": {"touch": "simulated", "leds": "simulated", "sound": "off", "fleet": "not working: timed out"},
          "warnings": []}
GAMES = [{"id": "20250101-1", "game": "codenames-coop", "over": True, "reason": "la squadra rossa ha vinto",
          "moves": 12, "duration_s": 600.0},
         {"id": "20250101-2", "game": "alias24", "over": False, "moves": 3, "duration_s": 60.0}]


def config_for(tmp_path) -> str:
    path = tmp_path / "config.toml"
    path.write_text(f'[game]\nlanguage = "it"\n[web]\nenabled = false\n[paths]\njournal_dir = "{tmp_path}/journal"\n'
                    f'socket = "{tmp_path}/control.sock"\nsocket_group = ""\n')
    return str(path)


@pytest.fixture
def table(tmp_path):
    """A table's control socket that answers as a running Codex table does."""

    def answer(request: dict) -> dict:
        return {"ok": True, "games": GAMES} if request["command"] == "history" else STATUS

    server = ControlServer(tmp_path / "control.sock", answer)
    server.start()
    yield config_for(tmp_path)
    server.stop()


def test_status_without_a_table_says_so_in_italian_with_what_to_do(tmp_path, capsys):
    assert cli.main(["status", "--config", config_for(tmp_path)]) == EXIT_UNAVAILABLE  # [game] language = "it"
    said = capsys.readouterr().err
    assert said == (f"pi-table status: nessun tavolo è in funzione: {tmp_path}/control.sock non esiste; avvialo "
                    "(sudo systemctl start pi-table) o indica con --config il tavolo che intendi\n")
    assert cli.main(["status", "--config", config_for(tmp_path), "--lang", "en"]) == EXIT_UNAVAILABLE
    assert "no table is running: " in capsys.readouterr().err


def test_status_names_the_game_and_the_devices_in_italian(table, capsys):
    assert cli.main(["status", "--config", table]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pi-table 0: partita g1 (Codex), acceso da 1.0 s\n")
    assert ("stato scheda touch: in simulazione, striscia LED: in simulazione, suono: non in uso, broker della flotta: non funziona: "
            "timed out") in out  # the system's own words kept as they are


def test_release_seat_says_its_line_in_italian(table, capsys):
    assert cli.main(["release-seat", "2", "--config", table]) == 0
    out = capsys.readouterr().out
    assert out.startswith("posto 2: il vecchio link ora non apre più nulla; lo schermo del tavolo mostra il nuovo codice\n")


def test_history_names_each_game_in_italian(table, capsys):
    assert cli.main(["history", "--config", table]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("20250101-1  Nome in codice (in cooperativa) mosse: 12 ")
    assert lines[0].endswith("la squadra rossa ha vinto") and lines[1].startswith("20250101-2  Alias 24")
    assert "codenames" not in "\n".join(lines)


@pytest.mark.parametrize("command", ["selftest", "tune"])
def test_selftest_and_tune_beside_a_running_table_say_so_in_italian(table, capsys, command):
    assert cli.main([command, "--config", table]) == 1
    assert capsys.readouterr().err == (f"pi-table {command}: il tavolo è in funzione e tiene occupati i dispositivi: "
                                       "prima fermalo (sudo systemctl stop pi-table)\n")


def test_a_malformed_script_is_said_in_the_simulators_language(tmp_path, capsys):
    """The script's error is the interactive simulator's "not a command" refusal, said without
    the line's words: the line is named by its number."""
    path = tmp_path / "bad.txt"
    path.write_text("clue 2\ntuch 3\n")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["sim", "--lang", "it", "--script", str(path), "--json"])
    assert exit_.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert err == (f"pi-table sim: script non valido: {path}:2: i comandi sono clue, touch, end-turn, penalty, cover, "
                   "place, time-up, undo, words, told, new-game\n")
    with pytest.raises(SystemExit):
        cli.main(["sim", "--script", str(path), "--json"])
    assert capsys.readouterr().err == (f"pi-table sim: malformed script: {path}:2: the commands are clue, touch, end-turn, "
                                       "penalty, cover, place, time-up, undo, words, told, new-game\n")


@pytest.mark.parametrize(
    "options, italian",
    [
        (["--game", "codex", "--words", "it", "--script", "-"], "--words mette le parole sulle carte dei giochi a griglia"),
        (["--roles", "leader,hacker,profiler", "--script", "-"], "--roles: opzioni soltanto di codex (--game codex)"),
        (["--game", "codex", "--key", "R" * 25, "--script", "-"], "--key prepara una partita a griglia"),
        (["--game", "codex", "--setup", "Moon:red", "--script", "-"], "--setup: "),
        (["--rotation", "45", "--out", "never"], "--rotation: la rotazione"),
    ],
)
def test_the_simulators_option_errors_about_the_game_are_italian(capsys, monkeypatch, options, italian):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    command = ["render"] if "--out" in options else ["sim"] + (["--json"] if "--script" in options else [])
    with pytest.raises(SystemExit) as exit_:
        cli.main([*command, "--lang", "it", *options])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and italian in err and err.startswith("uso: ")  # argparse's frame in the table's language (issue 63)
    message = err.split("errore: ", 1)[1]
    assert not re.search(r"\b(the|is|are|not|goes|has|deals|plays|one of)\b", message), message


def test_a_device_that_stops_without_a_word_is_named_and_advised_in_italian():
    session = Session(Rules(), key=None)
    loop = TableLoop(session, SimTouch(), SimLedStrip(), SimScreen(), SimButtons(), lang="it")
    loop.note_health(HealthEvent("leds", False))
    loop.note_health(HealthEvent("dial", False))  # a device this table does not know: its name, and where to look
    assert say(loop.faults["leds"], "it") == ("la striscia LED non funziona: controlla il suo alimentatore e il filo "
                                              "dati verso il Pi; la partita continua senza luci")
    assert say(loop.faults["dial"], "it") == ("dial non funziona: guarda il log del tavolo (journalctl -u pi-table), "
                                              "poi riavvia il servizio")


class ItalianDesk:
    """A table set to Italian as the staff page reaches it: the cooperative game on the table,
    its sound gone and its broker unreachable."""

    def language(self) -> str:
        return "it"

    def table(self, lang: str = "en") -> dict:
        return {"game_id": "g1", "version": "0", "uptime_s": 1.0,
                "state": {"game": "codenames-coop", "turn": "red", "phase": "clue", "board": "?" * 25},
                "health": {"touch": "ok", "sound": "not working: no audio device", "fleet": "not working: timed out"},
                "warnings": [], "journal": "ok"}

    def history(self, lang: str) -> list:
        return [{"id": "1", "started": "2025-01-01T20:00", "game": "codenames-coop", "over": False, "moves": 3,
                 "duration_s": 600}]

    def settings(self) -> dict:
        return {"file": None, "options": []}

    def log_lines(self) -> list:
        return []


def test_a_device_that_would_not_open_says_why_in_italian_on_the_screen_and_in_status():
    """The screen's own words (a Phrase: it did not open in time) reached the banner and the
    status as their English, ``str(error)``."""
    from pi_table.daemon.devices import Devices, _failed
    from pi_table.drivers.pygame_screen import ScreenNotOpen
    from pi_table.engine.phrase import Phrase
    from pi_table.hal.events import NOT_WORKING

    devices = Devices(SimTouch(), SimLedStrip(), SimScreen(), SimButtons())
    _failed(devices, "screen", ScreenNotOpen(Phrase.of("the display did not open within {seconds:g} s", seconds=5)))
    assert devices.health["screen"] == "not working: the display did not open within 5 s"  # the table's own words
    assert say(devices.faults["screen"], "it").startswith("lo schermo")
    assert "il display non si è aperto entro 5 s" in say(devices.faults["screen"], "it")
    assert NOT_WORKING + say(devices.why["screen"], "it") == "not working: il display non si è aperto entro 5 s"


def test_the_staff_page_names_the_game_and_every_device_in_italian(tmp_path, browser):
    from playwright.sync_api import expect

    from pi_table.web import Companion
    from pi_table.web.staff import StaffPage, set_pin

    set_pin(tmp_path, "482916")
    companion = Companion(staff=StaffPage(ItalianDesk(), tmp_path))
    companion.start()
    page = browser.new_page()
    try:
        page.goto(f"{companion.base_url}/staff")
        page.fill("#pin", "482916")
        page.click("#login button")
        expect(page.locator("#game-line")).to_contain_text("Nome in codice (in cooperativa) · ")  # the game by name
        expect(page.locator("#game-id")).to_have_text("g1")  # its id in small print
        expect(page.locator("#history td").nth(1)).to_have_text("Nome in codice (in cooperativa)")
        names = page.locator("#devices li strong").all_inner_texts()
        assert names == ["la scheda touch", "il suono", "il broker della flotta", "il registro delle partite"]
        assert "codenames" not in page.inner_text("#game-line") + page.inner_text("#history")
    finally:
        page.close()
        companion.stop()


def test_the_starting_team_is_named_in_the_simulators_language_and_refused_in_it(tmp_path, capsys):
    """``--start rossa`` where the simulator speaks Italian (before: "a team is 'red' or 'blue'",
    in English); a team it does not know is refused in the player's language, and the English
    names a script writes are taken in both."""
    script = tmp_path / "game.txt"
    script.write_text("clue 1\n")
    for lang, team, start in (("it", "rossa", "red"), ("it", "Blu", "blue"), ("it", "red", "red"), ("en", "blue", "blue")):
        assert cli.main(["sim", "--lang", lang, "--start", team, "--seed", "1", "--script", str(script), "--json"]) == 0
        assert f'"start": "{start}"' in capsys.readouterr().out
    for lang, said in (("it", "--start: una squadra è 'rossa' o 'blu', non 'verde'"),
                       ("en", "--start: a team is 'red' or 'blue', not 'rossa'")):
        with pytest.raises(SystemExit) as exit:
            cli.main(["sim", "--lang", lang, "--start", "verde" if lang == "it" else "rossa", "--script", str(script)])
        assert exit.value.code == EXIT_USAGE and said in capsys.readouterr().err


def test_every_label_and_placeholder_of_the_italian_staff_page_is_italian(tmp_path, browser):
    """Before: the owner's box of blocked words kept its English name on the Italian staff page
    (an attribute written once, while the page still spoke English, that no later pass wrote
    again). The table in this process, its staff page with every section of the daemon's."""
    from playwright.sync_api import expect

    from pi_table.ui.messages import parse_po, po_path

    from helpers_staff import staff_login
    from helpers_tables import StaffTable

    italian = parse_po(po_path("it").read_text(encoding="utf-8"))
    table = StaffTable(tmp_path, "RRRRRRRRRBBBBBBBBNNNNNNNA", "it")
    page = browser.new_page()
    try:
        staff_login(page, table.base)
        expect(page.locator("#blocked-words")).to_be_attached()
        expect(page.locator("#game-line")).to_contain_text("Nome in codice · ")
        said = page.evaluate("() => [...document.querySelectorAll('[aria-label], [placeholder]')].flatMap("
                             "(node) => [node.getAttribute('aria-label'), node.getAttribute('placeholder')]).filter(Boolean)")
        assert len(said) > 5 and [text for text in said if italian.get(text, text) != text] == []
        assert page.get_attribute("#blocked-words", "aria-label") == "Parole non ammesse nei nomi delle squadre (una per riga)"
        assert page.get_attribute("#log-search", "placeholder") == "Cerca nel log"
    finally:
        page.close()
        table.close()
