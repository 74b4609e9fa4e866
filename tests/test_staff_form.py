"""The staff page's settings form and its rough edges: the form is described by the schema (every
key a label in words, a group, its choices and range from where the checker takes them), a refused
save names the key at fault, and in Debian's Chromium at phone size (390 x 844), in English and
Italian: the form, the headline, the board's cell numbers, the history and the new-game options."""

from __future__ import annotations

import re

import pytest

from pi_table.config import BY_KEY, OPTIONS, build, defaults
from pi_table.config.schema import GROUPS, LED_BACKENDS, SECURITY_UPDATES, VIDEO_DRIVERS, form_field
from pi_table.drivers.settings import ORDERS, PINS
from pi_table.engine.games import NAMES, choices
from pi_table.engine.rules import NUKE_MODES, SETUPS
from pi_table.engine.views import LANGUAGES
from pi_table.ui.mounting import PANELS, ROTATIONS
from pi_table.ui.orientation import reading_order
from pi_table.web import staff_words

from helpers_games import dealt_key
from helpers_staff import OWNER_PASSPHRASE, Staff
from helpers_staff import STAFF_PIN as PIN
from helpers_tables import StaffTable as InProcessTable

CHOICES = {"game.game": NAMES, "game.language": LANGUAGES, "game.nuke": NUKE_MODES, "game.setup": SETUPS,
           "leds.backend": LED_BACKENDS, "leds.order": ORDERS, "screen.panel": tuple(PANELS),
           "screen.rotation": ROTATIONS, "screen.panel_rotation": ROTATIONS, "leds.pin": tuple(sorted(PINS)),
           "screen.video_driver": VIDEO_DRIVERS, "system.security_updates": SECURITY_UPDATES}
"""Every key the checker holds to a fixed set, and the set it takes it from."""
RANGED = {"game.hold_s", "timer.length_s", "leds.brightness", "leds.gamma", "screen.width", "screen.height", "web.port",
          "web.tls_port", "web.request_s", "staff.session_min", "paths.keep_games", "paths.keep_mb", "sound.volume",
          "system.security_hour", "fleet.dashboard_port"} | {f"game.{choice.name}" for choice in choices() if choice.span}
"""Every key the checker holds to a range of numbers: the table's, and each game's options that take
a span of numbers, as the registry describes them (the guide's game's timer tokens among them)."""


def test_every_key_has_a_label_in_words_and_a_group_an_owner_knows():
    for option in OPTIONS:
        assert option.label and option.label[0].isupper() and "_" not in option.label, option.key
        assert option.label != option.name and option.group in GROUPS, option.key
    groups = {option.group for option in OPTIONS}
    assert groups == set(GROUPS)  # no group empty
    advanced = {option.key for option in OPTIONS if option.group == "advanced"}
    assert {"touch.port", "leds.pin", "buttons.end_turn", "paths.socket_group", "screen.panel", "leds.dma"} <= advanced
    assert {BY_KEY[key].group for key in ("timer.length_s", "game.game", "game.hold_s")} == {"game"}
    assert {BY_KEY[key].group for key in ("leds.brightness", "game.colour_blind")} == {"lights"}
    assert (BY_KEY["sound.volume"].group, BY_KEY["web.url"].group, BY_KEY["fleet.broker"].group) == (
        "sound", "phones", "fleet")


def test_the_choices_are_the_checkers_own_sets_and_only_those_keys_have_choices():
    assert {option.key for option in OPTIONS if option.choices} == set(CHOICES)
    for key, allowed in CHOICES.items():
        assert tuple(BY_KEY[key].choices) == tuple(allowed), key
    assert BY_KEY["game.game"].choices is NAMES and BY_KEY["leds.order"].choices is ORDERS  # one source, no copy
    assert "codex" in BY_KEY["game.game"].choices
    for key in CHOICES:  # every choice builds; none is offered that the checker would refuse
        for choice in BY_KEY[key].choices:
            values = defaults() | {key: choice}
            if key == "screen.panel":
                values["screen.panel_rotation"] = 90 if PANELS[str(choice)] == "portrait" else 0
            if key == "screen.panel_rotation":
                values["screen.panel"] = "hdmi" if choice in (0, 180) else "touch-display-2-7"
            build(values, None)


