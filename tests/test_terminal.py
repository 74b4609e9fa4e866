"""The interactive terminal simulator, driven as a person would type at it."""

from __future__ import annotations

import random
import re

import pytest

from pi_table.engine import Rules, make_game
from pi_table.engine.game import Mark
from pi_table.engine.games import names
from pi_table.sim.terminal import Painter, help_text, interactive
from pi_table.sim.terminals import terminal
from pi_table.table import Session
from pi_table.table.input import HOLD_MIN_S, InputSettings
from pi_table.table.timer import TimerSettings

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
QUICK = InputSettings(hold_s=HOLD_MIN_S, stuck_s=5)  # the shortest hold the table takes


def flat(text):
    """The terminal's text with its lines unwrapped: a sentence reads whole however the 80
    columns broke it."""
    return " ".join(text.split())


def session_output(lines, color=False, rules=Rules(), key=KEY, lang="en",
                   settings=QUICK, timer=None):
    game = make_game(rules)
    session = Session(rules, rng=random.Random(1), key=game.parse_key(key))
    typed = iter(lines)
    out = []

    def read(prompt):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    interactive(session, read, out.append, Painter(color, lang), terminal, settings=settings, timer=timer)
    return "".join(out), session


def test_shows_both_grids_and_the_turn():
    text, _ = session_output([])
    assert "TABLE (operatives)" in text and "KEY (spymasters only)" in text
    assert "RED spymaster" in text and "RED 9 agents left" in text and "BLUE 8 agents left" in text
    assert " 07 " in text  # hidden cards show their cell number on the operatives' grid
    assert "\x1b[" not in text


def test_plays_commands_and_explains_refusals():
    text, session = session_output(["clue 2", "touch 0", "touch 0", "tuch 3", "help", "quit", "touch 1"])
    assert "[RR]" in text  # the revealed card on the operatives' grid
    assert "refused: card 0 is already revealed" in text
    assert ("not a command: the commands are clue, touch, end-turn, penalty, cover, place, time-up, undo, words, "
            "told, new-game, not 'tuch'") in flat(text)  # typed, not read from a file: quoted back
    assert help_text(session.grid.game) in text
    assert session.record.moves == 2  # 'quit' stopped before the last line


def test_colour_when_asked():
    text, _ = session_output(["touch 0"], color=True)
    assert "\x1b[1;97;41m RR \x1b[0m" in text


def test_a_typed_touch_is_held_for_the_hold_time_on_the_tables_clock_not_the_typists():
    """The turn timer counts each typed touch's hold, as it counts a finger's: four touches held
    3 s each outlast a 10 s turn. The person who typed them waits for none (this test takes a
    fraction of a second, where holding them for real took 12)."""
    text, session = session_output(["touch 0", "touch 1", "touch 2", "touch 3"],
                                   settings=InputSettings(hold_s=3, stuck_s=600),
                                   timer=TimerSettings(length_s=10, warn_s=0, enforce=True))
    assert session.grid.state.marks[:4] == (Mark.TOUCHED,) * 4
    # red's turn ran out 10 s in, during the fourth hold: that touch was blue's
    assert text.index("RED 6 agents left") < text.index("BLUE spymaster") < text.index("touch 3 was a red agent")


def test_the_coop_rating_line_speaks_the_chosen_language():
    key = "RRRRRRRRRBBBBBBBBNNNNNNNA"
    win = ["clue unlimited"] + [f"touch {cell}" for cell in range(9)]
    text, session = session_output(win, rules=Rules(game="codenames-coop"), key=key, lang="it")
    assert session.table_view().score == 8
    assert "punteggio 8: Mi riesce molto difficile crederci." in flat(text)


ENGLISH_RUN = ["help", "clue 2", "touch 9", "touch 9", "touch 0", "bogus 3", "clue 12", "touch 99", "end-turn",
               "penalty", "cover 3", "new-game", "n", "touch 9", "touch 10", "touch 11", "touch 24"]
