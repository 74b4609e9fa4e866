"""Codex in the terminal simulator, played as a group at one laptop plays it: each agent's
private turn behind "pass the screen to" and I AM, the buttons typed by their numbers through
the terminal's real input loop; ``new-game`` across the kinds of games; the command line."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest

from pi_table.engine.codex import Codex
from pi_table.engine.codex_rules import CodexRules
from pi_table.sim.codex_terminal import CLEAR
from pi_table.sim.terminal import Painter, interactive, visible
from pi_table.sim.terminals import terminal
from pi_table.table import Session

SETUP = (
    "Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
    "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF"
)
FRAGMENTS = ("AAAA", "BBBB", "CCCC", "DDDD", "EEEE", "FFFF")
BUTTON = re.compile(r"\[(\d+)\] (.+?)(?=   \[|$)", re.MULTILINE)


class Group:
    """Six people at one laptop: at each prompt the next of them reads the buttons the terminal
    shows last and types the number of the one they want (a line as it is, when it is not a
    button's words)."""

    def __init__(self, wants: list[str]) -> None:
        self.wants = iter(wants)
        self.out: list[str] = []
        self.asked: list[tuple[str, int]] = []  # each want, and how much had been written then
        self.lost: list[tuple[str, list[str]]] = []  # a button wanted that the terminal did not show

    def write(self, text: str) -> None:
        self.out.append(text)

    def buttons(self) -> dict[str, str]:
        """The buttons of the page shown last: its words, and the number to type."""
        text = "".join(self.out)
        last = text.rfind("\n  [1] ")
        return {label: number for number, label in BUTTON.findall(text[last:])} if last >= 0 else {}

    def read(self, prompt: str) -> str:
        self.out.append(prompt)
        try:
            want = next(self.wants)
        except StopIteration:
            raise EOFError from None
        self.asked.append((want, len("".join(self.out))))
        line = want
        if any(letter.isupper() for letter in want) or want in WORDS:  # a button's words
            buttons = self.buttons()
            if want not in buttons:
                self.lost.append((want, sorted(buttons)))
                raise EOFError  # the person cannot find the button: they leave
            line = buttons[want]
        self.out.append(line + "\n")
        return line

    @property
    def text(self) -> str:
        return "".join(self.out)


WORDS = {"position", "role", "posizione", "ruolo"}
MESSAGES = [("MOON", "Aleman (seat 1)", "position"), ("ALEMAN", "Moon (seat 0)", "position"),
            ("VIPER", "Moon (seat 0)", "position"), ("FALCO", "Nebbia (seat 4)", "role"),
            ("NEBBIA", "Orso (seat 5)", "role"), ("ORSO", "Falco (seat 3)", "position")]
RED_WINS = ["PASS AND PLAY", *(want for agent, to, fact in MESSAGES for want in (f"I AM {agent}", to, fact, "NEXT AGENT")),
            "I AM MOON", "ENTER A CODE", "AAAA", "BBBB", "CCCC", "END MY TURN", "NEXT AGENT",
            *(want for agent in ("ALEMAN", "VIPER", "FALCO", "NEBBIA") for want in (f"I AM {agent}", "END MY TURN",
                                                                                   "NEXT AGENT")),
            "I AM ORSO", "END MY TURN"]
"""A whole game by pass-and-play: the six messages (Moon hears Aleman's and Viper's fragments),
Moon enters red's code in three taps, and the private step ends with the sixth agent."""


def play(wants: list[str], lang: str = "en", clear: bool = True) -> tuple[Group, Session]:
    rules = CodexRules()
    session = Session(rules, rng=random.Random(1), key=Codex(rules).parse_setup(SETUP))
    group = Group(wants)
    interactive(session, group.read, group.write, Painter(False, lang), terminal, options={"discussion_s": 60}, clear=clear)
    assert group.lost == []
    return group, session


def test_a_whole_game_by_pass_and_play_through_the_prompt():
    group, session = play(RED_WINS)
    view = session.record.game.public_view(session.record.state)
    assert view.winner is not None and view.winner.value == "red" and view.winning_seat == 0
    text = group.text
    assert "RED FACTION WINS" in text and "WINNING CODE: AAAA-BBBB-CCCC" in text
    assert "Pass the screen to Viper (seat 2)" in text and "Hidden. Pass the screen to the next agent" in text
    assert "Moon (seat 0): your turn · Phase 1 · Private turn" in text
    assert "code AAAA-BBBB-CCCC: sealed till the step ends" in text  # Moon's own result, on Moon's turn
    assert all(visible(line) <= 80 for line in text.splitlines())


def test_nothing_private_shows_until_the_named_agent_says_i_am_and_its_turn_is_wiped_after():
    group, _ = play(RED_WINS)
    text = group.text
    turns = [at for want, at in group.asked if want.startswith("I AM")]
    assert text.count(CLEAR) == len(turns) == 12  # every private turn wiped off the terminal, scrollback too
    for start, end in zip([0, *[text.index(CLEAR, at) for at in turns[:-1]]], turns, strict=True):
        public = text[start:end]  # from the last wipe until the next agent says it is at the screen
        assert "IDENTIKIT" not in public and not [f for f in FRAGMENTS if f in public], public
    moon = text[turns[6]:text.index(CLEAR, turns[6])]  # Moon's private turn: what Moon has seen, no more
    assert {f for f in FRAGMENTS if f in moon} == {"AAAA", "BBBB", "CCCC"}


ITALIAN_BUTTONS = {"PASS AND PLAY": "PASSA E GIOCA", "NEXT AGENT": "PROSSIMO AGENTE", "ENTER A CODE": "INSERISCI IL CODICE",
                   "END MY TURN": "HO FINITO", "position": "posizione", "role": "ruolo"}


def in_italian(wants: list[str]) -> list[str]:
    """The same wants, as the buttons say them in Italian."""
    return [ITALIAN_BUTTONS.get(want, want.replace("I AM ", "SONO ").replace("(seat ", "(posto ")) for want in wants]


@pytest.mark.parametrize("lang, prompt, so_far", [
    ("en", "  Your faction's code: the fragment in position 3", "  the code so far: AAAA-BBBB"),
    ("it", "  Il codice della tua fazione: il frammento in posizione 3", "  il codice finora: AAAA-BBBB")])
def test_a_code_being_entered_shows_the_code_so_far_on_its_own_line(lang, prompt, so_far):
    """Before: "the fragment in position 3  AAAA-BBBB", which read as position 3 being AAAA-BBBB."""
    wants = RED_WINS[:RED_WINS.index("CCCC")]
    group, _ = play(in_italian(wants) if lang == "it" else wants, lang=lang)
    lines = group.text.splitlines()
    at = lines.index(prompt)
    assert lines[at + 1] == so_far and lines[at + 2].startswith("  [3] CCCC")  # its number from the code's start
    assert [line for line in lines if "position 2  " in line or "posizione 2  " in line] == []


@pytest.mark.parametrize("lang, words", [
    ("en", ("RED FACTION WINS", "Pass the screen", "NEXT AGENT", "TRUTH MACHINE", "  WINNING CODE: AAAA-BBBB-CCCC",
            "  [1] NEW GAME", "  0 Moon    red faction · Leader · 1 · AAAA",
            "  3 Falco   blue faction · Leader · 1 · DDDD")),
    ("it", ("VINCE LA FAZIONE ROSSA", "Passa lo schermo", "PROSSIMO AGENTE", "MACCHINA DELLA VERITÀ",
            "  CODICE VINCENTE: AAAA-BBBB-CCCC", "  [1] NUOVA PARTITA", "  0 Moon    fazione rossa · Leader · 1 · AAAA",
            "  3 Falco   fazione blu · Leader · 1 · DDDD"))])
def test_after_a_win_the_screen_calls_nobody_names_each_agents_faction_and_shows_the_code_apart(lang, words):
    """Before: the won game's screen still said "Hidden. Pass the screen to the next agent" with
    NEXT AGENT, gave no agent's faction, and showed the code under TRUTH MACHINE."""
    title, passing, next_agent, truth, code, new_game, moon, falco = words
    group, _ = play(in_italian(RED_WINS) if lang == "it" else RED_WINS, lang=lang)
    end = group.text[group.text.rindex(title):]
    assert passing not in end and next_agent not in end and truth not in end
    lines = end.splitlines()
    assert code in lines and moon in lines and falco in lines and new_game in lines


def test_without_a_terminal_to_wipe_it_prints_no_escapes():
    group, _ = play(RED_WINS[:6], clear=False)
    assert "\x1b" not in group.text


def test_the_buttons_refusals_and_a_scripts_words_in_the_prompt():
    group, session = play(["PASS AND PLAY", "9", "at-screen 3", "at-screen 0", "hide", "vote 0 1",
                           "send 1 0 role", "end-turn", "undo", "next", "at-screen 1", "tap send 1 2 position", "help"])
    text = group.text
    assert "the screen has the buttons 1, 2, not 9" in text
    assert "the screen has no button for at-screen 3 now" in text  # the screen calls Moon
    assert "refused: agents vote only in the vote step" in text
    assert "refused: END TURN ends the discussion only" in text
    assert "undo took back: an action of Aleman (seat 1)" in text  # whose, never what
    assert "send SEAT TO FACT [FACT]" in text and "pass-and-play on|off" in text
    public = session.record.game.public_view(session.record.state)
    assert public.acted == (1,)  # Aleman's message taken back, then tapped through its buttons


def test_a_code_s_fragments_keep_their_numbers_as_each_is_chosen():
    """Issue 50: typing a code, each fragment chosen left the list and the rest moved up a number.
    Each keeps its number through the code, as do BACK and HIDE."""
    text = play(RED_WINS)[0].text
    entering = text.split("Your faction's code: the fragment in position 1", 1)[1].split("END MY TURN", 1)[0]
    pages = [[line.strip() for line in page.split("\n> ", 1)[0].splitlines() if line.strip().startswith("[")]
             for page in entering.split("the fragment in position")]
    assert pages == [["[1] AAAA   [2] BBBB   [3] CCCC   [4] BACK   [5] HIDE"],
                     ["[2] BBBB   [3] CCCC   [4] BACK   [5] HIDE"], ["[3] CCCC   [4] BACK   [5] HIDE"]]


def test_undo_with_nothing_to_undo_says_so_each_time():
    """Issue 50: Codex's terminal printed nothing when there was nothing to undo (the screen kept
    the refusal to itself), and nothing for a refusal typed twice."""
    text = play(["undo", "undo"])[0].text
    assert text.count("refused: there is nothing to undo") == 2, text


def test_new_game_changes_the_kind_of_game_and_back():
    """``new-game codex`` in the grid games' terminal (refused as an unknown game before), and
    ``new-game codenames`` from Codex's."""
    from pi_table.engine import Rules, make_game

    rules = Rules()
    session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key("RRRRRRRRRBBBBBBBBNNNNNNNA"))
    group = Group(["touch 0", "new-game codex", "y", "PASS AND PLAY", "new-game codenames", "y", "touch 3"])
    interactive(session, group.read, group.write, Painter(False), terminal)
    assert group.lost == []
    text = group.text
    assert "a game is in progress: deal Codex over it? (it cannot be brought back) [y/N]" in " ".join(text.split())
    assert "Pass the screen to" in text and "KEY (spymasters only)" in text.rsplit("Pass the screen to", 1)[1]
    assert session.kind == "grid" and session.record.moves == 1