def _builds(key: str, value: float) -> bool:
    """Whether the checker takes ``value`` for ``key``, the keys it goes with set to fit."""
    values = defaults() | {key: value}
    if key == "timer.length_s":
        values["timer.warn_s"] = 0
    if key in ("screen.width", "screen.height"):
        values |= {"screen.width": value, "screen.height": value}
    if key == "fleet.dashboard_port":  # the dashboard reads the table's broker
        values["fleet.broker"] = "mqtts://bar-1@broker.cafe.lan"
    try:
        build(values, None)
    except ValueError:
        return False
    return True


def test_the_ranges_the_form_shows_are_the_ones_the_checker_holds_to():
    assert {option.key for option in OPTIONS if option.range} == RANGED
    for key in RANGED:
        span = BY_KEY[key].range
        assert span is not None
        step = 1 if BY_KEY[key].kind == "int" else 0.01
        assert _builds(key, span.least) and _builds(key, span.most), key
        assert not _builds(key, span.least - step) or span.least - step == span.off, key
        assert not _builds(key, span.most + step), key
        if span.off is not None:
            assert _builds(key, span.off), key
    for option in OPTIONS:  # a number of seconds or minutes says so
        if option.name.endswith("_s") and option.kind == "number":
            assert option.unit == "seconds", option.key


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_form_describes_each_key_in_the_pages_language(lang):
    said = {option.key: staff_words.form_field(form_field(option, option.default), lang) for option in OPTIONS}
    hints = {"en": {"web.request_s": "seconds, 2 to 120", "timer.length_s": "seconds, 10 to 3600, or 0: off",
                    "leds.brightness": "0 to 1", "staff.session_min": "minutes, 5 to 1440", "timer.warn_s": "seconds",
                    "game.game": ""},
             "it": {"web.request_s": "secondi, da 2 a 120", "timer.length_s": "secondi, da 10 a 3600, o 0: spento",
                    "leds.brightness": "da 0 a 1", "staff.session_min": "minuti, da 5 a 1440", "timer.warn_s": "secondi",
                    "game.game": ""}}[lang]
    assert {key: said[key]["hint"] for key in hints} == hints
    labels = {"en": ("Turn timer", "Control socket group", "Touch hold time"),
              "it": ("Timer del turno", "Gruppo del socket di controllo", "Durata del tocco")}[lang]
    assert (said["timer.length_s"]["label"], said["paths.socket_group"]["label"], said["game.hold_s"]["label"]) == labels
    games = {choice["value"]: choice["label"] for choice in said["game.game"]["choices"]}
    assert games["codex"] == "Codex" and games["codenames"] == {"en": "Codenames", "it": "Nome in codice"}[lang]
    assert [choice["label"] for choice in said["game.language"]["choices"]] == ["English", "Italiano"]
    assert said["game.dark_cell"]["range"] == {"min": 0, "max": 24, "off": None}


def checkers(answer: dict) -> list[dict]:
    """A refusal's problems as the checker said them (the owner's words beside them: test_staff_results.py)."""
    return [{name: problem[name] for name in ("key", "error", "problem")} for problem in answer["problems"]]