COMMAND_WORDS = {"clue", "touch", "end-turn", "penalty", "cover", "place", "time-up", "undo", "words", "told", "new-game", "help",
                 "quit", "unlimited", "infinity", *names(), "bogus", "Deep",
                 "Undercover", "CELLS", "TEAM", "alias", "mastermind", "asset", "file", "script",
                 "setup", "timer-enforce"}  # and Italian loan words, and the options the help names


def words_of(text):
    return set(re.findall(r"[A-Za-z][A-Za-z-]{3,}", text))


def test_under_lang_it_every_line_prompt_and_question_is_italian():
    """The same session in both languages: no word the English one printed shows in the Italian
    one, but the command words (which stay as a script takes them) and names."""
    english, _ = session_output(ENGLISH_RUN)
    italian, session = session_output(ENGLISH_RUN, lang="it")
    assert session.state.is_over  # the assassin: the game-over line was printed too
    assert "rifiutato: la carta 9 è già coperta" in italian and "[s/N]" in italian
    left = sorted(words_of(italian) & (words_of(english) - COMMAND_WORDS))
    assert left == []


def test_an_unlimited_clue_is_shown_in_the_tables_language():
    """'unlimited' is a command word only as typed: the clue it enters is shown in Italian."""
    italian, _ = session_output(["clue unlimited", "touch 0"], lang="it")
    assert "(indizio: senza limiti; tentativi liberi;" in flat(italian) and "unlimited" not in italian
    english, _ = session_output(["clue unlimited", "touch 0"])
    assert "(clue: unlimited, no limit" in flat(english)


def test_a_new_game_over_one_in_progress_is_asked_first():
    """One word loses a game in progress: the terminal asks, and undo would still bring it back."""
    text, session = session_output(["touch 0", "new-game", "n"])
    assert "a game is in progress: deal a new one over it? (undo brings it back) [y/N]" in text
    assert "the game goes on" in text and session.record.moves == 1
    text, session = session_output(["touch 0", "new-game", "y"])
    assert session.record.moves == 0 and session.replaced is not None
    text, session = session_output(["touch 24", "new-game"])  # the assassin: that game is over, nothing to ask
    assert "[y/N]" not in text and session.record.moves == 0 and not session.state.is_over


def transcript(lines, rules=Rules(), key=KEY, lang="en", color=False):
    """What a person sees: the prompts ('> ') in their place among the screens, each answer
    echoed as a terminal does."""
    game = make_game(rules)
    session = Session(rules, rng=random.Random(1), key=game.parse_key(key))
    typed = iter(lines)
    out: list[str] = []

    def read(prompt):
        out.append(prompt)
        try:
            line = next(typed)
        except StopIteration:
            raise EOFError from None
        out.append(line + "\n")
        return line

    interactive(session, read, out.append, Painter(color, lang), terminal, settings=QUICK)
    return "".join(out)


def test_the_prompt_comes_after_the_screen_a_command_redraws():
    text = transcript(["clue 1", "touch 0"])
    after_clue = text.split("> clue 1\n", 1)[1]
    assert after_clue.index("clue: 1, 2 guesses left") < after_clue.index("> ")
    after_touch = text.split("> touch 0\n", 1)[1]
    assert after_touch.index("1 guess left") < after_touch.index("> ")


def test_a_touch_prints_the_screen_once():
    text = transcript(["touch 0"])
    assert text.split("> touch 0\n", 1)[1].count("TABLE (operatives)") == 1
    text = transcript(["clue 1", "touch 0", "touch 1"])  # the turn passes on the plus-one guess
    assert text.split("> touch 1\n", 1)[1].count("TABLE (operatives)") == 1


def test_a_refusal_is_not_shown_again_after_an_accepted_command():
    text = transcript(["touch 0", "touch 0", "touch 1"])
    assert text.count("refused: card 0 is already revealed") == 1


def test_a_refusal_typed_twice_is_answered_twice():
    """Issue 50: the second of two refused commands printed nothing, as if it had not been read."""
    text = transcript(["end-turn", "end-turn", "touch 0", "touch 0", "touch 0"])
    assert text.count("refused: the red team must guess at least once before ending its turn") == 2
    assert text.count("refused: card 0 is already revealed") == 2
    for typed in text.split("> end-turn\n")[1:]:
        assert typed.split("> ", 1)[0] == "  refused: the red team must guess at least once before ending its turn\n"