def test_in_italian():
    group, _ = play(["PASSA E GIOCA", "SONO MOON", "Aleman (posto 1)", "posizione", "annulla", "aiuto"], lang="it")
    text = group.text
    assert "Passa lo schermo: tocca a Moon (posto 0)" in text and "Moon (posto 0): tocca a te" in text
    assert "annullato: un'azione di Moon (posto 0)" in text
    assert "Anche in italiano:" in text
    assert all(visible(line) <= 80 for line in text.splitlines())


def test_in_italian_codexs_own_moves_are_typed_in_italian_words():
    """send, done, vote... have the words of the Italian screen's buttons (INVIA, FATTO, VOTA), and
    the facts theirs (ruolo): typed, they play; a refusal and the help name them so."""
    group, session = play(["invia 1 0 ruolo", "invia 2 0 posizione", "invia 3", "aiuto"], lang="it")
    public = session.record.game.public_view(session.record.state)
    assert public.acted == (1, 2)
    said = " ".join(group.text.split())
    assert "invia POSTO A INFO [INFO]: 'invia' si scrive invia POSTO A INFO [INFO], non 'invia 3'" in said
    spoken = said.split("Anche in italiano: ", 1)[1]
    assert all(word in spoken for word in ("invia (send)", "codice (code)", "blocca (block)", "profila (profile)",
                                           "fatto (done)", "vota (vote)", "rivela (reveal)",
                                           "fine-discussione (end-discussion)"))


