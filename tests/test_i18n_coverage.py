"""Every sentence the Python code shows a person has its Italian translation.

The strings are found by reading the code (AST), not by running it: the msgids marked ``_()`` /
``N_()``, and the template of every ``Phrase`` and engine error made anywhere in pi_table (the
phone pages in pi_table/web/ have their own check). A refusal built from pieces (an f-string)
cannot be translated and fails too, so a new refusal cannot slip by unmarked.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import pi_table
from pi_table.engine.phrase import Phrase
from pi_table.ui import i18n, messages

from helpers_tables import service_daemon

PACKAGE = Path(pi_table.__file__).parent
WEB = PACKAGE / "web"
SOURCES = sorted(PACKAGE.rglob("*.py"))  # the web server's refusals too; its pages have their own check


def catalogue() -> dict[str, str]:
    path = messages.po_path("it")
    return messages.parse_po(path.read_text(encoding="utf-8"), str(path))


@pytest.mark.slow  # some 4 s of CPU by itself: out of ./dev test (issue 40)
def test_every_msgid_and_template_in_the_code_has_an_italian_translation():
    used = messages.msgids_in_source(SOURCES)
    assert len(used) > 300  # the screen's words, the refusals, the warnings
    assert sorted(used - catalogue().keys()) == []


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_no_refusal_or_warning_is_built_from_pieces():
    assert messages.unmarked_sentences(SOURCES) == []


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_the_catalogue_holds_no_entry_nothing_uses():
    """An entry is used when the code marks it, or a phone page (pi_table/web/) carries it."""
    pages = [path.read_text(encoding="utf-8") for path in WEB.rglob("*") if path.is_file() and path.suffix != ".pyc"]
    used = messages.msgids_in_source(SOURCES)
    unused = [msgid for msgid in catalogue().keys() - used - {""} if not any(msgid in page for page in pages)]
    assert sorted(unused) == []


COMMANDS = [*sorted((PACKAGE / "cli").glob("*.py")), PACKAGE / "daemon" / "tune.py", PACKAGE / "daemon" / "selftest.py"]
ENGLISH_ONLY = frozenset({"_key", "_bench"})
"""The commands that speak no language of the table's: keys as JSON, benchmarks' figures (the board
emulator speaks it since issue 62: the Italian try page runs it)."""


def test_no_command_writes_english_into_a_line_for_a_person():
    """The commands' lines to a person and their option errors go through the catalogue: English
    written into a print(), parser.error() or self.say() is English on an Italian table."""
    assert messages.unsaid_lines(COMMANDS, ENGLISH_ONLY) == []


def test_english_written_into_a_commands_line_is_caught(tmp_path):
    source = tmp_path / "command.py"
    source.write_text(
        "def status(args, parser, _, e, seat):\n"
        "    print(f'pi-table {args.command}: {e}', file=sys.stderr)\n"  # the command's name: fine
        "    print('pi-table sim: ' + _('malformed script: {problem}').format(problem=e))\n"
        "    parser.error(f'--key: {say(e.phrase, args.lang)}')\n"
        "    print(f'seat {seat}: its old link opens nothing now')\n"
        "    parser.error('--words puts words on the cards')\n"
        "    print('pi-table history: ' + 'no table is running')\n"
        "    print('{seat} released'.format(seat=seat))\n"
        "def _key(parser):\n"
        "    parser.error('--count is a whole number')\n",
        encoding="utf-8",
    )
    assert [where.rsplit(":", 1)[1] for where in messages.unsaid_lines([source], frozenset({"_key"}))] == [
        "5", "6", "7", "8"]


def test_an_unmarked_refusal_and_an_untranslated_one_are_caught(tmp_path):
    source = tmp_path / "new_rule.py"
    source.write_text(
        "def check(cell):\n"
        "    raise RuleError(f'card {cell} fell off the table')\n"
        "def other(cell):\n"
        "    raise InvalidAction('the card ' + str(cell) + ' is upside down')\n"
        "def third():\n"
        "    raise RuleError('a brand new refusal nobody translated')\n"
        "WAITING = Phrase.of('waiting for {who}' if True else 'nobody to wait for', who='me')\n"
        "class DeckError(Refusal):\n"
        "    pass\n"
        "class TornDeck(DeckError):\n"
        "    pass\n"
        "def fourth(name):\n"
        "    raise TornDeck('{name}: the deck is torn', name=name)\n"
        "def fifth(name):\n"
        "    raise DeckError(f'{name}: the deck is wet')\n",
        encoding="utf-8",
    )
    assert [where.rsplit(":", 1)[1] for where in messages.unmarked_sentences([source])] == ["2", "4", "15"]
    found = messages.msgids_in_source([source])
    assert found == {"a brand new refusal nobody translated", "waiting for {who}", "nobody to wait for",
                     "{name}: the deck is torn"}
    assert found - catalogue().keys() == found


def test_rewording_an_english_refusal_is_caught_not_silently_english(tmp_path):
    """A refusal's template is its catalogue key: reword it in a copy of the engine and the check
    names the new words, where matching the English sentence would have shown English quietly."""
    copy = tmp_path / "game.py"
    shutil.copy(PACKAGE / "engine" / "game.py", copy)
    text = copy.read_text(encoding="utf-8")
    assert '"card {cell} is already revealed"' in text
    copy.write_text(text.replace('"card {cell} is already revealed"', '"card {cell} was revealed already"'), "utf-8")
    assert sorted(messages.msgids_in_source([copy]) - catalogue().keys()) == ["card {cell} was revealed already"]


def test_a_phrase_is_translated_from_its_code_and_fields_not_its_english():
    """The Italian comes from the template and the fields, whatever the English sentence reads."""
    revealed = Phrase.of("card {cell} is already revealed", cell=7)
    assert str(revealed) == "card 7 is already revealed"
    assert i18n.say(revealed, "it") == "la carta 7 è già coperta"
    side = Phrase.of("the {team} team", team=pi_table.engine.Team.RED)
    nested = Phrase.of("{side} must guess at least once before ending its turn", side=side)
    assert i18n.say(nested, "it").startswith("la squadra rossa")
    assert i18n.say("shown as it is", "it") == "shown as it is"


# --- the staff's commands speak the table's language ------------------------------------------------


def test_the_selftest_speaks_italian_with_what_to_do():
    from pi_table.daemon.devices import Devices
    from pi_table.daemon.selftest import SelfTest
    from pi_table.drivers.settings import ButtonPins
    from pi_table.hal import ButtonEvent, SimButtons, SimLedStrip, SimScreen, SimTouch

    d = Devices(SimTouch(), SimLedStrip(), SimScreen(), SimButtons())
    d.health = {"touch": "ok", "leds": "not working: no /dev/spidev0.0", "screen": "ok", "buttons": "ok"}
    lines: list[str] = []
    clock = iter(range(10_000)).__next__
    test = SelfTest(d, ButtonPins(), edge_pixels=24, say=lines.append, sleep=lambda s: None, clock=clock, lang="it")
    test.events.put(ButtonEvent("end_turn"))
    assert test.run(timeout_s=3) is False
    assert lines[-1] == "autotest NON SUPERATO"
    assert ("NON SUPERATO striscia LED: non funziona: no /dev/spidev0.0; cosa fare: attiva SPI (sudo raspi-config nonint "
            "do_spi 0, poi riavvia) e metti l'utente nel gruppo spi") in lines
    assert "FINE TURNO ok" in lines and any(line.startswith("non visti: sensore 0, sensore 1") for line in lines)
    assert d.screen.last.message == "tocca ogni carta una volta" and ("tocca lo schermo", False) in d.screen.last.checks


def test_status_says_the_warnings_and_the_end_in_the_language_asked(tmp_path, capsys):

    from pi_table.cli.control import _print_status

    (tmp_path / "config.toml").write_text('[web]\nenabled = false\n[paths]\njournal_dir = "journal"\n'
                                          'socket = "sock"\nsocket_group = ""\n')
    daemon = service_daemon(tmp_path / "config.toml")
    try:
        daemon.loop.faults["leds"] = Phrase.of(
            "the LED strip is not working ({error}): check its power supply and its data wire to the Pi; the game goes "
            "on without lights", error="no /dev/spidev0.0")
        english, italian = daemon.status(), daemon.status("it")
        refused = daemon.answer({"command": "status", "lang": "de"})
    finally:
        daemon.close()
    assert english["warnings"][0].startswith("the LED strip is not working (no /dev/spidev0.0): check its power")
    assert italian["warnings"][0].startswith("la striscia LED non funziona (no /dev/spidev0.0): controlla")
    assert refused == {"ok": False, "error": "the language is one of en, it, not 'de'"}
    _print_status(italian, "it")
    printed = capsys.readouterr().out
    assert printed.startswith("pi-table ") and " (Nome in codice), " in printed  # the game by its name, not its id
    assert "\nstato scheda touch: in simulazione, striscia LED: in simulazione, " in printed and "suono: " in printed
    assert not re.search(r"(stato |, )(touch|leds|screen|buttons|sound|companion|fleet): ", printed)
    assert "gioca: rossa, fase indizio" in printed or "gioca: blu, fase indizio" in printed
    assert "\ngriglia " in printed and "! la striscia LED non funziona" in printed


def test_the_history_says_how_each_game_ended_in_the_language_asked(tmp_path):
    """The staff page's history and ``pi-table history`` ask the running table with their language."""

    from pi_table.engine import Guess

    (tmp_path / "config.toml").write_text('[web]\nenabled = false\n[paths]\njournal_dir = "journal"\n'
                                          'socket = "sock"\nsocket_group = ""\n')
    daemon = service_daemon(tmp_path / "config.toml")
    try:
        assassin = str(daemon.session.grid.key).index("A")
        daemon.session.submit(Guess(assassin))  # the loop is not running: straight to the game
        italian = daemon.answer({"command": "history", "lang": "it"})["games"]
        english = daemon.answer({"command": "history"})["games"]
    finally:
        daemon.close()
    assert italian[0]["reason"].endswith("ha toccato l'assassino") and english[0]["reason"].endswith("touched the assassin")


def test_a_games_title_inside_a_refusal_is_said_in_the_tables_language():
    """The engine's titles are msgids: "Codenames (cooperative)" inside an Italian sentence was English."""
    from pi_table.engine import InvalidKey, Rules, make_game

    with pytest.raises(InvalidKey) as refused:
        make_game(Rules(game="codenames-coop")).start(None)
    assert str(refused.value) == "a Codenames (cooperative) game starts on a key"
    assert i18n.say(refused.value.phrase, "it") == "una partita di Nome in codice (in cooperativa) inizia con una chiave"