def test_a_turn_that_ends_on_a_card_says_why():
    text = transcript(["clue 1", "touch 0", "touch 1", "touch 9"])
    assert "touch 1 used the clue's number and one more: the turn passes to BLUE" in text
    text = transcript(["touch 17"])
    assert "touch 17 was a bystander: the turn passes to BLUE" in text


def test_a_cover_in_the_cooperative_game_is_not_called_a_touch():
    """The issue's script: the turns ended on END TURN, then the spymaster covered an agent for
    the simulated opponent; nothing was touched, so nothing says a touch passed the turn."""
    lines = ["clue 2", "touch 0", "touch 4", "end-turn", "cover 1", "clue 3", "touch 5", "touch 10", "touch 12",
             "end-turn", "cover 3"]
    text = transcript(lines, rules=Rules(game="codenames-coop"), key="RBNBRRNBBBRBRRNNRRABNBRNN")
    assert "refused" not in text
    for cover in ("cover 1", "cover 3"):
        after = text.split(f"> {cover}\n", 1)[1].split("> ", 1)[0]
        assert "the turn passes" not in after and "used the clue" not in after, after


def test_counts_of_one_are_singular():
    text = transcript(["clue 1", "touch 0", *(f"touch {cell}" for cell in range(1, 8))])
    assert "1 guess left" in text and "1 guesses" not in text
    assert "RED 1 agent left" in text and "1 agents" not in text


def test_alias24_counts_each_teams_own_assets_and_helps_with_its_own_commands():
    """The book: 9 assets for one team, 8 for the other, and a team whose assets are all
    eliminated loses. Each team's count is its own assets left, as the spymaster screen's chips
    count them (test_alias24_the_terminal_and_the_window_count_alike); red, with 8, starts and
    eliminates blue's 9."""
    text = transcript(["help"], rules=Rules(game="alias24"), key="BBBBBBBBBRRR.RRRRRNNNNNNA")
    assert "RED 8 assets left · BLUE 9 assets left · RED started" in text
    helped = text.split("> help\n", 1)[1]
    assert "penalty" not in helped and "cover N" not in helped and "place N" not in helped
    assert "touch N" in helped and "undo" in helped


# --- the prompt as a person meets it (issue 30) ------------------------------------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def typed_at_a_terminal(keys: list[bytes], *options: str) -> str:
    """``pi-table sim`` on a pseudo-terminal, each of ``keys`` typed once the prompt is back:
    what the person sees, echo included."""
    import os
    import pty
    import re
    import select
    import sys
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: the simulator, its terminal the pty
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "pi_table", "sim", "--color", "never", "--seed", "1", *options])
    seen = b""

    def until(done, timeout=20.0):
        nonlocal seen
        end = time.monotonic() + timeout
        while not done(seen) and time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    return

    def at_prompt(out: bytes) -> bool:
        # The whole prompt, its space included, at the end of what was shown: readline may
        # redraw '> ' and the line being typed, so counting prompts could see a new one early.
        return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", out).endswith(b"> ")

    try:
        until(at_prompt)
        for key in keys:
            before = len(seen)
            os.write(fd, key)
            # A new prompt: the line was accepted (a newline after the key) and '> ' is back.
            until(lambda out, start=before: b"\n" in out[start:] and at_prompt(out[start:]))
        os.write(fd, b"quit\r")
        until(lambda out: False, timeout=3.0)
    finally:
        os.waitpid(pid, 0)
        os.close(fd)
    return seen.decode("utf-8", "replace")


