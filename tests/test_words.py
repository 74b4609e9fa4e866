"""Words on the cards, in simulation: the shipped lists, a café's own file, the deal, and each
surface that shows them (terminal, window, render, script JSON, the spectator page)."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import pytest

from pi_table.cli import main
from pi_table.engine import Rules
from pi_table.sim.terminals import terminal
from pi_table.ui.words import LISTS, MAX_LETTERS, WORDS_PER_GAME, Cards, WordListError, load_words

from helpers import require_tools

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


@pytest.mark.parametrize("name", LISTS)
def test_each_shipped_list_is_a_few_hundred_distinct_single_words(name):
    words = load_words(name)
    assert 280 <= len(words) <= 400
    assert len({word.casefold() for word in words}) == len(words)  # no duplicates, whatever the case
    for word in words:
        assert word.isalpha() and word == word.lower() and len(word) <= MAX_LETTERS, word


def test_the_lists_differ_by_language():
    assert len(set(load_words("en")) & set(load_words("it"))) < 15  # a few loan words at most


def test_a_cafes_file_skips_comments_and_blank_lines(tmp_path):
    deck = tmp_path / "deck.txt"
    deck.write_text("# our deck\n\n" + "\n".join(f"word{chr(97 + i)}  # nice" if i == 0 else f"card{chr(97 + i)}"
                                                for i in range(26)) + "\n\n", encoding="utf-8")
    words = load_words(str(deck))
    assert len(words) == 26 and words[0] == "worda" and "carda" not in words


@pytest.mark.parametrize("text, message", [
    ("a\nb\nc\n", "3 distinct words; a game needs 25"),
    ("\n".join(f"w{i}" for i in range(24)) + "\nw1\n", "24 distinct words; a game needs 25"),
    ("\n".join(f"w{i}" for i in range(30)) + "\nextraordinarilylongword\n",
     "line 31: a card's word has at most 20 characters; this one has 23"),
    ("\n".join(f"w{i}" for i in range(30)) + "\ntwo words\n", "line 31: one word a line is expected (or words a clue "
     "cannot tell apart, joined by ' = '); this line has 2"),
    ("\n".join(f"w{i}" for i in range(30)) + "\nnube = \n", "line 31: words a clue cannot tell apart are two or more, "
     "joined by ' = '"),
    ("\n".join(f"w{i}" for i in range(23)) + "\nw23 = w24\n", "24 distinct words; a game needs 25"),  # alike: one
])
def test_a_bad_file_is_refused_naming_the_file_and_line(tmp_path, text, message):
    deck = tmp_path / "deck.txt"
    deck.write_text(text, encoding="utf-8")
    with pytest.raises(WordListError) as caught:
        load_words(str(deck))
    assert str(deck) in str(caught.value) and message in str(caught.value)


# --- words a clue cannot tell apart, and the game's own (issue 53) -----------------------------------


def test_a_grid_never_holds_two_words_a_clue_cannot_tell_apart(tmp_path):
    """Before: nube and nuvola were dealt on one grid. Words a clue cannot tell apart are written
    on one line joined by ' = ' (a group), and a deal takes at most one of each group."""
    deck = tmp_path / "deck.txt"
    deck.write_text("sasso = pietra = roccia\nnube = nuvola\n" + "\n".join(f"w{i}" for i in range(23)) + "\n",
                    encoding="utf-8")  # 25 that a clue tells apart: every deal takes one of each group
    words = load_words(str(deck))
    assert {"sasso", "pietra", "roccia", "nube", "nuvola"} <= set(words)
    assert set(words.alike) == {frozenset({"sasso", "pietra", "roccia"}), frozenset({"nube", "nuvola"})}
    for seed in range(200):
        dealt = Cards(words, random.Random(seed)).deal("g")
        assert len(dealt) == WORDS_PER_GAME and len(set(dealt)) == WORDS_PER_GAME
        assert all(len(group & set(dealt)) <= 1 for group in words.alike), dealt


@pytest.mark.parametrize("name, groups", [
    ("it", [{"nube", "nuvola"}, {"sasso", "pietra", "roccia"}, {"pila", "batteria"}]),  # pila, batteria: issue 63
    ("en", [{"rock", "stone"}]),
])
def test_the_shipped_lists_name_their_synonyms_and_no_deal_holds_two_of_them(name, groups):
    words = load_words(name)
    assert all(frozenset(group) in words.alike for group in groups)
    cards = Cards(words, random.Random(3))
    for game in range(500):
        dealt = set(cards.deal(f"g{game}"))
        assert all(len(group & dealt) <= 1 for group in words.alike), sorted(dealt)


def test_a_deal_without_alike_words_is_the_deal_it_was():
    """A deck without groups deals as before the groups: the same seed, the same words."""
    words = tuple(f"w{i}" for i in range(60))
    assert Cards(words, random.Random(5)).deal("g") == tuple(random.Random(5).sample(words, WORDS_PER_GAME))


def glossary_words(lang: str) -> set[str]:
    """Each word of the grid games' terms in docs/dev/glossary.md (English or Italian), as the
    table and the books say them: "key card" gives key and card, "capo dell'agenzia" capo."""
    from helpers import ROOT

    table = (ROOT / "docs" / "dev" / "glossary.md").read_text(encoding="utf-8").split("## The terms", 1)[1]
    found = set()
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("English", "---") and cells[4] != "Codex":
            found |= set(re.findall(r"[a-zàèéìòù]+", re.sub(r"\([^)]*\)", "", cells[0 if lang == "en" else 1]).lower()))
    return found


@pytest.mark.parametrize("name", LISTS)
def test_the_shipped_lists_avoid_the_games_own_words(name):
    """A card called squadra, carta, capo or chiave (team, card, spymaster, key) makes the table's
    own talk a clue: the decks hold none of the words of the grid games' glossary."""
    assert glossary_words(name) >= ({"team", "card", "key"} if name == "en" else {"squadra", "carta", "capo", "chiave"})
    assert sorted(set(load_words(name)) & glossary_words(name)) == []