def test_a_refused_save_names_the_key_of_each_problem_and_keeps_the_whole_sentence(tmp_path):
    table = InProcessTable(tmp_path, dealt_key())
    try:
        staff_phone = Staff(table.base)
        staff_phone.login()
        for lang, too_short in [("en", "turn timer length is 0 (off) or 10 to 3600 seconds, not 5"),
                                ("it", "la durata del timer del turno è 0 (spento) o da 10 a 3600 secondi, non 5")]:
            staff_phone.lang = lang
            status, answer = staff_phone.call("POST", "/staff/api/config", {"changes": {"timer.length_s": 5}})
            whole = f"{table.config}: timer.length_s: {too_short}"
            assert status == 400 and answer["error"] == whole
            assert checkers(answer) == [{"key": "timer.length_s", "error": whole, "problem": too_short}]
        staff_phone.lang = "en"
        status, answer = staff_phone.call("POST", "/staff/api/config", {"changes": {"game.game": "chess"}})
        assert status == 400 and checkers(answer) == [{
            "key": "game.game", "error": f"{table.config}: game.game: game is one of {', '.join(NAMES)}, not 'chess'",
            "problem": f"game is one of {', '.join(NAMES)}, not 'chess'"}]
        status, answer = staff_phone.call("POST", "/staff/api/config", {"changes": {"sound.loudness": 1}})
        assert status == 400 and answer["problems"][0]["key"] == "sound.loudness"  # no field: the message says it
        status, answer = staff_phone.call("POST", "/staff/api/config",
                                          {"changes": {"timer.length_s": 30, "timer.warn_s": 40}})
        assert status == 400 and [problem["key"] for problem in answer["problems"]] == ["timer.length_s"]
        assert "timer.warn_s" in answer["problems"][0]["problem"]  # two keys together: the whole sentence beside
    finally:
        table.close()


def test_the_history_leaves_out_games_dealt_over_before_their_first_move(tmp_path):
    table = InProcessTable(tmp_path, dealt_key())
    try:
        phone = Staff(table.base)
        phone.login()
        table.guess(table.key.index("A"))  # a game played to its end
        assert phone.call("POST", "/staff/api/new-game", {"game": "alias24", "options": {}})[0] == 200
        assert phone.call("POST", "/staff/api/end-game")[0] == 200  # ended before anyone played
        assert phone.call("POST", "/staff/api/end-game")[0] == 200
        status, answer = phone.call("GET", "/staff/api/history")
        games = answer["games"]
        assert status == 200 and [(game["game"], game["moves"], game["over"]) for game in games] == [
            ("alias24", 0, False), ("codenames", 1, True)]  # the game in play, and the one played
        assert games[0]["id"] == table.daemon.session.id
        status, text = phone.call("GET", "/staff/api/history.csv")
        assert len(text.strip().splitlines()) == 3  # a header and the same two
    finally:
        table.close()


# --- the page in a browser -------------------------------------------------------------------------

WORDS = {
    "en": {"save": "Save and apply", "timer": "Turn timer", "hint": "seconds, 10 to 3600, or 0: off",
           "too_short": "5 refused: it takes seconds, 10 to 3600, or 0: off", "game": "Game",
           "advanced": "Advanced", "codenames": "Codenames", "keep": "0 refused: it takes games, 1 to 100000",
           "in_play": "in play", "turn": "turn", "owner": "changing Finished games kept needs the owner's passphrase"},
    "it": {"save": "Salva e applica", "timer": "Timer del turno", "hint": "secondi, da 10 a 3600, o 0: spento",
           "too_short": "5 rifiutato: accetta secondi, da 10 a 3600, o 0: spento", "game": "Partita",
           "advanced": "Avanzate", "codenames": "Nome in codice", "keep": "0 rifiutato: accetta partite, da 1 a 100000",
           "in_play": "in corso", "turn": "turno",
           "owner": "per cambiare Partite finite conservate serve la frase segreta del gestore"},
}