def test_the_prompt_edits_its_line_and_up_brings_back_the_last_command():
    """Before: Up printed ^[[A and sent it as a command. Now readline gives the line editing
    and history: Up and Enter play 'clue 2' again (refused: the clue is in), and Left moves
    in the line ('touch 0', Left, '1': touch 10)."""
    seen = typed_at_a_terminal([b"clue 2\r", b"\x1b[A\r", b"touch 0\x1b[D1\r"])
    assert "^[[A" not in seen and "^[[D" not in seen
    assert "refused: the red team already has its clue" in flat(seen)
    assert "touch 10 was a blue agent: the turn passes to BLUE" in flat(seen)


def test_help_lists_every_command_the_game_takes():
    text = transcript(["help"])
    helped = text.split("> help\n", 1)[1]
    for command in ("clue N", "touch N", "end-turn", "penalty", "cover N", "place N", "time-up", "undo", "new-game [G]",
                    "help", "quit"):
        assert f"  {command} " in helped, command
    assert ", ".join(names()) in flat(helped)  # new-game deals every game, of every kind


def test_a_command_with_a_wrong_number_says_what_number_it_takes():
    text = transcript(["touch 99", "clue 12", "touch x", "tuch 3"])
    assert "touch N: the grid's cells are 0 to 24, not 99" in text
    assert "clue N: a clue number is 0 to 9 or unlimited, not 12" in text
    assert "touch N: the cell must be a whole number, not 'x'" in text
    assert text.count("not a command") == 1  # 'tuch' alone


def test_a_refused_touch_prints_its_refusal_not_the_board_again():
    text = transcript(["touch 0", "touch 0", "touch 1"])
    refused = text.split("> touch 0\n", 2)[2].split("> ", 1)[0]
    assert refused == "  refused: card 0 is already revealed\n"


def test_undo_says_what_it_took_back():
    text = transcript(["clue 2", "touch 0", "undo", "undo", "undo"])
    assert "undo took back: touch 0" in text and "undo took back: clue 2" in text
    assert "refused: there is nothing to undo" in text
    text = transcript(["touch 0", "new-game", "y", "undo"])
    assert "undo brought back the game the new one was dealt over" in text


def test_in_italian_the_words_the_prompts_say_are_commands():
    """The new-game question says 'annulla' for undo: typing it takes the action back."""
    text, session = session_output(["touch 0", "nuova-partita", "n", "annulla", "aiuto", "esci", "touch 1"], lang="it")
    assert "(annulla la riporta indietro) [s/N]" in flat(text)
    assert "annullato: tocca 0" in text and session.record.moves == 0
    assert "Anche in italiano:" in text and "annulla (undo)" in flat(text)
    assert "non è un comando" not in text  # and esci left before 'touch 1'


WIDE_RUNS = [
    (Rules(), KEY, ENGLISH_RUN),
    (Rules(game="alias24", nuke="mad"), "BBBBBBBBBRRR.RRRRRNNNNNNA",
     ["help", "clue 0", *(f"touch {cell}" for cell in (0, 1, 2, 3, 4, 5, 6, 7, 13, 14, 15, 16, 17, 18)), "touch 24"]),
    (Rules(game="codenames-coop"), KEY, ["help", "clue unlimited", *(f"touch {cell}" for cell in range(9))]),
    (Rules(setup="place"), KEY, ["help", "place 12", "place 0", "touch 3", "undo", "undo"]),
]


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("rules, key, lines", WIDE_RUNS)
def test_every_line_fits_80_columns(rules, key, lines, lang):
    from pi_table.sim.terminal import visible

    text = transcript(lines, rules=rules, key=key, lang=lang, color=True)
    wide = [line for line in text.splitlines() if visible(line) > 80]
    assert wide == []


def test_alias24_the_terminal_and_the_window_count_alike():
    """Alias 24's words everywhere: the key is the Masterminds'; each team's count is its own
    assets left, in the terminal as on the spymaster screen's chips the window shows."""
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from pi_table.sim.harness import SimTable
    from pi_table.ui.screens import ScreenPainter

    rules = Rules(game="alias24")
    key = "BBBBBBBBBRRR.RRRRRNNNNNNA"
    text = transcript(["touch 0"], rules=rules, key=key)
    assert "KEY (masterminds only)" in text and "spymaster" not in text.lower()
    assert "RED 8 assets left · BLUE 8 assets left · RED started" in text  # red eliminated one of blue's 9
    table = SimTable(Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(key)))
    try:
        table.do(__import__("pi_table.engine", fromlist=["Guess"]).Guess(0))
        pygame.font.init()
        texts = ScreenPainter().draw(pygame.Surface((800, 480)), table.shown, 0.0).texts
    finally:
        table.close()
    assert texts[texts.index("RED") - 1] == "8" and texts[texts.index("BLUE") - 1] == "8"