def test_an_unreadable_file_is_refused(tmp_path):
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(WordListError, match="latin1.txt.*UTF-8"):
        load_words(str(tmp_path / "latin1.txt"))
    with pytest.raises(WordListError, match="missing.txt.*'en', 'it' or a file"):
        load_words(str(tmp_path / "missing.txt"))


def test_the_cli_exits_2_on_a_bad_word_list(tmp_path, capsys):
    (tmp_path / "short.txt").write_text("one\ntwo\n", encoding="utf-8")
    assert main(["sim", "--words", str(tmp_path / "short.txt"), "--script", "-", "--json"]) == 2
    assert "short.txt" in capsys.readouterr().err


def test_a_deal_is_25_words_reproduced_by_the_seed_and_new_for_a_new_game():
    words = load_words("en")
    first, again = Cards(words, random.Random(7)), Cards(words, random.Random(7))
    dealt = first.deal("game-1")
    assert len(dealt) == WORDS_PER_GAME == len(set(dealt)) and set(dealt) <= set(words)
    assert again.deal("game-1") == dealt
    assert first.deal("game-1") == dealt  # the same game shows the same words
    second = first.deal("game-2")
    assert second != dealt
    assert first.deal("game-1") == dealt  # undo of the new game: its words come back


def script_json(tmp_path, lines, *options):
    script = tmp_path / "s.txt"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--script", str(script), "--json", *options],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_the_script_json_carries_the_words_and_a_new_game_deals_new_ones(tmp_path):
    steps = script_json(tmp_path, ["touch 3", "new-game"], "--seed", "5", "--words", "it")
    assert len(steps[0]["words"]) == 25 and set(steps[0]["words"]) <= set(load_words("it"))
    assert steps[1]["words"] == steps[0]["words"]
    assert steps[2]["words"] != steps[0]["words"]
    assert script_json(tmp_path, ["touch 3", "new-game"], "--seed", "5", "--words", "it") == steps
    assert all("words" not in step for step in script_json(tmp_path, ["touch 3"], "--seed", "5"))


def test_the_terminal_lists_the_words_under_the_grid_and_marks_the_ones_shown(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("clue 2\ntouch 3\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--script", str(script), "--key", KEY,
                          "--words", "en", "--seed", "1", "--color", "never"],
                         capture_output=True, text=True, check=True).stdout
    words = script_json(tmp_path, ["clue 2", "touch 3"], "--key", KEY, "--words", "en", "--seed", "1")[0]["words"]
    last = out.rsplit("> touch 3", 1)[1]
    for cell, word in enumerate(words):
        tag = "RR" if cell == 3 else f"{cell:02d}"
        assert f"{tag} {word}" in last
    lines = last.splitlines()
    listed = lines[lines.index("  WORDS (operatives)") + 1:][:5]
    assert max(map(len, words)) > 10 or max(map(len, listed)) <= 80
    assert [len(line.split()) for line in listed] == [10] * 5  # a line per row: five numbers, five words
    plain = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--script", str(script), "--key", KEY,
                            "--seed", "1", "--color", "never"], capture_output=True, text=True, check=True).stdout
    assert not any(word in plain for word in words if len(word) > 3)