def _logged_in(browser, table, lang):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  locale="en-GB" if lang == "it" else "it-IT")
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{table.base}/staff")
    page.fill("#pin", PIN)
    page.click("#login button")
    return context, page


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_settings_form_on_a_phone_labels_choices_ranges_the_owners_keys_and_a_refusal_beside_its_field(
        tmp_path, browser, lang):
    from playwright.sync_api import expect

    words = WORDS[lang]
    table = InProcessTable(tmp_path, dealt_key(), lang)
    context, page = _logged_in(browser, table, lang)
    try:
        expect(page.locator("#config details[data-group] > summary")).to_have_text(
            [{"en": "Game", "it": "Partita"}[lang], {"en": "Lights", "it": "Luci"}[lang],
             {"en": "Sound", "it": "Suono"}[lang], {"en": "Phones", "it": "Telefoni"}[lang],
             {"en": "Fleet", "it": "Flotta"}[lang], words["advanced"]])
        labels = page.locator("#config .field > label, #config .field .check label").all_text_contents()
        assert len(labels) == len(OPTIONS)
        assert not [label for label in labels if re.fullmatch(r"[a-z_]+", label) or "_" in label]  # words, not keys
        timer = page.locator('#config .field[data-key="timer.length_s"]')
        expect(timer.locator("label")).to_have_text(words["timer"])
        expect(timer.locator(".hint")).to_have_text(words["hint"])
        expect(timer.locator(".key")).to_have_text("timer.length_s")  # small print, for support
        field = timer.locator("input")
        assert (field.get_attribute("type"), field.get_attribute("min"), field.get_attribute("max")) == (
            "number", "0", "3600")
        game = page.locator('#config select[name="game.game"] option')
        expect(game).to_have_count(len(NAMES))
        assert "Codex" in game.all_text_contents() and words["codenames"] in game.all_text_contents()
        expect(page.locator('#config select[name="game.language"] option')).to_have_text(["English", "Italiano"])
        expect(page.locator('#config select[name="screen.rotation"] option')).to_have_count(len(ROTATIONS))

        page.click('#config details[data-group="game"] > summary')
        field.fill("5")
        page.click(f"#config button:text('{words['save']}')")
        problem = timer.locator(".problem")
        expect(problem).to_have_text(words["too_short"])
        expect(problem).to_be_in_viewport()
        expect(field).to_be_focused()
        expect(field).to_have_value("0")  # the value in force: the refusal beside it says what was refused
        expect(page.locator("#message")).to_be_hidden()  # nothing refused that has no field
        assert "length_s = 5" not in table.config.read_text()

        field.fill("0")  # the other problem, in a group still closed, far below the Save button's group
        keep = page.locator('#config .field[data-key="paths.keep_games"]')
        expect(keep).to_be_hidden()
        page.evaluate("window.scrollTo(0, 0)")
        keep.locator("input").evaluate("(input) => { input.value = '0'; }")
        page.click(f"#config button:text('{words['save']}')")
        expect(page.locator("#message")).to_contain_text(words["owner"])  # paths.*: the owner's keys
        expect(page.locator("#owner-passphrase")).to_be_focused()
        page.fill("#owner-passphrase", OWNER_PASSPHRASE)
        page.click("#owner-form button")  # given: the save is made again, as the owner
        expect(keep.locator(".problem")).to_have_text(words["keep"])
        expect(keep.locator(".problem")).to_be_in_viewport()
        expect(keep.locator("input")).to_be_focused()
        expect(problem).to_be_hidden()  # the field put right has no problem beside it any more
    finally:
        context.close()
        table.close()


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_headline_the_cell_numbers_the_history_and_the_new_game_options_on_a_phone(tmp_path, browser, lang):
    from playwright.sync_api import expect

    words = WORDS[lang]
    table = InProcessTable(tmp_path, dealt_key(), lang)
    context, page = _logged_in(browser, table, lang)
    try:
        line = page.locator("#game-line")
        expect(line).to_contain_text(f"{words['codenames']} · {words['turn']}")
        assert table.daemon.session.id not in line.inner_text()  # the game by its name; its id is small print
        expect(page.locator("#game-id")).to_have_text(table.daemon.session.id)
        cells = page.locator("#board span")
        expect(cells).to_have_text([str(cell) for cell in reading_order()])  # the table's numbers, in the order shown
        for cell in (0, 12, 24):  # readable: big enough, and a colour of its own on the card's
            style = cells.nth(cell).evaluate("(cell) => { const s = getComputedStyle(cell); "
                                             "return [parseFloat(s.fontSize), s.color, s.backgroundColor]; }")
            assert style[0] >= 14 and style[1] != style[2]

        table.guess(table.key.index("A"))  # a game played to its end: a row with a duration
        page.select_option("#new-game-game", "alias24")
        page.click("#new-game summary")
        shown = page.locator("#new-game details label:visible")
        expect(shown.locator("select, input")).to_have_count(3)
        for name in ("nuke", "dark_cell", "clue_required"):
            expect(page.locator(f"#new-game [name={name}]")).to_be_visible()
        for name in ("three_player", "setup", "sealed_votes"):
            expect(page.locator(f"#new-game [name={name}]")).to_be_hidden()
        expect(page.locator("#new-game select[name=dark_cell] option")).to_have_count(25)
        expect(page.locator("#new-game select[name=dark_cell] option:checked")).to_have_text("12")  # the centre, numbered as the board is
        page.select_option("#new-game select[name=dark_cell]", "0")
        page.click("#new-game button[type=submit]")
        expect(line).to_contain_text("Alias 24")
        assert table.daemon.session.rules.game == "alias24" and table.daemon.session.rules.dark_cell == 0
        page.select_option("#new-game-game", "codex")
        expect(shown.locator("select, input")).to_have_count(1)
        expect(page.locator("#new-game [name=sealed_votes]")).to_be_visible()
        page.select_option("#new-game-game", "codenames")
        for name in ("clue_required", "three_player", "setup"):
            expect(page.locator(f"#new-game [name={name}]")).to_be_visible()
        expect(shown.locator("select, input")).to_have_count(3)

        page.click("#end-game")  # the Alias 24 game, not played: no row of its own
        expect(page.locator("#message")).to_have_text({
            "en": "Ended: the game stays in the history, unfinished, and a new one is dealt.",
            "it": "Chiusa: la partita resta nello storico, non finita, e ne è preparata una nuova."}[lang])
        rows = page.locator("#history tr")
        expect(rows).to_have_count(3)  # a header, the game in play and the one played
        expect(rows.nth(1)).to_contain_text(words["in_play"])
        assert "0" not in [row.locator("td").nth(3).inner_text() for row in rows.all()[2:]]
        durations = page.locator("#history td.duration:text('min')")  # the game in play has no duration yet
        expect(durations).to_have_count(1)
        # scrolled to and measured in one call: the page redraws the history when its reload after
        # "End the game" comes back, and a cell held from one call to the next may be gone by then
        boxes = page.evaluate(
            "() => [...document.querySelectorAll('#history td.duration')].filter((cell) => cell.textContent.endsWith('min'))"
            ".map((cell) => { cell.scrollIntoView({block: 'nearest', inline: 'nearest'}); "
            "const range = document.createRange(); range.selectNodeContents(cell); "
            "const r = range.getBoundingClientRect(); const s = cell.closest('.scroll').getBoundingClientRect(); "
            "return [cell.textContent, [r.left, r.right, s.left, s.right, cell.scrollWidth, cell.clientWidth]]; })")
        assert len(boxes) == 1
        for text, box in boxes:
            left, right, scroll_left, scroll_right, width, room = box
            assert text.endswith("min")
            assert scroll_left <= left and right <= scroll_right <= 390 and width <= room, (text, box)
        overflow = page.evaluate("(() => { const s = document.querySelector('#history').closest('.scroll'); "
                                 "return s.scrollWidth - s.clientWidth; })()")
        assert overflow <= 0  # the whole row fits the phone: nothing to scroll sideways to
    finally:
        context.close()
        table.close()