def test_the_command_line_plays_codex_in_the_terminal():
    """Before: ``pi-table sim --game codex`` exited 2, asking for a script."""
    done = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--game", "codex", "--seed", "3"],
                          input="1\n1\nquit\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "[1] PASS AND PLAY" in done.stdout and "Pass the screen to" in done.stdout
    assert "your turn" in done.stdout and "IDENTIKIT" in done.stdout


def test_in_italian_codexs_refusals_and_help_teach_the_italian_words_taken():
    """Issue 63, item 3: a refusal's usage and its facts in the words the Italian terminal takes
    (POSTO, INFO, estorci, nome-in-codice), never 'SEAT TO FACT' or 'codename'; a seat out of
    play is told what a seat is, not 'un posto è il numero di un posto'."""
    group, _ = play(["invia 3", "vota 1 2 estorci x", "fatto 9", "aiuto"], lang="it")
    said = " ".join(group.text.split())
    assert "invia POSTO A INFO [INFO]: 'invia' si scrive invia POSTO A INFO [INFO], non 'invia 3'" in said
    assert ("vota POSTO BERSAGLIO [estorci INFO]: un'informazione può essere nome-in-codice, fazione, ruolo, "
            "posizione, frammento, non 'x'") in said
    assert "fatto POSTO: il posto dev'essere uno dei posti in gioco, numerati da 0 a 5 (uno per agente), non 9" in said
    help_said = said.split("Comandi (gli stessi di un file di script):", 1)[1].split("Anche in italiano:")[0]
    assert "invia POSTO A INFO [INFO]" in help_said and "vota POSTO BERSAGLIO [estorci INFO]" in help_said
    assert not re.search(r"\b(send|vote|SEAT|FACT|extort|end-turn|new-game)\b", help_said)