def test_the_interactive_terminal_deals_new_words_for_a_new_game_and_undo_brings_the_old_ones_back():
    from pi_table.engine import make_game
    from pi_table.sim.terminal import Painter, interactive
    from pi_table.table import Session
    from pi_table.table.input import HOLD_MIN_S, InputSettings

    rules = Rules()
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY))
    cards = Cards(load_words("en"), session.rng)
    typed, out = iter(["clue 1", "new-game", "y", "undo"]), []

    def read(prompt):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    interactive(session, read, out.append, Painter(False), terminal, settings=InputSettings(hold_s=HOLD_MIN_S, stuck_s=5),
                cards=cards)
    screens = [text for text in out if "WORDS (operatives)" in text]
    first, dealt_again, brought_back = screens[0], screens[-2], screens[-1]
    first_words = cards.deal(session.id)  # the game brought back is the first one
    assert all(f"{cell:02d} {word}" in first for cell, word in enumerate(first_words))
    assert sum(word in dealt_again for word in first_words) < 10  # a new game, new words
    assert all(f"{cell:02d} {word}" in brought_back for cell, word in enumerate(first_words))


def test_the_window_shows_the_words_it_deals(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    from pi_table.engine import make_game
    from pi_table.sim.window import Window, cell_rects
    from pi_table.table import Session
    from pi_table.table.input import InputSettings

    from helpers import wait_for

    rules = Rules()
    for cards in (None, Cards(load_words("it"), random.Random(2))):
        window = Window(Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY)),
                        InputSettings(hold_s=0.05), cards=cards)
        try:
            wait_for(lambda w=window: w.leds.latest.changed.is_set() and w.screen.latest.changed.is_set(), "shown")
            window.draw()
            x, y = cell_rects()[12].center
            above_the_letters = window.surface.get_at((x, y - window.small.get_height() // 2 - 1))[:3]
            assert (above_the_letters == (15, 15, 18)) == (cards is not None)  # the word's plate, only with words
            assert window.screen.words == (None if cards is None else cards.deal(window.loop.session.id))
        finally:
            window.close()


def test_the_window_draws_each_word_on_its_cell(monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    from pi_table.hal import LedFrame
    from pi_table.sim.window import cell_rects, draw_grid

    pygame.font.init()
    font = pygame.font.Font(None, 22)
    lit = [(200, 30, 30)] * 5 + [(30, 60, 200)] * 5 + [(200, 180, 120)] * 5 + [(120, 40, 140)] * 5 + [(0, 0, 0)] * 5
    frame = LedFrame(cells=tuple(lit), edge=())
    bare, worded = pygame.Surface((480, 480)), pygame.Surface((480, 480))
    draw_grid(bare, frame, font)
    draw_grid(worded, frame, font, tuple(f"w{'o' * (cell % 9)}rd" for cell in range(25)))
    for cell, rect in enumerate(cell_rects()):
        middle = pygame.Rect(rect.x + 4, rect.centery - 8, rect.w - 8, 16)
        changed = sum(bare.get_at((x, y)) != worded.get_at((x, y)) for x in range(middle.left, middle.right, 2)
                      for y in range(middle.top, middle.bottom, 2))
        assert changed > 20, cell  # the word's plate and letters, on every reveal colour


def test_render_writes_the_words_into_the_pngs(tmp_path):
    pytest.importorskip("pygame")
    for name, options in (("plain", []), ("words", ["--words", "en"])):
        assert main(["render", "--key", KEY, "--seed", "2", "--out", str(tmp_path / name), *options]) == 0
    plain = (tmp_path / "plain" / "grid.png").read_bytes()
    assert (tmp_path / "words" / "grid.png").read_bytes() != plain
    # the key beside the grid carries the words too, so the two read alike
    assert (tmp_path / "words" / "screen.png").read_bytes() != (tmp_path / "plain" / "screen.png").read_bytes()


CHROMIUM = "/usr/bin/chromium"


@pytest.mark.browser
def test_the_spectator_page_shows_the_words_on_the_cards(tmp_path):
    require_tools(CHROMIUM)
    playwright_api = pytest.importorskip("playwright.sync_api")
    from pi_table.engine import make_game, parse_action
    from pi_table.web import Companion, Tokens, codenames_snapshot

    game = make_game(Rules())
    state = game.apply(game.apply(game.start(game.parse_key(KEY)), parse_action("clue 1")), parse_action("touch 3"))
    words = Cards(load_words("it"), random.Random(4)).deal("g1")
    tokens = Tokens(b"s" * 32)
    companion = Companion("127.0.0.1", 0)
    companion.start()
    try:
        companion.publish(codenames_snapshot("g1", game.spymaster_view(state), tokens, words))
        with playwright_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.goto(companion.base_url + "/")
            page.wait_for_selector(".grid .cell.R")
            cells = page.locator(".grid .cell")  # in the order shown: each says which cell it is
            shown = {int(cells.nth(n).get_attribute("data-cell")): cells.nth(n).inner_text().split("\n")[-1]
                     for n in range(25)}
            assert [shown[cell] for cell in range(25)] == list(words)
            assert page.locator(".cell.hidden").count() == 24  # the words say nothing of the key
            page.screenshot(path=str(tmp_path / "board.png"))
            browser.close()
    finally:
        companion.stop()
    assert "words" not in codenames_snapshot("g1", game.spymaster_view(state), tokens).public


@pytest.mark.daemon
def test_a_simulated_daemon_puts_the_configured_words_on_the_spectator_page(tmp_path):
    import urllib.request

    from pi_table.sim.systemd import FakeSystemd

    from helpers import wait_for

    config = tmp_path / "config.toml"
    config.write_text('[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                      'socket_group = ""\n[sim]\nwords = "it"\n', encoding="utf-8")
    systemd = FakeSystemd(["--hal", "sim", "--config", str(config)])
    systemd.start()
    try:
        def status():
            out = subprocess.run([sys.executable, "-m", "pi_table", "status", "--json", "--config", str(config)],
                                 capture_output=True, text=True, timeout=30).stdout
            return json.loads(out) if out else {}

        wait_for(lambda: status().get("health", {}).get("companion") == "ok", "the companion up")
        with urllib.request.urlopen(status()["companion"] + "/api/public", timeout=5) as answer:
            public = json.loads(answer.read())
        assert len(public["words"]) == 25 and set(public["words"]) <= set(load_words("it"))
    finally:
        systemd.close()


def test_a_bad_word_list_in_the_configuration_names_the_file_and_key(tmp_path):
    from pi_table.config import ConfigError, parse_config

    (tmp_path / "deck.txt").write_text("one\ntwo\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"config.toml: sim.words: .*deck.txt: 2 distinct words"):
        parse_config('[sim]\nwords = "deck.txt"\n', tmp_path / "config.toml")
    assert parse_config("", tmp_path / "config.toml").words is None


def test_alias24s_dark_cell_shows_no_word(tmp_path):
    pygame = pytest.importorskip("pygame")
    from pi_table.sim.window import cell_rects

    key = "RRRRRRRRRBBBBBBBBNNNNNNA."
    options = ["--game", "alias24", "--dark-cell", "24", "--key", key, "--seed", "2"]
    words = script_json(tmp_path, ["clue 1"], *options, "--words", "en")[0]["words"]
    out = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--script", str(tmp_path / "s.txt"), *options,
                          "--words", "en", "--color", "never"], capture_output=True, text=True, check=True).stdout
    listed = out.split("WORDS (operatives)", 1)[1]
    assert f"23 {words[23]}" in listed and f" {words[24]}" not in listed
    for name, extra in (("plain", []), ("words", ["--words", "en"])):
        assert main(["render", *options, "--out", str(tmp_path / name), *extra]) == 0
    plain, worded = (pygame.image.load(str(tmp_path / name / "grid.png")) for name in ("plain", "words"))
    dark, lit = cell_rects()[24], cell_rects()[23]
    assert plain.get_at(dark.center) == worded.get_at(dark.center)
    assert plain.get_at(lit.center) != worded.get_at(lit.center)