def test_the_grids_are_laid_out_by_the_one_orientation_rule():
    """As every picture of the grid (pi_table/ui/orientation.py): the operatives' edge at the
    top and marked, each row of both grids in the rule's reading order, cell 0 at the top right."""
    from pi_table.ui.orientation import reading_order

    text, _ = session_output([])
    lines = text.splitlines()
    top = next(n for n, line in enumerate(lines) if "operatives' side" in line)
    order = reading_order()
    for row in range(5):
        numbers = [int(n) for n in re.findall(r"\b(\d\d)\b", lines[top + 1 + row][:24])]
        assert numbers == list(order[row * 5:row * 5 + 5]), lines[top + 1 + row]
    assert order[4] == 0 and lines[top + 1].rstrip().endswith(KEY[0])  # cell 0's identity ends the key's top row


def test_in_italian_the_books_unlimited_clue_is_typed_in_its_words():
    """The book's 'senza limiti' clue, as the screen says it: typed 'senza-limiti' it is taken, and a
    clue that is no number says it may be (not that it must be a whole number)."""
    italian, session = session_output(["indizio senza-limiti", "tocca 0", "indizio tre"], lang="it")
    assert "(indizio: senza limiti; tentativi liberi;" in flat(italian) and session.record.moves == 2
    refused = flat(italian).split("indizio N: ", 1)[1]
    assert refused.startswith("il numero dell'indizio è un numero intero o 'senza limiti', non 'tre'")
    english, _ = session_output(["clue three"])
    assert "clue N: the clue number is a whole number or 'unlimited', not 'three'" in flat(english)


ITALIAN_RUN = ["indizio senza limiti", "penalità", "copri 13", "annulla", "copri 14", "indizio senza limiti", "tocca 10",
               "tocca 1 2", "indizio", "nuova-partita a b", "fatto"]


@pytest.mark.parametrize("rules, key, lines", [
    (Rules(), KEY, ITALIAN_RUN),
    (Rules(game="codenames-coop"), "RBNBRRNBBBRBRRNNRRABNBRNN", ["indizio 2", "tocca 0", "tocca 4", "fine-turno"])])
def test_an_italian_player_is_taught_and_answered_in_the_italian_words(rules, key, lines):
    """The book's 'indizio senza limiti' (a space, as the screen writes it) is taken; every prompt,
    refusal and answer names the commands as the Italian player types them (copri, aiuto, tocca),
    never the English a script writes. The help gives both, as do the words a mistyped one is told."""
    from pi_table.table.commands import SPOKEN

    italian, session = session_output(lines, rules=rules, key=key, lang="it")
    if rules.game == "codenames":
        assert session.record.moves == 5 and "(indizio: senza limiti; tentativi liberi;" in flat(italian)
        assert "tocca N: 'tocca' richiede un argomento" in flat(italian)
        assert "indizio N: 'indizio' richiede un argomento, un numero o 'senza limiti'" in flat(italian)
        assert "annullato: copri 13" in italian and "(copri N)" in italian
        assert "'nuova-partita' accetta al massimo un argomento" in flat(italian)
        assert flat(italian).endswith("nuova-partita (new-game), non 'fatto'")  # another game's word, as typed
    else:
        assert "per l'avversario simulato (copri N)" in flat(italian)
    assert "Scrivi 'aiuto' per i comandi." in italian
    english = set(SPOKEN["it"].values()) | {"unlimited", "infinity"}
    told = flat(italian).split("non è un comando: ")[0]  # the list a mistyped word is told gives both, on purpose
    assert sorted(set(re.findall(r"[a-z][a-z-]+", told.lower())) & english) == []


def test_in_italian_a_word_that_is_no_command_is_answered_with_the_italian_ones():
    """A mistyped word is told the commands as the prompts and the help taught them: in Italian first."""
    italian, _ = session_output(["tuch 3"], lang="it")
    said = flat(italian).split("non è un comando: ", 1)[1]
    assert said.startswith("i comandi sono indizio (clue), tocca (touch), fine-turno (end-turn),")
    assert "nuova-partita (new-game)" in said and said.split(", non ")[1].startswith("'tuch'")


def test_each_games_italian_help_lists_the_italian_words_of_that_games_commands():
    from pi_table.sim.codex_terminal import help_text as codex_help

    codex = flat(codex_help("it")).split("Anche in italiano: ", 1)[1]
    assert "fine-turno (end-turn)" in codex and "annulla (undo)" in codex
    assert not {"indizio", "tocca", "penalità", "copri", "posiziona"} & set(re.findall(r"[\w-]+", codex))
    grid = flat(help_text(make_game(Rules()), "it")).split("Anche in italiano: ", 1)[1]
    assert "indizio (clue)" in grid and "penalità (penalty)" in grid
    alias = flat(help_text(make_game(Rules(game="alias24")), "it")).split("Anche in italiano: ", 1)[1]
    assert "tocca (touch)" in alias and not {"penalità", "copri", "posiziona"} & set(re.findall(r"[\w-]+", alias))


@pytest.mark.parametrize("page, lang", [("simulator.md", "en"), ("simulator.it.md", "it")])
def test_the_simulator_pages_example_is_what_the_terminal_prints(page, lang):
    """docs/play/simulator*.md show the terminal: each line shown (but "...") is a line it prints
    now, after the commands typed there ("> ...") are played."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "play" / page).read_text(encoding="utf-8")
    block = re.search(r"\n```\n(.*?)\n```", text[text.index("`.venv/bin/pi-table sim`"):], re.DOTALL).group(1).splitlines()
    typed = [line[2:] for line in block if line.startswith("> ")]
    printed, _ = session_output(typed, lang=lang)
    lines = {line.rstrip() for line in printed.splitlines()}
    shown = [line.rstrip() for line in block if line.strip() != "..." and not line.startswith("> ")]
    assert typed and shown and [line for line in shown if line not in lines] == []


@pytest.mark.parametrize("lang, legend", [("en", "R=red agent  B=blue agent  N=bystander  A=assassin"),
                                          ("it", "R=agente rosso  B=agente blu  N=ignaro passante  A=assassino")])
def test_the_key_legend_names_each_letter_of_the_key_string_in_words(lang, legend):
    """The key grid shows the key string's own letters (R, B, N, A: DESIGN's stable contract, the
    same for a script in either language), and the legend names each in the language's words:
    the Italian N is "ignaro passante", never left to be read as "nero"."""
    text, _ = session_output([], lang=lang)
    assert f"  {legend}   [x]=" in text


def test_in_italian_the_buttons_own_words_are_taken_with_their_space():
    """Issue 63, item 3: FINE TURNO, NUOVA PARTITA, TEMPO SCADUTO as the buttons write them (a
    space) are taken as the hyphenated words are; the help leads with the Italian verbs."""
    _, session = session_output(["indizio 2", "tocca 0", "fine  turno"], lang="it")
    assert session.record.moves == 3  # the clue, a guess, and the turn ended
    italian, session = session_output(["tempo scaduto", "nuova partita", "s"], lang="it")
    assert "non è un comando" not in flat(italian)
    assert "il tempo scaduto chiude un turno solo quando finisce un timer vincolante" in flat(italian)  # the game's answer
    assert "c'è una partita in corso: ne preparo una nuova al suo posto?" in flat(italian)
    said = flat(help_text(make_game(Rules()), "it"))
    assert "indizio N " in said and "fine-turno " in said and "nuova-partita [G] " in said
    assert not re.search(r"\s(clue|touch|end-turn|new-game) ", said.split("Anche in italiano:")[0])
